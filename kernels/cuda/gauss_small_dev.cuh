/* gauss_small_dev.cuh - device functions both small-n LU kernels use (gauss_small_cuda.cu: the
 * cooperative kernel, coop; gauss_small_step_cuda.cu: the steps LU): the pivot search over a
 * thread's panel rows and its warp by shuffles of doubles, the comparison that orders two
 * candidates, thread 0's record of a column's pivot, and the rotation of a thread's panel rows
 * by one column (the rolled column loop's).  Forced inline.  Tested on the host under the CPU
 * emulator (gauss_small_dev_emu).  Taking them from here changed the kernels' instruction
 * schedule and register use, not their floating-point arithmetic (per kernel the same counts of
 * DADD / DMUL / DFMA / MUFU in the SASS; comparisons, selects and moves differ): their factors
 * and pivots are bit for bit those of before (gauss_gpu_small_time compares their digests with
 * those of the GPU run before the change).  No state. */
#ifndef GAUSS_SMALL_DEV_CUH
#define GAUSS_SMALL_DEV_CUH

#include <math.h>

/* Candidate (ov, oi) beats (bv, bi): a larger magnitude, or the same one in a smaller row.
 * Device. */
__device__ __forceinline__ bool gs_beats(double ov, int oi, double bv, int bi) {
  return ov > bv || (ov == bv && oi < bi);
}

/* The largest |v[r][0]| (NaN taken as +inf) over this thread's rows i = t + r NT with
 * j <= i < m, then over the warp by five rounds of shuffles (the first row on ties): bv, bi
 * come in as "no row" (-1, INT_MAX) and leave as the warp's best.  Every lane of the warp.
 * Device. */
template <int R, int W, int NT>
__device__ __forceinline__ void gs_best_shfl(const double (&v)[R][W], int t, int j, int m, double &bv,
                                             int &bi) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    int i = t + r * NT;
    if (i >= j && i < m) {
      double x = fabs(v[r][0]);
      if (isnan(x)) x = INFINITY;
      if (x > bv) { bv = x; bi = i; }
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    double ov = __shfl_xor_sync(0xffffffffu, bv, o);
    int oi = __shfl_xor_sync(0xffffffffu, bi, o);
    if (gs_beats(ov, oi, bv, bi)) { bv = ov; bi = oi; }
  }
}

/* Column kk + j's pivot (row kk + p, value piv), by thread t = 0: dpiv[kk + j] (the absolute
 * row), the smallest |u_jj| so far and its column (pmin, pidx), the first exact zero pivot
 * (pinfo, 1-based column; 0: none yet).  Every thread (only thread 0 writes).  Device. */
__device__ __forceinline__ void gs_pivot_record(int t, int *dpiv, int kk, int j, int p, double piv,
                                                double &pmin, int &pidx, int &pinfo) {
  if (t == 0) {
    dpiv[kk + j] = kk + p;
    double ap = fabs(piv);
    if (!(ap >= pmin)) { pmin = ap; pidx = kk + j; }
    if (piv == 0.0 && pinfo == 0) pinfo = kk + j + 1;
  }
}

/* The W values of each of this thread's R rows rotated by one (v[r][c] = v[r][c + 1], the
 * first to the end): the column being factored is always v[.][0], and after W rotations every
 * column is back in its place.  Device. */
template <int R, int W>
__device__ __forceinline__ void gs_rotate(double (&v)[R][W]) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    double t0 = v[r][0];
#pragma unroll
    for (int c = 0; c < W - 1; c++) v[r][c] = v[r][c + 1];
    v[r][W - 1] = t0;
  }
}

#endif
