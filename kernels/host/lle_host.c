/* lle_host.c - the lle kernels on the host: brute-force K nearest neighbours (direct-form
 * distances, a sorted insertion list per query, ties by index) and the reconstruction
 * weights (k_lle_point_weights per query).  The serial CPU baseline of the seed's tables. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>

/* Insert (d, j) into the ascending list (dl, il) of length k if it beats the last entry
 * under the (distance, index) order.  Local. */
static inline void knn_insert(double *dl, int32_t *il, int k, double d, int32_t j) {
  if (d > dl[k - 1] || (d == dl[k - 1] && j > il[k - 1])) return;
  int p = k - 1;
  while (p > 0 && (dl[p - 1] > d || (dl[p - 1] == d && il[p - 1] > j))) {
    dl[p] = dl[p - 1];
    il[p] = il[p - 1];
    p--;
  }
  dl[p] = d;
  il[p] = j;
}

/* Brute-force neighbours of queries q0..q1-1 over all points.  Local. */
static int host_knn(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int fp32,
                    int32_t *nbr, double *d2, int64_t *nredo) {
  const int dim = p->dim;
  *nredo = -1;   /* no filter on the host */
  const double *x = p->x;
  if (k > K_LLE_KMAX) return hy_err(HY_EUSAGE, "k = %d exceeds the kernels' limit %d", k, K_LLE_KMAX);
  float *xf = NULL;
  if (fp32) {
    HY_MALLOC(xf, (size_t)p->n * dim);
    for (int64_t i = 0; i < p->n * dim; i++) xf[i] = (float)x[i];
  }
  for (int64_t q = q0; q < q1; q++) {
    double *dl = d2 + (q - q0) * k;
    int32_t *il = nbr + (q - q0) * k;
    for (int j = 0; j < k; j++) { dl[j] = INFINITY; il[j] = INT32_MAX; }
    if (fp32) {
      const float *xq = xf + q * dim;
      for (int64_t j = 0; j < p->n; j++) {
        if (j == q) continue;
        const float *xj = xf + j * dim;
        float s = 0;
        for (int c = 0; c < dim; c++) { float t = xj[c] - xq[c]; s += t * t; }
        knn_insert(dl, il, k, (double)s, (int32_t)j);
      }
    } else {
      const double *xq = x + q * dim;
      for (int64_t j = 0; j < p->n; j++) {
        if (j == q) continue;
        const double *xj = x + j * dim;
        double s = 0;
        for (int c = 0; c < dim; c++) { double t = xj[c] - xq[c]; s += t * t; }
        knn_insert(dl, il, k, s, (int32_t)j);
      }
    }
  }
  free(xf);
  return HY_OK;
}

/* Weights of queries q0..q1-1.  Local. */
static int host_weights(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k,
                        const int32_t *nbr, double reg, double *w, int64_t *nbad) {
  double g[K_LLE_KMAX * K_LLE_KMAX];
  int64_t bad = 0;
  for (int64_t q = q0; q < q1; q++)
    bad += k_lle_point_weights(p->x, p->dim, q, k, nbr + (q - q0) * k, reg, g, 1, w + (q - q0) * k);
  *nbad = bad;
  return HY_OK;
}

/* k_lle_host_weights's job: the arguments, one count of singular Gram matrices a thread. */
typedef struct {
  const k_lle_points *p;
  int64_t q0, m;   /* the first query, the count */
  int k;
  const int32_t *nbr;
  double reg;
  double *w;
  int64_t bad[64];
} hw_job;

/* Thread tid of nt: its contiguous share of the m queries.  Local. */
static void hw_part(void *arg, int tid, int nt) {
  hw_job *j = arg;
  double g[K_LLE_KMAX * K_LLE_KMAX];
  int64_t bad = 0;
  int64_t m = j->m, i0 = m * tid / nt, i1 = m * (tid + 1) / nt;
  for (int64_t i = i0; i < i1; i++)
    bad += k_lle_point_weights(j->p->x, j->p->dim, j->q0 + i, j->k, j->nbr + i * j->k, j->reg, g, 1, j->w + i * j->k);
  j->bad[tid] = bad;
}

/* The weights of queries q0..q1-1 on threads threads of pool (NULL: the caller's thread), the
 * same values as the host backend's (each query on its own).  Host.  Local. */
int k_lle_host_weights(const k_lle_points *p, int64_t q0, int64_t q1, int k, const int32_t *nbr, double reg,
                       struct k_lle_pool *pool, int threads, double *w, int64_t *nbad) {
  if (!pool || threads < 2) return host_weights(NULL, p, q0, q1, k, nbr, reg, w, nbad);
  if (threads > 63) threads = 63;
  if (threads > k_lle_pool_size(pool)) threads = k_lle_pool_size(pool);
  hw_job j = { .p = p, .q0 = q0, .m = q1 - q0, .k = k, .nbr = nbr, .reg = reg, .w = w };
  k_lle_pool_run(pool, threads, hw_part, &j);
  int64_t bad = 0;
  for (int t = 0; t < threads; t++) bad += j.bad[t];
  *nbad = bad;
  return HY_OK;
}

/* K nearest points and weights of external queries (transform).  Local. */
int k_lle_host_queries(const k_lle_points *p, const double *xq, int64_t nq, int k, double reg,
                       int32_t *nbr, double *w, int64_t *nbad) {
  if (k > K_LLE_KMAX) return hy_err(HY_EUSAGE, "k = %d exceeds the kernels' limit %d", k, K_LLE_KMAX);
  const int dim = p->dim;
  double dl[K_LLE_KMAX], g[K_LLE_KMAX * K_LLE_KMAX];
  int64_t bad = 0;
  for (int64_t q = 0; q < nq; q++) {
    const double *xqq = xq + q * dim;
    int32_t *il = nbr + q * k;
    for (int j = 0; j < k; j++) { dl[j] = INFINITY; il[j] = INT32_MAX; }
    for (int64_t j = 0; j < p->n; j++) {
      const double *xj = p->x + j * dim;
      double s = 0;
      for (int c = 0; c < dim; c++) { double t = xj[c] - xqq[c]; s += t * t; }
      knn_insert(dl, il, k, s, (int32_t)j);
    }
    bad += k_lle_point_weights_at(p->x, dim, xqq, k, il, reg, g, 1, w + q * k);
  }
  *nbad = bad;
  return HY_OK;
}

/* LTSA / Hessian / modified blocks of queries q0..q1-1.  Local. */
static int host_blocks(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, const int32_t *nbr,
                       int method, int d, double tol, double eta, double *blk, int64_t *nbad) {
  double s[K_LLE_BLOCK_SCRATCH(K_LLE_KMAX)];
  int64_t bad = 0, vals = K_LLE_BLOCK_VALS(k, method);
  for (int64_t q = q0; q < q1; q++)
    bad += k_lle_point_block(p->x, p->dim, q, k, nbr + (q - q0) * k, method, d, tol, eta, s, 1,
                             blk + (q - q0) * vals);
  *nbad = bad;
  return HY_OK;
}

/* The grid search on the host (kernels/host/lle_grid.c).  Local. */
static int host_grid_knn(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr, double *d2) {
  (void)be;
  return k_lle_grid_knn(p, q0, q1, k, nbr, d2);
}

/* auto: the grid for D <= 4 and N >= 50,000 (measured at N = 200,000 on 2 shared cores, knn
 * stage: Swiss roll 1.89 s vs the kd-tree's 2.49 s, uniform D = 2 0.97 vs 2.15 s, D = 4 4.47
 * vs 7.17 s; equal at N = 20,000), else the kd-tree up to D = 8 */
const k_lle_ops k_lle_host_ops = {
  .name = "host", .kdtree_max_dim = 8, .grid_max_dim = 4, .grid_min_n = 50000, .knn_chunked = 1, .knn = host_knn, .grid_knn = host_grid_knn, .weights = host_weights, .blocks = host_blocks,
};
