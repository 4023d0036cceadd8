/* lle_cuda.cu - the lle kernels on a CUDA device: brute-force K nearest neighbours (one thread
 * per query, candidate points staged through shared memory in tiles, the K-list in the
 * thread's local memory, direct-form distances with explicitly rounded operations so that no
 * fused multiply-add makes them differ from the host's) and the reconstruction weights (one
 * thread per query, the local Gram matrix in an interleaved global scratch for coalesced
 * access).  Same function as kernels/host/lle_host.c: the GPU tests compare the two. */
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

/* Neighbours of queries q0 + blockIdx.x * blockDim.x + threadIdx.x.  DIMC > 0: the dimension
 * as a compile-time constant (the query in registers, loops unrolled); DIMC = 0: any
 * dimension, the query read from global memory.  Global kernel. */
template <typename T, int DIMC>
__global__ void knn_kernel(const T *__restrict__ x, int64_t n, int dim_rt, int64_t q0, int64_t q1, int k,
                           int tile, int32_t *__restrict__ nbr, double *__restrict__ d2) {
  extern __shared__ unsigned char smem_raw[];
  T *sx = reinterpret_cast<T *>(smem_raw);
  const int dim = DIMC > 0 ? DIMC : dim_rt;
  int64_t q = q0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  bool active = q < q1;
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
                       int64_t q0, int64_t q1, int k, int tile, int32_t *nbr, double *d2) {
  switch (dim) {
#define KNN_CASE(D) case D: knn_kernel<T, D><<<blocks, KNN_THREADS, shm, st>>>(x, n, dim, q0, q1, k, tile, nbr, d2); break;
    KNN_CASE(2) KNN_CASE(3) KNN_CASE(4) KNN_CASE(8) KNN_CASE(16) KNN_CASE(32)
#undef KNN_CASE
    default: knn_kernel<T, 0><<<blocks, KNN_THREADS, shm, st>>>(x, n, dim, q0, q1, k, tile, nbr, d2);
  }
}

/* x (double) -> xf (float).  Global kernel. */
__global__ void to_float(const double *x, float *xf, int64_t m) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) xf[i] = (float)x[i];
}

/* Brute-force neighbours on the device; x uploaded per call.  Local. */
static int cuda_knn(k_backend *be, const k_lle_points *p, int64_t q0, int64_t q1, int k, int fp32,
                    int32_t *nbr, double *d2) {
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
  if (fp32) {
    HY_CUDA(cudaMallocAsync((void **)&dxf, (size_t)m * sizeof(float), st));
    to_float<<<(unsigned)((m + 255) / 256), 256, 0, st>>>(dx, dxf, m);
    HY_CUDA_LAUNCH();
    knn_launch<float>(blocks, shm, st, dxf, p->n, p->dim, q0, q1, k, tile, dnbr, dd2);
  } else {
    knn_launch<double>(blocks, shm, st, dx, p->n, p->dim, q0, q1, k, tile, dnbr, dd2);
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
  o.knn = cuda_knn;
  o.grid_knn = cuda_grid_knn;
  o.weights = cuda_weights;
  o.blocks = cuda_blocks;
  return o;
}
extern "C" const k_lle_ops k_lle_cuda_ops = make_lle_cuda_ops();
