/* k_cuda.cu - the CUDA backend's core operations: device binding, memory, copies on the
 * backend's stream, the selftest kernels (daxpy, ddot). */
#include "k_cuda.h"

#include <stdio.h>
#ifdef HYBRID_HAVE_NCCL
#include <nccl.h>
#endif
#ifdef HYBRID_HAVE_CUDNN
#include <cudnn.h>
#endif
#include <string.h>

/* CUDA devices visible; 0 when no driver or device (never an error).  Local. */
extern "C" int k_cuda_count(void) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky-free error */
    return 0;
  }
  return n;
}

static int c_alloc(k_backend *be, void **p, size_t bytes) {
  *p = NULL;
  if (!bytes) return HY_OK;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess)
    return hy_err(HY_ESYS, "CUDA: cudaMalloc of %zu bytes on device %d failed: %s", bytes,
                  be->device, cudaGetErrorString(e));
  return HY_OK;
}
static int c_free(k_backend *be, void *p) {
  if (p) HY_CUDA(cudaFree(p));
  return HY_OK;
}
static int c_alloc_managed(k_backend *be, void **p, size_t bytes) {
  *p = NULL;
  if (!bytes) return HY_OK;
  size_t freeb = 0, total = 0;
  HY_CUDA(cudaMemGetInfo(&freeb, &total));
  /* never ask for more managed memory than the card has free (it can hang the GPU) */
  if (bytes > freeb / 10 * 9)
    return hy_err(HY_ESYS, "CUDA: %zu bytes of managed memory requested, only %zu free on device %d",
                  bytes, freeb, be->device);
  HY_CUDA(cudaMallocManaged(p, bytes, cudaMemAttachGlobal));
  return HY_OK;
}
static int c_alloc_pinned(k_backend *be, void **p, size_t bytes) {
  *p = NULL;
  if (!bytes) return HY_OK;
  HY_CUDA(cudaMallocHost(p, bytes));
  return HY_OK;
}
static int c_free_pinned(k_backend *be, void *p) {
  if (p) HY_CUDA(cudaFreeHost(p));
  return HY_OK;
}
static int c_h2d(k_backend *be, void *dst, const void *src, size_t bytes) {
  if (!bytes) return HY_OK;
  HY_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, k_cuda_st(be)->stream));
  HY_CUDA(cudaStreamSynchronize(k_cuda_st(be)->stream));
  return HY_OK;
}
static int c_d2h(k_backend *be, void *dst, const void *src, size_t bytes) {
  if (!bytes) return HY_OK;
  HY_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, k_cuda_st(be)->stream));
  HY_CUDA(cudaStreamSynchronize(k_cuda_st(be)->stream));
  return HY_OK;
}
static int c_d2d(k_backend *be, void *dst, const void *src, size_t bytes) {
  if (!bytes) return HY_OK;
  HY_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, k_cuda_st(be)->stream));
  return HY_OK;
}
static int c_memset0(k_backend *be, void *p, size_t bytes) {
  if (!bytes) return HY_OK;
  HY_CUDA(cudaMemsetAsync(p, 0, bytes, k_cuda_st(be)->stream));
  return HY_OK;
}
static int c_sync(k_backend *be) {
  HY_CUDA(cudaStreamSynchronize(k_cuda_st(be)->stream));
  return HY_OK;
}

__global__ void daxpy_kernel(int64_t n, double a, const double *__restrict__ x, double *__restrict__ y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] += a * x[i];
}

static int c_daxpy(k_backend *be, int64_t n, double a, const double *x, double *y) {
  if (n <= 0) return HY_OK;
  int blocks = (int)((n + 255) / 256);
  int cap = be->sm_count * 16;
  if (blocks > cap) blocks = cap;
  daxpy_kernel<<<blocks, 256, 0, k_cuda_st(be)->stream>>>(n, a, x, y);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

static int c_ddot(k_backend *be, int64_t n, const double *x, const double *y, double *result) {
  k_cuda_state *st = k_cuda_st(be);
  /* cuBLAS handles the reduction; n is split into int-sized chunks */
  double total = 0;
  for (int64_t off = 0; off < n; off += (int64_t)1 << 30) {
    int len = (int)((n - off) < ((int64_t)1 << 30) ? (n - off) : ((int64_t)1 << 30));
    double part = 0;
    HY_CUBLAS(cublasDdot(st->cublas, len, x + off, 1, y + off, 1, &part));
    total += part;
  }
  *result = total;
  return HY_OK;
}

static int c_mem_info(k_backend *be, size_t *free_bytes, size_t *total_bytes) {
  HY_CUDA(cudaMemGetInfo(free_bytes, total_bytes));
  return HY_OK;
}

static k_ops make_cuda_ops(void) {
  k_ops o = {};
  o.alloc = c_alloc; o.free = c_free; o.alloc_managed = c_alloc_managed;
  o.alloc_pinned = c_alloc_pinned; o.free_pinned = c_free_pinned; o.h2d = c_h2d; o.d2h = c_d2h;
  o.d2d = c_d2d; o.memset0 = c_memset0; o.sync = c_sync; o.daxpy = c_daxpy; o.ddot = c_ddot;
  o.mem_info = c_mem_info;
  return o;
}
/* filled by field name (C++ before C++20 has no designated initialisers) */
static const k_ops cuda_ops = make_cuda_ops();

/* Open device dev: stream, cuBLAS, cuSOLVER, cuSPARSE handles.  Local. */
extern "C" int k_cuda_open(k_backend *be, int dev) {
  be->kind = K_CUDA;
  be->name = "cuda";
  be->device = dev;
  be->gpu = 1;
  be->vendor_blas = "cuBLAS";
  be->vendor_solver = "cuSOLVER";
  be->vendor_sparse = "cuSPARSE";
  HY_CUDA(cudaSetDevice(dev));
  cudaDeviceProp prop;
  HY_CUDA(cudaGetDeviceProperties(&prop, dev));
  snprintf(be->device_name, sizeof be->device_name, "%.127s", prop.name);
  snprintf(be->device_id, sizeof be->device_id, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID,
           prop.pciDeviceID);
  be->device_mem = prop.totalGlobalMem;
  be->sm_count = prop.multiProcessorCount;
  int rtv = 0, drv = 0;
  HY_CUDA(cudaRuntimeGetVersion(&rtv));
  HY_CUDA(cudaDriverGetVersion(&drv));
  snprintf(be->runtime_version, sizeof be->runtime_version, "%d.%d", rtv / 1000, rtv % 1000 / 10);
  snprintf(be->driver_version, sizeof be->driver_version, "%d.%d", drv / 1000, drv % 1000 / 10);
#ifdef HYBRID_HAVE_NCCL
  int ncv = 0;
  if (ncclGetVersion(&ncv) == ncclSuccess)   /* 2.19+: major*10000 + minor*100 + patch */
    snprintf(be->nccl_version, sizeof be->nccl_version, "%d.%d.%d", ncv / 10000, ncv % 10000 / 100, ncv % 100);
#endif
#ifdef HYBRID_HAVE_CUDNN
  size_t cdv = cudnnGetVersion();   /* 9.x: major*10000 + minor*100 + patch; 8.x: major*1000 + ... */
  size_t cmaj = cdv >= 90000 ? cdv / 10000 : cdv / 1000, crest = cdv >= 90000 ? cdv % 10000 : cdv % 1000;
  snprintf(be->cudnn_version, sizeof be->cudnn_version, "%zu.%zu.%zu", cmaj, crest / 100, crest % 100);
#endif
  k_cuda_state *st = (k_cuda_state *)calloc(1, sizeof *st);
  if (!st) return hy_err(HY_ESYS, "out of memory");
  be->impl = st;
  HY_CUDA(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking));
  HY_CUBLAS(cublasCreate(&st->cublas));
  HY_CUBLAS(cublasSetStream(st->cublas, st->stream));
  HY_CUBLAS(cublasSetPointerMode(st->cublas, CUBLAS_POINTER_MODE_HOST));
  HY_CUSOLVER(cusolverDnCreate(&st->cusolver));
  HY_CUSOLVER(cusolverDnSetStream(st->cusolver, st->stream));
  HY_CUSPARSE(cusparseCreate(&st->cusparse));
  HY_CUSPARSE(cusparseSetStream(st->cusparse, st->stream));
  be->ops = &cuda_ops;
  return HY_OK;
}

/* Release handles and stream.  Local. */
extern "C" int k_cuda_close(k_backend *be) {
  k_cuda_state *st = k_cuda_st(be);
  if (!st) return HY_OK;
  cudaStreamSynchronize(st->stream);
  if (st->gauss_ws && st->gauss_ws_free) st->gauss_ws_free(st->gauss_ws);
  if (st->cusparse) cusparseDestroy(st->cusparse);
  if (st->cusolver) cusolverDnDestroy(st->cusolver);
  if (st->cublas) cublasDestroy(st->cublas);
  if (st->scratch) cudaFree(st->scratch);
  if (st->scratch_host) cudaFreeHost(st->scratch_host);
  if (st->stream) cudaStreamDestroy(st->stream);
  free(st);
  be->impl = NULL;
  return HY_OK;
}
