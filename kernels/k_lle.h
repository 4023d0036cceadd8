/* k_lle.h - the lle workload's kernels behind one C interface: brute-force K-nearest
 * neighbours of a block of query points and the reconstruction weights of those points.
 * Points are host arrays (n x dim, row-major doubles); the CUDA table copies what it needs to
 * the device.  Both tables compute the same function: squared distances in the direct form
 * sum (x - y)^2 without fused multiply-add (FP64), or FP32 direct form when asked; neighbours
 * ordered by (distance, index), the query itself excluded by index (not by distance 0), so
 * the graph is identical for any split of the queries.  All functions are local. */
#ifndef HY_K_LLE_H
#define HY_K_LLE_H

#include <stdint.h>
#include <math.h>
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define K_LLE_KMAX 64   /* largest K the kernels support */

typedef struct {
  int64_t n;
  int dim;
  const double *x;      /* host, n x dim row-major */
} k_lle_points;

typedef struct {
  const char *name;
  /* lle.knn = auto takes the host kd-tree for data of at most this dimension, where it beats
   * this backend's brute force (host: 8; CUDA: 0, the GPU's brute force is faster) */
  int kdtree_max_dim;
  /* lle.knn = auto takes this backend's grid search for data of at most grid_max_dim
   * dimensions and at least grid_min_n points (0: never) */
  int grid_max_dim;
  int64_t grid_min_n;
  /* 1: the driver may split a rank's queries over several knn / grid_knn calls (to report
   * progress); 0: one call a rank (CUDA: each call uploads the points, builds the grid or the
   * FP32 copy and fills the device, so chunks would repeat that work) */
  int knn_chunked;
  /* neighbours of queries q0..q1-1: nbr[(q - q0) * k + j] ascending by (d2, index), d2 the
   * squared distance (FP64 direct form, or FP32 direct form when fp32); *nredo: -1 where
   * no FP32 filter ran, else the queries the filter left to the FP64 kernel (CUDA) */
  int (*knn)(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int fp32,
             int32_t *nbr, double *d2, int64_t *nredo);
  /* weights of those queries: G = C C^T with C = x[nbr] - x[q], G += R I with R = reg *
   * trace(G) (reg when the trace is 0), solve G w = 1 by Cholesky, w /= sum(w).
   * *nbad counts points whose G was not positive definite even so (w set to 1/k there). */
  /* the same neighbours by the exact uniform-grid search (k_lle_grid_query over the cells of
   * k_lle_grid_plan, FP64 direct form); NULL where the backend has none */
  int (*grid_knn)(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k,
                  int32_t *nbr, double *d2);
  int (*weights)(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k,
                 const int32_t *nbr, double reg, double *w, int64_t *nbad);
  /* the local blocks of those queries for lle.method = ltsa | hessian | modified (method
   * K_LLE_LTSA / K_LLE_HESSIAN / K_LLE_MODIFIED, d the embedding dimension, tol hessian_tol
   * or modified_tol, eta modified's median ratio), K_LLE_BLOCK_VALS(k, method) values a
   * query at blk[(q - q0) * K_LLE_BLOCK_VALS(k, method)], each k_lle_point_block
   * (K_LLE_MODIFIED_RHO: the one ratio rho of the point, for eta); *nbad counts points whose
   * local eigen-decomposition did not converge */
  int (*blocks)(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k,
                const int32_t *nbr, int method, int d, double tol, double eta, double *blk, int64_t *nbad);
} k_lle_ops;

/* methods with local blocks (= lle.method's index), and modified's first pass */
enum { K_LLE_LTSA = 1, K_LLE_HESSIAN = 2, K_LLE_MODIFIED = 3, K_LLE_MODIFIED_RHO = 4 };
/* Scratch doubles a point's block needs (k_lle_point_block).  Local. */
#define K_LLE_BLOCK_SCRATCH(k) (3 * (k) * (k) + 6 * (k))
/* Side of a point's block (the point itself added for modified) and the values a point
 * writes (one rho in modified's first pass). */
#define K_LLE_BLOCK_DIM(k, method) ((method) == K_LLE_MODIFIED ? (k) + 1 : (k))
#define K_LLE_BLOCK_VALS(k, method) \
  ((method) == K_LLE_MODIFIED_RHO ? 1 : K_LLE_BLOCK_DIM(k, method) * K_LLE_BLOCK_DIM(k, method))

/* The table of the backend's kind.  Local. */
const k_lle_ops *k_lle_ops_get(const k_backend *be);
extern const k_lle_ops k_lle_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_lle_ops k_lle_cuda_ops;
#endif

/* ---- lle.eigensolver = gpu-chol: shift-invert subspace iteration on the device ----
 * On e^perp (e the constant vector): V <- P_e (M + tau I)^-1 V, Householder QR, Rayleigh-Ritz
 * with M itself (H = V^T M V, its eigen-decomposition, V <- V Y), FP64 throughout; M + tau I
 * in a fill-reducing order P (given, or computed here on the host: METIS nested dissection
 * or symamd of M's pattern) and factored by a sparse Cholesky on the backend; every step
 * deterministic where the library allows.  Local. */
typedef struct {
  int64_t n, nnz;
  const int64_t *rowptr;     /* M: full symmetric CSR, sorted columns (host) */
  const int32_t *colind;
  const double *val;
  const int32_t *perm;       /* the order, new index i = old perm[i] (host), or NULL: computed
                                by ordering (K_LLE_ORD_METIS | K_LLE_ORD_SYMAMD) */
  int p;                     /* block width (on e^perp) */
  int nconv;                 /* leading Ritz pairs that must converge */
  int maxit;                 /* iterations at most */
  int ordering;              /* K_LLE_ORD_METIS | K_LLE_ORD_SYMAMD */
  double tol;                /* a pair is converged when ||M v - theta v|| <= tol ||M||_1 */
  double tau0, tau_max;      /* shift: tau0, tenfold while a pivot is not positive, at most tau_max */
  double *v;                 /* in: n x p start block on e^perp (host, column-major);
                                out: the Ritz vectors, ascending */
  double *theta, *res;       /* out: p Ritz values and residual norms (host) */
  double normm, lam0, res0;  /* out: ||M||_1, pair 0 (e^T M e, ||M e - lam0 e||, e = 1/sqrt(n)) */
  int iters, converged;      /* out */
  double shift;              /* out: the tau used */
  double factor_bytes;       /* out: the factor's storage (bytes) */
  double t_order, t_analyze, t_factor, t_solve, t_rr;   /* out: seconds of the phases (t_order:
                                                           the order if computed, P M P^T, upload) */
  /* in: called (host) after every iteration with the leading unconverged pair's residual and
   * the target tol ||M||_1 (the caller's progress report), or NULL; prints only */
  void (*progress)(void *arg, double res, double target);
  void *progress_arg;
} k_lle_eig_job;
enum { K_LLE_ORD_METIS = 0, K_LLE_ORD_SYMAMD = 1, K_LLE_ORD_GIVEN = 2 };

struct k_lle_chol_top;   /* chol-nd's top supernodes on an engine (below) */
struct k_lle_chol_top_solve;

/* The block work of bsvd's / chol-nd's subspace iteration (lle_bsub_solve, lle.iter_block =
 * backend) behind the backend's table: B = I - W (n x n CSR, k1 entries a row, host arrays)
 * taken once (the CUDA engine uploads it and makes B^T there); per iteration rr: V (n x p,
 * host, column-major) in, V <- orth(V - e e^T V) (e = 1/sqrt(n) 1; Householder QR), MV = B^T
 * B V, H = V^T MV (p x p, host out); rotate: V <- V Y, MV <- MV Y (Y: p x p host), res[j] =
 * ||MV_j - theta_j V_j|| for j < nres (host out), V (host out).  bytes: moved between host and
 * engine so far.  Local. */
typedef struct k_lle_bsub k_lle_bsub;
typedef struct {
  int64_t n;
  int k1, p;
  const int64_t *bp, *bi;
  const double *bx;
  int early;   /* 1: opened on a thread of its own beside other device work (lle.iter_open = beside):
                  the set-up on a stream and handles of its own */
} k_lle_bsub_in;
typedef struct {
  const char *name;
  /* the iteration above; NULL where the backend has no sparse Cholesky of its own.  Returns
   * HY_ENUMERIC when M + tau I is not positive definite up to tau_max. */
  int (*eig_si)(k_backend *be, k_lle_eig_job *job);
  /* chol-nd's top supernodes factored on the device (k_lle_chol_top); NULL: on the host's threads */
  int (*chol_top)(k_backend *be, struct k_lle_chol_top *job);
  /* the top part of chol-nd's solves on the device (k_lle_chol_top_solve), the kept state released */
  int (*chol_top_solve)(k_backend *be, struct k_lle_chol_top_solve *sj);
  void (*chol_top_release)(void *state);
  /* chol-nd's top engine opened ahead (k_lle_chol_top.opened: its buffers, events, pair lists
   * and, with job->reg, the tails' host buffer page-locked; no copies of values), on a thread
   * beside the host's subtree phase; NULL: chol_top opens it itself */
  int (*chol_top_open)(k_backend *be, struct k_lle_chol_top *job);
  /* the subspace iteration's block work (k_lle_bsub above): open, rr, rotate, close;
   * bsub_device: 1 where they run on a device (lle.iter_block = auto takes them there) */
  int bsub_device;
  int (*bsub_open)(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **w);
  int (*bsub_rr)(k_lle_bsub *w, const double *v, double *h);
  int (*bsub_rotate)(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res, double *v);
  void (*bsub_close)(k_lle_bsub *w, double *bytes);
  /* the engine's host block for V (n x p; CUDA: pinned, for faster copies) that the driver may
   * use as its V between open and close, or NULL (NULL entry: none) */
  double *(*bsub_host_block)(k_lle_bsub *w);
  /* the start block orthonormalised on the engine (v: n x p host, in place; Householder QR), and
   * after the last rotation the final residuals res[j] = ||B^T B x_j - val[j] x_j|| of the
   * n x nc host block x (nc <= p; the engine's blocks overwritten); NULL entries: on the host */
  int (*bsub_orth)(k_lle_bsub *w, double *v);
  int (*bsub_resid)(k_lle_bsub *w, const double *x, int nc, const double *val, double *res);
} k_lle_eig_ops;
/* The eigen-solve table of the backend's kind.  Local. */
const k_lle_eig_ops *k_lle_eig_ops_get(const k_backend *be);
extern const k_lle_eig_ops k_lle_eig_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_lle_eig_ops k_lle_eig_cuda_ops;
#endif

typedef struct k_lle_pool k_lle_pool;   /* the host's thread pool (below) */

/* New points (transform): the K nearest of the queries xq (nq x dim, row-major) among p's
 * points by brute force (FP64 direct form, ties by index, nothing excluded: a query equal
 * to a point has it at distance 0) and their weights (k_lle_point_weights_at).  Host.
 * Local. */
int k_lle_host_queries(const k_lle_points *p, const double *xq, int64_t nq, int k, double reg,
                       int32_t *nbr, double *w, int64_t *nbad);

/* The reconstruction weights of queries q0..q1-1 (nbr: their lists, (q1 - q0) x k) on
 * threads threads of pool (NULL: the caller's thread), the host backend's values; *nbad the
 * singular local Gram matrices.  Host.  Local. */
int k_lle_host_weights(const k_lle_points *p, int64_t q0, int64_t q1, int k, const int32_t *nbr, double reg,
                       k_lle_pool *pool, int threads, double *w, int64_t *nbad);

/* Exact K nearest neighbours by a KD-tree on the host (same order and tie rule as knn).
 * For low dimensions.  k_lle_kdtree_knn builds the tree for the call and queries on the
 * caller's thread; k_lle_kdtree_new builds it once (p->x must outlive it; its lower levels on
 * threads threads of pool, NULL: the caller's: the same splits either way) and
 * k_lle_kdtree_query takes blocks of queries on threads threads of pool (NULL: the caller's
 * thread; each query independent: the same lists at any count).  Host.  Local. */
typedef struct k_lle_kdtree k_lle_kdtree;
int k_lle_kdtree_knn(const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr, double *d2);
int k_lle_kdtree_new(const k_lle_points *p, k_lle_pool *pool, int threads, k_lle_kdtree **out);
int k_lle_kdtree_query(const k_lle_kdtree *kt, k_lle_pool *pool, int threads, int64_t q0, int64_t q1, int k,
                       int32_t *nbr, double *d2);
void k_lle_kdtree_free(k_lle_kdtree *kt);

/* A persistent pool of host threads (kernels/host/lle_pool.c): threads - 1 workers parked
 * between jobs (spin, then sleep); a job fn(arg, tid, nt) runs on threads 0..nt-1, tid 0 the
 * caller's, and returns when all have; k_lle_pool_barrier inside a job waits for all nt of
 * it; k_lle_pool_for splits [0, n) into contiguous ranges [n t / nt, n (t + 1) / nt).  A NULL
 * pool runs fn(arg, 0, 1) on the caller's thread.  One caller at a time.  Host.  Local. */
k_lle_pool *k_lle_pool_new(int threads);
int k_lle_pool_size(const k_lle_pool *p);
void k_lle_pool_set_spin(k_lle_pool *p, int64_t ns);   /* a waiting thread's spin before it sleeps (<= 0: 60 us) */
void k_lle_pool_run(k_lle_pool *p, int nt, void (*fn)(void *arg, int tid, int nt), void *arg);
void k_lle_pool_barrier(k_lle_pool *p, int nt);
void k_lle_pool_for(k_lle_pool *p, int nt, int64_t n, void (*fn)(void *arg, int64_t i0, int64_t i1), void *arg);
void k_lle_pool_free(k_lle_pool *p);

/* A nested-dissection order of M = B^T B (B = I - W, W's pattern nbr: n x k) from the
 * points' coordinates (kernels/host/lle_nd.c): perm[new] = old; segments of at most leaf
 * points are not split; the subtrees below the first splits on threads threads (the order is
 * the same for any count; pool: the threads, NULL: its own for the call).  O(n log n), for
 * lle.eigensolver = chol-nd.  Host.  Local. */
#define K_LLE_ND_MAXD 64
#define K_LLE_ND_PARTS 10
int k_lle_nd_order(const k_lle_points *p, int k, const int32_t *nbr, int leaf, int threads, k_lle_pool *pool,
                   int32_t *perm, double *parts);   /* parts (NULL or K_LLE_ND_PARTS): seconds of renumbering +
                                        preparation, the breadth-first levels, the subtrees on threads,
                                        the rest; then the first's parts: the Morton sort, the
                                        renumbered copies, the work arrays, the transpose and reach;
                                        and the first two levels */
/* The same, and the segments whose subtrees ran on the threads: [segs[2 s], segs[2 s + 1]) of
 * the new numbering, ascending and disjoint, each a whole subtree of the dissection (ordered
 * as a whole: its points' M-neighbours outside it are in its ancestors' separators, numbered
 * after it); *segs malloc'ed by the call (NULL, *nseg = 0 where one thread ordered all).
 * Host.  Local. */
int k_lle_nd_order_segs(const k_lle_points *p, int k, const int32_t *nbr, int leaf, int threads, k_lle_pool *pool,
                        int32_t *perm, double *parts, int64_t **segs, int *nseg);

/* A supernodal Cholesky factor's structure in CHOLMOD's layout (SuiteSparse_long arrays):
 * supernode s holds the columns super[s] .. super[s + 1] - 1 of L, its row indices
 * s[pi[s] .. pi[s + 1]) (its own columns first, ascending), its values x[px[s] ..] column-major
 * with leading dimension pi[s + 1] - pi[s]; postordered (subtrees contiguous). */
typedef struct {
  int64_t n, nsuper;
  const int64_t *super, *pi, *px, *s;
} k_lle_super;
/* The top phase of k_lle_chol_numeric on another engine (lle.cnd_top = device: the backend's
 * k_lle_eig_ops.chol_top): the supernodes above the cut top[0 .. ntop) (ascending; every
 * ancestor of one is one), their blocks in x assembled and updated from every supernode below
 * the cut (or, with k_lle_chol_in.top_below, assembled only: the engine applies the updates
 * from below too, first, see the tails below).  The engine applies the updates among them, for top[i] in ascending order its
 * updaters u in [uptr[i], uptr[i + 1]) in ascending order: top[i] -= L_d(rows from p1, :)
 * L_d(rows [p1, p2), :)^T with d = top[ud[u]], p1 = up1[u], p2 = up2[u] positions in d's rows,
 * the local rows in top[i] of d's rows p1, p1 + 1, .. being rmap[rptr[u] .. rptr[u + 1]) (the
 * first p2 - p1 of them top[i]'s columns), the lower part only; then top[i]'s dpotrf and the
 * dtrsm of its rows below; and writes the factored blocks back into x.  Returns HY_OK, or
 * HY_ENUMERIC (no message) with minor the first column with a non-positive pivot, or HY_ESYS
 * (recorded).  Local. */
typedef struct k_lle_chol_top {
  const k_lle_super *L;
  int ntop;
  const int32_t *top;
  const int64_t *uptr;          /* ntop + 1 */
  const int32_t *ud, *up1, *up2;
  const int64_t *rptr;          /* uptr[ntop] + 1 */
  const int32_t *rmap;
  /* the updates from below the cut (top_below; else ntail = 0 and the host did them): tail t
   * is below supernode tail_sn[t]'s rows from position tail_q[t] on (every one a top
   * supernode's column) in all its columns; top[i] gets, before the updates among the top, for
   * each pair u in [buptr[i], buptr[i + 1]) and each of its columns: top[i] -= L_d(rows from
   * bup1[u], :) L_d(bup1[u] .. bup2[u], :)^T, d = tail_sn[bud[u]], the local rows in top[i] of
   * d's rows bup1[u], bup1[u] + 1, .. being brmap[brptr[u] .. brptr[u + 1]) (the first
   * bup2[u] - bup1[u] of them top[i]'s columns), the lower part; per entry the pairs in order */
  int64_t ntail;
  const int32_t *tail_sn, *tail_q;
  const double *tailx;            /* the tails packed: tail t at toff[t], column-major, leading dimension its rows */
  const int64_t *toff;            /* ntail + 1 */
  const int64_t *buptr, *brptr;   /* ntop + 1, nbelow + 1 */
  const int32_t *bud, *bup1, *bup2, *brmap;
  double *x;                    /* L's values (host) */
  int64_t minor;                /* out: n, or the first column with a non-positive pivot */
  double bytes;                 /* out: bytes moved between host and engine, both ways */
  double t_dev_asm, t_dev_below;   /* out: of t_dev, the device's assembly (eptr) and its updates from below (s) */
  double t_dev_tails;           /* out: the tails' DMA up (copy stream, events; overlaps t_dev) */
  double t_dev_own;             /* out: of t_dev, the top's own work (updates among the top, dpotrf, dtrsm; events) */
  double t_alloc;               /* out: of t_up, the engine's buffers and staging set up (s) */
  double t_up, t_dev, t_down;   /* out: seconds of the copies up (with what overlaps them),
                                   the engine's work after them, the copies back */
  int keep;                     /* in: 1, keep the factored top (and tails) on the engine for
                                   the solves: *state, released by the table's chol_top_release */
  void *state;                  /* out (keep): the engine's state; NULL if not kept */
  int back;                     /* in: 1, the factored blocks back into x (0 only with keep:
                                   nothing on the host reads the top's values) */
  int stage;                    /* in: 1, the copies up (blocks, tails) through pinned buffers that
                                   pool's threads fill (lle.cnd_top_copy = pinned); 0 pageable */
  k_lle_pool *pool;             /* in: the host's threads for that (NULL: pageable) */
  int pool_threads;             /* in: how many of them */
  /* the top's assembly on the engine (k_lle_chol_in.top_assemble, with the updates from below
   * there too): eptr non-NULL, x's top blocks not written by the host; the engine zeroes them
   * and, for each of the top's ncols columns g (top[0]'s columns ascending, then top[1]'s, ..),
   * adds its entries e in [eptr[g], eptr[g + 1]) in order: block(erow[e], g's column) +=
   * eval[e] (the host assembly's products a A_ij of P (A A^T + tau I) P^T and tau last on the
   * diagonal, in the host's order: the same block bit for bit); before the updates from below */
  int64_t ncols;
  const int64_t *eptr;          /* ncols + 1, or NULL: the blocks come assembled in x */
  const int32_t *erow;
  const double *eval;
  /* opened ahead (k_lle_eig_ops.chol_top_open, lle.cnd_top_open = beside): the open's job has
   * every field above but the values (x, tailx's contents, the entry lists) and returns its
   * state in opened, t_open its seconds; chol_top takes it over (kept as state or freed).  reg:
   * 1, the open page-locks tailx (toff[ntail] doubles) so that the tails go up in one DMA, the
   * state unlocks it when freed */
  void *opened;
  int reg;
  double t_open;
  /* in (the open's job): 1, the open also runs the top's work once on its buffers (unit blocks,
   * zero tails; a stream and handles of its own) while the host's subtree phase runs, so that
   * the libraries' kernels are loaded before the top (lle.cnd_top_warm); out: t_warm its seconds
   * (of t_open) where it ran, else 0 */
  int warm;
  double t_warm;
  /* in: the pairs from below with k >= gemm_k columns (and enough rows) by a DGEMM each and a
   * scatter (lle.cnd_below_gemm; 0: all by the column kernel); out: how many */
  int gemm_k;
  int64_t ngemm;
  /* out: of t_up, the host's seconds for the tails' copy (reg_used: 1, one DMA from the locked
   * buffer) and for the entry lists' (with eptr) */
  double t_up_tails, t_up_lists;
  int reg_used;
} k_lle_chol_top;

/* The top part of k_lle_chol_solve on the engine that factored it (k_lle_chol_in.top_solve):
 * after the subtrees' forward phase on the host, X at the top supernodes' columns (xtop: top[i]'s
 * columns at rows xoff[i] .. xoff[i + 1], leading dimension xoff[ntop]) and X at the tails'
 * supernodes' columns (xtail: tail t's at rows yoff[t] .., leading dimension yoff[ntail]), nrhs
 * columns, go to the engine, which does the forward solve of the top (per top[i] ascending:
 * the updates from the tails, the updates among the top, L_ii^-1) and the backward solve (per
 * top[i] descending: X_i -= L_21^T X(its rows below), L_ii^-T), and xtop comes back.  The lists
 * are the factor job's (job).  Local. */
typedef struct k_lle_chol_top_solve {
  const k_lle_chol_top *job;    /* the factor's lists (its state in job->state) */
  int nrhs;
  double *xtop;                 /* in / out */
  const double *xtail;
  const int64_t *xoff, *yoff;   /* ntop + 1, ntail + 1 */
  double bytes;                 /* out: bytes moved */
} k_lle_chol_top_solve;

/* What k_lle_chol_numeric factors: P (A A^T + tau I) P^T, A n x n in CSC (ap, ai, ax), L's
 * column t being A's row / column perm[t]; the BLAS threads of the top supernodes' dpotrf /
 * dtrsm (top_blas), blas_set to switch them (NULL: never), blas_after the count set at the
 * end of a factor or solve. */
typedef struct {
  const int64_t *ap, *ai;
  const double *ax;
  const int64_t *perm;
  double tau;
  int top_blas, blas_after;
  void (*blas_set)(int nt);
  int top_tiles;       /* 1: every supernode's dpotrf / dtrsm by 64-wide tiles, the top's on the
                          threads (one BLAS thread throughout); 0: one dpotrf + dtrsm a supernode,
                          the top's on top_blas BLAS threads */
  int solve_tiles;     /* 1: the solves' triangular solves of top supernodes of >= 256 columns by
                          64-row tiles on the threads (lle.cnd_solve_trsm = tiles); 0: one dtrsm
                          on one thread */
  /* the top phase on another engine (see k_lle_chol_top), or NULL: the top on the threads */
  int (*top)(k_backend *be, k_lle_chol_top *job);
  k_backend *top_be;
  int top_below;       /* with top: 1, the engine applies the updates from below the cut too */
  /* with top and top_below: the top part of the solves on the engine too (k_lle_chol_top_solve;
   * the factor keeps its state), or NULL; and how the plan releases that state */
  int (*top_solve)(k_backend *be, k_lle_chol_top_solve *sj);
  void (*top_release)(void *state);
  int top_values;      /* with top_solve: 1, the top's values wanted in x too (a check, CHOLMOD's solves) */
  int top_stage;       /* with top: 1, its copies up through pinned buffers filled by the plan's
                          threads (k_lle_chol_top.stage; lle.cnd_top_copy = pinned) */
  /* with top: the engine opened on a thread of its own beside the subtree phase (k_lle_chol_top.
   * opened; lle.cnd_top_open = beside; top_reg: the tails' buffer page-locked there) where this
   * call's phases run the top (a SUB-only phase's call: joined by the TOP call), and its state
   * freed if the top does not take it (top_drop); NULL: the engine opens in the top phase */
  int (*top_open)(k_backend *be, k_lle_chol_top *job);
  void (*top_drop)(void *state);
  int top_reg;
  int top_warm;        /* with top_open: k_lle_chol_top.warm */
  int top_gemm_k;      /* with top_below: k_lle_chol_top.gemm_k */
  int top_assemble;    /* with top and top_below: 1, the top's blocks assembled on the engine
                          from entry lists the threads build (k_lle_chol_top.eptr; lle.cnd_top_assembly
                          = device): only those lists go up, not the blocks; 0: assembled in x */
  /* a share of the work (the lle eigen-solve spread over ranks, lle.eig_ranks): phase 0 is all of
   * it; else the K_LLE_CH_* parts: the numeric factor's subtree phase (SUB) and top (TOP, the
   * values of the subtrees' supernodes that update the top, their tails, already in x), the
   * solve's forward subtree phase (SUB), its top forward (TOP) and backward (TOPB; on the engine
   * that kept the top, top_solve, both in one call: TOP or TOPB does both), its backward
   * subtree phase (BWD); sub_mine (NULL: all) the subtrees (k_lle_chol_layout's order) that the
   * subtree phases do.  Every supernode's arithmetic is the same as in the whole call. */
  int phase;
  const unsigned char *sub_mine;
  int small_cols;      /* the dpotrf / dtrsm of blocks of fewer columns (a tile, a solve's diagonal
                          block) by plain loops instead of LAPACK / BLAS calls (0: never) */
} k_lle_chol_in;
enum { K_LLE_CH_SUB = 1, K_LLE_CH_TOP = 2, K_LLE_CH_BWD = 4, K_LLE_CH_TOPB = 8 };
/* Its figures: subtrees below the cut and supernodes above it, threads, the flops (by the
 * dense-block count) in all and above the cut, the two phases' seconds, and minor: n, or the
 * first column with a non-positive pivot. */
typedef struct {
  int nsub, ntop, threads;
  double flops, top_flops, t_sub, t_top;
  int64_t minor;
  /* with in->top: the top's assembly and updates from below on the threads (seconds, in
   * t_top), and the engine's figures (k_lle_chol_top) */
  int top_engine;
  double t_below, top_bytes, t_up, t_dev, t_down, t_dev_asm, t_dev_below, t_alloc;
  double t_open, t_open_wait;   /* the engine opened beside (top_open): its seconds there, the top phase's wait for it */
  double t_warm;                /* of t_open, its warm-up's (k_lle_chol_top.t_warm; 0: none ran) */
  int64_t top_ngemm;            /* the engine's pairs from below by DGEMM (k_lle_chol_top.ngemm) */
  double t_up_tails, t_up_lists, t_dev_tails, t_dev_own;   /* k_lle_chol_top's */
  int top_reg_used;
} k_lle_chol_stats;
/* The tree-parallel supernodal Cholesky of kernels/host/lle_chol.c: a plan (the updaters of
 * every supernode, the tree's cut for threads threads (at most pool's; pool NULL: the plan's
 * own), the threads' scratch; NULL with the
 * error recorded where L is not postordered), the numeric factor (x: xsize values in L's
 * layout, overwritten; HY_ENUMERIC, no message, where a pivot is not positive, st->minor its
 * column), the solve x <- (L L^T)^-1 x (n x nrhs, leading dimension n, in L's order: the
 * same bits at any thread count), and the plan freed.  Host.  Local. */
typedef struct k_lle_chol_plan k_lle_chol_plan;
k_lle_chol_plan *k_lle_chol_plan_new(const k_lle_super *L, int threads, k_lle_pool *pool);
/* The same with the cut of threads x cut threads: a subtree split while heavier than the
 * flops below the cut / (threads cut), cut > 0 (cut > 1: more supernodes in the top, e.g. for a
 * device: lle.cnd_cut; threads x cut fixed: the same cut at any thread count).  Local. */
k_lle_chol_plan *k_lle_chol_plan_new_cut(const k_lle_super *L, int threads, k_lle_pool *pool, double cut);
/* The same on the subtrees rooted at roots[0 .. nroots) alone (a domain: the rest of L is not the
 * plan's; its top the domain's supernodes above the cut), e.g. a rank's share of a cut for ranks
 * (lle.eig_top = spread).  Local. */
k_lle_chol_plan *k_lle_chol_plan_new_roots(const k_lle_super *L, int threads, k_lle_pool *pool, double cut,
                                           const int32_t *roots, int nroots);
int k_lle_chol_numeric(k_lle_chol_plan *p, const k_lle_chol_in *in, double *x, k_lle_chol_stats *st);
void k_lle_chol_solve(k_lle_chol_plan *p, const k_lle_chol_in *in, const double *x, int nrhs, double *b);
void k_lle_chol_plan_free(k_lle_chol_plan *p);
/* The plan's split, for a caller that spreads the subtrees (k_lle_chol_in.sub_mine): the
 * subtrees below the cut (root sub[i], heaviest first; its supernodes first[sub[i]] ..
 * sub[i], contiguous, so are their columns and values), each supernode's subtree flops wsub
 * and subtree index sub_of (-1: above the cut), the top supernodes, and the tails: supernode
 * tail_sn[t] below the cut has rows in the top from its row position tail_q[t] on (all of
 * them top columns), the only values of it that the top's factor reads, and its columns are
 * the only subtree columns the top's solves read.  The arrays are the plan's.  Local. */
typedef struct {
  int nsub, ntop;
  const int32_t *sub, *first, *top, *sub_of;
  const double *wsub;
  int64_t ntail;
  const int32_t *tail_sn, *tail_q;
  k_lle_pool *pool;   /* the plan's threads (a caller's copies over its tails, k_lle_pool_for) and how many */
  int threads;
} k_lle_chol_layout;
void k_lle_chol_layout_get(k_lle_chol_plan *p, k_lle_chol_layout *lay);
/* ||P (A A^T + tau I) P^T z - L L^T z|| / ||P (A A^T + tau I) P^T z|| for a fixed pseudo-random
 * z: the factor's backward error on one probe (lle.cnd_check).  Host.  Local. */
double k_lle_chol_check(const k_lle_super *L, const k_lle_chol_in *in, const double *x);
/* The solve's componentwise backward error on one probe b: max_i |L L^T x - b|_i /
 * (|L| |L|^T |x| + |b|)_i for x from k_lle_chol_solve (lle.cnd_check).  Host.  Local. */
double k_lle_chol_check_solve(k_lle_chol_plan *p, const k_lle_chol_in *in, const double *x);

/* ---- one point's weights, shared by the host and the CUDA code (plain C arithmetic) ---- */
#ifdef __CUDACC__
#define K_LLE_HD __host__ __device__
#else
#define K_LLE_HD
#endif

/* ---- exact uniform-grid (cell list) K nearest neighbours, shared by the host and CUDA ---- */
#define K_LLE_GRID_MAXD 8   /* the grid search takes data of at most this many dimensions */

/* The cells: cubes of side h from lo, nc[c] along coordinate c (a cell index clamped into
 * 0..nc[c]-1), cell id = sum_c cell_c * stride[c]; the points sorted by cell id (stable: by
 * index within a cell): idx[s] the point at sorted position s, xs its coordinates (n x dim),
 * start[cell]..start[cell+1]-1 a cell's positions.  slack: the absolute error allowed for in
 * a distance to a cell face (rounding of lo + m h), so that a stop is never premature. */
typedef struct {
  int dim;
  int64_t n, ncell;
  int32_t nc[K_LLE_GRID_MAXD];
  int64_t stride[K_LLE_GRID_MAXD];
  double lo[K_LLE_GRID_MAXD];
  double h, inv_h, slack;
  const int32_t *start, *idx;   /* ncell + 1, n (host or device memory) */
  const double *xs;             /* n x dim, sorted (host or device memory) */
} k_lle_grid;

/* Choose lo, h, nc, stride for p's points (about K_LLE_GRID_FILL points a cell on average over
 * the bounding box, at most 2 n + 64 cells); start/idx/xs left NULL.  Host.  Local. */
#define K_LLE_GRID_FILL 3.0
int k_lle_grid_plan(const k_lle_points *p, k_lle_grid *g);
/* Neighbours of queries q0..q1-1 by the grid on the host: cells by a counting sort.  Local. */
int k_lle_grid_knn(const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr, double *d2);
int k_lle_grid_knn_on(const k_lle_points *p, k_lle_pool *pool, int threads, int64_t q0, int64_t q1, int k,
                      int32_t *nbr, double *d2);   /* the queries on threads threads of pool (NULL: the caller's) */

/* FP64 operations rounded one by one (no fused multiply-add on the device, where nvcc would
 * contract a * b + c), so that host and device distances agree bit for bit. */
#if defined(__CUDA_ARCH__)
#define K_LLE_SUB(a, b) __dsub_rn(a, b)
#define K_LLE_ADD(a, b) __dadd_rn(a, b)
#define K_LLE_MUL(a, b) __dmul_rn(a, b)
#else
#define K_LLE_SUB(a, b) ((a) - (b))
#define K_LLE_ADD(a, b) ((a) + (b))
#define K_LLE_MUL(a, b) ((a) * (b))
#endif

/* Cell index of coordinate v along axis c (clamped).  Local. */
static inline K_LLE_HD int32_t k_lle_grid_axis(const k_lle_grid *g, int c, double v) {
  double t = floor((v - g->lo[c]) * g->inv_h);
  if (!(t >= 0)) return 0;
  return t >= g->nc[c] - 1 ? g->nc[c] - 1 : (int32_t)t;
}

/* Cell id of point coordinates xp.  Local. */
static inline K_LLE_HD int64_t k_lle_grid_cell(const k_lle_grid *g, const double *xp) {
  int64_t id = 0;
  for (int c = 0; c < g->dim; c++) id += (int64_t)k_lle_grid_axis(g, c, xp[c]) * g->stride[c];
  return id;
}

/* Offer the points of one cell to the ascending (distance, index) list dl/il of length k,
 * point q itself excluded by index.  Local. */
static inline K_LLE_HD void k_lle_grid_cell_scan(const k_lle_grid *g, int64_t cell, const double *xq, int64_t q,
                                                 int k, double *dl, int32_t *il) {
  int dim = g->dim;
  for (int32_t s = g->start[cell], e = g->start[cell + 1]; s < e; s++) {
    int32_t j = g->idx[s];
    const double *xj = g->xs + (int64_t)s * dim;
    double sum = 0;
    for (int c = 0; c < dim; c++) {
      double t = K_LLE_SUB(xj[c], xq[c]);
      sum = K_LLE_ADD(sum, K_LLE_MUL(t, t));
    }
    if (j == q || sum > dl[k - 1] || (sum == dl[k - 1] && j > il[k - 1])) continue;
    int p = k - 1;
    while (p > 0 && (dl[p - 1] > sum || (dl[p - 1] == sum && il[p - 1] > j))) {
      dl[p] = dl[p - 1]; il[p] = il[p - 1]; p--;
    }
    dl[p] = sum; il[p] = j;
  }
}

/* The K nearest points of query q (coordinates xq, excluded by index; q < 0: nothing
 * excluded) into dl/il ascending by (distance, index): rings r = 0, 1, ... of cells around
 * the query's cell (Chebyshev cell distance r), until the K-th distance is below the distance
 * from xq to the part of the grid not visited yet (minus g->slack), or everything is visited.
 * Exact: an unvisited point lies beyond a face of the visited box.  Local. */
static inline K_LLE_HD void k_lle_grid_query(const k_lle_grid *g, const double *xq, int64_t q, int k,
                                             double *dl, int32_t *il) {
  int dim = g->dim;
  int32_t cq[K_LLE_GRID_MAXD], off[K_LLE_GRID_MAXD];
  int32_t rmax = 0;
  for (int j = 0; j < k; j++) { dl[j] = INFINITY; il[j] = INT32_MAX; }
  for (int c = 0; c < dim; c++) {
    cq[c] = k_lle_grid_axis(g, c, xq[c]);
    int32_t m = cq[c] > g->nc[c] - 1 - cq[c] ? cq[c] : g->nc[c] - 1 - cq[c];
    if (m > rmax) rmax = m;
  }
  for (int32_t r = 0; r <= rmax; r++) {
    /* the shell: axes 0..dim-2 over the box (clipped) by an odometer, the last axis its full
     * range where an earlier offset is at +-r, else its two ends */
    int last = dim - 1;
    for (int c = 0; c < last; c++) off[c] = -r;
    for (;;) {
      int edge = 0, inside = 1;
      int64_t base = 0;
      for (int c = 0; c < last; c++) {
        int32_t v = cq[c] + off[c];
        if (v < 0 || v >= g->nc[c]) { inside = 0; break; }
        base += (int64_t)v * g->stride[c];
        if (off[c] == -r || off[c] == r) edge = 1;
      }
      if (inside) {
        int32_t a = cq[last] - r, b = cq[last] + r, step = edge || r == 0 ? 1 : 2 * r;
        for (int32_t v = a; v <= b; v += step)
          if (v >= 0 && v < g->nc[last]) k_lle_grid_cell_scan(g, base + (int64_t)v * g->stride[last], xq, q, k, dl, il);
      }
      int c = 0;
      while (c < last && off[c] == r) off[c++] = -r;
      if (c == last) break;
      off[c]++;
    }
    /* distance from xq to the unvisited cells: the nearest face of the visited box that has
     * cells beyond it */
    double bnd = INFINITY;
    for (int c = 0; c < dim; c++) {
      if (cq[c] - r > 0) {
        double t = xq[c] - (g->lo[c] + (double)(cq[c] - r) * g->h);
        if (t < bnd) bnd = t;
      }
      if (cq[c] + r < g->nc[c] - 1) {
        double t = g->lo[c] + (double)(cq[c] + r + 1) * g->h - xq[c];
        if (t < bnd) bnd = t;
      }
    }
    if (bnd == INFINITY) break;
    bnd -= g->slack;
    if (bnd > 0 && dl[k - 1] < bnd * bnd * (1 - 1e-12)) break;
  }
}

/* Weights of point q from its k neighbours: g (k*k scratch, entry (a,b) at g[(a*k+b)*gs], gs
 * the stride: 1 on the host, the thread count on the GPU for coalesced access), w (k out).
 * Returns 0, or 1 when G + R I was not positive definite (w = 1/k then).  Local. */
static inline K_LLE_HD int k_lle_point_weights_at(const double *x, int dim, const double *xq, int k,
                                                  const int32_t *nbr, double reg, double *g0,
                                                  int64_t gs, double *w);
static inline K_LLE_HD int k_lle_point_weights(const double *x, int dim, int64_t q, int k,
                                               const int32_t *nbr, double reg, double *g0,
                                               int64_t gs, double *w) {
  return k_lle_point_weights_at(x, dim, x + q * dim, k, nbr, reg, g0, gs, w);
}

/* The same for a query xq (dim coordinates) that need not be one of the points (transform of
 * new points, as scikit-learn's barycenter_weights).  Local. */
static inline K_LLE_HD int k_lle_point_weights_at(const double *x, int dim, const double *xq, int k,
                                                  const int32_t *nbr, double reg, double *g0,
                                                  int64_t gs, double *w) {
#define g(i) g0[(int64_t)(i) * gs]
  double tr = 0;
  for (int a = 0; a < k; a++) {
    const double *xa = x + (int64_t)nbr[a] * dim;
    for (int b = 0; b <= a; b++) {
      const double *xb = x + (int64_t)nbr[b] * dim;
      double s = 0;
      for (int c = 0; c < dim; c++) s += (xa[c] - xq[c]) * (xb[c] - xq[c]);
      g(a * k + b) = s;
      g(b * k + a) = s;
    }
    tr += g(a * k + a);
  }
  double r = tr > 0 ? reg * tr : reg;
  for (int a = 0; a < k; a++) g(a * k + a) += r;
  /* Cholesky G = L L^T in the lower triangle */
  for (int j = 0; j < k; j++) {
    double s = g(j * k + j);
    for (int l = 0; l < j; l++) s -= g(j * k + l) * g(j * k + l);
    if (!(s > 0)) {
      for (int a = 0; a < k; a++) w[a] = 1.0 / k;
      return 1;
    }
    double ljj = sqrt(s);
    g(j * k + j) = ljj;
    for (int i = j + 1; i < k; i++) {
      double t = g(i * k + j);
      for (int l = 0; l < j; l++) t -= g(i * k + l) * g(j * k + l);
      g(i * k + j) = t / ljj;
    }
  }
  /* L y = 1, L^T w = y */
  for (int i = 0; i < k; i++) {
    double t = 1.0;
    for (int l = 0; l < i; l++) t -= g(i * k + l) * w[l];
    w[i] = t / g(i * k + i);
  }
  for (int i = k - 1; i >= 0; i--) {
    double t = w[i];
    for (int l = i + 1; l < k; l++) t -= g(l * k + i) * w[l];
    w[i] = t / g(i * k + i);
  }
  double sum = 0;
  for (int a = 0; a < k; a++) sum += w[a];
  for (int a = 0; a < k; a++) w[a] /= sum;
  return 0;
#undef g
}

/* Eigen-decomposition of the symmetric k x k matrix a (entry (i,j) at a[(i*k+j)*gs]) by
 * cyclic Jacobi rotations: the eigenvalues end on a's diagonal, the eigenvectors in the
 * columns of v (same layout).  Returns 0, or 1 when 60 sweeps left the off-diagonal above
 * 1e-10 of the diagonal (in norm).  Local. */
static inline K_LLE_HD int k_lle_jacobi(int k, double *a0, double *v0, int64_t gs) {
#define A(i, j) a0[((int64_t)(i) * k + (j)) * gs]
#define V(i, j) v0[((int64_t)(i) * k + (j)) * gs]
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) V(i, j) = i == j ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0, diag = 0;
    for (int i = 0; i < k; i++) {
      diag += A(i, i) * A(i, i);
      for (int j = i + 1; j < k; j++) off += A(i, j) * A(i, j);
    }
    if (!(off > 1e-28 * diag)) return 0;   /* sums of squares: 1e-14 relative, rounding level */
    for (int p = 0; p < k - 1; p++)
      for (int q = p + 1; q < k; q++) {
        double apq = A(p, q);
        if (apq == 0) continue;
        double theta = (A(q, q) - A(p, p)) / (2 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), sn = t * c;
        for (int r = 0; r < k; r++) {   /* A <- A J (columns p, q) */
          double arp = A(r, p), arq = A(r, q);
          A(r, p) = c * arp - sn * arq;
          A(r, q) = sn * arp + c * arq;
        }
        for (int r = 0; r < k; r++) {   /* A <- J^T A (rows p, q) */
          double apr = A(p, r), aqr = A(q, r);
          A(p, r) = c * apr - sn * aqr;
          A(q, r) = sn * apr + c * aqr;
        }
        A(p, q) = A(q, p) = 0;
        for (int r = 0; r < k; r++) {
          double vrp = V(r, p), vrq = V(r, q);
          V(r, p) = c * vrp - sn * vrq;
          V(r, q) = sn * vrp + c * vrq;
        }
      }
  }
  double off = 0, diag = 0;
  for (int i = 0; i < k; i++) {
    diag += A(i, i) * A(i, i);
    for (int j = i + 1; j < k; j++) off += A(i, j) * A(i, j);
  }
  return off > 1e-20 * diag;
#undef A
#undef V
}

/* Modified LLE's local part of point q, as scikit-learn's (method='modified'): C = the Gram
 * matrix of the neighbours relative to x_q, its eigenpairs descending (Jacobi), nev =
 * min(dim, k) eigenvalues kept; rho = sum(ev[d:nev]) / sum(ev[:d]) (rho_only: *out = rho);
 * else s = (k - nev) + #{m: sum of the last m + 1 kept ev / the rest < eta}, V_s the s
 * bottom eigenvectors, w_reg = (C + 1e-3 tr(C) I)^-1 1 normalised (through the eigenpairs),
 * alpha = |V_s^T 1| / sqrt(s), h the Householder vector (0 when |h| < tol), W = V_s -
 * 2 (V_s h) h^T + (1 - alpha) w_reg 1^T and the (k+1) x (k+1) block over [nbr, q]:
 * [W W^T, -W 1; -(W 1)^T, s].  Scratch as k_lle_point_block.  Local. */
static inline K_LLE_HD int k_lle_point_modified(const double *x, int dim, int64_t q, int k, const int32_t *nbr,
                                                int d, double tol, double eta, int rho_only, double *s0,
                                                int64_t gs, double *out0) {
#define G(i, j) s0[((int64_t)(i) * k + (j)) * gs]
#define V(i, j) s0[((int64_t)k * k + (int64_t)(i) * k + (j)) * gs]
#define W(i, j) s0[((int64_t)2 * k * k + (int64_t)(i) * k + (j)) * gs]
#define VEC(m, i) s0[((int64_t)3 * k * k + (int64_t)(m) * k + (i)) * gs]
#define EV(i) G(ord(i), ord(i))
#define ord(i) ((int)VEC(0, i))
  const double *xq = x + q * dim;
  double tr = 0;
  for (int a = 0; a < k; a++) {
    const double *xa = x + (int64_t)nbr[a] * dim;
    for (int b = 0; b <= a; b++) {
      const double *xb = x + (int64_t)nbr[b] * dim;
      double sum = 0;
      for (int c = 0; c < dim; c++) sum += (xa[c] - xq[c]) * (xb[c] - xq[c]);
      G(a, b) = G(b, a) = sum;
    }
    tr += G(a, a);
  }
  int bad = k_lle_jacobi(k, s0, s0 + (int64_t)k * k * gs, gs);
  /* VEC(0, .): eigenvalue order, descending (ties by index) */
  for (int a = 0; a < k; a++) VEC(1, a) = 0;
  for (int j = 0; j < k; j++) {
    int best = -1;
    for (int a = 0; a < k; a++)
      if (VEC(1, a) == 0 && (best < 0 || G(a, a) > G(best, best))) best = a;
    VEC(1, best) = 1;
    VEC(0, j) = best;
  }
  int nev = dim < k ? dim : k;
  double top = 0, rest = 0;
  for (int j = 0; j < nev; j++) { if (j < d) top += EV(j); else rest += EV(j); }
  if (rho_only) { out0[0] = rest / top; return bad; }
  /* s: the null space plus the trailing kept eigenvalues whose share stays below eta */
  int cnt = 0;
  double total = 0;
  for (int j = 0; j < nev; j++) total += EV(j);
  for (int m = 0; m < nev - 1; m++) {
    double cum = 0;
    for (int j = 0; j < nev - 1 - m; j++) cum += EV(j);
    if (total / cum - 1 < eta) cnt++;
  }
  int s = cnt + k - nev;
  /* w_reg = V diag(1 / (ev + r)) V^T 1 (ev = 0 beyond nev), r = 1e-3 tr(C), normalised */
  double r = 1e-3 * tr, wsum = 0;
  for (int j = 0; j < k; j++) {
    double t = 0;
    for (int a = 0; a < k; a++) t += V(a, ord(j));
    VEC(2, j) = t / ((j < nev ? EV(j) : 0) + r);
  }
  for (int a = 0; a < k; a++) {
    double t = 0;
    for (int j = 0; j < k; j++) t += V(a, ord(j)) * VEC(2, j);
    VEC(3, a) = t;
    wsum += t;
  }
  for (int a = 0; a < k; a++) VEC(3, a) /= wsum;
  /* V_s = columns ord(k - s .. k - 1); u = V_s^T 1, alpha, h */
  double un = 0;
  for (int c = 0; c < s; c++) {
    double t = 0;
    for (int a = 0; a < k; a++) t += V(a, ord(k - s + c));
    VEC(4, c) = t;
    un += t * t;
  }
  double alpha = sqrt(un) / sqrt((double)s), hn = 0;
  for (int c = 0; c < s; c++) { VEC(2, c) = alpha - VEC(4, c); hn += VEC(2, c) * VEC(2, c); }
  hn = sqrt(hn);
  for (int c = 0; c < s; c++) VEC(2, c) = hn < tol ? 0 : VEC(2, c) / hn;
  /* W = V_s - 2 (V_s h) h^T + (1 - alpha) w_reg 1^T */
  for (int a = 0; a < k; a++) {
    double vh = 0;
    for (int c = 0; c < s; c++) vh += V(a, ord(k - s + c)) * VEC(2, c);
    for (int c = 0; c < s; c++) W(a, c) = V(a, ord(k - s + c)) - 2 * vh * VEC(2, c) + (1 - alpha) * VEC(3, a);
  }
  int kb = k + 1;
#define O(i, j) out0[((int64_t)(i) * kb + (j)) * gs]
  for (int a = 0; a < k; a++) {
    double rs = 0;
    for (int c = 0; c < s; c++) rs += W(a, c);
    O(a, k) = O(k, a) = -rs;
    for (int b = 0; b < k; b++) {
      double sum = 0;
      for (int c = 0; c < s; c++) sum += W(a, c) * W(b, c);
      O(a, b) = sum;
    }
  }
  O(k, k) = s;
  return bad;
#undef O
#undef G
#undef V
#undef W
#undef VEC
#undef EV
#undef ord
}

/* The local block of point q for LTSA or Hessian LLE, as scikit-learn's
 * locally_linear_embedding builds it (the neighbourhood is the k neighbours, the point itself
 * not included): U = the d leading left singular vectors of the centred neighbours (the
 * leading eigenvectors of the centred Gram matrix, by Jacobi);
 *   ltsa:    blk = I - G G^T, G = [1/sqrt(k), U];
 *   hessian: Y = [1, U, U_i * U_j (i <= j)], Q (k x k) from Householder QR of Y (LAPACK's
 *            dgeqrf reflector convention), w = Q's columns d + 1 .. k - 1 (as scikit-learn's
 *            Q[:, n_components + 1:]), each divided by its sum unless |sum| < htol,
 *            blk = w w^T.
 * Modified (K_LLE_MODIFIED, K_LLE_MODIFIED_RHO, tol = modified_tol, eta): k_lle_point_modified.
 * blk: k x k (entry (a,b) at blk0[(a*k+b)*gs]); s0: K_LLE_BLOCK_SCRATCH(k) doubles (stride
 * gs).  Returns 0, or 1 when the local eigen-decomposition did not converge.  Local. */
static inline K_LLE_HD int k_lle_point_block(const double *x, int dim, int64_t q, int k, const int32_t *nbr,
                                             int method, int d, double htol, double eta, double *s0,
                                             int64_t gs, double *blk0) {
  if (method == K_LLE_MODIFIED || method == K_LLE_MODIFIED_RHO)
    return k_lle_point_modified(x, dim, q, k, nbr, d, htol, eta, method == K_LLE_MODIFIED_RHO, s0, gs, blk0);
#define G(i, j) s0[((int64_t)(i) * k + (j)) * gs]
#define V(i, j) s0[((int64_t)k * k + (int64_t)(i) * k + (j)) * gs]
#define Y(i, j) s0[((int64_t)2 * k * k + (int64_t)(i) * k + (j)) * gs]
#define U(i, j) Y(i, 1 + (j))
#define T(i) s0[((int64_t)3 * k * k + (i)) * gs]
#define SEL(i) s0[((int64_t)3 * k * k + k + (i)) * gs]
#define B(i, j) blk0[((int64_t)(i) * k + (j)) * gs]
  const double *xq = x + q * dim;
  /* G0 = (x_a - x_q).(x_b - x_q), then the centred Gram J G0 J */
  for (int a = 0; a < k; a++) {
    const double *xa = x + (int64_t)nbr[a] * dim;
    for (int b = 0; b <= a; b++) {
      const double *xb = x + (int64_t)nbr[b] * dim;
      double sum = 0;
      for (int c = 0; c < dim; c++) sum += (xa[c] - xq[c]) * (xb[c] - xq[c]);
      G(a, b) = G(b, a) = sum;
    }
  }
  double all = 0;
  for (int a = 0; a < k; a++) {
    double r = 0;
    for (int b = 0; b < k; b++) r += G(a, b);
    T(a) = r / k;
    all += r;
  }
  all /= (double)k * k;
  for (int a = 0; a < k; a++)
    for (int b = 0; b < k; b++) G(a, b) = G(a, b) - T(a) - T(b) + all;
  int bad = k_lle_jacobi(k, s0, s0 + (int64_t)k * k * gs, gs);
  /* the d leading eigenvectors (descending eigenvalue, ties by index) into U = Y's columns 1..d */
  for (int a = 0; a < k; a++) SEL(a) = 0;
  for (int j = 0; j < d; j++) {
    int best = -1;
    for (int a = 0; a < k; a++)
      if (SEL(a) == 0 && (best < 0 || G(a, a) > G(best, best))) best = a;
    SEL(best) = 1;
    for (int a = 0; a < k; a++) U(a, j) = V(a, best);
  }
  if (method == K_LLE_LTSA) {
    for (int a = 0; a < k; a++)
      for (int b = 0; b < k; b++) {
        double sum = 1.0 / k;
        for (int j = 0; j < d; j++) sum += U(a, j) * U(b, j);
        B(a, b) = (a == b ? 1.0 : 0.0) - sum;
      }
    return bad;
  }
  /* Hessian: Y = [1, U, products], nc columns */
  int nc = 1 + d + d * (d + 1) / 2;
  for (int a = 0; a < k; a++) {
    Y(a, 0) = 1.0;
    int col = 1 + d;
    for (int i = 0; i < d; i++)
      for (int j = i; j < d; j++) Y(a, col++) = U(a, i) * U(a, j);
  }
  /* Householder QR of Y (k x nc) in place, reflector j below the diagonal, tau_j in T(j) */
  for (int j = 0; j < nc; j++) {
    double alpha = Y(j, j), xn = 0;
    for (int i = j + 1; i < k; i++) xn += Y(i, j) * Y(i, j);
    xn = sqrt(xn);
    if (xn == 0) { T(j) = 0; continue; }
    double beta = -copysign(sqrt(alpha * alpha + xn * xn), alpha);
    T(j) = (beta - alpha) / beta;
    double sc = 1.0 / (alpha - beta);
    for (int i = j + 1; i < k; i++) Y(i, j) *= sc;
    Y(j, j) = beta;
    for (int c = j + 1; c < nc; c++) {
      double sum = Y(j, c);
      for (int i = j + 1; i < k; i++) sum += Y(i, j) * Y(i, c);
      sum *= T(j);
      Y(j, c) -= sum;
      for (int i = j + 1; i < k; i++) Y(i, c) -= sum * Y(i, j);
    }
  }
  /* w = Q e_c for c = d+1..k-1 (Q = H_0 ... H_{nc-1}, the full k x k Q: scikit-learn's
   * Q[:, d + 1:]) into V's columns, each scaled by 1/sum */
  for (int c = d + 1; c < k; c++) {
    for (int a = 0; a < k; a++) V(a, c) = a == c ? 1.0 : 0.0;
    for (int j = nc - 1; j >= 0; j--) {
      double sum = V(j, c);
      for (int i = j + 1; i < k; i++) sum += Y(i, j) * V(i, c);
      sum *= T(j);
      V(j, c) -= sum;
      for (int i = j + 1; i < k; i++) V(i, c) -= sum * Y(i, j);
    }
    double cs = 0;
    for (int a = 0; a < k; a++) cs += V(a, c);
    if (fabs(cs) < htol) cs = 1;
    for (int a = 0; a < k; a++) V(a, c) /= cs;
  }
  for (int a = 0; a < k; a++)
    for (int b = 0; b < k; b++) {
      double sum = 0;
      for (int c = d + 1; c < k; c++) sum += V(a, c) * V(b, c);
      B(a, b) = sum;
    }
  return bad;
#undef G
#undef V
#undef Y
#undef U
#undef T
#undef SEL
#undef B
}

/* ---- the FP32 filter of the exact FP64 brute force (CUDA's kf_ kernels) ----
 * The points are centred on c (any centre; in double, then rounded to FP32: xf = fl32(x - c))
 * and rho >= max ||x_i - c||.  d = the FP32 direct-form squared distance of xf_i, xf_j (one
 * rounding per subtraction and per fused multiply-add or addition, any summation order).
 * Then the true distance s = ||x_i - x_j|| obeys
 *   |s - ||xf_i - xf_j||| <= ||xf_i - (x_i - c)|| + ||xf_j - (x_j - c)|| <= 2 (u + u^2) rho + 2 sqrt(D) 2^-149
 * (triangle inequality; u = 2^-24 FP32's unit roundoff, the double centring adding 2^-53,
 * subnormals at most 2^-149 a coordinate), and, every term being non-negative,
 *   d = ||xf_i - xf_j||^2 (1 + theta) + e,  |theta| <= gamma_(D+3) = (D+3) u / (1 - (D+3) u)
 *   (the subtraction's rounding, squared, and at most D + 1 roundings of a sum holding a
 *   non-zero term; padding zeros add exactly), |e| <= (D + 3) 2^-126 (underflow, also with
 *   flush to zero).
 * So lo(d) <= s <= hi(d) with hi(d) = sqrt((d + eta) / (1 - gam)) + beta, lo(d) =
 * sqrt(max(d - eta, 0) / (1 + gam)) - beta; the constants below carry a factor 2 over these
 * bounds (so that the double arithmetic evaluating them cannot matter).  Local. */
typedef struct {
  double gam, beta, eta;
} k_lle_kf_bound;

/* The bound's constants for dim coordinates and radius rho.  Local. */
static inline K_LLE_HD k_lle_kf_bound k_lle_kf_bounds(int dim, double rho) {
  const double u = 0x1p-24;
  k_lle_kf_bound b;
  b.gam = 2 * (dim + 4) * u / (1 - (dim + 4) * u);
  b.beta = 2 * (2 * (u + u * u + 0x1p-53) * rho + 2 * sqrt((double)dim) * 0x1p-149);
  b.eta = 2 * (dim + 4) * 0x1p-126;
  return b;
}
/* hi(d): the largest true distance (not squared) an FP32 squared distance d allows.  Local. */
static inline K_LLE_HD double k_lle_kf_hi(const k_lle_kf_bound *b, double d) {
  return sqrt((d + b->eta) / (1 - b->gam)) + b->beta;
}
/* The largest FP32 squared distance d with lo(d) <= h: every point with a true distance <= h
 * has its FP32 distance <= this.  Local. */
static inline K_LLE_HD double k_lle_kf_reach(const k_lle_kf_bound *b, double h) {
  return ((h + b->beta) * (h + b->beta) * (1 + b->gam) + b->eta) * (1 + 0x1p-40);
}

#ifdef __cplusplus
}
#endif
#endif
