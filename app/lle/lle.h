/* lle.h - the lle workload's internal interface: data (generators reproducing scikit-learn's
 * make_swiss_roll / make_s_curve through numpy's legacy MT19937, files), the sparse matrix
 * M = (I - W)^T (I - W), its eigensolvers, and the outputs (embedding, plot, quality). */
#ifndef HY_LLE_H
#define HY_LLE_H

#include <stdint.h>
#include "io/io.h"

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
/* Lift points into D >= dim dimensions by a seeded random orthonormal map.  Local. */
int lle_lift(lle_data *d, int D, uint64_t seed);
/* Read points from CSV (optional header line) or .npy (float32/float64, 2-D); color_last:
 * the last column is a colour, not a coordinate.  HY_EINPUT names file/row/column.  Local. */
int lle_read_points(const char *path, int color_last, lle_data *d);

/* M = (I - W)^T (I - W) from the K neighbours and weights of every point (row i of W has
 * nbr[i*k + j] -> w[i*k + j]).  Symmetric CSR with sorted columns.  Local. */
int lle_build_m(int64_t n, int k, const int32_t *nbr, const double *w, hy_csr *m);

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
  double lnz, flops;  /* nonzeros of the Cholesky factor and factorisation flops */
  int ordering;       /* CHOLMOD ordering used (CHOLMOD_AMD = 2, METIS = 3, NESDIS = 4) */
  char method[64];    /* how the factorisation was done, for the report */
  double t_numeric, t_extract, t_solve;   /* bsvd: parts of t_factor / t_iter */
  int solve_threads;  /* bsvd: threads of the block solves and B^T B products */
} lle_eig;
void lle_eig_free(lle_eig *e);
/* Shift-invert subspace iteration with a CHOLMOD factorisation of M + tau I.  Local. */
int lle_eig_shift_invert(const hy_csr *m, int nev, double tol, int maxit, uint64_t seed, lle_eig *e);
/* Subspace iteration with M^+ = B^+ B^+T, B = I - W, from one UMFPACK LU of B + e_k e_k^T
 * (no M assembled or factorised); M applied as B^T B.  Local. */
int lle_eig_bsvd(int64_t n, int k, const int32_t *nbr, const double *w, const char *ordering, int nev, double tol, int maxit, uint64_t seed, lle_eig *e);
/* Dense LAPACK eigensolver (reference for small n).  Local. */
int lle_eig_dense(const hy_csr *m, int nev, lle_eig *e);
/* Residuals ||M v - lambda v|| of every pair and ||M||_1.  Local. */
void lle_eig_residuals(const hy_csr *m, lle_eig *e);
/* Residuals ||M v - lambda v|| with M applied as B^T B, B = I - W (normm kept).  Local. */
int lle_eig_residuals_w(int64_t n, int k, const int32_t *nbr, const double *w, lle_eig *e);
/* [debug] perturb: v_i *= 1 + rel * s_i (s_i seeded in [-1, 1)) for every vector.  Local. */
void lle_eig_perturb(lle_eig *e, int64_t n, double rel, uint64_t seed);

/* Write the embedding (n x d, column-major in y) as CSV (header line) or .npy (by
 * extension), atomically.  Local. */
int lle_write_embedding(const char *path, int64_t n, int d, const double *y);
/* Scatter plot PNG of the first two embedding coordinates coloured by t.  Local. */
int lle_write_plot(const char *path, int64_t n, int d, const double *y, const double *t);
/* Trustworthiness (scikit-learn's definition, n_neighbors = kt) of the embedding, over a
 * seeded sample of at most nsample query points (all when n <= nsample).  Local. */
int lle_trustworthiness(const lle_data *d, int dd, const double *y, int kt, int64_t nsample,
                        uint64_t seed, double *trust);

#endif
