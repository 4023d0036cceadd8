/* bicgstab.c - right-preconditioned BiCGSTAB (van der Vorst 1992) on function pointers.
 * Three global reductions per iteration: (rhat, v); (t, s), (t, t), (s, s); (rhat, r), (r, r),
 * the last one in the same pass as the update of r when the ops fuse them (axpbypcz_dots).
 * It stops when the recursive residual ||r_k|| <= tol ||b|| (PETSc KSPBCGS's default test with
 * the unpreconditioned norm and x0 = 0), or ||s|| <= tol ||b|| halfway through an iteration.
 * Numerical trouble is read off the globally reduced values (a zero or non-finite rho, (rhat, v),
 * (t, t), omega or residual): every rank sees the same values and stops with the same status
 * (PETSc's KSPCheckDot idea); the ops end the job on a local failure, so an error code returned
 * here is one every rank holds. */
#include "krylov/krylov.h"
#include "hybrid.h"
#include "k_vec_bcgs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The solver's vectors (p2: only with s_batch). */
typedef krylov_bcgs_vecs bcgs_vecs;

/* The scalars carried from one iteration to the next. */
typedef struct {
  double bnorm, rho, rho_old, alpha, omega;
} bcgs_state;

/* "= 0" or "is not finite (overflow)" for a breakdown message.  Local. */
static const char *why(double v) { return isfinite(v) ? "= 0" : "is not finite (overflow)"; }

/* Record a breakdown; returns KRYLOV_BREAKDOWN.  Local. */
static int breakdown(krylov_result *res, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->breakdown, sizeof res->breakdown, fmt, ap);
  va_end(ap);
  res->status = KRYLOV_BREAKDOWN;
  return KRYLOV_BREAKDOWN;
}

/* z = a x + b y + c z, then the npair global dots of the updated vectors: the fused op when
 * the ops have one, else the two separate calls.  Collective. */
static int update_dots(const krylov_ops *o, double a, const double *x, double b, const double *y,
                       double c, double *z, int npair, const double *const *dx,
                       const double *const *dy, double *out) {
  if (o->axpbypcz_dots) return o->axpbypcz_dots(o->ctx, a, x, b, y, c, z, npair, dx, dy, out);
  HY_CALL(o->axpbypcz(o->ctx, a, x, b, y, c, z));
  return o->dots(o->ctx, npair, dx, dy, out);
}

/* y = M x; without preconditioner y is x (krylov_bicgstab aliases phat = p, shat = s: the
 * same values as a copy, two vector passes fewer per iteration) or a copy.  Collective. */
static int apply_m(const krylov_ops *o, double *x, double *y) {
  if (o->precond) return o->precond(o->ctx, x, y);
  return x == y ? HY_OK : o->vec_copy(o->ctx, x, y);
}

/* r = b - A x, rhat = r, ||b||, rho = (r, r); res->status set when already converged or the
 * residual is not finite (*stop = 1).  Collective. */
static int bcgs_start(const krylov_ops *o, const krylov_params *par, const double *b, double *x,
                      bcgs_vecs *w, bcgs_state *st, krylov_result *res, int *stop) {
  double d1[2];
  *stop = 1;
  /* the matvec input must be a solver vector (ghost space): copy x to ph */
  HY_CALL(o->vec_copy(o->ctx, x, w->ph));
  HY_CALL(o->matvec(o->ctx, w->ph, w->t));
  HY_CALL(o->axpbypcz(o->ctx, 1.0, b, -1.0, w->t, 0.0, w->r));
  HY_CALL(o->vec_copy(o->ctx, w->r, w->rh));
  const double *xa[2] = { b, w->r }, *ya[2] = { b, w->r };
  HY_CALL(o->dots(o->ctx, 2, xa, ya, d1));
  st->bnorm = sqrt(d1[0]);
  if (st->bnorm == 0) st->bnorm = 1;  /* b = 0: absolute residual */
  st->rho = d1[1];                    /* (rhat, r) with rhat = r */
  st->alpha = st->omega = st->rho_old = 1;
  res->relres = sqrt(d1[1]) / st->bnorm;
  if (o->monitor) o->monitor(o->ctx, 0, res->relres);
  if (!isfinite(res->relres)) {
    breakdown(res, "non-finite initial residual");
    return HY_OK;
  }
  if (res->relres <= par->tol) {
    res->status = KRYLOV_CONVERGED;
    return HY_OK;
  }
  *stop = 0;
  return HY_OK;
}

/* Iteration it: p, v = A M p, alpha, s, t = A M s, omega, x and r.  *stop = 1 when it converged
 * or broke down (res->status set).  Collective. */
static int bcgs_step(const krylov_ops *o, const krylov_params *par, int it, double *x,
                     bcgs_vecs *w, bcgs_state *st, krylov_result *res, int *stop) {
  *stop = 1;
  if (st->rho == 0 || !isfinite(st->rho))
    return breakdown(res, "rho = (rhat, r) %s at iteration %d", why(st->rho), it), HY_OK;
  if (it == 1) {
    HY_CALL(o->vec_copy(o->ctx, w->r, w->p));
  } else {
    double beta = (st->rho / st->rho_old) * (st->alpha / st->omega);
    /* p = r + beta (p - omega v) */
    HY_CALL(o->axpbypcz(o->ctx, 1.0, w->r, -beta * st->omega, w->v, beta, w->p));
  }
  HY_CALL(apply_m(o, w->p, w->ph));
  HY_CALL(o->matvec(o->ctx, w->ph, w->v));
  double rv;
  const double *xa1[1] = { w->rh }, *ya1[1] = { w->v };
  HY_CALL(o->dots(o->ctx, 1, xa1, ya1, &rv));
  if (rv == 0 || !isfinite(rv))
    return breakdown(res, "(rhat, v) %s at iteration %d", why(rv), it), HY_OK;
  st->alpha = st->rho / rv;
  if (!isfinite(st->alpha))
    return breakdown(res, "alpha = rho / (rhat, v) is not finite at iteration %d", it), HY_OK;
  /* s = r - alpha v */
  HY_CALL(o->axpbypcz(o->ctx, 1.0, w->r, -st->alpha, w->v, 0.0, w->s));
  HY_CALL(apply_m(o, w->s, w->sh));
  HY_CALL(o->matvec(o->ctx, w->sh, w->t));
  double d3[5] = { 0, 0, 0, 0, 0 };
  const double *xa3[3] = { w->t, w->t, w->s }, *ya3[3] = { w->s, w->t, w->s };
  HY_CALL(o->dots(o->ctx, 3, xa3, ya3, d3));
  if (par->merged) {                       /* (rhat, s), (rhat, t) of the same s and t */
    const double *xa5[2] = { w->rh, w->rh }, *ya5[2] = { w->s, w->t };
    HY_CALL(o->dots(o->ctx, 2, xa5, ya5, d3 + 3));
  }
  double snorm = sqrt(d3[2]);
  if (snorm / st->bnorm <= par->tol) {
    /* x = x + alpha phat */
    HY_CALL(o->axpbypcz(o->ctx, st->alpha, w->ph, 0.0, w->ph, 1.0, x));
    res->relres = snorm / st->bnorm;
    res->status = KRYLOV_CONVERGED;
    if (o->monitor) o->monitor(o->ctx, it, res->relres);
    return HY_OK;
  }
  if (d3[1] == 0 || !isfinite(d3[1]) || !isfinite(d3[0]) || !isfinite(d3[2]))
    return breakdown(res, "(t, t) %s at iteration %d",
                     isfinite(d3[0]) && isfinite(d3[2]) ? why(d3[1]) : "is not finite (overflow)",
                     it), HY_OK;
  st->omega = d3[0] / d3[1];
  if (st->omega == 0 || !isfinite(st->omega))
    return breakdown(res, "omega = (t, s) / (t, t) %s at iteration %d", why(st->omega), it), HY_OK;
  /* merged: rho = (rhat, s) - omega (rhat, t), its breakdown before x's update (the persistent
   * kernel knows it then) */
  double d2[2] = { d3[3] - st->omega * d3[4], 0 };
  if (par->merged && !isfinite(d2[0]))
    return breakdown(res, "residual is not finite (overflow) at iteration %d", it), HY_OK;
  /* x = x + alpha phat + omega shat; r = s - omega t with (rhat, r), (r, r) in the same pass
   * (merged: (r, r) only) */
  HY_CALL(o->axpbypcz(o->ctx, st->alpha, w->ph, st->omega, w->sh, 1.0, x));
  const double *xa2[2] = { w->rh, w->r }, *ya2[2] = { w->r, w->r };
  if (par->merged)
    HY_CALL(update_dots(o, 1.0, w->s, -st->omega, w->t, 0.0, w->r, 1, xa2 + 1, ya2 + 1, d2 + 1));
  else
    HY_CALL(update_dots(o, 1.0, w->s, -st->omega, w->t, 0.0, w->r, 2, xa2, ya2, d2));
  st->rho_old = st->rho;
  st->rho = d2[0];
  double prev = res->relres;
  res->relres = sqrt(d2[1]) / st->bnorm;
  if (o->monitor) o->monitor(o->ctx, it, res->relres);
  if (!isfinite(res->relres) || !isfinite(st->rho)) {
    res->relres = prev;
    return breakdown(res, "residual is not finite (overflow) at iteration %d", it), HY_OK;
  }
  if (res->relres <= par->tol) {
    res->status = KRYLOV_CONVERGED;
    return HY_OK;
  }
  *stop = 0;
  return HY_OK;
}

/* The solver: start, then iterations until converged, broken down or max_iter.  Collective. */
static int bcgs_run(const krylov_ops *o, const krylov_params *par, const double *b, double *x,
                    bcgs_vecs *w, krylov_result *res) {
  bcgs_state st;
  int stop = 0;
  HY_CALL(bcgs_start(o, par, b, x, w, &st, res, &stop));
  for (int it = 1; !stop && it <= par->max_iter; it++) {
    res->iterations = it;
    HY_CALL(bcgs_step(o, par, it, x, w, &st, res, &stop));
  }
  if (!stop) res->status = KRYLOV_MAXIT;
  return HY_OK;
}

/* One iteration of the device loop, queued: the same operations as bcgs_step with the scalars
 * in sc (the iteration counted there, so that every iteration queues the same calls with the
 * same arguments: a batch of them can be recorded once and replayed); the scalar steps after
 * a dot pass run in that pass; once a step stops the iteration, the gated updates leave x and
 * r alone.  Collective (one rank). */
static int bcgs_step_dev(const krylov_ops *o, double tol, double *x, bcgs_vecs *w, double *sc) {
  void *c = o->ctx;
  /* p = r + beta (p - omega v) (it = 1: p = r + 0 v, v still zero; beta from the previous
   * iteration's last step), with the step that starts the iteration (rho's test) */
  HY_CALL(o->s_axpbypcz(c, sc, K_BS_ONE, K_BS_NEG_BETA_OMEGA, K_BS_BETA, K_BS_RUN, w->r, w->v,
                        w->p, K_BSTEP_BETA, tol));
  HY_CALL(apply_m(o, w->p, w->ph));
  HY_CALL(o->matvec(c, w->ph, w->v));
  const double *xa1[1] = { w->rh }, *ya1[1] = { w->v };
  HY_CALL(o->s_dots(c, 1, xa1, ya1, sc, K_BS_RV, K_BS_RUN, K_BSTEP_ALPHA, tol));
  HY_CALL(o->s_axpbypcz(c, sc, K_BS_ONE, K_BS_NEG_ALPHA, K_BS_ZERO, K_BS_RUN, w->r, w->v, w->s,
                        -1, tol));
  HY_CALL(apply_m(o, w->s, w->sh));
  HY_CALL(o->matvec(c, w->sh, w->t));
  const double *xa3[3] = { w->t, w->t, w->s }, *ya3[3] = { w->s, w->t, w->s };
  HY_CALL(o->s_dots(c, 3, xa3, ya3, sc, K_BS_TS, K_BS_RUN, K_BSTEP_OMEGA, tol));
  /* x = x + alpha phat + omega shat (omega_x = 0 when converged on ||s||) */
  HY_CALL(o->s_axpbypcz(c, sc, K_BS_ALPHA, K_BS_OMEGA_X, K_BS_ONE, K_BS_RUNX, w->ph, w->sh, x,
                        -1, tol));
  const double *xa2[2] = { w->rh, w->r }, *ya2[2] = { w->r, w->r };
  return o->s_axpbypcz_dots(c, sc, K_BS_ONE, K_BS_NEG_OMEGA, K_BS_ZERO, K_BS_RUN, w->s, w->t,
                            w->r, 2, xa2, ya2, K_BS_RHO_NEW, K_BSTEP_RHO, tol);
}

/* A batch of n device-loop iterations (the argument of s_record and of the direct queueing). */
typedef struct {
  const krylov_ops *o;
  double tol;
  int n;
  double *x, *sc;
  bcgs_vecs *w;
} bcgs_batch;

/* Queue the batch's n iterations.  Collective (one rank). */
static int bcgs_batch_queue(void *arg) {
  const bcgs_batch *b = arg;
  if (b->o->s_batch) return b->o->s_batch(b->o->ctx, b->sc, b->n, b->tol, b->x, b->w);
  for (int i = 0; i < b->n; i++) HY_CALL(bcgs_step_dev(b->o, b->tol, b->x, b->w, b->sc));
  return HY_OK;
}

/* The result of the device loop from the scalar block h read at its end (it: the last
 * iteration queued): status, iterations, relres and bicgstab.c's breakdown message.  Local. */
static void bcgs_result_dev(const double *h, int it, krylov_result *res) {
  res->relres = h[K_BS_RELRES];
  res->iterations = h[K_BS_STATUS] != 0 ? (int)h[K_BS_ITER] : it;
  int i = res->iterations;
  double v = h[K_BS_BVAL];
  if (h[K_BS_STATUS] == 0) res->status = KRYLOV_MAXIT;
  else if (h[K_BS_STATUS] == 1) res->status = KRYLOV_CONVERGED;
  else if (h[K_BS_BKIND] == K_BK_RHO) breakdown(res, "rho = (rhat, r) %s at iteration %d", why(v), i);
  else if (h[K_BS_BKIND] == K_BK_RV) breakdown(res, "(rhat, v) %s at iteration %d", why(v), i);
  else if (h[K_BS_BKIND] == K_BK_ALPHA)
    breakdown(res, "alpha = rho / (rhat, v) is not finite at iteration %d", i);
  else if (h[K_BS_BKIND] == K_BK_TT) breakdown(res, "(t, t) %s at iteration %d", why(v), i);
  else if (h[K_BS_BKIND] == K_BK_OMEGA)
    breakdown(res, "omega = (t, s) / (t, t) %s at iteration %d", why(v), i);
  else breakdown(res, "residual is not finite (overflow) at iteration %d", i);
}

/* The device loop (one rank): start as bcgs_run, then iterations queued with the scalars in
 * the block sc, the block read every check_every iterations (the monitor sees those reads).
 * With s_batch, each check_every iterations are one s_batch; with s_record, what check_every
 * iterations queue is recorded once and that batch is replayed (a last shorter batch before
 * max_iter is queued directly).  Collective (one rank). */
static int bcgs_run_dev(const krylov_ops *o, const krylov_params *par, const double *b,
                        double *x, bcgs_vecs *w, double *sc, krylov_result *res) {
  bcgs_state st;
  int stop = 0;
  HY_CALL(bcgs_start(o, par, b, x, w, &st, res, &stop));
  if (stop) return HY_OK;
  double h[K_BS_NSLOT] = { 0 };
  h[K_BS_RUN] = h[K_BS_ONE] = 1;
  h[K_BS_BNORM] = st.bnorm;
  h[K_BS_RHO] = st.rho;
  h[K_BS_RHO_OLD] = h[K_BS_ALPHA] = h[K_BS_OMEGA] = 1;   /* (K_BS_PEND 0: nothing to come) */
  h[K_BS_RELRES] = res->relres;
  int rc = o->s_put(o->ctx, sc, h, K_BS_NSLOT);
  int every = par->check_every > 0 ? par->check_every : 1, it = 0;
  if (every > par->max_iter) every = par->max_iter;
  bcgs_batch full = { o, par->tol, every, x, sc, w }, part = full;
  void *rec = NULL;
  if (rc == HY_OK && o->s_record) rc = o->s_record(o->ctx, bcgs_batch_queue, &full, &rec);
  while (rc == HY_OK && it < par->max_iter) {
    part.n = par->max_iter - it < every ? par->max_iter - it : every;
    rc = rec && part.n == every ? o->s_replay(o->ctx, rec) : bcgs_batch_queue(&part);
    it += part.n;
    if (rc == HY_OK) rc = o->s_get(o->ctx, sc, h, K_BS_NSLOT);
    if (rc == HY_OK && o->monitor)
      o->monitor(o->ctx, h[K_BS_STATUS] != 0 ? (int)h[K_BS_ITER] : it, h[K_BS_RELRES]);
    if (h[K_BS_STATUS] != 0) break;
  }
  if (rc == HY_OK) bcgs_result_dev(h, it, res);
  if (rec) o->s_unrecord(o->ctx, rec);
  return rc;
}

/* Whether the device loop runs (par->device_loop and the ops have it; merged: only as s_batch).
 * Local. */
static int bcgs_dev(const krylov_ops *o, const krylov_params *par) {
  return par->device_loop && o->s_step && (!par->merged || o->s_batch);
}

/* The work vectors (without preconditioner phat = p and shat = s: p and s do not change between
 * the products and the update of x that read phat and shat; p2: s_batch's second p) and the
 * device loop's scalar block.  Collective. */
int krylov_bicgstab_ws_create(const krylov_ops *o, const krylov_params *par, krylov_bcgs_ws *ws) {
  memset(ws, 0, sizeof *ws);
  bcgs_vecs *w = &ws->w;
  double **all[] = { &w->r, &w->rh, &w->p, &w->v, &w->s, &w->t, &w->ph, &w->sh, &w->p2 };
  int dev = bcgs_dev(o, par);
  ws->nv = o->precond ? 8 : 6;
  if (dev && o->s_batch && o->precond) ws->nv = 9;
  for (int i = 0; i < ws->nv; i++) HY_CALL(o->vec_create(o->ctx, all[i]));
  if (!o->precond) {
    w->ph = w->p;
    w->sh = w->s;
  }
  if (dev) HY_CALL(o->s_create(o->ctx, &ws->sc));
  return HY_OK;
}

/* Free what krylov_bicgstab_ws_create made.  Collective. */
int krylov_bicgstab_ws_free(const krylov_ops *o, krylov_bcgs_ws *ws) {
  bcgs_vecs *w = &ws->w;
  double *all[] = { w->r, w->rh, w->p, w->v, w->s, w->t, w->ph, w->sh, w->p2 };
  for (int i = 0; i < ws->nv; i++)
    if (all[i]) o->vec_free(o->ctx, all[i]);
  if (ws->sc) o->vec_free(o->ctx, ws->sc);
  memset(ws, 0, sizeof *ws);
  return HY_OK;
}

/* Run on the work vectors of par->ws, or on ones made and freed here.  Collective. */
int krylov_bicgstab(const krylov_ops *o, const krylov_params *par, const double *b, double *x,
                    krylov_result *res) {
  memset(res, 0, sizeof *res);
  krylov_bcgs_ws own, *ws = par->ws;
  if (!ws) {
    HY_CALL(krylov_bicgstab_ws_create(o, par, &own));
    ws = &own;
  }
  int rc = bcgs_dev(o, par) ? bcgs_run_dev(o, par, b, x, &ws->w, ws->sc, res)
                            : bcgs_run(o, par, b, x, &ws->w, res);
  if (ws == &own) krylov_bicgstab_ws_free(o, &own);
  return rc;
}
