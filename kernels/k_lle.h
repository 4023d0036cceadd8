/* k_lle.h - the lle workload's kernels behind one C interface: brute-force K-nearest
 * neighbours of a block of query points and the reconstruction weights of those points.
 * Points are host arrays (n x dim, row-major doubles); the CUDA table copies what it needs to
 * the device.  Both tables compute the same function: squared distances in the direct form
 * sum (x - y)^2 without fused multiply-add (FP64), or FP32 direct form when asked; neighbours
 * ordered by (distance, index), the query itself excluded by index (not by distance 0), so
 * the graph is identical for any split of the queries.  All functions are local. */
#ifndef HY_K_LLE_H
#define HY_K_LLE_H

#include <stdint.h>
#include <math.h>
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define K_LLE_KMAX 64   /* largest K the kernels support */

typedef struct {
  int64_t n;
  int dim;
  const double *x;      /* host, n x dim row-major */
} k_lle_points;

typedef struct {
  const char *name;
  /* lle.knn = auto takes the host kd-tree for data of at most this dimension, where it beats
   * this backend's brute force (host: 8; CUDA: 0, the GPU's brute force is faster) */
  int kdtree_max_dim;
  /* neighbours of queries q0..q1-1: nbr[(q - q0) * k + j] ascending by (d2, index), d2 the
   * squared distance (FP64 direct form, or FP32 direct form when fp32) */
  int (*knn)(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int fp32,
             int32_t *nbr, double *d2);
  /* weights of those queries: G = C C^T with C = x[nbr] - x[q], G += R I with R = reg *
   * trace(G) (reg when the trace is 0), solve G w = 1 by Cholesky, w /= sum(w).
   * *nbad counts points whose G was not positive definite even so (w set to 1/k there). */
  int (*weights)(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k,
                 const int32_t *nbr, double reg, double *w, int64_t *nbad);
} k_lle_ops;

/* The table of the backend's kind.  Local. */
const k_lle_ops *k_lle_ops_get(const k_backend *be);
extern const k_lle_ops k_lle_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_lle_ops k_lle_cuda_ops;
#endif

/* Exact K nearest neighbours by a KD-tree on the host (same order and tie rule as knn).
 * For low dimensions.  Local. */
int k_lle_kdtree_knn(const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr, double *d2);

/* ---- one point's weights, shared by the host and the CUDA code (plain C arithmetic) ---- */
#ifdef __CUDACC__
#define K_LLE_HD __host__ __device__
#else
#define K_LLE_HD
#endif

/* Weights of point q from its k neighbours: g (k*k scratch, entry (a,b) at g[(a*k+b)*gs], gs
 * the stride: 1 on the host, the thread count on the GPU for coalesced access), w (k out).
 * Returns 0, or 1 when G + R I was not positive definite (w = 1/k then).  Local. */
static inline K_LLE_HD int k_lle_point_weights(const double *x, int dim, int64_t q, int k,
                                               const int32_t *nbr, double reg, double *g0,
                                               int64_t gs, double *w) {
#define g(i) g0[(int64_t)(i) * gs]
  const double *xq = x + q * dim;
  double tr = 0;
  for (int a = 0; a < k; a++) {
    const double *xa = x + (int64_t)nbr[a] * dim;
    for (int b = 0; b <= a; b++) {
      const double *xb = x + (int64_t)nbr[b] * dim;
      double s = 0;
      for (int c = 0; c < dim; c++) s += (xa[c] - xq[c]) * (xb[c] - xq[c]);
      g(a * k + b) = s;
      g(b * k + a) = s;
    }
    tr += g(a * k + a);
  }
  double r = tr > 0 ? reg * tr : reg;
  for (int a = 0; a < k; a++) g(a * k + a) += r;
  /* Cholesky G = L L^T in the lower triangle */
  for (int j = 0; j < k; j++) {
    double s = g(j * k + j);
    for (int l = 0; l < j; l++) s -= g(j * k + l) * g(j * k + l);
    if (!(s > 0)) {
      for (int a = 0; a < k; a++) w[a] = 1.0 / k;
      return 1;
    }
    double ljj = sqrt(s);
    g(j * k + j) = ljj;
    for (int i = j + 1; i < k; i++) {
      double t = g(i * k + j);
      for (int l = 0; l < j; l++) t -= g(i * k + l) * g(j * k + l);
      g(i * k + j) = t / ljj;
    }
  }
  /* L y = 1, L^T w = y */
  for (int i = 0; i < k; i++) {
    double t = 1.0;
    for (int l = 0; l < i; l++) t -= g(i * k + l) * w[l];
    w[i] = t / g(i * k + i);
  }
  for (int i = k - 1; i >= 0; i--) {
    double t = w[i];
    for (int l = i + 1; l < k; l++) t -= g(l * k + i) * w[l];
    w[i] = t / g(i * k + i);
  }
  double sum = 0;
  for (int a = 0; a < k; a++) sum += w[a];
  for (int a = 0; a < k; a++) w[a] /= sum;
  return 0;
#undef g
}

#ifdef __cplusplus
}
#endif
#endif
