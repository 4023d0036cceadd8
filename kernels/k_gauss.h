/* k_gauss.h - the kernels of the gauss workload (dense LU), one table per backend.
 *
 * Every function takes sp: 0 for FP64 (double) data, 1 for FP32 (float) data; pointers are
 * "device" pointers of the backend (host memory on the host backend) unless named h*.
 * Two layouts:
 *  - naive / stepwise: this rank's rows, row-major, leading dimension lda (>= columns);
 *  - blocked: this rank's part of a 2D block-cyclic matrix, column-major, leading dimension lda.
 * All functions are local to the calling rank and return HY_OK or an error code. */
#ifndef HY_K_GAUSS_H
#define HY_K_GAUSS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* ---- what the backend is, for the driver's choices and its output (no kind tests) ---- */
  int gpu;                  /* 1: a GPU (GPU figures - targets at the H200's rates - print) */
  char tv;                  /* the device letter of HPL's T/V code: 'G' (GPU) or 'H' (host) */
  const char *unit;         /* what one rank drives, for "Gflops per ...": "GPU" or "rank" */
  const char *vendor_lu;    /* the vendor LU of ref_lu: "cuSOLVER" or "LAPACK" */
  const char *vendor_blas;  /* the BLAS of gemm_time: "cuBLAS" or "BLAS" */
  /* The block size that gauss.nb = 0 (auto) means for order n (>= 1); lowp: the factors are
   * FP32 (precision single / mixed: TF32 and HPL-MxP's 16-bit updates too). */
  int64_t (*nb_auto)(int64_t n, int lowp);

  /* ---- the seed's three per-step kernels (row-major rows) ---- */
  /* row[0] = 1 and row[j] /= pivot for 0 < j < len (the seed's first kernel). */
  int (*row_scale)(k_backend *be, int sp, void *row, int64_t len, double pivot);
  /* For the m rows of a: a[i][j] -= a[i][k] * prow[j - k] for k < j < ncols (the seed's
   * second kernel; prow points at element k of the pivot row). */
  int (*rank1)(k_backend *be, int sp, void *a, int64_t lda, int64_t m, int64_t k, int64_t ncols,
               const void *prow);
  /* For the m rows of a: l[i][k] = a[i][k] when l != NULL (keeps the multipliers), then
   * a[i][k] = 0 (the seed's third kernel). */
  int (*col_zero)(k_backend *be, int sp, void *a, int64_t lda, int64_t m, int64_t k, void *l,
                  int64_t ldl);
  /* Largest |a[i][k]| over the m rows and the first row index holding it (-1, 0 when m = 0). */
  int (*col_absmax)(k_backend *be, int sp, const void *a, int64_t lda, int64_t m, int64_t k,
                    double *val, int64_t *idx);
  /* Swap len elements of two rows. */
  int (*swap)(k_backend *be, int sp, void *x, void *y, int64_t len);

  /* ---- blocked LU (column-major blocks) ---- */
  /* LU with partial pivoting of the m x n panel a: ipiv (host, 0-based rows of the panel),
   * info (host: 0, or 1 + the first column with an exact zero pivot), minpiv / minidx (host:
   * smallest |u_jj| and its column). */
  int (*getrf)(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *hipiv,
               int *info, double *minpiv, int64_t *minidx);
  /* For i = 0..nswap-1: swap rows i and hipiv[i] (0-based, hipiv[i] >= i) of the ncols columns
   * of a. */
  int (*laswp)(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nswap,
               const int *hipiv);
  /* Permute ns rows of the ncols columns of a in place: row hrows[r] gets the old content of row
   * hrows[hsrc[r]] (hsrc indexes hrows; a permutation of 0..ns-1). */
  int (*rows_perm)(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int ns,
                   const int *hrows, const int *hsrc);
  /* buf[r + j * nrows] = a[hrows[r] + j * lda] for r < nrows, j < ncols (gather rows). */
  int (*rows_get)(k_backend *be, int sp, const void *a, int64_t lda, int64_t ncols, int nrows,
                  const int *hrows, void *buf);
  /* a[hrows[r] + j * lda] = buf[r + j * nrows] (scatter rows). */
  int (*rows_put)(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nrows,
                  const int *hrows, const void *buf);
  /* B = L^-1 B with L m x m unit lower triangular, B m x n. */
  int (*trsm_lunit)(k_backend *be, int sp, int64_t m, int64_t n, const void *l, int64_t ldl,
                    void *b, int64_t ldb);
  /* C -= A B with A m x k, B k x n, C m x n. */
  int (*gemm_sub)(k_backend *be, int sp, int64_t m, int64_t n, int64_t k, const void *a,
                  int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc);
  /* x = T^-1 x with T n x n: lower unit (upper = 0) or upper non-unit (upper = 1). */
  int (*trsv)(k_backend *be, int sp, int upper, int64_t n, const void *t, int64_t ldt, void *x);
  /* y += A x with A m x n. */
  int (*gemv_add)(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                  const void *x, void *y);
  /* Copy an m x n column-major block between device (lda) and host (ldh). */
  int (*d2h_2d)(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda, void *h,
                int64_t ldh);
  int (*h2d_2d)(k_backend *be, int sp, int64_t m, int64_t n, const void *h, int64_t ldh, void *a,
                int64_t lda);
  /* dst = src (m x n) converted to precision to_sp from the other precision. */
  int (*convert)(k_backend *be, int to_sp, int64_t m, int64_t n, const void *src, int64_t lds,
                 void *dst, int64_t ldd);

  /* Lookahead streams: what = 0 marks the work queued so far on the main stream; 1 sends the
   * gauss calls that follow to a side stream, which first waits for the mark; 2 sends them back
   * to the main stream, which waits for everything queued on the side.  Host: nothing. */
  int (*stream_ctl)(k_backend *be, int what);

  /* FP32 GEMM / TRSM through TF32 tensor cores (on = 1) or exact FP32 (on = 0).  Host: nothing. */
  int (*tensor)(k_backend *be, int on);

  /* ---- services ---- */
  /* Bytes of device memory free now (host: available physical memory). */
  int (*mem_free)(k_backend *be, size_t *bytes);
  /* The vendor's reference in FP64 (cuSOLVER / LAPACK getrf + getrs) on the n x n matrix a0
   * (device, column-major, ld n; not changed) and b (device; not changed): one untimed warm-up
   * run, then reps timed runs, each the LU of a fresh copy of a0 and the solve; x (device, n):
   * the last run's solution; tf, ts: best [0] and mean [1] seconds of the factorization and of
   * the solve over the timed runs; info as getrf (the last run). */
  int (*ref_lu)(k_backend *be, int64_t n, const double *a0, const double *b, double *x, int reps,
                double tf[2], double ts[2], int *info);
  /* An n x n x n DGEMM: one warm-up, then reps timed; t[0] best, t[1] mean seconds. */
  int (*gemm_time)(k_backend *be, int64_t n, int reps, double t[2]);

  /* ---- device-to-device copies ---- */
  /* Copy an m x n column-major block between device buffers (lda -> ldb), queued on the
   * current gauss stream. */
  int (*copy_2d)(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda, void *b,
                 int64_t ldb);

  /* ---- low-precision GEMM (HPL-MxP's trailing updates) ---- */
  /* C -= A B on FP32 data (A m x k, B k x n, C m x n) with the inputs A and B rounded to low
   * (1: TF32, 2: BF16, 3: FP16, round to nearest even; 0: exact FP32) and the products summed in
   * FP32.  GPU: tensor cores (cublasGemmEx); host: the rounding of the inputs emulated, then
   * SGEMM. */
  int (*gemm_sub_low)(k_backend *be, int low, int64_t m, int64_t n, int64_t k, const float *a,
                      int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc);
  /* The same in two parts, so that each input is rounded once however many GEMMs use it
   * (HPL-MxP: the L panel and the U block row once per step, the trailing matrix stays FP32):
   * to_low writes the m x n FP32 block src rounded to low (2: BF16, 3: FP16) into dst (ld ldd)
   * in this backend's storage of low, low_bytes[low] bytes an element (GPU: the 16-bit format
   * itself; host: the rounded value as FP32); gemm_sub_lowp is C -= A B on such inputs with
   * FP32 sums (GPU: cublasGemmEx on tensor cores; host: SGEMM) - bit for bit gemm_sub_low. */
  size_t low_bytes[4];
  int (*to_low)(k_backend *be, int low, int64_t m, int64_t n, const float *src, int64_t lds,
                void *dst, int64_t ldd);
  int (*gemm_sub_lowp)(k_backend *be, int low, int64_t m, int64_t n, int64_t k, const void *a,
                       int64_t lda, const void *b, int64_t ldb, float *c, int64_t ldc);

  /* ---- recursive panel LU (gauss.panel = recursive) ---- */
  /* getrf's contract (the same outputs) by recursion on the columns: the left half factored,
   * its row swaps applied to the rest of the panel, U12 = L11^-1 A12 (TRSM), A22 -= L21 U12
   * (GEMM), the right half factored; blocks of at most nbmin columns by the vendor's getrf.  Most
   * of the panel's flops become GEMM.  GPU: the pivots stay on the device until the end (one
   * synchronisation per panel, no shared row list: safe beside the main stream's swaps).
   * base: K_GAUSS_BASE_VENDOR (the base blocks by the vendor's getrf) or K_GAUSS_BASE_FUSED
   * (blocks of at most 32 columns in one launch of our own: GPU: a cooperative kernel, the rows
   * in shared memory, one grid barrier per column, the vendor's getrf where it does not fit;
   * host: an unblocked loop). */
  int (*getrf_rec)(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int nbmin,
                   int base, int *hipiv, int *info, double *minpiv, int64_t *minidx);

  /* ---- device pivots (one rank: no host synchronisation inside the blocked factorization) ---- */
  /* getrf's factorization of the m x n panel a (nbmin = 0: the vendor's getrf on the whole panel;
   * > 0: getrf_rec's recursion with base blocks of nbmin columns, by base) with every output left in device
   * memory: dpiv[i] (n ints) = the 0-based panel row swapped with row i (dpiv[i] >= i); dstat (3
   * doubles) = { 1 + the first column with an exact zero pivot (0: none; < 0: the vendor's
   * illegal-argument code), the smallest |u_jj|, its column }.  Queued on the current stream; no
   * synchronisation (host: done on return). */
  int (*getrf_dev)(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int nbmin,
                   int base, int *dpiv, double *dstat);
  /* The nswap swaps of dpiv (row i <-> dpiv[i] in order, i < nswap, dpiv[i] in [i, m): a pivot
   * outside is taken as i) as one permutation of at most 2 nswap rows, written to plan (device,
   * K_GAUSS_PLAN_INTS(nswap) ints): slot v < 2 nswap moves row plan[v] (-1: unused slot) the old
   * content of row plan[2 nswap + v]; the slots in any order (GPU: by row, and plan[4 nswap + r]
   * the slot of the r-th smallest source row, swap_apply's read order).  Queued on the current
   * stream. */
  int (*swap_plan)(k_backend *be, int nswap, int64_t m, const int *dpiv, int *plan);
  /* Apply those swaps to ncols columns of a (row 0 = the panel's top row), each column in one
   * pass (read every moved row, then write: GPU: coalesced down the column, one launch for all
   * the columns and all nswap pivots; beyond the plan's shared-memory limit the swaps in order
   * from dpiv).  Queued on the current stream. */
  int (*swap_apply)(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nswap,
                    const int *dpiv, const int *plan);

  /* ---- small-n LU (gauss.small; small_nmax = 0 and NULL entries: none on this backend) ---- */
  int64_t small_nmax;       /* the largest n getrf_small takes */
  int64_t small_auto;       /* gauss.small = auto takes it up to this n (measured against the
                             * blocked LU on the H200) */
  /* FP64 LU with partial pivoting of the n x n matrix a (ld lda) in a few launches, by kind
   * (K_GAUSS_SMALL_*): a becomes LAPACK dgetrf's factors (P A = L U, L in the final row order);
   * dpiv (device, K_GAUSS_SMALL_INTS(n) ints): [0, n) the 0-based pivots in order (row i swapped
   * with dpiv[i] >= i), [n, 2 n) the row order ((P b)[i] = b[dpiv[n + i]]), the rest the
   * kernels' results and workspace; info, minpiv, minidx (host) as getrf's.  Synchronises. */
  int (*getrf_small)(k_backend *be, int kind, int64_t n, double *a, int64_t lda, int *dpiv, int *info,
                     double *minpiv, int64_t *minidx);
  /* x = A^-1 x (x device, n) with getrf_small's a and dpiv (the same kind); queued, no
   * synchronisation. */
  int (*getrs_small)(k_backend *be, int kind, int64_t n, const double *a, int64_t lda, const int *dpiv,
                     double *x);
  /* y -= A x with A m x n (the one-rank solve's block updates, queued: no synchronisation). */
  int (*gemv_sub)(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                  const void *x, void *y);
  /* The blocked LU's panel that gauss.panel = auto means on this backend for FP64 factors from
   * n = panel_auto_nmin (K_GAUSS_PANEL_*; FP32 factors: panel_auto_sp). */
  int panel_auto;

  /* ---- time marks (gauss.trace: where the factorization's wall time goes, no synchronisation) ---- */
  /* trace_open makes a set of nmark marks (*tr; nothing recorded yet); trace_mark records mark i
   * on the current gauss stream (main or the lookahead side stream: GPU: a CUDA event, queued,
   * no synchronisation; host: the wall clock now, the host running everything in order);
   * trace_read waits for the device and writes t[i] = seconds from mark 0 to mark i (NAN for a
   * mark not recorded; mark 0 must be); trace_close frees the set. */
  int (*trace_open)(k_backend *be, int nmark, void **tr);
  int (*trace_mark)(k_backend *be, void *tr, int i);
  int (*trace_read)(k_backend *be, void *tr, double *t);
  void (*trace_close)(k_backend *be, void *tr);

  /* gauss.panel = auto with gauss.panel_vendor_rows = -1 (the default): panels of more than
   * this many rows by the vendor's getrf, the rest by panel_auto (0: every panel by panel_auto). */
  int64_t panel_auto_rows;
  /* gauss.panel = auto with gauss.panel_vendor_short = -1 (the default): panels of at most this many
   * rows - and at most n / 2 - by the vendor's getrf (0: none). */
  int64_t panel_auto_short;
  /* gauss.panel = auto: the panel of FP32 factors (precision single / mixed; panel_auto is FP64's),
   * and the smallest n that takes panel_auto / panel_auto_sp (below: the vendor's). */
  int panel_auto_sp;
  int64_t panel_auto_nmin;

  /* ---- the trailing update's aux stream (gauss.update_chunks; K_GAUSS_AUX_*), the side stream's priority ---- */
  /* GPU: streams and events as K_GAUSS_AUX_* say; host: nothing (everything in order); NULL: no
   * chunks on this backend. */
  int (*aux_ctl)(k_backend *be, int what, int c);
  /* gauss.update_chunks = 0 (the default) means this many chunks (1: none). */
  int update_chunks_auto;
} k_gauss_ops;

/* The blocked LU's panels (gauss.panel): the vendor's getrf, getrf_rec with the vendor's or the
 * fused base blocks. */
enum { K_GAUSS_PANEL_VENDOR = 0, K_GAUSS_PANEL_RECURSIVE = 1, K_GAUSS_PANEL_FUSED = 2 };

/* aux_ctl's what (gauss.update_chunks: the trailing update's aux stream).  ENTER: the calls that
 * follow go to the aux stream (c = 0: of a priority between the main stream's and the lookahead
 * side stream's; 1: of the main stream's), which first waits for everything queued on the main
 * stream so far; PANEL: to the aux stream last entered, which first waits for the side stream's
 * work up to its last return to the main stream (stream_ctl 2: the next step's panel) and for
 * chunk mark c; CHUNK: the same waiting for chunk mark c only; MAIN: back to the main stream,
 * which waits for everything queued on the aux stream so far; MARK: chunk mark c (0 <= c <
 * K_GAUSS_CHUNKS_MAX) records the main stream's work so far (the chunk's GEMM).  The aux
 * stream runs row swaps, TRSM and to_low only.  SIDE (gauss.side_priority; called on the main
 * stream before a factorization): the lookahead side stream's priority, c = 0 the highest (the
 * default), 1 the main stream's.  PBROWS (gauss.panel_rows): the fused base block's rows per
 * thread block, c (0: the backend's default; GPU: 1024, fewer where shared memory holds fewer;
 * host: nothing).  SMS (gauss.panel_sms): the main stream's library calls (the trailing GEMMs,
 * the TRSM) told to use all but c multiprocessors, left to the lookahead panel beside them (GPU:
 * cublasSetSmCountTarget on the main handle; c = 0: all again; host: nothing).  PBSYNC
 * (gauss.panel_sync): how the fused base block's thread blocks share a column's candidates, c = 0
 * flags (each candidate's key its own flag, polled), 1 a grid barrier per column (host: nothing).
 * PBTHREADS: the fused base block's threads a thread block, c = 512 or 1024 (0: the backend's
 * default, 1024 on the GPU; test_gauss_trsm_gpu --panel times both; host: nothing).  LSTEP: c = 1
 * before a step's U block row solves (trsm_lunit) and c = 0 after them: in between the main
 * stream's trsm_lunit may keep L^-1 from one call to the next with the same L, its address,
 * order and leading dimension (GPU: the lookahead columns' solve, then the rest's; host: nothing).
 * PBKIND (gauss.panel_kernel): the fused base block's kernel, c = 0 the backend's choice (GPU: a
 * row a thread in registers up to 64 thread blocks, else a chunk of rows in shared memory), 1
 * always the shared-memory kernel, 2 the register kernel wherever it fits (test_gauss_trsm_gpu
 * --panel times 1 and 2; host: nothing). */
enum { K_GAUSS_AUX_ENTER = 0, K_GAUSS_AUX_PANEL = 1, K_GAUSS_AUX_CHUNK = 2, K_GAUSS_AUX_MAIN = 3,
       K_GAUSS_AUX_MARK = 4, K_GAUSS_AUX_SIDE = 5, K_GAUSS_AUX_PBROWS = 6, K_GAUSS_AUX_SMS = 7,
       K_GAUSS_AUX_PBSYNC = 8, K_GAUSS_AUX_PBTHREADS = 9, K_GAUSS_AUX_LSTEP = 10, K_GAUSS_AUX_PBKIND = 11 };
#define K_GAUSS_CHUNKS_MAX 16

/* The base blocks of getrf_rec / getrf_dev.  NOPIV (gauss.pivoting = none, FP32 factors: HPL-MxP's
 * diagonally dominant matrix, whose rules ask for an LU without pivoting): the recursion's base
 * blocks of at most K_GAUSS_NOPIV_MAX columns factored without row exchanges (GPU: one launch
 * each: every thread block factors the block's top square in shared memory, then solves its share
 * of the rows below against that U; host: an unblocked loop), the pivots the identity (dpiv[i] =
 * i), a zero pivot left unscaled and reported as info. */
enum { K_GAUSS_BASE_VENDOR = 0, K_GAUSS_BASE_FUSED = 1, K_GAUSS_BASE_NOPIV = 2 };
#define K_GAUSS_NOPIV_MAX 32

/* The small-n LU's kinds (getrf_small): one ordinary launch per panel of W columns (steps), or
 * the whole factorization in one cooperative kernel (coop: slower on the H200, kept to compare). */
enum { K_GAUSS_SMALL_STEPS = 0, K_GAUSS_SMALL_COOP = 1 };

/* Ints of getrf_small's dpiv for order n: pivots, row order, results (8), two step plans. */
#define K_GAUSS_SMALL_INTS(n) (2 * (int64_t)(n) + 8 + 272)

/* Ints of a swap plan for nswap pivots (k_gauss_ops swap_plan). */
#define K_GAUSS_PLAN_INTS(nswap) (6 * (int64_t)(nswap) + 4)

/* The table of this backend.  Local. */
const k_gauss_ops *k_gauss_ops_get(const k_backend *be);

/* Implementations (host always, CUDA when compiled in). */
extern const k_gauss_ops k_gauss_host_ops;
extern const k_gauss_ops k_gauss_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif
