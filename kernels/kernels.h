/* kernels.h - the compute backends behind one C interface.
 *
 * A k_backend is the device one rank drives: the host (C + BLAS/LAPACK) or a CUDA device
 * (CUDA C + cuBLAS/cuSOLVER/cuSPARSE).  Workload drivers see only this header and the
 * per-workload kernel headers beside it (k_gauss.h, k_spai.h, k_lle.h): tables of function
 * pointers filled by the backend, never a CUDA type.  Pointers called "device" pointers
 * below are host memory on the host backend.  Every function returns HY_OK or an error code
 * recorded with hy_err() (CUDA failures: HY_ESYS, with the CUDA error string and file:line).
 * All functions here are local to the calling rank. */
#ifndef HY_KERNELS_H
#define HY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { K_HOST = 0, K_CUDA = 1 } k_kind;

typedef struct k_backend k_backend;

/* The device memory pool's figures (CUDA backend, run.cuda_pool = on): bytes of allocations
 * handed out now and at most, bytes the pool holds from the device now and at most (freed
 * memory stays in the pool until the backend closes or mem_info trims it), allocations made. */
typedef struct {
  uint64_t used, used_peak;
  uint64_t reserved, reserved_peak;
  uint64_t allocs;
} k_pool_stats;

/* Options of k_backend_open_opts (NULL: the defaults). */
typedef struct {
  int pool;   /* CUDA: 1 alloc / free from a stream-ordered memory pool kept across frees
               * (run.cuda_pool = on, the default), 0 plain cudaMalloc / cudaFree; host: unused */
} k_open_opts;

/* The core operations every backend provides. */
typedef struct {
  int (*alloc)(k_backend *be, void **p, size_t bytes);          /* device memory */
  int (*free)(k_backend *be, void *p);
  int (*alloc_managed)(k_backend *be, void **p, size_t bytes);  /* unified memory (host: malloc) */
  int (*alloc_pinned)(k_backend *be, void **p, size_t bytes);   /* page-locked host memory */
  int (*free_pinned)(k_backend *be, void *p);
  int (*h2d)(k_backend *be, void *dst, const void *src, size_t bytes);
  int (*d2h)(k_backend *be, void *dst, const void *src, size_t bytes);
  int (*d2d)(k_backend *be, void *dst, const void *src, size_t bytes);
  int (*memset0)(k_backend *be, void *p, size_t bytes);
  int (*sync)(k_backend *be);                                   /* wait for queued work */
  /* y = a x + y on n doubles (the selftest kernel) */
  int (*daxpy)(k_backend *be, int64_t n, double a, const double *x, double *y);
  /* sum of x[i] * y[i] (result on the host) */
  int (*ddot)(k_backend *be, int64_t n, const double *x, const double *y, double *result);
  /* device memory free and total in bytes; NULL where device memory is host memory (host) */
  int (*mem_info)(k_backend *be, size_t *free_bytes, size_t *total_bytes);
  /* the memory pool's figures; NULL where alloc / free use no pool (host, run.cuda_pool = off) */
  int (*pool_stats)(k_backend *be, k_pool_stats *stats);
} k_ops;

struct k_backend {
  k_kind kind;
  const char *name;          /* "host" or "cuda" */
  int device;                /* CUDA device ordinal, -1 on host */
  char device_name[128];     /* "NVIDIA H200", or the CPU model on host */
  char device_id[64];        /* PCI bus id (cuda) or "" */
  size_t device_mem;         /* bytes of device memory (0 on host) */
  int sm_count;              /* multiprocessors (0 on host) */
  char runtime_version[32];  /* CUDA runtime "12.4" ("" on host), for the record */
  char driver_version[32];   /* CUDA driver API version "12.6" ("" on host) */
  char nccl_version[32];     /* NCCL "2.21.5" when this build uses it ("" otherwise) */
  char cudnn_version[32];    /* cuDNN "9.1.0" when this build links it ("" otherwise) */
  /* What drivers may ask (they never test kind: backend details stay in kernels/). */
  int gpu;                   /* 1 on a GPU backend: GPU figures (targets, floors) print */
  const char *vendor_blas;   /* dense library doing GEMM/TRSM: "cuBLAS" or "BLAS" */
  const char *vendor_solver; /* dense factorisations: "cuSOLVER" or "LAPACK" */
  const char *vendor_sparse; /* sparse kernels (SpMV): "cuSPARSE" or "host" */
  const k_ops *ops;
  void *impl;                /* backend-private state (CUDA stream, library handles) */
};

/* Number of CUDA devices this process sees (0 when CUDA is not compiled in or no driver /
 * device is present; never an error).  Local. */
int k_cuda_device_count(void);

/* 1 when the CUDA backend is compiled into this binary.  Local. */
int k_cuda_compiled(void);

/* Open a backend: K_HOST, or K_CUDA on device ordinal dev, with the default options.  Local. */
int k_backend_open(k_backend *be, k_kind kind, int dev);
/* The same with options (NULL: the defaults).  Local. */
int k_backend_open_opts(k_backend *be, k_kind kind, int dev, const k_open_opts *opts);
/* Release its resources.  Local. */
int k_backend_close(k_backend *be);

/* Host and CUDA implementations (the CUDA one only when compiled in). */
int k_host_open(k_backend *be);
int k_host_close(k_backend *be);
int k_cuda_open(k_backend *be, int dev, int pool);
int k_cuda_close(k_backend *be);
int k_cuda_count(void);

#ifdef __cplusplus
}
#endif
#endif
