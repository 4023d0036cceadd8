/* gauss_small_step_cuda.cu - the small-n LU of gauss on the CUDA backend, by steps
 * (k_gauss_ops getrf_small / getrs_small with K_GAUSS_SMALL_STEPS): FP64 LU with partial
 * pivoting of an n x n matrix (n <= 2048) as one ordinary launch per panel of W = 8 columns
 * (ss_w_auto; 16 and 32 too where R x W <= 32), and both triangular solves in one more launch.
 *
 * Launch k (lookahead 1): CTA 0 applies panel k's row move, U12 = L11^-1 A12 and A22 -= L21 U12
 * to the next panel's columns, keeping the result in registers (thread t holds rows t, t + 512,
 * ...), and factors that panel there: pivot search by warp reductions of keys (the bits of
 * |a_ij| + 1: __reduce_max_sync, then the smallest row holding the largest), ONE __syncthreads per
 * column (each warp's best row and row j published to double-buffered shared memory before it),
 * the scaling by the pivot's reciprocal (LAPACK's dgetrf2 where |u_jj| >= DBL_MIN), the rank-1
 * update in registers; every row carries where its content came from, so the panel's whole
 * row move (<= 2 W rows: row r gets the old content of row src) is written as a plan for the
 * next launch without simulating the swaps.  The other CTAs apply panel k's move, TRSM and GEMM
 * to chunks of 16 columns right of the next panel (CUDA cores: 2/3 n^3 = 0.7 GFlop at n = 1024 is
 * a few tens of microseconds; the run is latency bound) and its move alone to chunks of 32 columns
 * left of panel k, so that the result is LAPACK dgetrf's: P A = L U with L in the final row
 * order.  No grid-wide barrier: the launch boundary is the step's barrier (each step a
 * programmatic dependent launch: its launch overlaps the previous step's end, its CTAs wait for
 * it in cudaGridDependencySynchronize); two plan buffers alternate between launches.  The row order (dperm: (P b)[i] = b[dperm[i]]) is composed by
 * CTA 0 from the same plans.
 * The solve: one CTA of 512 threads, x in shared memory, blocks of 32, with lookahead (the
 * default, ss_getrs_la_k): in step B warp 0 applies block B - 1's x to block B's rows and solves
 * block B (the diagonal block in shared memory) while the other warps apply block B - 1's x to
 * the rows beyond with 32 loads in flight each and load the next diagonal block; ss_getrs_k, the
 * plain one (two barriers a step), gives the same bits.
 * Kernels hold no state; the stream is the backend's current one. */
#include "k_cuda.h"
#include "k_gauss.h"
#include "gauss_small_dev.cuh"

#include <float.h>
#include <math.h>
#include <string.h>

#define SS_T 512      /* threads of a CTA of the LU */
#define SS_NW (SS_T / 32)
#define SS_CW 16      /* columns of a worker's trailing-update chunk */
#define SS_LW 32      /* columns of a worker's move-only chunk (left of the panel) */
#define SS_NMAX 2048
#define SS_PL 136     /* ints of one plan: [0] ns, [1, 65) rows, [65, 129) sources (W <= 32) */
#define SS_FULL 0xffffffffu

/* Shared memory of a step (W: panel width). */
template <int W>
struct ss_shared {
  double L[W][W + 1];                         /* L11 of panel k (unit lower) */
  double S[2 * W][SS_LW];                     /* the moved rows of a chunk, staged */
  double U[W][W > SS_CW ? W : SS_CW];         /* U12 of a chunk (zero outside it) */
  double cand[2][SS_NW][W];                   /* panel: each warp's best row (by column parity) */
  double cv[2][SS_NW];                        /* its magnitude (red = 0) */
  unsigned long long ck[2][SS_NW];            /* its magnitude as a key (red = 1, ss_key) */
  int ci[2][SS_NW], co[2][SS_NW];             /* its row, the row its content came from */
  double jrow[2][W];                          /* row j, which the pivot row's place receives */
  int jorig[2];
  int rows[2 * W], src[2 * W];                /* panel k's move: row rows[v] gets old row src[v] */
  int ns, cnt;
};

/* Panel k's move (plan) and L11 into shared memory.  Every thread of the CTA.  Device. */
template <int W>
__device__ __noinline__ void ss_setup(const double *a, int64_t lda, int k0, int w, const int *plan, ss_shared<W> &s) {
  const int t = threadIdx.x;
  /* all 2 W slots read at once (those past ns unused), not after ns: one round trip */
  if (t == 0) s.ns = plan[0];
  if (t < 2 * W) {
    s.rows[t] = plan[1 + t];
    s.src[t] = plan[1 + 2 * 32 + t];
  }
  for (int e = t; e < W * W; e += SS_T) {
    int r = e % W, i = e / W;
    s.L[r][i] = (r < w && i < w) ? a[(int64_t)(k0 + r) + (int64_t)(k0 + i) * lda] : 0.0;
  }
  __syncthreads();
}

/* Columns c0 .. c0+cw-1 (cw <= SS_LW): the move (every source read, then every row written).
 * Device. */
template <int W>
__device__ __noinline__ void ss_move(double *a, int64_t lda, int c0, int cw, ss_shared<W> &s) {
  const int t = threadIdx.x, ns = s.ns;
  for (int e = t; e < ns * cw; e += SS_T) {
    int j = e % ns, c = e / ns;
    s.S[j][c] = a[(int64_t)s.src[j] + (int64_t)(c0 + c) * lda];
  }
  __syncthreads();
  for (int e = t; e < ns * cw; e += SS_T) {
    int j = e % ns, c = e / ns;
    a[(int64_t)s.rows[j] + (int64_t)(c0 + c) * lda] = s.S[j][c];
  }
  __syncthreads();
}

/* Columns c0 .. c0+cw-1 (cw <= CU): U12 = L11^-1 A12 on rows k0 .. k0+w-1 (a group of W lanes
 * per column, shuffles), written back and into s.U (zero outside the block).  Device. */
template <int W, int CU>
__device__ __noinline__ void ss_trsm(double *a, int64_t lda, int k0, int w, int c0, int cw, ss_shared<W> &s) {
  const int t = threadIdx.x;
  for (int e = t; e < W * CU; e += SS_T) {   /* W * CU is a multiple of 32: whole warps */
    const int g = e / W, lane = e % W;
    double x = (lane < w && g < cw) ? a[(int64_t)(k0 + lane) + (int64_t)(c0 + g) * lda] : 0.0;
#pragma unroll
    for (int i = 0; i < W; i++) {
      double xi = __shfl_sync(SS_FULL, x, i, W);
      if (i < w && lane > i && lane < w) x -= s.L[lane][i] * xi;
    }
    if (lane < w && g < cw) a[(int64_t)(k0 + lane) + (int64_t)(c0 + g) * lda] = x;
    s.U[lane][g] = x;
  }
  __syncthreads();
}

/* Row `row` of columns c0 .. c0+CW-1 (acc, loaded by the caller) minus L21's row times s.U
 * (the L values LQ at a time in flight).  Device. */
template <int W, int CW, int LQ>
__device__ __forceinline__ void ss_gemm_row(const double *a, int64_t lda, int row, int k0, int w,
                                            double (&acc)[CW], const ss_shared<W> &s) {
  const double *ar = a + row + (int64_t)k0 * lda;
#pragma unroll
  for (int l0 = 0; l0 < W; l0 += LQ) {
    double lv[LQ];
#pragma unroll
    for (int q = 0; q < LQ; q++) lv[q] = l0 + q < w ? ar[(int64_t)(l0 + q) * lda] : 0.0;
#pragma unroll
    for (int q = 0; q < LQ; q++)
#pragma unroll
      for (int c = 0; c < CW; c++) acc[c] -= lv[q] * s.U[l0 + q][c];
  }
}

/* A worker's chunk right of the next panel: columns c0 .. c0+cw-1 (cw <= SS_CW): panel k's
 * move, TRSM, and the update of rows k1 .. n-1.  Device. */
template <int W>
__device__ __noinline__ void ss_right(double *a, int64_t lda, int n, int k0, int w, int c0, int cw, ss_shared<W> &s) {
  ss_move<W>(a, lda, c0, cw, s);
  ss_trsm<W, SS_CW>(a, lda, k0, w, c0, cw, s);
  for (int row = k0 + w + threadIdx.x; row < n; row += SS_T) {
    double acc[SS_CW];
#pragma unroll
    for (int c = 0; c < SS_CW; c++) acc[c] = c < cw ? a[(int64_t)row + (int64_t)(c0 + c) * lda] : 0.0;
    ss_gemm_row<W, SS_CW, 4>(a, lda, row, k0, w, acc, s);
#pragma unroll
    for (int c = 0; c < SS_CW; c++)
      if (c < cw) a[(int64_t)row + (int64_t)(c0 + c) * lda] = acc[c];
  }
  __syncthreads();   /* s.U and s.S are reused by the next chunk */
}

/* |x| as an ordered key: the bits of |x| (NaN as +inf) plus one, so that a larger |x| has a
 * larger key and 0 means no row.  Device. */
__device__ __forceinline__ unsigned long long ss_key(double x) {
  double ax = fabs(x);
  if (isnan(ax)) ax = INFINITY;
  return (unsigned long long)__double_as_longlong(ax) + 1ull;
}

/* The warp's largest key and, among its lanes holding it, the smallest row: three warp
 * reductions (REDUX) instead of five rounds of shuffles.  idx: UINT_MAX where no row.
 * Device. */
__device__ __forceinline__ void ss_warp_best(unsigned long long &key, unsigned &idx) {
  const unsigned h = (unsigned)(key >> 32), l = (unsigned)key;
  const unsigned mh = __reduce_max_sync(SS_FULL, h);
  const unsigned ml = __reduce_max_sync(SS_FULL, h == mh ? l : 0u);
  idx = __reduce_min_sync(SS_FULL, (h == mh && l == ml) ? idx : 0xffffffffu);
  key = ((unsigned long long)mh << 32) | ml;
}

/* The end of ss_panel: the factors back; the moved rows (o[r]: the panel row whose content row
 * t + r SS_T holds) into the plan, and the row order composed with them (all reads first).
 * Every thread of CTA 0.  Device. */
template <int R, int W>
__device__ __forceinline__ void ss_panel_out(double *a, int64_t lda, int n, int kk, int ww,
                                             const double (&v)[R][W], const int (&o)[R], int *dperm,
                                             int *plan, ss_shared<W> &s) {
  const int t = threadIdx.x, m = n - kk;
  int pv[R];
#pragma unroll
  for (int r = 0; r < R; r++) {
    int i = t + r * SS_T;
    pv[r] = 0;
    if (i < m) {
#pragma unroll
      for (int c = 0; c < W; c++)
        if (c < ww) a[(int64_t)(kk + i) + (int64_t)(kk + c) * lda] = v[r][c];
      if (o[r] != i) {
        int pos = atomicAdd(&s.cnt, 1);
        plan[1 + pos] = kk + i;
        plan[1 + 2 * 32 + pos] = kk + o[r];
        pv[r] = dperm[kk + o[r]];
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < R; r++) {
    int i = t + r * SS_T;
    if (i < m && o[r] != i) dperm[kk + i] = pv[r];
  }
  if (t == 0) plan[0] = s.cnt;
}

/* Column j's pivot: every warp's best row (keys and warp reductions with red = 1, shuffles of
 * doubles with red = 0; the first row of the largest magnitude) and row j to shared memory
 * (buffer j & 1), the one barrier, the CTA's best: p (its row), q (its warp's slot).  Every
 * thread of CTA 0.  Device. */
template <int R, int W>
__device__ __forceinline__ void ss_pivot(const double (&v)[R][W], const int (&o)[R], int j, int m, int red,
                                         ss_shared<W> &s, int &p, int &q) {
  const int t = threadIdx.x, wp = t >> 5, bf = j & 1;
  double bv = -1.0;
  int bi = 0x7fffffff;
  unsigned long long key = 0ull;
  if (red) {
    /* red = 1: keys and warp reductions */
    unsigned ui = 0xffffffffu;
#pragma unroll
    for (int r = 0; r < R; r++) {
      int i = t + r * SS_T;
      unsigned long long kx = (i >= j && i < m) ? ss_key(v[r][0]) : 0ull;
      if (kx > key) { key = kx; ui = (unsigned)i; }
    }
    ss_warp_best(key, ui);
    bi = ui == 0xffffffffu ? 0x7fffffff : (int)ui;
  } else {
    /* red = 0: doubles and five rounds of shuffles */
    gs_best_shfl<R, W, SS_T>(v, t, j, m, bv, bi);
  }
  /* the warp's best row, row j, before the one barrier of the column */
#pragma unroll
  for (int r = 0; r < R; r++) {
    int i = t + r * SS_T;
    if (i == bi) {
#pragma unroll
      for (int c = 0; c < W; c++) s.cand[bf][wp][c] = v[r][c];
      s.co[bf][wp] = o[r];
    }
    if (i == j) {
#pragma unroll
      for (int c = 0; c < W; c++) s.jrow[bf][c] = v[r][c];
      s.jorig[bf] = o[r];
    }
  }
  if ((t & 31) == 0) {
    s.cv[bf][wp] = bv;
    s.ck[bf][wp] = key;
    s.ci[bf][wp] = bi;
  }
  __syncthreads();
  q = 0;
  if (red) {
    /* every warp: lane u takes warp u's best, one more warp reduction */
    const int lane = t & 31;
    unsigned long long kq = lane < SS_NW ? s.ck[bf][lane] : 0ull;
    unsigned iq = lane < SS_NW ? (unsigned)s.ci[bf][lane] : 0xffffffffu;
    unsigned pi = iq;
    ss_warp_best(kq, pi);
    bi = (int)pi;
    q = __ffs(__ballot_sync(SS_FULL, lane < SS_NW && iq == pi)) - 1;
  } else {
    bv = s.cv[bf][0];
    bi = s.ci[bf][0];
#pragma unroll
    for (int u = 1; u < SS_NW; u++) {
      double ov = s.cv[bf][u];
      int oi = s.ci[bf][u];
      if (gs_beats(ov, oi, bv, bi)) { bv = ov; bi = oi; q = u; }
    }
  }
  p = bi;
}

/* The factorization of the panel held in v (rows kk + t + r SS_T, columns kk .. kk+ww-1, zero
 * outside), LAPACK's partial pivoting (the largest magnitude, the first row on ties, NaN taken
 * as the largest); writes the panel back, dpiv[kk + j] (absolute rows), the panel's move as a
 * plan (plan: [0] ns, [1 + v] row, [65 + v] the row whose old content it gets), the row order
 * dperm composed with it, and the running minimum |u_jj| / first zero pivot in stat / info.
 * Every thread of CTA 0.  Device. */
template <int R, int W, int U>
__device__ __forceinline__ void ss_panel(double *a, int64_t lda, int n, int kk, int ww, double (&v)[R][W],
                                         int *dpiv, int *dperm, int *plan, double *stat, int *info,
                                         int red, ss_shared<W> &s) {
  const int t = threadIdx.x, m = n - kk;
  int o[R];
#pragma unroll
  for (int r = 0; r < R; r++) o[r] = t + r * SS_T;
  double pmin = 0;
  int pidx = 0, pinfo = 0;
  if (t == 0) {
    pmin = stat[0];
    pidx = (int)stat[1];
    pinfo = info[0];
    s.cnt = 0;
  }
  /* a rolled loop (U = 1: one column's code, kept in the instruction cache): the column being
   * factored is v[.][0]; after each column the W values of every row rotate by one, so that
   * after W rotations all are in place; U > 1 unrolls it U times (within the U copies the
   * rotations become register renaming, the update's column bounds and the double buffer's
   * index constants; the code U times as long) */
#pragma unroll (U)
  for (int j = 0; j < W; j++) {
    if (j < ww) {
      const int bf = j & 1;
      int p, q;
      ss_pivot<R, W>(v, o, j, m, red, s, p, q);
      const double *pr = s.cand[bf][q];
      const double piv = pr[0];
      const int bydiv = !(fabs(piv) >= DBL_MIN);   /* LAPACK: tiny pivots divide */
      const double rcp = 1.0 / piv;
#pragma unroll
      for (int r = 0; r < R; r++) {
        int i = t + r * SS_T;
        if (i == p && p != j) {
#pragma unroll
          for (int c = 0; c < W; c++) v[r][c] = s.jrow[bf][c];
          o[r] = s.jorig[bf];
        }
        if (i == j) {
#pragma unroll
          for (int c = 0; c < W; c++) v[r][c] = pr[c];
          o[r] = s.co[bf][q];
        }
        if (i > j && i < m) {
          double l = piv == 0.0 ? v[r][0] : (bydiv ? v[r][0] / piv : v[r][0] * rcp);
          v[r][0] = l;
#pragma unroll
          for (int c = 1; c < W; c++)
            if (c < W - j) v[r][c] -= l * pr[c];
        }
      }
      gs_pivot_record(t, dpiv, kk, j, p, piv, pmin, pidx, pinfo);
    }
    gs_rotate<R, W>(v);
  }
  ss_panel_out<R, W>(a, lda, n, kk, ww, v, o, dperm, plan, s);
  if (t == 0) {
    stat[0] = pmin;
    stat[1] = (double)pidx;
    info[0] = pinfo;
  }
}

/* CTA 0 of launch k: the next panel (columns k1 .. k1+w1-1) moved, solved and updated into
 * registers, then factored (ss_panel).  first: launch -1 (no step before: the row order set to
 * the identity, the running figures reset, panel 0 loaded as it is).  Device. */
template <int R, int W, int U>
__device__ __noinline__ void ss_lead(double *a, int64_t lda, int n, int k0, int w, int w1, int first, int *dpiv,
                        int *dperm, int *plan1, double *stat, int *info, int red, ss_shared<W> &s) {
  const int t = threadIdx.x, k1 = first ? 0 : k0 + w, m1 = n - k1;
  if (first) {
    for (int r = t; r < n; r += SS_T) dperm[r] = r;
    if (t == 0) {
      stat[0] = INFINITY;
      stat[1] = 0.0;
      info[0] = 0;
    }
    __syncthreads();
  } else {
    ss_move<W>(a, lda, k1, w1, s);
    ss_trsm<W, W>(a, lda, k0, w, k1, w1, s);
  }
  double v[R][W];
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = t + r * SS_T, row = k1 + i;
#pragma unroll
    for (int c = 0; c < W; c++) v[r][c] = (i < m1 && c < w1) ? a[(int64_t)row + (int64_t)(k1 + c) * lda] : 0.0;
    if (!first && i < m1) ss_gemm_row<W, W, (W < 16 ? W : 16)>(a, lda, row, k0, w, v[r], s);
  }
  ss_panel<R, W, U>(a, lda, n, k1, w1, v, dpiv, dperm, plan1, stat, info, red, s);
}

/* Launch k of the LU (k = -1: panel 0 only, one CTA).  Plans alternate: panel k's in
 * plans + (k & 1) SS_PL.  Device. */
template <int R, int W, int U>
__global__ void __launch_bounds__(SS_T, 1)
ss_step_k(double *a, int64_t lda, int n, int k, int *dpiv, int *dperm, int *plans, double *stat, int *info,
          int red) {
  __shared__ ss_shared<W> s;
  const int b = blockIdx.x, G = gridDim.x;
  /* programmatic dependent launch: wait for the previous step to be complete and visible,
   * then let the next step's launch begin (its CTAs wait here; no-ops without the attribute) */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  if (k < 0) {
    ss_lead<R, W, U>(a, lda, n, 0, 0, n < W ? n : W, 1, dpiv, dperm, plans, stat, info, red, s);
    return;
  }
  const int k0 = k * W, w = n - k0 < W ? n - k0 : W, k1 = k0 + w;
  const int w1 = n - k1 < W ? n - k1 : W;
  ss_setup<W>(a, lda, k0, w, plans + (k & 1) * SS_PL, s);
  if (b == 0) {
    if (w1 > 0)
      ss_lead<R, W, U>(a, lda, n, k0, w, w1, 0, dpiv, dperm, plans + ((k + 1) & 1) * SS_PL, stat, info, red, s);
    return;
  }
  const int cr0 = k1 + w1;
  const int nright = (n - cr0 + SS_CW - 1) / SS_CW, nleft = (k0 + SS_LW - 1) / SS_LW;
  for (int c = b - 1; c < nright + nleft; c += G - 1) {
    if (c < nright) {
      int c0 = cr0 + c * SS_CW;
      ss_right<W>(a, lda, n, k0, w, c0, n - c0 < SS_CW ? n - c0 : SS_CW, s);
    } else {
      int c0 = (c - nright) * SS_LW;
      ss_move<W>(a, lda, c0, k0 - c0 < SS_LW ? k0 - c0 : SS_LW, s);
    }
  }
}

/* ss_launches' flags: CTA 0 alone (a timing of the critical path; the factors are wrong), no
 * programmatic dependent launch (each step launched after the previous one ended), the pivot
 * search by shuffles of doubles (five rounds) instead of keys and warp reductions (ss_key),
 * the panel's column loop unrolled 2, 4 or 8 times (ss_panel's U; built for W = 8). */
enum { SS_LEAD_ONLY = 1, SS_NO_PDL = 2, SS_SHFL_RED = 4, SS_UNROLL2 = 8, SS_UNROLL4 = 16, SS_UNROLL8 = 32 };

/* Launch k of the LU on G CTAs, queued on st; pdl: as a programmatic dependent launch (the
 * launch overlaps the previous step's end, ss_step_k waits for it).  Local. */
template <int R, int W, int U>
static int ss_launch1(cudaStream_t st, int G, int pdl, int red, double *a, int64_t lda, int n, int k,
                      int *dpiv, int *dperm, int *plans, double *stat, int *dinfo) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1] = {};
  cfg.gridDim = dim3((unsigned)G);
  cfg.blockDim = dim3(SS_T);
  cfg.stream = st;
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = pdl ? 1 : 0;
  HY_CUDA(cudaLaunchKernelEx(&cfg, ss_step_k<R, W, U>, a, lda, n, k, dpiv, dperm, plans, stat, dinfo, red));
  return HY_OK;
}

/* The launches of the LU for panels of W columns: launch -1, then one per panel, each on
 * CTA 0 plus one CTA per chunk (at most one per multiprocessor), by flags (SS_*).  Local. */
template <int R, int W, int U>
static int ss_launches(k_backend *be, int n, double *a, int64_t lda, int *dpiv, int flags) {
  int dev = 0, nsm = 0;
  int *dperm = dpiv + n, *dinfo = dpiv + 2 * n + 6, *plans = dpiv + 2 * n + 8;
  double *stat = (double *)(void *)(dpiv + 2 * n);   /* 8-byte aligned: 2 n ints from the base */
  HY_CUDA(cudaGetDevice(&dev));
  HY_CUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  cudaStream_t st = k_cuda_cur(be);
  const int pdl = !(flags & SS_NO_PDL), red = !(flags & SS_SHFL_RED);
  HY_CALL((ss_launch1<R, W, U>(st, 1, 0, red, a, lda, n, -1, dpiv, dperm, plans, stat, dinfo)));
  const int nsteps = (n + W - 1) / W;
  for (int k = 0; k < nsteps; k++) {
    int k0 = k * W, k1 = k0 + (n - k0 < W ? n - k0 : W), w1 = n - k1 < W ? n - k1 : W;
    int chunks = (n - k1 - w1 + SS_CW - 1) / SS_CW + (k0 + SS_LW - 1) / SS_LW;
    int G = (flags & SS_LEAD_ONLY) ? 1 : 1 + (chunks < nsm - 1 ? chunks : nsm - 1);
    HY_CALL((ss_launch1<R, W, U>(st, G, pdl, red, a, lda, n, k, dpiv, dperm, plans, stat, dinfo)));
  }
  return HY_OK;
}

/* The built kinds of the steps LU: R rows a thread, panel width W, column loop unrolled U
 * times (1: rolled), and their launches. */
typedef struct {
  int R, W, U;
  int (*launches)(k_backend *be, int n, double *a, int64_t lda, int *dpiv, int flags);
} ss_kind;
static const ss_kind ss_kinds[] = {
  { 1, 32, 1, ss_launches<1, 32, 1> }, { 1, 16, 1, ss_launches<1, 16, 1> },
  { 1, 8, 1, ss_launches<1, 8, 1> }, { 2, 16, 1, ss_launches<2, 16, 1> },
  { 2, 8, 1, ss_launches<2, 8, 1> }, { 4, 8, 1, ss_launches<4, 8, 1> },
  { 1, 8, 2, ss_launches<1, 8, 2> }, { 2, 8, 2, ss_launches<2, 8, 2> },
  { 4, 8, 2, ss_launches<4, 8, 2> }, { 1, 8, 4, ss_launches<1, 8, 4> },
  { 2, 8, 4, ss_launches<2, 8, 4> }, { 4, 8, 4, ss_launches<4, 8, 4> },
  { 1, 8, 8, ss_launches<1, 8, 8> }, { 2, 8, 8, ss_launches<2, 8, 8> },
  { 4, 8, 8, ss_launches<4, 8, 8> },
};

/* The panel width the steps LU takes for order n: 8 at every n (H200, 00:32, main 51237d1,
 * factor ms: n = 512 w = 32 / 16 / 8: 0.895 / 0.651 / 0.640; n = 1024 w = 16 / 8: 2.030 /
 * 1.621; 2048: 8 only (R x W <= 32).  A column costs ~0.5 us + ~0.04 us per register-double of
 * a thread's rows (R W: the rank-1 update, the rotation, the candidate row), a step ~3.5-4.6 us:
 * W* = sqrt(step / (0.04 R)) ~ 7-10).  Local. */
static int ss_w_auto(int64_t n) {
  (void)n;
  return 8;
}

/* The steps LU with panels of w columns (0: ss_w_auto; R = ceil(n / 512) rows a thread, R x w
 * <= 32) by flags (SS_LEAD_ONLY 1, SS_NO_PDL 2, SS_SHFL_RED 4, SS_UNROLL2 / 4 / 8: 8 / 16 / 32), then info, the smallest |u_jj| and its column to the host (one synchronisation).
 * dpiv: K_GAUSS_SMALL_INTS(n) ints (pivots, row order, the results, the plans).  For the
 * timing test (tests/gauss/test_gauss_small_time.c) beside getrf_small.  Local. */
extern "C" int k_cuda_small_step_getrf_w(k_backend *be, int64_t n, double *a, int64_t lda, int *dpiv,
                                        int w, int flags, int *info, double *minpiv, int64_t *minidx) {
  if (n < 1 || n > SS_NMAX)
    return hy_err(HY_EUSAGE, "gauss small LU: n = %lld (allowed: 1 .. %d)", (long long)n, SS_NMAX);
  if (w == 0) w = ss_w_auto(n);
  const int in = (int)n, R = in <= 512 ? 1 : in <= 1024 ? 2 : 4;
  const int U = (flags & SS_UNROLL8) ? 8 : (flags & SS_UNROLL4) ? 4 : (flags & SS_UNROLL2) ? 2 : 1;
  const ss_kind *kd = NULL;
  for (size_t i = 0; i < sizeof ss_kinds / sizeof ss_kinds[0]; i++)
    if (ss_kinds[i].R == R && ss_kinds[i].W == w && ss_kinds[i].U == U) kd = &ss_kinds[i];
  if (!kd)
    return hy_err(HY_EUSAGE, "gauss small LU: panel width %d, column loop unrolled %d times, at n = "
                  "%lld (allowed: 8, 16, 32 with ceil(n / 512) x width <= 32; unrolled 2, 4, 8 times: "
                  "width 8)", w, U, (long long)n);
  HY_CALL(kd->launches(be, in, a, lda, dpiv, flags));
  cudaStream_t s = k_cuda_cur(be);
  double h[4];
  HY_CUDA(cudaMemcpyAsync(h, dpiv + 2 * n, 4 * sizeof(double), cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaStreamSynchronize(s));
  int hi[2];
  memcpy(hi, h + 3, sizeof hi);
  *minpiv = h[0];
  *minidx = (int64_t)h[1];
  *info = hi[0];
  return HY_OK;
}

/* k_gauss_ops getrf_small, K_GAUSS_SMALL_STEPS: the steps LU at the auto panel width.
 * Local. */
extern "C" int k_cuda_small_step_getrf(k_backend *be, int64_t n, double *a, int64_t lda, int *dpiv,
                                      int *info, double *minpiv, int64_t *minidx) {
  return k_cuda_small_step_getrf_w(be, n, a, lda, dpiv, 0, 0, info, minpiv, minidx);
}

/* Load the 32 x 32 diagonal block at j0 (zero outside the matrix) into D.  Threads from t0 on,
 * nt of them.  Device. */
__device__ __forceinline__ void ss_diag(const double *a, int64_t lda, int n, int j0, double (*D)[33],
                                        int t0, int nt) {
  for (int e = (int)threadIdx.x - t0; e < 32 * 32; e += nt) {
    int r = e % 32, c = e / 32;
    D[r][c] = (j0 + r < n && j0 + c < n) ? a[(int64_t)(j0 + r) + (int64_t)(j0 + c) * lda] : 0.0;
  }
}

/* sx[r] -= sum_i a[r, j0 + i] sx[j0 + i] (i < jb) for rows r0 <= r < r1, 32 loads in flight per
 * row; rows r0 + tt, r0 + tt + nt, ...  (tt: this thread's place among the nt doing it).
 * Device. */
__device__ __forceinline__ void ss_gemv(const double *a, int64_t lda, int j0, int jb, int r0, int r1,
                                        double *sx, int tt, int nt) {
  for (int r = r0 + tt; r < r1; r += nt) {
    double lv[32];
#pragma unroll
    for (int i = 0; i < 32; i++) lv[i] = i < jb ? a[(int64_t)r + (int64_t)(j0 + i) * lda] : 0.0;
    double acc = sx[r];
#pragma unroll
    for (int i = 0; i < 32; i++) acc -= lv[i] * sx[j0 + i];   /* zero beyond jb (both) */
    sx[r] = acc;
  }
}

/* The unit lower solve of the diagonal block D (jb rows from j0) on sx, by warp shuffles.
 * One warp.  Device. */
__device__ __forceinline__ void ss_lsolve_diag(const double (*D)[33], int j0, int jb, int lane, double *sx) {
  double xv = lane < jb ? sx[j0 + lane] : 0.0;
#pragma unroll
  for (int i = 0; i < 32; i++) {
    double xi = __shfl_sync(SS_FULL, xv, i);
    if (i < jb && lane > i && lane < jb) xv -= D[lane][i] * xi;
  }
  if (lane < jb) sx[j0 + lane] = xv;
}

/* The upper solve of the diagonal block D (jb rows from j0) on sx, by warp shuffles.  One
 * warp.  Device. */
__device__ __forceinline__ void ss_usolve_diag(const double (*D)[33], int j0, int jb, int lane, double *sx) {
  double xv = lane < jb ? sx[j0 + lane] : 0.0;
  const double rd = lane < jb ? 1.0 / D[lane][lane] : 0.0;
#pragma unroll
  for (int i = 31; i >= 0; i--) {
    if (i < jb) {
      if (lane == i) xv *= rd;
      double xi = __shfl_sync(SS_FULL, xv, i);
      if (lane < i) xv -= D[lane][i] * xi;
    }
  }
  if (lane < jb) sx[j0 + lane] = xv;
}

/* The solves' start: sx = P x (x[dperm[i]], zero up to nbk blocks of 32), the first diagonal
 * block into D0.  Every thread of the CTA (ends with a barrier).  Device. */
__device__ __forceinline__ void ss_solve_start(int n, const double *a, int64_t lda, const int *dperm,
                                               const double *x, int nbk, double *sx, double (*D0)[33]) {
  for (int i = threadIdx.x; i < nbk * 32; i += SS_T) sx[i] = i < n ? x[dperm[i]] : 0.0;
  ss_diag(a, lda, n, 0, D0, 0, SS_T);
  __syncthreads();
}

/* x = U^-1 L^-1 (P x) with the step LU's factors: x[i] = x[dperm[i]], the unit lower solve, the
 * upper solve, in blocks of 32 (see the file's head).  One CTA of SS_T threads.  Device. */
__global__ void __launch_bounds__(SS_T, 1)
ss_getrs_k(int n, const double *a, int64_t lda, const int *dperm, double *x) {
  __shared__ double sx[SS_NMAX];
  __shared__ double D[2][32][33];
  const int t = threadIdx.x, lane = t & 31;
  const int nbk = (n + 31) / 32;
  ss_solve_start(n, a, lda, dperm, x, nbk, sx, D[0]);
  for (int B = 0; B < nbk; B++) {
    const int j0 = B * 32, jb = n - j0 < 32 ? n - j0 : 32;
    if (t < 32) ss_lsolve_diag(D[B & 1], j0, jb, lane, sx);
    else if (B + 1 < nbk) ss_diag(a, lda, n, j0 + 32, D[(B + 1) & 1], 32, SS_T - 32);
    __syncthreads();
    ss_gemv(a, lda, j0, jb, j0 + jb, n, sx, t, SS_T);
    __syncthreads();
  }
  /* the upper solve from the last block; its diagonal block first */
  ss_diag(a, lda, n, (nbk - 1) * 32, D[(nbk - 1) & 1], 0, SS_T);
  __syncthreads();
  for (int B = nbk - 1; B >= 0; B--) {
    const int j0 = B * 32, jb = n - j0 < 32 ? n - j0 : 32;
    if (t < 32) ss_usolve_diag(D[B & 1], j0, jb, lane, sx);
    else if (B > 0) ss_diag(a, lda, n, j0 - 32, D[(B - 1) & 1], 32, SS_T - 32);
    __syncthreads();
    ss_gemv(a, lda, j0, jb, 0, j0, sx, t, SS_T);
    __syncthreads();
  }
  for (int i = t; i < n; i += SS_T) x[i] = sx[i];
}

/* ss_getrs_k with lookahead: in step B warp 0 applies block B - 1's x to block B's rows and
 * solves block B, while the other warps apply block B - 1's x to the rows beyond block B and
 * load the next diagonal block; one barrier a step instead of two, and the diagonal solve no
 * longer waits for the whole GEMV.  Every row gets the blocks' updates in the same order and
 * the same arithmetic as in ss_getrs_k: the same x bit for bit.  One CTA of SS_T threads.
 * Device. */
__global__ void __launch_bounds__(SS_T, 1)
ss_getrs_la_k(int n, const double *a, int64_t lda, const int *dperm, double *x) {
  __shared__ double sx[SS_NMAX];
  __shared__ double D[2][32][33];
  const int t = threadIdx.x, lane = t & 31;
  const int nbk = (n + 31) / 32;
  ss_solve_start(n, a, lda, dperm, x, nbk, sx, D[0]);
  for (int B = 0; B < nbk; B++) {
    const int j0 = B * 32, jb = n - j0 < 32 ? n - j0 : 32;
    if (t < 32) {
      if (B > 0) ss_gemv(a, lda, j0 - 32, 32, j0, j0 + jb, sx, lane, 32);
      __syncwarp();
      ss_lsolve_diag(D[B & 1], j0, jb, lane, sx);
    } else {
      if (B + 1 < nbk) ss_diag(a, lda, n, j0 + 32, D[(B + 1) & 1], 32, SS_T - 32);
      if (B > 0) ss_gemv(a, lda, j0 - 32, 32, j0 + jb, n, sx, t - 32, SS_T - 32);
    }
    __syncthreads();
  }
  ss_diag(a, lda, n, (nbk - 1) * 32, D[(nbk - 1) & 1], 0, SS_T);
  __syncthreads();
  for (int B = nbk - 1; B >= 0; B--) {
    const int j0 = B * 32, jb = n - j0 < 32 ? n - j0 : 32;
    const int j1 = j0 + 32, jb1 = n - j1 < 32 ? n - j1 : 32;   /* block B + 1 (when B + 1 < nbk) */
    if (t < 32) {
      if (B + 1 < nbk) ss_gemv(a, lda, j1, jb1, j0, j0 + jb, sx, lane, 32);
      __syncwarp();
      ss_usolve_diag(D[B & 1], j0, jb, lane, sx);
    } else {
      if (B > 0) ss_diag(a, lda, n, j0 - 32, D[(B - 1) & 1], 32, SS_T - 32);
      if (B + 1 < nbk) ss_gemv(a, lda, j1, jb1, 0, j0, sx, t - 32, SS_T - 32);
    }
    __syncthreads();
  }
  for (int i = t; i < n; i += SS_T) x[i] = sx[i];
}

/* The steps LU's solves by variant: 0 ss_getrs_k, 1 with lookahead (ss_getrs_la_k). */
typedef void (*ss_getrs_fn)(int n, const double *a, int64_t lda, const int *dperm, double *x);
static const ss_getrs_fn ss_getrs_variants[] = { ss_getrs_k, ss_getrs_la_k };

/* The steps LU's solve by variant (ss_getrs_variants), one launch, queued; dpiv as getrf's.
 * For the timing test beside getrs_small.  Local. */
extern "C" int k_cuda_small_step_getrs_v(k_backend *be, int64_t n, const double *a, int64_t lda,
                                        const int *dpiv, double *x, int variant) {
  if (n < 1 || n > SS_NMAX)
    return hy_err(HY_EUSAGE, "gauss small solve: n = %lld (allowed: 1 .. %d)", (long long)n, SS_NMAX);
  if (variant < 0 || variant > 1)
    return hy_err(HY_EUSAGE, "gauss small solve: variant %d (allowed: 0 plain, 1 lookahead)", variant);
  ss_getrs_variants[variant]<<<1, SS_T, 0, k_cuda_cur(be)>>>((int)n, a, lda, dpiv + n, x);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* k_gauss_ops getrs_small, K_GAUSS_SMALL_STEPS: x = A^-1 x with the step LU's factors (dpiv as
 * there), one launch, queued: the solve with lookahead (H200, 03:15, bd8e183, gauss_gpu_small_time:
 * 0.077 / 0.167 / 0.513 ms at n = 512 / 1024 / 2048 against 0.088 / 0.215 / 0.675 without; the
 * same x bit for bit).  Local. */
extern "C" int k_cuda_small_step_getrs(k_backend *be, int64_t n, const double *a, int64_t lda,
                                      const int *dpiv, double *x) {
  return k_cuda_small_step_getrs_v(be, n, a, lda, dpiv, x, 1);
}
