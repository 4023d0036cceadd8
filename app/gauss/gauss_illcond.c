/* gauss_illcond.c - matrix = illcond: a dense test matrix of prescribed 2-norm condition number.
 *
 * A = U diag(sigma) V^T with sigma_i = cond^(-i/(n-1)) (geometric, LAPACK latms mode 3 style:
 * ||A||_2 = 1, kappa_2(A) = cond) and U, V products of n Householder reflectors whose vectors
 * are uniform in [-0.5, 0.5] from run.seed (streams 3 and 4): dense orthogonal factors, so the
 * ill-conditioning is not removed by row or column scaling.  Built on rank 0 (4 n^3 flops) and
 * broadcast: the same matrix for any rank count and grid. */
#include "gauss/gauss.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a = H a (left, side 0) or a = a H (right, side 1) with H = I - 2 w w^T / w^T w; a n x n,
 * column-major.  Local. */
static void gauss_reflect(double *a, int64_t n, const double *w, int side, double *t) {
  double ww = 0;
  for (int64_t i = 0; i < n; i++) ww += w[i] * w[i];
  if (!(ww > 0)) return;
  double f = 2.0 / ww;
  if (side == 0) {
    for (int64_t j = 0; j < n; j++) {
      double *c = a + j * n, s = 0;
      for (int64_t i = 0; i < n; i++) s += w[i] * c[i];
      s *= f;
      for (int64_t i = 0; i < n; i++) c[i] -= s * w[i];
    }
  } else {
    for (int64_t i = 0; i < n; i++) t[i] = 0;
    for (int64_t j = 0; j < n; j++) {
      const double *c = a + j * n;
      for (int64_t i = 0; i < n; i++) t[i] += c[i] * w[j];
    }
    for (int64_t j = 0; j < n; j++) {
      double *c = a + j * n, s = f * w[j];
      for (int64_t i = 0; i < n; i++) c[i] -= s * t[i];
    }
  }
}

/* Build the matrix on rank 0 into g->fileA, broadcast it.  Collective. */
int gauss_illcond_make(gauss_t *g, double cond) {
  int64_t n = g->n;
  g->fileA = gauss_xmalloc(sizeof(double) * (size_t)(n * n));
  if (g->ctx->rank == 0) {
    double *a = g->fileA;
    memset(a, 0, sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
      a[i + i * n] = n > 1 ? pow(cond, -(double)i / (double)(n - 1)) : 1.0;
    double *w = gauss_xmalloc(sizeof(double) * (size_t)n), *t = gauss_xmalloc(sizeof(double) * (size_t)n);
    for (int64_t k = 0; k < n; k++) {
      for (int64_t i = 0; i < n; i++) w[i] = hy_rand_u01(g->seed, 3, (uint64_t)(k * n + i)) - 0.5;
      gauss_reflect(a, n, w, 0, t);
      for (int64_t i = 0; i < n; i++) w[i] = hy_rand_u01(g->seed, 4, (uint64_t)(k * n + i)) - 0.5;
      gauss_reflect(a, n, w, 1, t);
    }
    free(w);
    free(t);
  }
  const int64_t chunk = 1 << 26;
  for (int64_t o = 0; o < n * n; o += chunk) {
    int c = (int)(n * n - o < chunk ? n * n - o : chunk);
    HY_MPI(MPI_Bcast(g->fileA + o, c, MPI_DOUBLE, 0, g->ctx->comm));
  }
  return HY_OK;
}
