/* lle_build.c - stages "knn", "weights" and "gather" of lle: the K nearest neighbours and the
 * reconstruction weights of this rank's block of query points on its backend (brute force
 * or the uniform grid through the backend's table, or the host kd-tree), then W's rows gathered on rank 0. */
#include "lle.h"
#include "k_lle.h"

#include <stdlib.h>
#include <string.h>

/* KNN in chunks, for progress: the kernels build their search structure (KD-tree, grid, the
 * points on the device) per call, so a first chunk of 1/32 of the queries (at least
 * LLE_KNN_CHUNK) is timed, and when the rest would take less than LLE_KNN_SHORT seconds it goes
 * in one call (one extra set-up in all); a longer search goes on in chunks of 1/32 and reports
 * progress after each. */
#define LLE_KNN_CHUNK 1024
#define LLE_KNN_SHORT 2.0

/* FNV-1a 64 of bytes (digests that show the graph is the same for any rank count).  Local. */
static uint64_t fnv64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ULL; }
  return h;
}

/* Ascending doubles for qsort.  Local. */
static int lle_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Write an n x k int32 array as .npy, atomically.  Local. */
static int lle_write_npy_i32(const char *path, int64_t n, int k, const int32_t *a) {
  char tmp[4096];
  FILE *f = NULL;
  HY_CALL(io_atomic_open(path, tmp, sizeof tmp, &f));
  int64_t shape[2] = { n, k };
  int ok = io_npy_write_header(f, "<i4", 2, shape) && fwrite(a, sizeof *a, (size_t)n * k, f) == (size_t)n * k;
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  return ok ? HY_OK : hy_err(HY_ESYS, "%s: write failed", path);
}

/* Gather the query blocks' rows on rank 0 (all: on every rank, for the eigen-solve spread over
 * them, lle.eig_ranks) into *anbr (n x k) and *aw (n x wk: the weights, wk = k, or the local
 * blocks, wk = k * k); with one rank the block itself is handed over (N = 1M: 120 MB not
 * copied).  Collective. */
static int lle_gather_w(hy_ctx *ctx, int64_t n, int k, int wk, int32_t **nbr, double **w, int32_t **anbr, double **aw,
                        int all) {
  if (ctx->size == 1) {
    *anbr = *nbr; *aw = *w;
    *nbr = NULL; *w = NULL;
    return HY_OK;
  }
  int *cnt = NULL, *dsp = NULL;
  int rc = n * wk > INT32_MAX ? hy_err(HY_EUSAGE, "n * %d = %lld exceeds the MPI count limit", wk, (long long)(n * wk)) : HY_OK;
  HY_CALL(hy_agree(ctx->comm, rc));   /* every rank computes the same */
  if (ctx->rank == 0 || all) {
    HY_MALLOC(*anbr, (size_t)n * k);
    HY_MALLOC(*aw, (size_t)n * wk);
    HY_MALLOC(cnt, 2 * ctx->size);
    HY_MALLOC(dsp, 2 * ctx->size);
    for (int r = 0; r < ctx->size; r++) {
      int64_t a = n * r / ctx->size, b = n * (r + 1) / ctx->size;
      cnt[r] = (int)((b - a) * k);
      dsp[r] = (int)(a * k);
      cnt[ctx->size + r] = (int)((b - a) * wk);
      dsp[ctx->size + r] = (int)(a * wk);
    }
  }
  int64_t q0 = n * ctx->rank / ctx->size, nq = n * (ctx->rank + 1) / ctx->size - q0;
  if (all) {
    HY_MPI(MPI_Allgatherv(*nbr, (int)(nq * k), MPI_INT32_T, *anbr, cnt, dsp, MPI_INT32_T, ctx->comm));
    HY_MPI(MPI_Allgatherv(*w, (int)(nq * wk), MPI_DOUBLE, *aw, cnt + ctx->size, dsp + ctx->size, MPI_DOUBLE, ctx->comm));
  } else {
    HY_MPI(MPI_Gatherv(*nbr, (int)(nq * k), MPI_INT32_T, *anbr, cnt, dsp, MPI_INT32_T, 0, ctx->comm));
    HY_MPI(MPI_Gatherv(*w, (int)(nq * wk), MPI_DOUBLE, *aw, cnt ? cnt + ctx->size : NULL, dsp ? dsp + ctx->size : NULL,
                       MPI_DOUBLE, 0, ctx->comm));
  }
  free(cnt); free(dsp);
  return HY_OK;
}

/* lle.transform: the new points' nearest training points and weights, a block of the new
 * points per rank, gathered on rank 0.  Collective. */
static int lle_build_transform(hy_ctx *ctx, const lle_opts *o, lle_info *info) {
  int64_t nt = info->tdata.n, t0 = nt * ctx->rank / ctx->size, tq = nt * (ctx->rank + 1) / ctx->size - t0;
  int k = o->k;
  int32_t *tn = NULL;
  double *tw = NULL;
  HY_MALLOC(tn, (size_t)(tq ? tq : 1) * k);
  HY_MALLOC(tw, (size_t)(tq ? tq : 1) * k);
  k_lle_points pts = { info->data.n, info->data.dim, info->data.x };
  int64_t bad = 0;
  hy_phase_begin(ctx, "transform");
  if (tq > 0) HY_LOCAL(k_lle_host_queries(&pts, info->tdata.x + t0 * info->tdata.dim, tq, k, o->reg, tn, tw, &bad));
  hy_phase_end(ctx, "transform");
  HY_MPI(MPI_Reduce(&bad, &info->tbad, 1, MPI_INT64_T, MPI_SUM, 0, ctx->comm));
  HY_CALL(lle_gather_w(ctx, nt, k, k, &tn, &tw, &info->tnbr, &info->tw, 0));
  free(tn); free(tw);
  return HY_OK;
}

/* Modified LLE's eta: the median over all points of rho (the local ratio of small to large
 * eigenvalues), each rank its queries' rho, all of them on every rank (np.median: the mean
 * of the two middle values for even n).  Collective. */
static int lle_modified_eta(hy_ctx *ctx, const k_lle_ops *ops, const k_lle_points *pts, int64_t q0, int64_t q1,
                            int k, const int32_t *nbr, int d, double *eta) {
  int64_t n = pts->n, nq = q1 - q0, nbad = 0;
  double *rho = NULL, *all = NULL;
  int *cnt = NULL, *dsp = NULL;
  HY_MALLOC(rho, nq ? nq : 1);
  HY_MALLOC(all, n);
  HY_MALLOC(cnt, ctx->size);
  HY_MALLOC(dsp, ctx->size);
  if (nq > 0) HY_LOCAL(ops->blocks(&ctx->be, pts, q0, q1, k, nbr, K_LLE_MODIFIED_RHO, d, 0, 0, rho, &nbad));
  for (int r = 0; r < ctx->size; r++) {
    dsp[r] = (int)(n * r / ctx->size);
    cnt[r] = (int)(n * (r + 1) / ctx->size) - dsp[r];
  }
  HY_MPI(MPI_Allgatherv(rho, (int)nq, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, ctx->comm));
  qsort(all, (size_t)n, sizeof *all, lle_cmp_double);
  *eta = n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
  free(rho); free(all); free(cnt); free(dsp);
  return HY_OK;
}

/* Which neighbour search runs: lle.knn, auto resolved by the backend table's capabilities
 * (the grid where its dimension and size limits say it is faster, else the host kd-tree up to
 * kdtree_max_dim, else brute force); names for the report.  Every rank decides the same (all
 * hold the data); knn = grid beyond K_LLE_GRID_MAXD dimensions is a configuration error.
 * Collective. */
static int lle_knn_pick(hy_ctx *ctx, const lle_opts *o, const k_lle_ops *ops, const lle_data *d, lle_info *info) {
  int m = o->knn;
  /* on a device backend below lle.auto_host_n points the host's kd-tree on the rank's threads
   * (the device's allocations, copies and first launches cost more than the search there) */
  int small = ctx->be.gpu && d->n < o->auto_host_n;
  info->grid_host = m == LLE_KNN_AUTO && small && o->knn_host_grid && d->dim <= k_lle_host_ops.grid_max_dim;
  if (info->grid_host) m = LLE_KNN_GRID;
  if (m == LLE_KNN_AUTO)
    m = small && d->dim <= k_lle_host_ops.kdtree_max_dim ? LLE_KNN_KDTREE
        : ops->grid_knn && d->dim <= ops->grid_max_dim && d->n >= ops->grid_min_n ? LLE_KNN_GRID
        : d->dim <= ops->kdtree_max_dim ? LLE_KNN_KDTREE : LLE_KNN_BRUTE;
  info->weights_host = o->method == LLE_STANDARD &&
                       (o->weights == LLE_WEIGHTS_HOST || (o->weights == LLE_WEIGHTS_AUTO && small));
  info->host_threads = ctx->threads > 1 ? ctx->threads : 1;
  int rc = HY_OK;
  if (m == LLE_KNN_GRID && (!ops->grid_knn || d->dim > K_LLE_GRID_MAXD))
    rc = hy_err(HY_EUSAGE, "key 'lle.knn' = grid: the data has %d dimensions, the grid search takes at most %d%s "
                "(use brute or kdtree)", d->dim, K_LLE_GRID_MAXD, ops->grid_knn ? "" : " and this backend has none");
  HY_CALL(hy_agree(ctx->comm, rc));
  static const char *const name[] = { "", "brute force", "kdtree", "grid" }, *const metric[] = { "", "brute", "kdtree", "grid" };
  info->knn_used = m;
  info->knn_name = name[m];
  info->knn_metric = metric[m];
  info->knn_how = m == LLE_KNN_KDTREE || info->grid_host ? "host" : m == LLE_KNN_GRID || !o->fp32 ? "FP64 direct form" : "FP32 direct form";
  if (m == LLE_KNN_GRID && !ctx->be.gpu) info->grid_host = 1;   /* the host backend's grid: its queries on the threads too */
  return HY_OK;
}

/* The host threads of the kd-tree's queries and the host weights (a pool of the rank's
 * threads, made where one of them runs) and the kd-tree, built once for the knn phase. */
typedef struct {
  k_lle_pool *pool;
  k_lle_kdtree *tree;
} lle_host_work;

/* Neighbours of queries a..b-1 by the search lle_knn_pick chose; *nredo as k_lle_ops.knn
 * (-1 where no FP32 filter ran).  Local. */
static int lle_knn_block(hy_ctx *ctx, const lle_opts *o, const k_lle_ops *ops, const lle_info *info,
                         lle_host_work *hw, const k_lle_points *pts, int64_t a, int64_t b, int32_t *nb, double *dd,
                         int64_t *nredo) {
  *nredo = -1;
  if (info->knn_used == LLE_KNN_KDTREE) {
    if (!hw->tree) HY_CALL(k_lle_kdtree_new(pts, hw->pool, info->host_threads, &hw->tree));
    return k_lle_kdtree_query(hw->tree, hw->pool, info->host_threads, a, b, o->k, nb, dd);
  }
  if (info->knn_used == LLE_KNN_GRID && info->grid_host)
    return k_lle_grid_knn_on(pts, hw->pool, info->host_threads, a, b, o->k, nb, dd);
  if (info->knn_used == LLE_KNN_GRID) return ops->grid_knn(&ctx->be, pts, a, b, o->k, nb, dd);
  return ops->knn(&ctx->be, pts, a, b, o->k, o->fp32, nb, dd, nredo);
}

/* Neighbours and weights of this rank's queries, W on rank 0.  Collective. */
int lle_build(hy_ctx *ctx, const lle_opts *o, lle_info *info) {
  const lle_data *d = &info->data;
  int64_t n = d->n;
  int k = o->k;
  const k_lle_ops *ops = k_lle_ops_get(&ctx->be);
  HY_CALL(lle_knn_pick(ctx, o, ops, d, info));
  int64_t q0 = n * ctx->rank / ctx->size, q1 = n * (ctx->rank + 1) / ctx->size, nq = q1 - q0;
  int wk = o->method == LLE_STANDARD ? k : K_LLE_BLOCK_VALS(k, o->method);   /* weights or a block a query */
  int32_t *nbr = NULL;
  double *d2 = NULL, *w = NULL;
  HY_MALLOC(nbr, (size_t)(nq ? nq : 1) * k);
  HY_MALLOC(d2, (size_t)(nq ? nq : 1) * k);
  HY_MALLOC(w, (size_t)(nq ? nq : 1) * wk);
  k_lle_points pts = { n, d->dim, d->x };
  int64_t redo[2] = { 0, 0 }, nredo = -1;   /* queries the FP32 filter left to FP64, calls with a filter */
  lle_host_work hw = { NULL, NULL };
  int need_pool = info->host_threads > 1 && nq > 0 &&
                  (info->knn_used == LLE_KNN_KDTREE || info->grid_host || (info->weights_host && o->stage != LLE_STAGE_KNN));
  if (o->knn_warmup && nq > 0) {   /* benchmarks: the device's first-use costs outside the timed phase */
    lle_host_work hw0 = { NULL, NULL };
    int rc0 = lle_knn_block(ctx, o, ops, info, &hw0, &pts, q0, q1, nbr, d2, &nredo);
    k_lle_kdtree_free(hw0.tree);
    HY_LOCAL(rc0);
  }
  hy_phase_begin(ctx, "knn");
  if (need_pool) hw.pool = k_lle_pool_new(info->host_threads);   /* NULL (out of memory): the caller's thread alone */
  k_lle_pool_set_spin(hw.pool, (int64_t)lle_pool_spin_us(o->pool_spin_us, n) * 1000);
  hy_progress pg;   /* a first 1/32 of the queries timed: the rest at once when it is short; one call
                     * where the backend's table says chunks repeat its set-up (knn_chunked = 0: CUDA) */
  hy_progress_begin(&pg, ctx, "lle knn (queries of rank 0)", (double)nq);
  int64_t cs = ops->knn_chunked || info->knn_used == LLE_KNN_KDTREE ? (nq / 32 > LLE_KNN_CHUNK ? nq / 32 : LLE_KNN_CHUNK) : nq;
  for (int64_t a = q0, b; a < q1; a = b) {
    b = q1 - a > cs ? a + cs : q1;
    int32_t *nb = nbr + (a - q0) * k;
    double *dd = d2 + (a - q0) * k, t0 = hy_wtime();
    int rck = lle_knn_block(ctx, o, ops, info, &hw, &pts, a, b, nb, dd, &nredo);
    if (rck != HY_OK) { k_lle_kdtree_free(hw.tree); k_lle_pool_free(hw.pool); }
    HY_LOCAL(rck);
    if (nredo >= 0) { redo[0] += nredo; redo[1]++; }
    hy_progress_update(&pg, (double)(b - q0));
    if (a == q0 && (hy_wtime() - t0) * (double)(q1 - b) / (double)(b - a) < LLE_KNN_SHORT) cs = q1 - b;
  }
  hy_progress_end(&pg);
  k_lle_kdtree_free(hw.tree);
  hw.tree = NULL;
  hy_debug_point(ctx, "knn");
  hy_phase_end(ctx, "knn");
  int64_t cnt[4] = { 0, 0, redo[0], redo[1] }, all[4] = { 0, 0, 0, 0 };   /* zero-distance neighbours, singular Gram, redo */
  for (int64_t i = 0; i < nq * k; i++) cnt[0] += d2[i] == 0;
  hy_phase_begin(ctx, "weights");
  if (nq > 0 && o->stage != LLE_STAGE_KNN && o->method == LLE_STANDARD) {
    int rcw = info->weights_host ? k_lle_host_weights(&pts, q0, q1, k, nbr, o->reg, hw.pool, info->host_threads, w, &cnt[1])
                                 : ops->weights(&ctx->be, &pts, q0, q1, k, nbr, o->reg, w, &cnt[1]);
    if (rcw != HY_OK) k_lle_pool_free(hw.pool);
    HY_LOCAL(rcw);
  }
  else if (o->stage != LLE_STAGE_KNN) {
    double tol = o->method == LLE_MODIFIED ? o->modified_tol : o->hessian_tol, eta = 0;
    if (o->method == LLE_MODIFIED) HY_CALL(lle_modified_eta(ctx, ops, &pts, q0, q1, k, nbr, o->dim, &eta));
    info->eta = eta;
    if (nq > 0) HY_LOCAL(ops->blocks(&ctx->be, &pts, q0, q1, k, nbr, o->method, o->dim, tol, eta, w, &cnt[1]));
  }
  k_lle_pool_free(hw.pool);
  hy_debug_point(ctx, "weights");
  hy_phase_end(ctx, "weights");
  HY_MPI(MPI_Reduce(cnt, all, 4, MPI_INT64_T, MPI_SUM, 0, ctx->comm));
  info->ndup = all[0];
  info->nbad = all[1];
  info->knn_redo = all[3] > 0 ? all[2] : -1;
  double tkw[2] = { hy_phase_seconds(ctx, "knn"), hy_phase_seconds(ctx, "weights") }, tkwmax[2];
  HY_MPI(MPI_Allreduce(tkw, tkwmax, 2, MPI_DOUBLE, MPI_MAX, ctx->comm));
  info->t_knn = tkwmax[0];
  info->t_weights = tkwmax[1];
  free(d2);
  hy_phase_begin(ctx, "gather");
  int w_all = o->stage == LLE_STAGE_ALL && lle_eig_ranks(ctx, o, n) > 1;   /* every rank builds B */
  HY_CALL(lle_gather_w(ctx, n, k, wk, &nbr, &w, &info->nbr, o->method == LLE_STANDARD ? &info->w : &info->blk, w_all));
  hy_phase_end(ctx, "gather");
  free(nbr); free(w);
  if (info->tdata.n > 0 && o->stage == LLE_STAGE_ALL) HY_CALL(lle_build_transform(ctx, o, info));
  int rc = HY_OK;
  if (ctx->rank == 0) {
    info->graph_digest = fnv64(0xcbf29ce484222325ULL, info->nbr, (size_t)n * k * sizeof *info->nbr);
    if (o->out_neighbors[0]) rc = lle_write_npy_i32(o->out_neighbors, n, k, info->nbr);
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  return HY_OK;
}
