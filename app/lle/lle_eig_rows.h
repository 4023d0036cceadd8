/* lle_eig_rows.h - the subspace iteration's block work by rows over the ranks that share
 * chol-nd's solves (lle.iter_block = rows; lle_eig_rows.c, private to app/lle/).  Every call
 * is collective over comm: rank 0 makes it from its iteration (lle_eig_bsvd.c), telling the
 * other ranks each step first through call (chol-nd's serve loop: lle_eig_cnd_dist.c), and
 * they make the same call through lle_rows_step.  The results are the same bit for bit at
 * any rank count and any thread count (fixed blocks of LLE_ROWS_RB rows, own loops). */
#ifndef HY_LLE_EIG_ROWS_H
#define HY_LLE_EIG_ROWS_H

#include "lle_eig.h"
#include <mpi.h>

enum { LLE_ROWS_RB = 4096,     /* rows a block (the reductions' unit) */
       LLE_ROWS_PMAX = 72 };   /* the block's columns at most (lle.dim <= 32: p <= 65) */
/* The steps (rank 0 tells the others step + LLE_ROWS_STEPS x columns) */
enum { LLE_ROWS_OPEN = 1, LLE_ROWS_SCATTER, LLE_ROWS_GATHER, LLE_ROWS_ORTH, LLE_ROWS_RR, LLE_ROWS_ROTATE,
       LLE_ROWS_RESID, LLE_ROWS_STEPS = 16 };

typedef struct lle_rows lle_rows;   /* (lle_rows_call: lle_eig.h) */

/* B's rows split over comm (B on every rank, the same), the block's p columns (<= LLE_ROWS_PMAX),
 * this rank's threads nt on pool (NULL: threads a loop); call / arg: rank 0's (NULL: comm has
 * one rank, or on the others).  Collective (a local set-up: the others open it on rank 0's word). */
int lle_rows_open(MPI_Comm comm, const lle_bmat *b, int p, int nt, k_lle_pool *pool, lle_rows_call call, void *arg,
                  lle_rows **r);
/* The first nc columns of rank 0's n x nc x to the ranks' rows (x read on rank 0 only).  Collective. */
int lle_rows_scatter(lle_rows *r, const double *x, int nc);
/* The ranks' rows of the first nc columns into rank 0's n x nc x (written on rank 0 only).  Collective. */
int lle_rows_gather(lle_rows *r, double *x, int nc);
/* The block projected away from e and orthonormalised (CholeskyQR3); HY_ENUMERIC on every rank
 * where its Gram matrix is not positive definite.  Collective. */
int lle_rows_orth(lle_rows *r);
/* M V = B^T B V, H = V^T M V, H's eigen-decomposition on rank 0 (its vectors into h, the values
 * into theta, on every rank): *h, *theta point at them (NULL: not wanted).  Collective. */
int lle_rows_rr(lle_rows *r, double **h, double **theta);
/* V <- V H, M V <- M V H with the last lle_rows_rr's H; res (rank 0, may be NULL) the first nres
 * ||M v_j - theta_j v_j||.  Collective. */
int lle_rows_rotate(lle_rows *r, int nres, double *res);
/* res_j = ||B^T B x_j - val_j x_j|| for rank 0's n x nc block x and its values val (read on
 * rank 0; res written there, may be NULL elsewhere); the block's rows are overwritten.  Collective. */
int lle_rows_residuals(lle_rows *r, const double *x, int nc, const double *val, double *res);
/* The other ranks: the step rank 0 told (its code, LLE_ROWS_OPEN aside).  Collective. */
int lle_rows_step(lle_rows *r, int code);
/* Rank 0's seconds in the p x p eigen-decompositions (its part alone) and the bytes moved.  Local. */
void lle_rows_figures(const lle_rows *r, double *t_eig, double *bytes);
void lle_rows_free(lle_rows *r);

#endif
