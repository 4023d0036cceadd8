/* lle_cuda.cu - the lle kernels on a CUDA device: brute-force K nearest neighbours (one thread
 * per query, candidate points staged through shared memory in tiles, the K-list in the
 * thread's local memory, direct-form distances with explicitly rounded operations so that no
 * fused multiply-add makes them differ from the host's) and the reconstruction weights (one
 * thread per query, the local Gram matrix in an interleaved global scratch for coalesced
 * access).  FP64 brute force for dimension <= 64 and k <= 28 goes through an FP32 filter with a
 * rigorous error bound and an FP64 re-ranking of the few candidates it keeps (kf_ below): the
 * same lists.  Same function as kernels/host/lle_host.c: the GPU tests compare the two. */
#include "k_cuda.h"
#include "k_lle.h"

#include <math.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#define KNN_THREADS 128
#define KNN_TILE_BYTES 32768

/* Insert candidate (d, j) into the ascending list; candidates arrive in increasing j, so an
 * equal distance never displaces an earlier (smaller) index.  Device. */
template <typename T>
__device__ __forceinline__ void knn_insert(T *dl, int32_t *il, int k, T d, int32_t j) {
  int p = k - 1;
  while (p > 0 && dl[p - 1] > d) {
    dl[p] = dl[p - 1];
    il[p] = il[p - 1];
    p--;
  }
  dl[p] = d;
  il[p] = j;
}

/* Squared distance, FP64 direct form, rounded like the host loop (no FMA).  Device. */
__device__ __forceinline__ double sqdist(const double *a, const double *b, int dim) {
  double s = 0;
  for (int c = 0; c < dim; c++) {
    double t = __dsub_rn(a[c], b[c]);
    s = __dadd_rn(s, __dmul_rn(t, t));
  }
  return s;
}
/* Squared distance, FP32 direct form.  Device. */
__device__ __forceinline__ float sqdist(const float *a, const float *b, int dim) {
  float s = 0;
  for (int c = 0; c < dim; c++) {
    float t = __fsub_rn(a[c], b[c]);
    s = __fadd_rn(s, __fmul_rn(t, t));
  }
  return s;
}

/* Explicitly rounded arithmetic (never contracted into FMA).  Device. */
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }

/* Neighbours of queries q0 + blockIdx.x * blockDim.x + threadIdx.x (or of the listed ones).  DIMC > 0: the dimension
 * as a compile-time constant (the query in registers, loops unrolled); DIMC = 0: any
 * dimension, the query read from global memory.  Global kernel. */
template <typename T, int DIMC>
__global__ void knn_kernel(const T *__restrict__ x, int64_t n, int dim_rt, int64_t q0, int64_t q1, int k,
                           int tile, const int32_t *__restrict__ qlist, int32_t *__restrict__ nbr,
                           double *__restrict__ d2) {
  extern __shared__ unsigned char smem_raw[];
  T *sx = reinterpret_cast<T *>(smem_raw);
  const int dim = DIMC > 0 ? DIMC : dim_rt;
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  /* qlist: the queries are qlist[0 .. q1 - q0 - 1] (the filter's leftovers), else q0 + t */
  bool active = t < q1 - q0;
  int64_t q = active && qlist ? (int64_t)qlist[t] : q0 + t;
  T dl[K_LLE_KMAX];
  int32_t il[K_LLE_KMAX];
  T xq[DIMC > 0 ? DIMC : 1];
  for (int j = 0; j < k; j++) { dl[j] = (T)INFINITY; il[j] = INT32_MAX; }
  if (DIMC > 0 && active) {
#pragma unroll
    for (int c = 0; c < (DIMC > 0 ? DIMC : 1); c++) xq[c] = x[q * dim + c];
  }
  T worst = (T)INFINITY;
  for (int64_t base = 0; base < n; base += tile) {
    int cnt = (int)(n - base < tile ? n - base : tile);
    __syncthreads();
    for (int i = threadIdx.x; i < cnt * dim; i += blockDim.x) sx[i] = x[base * dim + i];
    __syncthreads();
    if (!active) continue;
    for (int jj = 0; jj < cnt; jj++) {
      int64_t j = base + jj;
      T d;
      if (DIMC > 0) {
        const T *sj = sx + (size_t)jj * DIMC;
        d = 0;
#pragma unroll
        for (int c = 0; c < (DIMC > 0 ? DIMC : 1); c++) {
          T t = sub_rn(sj[c], xq[c]);
          d = add_rn(d, mul_rn(t, t));
        }
      } else {
        d = sqdist(sx + (size_t)jj * dim, x + q * dim, dim);
      }
      if (d < worst && j != q) {
        knn_insert(dl, il, k, d, (int32_t)j);
        worst = dl[k - 1];
      }
    }
  }
  if (active) {
    int64_t r = (q - q0) * k;
    for (int j = 0; j < k; j++) { nbr[r + j] = il[j]; d2[r + j] = (double)dl[j]; }
  }
}

/* Launch the kernel specialised for the dimension when it is a common one.  Local. */
template <typename T>
static void knn_launch(unsigned blocks, size_t shm, cudaStream_t st, const T *x, int64_t n, int dim,
                       int64_t q0, int64_t q1, int k, int tile, const int32_t *qlist, int32_t *nbr, double *d2) {
  switch (dim) {
#define KNN_CASE(D) case D: knn_kernel<T, D><<<blocks, KNN_THREADS, shm, st>>>(x, n, dim, q0, q1, k, tile, qlist, nbr, d2); break;
    KNN_CASE(2) KNN_CASE(3) KNN_CASE(4) KNN_CASE(8) KNN_CASE(16) KNN_CASE(32)
#undef KNN_CASE
    default: knn_kernel<T, 0><<<blocks, KNN_THREADS, shm, st>>>(x, n, dim, q0, q1, k, tile, qlist, nbr, d2);
  }
}

/* x (double) -> xf (float).  Global kernel. */
__global__ void to_float(const double *x, float *xf, int64_t m) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) xf[i] = (float)x[i];
}

/* ---- FP64-exact brute force through an FP32 filter (kf_: the high-dimension path) ----
 * Pass 1 (kf_filter): the points centred on their bounding box's centre and rounded to FP32
 * (padded with zeros to DP, a multiple of 4), each thread one query against one of S slices of
 * the candidates, staged through shared memory as float4 (a broadcast: every thread of the
 * block reads the same candidate), the query in registers, FP32 direct-form distances with
 * fused multiply-adds, the L smallest kept in registers by a branch-free insertion.
 * Pass 2 (kf_refine): a rigorous bound on the FP32 error (k_lle.h's K_LLE_KF_* comment) gives
 * the interval [lo(d), hi(d)] that holds the true distance of a candidate with FP32 distance d;
 * with dK the K-th smallest FP32 distance of the query and H = hi(dK), every true K-nearest
 * point has lo(d) <= H, so the query is complete when each slice's L-th entry has lo > H (or
 * the slice holds fewer than L points); then the candidates with lo(d) <= H are ranked by
 * their FP64 direct-form distance (rounded as on the host) and (distance, index): the host's
 * lists exactly.  Queries that are not complete (ties or duplicates beyond L - K, data too
 * large for FP32) are listed and redone by the FP64 kernel above. */
#define KF_THREADS 128
#define KF_TILE 64     /* candidates a shared-memory tile */
#define KF_MAXD 64     /* data dimensions the filter takes (padded) */
#define KF_MAXS 8      /* candidate slices */

/* Centre and radius of the points: ctr[c] the bounding box's centre, rho >= max_i ||x_i - ctr||. */
typedef struct {
  double ctr[KF_MAXD];
  double rho;
} kf_stat;

/* Per-thread minimum and maximum of one coordinate (c = thread id % dim: the stride T is a
 * multiple of dim) over all points.  Global kernel. */
__global__ void kf_bbox_part(const double *__restrict__ x, int64_t m, int dim, int64_t T, double *part) {
  int64_t id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= T) return;
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t e = id; e < m; e += T) { lo = fmin(lo, x[e]); hi = fmax(hi, x[e]); }
  part[id] = lo;
  part[T + id] = hi;
}

/* Block c: coordinate c's minimum and maximum over the partials; centre and the half extent
 * (rounded up) into st->ctr[c] and half[c].  Global kernel. */
__global__ void kf_bbox_coord(const double *__restrict__ part, int dim, int64_t T, kf_stat *st, double *half) {
  __shared__ double slo[256], shi[256];
  int c = blockIdx.x;
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t id = c + (int64_t)threadIdx.x * dim; id < T; id += (int64_t)blockDim.x * dim) {
    lo = fmin(lo, part[id]);
    hi = fmax(hi, part[T + id]);
  }
  slo[threadIdx.x] = lo;
  shi[threadIdx.x] = hi;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      slo[threadIdx.x] = fmin(slo[threadIdx.x], slo[threadIdx.x + w]);
      shi[threadIdx.x] = fmax(shi[threadIdx.x], shi[threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x) return;
  double m = 0.5 * (slo[0] + shi[0]);
  st->ctr[c] = m;
  half[c] = fmax(shi[0] - m, m - slo[0]) * (1 + 0x1p-50);
}

/* rho from the half extents (the half diagonal, rounded up; NaN/Inf stays so).  Global, 1 thread. */
__global__ void kf_bbox_rho(int dim, const double *half, kf_stat *st) {
  double s = 0;
  for (int c = 0; c < dim; c++) s += half[c] * half[c];
  st->rho = sqrt(s) * (1 + 1e-14);
}

/* xf[i * DP + c] = (float)(x[i * dim + c] - ctr[c]), zero for c >= dim.  Global kernel. */
__global__ void kf_to_float(const double *__restrict__ x, int64_t n, int dim, int DP, const kf_stat *st,
                            float *__restrict__ xf) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n * DP) return;
  int64_t i = e / DP;
  int c = (int)(e % DP);
  xf[e] = c < dim ? (float)(x[i * dim + c] - st->ctr[c]) : 0.0f;
}

/* Insert (d, j) into the ascending register list of length L (entries equal to d stay
 * before it), branch-free so that it stays in registers.  Device. */
template <int L>
__device__ __forceinline__ void kf_insert(float *dl, int32_t *il, float d, int32_t j) {
#pragma unroll
  for (int p = L - 1; p > 0; p--) {
    bool m = dl[p - 1] > d, h = dl[p] > d;
    float nd = m ? dl[p - 1] : (h ? d : dl[p]);
    int32_t ni = m ? il[p - 1] : (h ? j : il[p]);
    dl[p] = nd;
    il[p] = ni;
  }
  if (dl[0] > d) { dl[0] = d; il[0] = j; }
}

/* FP32 squared distance of a staged candidate (DP / 4 float4) to the query, two accumulators.  Device. */
template <int DP>
__device__ __forceinline__ float kf_dist(const float4 *__restrict__ sj, const float4 *xq) {
  float a0 = 0.0f, a1 = 0.0f;
#pragma unroll
  for (int c = 0; c < DP / 4; c++) {
    float4 v = sj[c];
    float t0 = v.x - xq[c].x, t1 = v.y - xq[c].y, t2 = v.z - xq[c].z, t3 = v.w - xq[c].w;
    a0 = fmaf(t0, t0, a0);
    a1 = fmaf(t1, t1, a1);
    a0 = fmaf(t2, t2, a0);
    a1 = fmaf(t3, t3, a1);
  }
  return a0 + a1;
}

/* Pass 1: query q0 + t (t = blockIdx.x * KF_THREADS + threadIdx.x) against slice blockIdx.y of
 * the S slices; its L smallest FP32 distances (the query itself excluded by index) to
 * cd/ci[(s * L + p) * nq + t] (INFINITY / INT32_MAX where the slice has fewer).  Global kernel. */
template <int DP, int L>
__global__ void __launch_bounds__(KF_THREADS, 4)
kf_filter(const float *__restrict__ xf, int64_t n, int64_t q0, int64_t nq, float *__restrict__ cd,
          int32_t *__restrict__ ci) {
  __shared__ float4 sx[KF_TILE * DP / 4];
  const int s = blockIdx.y, S = gridDim.y;
  const int64_t t = (int64_t)blockIdx.x * KF_THREADS + threadIdx.x, q = q0 + (t < nq ? t : 0);
  const int64_t j0 = n * s / S, j1 = n * (s + 1) / S;
  const float4 *x4 = reinterpret_cast<const float4 *>(xf);
  float4 xq[DP / 4];
#pragma unroll
  for (int c = 0; c < DP / 4; c++) xq[c] = x4[q * (DP / 4) + c];
  float dl[L];
  int32_t il[L];
#pragma unroll
  for (int p = 0; p < L; p++) { dl[p] = INFINITY; il[p] = INT32_MAX; }
  for (int64_t base = j0; base < j1; base += KF_TILE) {
    int cnt = (int)(j1 - base < KF_TILE ? j1 - base : KF_TILE);
    __syncthreads();
    for (int i = threadIdx.x; i < cnt * (DP / 4); i += KF_THREADS) sx[i] = x4[base * (DP / 4) + i];
    __syncthreads();
    int jj = 0;
    for (; jj + 1 < cnt; jj += 2) {   /* two candidates at a time: independent chains */
      float da = kf_dist<DP>(sx + jj * (DP / 4), xq), db = kf_dist<DP>(sx + (jj + 1) * (DP / 4), xq);
      if (da < dl[L - 1] && base + jj != q) kf_insert<L>(dl, il, da, (int32_t)(base + jj));
      if (db < dl[L - 1] && base + jj + 1 != q) kf_insert<L>(dl, il, db, (int32_t)(base + jj + 1));
    }
    if (jj < cnt) {
      float da = kf_dist<DP>(sx + jj * (DP / 4), xq);
      if (da < dl[L - 1] && base + jj != q) kf_insert<L>(dl, il, da, (int32_t)(base + jj));
    }
  }
  if (t >= nq) return;
#pragma unroll
  for (int p = 0; p < L; p++) {
    cd[((int64_t)s * L + p) * nq + t] = dl[p];
    ci[((int64_t)s * L + p) * nq + t] = il[p];
  }
}

/* Pass 2 for query q0 + t: the K-th smallest FP32 distance over the S slices, the bound, the
 * completeness test; complete: the candidates within reach ranked by FP64 direct-form distance
 * and index into nbr/d2; else the query appended to slow[] (*nslow counts).  Global kernel. */
template <int L>
__global__ void kf_refine(const double *__restrict__ x, int dim, const kf_stat *__restrict__ st, int64_t q0,
                          int64_t nq, int S, int k, const float *__restrict__ cd, const int32_t *__restrict__ ci,
                          int32_t *__restrict__ nbr, double *__restrict__ d2, int32_t *slow, int32_t *nslow) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nq) return;
  int head[KF_MAXS];
  for (int s = 0; s < S; s++) head[s] = 0;
  float dk = INFINITY;
  for (int r = 0; r < k; r++) {   /* merge the slices' heads k times */
    int best = 0;
    float bd = INFINITY;
    for (int s = 0; s < S; s++) {
      float v = head[s] < L ? cd[((int64_t)s * L + head[s]) * nq + t] : INFINITY;
      if (v < bd) { bd = v; best = s; }
    }
    dk = bd;
    head[best]++;
  }
  k_lle_kf_bound b = k_lle_kf_bounds(dim, st->rho);
  double reach = k_lle_kf_reach(&b, k_lle_kf_hi(&b, (double)dk));
  bool ok = st->rho <= 1e15 && reach < INFINITY;   /* NaN / huge data: the FP64 kernel */
  for (int s = 0; s < S && ok; s++) {
    int64_t e = ((int64_t)s * L + L - 1) * nq + t;
    if (ci[e] != INT32_MAX && (double)cd[e] <= reach) ok = false;   /* the slice may hide one */
  }
  if (!ok) {
    slow[atomicAdd(nslow, 1)] = (int32_t)(q0 + t);
    return;
  }
  double dl[K_LLE_KMAX];
  int32_t il[K_LLE_KMAX];
  for (int j = 0; j < k; j++) { dl[j] = INFINITY; il[j] = INT32_MAX; }
  const double *xq = x + (q0 + t) * dim;
  for (int s = 0; s < S; s++) {
    for (int p = 0; p < L; p++) {
      int64_t e = ((int64_t)s * L + p) * nq + t;
      int32_t j = ci[e];
      if (j == INT32_MAX || (double)cd[e] > reach) break;   /* ascending: the rest is out of reach */
      const double *xj = x + (int64_t)j * dim;
      double d = 0;
      for (int c = 0; c < dim; c++) {
        double u = __dsub_rn(xj[c], xq[c]);
        d = __dadd_rn(d, __dmul_rn(u, u));
      }
      if (d > dl[k - 1] || (d == dl[k - 1] && j > il[k - 1])) continue;
      int pp = k - 1;
      while (pp > 0 && (dl[pp - 1] > d || (dl[pp - 1] == d && il[pp - 1] > j))) {
        dl[pp] = dl[pp - 1];
        il[pp] = il[pp - 1];
        pp--;
      }
      dl[pp] = d;
      il[pp] = j;
    }
  }
  for (int j = 0; j < k; j++) { nbr[t * k + j] = il[j]; d2[t * k + j] = dl[j]; }
}

/* Launch kf_filter and kf_refine for the padded dimension DP and list length L.  Local. */
template <int DP, int L>
static void kf_launch(cudaStream_t st, const float *xf, const double *x, int dim, const kf_stat *stat, int64_t n,
                      int64_t q0, int64_t nq, int S, int k, float *cd, int32_t *ci, int32_t *nbr, double *d2,
                      int32_t *slow, int32_t *nslow) {
  dim3 grid((unsigned)((nq + KF_THREADS - 1) / KF_THREADS), (unsigned)S);
  kf_filter<DP, L><<<grid, KF_THREADS, 0, st>>>(xf, n, q0, nq, cd, ci);
  kf_refine<L><<<grid.x, KF_THREADS, 0, st>>>(x, dim, stat, q0, nq, S, k, cd, ci, nbr, d2, slow, nslow);
}

/* The (DP, L) instance for the padded dimension and the list length; false where none.  Local. */
static bool kf_dispatch(int DP, int L, cudaStream_t st, const float *xf, const double *x, int dim,
                        const kf_stat *stat, int64_t n, int64_t q0, int64_t nq, int S, int k, float *cd,
                        int32_t *ci, int32_t *nbr, double *d2, int32_t *slow, int32_t *nslow) {
#define KF_CASE(D_, L_) \
  if (DP == D_ && L == L_) { kf_launch<D_, L_>(st, xf, x, dim, stat, n, q0, nq, S, k, cd, ci, nbr, d2, slow, nslow); return true; }
  KF_CASE(4, 16) KF_CASE(8, 16) KF_CASE(16, 16) KF_CASE(32, 16) KF_CASE(64, 16)
  KF_CASE(4, 32) KF_CASE(8, 32) KF_CASE(16, 32) KF_CASE(32, 32) KF_CASE(64, 32)
#undef KF_CASE
  return false;
}

/* Padded dimension (4, 8, 16, 32, 64) and list length (K + at least 4: 16 or 32) of the
 * filter for dim and k; 0 where it does not apply (FP64 kernel).  Local. */
static void kf_shape(int dim, int k, int *DP, int *L) {
  *DP = dim <= 4 ? 4 : dim <= 8 ? 8 : dim <= 16 ? 16 : dim <= 32 ? 32 : dim <= KF_MAXD ? 64 : 0;
  *L = k <= 12 ? 16 : k <= 28 ? 32 : 0;
}

/* Exact FP64 brute-force neighbours through the FP32 filter (dx: the points on the device
 * already), the leftover queries by the FP64 kernel.  Local. */
static int cuda_knn_filtered(k_backend *be, const k_lle_points *p, const double *dx, int64_t q0, int64_t q1,
                             int k, int DP, int L, int32_t *dnbr, double *dd2, int64_t *nredo) {
  cudaStream_t st = k_cuda_st(be)->stream;
  int64_t n = p->n, nq = q1 - q0, m = n * p->dim;
  int sms = be->sm_count > 0 ? be->sm_count : 132;
  /* slices S: the last wave of blocks as full as can be (4 blocks an SM, __launch_bounds__),
   * more slices only for 2 % more fill (their lists cost memory); each slice >= 4 L candidates */
  int64_t bx = (nq + KF_THREADS - 1) / KF_THREADS, slots = 4 * (int64_t)sms, S = 1;
  double best = 0;
  for (int64_t s = 1; s <= KF_MAXS && (s == 1 || s <= n / (4 * L)); s++) {
    int64_t waves = (bx * s + slots - 1) / slots;
    double fill = (double)(bx * s) / (double)(waves * slots);
    if (fill > best + 0.02) { best = fill; S = s; }
  }
  int64_t T = (int64_t)p->dim * (65536 / p->dim);   /* bounding-box threads, a multiple of dim */
  double *part = NULL, *half = NULL;
  kf_stat *stat = NULL;
  float *xf = NULL, *cd = NULL;
  int32_t *ci = NULL, *slow = NULL, *nslow = NULL, hslow = 0;
  HY_CUDA(cudaMallocAsync((void **)&part, (size_t)2 * T * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&half, (size_t)p->dim * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&stat, sizeof(kf_stat), st));
  HY_CUDA(cudaMallocAsync((void **)&xf, (size_t)n * DP * sizeof(float), st));
  HY_CUDA(cudaMallocAsync((void **)&cd, (size_t)nq * S * L * sizeof(float), st));
  HY_CUDA(cudaMallocAsync((void **)&ci, (size_t)nq * S * L * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&slow, (size_t)nq * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&nslow, sizeof(int32_t), st));
  HY_CUDA(cudaMemsetAsync(nslow, 0, sizeof(int32_t), st));
  kf_bbox_part<<<(unsigned)((T + 255) / 256), 256, 0, st>>>(dx, m, p->dim, T, part);
  kf_bbox_coord<<<(unsigned)p->dim, 256, 0, st>>>(part, p->dim, T, stat, half);
  kf_bbox_rho<<<1, 1, 0, st>>>(p->dim, half, stat);
  kf_to_float<<<(unsigned)((n * DP + 255) / 256), 256, 0, st>>>(dx, n, p->dim, DP, stat, xf);
  HY_CUDA_LAUNCH();
  if (!kf_dispatch(DP, L, st, xf, dx, p->dim, stat, n, q0, nq, (int)S, k, cd, ci, dnbr, dd2, slow, nslow))
    return hy_err(HY_EUSAGE, "KNN filter: no kernel for dimension %d, list %d", DP, L);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(&hslow, nslow, sizeof hslow, cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaStreamSynchronize(st));
  *nredo = hslow;
  if (hslow > 0) {   /* the leftovers: FP64 brute force over everything */
    int tile = (int)(KNN_TILE_BYTES / (sizeof(double) * (size_t)p->dim));
    knn_launch<double>((unsigned)((hslow + KNN_THREADS - 1) / KNN_THREADS), (size_t)tile * p->dim * sizeof(double),
                       st, dx, n, p->dim, q0, q0 + hslow, k, tile, slow, dnbr, dd2);
    HY_CUDA_LAUNCH();
  }
  void *bufs[] = { part, half, stat, xf, cd, ci, slow, nslow };
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) HY_CUDA(cudaFreeAsync(bufs[i], st));
  return HY_OK;
}

/* Brute-force neighbours on the device; x uploaded per call; FP64 through the FP32 filter
 * where kf_shape has a kernel (dimension <= 64, k <= 28), else the one-query-a-thread kernel.  Local. */
static int cuda_knn(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int fp32,
                    int32_t *nbr, double *d2, int64_t *nredo) {
  *nredo = -1;
  if (k > K_LLE_KMAX) return hy_err(HY_EUSAGE, "k = %d exceeds the kernels' limit %d", k, K_LLE_KMAX);
  cudaStream_t st = k_cuda_st(be)->stream;
  int64_t nq = q1 - q0, m = p->n * p->dim;
  size_t es = fp32 ? sizeof(float) : sizeof(double);
  int tile = (int)(KNN_TILE_BYTES / (es * (size_t)p->dim));
  if (tile < 1)
    return hy_err(HY_EUSAGE, "brute-force KNN on CUDA: dimension %d too large for one shared-memory "
                  "tile (at most %d)", p->dim, (int)(KNN_TILE_BYTES / es));
  double *dx = NULL, *dd2 = NULL;
  float *dxf = NULL;
  int32_t *dnbr = NULL;
  HY_CUDA(cudaMallocAsync((void **)&dx, (size_t)m * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dnbr, (size_t)nq * k * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&dd2, (size_t)nq * k * sizeof(double), st));
  HY_CUDA(cudaMemcpyAsync(dx, p->x, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, st));
  unsigned blocks = (unsigned)((nq + KNN_THREADS - 1) / KNN_THREADS);
  size_t shm = (size_t)tile * p->dim * es;
  int DP = 0, L = 0;
  kf_shape(p->dim, k, &DP, &L);
  if (fp32) {
    HY_CUDA(cudaMallocAsync((void **)&dxf, (size_t)m * sizeof(float), st));
    to_float<<<(unsigned)((m + 255) / 256), 256, 0, st>>>(dx, dxf, m);
    HY_CUDA_LAUNCH();
    knn_launch<float>(blocks, shm, st, dxf, p->n, p->dim, q0, q1, k, tile, NULL, dnbr, dd2);
  } else if (DP && L) {   /* FP64-exact through the FP32 filter */
    HY_CALL(cuda_knn_filtered(be, p, dx, q0, q1, k, DP, L, dnbr, dd2, nredo));
  } else {
    knn_launch<double>(blocks, shm, st, dx, p->n, p->dim, q0, q1, k, tile, NULL, dnbr, dd2);
  }
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(nbr, dnbr, (size_t)nq * k * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaMemcpyAsync(d2, dd2, (size_t)nq * k * sizeof(double), cudaMemcpyDeviceToHost, st));
  if (dxf) HY_CUDA(cudaFreeAsync(dxf, st));
  HY_CUDA(cudaFreeAsync(dx, st));
  HY_CUDA(cudaFreeAsync(dnbr, st));
  HY_CUDA(cudaFreeAsync(dd2, st));
  HY_CUDA(cudaStreamSynchronize(st));
  return HY_OK;
}

/* ---- the uniform-grid search: cells by CUB's radix sort, k_lle_grid_query per query ---- */

/* Cell id and index of point i.  Global kernel. */
__global__ void grid_cells(k_lle_grid g, const double *__restrict__ x, uint32_t *key, int32_t *val) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  key[i] = (uint32_t)k_lle_grid_cell(&g, x + i * g.dim);
  val[i] = (int32_t)i;
}

/* Cell starts from the sorted keys (position s opens the cells after key[s-1] up to key[s];
 * s = n closes the rest), the sorted coordinates, and the flags of this rank's queries.
 * Global kernel. */
__global__ void grid_starts(k_lle_grid g, const double *__restrict__ x, const uint32_t *__restrict__ key,
                            const int32_t *__restrict__ idx, int32_t *start, double *xs, int64_t q0, int64_t q1,
                            char *flag, int32_t *iota) {
  int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s > g.n) return;
  int64_t cur = s < g.n ? (int64_t)key[s] : g.ncell, prev = s > 0 ? (int64_t)key[s - 1] : -1;
  for (int64_t c = prev + 1; c <= cur; c++) start[c] = (int32_t)s;
  if (s == g.n) return;
  int32_t j = idx[s];
  for (int c = 0; c < g.dim; c++) xs[s * g.dim + c] = x[(int64_t)j * g.dim + c];
  flag[s] = j >= q0 && j < q1;
  iota[s] = (int32_t)s;
}

/* Neighbours of the queries at sorted positions pos[0..m-1] (this rank's, in cell order so
 * that a warp's queries are close together).  Global kernel. */
__global__ void grid_query(k_lle_grid g, const int32_t *__restrict__ pos, const int32_t *__restrict__ m, int64_t q0,
                           int k, int32_t *__restrict__ nbr, double *__restrict__ d2) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= *m) return;
  int32_t s = pos[t], q = g.idx[s];
  double dl[K_LLE_KMAX], xq[K_LLE_GRID_MAXD];
  int32_t il[K_LLE_KMAX];
  for (int c = 0; c < g.dim; c++) xq[c] = g.xs[(int64_t)s * g.dim + c];
  k_lle_grid_query(&g, xq, q, k, dl, il);
  int64_t r = (int64_t)(q - q0) * k;
  for (int j = 0; j < k; j++) { nbr[r + j] = il[j]; d2[r + j] = dl[j]; }
}

/* Grid neighbours on the device: the plan on the host (k_lle_grid_plan, as the host table),
 * keys sorted by cub::DeviceRadixSort (stable: by index within a cell, as the host's counting
 * sort), this rank's queries selected in cell order (positions 0..n-1 written into the sort's spare
 * value buffer, filtered by cub::DeviceSelect::Flagged), one thread a query.  Local. */
static int cuda_grid_knn(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr,
                         double *d2) {
  if (k > K_LLE_KMAX) return hy_err(HY_EUSAGE, "k = %d exceeds the kernels' limit %d", k, K_LLE_KMAX);
  k_lle_grid g;
  HY_CALL(k_lle_grid_plan(p, &g));
  if (g.ncell >= (int64_t)UINT32_MAX) return hy_err(HY_EUSAGE, "grid KNN on CUDA: %lld cells exceed 32-bit keys", (long long)g.ncell);
  cudaStream_t st = k_cuda_st(be)->stream;
  int64_t n = p->n, nq = q1 - q0, m = n * p->dim;
  int bits = 1;
  while (bits < 32 && ((int64_t)1 << bits) <= g.ncell) bits++;
  double *dx = NULL, *dxs = NULL, *dd2 = NULL;
  uint32_t *key = NULL, *key2 = NULL;
  int32_t *val = NULL, *val2 = NULL, *start = NULL, *pos = NULL, *dm = NULL, *dnbr = NULL;
  char *flag = NULL;
  void *tmp = NULL;
  size_t tb = 0, tb2 = 0;
  HY_CUDA(cudaMallocAsync((void **)&dx, (size_t)m * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dxs, (size_t)m * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&key, (size_t)n * sizeof(uint32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&key2, (size_t)n * sizeof(uint32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&val, (size_t)n * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&val2, (size_t)n * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&start, (size_t)(g.ncell + 1) * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&pos, (size_t)n * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&flag, (size_t)n, st));
  HY_CUDA(cudaMallocAsync((void **)&dm, sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&dnbr, (size_t)nq * k * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&dd2, (size_t)nq * k * sizeof(double), st));
  HY_CUDA(cudaMemcpyAsync(dx, p->x, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, st));
  unsigned nb = (unsigned)((n + 256) / 256);
  grid_cells<<<nb, 256, 0, st>>>(g, dx, key, val);
  HY_CUDA_LAUNCH();
  cub::DoubleBuffer<uint32_t> dk(key, key2);
  cub::DoubleBuffer<int32_t> dv(val, val2);
  HY_CUDA(cub::DeviceRadixSort::SortPairs(NULL, tb, dk, dv, (int)n, 0, bits, st));
  HY_CUDA(cub::DeviceSelect::Flagged(NULL, tb2, val2, flag, pos, dm, (int)n, st));
  if (tb2 > tb) tb = tb2;
  HY_CUDA(cudaMallocAsync(&tmp, tb, st));
  HY_CUDA(cub::DeviceRadixSort::SortPairs(tmp, tb, dk, dv, (int)n, 0, bits, st));
  grid_starts<<<nb, 256, 0, st>>>(g, dx, dk.Current(), dv.Current(), start, dxs, q0, q1, flag, dv.Alternate());
  HY_CUDA_LAUNCH();
  HY_CUDA(cub::DeviceSelect::Flagged(tmp, tb, dv.Alternate(), flag, pos, dm, (int)n, st));
  g.start = start; g.idx = dv.Current(); g.xs = dxs;
  grid_query<<<(unsigned)((nq + KNN_THREADS - 1) / KNN_THREADS), KNN_THREADS, 0, st>>>(g, pos, dm, q0, k, dnbr, dd2);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(nbr, dnbr, (size_t)nq * k * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaMemcpyAsync(d2, dd2, (size_t)nq * k * sizeof(double), cudaMemcpyDeviceToHost, st));
  void *bufs[] = { dx, dxs, key, key2, val, val2, start, pos, flag, dm, dnbr, dd2, tmp };
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) HY_CUDA(cudaFreeAsync(bufs[i], st));
  HY_CUDA(cudaStreamSynchronize(st));
  return HY_OK;
}

/* Weights of a chunk of queries, one thread each; g interleaved with stride = chunk.  Global. */
__global__ void weights_kernel(const double *__restrict__ x, int dim, int64_t c0, int64_t c1, int k,
                               const int32_t *__restrict__ nbr, double reg, double *g, int64_t gs,
                               double *__restrict__ w, unsigned long long *nbad) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t q = c0 + t;
  if (q >= c1) return;
  int32_t nb[K_LLE_KMAX];
  double wl[K_LLE_KMAX];
  for (int j = 0; j < k; j++) nb[j] = nbr[(q - c0) * k + j];
  int bad = k_lle_point_weights(x, dim, q, k, nb, reg, g + t, gs, wl);
  for (int j = 0; j < k; j++) w[(q - c0) * k + j] = wl[j];
  if (bad) atomicAdd(nbad, 1ULL);
}

/* Weights on the device, in chunks bounding the Gram scratch to 256 MiB.  Local. */
static int cuda_weights(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k,
                        const int32_t *nbr, double reg, double *w, int64_t *nbad) {
  cudaStream_t st = k_cuda_st(be)->stream;
  int64_t nq = q1 - q0, m = p->n * p->dim;
  int64_t chunk = ((int64_t)256 << 20) / ((int64_t)k * k * 8);
  if (chunk > nq) chunk = nq;
  if (chunk < 1) chunk = 1;
  double *dx = NULL, *dg = NULL, *dw = NULL;
  int32_t *dnbr = NULL;
  unsigned long long *dbad = NULL, hbad = 0;
  HY_CUDA(cudaMallocAsync((void **)&dx, (size_t)m * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dg, (size_t)chunk * k * k * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dw, (size_t)nq * k * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dnbr, (size_t)nq * k * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&dbad, sizeof *dbad, st));
  HY_CUDA(cudaMemsetAsync(dbad, 0, sizeof *dbad, st));
  HY_CUDA(cudaMemcpyAsync(dx, p->x, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, st));
  HY_CUDA(cudaMemcpyAsync(dnbr, nbr, (size_t)nq * k * sizeof(int32_t), cudaMemcpyHostToDevice, st));
  for (int64_t c0 = q0; c0 < q1; c0 += chunk) {
    int64_t c1 = c0 + chunk < q1 ? c0 + chunk : q1;
    unsigned blocks = (unsigned)((c1 - c0 + 127) / 128);
    weights_kernel<<<blocks, 128, 0, st>>>(dx, p->dim, c0, c1, k, dnbr + (c0 - q0) * k, reg, dg, chunk,
                                           dw + (c0 - q0) * k, dbad);
    HY_CUDA_LAUNCH();
  }
  HY_CUDA(cudaMemcpyAsync(w, dw, (size_t)nq * k * sizeof(double), cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaMemcpyAsync(&hbad, dbad, sizeof hbad, cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaFreeAsync(dx, st));
  HY_CUDA(cudaFreeAsync(dg, st));
  HY_CUDA(cudaFreeAsync(dw, st));
  HY_CUDA(cudaFreeAsync(dnbr, st));
  HY_CUDA(cudaFreeAsync(dbad, st));
  HY_CUDA(cudaStreamSynchronize(st));
  *nbad = (int64_t)hbad;
  return HY_OK;
}

/* One thread per query: its LTSA / Hessian block (k_lle_point_block, the host's function). */
__global__ void blocks_kernel(const double *__restrict__ x, int dim, int64_t c0, int64_t c1, int k,
                              const int32_t *__restrict__ nbr, int method, int d, double htol, double eta, double *s,
                              int64_t gs, double *__restrict__ blk, unsigned long long *nbad) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t q = c0 + t;
  if (q >= c1) return;
  int32_t nb[K_LLE_KMAX];
  for (int j = 0; j < k; j++) nb[j] = nbr[(q - c0) * k + j];
  int bad = k_lle_point_block(x, dim, q, k, nb, method, d, htol, eta, s + t, gs, blk + t);
  if (bad) atomicAdd(nbad, 1ULL);
}

/* Transpose the chunk's blocks from the kernel's interleaved layout (entry e of query t at
 * e * gs + t) to query-major (t * k * k + e).  One thread per entry. */
__global__ void blocks_untangle(const double *__restrict__ in, int64_t nq, int64_t gs, int kk, double *__restrict__ out) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nq * kk) return;
  int64_t t = i / kk, e = i % kk;
  out[i] = in[e * gs + t];
}

/* LTSA / Hessian / modified blocks on the device, in chunks bounding the scratch to 256 MiB.  Local. */
static int cuda_blocks(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, const int32_t *nbr,
                       int method, int d, double htol, double eta, double *blk, int64_t *nbad) {
  cudaStream_t st = k_cuda_st(be)->stream;
  int64_t nq = q1 - q0, m = p->n * p->dim, kk = K_LLE_BLOCK_VALS(k, method);   /* values a query */
  int64_t per = K_LLE_BLOCK_SCRATCH(k) + 2 * kk;   /* scratch, interleaved block, its transpose */
  int64_t chunk = ((int64_t)256 << 20) / (per * 8);
  if (chunk > nq) chunk = nq;
  if (chunk < 1) chunk = 1;
  double *dx = NULL, *ds = NULL, *db = NULL, *dt = NULL;
  int32_t *dnbr = NULL;
  unsigned long long *dbad = NULL, hbad = 0;
  HY_CUDA(cudaMallocAsync((void **)&dx, (size_t)m * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&ds, (size_t)chunk * K_LLE_BLOCK_SCRATCH(k) * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&db, (size_t)chunk * kk * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dt, (size_t)chunk * kk * sizeof(double), st));
  HY_CUDA(cudaMallocAsync((void **)&dnbr, (size_t)nq * k * sizeof(int32_t), st));
  HY_CUDA(cudaMallocAsync((void **)&dbad, sizeof *dbad, st));
  HY_CUDA(cudaMemsetAsync(dbad, 0, sizeof *dbad, st));
  HY_CUDA(cudaMemcpyAsync(dx, p->x, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, st));
  HY_CUDA(cudaMemcpyAsync(dnbr, nbr, (size_t)nq * k * sizeof(int32_t), cudaMemcpyHostToDevice, st));
  for (int64_t c0 = q0; c0 < q1; c0 += chunk) {
    int64_t c1 = c0 + chunk < q1 ? c0 + chunk : q1;
    blocks_kernel<<<(unsigned)((c1 - c0 + 127) / 128), 128, 0, st>>>(dx, p->dim, c0, c1, k, dnbr + (c0 - q0) * k,
                                                                     method, d, htol, eta, ds, chunk, db, dbad);
    HY_CUDA_LAUNCH();
    blocks_untangle<<<(unsigned)(((c1 - c0) * kk + 255) / 256), 256, 0, st>>>(db, c1 - c0, chunk, (int)kk, dt);
    HY_CUDA_LAUNCH();
    HY_CUDA(cudaMemcpyAsync(blk + (c0 - q0) * kk, dt, (size_t)(c1 - c0) * kk * sizeof(double),
                            cudaMemcpyDeviceToHost, st));
  }
  HY_CUDA(cudaMemcpyAsync(&hbad, dbad, sizeof hbad, cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaFreeAsync(dx, st));
  HY_CUDA(cudaFreeAsync(ds, st));
  HY_CUDA(cudaFreeAsync(db, st));
  HY_CUDA(cudaFreeAsync(dt, st));
  HY_CUDA(cudaFreeAsync(dnbr, st));
  HY_CUDA(cudaFreeAsync(dbad, st));
  HY_CUDA(cudaStreamSynchronize(st));
  *nbad = (int64_t)hbad;
  return HY_OK;
}

/* The table, filled by field name (C++ before C++20 has no designated initialisers). */
static k_lle_ops make_lle_cuda_ops(void) {
  k_lle_ops o = {};
  o.name = "cuda";
  o.kdtree_max_dim = 0;   /* lle.knn = auto: the GPU's brute force or grid at every dimension */
  o.grid_max_dim = 3;     /* auto: the grid for D <= 3 and n >= 100000 (jobs/lle-gpu.sh bench: grid vs brute) */
  o.grid_min_n = 100000;
  o.knn_chunked = 0;      /* one call a rank: the points uploaded, the grid built once */
  o.knn = cuda_knn;
  o.grid_knn = cuda_grid_knn;
  o.weights = cuda_weights;
  o.blocks = cuda_blocks;
  return o;
}
extern "C" const k_lle_ops k_lle_cuda_ops = make_lle_cuda_ops();
