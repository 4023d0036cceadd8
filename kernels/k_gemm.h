/* k_gemm.h - the kernels of the gemm workload (C = alpha A B + beta C), one table per backend.
 *
 * Matrices are column-major "device" pointers of the backend (host memory on the host
 * backend).  A and B are stored in the precision's input format (in_bytes): double for
 * K_GEMM_DOUBLE, float for float and tf32, and for bf16 / fp16 whatever the backend's table
 * says (2-byte bf16 / fp16 on CUDA, float holding the rounded values on the host).  C is
 * double for K_GEMM_DOUBLE and float otherwise (FP32 accumulation), on every backend.
 * Inputs are rounded once (k_gemm_round) before they are packed; every kernel variant then
 * computes the same function: exact products of the rounded inputs, accumulated in FP64
 * (double) or FP32 (all others).  All functions are local to the calling rank and return
 * HY_OK or an error code recorded with hy_err(). */
#ifndef HY_K_GEMM_H
#define HY_K_GEMM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* precisions (the order of gemm.precision's choices) and kernel variants (gemm.kernel) */
enum { K_GEMM_FLOAT = 0, K_GEMM_DOUBLE = 1, K_GEMM_TF32 = 2, K_GEMM_BF16 = 3, K_GEMM_FP16 = 4,
       K_GEMM_NPREC = 5 };
enum { K_GEMM_NAIVE = 0, K_GEMM_TILED = 1, K_GEMM_VENDOR = 2, K_GEMM_NKERNELS = 3 };

/* A backend's per-run state (kernel timers, scratch), made by ws_open. */
typedef struct k_gemm_ws k_gemm_ws;

/* C = alpha A B + beta C with A m x k (lda), B k x n (ldb), C m x n (ldc), queued on the
 * backend's stream; the kernel's own time is added to ws's kernel timer. */
typedef int (*k_gemm_fn)(k_backend *be, k_gemm_ws *ws, int prec, int64_t m, int64_t n, int64_t k,
                         double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                         double beta, void *c, int64_t ldc);

typedef struct {
  const char *vendor_name;     /* the vendor library of the vendor kernel ("cuBLAS", "BLAS") */
  int device_figures;          /* 1: rates, targets and floors at the device's rates mean
                                * something here (a GPU); 0: the host backend */
  /* Per-run state; tile: the tiled kernel's tile edge (8..32). */
  int (*ws_open)(k_backend *be, int tile, k_gemm_ws **ws);
  int (*ws_close)(k_backend *be, k_gemm_ws *ws);
  /* Bytes of one element of A and B as this backend stores them. */
  size_t (*in_bytes)(int prec);
  /* Host memory: dst[i] = src[i] (values already rounded by k_gemm_round) in the input format. */
  int (*pack)(int prec, int64_t count, const double *src, void *dst);
  /* The three variants: the seed's naive kernel (one thread per element of C), the seed's tiled
   * kernel (shared-memory tiles of ws's tile edge; any m, n, k), the vendor library. */
  k_gemm_fn naive, tiled, vendor;
  /* Streams of the SUMMA overlap: what = 0 marks the work queued so far on the main stream
   * (the GEMMs' stream); 1 sends the work that follows (the broadcasts of app/comm, which
   * queue on the backend's current stream) to a side stream, which first waits for the mark;
   * 2 makes the main stream wait for everything queued on the side and selects the main stream
   * again.  Host: nothing (everything is synchronous). */
  int (*stream_ctl)(k_backend *be, k_gemm_ws *ws, int what);
  /* Seconds of kernel time accumulated in ws since the last reset (waits for queued work);
   * reset = 1 starts a new accumulation. */
  int (*ktime)(k_backend *be, k_gemm_ws *ws, int reset, double *seconds);
  /* Kernel seconds of variant `kernel` on an m x n x k problem of precision prec in freshly
   * allocated, randomly filled device memory: the fastest of reps runs after one warm-up (the
   * vendor's figure of the same run).  Frees what it allocated. */
  int (*bench)(k_backend *be, k_gemm_ws *ws, int prec, int kernel, int64_t m, int64_t n,
               int64_t k, int reps, double *seconds);
  /* Warm-up before the timed SUMMA: run variant `kernel` once on the shape m x n x k with
   * this beta and these operands (their values do not matter; c is overwritten), so that what
   * a first call costs (loading the kernel's module; the vendor library's heuristics and
   * workspace, per shape) falls outside the timed region; not added to the kernel timer.
   * NULL where a first call costs nothing extra (the host). */
  int (*warm)(k_backend *be, k_gemm_ws *ws, int prec, int kernel, int64_t m, int64_t n, int64_t k,
              double beta, const void *a, int64_t lda, const void *b, int64_t ldb, void *c,
              int64_t ldc);
  /* Column-major rows x cols elements of esz bytes from src (lds) to dst (ldd), both device
   * memory, queued on the backend's current stream (the SUMMA's gathering of panels). */
  int (*copy2d)(k_backend *be, void *dst, int64_t ldd, const void *src, int64_t lds, int64_t rows,
                int64_t cols, size_t esz);
} k_gemm_ops;

/* The table of this backend.  Local. */
const k_gemm_ops *k_gemm_ops_get(const k_backend *be);

/* The host table is also the drivers' FP64 reference on any backend: its functions never use
 * their k_backend argument (NULL is allowed). */
extern const k_gemm_ops k_gemm_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_gemm_ops k_gemm_cuda_ops;
#endif

/* ---- shared by both backends and the driver (plain C arithmetic) ---- */
#ifdef __CUDACC__
#define K_GEMM_HD __host__ __device__
#else
#define K_GEMM_HD
#endif

/* Bytes of one element of C. */
static inline K_GEMM_HD size_t k_gemm_c_bytes(int prec) { return prec == K_GEMM_DOUBLE ? 8 : 4; }

/* Unit roundoff of the accumulation of prec (FP64 for double, FP32 for all others: inputs are
 * rounded once, products of rounded inputs are exact in FP32, sums are FP32). */
static inline K_GEMM_HD double k_gemm_unit(int prec) {
  return prec == K_GEMM_DOUBLE ? 0x1.0p-53 : 0x1.0p-24;
}

/* Round float f's significand to keep `keep` of its 23 fraction bits, to nearest even
 * (finite values; overflow goes to infinity as the hardware conversion does). */
static inline K_GEMM_HD float k_gemm_round_bits(float f, int keep) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u) return f; /* inf / nan */
  int drop = 23 - keep;
  uint32_t half = (1u << (drop - 1)) - 1u;
  u += half + ((u >> drop) & 1u);
  u &= ~((1u << drop) - 1u);
  memcpy(&f, &u, 4);
  return f;
}

/* x rounded once to the input format of prec, as a double: float / tf32 (10 fraction bits,
 * FP32 range) / bf16 (7 fraction bits, FP32 range) / fp16 (10 fraction bits, subnormals below
 * 2^-14, infinity above 65504); double: x. */
static inline K_GEMM_HD double k_gemm_round(int prec, double x) {
  if (prec == K_GEMM_DOUBLE) return x;
  float f = (float)x;
  switch (prec) {
  case K_GEMM_TF32: return (double)k_gemm_round_bits(f, 10);
  case K_GEMM_BF16: return (double)k_gemm_round_bits(f, 7);
  case K_GEMM_FP16: {
    double a = fabs((double)f);
    if (a >= 65520.0) return x > 0 ? INFINITY : -INFINITY;
    if (a < 0x1.0p-14) return nearbyint((double)f * 0x1.0p24) * 0x1.0p-24; /* subnormal grid */
    return (double)k_gemm_round_bits(f, 10);
  }
  default: return (double)f;
  }
}

#ifdef __cplusplus
}
#endif
#endif
