/* k_spai.h - the spai workload's kernels behind one C table (no CUDA types): the batched
 * least-squares problems of the SPAI columns, and the sparse matrices of the distributed
 * BiCGSTAB (its vector operations are the shared ones of k_vec.h).  Filled by kernels/host/spai*.c (C + LAPACK) and kernels/cuda/spai*.cu
 * (CUDA + cuSPARSE); k_spai_ops_get() picks the table.  All functions are local to the rank and
 * return HY_OK or a recorded error code.  "Device" pointers are host memory on the host.  Host
 * arrays "malloc'd here" may be posix_memalign'd (huge-page advised): free() releases them. */
#ifndef HY_K_SPAI_H
#define HY_K_SPAI_H

#include <stdint.h>
#include "kernels.h"
#include "k_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define K_SPAI_HD __host__ __device__
#else
#define K_SPAI_HD
#endif

/* Eq. 3 of HybridSPAI, the one definition every pattern builder (host and device) uses: keep
 * an entry of magnitude v = |a_ij| when v > (1 - tau) m, where m is the largest magnitude of its
 * row (max_j |a_ij|; or of its column with [spai] threshold = column), and v != 0.  The
 * comparison is strict: an entry exactly at (1 - tau) m is dropped.  (The diagonal is added by
 * the builders whatever its value.)  Local. */
static inline K_SPAI_HD int k_spai_keep(double v, double m, double tau) {
  return v > (1.0 - tau) * m && v > 0;
}

/* This rank's SPAI columns, described in host memory.  Column c (0 <= c < ncols) is column
 * kglob[c] of M; its pattern J_c is jloc[jptr[c] .. jptr[c+1]), indices of rows of B (sorted by
 * the global index they stand for, jglob); B's rows are columns of A: row r holds the global
 * row indices bcol[bptr[r] .. bptr[r+1]) (sorted) and values of A's column jglob of r.  I_c (the
 * rows of A that J_c's columns touch) has at most iub[c+1] - iub[c] entries. */
typedef struct {
  int64_t ncols;
  const int32_t *kglob;
  const int64_t *jptr;
  const int32_t *jloc;
  int64_t nb;                 /* rows of B */
  const int64_t *bptr;
  const int32_t *bcol;
  const double *bval;
  const int64_t *iub;         /* ncols + 1 */
  /* CUDA kernel choice by (|I|, |J|): a warp per column when |I| <= small_rows and |J| <=
   * small_cols, a block in shared memory when |I| |J| <= medium_elems, else a block working
   * in global memory.  The host ignores them. */
  int small_rows, small_cols;
  int64_t medium_elems;
  int block_threads;          /* threads of the medium / large blocks */
  int fuse_submat;            /* 1: the small / medium classes' A(I_c, J_c) scattered from B
                               * into shared memory by the QR kernel (no workspace for them) */
  int warp_rows;              /* CUDA: columns with |J| <= 31 and |I| <= warp_rows go to the warp
                               * class (a warp per column, a lane per row slice, A(I_c, J_c)
                               * scattered from B into shared memory by the QR kernel); 0: none */
} k_spai_cols;

/* One rank, levels 1: A's n rows in host memory (global = local indices) and what the pattern
 * needs (eq. 3 by row maxima, or by the column maxima cmax when not NULL; the diagonal added),
 * plus the kernel choice of k_spai_cols. */
typedef struct {
  int64_t n;
  const int64_t *rowptr;
  const int32_t *colind;
  const double *val;
  double tau;
  const double *cmax;         /* n entries or NULL */
  int max_col;
  int small_rows, small_cols;
  int64_t medium_elems;
  int block_threads, fuse_submat, warp_rows;
  double *split;              /* NULL, or out: [0] seconds of A's upload, [1] of B, the J sets
                               * and the |I| bounds on the device (including their download) */
} k_spai_single;

/* P ranks, levels 1: this rank's columns r0 .. r0 + nloc - 1 of M from B's rows in host memory:
 * rows 0 .. nloc - 1 are B's local rows (A's columns r0 + k), rows nloc .. nloc + nghost - 1 the
 * rows of the other ranks that B's local rows name (A's columns ghost[t], sorted ascending; every
 * global index in a local row outside [r0, r0 + nloc) is among them); bcol: global row indices of
 * A, sorted in each row.  mxb[p] = max_j |a_gj| of the row g that B row p stands for (eq. 3 by
 * row maxima), or cmax (nloc entries: the column maxima of the local columns) when not NULL;
 * plus the kernel choice of k_spai_cols.  The J sets are those of the host pattern (the diagonal
 * added in order). */
typedef struct {
  int64_t nloc, r0, nghost;
  const int32_t *ghost;       /* nghost global indices */
  const int64_t *bptr;        /* nloc + nghost + 1 */
  const int32_t *bcol;
  const double *bval;
  const double *mxb;          /* nloc + nghost entries, or NULL with cmax */
  const double *cmax;         /* nloc entries or NULL */
  double tau;
  int max_col;
  int small_rows, small_cols;
  int64_t medium_elems;
  int block_threads, fuse_submat, warp_rows;
  double *split;              /* NULL, or out: [0] seconds of B's upload, [1] of the J sets and
                               * |I| bounds on the device (including their download) */
  int jglob_kept;             /* 1: the backend may keep the J sets' global indices to itself
                               * (dist_setup's *jglob then NULL; for dist_rows_dev only) */
  void *brows;                /* NULL, or B's nloc + nghost rows already on the backend (a rows
                               * block, see k_spai_piece): then bptr / bcol / bval are unused
                               * (NULL), nothing is uploaded and the state takes the block over
                               * (whatever the result: it is freed with the state or on failure) */
} k_spai_dist;

/* Rows blocks (the P-rank device setup, spai.dist_exchange = device): CSR rows with global column
 * indices, sorted in each row, 64-bit offsets, in the backend's memory (host memory on the host
 * backend), opaque to the driver (void *).  Made by dist_trans (A's local transpose),
 * rows_merge (local rows from pieces) and dist_rows_dev (M's rows of the rank's columns); freed by
 * rows_free, or taken over by dist_setup (k_spai_dist.brows) or rows_mat.  One piece of the local
 * rows that rows_merge assembles: local rows row0 .. row0 + rows - 1 get, after the pieces
 * before it in the list, either rows t_row0 .. t_row0 + rows - 1 of the block t (t != NULL), or
 * host entries: row i's at off[i] .. off[i + 1] of col / val (off[0] = 0). */
typedef struct {
  int64_t row0, rows;
  void *t;
  int64_t t_row0;
  const int64_t *off;
  const int32_t *col;
  const double *val;
} k_spai_piece;

/* Kernel statistics of one batch (columns per class, time is measured by the caller). */
typedef struct {
  int64_t ncols_small, ncols_medium, ncols_large;
  int64_t ncols_warp;         /* CUDA's warp class (warp_rows) */
  int64_t max_i, max_j;
  int64_t rank_deficient;     /* columns where a pivot of R was dropped */
} k_spai_stats;

typedef struct k_spai_ops {
  /* Upload / keep the description; *state is backend-private.  imax: output |I_c| (host). */
  int (*cols_setup)(k_backend *be, const k_spai_cols *d, void **state);
  /* Index sets: I_c for every column; isize[c] = |I_c| on the host. */
  int (*cols_index)(k_backend *be, void *state, int32_t *isize);
  /* Optional (NULL: cols_index, and the driver cuts the batches by |I_c| |J_c| 8 bytes).  The
   * index sets of all columns, their sizes and kernel classes kept by the backend, and the
   * batches of columns for cols_submat / cols_solve: *nbatch of them, batch b = columns
   * [ends[b - 1], ends[b]) (ends[-1] = 0; ends malloc'd here), each within workspace bytes of
   * the backend's own workspace (CUDA: the warp class and fused columns need none; a column
   * over workspace alone is a batch).  The columns' values do not depend on the batches. */
  int (*cols_index_batches)(k_backend *be, void *state, int64_t workspace, int64_t **ends,
                            int64_t *nbatch);
  /* Submatrices A(I_c, J_c) of columns [c0, c1) into a workspace (offsets from isize). */
  int (*cols_submat)(k_backend *be, void *state, int64_t c0, int64_t c1);
  /* Householder QR, Q^T e_k and the guarded triangular solve of columns [c0, c1): values of
   * m_c kept by the backend; residuals ||A m_c - e_k||_2 too. */
  int (*cols_solve)(k_backend *be, void *state, int64_t c0, int64_t c1, k_spai_stats *st);
  /* The values of all columns (in jptr order) and the residual norms, to host memory. */
  int (*cols_result)(k_backend *be, void *state, double *mval, double *res);
  int (*cols_free)(k_backend *be, void *state);
  /* Optional (NULL: the driver builds the pattern and M's rows on the host).  One rank, levels 1:
   * B = A^T, the J sets (the same sets as the host pattern) and |I| bounds built by the backend
   * from A (uploaded once), kept in a state ready for cols_index; *jptr (n + 1 offsets of the J
   * sets, host, malloc'd here, the caller frees it), or NULL from a backend with
   * cols_index_batches that keeps them (CUDA: nothing of the J sets to the host).  *fits = 0 and *state = NULL when a J set
   * exceeds max_col (the host pattern caps it). */
  int (*single_setup)(k_backend *be, const k_spai_single *in, void **state, int64_t **jptr,
                      int *fits);
  /* Of a single_setup state after cols_solve: M by rows (n x n CSR, sorted columns; the transpose
   * of the columns' values done by the backend) into host arrays malloc'd here, the column
   * residuals into res (n entries) and into *bad the smallest column with a non-finite value or
   * residual (-1: none); split (NULL or 2 entries out): seconds of M's rows on the device (the
   * transpose), of their copy to the host. */
  int (*single_rows)(k_backend *be, void *state, int64_t **rowptr, int32_t **colind, double **val,
                     double *res, int64_t *bad, double *split);
  /* Optional (NULL: single_rows, M to the host and uploaded again by the solve).  Of a
   * single_setup state after cols_solve: M by rows (n x n, sorted columns, the same arrays as
   * single_rows) made straight into a matrix of mat_create's kind on the backend, where the solve
   * takes it as it is (nothing of M to the host; CUDA: the transpose's output arrays kept on the
   * device); *nnz its entries, the column residuals into res, *bad as single_rows; split (NULL or
   * 2 entries out): seconds of M on the device (transpose and matrix), of the residuals' copy. */
  int (*single_mat)(k_backend *be, void *state, void **mat, int64_t *nnz, double *res,
                    int64_t *bad, double *split);

  /* Optional (NULL: the driver's host pattern).  P ranks, levels 1: the J sets of the local
   * columns (as B rows, and *jglob: their global indices, host, malloc'd here with *jptr, the
   * nloc + 1 offsets) and the |I| bounds built by the backend from B's rows (uploaded once), kept
   * in a state ready for cols_index (whose results come back by cols_result, in jptr order).
   * *fits = 0 and *state = NULL when a J set exceeds max_col (the host pattern caps it). */
  int (*dist_setup)(k_backend *be, const k_spai_dist *in, void **state, int64_t **jptr,
                    int32_t **jglob, int *fits);
  /* Optional (NULL: the values to the host by cols_result, M's rows by the driver's distributed
   * transpose).  Of a dist_setup state after cols_solve: the rank's block of M's columns
   * (global columns c0 + k) transposed by the backend into rows g0 .. g1 - 1 of M (the rows its
   * J sets name: jglob, host, in [g0, g1)), host arrays malloc'd here: *rowptr (g1 - g0 + 1
   * offsets), *colind (global columns, increasing in each row), *val; the column residuals into
   * res, into *bad the smallest local column with a non-finite value or residual (-1: none);
   * split (NULL or 2 entries out): seconds on the device, of the copy to the host.  A backend
   * that kept the J sets' global indices may ignore jglob. */
  int (*dist_rows)(k_backend *be, void *state, const int32_t *jglob, int64_t g0, int64_t g1,
                   int64_t c0, int64_t **rowptr, int32_t **colind, double **val, double *res,
                   int64_t *bad, double *split);

  /* Optional, all six or none (NULL: spai.dist_exchange = device runs as host).  The P-rank
   * device setup's rows blocks (see k_spai_piece).  dist_trans: A's local rows (host; global
   * rows r0 .. r0 + nloc - 1, global columns) uploaded once and transposed on the backend: *t =
   * rows g0 .. g1 - 1 (the columns they touch; g0 = g1 = 0 with no entries), row j's entries
   * the global rows r0 + i of A's column g0 + j (increasing) with A's values; mx (NULL, or nloc
   * entries out, host): the row maxima max_j |a_ij| of the local rows. */
  int (*dist_trans)(k_backend *be, int64_t nloc, int64_t r0, const int64_t *rowptr,
                    const int32_t *colind, const double *val, void **t, int64_t *g0, int64_t *g1,
                    double *mx);
  /* Rows rows[0..nr) of the block (indices into it, any order) to host arrays malloc'd here:
   * *off (nr + 1 offsets from 0), *col, *val, in list order. */
  int (*rows_gather)(k_backend *be, void *t, int64_t nr, const int64_t *rows, int64_t **off,
                     int32_t **col, double **val);
  /* *out = a block of mloc rows: each row the concatenation of its pieces, in list order (np
   * pieces; host pieces uploaded; the blocks the pieces name are left as they are). */
  int (*rows_merge)(k_backend *be, int64_t mloc, int np, const k_spai_piece *pc, void **out);
  int (*rows_free)(k_backend *be, void *t);
  /* The block's (nloc rows) global columns renumbered as la_halo_build does (r0 + l -> l, the
   * sorted ghosts ghost[t] (host, ng) -> nloc + t), each row in increasing new index, made a
   * matrix of mat_create's kind (nloc x (nloc + ng)) where the block is: *mat, *nnz its entries;
   * t taken over (freed here whatever the result). */
  int (*rows_mat)(k_backend *be, void *t, int64_t r0, int64_t nloc, int64_t ng,
                  const int64_t *ghost, void **mat, int64_t *nnz);
  /* Of a dist_setup state after cols_solve: dist_rows, the rows left on the backend as the
   * block *t instead of host arrays, rows *g0 .. *g1 - 1 (the range of the J sets' global
   * indices, found here: jglob, host, or NULL where the backend kept them; none: 0, 0); res and
   * *bad as dist_rows; split (NULL or 2 entries out): seconds of the transpose, of the
   * residuals' copy. */
  int (*dist_rows_dev)(k_backend *be, void *state, const int32_t *jglob, int64_t c0, void **t,
                       int64_t *g0, int64_t *g1, double *res, int64_t *bad, double *split);

  /* A local sparse matrix in CSR (rows x cols, local column indices), on the device. */
  int (*mat_create)(k_backend *be, int64_t rows, int64_t cols, const int64_t *rowptr,
                    const int32_t *colind, const double *val, void **mat);
  int (*mat_free)(k_backend *be, void *mat);
  /* y[0..rows) = mat * x (x has cols entries; device vectors): the backend library's SpMV on
   * CUDA (cuSPARSE), the C loop on the host. */
  int (*mat_spmv)(k_backend *be, void *mat, const double *x, double *y);
  /* Optional (NULL: only mat_spmv): the same product by our own kernel (CUDA: tpr threads per
   * row, a power of 2 up to 32; 0: chosen from the mean row length), a fixed summation order. */
  int (*mat_spmv_own)(k_backend *be, void *mat, int tpr, const double *x, double *y);
  /* Optional (NULL: none): the matrix's own arrays as a k_csr_view (k_vec.h), for a vector
   * operation that runs its products itself (k_vec_ops.bcgs_batch). */
  int (*mat_view)(k_backend *be, void *mat, k_csr_view *view);
  /* Optional (NULL: none; needed with single_mat).  The matrix's rows to host arrays malloc'd
   * here (free() releases them): *rowptr (rows + 1 offsets), *colind, *val, exactly its entries. */
  int (*mat_get)(k_backend *be, void *mat, int64_t **rowptr, int32_t **colind, double **val);
  /* Optional (NULL: none; needed with single_mat).  *row = the first row where matrices x and y
   * differ (size, a row's length, a column index or the bits of a value), -1 if identical. */
  int (*mat_differs)(k_backend *be, void *x, void *y, int64_t *row);

  /* ILU(0) (solver.precond = ilu0): the incomplete LU factors of a local n x n CSR (sorted
   * columns, local indices, every row with its diagonal) in A's pattern, kept by the backend
   * (host: the IKJ row-wise elimination in C; CUDA: cusparseDcsrilu02, triangular solves by
   * cusparseSpSV).  A zero or non-finite pivot: HY_ENUMERIC naming the local row. */
  int (*ilu_create)(k_backend *be, int64_t n, const int64_t *rowptr, const int32_t *colind,
                    const double *val, void **ilu);
  /* y[0..n) = (L U)^-1 x (L unit lower, U upper; device vectors). */
  int (*ilu_apply)(k_backend *be, void *ilu, const double *x, double *y);
  int (*ilu_free)(k_backend *be, void *ilu);

  /* Optional (NULL: nothing to reserve).  Grow the memory pool the setup allocates from to at
   * least bytes and keep it (CUDA: one cudaMallocAsync + cudaFreeAsync on the default pool,
   * whose release threshold keeps everything), so that the first setup maps no new device
   * memory; halves the request until it fits (down to 64 MiB, else nothing); *kept = the bytes
   * reserved. */
  int (*pool_reserve)(k_backend *be, int64_t bytes, int64_t *kept);
  /* Optional (NULL: nothing to lock).  Page-lock (on = 1) or release (on = 0) host memory the
   * setup uploads from in every run (A's local rows, [spai] gpu_pin_matrix), so that its copies
   * to the device are direct (CUDA: cudaHostRegister / cudaHostUnregister); a range that cannot
   * be locked is left as it is: *done = 0. */
  int (*host_pin)(k_backend *be, void *p, size_t bytes, int on, int *done);
} k_spai_ops;

/* The table of be's kind.  Local. */
const k_spai_ops *k_spai_ops_get(const k_backend *be);

extern const k_spai_ops k_spai_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_spai_ops k_spai_cuda_ops;
#endif

#ifdef __cplusplus
}
#endif
#endif
