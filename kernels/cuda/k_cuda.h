/* k_cuda.h - what the CUDA backend's files share (C++ / CUDA only): the error macro and the
 * backend-private state (stream, library handles). */
#ifndef HY_K_CUDA_H
#define HY_K_CUDA_H

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include "hybrid.h"
#include "kernels.h"

/* Check a CUDA runtime call; on failure record HY_ESYS with the CUDA error and return it. */
#define HY_CUDA(expr)                                                                   \
  do {                                                                                  \
    cudaError_t hy_ce_ = (expr);                                                        \
    if (hy_ce_ != cudaSuccess)                                                          \
      return hy_err(HY_ESYS, "CUDA: %s failed: %s (%s)", #expr, cudaGetErrorString(hy_ce_), \
                    cudaGetErrorName(hy_ce_));                                          \
  } while (0)
/* Check the last kernel launch. */
#define HY_CUDA_LAUNCH() HY_CUDA(cudaGetLastError())
#define HY_CUBLAS(expr)                                                                 \
  do {                                                                                  \
    cublasStatus_t hy_cs_ = (expr);                                                     \
    if (hy_cs_ != CUBLAS_STATUS_SUCCESS)                                                \
      return hy_err(HY_ESYS, "cuBLAS: %s failed: %s", #expr, cublasGetStatusString(hy_cs_)); \
  } while (0)
#define HY_CUSOLVER(expr)                                                               \
  do {                                                                                  \
    cusolverStatus_t hy_ss_ = (expr);                                                   \
    if (hy_ss_ != CUSOLVER_STATUS_SUCCESS)                                              \
      return hy_err(HY_ESYS, "cuSOLVER: %s failed: status %d", #expr, (int)hy_ss_);     \
  } while (0)
#define HY_CUSPARSE(expr)                                                               \
  do {                                                                                  \
    cusparseStatus_t hy_ps_ = (expr);                                                   \
    if (hy_ps_ != CUSPARSE_STATUS_SUCCESS)                                              \
      return hy_err(HY_ESYS, "cuSPARSE: %s failed: %s", #expr, cusparseGetErrorString(hy_ps_)); \
  } while (0)

/* At most this many streams of the workloads' own (k_cuda_side_add). */
#define K_CUDA_MAX_SIDE 16

/* Backend-private state behind k_backend.impl. */
typedef struct {
  cudaStream_t stream;
  cublasHandle_t cublas;
  cusolverDnHandle_t cusolver;
  cusparseHandle_t cusparse;
  double *scratch;          /* small device scratch (reductions) */
  double *scratch_host;     /* pinned host mirror */
  size_t scratch_bytes;
  cudaStream_t cur;         /* the stream work is queued on now: NULL = stream, or a workload's
                             * side stream while selected (gauss lookahead, k_gauss stream_ctl) */
  void *gauss_ws;           /* the gauss kernels' workspace (gauss_cuda.cu: made at first use) */
  void (*gauss_ws_free)(void *ws);   /* and how k_cuda_close frees it */
  /* run.cuda_pool = on: alloc / free are cudaMallocFromPoolAsync / cudaFreeAsync from this pool
   * on `stream` (release threshold: all, so freed memory is kept; trimmed at close and by
   * mem_info); NULL: cudaMalloc / cudaFree */
  cudaMemPool_t pool;
  cudaEvent_t pool_ev;      /* the fence on `stream` that side streams wait for (alloc) */
  uint64_t pool_allocs;
  /* allocations made while the stream was being captured into a graph: cudaMalloc (a pool
   * allocation would become the graph's own), freed with cudaFree */
  int ncap;
  void *cap[16];
  /* the workloads' own streams (gauss / gemm side streams, conv's compute and halo streams):
   * a pool free waits for their queued work, a pool allocation is waited for by them, so a
   * block handed out again is never in use on any of them (what cudaFree's device-wide sync
   * gave) */
  int nside;
  cudaStream_t side[K_CUDA_MAX_SIDE];
  cudaEvent_t side_ev[K_CUDA_MAX_SIDE];
} k_cuda_state;

/* Tell the pool about a stream of the caller's own (after creating it).  Local. */
int k_cuda_side_add(k_backend *be, cudaStream_t s);
/* And that it is gone (before destroying it).  Local. */
void k_cuda_side_drop(k_backend *be, cudaStream_t s);

static inline k_cuda_state *k_cuda_st(k_backend *be) { return (k_cuda_state *)be->impl; }
/* The stream work is queued on now (the transports of k_comm use it).  Local. */
static inline cudaStream_t k_cuda_cur(k_backend *be) {
  k_cuda_state *st = k_cuda_st(be);
  return st->cur ? st->cur : st->stream;
}

#endif
