/* gauss_panel_cuda.cu - the fused base block of the blocked LU's recursive panel on the CUDA
 * backend (gauss.panel = fused): the LU with partial pivoting of an m x bw block (bw <= 32) in
 * one cooperative launch.  The rows are split into G chunks, one per thread block, each chunk
 * held in shared memory for the whole factorization; per column every block publishes its
 * largest |a_ij| (the lowest row on ties) with that row's values (and the block that holds row j
 * its row j), then every block picks the winner, swaps the two rows in its own chunk, scales the
 * column and applies the rank-1 update to its rows.  How the blocks learn that every candidate of
 * a column is published (gauss.panel_sync): `flags` (the default) - every slot (a candidate's
 * key, its row index, its row's values, row j) is its own flag, polled by every block until it
 * is written, one slot per column (nothing is overwritten within a launch; the slots cleared
 * after one grid barrier at the end), no fence; one block
 * alone (G = 1) without any global traffic; `grid` - one grid-wide barrier per column, then the
 * candidates read.  A column of one base block costs ~4-5 us with flags on the H200 (session 16:
 * 4.1 us at 1024 rows in 2 blocks, 5.1 us at 65536 in 82; grid 0.5 us more): by the kernel's
 * clocks (session 17) about half warp 0's pick (two trips through L2) and half the update of the
 * chunk in shared memory.  Two kernels (gauss.panel_kernel): panel_base_k holds a chunk of rows a
 * block in shared memory; panel_reg_k (flags only) a row a thread in registers, 512 rows a block,
 * 3.3-3.9 us a column up to 32768 rows (0.76-0.81x of panel_base_k's).  cuSOLVER's getrf takes
 * 2-4 us a column of a short panel, which is why the panels of at most 8192 rows go to it
 * (gauss.panel_vendor_short).  Used through gauss_cuda_panel_base (gauss_panel_cuda.h). */
#include "k_cuda.h"
#include "gauss_panel_cuda.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* The base block's threads per thread block: PB_THREADS (1024, the default since session 16: a
 * chunk's ~800 FP64 rows one a thread, 5-7% faster panels than at 512 on the H200 from 2048 rows,
 * test_gauss_trsm_gpu --panel), or 512 (k_gauss_ops aux_ctl K_GAUSS_AUX_PBTHREADS). */
#define PB_THREADS 1024
#define PB_BWMAX 32

/* |x| as an ordered key: the bits of |x| as a double plus one, so that a larger |x| has a larger
 * key; 0 (no row) for NaN, which never wins a pivot search (as `v > best` never holds for it).
 * Device. */
typedef unsigned long long pb_u64;

__device__ __forceinline__ pb_u64 pb_key(double x) {
  double ax = fabs(x);
  return isnan(ax) ? 0ull : (pb_u64)__double_as_longlong(ax) + 1ull;
}

/* The warp's largest key and, among its lanes holding it, the smallest row (every lane gets
 * both): three warp reductions (REDUX).  idx: 0xffffffff where no row.  Device. */
__device__ __forceinline__ void pb_warp_best(pb_u64 &key, unsigned &idx) {
  const unsigned h = (unsigned)(key >> 32), l = (unsigned)key;
  const unsigned mh = __reduce_max_sync(0xffffffffu, h);
  const unsigned ml = __reduce_max_sync(0xffffffffu, h == mh ? l : 0u);
  idx = __reduce_min_sync(0xffffffffu, (h == mh && l == ml) ? idx : 0xffffffffu);
  key = ((pb_u64)mh << 32) | ml;
}

/* a * b + c rounded once (the rank-1 update's s - l u as one FMA).  Device. */
__device__ __forceinline__ float pb_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double pb_fma(double a, double b, double c) { return fma(a, b, c); }

/* A candidate slot with no key yet (gauss.panel_sync = flags): larger than every key (a key is at
 * most the bits of +inf plus one).  The emulator (tests/gauss/emu) defines PB_SPIN as a yield. */
#define PB_NONE 0xffffffffffffffffull
#ifndef PB_SPIN
#define PB_SPIN() ((void)0)
#endif

/* The flags' scratch (gauss.panel_sync = flags) holds no fence: every slot - a key, a row index,
 * a value of a candidate row or of row j - is written once a launch and reads as all ones until
 * then (the scratch is all ones at its allocation, and each launch sets what it wrote back to all
 * ones after its last grid barrier), so a reader polls the slot it needs until it is not all ones,
 * whatever order the writes reach it in.  A value whose bits are all ones (a NaN) is written as
 * the NaN with every bit but the sign set.  Device. */
__device__ __forceinline__ unsigned long long pb_u(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ __forceinline__ unsigned pb_u(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned pb_u(int v) { return (unsigned)v; }
__device__ __forceinline__ void pb_v(unsigned long long x, double *v) { *v = __longlong_as_double((long long)x); }
__device__ __forceinline__ void pb_v(unsigned x, float *v) { *v = __uint_as_float(x); }
__device__ __forceinline__ void pb_v(unsigned x, int *v) { *v = (int)x; }

template <typename T> __device__ __forceinline__ void pb_put(T *p, T v) {
  auto x = pb_u(v);
  typedef decltype(x) U;
  if (x == (U)~(U)0) x = (U)(~(U)0 >> 1);
  *(volatile U *)p = x;
}
template <typename T> __device__ __forceinline__ void pb_clear(T *p) {
  typedef decltype(pb_u(*p)) U;
  *(volatile U *)p = (U)~(U)0;
}
template <typename T> __device__ __forceinline__ T pb_get(const T *p) {
  typedef decltype(pb_u(*p)) U;
  U x;
  while ((x = *(const volatile U *)p) == (U)~(U)0) PB_SPIN();
  T v;
  pb_v(x, &v);
  return v;
}

/* gauss.panel_sync = flags, by warp 0 of block b (rows [r0, r0 + nr)) once the block's best (bk,
 * bi) of column j is known, its row at cs and this block's row j (when it holds it) at js, both
 * with stride st (the shared-memory kernel: its chunk's rows, ld ls; the register kernel: the
 * warps' rows copied out): with other blocks (G > 1) the candidate published (its row, row j
 * where this block holds it, its row index, its key: no fence, each slot its own flag), every
 * block's key polled (a lane a block, ascending: the lowest block on ties), then the winner's row
 * into u, its index, and row j into rj, each polled; alone (G = 1) both from cs / js.  Returns
 * the pivot row (j: none, a NaN column).  Device (every lane of warp 0). */
template <typename T>
__device__ __forceinline__ int pb_flags_pick(const T *cs, const T *js, int st, int r0, int nr, int j, int bw, int b,
                                             int G, int gs, int lane, pb_u64 bk, unsigned bi, T *crow, pb_u64 *ck,
                                             int *cidx, T *rowj, T *u, T *rj) {
  int p;
  if (G == 1) {
    p = bk ? (int)bi : j;
    if (lane < bw) {
      u[lane] = (bk ? cs : js)[lane * st];
      rj[lane] = js[lane * st];
    }
    return p;
  }
  int hj = j >= r0 && j < r0 + nr;   /* this block holds row j */
  int64_t sl = (int64_t)j * gs + b;
  if (bk && lane < bw) pb_put(crow + sl * bw + lane, cs[lane * st]);
  if (hj && lane < bw) pb_put(rowj + j * bw + lane, js[lane * st]);
  if (bk && lane == 0) pb_put(cidx + sl, (int)bi);
  /* the key last (no key is all ones: at most the bits of +inf plus one) */
  if (lane == 0) *(volatile pb_u64 *)(ck + sl) = bk;
  pb_u64 wkey = 0;
  unsigned wg = 0xffffffffu;
  for (int g = lane; g < G; g += 32) {
    const volatile pb_u64 *q = (const volatile pb_u64 *)(ck + (int64_t)j * gs + g);
    pb_u64 k;
    while ((k = *q) == PB_NONE) PB_SPIN();
    if (k > wkey) { wkey = k; wg = (unsigned)g; }
  }
  pb_warp_best(wkey, wg);
  if (lane < bw) rj[lane] = pb_get(rowj + j * bw + lane);
  if (wkey) {
    int64_t ws = (int64_t)j * gs + wg;
    if (lane < bw) u[lane] = pb_get(crow + ws * bw + lane);
    p = pb_get(cidx + ws);
  } else {   /* none (NaN column): no swap */
    if (lane < bw) u[lane] = rj[lane];
    p = j;
  }
  return p;
}

/* Column j's swap, scale and rank-1 update of this thread's rows of the chunk (rows [r0, r0 + nr)
 * in s, ld ls; p the pivot row, u its values, rj row j's old values), and this thread's candidate
 * for column j + 1 in (bk, bi): its largest key among its rows below j (the lowest on ties).  See
 * panel_base_k.  Device. */
template <typename T>
__device__ __forceinline__ void pb_update(T *s, int ls, int r0, int nr, int j, int bw, int p, const T *u, const T *rj,
                                          pb_u64 &bk, unsigned &bi) {
  T pv = u[j];
  bk = 0;
  bi = 0xffffffffu;
  for (int i = threadIdx.x; i < nr; i += blockDim.x) {
    int gi = r0 + i;
    if (gi < j) continue;
    if (gi == j) {
      if (p != j)
        for (int c = 0; c < bw; c++) s[i + c * ls] = u[c];
      continue;
    }
    int mv = gi == p;   /* this row gets row j's old content */
    if (mv)
      for (int c = 0; c < j; c++) s[i + c * ls] = rj[c];
    T l = mv ? rj[j] : s[i + j * ls];
    if (pv != (T)0) l = l / pv;
    s[i + j * ls] = l;
    /* column j + 1 first: its new value is the row's key for the next column */
    pb_u64 nk = 0;
    if (j + 1 < bw) {
      T y = pb_fma(-l, u[j + 1], mv ? rj[j + 1] : s[i + (j + 1) * ls]);
      s[i + (j + 1) * ls] = y;
      nk = pb_key((double)y);
    }
    int c = j + 2;
    if (mv) {
      for (; c < bw; c++) s[i + c * ls] = pb_fma(-l, u[c], rj[c]);
    } else {
      /* four entries loaded before their FMAs and stores (the compiler may not move a load of s
       * above a store to s) */
      T *row = s + i;
      for (; c + 3 < bw; c += 4) {
        T x0 = row[c * ls], x1 = row[(c + 1) * ls], x2 = row[(c + 2) * ls], x3 = row[(c + 3) * ls];
        T u0 = u[c], u1 = u[c + 1], u2 = u[c + 2], u3 = u[c + 3];
        row[c * ls] = pb_fma(-l, u0, x0);
        row[(c + 1) * ls] = pb_fma(-l, u1, x1);
        row[(c + 2) * ls] = pb_fma(-l, u2, x2);
        row[(c + 3) * ls] = pb_fma(-l, u3, x3);
      }
      for (; c < bw; c++) row[c * ls] = pb_fma(-l, u[c], row[c * ls]);
    }
    if (nk > bk) { bk = nk; bi = (unsigned)gi; }
  }
}

/* gauss.panel_sync = flags, after the launch's last grid barrier (every block has read every
 * column's slots): block b's slots of the nj columns - its candidate rows, indices and keys, and
 * row j where it holds it (rows [r0, r0 + nr)) - set back to all ones for the next launch.  Device
 * (every thread of the block). */
template <typename T>
__device__ __forceinline__ void pb_clear_slots(int nj, int bw, int b, int gs, int r0, int nr, T *crow, pb_u64 *ck,
                                               int *cidx, T *rowj) {
  for (int t = threadIdx.x; t < nj * bw; t += blockDim.x) {
    int j = t / bw, c = t % bw;
    int64_t sl = (int64_t)j * gs + b;
    pb_clear(crow + sl * bw + c);
    if (j >= r0 && j < r0 + nr) pb_clear(rowj + j * bw + c);
    if (c == 0) {
      pb_clear(cidx + sl);
      *(volatile pb_u64 *)(ck + sl) = PB_NONE;
    }
  }
}

/* test_gauss_trsm_gpu --panel's clocks (gauss_cuda_pb_clk; the kernel's CLK instantiation,
 * never the factorization's): thread 0 of the first and of the last block records its SM clock
 * at PB_CLK_* marks, PB_CLK_SLOTS a block.  Device. */
#define PB_CLK_SLOTS GAUSS_PB_CLK_SLOTS
enum { PB_CLK_START = 0, PB_CLK_GT0 = 1, PB_CLK_LOADED = 2, PB_CLK_STORED = 3, PB_CLK_END = 4, PB_CLK_GT1 = 5,
       PB_CLK_COL = 8 /* + 5 j + 0 column start, 1 picked, 2 barrier, 3 own update, 4 barrier */ };
__device__ __forceinline__ long long pb_clock() {
#ifdef __CUDA_ARCH__
  return (long long)clock64();
#else
  return 0;
#endif
}
__device__ __forceinline__ long long pb_gtime() {
#ifdef __CUDA_ARCH__
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return (long long)t;
#else
  return 0;
#endif
}
#define PB_REC(slot, v) \
  ((CLK && threadIdx.x == 0 && (b == 0 || b == G - 1)) ? (void)(clk[(b == 0 ? 0 : PB_CLK_SLOTS) + (slot)] = (v)) : (void)0)

/* The fused base block: a (ld lda) m x bw, block b holds rows [b rpb, b rpb + nr) in s (ld
 * rpb | 1: odd, so that a row's bw values - read and written across the columns by the
 * candidate rows, the swap and the pivot row - fall in distinct shared-memory banks);
 * piv[j] = poff + the pivot row of column j (0-based from a's top).  Scratch (global): crow
 * (candidate rows, bw values each), cval / cidx (candidates: the key of |a_ij| in cval's 8 bytes,
 * its row), rowj (row j, bw values), per column:
 *   FL = false (gauss.panel_sync = grid): two sets by the column's parity (slot par G + b), so
 *   that a block that runs ahead never overwrites what a slower one still reads (between its
 *   write of column j + 2 and a slow block's read of column j lies the grid barrier of column
 *   j + 1).  Per column two block barriers and the grid barrier: each warp's best row of the
 *   column (found in the update of column j - 1, below) is in shared memory; warp 0 the block's
 *   best and publishes it with its row (warp 1 row j, in the block holding it); the grid barrier (cooperative groups' grid sync orders the writes before it for
 *   every block after it: no extra fence); warp 0 picks the winner over the G candidates and
 *   reads its row while warp 1 reads row j, one block barrier.
 *   FL = true (flags): one set per column (slot j gs + b, gs >= G; rowj j bw), every slot all
 *   ones at the launch (the scratch starts so; each launch leaves it so).  Warp 0 writes the
 *   block's candidate row (and row j in the block holding it), its row index and its key, no
 *   fence between them: each slot is its own flag (pb_put / pb_get).  Then it polls the column's
 *   G keys (a lane a block) until none is PB_NONE and takes the winner - the largest key, the
 *   lowest block on ties, which is the lowest row as each block's candidate is its own lowest -
 *   polling its row, its index and row j, which are there in the same trip or soon after.  No
 *   grid barrier per column: a block goes on as soon as it has every candidate, and nothing it
 *   writes later is read for an earlier column.  After the last column one grid barrier, then
 *   each block sets the slots it wrote back to all ones.  G = 1: the winner and the rows from
 *   shared memory, nothing published.  (Until session 16 the key followed a fence, and the
 *   reads another: two fences a column.)
 * Then each thread's rows at once swapped, scaled and updated (the pivot row written at row j,
 * row j's old content at the winner's row - scaled and updated there - every other row below j
 * scaled and updated in place: the same arithmetic as the swap first, then the update, one FMA
 * an entry; a row's entries loaded 16 at a time before their FMAs were 12% slower on the H200,
 * session 16: the update is bound by the instructions issued, not by the loads' latency), and
 * while a row's column j + 1 is updated its key is taken: the thread's candidate for column j + 1 (the lowest
 * row on ties), each warp's best by warp reductions of keys (the lowest row among the largest
 * |a_ij|) into shared memory, one block barrier, which is also the next column's start.  So a
 * column costs two block barriers (three before session 16: a separate pass of the pivot search
 * and its barrier) and no read of column j + 1 besides the update's.  Device (cooperative
 * launch). */
template <typename T, bool FL, int NT, bool CLK = false>
__global__ void __launch_bounds__(NT, 1) panel_base_k(T *a, int64_t lda, int m, int bw, int rpb,
                                                           int *piv, int poff, T *crow, double *cval,
                                                           int *cidx, T *rowj, int gs, long long *clk) {
  extern __shared__ double pb_sh[];
  T *s = (T *)pb_sh;
  __shared__ pb_u64 wk[NT / 32];
  __shared__ unsigned wi[NT / 32];
  __shared__ T u[PB_BWMAX];
  __shared__ T rj[PB_BWMAX];
  __shared__ int pj[1];
  cg::grid_group grid = cg::this_grid();
  int b = blockIdx.x, G = gridDim.x, ls = rpb | 1, lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  int nw = blockDim.x >> 5;
  int r0 = b * rpb, nr = m - r0 < rpb ? m - r0 : rpb;
  pb_u64 *ck = (pb_u64 *)cval;
  PB_REC(PB_CLK_START, pb_clock()), PB_REC(PB_CLK_GT0, pb_gtime());
  for (int t = threadIdx.x; t < nr * bw; t += blockDim.x) {
    int i = t % nr, c = t / nr;
    s[i + c * ls] = a[(int64_t)(r0 + i) + c * lda];
  }
  __syncthreads();
  int nj = m < bw ? m : bw;
  /* column 0's candidates: this thread's largest |a_i0| (the lowest row on ties); the later
   * columns' are found in the update of the column before */
  pb_u64 bk = 0;
  unsigned bi = 0xffffffffu;
  for (int i = threadIdx.x; i < nr; i += blockDim.x) {
    pb_u64 k = pb_key((double)s[i]);
    if (k > bk) { bk = k; bi = (unsigned)(r0 + i); }
  }
  pb_warp_best(bk, bi);
  if (lane == 0) { wk[wid] = bk; wi[wid] = bi; }
  __syncthreads();
  PB_REC(PB_CLK_LOADED, pb_clock());
  for (int j = 0; j < nj; j++) {
    int par = j & 1;
    PB_REC(PB_CLK_COL + 5 * j, pb_clock());
    if (FL) {
      if (wid == 0) {
        /* the block's best over its warps */
        bk = lane < nw ? wk[lane] : 0ull;
        bi = lane < nw ? wi[lane] : 0xffffffffu;
        pb_warp_best(bk, bi);
        const T *cs = bk ? s + ((int)bi - r0) : s, *js = s + (j - r0);
        int p = pb_flags_pick<T>(cs, js, ls, r0, nr, j, bw, b, G, gs, lane, bk, bi, crow, ck, cidx, rowj, u, rj);
        if (lane == 0) {
          pj[0] = p;
          if (b == 0) piv[j] = p + poff;
        }
      }
    } else {
      if (wid == 0) {
        /* the block's best over its warps, published with its row */
        bk = lane < nw ? wk[lane] : 0ull;
        bi = lane < nw ? wi[lane] : 0xffffffffu;
        pb_warp_best(bk, bi);
        if (lane == 0) {
          ck[par * G + b] = bk;
          cidx[par * G + b] = bk ? (int)bi : -1;
        }
        if (bk && lane < bw) crow[(int64_t)(par * G + b) * bw + lane] = s[((int)bi - r0) + lane * ls];
      } else if (wid == 1 && j >= r0 && j < r0 + nr && lane < bw) {
        rowj[par * bw + lane] = s[(j - r0) + lane * ls];
      }
      grid.sync();
      /* the winner over the blocks (every block the same) and its row, by warp 0; row j by warp 1 */
      if (wid == 0) {
        bk = 0;
        bi = 0xffffffffu;
        for (int g = lane; g < G; g += 32) {
          pb_u64 k = __ldcg(ck + par * G + g);
          int i = __ldcg(cidx + par * G + g);
          if (k > bk) { bk = k; bi = (unsigned)i; }
        }
        pb_warp_best(bk, bi);
        int p = bk ? (int)bi : j;   /* none (NaN column): no swap */
        if (lane < bw) u[lane] = bk ? __ldcg(crow + (int64_t)(par * G + p / rpb) * bw + lane) : __ldcg(rowj + par * bw + lane);
        if (lane == 0) {
          pj[0] = p;
          if (b == 0) piv[j] = p + poff;
        }
      } else if (wid == 1 && lane < bw) {
        rj[lane] = __ldcg(rowj + par * bw + lane);
      }
    }
    PB_REC(PB_CLK_COL + 5 * j + 1, pb_clock());
    __syncthreads();
    PB_REC(PB_CLK_COL + 5 * j + 2, pb_clock());
    /* swap, scale the column below the pivot, rank-1 update of the rest of the block's rows, and
     * this thread's candidate for column j + 1 (its rows below j, the lowest on ties) */
    pb_update<T>(s, ls, r0, nr, j, bw, pj[0], u, rj, bk, bi);
    if (j + 1 < nj) {
      pb_warp_best(bk, bi);
      if (lane == 0) { wk[wid] = bk; wi[wid] = bi; }
    }
    PB_REC(PB_CLK_COL + 5 * j + 3, pb_clock());
    __syncthreads();
    PB_REC(PB_CLK_COL + 5 * j + 4, pb_clock());
  }
  for (int t = threadIdx.x; t < nr * bw; t += blockDim.x) {
    int i = t % nr, c = t / nr;
    a[(int64_t)(r0 + i) + c * lda] = s[i + c * ls];
  }
  PB_REC(PB_CLK_STORED, pb_clock());
  if (FL && G > 1) {
    /* every block has read every column's slots: set this block's back for the next launch */
    grid.sync();
    pb_clear_slots<T>(nj, bw, b, gs, r0, nr, crow, ck, cidx, rowj);
  }
  PB_REC(PB_CLK_END, pb_clock()), PB_REC(PB_CLK_GT1, pb_gtime());
}

/* The register base block (gauss.panel = fused, flags; K_GAUSS_AUX_PBKIND): as panel_base_k, but
 * each thread holds one row of its block's chunk (rpb = the block's threads, PR_THREADS) in
 * PB_BWMAX registers for the whole factorization instead of shared memory, the column loop
 * unrolled so that every index into the row is a constant.  A column's update is then the row's
 * FMAs on registers (panel_base_k's loads and stores of shared memory, ~1.5-2 us of its ~4-5 us a
 * column on the H200 by its clocks, session 17, are gone); per column after the update each
 * warp's best candidate copies its row to shared memory (wrow, by the lane holding it) and the
 * thread holding row j + 1 its row (rjs), so that warp 0's pick (pb_flags_pick, as panel_base_k's)
 * reads them there.  The same arithmetic in the same order as panel_base_k (the swap's copies,
 * one division, one FMA an entry): the same pivots and factors bit for bit.  The registers beyond
 * bw hold zeros at the load and, after a swap, u's / rj's unwritten slots: they are updated with
 * the rest but never keyed or stored.  Flags only (any G; G = 1 without global traffic).  Device
 * (cooperative launch). */
#define PR_THREADS 512

/* After column j's update (jn = j + 1, the next column; jn = 0 after the load: column 0): the
 * warp's best (key bk, row bi) of column jn into wk / wi, its row into wrow (by the lane holding
 * it), row jn into rjs (by its thread).  Device (every thread of the block). */
template <typename T>
__device__ __forceinline__ void pr_out(const T *r, int gi, int lane, int wid, int jn, pb_u64 bk, unsigned bi,
                                       pb_u64 *wk, unsigned *wi, T *wrow, T *rjs) {
  pb_warp_best(bk, bi);
  /* (all PB_BWMAX registers: those beyond bw are never read) */
  if (bk && bi == (unsigned)gi) {
#pragma unroll
    for (int c = 0; c < PB_BWMAX; c++) wrow[wid * PB_BWMAX + c] = r[c];
  }
  if (gi == jn) {
#pragma unroll
    for (int c = 0; c < PB_BWMAX; c++) rjs[c] = r[c];
  }
  if (lane == 0) { wk[wid] = bk; wi[wid] = bi; }
}

/* Warp 0's pick of column j for panel_reg_k (not inlined: its code once, not in each of the
 * unrolled columns).  Device (every lane of warp 0). */
template <typename T>
__device__ __noinline__ int pr_pick(const T *wrow, const T *rjs, int r0, int nr, int j, int bw, int b, int G, int gs,
                                    int lane, int nw, const pb_u64 *wk, const unsigned *wi, T *crow, pb_u64 *ck,
                                    int *cidx, T *rowj, T *u, T *rj) {
  pb_u64 bk = lane < nw ? wk[lane] : 0ull;
  unsigned bi = lane < nw ? wi[lane] : 0xffffffffu;
  pb_warp_best(bk, bi);
  const T *cs = wrow + (bk ? (((int)bi - r0) >> 5) * PB_BWMAX : 0);
  return pb_flags_pick<T>(cs, rjs, 1, r0, nr, j, bw, b, G, gs, lane, bk, bi, crow, ck, cidx, rowj, u, rj);
}

template <typename T, int NT>
__global__ void __launch_bounds__(NT, 1) panel_reg_k(T *a, int64_t lda, int m, int bw, int rpb, int *piv, int poff,
                                                     T *crow, double *cval, int *cidx, T *rowj, int gs) {
  __shared__ pb_u64 wk[NT / 32];
  __shared__ unsigned wi[NT / 32];
  __shared__ T wrow[(NT / 32) * PB_BWMAX];
  __shared__ T rjs[PB_BWMAX];
  __shared__ T u[PB_BWMAX];
  __shared__ T rj[PB_BWMAX];
  __shared__ int pj[1];
  cg::grid_group grid = cg::this_grid();
  int b = blockIdx.x, G = gridDim.x, lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  int r0 = b * rpb, nr = m - r0 < rpb ? m - r0 : rpb;
  int gi = r0 + (int)threadIdx.x, have = (int)threadIdx.x < nr;
  pb_u64 *ck = (pb_u64 *)cval;
  T r[PB_BWMAX];
#pragma unroll
  for (int c = 0; c < PB_BWMAX; c++) r[c] = have && c < bw ? a[(int64_t)gi + c * lda] : (T)0;
  int nj = m < bw ? m : bw;
  pb_u64 bk = have ? pb_key((double)r[0]) : 0ull;
  unsigned bi = bk ? (unsigned)gi : 0xffffffffu;
  pr_out<T>(r, gi, lane, wid, 0, bk, bi, wk, wi, wrow, rjs);
  __syncthreads();
#pragma unroll
  for (int j = 0; j < PB_BWMAX; j++) {
    if (j >= nj) break;
    if (wid == 0) {
      /* the block's best over its warps (its row in wrow: warp (bi - r0) / 32), the winner */
      int p = pr_pick<T>(wrow, rjs, r0, nr, j, bw, b, G, gs, lane, nw, wk, wi, crow, ck, cidx, rowj, u, rj);
      if (lane == 0) {
        pj[0] = p;
        if (b == 0) piv[j] = p + poff;
      }
    }
    __syncthreads();
    int p = pj[0];
    bk = 0;
    bi = 0xffffffffu;
    if (have && gi == j) {
      if (p != j) {
#pragma unroll
        for (int c = 0; c < PB_BWMAX; c++) r[c] = u[c];
      }
    } else if (have && gi > j) {
      if (gi == p) {
#pragma unroll
        for (int c = 0; c < PB_BWMAX; c++) r[c] = rj[c];
      }
      T pv = u[j], l = r[j];
      if (pv != (T)0) l = l / pv;
      r[j] = l;
#pragma unroll
      for (int c = j + 1; c < PB_BWMAX; c++) r[c] = pb_fma(-l, u[c], r[c]);
      if (j + 1 < nj) {
        bk = pb_key((double)r[j + 1]);
        if (bk) bi = (unsigned)gi;
      }
    }
    if (j + 1 < nj) pr_out<T>(r, gi, lane, wid, j + 1, bk, bi, wk, wi, wrow, rjs);
    __syncthreads();
  }
#pragma unroll
  for (int c = 0; c < PB_BWMAX; c++)
    if (have && c < bw) a[(int64_t)gi + c * lda] = r[c];
  if (G > 1) {
    /* every block has read every column's slots: set this block's back for the next launch */
    grid.sync();
    pb_clear_slots<T>(nj, bw, b, gs, r0, nr, crow, ck, cidx, rowj);
  }
}

/* gauss_cuda_pb_clk's device buffer (NULL: the clocks off, the factorization's kernels). */
static long long *pb_clk_dev;

/* Launch the fused base block when it fits (see gauss_panel_cuda.h).  Local. */
template <typename T, bool FL, int NT, bool CLK>
static int pb_launch(cudaStream_t st, int64_t m, int bw, T *a, int64_t lda, int *piv, int poff,
                     void *scratch, int rows, int *done) {
  /* the device's figures, the kernel's shared-memory attribute and its occupancy are asked once
   * (per device, per size): a panel launches this kernel 32 times (nb 1024), and the host queues
   * the panels' thousands of calls nearly all the factorization long */
  static int c_dev = -1, c_nsm, c_optin, c_static;
  static size_t c_set = 0, c_occ_ok = 0;   /* the largest size set; the largest with a block a multiprocessor */
  int dev = 0;
  HY_CUDA(cudaGetDevice(&dev));
  if (dev != c_dev) {
    HY_CUDA(cudaDeviceGetAttribute(&c_nsm, cudaDevAttrMultiProcessorCount, dev));
    HY_CUDA(cudaDeviceGetAttribute(&c_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes fa;
    HY_CUDA(cudaFuncGetAttributes(&fa, panel_base_k<T, FL, NT, CLK>));
    c_static = (int)fa.sharedSizeBytes;
    c_dev = dev;
    c_set = 0;
    c_occ_ok = 0;
  }
  int nsm = c_nsm, optin = c_optin;
  size_t smax = (size_t)optin - (size_t)c_static - 1024;   /* room for the static shared arrays */
  if (smax > (size_t)200 * 1024) smax = (size_t)200 * 1024;
  /* about `rows` rows a block (0: 1024), more blocks when a chunk (one more row: its odd
   * leading dimension) would not fit in shared memory */
  int64_t R = rows > 0 ? rows : 1024;
  int64_t G = (m + R - 1) / R;
  int64_t gmin = (int64_t)(((m + 1) * bw * (int64_t)sizeof(T) + (int64_t)smax - 1) / (int64_t)smax);
  if (G < gmin) G = gmin;
  if (G < 1) G = 1;
  if (G > nsm || G > GAUSS_PB_GMAX) return HY_OK;   /* *done = 0: the caller takes the vendor's */
  int rpb = (int)((m + G - 1) / G);
  while ((size_t)(rpb | 1) * bw * sizeof(T) > smax && G < nsm) {
    G++;
    rpb = (int)((m + G - 1) / G);
  }
  G = (m + rpb - 1) / rpb;
  size_t shm = (size_t)(rpb | 1) * bw * sizeof(T);
  if (shm > smax || G > nsm || G > GAUSS_PB_GMAX) return HY_OK;
  if (shm > c_set) {
    HY_CUDA(cudaFuncSetAttribute(panel_base_k<T, FL, NT, CLK>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    c_set = shm;
  }
  int occ = 1;   /* (G <= nsm: one block a multiprocessor is all the launch needs) */
  if (shm > c_occ_ok) {
    HY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, panel_base_k<T, FL, NT, CLK>, NT, shm));
    if (occ >= 1) c_occ_ok = shm;
  }
  if ((int64_t)occ * nsm < G) return HY_OK;
  /* the scratch's layout: gauss_panel_cuda.h */
  char *sc = (char *)scratch + (FL ? 0 : GAUSS_PB_FLAGS_BYTES);
  int gmx = GAUSS_PB_GMAX, sets = FL ? PB_BWMAX : 2;
  double *cval = (double *)sc;
  int *cidx = (int *)(sc + (size_t)sets * gmx * 8);
  T *rowj = (T *)(sc + (size_t)sets * gmx * 12);
  T *crow = (T *)(sc + (size_t)sets * gmx * 12 + (size_t)sets * PB_BWMAX * 8);
  int im = (int)m;
  long long *clk = CLK ? pb_clk_dev : NULL;
  void *args[] = { &a, &lda, &im, &bw, &rpb, &piv, &poff, &crow, &cval, &cidx, &rowj, &gmx, &clk };
  HY_CUDA(cudaLaunchCooperativeKernel((const void *)panel_base_k<T, FL, NT, CLK>, dim3((unsigned)G), dim3(NT),
                                      args, shm, st));
  *done = 1;
  return HY_OK;
}

/* Launch the register base block when it fits: one row a thread, G = m / PR_THREADS blocks up
 * to one a multiprocessor (FP64: up to 67,584 rows on the H200's 132), flags only.  Local. */
template <typename T>
static int pr_launch(cudaStream_t st, int64_t m, int bw, T *a, int64_t lda, int *piv, int poff, void *scratch,
                     int64_t gmax, int *done) {
  static int c_dev = -1, c_nsm, c_occ = -1;
  int dev = 0;
  HY_CUDA(cudaGetDevice(&dev));
  if (dev != c_dev) {
    HY_CUDA(cudaDeviceGetAttribute(&c_nsm, cudaDevAttrMultiProcessorCount, dev));
    HY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c_occ, panel_reg_k<T, PR_THREADS>, PR_THREADS, 0));
    c_dev = dev;
  }
  int64_t G = (m + PR_THREADS - 1) / PR_THREADS;
  if (G > (int64_t)c_occ * c_nsm || G > GAUSS_PB_GMAX || G > gmax) return HY_OK;   /* *done = 0: the shared kernel */
  /* the flags' part of the scratch (gauss_panel_cuda.h), as panel_base_k's */
  char *sc = (char *)scratch;
  int gmx = GAUSS_PB_GMAX, sets = PB_BWMAX;
  double *cval = (double *)sc;
  int *cidx = (int *)(sc + (size_t)sets * gmx * 8);
  T *rowj = (T *)(sc + (size_t)sets * gmx * 12);
  T *crow = (T *)(sc + (size_t)sets * gmx * 12 + (size_t)sets * PB_BWMAX * 8);
  int im = (int)m, rpb = PR_THREADS;
  void *args[] = { &a, &lda, &im, &bw, &rpb, &piv, &poff, &crow, &cval, &cidx, &rowj, &gmx };
  HY_CUDA(cudaLaunchCooperativeKernel((const void *)panel_reg_k<T, PR_THREADS>, dim3((unsigned)G), dim3(PR_THREADS),
                                      args, 0, st));
  *done = 1;
  return HY_OK;
}

/* One launch by precision, sync way and threads.  Local. */
template <int NT>
static int pb_go(cudaStream_t st, int sp, int64_t m, int bw, void *a, int64_t lda, int *piv, int poff, void *scratch,
                 int rows, int sync, int *done) {
  if (sync == GAUSS_PB_SYNC_GRID) {
    if (sp) return pb_launch<float, false, NT, false>(st, m, bw, (float *)a, lda, piv, poff, scratch, rows, done);
    return pb_launch<double, false, NT, false>(st, m, bw, (double *)a, lda, piv, poff, scratch, rows, done);
  }
  if (sp) return pb_launch<float, true, NT, false>(st, m, bw, (float *)a, lda, piv, poff, scratch, rows, done);
  if (pb_clk_dev && NT == PB_THREADS)
    return pb_launch<double, true, NT, true>(st, m, bw, (double *)a, lda, piv, poff, scratch, rows, done);
  return pb_launch<double, true, NT, false>(st, m, bw, (double *)a, lda, piv, poff, scratch, rows, done);
}

int gauss_cuda_panel_base(cudaStream_t st, int sp, int64_t m, int bw, void *a, int64_t lda, int *piv,
                          int poff, void *scratch, int rows, int sync, int threads, int kind, int *done) {
  *done = 0;
  if (m <= 0 || bw <= 0) { *done = 1; return HY_OK; }
  if (bw > PB_BWMAX || m > 2147483647LL) return HY_OK;
  if (kind != GAUSS_PB_SHARED && sync == GAUSS_PB_SYNC_FLAGS && rows == 0 && threads != 512) {
    int64_t gmax = kind == GAUSS_PB_AUTO ? GAUSS_PB_AUTO_GMAX : GAUSS_PB_GMAX;
    if (sp) HY_CALL(pr_launch<float>(st, m, bw, (float *)a, lda, piv, poff, scratch, gmax, done));
    else if (!pb_clk_dev) HY_CALL(pr_launch<double>(st, m, bw, (double *)a, lda, piv, poff, scratch, gmax, done));
    if (*done) return HY_OK;
  }
  if (threads == 512) return pb_go<512>(st, sp, m, bw, a, lda, piv, poff, scratch, rows, sync, done);
  return pb_go<PB_THREADS>(st, sp, m, bw, a, lda, piv, poff, scratch, rows, sync, done);
}

/* test_gauss_trsm_gpu --panel: what = 1 turns the fused base block's clocks on (FP64, flags,
 * 1024 threads: the kernel's CLK instantiation records thread 0's SM clock of the first and the
 * last block at the PB_CLK_* marks, 2 x PB_CLK_SLOTS values), 2 copies the last launch's into
 * out (2 PB_CLK_SLOTS long longs; waits for the device), 0 turns them off.  Returns 0, or 1
 * when the device says no.  Local. */
extern "C" int gauss_cuda_pb_clk(int what, long long *out) {
  if (what == 1 && !pb_clk_dev) {
    if (cudaMalloc((void **)&pb_clk_dev, sizeof(long long) * 2 * PB_CLK_SLOTS) != cudaSuccess) return 1;
    if (cudaMemset(pb_clk_dev, 0, sizeof(long long) * 2 * PB_CLK_SLOTS) != cudaSuccess) return 1;
  } else if (what == 2 && pb_clk_dev) {
    if (cudaMemcpy(out, pb_clk_dev, sizeof(long long) * 2 * PB_CLK_SLOTS, cudaMemcpyDeviceToHost) != cudaSuccess)
      return 1;
  } else if (what == 0 && pb_clk_dev) {
    if (cudaFree(pb_clk_dev) != cudaSuccess) return 1;
    pb_clk_dev = NULL;
  }
  return 0;
}
