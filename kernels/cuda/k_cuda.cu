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

/* The error of a failed device allocation: out of memory in the words of HY_MALLOC's message.  Local. */
static int alloc_err(k_backend *be, size_t bytes, cudaError_t e, const char *how) {
  if (e == cudaErrorMemoryAllocation)
    return hy_err(HY_ESYS, "CUDA: out of memory allocating %zu bytes of device memory on device %d (%s)",
                  bytes, be->device, how);
  return hy_err(HY_ESYS, "CUDA: %s of %zu bytes on device %d failed: %s", how, bytes, be->device,
                cudaGetErrorString(e));
}

static int c_alloc(k_backend *be, void **p, size_t bytes) {
  *p = NULL;
  if (!bytes) return HY_OK;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return alloc_err(be, bytes, e, "cudaMalloc");
  }
  return HY_OK;
}
static int c_free(k_backend *be, void *p) {
  if (p) HY_CUDA(cudaFree(p));
  return HY_OK;
}

/* Order `stream` after the work queued so far on every side stream (before a pool free).  Local. */
static int pool_fence_free(k_cuda_state *st) {
  for (int i = 0; i < st->nside; i++) {
    HY_CUDA(cudaEventRecord(st->side_ev[i], st->side[i]));
    HY_CUDA(cudaStreamWaitEvent(st->stream, st->side_ev[i], 0));
  }
  return HY_OK;
}
/* Order every side stream after `stream` (after a pool allocation: the block may be one freed
 * on `stream` whose earlier users are still queued there).  Local. */
static int pool_fence_alloc(k_cuda_state *st) {
  if (!st->nside) return HY_OK;
  HY_CUDA(cudaEventRecord(st->pool_ev, st->stream));
  for (int i = 0; i < st->nside; i++) HY_CUDA(cudaStreamWaitEvent(st->side[i], st->pool_ev, 0));
  return HY_OK;
}
/* Device memory from the pool, in the order of the backend's stream (no device-wide sync); on
 * out-of-memory the pool's kept memory is released once and the allocation retried.  Local. */
static int c_pool_alloc(k_backend *be, void **p, size_t bytes) {
  k_cuda_state *st = k_cuda_st(be);
  *p = NULL;
  if (!bytes) return HY_OK;
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  HY_CUDA(cudaStreamIsCapturing(st->stream, &cs));
  if (cs != cudaStreamCaptureStatusNone && st->ncap < (int)(sizeof st->cap / sizeof st->cap[0])) {
    HY_CALL(c_alloc(be, p, bytes));   /* recorded into a graph: outside the pool */
    st->cap[st->ncap++] = *p;
    return HY_OK;
  }
  cudaError_t e = cudaMallocFromPoolAsync(p, bytes, st->pool, st->stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    HY_CUDA(cudaStreamSynchronize(st->stream));
    HY_CUDA(cudaMemPoolTrimTo(st->pool, 0));
    e = cudaMallocFromPoolAsync(p, bytes, st->pool, st->stream);
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return alloc_err(be, bytes, e, "memory pool, run.cuda_pool = on; its kept memory released first");
  }
  st->pool_allocs++;
  return pool_fence_alloc(st);
}
/* Back to the pool, in the order of the backend's stream after every side stream's queued
 * work; the memory stays reserved for the next allocation.  Local. */
static int c_pool_free(k_backend *be, void *p) {
  if (!p) return HY_OK;
  k_cuda_state *st = k_cuda_st(be);
  for (int i = 0; i < st->ncap; i++)
    if (st->cap[i] == p) {
      st->cap[i] = st->cap[--st->ncap];
      return c_free(be, p);
    }
  HY_CALL(pool_fence_free(st));
  HY_CUDA(cudaFreeAsync(p, st->stream));
  return HY_OK;
}
/* The pool's figures (k_pool_stats).  Local. */
static int c_pool_stats(k_backend *be, k_pool_stats *s) {
  k_cuda_state *st = k_cuda_st(be);
  uint64_t v[4] = { 0, 0, 0, 0 };
  HY_CUDA(cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrUsedMemCurrent, &v[0]));
  HY_CUDA(cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrUsedMemHigh, &v[1]));
  HY_CUDA(cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrReservedMemCurrent, &v[2]));
  HY_CUDA(cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrReservedMemHigh, &v[3]));
  s->used = v[0];
  s->used_peak = v[1];
  s->reserved = v[2];
  s->reserved_peak = v[3];
  s->allocs = st->pool_allocs;
  return HY_OK;
}
static int c_alloc_managed(k_backend *be, void **p, size_t bytes) {
  *p = NULL;
  if (!bytes) return HY_OK;
  size_t freeb = 0, total = 0;
  if (k_cuda_st(be)->pool) HY_CUDA(cudaMemPoolTrimTo(k_cuda_st(be)->pool, 0));   /* kept memory counts as free */
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

/* Free and total device memory; with the pool, its kept memory whose frees have completed is
 * released first (a memory pre-check then sees it, and so do the libraries' own cudaMalloc).  Local. */
static int c_mem_info(k_backend *be, size_t *free_bytes, size_t *total_bytes) {
  k_cuda_state *st = k_cuda_st(be);
  if (st->pool) HY_CUDA(cudaMemPoolTrimTo(st->pool, 0));
  HY_CUDA(cudaMemGetInfo(free_bytes, total_bytes));
  return HY_OK;
}

static k_ops make_cuda_ops(void) {
  k_ops o = {};
  o.alloc = c_alloc; o.free = c_free; o.alloc_managed = c_alloc_managed;
  o.alloc_pinned = c_alloc_pinned; o.free_pinned = c_free_pinned; o.h2d = c_h2d; o.d2h = c_d2h;
  o.d2d = c_d2d; o.memset0 = c_memset0; o.sync = c_sync; o.daxpy = c_daxpy; o.ddot = c_ddot;
  o.mem_info = c_mem_info;
  o.pool_stats = NULL;
  return o;
}
/* With the memory pool (run.cuda_pool = on): alloc / free / pool_stats from the pool. */
static k_ops make_cuda_pool_ops(void) {
  k_ops o = make_cuda_ops();
  o.alloc = c_pool_alloc; o.free = c_pool_free; o.pool_stats = c_pool_stats;
  return o;
}
/* filled by field name (C++ before C++20 has no designated initialisers) */
static const k_ops cuda_ops = make_cuda_ops();
static const k_ops cuda_pool_ops = make_cuda_pool_ops();

/* The device's stream-ordered memory pool, keeping freed memory (release threshold: all);
 * st->pool stays NULL where the device has no memory pools.  Local. */
static int pool_open(k_cuda_state *st, int dev) {
  int ok = 0;
  HY_CUDA(cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, dev));
  if (!ok) return HY_OK;
  cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = dev;
  HY_CUDA(cudaMemPoolCreate(&st->pool, &props));
  uint64_t keep = UINT64_MAX;
  HY_CUDA(cudaMemPoolSetAttribute(st->pool, cudaMemPoolAttrReleaseThreshold, &keep));
  HY_CUDA(cudaEventCreateWithFlags(&st->pool_ev, cudaEventDisableTiming));
  return HY_OK;
}

/* A stream of the caller's own that pool allocations and frees are ordered with.  Local. */
int k_cuda_side_add(k_backend *be, cudaStream_t s) {
  k_cuda_state *st = k_cuda_st(be);
  if (!st->pool) return HY_OK;
  if (st->nside >= K_CUDA_MAX_SIDE)
    return hy_err(HY_ESYS, "CUDA backend: more than %d side streams registered", K_CUDA_MAX_SIDE);
  HY_CUDA(cudaEventCreateWithFlags(&st->side_ev[st->nside], cudaEventDisableTiming));
  st->side[st->nside++] = s;
  return HY_OK;
}
/* Forget a side stream (before it is destroyed).  Local. */
void k_cuda_side_drop(k_backend *be, cudaStream_t s) {
  k_cuda_state *st = k_cuda_st(be);
  for (int i = 0; st && i < st->nside; i++)
    if (st->side[i] == s) {
      cudaEventDestroy(st->side_ev[i]);
      st->side[i] = st->side[st->nside - 1];
      st->side_ev[i] = st->side_ev[st->nside - 1];
      st->nside--;
      return;
    }
}

/* Open device dev: stream, cuBLAS, cuSOLVER, cuSPARSE handles, the memory pool (pool = 1).  Local. */
extern "C" int k_cuda_open(k_backend *be, int dev, int pool) {
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
  if (pool) HY_CALL(pool_open(st, dev));
  be->ops = st->pool ? &cuda_pool_ops : &cuda_ops;
  return HY_OK;
}

/* Release handles and stream.  Local. */
extern "C" int k_cuda_close(k_backend *be) {
  k_cuda_state *st = k_cuda_st(be);
  if (!st) return HY_OK;
  cudaStreamSynchronize(st->stream);
  while (st->nside > 0) k_cuda_side_drop(be, st->side[0]);   /* the workspaces below destroy theirs */
  if (st->gauss_ws && st->gauss_ws_free) st->gauss_ws_free(st->gauss_ws);
  if (st->cusparse) cusparseDestroy(st->cusparse);
  if (st->cusolver) cusolverDnDestroy(st->cusolver);
  if (st->cublas) cublasDestroy(st->cublas);
  if (st->scratch) cudaFree(st->scratch);
  if (st->scratch_host) cudaFreeHost(st->scratch_host);
  if (st->pool) {   /* trim: every kept block back to the device (frees queued above are done) */
    cudaStreamSynchronize(st->stream);
    cudaMemPoolTrimTo(st->pool, 0);
    cudaMemPoolDestroy(st->pool);
    cudaEventDestroy(st->pool_ev);
  }
  if (st->stream) cudaStreamDestroy(st->stream);
  free(st);
  be->impl = NULL;
  return HY_OK;
}
