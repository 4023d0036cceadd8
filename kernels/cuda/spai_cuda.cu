/* spai_cuda.cu - the spai kernels on a CUDA device.
 *
 * SPAI columns (HybridSPAI's Compute stage), batched over all of this rank's columns:
 *   index sets   a warp per column merges the sorted columns of A named by J_c (k-way merge,
 *                a warp minimum per output index) into the sorted I_c;
 *   submatrices  a warp per column scatters A(I_c, J_c) into a dense column-major slot;
 *   QR + solve   Householder QR of A(I_c, J_c), Q^T e_k and a guarded back substitution, FP64, one
 *                thread block per column, in three classes chosen by (|I_c|, |J_c|): a warp (32
 *                threads) in shared memory for small columns, a block in shared memory for medium
 *                ones, a block on the global-memory slot for large ones (thresholds: config keys);
 *                before them the warp class (|J_c| <= 31, |I_c| <= warp_rows): a warp per column
 *                that scatters A(I_c, J_c) from B's rows into shared memory itself (no workspace,
 *                no submatrix kernel) and keeps the rows of the two columns of each Householder
 *                update in registers (lane t: rows t, t + 32, ..), batched by |I_c| (<= 32, 64,
 *                128, 256 rows: one kernel instance each).
 * Solver: our CSR SpMV (mat_spmv_own: 1..32 threads per row, chosen by the mean row length) or
 * cuSPARSE SpMV (mat_spmv: generic API, CSR ALG1 after cusparseSpMV_preprocess); the vector
 * operations are the shared ones of k_vec.h (vec_cuda.cu).  All work is queued on the backend's
 * stream. */
#include "k_cuda.h"
#include "k_spai.h"

#include <limits.h>
#include <time.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cub/cub.cuh>

/* Blocks of 256 threads covering n.  Local. */
static inline unsigned grid_of(int64_t n) { return (unsigned)((n + 255) / 256); }

/* ------------------------------------------------------------------ device helpers */
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ int warp_min_int(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
/* Position of g in sorted I[0..n), or -1. */
__device__ __forceinline__ int find_sorted(const int32_t *I, int n, int32_t g) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) >> 1;
    int32_t v = I[mid];
    if (v == g) return mid;
    if (v < g) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
/* x_j of the guarded back substitution: sum / r_jj, or 0 where |r_jj| <= rtol (the pivot
 * dropped: sum^2 added to *dropped, *def = 1). */
__device__ __forceinline__ double guarded_solve(double sum, double rjj, double rtol,
                                                double *dropped, int *def) {
  if (fabs(rjj) <= rtol) {
    *dropped += sum * sum;
    *def = 1;
    return 0;
  }
  return sum / rjj;
}
/* Sum over the block (blockDim.x a multiple of 32, <= 1024); every thread gets the result. */
__device__ double block_sum(double v, double *red) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0) red[w] = v;
  __syncthreads();
  double s = 0;
  for (int i = 0; i < nw; i++) s += red[i];
  return s;
}

/* ------------------------------------------------------------------ index sets */
/* I_c = sorted union of the B rows jloc[jptr[c] .. jptr[c+1]); a warp per column.  Lane t owns
 * the lists t, t + 32, ...; their heads live in head[] (lane-private entries). */
__global__ void k_index(int64_t ncols, const int64_t *__restrict__ jptr,
                        const int32_t *__restrict__ jloc, const int64_t *__restrict__ bptr,
                        const int32_t *__restrict__ bcol, const int64_t *__restrict__ iub,
                        int32_t *__restrict__ iset, int32_t *__restrict__ isize,
                        int64_t *__restrict__ head) {
  int lane = threadIdx.x & 31;
  int64_t c = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (c >= ncols) return;
  int64_t j0 = jptr[c];
  int nj = (int)(jptr[c + 1] - j0);
  /* up to four lists per lane in registers, the rest in head[] */
  int64_t h[4], e[4];
  for (int q = 0; q < 4; q++) {
    int t = lane + 32 * q;
    if (t < nj) {
      h[q] = bptr[jloc[j0 + t]];
      e[q] = bptr[jloc[j0 + t] + 1];
    } else {
      h[q] = e[q] = 0;
    }
  }
  for (int t = lane + 128; t < nj; t += 32) head[j0 + t] = bptr[jloc[j0 + t]];
  int32_t *out = iset + iub[c];
  int cnt = 0;
  for (;;) {
    int mn = INT_MAX;
    for (int q = 0; q < 4; q++)
      if (h[q] < e[q]) mn = min(mn, bcol[h[q]]);
    for (int t = lane + 128; t < nj; t += 32) {
      int64_t hh = head[j0 + t];
      if (hh < bptr[jloc[j0 + t] + 1]) mn = min(mn, bcol[hh]);
    }
    mn = warp_min_int(mn);
    if (mn == INT_MAX) break;
    if (lane == 0) out[cnt] = mn;
    cnt++;
    for (int q = 0; q < 4; q++)
      if (h[q] < e[q] && bcol[h[q]] == mn) h[q]++;
    for (int t = lane + 128; t < nj; t += 32) {
      int64_t hh = head[j0 + t];
      if (hh < bptr[jloc[j0 + t] + 1] && bcol[hh] == mn) head[j0 + t] = hh + 1;
    }
  }
  if (lane == 0) isize[c] = cnt;
}

/* ------------------------------------------------------------------ submatrices */
/* A(I_c, J_c) into work + aoff[c - c0] (column-major, ld |I_c|); a warp per column. */
__global__ void k_submat(int64_t c0, int64_t c1, const int64_t *__restrict__ jptr,
                         const int32_t *__restrict__ jloc, const int64_t *__restrict__ bptr,
                         const int32_t *__restrict__ bcol, const double *__restrict__ bval,
                         const int64_t *__restrict__ iub, const int32_t *__restrict__ iset,
                         const int32_t *__restrict__ isize, const int64_t *__restrict__ aoff,
                         double *__restrict__ work) {
  int lane = threadIdx.x & 31;
  int64_t c = c0 + (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  if (c >= c1) return;
  int m = isize[c];
  int64_t j0 = jptr[c];
  int n = (int)(jptr[c + 1] - j0);
  if (aoff[c - c0 + 1] - aoff[c - c0] < (int64_t)m * n) return;  /* fused: built by k_qr */
  double *a = work + aoff[c - c0];
  const int32_t *I = iset + iub[c];
  for (int64_t t = lane; t < (int64_t)m * n; t += 32) a[t] = 0.0;
  __syncwarp();
  for (int j = 0; j < n; j++) {
    int r = jloc[j0 + j];
    for (int64_t f = bptr[r] + lane; f < bptr[r + 1]; f += 32) {
      int p = find_sorted(I, m, bcol[f]);
      if (p >= 0) a[(int64_t)j * m + p] = bval[f];
    }
  }
}

/* ------------------------------------------------------------------ QR + solve */
/* B's rows and the J entries as rows of B (what a fused k_qr scatters A(I_c, J_c) from). */
typedef struct {
  const int32_t *jloc;
  const int64_t *bptr;
  const int32_t *bcol;
  const double *bval;
} c_bsrc;

/* A(I_c, J_c) scattered from B's rows into a (shared memory, column-major, ld m) by the block:
 * the values k_submat writes to the workspace, in the same places.  Ends with a barrier. */
__device__ void submat_shared(const c_bsrc &b, const int32_t *__restrict__ I, int m, int64_t j0,
                              int n, double *a) {
  const int tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, wid = tid >> 5, nw = nt >> 5;
  for (int64_t t = tid; t < (int64_t)m * n; t += nt) a[t] = 0.0;
  __syncthreads();
  for (int j = wid; j < n; j += nw) {
    int r = b.jloc[j0 + j];
    for (int64_t f = b.bptr[r] + lane; f < b.bptr[r + 1]; f += 32) {
      int p = find_sorted(I, m, b.bcol[f]);
      if (p >= 0) a[(int64_t)j * m + p] = b.bval[f];
    }
  }
  __syncthreads();
}

/* One block per column of list[]: Householder QR in FP64 (LAPACK's dlarfg convention), Q^T e_k,
 * back substitution dropping pivots below 1e-12 max |R_jj|, residual ||A m - e_k||.  SH: the
 * submatrix and right-hand side in shared memory, copied from the workspace (k_submat's) or,
 * FUSE, scattered there from B's rows (no workspace, no k_submat: the same matrix); else they
 * are worked on in place (rhs in rwork + roff). */
template <bool SH, bool FUSE>
__global__ void k_qr(const int32_t *__restrict__ list, int64_t c0, const int64_t *__restrict__ jptr,
                     const int32_t *__restrict__ kglob, const int64_t *__restrict__ iub,
                     const int32_t *__restrict__ iset, const int32_t *__restrict__ isize,
                     const int64_t *__restrict__ aoff, double *__restrict__ work,
                     const int64_t *__restrict__ roff, double *__restrict__ rwork,
                     double *__restrict__ mval, double *__restrict__ res,
                     unsigned long long *deficient, c_bsrc bsrc) {
  extern __shared__ double sm[];
  __shared__ double red[32];
  __shared__ int s_pk;
  const int tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, wid = tid >> 5, nw = nt >> 5;
  const int64_t c = list[blockIdx.x];
  const int m = isize[c];
  const int64_t j0 = jptr[c];
  const int n = (int)(jptr[c + 1] - j0);
  const int nmin = m < n ? m : n;
  double *x = mval + j0;
  if (tid == 0) s_pk = find_sorted(iset + iub[c], m, kglob[c]);
  __syncthreads();
  const int pk = s_pk;
  if (pk < 0) {  /* e_k out of reach of A(:, J_c): m_c = 0, residual 1 */
    for (int j = tid; j < n; j += nt) x[j] = 0.0;
    if (tid == 0) {
      res[c] = 1.0;
      atomicAdd(deficient, 1ull);
    }
    return;
  }
  double *a, *rhs;
  if (SH && FUSE) {
    a = sm;
    rhs = sm + (int64_t)m * n;
    submat_shared(bsrc, iset + iub[c], m, j0, n, a);
  } else if (SH) {
    a = sm;
    rhs = sm + (int64_t)m * n;
    const double *g = work + aoff[c - c0];
    for (int64_t t = tid; t < (int64_t)m * n; t += nt) a[t] = g[t];
  } else {
    a = work + aoff[c - c0];
    rhs = rwork + roff[c - c0];
  }
  for (int i = tid; i < m; i += nt) rhs[i] = (i == pk) ? 1.0 : 0.0;
  __syncthreads();

  for (int j = 0; j < nmin; j++) {
    double *aj = a + (int64_t)j * m;
    /* alpha is read by every thread before block_sum's barriers, so thread 0's write of beta
     * below comes after all the reads (no barrier of its own) */
    const double alpha = aj[j];
    double loc = 0;
    for (int i = j + tid; i < m; i += nt) loc += aj[i] * aj[i];
    double s = block_sum(loc, red);
    double beta = 0, tau = 0, scale = 0;
    if (s > 0) {
      double nrm = sqrt(s);
      beta = alpha >= 0 ? -nrm : nrm;
      tau = (beta - alpha) / beta;
      scale = 1.0 / (alpha - beta);
    }
    if (s > 0) {
      /* apply H = I - tau v v^T to columns j+1 .. n-1 and to rhs (column n), v = (1, aj[i] *
       * scale for i > j): each v_i formed where it is used (the same rounded product as storing
       * it first), never stored: the vector is dead after this step (the back substitution
       * reads R and rhs only), so no scaling pass and no barrier before the updates */
      if (tid == 0) aj[j] = beta;
      for (int l = j + 1 + wid; l <= n; l += nw) {
        double *al = l < n ? a + (int64_t)l * m : rhs;
        double d = 0, alj = al[j];  /* read before lane 0 updates it (after the shuffles) */
        for (int i = j + 1 + lane; i < m; i += 32) d += (aj[i] * scale) * al[i];
        d = warp_sum(d) + alj;
        d *= tau;
        if (lane == 0) al[j] -= d;
        for (int i = j + 1 + lane; i < m; i += 32) al[i] -= d * (aj[i] * scale);
      }
    }
    __syncthreads();
  }

  /* back substitution by warp 0 */
  if (wid == 0) {
    double rmax = 0;
    for (int j = lane; j < nmin; j += 32) rmax = fmax(rmax, fabs(a[(int64_t)j * m + j]));
    rmax = warp_max(rmax);
    double rtol = 1e-12 * rmax, dropped = 0;
    int def = n > m;
    for (int l = nmin + lane; l < n; l += 32) x[l] = 0.0;
    __syncwarp();
    for (int j = nmin - 1; j >= 0; j--) {
      double p = 0;
      for (int l = j + 1 + lane; l < n; l += 32) p += a[(int64_t)l * m + j] * x[l];
      p = warp_sum(p);
      const double xj = guarded_solve(rhs[j] - p, a[(int64_t)j * m + j], rtol, &dropped, &def);
      if (lane == 0) x[j] = xj;
      __syncwarp();
      __threadfence_block();
    }
    double tail = 0;
    for (int i = nmin + lane; i < m; i += 32) tail += rhs[i] * rhs[i];
    tail = warp_sum(tail);
    if (lane == 0) {
      res[c] = sqrt(tail + dropped);
      if (def) atomicAdd(deficient, 1ull);
    }
  }
}

/* Rows j .. m - 1 of a column of the warp class into the lanes' registers w (lane t: rows
 * t + 32 q, 0 outside [j, m)) and the lane's part of the dot with u (u may be w itself: the
 * column's squared norm); the one column load and dot of the QR step and of its updates. */
template <int RPL>
__device__ __forceinline__ double warp_load_dot(const double *col, const double (&u)[RPL],
                                                double (&w)[RPL], int j, int m, int lane) {
  double d = 0;
#pragma unroll
  for (int q = 0; q < RPL; q++) {
    const int i = lane + 32 * q;
    w[q] = (i >= j && i < m) ? col[i] : 0.0;
    d += u[q] * w[q];
  }
  return d;
}

/* The Householder update of column al (rows j.. of m; lane t holds rows t + 32 q in w) by the
 * reflector v (the same rows in registers; v = 1 at row j): al -= tau (v^T al) v.  Returns
 * nothing; al's rows >= j are rewritten by their owners. */
template <int RPL>
__device__ __forceinline__ void warp_reflect(double *al, const double (&v)[RPL], double tau,
                                             int j, int m, int lane) {
  double w[RPL];
  double d = warp_load_dot<RPL>(al, v, w, j, m, lane);
  d = warp_sum(d) * tau;
#pragma unroll
  for (int q = 0; q < RPL; q++) {
    const int i = lane + 32 * q;
    if (i >= j && i < m) al[i] = w[q] - d * v[q];
  }
}

/* warp_reflect of two columns at once (independent loads, dots and shuffles interleaved: the
 * same values as two warp_reflect calls). */
template <int RPL>
__device__ __forceinline__ void warp_reflect2(double *a1, double *a2, const double (&v)[RPL],
                                              double tau, int j, int m, int lane) {
  double w1[RPL], w2[RPL];
  double d1 = warp_load_dot<RPL>(a1, v, w1, j, m, lane);
  double d2 = warp_load_dot<RPL>(a2, v, w2, j, m, lane);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    d1 += __shfl_xor_sync(0xffffffffu, d1, o);
    d2 += __shfl_xor_sync(0xffffffffu, d2, o);
  }
  d1 *= tau;
  d2 *= tau;
#pragma unroll
  for (int q = 0; q < RPL; q++) {
    const int i = lane + 32 * q;
    if (i >= j && i < m) {
      a1[i] = w1[q] - d1 * v[q];
      a2[i] = w2[q] - d2 * v[q];
    }
  }
}

/* The warp class: WPB warps per block, warp w solves column list[blockIdx.x WPB + w] in its own
 * slice of dynamic shared memory (stride doubles): A(I_c, J_c) (n = |J_c| <= 31 columns of m
 * rows, column-major) and e_k as column n, scattered from B's rows (the values k_submat would
 * write), I_c beside them.  Householder QR in FP64 with k_qr's convention (beta = -sign(alpha)
 * ||a_j(j:m)||, v_i = a_ij / (alpha - beta)), Q^T e_k by the same reflections, the guarded back
 * substitution with x_l in lane l's register, residual ||A m - e_k||.  Row i is read and written
 * only by lane i % 32 during the reflections (alpha and beta aside): no barrier but __syncwarp. */
template <int RPL, int WPB>
__global__ void __launch_bounds__(32 * WPB)
k_qr_warp(const int32_t *__restrict__ list, int64_t nlist, int64_t stride,
          const int64_t *__restrict__ jptr, const int32_t *__restrict__ kglob,
          const int64_t *__restrict__ iub, const int32_t *__restrict__ iset,
          const int32_t *__restrict__ isize, double *__restrict__ mval, double *__restrict__ res,
          unsigned long long *deficient, c_bsrc b) {
  extern __shared__ double sm[];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const int64_t slot = (int64_t)blockIdx.x * WPB + wid;
  if (slot >= nlist) return;
  const int64_t c = list[slot];
  const int m = isize[c];
  const int64_t j0 = jptr[c];
  const int n = (int)(jptr[c + 1] - j0);
  const int nmin = m < n ? m : n;
  double *a = sm + stride * wid;
  int32_t *I = (int32_t *)(a + (int64_t)m * (n + 1));
  const int32_t *Ig = iset + iub[c];
  for (int i = lane; i < m; i += 32) I[i] = Ig[i];
  for (int t = lane; t < m * (n + 1); t += 32) a[t] = 0.0;
  __syncwarp();
  const int pk = find_sorted(I, m, kglob[c]);
  double *x = mval + j0;
  if (pk < 0) {  /* e_k out of reach of A(:, J_c): m_c = 0, residual 1 */
    for (int j = lane; j < n; j += 32) x[j] = 0.0;
    if (lane == 0) {
      res[c] = 1.0;
      atomicAdd(deficient, 1ull);
    }
    return;
  }
  for (int j = 0; j < n; j++) {
    const int r = b.jloc[j0 + j];
    for (int64_t f = b.bptr[r] + lane; f < b.bptr[r + 1]; f += 32) {
      const int p = find_sorted(I, m, b.bcol[f]);
      if (p >= 0) a[j * m + p] = b.bval[f];
    }
  }
  __syncwarp();
  if (lane == (pk & 31)) a[n * m + pk] = 1.0;
  __syncwarp();

  for (int j = 0; j < nmin; j++) {
    double *aj = a + j * m;
    double v[RPL];
    const double loc = warp_load_dot<RPL>(aj, v, v, j, m, lane);
    const double s = warp_sum(loc);   /* the same bits in every lane (butterfly) */
    const double alpha = aj[j];
    __syncwarp();                     /* every lane has read alpha before beta replaces it */
    if (s > 0) {
      const double nrm = sqrt(s);
      const double beta = alpha >= 0 ? -nrm : nrm;
      const double tau = (beta - alpha) / beta;
      const double scale = 1.0 / (alpha - beta);
#pragma unroll
      for (int q = 0; q < RPL; q++) {
        const int i = lane + 32 * q;
        v[q] = i == j ? 1.0 : (i > j && i < m ? v[q] * scale : 0.0);
      }
      if (lane == (j & 31)) aj[j] = beta;
      int l = j + 1;
      for (; l + 1 <= n; l += 2) warp_reflect2<RPL>(a + l * m, a + (l + 1) * m, v, tau, j, m, lane);
      if (l <= n) warp_reflect<RPL>(a + l * m, v, tau, j, m, lane);
    }
    __syncwarp();
  }

  /* back substitution: x_l in lane l (n <= 31), R's row j read across the lanes */
  double rmax = 0;
  for (int j = lane; j < nmin; j += 32) rmax = fmax(rmax, fabs(a[j * m + j]));
  rmax = warp_max(rmax);
  const double rtol = 1e-12 * rmax;
  const double *rhs = a + n * m;
  double dropped = 0, xl = 0;
  int def = n > m;
  for (int j = nmin - 1; j >= 0; j--) {
    double p = (lane > j && lane < n) ? a[lane * m + j] * xl : 0.0;
    p = warp_sum(p);
    const double xj = guarded_solve(rhs[j] - p, a[j * m + j], rtol, &dropped, &def);
    if (lane == j) xl = xj;
  }
  if (lane < n) x[lane] = xl;
  double tail = 0;
  for (int i = nmin + lane; i < m; i += 32) tail += rhs[i] * rhs[i];
  tail = warp_sum(tail);
  if (lane == 0) {
    res[c] = sqrt(tail + dropped);
    if (def) atomicAdd(deficient, 1ull);
  }
}

/* Shared-memory doubles of a warp-class column (A, e_k, I_c), a multiple of 2 (16-byte
 * aligned slices).  Local. */
__host__ __device__ static inline int64_t warp_stride(int64_t m, int64_t n) {
  int64_t d = m * (n + 1) + (m + 1) / 2;
  return (d + 1) & ~(int64_t)1;
}

/* The kernel choice of k_spai_cols and the shared-memory limit, as the class kernels read it. */
typedef struct {
  int warp_rows, small_rows, small_cols, fuse;
  int64_t medium_elems, smem_max;
} c_choice;

/* The kernel class of a column with |I| = m, |J| = n: 0 a warp in shared memory, 1 a block in
 * shared memory, 2 a block on the global workspace; 3 + q the warp class with up to 32 2^q rows
 * (k_qr_warp<2^q>: |J| <= 31, |I| <= warp_rows, 1 <= 2^q <= 8).  One definition for the host
 * and the device. */
__host__ __device__ static inline int class_of(int64_t m, int64_t n, const c_choice &k) {
  const int64_t bytes = (m * n + m) * (int64_t)sizeof(double);
  if (n <= 31 && m <= k.warp_rows && m <= 256 &&
      warp_stride(m, n) * (int64_t)sizeof(double) <= k.smem_max)
    return m <= 32 ? 3 : m <= 64 ? 4 : m <= 128 ? 5 : 6;
  if (m <= k.small_rows && n <= k.small_cols && bytes <= k.smem_max) return 0;
  if (m * n <= k.medium_elems && bytes <= k.smem_max) return 1;
  return 2;
}
/* Whether class k has a workspace slot (the large class always; small / medium unless fused). */
__host__ __device__ static inline int class_slot(int k, int fuse) {
  return k == 2 || (k < 2 && !fuse);
}

/* cls[c] = the class of every column (index sets known); acc[0] += the workspace bytes of the
 * columns with a slot (|I| |J| 8, into wsb[c] too when not NULL, else 0), acc[1] += their count
 * (per block first). */
__global__ void k_classify(int64_t ncols, const int64_t *__restrict__ jptr,
                           const int32_t *__restrict__ isize, c_choice ch,
                           unsigned char *__restrict__ cls, int64_t *__restrict__ wsb,
                           unsigned long long *acc) {
  __shared__ unsigned long long sh[2];
  if (threadIdx.x < 2) sh[threadIdx.x] = 0;
  __syncthreads();
  const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c < ncols) {
    const int64_t m = isize[c], n = jptr[c + 1] - jptr[c];
    const int k = class_of(m, n, ch);
    cls[c] = (unsigned char)k;
    const int64_t b = class_slot(k, ch.fuse) ? m * n * (int64_t)sizeof(double) : 0;
    if (wsb) wsb[c] = b;
    if (class_slot(k, ch.fuse)) {
      atomicAdd(&sh[0], (unsigned long long)b);
      atomicAdd(&sh[1], 1ull);
    }
  }
  __syncthreads();
  if (threadIdx.x < 2 && sh[threadIdx.x]) atomicAdd(&acc[threadIdx.x], sh[threadIdx.x]);
}

/* Over columns [c0, c1): st[k] += the columns of class k (0..6), st[7 + k] = max of their
 * shared memory (bytes for k < 2, doubles per warp for k >= 3), st[14] = max |I|, st[15] = max
 * |J| (per block first); vals[c - c0] = c (the values the class sort orders). */
__global__ void k_class_stats(int64_t c0, int64_t c1, const int64_t *__restrict__ jptr,
                              const int32_t *__restrict__ isize,
                              const unsigned char *__restrict__ cls, unsigned long long *st,
                              int32_t *__restrict__ vals) {
  __shared__ unsigned long long sh[16];
  if (threadIdx.x < 16) sh[threadIdx.x] = 0;
  __syncthreads();
  const int64_t c = c0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c < c1) {
    const int64_t m = isize[c], n = jptr[c + 1] - jptr[c];
    const int k = cls[c];
    vals[c - c0] = (int32_t)c;
    atomicAdd(&sh[k], 1ull);
    const int64_t z = k < 2 ? (m * n + m) * (int64_t)sizeof(double) : k >= 3 ? warp_stride(m, n) : 0;
    atomicMax(&sh[7 + k], (unsigned long long)z);
    atomicMax(&sh[14], (unsigned long long)m);
    atomicMax(&sh[15], (unsigned long long)n);
  }
  __syncthreads();
  const int t = threadIdx.x;
  if (t < 16 && sh[t]) {
    if (t < 7) atomicAdd(&st[t], sh[t]);
    else atomicMax(&st[t], sh[t]);
  }
}

/* ------------------------------------------------------------------ state */
typedef struct {
  k_spai_cols d;                 /* host description (pointers stay valid) */
  int64_t ncols, nj, nb, nbz, niub;
  int32_t *kglob, *jloc, *bcol, *iset, *isize, *list;
  int32_t *jglob;                /* dist_setup: the J entries' global indices (dist_rows) */
  int64_t *jptr, *bptr, *iub, *head, *aoff, *roff;
  double *bval, *mval, *res, *work, *rwork;
  size_t work_cap, rwork_cap, list_cap, aoff_cap;
  unsigned long long *deficient;
  unsigned long long def_seen;   /* the counter's value reported so far */
  std::vector<int32_t> *hisize;  /* |I| of every column on the host (the submatrix pass; NULL
                                  * until needed: cols_index_batches keeps them on the device) */
  std::vector<signed char> *hcls;  /* the class of every column on the host (with hisize) */
  std::vector<int64_t> *hjptr;   /* single_setup: the J offsets on the host (cols_host_sizes;
                                  * d.jptr then points here) */
  int64_t nslot;                 /* columns with a workspace slot (none: no submatrix pass) */
  unsigned char *cls;            /* the class of every column on the device (k_classify) */
  int32_t *cvals;                /* the chunk's columns, in order (the class sort's values) */
  unsigned char *ckeys;          /* the class sort's keys out */
  unsigned long long *cacc;      /* k_classify's sums and k_class_stats' figures (2 + 16) */
  void *csort;                   /* the class sort's scratch */
  size_t cvals_cap, ckeys_cap, csort_cap;
  int smem_max;                  /* dynamic shared memory opt-in limit (bytes) */
} c_cols;

#define UPLOAD(dst, src, count)                                                            \
  do {                                                                                     \
    size_t b_ = (size_t)(count) * sizeof(*(src));                                          \
    HY_CALL(be->ops->alloc(be, (void **)&(dst), b_ ? b_ : 8));                             \
    if (b_) HY_CUDA(cudaMemcpyAsync((dst), (src), b_, cudaMemcpyHostToDevice, st->stream)); \
  } while (0)

/* Device memory of the setup (B, the J and index sets, submatrices, values, temporaries):
 * stream-ordered on the backend's stream (cudaMallocAsync / cudaFreeAsync) from the device's
 * default pool, which keeps what a setup frees for the next one (s_pool_keep raises its release
 * threshold): no cudaFree waiting for the device, no fresh mapping of the workspace in a second
 * setup (spai.repeat, or a code that rebuilds M).  The solve's matrices keep be->ops->alloc.
 * Local. */
static int s_alloc(k_backend *be, void **p, size_t bytes) {
  cudaError_t e = cudaMallocAsync(p, bytes ? bytes : 8, k_cuda_st(be)->stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return hy_err(HY_ESYS, "CUDA: cudaMallocAsync of %zu bytes on device %d failed: %s", bytes,
                  be->device, cudaGetErrorString(e));
  }
  return HY_OK;
}
static int s_free(k_backend *be, void *p) {
  if (p) HY_CUDA(cudaFreeAsync(p, k_cuda_st(be)->stream));
  return HY_OK;
}
/* The default pool keeps freed memory (threshold: all of it).  Local. */
static int s_pool_keep(k_backend *be) {
  cudaMemPool_t pool;
  HY_CUDA(cudaDeviceGetDefaultMemPool(&pool, be->device));
  uint64_t keep = UINT64_MAX;
  HY_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return HY_OK;
}

/* Grow the default pool to at least bytes and keep it (halving the request down to 64 MiB
 * while it does not fit; nothing kept below that).  Local. */
static int c_pool_reserve(k_backend *be, int64_t bytes, int64_t *kept) {
  HY_CALL(s_pool_keep(be));
  cudaStream_t stream = k_cuda_st(be)->stream;
  *kept = 0;
  for (int64_t b = bytes; b >= ((int64_t)64 << 20); b /= 2) {
    void *p = NULL;
    if (cudaMallocAsync(&p, (size_t)b, stream) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    HY_CUDA(cudaFreeAsync(p, stream));
    *kept = b;
    break;
  }
  HY_CUDA(cudaStreamSynchronize(stream));
  return HY_OK;
}

/* cudaHostRegister / cudaHostUnregister of [p, p + bytes); a failure is cleared and leaves the
 * memory pageable (*done = 0).  Local. */
static int c_host_pin(k_backend *be, void *p, size_t bytes, int on, int *done) {
  cudaError_t e = on ? cudaHostRegister(p, bytes, cudaHostRegisterDefault) : cudaHostUnregister(p);
  *done = e == cudaSuccess;
  if (e != cudaSuccess) cudaGetLastError();
  return HY_OK;
}

#define SUPLOAD(dst, src, count)                                                           \
  do {                                                                                     \
    size_t b_ = (size_t)(count) * sizeof(*(src));                                          \
    HY_CALL(s_alloc(be, (void **)&(dst), b_ ? b_ : 8));                                    \
    if (b_) HY_CUDA(cudaMemcpyAsync((dst), (src), b_, cudaMemcpyHostToDevice, st->stream)); \
  } while (0)

static int cols_work_alloc(k_backend *be, c_cols *s);

/* Upload the description.  Local. */
static int c_cols_setup(k_backend *be, const k_spai_cols *d, void **state) {
  HY_CALL(s_pool_keep(be));
  k_cuda_state *st = k_cuda_st(be);
  c_cols *s = (c_cols *)calloc(1, sizeof *s);
  if (!s) return hy_err(HY_ESYS, "out of memory");
  s->d = *d;
  s->ncols = d->ncols;
  s->nj = d->jptr[d->ncols];
  s->nb = d->nb;
  s->nbz = d->bptr[d->nb];
  s->niub = d->iub[d->ncols];
  if (s->niub > INT32_MAX || s->nj > INT32_MAX)
    return hy_err(HY_ESYS, "spai cuda: index sets exceed 2^31 entries on one rank (use more ranks)");
  SUPLOAD(s->kglob, d->kglob, s->ncols);
  SUPLOAD(s->jptr, d->jptr, s->ncols + 1);
  SUPLOAD(s->jloc, d->jloc, s->nj);
  SUPLOAD(s->bptr, d->bptr, s->nb + 1);
  SUPLOAD(s->bcol, d->bcol, s->nbz);
  SUPLOAD(s->bval, d->bval, s->nbz);
  SUPLOAD(s->iub, d->iub, s->ncols + 1);
  HY_CALL(cols_work_alloc(be, s));
  *state = s;
  return HY_OK;
}

/* The work arrays of the columns (index sets, values, residuals) and the shared-memory opt-in of
 * the QR kernel, once s->ncols, nj and niub are set.  Local. */
static int cols_work_alloc(k_backend *be, c_cols *s) {
  k_cuda_state *st = k_cuda_st(be);
  HY_CALL(s_alloc(be, (void **)&s->iset, (size_t)(s->niub + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&s->isize, (size_t)(s->ncols + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&s->head, (size_t)(s->nj + 1) * sizeof(int64_t)));
  HY_CALL(s_alloc(be, (void **)&s->mval, (size_t)(s->nj + 1) * sizeof(double)));
  HY_CALL(s_alloc(be, (void **)&s->res, (size_t)(s->ncols + 1) * sizeof(double)));
  HY_CALL(s_alloc(be, (void **)&s->deficient, sizeof(unsigned long long)));
  HY_CUDA(cudaMemsetAsync(s->deficient, 0, sizeof(unsigned long long), st->stream));
  HY_CALL(s_alloc(be, (void **)&s->cls, (size_t)(s->ncols + 1)));
  HY_CALL(s_alloc(be, (void **)&s->cacc, 18 * sizeof(unsigned long long)));
  int dev = be->device, optin = 0;
  HY_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  s->smem_max = optin - 1024;  /* room for the static reduction arrays */
  HY_CUDA(cudaFuncSetAttribute(k_qr<true, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               s->smem_max));
  HY_CUDA(cudaFuncSetAttribute(k_qr<true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               s->smem_max));
#define QRW_ATTR(R, W)                                                                  \
  HY_CUDA(cudaFuncSetAttribute(k_qr_warp<R, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, \
                               s->smem_max))
  QRW_ATTR(1, 1); QRW_ATTR(2, 1); QRW_ATTR(4, 1); QRW_ATTR(8, 1);
  QRW_ATTR(1, 4); QRW_ATTR(2, 4); QRW_ATTR(4, 4); QRW_ATTR(8, 4);
#undef QRW_ATTR
  return HY_OK;
}

static int col_class(const c_cols *s, int64_t c);
static c_choice col_choice(const c_cols *s);

/* k_index over every column (queued).  Local. */
static int cols_index_run(k_backend *be, c_cols *s) {
  if (s->ncols == 0) return HY_OK;
  int64_t threads = s->ncols * 32;
  int blocks = (int)((threads + 255) / 256);
  k_index<<<blocks, 256, 0, k_cuda_st(be)->stream>>>(s->ncols, s->jptr, s->jloc, s->bptr, s->bcol,
                                                     s->iub, s->iset, s->isize, s->head);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* k_classify after the index sets: the class of every column on the device (wsb: the slot
 * columns' workspace bytes per column, or NULL); *total = their sum, s->nslot their count (a
 * wait).  Local. */
static int cols_classify(k_backend *be, c_cols *s, int64_t *wsb, int64_t *total) {
  k_cuda_state *st = k_cuda_st(be);
  unsigned long long acc[2] = { 0, 0 };
  HY_CUDA(cudaMemsetAsync(s->cacc, 0, 2 * sizeof(unsigned long long), st->stream));
  if (s->ncols > 0) {
    k_classify<<<grid_of(s->ncols), 256, 0, st->stream>>>(s->ncols, s->jptr, s->isize,
                                                          col_choice(s), s->cls, wsb, s->cacc);
    HY_CUDA_LAUNCH();
  }
  HY_CUDA(cudaMemcpyAsync(acc, s->cacc, sizeof acc, cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  *total = (int64_t)acc[0];
  s->nslot = (int64_t)acc[1];
  return HY_OK;
}

/* |I| and the class of every column to the host (the submatrix pass's offsets), once.  Local. */
static int cols_host_sizes(k_backend *be, c_cols *s) {
  if (s->hisize) return HY_OK;
  k_cuda_state *st = k_cuda_st(be);
  if (!s->d.jptr) {   /* single_setup kept the J offsets on the device */
    s->hjptr = new std::vector<int64_t>((size_t)s->ncols + 1);
    HY_CUDA(cudaMemcpyAsync(s->hjptr->data(), s->jptr, (size_t)(s->ncols + 1) * sizeof(int64_t),
                            cudaMemcpyDeviceToHost, st->stream));
    s->d.jptr = s->hjptr->data();
  }
  s->hisize = new std::vector<int32_t>((size_t)s->ncols + 1);
  if (s->ncols)
    HY_CUDA(cudaMemcpyAsync(s->hisize->data(), s->isize, (size_t)s->ncols * sizeof(int32_t),
                            cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  if (!s->hcls) s->hcls = new std::vector<signed char>((size_t)s->ncols + 1);
  for (int64_t c = 0; c < s->ncols; c++) (*s->hcls)[(size_t)c] = (signed char)col_class(s, c);
  return HY_OK;
}

/* Index sets of all columns; sizes to the host; the kernel class of every column.  Local. */
static int c_cols_index(k_backend *be, void *state, int32_t *isize) {
  c_cols *s = (c_cols *)state;
  int64_t total = 0;
  HY_CALL(cols_index_run(be, s));
  HY_CALL(cols_classify(be, s, NULL, &total));
  HY_CALL(cols_host_sizes(be, s));
  memcpy(isize, s->hisize->data(), (size_t)s->ncols * sizeof(int32_t));
  return HY_OK;
}

/* Index sets and classes of all columns, kept on the device, and the batches: one when the
 * slot columns' workspace fits (the warp class and fused columns need none), else the greedy
 * cut of the driver over the per-column bytes (brought to the host for that).  Local. */
static int c_cols_index_batches(k_backend *be, void *state, int64_t workspace, int64_t **ends,
                                int64_t *nbatch) {
  k_cuda_state *st = k_cuda_st(be);
  c_cols *s = (c_cols *)state;
  int64_t total = 0, *wsb = NULL, nb = 0;
  HY_CALL(cols_index_run(be, s));
  HY_CALL(cols_classify(be, s, NULL, &total));
  int64_t *e = (int64_t *)malloc((size_t)(s->ncols + 1) * sizeof(int64_t));
  if (!e) return hy_err(HY_ESYS, "out of memory for the batches of columns");
  int rc = HY_OK;
  if (total <= workspace || s->ncols == 0) {
    if (s->ncols) e[nb++] = s->ncols;
  } else {   /* the per-column bytes: k_classify once more, writing them */
    rc = s_alloc(be, (void **)&wsb, (size_t)(s->ncols + 1) * sizeof(int64_t));
    if (rc == HY_OK) rc = cols_classify(be, s, wsb, &total);
    std::vector<int64_t> hb((size_t)s->ncols + 1);
    if (rc == HY_OK)
      rc = cudaMemcpyAsync(hb.data(), wsb, (size_t)s->ncols * sizeof(int64_t),
                           cudaMemcpyDeviceToHost, st->stream) == cudaSuccess &&
           cudaStreamSynchronize(st->stream) == cudaSuccess ? HY_OK
           : hy_err(HY_ESYS, "CUDA: the columns' workspace sizes to the host failed");
    for (int64_t c = 0, bytes = 0; rc == HY_OK && c < s->ncols; c++) {
      if (c > 0 && bytes + hb[(size_t)c] > workspace) {
        e[nb++] = c;
        bytes = 0;
      }
      bytes += hb[(size_t)c];
    }
    if (rc == HY_OK) e[nb++] = s->ncols;
  }
  s_free(be, wsb);
  if (rc != HY_OK) {
    free(e);
    return rc;
  }
  *ends = e;
  *nbatch = nb;
  return HY_OK;
}

/* Grow a device buffer to at least bytes.  Local. */
static int grow(k_backend *be, void **p, size_t *cap, size_t bytes) {
  if (bytes <= *cap) return HY_OK;
  HY_CALL(s_free(be, *p));
  *p = NULL;
  *cap = 0;
  HY_CALL(s_alloc(be, p, bytes));
  *cap = bytes;
  return HY_OK;
}

/* The kernel choice of the state.  Local. */
static c_choice col_choice(const c_cols *s) {
  const k_spai_cols *d = &s->d;
  c_choice k = { d->warp_rows, d->small_rows, d->small_cols, d->fuse_submat, d->medium_elems,
                 (int64_t)s->smem_max };
  return k;
}

/* The kernel class of column c (class_of; |I| from the host copy).  Local. */
static int col_class(const c_cols *s, int64_t c) {
  const k_spai_cols *d = &s->d;
  return class_of((*s->hisize)[(size_t)c], d->jptr[c + 1] - d->jptr[c], col_choice(s));
}

/* Submatrices of columns [c0, c1) (fuse_submat: of the large class only; the others are
 * scattered by k_qr into shared memory; the warp class never has a slot).  Local. */
static int c_cols_submat(k_backend *be, void *state, int64_t c0, int64_t c1) {
  k_cuda_state *st = k_cuda_st(be);
  c_cols *s = (c_cols *)state;
  if (s->nslot == 0) return HY_OK;   /* every column fused (warp class, gpu_fuse_submat) */
  HY_CALL(cols_host_sizes(be, s));
  const int32_t *is = s->hisize->data();
  std::vector<int64_t> aoff((size_t)(c1 - c0) + 1), roff((size_t)(c1 - c0) + 1);
  aoff[0] = roff[0] = 0;
  for (int64_t c = c0; c < c1; c++) {
    int64_t n = s->d.jptr[c + 1] - s->d.jptr[c];
    int k = (*s->hcls)[(size_t)c];
    int slot = k == 2 || (k < 2 && !s->d.fuse_submat);   /* fused: only the large class */
    aoff[c - c0 + 1] = aoff[c - c0] + (slot ? (int64_t)is[c] * n : 0);
    roff[c - c0 + 1] = roff[c - c0] + (slot ? is[c] : 0);
  }
  size_t cnt = (size_t)(c1 - c0 + 1) * sizeof(int64_t);
  if (cnt > s->aoff_cap) {
    HY_CALL(s_free(be, s->aoff));
    HY_CALL(s_free(be, s->roff));
    s->aoff = s->roff = NULL;
    HY_CALL(s_alloc(be, (void **)&s->aoff, cnt));
    HY_CALL(s_alloc(be, (void **)&s->roff, cnt));
    s->aoff_cap = cnt;
  }
  HY_CUDA(cudaMemcpyAsync(s->aoff, aoff.data(), cnt, cudaMemcpyHostToDevice, st->stream));
  HY_CUDA(cudaMemcpyAsync(s->roff, roff.data(), cnt, cudaMemcpyHostToDevice, st->stream));
  HY_CALL(grow(be, (void **)&s->work, &s->work_cap, (size_t)(aoff[c1 - c0] + 1) * sizeof(double)));
  HY_CALL(grow(be, (void **)&s->rwork, &s->rwork_cap, (size_t)(roff[c1 - c0] + 1) * sizeof(double)));
  int64_t threads = (c1 - c0) * 32;
  if (threads > 0 && aoff[c1 - c0] > 0) {
    k_submat<<<(int)((threads + 255) / 256), 256, 0, st->stream>>>(
        c0, c1, s->jptr, s->jloc, s->bptr, s->bcol, s->bval, s->iub, s->iset, s->isize, s->aoff,
        s->work);
    HY_CUDA_LAUNCH();
  }
  /* the host vectors above are freed on return: wait for the copies */
  HY_CUDA(cudaStreamSynchronize(st->stream));
  return HY_OK;
}

/* Launch the warp class of 2^q-row slices (list: nl columns, sm_doubles the largest slice):
 * four warps per block for slices up to 6 KB (so that small problems are not held to 32 warps
 * per SM by the 32-block limit), else one (a block's 1 KB of reserved shared memory and the
 * SM's 228 KB pack one-warp blocks best: 7 of 28 KB against 1 of 4 x 28 KB).  Local. */
static int warp_launch(k_backend *be, c_cols *s, int q, const int32_t *list, int64_t nl,
                       int64_t sm_doubles, const c_bsrc &bsrc) {
  cudaStream_t stream = k_cuda_st(be)->stream;
  const int wpb = sm_doubles * (int64_t)sizeof(double) <= 6144 ? 4 : 1;
  const unsigned blocks = (unsigned)((nl + wpb - 1) / wpb);
  const size_t smem = (size_t)(wpb * sm_doubles) * sizeof(double);
#define QRW(R, W)                                                                              \
  k_qr_warp<R, W><<<blocks, 32 * W, smem, stream>>>(list, nl, sm_doubles, s->jptr, s->kglob,   \
                                                    s->iub, s->iset, s->isize, s->mval, s->res, \
                                                    s->deficient, bsrc)
  if (wpb == 4) {
    if (q == 0) QRW(1, 4); else if (q == 1) QRW(2, 4); else if (q == 2) QRW(4, 4); else QRW(8, 4);
  } else {
    if (q == 0) QRW(1, 1); else if (q == 1) QRW(2, 1); else if (q == 2) QRW(4, 1); else QRW(8, 1);
  }
#undef QRW
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The class lists of columns [c0, c1) on the device, one after the other in class order
 * (increasing column in each: a stable radix sort of the columns by their class), into
 * s->list; cnt / smem (bytes for classes 0, 1, doubles per warp for 3..6) per class and the
 * largest |I| and |J| to the host (a wait).  Local. */
static int cols_class_lists(k_backend *be, c_cols *s, int64_t c0, int64_t c1, int64_t *cnt,
                            size_t *smem, int64_t *maxij) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t nc = c1 - c0;
  unsigned long long h[16];
  memset(h, 0, sizeof h);
  HY_CALL(grow(be, (void **)&s->list, &s->list_cap, (size_t)(nc + 1) * sizeof(int32_t)));
  HY_CALL(grow(be, (void **)&s->cvals, &s->cvals_cap, (size_t)(nc + 1) * sizeof(int32_t)));
  HY_CALL(grow(be, (void **)&s->ckeys, &s->ckeys_cap, (size_t)(nc + 1)));
  HY_CUDA(cudaMemsetAsync(s->cacc + 2, 0, 16 * sizeof(unsigned long long), st->stream));
  if (nc > 0) {
    k_class_stats<<<grid_of(nc), 256, 0, st->stream>>>(c0, c1, s->jptr, s->isize, s->cls,
                                                       s->cacc + 2, s->cvals);
    HY_CUDA_LAUNCH();
    size_t need = 0;
    HY_CUDA(cub::DeviceRadixSort::SortPairs(NULL, need, s->cls + c0, s->ckeys, s->cvals, s->list,
                                            (int)nc, 0, 3, st->stream));
    HY_CALL(grow(be, &s->csort, &s->csort_cap, need ? need : 8));
    HY_CUDA(cub::DeviceRadixSort::SortPairs(s->csort, need, s->cls + c0, s->ckeys, s->cvals,
                                            s->list, (int)nc, 0, 3, st->stream));
  }
  HY_CUDA(cudaMemcpyAsync(h, s->cacc + 2, sizeof h, cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  for (int k = 0; k < 7; k++) {
    cnt[k] = (int64_t)h[k];
    smem[k] = (size_t)h[7 + k];
  }
  maxij[0] = (int64_t)h[14];
  maxij[1] = (int64_t)h[15];
  return HY_OK;
}

/* QR + solve of columns [c0, c1) in the classes of class_of (one launch per non-empty class,
 * the lists made on the device).  Local. */
static int c_cols_solve(k_backend *be, void *state, int64_t c0, int64_t c1, k_spai_stats *ks) {
  k_cuda_state *st = k_cuda_st(be);
  c_cols *s = (c_cols *)state;
  const k_spai_cols *d = &s->d;
  int64_t cnt[7] = { 0, 0, 0, 0, 0, 0, 0 }, mij[2] = { 0, 0 };
  size_t smem[7] = { 0, 0, 0, 0, 0, 0, 0 };   /* bytes (0, 1), doubles per warp (3..6) */
  HY_CALL(cols_class_lists(be, s, c0, c1, cnt, smem, mij));
  if (mij[0] > ks->max_i) ks->max_i = mij[0];
  if (mij[1] > ks->max_j) ks->max_j = mij[1];
  ks->ncols_small += cnt[0];
  ks->ncols_medium += cnt[1];
  ks->ncols_large += cnt[2];
  for (int k = 3; k < 7; k++) ks->ncols_warp += cnt[k];
  int64_t start[8];
  start[0] = 0;
  for (int k = 0; k < 7; k++) start[k + 1] = start[k] + cnt[k];
  const c_bsrc bsrc = { s->jloc, s->bptr, s->bcol, s->bval };
  for (int k = 0; k < 7; k++) {
    if (cnt[k] == 0) continue;
    const size_t off = (size_t)start[k];
    int threads = k == 0 ? 32 : d->block_threads;
    int nb = (int)cnt[k];
    if (k >= 3)
      HY_CALL(warp_launch(be, s, k - 3, s->list + off, nb, (int64_t)smem[k], bsrc));
    else if (k < 2 && d->fuse_submat)
      k_qr<true, true><<<nb, threads, smem[k], st->stream>>>(
          s->list + off, c0, s->jptr, s->kglob, s->iub, s->iset, s->isize, s->aoff, s->work,
          s->roff, s->rwork, s->mval, s->res, s->deficient, bsrc);
    else if (k < 2)
      k_qr<true, false><<<nb, threads, smem[k], st->stream>>>(
          s->list + off, c0, s->jptr, s->kglob, s->iub, s->iset, s->isize, s->aoff, s->work,
          s->roff, s->rwork, s->mval, s->res, s->deficient, bsrc);
    else
      k_qr<false, false><<<nb, threads, 0, st->stream>>>(
          s->list + off, c0, s->jptr, s->kglob, s->iub, s->iset, s->isize, s->aoff, s->work,
          s->roff, s->rwork, s->mval, s->res, s->deficient, bsrc);
    HY_CUDA_LAUNCH();
  }
  /* rank-deficient columns of this chunk (the counter runs over all chunks) */
  unsigned long long def = 0;
  HY_CUDA(cudaMemcpyAsync(&def, s->deficient, sizeof def, cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  ks->rank_deficient += (int64_t)(def - s->def_seen);
  s->def_seen = def;
  return HY_OK;
}

/* Values and residuals to the host.  Local. */
static int c_cols_result(k_backend *be, void *state, double *mval, double *res) {
  k_cuda_state *st = k_cuda_st(be);
  c_cols *s = (c_cols *)state;
  if (s->nj) HY_CUDA(cudaMemcpyAsync(mval, s->mval, (size_t)s->nj * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  if (s->ncols) HY_CUDA(cudaMemcpyAsync(res, s->res, (size_t)s->ncols * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  return HY_OK;
}

static int c_cols_free(k_backend *be, void *state) {
  c_cols *s = (c_cols *)state;
  if (!s) return HY_OK;
  void *ptrs[] = { s->kglob, s->jloc, s->bcol, s->iset, s->isize, s->list, s->jptr, s->bptr,
                   s->iub, s->head, s->aoff, s->roff, s->bval, s->mval, s->res, s->work, s->rwork,
                   s->deficient, s->jglob, s->cls, s->cvals, s->ckeys, s->cacc, s->csort };
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) s_free(be, ptrs[i]);
  delete s->hisize;
  delete s->hcls;
  delete s->hjptr;
  free(s);
  return HY_OK;
}

/* ------------------------------------------------------------------ one rank: pattern and rows */
/* Index widening / narrowing copies and 0, 1, 2, ... (a thread per entry). */
__global__ void k_i32_to_i64(int64_t n, const int32_t *__restrict__ in, int64_t *__restrict__ out) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void k_i64_to_i32(int64_t n, const int64_t *__restrict__ in, int32_t *__restrict__ out) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int32_t)in[i];
}
__global__ void k_iota(int64_t n, int64_t r0, int32_t *__restrict__ out) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int32_t)(r0 + i);
}
/* mx[i] = max_j |a_ij| (a thread per row, the host's comparison order). */
__global__ void k_rowmax(int64_t n, const int32_t *__restrict__ rp, const double *__restrict__ val,
                         double *__restrict__ mx) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  double m = 0;
  for (int32_t e = rp[i]; e < rp[i + 1]; e++)
    if (fabs(val[e]) > m) m = fabs(val[e]);
  mx[i] = m;
}
/* The B row that global index i stands for: local i - r0, else nloc + its place among the sorted
 * ghosts (one rank: nloc = n, no ghosts, the row i). */
__device__ __forceinline__ int64_t dist_pos(int32_t i, int64_t r0, int64_t nloc,
                                            const int32_t *__restrict__ ghost, int64_t ng) {
  if (i >= r0 && i < r0 + nloc) return i - r0;
  int64_t lo = 0, hi = ng;
  while (lo < hi) {
    int64_t mid = (lo + hi) >> 1;
    if (ghost[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return nloc + lo;
}
/* J_k from B's row k (A's column g = r0 + k), a thread per local k, exactly as the host's
 * pattern_single / pattern_from_columns: the rows i with |a_ik| > (1 - tau) m (m = the maximum
 * of row i, mx by B row, or cmax[k]) and a_ik != 0, and g itself (kept, or inserted in order
 * where A has no diagonal).  FILL = false: the count into cnt[k]; true: the B rows into jloc +
 * jptr[k] and, when jglob is not NULL, the global indices into jglob + jptr[k]. */
template <bool FILL>
__global__ void k_jsets(int64_t nloc, int64_t r0, const int32_t *__restrict__ ghost, int64_t ng,
                        const int64_t *__restrict__ bptr, const int32_t *__restrict__ bcol,
                        const double *__restrict__ bval, double tau, const double *__restrict__ cmax,
                        const double *__restrict__ mx, int64_t *__restrict__ cnt,
                        const int64_t *__restrict__ jptr, int32_t *__restrict__ jloc,
                        int32_t *__restrict__ jglob) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= nloc) return;
  const int64_t g = r0 + k;
  int64_t nz = FILL ? jptr[k] : 0;
  int diag = 0;
  const double ck = cmax ? cmax[k] : 0;
  for (int64_t e = bptr[k]; e < bptr[k + 1]; e++) {
    int32_t i = bcol[e];
    if (!diag && i > g) {
      if (FILL) {
        jloc[nz] = (int32_t)k;
        if (jglob) jglob[nz] = (int32_t)g;
      }
      nz++;
      diag = 1;
    }
    if (i == g) {
      if (FILL) {
        jloc[nz] = (int32_t)k;
        if (jglob) jglob[nz] = i;
      }
      nz++;
      diag = 1;
      continue;
    }
    int64_t p = dist_pos(i, r0, nloc, ghost, ng);
    double v = fabs(bval[e]), m = cmax ? ck : mx[p];
    if (k_spai_keep(v, m, tau)) {
      if (FILL) {
        jloc[nz] = (int32_t)p;
        if (jglob) jglob[nz] = i;
      }
      nz++;
    }
  }
  if (!diag) {
    if (FILL) {
      jloc[nz] = (int32_t)k;
      if (jglob) jglob[nz] = (int32_t)g;
    }
    nz++;
  }
  if (!FILL) cnt[k] = nz;
}
/* cnt[k] = sum over J_k of the lengths of B's rows (the bound on |I_k|). */
__global__ void k_ibound(int64_t n, const int64_t *__restrict__ jptr, const int32_t *__restrict__ jloc,
                         const int64_t *__restrict__ bptr, int64_t *__restrict__ cnt) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= n) return;
  int64_t s = 0;
  for (int64_t t = jptr[k]; t < jptr[k + 1]; t++) s += bptr[jloc[t] + 1] - bptr[jloc[t]];
  cnt[k] = s;
}

/* *bad = min(*bad, k) when column k has a non-finite value or residual. */
__global__ void k_badcol(int64_t n, const int64_t *__restrict__ jptr, const double *__restrict__ mval,
                         const double *__restrict__ res, unsigned long long *bad) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= n) return;
  int b = !isfinite(res[k]);
  for (int64_t t = jptr[k]; t < jptr[k + 1] && !b; t++) b = !isfinite(mval[t]);
  if (b) atomicMin(bad, (unsigned long long)k);
}

/* Host memory for the large arrays handed to the driver (M's rows, the J offsets and sets):
 * from 32 MiB on (glibc's largest mmap threshold: such blocks are fresh mappings in every
 * setup) aligned to 2 MiB and advised for transparent huge pages, so that the copy from the
 * device into fresh memory takes a page fault per 2 MiB instead of per 4 KiB (at 10.6M rows M's
 * rows are ~1 GB: their copy 745 -> 342 ms on the H200); below, malloc, whose heap a later
 * setup reuses already faulted (with huge pages from 4 MiB on, cfd2's 36 MB of M took 8.5 ms
 * to the host in every run instead of ~3).  free() releases either.  NULL when out of memory.
 * Local. */
static void *h_big(size_t bytes) {
  if (bytes < ((size_t)32 << 20)) return malloc(bytes ? bytes : 8);
  void *p = NULL;
  if (posix_memalign(&p, (size_t)2 << 20, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);   /* advice only: ignored where THP is off */
#endif
  return p;
}

/* Seconds of a monotonic clock (the split figures).  Local. */
static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* Device temporaries of single_setup / single_rows, freed whatever happened. */
typedef struct {
  int32_t *rp32, *col32, *bp32, *ghost, *jglob, *ri;
  double *val, *mx, *cmax;
  int64_t *cnt;
  void *buf, *scan;
  unsigned long long *bad;
} c_tmp;

/* Free the temporaries (NULL ones skipped).  Local. */
static void tmp_free(k_backend *be, c_tmp *t) {
  void *p[] = { t->rp32, t->col32, t->bp32, t->ghost, t->jglob, t->ri, t->val, t->mx, t->cmax, t->cnt,
                t->buf, t->scan, t->bad };
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) s_free(be, p[i]);
  memset(t, 0, sizeof *t);
}

/* out[0..n] = exclusive prefix sums of in[0..n] (CUB), scratch in t->scan.  Local. */
static int scan_i64(k_backend *be, c_tmp *t, size_t *scan_bytes, const int64_t *in, int64_t *out,
                    int64_t count) {
  k_cuda_state *st = k_cuda_st(be);
  size_t need = 0;
  HY_CUDA(cub::DeviceScan::ExclusiveSum(NULL, need, in, out, (int)count, st->stream));
  if (need > *scan_bytes) {
    HY_CALL(s_free(be, t->scan));
    t->scan = NULL;
    HY_CALL(s_alloc(be, &t->scan, need));
    *scan_bytes = need;
  }
  HY_CUDA(cub::DeviceScan::ExclusiveSum(t->scan, need, in, out, (int)count, st->stream));
  return HY_OK;
}

/* *out = max of in[0..n) (n >= 1; CUB, scratch of its own), queued: valid after the next wait
 * on the stream (*out must live until then).  Local. */
static int max_i64(k_backend *be, const int64_t *in, int64_t n, int64_t *out) {
  k_cuda_state *st = k_cuda_st(be);
  *out = 0;
  if (n < 1) return HY_OK;
  size_t need = 0;
  void *tmp = NULL;
  int64_t *d = NULL;
  HY_CUDA(cub::DeviceReduce::Max(NULL, need, in, d, (int)n, st->stream));
  HY_CALL(s_alloc(be, &tmp, need + 16));
  d = (int64_t *)((char *)tmp + ((need + 7) & ~(size_t)7));
  HY_CUDA(cub::DeviceReduce::Max(tmp, need, in, d, (int)n, st->stream));
  HY_CUDA(cudaMemcpyAsync(out, d, sizeof *out, cudaMemcpyDeviceToHost, st->stream));
  HY_CALL(s_free(be, tmp));
  return HY_OK;
}

/* What the J-set kernels read besides B (device pointers) and the kernel choice. */
typedef struct {
  int64_t nloc, r0, nghost;
  const int32_t *ghost;
  const double *mx, *cmax;
  double tau;
  int max_col, small_rows, small_cols;
  int64_t medium_elems;
  int block_threads, fuse_submat, warp_rows;
  int jglob_kept;              /* the global indices stay on the device (none to the host) */
} c_jin;

/* From B on the device (s->bptr, bcol, bval; s->nb, nbz set): the J sets (counts, offsets to the
 * host, which the caller chunks by, B rows; with jglob_out their global indices to the host too),
 * the |I| bounds, the column indices and the work arrays: s ready for cols_index.  *fits = 0
 * (nothing else done) when a J set exceeds max_col.  Local. */
static int jsets_build(k_backend *be, c_cols *s, c_tmp *t, const c_jin *j, int64_t **jptr_out,
                       int32_t **jglob_out, int *fits) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t n = j->nloc;
  HY_CALL(s_alloc(be, (void **)&t->cnt, (size_t)(n + 1) * sizeof(int64_t)));
  HY_CUDA(cudaMemsetAsync(t->cnt, 0, (size_t)(n + 1) * sizeof(int64_t), st->stream));
  if (n > 0) {
    k_jsets<false><<<grid_of(n), 256, 0, st->stream>>>(n, j->r0, j->ghost, j->nghost, s->bptr,
                                                       s->bcol, s->bval, j->tau, j->cmax, j->mx,
                                                       t->cnt, NULL, NULL, NULL);
    HY_CUDA_LAUNCH();
  }
  HY_CALL(s_alloc(be, (void **)&s->jptr, (size_t)(n + 1) * sizeof(int64_t)));
  size_t scan_bytes = 0;
  HY_CALL(scan_i64(be, t, &scan_bytes, t->cnt, s->jptr, n + 1));
  /* the offsets to the host only for the P-rank driver (its J sets' rows); one rank: their
   * total, the rest stays on the device (cols_host_sizes copies them where needed) */
  const int host = jglob_out != NULL;
  int64_t *jp = NULL, jmax = 0, njd = 0;
  if (host) {
    jp = (int64_t *)h_big((size_t)(n + 1) * sizeof(int64_t));
    if (!jp) return hy_err(HY_ESYS, "out of memory for %lld J offsets", (long long)n);
  }
  *jptr_out = jp;
  HY_CALL(max_i64(be, t->cnt, n, &jmax));   /* the largest |J| (read after the wait) */
  if (host)
    HY_CUDA(cudaMemcpyAsync(jp, s->jptr, (size_t)(n + 1) * sizeof(int64_t),
                            cudaMemcpyDeviceToHost, st->stream));
  else
    HY_CUDA(cudaMemcpyAsync(&njd, s->jptr + n, sizeof njd, cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  if (jmax > j->max_col) return HY_OK;  /* *fits stays 0: the host pattern caps */
  s->nj = host ? jp[n] : njd;
  if (s->nj > INT32_MAX)
    return hy_err(HY_ESYS, "spai cuda: index sets exceed 2^31 entries on one rank (use more ranks)");
  HY_CALL(s_alloc(be, (void **)&s->jloc, (size_t)(s->nj + 1) * sizeof(int32_t)));
  if (jglob_out)
    HY_CALL(s_alloc(be, (void **)&t->jglob, (size_t)(s->nj + 1) * sizeof(int32_t)));
  if (n > 0) {
    k_jsets<true><<<grid_of(n), 256, 0, st->stream>>>(n, j->r0, j->ghost, j->nghost, s->bptr,
                                                      s->bcol, s->bval, j->tau, j->cmax, j->mx,
                                                      NULL, s->jptr, s->jloc, t->jglob);
    HY_CUDA_LAUNCH();
    /* |I| bounds and their offsets */
    k_ibound<<<grid_of(n), 256, 0, st->stream>>>(n, s->jptr, s->jloc, s->bptr, t->cnt);
    HY_CUDA_LAUNCH();
  }
  HY_CALL(s_alloc(be, (void **)&s->iub, (size_t)(n + 1) * sizeof(int64_t)));
  HY_CALL(scan_i64(be, t, &scan_bytes, t->cnt, s->iub, n + 1));
  HY_CUDA(cudaMemcpyAsync(&s->niub, s->iub + n, sizeof(int64_t), cudaMemcpyDeviceToHost, st->stream));
  HY_CALL(s_alloc(be, (void **)&s->kglob, (size_t)(n + 1) * sizeof(int32_t)));
  if (n > 0) {
    k_iota<<<grid_of(n), 256, 0, st->stream>>>(n, j->r0, s->kglob);
    HY_CUDA_LAUNCH();
  }
  int32_t *jg = NULL;
  if (jglob_out && !j->jglob_kept) {
    jg = (int32_t *)h_big((size_t)(s->nj + 1) * sizeof(int32_t));
    if (!jg) return hy_err(HY_ESYS, "out of memory for %lld J entries", (long long)s->nj);
    *jglob_out = jg;
    if (s->nj)
      HY_CUDA(cudaMemcpyAsync(jg, t->jglob, (size_t)s->nj * sizeof(int32_t), cudaMemcpyDeviceToHost,
                              st->stream));
  }
  HY_CUDA(cudaStreamSynchronize(st->stream));
  s->jglob = t->jglob;   /* kept for dist_rows (freed with the state) */
  t->jglob = NULL;
  if (s->niub > INT32_MAX)
    return hy_err(HY_ESYS, "spai cuda: index sets exceed 2^31 entries on one rank (use more ranks)");
  /* the host description the cols_* functions read: offsets and kernel choice */
  memset(&s->d, 0, sizeof s->d);
  s->d.ncols = n;
  s->d.jptr = jp;
  s->d.nb = s->nb;
  s->d.small_rows = j->small_rows;
  s->d.small_cols = j->small_cols;
  s->d.medium_elems = j->medium_elems;
  s->d.block_threads = j->block_threads;
  s->d.fuse_submat = j->fuse_submat;
  s->d.warp_rows = j->warp_rows;
  s->ncols = n;
  HY_CALL(cols_work_alloc(be, s));
  *fits = 1;
  return HY_OK;
}

/* The body of c_single_setup.  Local. */
static int single_build(k_backend *be, const k_spai_single *in, c_cols *s, c_tmp *t,
                        int64_t **jptr_out, int *fits) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t n = in->n, nnz = in->rowptr[n];
  /* A to the device (its 64-bit offsets into s->bptr, narrowed there to the 32-bit ones of
   * cuSPARSE: no host pass over them); B = A^T by cusparseCsr2cscEx2 (B's offsets then overwrite
   * s->bptr, in stream order) */
  SUPLOAD(s->bptr, in->rowptr, n + 1);
  HY_CALL(s_alloc(be, (void **)&t->rp32, (size_t)(n + 1) * sizeof(int32_t)));
  k_i64_to_i32<<<grid_of(n + 1), 256, 0, st->stream>>>(n + 1, s->bptr, t->rp32);
  HY_CUDA_LAUNCH();
  SUPLOAD(t->col32, in->colind, nnz);
  SUPLOAD(t->val, in->val, nnz);
  if (in->split) {  /* the upload alone (one more wait: the split figure) */
    HY_CUDA(cudaStreamSynchronize(st->stream));
    in->split[0] = s_now() - in->split[1];
  }
  HY_CALL(s_alloc(be, (void **)&t->bp32, (size_t)(n + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&s->bcol, (size_t)nnz * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&s->bval, (size_t)nnz * sizeof(double)));
  size_t bytes = 0;
  HY_CUSPARSE(cusparseCsr2cscEx2_bufferSize(st->cusparse, (int)n, (int)n, (int)nnz, t->val, t->rp32,
                                            t->col32, s->bval, t->bp32, s->bcol, CUDA_R_64F,
                                            CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                            CUSPARSE_CSR2CSC_ALG1, &bytes));
  HY_CALL(s_alloc(be, &t->buf, bytes ? bytes : 8));
  HY_CUSPARSE(cusparseCsr2cscEx2(st->cusparse, (int)n, (int)n, (int)nnz, t->val, t->rp32, t->col32,
                                 s->bval, t->bp32, s->bcol, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                 CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, t->buf));
  k_i32_to_i64<<<grid_of(n + 1), 256, 0, st->stream>>>(n + 1, t->bp32, s->bptr);
  HY_CUDA_LAUNCH();
  /* thresholds: row maxima of A, or the given column maxima */
  if (in->cmax) {
    SUPLOAD(t->cmax, in->cmax, n);
  } else {
    HY_CALL(s_alloc(be, (void **)&t->mx, (size_t)n * sizeof(double)));
    k_rowmax<<<grid_of(n), 256, 0, st->stream>>>(n, t->rp32, t->val, t->mx);
    HY_CUDA_LAUNCH();
  }
  c_jin j = { .nloc = n, .r0 = 0, .nghost = 0, .ghost = NULL, .mx = t->mx, .cmax = t->cmax,
              .tau = in->tau, .max_col = in->max_col, .small_rows = in->small_rows,
              .small_cols = in->small_cols, .medium_elems = in->medium_elems,
              .block_threads = in->block_threads,
              .fuse_submat = in->fuse_submat, .warp_rows = in->warp_rows, .jglob_kept = 0 };
  s->nb = n;
  s->nbz = nnz;
  return jsets_build(be, s, t, &j, jptr_out, NULL, fits);
}

/* One rank, levels 1: B, the J sets and the |I| bounds built on the device from A.  Local. */
static int c_single_setup(k_backend *be, const k_spai_single *in, void **state, int64_t **jptr,
                          int *fits) {
  *state = NULL;
  *jptr = NULL;
  *fits = 0;
  int64_t n = in->n, nnz = in->rowptr[in->n];
  if (n < 1 || nnz < 1) return HY_OK;  /* nothing the device would gain: the host pattern */
  HY_CALL(s_pool_keep(be));
  if (nnz > INT32_MAX || n >= INT32_MAX)
    return hy_err(HY_ESYS, "spai cuda: A with %lld entries exceeds the 32-bit indices of cuSPARSE's "
                  "transpose (use more ranks)", (long long)nnz);
  c_cols *s = (c_cols *)calloc(1, sizeof *s);
  if (!s) return hy_err(HY_ESYS, "out of memory");
  c_tmp t;
  memset(&t, 0, sizeof t);
  if (in->split) in->split[1] = s_now();   /* the start, until single_build sets [0] */
  int rc = single_build(be, in, s, &t, jptr, fits);
  if (in->split) in->split[1] = s_now() - in->split[1] - in->split[0];
  tmp_free(be, &t);
  if (rc != HY_OK || !*fits) {
    *fits = 0;
    c_cols_free(be, s);
    free(*jptr);
    *jptr = NULL;
    return rc;
  }
  *state = s;
  return HY_OK;
}

/* A rows block of the P-rank device setup (k_spai_piece): m rows, 64-bit offsets rp (m + 1),
 * global column indices and values, nnz entries, in the setup's stream-ordered memory. */
typedef struct {
  int64_t m, nnz;
  int64_t *rp;
  int32_t *col;
  double *val;
} c_rows;

static int minmax_i32(k_backend *be, const int32_t *in, int64_t n, int32_t *lo, int32_t *hi);

/* Free a rows block (its arrays stream-ordered).  Local. */
static int c_rows_free(k_backend *be, void *t) {
  c_rows *r = (c_rows *)t;
  if (!r) return HY_OK;
  s_free(be, r->rp);
  s_free(be, r->col);
  s_free(be, r->val);
  free(r);
  return HY_OK;
}

/* c_dist_setup's uploads: B's rows into the state (unless they are a rows block here already),
 * the ghosts and the thresholds into t.  Local. */
static int dist_upload(k_backend *be, const k_spai_dist *in, c_cols *s, c_tmp *t) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t nb = in->nloc + in->nghost;
  if (!in->brows) {
    const int64_t nbz = in->bptr[nb];
    SUPLOAD(s->bptr, in->bptr, nb + 1);
    SUPLOAD(s->bcol, in->bcol, nbz);
    SUPLOAD(s->bval, in->bval, nbz);
  }
  SUPLOAD(t->ghost, in->ghost, in->nghost);
  if (in->cmax) SUPLOAD(t->cmax, in->cmax, in->nloc);
  else SUPLOAD(t->mx, in->mxb, nb);
  return HY_OK;
}

/* P ranks, levels 1: B's rows (local, then fetched) uploaded once, the J sets and |I| bounds
 * built on the device; *jptr and *jglob to the host.  Local. */
static int c_dist_setup(k_backend *be, const k_spai_dist *in, void **state, int64_t **jptr,
                        int32_t **jglob, int *fits) {
  c_rows *br = (c_rows *)in->brows;   /* B's rows already here: taken over by the state */
  *state = NULL;
  *jptr = NULL;
  *jglob = NULL;
  *fits = 0;
  const int64_t nb = in->nloc + in->nghost, nbz = br ? br->nnz : in->bptr[nb];
  const int64_t brm = br ? br->m : nb;
  c_cols *s = (c_cols *)calloc(1, sizeof *s);
  if (s && br) {
    s->bptr = br->rp;
    s->bcol = br->col;
    s->bval = br->val;
    free(br);
  } else if (br) {
    c_rows_free(be, br);
  }
  if (!s) return hy_err(HY_ESYS, "out of memory");
  HY_CALL(s_pool_keep(be));
  if (nbz > INT32_MAX || brm != nb) {
    c_cols_free(be, s);
    return hy_err(HY_ESYS, "spai cuda: B's rows with %lld entries exceed 32-bit indices on one rank "
                  "(use more ranks), or a rows block of another size", (long long)nbz);
  }
  c_tmp t;
  memset(&t, 0, sizeof t);
  double t0 = s_now();
  int rc = dist_upload(be, in, s, &t);
  if (rc == HY_OK && in->split) {  /* the upload alone (one more wait: the split figure) */
    rc = cudaStreamSynchronize(k_cuda_st(be)->stream) == cudaSuccess ? HY_OK
         : hy_err(HY_ESYS, "CUDA: the upload of B's rows failed: %s",
                  cudaGetErrorString(cudaGetLastError()));
    in->split[0] = s_now() - t0;
  }
  if (rc == HY_OK) {
    s->nb = nb;
    s->nbz = nbz;
    c_jin j = { .nloc = in->nloc, .r0 = in->r0, .nghost = in->nghost, .ghost = t.ghost,
                .mx = t.mx, .cmax = t.cmax, .tau = in->tau, .max_col = in->max_col,
                .small_rows = in->small_rows, .small_cols = in->small_cols,
                .medium_elems = in->medium_elems, .block_threads = in->block_threads,
                .fuse_submat = in->fuse_submat, .warp_rows = in->warp_rows,
                .jglob_kept = in->jglob_kept };
    rc = jsets_build(be, s, &t, &j, jptr, jglob, fits);
    if (in->split) in->split[1] = s_now() - t0 - in->split[0];
  }
  tmp_free(be, &t);
  if (rc != HY_OK || !*fits) {
    *fits = 0;
    c_cols_free(be, s);
    free(*jptr);
    free(*jglob);
    *jptr = NULL;
    *jglob = NULL;
    return rc;
  }
  *state = s;
  return HY_OK;
}

/* M by rows on the device from the columns of a single_setup state: t->bp32 (n + 1 offsets),
 * t->col32, t->val (cusparseCsr2cscEx2 of the columns: row k of that CSR = column k of M, its
 * indices M's rows), the finiteness check of the columns queued into *hbad (~0: none; read
 * after the next wait).  Local. */
static int single_transpose_dev(k_backend *be, c_cols *s, c_tmp *t, unsigned long long *hbad) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t n = s->ncols, nj = s->nj;
  HY_CALL(s_alloc(be, (void **)&t->rp32, (size_t)(n + 1) * sizeof(int32_t)));  /* jptr */
  HY_CALL(s_alloc(be, (void **)&t->bp32, (size_t)(n + 1) * sizeof(int32_t)));  /* M rows */
  HY_CALL(s_alloc(be, (void **)&t->col32, (size_t)(nj + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&t->val, (size_t)(nj + 1) * sizeof(double)));
  k_i64_to_i32<<<grid_of(n + 1), 256, 0, st->stream>>>(n + 1, s->jptr, t->rp32);
  HY_CUDA_LAUNCH();
  /* the finiteness check of the columns, on the device */
  HY_CALL(s_alloc(be, (void **)&t->bad, sizeof(unsigned long long)));
  HY_CUDA(cudaMemsetAsync(t->bad, 0xff, sizeof(unsigned long long), st->stream));
  k_badcol<<<grid_of(n), 256, 0, st->stream>>>(n, s->jptr, s->mval, s->res, t->bad);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(hbad, t->bad, sizeof *hbad, cudaMemcpyDeviceToHost, st->stream));
  size_t bytes = 0;
  HY_CUSPARSE(cusparseCsr2cscEx2_bufferSize(st->cusparse, (int)n, (int)n, (int)nj, s->mval, t->rp32,
                                            s->jloc, t->val, t->bp32, t->col32, CUDA_R_64F,
                                            CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                            CUSPARSE_CSR2CSC_ALG1, &bytes));
  HY_CALL(s_alloc(be, &t->buf, bytes ? bytes : 8));
  HY_CUSPARSE(cusparseCsr2cscEx2(st->cusparse, (int)n, (int)n, (int)nj, s->mval, t->rp32, s->jloc,
                                 t->val, t->bp32, t->col32, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                 CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, t->buf));
  return HY_OK;
}

/* The body of c_single_rows: M by rows on the device, then to the host.  Local. */
static int single_transpose(k_backend *be, c_cols *s, c_tmp *t, int64_t *rowptr, int32_t *colind,
                            double *val, double *res, int64_t *bad, double *split) {
  const double t0 = s_now();
  k_cuda_state *st = k_cuda_st(be);
  const int64_t n = s->ncols, nj = s->nj;
  unsigned long long hbad = 0;
  HY_CALL(single_transpose_dev(be, s, t, &hbad));
  /* M's offsets widened on the device (into t->cnt) and copied straight into rowptr */
  HY_CALL(s_alloc(be, (void **)&t->cnt, (size_t)(n + 1) * sizeof(int64_t)));
  k_i32_to_i64<<<grid_of(n + 1), 256, 0, st->stream>>>(n + 1, t->bp32, t->cnt);
  HY_CUDA_LAUNCH();
  if (split) {  /* the transpose alone (one more wait: the split figure) */
    HY_CUDA(cudaStreamSynchronize(st->stream));
    split[0] = s_now() - t0;
  }
  HY_CUDA(cudaMemcpyAsync(rowptr, t->cnt, (size_t)(n + 1) * sizeof(int64_t),
                          cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaMemcpyAsync(colind, t->col32, (size_t)nj * sizeof(int32_t), cudaMemcpyDeviceToHost,
                          st->stream));
  HY_CUDA(cudaMemcpyAsync(val, t->val, (size_t)nj * sizeof(double), cudaMemcpyDeviceToHost,
                          st->stream));
  HY_CUDA(cudaMemcpyAsync(res, s->res, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost,
                          st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  if (split) split[1] = s_now() - t0 - split[0];
  *bad = hbad == ~0ull ? -1 : (int64_t)hbad;
  return HY_OK;
}

/* M by rows from the device columns of a single_setup state, to the host.  Local. */
static int c_single_rows(k_backend *be, void *state, int64_t **rowptr, int32_t **colind,
                         double **val, double *res, int64_t *bad, double *split) {
  c_cols *s = (c_cols *)state;
  *rowptr = (int64_t *)h_big((size_t)(s->ncols + 1) * sizeof(int64_t));
  *colind = (int32_t *)h_big((size_t)(s->nj + 1) * sizeof(int32_t));
  *val = (double *)h_big((size_t)(s->nj + 1) * sizeof(double));
  if (!*rowptr || !*colind || !*val) {
    free(*rowptr); free(*colind); free(*val);
    *rowptr = NULL; *colind = NULL; *val = NULL;
    return hy_err(HY_ESYS, "out of memory for M's %lld entries", (long long)s->nj);
  }
  c_tmp t;
  memset(&t, 0, sizeof t);
  int rc = single_transpose(be, s, &t, *rowptr, *colind, *val, res, bad, split);
  tmp_free(be, &t);
  return rc;
}

/* out[i] = in[i] + add (a thread per entry). */
__global__ void k_add_i32(int64_t n, const int32_t *in, int64_t add, int32_t *out) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int32_t)(in[i] + add);
}

/* The device part of dist_transpose: the column block (rows of a CSR: column k, global row
 * jglob - g0) transposed by cusparseCsr2cscEx2 into rows g0 .. g1 - 1 (columns c0 + k): t->cnt
 * (m + 1 offsets, 64-bit), t->ri, t->val; the finiteness check queued into *hbad (~0: none;
 * read after the next wait).  Local. */
static int dist_transpose_dev(k_backend *be, c_cols *s, c_tmp *t, int64_t g0, int64_t g1,
                              int64_t c0, unsigned long long *hbad) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t n = s->ncols, nj = s->nj, m = g1 - g0;
  HY_CALL(s_alloc(be, (void **)&t->rp32, (size_t)(n + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&t->col32, (size_t)(nj + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&t->bp32, (size_t)(m + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&t->ri, (size_t)(nj + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&t->val, (size_t)(nj + 1) * sizeof(double)));
  HY_CALL(s_alloc(be, (void **)&t->cnt, (size_t)(m + 1) * sizeof(int64_t)));
  HY_CALL(s_alloc(be, (void **)&t->bad, sizeof(unsigned long long)));
  HY_CUDA(cudaMemsetAsync(t->bad, 0xff, sizeof(unsigned long long), st->stream));
  HY_CUDA(cudaMemsetAsync(t->cnt, 0, (size_t)(m + 1) * sizeof(int64_t), st->stream));
  if (n > 0) {
    k_i64_to_i32<<<grid_of(n + 1), 256, 0, st->stream>>>(n + 1, s->jptr, t->rp32);
    HY_CUDA_LAUNCH();
    k_badcol<<<grid_of(n), 256, 0, st->stream>>>(n, s->jptr, s->mval, s->res, t->bad);
    HY_CUDA_LAUNCH();
  }
  if (nj > 0 && m > 0) {
    k_add_i32<<<grid_of(nj), 256, 0, st->stream>>>(nj, s->jglob, -g0, t->col32);
    HY_CUDA_LAUNCH();
    size_t bytes = 0;
    HY_CUSPARSE(cusparseCsr2cscEx2_bufferSize(st->cusparse, (int)n, (int)m, (int)nj, s->mval,
                                              t->rp32, t->col32, t->val, t->bp32, t->ri,
                                              CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                              CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
    HY_CALL(s_alloc(be, &t->buf, bytes ? bytes : 8));
    HY_CUSPARSE(cusparseCsr2cscEx2(st->cusparse, (int)n, (int)m, (int)nj, s->mval, t->rp32,
                                   t->col32, t->val, t->bp32, t->ri, CUDA_R_64F,
                                   CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                   CUSPARSE_CSR2CSC_ALG1, t->buf));
    k_add_i32<<<grid_of(nj), 256, 0, st->stream>>>(nj, t->ri, c0, t->ri);
    HY_CUDA_LAUNCH();
    k_i32_to_i64<<<grid_of(m + 1), 256, 0, st->stream>>>(m + 1, t->bp32, t->cnt);
    HY_CUDA_LAUNCH();
  }
  HY_CUDA(cudaMemcpyAsync(hbad, t->bad, sizeof *hbad, cudaMemcpyDeviceToHost, st->stream));
  return HY_OK;
}

/* The body of c_dist_rows: the column block (rows of a CSR: column k, global row jglob - g0)
 * transposed by cusparseCsr2cscEx2 into rows g0 .. g1 - 1 (columns c0 + k), to the host.
 * Local. */
static int dist_transpose(k_backend *be, c_cols *s, c_tmp *t, int64_t g0, int64_t g1, int64_t c0,
                          int64_t *rowptr, int32_t *colind, double *val, double *res, int64_t *bad,
                          double *split) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t n = s->ncols, nj = s->nj, m = g1 - g0;
  const double t0 = s_now();
  unsigned long long hbad = ~0ull;
  HY_CALL(dist_transpose_dev(be, s, t, g0, g1, c0, &hbad));
  if (split) {  /* the transpose alone (one more wait: the split figure) */
    HY_CUDA(cudaStreamSynchronize(st->stream));
    split[0] = s_now() - t0;
  }
  HY_CUDA(cudaMemcpyAsync(rowptr, t->cnt, (size_t)(m + 1) * sizeof(int64_t),
                          cudaMemcpyDeviceToHost, st->stream));
  if (nj) {
    HY_CUDA(cudaMemcpyAsync(colind, t->ri, (size_t)nj * sizeof(int32_t), cudaMemcpyDeviceToHost,
                            st->stream));
    HY_CUDA(cudaMemcpyAsync(val, t->val, (size_t)nj * sizeof(double), cudaMemcpyDeviceToHost,
                            st->stream));
  }
  if (n)
    HY_CUDA(cudaMemcpyAsync(res, s->res, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost,
                            st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  if (split) split[1] = s_now() - t0 - split[0];
  *bad = hbad == ~0ull ? -1 : (int64_t)hbad;
  return HY_OK;
}

/* M's rows g0 .. g1 - 1 from the device columns of a dist_setup state (the J sets' global
 * indices kept on the device; jglob unused), to the host.  Local. */
static int c_dist_rows(k_backend *be, void *state, const int32_t *jglob, int64_t g0, int64_t g1,
                       int64_t c0, int64_t **rowptr, int32_t **colind, double **val, double *res,
                       int64_t *bad, double *split) {
  c_cols *s = (c_cols *)state;
  if (!s->jglob) return hy_err(HY_ESYS, "spai cuda: dist_rows of a state without global indices");
  *rowptr = (int64_t *)h_big((size_t)(g1 - g0 + 1) * sizeof(int64_t));
  *colind = (int32_t *)h_big((size_t)(s->nj + 1) * sizeof(int32_t));
  *val = (double *)h_big((size_t)(s->nj + 1) * sizeof(double));
  if (!*rowptr || !*colind || !*val) {
    free(*rowptr); free(*colind); free(*val);
    *rowptr = NULL; *colind = NULL; *val = NULL;
    return hy_err(HY_ESYS, "out of memory for M's %lld entries", (long long)s->nj);
  }
  c_tmp t;
  memset(&t, 0, sizeof t);
  int rc = dist_transpose(be, s, &t, g0, g1, c0, *rowptr, *colind, *val, res, bad, split);
  tmp_free(be, &t);
  return rc;
}

/* M's rows g0 .. g1 - 1 from the device columns of a dist_setup state, left on the device as a
 * rows block (the transpose's arrays; jglob unused); the residuals to the host.  Local. */
static int c_dist_rows_dev(k_backend *be, void *state, const int32_t *jglob, int64_t c0,
                           void **t, int64_t *g0_out, int64_t *g1_out, double *res, int64_t *bad,
                           double *split) {
  (void)jglob;
  c_cols *s = (c_cols *)state;
  k_cuda_state *st = k_cuda_st(be);
  *t = NULL;
  if (!s->jglob) return hy_err(HY_ESYS, "spai cuda: dist_rows_dev of a state without global indices");
  const double t0 = s_now();
  int32_t lo = 0, hi = -1;   /* the rows the J sets name, from their global indices here */
  if (s->nj > 0) HY_CALL(minmax_i32(be, s->jglob, s->nj, &lo, &hi));
  const int64_t g0 = s->nj > 0 ? lo : 0, g1 = s->nj > 0 ? (int64_t)hi + 1 : 0;
  *g0_out = g0;
  *g1_out = g1;
  c_rows *r = (c_rows *)calloc(1, sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  c_tmp tt;
  memset(&tt, 0, sizeof tt);
  unsigned long long hbad = ~0ull;
  int rc = dist_transpose_dev(be, s, &tt, g0, g1, c0, &hbad);
  if (rc == HY_OK && split) {  /* the transpose alone (one more wait: the split figure) */
    rc = cudaStreamSynchronize(st->stream) == cudaSuccess ? HY_OK
         : hy_err(HY_ESYS, "CUDA: M's transpose failed: %s", cudaGetErrorString(cudaGetLastError()));
    split[0] = s_now() - t0;
  }
  if (rc == HY_OK && s->ncols &&
      cudaMemcpyAsync(res, s->res, (size_t)s->ncols * sizeof(double), cudaMemcpyDeviceToHost,
                      st->stream) != cudaSuccess)
    rc = hy_err(HY_ESYS, "CUDA: the residuals' copy failed");
  if (rc == HY_OK && cudaStreamSynchronize(st->stream) != cudaSuccess)
    rc = hy_err(HY_ESYS, "CUDA: M's transpose failed: %s", cudaGetErrorString(cudaGetLastError()));
  if (split) split[1] = s_now() - t0 - split[0];
  r->m = g1 - g0;
  r->nnz = s->nj;
  r->rp = tt.cnt;   /* the block owns them from here */
  r->col = tt.ri;
  r->val = tt.val;
  tt.cnt = NULL;
  tt.ri = NULL;
  tt.val = NULL;
  tmp_free(be, &tt);
  if (rc != HY_OK) {
    c_rows_free(be, r);
    return rc;
  }
  *bad = hbad == ~0ull ? -1 : (int64_t)hbad;
  *t = r;
  return HY_OK;
}

/* ------------------------------------------------------------------ sparse matrices */
/* CSR ALG1 (row-parallel, deterministic for a fixed matrix) with its analysis done once by
 * cusparseSpMV_preprocess. */
#define SPAI_SPMV_ALG CUSPARSE_SPMV_CSR_ALG1

typedef struct {
  int64_t rows, cols, nnz;
  int32_t *rowptr, *colind;
  double *val;
  cusparseSpMatDescr_t descr;
  void *buf;
  size_t buf_bytes;
  int tpr;                     /* our SpMV: threads per row (a power of 2, 2..32) */
  int pool;                    /* 1: the arrays and buf are the setup's stream-ordered memory
                                * (single_mat: s_alloc / s_free), 0: be->ops->alloc */
} c_mat;

/* Our SpMV's threads per row for a mean row length (nonzeros per row): the largest power of 2
 * up to mean / 6 (1..32), each thread taking about six entries or more of its row.  Measured
 * on one H200 (A alone, 1/2/4/8/16/32 threads per row): 26 per row (cfd2's size)
 * 18.0/14.3/11.9/14.4/15.3/21.6 us, cuSPARSE 18.3; 5 per row (n = 921,600)
 * 24.1/26.6/33.5/48.4/89.4/167.7 us, cuSPARSE 31.7.  Local. */
static int mat_tpr(double mean) {
  int t = 1;
  while (t < 32 && 12.0 * t <= mean) t *= 2;
  return t;
}

/* y = A x, T threads per row (T a power of 2 <= 32): each thread sums the row's entries
 * lane, lane + T, ... (values and column indices read through the read-only path, x by
 * __ldg), the T partial sums combined by shuffles in a fixed pattern: deterministic.  Every
 * lane takes part in the shuffles (rows past the end add zeros). */
template <int T>
static __global__ void k_csr_spmv(int64_t rows, const int32_t *__restrict__ rp,
                                  const int32_t *__restrict__ ci, const double *__restrict__ va,
                                  const double *__restrict__ x, double *__restrict__ y) {
  int64_t row = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / T;
  int lane = threadIdx.x & (T - 1);
  double sum = 0;
  if (row < rows) {
    int e1 = __ldg(rp + row + 1);
    for (int e = __ldg(rp + row) + lane; e < e1; e += T) sum += __ldg(va + e) * __ldg(x + __ldg(ci + e));
  }
#pragma unroll
  for (int o = T / 2; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0 && row < rows) y[row] = sum;
}

/* Device memory of a matrix by its kind (a->pool: the setup's stream-ordered pool).  Local. */
static int mat_alloc(k_backend *be, const c_mat *a, void **p, size_t bytes) {
  return a->pool ? s_alloc(be, p, bytes) : be->ops->alloc(be, p, bytes);
}
static void mat_release(k_backend *be, const c_mat *a, void *p) {
  if (a->pool) s_free(be, p);
  else be->ops->free(be, p);
}

/* cuSPARSE's descriptor of a matrix whose arrays are on the device, its SpMV buffer and the
 * analysis (cusparseSpMV_preprocess, on temporary vectors); ends with a wait.  Local. */
static int mat_descr(k_backend *be, c_mat *a) {
  k_cuda_state *st = k_cuda_st(be);
  HY_CUSPARSE(cusparseCreateCsr(&a->descr, a->rows, a->cols, a->nnz, a->rowptr, a->colind, a->val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                CUDA_R_64F));
  double *tx = NULL, *ty = NULL;
  HY_CALL(mat_alloc(be, a, (void **)&tx, (size_t)(a->cols + 1) * sizeof(double)));
  HY_CALL(mat_alloc(be, a, (void **)&ty, (size_t)(a->rows + 1) * sizeof(double)));
  cusparseDnVecDescr_t vx, vy;
  HY_CUSPARSE(cusparseCreateDnVec(&vx, a->cols, tx, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateDnVec(&vy, a->rows, ty, CUDA_R_64F));
  double one = 1, zero = 0;
  HY_CUSPARSE(cusparseSpMV_bufferSize(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a->descr,
                                      vx, &zero, vy, CUDA_R_64F, SPAI_SPMV_ALG,
                                      &a->buf_bytes));
  if (a->buf_bytes) HY_CALL(mat_alloc(be, a, &a->buf, a->buf_bytes));
  HY_CUSPARSE(cusparseSpMV_preprocess(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a->descr,
                                      vx, &zero, vy, CUDA_R_64F, SPAI_SPMV_ALG, a->buf));
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  HY_CUDA(cudaStreamSynchronize(st->stream));
  mat_release(be, a, tx);
  mat_release(be, a, ty);
  return HY_OK;
}

static int c_mat_create(k_backend *be, int64_t rows, int64_t cols, const int64_t *rowptr,
                        const int32_t *colind, const double *val, void **mat) {
  k_cuda_state *st = k_cuda_st(be);
  int64_t nnz = rowptr[rows];
  if (nnz > INT32_MAX || cols > INT32_MAX)
    return hy_err(HY_ESYS, "spai cuda: local matrix with %lld entries exceeds 32-bit indices "
                  "(use more ranks)", (long long)nnz);
  c_mat *a = (c_mat *)calloc(1, sizeof *a);
  if (!a) return hy_err(HY_ESYS, "out of memory");
  a->rows = rows;
  a->cols = cols;
  a->nnz = nnz;
  a->tpr = mat_tpr(rows > 0 ? (double)nnz / (double)rows : 1.0);
  std::vector<int32_t> rp((size_t)rows + 1);
  for (int64_t i = 0; i <= rows; i++) rp[i] = (int32_t)rowptr[i];
  UPLOAD(a->rowptr, rp.data(), rows + 1);
  UPLOAD(a->colind, colind, nnz);
  UPLOAD(a->val, val, nnz);
  HY_CALL(mat_descr(be, a));
  *mat = a;
  return HY_OK;
}

static int c_mat_free(k_backend *be, void *mat) {
  c_mat *a = (c_mat *)mat;
  if (!a) return HY_OK;
  if (a->descr) cusparseDestroySpMat(a->descr);
  mat_release(be, a, a->rowptr);
  mat_release(be, a, a->colind);
  mat_release(be, a, a->val);
  mat_release(be, a, a->buf);
  free(a);
  return HY_OK;
}

static int c_mat_spmv(k_backend *be, void *mat, const double *x, double *y) {
  k_cuda_state *st = k_cuda_st(be);
  c_mat *a = (c_mat *)mat;
  if (a->rows == 0) return HY_OK;
  cusparseDnVecDescr_t vx, vy;
  HY_CUSPARSE(cusparseCreateDnVec(&vx, a->cols, (void *)x, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateDnVec(&vy, a->rows, y, CUDA_R_64F));
  double one = 1, zero = 0;
  cusparseStatus_t rc = cusparseSpMV(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a->descr,
                                     vx, &zero, vy, CUDA_R_64F, SPAI_SPMV_ALG, a->buf);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  HY_CUSPARSE(rc);
  return HY_OK;
}

/* y = mat x by our CSR kernel with tpr threads per row (0: the matrix's choice, mat_tpr).
 * Local. */
static int c_mat_spmv_own(k_backend *be, void *mat, int tpr, const double *x, double *y) {
  c_mat *a = (c_mat *)mat;
  if (a->rows == 0) return HY_OK;
  int t = tpr > 0 ? tpr : a->tpr;
  const int threads = 256;
  int64_t blocks = (a->rows * t + threads - 1) / threads;
  cudaStream_t st = k_cuda_st(be)->stream;
#define SPMV_T(T)                                                                              \
  case T:                                                                                      \
    k_csr_spmv<T><<<(unsigned)blocks, threads, 0, st>>>(a->rows, a->rowptr, a->colind, a->val, \
                                                        x, y);                                 \
    break;
  switch (t) {
    SPMV_T(1) SPMV_T(2) SPMV_T(4) SPMV_T(8) SPMV_T(16) SPMV_T(32)
    default: return hy_err(HY_ESYS, "spai cuda: %d threads per row (1, 2, 4, .. 32)", t);
  }
#undef SPMV_T
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The matrix's device arrays and our SpMV's threads per row.  Local. */
static int c_mat_view(k_backend *be, void *mat, k_csr_view *view) {
  (void)be;
  const c_mat *a = (const c_mat *)mat;
  memset(view, 0, sizeof *view);
  view->rows = a->rows;
  view->rp32 = a->rowptr;
  view->colind = a->colind;
  view->val = a->val;
  view->tpr = a->tpr;
  return HY_OK;
}

/* M by rows of a single_setup state made into the solve's matrix on the device: the transpose's
 * output arrays become the matrix's (stream-ordered memory, a->pool), its descriptor and SpMV
 * analysis made here; only the residuals go to the host.  Local. */
static int c_single_mat(k_backend *be, void *state, void **mat, int64_t *nnz, double *res,
                        int64_t *bad, double *split) {
  const double t0 = s_now();
  k_cuda_state *st = k_cuda_st(be);
  c_cols *s = (c_cols *)state;
  *mat = NULL;
  c_mat *a = (c_mat *)calloc(1, sizeof *a);
  if (!a) return hy_err(HY_ESYS, "out of memory");
  c_tmp t;
  memset(&t, 0, sizeof t);
  unsigned long long hbad = 0;
  int rc = single_transpose_dev(be, s, &t, &hbad);
  a->rows = a->cols = s->ncols;
  a->nnz = s->nj;
  a->pool = 1;
  a->tpr = mat_tpr(a->rows > 0 ? (double)a->nnz / (double)a->rows : 1.0);
  a->rowptr = t.bp32;   /* the matrix owns them from here */
  a->colind = t.col32;
  a->val = t.val;
  t.bp32 = t.col32 = NULL;
  t.val = NULL;
  if (rc == HY_OK) rc = mat_descr(be, a);   /* (ends with a wait) */
  tmp_free(be, &t);
  if (rc != HY_OK) {
    c_mat_free(be, a);
    return rc;
  }
  if (split) split[0] = s_now() - t0;
  if (s->ncols)
    HY_CUDA(cudaMemcpyAsync(res, s->res, (size_t)s->ncols * sizeof(double), cudaMemcpyDeviceToHost,
                            st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  if (split) split[1] = s_now() - t0 - split[0];
  *bad = hbad == ~0ull ? -1 : (int64_t)hbad;
  *nnz = a->nnz;
  *mat = a;
  return HY_OK;
}

/* The matrix's rows to the host (its 32-bit offsets widened on the device).  Local. */
static int c_mat_get(k_backend *be, void *mat, int64_t **rowptr, int32_t **colind, double **val) {
  k_cuda_state *st = k_cuda_st(be);
  const c_mat *a = (const c_mat *)mat;
  *rowptr = (int64_t *)h_big((size_t)(a->rows + 1) * sizeof(int64_t));
  *colind = (int32_t *)h_big((size_t)(a->nnz + 1) * sizeof(int32_t));
  *val = (double *)h_big((size_t)(a->nnz + 1) * sizeof(double));
  if (!*rowptr || !*colind || !*val) {
    free(*rowptr); free(*colind); free(*val);
    *rowptr = NULL; *colind = NULL; *val = NULL;
    return hy_err(HY_ESYS, "out of memory for a matrix's %lld entries", (long long)a->nnz);
  }
  int64_t *rp64 = NULL;
  HY_CALL(s_alloc(be, (void **)&rp64, (size_t)(a->rows + 1) * sizeof(int64_t)));
  k_i32_to_i64<<<grid_of(a->rows + 1), 256, 0, st->stream>>>(a->rows + 1, a->rowptr, rp64);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(*rowptr, rp64, (size_t)(a->rows + 1) * sizeof(int64_t),
                          cudaMemcpyDeviceToHost, st->stream));
  if (a->nnz) {
    HY_CUDA(cudaMemcpyAsync(*colind, a->colind, (size_t)a->nnz * sizeof(int32_t),
                            cudaMemcpyDeviceToHost, st->stream));
    HY_CUDA(cudaMemcpyAsync(*val, a->val, (size_t)a->nnz * sizeof(double), cudaMemcpyDeviceToHost,
                            st->stream));
  }
  HY_CALL(s_free(be, rp64));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  return HY_OK;
}

/* *first = min(*first, i) for every row i where x and y differ (its length, a column index or
 * the bits of a value); a thread per row. */
__global__ void k_rows_differ(int64_t rows, const int32_t *__restrict__ xr,
                              const int32_t *__restrict__ xc, const double *__restrict__ xv,
                              const int32_t *__restrict__ yr, const int32_t *__restrict__ yc,
                              const double *__restrict__ yv, unsigned long long *first) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= rows) return;
  int d = xr[i] != yr[i] || xr[i + 1] != yr[i + 1];
  for (int32_t e = xr[i]; e < xr[i + 1] && !d; e++)
    d = xc[e] != yc[e] || __double_as_longlong(xv[e]) != __double_as_longlong(yv[e]);
  if (d) atomicMin(first, (unsigned long long)i);
}

/* The first row where two matrices differ, -1 if identical.  Local. */
static int c_mat_differs(k_backend *be, void *x, void *y, int64_t *row) {
  k_cuda_state *st = k_cuda_st(be);
  const c_mat *a = (const c_mat *)x, *b = (const c_mat *)y;
  *row = -1;
  if (a->rows != b->rows || a->cols != b->cols) {
    *row = 0;
    return HY_OK;
  }
  if (a->rows == 0) return HY_OK;
  unsigned long long *d = NULL, h = ~0ull;
  HY_CALL(s_alloc(be, (void **)&d, sizeof *d));
  HY_CUDA(cudaMemsetAsync(d, 0xff, sizeof *d, st->stream));
  k_rows_differ<<<grid_of(a->rows), 256, 0, st->stream>>>(a->rows, a->rowptr, a->colind, a->val,
                                                          b->rowptr, b->colind, b->val, d);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, st->stream));
  HY_CALL(s_free(be, d));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  *row = h == ~0ull ? -1 : (int64_t)h;
  return HY_OK;
}

/* ------------------------------------------------------------------ rows blocks (P ranks) */
/* cnt[i] = the length of row rows[i] (rows NULL: row i) of the offsets rp. */
__global__ void k_rows_len(int64_t nr, const int64_t *__restrict__ rows,
                           const int64_t *__restrict__ rp, int64_t *__restrict__ cnt) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nr) return;
  int64_t r = rows ? rows[i] : i;
  cnt[i] = rp[r + 1] - rp[r];
}
/* Row rows[i] of (rp, col, val) to off[i] of (oc, ov), a thread per row. */
__global__ void k_rows_copy(int64_t nr, const int64_t *__restrict__ rows,
                            const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                            const double *__restrict__ val, const int64_t *__restrict__ off,
                            int32_t *__restrict__ oc, double *__restrict__ ov) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nr) return;
  int64_t b = rp[rows[i]], l = rp[rows[i] + 1] - b, o = off[i];
  for (int64_t k = 0; k < l; k++) {
    oc[o + k] = col[b + k];
    ov[o + k] = val[b + k];
  }
}
/* A piece's row lengths added to len[row0 + i] (its rows at off[i] .. off[i + 1]). */
__global__ void k_piece_len(int64_t rows, int64_t row0, const int64_t *__restrict__ off,
                            int64_t *__restrict__ len) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < rows) len[row0 + i] += off[i + 1] - off[i];
}
/* A piece's rows copied to pos[row0 + i] of (dc, dv), pos advanced past them. */
__global__ void k_piece_copy(int64_t rows, int64_t row0, const int64_t *__restrict__ off,
                             const int32_t *__restrict__ col, const double *__restrict__ val,
                             int64_t *__restrict__ pos, int32_t *__restrict__ dc,
                             double *__restrict__ dv) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= rows) return;
  int64_t b = off[i], l = off[i + 1] - b, at = pos[row0 + i];
  for (int64_t k = 0; k < l; k++) {
    dc[at + k] = col[b + k];
    dv[at + k] = val[b + k];
  }
  pos[row0 + i] = at + l;
}
/* la_halo_build's new index of global column g: g - r0 for this rank's, else nloc + its place
 * among the sorted ghosts gh. */
__device__ __forceinline__ int32_t halo_col(int64_t g, int64_t r0, int64_t nloc, int64_t ng,
                                            const int64_t *__restrict__ gh) {
  if (g >= r0 && g < r0 + nloc) return (int32_t)(g - r0);
  int64_t lo = 0, hi = ng - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi) >> 1;
    if (gh[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return (int32_t)(nloc + lo);
}
/* Row i renumbered for the halo, its entries in increasing new index: the global order is
 * the ghosts below r0, the local ones, those above; the new one local, below, above (a thread
 * per row). */
__global__ void k_rows_halo(int64_t m, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                            const double *__restrict__ val, int64_t r0, int64_t nloc, int64_t ng,
                            const int64_t *__restrict__ gh, int32_t *__restrict__ oc,
                            double *__restrict__ ov) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= m) return;
  const int64_t b = rp[i], e = rp[i + 1];
  int64_t nlow = 0, nown = 0;
  while (b + nlow < e && col[b + nlow] < r0) nlow++;
  while (b + nlow + nown < e && col[b + nlow + nown] < r0 + nloc) nown++;
  for (int64_t k = 0; k < e - b; k++) {
    int64_t at = k < nlow ? nown + k : k < nlow + nown ? k - nlow : k;
    oc[b + at] = halo_col(col[b + k], r0, nloc, ng, gh);
    ov[b + at] = val[b + k];
  }
}

/* The smallest and largest of in[0..n) (n >= 1; CUB), to the host (ends with a wait).  Local. */
static int minmax_i32(k_backend *be, const int32_t *in, int64_t n, int32_t *lo, int32_t *hi) {
  k_cuda_state *st = k_cuda_st(be);
  size_t a = 0, b = 0;
  int32_t *d = NULL, h[2] = { 0, 0 };
  HY_CUDA(cub::DeviceReduce::Min(NULL, a, in, d, (int)n, st->stream));
  HY_CUDA(cub::DeviceReduce::Max(NULL, b, in, d, (int)n, st->stream));
  size_t need = a > b ? a : b;
  void *tmp = NULL;
  HY_CALL(s_alloc(be, &tmp, need + 16));
  d = (int32_t *)((char *)tmp + ((need + 7) & ~(size_t)7));
  HY_CUDA(cub::DeviceReduce::Min(tmp, need, in, d, (int)n, st->stream));
  HY_CUDA(cub::DeviceReduce::Max(tmp, need, in, d + 1, (int)n, st->stream));
  HY_CUDA(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, st->stream));
  HY_CALL(s_free(be, tmp));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  *lo = h[0];
  *hi = h[1];
  return HY_OK;
}

/* The body of c_dist_trans: A up (its 64-bit offsets narrowed on the device), the row maxima
 * (k_rowmax, to mx), the touched column range, A's columns shifted by -g0 and transposed by
 * cusparseCsr2cscEx2 (row indices + r0: global rows), the offsets widened into r.  Local. */
static int dist_trans_run(k_backend *be, int64_t nloc, int64_t r0, const int64_t *rowptr,
                          const int32_t *colind, const double *val, c_rows *r, c_tmp *t,
                          int64_t *g0, int64_t *g1, double *mx) {
  k_cuda_state *st = k_cuda_st(be);
  const int64_t nnz = rowptr[nloc];
  SUPLOAD(t->cnt, rowptr, nloc + 1);
  HY_CALL(s_alloc(be, (void **)&t->rp32, (size_t)(nloc + 1) * sizeof(int32_t)));
  k_i64_to_i32<<<grid_of(nloc + 1), 256, 0, st->stream>>>(nloc + 1, t->cnt, t->rp32);
  HY_CUDA_LAUNCH();
  SUPLOAD(t->col32, colind, nnz);
  SUPLOAD(t->val, val, nnz);
  if (mx && nloc > 0) {
    HY_CALL(s_alloc(be, (void **)&t->mx, (size_t)nloc * sizeof(double)));
    k_rowmax<<<grid_of(nloc), 256, 0, st->stream>>>(nloc, t->rp32, t->val, t->mx);
    HY_CUDA_LAUNCH();
    HY_CUDA(cudaMemcpyAsync(mx, t->mx, (size_t)nloc * sizeof(double), cudaMemcpyDeviceToHost,
                            st->stream));
  }
  int32_t lo = 0, hi = -1;
  if (nnz > 0) HY_CALL(minmax_i32(be, t->col32, nnz, &lo, &hi));
  const int64_t m = nnz > 0 ? (int64_t)hi - lo + 1 : 0;
  HY_CALL(s_alloc(be, (void **)&r->rp, (size_t)(m + 1) * sizeof(int64_t)));
  HY_CALL(s_alloc(be, (void **)&r->col, (size_t)(nnz + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&r->val, (size_t)(nnz + 1) * sizeof(double)));
  HY_CALL(s_alloc(be, (void **)&t->bp32, (size_t)(m + 1) * sizeof(int32_t)));
  HY_CUDA(cudaMemsetAsync(r->rp, 0, (size_t)(m + 1) * sizeof(int64_t), st->stream));
  if (nnz > 0) {
    HY_CALL(s_alloc(be, (void **)&t->ri, (size_t)nnz * sizeof(int32_t)));
    k_add_i32<<<grid_of(nnz), 256, 0, st->stream>>>(nnz, t->col32, -(int64_t)lo, t->ri);
    HY_CUDA_LAUNCH();
    size_t bytes = 0;
    HY_CUSPARSE(cusparseCsr2cscEx2_bufferSize(st->cusparse, (int)nloc, (int)m, (int)nnz, t->val,
                                              t->rp32, t->ri, r->val, t->bp32, r->col, CUDA_R_64F,
                                              CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                              CUSPARSE_CSR2CSC_ALG1, &bytes));
    HY_CALL(s_alloc(be, &t->buf, bytes ? bytes : 8));
    HY_CUSPARSE(cusparseCsr2cscEx2(st->cusparse, (int)nloc, (int)m, (int)nnz, t->val, t->rp32,
                                   t->ri, r->val, t->bp32, r->col, CUDA_R_64F,
                                   CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                   CUSPARSE_CSR2CSC_ALG1, t->buf));
    k_add_i32<<<grid_of(nnz), 256, 0, st->stream>>>(nnz, r->col, r0, r->col);
    HY_CUDA_LAUNCH();
    k_i32_to_i64<<<grid_of(m + 1), 256, 0, st->stream>>>(m + 1, t->bp32, r->rp);
    HY_CUDA_LAUNCH();
  }
  HY_CUDA(cudaStreamSynchronize(st->stream));
  r->m = m;
  r->nnz = nnz;
  *g0 = nnz > 0 ? lo : 0;
  *g1 = nnz > 0 ? (int64_t)hi + 1 : 0;
  return HY_OK;
}

/* P ranks: A's local rows uploaded once and transposed on the device into a rows block.
 * Local. */
static int c_dist_trans(k_backend *be, int64_t nloc, int64_t r0, const int64_t *rowptr,
                        const int32_t *colind, const double *val, void **t, int64_t *g0,
                        int64_t *g1, double *mx) {
  *t = NULL;
  *g0 = *g1 = 0;
  if (rowptr[nloc] > INT32_MAX || nloc >= INT32_MAX)
    return hy_err(HY_ESYS, "spai cuda: A's %lld local entries exceed the 32-bit indices of "
                  "cuSPARSE's transpose (use more ranks)", (long long)rowptr[nloc]);
  HY_CALL(s_pool_keep(be));
  c_rows *r = (c_rows *)calloc(1, sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  c_tmp tt;
  memset(&tt, 0, sizeof tt);
  int rc = dist_trans_run(be, nloc, r0, rowptr, colind, val, r, &tt, g0, g1, mx);
  tmp_free(be, &tt);
  if (rc != HY_OK) {
    c_rows_free(be, r);
    return rc;
  }
  *t = r;
  return HY_OK;
}

/* The body of c_rows_gather: the list up, the rows' lengths and offsets (to the host), the rows
 * copied into one buffer and down.  Local. */
static int rows_gather_run(k_backend *be, const c_rows *r, int64_t nr, const int64_t *rows,
                           c_tmp *t, int64_t *off, int32_t **col, double **val) {
  k_cuda_state *st = k_cuda_st(be);
  int64_t *dl = NULL, *dof = NULL;
  SUPLOAD(dl, rows, nr);
  t->buf = dl;
  HY_CALL(s_alloc(be, (void **)&t->cnt, (size_t)(nr + 1) * sizeof(int64_t)));
  HY_CALL(s_alloc(be, (void **)&dof, (size_t)(nr + 1) * sizeof(int64_t)));
  t->bad = (unsigned long long *)dof;
  HY_CUDA(cudaMemsetAsync(t->cnt, 0, (size_t)(nr + 1) * sizeof(int64_t), st->stream));
  k_rows_len<<<grid_of(nr), 256, 0, st->stream>>>(nr, dl, r->rp, t->cnt);
  HY_CUDA_LAUNCH();
  size_t scan_bytes = 0;
  HY_CALL(scan_i64(be, t, &scan_bytes, t->cnt, dof, nr + 1));
  HY_CUDA(cudaMemcpyAsync(off, dof, (size_t)(nr + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost,
                          st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  const int64_t tot = off[nr];
  *col = (int32_t *)h_big((size_t)(tot + 1) * sizeof(int32_t));
  *val = (double *)h_big((size_t)(tot + 1) * sizeof(double));
  if (!*col || !*val) return hy_err(HY_ESYS, "out of memory for %lld gathered entries", (long long)tot);
  HY_CALL(s_alloc(be, (void **)&t->col32, (size_t)(tot + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&t->val, (size_t)(tot + 1) * sizeof(double)));
  k_rows_copy<<<grid_of(nr), 256, 0, st->stream>>>(nr, dl, r->rp, r->col, r->val, dof, t->col32,
                                                   t->val);
  HY_CUDA_LAUNCH();
  if (tot) {
    HY_CUDA(cudaMemcpyAsync(*col, t->col32, (size_t)tot * sizeof(int32_t), cudaMemcpyDeviceToHost,
                            st->stream));
    HY_CUDA(cudaMemcpyAsync(*val, t->val, (size_t)tot * sizeof(double), cudaMemcpyDeviceToHost,
                            st->stream));
  }
  HY_CUDA(cudaStreamSynchronize(st->stream));
  return HY_OK;
}

/* The listed rows of a block to host arrays.  Local. */
static int c_rows_gather(k_backend *be, void *t, int64_t nr, const int64_t *rows, int64_t **off,
                         int32_t **col, double **val) {
  const c_rows *r = (const c_rows *)t;
  *col = NULL;
  *val = NULL;
  for (int64_t i = 0; i < nr; i++)
    if (rows[i] < 0 || rows[i] >= r->m)
      return hy_err(HY_ESYS, "spai cuda: rows_gather: row %lld of a block of %lld",
                    (long long)rows[i], (long long)r->m);
  *off = (int64_t *)h_big((size_t)(nr + 1) * sizeof(int64_t));
  if (!*off) return hy_err(HY_ESYS, "out of memory");
  (*off)[0] = 0;
  if (nr == 0) {
    *col = (int32_t *)malloc(8);
    *val = (double *)malloc(8);
    return HY_OK;
  }
  c_tmp tt;
  memset(&tt, 0, sizeof tt);
  int rc = rows_gather_run(be, r, nr, rows, &tt, *off, col, val);
  tmp_free(be, &tt);
  return rc;
}

/* Device copies of the host pieces' arrays and of every piece's offsets / entries. */
typedef struct {
  std::vector<const int64_t *> off;
  std::vector<const int32_t *> col;
  std::vector<const double *> val;
  std::vector<void *> owned;     /* uploaded here, freed at the end */
} c_pieces;

/* The body of c_rows_merge: host pieces up, the row lengths summed piece by piece, their
 * offsets (scan), then each piece's rows copied in list order behind the ones before.  Local. */
static int rows_merge_run(k_backend *be, int64_t mloc, int np, const k_spai_piece *pc,
                          c_rows *r, c_tmp *t, c_pieces *dp) {
  k_cuda_state *st = k_cuda_st(be);
  HY_CALL(s_alloc(be, (void **)&t->cnt, (size_t)(mloc + 1) * sizeof(int64_t)));
  HY_CUDA(cudaMemsetAsync(t->cnt, 0, (size_t)(mloc + 1) * sizeof(int64_t), st->stream));
  for (int p = 0; p < np; p++) {
    const k_spai_piece *q = &pc[p];
    if (q->rows < 0 || q->row0 < 0 || q->row0 + q->rows > mloc)
      return hy_err(HY_ESYS, "spai cuda: rows_merge: a piece of rows %lld..%lld in %lld rows",
                    (long long)q->row0, (long long)(q->row0 + q->rows), (long long)mloc);
    if (q->t) {
      const c_rows *b = (const c_rows *)q->t;
      dp->off[p] = b->rp + q->t_row0;
      dp->col[p] = b->col;
      dp->val[p] = b->val;
    } else {
      int64_t *o = NULL;
      int32_t *c = NULL;
      double *v = NULL;
      SUPLOAD(o, q->off, q->rows + 1);
      dp->owned.push_back(o);
      SUPLOAD(c, q->col, q->off[q->rows]);
      dp->owned.push_back(c);
      SUPLOAD(v, q->val, q->off[q->rows]);
      dp->owned.push_back(v);
      dp->off[p] = o;
      dp->col[p] = c;
      dp->val[p] = v;
    }
    if (q->rows > 0) {
      k_piece_len<<<grid_of(q->rows), 256, 0, st->stream>>>(q->rows, q->row0, dp->off[p], t->cnt);
      HY_CUDA_LAUNCH();
    }
  }
  HY_CALL(s_alloc(be, (void **)&r->rp, (size_t)(mloc + 1) * sizeof(int64_t)));
  size_t scan_bytes = 0;
  HY_CALL(scan_i64(be, t, &scan_bytes, t->cnt, r->rp, mloc + 1));
  HY_CUDA(cudaMemcpyAsync(&r->nnz, r->rp + mloc, sizeof r->nnz, cudaMemcpyDeviceToHost, st->stream));
  HY_CUDA(cudaStreamSynchronize(st->stream));
  r->m = mloc;
  HY_CALL(s_alloc(be, (void **)&r->col, (size_t)(r->nnz + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&r->val, (size_t)(r->nnz + 1) * sizeof(double)));
  int64_t *pos = t->cnt;   /* the lengths are spent: now the next place in each row */
  HY_CUDA(cudaMemcpyAsync(pos, r->rp, (size_t)(mloc + 1) * sizeof(int64_t),
                          cudaMemcpyDeviceToDevice, st->stream));
  for (int p = 0; p < np; p++) {
    if (pc[p].rows == 0) continue;
    k_piece_copy<<<grid_of(pc[p].rows), 256, 0, st->stream>>>(pc[p].rows, pc[p].row0, dp->off[p],
                                                              dp->col[p], dp->val[p], pos, r->col,
                                                              r->val);
    HY_CUDA_LAUNCH();
  }
  HY_CUDA(cudaStreamSynchronize(st->stream));
  return HY_OK;
}

/* A block of mloc local rows from pieces, each row's pieces in list order.  Local. */
static int c_rows_merge(k_backend *be, int64_t mloc, int np, const k_spai_piece *pc, void **out) {
  *out = NULL;
  HY_CALL(s_pool_keep(be));
  c_rows *r = (c_rows *)calloc(1, sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  c_tmp tt;
  memset(&tt, 0, sizeof tt);
  c_pieces dp;
  dp.off.resize((size_t)np);
  dp.col.resize((size_t)np);
  dp.val.resize((size_t)np);
  int rc = rows_merge_run(be, mloc, np, pc, r, &tt, &dp);
  for (void *p : dp.owned) s_free(be, p);
  tmp_free(be, &tt);
  if (rc != HY_OK) {
    c_rows_free(be, r);
    return rc;
  }
  *out = r;
  return HY_OK;
}

/* A block's rows renumbered for the halo (k_rows_halo) into a matrix of the setup's memory
 * (a->pool), its descriptor and SpMV analysis made here (ends with a wait).  Local. */
static int rows_mat_run(k_backend *be, const c_rows *r, c_mat *a, int64_t r0, int64_t nloc,
                        int64_t ng, const int64_t *ghost, int64_t **dg) {
  k_cuda_state *st = k_cuda_st(be);
  SUPLOAD(*dg, ghost, ng);
  HY_CALL(s_alloc(be, (void **)&a->rowptr, (size_t)(r->m + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&a->colind, (size_t)(r->nnz + 1) * sizeof(int32_t)));
  HY_CALL(s_alloc(be, (void **)&a->val, (size_t)(r->nnz + 1) * sizeof(double)));
  k_i64_to_i32<<<grid_of(r->m + 1), 256, 0, st->stream>>>(r->m + 1, r->rp, a->rowptr);
  HY_CUDA_LAUNCH();
  if (r->m > 0) {
    k_rows_halo<<<grid_of(r->m), 256, 0, st->stream>>>(r->m, r->rp, r->col, r->val, r0, nloc, ng,
                                                       *dg, a->colind, a->val);
    HY_CUDA_LAUNCH();
  }
  return mat_descr(be, a);
}

/* The block made the solve's matrix with local columns (la_halo_build's numbering); the block
 * freed.  Local. */
static int c_rows_mat(k_backend *be, void *t, int64_t r0, int64_t nloc, int64_t ng,
                      const int64_t *ghost, void **mat, int64_t *nnz) {
  c_rows *r = (c_rows *)t;
  *mat = NULL;
  const int64_t nz = r->nnz;
  if (nz > INT32_MAX || nloc + ng > INT32_MAX) {
    c_rows_free(be, r);
    return hy_err(HY_ESYS, "spai cuda: M's local matrix with %lld entries exceeds 32-bit indices "
                  "(use more ranks)", (long long)nz);
  }
  c_mat *a = (c_mat *)calloc(1, sizeof *a);
  if (!a) {
    c_rows_free(be, r);
    return hy_err(HY_ESYS, "out of memory");
  }
  a->rows = r->m;
  a->cols = nloc + ng;
  a->nnz = r->nnz;
  a->pool = 1;
  a->tpr = mat_tpr(a->rows > 0 ? (double)a->nnz / (double)a->rows : 1.0);
  int64_t *dg = NULL;
  int rc = rows_mat_run(be, r, a, r0, nloc, ng, ghost, &dg);
  s_free(be, dg);
  c_rows_free(be, r);
  if (rc != HY_OK) {
    c_mat_free(be, a);
    return rc;
  }
  *nnz = a->nnz;
  *mat = a;
  return HY_OK;
}

/* ILU(0) (spai_ilu_cuda.cu). */
int k_spai_cuda_ilu_create(k_backend *be, int64_t n, const int64_t *rowptr, const int32_t *colind,
                           const double *val, void **ilu);
int k_spai_cuda_ilu_apply(k_backend *be, void *ilu, const double *x, double *y);
int k_spai_cuda_ilu_free(k_backend *be, void *ilu);

extern "C" const k_spai_ops k_spai_cuda_ops = {
  .cols_setup = c_cols_setup,
  .cols_index = c_cols_index,
  .cols_index_batches = c_cols_index_batches,
  .cols_submat = c_cols_submat,
  .cols_solve = c_cols_solve,
  .cols_result = c_cols_result,
  .cols_free = c_cols_free,
  .single_setup = c_single_setup,
  .single_rows = c_single_rows,
  .single_mat = c_single_mat,
  .dist_setup = c_dist_setup,
  .dist_rows = c_dist_rows,
  .dist_trans = c_dist_trans,
  .rows_gather = c_rows_gather,
  .rows_merge = c_rows_merge,
  .rows_free = c_rows_free,
  .rows_mat = c_rows_mat,
  .dist_rows_dev = c_dist_rows_dev,
  .mat_create = c_mat_create,
  .mat_free = c_mat_free,
  .mat_spmv = c_mat_spmv,
  .mat_spmv_own = c_mat_spmv_own,
  .mat_view = c_mat_view,
  .mat_get = c_mat_get,
  .mat_differs = c_mat_differs,
  .ilu_create = k_spai_cuda_ilu_create,
  .ilu_apply = k_spai_cuda_ilu_apply,
  .ilu_free = k_spai_cuda_ilu_free,
  .pool_reserve = c_pool_reserve,
  .host_pin = c_host_pin,
};
