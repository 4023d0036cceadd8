/* vec_cuda.cu - the vector operations of k_vec.h on a CUDA device: a grid-stride gather, the
 * fused update z = a x + b y + c z, and up to four dot products in one launch (optionally after
 * such an update in the same kernel) with a fixed-order reduction finished by the last block
 * (bitwise reproducible), the results in mapped pinned memory (one stream synchronisation, no
 * copy).  The reduction scratch lives in the k_vec handle (vec_scratch), never at file scope.
 * The scalar-block forms of the device loop (axpbypcz_s, dots_s, axpbypcz_dots_s, bcgs_step)
 * are the same kernels reading their scalars from, and writing their dots to, device memory,
 * with no synchronisation; a gate slot at 0 makes every block return at once; the last block
 * of a dots pass may run the next scalar step (one launch fewer).  A batch of queued work is
 * recorded once as a CUDA graph (rec_create) and replayed (rec_run); s_read reads the scalar
 * block through mapped pinned memory.
 * All work is queued on the backend's stream. */
#include "k_cuda.h"
#include "k_vec.h"
#include "k_vec_bcgs.h"

#include <stdlib.h>

static_assert(K_BS_NSLOT <= K_VEC_READMAX, "the scalar block fits the s_read scratch");
static_assert(K_VEC_MAXDOTS <= K_VEC_READMAX, "the dots fit the result scratch");

#define DOT_BLOCKS 1024
#define DOT_THREADS 256
/* Entries per thread a dots pass aims at (fewer blocks: a short last-block sum and fewer
 * atomics on its counter; each thread's loads unrolled). */
#define DOT_PER_THREAD 4

/* The reduction scratch of one k_vec: block partials, the last-block counter, the results in
 * mapped pinned host memory and their device alias. */
typedef struct {
  double *part;
  unsigned *count;
  double *out_host, *out_dev;
} vec_scratch;

static __device__ __forceinline__ double vec_warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

static __global__ void kv_gather(int64_t n, const int32_t *__restrict__ idx,
                                 const double *__restrict__ x, double *__restrict__ buf) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    buf[i] = x[idx[i]];
}

static __global__ void kv_axpbypcz(int64_t n, double a, const double *__restrict__ x, double b,
                                   const double *y, double c, double *z) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double v = a * x[i] + b * y[i];
    if (c != 0.0) v += c * z[i];
    z[i] = v;
  }
}

/* z = sc[ia] x + sc[ib] y + sc[ic] z, nothing while sc[gate] == 0 (the device loop); then
 * (step >= 0) block 0's thread 0 runs the scalar step once its block has read the gate. */
static __global__ void kv_axpbypcz_s(int64_t n, double *sc, int ia, int ib, int ic, int gate,
                                     const double *__restrict__ x, const double *y, double *z,
                                     int step, double tol) {
  if (sc[gate] != 0) {
    double a = sc[ia], b = sc[ib], c = sc[ic];
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
      double v = a * x[i] + b * y[i];
      if (c != 0.0) v += c * z[i];
      z[i] = v;
    }
  }
  if (step >= 0 && blockIdx.x == 0) {
    __syncthreads();
    if (threadIdx.x == 0) k_bcgs_step(sc, step, tol);
  }
}

/* One scalar step of BiCGSTAB on the scalar block (one thread). */
static __global__ void kv_bcgs_step(double *sc, int step, double tol) {
  k_bcgs_step(sc, step, tol);
}

/* out[i] = sc[i] for i < n (out: mapped pinned host memory; one warp). */
static __global__ void kv_read(const double *sc, double *out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = sc[i];
}

/* The scalars of one dots pass read from device memory (the device loop): a = sc[ia], b =
 * sc[ib], c = sc[ic], nothing while sc[gate] == 0, and (step >= 0) the scalar step
 * k_bcgs_step(sc, step, tol) run by the last block once the dots are in sc; sc NULL: the
 * values passed. */
struct vec_scal {
  double *sc;
  int ia, ib, ic, gate, step;
  double tol;
};

/* The pairs of one dots pass (passed by value). */
struct vec_pairs {
  const double *x[K_VEC_MAXDOTS], *y[K_VEC_MAXDOTS];
};
/* Optionally (UPD) z = a x + b y + c z (c == 0: z not read), then up to four dot products of
 * the (updated) vectors, in one launch: per-block partials (each thread's grid-stride sum, warp
 * sums, warps in order) into part, and the last block to finish (device counter) sums the
 * partials in a fixed order (a warp per product), writes out (mapped pinned host memory) and
 * resets the counter.  The order depends only on n: bitwise reproducible. */
template <bool UPD>
static __global__ void kv_dots(int64_t n, double a, const double *x, double b, const double *y,
                               double c, double *z, int np, vec_pairs dp, double *part,
                               unsigned *count, double *out, vec_scal vs) {
  __shared__ double red[DOT_THREADS / 32][K_VEC_MAXDOTS];
  __shared__ bool last;
  if (vs.sc) {
    if (vs.sc[vs.gate] == 0) {         /* every block returns: the counter stays 0 */
      /* the step runs whatever the gate, as a separate bcgs_step would (stopped: RUNX = 0) */
      if (vs.step >= 0 && blockIdx.x == 0 && threadIdx.x == 0) k_bcgs_step(vs.sc, vs.step, vs.tol);
      return;
    }
    if (UPD) {
      a = vs.sc[vs.ia];
      b = vs.sc[vs.ib];
      c = vs.sc[vs.ic];
    }
  }
  double s[K_VEC_MAXDOTS] = { 0, 0, 0, 0 };
#pragma unroll 4
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double zi = 0;
    if (UPD) {
      zi = a * x[i] + b * y[i];
      if (c != 0.0) zi += c * z[i];
      z[i] = zi;
    }
#pragma unroll
    for (int p = 0; p < K_VEC_MAXDOTS; p++)
      if (p < np) {
        double xv = (UPD && dp.x[p] == z) ? zi : dp.x[p][i];
        double yv = (UPD && dp.y[p] == z) ? zi : dp.y[p][i];
        s[p] += xv * yv;
      }
  }
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
#pragma unroll
  for (int p = 0; p < K_VEC_MAXDOTS; p++)
    if (p < np) {
      double v = vec_warp_sum(s[p]);
      if (lane == 0) red[w][p] = v;
    }
  __syncthreads();
  if (threadIdx.x < np) {
    double v = 0;
    for (int q = 0; q < DOT_THREADS / 32; q++) v += red[q][threadIdx.x];
    part[blockIdx.x * K_VEC_MAXDOTS + threadIdx.x] = v;
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  int p = threadIdx.x >> 5;
  if (p < np) {
    double v = 0;
    for (unsigned bl = lane; bl < gridDim.x; bl += 32) v += __ldcg(part + bl * K_VEC_MAXDOTS + p);
    v = vec_warp_sum(v);
    if (lane == 0) out[p] = v;
  }
  if (threadIdx.x == 0) *count = 0;
  if (vs.sc && vs.step >= 0) {
    __syncthreads();                       /* the dots are in sc (out = sc + slot) */
    if (threadIdx.x == 0) k_bcgs_step(vs.sc, vs.step, vs.tol);
  }
}

/* Free whatever part of the scratch exists.  Local. */
static int c_close(k_vec *v) {
  vec_scratch *s = (vec_scratch *)v->impl;
  if (!s) return HY_OK;
  if (s->part) cudaFree(s->part);
  if (s->count) cudaFree(s->count);
  if (s->out_host) cudaFreeHost(s->out_host);
  free(s);
  v->impl = NULL;
  return HY_OK;
}

/* Allocate the reduction scratch (the counter zeroed).  Local. */
static int c_open(k_vec *v) {
  k_cuda_state *st = k_cuda_st(v->be);
  vec_scratch *s = (vec_scratch *)calloc(1, sizeof *s);
  if (!s) return hy_err(HY_ESYS, "out of memory");
  v->impl = s;
  HY_CUDA(cudaMalloc((void **)&s->count, sizeof(unsigned)));
  HY_CUDA(cudaMemsetAsync(s->count, 0, sizeof(unsigned), st->stream));
  HY_CUDA(cudaHostAlloc((void **)&s->out_host, K_VEC_READMAX * sizeof(double), cudaHostAllocMapped));
  HY_CUDA(cudaHostGetDevicePointer((void **)&s->out_dev, s->out_host, 0));
  HY_CUDA(cudaMalloc((void **)&s->part, DOT_BLOCKS * K_VEC_MAXDOTS * sizeof(double)));
  return HY_OK;
}

/* buf[i] = x[idx[i]].  Local. */
static int c_gather(k_vec *v, int64_t n, const int32_t *idx, const double *x, double *buf) {
  if (n <= 0) return HY_OK;
  int blocks = (int)((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  kv_gather<<<blocks, 256, 0, k_cuda_st(v->be)->stream>>>(n, idx, x, buf);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* z = a x + b y + c z.  Local. */
static int c_axpbypcz(k_vec *v, int64_t n, double a, const double *x, double b, const double *y,
                      double c, double *z) {
  if (n <= 0) return HY_OK;
  int blocks = (int)((n + 255) / 256);
  int cap = v->be->sm_count * 8;
  if (blocks > cap) blocks = cap;
  kv_axpbypcz<<<blocks, 256, 0, k_cuda_st(v->be)->stream>>>(n, a, x, b, y, c, z);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The dots of np pairs (after z = a x + b y + c z when upd): one launch, one stream
 * synchronisation, results read from pinned memory.  Local. */
static int dots_launch(k_vec *v, int64_t n, bool upd, double a, const double *x, double b,
                       const double *y, double c, double *z, int np, const double *const *dx,
                       const double *const *dy, double *dout, vec_scal vs) {
  k_cuda_state *st = k_cuda_st(v->be);
  vec_scratch *s = (vec_scratch *)v->impl;
  if (np < 1 || np > K_VEC_MAXDOTS)
    return hy_err(HY_ESYS, "vec cuda: %d dot products in one pass (1..%d)", np, K_VEC_MAXDOTS);
  int64_t per_block = (int64_t)DOT_THREADS * DOT_PER_THREAD;
  int blocks = (int)((n + per_block - 1) / per_block);
  if (blocks > DOT_BLOCKS) blocks = DOT_BLOCKS;
  if (blocks < 1) blocks = 1;
  vec_pairs dp;
  for (int p = 0; p < K_VEC_MAXDOTS; p++) {
    dp.x[p] = dx[p < np ? p : 0];
    dp.y[p] = dy[p < np ? p : 0];
  }
  if (upd)
    kv_dots<true><<<blocks, DOT_THREADS, 0, st->stream>>>(n, a, x, b, y, c, z, np, dp, s->part,
                                                          s->count, dout, vs);
  else
    kv_dots<false><<<blocks, DOT_THREADS, 0, st->stream>>>(n, 0, NULL, 0, NULL, 0, NULL, np, dp,
                                                           s->part, s->count, dout, vs);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* dots_launch into the mapped pinned results, one stream synchronisation, read on the host.
 * Local. */
static int dots_pass(k_vec *v, int64_t n, bool upd, double a, const double *x, double b,
                     const double *y, double c, double *z, int np, const double *const *dx,
                     const double *const *dy, double *out) {
  vec_scratch *s = (vec_scratch *)v->impl;
  vec_scal none = { NULL, 0, 0, 0, 0, -1, 0 };
  int rc = dots_launch(v, n, upd, a, x, b, y, c, z, np, dx, dy, s->out_dev, none);
  if (rc != HY_OK) return rc;
  HY_CUDA(cudaStreamSynchronize(k_cuda_st(v->be)->stream));
  for (int p = 0; p < np; p++) out[p] = ((volatile double *)s->out_host)[p];
  return HY_OK;
}

/* Local dots of up to four pairs.  Local. */
static int c_dots(k_vec *v, int64_t n, int np, const double *const *x, const double *const *y,
                  double *out) {
  return dots_pass(v, n, false, 0, NULL, 0, NULL, 0, NULL, np, x, y, out);
}

/* z = a x + b y + c z and the local dots of the updated vectors in the same kernel.  Local. */
static int c_axpbypcz_dots(k_vec *v, int64_t n, double a, const double *x, double b,
                           const double *y, double c, double *z, int np, const double *const *dx,
                           const double *const *dy, double *out) {
  return dots_pass(v, n, true, a, x, b, y, c, z, np, dx, dy, out);
}

/* The scalar-block forms (k_vec.h), queued on the stream with no synchronisation.  Local. */
static int c_axpbypcz_s(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                        const double *x, const double *y, double *z, int step, double tol) {
  int blocks = (int)((n + 255) / 256);
  int cap = v->be->sm_count * 8;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;              /* n = 0: the step still runs */
  kv_axpbypcz_s<<<blocks, 256, 0, k_cuda_st(v->be)->stream>>>(n, sc, ia, ib, ic, gate, x, y, z,
                                                                step, tol);
  HY_CUDA_LAUNCH();
  return HY_OK;
}
static int c_dots_s(k_vec *v, int64_t n, int np, const double *const *x, const double *const *y,
                    double *sc, int slot, int gate, int step, double tol) {
  vec_scal vs = { sc, 0, 0, 0, gate, step, tol };
  return dots_launch(v, n, false, 0, NULL, 0, NULL, 0, NULL, np, x, y, sc + slot, vs);
}
static int c_axpbypcz_dots_s(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                             const double *x, const double *y, double *z, int np,
                             const double *const *dx, const double *const *dy, int slot, int step,
                             double tol) {
  vec_scal vs = { sc, ia, ib, ic, gate, step, tol };
  return dots_launch(v, n, true, 0, x, 0, y, 0, z, np, dx, dy, sc + slot, vs);
}
static int c_bcgs_step(k_vec *v, double *sc, int step, double tol) {
  kv_bcgs_step<<<1, 1, 0, k_cuda_st(v->be)->stream>>>(sc, step, tol);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* h = sc[0..n) once the queued work is done: one kernel into the mapped pinned scratch, one
 * stream synchronisation (no copy call).  Local. */
static int c_s_read(k_vec *v, const double *sc, double *h, int n) {
  vec_scratch *s = (vec_scratch *)v->impl;
  if (n < 0 || n > K_VEC_READMAX)
    return hy_err(HY_ESYS, "vec cuda: %d slots read at once (0..%d)", n, K_VEC_READMAX);
  cudaStream_t st = k_cuda_st(v->be)->stream;
  kv_read<<<1, 32, 0, st>>>(sc, s->out_dev, n);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaStreamSynchronize(st));
  for (int i = 0; i < n; i++) h[i] = ((volatile double *)s->out_host)[i];
  return HY_OK;
}

/* Record what fn(arg) queues on the backend's stream as a CUDA graph (captured, not run;
 * relaxed mode: the library calls inside may allocate), instantiated once.  Local. */
static int c_rec_create(k_vec *v, int (*fn)(void *arg), void *arg, void **rec) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  *rec = NULL;
  HY_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
  int rc = fn(arg);
  cudaGraph_t g = NULL;
  cudaError_t ce = cudaStreamEndCapture(st, &g);
  if (rc == HY_OK && ce != cudaSuccess)
    rc = hy_err(HY_ESYS, "CUDA: recording the device loop as a graph failed: %s (%s)",
                cudaGetErrorString(ce), cudaGetErrorName(ce));
  cudaGraphExec_t ge = NULL;
  if (rc == HY_OK) {
    ce = cudaGraphInstantiate(&ge, g, 0);
    if (ce != cudaSuccess)
      rc = hy_err(HY_ESYS, "CUDA: cudaGraphInstantiate failed: %s (%s)", cudaGetErrorString(ce),
                  cudaGetErrorName(ce));
  }
  if (g) cudaGraphDestroy(g);
  if (rc == HY_OK) *rec = (void *)ge;
  return rc;
}
/* One launch of the recorded graph on the stream.  Local. */
static int c_rec_run(k_vec *v, void *rec) {
  HY_CUDA(cudaGraphLaunch((cudaGraphExec_t)rec, k_cuda_st(v->be)->stream));
  return HY_OK;
}
static int c_rec_free(k_vec *v, void *rec) {
  (void)v;
  if (rec) HY_CUDA(cudaGraphExecDestroy((cudaGraphExec_t)rec));
  return HY_OK;
}

/* (the fields in declaration order, named: C++ takes designators in that order) */
extern "C" const k_vec_ops k_vec_cuda_ops = {
  .open = c_open,
  .close = c_close,
  .gather = c_gather,
  .axpbypcz = c_axpbypcz,
  .dots = c_dots,
  .axpbypcz_dots = c_axpbypcz_dots,
  .axpbypcz_s = c_axpbypcz_s,
  .dots_s = c_dots_s,
  .axpbypcz_dots_s = c_axpbypcz_dots_s,
  .bcgs_step = c_bcgs_step,
  .s_read = c_s_read,
  .rec_create = c_rec_create,
  .rec_run = c_rec_run,
  .rec_free = c_rec_free,
};
