/* gauss_solve.c - the numerical stages of gauss: the FP64 products with the original matrix
 * and HPL's scaled residual, the vendor reference, the solve (factor, solve, refinement, FP64
 * fallback; gauss.repeat times) and the check. */
#include "gauss/gauss.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* y = A x in FP64 with the original matrix; x, y replicated.  Collective. */
int gauss_matvec(gauss_t *g, const double *x, double *r) {
  hy_ctx *ctx = g->ctx;
  int64_t n = g->n, m = g->a0_m, nc = g->a0_n, ld = m > 0 ? m : 1;
  double *xl = gauss_xmalloc((size_t)(nc + 1) * sizeof(double));
  double *yl = gauss_xmalloc((size_t)(m + 1) * sizeof(double));
  for (int64_t j = 0; j < nc; j++) xl[j] = x[gauss_l2g(j, g->a0_nb, g->a0_q, g->a0_Q)];
  /* device vectors kept for the run: GMRES-IR calls this once per iteration */
  if (!g->mv_dx) g->mv_dx = gauss_dalloc(g, (size_t)(nc + 1) * sizeof(double));
  if (!g->mv_dy) g->mv_dy = gauss_dalloc(g, (size_t)(m + 1) * sizeof(double));
  double *dx = g->mv_dx, *dy = g->mv_dy;
  k_backend *be = g->be;
  HY_LOCAL(be->ops->h2d(be, dx, xl, (size_t)nc * sizeof(double)));
  HY_LOCAL(be->ops->memset0(be, dy, (size_t)(m + 1) * sizeof(double)));
  HY_LOCAL(g->ko->gemv_add(be, 0, m, nc, g->a0, ld, dx, dy));
  HY_LOCAL(be->ops->d2h(be, yl, dy, (size_t)m * sizeof(double)));
  HY_LOCAL(be->ops->sync(be));
  for (int64_t i = 0; i < n; i++) r[i] = 0;
  for (int64_t i = 0; i < m; i++) r[gauss_l2g(i, g->a0_mb, g->a0_p, g->a0_P)] = yl[i];
  free(xl);
  free(yl);
  if (ctx->size > 1) HY_MPI(MPI_Allreduce(MPI_IN_PLACE, r, (int)n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  return HY_OK;
}

/* r = A x - b in FP64 with the original matrix; x, r replicated.  Collective. */
static int gauss_residual(gauss_t *g, const double *x, double *r) {
  HY_CALL(gauss_matvec(g, x, r));
  for (int64_t i = 0; i < g->n; i++) r[i] -= g->b[i];
  return HY_OK;
}

/* Infinity norm (NaN propagates).  Local. */
static double gauss_norminf(const double *v, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++)
    if (fabs(v[i]) > m || isnan(v[i])) m = isnan(v[i]) ? NAN : fabs(v[i]);
  return m;
}

/* HPL scaled residual of x with FP64 eps (or FP32 eps for single).  Collective. */
int gauss_scaled(gauss_t *g, const double *x, double *r, double eps, double *scaled,
                        double *nr, double *nx) {
  HY_CALL(gauss_residual(g, x, r));
  *nr = gauss_norminf(r, g->n);
  *nx = gauss_norminf(x, g->n);
  *scaled = *nr / (eps * (g->normA * *nx + g->normb) * (double)g->n);
  if (isnan(*scaled)) *scaled = INFINITY;
  return HY_OK;
}

/* Vendor LU on this rank's device beside ours (1 rank): a warm-up, then as many timed runs as
 * ours (gauss.repeat - 1, at least 1); the DGEMM comes after our runs (gauss_reference_gemm).
 * Collective (1 rank). */
int gauss_reference(gauss_t *g, gauss_info *info) {
  k_backend *be = g->be;
  int64_t n = g->n;
  int reps = g->o->repeat > 1 ? g->o->repeat - 1 : 1;
  double *b = gauss_dalloc(g, (size_t)n * sizeof(double));
  double *dx = gauss_dalloc(g, (size_t)n * sizeof(double));
  HY_LOCAL(be->ops->h2d(be, b, g->b, (size_t)n * sizeof(double)));
  HY_LOCAL(be->ops->sync(be));
  info->ref_reps = reps;
  HY_LOCAL(g->ko->ref_lu(be, n, g->a0, b, dx, reps, info->ref_f, info->ref_s, &info->ref_info));
  double *x = gauss_xmalloc((size_t)n * sizeof(double)), *r = gauss_xmalloc((size_t)n * sizeof(double));
  HY_LOCAL(be->ops->d2h(be, x, dx, (size_t)n * sizeof(double)));
  HY_LOCAL(be->ops->sync(be));
  be->ops->free(be, dx);
  be->ops->free(be, b);
  double nr = 0, nx = 0;
  info->ref_scaled = INFINITY;
  if (info->ref_info == 0) HY_CALL(gauss_scaled(g, x, r, DBL_EPSILON, &info->ref_scaled, &nr, &nx));
  free(x);
  free(r);
  return HY_OK;
}

/* The vendor's DGEMM of order gemm_n (a warm-up, then as many timed runs as ours), after our
 * runs: right before them its power burst made them slower (H200, 03:15, the small-n LU at n =
 * 1024: 2.033 ms after an n = 8192 DGEMM, 1.876 after one of n = 64), while cuSOLVER's LU ran
 * before it; then the reference lines.  Collective (1 rank). */
int gauss_reference_gemm(gauss_t *g, gauss_info *info) {
  int reps = g->o->repeat > 1 ? g->o->repeat - 1 : 1;
  HY_LOCAL(g->ko->gemm_time(g->be, g->o->gemm_n, reps, info->gemm_s));
  gauss_report_reference(g, info);
  return HY_OK;
}

/* One run: factor (sp: FP32 for single / mixed), solve, refine (mixed), refactor in FP64
 * when mixed falls back; *t, *t_factor: seconds (slowest rank).  Collective. */
static int gauss_solve_once(gauss_t *g, gauss_info *info, double *x, double *t, double *t_factor) {
  hy_ctx *ctx = g->ctx;
  const gauss_opts *o = g->o;
  const gauss_alg *alg = info->alg;
  int sp = g->prec != GAUSS_DOUBLE, keep = g->prec == GAUSS_MIXED, tf32 = sp && o->tf32;
  void *fact = NULL;
  info->iters = info->fellback = 0;
  memset(&info->rs, 0, sizeof info->rs);
  info->rs.method = o->refine;
  /* what the vendor reference leaves untimed (its copies of A and b): before the timer */
  if (alg->prepare) HY_CALL(alg->prepare(g, &fact));
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  if (tf32) HY_LOCAL(g->ko->tensor(g->be, 1));
  hy_phase_begin(ctx, "factor");
  g->fact_sp = sp;
  int rc = alg->factor(g, sp, keep, &fact);
  hy_phase_end(ctx, "factor");
  if (tf32) HY_LOCAL(g->ko->tensor(g->be, 0));
  *t_factor = hy_wtime() - t0;
  info->eps = g->prec == GAUSS_SINGLE ? FLT_EPSILON : DBL_EPSILON;
  if (rc == HY_ENUMERIC && g->prec == GAUSS_MIXED) {
    hy_printf0(ctx, "mixed: the FP32 factorization failed (%s); falling back to FP64\n", hy_err_msg());
    hy_err_clear();
    info->fellback = 1;
  } else {
    HY_CALL(rc);
    hy_phase_begin(ctx, "solve");
    HY_CALL(alg->solve(g, fact, NULL, x));
    hy_phase_end(ctx, "solve");
  }
  if (g->prec == GAUSS_MIXED && !info->fellback) {
    /* iterative refinement in FP64 against the original matrix (gauss_refine.c) */
    hy_phase_begin(ctx, "refine");
    HY_CALL(gauss_refine(g, alg, fact, x, o->refine, o->max_refine, o->gmres_max, o->gmres_tol,
                         o->gmres_right, o->threshold, &info->rs));
    hy_phase_end(ctx, "refine");
    info->iters = info->rs.classic_steps + info->rs.gmres_steps;
    info->fellback = info->rs.fellback;
    if (info->fellback && !(info->rs.scaled < o->threshold))
      hy_printf0(ctx, "mixed: refinement did not reach the threshold in %d step(s); falling back "
                 "to FP64\n", info->iters);
  }
  if (info->fellback) {
    if (fact) alg->release(g, fact);
    fact = NULL;
    hy_phase_begin(ctx, "factor64");
    g->fact_sp = 0;
    HY_CALL(alg->factor(g, 0, 0, &fact));
    hy_phase_end(ctx, "factor64");
    hy_phase_begin(ctx, "solve");
    HY_CALL(alg->solve(g, fact, NULL, x));
    hy_phase_end(ctx, "solve");
    info->eps = DBL_EPSILON;
  }
  *t = hy_wtime() - t0;
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, t_factor, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  if (fact) alg->release(g, fact);
  return HY_OK;
}

/* gauss.repeat runs; with more than one the first warms up (as the seed does) and the figures
 * are the mean of the rest and the fastest of the rest (the vendor reference's are of its timed
 * runs after its warm-up too).  Collective. */
int gauss_solve(gauss_t *g, gauss_info *info, double *x) {
  int reps = g->o->repeat;
  double sum_t = 0, sum_f = 0;
  info->reps = reps;
  info->best_t = info->best_f = INFINITY;
  for (int rep = 0; rep < reps; rep++) {
    double t = 0, tf = 0;
    HY_CALL(gauss_solve_once(g, info, x, &t, &tf));
    if (rep == 0 && reps > 1) continue;   /* the warm-up */
    if (t < info->best_t) info->best_t = t;
    if (tf < info->best_f) info->best_f = tf;
    sum_t += t;
    sum_f += tf;
  }
  info->nt = reps > 1 ? reps - 1 : 1;
  info->t = sum_t / info->nt;
  info->t_factor = sum_f / info->nt;
  return HY_OK;
}

/* [debug] perturb (x scaled by 1 + perturb: a wrong solution fed to the verdict), then the
 * scaled residual.  Collective. */
int gauss_verify(gauss_t *g, gauss_info *info, double *x) {
  info->perturb = g->ctx->debug.perturb;
  if (info->perturb != 0)
    for (int64_t i = 0; i < g->n; i++) x[i] *= 1 + info->perturb;
  double *r;
  HY_MALLOC(r, g->n);
  int rc = gauss_scaled(g, x, r, info->eps, &info->scaled, &info->nr, &info->nx);
  free(r);
  HY_CALL(rc);
  /* a solution that overflowed (or came out NaN) is a numerical failure (exit 3), not a
   * validation verdict; x is the same on every rank, hy_agree makes it collective anyway */
  if (info->perturb == 0 && !isfinite(info->nx))
    rc = hy_err(HY_ENUMERIC, "the solution x holds inf or NaN (||x||_inf = %g, ||A||_inf = %g, ||b||_inf = %g): "
                "it overflowed the double range", info->nx, g->normA, g->normb);
  HY_CALL(hy_agree(g->ctx->comm, rc));
  info->ok = info->scaled < g->o->threshold;
  return HY_OK;
}
