/* gauss_refine.c - mixed precision: refine the solution from the FP32 factors in FP64.
 *
 * Every vector is replicated on every rank (length n), as the solves of the algorithms return
 * them: the FP64 matrix-vector product with the original A (gauss_matvec: local GEMV on the
 * block-cyclic / row part + all-reduce) and the low-precision triangular solves (alg->solve) are
 * the collective operations; dot products and vector updates are computed identically on every
 * rank from the same replicated data (no reduction needed, the same result on every rank).
 *
 * classic: x -= (LU)^-1 (A x - b) (converges when kappa(A) u_32 < 1).
 * gmres:   GMRES-IR (Carson & Higham, SIAM J. Sci. Comput. 40 (2018) A817): each refinement step
 *          solves A d = A x - b by GMRES in FP64 preconditioned by the FP32 LU, then x -= d
 *          (converges up to about kappa(A) u_32^2 ~ 1).  gmres_precond = right (default):
 *          flexible GMRES (the preconditioned vectors kept, as in MAGMA's FGMRES-IR), which
 *          minimises the true FP64 residual and stops once it is a tenth of what the HPL
 *          threshold allows; left: GMRES on (LU)^-1 A d = (LU)^-1 r, stops on gmres_tol.
 * auto:    classic while each step at least halves the scaled residual, then GMRES-IR from the
 *          best iterate; the caller falls back to FP64 when neither reaches the threshold. */
#include "gauss/gauss.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Euclidean dot product (replicated data).  Local. */
static double gauss_dot(const double *a, const double *b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* z = (LU)^-1 v with the low-precision factors, v scaled to unit 2-norm first so that FP32
 * neither underflows nor overflows on tiny or huge corrections.  Collective. */
static int gauss_precond(gauss_t *g, const gauss_alg *alg, void *fact, const double *v, double *z,
                         double *tmp) {
  int64_t n = g->n;
  double nv = sqrt(gauss_dot(v, v, n));
  if (!(nv > 0) || !isfinite(nv)) {
    for (int64_t i = 0; i < n; i++) z[i] = nv > 0 ? NAN : 0;  /* collective outcome: same on all */
    return HY_OK;
  }
  for (int64_t i = 0; i < n; i++) tmp[i] = v[i] / nv;
  HY_CALL(alg->solve(g, fact, tmp, z));
  for (int64_t i = 0; i < n; i++) z[i] *= nv;
  return HY_OK;
}

/* d ~ A^-1 r by GMRES(m) in FP64 from d = 0, modified Gram-Schmidt with one
 * reorthogonalisation, Givens rotations.  right = 0: left preconditioning, GMRES on
 * (LU)^-1 A d = (LU)^-1 r, stops when the preconditioned residual falls by tol; right = 1:
 * flexible GMRES (FGMRES) with the preconditioned vectors z_j = (LU)^-1 v_j kept, d = Z y,
 * minimising the true residual ||r - A d|| in FP64 (the FP32 solves need not be an exact linear
 * operator), stops when that falls by tol or below atol (2-norm).  Either: at most m iterations.  *its: iterations
 * done; *red: the reduction reached.  Collective. */
static int gauss_gmres(gauss_t *g, const gauss_alg *alg, void *fact, const double *r, double *d,
                       int m, double tol, double atol, int right, int *its, double *red) {
  int64_t n = g->n;
  double *V = gauss_xmalloc(sizeof(double) * (size_t)n * (size_t)(m + 1));
  double *Z = right ? gauss_xmalloc(sizeof(double) * (size_t)n * (size_t)m) : NULL;
  double *H = calloc((size_t)(m + 1) * (size_t)m, sizeof(double));
  double *cs = gauss_xmalloc(sizeof(double) * (size_t)(m + 1));
  double *sn = gauss_xmalloc(sizeof(double) * (size_t)(m + 1));
  double *gv = calloc((size_t)(m + 1), sizeof(double));
  double *w = gauss_xmalloc(sizeof(double) * (size_t)n);
  double *t = gauss_xmalloc(sizeof(double) * (size_t)n);
  double *tmp = gauss_xmalloc(sizeof(double) * (size_t)n);
  if (!H || !gv) hy_fatal(HY_ESYS, "out of memory (GMRES, m = %d)", m);
#define HH(i, j) H[(i) + (size_t)(j) * (size_t)(m + 1)]
  int k = 0;
  *its = 0;
  *red = 1;
  for (int64_t i = 0; i < n; i++) d[i] = 0;
  if (right) memcpy(w, r, sizeof(double) * (size_t)n);
  else HY_CALL(gauss_precond(g, alg, fact, r, w, tmp));
  double beta = sqrt(gauss_dot(w, w, n));
  if (beta > 0 && isfinite(beta)) {
    for (int64_t i = 0; i < n; i++) V[i] = w[i] / beta;
    gv[0] = beta;
    for (int j = 0; j < m; j++) {
      double *vj = V + (size_t)j * (size_t)n;
      if (right) {
        double *zj = Z + (size_t)j * (size_t)n;
        HY_CALL(gauss_precond(g, alg, fact, vj, zj, tmp));
        HY_CALL(gauss_matvec(g, zj, w));
      } else {
        HY_CALL(gauss_matvec(g, vj, t));
        HY_CALL(gauss_precond(g, alg, fact, t, w, tmp));
      }
      for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i <= j; i++) {
          const double *vi = V + (size_t)i * (size_t)n;
          double h = gauss_dot(w, vi, n);
          HH(i, j) += h;
          for (int64_t l = 0; l < n; l++) w[l] -= h * vi[l];
        }
      double hn = sqrt(gauss_dot(w, w, n));
      HH(j + 1, j) = hn;
      if (hn > 0 && isfinite(hn))
        for (int64_t l = 0; l < n; l++) vj[n + l] = w[l] / hn;
      for (int i = 0; i < j; i++) {
        double a = HH(i, j), b = HH(i + 1, j);
        HH(i, j) = cs[i] * a + sn[i] * b;
        HH(i + 1, j) = -sn[i] * a + cs[i] * b;
      }
      double a = HH(j, j), b = HH(j + 1, j), h = hypot(a, b);
      if (!(h > 0) || !isfinite(h)) break;  /* breakdown or NaN: keep the first j columns */
      cs[j] = a / h;
      sn[j] = b / h;
      HH(j, j) = h;
      HH(j + 1, j) = 0;
      gv[j + 1] = -sn[j] * gv[j];
      gv[j] = cs[j] * gv[j];
      k = j + 1;
      *red = fabs(gv[j + 1]) / beta;
      if (*red <= tol || (right && fabs(gv[j + 1]) <= atol) || !(hn > 0) || !isfinite(hn)) break;
    }
    /* y = H^-1 g (upper triangular k x k), d = V y */
    double *y = gauss_xmalloc(sizeof(double) * (size_t)(k + 1));
    for (int i = k - 1; i >= 0; i--) {
      double s = gv[i];
      for (int l = i + 1; l < k; l++) s -= HH(i, l) * y[l];
      y[i] = s / HH(i, i);
    }
    for (int i = 0; i < k; i++) {
      const double *vi = (right ? Z : V) + (size_t)i * (size_t)n;
      for (int64_t l = 0; l < n; l++) d[l] += y[i] * vi[l];
    }
    free(y);
  }
#undef HH
  *its = k;
  free(V); free(Z); free(H); free(cs); free(sn); free(gv); free(w); free(t); free(tmp);
  return HY_OK;
}

/* The refinement loop (see the file's head).  Collective. */
int gauss_refine(gauss_t *g, const gauss_alg *alg, void *fact, double *x, int method, int maxit,
                 int gmres_max, double gmres_tol, int right, double thr, gauss_refine_stats *st) {
  hy_ctx *ctx = g->ctx;
  int64_t n = g->n;
  double *r = gauss_xmalloc(sizeof(double) * (size_t)n);
  double *d = gauss_xmalloc(sizeof(double) * (size_t)n);
  double *best = gauss_xmalloc(sizeof(double) * (size_t)n);
  double best_s = INFINITY, prev = INFINITY, scaled = INFINITY, nr, nx;
  int gm = method == GAUSS_REFINE_GMRES, k = 0, rising = 0;
  memcpy(best, x, sizeof(double) * (size_t)n);
  st->method = method;
  for (;;) {
    HY_CALL(gauss_scaled(g, x, r, DBL_EPSILON, &scaled, &nr, &nx));
    st->scaled = scaled;
    if (scaled < best_s) {
      best_s = scaled;
      memcpy(best, x, sizeof(double) * (size_t)n);
    }
    if (!gm) hy_printf0(ctx, "mixed: refinement step %d: scaled residual %.4g\n", k, scaled);
    else hy_printf0(ctx, "mixed: GMRES-IR step %d: scaled residual %.4g (GMRES iterations so far "
                    "%d)\n", k, scaled, st->gmres_iters);
    if (scaled < thr) {
      /* kappa_inf(A) >= ||A|| ||x|| / ||b||: at 1 / (n eps) or more A is numerically singular in
       * FP64 (the FP32 pivots cannot tell, GMRES then finds a huge x with a small HPL residual);
       * leave that to the FP64 factorization and its pivot check */
      double klow = g->normb > 0 ? g->normA * nx / g->normb : 0;
      st->cond_lower = klow;
      if (!(klow < 1 / ((double)n * DBL_EPSILON))) {
        hy_printf0(ctx, "mixed: ||A||_inf ||x||_inf / ||b||_inf = %.3g >= 1 / (n eps) = %.3g: A is "
                   "numerically singular in FP64; falling back to FP64\n", klow,
                   1 / ((double)n * DBL_EPSILON));
        st->fellback = 1;
      }
      break;
    }
    if (!gm) {
      int stop = method == GAUSS_REFINE_CLASSIC
                 ? k >= maxit || !isfinite(scaled) || (scaled >= prev && ++rising >= 3)
                 : k >= maxit || !isfinite(scaled) || scaled > 0.5 * prev;
      if (stop && method == GAUSS_REFINE_CLASSIC) {
        st->fellback = 1;
        break;
      }
      if (stop) {
        hy_printf0(ctx, "mixed: classical refinement stagnates at step %d (scaled residual %.4g, "
                   "previous %.4g); switching to GMRES-IR from the best iterate (%.4g)\n", k,
                   scaled, prev, best_s);
        st->switched = 1;
        gm = 1;
        k = 0;
        prev = INFINITY;
        rising = 0;
        memcpy(x, best, sizeof(double) * (size_t)n);
        continue;
      }
      prev = scaled;
      HY_CALL(alg->solve(g, fact, r, d));
      for (int64_t i = 0; i < n; i++) x[i] -= d[i];
      st->classic_steps++;
      k++;
    } else {
      if (k >= maxit || !isfinite(scaled) || (scaled >= prev && ++rising >= 2)) {
        st->fellback = 1;
        break;
      }
      prev = scaled;
      int its = 0;
      double red = 1;
      /* FGMRES: no need to go below a tenth of the residual the HPL threshold allows (its inf-norm is
       * at most the 2-norm GMRES tracks) */
      double atol = 0.1 * thr * DBL_EPSILON * (g->normA * nx + g->normb) * (double)n;
      HY_CALL(gauss_gmres(g, alg, fact, r, d, gmres_max, gmres_tol, atol, right, &its, &red));
      hy_printf0(ctx, "mixed: GMRES-IR step %d: %d %s iteration(s), %s residual reduced by %.3g\n",
                 k, its, right ? "FGMRES" : "GMRES", right ? "true" : "preconditioned", red);
      for (int64_t i = 0; i < n; i++) x[i] -= d[i];
      st->gmres_steps++;
      st->gmres_iters += its;
      k++;
    }
  }
  if (st->fellback) memcpy(x, best, sizeof(double) * (size_t)n);
  free(r); free(d); free(best);
  return HY_OK;
}
