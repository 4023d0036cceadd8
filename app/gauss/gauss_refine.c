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
#include "krylov/krylov.h"

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

/* GMRES-IR's operator and preconditioner for krylov_gmres (app/krylov): replicated FP64
 * vectors of length n, A x by gauss_matvec, M = (LU)^-1 by gauss_precond. */
typedef struct {
  gauss_t *g;
  const gauss_alg *alg;
  void *fact;
  double *tmp;
} gauss_kry;

/* A zeroed vector.  Local. */
static int gk_vec_create(void *c, double **v) {
  HY_CALLOC(*v, ((gauss_kry *)c)->g->n);
  return HY_OK;
}
/* Free a vector.  Local. */
static int gk_vec_free(void *c, double *v) {
  free(v);
  return HY_OK;
}
/* dst = src.  Local. */
static int gk_vec_copy(void *c, const double *src, double *dst) {
  memcpy(dst, src, sizeof(double) * (size_t)((gauss_kry *)c)->g->n);
  return HY_OK;
}
/* y = A x in FP64.  Collective. */
static int gk_matvec(void *c, double *x, double *y) { return gauss_matvec(((gauss_kry *)c)->g, x, y); }
/* y = (LU)^-1 x with the low-precision factors.  Collective. */
static int gk_precond(void *c, double *x, double *y) {
  gauss_kry *k = c;
  return gauss_precond(k->g, k->alg, k->fact, x, y, k->tmp);
}
/* z = a x + b y + c z (c == 0: z not read).  Local (replicated data). */
static int gk_axpbypcz(void *c, double a, const double *x, double b, const double *y, double cz,
                       double *z) {
  int64_t n = ((gauss_kry *)c)->g->n;
  if (cz == 0)
    for (int64_t i = 0; i < n; i++) z[i] = a * x[i] + b * y[i];
  else
    for (int64_t i = 0; i < n; i++) z[i] = a * x[i] + b * y[i] + cz * z[i];
  return HY_OK;
}
/* The dots of replicated vectors: the same sums on every rank without a reduction.  Local. */
static int gk_dots(void *c, int npair, const double *const *x, const double *const *y, double *out) {
  for (int p = 0; p < npair; p++) out[p] = gauss_dot(x[p], y[p], ((gauss_kry *)c)->g->n);
  return HY_OK;
}

/* d ~ A^-1 r by krylov_gmres in FP64 from d = 0: right = 1 flexible GMRES (true residual,
 * stops on tol or atol), 0 left-preconditioned GMRES (stops on tol); at most m iterations.
 * *its: iterations done; *red: the reduction reached.  Collective. */
static int gauss_gmres(gauss_t *g, const gauss_alg *alg, void *fact, const double *r, double *d,
                       int m, double tol, double atol, int right, int *its, double *red) {
  gauss_kry k = { g, alg, fact, NULL };
  HY_MALLOC(k.tmp, g->n);
  krylov_ops o = { .ctx = &k, .n = g->n, .vec_create = gk_vec_create, .vec_free = gk_vec_free,
                   .vec_copy = gk_vec_copy, .matvec = gk_matvec, .precond = gk_precond,
                   .axpbypcz = gk_axpbypcz, .dots = gk_dots };
  krylov_gmres_params par = { .m = m, .tol = tol, .atol = right ? atol : 0, .left = !right,
                              .x0_zero = 1 };
  krylov_result res;
  for (int64_t i = 0; i < g->n; i++) d[i] = 0;
  int rc = krylov_gmres(&o, &par, r, d, &res);
  free(k.tmp);
  HY_CALL(rc);
  *its = res.iterations;
  *red = res.relres;
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
