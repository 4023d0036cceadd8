/* bicgstab.c - right-preconditioned BiCGSTAB (van der Vorst 1992) on function pointers.
 * Three global reductions per iteration: (rhat, v); (t, s), (t, t), (s, s); (rhat, r), (r, r),
 * the last one in the same pass as the update of r when the ops fuse them (axpbypcz_dots). */
#include "krylov/krylov.h"
#include "hybrid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "= 0" or "is not finite (overflow)" for a breakdown message.  Local. */
static const char *why(double v) { return isfinite(v) ? "= 0" : "is not finite (overflow)"; }

/* z = a x + b y + c z, then the npair global dots of the updated vectors: the fused op when
 * the ops have one, else the two separate calls.  Collective. */
static int update_dots(const krylov_ops *o, double a, const double *x, double b, const double *y,
                       double c, double *z, int npair, const double *const *dx,
                       const double *const *dy, double *out) {
  if (o->axpbypcz_dots) return o->axpbypcz_dots(o->ctx, a, x, b, y, c, z, npair, dx, dy, out);
  HY_CALL(o->axpbypcz(o->ctx, a, x, b, y, c, z));
  return o->dots(o->ctx, npair, dx, dy, out);
}

/* y = M x, or a copy without preconditioner.  Collective. */
static int apply_m(const krylov_ops *o, double *x, double *y) {
  if (o->precond) return o->precond(o->ctx, x, y);
  return o->vec_copy(o->ctx, x, y);
}

/* The solver.  Collective. */
int krylov_bicgstab(const krylov_ops *o, const krylov_params *par, const double *b, double *x,
                    krylov_result *res) {
  memset(res, 0, sizeof *res);
  double *r = NULL, *rh = NULL, *p = NULL, *v = NULL, *ph = NULL, *s = NULL, *sh = NULL, *t = NULL;
  int rc = HY_OK;
  double **all[] = { &r, &rh, &p, &v, &ph, &s, &sh, &t };
  for (int i = 0; i < 8 && rc == HY_OK; i++) rc = o->vec_create(o->ctx, all[i]);
  if (rc != HY_OK) goto done;
  /* r = b - A x; the matvec input must be a solver vector (ghost space): copy x to ph */
  double d1[2];
  if ((rc = o->vec_copy(o->ctx, x, ph)) != HY_OK) goto done;
  if ((rc = o->matvec(o->ctx, ph, t)) != HY_OK) goto done;
  if ((rc = o->axpbypcz(o->ctx, 1.0, b, -1.0, t, 0.0, r)) != HY_OK) goto done;
  if ((rc = o->vec_copy(o->ctx, r, rh)) != HY_OK) goto done;
  {
    const double *xa[2] = { b, r }, *ya[2] = { b, r };
    if ((rc = o->dots(o->ctx, 2, xa, ya, d1)) != HY_OK) goto done;
  }
  double bnorm = sqrt(d1[0]), rnorm = sqrt(d1[1]);
  if (bnorm == 0) bnorm = 1;  /* b = 0: absolute residual */
  double rho = d1[1];         /* (rhat, r) with rhat = r */
  double alpha = 1, omega = 1, rho_old = 1;
  res->relres = rnorm / bnorm;
  if (!isfinite(res->relres)) {
    res->status = KRYLOV_BREAKDOWN;
    snprintf(res->breakdown, sizeof res->breakdown, "non-finite initial residual");
    goto done;
  }
  if (res->relres <= par->tol) { res->status = KRYLOV_CONVERGED; goto done; }
  for (int it = 1; it <= par->max_iter; it++) {
    res->iterations = it;
    if (rho == 0 || !isfinite(rho)) {
      res->status = KRYLOV_BREAKDOWN;
      snprintf(res->breakdown, sizeof res->breakdown, "rho = (rhat, r) %s at iteration %d", why(rho), it);
      goto done;
    }
    if (it == 1) {
      if ((rc = o->vec_copy(o->ctx, r, p)) != HY_OK) goto done;
    } else {
      double beta = (rho / rho_old) * (alpha / omega);
      /* p = r + beta (p - omega v) */
      if ((rc = o->axpbypcz(o->ctx, 1.0, r, -beta * omega, v, beta, p)) != HY_OK) goto done;
    }
    if ((rc = apply_m(o, p, ph)) != HY_OK) goto done;
    if ((rc = o->matvec(o->ctx, ph, v)) != HY_OK) goto done;
    double rv;
    {
      const double *xa[1] = { rh }, *ya[1] = { v };
      if ((rc = o->dots(o->ctx, 1, xa, ya, &rv)) != HY_OK) goto done;
    }
    if (rv == 0 || !isfinite(rv)) {
      res->status = KRYLOV_BREAKDOWN;
      snprintf(res->breakdown, sizeof res->breakdown, "(rhat, v) %s at iteration %d", why(rv), it);
      goto done;
    }
    alpha = rho / rv;
    if (!isfinite(alpha)) {
      res->status = KRYLOV_BREAKDOWN;
      snprintf(res->breakdown, sizeof res->breakdown, "alpha = rho / (rhat, v) is not finite at "
               "iteration %d", it);
      goto done;
    }
    /* s = r - alpha v */
    if ((rc = o->axpbypcz(o->ctx, 1.0, r, -alpha, v, 0.0, s)) != HY_OK) goto done;
    if ((rc = apply_m(o, s, sh)) != HY_OK) goto done;
    if ((rc = o->matvec(o->ctx, sh, t)) != HY_OK) goto done;
    double d3[3];
    {
      const double *xa[3] = { t, t, s }, *ya[3] = { s, t, s };
      if ((rc = o->dots(o->ctx, 3, xa, ya, d3)) != HY_OK) goto done;
    }
    double snorm = sqrt(d3[2]);
    if (snorm / bnorm <= par->tol) {
      /* x = x + alpha phat */
      if ((rc = o->axpbypcz(o->ctx, alpha, ph, 0.0, ph, 1.0, x)) != HY_OK) goto done;
      res->relres = snorm / bnorm;
      res->status = KRYLOV_CONVERGED;
      if (o->monitor) o->monitor(o->ctx, it, res->relres);
      goto done;
    }
    if (d3[1] == 0 || !isfinite(d3[1]) || !isfinite(d3[0]) || !isfinite(d3[2])) {
      res->status = KRYLOV_BREAKDOWN;
      snprintf(res->breakdown, sizeof res->breakdown, "(t, t) %s at iteration %d",
               isfinite(d3[0]) && isfinite(d3[2]) ? why(d3[1]) : "is not finite (overflow)", it);
      goto done;
    }
    omega = d3[0] / d3[1];
    if (omega == 0 || !isfinite(omega)) {
      res->status = KRYLOV_BREAKDOWN;
      snprintf(res->breakdown, sizeof res->breakdown, "omega = (t, s) / (t, t) %s at iteration %d",
               why(omega), it);
      goto done;
    }
    /* x = x + alpha phat + omega shat; r = s - omega t with (rhat, r), (r, r) in the same pass */
    if ((rc = o->axpbypcz(o->ctx, alpha, ph, omega, sh, 1.0, x)) != HY_OK) goto done;
    double d2[2];
    {
      const double *xa[2] = { rh, r }, *ya[2] = { r, r };
      if ((rc = update_dots(o, 1.0, s, -omega, t, 0.0, r, 2, xa, ya, d2)) != HY_OK) goto done;
    }
    rho_old = rho;
    rho = d2[0];
    double prev = res->relres;
    res->relres = sqrt(d2[1]) / bnorm;
    if (o->monitor) o->monitor(o->ctx, it, res->relres);
    if (!isfinite(res->relres) || !isfinite(rho)) {
      res->status = KRYLOV_BREAKDOWN;
      snprintf(res->breakdown, sizeof res->breakdown, "residual is not finite (overflow) at iteration %d", it);
      res->relres = prev;
      goto done;
    }
    if (res->relres <= par->tol) { res->status = KRYLOV_CONVERGED; goto done; }
  }
  res->status = KRYLOV_MAXIT;
done:
  for (int i = 0; i < 8; i++)
    if (*all[i]) o->vec_free(o->ctx, *all[i]);
  return rc;
}
