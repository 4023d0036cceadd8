/* gauss.h - what the gauss workload's files share: the run state, the distribution helpers
 * and the interface of the three algorithms (naive, stepwise: rows; blocked: 2D blocks). */
#ifndef HY_GAUSS_H
#define HY_GAUSS_H

#include "workload.h"
#include "k_gauss.h"
#include "comm/comm.h"

enum { GAUSS_NAIVE = 0, GAUSS_STEPWISE = 1, GAUSS_BLOCKED = 2 };
enum { GAUSS_DOUBLE = 0, GAUSS_SINGLE = 1, GAUSS_MIXED = 2 };
enum { GAUSS_RANDOM = 0, GAUSS_DIAGDOM = 1, GAUSS_FILE = 2, GAUSS_ILLCOND = 3, GAUSS_HPLMXP = 4 };
/* gauss.low: the format of the blocked LU's GEMM inputs (k_gauss_ops gemm_sub_low) */
enum { GAUSS_LOW_FP32 = 0, GAUSS_LOW_TF32 = 1, GAUSS_LOW_BF16 = 2, GAUSS_LOW_FP16 = 3 };
/* gauss.panel */
enum { GAUSS_PANEL_VENDOR = K_GAUSS_PANEL_VENDOR, GAUSS_PANEL_RECURSIVE = K_GAUSS_PANEL_RECURSIVE,
       GAUSS_PANEL_FUSED = K_GAUSS_PANEL_FUSED, GAUSS_PANEL_AUTO = 3 };
enum { GAUSS_REFINE_CLASSIC = 0, GAUSS_REFINE_GMRES = 1, GAUSS_REFINE_AUTO = 2 };
enum { GAUSS_RHS_RANDOM = 0, GAUSS_RHS_ONES = 1, GAUSS_RHS_FILE = 2 };
/* gauss.small: the blocked algorithm's small-n path (gauss_small.c) */
enum { GAUSS_SMALL_AUTO = 0, GAUSS_SMALL_ON = 1, GAUSS_SMALL_OFF = 2, GAUSS_SMALL_COOP = 3 };

/* The [gauss] keys (and the core and [output] keys gauss uses), read once by
 * gauss_opts_from_cfg after rank 0's checks and the broadcast. */
typedef struct {
  int64_t n;                /* gauss.n (matrix = file: the file's order, set by the load); a
                             * sweep: this combination's */
  int n_given;              /* gauss.n was set (file or command line) */
  int64_t nb;               /* gauss.nb (0: the backend's auto block size); a sweep: this one's */
  int P, Q;                 /* gauss.grid (0 x 0: auto); a sweep: this combination's */
  /* HPL.dat-style sweep: the lists gauss.n, gauss.nb, gauss.grid (CFG_INT_LIST / GRID_LIST);
   * one run factors every combination (grid outermost, then n, then nb: HPL's order) */
  int n_count, nb_count, grid_count;
  int64_t ns[CFG_LIST_MAX], nbs[CFG_LIST_MAX];
  int Ps[CFG_LIST_MAX], Qs[CFG_LIST_MAX];
  int sweep;                /* more than one combination: the record holds the list "sweep" */
  int alg;                  /* GAUSS_NAIVE / STEPWISE / BLOCKED (gauss.algorithm) */
  int prec;                 /* GAUSS_DOUBLE / SINGLE / MIXED (gauss.precision) */
  int managed;              /* gauss.memory = managed */
  int mtype;                /* GAUSS_RANDOM / DIAGDOM / FILE / ILLCOND (gauss.matrix) */
  const char *matrix_name;  /* gauss.matrix as written */
  double cond;              /* gauss.cond */
  const char *file;         /* gauss.file */
  int rhs;                  /* GAUSS_RHS_* (gauss.rhs) */
  const char *rhs_name;     /* gauss.rhs as written */
  const char *rhs_file;     /* gauss.rhs_file */
  int tf32;                 /* gauss.tensor = tf32 (cuBLAS TF32 math mode) */
  int low;                  /* GAUSS_LOW_* (gauss.low) */
  int la_tf32;              /* gauss.lookahead_low = tf32: HPL-MxP's lookahead GEMM on the FP32 inputs in TF32 */
  int max_refine;           /* gauss.max_refine */
  int refine;               /* GAUSS_REFINE_* (gauss.refine) */
  int gmres_max;            /* gauss.gmres_max */
  int gmres_right;          /* gauss.gmres_precond = right */
  double gmres_tol;         /* gauss.gmres_tol */
  int bcast;                /* gauss.bcast: 0 auto, 1 nccl, 2 mpi (the HY_BCAST_* values) */
  double threshold;         /* gauss.threshold */
  int compare;              /* gauss.compare_cusolver */
  int repeat;               /* gauss.repeat */
  int64_t gemm_n;           /* gauss.gemm_n */
  int profile;              /* gauss.profile: synchronised split of the blocked factor time */
  int trace;                /* gauss.trace: the split from time marks on both streams, unsynchronised */
  int panel;                /* gauss.panel: GAUSS_PANEL_* (vendor getrf; getrf_rec with the
                             * vendor's or the fused base blocks; auto: the backend's) */
  int panel_nb;             /* gauss.panel_nb: the recursive panel's base block (columns) */
  int panel_rows;           /* gauss.panel_rows: the fused base block's rows per thread block (0: backend's) */
  int panel_sync_grid;      /* gauss.panel_sync = grid: a grid barrier per column in the fused base block */
  int panel_kernel;         /* gauss.panel_kernel: 0 auto, 1 shared, 2 registers (K_GAUSS_AUX_PBKIND's c) */
  int panel_sms;            /* gauss.panel_sms: multiprocessors the main stream's GEMMs leave to the panel */
  int64_t panel_vendor_rows;  /* gauss.panel_vendor_rows: taller panels by the vendor's getrf (0: none,
                               * -1: the backend's for panel = auto) */
  int64_t panel_vendor_short; /* gauss.panel_vendor_short: panels of at most this many rows by the vendor's
                               * getrf (0: none, -1: the backend's for panel = auto) */
  int lookahead;            /* gauss.lookahead: panels factored ahead on the side stream (0, 1) */
  int update_chunks;        /* gauss.update_chunks: the rest of the trailing update in chunks,
                             * their swaps + TRSM on an aux stream beside the GEMMs (1: off) */
  int update_same;          /* gauss.update_priority = same: the aux stream at the main's priority */
  int side_same;            /* gauss.side_priority = same: the lookahead panel's stream at the main's */
  int pivots_dev;           /* gauss.pivots = device (1 rank: pivots stay on the device) */
  int nopiv;                /* gauss.pivoting = none: the FP32 factors' LU without row exchanges
                             * (HPL-MxP; the FP64 fallback pivots) */
  int lda_pad;              /* gauss.lda = auto: the factors' leading dimension padded */
  int small;                /* gauss.small: GAUSS_SMALL_AUTO / ON / OFF / COOP */
  uint64_t seed;            /* run.seed */
  const char *out_matrix, *out_rhs, *out_solution;   /* [output] matrix, rhs, solution */
} gauss_opts;

/* The options from the configuration.  Local. */
void gauss_opts_from_cfg(const hy_cfg *c, gauss_opts *o);

/* gauss.trace: where the last blocked factorization's wall time went (rank 0's), from time
 * marks on the main and the lookahead side stream, nothing synchronised (gauss_blocked.c).  The
 * main stream's parts sum to the factor time: the first panel, the steps' row swaps, TRSM (+ U
 * broadcast), low-precision copies (HPL-MxP), lookahead GEMM, the rest of the trailing GEMM,
 * and the time it waits for (or, lookahead 0, spends on) the next panel. */
enum { GAUSS_TR_FIRST, GAUSS_TR_SWAP, GAUSS_TR_TRSM, GAUSS_TR_LOW, GAUSS_TR_LAGEMM, GAUSS_TR_GEMM,
       GAUSS_TR_WAIT, GAUSS_TR_PARTS };
#define GAUSS_TR_QUARTERS 4
typedef struct {
  int done;                 /* recorded by the last blocked factorization */
  double factor;            /* seconds from the first panel's start to the last step's end */
  double part[GAUSS_TR_PARTS];  /* the main stream's seconds by part (they sum to factor) */
  double panels;            /* seconds of the panels factored on the side stream (after the first) */
  double aux;               /* gauss.update_chunks > 1: seconds of the aux stream's swaps + TRSM
                             * (+ low copies), from its first chunk's start to its last's end */
  int chunks;               /* gauss.update_chunks of the factorization */
  double fl_la, fl_gemm;    /* flops of the lookahead GEMMs / of the rest of the trailing GEMMs */
  double host;              /* the host's seconds queueing the work (first mark to the last) */
  double host_gemm, host_panel;  /* of them in the GEMM calls, in the panels' (+ the first step's) */
  int nq;                   /* quarters of the steps (fewer steps: fewer) */
  int64_t q0[GAUSS_TR_QUARTERS + 1];  /* first step of each quarter, then the step count */
  double qbusy[GAUSS_TR_QUARTERS], qwait[GAUSS_TR_QUARTERS], qpanel[GAUSS_TR_QUARTERS];
} gauss_trace;

/* The small-n path's times per run (gauss_small.c; the report's "small-n LU: ... of the run"
 * line): the host's clock around getrf_small (the launches, the LU, the readback of its info:
 * it synchronises) and around the solve (getrs_small, x downloaded, the synchronisation), as
 * tests/gauss/test_gauss_small_time.c times the kernels alone. */
enum { GAUSS_SM_LU, GAUSS_SM_SOLVE, GAUSS_SM_PARTS };
typedef struct {
  int runs;                 /* runs measured */
  double first[GAUSS_SM_PARTS];   /* the first run's (the warm-up when gauss.repeat > 1) */
  double sum[GAUSS_SM_PARTS];     /* summed over the runs after the first */
} gauss_small_times;

typedef struct gauss_t {
  hy_ctx *ctx;
  const gauss_opts *o;
  k_backend *be;
  const k_gauss_ops *ko;
  int64_t n, nb;
  int panel;                /* the blocked LU's panel: gauss.panel, auto resolved by the backend */
  int64_t vendor_rows;      /* panels of more rows by the vendor's getrf (gauss.panel_vendor_rows,
                             * -1 resolved; 0: none) */
  int64_t vendor_short;     /* panels of at most this many rows by the vendor's getrf
                             * (gauss.panel_vendor_short, -1 resolved; 0: none) */
  int alg, prec, managed, mtype;
  int fact_sp;              /* precision of the factorization running now (1: FP32) */
  int P, Q;                 /* blocked grid (rows: P = ranks, Q = 1) */
  uint64_t seed;
  double *fileA;            /* matrix = file / illcond: the whole matrix, column-major, every rank */
  double *b;                /* right-hand side, every rank (length n) */
  double *diag;             /* matrix = hplmxp: the diagonal (sum of |a_ij|, j != i), every rank */
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
  /* device buffers parked between the runs of gauss.repeat (gauss_dpark): the factors and
   * the solve's vectors of a small system are not allocated again inside the timed region */
  void *park[4];
  size_t park_bytes[4];
  double prof[5];           /* gauss.profile: panel, swaps, TRSM + U broadcast, lookahead GEMM,
                             * rest of the trailing GEMM (seconds, rank 0's, last factorization) */
  gauss_trace tr;           /* gauss.trace (blocked) */
  gauss_small_times small_tm;   /* the small-n path's times (gauss_small.c) */
  int chunks;               /* the last blocked factorization's update chunks (gauss.update_chunks,
                             * 0 resolved by the backend; 1 with more process rows) */
  int64_t npanels, ntall;   /* the last blocked factorization's panels; of them by the vendor's getrf
                             * for gauss.panel_vendor_rows / _short (every rank counts every panel) */
} gauss_t;

/* One algorithm: factor (collective; sp selects FP32 storage, keep: keep what a later solve
 * with any right-hand side needs), solve (collective; x = A^-1 rhs with the factors, rhs and x
 * replicated on every rank; rhs == NULL: the g->b the factorization eliminated along), free. */
typedef struct {
  const char *name;
  int (*factor)(gauss_t *g, int sp, int keep, void **fact);
  int (*solve)(gauss_t *g, void *fact, const double *rhs, double *x);
  void (*release)(gauss_t *g, void *fact);
  /* Before the timer (NULL: nothing to do): the inputs the next factor and solve read, placed
   * where they read them, as the vendor reference's untimed copies place cuSOLVER's (the small
   * path: A copied into the factor's buffer, b uploaded into the solve's vector); *fact then
   * goes to factor, which takes it over.  Collective. */
  int (*prepare)(gauss_t *g, void **fact);
} gauss_alg;

extern const gauss_alg gauss_rows_naive, gauss_rows_stepwise, gauss_blocked_alg, gauss_small_alg;

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

/* malloc that aborts on failure (local). */
void *gauss_xmalloc(size_t bytes);
/* Device allocation that aborts on failure (local). */
void *gauss_dalloc(gauss_t *g, size_t bytes);
/* gauss_dalloc that first takes a parked buffer of exactly bytes; gauss_dpark parks p (bytes
 * long) for the next run when it is at most GAUSS_PARK_MAX bytes and a slot is free, else
 * frees it.  gauss_free frees what is parked.  Local. */
#define GAUSS_PARK_MAX ((size_t)64 << 20)
void *gauss_dalloc_parked(gauss_t *g, size_t bytes);
void gauss_dpark(gauss_t *g, void *p, size_t bytes);

/* What the stages found, for the report (every rank holds the same values unless said). */
typedef struct {
  const gauss_alg *alg;
  /* reference (gauss.compare_cusolver, 1 rank): after a warm-up, as many timed runs as ours */
  int ref_reps;             /* timed runs of the vendor's LU and DGEMM */
  double ref_f[2], ref_s[2];  /* vendor getrf / getrs seconds: [0] best, [1] mean */
  int ref_info;             /* vendor getrf info */
  double ref_scaled;        /* HPL scaled residual of the vendor's x */
  double gemm_s[2];         /* seconds of one gemm_n^3 DGEMM: best, mean */
  /* solve (gauss.repeat runs) */
  int reps, nt;             /* runs; timed runs (the first warms up when reps > 1) */
  double t, t_factor;       /* mean over the timed runs: solve (factor .. refine / fallback),
                             * factor alone (slowest rank) */
  double best_t, best_f;    /* fastest run */
  int iters, fellback;      /* refinement steps; FP64 fallback (last run) */
  gauss_refine_stats rs;    /* the last run's refinement */
  double eps;               /* eps of the check (FP32 eps for single) */
  /* check */
  double perturb;           /* [debug] perturb applied to x before the check (0: none) */
  double scaled, nr, nx;    /* HPL scaled residual, ||Ax - b||_inf, ||x||_inf */
  int ok;                   /* scaled < threshold */
} gauss_info;

/* gauss.small (gauss_small.c): at one rank in FP64 with the backend's small-n LU, take it
 * (info->alg = &gauss_small_alg) for on, or for auto when n <= the backend's small_auto; on
 * where it cannot run: HY_EUSAGE naming what it needs.  Local (every rank decides the same). */
int gauss_small_pick(gauss_t *g, gauss_info *info);

/* One HPL result line (one combination of a sweep) and its verdict. */
typedef struct {
  char tv[16];              /* the T/V code (gauss_report.c) */
  int64_t n, nb;            /* nb: 1 for the rows algorithms */
  int P, Q;
  double t, t_factor, gflops, scaled;
  int ok;                   /* scaled < threshold */
} gauss_line;

/* The stages of gauss_run (gauss_data.c, gauss_solve.c, gauss_report.c).  Each is collective
 * and returns a code every rank holds. */
/* Set up g from the options, read / make the inputs (files on rank 0, broadcast; b), the grid
 * and its transport, the FP64 matrix on the device and ||A||_inf. */
int gauss_load(gauss_t *g, hy_ctx *ctx, const gauss_opts *o, gauss_info *info);
/* The vendor's LU on this rank's device (compare_cusolver), before our runs. */
int gauss_reference(gauss_t *g, gauss_info *info);
/* The vendor's DGEMM (compare_cusolver), after our runs, and the reference lines. */
int gauss_reference_gemm(gauss_t *g, gauss_info *info);
/* gauss.repeat times: factor, solve, refine (mixed), FP64 fallback; x the last run's. */
int gauss_solve(gauss_t *g, gauss_info *info, double *x);
/* [debug] perturb on x, then HPL's scaled residual against the original matrix in FP64. */
int gauss_verify(gauss_t *g, gauss_info *info, double *x);
/* Every printed line, metric and the verdict; [output] files.  HY_EVALID when the check
 * failed. */
int gauss_report(gauss_t *g, const gauss_info *info, const double *x, gauss_line *line);
/* A sweep (gauss.sweep): every combination's line again with its verdict, HPL's closing
 * count, the record's "sweep" list, the validation (the worst scaled residual) and the verdict.
 * HY_EVALID when a line failed.  Local (rank 0 prints; every rank holds the lines). */
int gauss_report_sweep(hy_ctx *ctx, const gauss_opts *o, const gauss_line *lines, int k);
/* Free what gauss_load made (the transport and grid too).  Collective. */
void gauss_free(gauss_t *g);
/* The report's pieces printed during the stages (gauss_report.c).  Local. */
void gauss_report_setup(const gauss_t *g, const gauss_info *info);
void gauss_report_bcast(const gauss_t *g);
void gauss_report_norms(const gauss_t *g);
void gauss_report_reference(const gauss_t *g, const gauss_info *info);
/* Write A, b and x as [output] asks (rank 0).  Collective (agreed outcome). */
int gauss_outputs(gauss_t *g, const double *x);
