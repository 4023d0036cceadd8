/* gauss.h - what the gauss workload's files share: the run state, the distribution helpers
 * and the interface of the three algorithms (naive, stepwise: rows; blocked: 2D blocks). */
#ifndef HY_GAUSS_H
#define HY_GAUSS_H

#include "workload.h"
#include "k_gauss.h"
#include "comm/comm.h"

enum { GAUSS_NAIVE = 0, GAUSS_STEPWISE = 1, GAUSS_BLOCKED = 2 };
enum { GAUSS_DOUBLE = 0, GAUSS_SINGLE = 1, GAUSS_MIXED = 2 };
enum { GAUSS_RANDOM = 0, GAUSS_DIAGDOM = 1, GAUSS_FILE = 2, GAUSS_ILLCOND = 3 };
enum { GAUSS_REFINE_CLASSIC = 0, GAUSS_REFINE_GMRES = 1, GAUSS_REFINE_AUTO = 2 };

typedef struct gauss_t {
  hy_ctx *ctx;
  k_backend *be;
  const k_gauss_ops *ko;
  int64_t n, nb;
  int alg, prec, managed, mtype;
  int fact_sp;              /* precision of the factorization running now (1: FP32) */
  int P, Q;                 /* blocked grid (rows: P = ranks, Q = 1) */
  uint64_t seed;
  double *fileA;            /* matrix = file / illcond: the whole matrix, column-major, every rank */
  double *b;                /* right-hand side, every rank (length n) */
  double normA, normb;      /* ||A||_inf, ||b||_inf */
  /* the original matrix in FP64 on the device, for residuals: this rank's block-cyclic part */
  int64_t a0_mb, a0_nb;     /* row / column block sizes of that distribution */
  int a0_P, a0_Q, a0_p, a0_q;
  int64_t a0_m, a0_n;       /* local rows / columns */
  double *a0;               /* device, column-major, ld = max(1, a0_m) */
  double *mv_dx, *mv_dy;    /* gauss_matvec's device vectors (a0_n + 1, a0_m + 1), freed at the end */
  hy_grid grid;             /* blocked: the P x Q process grid (grid_made = 1 once made) */
  int grid_made;
  hy_bcast *bc;             /* blocked: its broadcast transport (app/comm), NULL before */
} gauss_t;

/* One algorithm: factor (collective; sp selects FP32 storage, keep: keep what a later solve
 * with any right-hand side needs), solve (collective; x = A^-1 rhs with the factors, rhs and x
 * replicated on every rank; rhs == NULL: the g->b the factorization eliminated along), free. */
typedef struct {
  const char *name;
  int (*factor)(gauss_t *g, int sp, int keep, void **fact);
  int (*solve)(gauss_t *g, void *fact, const double *rhs, double *x);
  void (*release)(gauss_t *g, void *fact);
} gauss_alg;

extern const gauss_alg gauss_rows_naive, gauss_rows_stepwise, gauss_blocked_alg;

/* Blocked LU: make the P x Q process grid and open its broadcast transport (app/comm:
 * gauss.bcast = auto|nccl|mpi: device collectives - NCCL on device buffers - or MPI staged
 * through pinned host memory) for the L panels (along process rows), U block rows and row
 * swaps (down process columns); print the choice (more than one rank).  Every rank takes the
 * same path.  Collective. */
int gauss_blocked_comm_setup(gauss_t *g);
/* Close the transport and free the grid of gauss_blocked_comm_setup (if made).  Collective. */
void gauss_blocked_comm_free(gauss_t *g);

/* Entry (i, j) of the original matrix.  Local. */
double gauss_entry(const gauss_t *g, int64_t i, int64_t j);

/* Number of indices of 0..n-1 owned by process p of P under block size nb (ScaLAPACK numroc;
 * also the first local index at or after global n).  Local. */
static inline int64_t gauss_numroc(int64_t n, int64_t nb, int p, int P) {
  int64_t nblk = n / nb, full = nblk / P, extra = nblk % P;
  int64_t c = full * nb;
  if (p < extra) c += nb;
  else if (p == extra) c += n % nb;
  return c;
}
/* Global index of local index l of process p.  Local. */
static inline int64_t gauss_l2g(int64_t l, int64_t nb, int p, int P) {
  return ((l / nb) * P + p) * nb + l % nb;
}

/* The smallest pivot magnitude accepted: eps(sp) * ||A||_inf (the FP32 factors of precision =
 * mixed: eps_32^2 * ||A||_inf).  Local. */
double gauss_tiny(const gauss_t *g, int sp);

/* Stop a run for a zero/tiny pivot (HY_ENUMERIC, message naming the column).  Local; call it on
 * every rank with the same values. */
int gauss_singular(const gauss_t *g, const char *what, int64_t col, double piv);

#endif

/* What the mixed-precision refinement did (app/gauss/gauss_refine.c). */
typedef struct {
  int method;               /* GAUSS_REFINE_*: as asked */
  int classic_steps;        /* classical refinement steps (x -= (LU)^-1 r) */
  int gmres_steps;          /* GMRES-IR refinement steps (x -= d, d from preconditioned GMRES) */
  int gmres_iters;          /* GMRES iterations over all GMRES-IR steps */
  int switched;             /* auto: classical refinement stagnated, GMRES-IR took over */
  int fellback;             /* neither reached the threshold: the caller refactors in FP64 */
  double scaled;            /* the last HPL scaled residual (FP64 eps) */
  double cond_lower;        /* ||A||_inf ||x||_inf / ||b||_inf <= kappa_inf(A) at convergence */
} gauss_refine_stats;

/* y = A x in FP64 with the original matrix; x, y replicated (length n).  Collective. */
int gauss_matvec(gauss_t *g, const double *x, double *y);

/* r = A x - b and its HPL scaled residual with eps; nr = ||r||_inf, nx = ||x||_inf.
 * Collective. */
int gauss_scaled(gauss_t *g, const double *x, double *r, double eps, double *scaled, double *nr,
                 double *nx);

/* Refine x (replicated, from the low-precision factors fact of alg) in FP64 until the HPL scaled
 * residual is below thr: classical refinement, GMRES-IR (the factors as left preconditioner of
 * GMRES in FP64, or right = 1: as the preconditioner of flexible GMRES), or auto (classical, GMRES-IR when it stagnates).  st->fellback = 1 when neither
 * reached thr (x is then the best iterate) or when x shows A to be numerically singular in FP64
 * (||A|| ||x|| / ||b|| >= 1 / (n eps)).  Collective. */
int gauss_refine(gauss_t *g, const gauss_alg *alg, void *fact, double *x, int method, int maxit,
                 int gmres_max, double gmres_tol, int right, double thr, gauss_refine_stats *st);

/* matrix = illcond: A = U diag(sigma) V^T, sigma geometric from 1 to 1/cond, U and V products
 * of n Householder reflectors from run.seed; built on rank 0 in g->fileA and broadcast (the same
 * matrix for any rank count).  Collective. */
int gauss_illcond_make(gauss_t *g, double cond);

/* A kernel or allocation failure on one rank cannot be agreed on inside the algorithms'
 * collectives: report it with rank and place and abort (DESIGN.md rule 2). */
#define GAUSS_K(expr)                                   \
  do {                                                  \
    int gk_rc_ = (expr);                                \
    if (gk_rc_ != HY_OK) {                              \
      hy_err_trace(__FILE__, __LINE__);                 \
      hy_abort_recorded(gk_rc_);                        \
    }                                                   \
  } while (0)
/* malloc that aborts on failure (local). */
void *gauss_xmalloc(size_t bytes);
/* Device allocation that aborts on failure (local). */
void *gauss_dalloc(gauss_t *g, size_t bytes);
