/* lle_load.c - stage "data" of lle: the points on every rank (generated identically on every
 * rank, or read by rank 0 and broadcast), lifted to ambient_dim, written to output.points. */
#include "lle.h"
#include "k_lle.h"
#include "io/io.h"
#include "runtime/rng.h"

#include <stdlib.h>

/* Rank 0 reads the point file, every rank receives the points.  Collective. */
static int lle_load_file(hy_ctx *ctx, const char *path, int color_last, lle_data *d) {
  int rc = HY_OK;
  long long hdr[3] = { 0, 0, 0 };
  if (ctx->rank == 0) {   /* rank 0's file, agreed right after */
    rc = lle_read_points(path, color_last, d);
    if (rc == HY_OK) { hdr[0] = d->n; hdr[1] = d->dim; }
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  HY_MPI(MPI_Bcast(hdr, 3, MPI_LONG_LONG, 0, ctx->comm));
  if (ctx->rank != 0) {
    d->n = hdr[0];
    d->dim = (int)hdr[1];
    HY_MALLOC(d->x, (size_t)d->n * d->dim);
    HY_MALLOC(d->t, (size_t)d->n);
  }
  const size_t chunk = (size_t)1 << 27;
  size_t tot = (size_t)d->n * d->dim;
  for (size_t off = 0; off < tot; off += chunk)
    HY_MPI(MPI_Bcast(d->x + off, (int)(tot - off < chunk ? tot - off : chunk), MPI_DOUBLE, 0, ctx->comm));
  for (size_t off = 0; off < (size_t)d->n; off += chunk)
    HY_MPI(MPI_Bcast(d->t + off, (int)((size_t)d->n - off < chunk ? (size_t)d->n - off : chunk), MPI_DOUBLE, 0, ctx->comm));
  return HY_OK;
}

/* Write the points and their colour as CSV (header x1..xD,t), atomically.  Local. */
static int lle_write_points(const char *path, const lle_data *d) {
  char tmp[4096];
  FILE *f = NULL;
  HY_CALL(io_atomic_open(path, tmp, sizeof tmp, &f));
  for (int c = 0; c < d->dim; c++) fprintf(f, "x%d,", c + 1);
  fprintf(f, "t\n");
  int ok = 1;
  for (int64_t i = 0; ok && i < d->n; i++) {
    for (int c = 0; c < d->dim; c++) fprintf(f, "%.17g,", d->x[i * d->dim + c]);
    ok = fprintf(f, "%.17g\n", d->t[i]) > 0;
  }
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  return ok ? HY_OK : hy_err(HY_ESYS, "%s: write failed", path);
}

/* Uniform points in [0,1)^D (KNN benchmarks), the colour their first coordinate.  Local. */
static void lle_gen_uniform(lle_data *d, int64_t n, int D, uint32_t seed) {
  d->n = n;
  d->dim = D;
  HY_MALLOC(d->x, (size_t)n * D);
  HY_MALLOC(d->t, (size_t)n);
  for (int64_t i = 0; i < n * D; i++) d->x[i] = hy_rand_u01(seed, 0x4e11, (uint64_t)i);
  for (int64_t i = 0; i < n; i++) d->t[i] = d->x[i * D];
}

/* With more than one rank, rank 0 gathers n x wk values of W (wk = k, or a local block's
 * values) through one MPI count: refuse a generated n beyond 2^31 - 1 of them before anything
 * is generated (a file's n is checked at the gather).  Local: every rank decides the same. */
static int lle_check_gather_size(const hy_ctx *ctx, const lle_opts *o) {
  int64_t wk = o->method == LLE_STANDARD ? o->k : K_LLE_BLOCK_VALS(o->k, o->method);
  if (ctx->size == 1 || o->dataset == LLE_FILE || (int64_t)o->n * wk <= INT32_MAX) return HY_OK;
  return hy_err(HY_EUSAGE, "key 'lle.n' = %lld: on %d ranks W's n x %lld = %lld values (lle.k = %d, %s) are gathered "
                "on rank 0 through one MPI count, at most 2^31 - 1 (run on 1 rank, or n <= %lld)", (long long)o->n,
                ctx->size, (long long)wk, (long long)(o->n * wk), o->k, o->method_name, (long long)(INT32_MAX / wk));
}

/* The points of the run into info->data.  Collective. */
int lle_load(hy_ctx *ctx, const lle_opts *o, lle_info *info) {
  lle_data *d = &info->data;
  HY_CALL(lle_check_gather_size(ctx, o));
  hy_phase_begin(ctx, "data");
  if (o->dataset != LLE_FILE)   /* the points on every rank, this rank's neighbour lists */
    HY_CALL(hy_mem_check(ctx, 8.0 * o->n * (o->ambient_dim ? o->ambient_dim : 2) + 12.0 * o->n * o->k / ctx->size, 0,
                         "the points on every rank and its neighbour lists, at least", "lle.n = %lld", (long long)o->n));
  if (o->dataset == LLE_FILE) {
    HY_CALL(lle_load_file(ctx, o->file, o->color_last, d));
  } else if (o->dataset == LLE_UNIFORM) {
    lle_gen_uniform(d, o->n, o->ambient_dim ? o->ambient_dim : 3, o->seed);
  } else {
    HY_LOCAL(o->dataset == LLE_SCURVE ? lle_gen_scurve(d, o->n, o->noise, o->seed)
             : o->hole                ? lle_gen_swissroll_hole(d, o->n, o->noise, o->seed)
                                      : lle_gen_swissroll(d, o->n, o->noise, o->seed));
  }
  if (o->ambient_dim > 0 && o->dataset != LLE_UNIFORM) {   /* the same data on every rank */
    if (o->ambient_dim < d->dim)
      return hy_err(HY_EUSAGE, "lle.ambient_dim = %d is below the data dimension %d", o->ambient_dim, d->dim);
    HY_LOCAL(lle_lift(d, o->ambient_dim, o->seed));
  }
  hy_phase_end(ctx, "data");
  if (o->out_points[0]) {
    int rc = ctx->rank == 0 ? lle_write_points(o->out_points, d) : HY_OK;
    HY_CALL(hy_agree(ctx->comm, rc));
  }
  if (o->k >= d->n)
    return hy_err(HY_EINPUT, "lle.k = %d neighbours need more than %lld points (the data has %lld)", o->k,
                  (long long)o->k, (long long)d->n);
  if (d->n > INT32_MAX) return hy_err(HY_EINPUT, "%lld points exceed 2^31 - 1", (long long)d->n);
  if (o->transform[0]) {   /* the new points of lle.transform, the same on every rank */
    HY_CALL(lle_load_file(ctx, o->transform, 0, &info->tdata));
    if (info->tdata.dim != d->dim)
      return hy_err(HY_EINPUT, "%s: lle.transform points have %d coordinates, the training points %d%s", o->transform,
                    info->tdata.dim, d->dim, o->ambient_dim ? " (after lle.ambient_dim)" : "");
  }
  return HY_OK;
}
