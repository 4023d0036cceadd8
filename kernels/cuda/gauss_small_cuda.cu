/* gauss_small_cuda.cu - the small-n LU of gauss on the CUDA backend (k_gauss_ops getrf_small,
 * getrs_small): FP64 LU with partial pivoting of an n x n matrix (n <= 2048) in ONE cooperative
 * kernel, and both triangular solves in one more launch.
 *
 * The LU: panels of W columns (W = 32, 16, 8 for n <= 512, 1024, 2048).  CTA 0 factors a panel
 * with its rows in registers (thread t holds rows t, t + 512, ...; R = ceil(n / 512) rows of W
 * values), pivot search by warp shuffles and one shared-memory round (two __syncthreads per
 * column), the pivot row broadcast through shared memory.  Step k (one grid.sync per step,
 * lookahead 1): CTA 0 applies panel k's row swaps, TRSM and GEMM to the next panel's columns and
 * factors it; the other CTAs do the same (swaps, U12 = L11^-1 A12 by warp shuffles, A22 -= L21
 * U12) on chunks of 8 columns of the rest, and apply the swaps to the columns left of the panel
 * (chunks of 32), so that the result is LAPACK dgetrf's: P A = L U with L in the final row
 * order, ipiv 0-based in order.  The swaps of a step are turned into one row move per CTA (the
 * rows touched, <= 2 W, and where each one's content comes from), and the composed row order is
 * kept too (dperm: (P b)[i] = b[dperm[i]]), so the solve permutes b in one parallel pass.
 * The solve: one CTA of 1024 threads, x in shared memory, blocks of 32 (the diagonal block by
 * one warp's shuffles, the rest by a GEMV of all threads).  Kernels hold no state; the stream
 * is the backend's current one. */
#include "k_cuda.h"
#include "k_gauss.h"
#include "gauss_small_dev.cuh"

#include <cooperative_groups.h>

#include <math.h>
#include <string.h>

namespace cg = cooperative_groups;

#define SM_T 512      /* threads of a CTA of the LU kernel */
#define SM_CW 8       /* columns of a worker's trailing-update chunk */
#define SM_LW 32      /* columns of a worker's swap-only chunk (left of the panel) */
#define SM_NMAX 2048  /* the largest n (the row-order table in shared memory, R <= 4) */
#define SM_FULL 0xffffffffu

/* Shared memory of the LU kernel (W: panel width; CP: CTA 0's chunk width). */
template <int W, int CP>
struct sm_shared {
  double L[W][W + 1];            /* L11 of the step's panel (unit lower) */
  double S[2 * W][SM_LW > CP ? SM_LW : CP];   /* the touched rows of a chunk, staged */
  double U[W][CP > SM_CW ? CP : SM_CW];       /* U12 of a chunk */
  double rv[SM_T / 32];          /* panel: warp maxima */
  int ri[SM_T / 32];
  double prow[W], jrow[W];       /* panel: the pivot row, the row it replaces */
  int idx[SM_NMAX];              /* row-order simulation: idx[r] = r between steps */
  int pv[W];                     /* the step's pivots */
  int keep[W];
  int rows[2 * W], cont[2 * W];  /* touched rows; the row whose old content each gets */
  int ns;
};

/* Panel factorization by one CTA (all SM_T threads): rows k1 .. n-1 of columns k1 .. k1+w-1 of
 * a, LAPACK's partial pivoting (largest magnitude, first row on ties, NaN taken as largest);
 * dpiv[k1 + j] = the absolute pivot row; thread 0 keeps the smallest |u_jj| (pmin, pidx) and the
 * first exact zero pivot (pinfo, 1-based column).  Device. */
template <int R, int W, int CP>
__device__ __noinline__ void sm_panel(double *a, int64_t lda, int n, int k1, int w, int *dpiv,
                         sm_shared<W, CP> &s, double &pmin, int &pidx, int &pinfo) {
  const int t = threadIdx.x, m = n - k1;
  double v[R][W];
#pragma unroll
  for (int r = 0; r < R; r++) {
    int i = t + r * SM_T;
#pragma unroll
    for (int c = 0; c < W; c++)
      v[r][c] = (i < m && c < w) ? a[(int64_t)(k1 + i) + (int64_t)(k1 + c) * lda] : 0.0;
  }
  /* a rolled loop (the code of one column, kept in the instruction cache): the column being
   * factored is always v[.][0]; after each column the W values of every row rotate by one, so
   * the finished columns sit at positions W - j .. W - 1 and after W rotations every column is
   * back in its place */
#pragma unroll 1
  for (int j = 0; j < W; j++) {
    if (j < w) {
      /* the largest |v| over my rows i >= j, then over the warp, then over the CTA */
      double bv = -1.0;
      int bi = 0x7fffffff;
      gs_best_shfl<R, W, SM_T>(v, t, j, m, bv, bi);
      if ((t & 31) == 0) { s.rv[t >> 5] = bv; s.ri[t >> 5] = bi; }
      __syncthreads();
      bv = s.rv[0];
      bi = s.ri[0];
#pragma unroll
      for (int q = 1; q < SM_T / 32; q++) {
        double ov = s.rv[q];
        int oi = s.ri[q];
        if (gs_beats(ov, oi, bv, bi)) { bv = ov; bi = oi; }
      }
      const int p = bi;
      /* the pivot row's owner publishes it, row j's owner the row it gives up (whole rows:
       * the finished columns move with them, as LAPACK's swaps do) */
#pragma unroll
      for (int r = 0; r < R; r++) {
        int i = t + r * SM_T;
        if (i == p) {
#pragma unroll
          for (int c = 0; c < W; c++) s.prow[c] = v[r][c];
        }
        if (i == j && p != j) {
#pragma unroll
          for (int c = 0; c < W; c++) s.jrow[c] = v[r][c];
        }
      }
      __syncthreads();
      const double piv = s.prow[0];
#pragma unroll
      for (int r = 0; r < R; r++) {
        int i = t + r * SM_T;
        if (i == p && p != j) {
#pragma unroll
          for (int c = 0; c < W; c++) v[r][c] = s.jrow[c];
        }
        if (i == j) {
#pragma unroll
          for (int c = 0; c < W; c++) v[r][c] = s.prow[c];
        }
        if (i > j && i < m) {
          double l = piv != 0.0 ? v[r][0] / piv : v[r][0];
          v[r][0] = l;
#pragma unroll
          for (int c = 1; c < W; c++)
            if (c < W - j) v[r][c] -= l * s.prow[c];
        }
      }
      gs_pivot_record(t, dpiv, k1, j, p, piv, pmin, pidx, pinfo);
    }
    gs_rotate<R, W>(v);
  }
#pragma unroll
  for (int r = 0; r < R; r++) {
    int i = t + r * SM_T;
#pragma unroll
    for (int c = 0; c < W; c++)
      if (i < m && c < w) a[(int64_t)(k1 + i) + (int64_t)(k1 + c) * lda] = v[r][c];
  }
}

/* The step's row move (every CTA): panel k's pivots (rows k0 .. k0+w-1 swapped in order with
 * dpiv[k0 + i]) as the list of touched rows s.rows[0 .. s.ns) (k0 .. k0+w-1 first) and the row
 * whose old content each receives (s.cont), by simulating the swaps on s.idx; L11 into s.L.
 * update_perm: this CTA also applies the move to dperm.  Ends with s.idx restored.  Device. */
template <int W, int CP>
__device__ __noinline__ void sm_setup(const double *a, int64_t lda, int k0, int w, const int *dpiv, int *dperm,
                         int update_perm, sm_shared<W, CP> &s) {
  const int t = threadIdx.x, k1 = k0 + w;
  if (t < w) s.pv[t] = dpiv[k0 + t];
  for (int e = t; e < w * w; e += SM_T) {
    int r = e % w, i = e / w;
    s.L[r][i] = a[(int64_t)(k0 + r) + (int64_t)(k0 + i) * lda];
  }
  __syncthreads();
  if (t == 0) {
    for (int i = 0; i < w; i++) {
      int x = k0 + i, y = s.pv[i];
      int tx = s.idx[x];
      s.idx[x] = s.idx[y];
      s.idx[y] = tx;
    }
  }
  if (t < w) {
    int p = s.pv[t], k = p >= k1;
    for (int j = 0; j < t; j++) k = k && s.pv[j] != p;
    s.keep[t] = k;
  }
  __syncthreads();
  if (t < 32) {
    int k = t < w ? s.keep[t] : 0;
    unsigned bal = __ballot_sync(SM_FULL, k);
    if (t < w) {
      s.rows[t] = k0 + t;
      s.cont[t] = s.idx[k0 + t];
      if (k) {
        int pos = w + __popc(bal & ((1u << t) - 1u));
        s.rows[pos] = s.pv[t];
        s.cont[pos] = s.idx[s.pv[t]];
      }
    }
    if (t == 0) s.ns = w + __popc(bal);
  }
  __syncthreads();
  const int ns = s.ns;
  int pval = 0;
  if (update_perm && t < ns) pval = dperm[s.cont[t]];
  __syncthreads();
  if (t < ns) s.idx[s.rows[t]] = s.rows[t];
  if (update_perm && t < ns) dperm[s.rows[t]] = pval;
  __syncthreads();
}

/* Columns c0 .. c0+cw-1 (cw <= CW) right of panel k: the step's row move, U12 = L11^-1 A12 (a
 * group of W lanes per column, shuffles), A22 -= L21 U12 on rows k0+w .. n-1.  Device. */
template <int W, int CP, int CW>
__device__ __noinline__ void sm_right(double *a, int64_t lda, int n, int k0, int w, int c0, int cw,
                         sm_shared<W, CP> &s) {
  const int t = threadIdx.x, k1 = k0 + w, ns = s.ns;
  for (int e = t; e < ns * CW; e += SM_T) {
    int j = e % ns, c = e / ns;
    if (c < cw) s.S[j][c] = a[(int64_t)s.cont[j] + (int64_t)(c0 + c) * lda];
  }
  __syncthreads();
  for (int e = t; e < (ns - w) * CW; e += SM_T) {
    int j = w + e % (ns - w), c = e / (ns - w);
    if (c < cw) a[(int64_t)s.rows[j] + (int64_t)(c0 + c) * lda] = s.S[j][c];
  }
  if (t < W * CW) {
    const int g = t / W, lane = t % W;
    double x = (lane < w && g < cw) ? s.S[lane][g] : 0.0;
#pragma unroll 1
    for (int i = 0; i < W; i++) {
      double xi = __shfl_sync(SM_FULL, x, i, W);
      if (i < w && lane > i && lane < w) x -= s.L[lane][i] * xi;
    }
    if (lane < w && g < cw) a[(int64_t)(k0 + lane) + (int64_t)(c0 + g) * lda] = x;
    s.U[lane][g] = x;
  }
  __syncthreads();
  for (int r = k1 + t; r < n; r += SM_T) {
    double acc[CW];
#pragma unroll
    for (int c = 0; c < CW; c++) acc[c] = c < cw ? a[(int64_t)r + (int64_t)(c0 + c) * lda] : 0.0;
#pragma unroll 1
    for (int i = 0; i < W; i++) {
      if (i < w) {
        double l = a[(int64_t)r + (int64_t)(k0 + i) * lda];
#pragma unroll
        for (int c = 0; c < CW; c++) acc[c] -= l * s.U[i][c];
      }
    }
#pragma unroll
    for (int c = 0; c < CW; c++)
      if (c < cw) a[(int64_t)r + (int64_t)(c0 + c) * lda] = acc[c];
  }
  __syncthreads();
}

/* Columns c0 .. c0+cw-1 left of panel k (earlier L panels): the step's row move only.
 * Device. */
template <int W, int CP>
__device__ __noinline__ void sm_left(double *a, int64_t lda, int c0, int cw, sm_shared<W, CP> &s) {
  const int t = threadIdx.x, ns = s.ns;
  for (int e = t; e < ns * SM_LW; e += SM_T) {
    int j = e % ns, c = e / ns;
    if (c < cw) s.S[j][c] = a[(int64_t)s.cont[j] + (int64_t)(c0 + c) * lda];
  }
  __syncthreads();
  for (int e = t; e < ns * SM_LW; e += SM_T) {
    int j = e % ns, c = e / ns;
    if (c < cw) a[(int64_t)s.rows[j] + (int64_t)(c0 + c) * lda] = s.S[j][c];
  }
  __syncthreads();
}

/* The whole LU (see the file's head): stat[0] = min |u_jj|, stat[1] = its column, info[0] = the
 * first exact zero pivot (1-based column, 0: none).  Cooperative launch, SM_T threads, >= 2
 * CTAs.  Device. */
template <int R, int W>
__global__ void __launch_bounds__(SM_T, 1)
sm_lu_k(double *a, int64_t lda, int n, int *dpiv, int *dperm, double *stat, int *info) {
  constexpr int CP = (W * 16 <= SM_T) ? 16 : SM_T / W;   /* CTA 0's chunk: W * CP <= SM_T */
  __shared__ sm_shared<W, CP> s;
  cg::grid_group grid = cg::this_grid();
  const int t = threadIdx.x, b = blockIdx.x, G = gridDim.x;
  double pmin = INFINITY;
  int pidx = 0, pinfo = 0;
  for (int r = t; r < n; r += SM_T) s.idx[r] = r;
  for (int r = b * SM_T + t; r < n; r += G * SM_T) dperm[r] = r;
  if (b == 0) sm_panel<R, W, CP>(a, lda, n, 0, n < W ? n : W, dpiv, s, pmin, pidx, pinfo);
  grid.sync();
  const int nsteps = (n + W - 1) / W;
  for (int k = 0; k < nsteps; k++) {
    const int k0 = k * W, w = n - k0 < W ? n - k0 : W, k1 = k0 + w;
    const int w1 = n - k1 < W ? n - k1 : W;   /* the next panel's width (0: none) */
    sm_setup<W, CP>(a, lda, k0, w, dpiv, dperm, b == G - 1, s);
    if (b == 0) {
      if (w1 > 0) {
        for (int c0 = k1; c0 < k1 + w1; c0 += CP)
          sm_right<W, CP, CP>(a, lda, n, k0, w, c0, k1 + w1 - c0 < CP ? k1 + w1 - c0 : CP, s);
        sm_panel<R, W, CP>(a, lda, n, k1, w1, dpiv, s, pmin, pidx, pinfo);
      }
    } else {
      const int cr0 = k1 + w1;
      const int nright = (n - cr0 + SM_CW - 1) / SM_CW, nleft = (k0 + SM_LW - 1) / SM_LW;
      for (int ci = b - 1; ci < nright + nleft; ci += G - 1) {
        if (ci < nright) {
          int c0 = cr0 + ci * SM_CW;
          sm_right<W, CP, SM_CW>(a, lda, n, k0, w, c0, n - c0 < SM_CW ? n - c0 : SM_CW, s);
        } else {
          int c0 = (ci - nright) * SM_LW;
          sm_left<W, CP>(a, lda, c0, k0 - c0 < SM_LW ? k0 - c0 : SM_LW, s);
        }
      }
    }
    grid.sync();
  }
  if (b == 0 && t == 0) {
    stat[0] = pmin;
    stat[1] = (double)pidx;
    info[0] = pinfo;
  }
}

/* x = U^-1 L^-1 (P x) with sm_lu_k's factors: x[i] = x[dperm[i]], the unit lower solve, the
 * upper solve, in blocks of 32.  One CTA of 1024 threads.  Device. */
__global__ void __launch_bounds__(1024)
sm_getrs_k(int n, const double *a, int64_t lda, const int *dperm, double *x) {
  __shared__ double sx[SM_NMAX];
  const int t = threadIdx.x;
  for (int i = t; i < n; i += blockDim.x) sx[i] = x[dperm[i]];
  __syncthreads();
  const int nbk = (n + 31) / 32;
  for (int B = 0; B < nbk; B++) {
    const int j0 = B * 32, jb = n - j0 < 32 ? n - j0 : 32;
    if (t < 32) {
      double xv = t < jb ? sx[j0 + t] : 0.0;
#pragma unroll 1
      for (int i = 0; i < 32; i++) {
        const int on = i < jb && t > i && t < jb;
        double l = on ? a[(int64_t)(j0 + t) + (int64_t)(j0 + i) * lda] : 0.0;
        double xi = __shfl_sync(SM_FULL, xv, i);
        if (on) xv -= l * xi;
      }
      if (t < jb) sx[j0 + t] = xv;
    }
    __syncthreads();
    for (int r = j0 + jb + t; r < n; r += blockDim.x) {
      double acc = sx[r];
#pragma unroll 4
      for (int i = 0; i < jb; i++) acc -= a[(int64_t)r + (int64_t)(j0 + i) * lda] * sx[j0 + i];
      sx[r] = acc;
    }
    __syncthreads();
  }
  for (int B = nbk - 1; B >= 0; B--) {
    const int j0 = B * 32, jb = n - j0 < 32 ? n - j0 : 32;
    if (t < 32) {
      double xv = t < jb ? sx[j0 + t] : 0.0;
#pragma unroll 1
      for (int i = 31; i >= 0; i--) {
        if (i < jb) {
          if (t == i) xv /= a[(int64_t)(j0 + i) + (int64_t)(j0 + i) * lda];
          double xi = __shfl_sync(SM_FULL, xv, i);
          if (t < i) xv -= a[(int64_t)(j0 + t) + (int64_t)(j0 + i) * lda] * xi;
        }
      }
      if (t < jb) sx[j0 + t] = xv;
    }
    __syncthreads();
    for (int r = t; r < j0; r += blockDim.x) {
      double acc = sx[r];
#pragma unroll 4
      for (int i = 0; i < jb; i++) acc -= a[(int64_t)r + (int64_t)(j0 + i) * lda] * sx[j0 + i];
      sx[r] = acc;
    }
    __syncthreads();
  }
  for (int i = t; i < n; i += blockDim.x) x[i] = sx[i];
}

/* Cooperative launch of sm_lu_k<R, W> on as many CTAs as the work and the device allow.
 * Local. */
template <int R, int W>
static int sm_launch(k_backend *be, int n, double *a, int64_t lda, int *dpiv, int *dperm,
                     double *stat, int *dinfo) {
  int dev = 0, coop = 0, nsm = 0, per = 0;
  HY_CUDA(cudaGetDevice(&dev));
  HY_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  if (!coop) return hy_err(HY_ESYS, "gauss small LU: the device has no cooperative launch");
  HY_CUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  HY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, sm_lu_k<R, W>, SM_T, 0));
  if (per < 1) return hy_err(HY_ESYS, "gauss small LU: the kernel does not fit on a multiprocessor");
  /* one CTA per multiprocessor at most (a cheaper grid.sync), no more than the chunks of the
   * first step need, two at least (CTA 0 factors, the others update) */
  int chunks = (n + SM_CW - 1) / SM_CW + (n + SM_LW - 1) / SM_LW;
  int G = nsm < chunks + 1 ? nsm : chunks + 1;
  if (G > nsm * per) G = nsm * per;
  if (G < 2) G = 2;
  if (G > nsm * per) return hy_err(HY_ESYS, "gauss small LU: needs 2 co-resident CTAs, the device holds %d", nsm * per);
  int in = n;
  void *args[] = { &a, &lda, &in, &dpiv, &dperm, &stat, &dinfo };
  HY_CUDA(cudaLaunchCooperativeKernel((const void *)sm_lu_k<R, W>, dim3((unsigned)G), dim3(SM_T), args, 0,
                                      k_cuda_cur(be)));
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* getrf_small, K_GAUSS_SMALL_COOP: the LU in one cooperative launch, then info, the smallest |u_jj|
 * and its column to the host (one synchronisation).  dpiv: device, 2 n + 8 ints (pivots, row
 * order, the kernel's results).  Local. */
static int sm_getrf(k_backend *be, int64_t n, double *a, int64_t lda, int *dpiv, int *info,
                    double *minpiv, int64_t *minidx) {
  if (n < 1 || n > SM_NMAX)
    return hy_err(HY_EUSAGE, "gauss small LU: n = %lld (allowed: 1 .. %d)", (long long)n, SM_NMAX);
  int in = (int)n, *dperm = dpiv + n, *dinfo = dpiv + 2 * n + 6;
  double *stat = (double *)(void *)(dpiv + 2 * n);   /* 8-byte aligned: 2 n ints from the base */
  if (n <= 512) HY_CALL((sm_launch<1, 32>(be, in, a, lda, dpiv, dperm, stat, dinfo)));
  else if (n <= 1024) HY_CALL((sm_launch<2, 16>(be, in, a, lda, dpiv, dperm, stat, dinfo)));
  else HY_CALL((sm_launch<4, 8>(be, in, a, lda, dpiv, dperm, stat, dinfo)));

  cudaStream_t s = k_cuda_cur(be);
  double h[4];
  HY_CUDA(cudaMemcpyAsync(h, stat, 4 * sizeof(double), cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaStreamSynchronize(s));
  int hi[2];
  memcpy(hi, h + 3, sizeof hi);
  *minpiv = h[0];
  *minidx = (int64_t)h[1];
  *info = hi[0];
  return HY_OK;
}

/* getrs_small, K_GAUSS_SMALL_COOP: x = A^-1 x with sm_getrf's factors (dpiv as there), one launch,
 * queued.  Local. */
static int sm_getrs(k_backend *be, int64_t n, const double *a, int64_t lda, const int *dpiv,
                    double *x) {
  if (n < 1 || n > SM_NMAX)
    return hy_err(HY_EUSAGE, "gauss small solve: n = %lld (allowed: 1 .. %d)", (long long)n, SM_NMAX);
  sm_getrs_k<<<1, 1024, 0, k_cuda_cur(be)>>>((int)n, a, lda, dpiv + n, x);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The steps LU (gauss_small_step_cuda.cu). */
extern "C" int k_cuda_small_step_getrf(k_backend *be, int64_t n, double *a, int64_t lda, int *dpiv,
                                       int *info, double *minpiv, int64_t *minidx);
extern "C" int k_cuda_small_step_getrs(k_backend *be, int64_t n, const double *a, int64_t lda,
                                       const int *dpiv, double *x);

/* k_gauss_ops getrf_small: the LU of kind (K_GAUSS_SMALL_STEPS or _COOP).  Local. */
extern "C" int k_cuda_small_getrf(k_backend *be, int kind, int64_t n, double *a, int64_t lda, int *dpiv,
                                 int *info, double *minpiv, int64_t *minidx) {
  if (kind == K_GAUSS_SMALL_COOP) return sm_getrf(be, n, a, lda, dpiv, info, minpiv, minidx);
  return k_cuda_small_step_getrf(be, n, a, lda, dpiv, info, minpiv, minidx);
}

/* k_gauss_ops getrs_small: the solve with the factors of getrf_small's kind.  Local. */
extern "C" int k_cuda_small_getrs(k_backend *be, int kind, int64_t n, const double *a, int64_t lda,
                                 const int *dpiv, double *x) {
  if (kind == K_GAUSS_SMALL_COOP) return sm_getrs(be, n, a, lda, dpiv, x);
  return k_cuda_small_step_getrs(be, n, a, lda, dpiv, x);
}
