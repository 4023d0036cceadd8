/* spai.h - the spai workload's internal interface: SPAI setup (pattern, index sets,
 * submatrices, QR + solve, assembly) and the distributed solve. */
#ifndef HY_SPAI_H
#define HY_SPAI_H

#include "workload.h"
#include "spai/spai_dist.h"
#include "k_spai.h"

typedef struct {
  double tau;          /* pattern threshold (eq. 3) */
  int levels;          /* pattern = sparsified A to this power */
  int max_col;         /* cap of |J_k| */
  double filter;       /* drop |m_jk| < filter * max_j |m_jk| afterwards */
  int colthr;          /* 1: threshold by column maxima max_i |a_ij| instead of eq. 3's rows */
  int scale;           /* 1: SPAI of D^-1/2 A D^-1/2 (D = |diag A|), M = D^-1/2 Mhat D^-1/2 */
  int64_t workspace;   /* bytes of submatrices per chunk */
  int small_rows, small_cols, block_threads;
  int64_t medium_elems;
  int device_setup;    /* 1: one rank, levels 1, no filter: pattern and M's rows by the backend
                        * where it has them (cuda) */
} spai_opts;

typedef struct {
  int64_t nnz_m;               /* global nnz(M) */
  double frob;                 /* ||AM - I||_F */
  double res_min, res_med, res_max;
  int64_t rank_deficient;      /* columns with a dropped pivot or e_k out of reach */
  int64_t ncols_small, ncols_medium, ncols_large;
  int64_t max_i, max_j;
  int64_t dropped_filter;      /* entries removed by the filter */
  double cost_imbalance;       /* max / mean of the ranks' estimated cost */
  int device_setup;            /* pattern and M's rows were built by the backend (single_setup) */
} spai_info;

/* Build the SPAI preconditioner of the distributed A (local rows under pr, global columns):
 * M's local rows under pr, global columns.  Collective. */
int spai_build(hy_ctx *ctx, const spai_part *pr, const hy_csr *a, const spai_opts *opt, hy_csr *m,
               spai_info *info);

/* Jacobi "preconditioner" as a matrix: M = diag(1 / a_ii) (1 where a_ii = 0).  Local. */
int spai_jacobi(const spai_part *pr, int rank, const hy_csr *a, hy_csr *m);

typedef struct {
  double tol;
  int max_iter;
  int use_m;                   /* 0: no preconditioner */
} spai_solve_opts;

typedef struct {
  int status;                  /* krylov_status */
  int iterations;
  double relres;               /* recursive estimate */
  double true_relres;          /* ||b - A x|| / ||b|| recomputed */
  double seconds;              /* BiCGSTAB time (slowest rank) */
  double bytes_per_iter;       /* minimum bytes per iteration on the slowest rank */
  double spmv_a_s, spmv_m_s;   /* one local SpMV of A / M alone (slowest rank; backend library) */
  double spmv_a_bytes, spmv_m_bytes;
  char breakdown[128];
} spai_solve_info;

/* Solve A x = b with BiCGSTAB preconditioned on the right by M (when use_m).  a and m are
 * local rows with global columns (they are renumbered in place).  x: local part, host memory.
 * Collective. */
int spai_solve(hy_ctx *ctx, const spai_part *pr, hy_csr *a, hy_csr *m, const double *b,
               double *x, const spai_solve_opts *opt, spai_solve_info *info);

#endif
