/* lle_eig.h - the eigensolvers of the lle workload (private to app/lle/): one table entry per
 * solver (lle_eig_bsvd.c, lle_eig_si.c, lle_eig_dense.c), each naming its fallback, and what
 * they share (lle_eig_common.c): the column-parallel threads, the CSR products, the dense
 * LAPACK helpers.  All of it is local work on the rank that solves (rank 0). */
#ifndef HY_LLE_EIG_H
#define HY_LLE_EIG_H

#include "lle.h"
#include "k_lle.h"
#include <mpi.h>

struct hy_ctx;

/* What an eigensolver gets: W's rows (every solver) and M (solvers with needs_m). */
typedef struct {
  int64_t n;
  int k;
  const int32_t *nbr;          /* n x k neighbour indices (W's pattern) */
  const double *w;             /* n x k weights */
  const hy_csr *m;             /* M = (I - W)^T (I - W), assembled when the solver needs it */
  int nev;                     /* eigenpairs wanted (d + 1) */
  double tol;                  /* converged: ||M v - lambda v|| <= tol ||M||_1 */
  int maxit;                   /* subspace iterations at most */
  uint64_t seed;               /* start block */
  const char *ordering;        /* bsvd: UMFPACK ordering amd|metis|cholmod|best (lle.ordering) */
  const char *chol_ordering;   /* shift-invert: CHOLMOD ordering auto|amd|metis|nesdis */
  const char *chol_supernodal; /* shift-invert: auto|simplicial|supernodal */
  int threads;                 /* threads of the column-parallel loops (lle.threads; 0: auto) */
  int threads_auto;            /* 1: lle.threads = 0 (threads is the rank's count) */
  k_lle_pool *pool;            /* bsvd: the column-parallel loops' threads (bsvd's own for the
                                * solve, parked between the loops); NULL: threads per loop */
  hy_progress *prog;           /* progress of the iterations (hy_progress_toward), or NULL */
  const char *gpu_ordering;    /* gpu-chol: the host ordering metis | symamd (lle.gpu_ordering) */
  k_backend *be;               /* the rank's backend (gpu-chol's device table) */
  int blas_threads;            /* run.blas_threads: > 0 fixes the BLAS threads (kept as they are) */
  const double *x;             /* chol-nd: the points (n x xdim row-major), for its order */
  int xdim;
  int nd_leaf;                 /* chol-nd: segments of at most this many points are not split */
  int solve_cols;              /* chol-nd: right-hand sides a solve call (0: the whole block) */
  int cnd_blas_threads;        /* chol-nd: BLAS threads of the numeric factor (0: auto) */
  int cnd_own, cnd_check;      /* chol-nd: lle.cnd_factor = own, lle.cnd_check */
  int cnd_sym;                 /* chol-nd: lle.cnd_symbolic: 0 one cholmod_l_analyze, 1 steps, 2 tree, -1 auto */
  int cnd_solve_tiles;         /* chol-nd: lle.cnd_solve_trsm = tiles */
  int cnd_tiles;               /* chol-nd: lle.cnd_top = tiles (the subtrees' too with device) */
  int cnd_device;              /* chol-nd: the top supernodes on the backend's chol_top (lle.cnd_top = device) */
  int cnd_below;               /* chol-nd: and their updates from below there too (lle.cnd_below = device) */
  int cnd_solve_top;           /* chol-nd: and the solves' top part there (lle.cnd_solve_top = device) */
  int cnd_top_copy;            /* chol-nd: its copies up through pinned buffers (lle.cnd_top_copy = pinned) */
  int cnd_top_asm;             /* chol-nd: the top's blocks assembled on the device (lle.cnd_top_assembly, with cnd_below) */
  int cnd_top_open;            /* chol-nd: the top's engine opened beside the subtree phase (lle.cnd_top_open = beside) */
  int cnd_top_warm;            /* chol-nd: and the top's work run once there to load its kernels (lle.cnd_top_warm) */
  double cnd_cut;              /* chol-nd: the own factor's cut depth (lle.cnd_cut, >= 1) */
  int pool_spin_us;            /* chol-nd, bsvd: their thread pools' spin before a waiting thread sleeps (lle.pool_spin_us) */
  int iter_columns;            /* bsvd / chol-nd driver loop: M V a column at a time (lle.iter_products = columns) */
  int iter_open_beside;        /* the engine opened beside the factorisation (lle.iter_open = beside) */
  int cnd_small;               /* chol-nd, own factor: dpotrf / dtrsm of blocks of fewer columns by loops (lle.cnd_small) */
  int cnd_below_gemm;          /* chol-nd: the device's pairs from below by DGEMM from this many tail columns (lle.cnd_below_gemm) */
  int iter_engine;             /* bsvd / chol-nd: the iteration's block work on the backend's k_lle_bsub engine */
  int eig_ranks;               /* chol-nd: the ranks of comm that share the factor and the solves (lle.eig_ranks; 1: this rank alone) */
  MPI_Comm comm;               /* with eig_ranks > 1: the ranks (every one of them calls the solver or lle_cnd_worker) */
  int cnd_spread;              /* with eig_ranks > 1: lle.eig_top = spread (each rank its subtrees' top, rank 0 the rest) */
  int iter_rows;               /* chol-nd: the iteration's block work by rows over its ranks (lle.iter_block = rows) */
} lle_eig_in;

/* B = I - W as CSR with sorted columns, each row the diagonal and its k neighbours; as a CSC
 * array it is B^T (UMFPACK's matrix; chol-nd's A with A A^T = M). */
typedef struct {
  int64_t n;
  int k1;                 /* entries a row: k + 1 */
  int64_t *p, *i;         /* SuiteSparse_long */
  double *x;
} lle_bmat;

/* B from W's rows (every rank of a spread chol-nd builds it), freed.  Local. */
int lle_bmat_build(int64_t n, int k, const int32_t *nbr, const double *w, int nt, lle_bmat *b);
void lle_bmat_free(lle_bmat *b);

/* The operator of the subspace iteration on e^perp with Rayleigh-Ritz on M = B^T B
 * (lle_bsub_solve in lle_eig_bsvd.c): bsvd's M^+ from an LU of B, chol-nd's (M + tau I)^-1. */
/* Rank 0 of a by-rows iteration (lle_eig_rows.h): tell the other ranks the step code (> 0)
 * before it runs.  HY_OK or an error. */
typedef int (*lle_rows_call)(void *arg, int code);
typedef struct lle_bop {
  const char *name;
  /* factor from B (and in's points, neighbours); *st its state; e gets the factorisation's
   * figures (t_analyze, t_numeric, lnz, flops, method, shift); t0 the phase's start */
  int (*factor)(const lle_eig_in *in, const lle_bmat *b, void **st, lle_eig *e, double t0);
  /* v <- op(v) for p columns (the caller projects away from e); tmp: n x p scratch */
  int (*apply)(void *st, int p, double *v, double *tmp);
  void (*free)(void *st);   /* st may be NULL */
  /* lle.iter_block = rows: the ranks of the block's rows (*comm: those that share the solves,
   * MPI_COMM_SELF where the operator has none), rank 0's word to the others before each step
   * (*call / *arg, NULL where there are none) and the threads' pool; NULL: not offered (bsvd:
   * the driver's loop) */
  int (*rows_link)(void *st, MPI_Comm *comm, lle_rows_call *call, void **arg, k_lle_pool **pool);
  /* the operator's thread pool, idle between its applies, for the iteration's B^T B products
   * (where the solve was handed none: lle_eig_in.pool); NULL, or NULL returned: the iteration
   * starts its own */
  k_lle_pool *(*pool)(void *st);
} lle_bop;
/* The d + 1 smallest eigenpairs by subspace iteration with op: pair 0 the constant vector,
 * ||M||_1 and the start block computed beside the factorisation.  Local. */
int lle_bsub_solve(const lle_eig_in *in, const lle_bop *op, lle_eig *e);
/* Its block width on e^perp (nev - 1 + max(nev, 6), at most n - 1).  Local. */
int lle_bsub_width(const lle_eig_in *in);

/* One eigensolver.  A solver with a fallback is tried with at most stall_iters iterations;
 * when it does not converge in them (and maxit allows more), or it meets HY_ENUMERIC, the
 * fallback solver runs instead with the full maxit. */
typedef struct lle_eigsolver {
  const char *name;            /* the lle.eigensolver value */
  int needs_m;                 /* 1: solve reads in->m (assembled before the call) */
  int needs_w;                 /* 1: solve reads W (in->w: method = standard only); without W
                                  the fallback runs instead */
  int (*solve)(const lle_eig_in *in, lle_eig *e);
  /* the solver's lines of the summary (lle_report.c) */
  void (*report)(const struct hy_ctx *ctx, const char *label, const lle_eig *e);
  const char *fallback;        /* name of the solver that takes over, or NULL */
  int stall_iters;             /* with a fallback: iterations before it counts as stalled */
  const char *stall_why;       /* printed when it stalls */
} lle_eigsolver;

extern const lle_eigsolver lle_eig_bsvd_solver, lle_eig_si_solver, lle_eig_dense_solver, lle_eig_gpu_solver,
    lle_eig_cnd_solver;
/* chol-nd spread over in->eig_ranks ranks: what the ranks other than 0 run while rank 0 runs
 * the solver (the same order, analysis and plan; their subtrees of every factor; their part
 * of every solve until rank 0's operator ends).  Collective with rank 0's chol-nd solve. */
int lle_cnd_worker(const lle_eig_in *in);
/* The solver of that name, or NULL.  Local. */
const lle_eigsolver *lle_eigsolver_find(const char *name);

/* Summary lines of the LU-based (bsvd) and Cholesky/LAPACK-based solvers.  Local (rank 0). */
void lle_report_eig_lu(const struct hy_ctx *ctx, const char *label, const lle_eig *e);
void lle_report_eig_chol(const struct hy_ctx *ctx, const char *label, const lle_eig *e);
/* chol-nd's lines: the factorisation and its parts.  Local (rank 0). */
void lle_report_eig_cnd(const struct hy_ctx *ctx, const char *label, const lle_eig *e);
/* gpu-chol's lines: the factorisation and its parts.  Local (rank 0). */
void lle_report_eig_gpu(const struct hy_ctx *ctx, const char *label, const lle_eig *e);

/* OpenBLAS threads for a factorisation of size n, at most cap (OPENBLAS_NUM_THREADS wins);
 * 1 for a single-threaded BLAS. */
int lle_blas_threads(int64_t n, int cap);
/* OpenBLAS threads set to nt (nothing where OPENBLAS_NUM_THREADS is set or the BLAS is not
 * OpenBLAS).  Local. */
void lle_blas_set(int nt);
/* Threads of the column-parallel loops: want clamped to 1..8 (callers pass ctx->threads for
 * lle.threads = 0).  Local. */
int lle_threads(int want);
/* fn(arg, c0, c1) over the columns [0, nc) split over at most nt threads.  Local. */
void lle_parallel(int nt, int nc, void (*fn)(void *, int, int), void *arg);
/* The same on the pool's threads (no thread start; NULL: lle_parallel).  Local. */
void lle_parallel_on(k_lle_pool *pool, int nt, int nc, void (*fn)(void *, int, int), void *arg);
/* y = M x for nc columns (leading dimension n).  Local. */
void lle_csr_mm(const hy_csr *m, int nc, const double *x, double *y);
/* ||M||_1 (= ||M||_inf, M symmetric).  Local. */
double lle_csr_norm1(const hy_csr *m);
/* Orthonormalise the n x p block v in place (Householder QR).  Local. */
int lle_orthonormalise(int64_t n, int p, double *v);
/* Eigen-decomposition of the symmetric p x p matrix h (vectors overwrite h).  Local. */
int lle_small_eig(int p, double *h, double *theta);

/* LAPACK / BLAS (Fortran, hidden string lengths last) */
extern void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
                    const int *lda, const double *vl, const double *vu, const int *il,
                    const int *iu, const double *abstol, int *m, double *w, double *z,
                    const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork,
                    const int *liwork, int *info, size_t, size_t, size_t);
extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc, size_t, size_t);

#endif
