/* spai_setup_warm.c - the setup's warm-up ([spai] warmup): what the first setup of a process
 * pays once and a user pays once per job anyway (CUDA: lazy loading of every kernel the setup
 * launches, the first cuSPARSE csr2csc and CUB scan calls, cudaFuncSetAttribute, the memory
 * pool's first mapping of device memory) taken out of the timed setups and reported on its own
 * line.  It runs the backend table's column kernels in every kernel class and its pattern
 * builders on a small built-in problem (checked), then grows the backend's memory pool to the
 * estimated size of the first setup of the local A and keeps it. */
#include "spai/spai.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The built-in problem: tridiagonal (-1, 4, -1) of WARM_N rows with a 5-point coupling every
 * 7th row, so that |I| and |J| vary (3..5 and 5..9). */
#define WARM_N 48

typedef struct {
  int64_t rp[WARM_N + 1];
  int32_t ci[5 * WARM_N];
  double v[5 * WARM_N];
  int64_t nnz;
} warm_csr;

/* The built-in matrix (symmetric pattern, so B = A^T has A's rows).  Local. */
static void warm_matrix(warm_csr *w) {
  int64_t nz = 0;
  w->rp[0] = 0;
  for (int i = 0; i < WARM_N; i++) {
    int cols[5], nc = 0;
    if (i >= 7 && i % 7 == 0) cols[nc++] = i - 7;
    if (i > 0) cols[nc++] = i - 1;
    cols[nc++] = i;
    if (i + 1 < WARM_N) cols[nc++] = i + 1;
    if ((i + 7) % 7 == 0 && i + 7 < WARM_N) cols[nc++] = i + 7;
    for (int t = 0; t < nc; t++) {
      w->ci[nz] = cols[t];
      w->v[nz] = cols[t] == i ? 4.0 + 0.01 * i : -1.0 - 0.001 * (i + cols[t]);
      nz++;
    }
    w->rp[i + 1] = nz;
  }
  w->nnz = nz;
}

/* The results of one pass: every value finite, every residual in [0, 1] (e_k is a candidate,
 * so the least-squares residual is at most 1).  Local (a failure ends the job). */
static void warm_check(const char *what, int64_t n, const double *mval, int64_t nj,
                       const double *res) {
  for (int64_t e = 0; e < nj; e++)
    if (!isfinite(mval[e]))
      HY_LOCAL(hy_err(HY_ESYS, "spai warm-up (%s): value %lld of the built-in problem is not "
                      "finite: the backend's column kernels are broken", what, (long long)e));
  for (int64_t k = 0; k < n; k++)
    if (!(res[k] >= 0 && res[k] <= 1 + 1e-12))
      HY_LOCAL(hy_err(HY_ESYS, "spai warm-up (%s): residual of column %lld of the built-in "
                      "problem is %g, not in [0, 1]: the backend's column kernels are broken",
                      what, (long long)k, res[k]));
}

/* Index sets, submatrices, QR + solve and the results of a column state (ncols columns, nj
 * values), checked.  Local. */
static void warm_columns(k_backend *be, const k_spai_ops *ko, void *st, int64_t ncols, int64_t nj,
                         const char *what) {
  int32_t isize[WARM_N];
  double mval[5 * WARM_N * 2], res[WARM_N];
  k_spai_stats ks;
  memset(&ks, 0, sizeof ks);
  int64_t *ends = NULL, nbatch = 0;   /* the backend's batches where it cuts them */
  if (ko->cols_index_batches)
    HY_LOCAL(ko->cols_index_batches(be, st, (int64_t)1 << 30, &ends, &nbatch));
  else
    HY_LOCAL(ko->cols_index(be, st, isize));
  for (int64_t b = 0, c = 0; c < ncols; b++) {
    int64_t e = ends ? ends[b] : ncols;
    HY_LOCAL(ko->cols_submat(be, st, c, e));
    HY_LOCAL(ko->cols_solve(be, st, c, e, &ks));
    c = e;
  }
  free(ends);
  HY_LOCAL(ko->cols_result(be, st, mval, res));
  warm_check(what, ncols, mval, nj, res);
}

/* One pass of the column kernels (cols_setup .. cols_free) with the given kernel choice: J_k =
 * B's row k.  Local. */
static void warm_cols_pass(k_backend *be, const k_spai_ops *ko, const warm_csr *w,
                           const k_spai_cols *choice) {
  int32_t kglob[WARM_N];
  int64_t iub[WARM_N + 1];
  iub[0] = 0;
  for (int k = 0; k < WARM_N; k++) {
    kglob[k] = k;
    int64_t s = 0;
    for (int64_t e = w->rp[k]; e < w->rp[k + 1]; e++) s += w->rp[w->ci[e] + 1] - w->rp[w->ci[e]];
    iub[k + 1] = iub[k] + s;
  }
  k_spai_cols d = *choice;
  d.ncols = WARM_N;
  d.kglob = kglob;
  d.jptr = w->rp;
  d.jloc = w->ci;
  d.nb = WARM_N;
  d.bptr = w->rp;
  d.bcol = w->ci;
  d.bval = w->v;
  d.iub = iub;
  void *st = NULL;
  HY_LOCAL(ko->cols_setup(be, &d, &st));
  warm_columns(be, ko, st, WARM_N, w->nnz, "columns");
  ko->cols_free(be, st);
}

/* M as the solve's matrix on the backend (single_mat) from a single_setup state, copied back
 * (mat_get) and compared with single_rows' rows rp / ci / v and with itself (mat_differs): the
 * same entries bit for bit, else the job ends at start.  Local. */
static void warm_single_mat(k_backend *be, const k_spai_ops *ko, void *st, const int64_t *rp,
                            const int32_t *ci, const double *v) {
  void *mat = NULL;
  int64_t nnz = 0, bad = -1, at = 0, *rp2 = NULL;
  int32_t *ci2 = NULL;
  double *v2 = NULL, res[WARM_N];
  HY_LOCAL(ko->single_mat(be, st, &mat, &nnz, res, &bad, NULL));
  HY_LOCAL(ko->mat_get(be, mat, &rp2, &ci2, &v2));
  HY_LOCAL(ko->mat_differs(be, mat, mat, &at));
  int same = nnz == rp[WARM_N] && !memcmp(rp2, rp, (WARM_N + 1) * sizeof *rp) &&
             !memcmp(ci2, ci, (size_t)nnz * sizeof *ci) && !memcmp(v2, v, (size_t)nnz * sizeof *v);
  if (!same || at != -1)
    HY_LOCAL(hy_err(HY_ESYS, "spai warm-up (M on the device): the matrix made by single_mat "
                    "(%lld entries) is not single_rows' (%lld) bit for bit, or differs from "
                    "itself (row %lld)", (long long)nnz, (long long)rp[WARM_N], (long long)at));
  free(rp2);
  free(ci2);
  free(v2);
  ko->mat_free(be, mat);
}

/* The one-rank device pattern (single_setup, the columns, single_rows) on the built-in problem,
 * where the backend has it.  Local. */
static void warm_single(k_backend *be, const k_spai_ops *ko, const warm_csr *w,
                        const spai_setup_opts *o) {
  if (!ko->single_setup) return;
  k_spai_single in = { .n = WARM_N, .rowptr = w->rp, .colind = w->ci, .val = w->v, .tau = 1.0,
                       .cmax = NULL, .max_col = 64, .small_rows = o->small_rows,
                       .small_cols = o->small_cols, .medium_elems = o->medium_elems,
                       .block_threads = o->block_threads, .fuse_submat = o->fuse_submat,
                       .warp_rows = o->warp_rows };
  void *st = NULL;
  int64_t *jptr = NULL;
  int fits = 0;
  HY_LOCAL(ko->single_setup(be, &in, &st, &jptr, &fits));
  if (fits && st) {
    /* (tau 1 keeps every entry of the built-in matrix, whose diagonal is there: J_k = B's row k,
     * nnz values in all, where the backend kept the offsets to itself) */
    warm_columns(be, ko, st, WARM_N, jptr ? jptr[WARM_N] : w->nnz, "device pattern");
    int64_t *rp = NULL, bad = -1;
    int32_t *ci = NULL;
    double *v = NULL, res[WARM_N];
    if (ko->single_rows) HY_LOCAL(ko->single_rows(be, st, &rp, &ci, &v, res, &bad, NULL));
    if (ko->single_mat && rp) warm_single_mat(be, ko, st, rp, ci, v);
    free(rp);
    free(ci);
    free(v);
  }
  if (st) ko->cols_free(be, st);
  free(jptr);
}

/* A warm-up failure of the device rows.  Local (ends the job). */
static void warm_rows_fail(const char *what, int64_t at) {
  HY_LOCAL(hy_err(HY_ESYS, "spai warm-up (device rows): %s (at %lld) on the built-in problem: the "
                  "backend's rows entries are broken", what, (long long)at));
}

/* Rows 0..23 (t2, a block) and 24..47 (a host piece: the block of rows 24..47 gathered back)
 * of the built-in problem transposed and merged into B = A^T on the backend as two ranks'
 * pieces would be (dist_trans, rows_gather, rows_merge); *mx: the row maxima.  Local. */
static void *warm_brows(k_backend *be, const k_spai_ops *ko, const warm_csr *w, double *mx) {
  const int h = WARM_N / 2;
  int64_t rp3[WARM_N / 2 + 1], ga = 0, gb = 0, ha = 0, hb = 0, list[WARM_N], *off = NULL;
  for (int i = 0; i <= h; i++) rp3[i] = w->rp[h + i] - w->rp[h];
  void *t2 = NULL, *t3 = NULL, *b = NULL;
  int32_t *col = NULL;
  double *val = NULL;
  HY_LOCAL(ko->dist_trans(be, h, 0, w->rp, w->ci, w->v, &t2, &ga, &gb, mx));
  HY_LOCAL(ko->dist_trans(be, h, h, rp3, w->ci + w->rp[h], w->v + w->rp[h], &t3, &ha, &hb, mx + h));
  if (ga != 0 || gb <= h || ha >= h || hb != WARM_N) warm_rows_fail("dist_trans' row ranges", gb);
  for (int64_t i = 0; i < hb - ha; i++) list[i] = i;
  HY_LOCAL(ko->rows_gather(be, t3, hb - ha, list, &off, &col, &val));
  k_spai_piece pc[2] = { { .row0 = ga, .rows = gb - ga, .t = t2, .t_row0 = 0 },
                         { .row0 = ha, .rows = hb - ha, .off = off, .col = col, .val = val } };
  HY_LOCAL(ko->rows_merge(be, WARM_N, 2, pc, &b));
  HY_LOCAL(ko->rows_free(be, t2));
  HY_LOCAL(ko->rows_free(be, t3));
  free(off); free(col); free(val);
  return b;
}

/* The P-rank device setup's rows (spai.dist_exchange = device) on the built-in problem as one
 * rank, where the backend has them, checked against the host path: B merged from two halves'
 * transposes (warm_brows; the matrix is symmetric: B's rows, gathered back in reverse order, must
 * be A's bit for bit), the pattern on that block (dist_setup's brows), M's rows kept
 * (dist_rows_dev) and made the solve's matrix (rows_mat), whose copy must be ref (dist_rows' M)
 * bit for bit.  Local. */
static void warm_dist_dev(k_backend *be, const k_spai_ops *ko, const warm_csr *w,
                          const k_spai_dist *din, const int64_t *rrp, const int32_t *rci,
                          const double *rv) {
  if (!spai_dev_rows_ok(ko)) return;
  void *b = NULL, *st = NULL, *tm = NULL, *mat = NULL;
  int64_t list[WARM_N], *off = NULL, *jptr = NULL, bad = -1, nnz = 0;
  int32_t *col = NULL, *jglob = NULL;
  double *val = NULL, mx[WARM_N], res[WARM_N];
  b = warm_brows(be, ko, w, mx);
  for (int i = 0; i < WARM_N; i++) list[i] = WARM_N - 1 - i;
  HY_LOCAL(ko->rows_gather(be, b, WARM_N, list, &off, &col, &val));
  for (int i = 0; i < WARM_N; i++) {
    int64_t r = list[i], l = w->rp[r + 1] - w->rp[r];
    if (off[i + 1] - off[i] != l) warm_rows_fail("a row's length in B", r);
    for (int64_t k = 0; k < l; k++)
      if (col[off[i] + k] != w->ci[w->rp[r] + k] || val[off[i] + k] != w->v[w->rp[r] + k])
        warm_rows_fail("an entry of B", r);
  }
  k_spai_dist in = *din;
  in.bptr = NULL;
  in.bcol = NULL;
  in.bval = NULL;
  in.mxb = mx;
  in.brows = b;   /* taken over */
  in.jglob_kept = 1;   /* as the device assembly asks */
  int fits = 0;
  HY_LOCAL(ko->dist_setup(be, &in, &st, &jptr, &jglob, &fits));
  if (!fits || !st) warm_rows_fail("the pattern on the merged rows declined", 0);
  warm_columns(be, ko, st, WARM_N, jptr[WARM_N], "dist pattern, device rows");
  int64_t g0 = -1, g1 = -1;
  HY_LOCAL(ko->dist_rows_dev(be, st, jglob, 0, &tm, &g0, &g1, res, &bad, NULL));
  if (g0 != 0 || g1 != WARM_N) warm_rows_fail("dist_rows_dev's row range", g1);
  HY_LOCAL(ko->rows_mat(be, tm, 0, WARM_N, 0, NULL, &mat, &nnz));
  int64_t *mrp = NULL;
  int32_t *mci = NULL;
  double *mv = NULL;
  HY_LOCAL(ko->mat_get(be, mat, &mrp, &mci, &mv));
  if (bad >= 0 || nnz != rrp[WARM_N]) warm_rows_fail("M's entries", nnz);
  for (int64_t i = 0; i < WARM_N; i++)
    if (mrp[i + 1] != rrp[i + 1]) warm_rows_fail("a row of M", i);
  for (int64_t e = 0; e < nnz; e++)
    if (mci[e] != rci[e] || memcmp(mv + e, rv + e, sizeof *mv)) warm_rows_fail("an entry of M", e);
  ko->mat_free(be, mat);
  ko->cols_free(be, st);
  free(off); free(col); free(val); free(jptr); free(jglob); free(mrp); free(mci); free(mv);
}

/* The P-rank pattern builder (dist_setup, as one rank holding every row, no ghosts) on the
 * built-in problem, where the backend has it; at P ranks with spai.dist_exchange = device also
 * the device rows (warm_dist_dev).  Local. */
static void warm_dist(k_backend *be, const k_spai_ops *ko, const warm_csr *w,
                      const spai_setup_opts *o, int ranks) {
  if (!ko->dist_setup) return;
  double mxb[WARM_N];
  for (int i = 0; i < WARM_N; i++) {
    mxb[i] = 0;
    for (int64_t e = w->rp[i]; e < w->rp[i + 1]; e++)
      if (fabs(w->v[e]) > mxb[i]) mxb[i] = fabs(w->v[e]);
  }
  k_spai_dist in = { .nloc = WARM_N, .r0 = 0, .nghost = 0, .ghost = NULL, .bptr = w->rp,
                     .bcol = w->ci, .bval = w->v, .mxb = mxb, .cmax = NULL, .tau = 1.0,
                     .max_col = 64, .small_rows = o->small_rows, .small_cols = o->small_cols,
                     .medium_elems = o->medium_elems, .block_threads = o->block_threads,
                     .fuse_submat = o->fuse_submat, .warp_rows = o->warp_rows };
  void *st = NULL;
  int64_t *jptr = NULL;
  int32_t *jglob = NULL;
  int fits = 0;
  HY_LOCAL(ko->dist_setup(be, &in, &st, &jptr, &jglob, &fits));
  if (fits && st) {
    warm_columns(be, ko, st, WARM_N, jptr[WARM_N], "dist pattern");
    if (ko->dist_rows) {   /* M's rows of the block (the assembly at P ranks) */
      int64_t *rp = NULL, bad = -1;
      int32_t *ci = NULL;
      double *v = NULL, res[WARM_N];
      HY_LOCAL(ko->dist_rows(be, st, jglob, 0, WARM_N, 0, &rp, &ci, &v, res, &bad, NULL));
      if (bad >= 0 || rp[WARM_N] != jptr[WARM_N])
        HY_LOCAL(hy_err(HY_ESYS, "spai warm-up (dist rows): %lld entries in M's rows of the "
                        "built-in problem, %lld in its columns, first bad column %lld",
                        (long long)rp[WARM_N], (long long)jptr[WARM_N], (long long)bad));
      if (ranks > 1 && o->dist_device) warm_dist_dev(be, ko, w, &in, rp, ci, v);   /* where it runs */
      free(rp);
      free(ci);
      free(v);
    }
  }
  if (st) ko->cols_free(be, st);
  free(jptr);
  free(jglob);
}

/* An upper estimate of the device memory of the first setup of the local A (bytes): A and B
 * (12 bytes an entry each), the J sets, their values and merge heads (20 an entry, |J| ~ a
 * column of A), the index sets (4 per |I| bound entry, the bound estimated by the lengths of the
 * rows a row names: B ~ A^T), the offsets (80 a column), M's rows (16 an entry) and the
 * submatrix workspace of the columns outside the warp class (capped at [spai] workspace_mb).
 * Local. */
static int64_t warm_pool_estimate(const la_part *pr, int rank, const hy_csr *a,
                                  const spai_setup_opts *o) {
  int64_t r0 = pr->start[rank], m = a->m, nnz = a->nnz;
  double avg = m > 0 ? (double)nnz / (double)m : 1, ib = 0, work = 0;
  for (int64_t k = 0; k < m; k++) {
    double s = 0, len = (double)(a->rowptr[k + 1] - a->rowptr[k]);
    for (int64_t e = a->rowptr[k]; e < a->rowptr[k + 1]; e++) {
      int64_t j = a->colind[e] - r0;
      s += (j >= 0 && j < m) ? (double)(a->rowptr[j + 1] - a->rowptr[j]) : avg;
    }
    ib += s;
    if (!(len <= 31 && s <= o->warp_rows)) work += 8.0 * s * (len + 1);
  }
  if (work > (double)o->workspace) work = (double)o->workspace;
  return (int64_t)(60.0 * nnz + 4.0 * ib + 80.0 * m + 1.1 * work) + ((int64_t)16 << 20);
}

/* A's arrays of at least 1 MiB (mmap'd blocks: no page shared with another allocation)
 * page-locked (on) or released.  Local. */
static int64_t warm_pin(k_backend *be, const k_spai_ops *ko, const hy_csr *a, int on, int *pinned) {
  void *p[3] = { a->rowptr, a->colind, a->val };
  size_t b[3] = { (size_t)(a->m + 1) * sizeof *a->rowptr, (size_t)a->nnz * sizeof *a->colind,
                  (size_t)a->nnz * sizeof *a->val };
  int64_t bytes = 0;
  for (int i = 0; i < 3; i++) {
    if (on && (b[i] < ((size_t)1 << 20) || !p[i])) continue;
    if (!on && !pinned[i]) continue;
    int done = 0;
    HY_LOCAL(ko->host_pin(be, p[i], b[i], on, &done));
    if (on) pinned[i] = done;
    else pinned[i] = 0;
    if (done) bytes += (int64_t)b[i];
  }
  return bytes;
}

/* Release the page-locked arrays of A.  Local. */
void spai_setup_unwarm(hy_ctx *ctx, const hy_csr *a, spai_warm_info *w) {
  const k_spai_ops *ko = k_spai_ops_get(&ctx->be);
  if (ko->host_pin) warm_pin(&ctx->be, ko, a, 0, w->pinned);
}

/* The warm-up: the column passes in every kernel class (warp, small, medium, large, with and
 * without the fused gather), the pattern builders, then the pool; timed (slowest rank).
 * Collective. */
int spai_setup_warm(hy_ctx *ctx, const la_part *pr, const hy_csr *a, const spai_setup_opts *opt,
                    spai_warm_info *out) {
  memset(out, 0, sizeof *out);
  k_backend *be = &ctx->be;
  const k_spai_ops *ko = k_spai_ops_get(be);
  warm_csr w;
  warm_matrix(&w);
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  /* the kernel choices: as configured, then each class alone (|I| <= 9, |J| <= 5 here) */
  const k_spai_cols base = { .small_rows = opt->small_rows, .small_cols = opt->small_cols,
                             .medium_elems = opt->medium_elems,
                             .block_threads = opt->block_threads,
                             .fuse_submat = opt->fuse_submat, .warp_rows = opt->warp_rows };
  k_spai_cols choice[6];
  for (int i = 0; i < 6; i++) choice[i] = base;
  choice[1].warp_rows = 0;                                   /* small */
  choice[2].warp_rows = 0;                                   /* medium */
  choice[2].small_rows = 1;
  choice[2].medium_elems = 1 << 20;
  choice[3] = choice[2];                                     /* large */
  choice[3].medium_elems = 0;
  choice[4] = choice[1];                                     /* small, medium fused */
  choice[4].fuse_submat = !opt->fuse_submat;
  choice[5] = choice[2];
  choice[5].fuse_submat = !opt->fuse_submat;
  for (int i = 0; i < 6; i++) warm_cols_pass(be, ko, &w, &choice[i]);
  out->passes = 6;
  warm_single(be, ko, &w, opt);
  warm_dist(be, ko, &w, opt, pr->size);
  int64_t want = warm_pool_estimate(pr, ctx->rank, a, opt), kept = 0;
  if (ko->pool_reserve) HY_LOCAL(ko->pool_reserve(be, want, &kept));
  int64_t pin = opt->pin_matrix && ko->host_pin ? warm_pin(be, ko, a, 1, out->pinned) : 0;
  double t = hy_wtime() - t0;
  HY_MPI(MPI_Allreduce(&t, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  long long mine[3] = { kept, -want, pin }, all[3];
  HY_MPI(MPI_Allreduce(mine, all, 3, MPI_LONG_LONG, MPI_MIN, ctx->comm));
  out->pool_bytes = all[0];
  out->pool_want = -all[1];
  out->pin_bytes = all[2];
  out->pin_tried = opt->pin_matrix && ko->host_pin;
  out->pool = ko->pool_reserve != NULL;
  out->done = 1;
  return HY_OK;
}
