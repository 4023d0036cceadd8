/* k_vec_bcgs.h - the scalar steps of BiCGSTAB on a block of scalars in backend memory (the
 * device loop of app/krylov/bicgstab.c): alpha, beta, omega, rho, the residual, the
 * convergence and breakdown tests, written once and compiled for the host (vec_host.c) and for
 * one CUDA thread (vec_cuda.cu), so both run the same arithmetic as app/krylov/bicgstab.c.
 * Once a step stops the iteration (converged or broken down) it clears K_BS_RUN, and every
 * gated vector operation of k_vec.h (axpbypcz_s, dots_s, axpbypcz_dots_s) leaves its outputs
 * alone from then on: x and r stay those of the stopping iteration. */
#ifndef HY_K_VEC_BCGS_H
#define HY_K_VEC_BCGS_H

#include <math.h>

#ifdef __CUDACC__
#define K_HD __host__ __device__
#else
#define K_HD
#endif

/* The slots of the scalar block. */
enum {
  K_BS_RUN,        /* 1 while iterating: gates every update and dot */
  K_BS_RUNX,       /* 1 when this iteration's x update runs */
  K_BS_ONE, K_BS_ZERO,
  K_BS_BNORM, K_BS_RHO, K_BS_RHO_OLD, K_BS_ALPHA, K_BS_OMEGA,
  K_BS_NEG_ALPHA, K_BS_BETA, K_BS_NEG_BETA_OMEGA, K_BS_NEG_OMEGA, K_BS_OMEGA_X,
  K_BS_RV,                         /* (rhat, v) */
  K_BS_TS, K_BS_TT, K_BS_SS,       /* (t, s), (t, t), (s, s) */
  K_BS_RS, K_BS_RT,                /* merged: (rhat, s), (rhat, t) in the same pass */
  K_BS_RHO_NEW, K_BS_RR,           /* (rhat, r), (r, r) */
  K_BS_RELRES,
  K_BS_STATUS,     /* 0 iterating, 1 converged, 2 breakdown */
  K_BS_ITER,       /* the iteration that stopped */
  K_BS_BKIND,      /* which breakdown (K_BK_*) */
  K_BS_BVAL,       /* the value that broke down */
  K_BS_IT,         /* the iteration running (counted here by the first step, so that a
                    * recorded batch of iterations is the same at every replay) */
  K_BS_PEND,       /* merged: 1 while iteration K_BS_IT's x and r updates (and (r, r)'s test)
                    * are still to come (the next iteration's first phase, or the batch's end) */
  K_BS_NSLOT
};

/* Breakdown kinds (the messages of bicgstab.c). */
enum { K_BK_RHO = 1, K_BK_RV, K_BK_ALPHA, K_BK_TT, K_BK_OMEGA, K_BK_RESIDUAL };

/* The steps, in the order of one iteration (K_BSTEP_RHO also sets the next one's beta).  The
 * merged iteration (solver.merge_reductions, the persistent kernel): K_BSTEP_BETA_M (the count
 * only), K_BSTEP_ALPHA_M (the previous iteration's residual test on K_BS_RR when K_BS_PEND,
 * then rho's test and alpha), K_BSTEP_OMEGA_M (omega, then rho = (rhat, s) - omega (rhat, t)
 * and the next beta without waiting for r; K_BS_PEND set), K_BSTEP_RCHECK (the batch's end:
 * the pending residual test). */
enum { K_BSTEP_BETA, K_BSTEP_ALPHA, K_BSTEP_OMEGA, K_BSTEP_RHO, K_BSTEP_BETA_M, K_BSTEP_ALPHA_M,
       K_BSTEP_OMEGA_M, K_BSTEP_RCHECK };

/* Stop at iteration it with a breakdown of kind k on value val.  Local. */
K_HD static inline void k_bcgs_break(double *sc, int it, int k, double val) {
  sc[K_BS_RUN] = 0;
  sc[K_BS_RUNX] = 0;
  sc[K_BS_STATUS] = 2;
  sc[K_BS_ITER] = it;
  sc[K_BS_BKIND] = k;
  sc[K_BS_BVAL] = val;
}

/* omega's step on (t, s), (t, t), (s, s): converged halfway (x += alpha phat pending), a
 * breakdown, or omega set; returns whether omega was set.  Local. */
K_HD static inline int k_bcgs_omega(double *sc, int it, double tol) {
  double ts = sc[K_BS_TS], tt = sc[K_BS_TT], ss = sc[K_BS_SS];
  double snorm = sqrt(ss);
  if (snorm / sc[K_BS_BNORM] <= tol) {         /* converged halfway: x += alpha phat */
    sc[K_BS_RELRES] = snorm / sc[K_BS_BNORM];
    sc[K_BS_RUN] = 0;
    sc[K_BS_RUNX] = 1;
    sc[K_BS_OMEGA_X] = 0;
    sc[K_BS_STATUS] = 1;
    sc[K_BS_ITER] = it;
    return 0;
  }
  if (tt == 0 || !isfinite(tt) || !isfinite(ts) || !isfinite(ss))
    { k_bcgs_break(sc, it, K_BK_TT, isfinite(ts) && isfinite(ss) ? tt : INFINITY); return 0; }
  double omega = ts / tt;
  if (omega == 0 || !isfinite(omega)) { k_bcgs_break(sc, it, K_BK_OMEGA, omega); return 0; }
  sc[K_BS_OMEGA] = omega;
  sc[K_BS_OMEGA_X] = omega;
  sc[K_BS_NEG_OMEGA] = -omega;
  sc[K_BS_RUNX] = 1;
  return 1;
}

/* rho = rho_new and the next iteration's beta (bicgstab.c: (rho / rho_old) (alpha / omega)).
 * Local. */
K_HD static inline void k_bcgs_beta(double *sc) {
  sc[K_BS_RHO_OLD] = sc[K_BS_RHO];
  sc[K_BS_RHO] = sc[K_BS_RHO_NEW];
  double beta = (sc[K_BS_RHO] / sc[K_BS_RHO_OLD]) * (sc[K_BS_ALPHA] / sc[K_BS_OMEGA]);
  sc[K_BS_BETA] = beta;
  sc[K_BS_NEG_BETA_OMEGA] = -beta * sc[K_BS_OMEGA];
}

/* The residual test of iteration it on (r, r): a breakdown when not finite, else relres set,
 * and converged when <= tol; returns whether the iteration goes on.  Local. */
K_HD static inline int k_bcgs_rtest(double *sc, int it, double tol) {
  double relres = sqrt(sc[K_BS_RR]) / sc[K_BS_BNORM];
  if (!isfinite(relres)) { k_bcgs_break(sc, it, K_BK_RESIDUAL, relres); return 0; }
  sc[K_BS_RELRES] = relres;
  if (relres <= tol) {
    sc[K_BS_RUN] = 0;
    sc[K_BS_STATUS] = 1;
    sc[K_BS_ITER] = it;
    return 0;
  }
  return 1;
}

/* The steps of the merged iteration (K_BSTEP_*_M, K_BSTEP_RCHECK; sc[K_BS_RUN] != 0).  Local. */
K_HD static inline void k_bcgs_step_m(double *sc, int step, double tol) {
  int it = (int)sc[K_BS_IT];
  if (step == K_BSTEP_BETA_M) {
    sc[K_BS_IT] += 1;
  } else if (step == K_BSTEP_ALPHA_M) {
    if (sc[K_BS_PEND] != 0) {                  /* the previous iteration's residual */
      sc[K_BS_PEND] = 0;
      if (!k_bcgs_rtest(sc, it - 1, tol)) return;
    }
    double rho = sc[K_BS_RHO];
    if (rho == 0 || !isfinite(rho)) { k_bcgs_break(sc, it, K_BK_RHO, rho); return; }
    double rv = sc[K_BS_RV];
    if (rv == 0 || !isfinite(rv)) { k_bcgs_break(sc, it, K_BK_RV, rv); return; }
    double alpha = rho / rv;
    if (!isfinite(alpha)) { k_bcgs_break(sc, it, K_BK_ALPHA, alpha); return; }
    sc[K_BS_ALPHA] = alpha;
    sc[K_BS_NEG_ALPHA] = -alpha;
  } else if (step == K_BSTEP_OMEGA_M) {
    if (!k_bcgs_omega(sc, it, tol)) {
      sc[K_BS_PEND] = sc[K_BS_RUNX];           /* converged halfway: x to come; broke down: none */
      return;
    }
    sc[K_BS_RHO_NEW] = sc[K_BS_RS] - sc[K_BS_OMEGA] * sc[K_BS_RT];
    if (!isfinite(sc[K_BS_RHO_NEW])) { k_bcgs_break(sc, it, K_BK_RESIDUAL, sc[K_BS_RHO_NEW]); return; }
    sc[K_BS_PEND] = 1;                         /* x and r of this iteration to come */
    k_bcgs_beta(sc);
  } else if (step == K_BSTEP_RCHECK && sc[K_BS_PEND] != 0) {
    sc[K_BS_PEND] = 0;
    k_bcgs_rtest(sc, it, tol);
  }
}

/* One scalar step of the running iteration (nothing once stopped; K_BSTEP_BETA starts the
 * next iteration: sc[K_BS_IT] + 1).  Local. */
K_HD static inline void k_bcgs_step(double *sc, int step, double tol) {
  if (sc[K_BS_RUN] == 0) {
    sc[K_BS_RUNX] = 0;
    return;
  }
  if (step >= K_BSTEP_BETA_M) {
    k_bcgs_step_m(sc, step, tol);
    return;
  }
  if (step == K_BSTEP_BETA) sc[K_BS_IT] += 1;
  int it = (int)sc[K_BS_IT];
  if (step == K_BSTEP_BETA) {
    /* beta and -beta omega were set by the previous iteration's K_BSTEP_RHO (iteration 1: 0
     * from the start, p = r + 0 v + 0 p, p not read), so the update of p may read them while
     * this step runs */
    double rho = sc[K_BS_RHO];
    if (rho == 0 || !isfinite(rho)) { k_bcgs_break(sc, it, K_BK_RHO, rho); return; }
  } else if (step == K_BSTEP_ALPHA) {
    double rv = sc[K_BS_RV];
    if (rv == 0 || !isfinite(rv)) { k_bcgs_break(sc, it, K_BK_RV, rv); return; }
    double alpha = sc[K_BS_RHO] / rv;
    if (!isfinite(alpha)) { k_bcgs_break(sc, it, K_BK_ALPHA, alpha); return; }
    sc[K_BS_ALPHA] = alpha;
    sc[K_BS_NEG_ALPHA] = -alpha;
  } else if (step == K_BSTEP_OMEGA) {
    k_bcgs_omega(sc, it, tol);
  } else {
    double relres = sqrt(sc[K_BS_RR]) / sc[K_BS_BNORM];
    if (!isfinite(relres) || !isfinite(sc[K_BS_RHO_NEW]))
      { k_bcgs_break(sc, it, K_BK_RESIDUAL, relres); return; }   /* K_BS_RELRES keeps the last */
    if (!k_bcgs_rtest(sc, it, tol)) return;
    k_bcgs_beta(sc);
  }
}

#endif
