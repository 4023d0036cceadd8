/* sort_solve.c - stage "sort": the block goes to the device and is sorted there by the local
 * variant of the backend's table; with P > 1 the sample-sort exchange moves the pieces between
 * the devices (sort_exchange.c, through app/comm's transport) and the P received runs are
 * merged on the device; the result comes back to the host.  "device time" is the whole of it
 * (transfers and exchange included), "kernel time" the local sort and the merge as the backend
 * timed them.  Also stage "vendor": the vendor's sorts on the same input keys. */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* Make d hold n elements of kb bytes (indices when idx).  Local (aborts on failure). */
void sort_dev_reserve(k_backend *be, sort_dev *d, int64_t n, size_t kb, int idx) {
  if (n <= d->cap && d->k && (!idx || d->i)) return;
  sort_dev_free(be, d);
  HY_LOCAL(be->ops->alloc(be, &d->k, (size_t)n * kb + 8));
  if (idx) HY_LOCAL(be->ops->alloc(be, (void **)&d->i, (size_t)n * 8 + 8));
  d->cap = n;
}

/* Free the device buffers.  Local. */
void sort_dev_free(k_backend *be, sort_dev *d) {
  if (d->k) be->ops->free(be, d->k);
  if (d->i) be->ops->free(be, d->i);
  d->k = NULL;
  d->i = NULL;
  d->cap = 0;
}

/* Copy the block up (dir 0) or down (dir 1).  Local. */
static void sort_dev_copy(k_backend *be, sort_dev *d, sort_block *b, int dir) {
  if (!b->n) return;
  if (dir == 0) {
    HY_LOCAL(be->ops->h2d(be, d->k, b->keys, (size_t)b->n * b->kb));
    if (b->idx) HY_LOCAL(be->ops->h2d(be, d->i, b->idx, (size_t)b->n * 8));
  } else {
    HY_LOCAL(be->ops->d2h(be, b->keys, d->k, (size_t)b->n * b->kb));
    if (b->idx) HY_LOCAL(be->ops->d2h(be, b->idx, d->i, (size_t)b->n * 8));
  }
  HY_LOCAL(be->ops->sync(be));
}

/* The host buffers of the block for n elements (after the exchange).  Local. */
static void sort_host_resize(hy_ctx *ctx, sort_block *b, int64_t n) {
  k_backend *be = &ctx->be;
  int idx = b->idx != NULL;
  sort_block_free(ctx, b);
  HY_LOCAL(be->ops->alloc_pinned(be, &b->keys, (size_t)n * b->kb + 8));
  if (idx) HY_LOCAL(be->ops->alloc_pinned(be, (void **)&b->idx, (size_t)n * 8 + 8));
}

/* The transport of the exchange (P > 1), its description for the report.  Collective. */
static int sort_xchg_open(hy_ctx *ctx, const sort_opts *o, hy_grid *g, hy_bcast **xc, sort_info *inf) {
  HY_CALL(hy_grid_make(ctx->comm, 1, ctx->size, g));
  HY_CALL(hy_bcast_open(g, &ctx->be, o->xchg, "sort.exchange", o->host_coll, xc));
  hy_bcast_describe(*xc, inf->xchg, sizeof inf->xchg);
  return HY_OK;
}

/* The slowest rank's times and the balance into inf.  Collective. */
static int sort_solve_figures(hy_ctx *ctx, const sort_block *b, const double *t, sort_info *inf) {
  double mx[4], tk = t[1] + t[2], tkmax = 0;
  HY_MPI(MPI_Allreduce(t, mx, 4, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Allreduce(&tk, &tkmax, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  inf->device_s = mx[0];
  inf->kernel_local_s = mx[1];
  inf->kernel_merge_s = mx[2];
  inf->exchange_s = mx[3];
  inf->kernel_s = tkmax;
  int64_t nn[2] = { b->n, -b->n }, nx[2];
  HY_MPI(MPI_Allreduce(nn, nx, 2, MPI_INT64_T, MPI_MAX, ctx->comm));
  inf->nmax = nx[0];
  inf->nmin = -nx[1];
  inf->imbalance = b->n_global ? (double)inf->nmax / ((double)b->n_global / ctx->size) : 1.0;
  return HY_OK;
}

/* The whole device sort of the block.  Collective. */
int sort_solve(hy_ctx *ctx, const sort_opts *o, sort_block *b, sort_info *inf) {
  k_backend *be = &ctx->be;
  const k_sort_ops *ops = k_sort_ops_get(be);
  k_sort_args a = { b->type, o->merge_path_from, o->merge_tile };
  hy_grid g;
  hy_bcast *xc = NULL;
  if (ctx->size > 1) HY_CALL(sort_xchg_open(ctx, o, &g, &xc, inf));
  sort_dev d = { NULL, NULL, 0 };
  sort_dev_reserve(be, &d, b->n, b->kb, b->idx != NULL);
  double t[4] = { 0, 0, 0, 0 };   /* device, local kernels, merge kernels, exchange */
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  hy_phase_begin(ctx, "sort.local");
  sort_dev_copy(be, &d, b, 0);
  hy_debug_point(ctx, "sort");
  if (b->n) HY_LOCAL(ops->local[o->local](be, &a, d.k, d.i, b->n, &t[1]));
  hy_phase_end(ctx, "sort.local");
  if (xc) {
    double tx0 = hy_wtime();
    hy_phase_begin(ctx, "sort.exchange");
    int64_t *off = NULL;
    HY_MALLOC(off, ctx->size + 1);
    HY_CALL(sort_exchange(ctx, o, xc, b, &d, off));
    hy_phase_end(ctx, "sort.exchange");
    t[3] = hy_wtime() - tx0;
    hy_phase_begin(ctx, "sort.merge");
    if (b->n) HY_LOCAL(ops->merge_runs(be, b->type, d.k, d.i, b->n, ctx->size, off, &t[2]));
    hy_phase_end(ctx, "sort.merge");
    free(off);
    sort_host_resize(ctx, b, b->n);
  }
  sort_dev_copy(be, &d, b, 1);
  t[0] = hy_wtime() - t0;
  sort_dev_free(be, &d);
  if (xc) {
    hy_bcast_close(xc);
    hy_grid_free(&g);
  }
  return sort_solve_figures(ctx, b, t, inf);
}

/* The vendor's sorts of this rank's input keys on the device.  Collective. */
int sort_vendor(hy_ctx *ctx, const sort_opts *o, const sort_block *in, sort_info *inf) {
  k_backend *be = &ctx->be;
  const k_sort_ops *ops = k_sort_ops_get(be);
  inf->vendor_radix_s = inf->vendor_merge_s = inf->vendor_pairs_s = -1;
  inf->vendor_ok = 1;
  if (!o->vendor || !ops->vendor_radix || !ops->vendor_merge) return HY_OK;
  void *dk = NULL;
  HY_LOCAL(be->ops->alloc(be, &dk, (size_t)in->n * in->kb + 8));
  if (in->n) HY_LOCAL(be->ops->h2d(be, dk, in->keys, (size_t)in->n * in->kb));
  double tr = 0, tm = 0, tp = 0;
  int okr = 1, okm = 1, okp = 1, pairs = o->payload && ops->vendor_merge_pairs;
  if (in->n) HY_LOCAL(ops->vendor_radix(be, in->type, dk, in->n, &tr, &okr));
  if (in->n) HY_LOCAL(ops->vendor_merge(be, in->type, dk, in->n, &tm, &okm));
  if (in->n && pairs) HY_LOCAL(ops->vendor_merge_pairs(be, in->type, dk, in->n, &tp, &okp));
  be->ops->free(be, dk);
  double tv[3] = { tr, tm, tp }, tx[3];
  HY_MPI(MPI_Allreduce(tv, tx, 3, MPI_DOUBLE, MPI_MAX, ctx->comm));
  int ok = okr && okm && okp, okall = 0;
  HY_MPI(MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, ctx->comm));
  inf->vendor_radix_s = tx[0];
  inf->vendor_merge_s = tx[1];
  inf->vendor_pairs_s = pairs ? tx[2] : -1;
  inf->vendor_ok = okall;
  return HY_OK;
}
