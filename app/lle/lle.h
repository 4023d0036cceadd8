/* lle.h - the lle workload's internal interface: data (generators reproducing scikit-learn's
 * make_swiss_roll / make_s_curve through numpy's legacy MT19937, files), the sparse matrix
 * M = (I - W)^T (I - W), its eigensolvers, and the outputs (embedding, plot, quality). */
#ifndef HY_LLE_H
#define HY_LLE_H

#include <stdint.h>
#include "io/io.h"
#include "workload.h"

/* numpy's legacy RandomState: MT19937 + its double and Gaussian transforms. */
typedef struct {
  uint32_t mt[624];
  int pos;
  int has_gauss;
  double gauss;
} lle_mt;

/* Seed as numpy.random.RandomState(seed) does for an integer seed (init_genrand).  Local. */
void lle_mt_seed(lle_mt *r, uint32_t seed);
/* Next 32 random bits.  Local. */
uint32_t lle_mt_u32(lle_mt *r);
/* numpy's random_sample(): ((a >> 5) * 67108864 + (b >> 6)) / 2^53.  Local. */
double lle_mt_double(lle_mt *r);
/* numpy's legacy standard_normal (polar method, second value cached).  Local. */
double lle_mt_gauss(lle_mt *r);

/* Points: n x dim row-major doubles, and a colour value per point (the manifold parameter t,
 * a file's colour column, or NaN when there is none). */
typedef struct {
  int64_t n;
  int dim;
  double *x;
  double *t;
} lle_data;

void lle_data_free(lle_data *d);
/* make_swiss_roll(n, noise, random_state=seed) / make_s_curve: identical values.  Local. */
int lle_gen_swissroll(lle_data *d, int64_t n, double noise, uint32_t seed);
int lle_gen_scurve(lle_data *d, int64_t n, double noise, uint32_t seed);
/* make_swiss_roll(n, noise, random_state=seed, hole=True): identical values.  Local. */
int lle_gen_swissroll_hole(lle_data *d, int64_t n, double noise, uint32_t seed);
/* Lift points into D >= dim dimensions by a seeded random orthonormal map.  Local. */
int lle_lift(lle_data *d, int D, uint64_t seed);
/* Read points from CSV (optional header line) or .npy (float32/float64, 2-D); color_last:
 * the last column is a colour, not a coordinate.  HY_EINPUT names file/row/column.  Local. */
int lle_read_points(const char *path, int color_last, lle_data *d);

/* M = (I - W)^T (I - W) from the K neighbours and weights of every point (row i of W has
 * nbr[i*k + j] -> w[i*k + j]).  Symmetric CSR with sorted columns.  Local. */
int lle_build_m(int64_t n, int k, const int32_t *nbr, const double *w, hy_csr *m);
/* M = sum over points i of block_i (kb x kb, blk + i kb^2) at the rows and columns
 * idx[i*kb ..]: each entry summed over i ascending (exactly symmetric).  Symmetric CSR,
 * sorted columns.  Local. */
int lle_build_m_blocks(int64_t n, int kb, const int32_t *idx, const double *blk, hy_csr *m);

/* The nev smallest eigenpairs of M (ascending), FP64. */
typedef struct {
  int nev;
  double *val;       /* nev */
  double *vec;       /* n x nev column-major */
  double *res;       /* ||M v - lambda v|| per pair */
  double normm;      /* ||M||_1 */
  int iters;         /* outer iterations */
  int converged;     /* pairs converged */
  double shift;      /* the shift used for the factorisation */
  double t_factor, t_iter;
  double t_analyze;   /* of t_factor: the ordering and symbolic analysis */
  int blas_threads;   /* OpenBLAS threads set for the factorisation, -1 untouched */
  int factor_blas_threads;   /* chol-nd: OpenBLAS threads of the numeric factor */
  int order_threads;  /* chol-nd: threads of the nested-dissection order */
  double order_parts[10];  /* its renumbering + preparation, levels, subtrees, rest, and their split (k_lle_nd_order) */
  double t_setup, t_permute;   /* chol-nd: B and the block before the order; A permuted after it */
  double t_pool;      /* chol-nd: the thread pool's start (its threads - 1 workers) */
  double mem_factor, mem_matrix, mem_block;   /* chol-nd: bytes of the factor (values and row
                             indices), of A, A by rows and B, of the iteration's blocks */
  int cnd_own;        /* chol-nd: the own tree-parallel factor (below), else CHOLMOD's */
  int cnd_nsub, cnd_ntop, cnd_threads;   /* its subtrees, top supernodes, threads */
  int cnd_tiles;      /* its dpotrf / dtrsm by tiles (lle.cnd_top = tiles) */
  double cnd_top_frac, t_sub, t_top;     /* its top's share of the flops, its two phases */
  int cnd_top_used;   /* its top did go to the device (a cut with top supernodes) */
  int cnd_top_values; /* and its values come back to the host (not with the solves' top there, unchecked) */
  int cnd_top_copy;   /* its top's copies up through pinned buffers (lle.cnd_top_copy = pinned) */
  int cnd_top_asm;    /* its top's blocks assembled on the device (lle.cnd_top_assembly = device or auto) */
  int cnd_top_open;   /* its top's engine opened beside the subtree phase (lle.cnd_top_open = beside) */
  int cnd_top_warm;   /* and the top's work run once there on its buffers (lle.cnd_top_warm) */
  int cnd_device, cnd_below, cnd_solve_top;   /* its top on the device (lle.cnd_top = device), the updates from
                                                 below too, the solves' top part too: */
  double t_dev_asm, t_dev_below;   /* of t_dev: the device's assembly, its updates from below */
  double t_alloc;                  /* of t_up: the engine's buffers and staging set up */
  double t_open, t_open_wait;      /* the engine opened beside the subtrees (cnd_top_open): its seconds there, the top's wait */
  double t_warm;                   /* of t_open, the warm-up's (cnd_top_warm; 0: none ran) */
  double t_up_tails, t_up_lists;   /* of t_up: the tails' copy (host seconds), the entry lists' */
  int top_reg_used;                /* the tails went up in one DMA from their page-locked buffer */
  double t_dev_tails;              /* the tails' DMA on the device's copy stream (events) */
  double t_dev_own;                /* of t_dev: the top's own updates, dpotrf and dtrsm (events) */
  double t_below, top_bytes, t_up, t_dev, t_down;   /* the top's host part (assembly, updates from below),
                                                       bytes moved, copies up, device work, copies back */
  double factor_check;   /* chol-nd with lle.cnd_check: the probe's backward error */
  int sym_kind;          /* chol-nd: the symbolic analysis (lle.cnd_symbolic): 0 cholmod, 1 steps, 2 tree */
  double sym_parts[8];   /* and its steps' seconds (steps, tree): transposes, etree, postorder, counts,
                            weighted postorder, permuted copies, supernodal pattern */
  int cnd_solve_tiles;   /* chol-nd: the solves' top triangular solves by tiles (lle.cnd_solve_trsm) */
  int cnd_small;         /* chol-nd: blocks of fewer columns by plain loops (lle.cnd_small) */
  int cnd_below_gemm;    /* chol-nd: the pairs from below by DGEMM from this many tail columns (lle.cnd_below_gemm) */
  int64_t cnd_ngemm;     /* how many went that way */
  int sym_diff;          /* with lle.cnd_check: 0 both analyses the same, else the first field that differs; -1 not compared */
  int factor_checked;    /* 1: factor_check was computed */
  double solve_check;    /* and the own solve's componentwise backward error (-1: CHOLMOD's factor) */
  double lnz, flops;  /* nonzeros of the Cholesky factor and factorisation flops */
  int ordering;       /* CHOLMOD ordering used (CHOLMOD_AMD = 2, METIS = 3, NESDIS = 4) */
  char method[64];    /* how the factorisation was done, for the report */
  double t_numeric, t_extract, t_solve;   /* bsvd: parts of t_factor / t_iter */
  int solve_threads;  /* bsvd: threads of the block solves and B^T B products */
  int iter_engine;    /* bsvd / chol-nd: the iteration's block work on the backend's engine (lle.iter_block) */
  int iter_opened_beside;   /* and that engine was opened beside the factorisation (lle.iter_open = beside) */
  double iter_bytes;  /* and the bytes it moved between host and engine */
  double t_ie[5];     /* and its parts (s): the first QR and the copies into the engine's block, the engine's
                         rr (projection, QR, M V, H), the p x p eigen-decompositions, its rotations with the
                         residual norms, the final residuals (on the engine where it has bsub_resid) */
  int iter_rows;      /* chol-nd: the block work by rows (lle.iter_block = rows) over this many ranks (0: not) */
  double t_rows, t_rows_eig, rows_bytes;   /* and its seconds on rank 0 (shared with the others: not alone),
                                              rank 0's p x p eigen-decompositions in them (alone), the bytes moved */
  double t_order, t_form, t_rr;   /* gpu-chol: the host ordering and forming P M P^T (parts of
                             t_analyze), the Rayleigh-Ritz steps (part of t_iter; t_solve the
                             block solves, t_numeric the factor) */
  double factor_bytes;    /* gpu-chol: the device factor's storage */
  /* chol-nd spread over the ranks (lle.eig_ranks): the ranks, each one's subtrees (fewest, most),
   * the most loaded rank's share of the subtrees' flops, per phase (LLE_DP_*) the slowest rank's
   * seconds and rank 0's, the bytes moved for the factor's tails and by the solves */
  int dist_ranks, dist_nsub_min, dist_nsub_max, dist_spread;
  double dist_wmax;
  double dist_max[9], dist_r0[9];
  double dist_bytes_f, dist_bytes_s;
} lle_eig;
/* chol-nd's phases over the ranks: order, symbolic, the subtrees' factor, tails to rank 0, the
 * top's factor (rank 0), the solves' subtrees, the solves' top (rank 0), the solves' exchanges,
 * the rank's whole eigen-solve */
enum { LLE_DP_ORDER, LLE_DP_SYM, LLE_DP_SUB, LLE_DP_TAILS, LLE_DP_TOP, LLE_DP_SSUB, LLE_DP_STOP, LLE_DP_SCOMM,
       LLE_DP_TOTAL, LLE_DP_N };
void lle_eig_free(lle_eig *e);
/* The eigensolvers (bsvd, shift-invert, dense) are entries of one table: lle_eig.h. */
/* Residuals ||M v - lambda v|| of every pair and ||M||_1.  Local. */
void lle_eig_residuals(const hy_csr *m, lle_eig *e);
/* Residuals ||M v - lambda v|| with M applied as B^T B, B = I - W (normm kept).  Local. */
int lle_eig_residuals_w(int64_t n, int k, const int32_t *nbr, const double *w, int threads, lle_eig *e);
/* [debug] perturb: v_i *= 1 + rel * s_i (s_i seeded in [-1, 1)) for every vector.  Local. */
void lle_eig_perturb(lle_eig *e, int64_t n, double rel, uint64_t seed);

/* Write the embedding (n x d, column-major in y) as CSV (header line) or .npy (by
 * extension), atomically.  Local. */
int lle_write_embedding(const char *path, int64_t n, int d, const double *y);
/* Trustworthiness (scikit-learn's definition, n_neighbors = kt) of the embedding, over a
 * seeded sample of at most nsample query points (all when n <= nsample).  Local. */
int lle_trustworthiness(const lle_data *d, int dd, const double *y, int kt, int64_t nsample,
                        uint64_t seed, double *trust);

/* ---- the workload: typed options, the stages, what they hand to the report ---- */
enum { LLE_SWISSROLL, LLE_SCURVE, LLE_UNIFORM, LLE_FILE };   /* lle.dataset */
enum { LLE_STAGE_ALL, LLE_STAGE_KNN, LLE_STAGE_WEIGHTS };    /* lle.stage */
enum { LLE_KNN_AUTO, LLE_KNN_BRUTE, LLE_KNN_KDTREE, LLE_KNN_GRID };   /* lle.knn */
enum { LLE_WEIGHTS_AUTO, LLE_WEIGHTS_BACKEND, LLE_WEIGHTS_HOST };       /* lle.weights */
enum { LLE_STANDARD, LLE_LTSA, LLE_HESSIAN, LLE_MODIFIED };   /* lle.method (= K_LLE_LTSA ...) */

/* Every [lle] key and lle's [output] keys, read once by lle_opts_from_cfg. */
typedef struct {
  int dataset;                 /* LLE_SWISSROLL .. LLE_FILE */
  const char *dataset_name;
  const char *file;            /* dataset = file */
  int color_last;              /* lle.color_column = last */
  int64_t n;                   /* generated points */
  double noise;
  int hole;                    /* swissroll with scikit-learn's hole = True */
  int ambient_dim;             /* 0: keep */
  int stage;                   /* LLE_STAGE_* */
  const char *stage_name;
  int k, dim, nev;             /* neighbours, embedding dimension, nev = dim + 1 */
  double reg;
  int method;                  /* LLE_STANDARD | LLE_LTSA | LLE_HESSIAN */
  const char *method_name;
  double hessian_tol, modified_tol;
  int knn;                     /* LLE_KNN_* */
  int fp32;                    /* lle.precision = fp32 */
  int knn_warmup;              /* lle.knn_warmup: one untimed search before the knn phase */
  int weights;                 /* LLE_WEIGHTS_* (lle.weights) */
  int64_t auto_host_n;         /* knn = auto, weights = auto on a device backend: the host's threads below this many points */
  int knn_host_grid;           /* lle.knn_host = grid: that host search by the grid (else the kd-tree) */
  const char *eigensolver;     /* bsvd | shift-invert | dense (the table's names) */
  const char *ordering;        /* bsvd: UMFPACK ordering */
  const char *chol_ordering;   /* shift-invert: CHOLMOD ordering */
  const char *chol_supernodal; /* shift-invert: auto | simplicial | supernodal */
  const char *gpu_ordering;    /* gpu-chol: metis | symamd */
  int nd_leaf;                 /* chol-nd: unsplit segments of at most this many points */
  int cnd_solve_cols;          /* chol-nd: right-hand sides a solve call (0: all) */
  int64_t auto_cnd_n;          /* eigensolver = auto: chol-nd from this many points */
  int64_t auto_device_n;       /* cnd_top = auto, iter_block = auto: the device from this many points */
  int cnd_blas_threads;        /* chol-nd: BLAS threads of the numeric factor (0: auto) */
  int cnd_own;                 /* chol-nd: lle.cnd_factor = own (else CHOLMOD's numeric factor) */
  int cnd_check;               /* chol-nd: lle.cnd_check, the factor's backward error printed */
  int cnd_sym;                 /* chol-nd: lle.cnd_symbolic: 0 cholmod, 1 steps, 2 tree, -1 auto */
  int cnd_solve_tiles;         /* chol-nd: lle.cnd_solve_trsm = tiles (else blas) */
  int cnd_tiles;               /* chol-nd: lle.cnd_top != blas (tiles, and the subtrees with device / auto) */
  int cnd_device;              /* chol-nd: the top on the device: 1 (device), -1 (auto: where the backend has it), 0 */
  int cnd_below;               /* chol-nd: with it the updates from below on the device too (lle.cnd_below = device) */
  int cnd_solve_top;           /* chol-nd: with those the solves' top part on the device (lle.cnd_solve_top = device) */
  int cnd_top_copy;            /* chol-nd: the top's copies up through pinned buffers (lle.cnd_top_copy = pinned) */
  int cnd_top_asm;             /* chol-nd: the top's blocks assembled on the device (lle.cnd_top_assembly, with cnd_below) */
  int cnd_top_open;            /* chol-nd: the top's engine opened beside the subtree phase (lle.cnd_top_open = beside) */
  int cnd_top_warm;            /* chol-nd: and the top's work run once there to load its kernels (lle.cnd_top_warm) */
  double cnd_cut;              /* chol-nd: the own factor's cut depth (lle.cnd_cut) */
  int pool_spin_us;            /* host thread pools: spin before a waiting thread sleeps (lle.pool_spin_us) */
  int iter_columns;            /* lle.iter_products = columns */
  int iter_open_beside;        /* lle.iter_open = beside */
  int cnd_small;               /* lle.cnd_small */
  int cnd_below_gemm;          /* lle.cnd_below_gemm */
  int iter_block;              /* bsvd / chol-nd: the iteration's block work on the backend's engine: 1, -1 auto, 0 driver,
                                  2 by rows over chol-nd's ranks (lle.iter_block = rows) */
  int eig_ranks;               /* lle.eig_ranks: 1, -1 (all), 0 (auto) */
  int eig_spread;              /* lle.eig_top = spread */
  int threads;                 /* bsvd's column-parallel threads, 0 auto */
  double tol;
  int maxit;
  int trust_k;
  int64_t trust_sample, trust_max_n;
  uint32_t seed;               /* run.seed */
  const char *out_embedding, *out_matrix, *out_eigvecs, *out_eigvals;
  const char *out_points, *out_neighbors;
  const char *transform, *out_transformed;   /* new points to embed, and where */
} lle_opts;

/* The host pools' spin before a waiting thread sleeps, microseconds: lle.pool_spin_us, or where
 * it is 0 (auto) LLE_SPIN_SMALL_US below LLE_SPIN_N points (many short jobs a phase: the H200
 * at N = 20k, 8 threads, eigen 0.071 s with 2 ms against 0.092 s with 60 us) and LLE_SPIN_US
 * from there.  Local. */
enum { LLE_SPIN_N = 200000, LLE_SPIN_SMALL_US = 2000, LLE_SPIN_US = 60 };
static inline int lle_pool_spin_us(int key, int64_t n) {
  return key > 0 ? key : n < LLE_SPIN_N ? LLE_SPIN_SMALL_US : LLE_SPIN_US;
}

/* Fill o from the (checked, broadcast) configuration.  Local. */
void lle_opts_from_cfg(const hy_cfg *c, lle_opts *o);

/* What the stages found, for lle_report.c (rank 0 holds the gathered parts). */
typedef struct {
  lle_data data;               /* every rank: all points */
  lle_data tdata;              /* every rank: the lle.transform points (n = 0: none) */
  int32_t *tnbr;               /* rank 0: tdata.n x k nearest training points */
  double *tw;                  /* rank 0: their weights */
  int64_t tbad;                /* transform points with a singular local Gram matrix */
  double *temb;                /* rank 0: tdata.n x d embedding of the new points, column-major */
  uint64_t temb_digest;
  int knn_used;                /* LLE_KNN_BRUTE, _KDTREE or _GRID (auto resolved) */
  const char *knn_name;        /* "brute force", "kdtree", "grid" */
  const char *knn_metric;      /* record field knn: "brute", "kdtree", "grid" */
  const char *knn_how;         /* "host", "FP32 direct form", "FP64 direct form" */
  int weights_host;            /* the weights on the host's threads (lle.weights) */
  int grid_host;               /* knn_used = grid on the host's threads (lle.knn_host = grid) */
  int host_threads;            /* threads of the kd-tree's queries and the host weights */
  int32_t *nbr;                /* rank 0: n x k neighbours (all rows of W) */
  double *w;                   /* rank 0: n x k weights (method = standard), else NULL */
  double *blk;                 /* rank 0: n local blocks (ltsa, hessian: k x k; modified: (k+1)^2), else NULL */
  double eta;                  /* modified: the median ratio of small to large local eigenvalues */
  int64_t ndup, nbad;          /* zero-distance neighbours, singular local Gram matrices */
  int64_t knn_redo;            /* queries CUDA's FP32 KNN filter left to the FP64 kernel (-1: no filter; rank 0) */
  double t_knn, t_weights;     /* slowest rank */
  uint64_t graph_digest;
  /* solve (rank 0) */
  hy_csr m;                    /* M, when assembled (m.nnz > 0) */
  int m_first;                 /* M assembled before the solve (and listed in the summary) */
  int perturbed;               /* [debug] perturb was applied */
  lle_eig eig;
  const struct lle_eigsolver *solver;   /* the solver whose result this is */
  char solver_label[96];       /* its name, "(fallback)" added when it took over */
  char solver_note[64];        /* why the configured solver was not used, or "" */
  const char *auto_choice;     /* lle.eigensolver = auto: the solver it chose by n, else NULL */
  char fallback_msg[512];      /* why the first solver gave way, "" when it did not */
  double cpu_assemble, cpu_eigen;
  /* check (rank 0) */
  double *emb;                 /* n x d, column-major */
  uint64_t emb_digest;
  double worst;                /* max ||M v - lambda v|| / ||M||_1 */
  int passed;
  int have_trust;
  double trust;
} lle_info;

/* Stages (lle_load.c, lle_build.c, lle_solve.c, lle_check.c, lle_out.c). */
/* Points into info->data: generated on every rank, or read by rank 0 and broadcast; lifted;
 * output.points.  Collective. */
int lle_load(hy_ctx *ctx, const lle_opts *o, lle_info *info);
/* K nearest neighbours and weights of this rank's query block, W's rows gathered on rank 0,
 * output.neighbors.  Collective. */
int lle_build(hy_ctx *ctx, const lle_opts *o, lle_info *info);
/* The ranks that share the eigen-solve (lle.eig_ranks): ctx->size where chol-nd (the own
 * factor, its one-call solves, method = standard) is the solver and eig_ranks is all, or auto
 * on more than one rank; else 1.  The same on every rank (n: the points).  Local. */
int lle_eig_ranks(const hy_ctx *ctx, const lle_opts *o, int64_t n);
/* Rank 0: M when needed, the nev smallest eigenpairs through the eigensolver table (and its
 * fallback).  Local (rank 0; the caller agrees on the code). */
int lle_solve(hy_ctx *ctx, const lle_opts *o, lle_info *info);
/* (The ranks other than 0 where lle_eig_ranks > 1 call lle_solve too: their part of rank 0's
 * chol-nd solve and of each factor it retries, collective with rank 0's call.) */
/* Rank 0: [debug] perturb, sign convention, the eigen-residual verdict, the embedding and
 * its digest, trustworthiness.  Local (rank 0). */
int lle_check_result(hy_ctx *ctx, const lle_opts *o, lle_info *info);
/* Rank 0: output.embedding, plot, matrix, eigvecs, eigvals.  Local (rank 0). */
int lle_write_outputs(const lle_opts *o, const lle_info *info);
/* Free what the stages allocated.  Local. */
void lle_info_free(lle_info *info);

/* Report (lle_report.c): every line lle prints, its metrics and the verdict.  Rank 0 prints;
 * call on every rank. */
void lle_report_data(hy_ctx *ctx, const lle_opts *o, const lle_info *info);
void lle_report_build(hy_ctx *ctx, const lle_opts *o, const lle_info *info);
void lle_report_solve(hy_ctx *ctx, const lle_opts *o, const lle_info *info);
void lle_report_trust(hy_ctx *ctx, const lle_opts *o, const lle_info *info);
/* The verdict line and the validation of the record; returns HY_OK or HY_EVALID.  Collective
 * (rank 0's verdict and figure are broadcast). */
int lle_report_verdict(hy_ctx *ctx, const lle_opts *o, const lle_info *info);

#endif
