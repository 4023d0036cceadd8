/* k_vec.h - vector operations on a backend's device vectors, for every workload (spai's
 * BiCGSTAB, gauss's refinement, gemm / sort / conv): a gather by index, the fused update
 * z = a x + b y + c z, up to K_VEC_MAXDOTS dot products in one pass, and optionally the update
 * and the dots of the updated vectors in the same pass.
 *
 * A k_vec is one user's handle on these operations: the backend, its table, and the
 * backend-private scratch of the reductions (CUDA: block partials, a last-block counter, the
 * results in mapped pinned memory, bcgs_prepare's solve copy; host: that copy only, NULL
 * without it).  Whoever needs vector operations opens a k_vec
 * (k_vec_open), keeps it in its own state, and closes it; nothing is held at file scope, so two
 * users (or two backends) never share scratch.
 *
 * Vectors are "device" pointers of the backend (host memory on the host backend), of n doubles.
 * Results of dots are local sums (no MPI here), returned in host memory; the caller reduces
 * them over its ranks.  Summation orders are fixed (they depend on n only): the host sums each
 * product in blocks of 1024 terms, in order, then the block sums in order; CUDA sums per block
 * and thread in a fixed pattern, finished by the last block.  Both are bitwise reproducible run
 * to run.  Every function returns HY_OK or a recorded error code (CUDA failures: HY_ESYS with
 * the CUDA error and file:line); all are local to the calling rank. */
#ifndef HY_K_VEC_H
#define HY_K_VEC_H

#include <stdint.h>
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of dot products in one pass. */
#define K_VEC_MAXDOTS 4

typedef struct k_vec_ops k_vec_ops;

/* A CSR matrix of the backend as its own arrays (backend memory): rows, the row offsets (the
 * backend's width: rp32 on CUDA, rp64 on the host; the other NULL), column indices, values and
 * the threads per row of the backend's own SpMV (CUDA: mat_spmv_own's choice; host: 1).  Made
 * by k_spai_ops.mat_view; the matrix keeps the arrays. */
typedef struct {
  int64_t rows;
  const int32_t *rp32;
  const int64_t *rp64;
  const int32_t *colind;
  const double *val;
  int tpr;
  /* the solve format (bcgs_prepare, NULL: val / colind as they are): the values in FP32 (val
   * stays set: a matrix is present), the column offsets column - row in 16 bits */
  const float *valf;
  const int16_t *col16;
  /* bcgs_prepare with k_bcgs_fmt.sell (CUDA): the entries in slices of 32 rows, entry j of row
   * 32 s + l at sell[s] + 32 j + l (each slice padded to its longest row; the row's length from
   * rp32); colind / col16 / val / valf then point at entries in that order (NULL: CSR order) */
  const int32_t *sell;
  /* bcgs_prepare with k_bcgs_fmt.dia (CUDA): the entries by diagonals, ndiag of them at the
   * column offsets dia_off[0..ndiag) (column - row, ascending; backend memory), the entry of row
   * i on diagonal d at val[d dl + i], dl = rows rounded up to 32 (valf: FP32), 0 where row i has
   * none there; rp32, colind and col16 are then not read by the products */
  const int32_t *dia_off;
  int ndiag;
} k_csr_view;

/* The most diagonals of a matrix that bcgs_prepare stores by diagonals (k_bcgs_fmt.dia), and
 * the largest ratio of stored values (diagonals x rows) to entries: past 1.5 the values of the
 * padded diagonals outweigh the 32-bit columns they save. */
#define K_DIA_MAX 64
#define K_DIA_FILL 1.5

/* What bcgs_prepare is asked for (in) and what it did (out). */
typedef struct {
  int m_single;       /* in: M's values in FP32 (the products' sums in FP64) */
  int index16;        /* in: 16-bit column offsets (column - row) where every entry of A and M
                       * fits in [-32768, 32767] (else 32-bit columns: index16_used = 0) */
  int l2;             /* in (CUDA): the L2 persisting window over the solve copy of K_L2_A: A's
                       * columns and values, K_L2_M: M's, K_L2_ALL: both (0: none); K_L2_STREAM:
                       * all of it as streaming (evict-first) lines, no set-aside, so that the
                       * vectors stay in L2 while the matrices pass through */
  int fused;          /* in: the iterations run as bcgs_fused, not bcgs_batch */
  int sell;           /* in (CUDA): the entries of A and M in slices of 32 rows (k_csr_view.sell)
                       * for bcgs_batch's products at one thread a row (the rows' sums as 1 thread
                       * per row in CSR order) */
  int sell_used;      /* out: made */
  int dia;            /* in (CUDA): A and M by diagonals (k_csr_view.dia_off) for bcgs_batch's
                       * classic kernel (not split, merged, prefetch, rows 2, sell, fused) where
                       * both have at most K_DIA_MAX diagonals and at most K_DIA_FILL x their
                       * entries as stored values; the products one thread a row, the row's
                       * diagonals in ascending order: the rows' sums of 1 thread a row in CSR
                       * order for rows with ascending columns (no columns: index16 unused) */
  int dia_used;       /* out: made */
  int dia_a, dia_m;   /* out (dia asked): the diagonals of A and M (0: more than K_DIA_MAX) */
  double dia_fill;    /* out (dia asked): the larger of the two matrices' stored values /
                       * entries (0: not counted) */
  char dia_why[96];   /* out: why not by diagonals where asked ("": made, or not asked) */
  double l2_mb;       /* in (CUDA, l2 a|m|all): the window at most this many MB (0: the part's
                       * whole size, capped by the device's largest window; < 0: the set-aside
                       * it got, so that the window's hit ratio is 1: the part that fits) */
  int l2_auto;        /* in (CUDA, l2 none): where A and M are made by diagonals, their part at
                       * most 1.5 x the device's largest set-aside, 10 vectors of n entries fit
                       * in the rest of the L2 and M's values are FP64, the window over both
                       * (l2 = K_L2_ALL, written back; sized by l2_mb); elsewhere none (l2_why
                       * says why) */
  char l2_why[96];    /* out (l2_auto): why no window ("": made, or not by diagonals) */
  char why[112];      /* out: why the format (m_single, index16) was not made for this variant
                       * of the iterations ("" : made, or not asked); the window may still be */
  int m_single_used;  /* out: M's values are FP32 */
  int index16_used;   /* out: the offsets are 16-bit */
  int64_t max_offset; /* out (index16): the largest |column - row| of A and M */
  double l2_window;   /* out: bytes of the window (0: none) */
  double l2_setaside; /* out: bytes of L2 set aside for persisting lines */
  double l2_hit;      /* out: the window's hit ratio (set-aside / window, at most 1) */
} k_bcgs_fmt;
enum { K_L2_NONE, K_L2_A, K_L2_M, K_L2_ALL, K_L2_STREAM };

/* The system of one BiCGSTAB device loop for bcgs_batch: A, the preconditioner M as a matrix
 * (m.val NULL: none, then ph == p and sh == s), and the solver's vectors of n entries (x the
 * iterate; p2 a second p: with M, iteration k writes p into (k odd ? p2 : p) while it reads the
 * previous one from the other, so that the product M p can form p as it loads it). */
typedef struct {
  int64_t n;
  k_csr_view a, m;
  double *r, *rh, *p, *p2, *v, *ph, *s, *sh, *t, *x;
  int split;        /* bcgs_batch: 1 = p and s updated in phases of their own before plain
                     * products (two grid syncs more per iteration), the same values */
  int merged;       /* bcgs_batch: 1 = the merged iteration (k_vec_bcgs.h K_BSTEP_*_M; krylov.h
                     * krylov_params.merged): x and r of an iteration updated in the next one's
                     * first phase (with M: as M's product forms p), (r, r) summed with (rhat,
                     * v), rho from the omega pass's dots; 4 grid syncs per iteration with M, 3
                     * without, and one pass at the batch's end (not with split) */
  int unroll;       /* bcgs_batch on CUDA: column indices and values of a row loaded 1, 4 or 8
                     * per lane at once before their products (0: 1; the same sums, in order) */
  int blocks;       /* bcgs_batch on CUDA: blocks per SM its registers allow, 2 or 3 (0: 3) */
  int rows;         /* bcgs_batch on CUDA: rows of a lane group in flight at once in a product,
                     * 1 or 2 (0: 1; 2 with unroll 4 or 8, 2 blocks, the classic iteration; the same
                     * sums in the same order) */
  int prefetch;     /* bcgs_batch on CUDA: 1 = a product's next chunk of a lane's entries (the
                     * row's next unroll x tpr entries, or the next grid-stride row's first) and
                     * the row offsets after it loaded while the current chunk's vector entries
                     * are gathered (unroll 4 or 8, 2 or 3 blocks, the classic iteration; the
                     * same sums in the same order) */
  int64_t *times;   /* NULL, or K_PH_SLOTS zeroed slots of backend memory where bcgs_batch adds
                     * what each phase of its iterations took (K_PH_*): the clock ticks of one
                     * block (CUDA: block 0's clock64 at each phase end, the grid syncs included;
                     * host: ns) in [0, K_PH_N), ns in [K_PH_N, 2 K_PH_N), the iterations timed
                     * in [2 K_PH_N] */
} k_bcgs_sys;

/* The phases of a bcgs_batch iteration as sys->times counts them (a phase a variant does not
 * have stays 0): p's update of its own (no M, or split), ph = M p (p formed in its load unless
 * split; the iteration's first scalar step with it), v = A ph with (rhat, v), alpha's
 * reduction and step, s's update of its own (split), sh = M s, t = A sh (or A s) with (t, s),
 * (t, t), (s, s), omega's reduction and step, x and r with (rhat, r), (r, r), rho's reduction and
 * step. */
enum { K_PH_P, K_PH_MP, K_PH_AP, K_PH_ALPHA, K_PH_S, K_PH_MS, K_PH_AS, K_PH_OMEGA, K_PH_XR,
       K_PH_RHO, K_PH_N };
#define K_PH_SLOTS (2 * K_PH_N + 1)

/* One user's vector-operation handle. */
typedef struct {
  k_backend *be;
  const k_vec_ops *ops;
  void *impl;                 /* backend-private scratch (host: NULL but for bcgs_prepare's copy) */
} k_vec;

struct k_vec_ops {
  /* Allocate / release v->impl (called by k_vec_open / k_vec_close). */
  int (*open)(k_vec *v);
  int (*close)(k_vec *v);
  /* buf[i] = x[idx[i]] for i < n (idx: a device array of int32 indices into x). */
  int (*gather)(k_vec *v, int64_t n, const int32_t *idx, const double *x, double *buf);
  /* z = a x + b y + c z on n entries (c == 0: z is not read, so it may be uninitialised). */
  int (*axpbypcz)(k_vec *v, int64_t n, double a, const double *x, double b, const double *y,
                  double c, double *z);
  /* out[p] = sum_i x[p][i] y[p][i] for p < npair (1..K_VEC_MAXDOTS); local sums, on the host. */
  int (*dots)(k_vec *v, int64_t n, int npair, const double *const *x, const double *const *y,
              double *out);
  /* Optional (NULL: axpbypcz, then dots): z = a x + b y + c z, then out[p] = sum_i dx[p][i]
   * dy[p][i] of the updated vectors (dx / dy may name z) for p < npair, in one pass over the
   * data; the same values as the two separate calls (bit for bit on the host; on CUDA the same
   * summation order).  Local sums, on the host. */
  int (*axpbypcz_dots)(k_vec *v, int64_t n, double a, const double *x, double b,
                       const double *y, double c, double *z, int npair, const double *const *dx,
                       const double *const *dy, double *out);
  /* Optional, all four or none (NULL: not offered): the same operations with their scalars
   * in a block sc of backend memory (k_vec_bcgs.h's slots), queued without waiting for the
   * host.  Each does nothing while sc[gate] == 0.  axpbypcz_s: z = sc[ia] x + sc[ib] y + sc[ic] z
   * (sc[ic] == 0: z not read), and (step >= 0) the scalar step k_bcgs_step(sc, step, tol) in
   * the same launch, whatever the gate: the update must not read what the step writes except
   * the gate (host: the step runs first; CUDA: concurrently, so a block may see the gate before
   * or after it: used where the step can only clear the gate, on a breakdown, and the updated
   * vector then no longer matters); dots_s: sc[slot + p] = the local dots, then (step >= 0) the
   * scalar step k_bcgs_step(sc, step, tol) in the same launch, whatever the gate (gate =
   * K_BS_RUN: the step's own test); axpbypcz_dots_s: both in one pass, as axpbypcz_dots, then
   * the step the same way; bcgs_step: one scalar step of BiCGSTAB (k_bcgs_step) on sc;
   * s_read: h[0..n) = sc[0..n) (n <= K_VEC_READMAX) once the queued work is done (CUDA: one
   * kernel copies them into mapped pinned memory, one stream synchronisation). */
  int (*axpbypcz_s)(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                    const double *x, const double *y, double *z, int step, double tol);
  int (*dots_s)(k_vec *v, int64_t n, int npair, const double *const *x,
                const double *const *y, double *sc, int slot, int gate, int step, double tol);
  int (*axpbypcz_dots_s)(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                         const double *x, const double *y, double *z, int npair,
                         const double *const *dx, const double *const *dy, int slot, int step,
                         double tol);
  int (*bcgs_step)(k_vec *v, double *sc, int step, double tol);
  int (*s_read)(k_vec *v, const double *sc, double *h, int n);
  /* Optional, all three or none (NULL: work runs as it is queued): rec_create records the
   * work fn(arg) queues on this backend as one batch without running it (CUDA: a graph
   * captured from the backend's stream, instantiated once; host: fn and arg kept); rec_run
   * runs the batch, queued like one operation (CUDA: one graph launch, the same kernels with
   * the same arguments and pointers every time; host: fn(arg) again, so arg must stay as it
   * was); rec_free releases it.  A failure inside fn is returned (the capture ended). */
  int (*rec_create)(k_vec *v, int (*fn)(void *arg), void *arg, void **rec);
  int (*rec_run)(k_vec *v, void *rec);
  int (*rec_free)(k_vec *v, void *rec);
  /* Optional (NULL: not offered): up to niter iterations of BiCGSTAB's device loop on sys with
   * the scalars in sc (k_vec_bcgs.h: the same steps, gates and results as the *_s forms queued
   * by app/krylov/bicgstab.c), stopping after the iteration that stops (no work past it), queued
   * as one operation.  CUDA: one cooperative launch of a persistent kernel (a grid of SMs x
   * occupancy blocks, grid syncs between the phases: with M, ph = M p (p formed in the load),
   * v = A ph with (rhat, v), sh = M s (s = r - alpha v formed in the load), t = A sh with (t, s),
   * (t, t), (s, s), then x and r with (rhat, r), (r, r): 5 grid syncs per iteration, 4 without M;
   * every block reduces the block partials itself in a fixed order and runs the scalar step on
   * its own copy of sc); host: the same phases in C, the host loop's values bit for bit.  A
   * failure to launch: HY_ESYS with the CUDA error. */
  int (*bcgs_batch)(k_vec *v, const k_bcgs_sys *sys, double *sc, int niter, double tol);
  /* Optional (NULL: not offered): the same iterations as bcgs_batch, queued as ordinary work
   * that rec_create can record (CUDA: per iteration the persistent kernel's phases as 5 fused
   * kernels with M, 4 without, on its grid, so the values are bcgs_batch's bit for bit; the
   * last block of a kernel sums its dots and runs the scalar step; a stopped iteration's
   * kernels return at once); host: bcgs_batch's C phases. */
  int (*bcgs_fused)(k_vec *v, const k_bcgs_sys *sys, double *sc, int niter, double tol);
  /* Optional, both or none (NULL: bcgs_batch on the arrays as they are): bcgs_prepare makes
   * the solve copy of sys->a and sys->m (m.val NULL: none) that f asks for, in one allocation
   * of the backend kept in v until bcgs_release: columns as 16-bit offsets column - row where
   * all fit (f->index16), M's values in FP32 (f->m_single), and points sys->a and sys->m at it
   * (valf / col16; CUDA: colind and val at the copy's 32-bit / FP64 arrays otherwise; host:
   * the matrices' own), for sys's variant (split, merged, unroll, blocks; f->fused) where the
   * backend runs the format with it (else f->why says why); CUDA: with f->l2 the
   * persisting L2 set-aside (cudaLimitPersistingL2CacheSize, up to the device's maximum) and
   * an access policy window over the chosen part of the copy for bcgs_batch's launches and the
   * stream (hit ratio scaled to the set-aside); f's out fields filled.  bcgs_batch then runs
   * the products in that format (FP32 values promoted exactly, the same FP64 sums; 16-bit
   * offsets: the same columns, bit for bit the 32-bit run).  bcgs_release frees the copy and
   * resets the window, the set-aside (to its value before) and the persisting lines.  Nothing
   * to change (no format made, no window): no copy, the views as they were.  Local. */
  int (*bcgs_prepare)(k_vec *v, k_bcgs_sys *sys, k_bcgs_fmt *f);
  int (*bcgs_release)(k_vec *v);
};

/* The most slots s_read reads at once. */
#define K_VEC_READMAX 32

/* Open a handle on be's vector operations (be must stay open while v is).  Local. */
int k_vec_open(k_backend *be, k_vec *v);
/* Release it (a zeroed or already closed v is fine).  Local. */
int k_vec_close(k_vec *v);

/* The tables (the CUDA one only when compiled in). */
extern const k_vec_ops k_vec_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_vec_ops k_vec_cuda_ops;
#endif

#ifdef __cplusplus
}
#endif
#endif
