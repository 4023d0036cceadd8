/* gauss_panel_cuda.cu - the fused base block of the blocked LU's recursive panel on the CUDA
 * backend (gauss.panel = fused): the LU with partial pivoting of an m x bw block (bw <= 32) in
 * one cooperative launch.  The rows are split into G chunks, one per thread block, each chunk
 * held in shared memory for the whole factorization; per column one grid-wide synchronisation:
 * every block publishes its largest |a_ij| (the lowest row on ties) with that row's values (and
 * the block that holds row j its row j), then every block picks the winner, swaps the two rows
 * in its own chunk, scales the column and applies the rank-1 update to its rows.  The vendor's
 * getrf spends ~10 us per column in separate launches (pivot search, swap, scale, update); this
 * spends one grid barrier.  Used through gauss_cuda_panel_base (gauss_panel_cuda.h). */
#include "k_cuda.h"
#include "gauss_panel_cuda.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define PB_THREADS 512
#define PB_BWMAX 32

/* (ov, oi) beats (bv, bi): larger magnitude, or equal and the lower row (-1: none).  Device. */
__device__ inline bool pb_better(double ov, int oi, double bv, int bi) {
  return ov > bv || (ov == bv && oi >= 0 && (bi < 0 || oi < bi));
}

/* Reduce (v, i) over the warp: lane 0 gets the best.  Device. */
__device__ inline void pb_warp_best(double &v, int &i) {
  for (int o = 16; o > 0; o >>= 1) {
    double ov = __shfl_down_sync(0xffffffffu, v, o);
    int oi = __shfl_down_sync(0xffffffffu, i, o);
    if (pb_better(ov, oi, v, i)) { v = ov; i = oi; }
  }
}

/* The block's best (v, i) over its threads' values: every thread gets it.  Device. */
__device__ inline void pb_block_best(double &v, int &i, double *wv, int *wi) {
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  pb_warp_best(v, i);
  if (lane == 0) { wv[wid] = v; wi[wid] = i; }
  __syncthreads();
  if (wid == 0) {
    v = lane < nw ? wv[lane] : -1.0;
    i = lane < nw ? wi[lane] : -1;
    pb_warp_best(v, i);
    if (lane == 0) { wv[0] = v; wi[0] = i; }
  }
  __syncthreads();
  v = wv[0];
  i = wi[0];
  __syncthreads();
}

/* The fused base block: a (ld lda) m x bw, block b holds rows [b rpb, b rpb + nr) in s (ld
 * rpb | 1: odd, so that a row's bw values - read and written across the columns by the
 * candidate rows, the swap and the pivot row - fall in distinct shared-memory banks);
 * piv[j] = poff + the pivot row of column j (0-based from a's top).  Scratch (global): crow
 * (2 x G x bw candidate rows), cval / cidx (2 x G candidates), rowj (2 x bw): two sets, by the
 * column's parity, so that a block that runs ahead never overwrites what a slower one still
 * reads (between its write of column j + 2 and a slow block's read of column j lies the grid
 * barrier of column j + 1).  Per column: the block's candidate published, one grid barrier
 * (cooperative groups' grid sync orders the writes before it for every block after it: no
 * extra fence), then warp 0 alone picks the winner over the G candidates while warp 1 reads
 * row j, one block barrier, the winner's row read; the swap, the scaling and the rank-1 update
 * in shared memory.  Device (cooperative launch). */
template <typename T>
__global__ void __launch_bounds__(PB_THREADS) panel_base_k(T *a, int64_t lda, int m, int bw, int rpb,
                                                           int *piv, int poff, T *crow, double *cval,
                                                           int *cidx, T *rowj) {
  extern __shared__ double pb_sh[];
  T *s = (T *)pb_sh;
  __shared__ double wv[PB_THREADS / 32];
  __shared__ int wi[PB_THREADS / 32];
  __shared__ T u[PB_BWMAX];
  __shared__ T rj[PB_BWMAX];
  cg::grid_group grid = cg::this_grid();
  int b = blockIdx.x, G = gridDim.x, ls = rpb | 1, lane = threadIdx.x & 31;
  int r0 = b * rpb, nr = m - r0 < rpb ? m - r0 : rpb;
  for (int t = threadIdx.x; t < nr * bw; t += blockDim.x) {
    int i = t % nr, c = t / nr;
    s[i + c * ls] = a[(int64_t)(r0 + i) + c * lda];
  }
  __syncthreads();
  int nj = m < bw ? m : bw;
  for (int j = 0; j < nj; j++) {
    int par = j & 1;
    /* this block's candidate: the largest |a_ij| over its rows i >= j */
    double bv = -1.0;
    int bi = -1;
    for (int i = threadIdx.x; i < nr; i += blockDim.x) {
      if (r0 + i < j) continue;
      double v = fabs((double)s[i + j * ls]);
      if (v > bv) { bv = v; bi = r0 + i; }
    }
    pb_block_best(bv, bi, wv, wi);
    if (threadIdx.x == 0) {
      cval[par * G + b] = bv;
      cidx[par * G + b] = bi;
    }
    for (int c = threadIdx.x; c < bw; c += blockDim.x) {
      if (bi >= 0) crow[(int64_t)(par * G + b) * bw + c] = s[(bi - r0) + c * ls];
      if (j >= r0 && j < r0 + nr) rowj[par * bw + c] = s[(j - r0) + c * ls];
    }
    grid.sync();
    /* the winner over the blocks (every block the same), by warp 0; row j by warp 1 */
    if (threadIdx.x < 32) {
      bv = -1.0;
      bi = -1;
      for (int g = lane; g < G; g += 32) {
        double v = __ldcg(cval + par * G + g);
        int i = __ldcg(cidx + par * G + g);
        if (pb_better(v, i, bv, bi)) { bv = v; bi = i; }
      }
      pb_warp_best(bv, bi);
      if (lane == 0) { wv[0] = bv; wi[0] = bi; }
    } else if (threadIdx.x < 32 + bw) {
      rj[threadIdx.x - 32] = __ldcg(rowj + par * bw + (threadIdx.x - 32));
    }
    __syncthreads();
    bi = wi[0];
    int p = bi >= 0 ? bi : j;   /* none (NaN column): no swap */
    int wb = p / rpb;
    for (int c = threadIdx.x; c < bw; c += blockDim.x)
      u[c] = bi >= 0 ? __ldcg(crow + (int64_t)(par * G + wb) * bw + c) : rj[c];
    if (b == 0 && threadIdx.x == 0) piv[j] = p + poff;
    __syncthreads();
    if (p != j) {
      for (int c = threadIdx.x; c < bw; c += blockDim.x) {
        if (p >= r0 && p < r0 + nr) s[(p - r0) + c * ls] = rj[c];
        if (j >= r0 && j < r0 + nr) s[(j - r0) + c * ls] = u[c];
      }
    }
    __syncthreads();
    /* scale the column below the pivot, rank-1 update of the rest of the block's rows */
    T pv = u[j];
    for (int i = threadIdx.x; i < nr; i += blockDim.x) {
      if (r0 + i <= j) continue;
      T l = s[i + j * ls];
      if (pv != (T)0) l = l / pv;
      s[i + j * ls] = l;
      for (int c = j + 1; c < bw; c++) s[i + c * ls] -= l * u[c];
    }
    __syncthreads();
  }
  for (int t = threadIdx.x; t < nr * bw; t += blockDim.x) {
    int i = t % nr, c = t / nr;
    a[(int64_t)(r0 + i) + c * lda] = s[i + c * ls];
  }
}

/* Launch the fused base block when it fits (see gauss_panel_cuda.h).  Local. */
template <typename T>
static int pb_launch(cudaStream_t st, int64_t m, int bw, T *a, int64_t lda, int *piv, int poff,
                     void *scratch, int rows, int *done) {
  int dev = 0, nsm = 0, optin = 0;
  HY_CUDA(cudaGetDevice(&dev));
  HY_CUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  HY_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  size_t smax = (size_t)optin - 4096;   /* room for the static shared arrays */
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
  HY_CUDA(cudaFuncSetAttribute(panel_base_k<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  int occ = 0;
  HY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, panel_base_k<T>, PB_THREADS, shm));
  if ((int64_t)occ * nsm < G) return HY_OK;
  T *crow = (T *)scratch;
  double *cval = (double *)((char *)scratch + (size_t)2 * GAUSS_PB_GMAX * PB_BWMAX * 8);
  int *cidx = (int *)(cval + 2 * GAUSS_PB_GMAX);
  T *rowj = (T *)(cidx + 2 * GAUSS_PB_GMAX);
  int im = (int)m;
  void *args[] = { &a, &lda, &im, &bw, &rpb, &piv, &poff, &crow, &cval, &cidx, &rowj };
  HY_CUDA(cudaLaunchCooperativeKernel((const void *)panel_base_k<T>, dim3((unsigned)G), dim3(PB_THREADS),
                                      args, shm, st));
  *done = 1;
  return HY_OK;
}

int gauss_cuda_panel_base(cudaStream_t st, int sp, int64_t m, int bw, void *a, int64_t lda, int *piv,
                          int poff, void *scratch, int rows, int *done) {
  *done = 0;
  if (m <= 0 || bw <= 0) { *done = 1; return HY_OK; }
  if (bw > PB_BWMAX || m > 2147483647LL) return HY_OK;
  if (sp) return pb_launch<float>(st, m, bw, (float *)a, lda, piv, poff, scratch, rows, done);
  return pb_launch<double>(st, m, bw, (double *)a, lda, piv, poff, scratch, rows, done);
}
