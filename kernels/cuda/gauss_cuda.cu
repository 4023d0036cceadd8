/* gauss_cuda.cu - the gauss kernels on the CUDA backend: the seed's three per-step kernels,
 * pivot search, row swaps and moves as CUDA kernels; panel LU by cuSOLVER getrf; TRSM, GEMM,
 * TRSV, GEMV by cuBLAS.  Everything runs on the backend's stream (k_cuda_st(be)->stream). */
#include "k_cuda.h"
#include "k_gauss.h"
#include "gauss_panel_cuda.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The gauss kernels' workspace, one per backend (k_cuda_state.gauss_ws, made at first use,
 * freed by k_cuda_close): cuSOLVER workspace, pivots, info, row lists, the lookahead stream. */
typedef struct {
  void *work;
  size_t work_bytes;
  int *ipiv;
  int ipiv_n;
  int *info;
  int *rows;
  int rows_n;
  int *rows_s;        /* the row lists of calls on the lookahead side stream */
  int rows_s_n;
  double *red;       /* 2 doubles + index for reductions */
  /* TRSM through the inverse (c_trsm_lunit), per stream (main, the lookahead side stream, the
   * update's aux stream: they may run at once): L^-1, the inversion's products, B's product */
  void *tl_inv[3], *tl_t[3], *tl_tmp[3];
  size_t tl_inv_b[3], tl_t_b[3], tl_tmp_b[3];
  void *lowa, *lowb;  /* gemm_sub_low: A and B rounded to BF16 / FP16 */
  int *rpiv;          /* getrf_rec: the panel's pivots on the device (0-based from its top) */
  void *pbs;          /* the fused base block's scratch (GAUSS_PB_SCRATCH bytes) */
  int rpiv_n;
  size_t lowa_bytes, lowb_bytes;
  /* lookahead: a side stream with its own cuBLAS / cuSOLVER handles */
  int side_on, cur_side;
  int pb_rows;        /* gauss.panel_rows: the fused base block's rows per thread block (0: 1024) */
  int pb_sync;        /* gauss.panel_sync: GAUSS_PB_SYNC_* */
  int pb_threads;     /* the fused base block's threads a thread block (K_GAUSS_AUX_PBTHREADS; 0: 1024) */
  int pb_kind;        /* its kernel (K_GAUSS_AUX_PBKIND, gauss.panel_kernel: GAUSS_PB_AUTO, _SHARED, _REGISTERS) */
  int side_same;      /* the side stream has (or will have) the main stream's priority (gauss.side_priority = same) */
  cudaStream_t side;
  cublasHandle_t cb_side;
  cusolverDnHandle_t cs_side;
  cudaEvent_t ev_mark, ev_side;
  /* gauss.update_chunks: the aux streams of the trailing update's row swaps and TRSM ([0]: a
   * priority between the main stream's and the side's, [1]: the main stream's; made at first
   * use), their handles, the events between them and the main stream, the aux's row list and
   * its TRSM buffers (tl_*[2]) with the L whose inverse tl_inv[2] holds (cleared at a new step:
   * K_GAUSS_AUX_ENTER / _PANEL) */
  int aux_on[2], aux_cur;
  cudaStream_t aux[2];
  cublasHandle_t cb_aux[2];
  cusolverDnHandle_t cs_aux[2];
  cudaEvent_t ev_amark, ev_aux;
  cudaEvent_t ev_chunk[K_GAUSS_CHUNKS_MAX];   /* K_GAUSS_AUX_MARK: each chunk's GEMM done */
  int *rows_x;
  int rows_x_n;
  const void *linv_x_l;   /* the L whose inverse tl_inv[2] holds */
  int64_t linv_x_m, linv_x_ld;
  /* K_GAUSS_AUX_LSTEP: within one step (on), the L whose inverse tl_inv[0] holds (main stream) */
  int linv_m_on;
  const void *linv_m_l;
  int64_t linv_m_m, linv_m_ld;
  int linv_m_sp;
} gauss_cuda_ws;

/* Free a workspace (k_cuda_close, after the stream is idle).  Local. */
static void gauss_ws_free(void *p) {
  gauss_cuda_ws *w = (gauss_cuda_ws *)p;
  cudaDeviceSynchronize();
  if (w->work) cudaFree(w->work);
  if (w->ipiv) cudaFree(w->ipiv);
  if (w->info) cudaFree(w->info);
  if (w->rows) cudaFree(w->rows);
  if (w->rows_s) cudaFree(w->rows_s);
  if (w->red) cudaFree(w->red);
  for (int i = 0; i < 3; i++) {
    if (w->tl_inv[i]) cudaFree(w->tl_inv[i]);
    if (w->tl_t[i]) cudaFree(w->tl_t[i]);
    if (w->tl_tmp[i]) cudaFree(w->tl_tmp[i]);
  }
  if (w->lowa) cudaFree(w->lowa);
  if (w->lowb) cudaFree(w->lowb);
  if (w->rpiv) cudaFree(w->rpiv);
  if (w->pbs) cudaFree(w->pbs);
  if (w->side_on) {
    cublasDestroy(w->cb_side);
    cusolverDnDestroy(w->cs_side);
    cudaEventDestroy(w->ev_mark);
    cudaEventDestroy(w->ev_side);
    cudaStreamDestroy(w->side);
  }
  for (int i = 0; i < 2; i++)
    if (w->aux_on[i]) {
      cublasDestroy(w->cb_aux[i]);
      cusolverDnDestroy(w->cs_aux[i]);
      cudaStreamDestroy(w->aux[i]);
    }
  if (w->aux_on[0] || w->aux_on[1]) {
    cudaEventDestroy(w->ev_amark);
    cudaEventDestroy(w->ev_aux);
    for (int c = 0; c < K_GAUSS_CHUNKS_MAX; c++) cudaEventDestroy(w->ev_chunk[c]);
  }
  if (w->rows_x) cudaFree(w->rows_x);
  free(w);
}

/* This backend's workspace (made at the first call).  Local; aborts when out of memory. */
static gauss_cuda_ws *gw(k_backend *be) {
  k_cuda_state *st = k_cuda_st(be);
  if (!st->gauss_ws) {
    gauss_cuda_ws *w = (gauss_cuda_ws *)calloc(1, sizeof *w);
    if (!w) hy_fatal(HY_ESYS, "out of memory (gauss CUDA workspace)");
    st->gauss_ws = w;
    st->gauss_ws_free = gauss_ws_free;
  }
  return (gauss_cuda_ws *)st->gauss_ws;
}

/* Grow a device buffer to at least bytes.  Local. */
static int grow(void **p, size_t *have, size_t bytes) {
  if (*have >= bytes && *p) return HY_OK;
  if (*p) HY_CUDA(cudaFree(*p));
  *p = NULL;
  HY_CUDA(cudaMalloc(p, bytes));
  *have = bytes;
  return HY_OK;
}

/* Make sure the small scratch exists.  Local. */
static int scratch(k_backend *be) {
  if (!gw(be)->info) HY_CUDA(cudaMalloc((void **)&gw(be)->info, sizeof(int)));
  if (!gw(be)->red) HY_CUDA(cudaMalloc((void **)&gw(be)->red, 4 * sizeof(double)));
  return HY_OK;
}

/* The stream and handles gauss calls use now (cur_side: 0 main, 1 the lookahead side stream, 2
 * the update's aux stream aux[aux_cur]).  Local. */
static inline cudaStream_t strm(k_backend *be) {
  gauss_cuda_ws *w = gw(be);
  return w->cur_side == 1 ? w->side : w->cur_side == 2 ? w->aux[w->aux_cur] : k_cuda_st(be)->stream;
}
static inline cublasHandle_t cur_cublas(k_backend *be) {
  gauss_cuda_ws *w = gw(be);
  return w->cur_side == 1 ? w->cb_side : w->cur_side == 2 ? w->cb_aux[w->aux_cur] : k_cuda_st(be)->cublas;
}
static inline cusolverDnHandle_t cur_cusolver(k_backend *be) {
  gauss_cuda_ws *w = gw(be);
  return w->cur_side == 1 ? w->cs_side : w->cur_side == 2 ? w->cs_aux[w->aux_cur] : k_cuda_st(be)->cusolver;
}

/* Make aux stream i (0: priority between the main stream's and the side's; 1: the main
 * stream's), its handles (the main handle's math mode) and the events.  Local. */
static int aux_make(k_backend *be, int i) {
  gauss_cuda_ws *w = gw(be);
  if (w->aux_on[i]) return HY_OK;
  int lo = 0, hi = 0;
  HY_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  /* greatest priority = hi (numerically lowest); the main stream has 0 = lo */
  int pr = i == 0 ? (hi < lo - 1 ? (lo + hi) / 2 : hi) : lo;
  HY_CUDA(cudaStreamCreateWithPriority(&w->aux[i], cudaStreamNonBlocking, pr));
  HY_CALL(k_cuda_side_add(be, w->aux[i]));   /* the memory pool orders its blocks with it (dropped at close) */
  HY_CUBLAS(cublasCreate(&w->cb_aux[i]));
  HY_CUBLAS(cublasSetStream(w->cb_aux[i], w->aux[i]));
  cublasMath_t mm = CUBLAS_DEFAULT_MATH;
  HY_CUBLAS(cublasGetMathMode(k_cuda_st(be)->cublas, &mm));
  HY_CUBLAS(cublasSetMathMode(w->cb_aux[i], mm));
  HY_CUSOLVER(cusolverDnCreate(&w->cs_aux[i]));
  HY_CUSOLVER(cusolverDnSetStream(w->cs_aux[i], w->aux[i]));
  if (!w->aux_on[1 - i]) {
    HY_CUDA(cudaEventCreateWithFlags(&w->ev_amark, cudaEventDisableTiming));
    HY_CUDA(cudaEventCreateWithFlags(&w->ev_aux, cudaEventDisableTiming));
    for (int c = 0; c < K_GAUSS_CHUNKS_MAX; c++)
      HY_CUDA(cudaEventCreateWithFlags(&w->ev_chunk[c], cudaEventDisableTiming));
  }
  w->aux_on[i] = 1;
  return HY_OK;
}

/* The trailing update's aux stream (k_gauss_ops aux_ctl, K_GAUSS_AUX_*).  Local. */
static int c_aux_ctl(k_backend *be, int what, int c) {
  gauss_cuda_ws *w = gw(be);
  k_cuda_state *st = k_cuda_st(be);
  if ((what == K_GAUSS_AUX_MARK || what == K_GAUSS_AUX_CHUNK || what == K_GAUSS_AUX_PANEL) &&
      (c < 0 || c >= K_GAUSS_CHUNKS_MAX))
    return hy_err(HY_ESYS, "gauss aux_ctl: chunk %d outside 0..%d", c, K_GAUSS_CHUNKS_MAX - 1);
  if (what == K_GAUSS_AUX_LSTEP) {
    /* a step's U block row solves begin (c = 1) or end (0): L^-1 kept between them */
    w->linv_m_on = c ? 1 : 0;
    w->linv_m_l = NULL;
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_PBROWS) {
    w->pb_rows = c > 0 ? c : 0;
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_PBSYNC) {
    w->pb_sync = c == 1 ? GAUSS_PB_SYNC_GRID : GAUSS_PB_SYNC_FLAGS;
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_PBKIND) {
    w->pb_kind = c == 1 ? GAUSS_PB_SHARED : c == 2 ? GAUSS_PB_REGISTERS : GAUSS_PB_AUTO;
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_PBTHREADS) {
    if (c != 0 && c != 512 && c != 1024)
      return hy_err(HY_ESYS, "gauss aux_ctl: %d threads for the fused base block (0, 512 or 1024)", c);
    w->pb_threads = c;
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_SMS) {
    /* gauss.panel_sms: the main handle's kernels on all but c multiprocessors (Hopper's GEMM
     * kernels otherwise hold every one for the whole call, and the side stream's panel waits) */
    int dev = 0, nsm = 0, got = -1;
    HY_CUDA(cudaGetDevice(&dev));
    HY_CUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    int target = c > 0 ? (nsm - c > 1 ? nsm - c : 1) : 0;
    HY_CUBLAS(cublasSetSmCountTarget(st->cublas, target));
    HY_CUBLAS(cublasGetSmCountTarget(st->cublas, &got));
    if (got != target)
      return hy_err(HY_ESYS, "gauss.panel_sms: cuBLAS kept an SM count target of %d, not %d", got, target);
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_SIDE) {
    /* the lookahead side stream's priority: made anew (after the device is idle) on a change */
    if (w->cur_side != 0) return hy_err(HY_ESYS, "gauss aux_ctl: the side stream's priority set off the main stream");
    int same = c ? 1 : 0;
    if (w->side_on && w->side_same != same) {
      int lo = 0, hi = 0;
      HY_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
      HY_CUDA(cudaDeviceSynchronize());
      k_cuda_side_drop(be, w->side);
      HY_CUDA(cudaStreamDestroy(w->side));
      HY_CUDA(cudaStreamCreateWithPriority(&w->side, cudaStreamNonBlocking, same ? lo : hi));
      HY_CALL(k_cuda_side_add(be, w->side));   /* the memory pool orders its blocks with it */
      HY_CUBLAS(cublasSetStream(w->cb_side, w->side));
      HY_CUSOLVER(cusolverDnSetStream(w->cs_side, w->side));
    }
    w->side_same = same;
    return HY_OK;
  }
  if (what == K_GAUSS_AUX_ENTER) {
    int i = c ? 1 : 0;
    HY_CALL(aux_make(be, i));
    HY_CUDA(cudaEventRecord(w->ev_amark, st->stream));
    HY_CUDA(cudaStreamWaitEvent(w->aux[i], w->ev_amark, 0));
    w->aux_cur = i;
    w->linv_x_l = NULL;
  } else if (what == K_GAUSS_AUX_MARK) {
    if (w->cur_side != 0) return hy_err(HY_ESYS, "gauss aux_ctl: a chunk mark off the main stream");
    HY_CUDA(cudaEventRecord(w->ev_chunk[c], st->stream));
    return HY_OK;
  } else if (what == K_GAUSS_AUX_MAIN) {
    if (w->cur_side != 2) return hy_err(HY_ESYS, "gauss aux_ctl: back to main while not on the aux stream");
    HY_CUDA(cudaEventRecord(w->ev_aux, w->aux[w->aux_cur]));
    HY_CUDA(cudaStreamWaitEvent(st->stream, w->ev_aux, 0));
    w->cur_side = 0;
    st->cur = NULL;
    return HY_OK;
  } else {
    if (!w->aux_on[w->aux_cur]) return hy_err(HY_ESYS, "gauss aux_ctl: the aux stream used before it was entered");
    /* the next step: its panel (the side stream's work up to its last return) and the previous
     * step's GEMM of this chunk's columns */
    if (what == K_GAUSS_AUX_PANEL) {
      if (w->side_on) HY_CUDA(cudaStreamWaitEvent(w->aux[w->aux_cur], w->ev_side, 0));
      w->linv_x_l = NULL;
    }
    HY_CUDA(cudaStreamWaitEvent(w->aux[w->aux_cur], w->ev_chunk[c], 0));
  }
  w->cur_side = 2;
  st->cur = w->aux[w->aux_cur];
  return HY_OK;
}

/* Mark / enter / leave the side stream.  Local. */
static int c_stream_ctl(k_backend *be, int what) {
  k_cuda_state *st = k_cuda_st(be);
  if (!gw(be)->side_on) {
    /* the panel's many small kernels must not wait behind the trailing GEMM's blocks */
    int lo = 0, hi = 0;
    HY_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    HY_CUDA(cudaStreamCreateWithPriority(&gw(be)->side, cudaStreamNonBlocking, gw(be)->side_same ? lo : hi));
    HY_CALL(k_cuda_side_add(be, gw(be)->side));   /* the memory pool orders its blocks with it (dropped at close) */
    HY_CUBLAS(cublasCreate(&gw(be)->cb_side));
    HY_CUBLAS(cublasSetStream(gw(be)->cb_side, gw(be)->side));
    HY_CUSOLVER(cusolverDnCreate(&gw(be)->cs_side));
    HY_CUSOLVER(cusolverDnSetStream(gw(be)->cs_side, gw(be)->side));
    HY_CUDA(cudaEventCreateWithFlags(&gw(be)->ev_mark, cudaEventDisableTiming));
    HY_CUDA(cudaEventCreateWithFlags(&gw(be)->ev_side, cudaEventDisableTiming));
    gw(be)->side_on = 1;
  }
  if (what == 0) {
    HY_CUDA(cudaEventRecord(gw(be)->ev_mark, st->stream));
  } else if (what == 1) {
    HY_CUDA(cudaStreamWaitEvent(gw(be)->side, gw(be)->ev_mark, 0));
    gw(be)->cur_side = 1;
    st->cur = gw(be)->side;
  } else {
    HY_CUDA(cudaEventRecord(gw(be)->ev_side, gw(be)->side));
    HY_CUDA(cudaStreamWaitEvent(st->stream, gw(be)->ev_side, 0));
    gw(be)->cur_side = 0;
    st->cur = NULL;
  }
  return HY_OK;
}
/* Blocks of t threads that cover n items.  Local. */
static inline unsigned nblocks(int64_t n, int t) { return (unsigned)((n + t - 1) / t); }

/* ---------------------------------------------------------------- the seed's kernels */
/* Kernel 1 of the seed: one thread per element of the pivot row.  Device. */
template <typename T>
__global__ void row_scale_k(T *row, int64_t len, T pivot) {
  int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (j == 0) row[0] = (T)1;
  else if (j < len) row[j] = row[j] / pivot;
}

/* row[0] = 1, row[j] /= pivot (kernel 1).  Local. */
static int c_row_scale(k_backend *be, int sp, void *row, int64_t len, double pivot) {
  if (len <= 0) return HY_OK;
  if (sp) row_scale_k<float><<<nblocks(len, 256), 256, 0, strm(be)>>>((float *)row, len, (float)pivot);
  else row_scale_k<double><<<nblocks(len, 256), 256, 0, strm(be)>>>((double *)row, len, pivot);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* Kernel 2 of the seed: one thread per (row, column) of the trailing block.  Device. */
template <typename T>
__global__ void rank1_k(T *a, int64_t lda, int64_t m, int64_t k, int64_t ncols, const T *prow) {
  int64_t j = k + 1 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  int64_t i = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
  if (i < m && j < ncols) {
    T *r = a + i * lda;
    r[j] = r[j] - r[k] * prow[j - k];
  }
}

/* a[i][j] -= a[i][k] * prow[j - k] (kernel 2, 2D range like the seed).  Local. */
static int c_rank1(k_backend *be, int sp, void *a, int64_t lda, int64_t m, int64_t k,
                   int64_t ncols, const void *prow) {
  int64_t w = ncols - k - 1;
  if (m <= 0 || w <= 0) return HY_OK;
  dim3 t(64, 4);
  int64_t gy = (m + 3) / 4;
  for (int64_t y0 = 0; y0 < gy; y0 += 65535) {
    int64_t gyy = gy - y0 < 65535 ? gy - y0 : 65535;
    dim3 b(nblocks(w, 64), (unsigned)gyy);
    int64_t off = y0 * 4 * lda;
    int64_t mm = m - y0 * 4;
    if (sp) rank1_k<float><<<b, t, 0, strm(be)>>>((float *)a + off, lda, mm, k, ncols, (const float *)prow);
    else rank1_k<double><<<b, t, 0, strm(be)>>>((double *)a + off, lda, mm, k, ncols, (const double *)prow);
    HY_CUDA_LAUNCH();
  }
  return HY_OK;
}

/* Kernel 3 of the seed: one thread per row below the pivot.  Device. */
template <typename T>
__global__ void col_zero_k(T *a, int64_t lda, int64_t m, int64_t k, T *l, int64_t ldl) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < m) {
    if (l) l[i * ldl + k] = a[i * lda + k];
    a[i * lda + k] = (T)0;
  }
}

/* Zero column k, keeping the multipliers when l is given (kernel 3).  Local. */
static int c_col_zero(k_backend *be, int sp, void *a, int64_t lda, int64_t m, int64_t k, void *l,
                      int64_t ldl) {
  if (m <= 0) return HY_OK;
  if (sp) col_zero_k<float><<<nblocks(m, 256), 256, 0, strm(be)>>>((float *)a, lda, m, k, (float *)l, ldl);
  else col_zero_k<double><<<nblocks(m, 256), 256, 0, strm(be)>>>((double *)a, lda, m, k, (double *)l, ldl);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* One block: largest |a[i * stride + off]| over i < m, first index on ties (NaN wins). */
template <typename T>
__global__ void absmax_k(const T *a, int64_t stride, int64_t m, double *out) {
  __shared__ double sv[1024];
  __shared__ long long si[1024];
  double best = -1;
  long long bi = 0;
  for (int64_t i = threadIdx.x; i < m; i += blockDim.x) {
    double v = fabs((double)a[i * stride]);
    if (isnan(v)) v = INFINITY;
    if (v > best) { best = v; bi = i; }
  }
  sv[threadIdx.x] = best;
  si[threadIdx.x] = bi;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      double v = sv[threadIdx.x + s];
      long long ix = si[threadIdx.x + s];
      if (v > sv[threadIdx.x] || (v == sv[threadIdx.x] && ix < si[threadIdx.x])) {
        sv[threadIdx.x] = v;
        si[threadIdx.x] = ix;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = sv[0];
    out[1] = (double)si[0];
  }
}

/* Largest |a[i][k]| and its first row.  Local. */
static int c_col_absmax(k_backend *be, int sp, const void *a, int64_t lda, int64_t m, int64_t k,
                        double *val, int64_t *idx) {
  HY_CALL(scratch(be));
  if (m <= 0) { *val = -1; *idx = 0; return HY_OK; }
  if (sp) absmax_k<float><<<1, 1024, 0, strm(be)>>>((const float *)a + k, lda, m, gw(be)->red);
  else absmax_k<double><<<1, 1024, 0, strm(be)>>>((const double *)a + k, lda, m, gw(be)->red);
  HY_CUDA_LAUNCH();
  double h[2];
  HY_CUDA(cudaMemcpyAsync(h, gw(be)->red, 2 * sizeof(double), cudaMemcpyDeviceToHost, strm(be)));
  HY_CUDA(cudaStreamSynchronize(strm(be)));
  *val = isinf(h[0]) ? NAN : h[0];
  *idx = (int64_t)h[1];
  return HY_OK;
}

/* Swap two vectors elementwise.  Device. */
template <typename T>
__global__ void swap_k(T *x, T *y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) { T t = x[i]; x[i] = y[i]; y[i] = t; }
}

/* Swap two vectors.  Local. */
static int c_swap(k_backend *be, int sp, void *x, void *y, int64_t len) {
  if (len <= 0) return HY_OK;
  if (sp) swap_k<float><<<nblocks(len, 256), 256, 0, strm(be)>>>((float *)x, (float *)y, len);
  else swap_k<double><<<nblocks(len, 256), 256, 0, strm(be)>>>((double *)x, (double *)y, len);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* ---------------------------------------------------------------- blocked LU */
/* Smallest |diagonal| of an m x n block and its index (one block). */
template <typename T>
__global__ void diagmin_k(const T *a, int64_t lda, int64_t d, double *out) {
  __shared__ double sv[512];
  __shared__ long long si[512];
  double best = INFINITY;
  long long bi = 0;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    double v = fabs((double)a[j + j * lda]);
    if (!(v >= best)) { best = v; bi = j; }
  }
  sv[threadIdx.x] = best;
  si[threadIdx.x] = bi;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      double v = sv[threadIdx.x + s];
      long long ix = si[threadIdx.x + s];
      if (!(v >= sv[threadIdx.x]) || (v == sv[threadIdx.x] && ix < si[threadIdx.x])) {
        sv[threadIdx.x] = v;
        si[threadIdx.x] = ix;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = sv[0];
    out[1] = (double)si[0];
  }
}

/* cuSOLVER getrf of a panel; pivots to the host, 0-based.  Local. */
static int c_getrf(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *hipiv,
                   int *info, double *minpiv, int64_t *minidx) {
  HY_CALL(scratch(be));
  cusolverDnHandle_t cs = cur_cusolver(be);
  cudaStream_t stream = strm(be);
  if (m > 2147483647LL || lda > 2147483647LL)
    return hy_err(HY_EUSAGE, "cuSOLVER getrf: panel of %lld rows exceeds the 32-bit interface", (long long)m);
  int im = (int)m, in = (int)n, il = (int)lda, lwork = 0;
  if (sp) HY_CUSOLVER(cusolverDnSgetrf_bufferSize(cs, im, in, (float *)a, il, &lwork));
  else HY_CUSOLVER(cusolverDnDgetrf_bufferSize(cs, im, in, (double *)a, il, &lwork));
  HY_CALL(grow(&gw(be)->work, &gw(be)->work_bytes, (size_t)(lwork > 0 ? lwork : 1) * (sp ? 4 : 8)));
  int d = im < in ? im : in;
  if (gw(be)->ipiv_n < d) {
    if (gw(be)->ipiv) HY_CUDA(cudaFree(gw(be)->ipiv));
    HY_CUDA(cudaMalloc((void **)&gw(be)->ipiv, sizeof(int) * (size_t)(d > 0 ? d : 1)));
    gw(be)->ipiv_n = d;
  }
  if (sp) HY_CUSOLVER(cusolverDnSgetrf(cs, im, in, (float *)a, il, (float *)gw(be)->work, gw(be)->ipiv, gw(be)->info));
  else HY_CUSOLVER(cusolverDnDgetrf(cs, im, in, (double *)a, il, (double *)gw(be)->work, gw(be)->ipiv, gw(be)->info));
  if (sp) diagmin_k<float><<<1, 512, 0, stream>>>((const float *)a, lda, d, gw(be)->red + 2);
  else diagmin_k<double><<<1, 512, 0, stream>>>((const double *)a, lda, d, gw(be)->red + 2);
  HY_CUDA_LAUNCH();
  double h[2];
  HY_CUDA(cudaMemcpyAsync(hipiv, gw(be)->ipiv, sizeof(int) * (size_t)d, cudaMemcpyDeviceToHost, stream));
  HY_CUDA(cudaMemcpyAsync(info, gw(be)->info, sizeof(int), cudaMemcpyDeviceToHost, stream));
  HY_CUDA(cudaMemcpyAsync(h, gw(be)->red + 2, 2 * sizeof(double), cudaMemcpyDeviceToHost, stream));
  HY_CUDA(cudaStreamSynchronize(stream));
  if (*info < 0) return hy_err(HY_ESYS, "cuSOLVER getrf: argument %d illegal", -*info);
  for (int j = 0; j < d; j++) hipiv[j] -= 1;
  *minpiv = h[0];
  *minidx = (int64_t)h[1];
  return HY_OK;
}

/* getrf_rec: dst[i] = src[i] - 1 + off (cuSOLVER's 1-based pivots of a block starting at
 * row off, made 0-based from the panel's top).  */
__global__ void piv_merge_k(int *dst, const int *src, int cnt, int off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < cnt) dst[i] = src[i] - 1 + off;
}

/* getrf_rec: rows i <-> piv[i] for i = i0 .. i1-1 (in order) on ncols columns of a (the panel's
 * top row 0), the pivots read on the device.  One thread per column. */
template <typename T>
__global__ void laswp_dev_k(T *a, int64_t lda, int64_t ncols, int i0, int i1, const int *piv) {
  int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (j >= ncols) return;
  T *c = a + j * lda;
  for (int i = i0; i < i1; i++) {
    int p = piv[i];
    if (p != i) { T t = c[i]; c[i] = c[p]; c[p] = t; }
  }
}

/* The most pivots of one base block that swap_blk_k swaps (getrf_rec: more go to laswp_dev_k). */
#define C_SWB_MAX 64
#define C_SWB_THREADS 256

/* getrf_rec: a base block's swaps (rows i0 + i <-> piv[i0 + i] for i < d, in order; a pivot
 * outside [i0 + i, m) swaps nothing) on the panel's columns left of it, [0, c0), and right of
 * it, [r0, r0 + nr), in one launch and one pass per column: every thread block builds in shared
 * memory the permutation of the at most 2 d rows involved (swap_plan_k's slots: the d top rows,
 * then each pivot row below them at its first occurrence), then its threads read every moved
 * row of the block's ct columns (one slot and column each) and, after a barrier, write it to
 * its place.  laswp_dev_k instead runs the d swaps in order, one thread per column: d dependent
 * round trips to memory.  Device. */
template <typename T>
__global__ void __launch_bounds__(C_SWB_THREADS) swap_blk_k(T *a, int64_t lda, int64_t c0, int64_t r0,
                                                            int64_t nr, int i0, int d, const int *piv,
                                                            int64_t m, int ct) {
  __shared__ int sp[C_SWB_MAX];
  __shared__ int code[C_SWB_MAX];
  __shared__ int content[2 * C_SWB_MAX];
  __shared__ int srow[2 * C_SWB_MAX];
  __shared__ int ssrc[2 * C_SWB_MAX];
  int cap = 2 * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    int p = piv[i0 + i];
    sp[i] = p < i0 + i || p >= m ? i0 + i : p;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    int p = sp[i], c = p - i0;
    if (p >= i0 + d) {
      int j = 0;
      while (sp[j] != p) j++;
      c = d + j;
    }
    code[i] = c;
  }
  for (int v = threadIdx.x; v < cap; v += blockDim.x) content[v] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int i = 0; i < d; i++) {
      int c = code[i], t = content[i];
      content[i] = content[c];
      content[c] = t;
    }
  __syncthreads();
  for (int v = threadIdx.x; v < cap; v += blockDim.x) {
    int j = v - d;
    int used = v < d || (sp[j] >= i0 + d && code[j] == v);
    int c = content[v];
    srow[v] = used ? (v < d ? i0 + v : sp[j]) : -1;
    ssrc[v] = used ? (c < d ? i0 + c : sp[c - d]) : 0;
  }
  __syncthreads();
  int t = threadIdx.x, v = t % cap;
  int64_t cc = (int64_t)blockIdx.x * ct + t / cap;
  int64_t col = cc < c0 ? cc : r0 + (cc - c0);
  bool act = t < cap * ct && cc < c0 + nr && srow[v] >= 0 && srow[v] != ssrc[v];
  T x = (T)0;
  if (act) x = a[ssrc[v] + col * lda];
  __syncthreads();
  if (act) a[srow[v] + col * lda] = x;
}

/* getrf_rec: the base block's swaps of rows c0 .. c0 + d (pivots rp, from the panel's top) on
 * the panel's columns [0, c0) and [r0, r0 + nr): one swap_blk_k launch, or laswp_dev_k on each
 * side for more than C_SWB_MAX pivots.  Local. */
template <typename T>
static void swap_blk(cudaStream_t st, T *a, int64_t lda, int64_t M, int64_t c0, int d, int64_t r0,
                     int64_t nr, const int *rp) {
  if (d <= 0 || c0 + nr <= 0) return;
  if (d <= C_SWB_MAX) {
    int ct = C_SWB_THREADS / (2 * d);
    swap_blk_k<T><<<nblocks(c0 + nr, ct), C_SWB_THREADS, 0, st>>>(a, lda, c0, r0, nr, (int)c0, d, rp, M, ct);
    return;
  }
  if (c0 > 0) laswp_dev_k<T><<<nblocks(c0, 128), 128, 0, st>>>(a, lda, c0, (int)c0, (int)c0 + d, rp);
  if (nr > 0) laswp_dev_k<T><<<nblocks(nr, 128), 128, 0, st>>>(a + r0 * lda, lda, nr, (int)c0, (int)c0 + d, rp);
}

/* getrf_rec's base = K_GAUSS_BASE_NOPIV (gauss.pivoting = none): the rows x n block a (n <=
 * K_GAUSS_NOPIV_MAX, rows >= 1) factored without row exchanges in two launches.  First one
 * thread block factors the top d x n square (d = min(rows, n)) in shared memory, right-looking
 * as the host's getf2 without pivots (a zero pivot leaves its column unscaled), writes it back
 * and the identity pivots rp[j] = off + j.  Then every row below solves x U = a_i against that
 * U (the same right-looking order: x_j = a_ij / u_jj, a_ic -= x_j u_jc for c > j), one thread a
 * row: rows are independent, so the tall part needs no barrier beyond the launch.  Device. */
#define C_NP_THREADS(T) (sizeof(T) == 8 ? 128 : 256)
template <typename T>
__global__ void __launch_bounds__(256) nopiv_top_k(T *a, int64_t lda, int d, int n, int *rp, int off) {
  __shared__ T ts[K_GAUSS_NOPIV_MAX * (K_GAUSS_NOPIV_MAX + 1)];
  const int ld = K_GAUSS_NOPIV_MAX + 1;
  for (int t = threadIdx.x; t < d * n; t += blockDim.x) {
    int i = t % d, c = t / d;
    ts[i + c * ld] = a[i + c * lda];
  }
  for (int j = 0; j < d; j++) {
    __syncthreads();
    T pv = ts[j + j * ld];
    for (int i = j + 1 + threadIdx.x; i < d; i += blockDim.x)
      if (pv != (T)0) ts[i + j * ld] = ts[i + j * ld] / pv;
    __syncthreads();
    int rr = d - j - 1, cc = n - j - 1;
    for (int t = threadIdx.x; t < rr * cc; t += blockDim.x) {
      int i = j + 1 + t % rr, c = j + 1 + t / rr;
      ts[i + c * ld] -= ts[i + j * ld] * ts[j + c * ld];
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < d * n; t += blockDim.x) {
    int i = t % d, c = t / d;
    a[i + c * lda] = ts[i + c * ld];
  }
  for (int j = threadIdx.x; j < d; j += blockDim.x) rp[j] = off + j;
}

template <typename T>
__global__ void __launch_bounds__(256) nopiv_rows_k(T *a, int64_t lda, int64_t rows, int n) {
  const int nt = blockDim.x;   /* at most C_NP_THREADS(T): xs holds K_GAUSS_NOPIV_MAX values a thread */
  __shared__ T us[K_GAUSS_NOPIV_MAX * (K_GAUSS_NOPIV_MAX + 1)];
  __shared__ T xs[K_GAUSS_NOPIV_MAX * C_NP_THREADS(T)];
  const int ld = K_GAUSS_NOPIV_MAX + 1;
  for (int t = threadIdx.x; t < n * n; t += blockDim.x) {
    int i = t % n, c = t / n;
    us[i + c * ld] = i <= c ? a[i + c * lda] : (T)0;
  }
  __syncthreads();
  int tid = threadIdx.x;
  for (int64_t r = n + blockIdx.x * (int64_t)nt + tid; r < rows; r += (int64_t)gridDim.x * nt) {
    for (int c = 0; c < n; c++) xs[c * nt + tid] = a[r + c * lda];
    for (int j = 0; j < n; j++) {
      T pv = us[j + j * ld], x = xs[j * nt + tid];
      if (pv != (T)0) x = x / pv;
      xs[j * nt + tid] = x;
      for (int c = j + 1; c < n; c++) xs[c * nt + tid] -= x * us[j + c * ld];
    }
    for (int c = 0; c < n; c++) a[r + c * lda] = xs[c * nt + tid];
  }
}

/* The two launches of the no-pivot base block on stream st.  Local. */
template <typename T>
static void nopiv_base(cudaStream_t st, T *blk, int64_t lda, int64_t rows, int n, int *rp, int off) {
  int d = rows < n ? (int)rows : n;
  nopiv_top_k<T><<<1, 256, 0, st>>>(blk, lda, d, n, rp, off);
  if (rows > n) {
    const int nt = C_NP_THREADS(T);
    int64_t nbk = (rows - n + nt - 1) / nt;
    nopiv_rows_k<T><<<(unsigned)(nbk < 1056 ? nbk : 1056), nt, 0, st>>>(blk, lda, rows, n);
  }
}

static int c_trsm_lunit(k_backend *be, int sp, int64_t m, int64_t n, const void *l, int64_t ldl,
                        void *b, int64_t ldb);
static int c_gemm_sub(k_backend *be, int sp, int64_t m, int64_t n, int64_t k, const void *a,
                      int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc);

/* getrf_rec's recursion on columns c0 .. c0+n of the M x N panel a (the diagonal block at row
 * c0): base blocks by cuSOLVER, their swaps applied at once to every other column of the panel.
 * Local. */
static int c_getrf_rec_cols(k_backend *be, int sp, int64_t M, int64_t N, void *a, int64_t lda,
                            int64_t c0, int64_t n, int nbmin, int base, int *rp) {
  size_t e = sp ? 4 : 8;
  cudaStream_t stream = strm(be);
  int64_t rows = M - c0;
  if (rows <= 0 || n <= 0) return HY_OK;
  char *blk = (char *)a + (size_t)(c0 + c0 * lda) * e;
  if (n <= nbmin) {
    int im = (int)rows, in = (int)n, il = (int)lda, lwork = 0, done = 0;
    int d = im < in ? im : in;
    if (base == K_GAUSS_BASE_NOPIV) {
      /* no row exchanges: no swaps on the panel's other columns */
      if (n > K_GAUSS_NOPIV_MAX)
        return hy_err(HY_ESYS, "gauss: no-pivot base block of %lld columns (at most %d)", (long long)n, K_GAUSS_NOPIV_MAX);
      if (sp) nopiv_base<float>(stream, (float *)blk, lda, rows, in, rp + c0, (int)c0);
      else nopiv_base<double>(stream, (double *)blk, lda, rows, in, rp + c0, (int)c0);
      HY_CUDA_LAUNCH();
      return HY_OK;
    }
    if (base == K_GAUSS_BASE_FUSED) {
      if (!gw(be)->pbs) {
        /* the flags' slots start (and each launch leaves them) all ones: nothing written yet */
        HY_CUDA(cudaMalloc(&gw(be)->pbs, GAUSS_PB_SCRATCH));
        HY_CUDA(cudaMemsetAsync(gw(be)->pbs, 0xff, GAUSS_PB_FLAGS_BYTES, stream));
      }
      HY_CALL(gauss_cuda_panel_base(stream, sp, rows, in, blk, lda, rp + c0, (int)c0, gw(be)->pbs, gw(be)->pb_rows,
                                    gw(be)->pb_sync, gw(be)->pb_threads, gw(be)->pb_kind, &done));
    }
    if (!done) {
      cusolverDnHandle_t cs = cur_cusolver(be);
      if (sp) HY_CUSOLVER(cusolverDnSgetrf_bufferSize(cs, im, in, (float *)blk, il, &lwork));
      else HY_CUSOLVER(cusolverDnDgetrf_bufferSize(cs, im, in, (double *)blk, il, &lwork));
      HY_CALL(grow(&gw(be)->work, &gw(be)->work_bytes, (size_t)(lwork > 0 ? lwork : 1) * e));
      if (sp) HY_CUSOLVER(cusolverDnSgetrf(cs, im, in, (float *)blk, il, (float *)gw(be)->work, gw(be)->ipiv, gw(be)->info));
      else HY_CUSOLVER(cusolverDnDgetrf(cs, im, in, (double *)blk, il, (double *)gw(be)->work, gw(be)->ipiv, gw(be)->info));
      piv_merge_k<<<nblocks(d, 128), 128, 0, stream>>>(rp + c0, gw(be)->ipiv, d, (int)c0);
    }
    /* the block's swaps on the panel's columns left of it and right of it, one launch */
    int64_t r0 = c0 + n, nr = N - r0 > 0 ? N - r0 : 0;
    if (sp) swap_blk<float>(stream, (float *)a, lda, M, c0, d, r0, nr, rp);
    else swap_blk<double>(stream, (double *)a, lda, M, c0, d, r0, nr, rp);
    HY_CUDA_LAUNCH();
    return HY_OK;
  }
  int64_t n1 = n / 2, n2 = n - n1;
  HY_CALL(c_getrf_rec_cols(be, sp, M, N, a, lda, c0, n1, nbmin, base, rp));
  if (rows > n1) {
    char *a12 = (char *)a + (size_t)(c0 + (c0 + n1) * lda) * e;
    char *a21 = (char *)a + (size_t)(c0 + n1 + c0 * lda) * e;
    char *a22 = (char *)a + (size_t)(c0 + n1 + (c0 + n1) * lda) * e;
    HY_CALL(c_trsm_lunit(be, sp, n1, n2, blk, lda, a12, lda));
    HY_CALL(c_gemm_sub(be, sp, rows - n1, n2, n1, a21, lda, a12, lda, a22, lda));
  }
  return c_getrf_rec_cols(be, sp, M, N, a, lda, c0 + n1, n2, nbmin, base, rp);
}

/* Recursive panel LU (k_gauss_ops getrf_rec): the recursion on the device, then the pivots,
 * the smallest |u_jj| and its column to the host with one synchronisation.  Local. */
static int c_getrf_rec(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int nbmin,
                       int base, int *hipiv, int *info, double *minpiv, int64_t *minidx) {
  HY_CALL(scratch(be));
  if (m > 2147483647LL || lda > 2147483647LL)
    return hy_err(HY_EUSAGE, "cuSOLVER getrf: panel of %lld rows exceeds the 32-bit interface", (long long)m);
  int d = (int)(m < n ? m : n);
  gauss_cuda_ws *w = gw(be);
  if (w->ipiv_n < d) {
    if (w->ipiv) HY_CUDA(cudaFree(w->ipiv));
    HY_CUDA(cudaMalloc((void **)&w->ipiv, sizeof(int) * (size_t)(d > 0 ? d : 1)));
    w->ipiv_n = d;
  }
  if (w->rpiv_n < d) {
    if (w->rpiv) HY_CUDA(cudaFree(w->rpiv));
    HY_CUDA(cudaMalloc((void **)&w->rpiv, sizeof(int) * (size_t)(d > 0 ? d : 1)));
    w->rpiv_n = d;
  }
  HY_CALL(c_getrf_rec_cols(be, sp, m, n, a, lda, 0, n, nbmin > 0 ? nbmin : 1, base, w->rpiv));
  cudaStream_t stream = strm(be);
  if (sp) diagmin_k<float><<<1, 512, 0, stream>>>((const float *)a, lda, d, w->red + 2);
  else diagmin_k<double><<<1, 512, 0, stream>>>((const double *)a, lda, d, w->red + 2);
  HY_CUDA_LAUNCH();
  double h[2];
  HY_CUDA(cudaMemcpyAsync(hipiv, w->rpiv, sizeof(int) * (size_t)d, cudaMemcpyDeviceToHost, stream));
  HY_CUDA(cudaMemcpyAsync(h, w->red + 2, 2 * sizeof(double), cudaMemcpyDeviceToHost, stream));
  HY_CUDA(cudaStreamSynchronize(stream));
  *minpiv = h[0];
  *minidx = (int64_t)h[1];
  *info = h[0] == 0 ? (int)*minidx + 1 : 0;   /* the first exact zero pivot (lowest column) */
  return HY_OK;
}

/* getrf_dev: st[0] = the first exact zero pivot's column + 1 (info: the vendor's getrf; NULL:
 * from the smallest |u_jj| in st[1], its column in st[2]).  One thread.  Device. */
__global__ void getrf_stat_k(double *st, const int *info) {
  st[0] = info ? (double)*info : (st[1] == 0 ? st[2] + 1 : 0);
}

/* Panel LU with its pivots and status left on the device (k_gauss_ops getrf_dev): the vendor's
 * getrf (nbmin = 0) or getrf_rec's recursion, no synchronisation.  Local. */
static int c_getrf_dev(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int nbmin,
                       int base, int *dpiv, double *dstat) {
  HY_CALL(scratch(be));
  if (m > 2147483647LL || lda > 2147483647LL)
    return hy_err(HY_EUSAGE, "cuSOLVER getrf: panel of %lld rows exceeds the 32-bit interface", (long long)m);
  gauss_cuda_ws *w = gw(be);
  cudaStream_t stream = strm(be);
  int d = (int)(m < n ? m : n);
  if (w->ipiv_n < d) {
    if (w->ipiv) HY_CUDA(cudaFree(w->ipiv));
    HY_CUDA(cudaMalloc((void **)&w->ipiv, sizeof(int) * (size_t)(d > 0 ? d : 1)));
    w->ipiv_n = d;
  }
  if (nbmin > 0) {
    HY_CALL(c_getrf_rec_cols(be, sp, m, n, a, lda, 0, n, nbmin, base, dpiv));
  } else if (d > 0) {
    cusolverDnHandle_t cs = cur_cusolver(be);
    int im = (int)m, in = (int)n, il = (int)lda, lwork = 0;
    if (sp) HY_CUSOLVER(cusolverDnSgetrf_bufferSize(cs, im, in, (float *)a, il, &lwork));
    else HY_CUSOLVER(cusolverDnDgetrf_bufferSize(cs, im, in, (double *)a, il, &lwork));
    HY_CALL(grow(&w->work, &w->work_bytes, (size_t)(lwork > 0 ? lwork : 1) * (sp ? 4 : 8)));
    if (sp) HY_CUSOLVER(cusolverDnSgetrf(cs, im, in, (float *)a, il, (float *)w->work, w->ipiv, w->info));
    else HY_CUSOLVER(cusolverDnDgetrf(cs, im, in, (double *)a, il, (double *)w->work, w->ipiv, w->info));
    piv_merge_k<<<nblocks(d, 128), 128, 0, stream>>>(dpiv, w->ipiv, d, 0);
  }
  if (sp) diagmin_k<float><<<1, 512, 0, stream>>>((const float *)a, lda, d, dstat + 1);
  else diagmin_k<double><<<1, 512, 0, stream>>>((const double *)a, lda, d, dstat + 1);
  getrf_stat_k<<<1, 1, 0, stream>>>(dstat, nbmin > 0 || d == 0 ? NULL : w->info);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The most pivots a swap plan handles (its four int arrays in 48 KB of shared memory, and one
 * FP64 column of 2 nswap rows in swap_apply_k's); beyond, swap_apply swaps in order.  */
#define C_PLAN_MAX 3072
/* Slots of a plan each of swap_plan_k's 1024 threads holds (2 C_PLAN_MAX / 1024). */
#define C_PLAN_SLOTS 6

/* The swap plan (k_gauss_ops swap_plan) in one block: each pivot's slot (a top row, or the
 * first occurrence of a row below: O(nswap^2) comparisons spread over the threads), the swaps
 * run once on the slots' contents by one thread in shared memory, then every used slot's row
 * and source row.  Device. */
__global__ void swap_plan_k(int nswap, int64_t m, const int *piv, int *plan) {
  extern __shared__ int shp[];
  int *sp = shp, *code = shp + nswap, *content = shp + 2 * nswap;
  int cap = 2 * nswap;
  for (int i = threadIdx.x; i < nswap; i += blockDim.x) {
    int p = piv[i];
    sp[i] = p < i || p >= m ? i : p;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nswap; i += blockDim.x) {
    int p = sp[i], j = 0;
    if (p >= nswap) {
      while (sp[j] != p) j++;
      p = nswap + j;
    }
    code[i] = p;
  }
  for (int v = threadIdx.x; v < cap; v += blockDim.x) content[v] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int i = 0; i < nswap; i++) {
      int c = code[i], t = content[i];
      content[i] = content[c];
      content[c] = t;
    }
  __syncthreads();
  /* each slot's row and source row (thread t: slots t + q blockDim), then the slots written in
   * the order of their rows (the top rows first, then the moved rows below in row order, the
   * unused ones last) and the read order: the used slots by source row, so that swap_apply's
   * warps read and write the scattered rows of a column in ascending order (neighbouring lanes
   * ~m / nswap rows apart instead of anywhere in the column) */
  int dv[C_PLAN_SLOTS], sv[C_PLAN_SLOTS];
#pragma unroll
  for (int q = 0; q < C_PLAN_SLOTS; q++) {
    int v = threadIdx.x + q * blockDim.x;
    dv[q] = -1;
    sv[q] = 0;
    if (v < cap) {
      int j = v - nswap, used = v < nswap || (sp[j] >= nswap && code[j] == v);
      int c = content[v];
      if (used) {
        dv[q] = v < nswap ? v : sp[j];
        sv[q] = c < nswap ? c : sp[c - nswap];
      }
    }
  }
  __syncthreads();   /* sp, code, content read for the last time */
  int *dd = shp, *ss = shp + cap;
#pragma unroll
  for (int q = 0; q < C_PLAN_SLOTS; q++) {
    int v = threadIdx.x + q * blockDim.x;
    if (v < cap) {
      dd[v] = dv[q];
      ss[v] = sv[q];
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < C_PLAN_SLOTS; q++) {
    int v = threadIdx.x + q * blockDim.x;
    if (v >= cap) continue;
    int d = dv[q], s = sv[q], rd = 0, rs = 0, nu = 0, uu = 0;
    for (int w = 0; w < cap; w++) {
      int dw = dd[w], uw = dw >= 0;
      rd += uw && dw < d;
      rs += uw && ss[w] < s;
      nu += uw;
      uu += !uw && w < v;
    }
    if (d >= 0) {
      plan[rd] = d;
      plan[cap + rd] = s;
      plan[2 * cap + rs] = rd;
    } else {
      int r = nu + uu;
      plan[r] = -1;
      plan[cap + r] = 0;
      plan[2 * cap + r] = r;
    }
  }
}

/* Build the swap plan on the current stream (nothing beyond C_PLAN_MAX).  Local. */
static int c_swap_plan(k_backend *be, int nswap, int64_t m, const int *dpiv, int *plan) {
  if (nswap <= 0 || nswap > C_PLAN_MAX) return HY_OK;
  swap_plan_k<<<1, 1024, (size_t)nswap * 4 * sizeof(int), strm(be)>>>(nswap, m, dpiv, plan);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* One block per tile of ct columns: every used slot's source row read into shared memory (in
 * the plan's read order: by source row, ascending down each column), then written to its row
 * (in slot order: by row).  Device. */
template <typename T>
__global__ void swap_apply_k(T *a, int64_t lda, int64_t ncols, int cap, int ct, const int *plan) {
  extern __shared__ unsigned char shraw2[];
  T *sh = (T *)shraw2;
  int64_t j0 = (int64_t)blockIdx.x * ct;
  int tot = cap * ct;
  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    int v = plan[2 * cap + t % cap], c = t / cap;   /* by source row */
    int d = plan[v], s = plan[cap + v];
    if (d >= 0 && d != s && j0 + c < ncols) sh[v + c * cap] = a[s + (j0 + c) * lda];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    int v = t % cap, c = t / cap;
    int d = plan[v], s = plan[cap + v];
    if (d >= 0 && d != s && j0 + c < ncols) a[d + (j0 + c) * lda] = sh[t];
  }
}

/* Apply the plan's swaps to ncols columns in one launch (k_gauss_ops swap_apply); beyond
 * C_PLAN_MAX pivots the swaps in order from dpiv.  Local. */
static int c_swap_apply(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nswap,
                        const int *dpiv, const int *plan) {
  if (ncols <= 0 || nswap <= 0) return HY_OK;
  cudaStream_t stream = strm(be);
  if (nswap > C_PLAN_MAX) {
    if (sp) laswp_dev_k<float><<<nblocks(ncols, 128), 128, 0, stream>>>((float *)a, lda, ncols, 0, nswap, dpiv);
    else laswp_dev_k<double><<<nblocks(ncols, 128), 128, 0, stream>>>((double *)a, lda, ncols, 0, nswap, dpiv);
    HY_CUDA_LAUNCH();
    return HY_OK;
  }
  size_t e = sp ? 4 : 8;
  int cap = 2 * nswap;
  int ct = (int)(40960 / ((size_t)cap * e));
  if (ct < 1) ct = 1;
  if (ct > 16) ct = 16;
  if ((int64_t)ct > ncols) ct = (int)ncols;
  size_t shm = (size_t)cap * ct * e;
  unsigned nbk = (unsigned)((ncols + ct - 1) / ct);
  if (sp) swap_apply_k<float><<<nbk, 256, shm, stream>>>((float *)a, lda, ncols, cap, ct, plan);
  else swap_apply_k<double><<<nbk, 256, shm, stream>>>((double *)a, lda, ncols, cap, ct, plan);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The device row list of the current stream (main or side: the two may run at once).  Local. */
static inline int *cur_rows(k_backend *be) {
  gauss_cuda_ws *w = gw(be);
  return w->cur_side == 1 ? w->rows_s : w->cur_side == 2 ? w->rows_x : w->rows;
}

/* Upload a host int list to the current stream's device row list.  Local. */
static int rows_upload(k_backend *be, const int *h, int n) {
  gauss_cuda_ws *w = gw(be);
  int **rp = w->cur_side == 1 ? &w->rows_s : w->cur_side == 2 ? &w->rows_x : &w->rows;
  int *have = w->cur_side == 1 ? &w->rows_s_n : w->cur_side == 2 ? &w->rows_x_n : &w->rows_n;
  if (*have < n) {
    if (*rp) HY_CUDA(cudaFree(*rp));
    HY_CUDA(cudaMalloc((void **)rp, sizeof(int) * (size_t)n));
    *have = n;
  }
  HY_CUDA(cudaMemcpyAsync(*rp, h, sizeof(int) * (size_t)n, cudaMemcpyHostToDevice, strm(be)));
  HY_CUDA(cudaStreamSynchronize(strm(be)));   /* h may be reused by the caller */
  return HY_OK;
}

/* Row swaps: one thread per column, swaps in order; a warp handles 32 columns. */
template <typename T>
__global__ void laswp_k(T *a, int64_t lda, int64_t ncols, int nswap, const int *ipiv) {
  int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (j >= ncols) return;
  T *c = a + j * lda;
  for (int i = 0; i < nswap; i++) {
    int p = ipiv[i];
    if (p != i) { T t = c[i]; c[i] = c[p]; c[p] = t; }
  }
}

/* Sequence of row swaps on ncols columns.  Local. */
static int c_laswp(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nswap,
                   const int *hipiv) {
  if (ncols <= 0 || nswap <= 0) return HY_OK;
  HY_CALL(rows_upload(be, hipiv, nswap));
  if (sp) laswp_k<float><<<nblocks(ncols, 128), 128, 0, strm(be)>>>((float *)a, lda, ncols, nswap, cur_rows(be));
  else laswp_k<double><<<nblocks(ncols, 128), 128, 0, strm(be)>>>((double *)a, lda, ncols, nswap, cur_rows(be));
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* One block per tile of ct columns: read the ns rows into shared memory, write them permuted. */
template <typename T>
__global__ void rows_perm_k(T *a, int64_t lda, int64_t ncols, int ns, int ct, const int *rows,
                            const int *src) {
  extern __shared__ unsigned char shraw[];
  T *sh = (T *)shraw;
  int64_t j0 = (int64_t)blockIdx.x * ct;
  int tot = ns * ct;
  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    int r = t % ns, c = t / ns;
    if (j0 + c < ncols) sh[t] = a[rows[r] + (j0 + c) * lda];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    int r = t % ns, c = t / ns;
    if (j0 + c < ncols) a[rows[r] + (j0 + c) * lda] = sh[src[r] + c * ns];
  }
}

/* Permute rows in place (one pass, no sequential swaps).  Local. */
static int c_rows_perm(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int ns,
                       const int *hrows, const int *hsrc) {
  if (ncols <= 0 || ns <= 0) return HY_OK;
  int *h = (int *)malloc(sizeof(int) * (size_t)(2 * ns));
  if (!h) return hy_err(HY_ESYS, "out of memory");
  memcpy(h, hrows, sizeof(int) * (size_t)ns);
  memcpy(h + ns, hsrc, sizeof(int) * (size_t)ns);
  int rc = rows_upload(be, h, 2 * ns);
  free(h);
  if (rc != HY_OK) return rc;
  size_t e = sp ? 4 : 8;
  int ct = (int)(40000 / ((size_t)ns * e));
  if (ct < 1) ct = 1;
  if (ct > 16) ct = 16;
  size_t shm = (size_t)ns * ct * e;
  if (shm > 48 * 1024) return hy_err(HY_EUSAGE, "row permutation of %d rows exceeds shared memory", ns);
  unsigned nbk = (unsigned)((ncols + ct - 1) / ct);
  if (sp) rows_perm_k<float><<<nbk, 256, shm, strm(be)>>>((float *)a, lda, ncols, ns, ct, cur_rows(be), cur_rows(be) + ns);
  else rows_perm_k<double><<<nbk, 256, shm, strm(be)>>>((double *)a, lda, ncols, ns, ct, cur_rows(be), cur_rows(be) + ns);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* Gather (put = 0) or scatter (put = 1) listed rows to/from a column-major buffer.  Device. */
template <typename T>
__global__ void rows_move_k(T *a, int64_t lda, int64_t ncols, int nrows, const int *rows, T *buf, int put) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= ncols * nrows) return;
  int64_t r = t % nrows, j = t / nrows;
  T *x = a + rows[r] + j * lda;
  if (put) *x = buf[r + j * nrows];
  else buf[r + j * nrows] = *x;
}

/* Gather rows into a column-major buffer.  Local. */
static int c_rows_get(k_backend *be, int sp, const void *a, int64_t lda, int64_t ncols, int nrows,
                      const int *hrows, void *buf) {
  if (ncols <= 0 || nrows <= 0) return HY_OK;
  HY_CALL(rows_upload(be, hrows, nrows));
  int64_t tot = ncols * nrows;
  if (sp) rows_move_k<float><<<nblocks(tot, 256), 256, 0, strm(be)>>>((float *)a, lda, ncols, nrows, cur_rows(be), (float *)buf, 0);
  else rows_move_k<double><<<nblocks(tot, 256), 256, 0, strm(be)>>>((double *)a, lda, ncols, nrows, cur_rows(be), (double *)buf, 0);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* Scatter rows from a column-major buffer.  Local. */
static int c_rows_put(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nrows,
                      const int *hrows, const void *buf) {
  if (ncols <= 0 || nrows <= 0) return HY_OK;
  HY_CALL(rows_upload(be, hrows, nrows));
  int64_t tot = ncols * nrows;
  if (sp) rows_move_k<float><<<nblocks(tot, 256), 256, 0, strm(be)>>>((float *)a, lda, ncols, nrows, cur_rows(be), (float *)buf, 1);
  else rows_move_k<double><<<nblocks(tot, 256), 256, 0, strm(be)>>>((double *)a, lda, ncols, nrows, cur_rows(be), (double *)buf, 1);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The m x m identity.  Device. */
template <typename T>
__global__ void eye_k(T *a, int64_t m) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < m * m) a[t] = (t % m == t / m) ? (T)1 : (T)0;
}

/* The diagonal blocks of LINV_B rows of the inverse of a unit lower triangular matrix. */
#define LINV_B 32

/* Diagonal block blockIdx.x (rows [r0, r0 + b), b = min(LINV_B, m - r0)) of X = L^-1, L unit
 * lower (ld ldl; its diagonal and upper part not read), into inv (ld ldi): thread j forms column
 * j by forward substitution on e_j, X(i, j) = -sum_{k < i} L(i, k) X(k, j) for i > j, every
 * thread through the same (i, k) (L(i, k) one broadcast, X(k, j) = 0 above the diagonal), so the
 * loops run in step; the block's upper part written as zeros.  Device. */
__global__ void __launch_bounds__(LINV_B) linv_base_k(const double *l, int64_t ldl, int m, double *inv,
                                                      int64_t ldi) {
  __shared__ double sl[LINV_B * (LINV_B + 1)];
  __shared__ double sx[LINV_B * (LINV_B + 1)];
  const int ls = LINV_B + 1;
  int r0 = blockIdx.x * LINV_B, b = m - r0 < LINV_B ? m - r0 : LINV_B, j = threadIdx.x;
  for (int c = 0; c < b; c++)
    if (j < b) sl[j + c * ls] = j > c ? l[(int64_t)(r0 + j) + (int64_t)(r0 + c) * ldl] : 0.0;
  __syncthreads();
  if (j < b) {
    for (int i = 0; i <= j; i++) sx[i + j * ls] = i == j ? 1.0 : 0.0;
    for (int i = 1; i < b; i++) {
      double s = 0;
      for (int k = 0; k < i; k++) s += sl[i + k * ls] * sx[k + j * ls];
      if (i > j) sx[i + j * ls] = -s;
    }
  }
  __syncthreads();
  for (int c = 0; c < b; c++)
    if (j < b) inv[(int64_t)(r0 + j) + (int64_t)(r0 + c) * ldi] = sx[j + c * ls];
}

/* inv (m x m, ld m) = L^-1 for L unit lower m x m (ld ldl), FP64, in a few launches: the
 * diagonal blocks of LINV_B rows by linv_base_k, then by level s = LINV_B, 2 LINV_B, ... each
 * pair of consecutive inverted diagonal blocks [X11 0; . X22] of L's [L11 0; L21 L22] completed
 * by X21 = -X22 (L21 X11) (two GEMMs; the full pairs of a level in one strided batched GEMM
 * each, a last shorter pair by plain GEMMs), as LAPACK's blocked trtri; the upper part zero.
 * t: m * m doubles of scratch.  Queued on the current stream.  Local. */
static int linv_fp64(k_backend *be, int64_t m, const double *l, int64_t ldl, double *inv, double *t) {
  cudaStream_t st = strm(be);
  cublasHandle_t h = cur_cublas(be);
  const double one = 1, mone = -1, zero = 0;
  HY_CUDA(cudaMemsetAsync(inv, 0, (size_t)(m * m) * sizeof(double), st));
  linv_base_k<<<nblocks(m, LINV_B), LINV_B, 0, st>>>(l, ldl, (int)m, inv, m);
  HY_CUDA_LAUNCH();
  int im = (int)m, il = (int)ldl;
  for (int64_t s = LINV_B; s < m; s *= 2) {
    int64_t np = m / (2 * s), r0 = 2 * np * s, rem = m - r0;
    int is = (int)s;
    if (np > 0) {
      /* pair p: rows and columns [2 p s, 2 p s + 2 s); T_p = L21_p X11_p, X21_p = -X22_p T_p */
      HY_CUBLAS(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, is, is, is, &one, l + s, il,
                                          2 * s * (ldl + 1), inv, im, 2 * s * (m + 1), &zero, t, is, s * s,
                                          (int)np));
      HY_CUBLAS(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, is, is, is, &mone, inv + s * (m + 1), im,
                                          2 * s * (m + 1), t, is, s * s, &zero, inv + s, im, 2 * s * (m + 1),
                                          (int)np));
    }
    if (rem > s) {
      /* the last pair: a full block of s and one of r2 < s rows */
      int r2 = (int)(rem - s);
      HY_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, r2, is, is, &one, l + (r0 + s) + r0 * ldl, il,
                            inv + r0 * (m + 1), im, &zero, t, r2));
      HY_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, r2, is, r2, &mone, inv + (r0 + s) * (m + 1), im, t, r2,
                            &zero, inv + (r0 + s) + r0 * m, im));
    }
  }
  return HY_OK;
}

/* B = L^-1 B (unit lower).  A wide B goes through L^-1 and one GEMM, which runs at GEMM speed:
 * FP64 (m >= 128, n >= m; on the lookahead side stream n >= 2 m: the panel's own TRSMs stay
 * cuBLAS's) with L^-1 by linv_fp64 (a few launches; cuBLAS's TRSM of the identity took ~1.5 ms
 * at m = 1024), FP32 (m >= 128, n >= 2 m) by a small TRSM on the identity; else cuBLAS TRSM.
 * Each stream has its own buffers; the aux stream keeps L^-1 for the step's other chunks (the
 * same L until the next K_GAUSS_AUX_ENTER / _PANEL), the main stream for the step's second solve
 * with the same L (the lookahead columns', then the rest's: between K_GAUSS_AUX_LSTEP 1 and 0).
 * Local. */
static int c_trsm_lunit(k_backend *be, int sp, int64_t m, int64_t n, const void *l, int64_t ldl,
                        void *b, int64_t ldb) {
  if (m <= 0 || n <= 0) return HY_OK;
  cublasHandle_t h = cur_cublas(be);
  gauss_cuda_ws *w = gw(be);
  size_t e = sp ? 4 : 8;
  int sid = w->cur_side, ax = sid == 2;
  int via = m >= 128 && (!sp && sid != 1 ? n >= m : n >= 2 * m) && m <= 32768;
  if (via) {
    HY_CALL(grow(&w->tl_inv[sid], &w->tl_inv_b[sid], (size_t)(m * m) * e));
    HY_CALL(grow(&w->tl_tmp[sid], &w->tl_tmp_b[sid], (size_t)(m * n) * e));
    void *linv = w->tl_inv[sid], *tmp = w->tl_tmp[sid];
    int have = ax && w->linv_x_l == l && w->linv_x_m == m && w->linv_x_ld == ldl;
    if (sid == 0 && w->linv_m_on)
      have = w->linv_m_l == l && w->linv_m_m == m && w->linv_m_ld == ldl && w->linv_m_sp == sp;
    if (sp) {
      float one = 1, zero = 0;
      if (!have) {
        eye_k<float><<<nblocks(m * m, 256), 256, 0, strm(be)>>>((float *)linv, m);
        HY_CUDA_LAUNCH();
        HY_CUBLAS(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT,
                              (int)m, (int)m, &one, (const float *)l, (int)ldl, (float *)linv, (int)m));
      }
      HY_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)m, &one, (const float *)linv,
                            (int)m, (const float *)b, (int)ldb, &zero, (float *)tmp, (int)m));
    } else {
      double one = 1, zero = 0;
      if (!have) {
        HY_CALL(grow(&w->tl_t[sid], &w->tl_t_b[sid], (size_t)(m * m) * e));
        HY_CALL(linv_fp64(be, m, (const double *)l, ldl, (double *)linv, (double *)w->tl_t[sid]));
      }
      HY_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)m, &one, (const double *)linv,
                            (int)m, (const double *)b, (int)ldb, &zero, (double *)tmp, (int)m));
    }
    if (ax) {
      w->linv_x_l = l;
      w->linv_x_m = m;
      w->linv_x_ld = ldl;
    }
    if (sid == 0 && w->linv_m_on) {
      w->linv_m_l = l;
      w->linv_m_m = m;
      w->linv_m_ld = ldl;
      w->linv_m_sp = sp;
    }
    HY_CUDA(cudaMemcpy2DAsync(b, (size_t)ldb * e, tmp, (size_t)m * e, (size_t)m * e, (size_t)n,
                              cudaMemcpyDeviceToDevice, strm(be)));
    return HY_OK;
  }
  if (sp) {
    float one = 1;
    HY_CUBLAS(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT,
                          (int)m, (int)n, &one, (const float *)l, (int)ldl, (float *)b, (int)ldb));
  } else {
    double one = 1;
    HY_CUBLAS(cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT,
                          (int)m, (int)n, &one, (const double *)l, (int)ldl, (double *)b, (int)ldb));
  }
  return HY_OK;
}

/* C -= A B, cuBLAS GEMM.  Local. */
static int c_gemm_sub(k_backend *be, int sp, int64_t m, int64_t n, int64_t k, const void *a,
                      int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return HY_OK;
  cublasHandle_t h = cur_cublas(be);
  if (sp) {
    float mone = -1, one = 1;
    HY_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &mone, (const float *)a,
                          (int)lda, (const float *)b, (int)ldb, &one, (float *)c, (int)ldc));
  } else {
    double mone = -1, one = 1;
    HY_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &mone, (const double *)a,
                          (int)lda, (const double *)b, (int)ldb, &one, (double *)c, (int)ldc));
  }
  return HY_OK;
}

/* x = T^-1 x, cuBLAS TRSV.  Local. */
static int c_trsv(k_backend *be, int sp, int upper, int64_t n, const void *t, int64_t ldt, void *x) {
  if (n <= 0) return HY_OK;
  cublasHandle_t h = cur_cublas(be);
  cublasFillMode_t fm = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cublasDiagType_t dg = upper ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT;
  if (sp) HY_CUBLAS(cublasStrsv(h, fm, CUBLAS_OP_N, dg, (int)n, (const float *)t, (int)ldt, (float *)x, 1));
  else HY_CUBLAS(cublasDtrsv(h, fm, CUBLAS_OP_N, dg, (int)n, (const double *)t, (int)ldt, (double *)x, 1));
  return HY_OK;
}

/* y += A x, cuBLAS GEMV.  Local. */
static int c_gemv_add(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                      const void *x, void *y) {
  if (m <= 0 || n <= 0) return HY_OK;
  cublasHandle_t h = cur_cublas(be);
  if (sp) {
    float one = 1;
    HY_CUBLAS(cublasSgemv(h, CUBLAS_OP_N, (int)m, (int)n, &one, (const float *)a, (int)lda,
                          (const float *)x, 1, &one, (float *)y, 1));
  } else {
    double one = 1;
    HY_CUBLAS(cublasDgemv(h, CUBLAS_OP_N, (int)m, (int)n, &one, (const double *)a, (int)lda,
                          (const double *)x, 1, &one, (double *)y, 1));
  }
  return HY_OK;
}

/* y -= A x, cuBLAS GEMV on the current stream.  Local. */
static int c_gemv_sub(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                      const void *x, void *y) {
  if (m <= 0 || n <= 0) return HY_OK;
  cublasHandle_t h = cur_cublas(be);
  if (sp) {
    float mone = -1, one = 1;
    HY_CUBLAS(cublasSgemv(h, CUBLAS_OP_N, (int)m, (int)n, &mone, (const float *)a, (int)lda,
                          (const float *)x, 1, &one, (float *)y, 1));
  } else {
    double mone = -1, one = 1;
    HY_CUBLAS(cublasDgemv(h, CUBLAS_OP_N, (int)m, (int)n, &mone, (const double *)a, (int)lda,
                          (const double *)x, 1, &one, (double *)y, 1));
  }
  return HY_OK;
}

/* Device -> host 2D copy (synchronous for the caller).  Local. */
static int c_d2h_2d(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda, void *h,
                    int64_t ldh) {
  if (m <= 0 || n <= 0) return HY_OK;
  size_t e = sp ? 4 : 8;
  HY_CUDA(cudaMemcpy2DAsync(h, (size_t)ldh * e, a, (size_t)lda * e, (size_t)m * e, (size_t)n,
                            cudaMemcpyDeviceToHost, strm(be)));
  HY_CUDA(cudaStreamSynchronize(strm(be)));
  return HY_OK;
}

/* Host -> device 2D copy (the host buffer is free again on return).  Local. */
static int c_h2d_2d(k_backend *be, int sp, int64_t m, int64_t n, const void *h, int64_t ldh, void *a,
                    int64_t lda) {
  if (m <= 0 || n <= 0) return HY_OK;
  size_t e = sp ? 4 : 8;
  HY_CUDA(cudaMemcpy2DAsync(a, (size_t)lda * e, h, (size_t)ldh * e, (size_t)m * e, (size_t)n,
                            cudaMemcpyHostToDevice, strm(be)));
  HY_CUDA(cudaStreamSynchronize(strm(be)));
  return HY_OK;
}

/* Precision conversion of a column-major block.  Device. */
template <typename S, typename D>
__global__ void convert_k(int64_t m, int64_t n, const S *src, int64_t lds, D *dst, int64_t ldd) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= m * n) return;
  int64_t i = t % m, j = t / m;
  dst[i + j * ldd] = (D)src[i + j * lds];
}

/* FP64 <-> FP32 conversion of a block.  Local. */
static int c_convert(k_backend *be, int to_sp, int64_t m, int64_t n, const void *src, int64_t lds,
                     void *dst, int64_t ldd) {
  if (m <= 0 || n <= 0) return HY_OK;
  int64_t tot = m * n;
  if (to_sp) convert_k<double, float><<<nblocks(tot, 256), 256, 0, strm(be)>>>(m, n, (const double *)src, lds, (float *)dst, ldd);
  else convert_k<float, double><<<nblocks(tot, 256), 256, 0, strm(be)>>>(m, n, (const float *)src, lds, (double *)dst, ldd);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* TF32 tensor-core math for FP32 cuBLAS calls on both handles.  Local. */
/* A rows x cols FP32 block to a packed BF16 (T = __nv_bfloat16) or FP16 (__half) copy, round to
 * nearest even.  Device. */
__device__ inline void put_low(__half *r, float v) { *r = __float2half_rn(v); }
__device__ inline void put_low(__nv_bfloat16 *r, float v) { *r = __float2bfloat16_rn(v); }
template <typename T>
__global__ void to_low_k(int64_t rows, int64_t cols, const float *a, int64_t lda, T *r) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= rows * cols) return;
  int64_t i = t % rows, j = t / rows;
  put_low(r + t, a[i + j * lda]);
}

/* C -= A B, FP32 data, the inputs rounded to low: TF32 through cublasGemmEx's TF32 compute
 * type; BF16 / FP16 converted to packed copies then cublasGemmEx with FP32 accumulation (tensor
 * cores); low = 0: exact FP32 (c_gemm_sub).  Local. */
static int c_gemm_sub_low(k_backend *be, int low, int64_t m, int64_t n, int64_t k, const float *a,
                          int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return HY_OK;
  if (low == 0) return c_gemm_sub(be, 1, m, n, k, a, lda, b, ldb, c, ldc);
  cublasHandle_t h = cur_cublas(be);
  float mone = -1, one = 1;
  if (low == 1) {
    HY_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &mone, a, CUDA_R_32F,
                           (int)lda, b, CUDA_R_32F, (int)ldb, &one, c, CUDA_R_32F, (int)ldc,
                           CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    return HY_OK;
  }
  gauss_cuda_ws *w = gw(be);
  HY_CALL(grow(&w->lowa, &w->lowa_bytes, (size_t)(m * k) * 2));
  HY_CALL(grow(&w->lowb, &w->lowb_bytes, (size_t)(k * n) * 2));
  cudaDataType_t t = low == 2 ? CUDA_R_16BF : CUDA_R_16F;
  if (low == 2) {
    to_low_k<__nv_bfloat16><<<nblocks(m * k, 256), 256, 0, strm(be)>>>(m, k, a, lda, (__nv_bfloat16 *)w->lowa);
    to_low_k<__nv_bfloat16><<<nblocks(k * n, 256), 256, 0, strm(be)>>>(k, n, b, ldb, (__nv_bfloat16 *)w->lowb);
  } else {
    to_low_k<__half><<<nblocks(m * k, 256), 256, 0, strm(be)>>>(m, k, a, lda, (__half *)w->lowa);
    to_low_k<__half><<<nblocks(k * n, 256), 256, 0, strm(be)>>>(k, n, b, ldb, (__half *)w->lowb);
  }
  HY_CUDA_LAUNCH();
  HY_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &mone, w->lowa, t,
                         (int)m, w->lowb, t, (int)k, &one, c, CUDA_R_32F, (int)ldc,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return HY_OK;
}

/* dst (ld ldd) = the m x n FP32 block src rounded to BF16 (low 2) or FP16 (low 3), round to
 * nearest even, on the current gauss stream.  Local. */
/* (a 2D grid: x over the rows, y over the columns, each y block striding by gridDim.y: no 64-bit
 * division per element, which held the H200's 98304 run at ~90 ms of copies for ~58 GB) */
template <typename T>
__global__ void to_low_ld_k(int64_t rows, int64_t cols, const float *a, int64_t lda, T *r, int64_t ldr) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (int64_t j = blockIdx.y; j < cols; j += gridDim.y) put_low(r + i + j * ldr, a[i + j * lda]);
}

static int c_to_low(k_backend *be, int low, int64_t m, int64_t n, const float *src, int64_t lds,
                    void *dst, int64_t ldd) {
  if (m <= 0 || n <= 0) return HY_OK;
  dim3 grid(nblocks(m, 256), (unsigned)(n < 65535 ? n : 65535));
  if (low == 2)
    to_low_ld_k<__nv_bfloat16><<<grid, 256, 0, strm(be)>>>(m, n, src, lds, (__nv_bfloat16 *)dst, ldd);
  else if (low == 3)
    to_low_ld_k<__half><<<grid, 256, 0, strm(be)>>>(m, n, src, lds, (__half *)dst, ldd);
  else
    return hy_err(HY_ESYS, "gauss to_low: low = %d has no 16-bit storage (2: bf16, 3: fp16)", low);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* C -= A B, A and B BF16 / FP16 from c_to_low, FP32 accumulation on tensor cores.  Local. */
static int c_gemm_sub_lowp(k_backend *be, int low, int64_t m, int64_t n, int64_t k, const void *a,
                           int64_t lda, const void *b, int64_t ldb, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return HY_OK;
  if (low != 2 && low != 3)
    return hy_err(HY_ESYS, "gauss gemm_sub_lowp: low = %d has no 16-bit storage (2: bf16, 3: fp16)", low);
  float mone = -1, one = 1;
  cudaDataType_t t = low == 2 ? CUDA_R_16BF : CUDA_R_16F;
  HY_CUBLAS(cublasGemmEx(cur_cublas(be), CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &mone, a,
                         t, (int)lda, b, t, (int)ldb, &one, c, CUDA_R_32F, (int)ldc,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return HY_OK;
}

static int c_tensor(k_backend *be, int on) {
  cublasMath_t m = on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
  HY_CUBLAS(cublasSetMathMode(k_cuda_st(be)->cublas, m));
  if (!gw(be)->side_on) HY_CALL(c_stream_ctl(be, 0));
  HY_CUBLAS(cublasSetMathMode(gw(be)->cb_side, m));
  for (int i = 0; i < 2; i++)
    if (gw(be)->aux_on[i]) HY_CUBLAS(cublasSetMathMode(gw(be)->cb_aux[i], m));
  return HY_OK;
}

/* Free device memory now.  Local. */
static int c_mem_free(k_backend *be, size_t *bytes) {
  size_t fr = 0, tot = 0;
  HY_CUDA(cudaMemGetInfo(&fr, &tot));
  *bytes = fr;
  return HY_OK;
}

/* cuSOLVER dgetrf + dgetrs on fresh copies of a0 (the copy untimed): one full-size warm-up
 * (first calls, lazy module loading, workspace), then reps timed runs by events.  Local. */
static int c_ref_lu(k_backend *be, int64_t n, const double *a0, const double *b, double *x, int reps,
                    double tf[2], double ts[2], int *info) {
  k_cuda_state *st = k_cuda_st(be);
  if (n > 2147483647LL) return hy_err(HY_EUSAGE, "cuSOLVER getrf: n too large");
  int in = (int)n, lwork = 0;
  double *work = NULL, *a = NULL;
  int *ipiv = NULL, *dinfo = NULL;
  HY_CUDA(cudaMalloc((void **)&a, sizeof(double) * (size_t)(n * n)));
  HY_CUSOLVER(cusolverDnDgetrf_bufferSize(st->cusolver, in, in, a, in, &lwork));
  HY_CUDA(cudaMalloc((void **)&work, sizeof(double) * (size_t)(lwork > 0 ? lwork : 1)));
  HY_CUDA(cudaMalloc((void **)&ipiv, sizeof(int) * (size_t)n));
  HY_CUDA(cudaMalloc((void **)&dinfo, sizeof(int)));
  cudaEvent_t e0, e1, e2;
  HY_CUDA(cudaEventCreate(&e0));
  HY_CUDA(cudaEventCreate(&e1));
  HY_CUDA(cudaEventCreate(&e2));
  tf[0] = ts[0] = 1e30;
  tf[1] = ts[1] = 0;
  for (int r = -1; r < reps; r++) {
    HY_CUDA(cudaMemcpyAsync(a, a0, sizeof(double) * (size_t)(n * n), cudaMemcpyDeviceToDevice, st->stream));
    HY_CUDA(cudaMemcpyAsync(x, b, sizeof(double) * (size_t)n, cudaMemcpyDeviceToDevice, st->stream));
    HY_CUDA(cudaEventRecord(e0, st->stream));
    HY_CUSOLVER(cusolverDnDgetrf(st->cusolver, in, in, a, in, work, ipiv, dinfo));
    HY_CUDA(cudaEventRecord(e1, st->stream));
    HY_CUSOLVER(cusolverDnDgetrs(st->cusolver, CUBLAS_OP_N, in, 1, a, in, ipiv, x, in, dinfo));
    HY_CUDA(cudaEventRecord(e2, st->stream));
    HY_CUDA(cudaEventSynchronize(e2));
    float ms1 = 0, ms2 = 0;
    HY_CUDA(cudaEventElapsedTime(&ms1, e0, e1));
    HY_CUDA(cudaEventElapsedTime(&ms2, e1, e2));
    if (r < 0) continue;   /* the warm-up */
    if (ms1 * 1e-3 < tf[0]) tf[0] = ms1 * 1e-3;
    if (ms2 * 1e-3 < ts[0]) ts[0] = ms2 * 1e-3;
    tf[1] += ms1 * 1e-3 / reps;
    ts[1] += ms2 * 1e-3 / reps;
  }
  HY_CUDA(cudaMemcpy(info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaEventDestroy(e2);
  HY_CUDA(cudaFree(work));
  HY_CUDA(cudaFree(a));
  HY_CUDA(cudaFree(ipiv));
  HY_CUDA(cudaFree(dinfo));
  return HY_OK;
}

/* Deterministic values in [-0.5, 0.5) for the timed DGEMM.  Device. */
__global__ void fill_k(double *x, int64_t n, double s) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = (double)((i * 2654435761LL + (int64_t)(s * 7)) % 1000) / 1000.0 - 0.5;
}

/* cuBLAS DGEMM of order n: a warm-up, then reps timed by events.  Local. */
static int c_gemm_time(k_backend *be, int64_t n, int reps, double t[2]) {
  k_cuda_state *st = k_cuda_st(be);
  double *a = NULL, *b = NULL, *c = NULL;
  size_t nn = (size_t)(n * n);
  HY_CUDA(cudaMalloc((void **)&a, nn * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&b, nn * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&c, nn * sizeof(double)));
  fill_k<<<nblocks((int64_t)nn, 256), 256, 0, st->stream>>>(a, (int64_t)nn, 1);
  fill_k<<<nblocks((int64_t)nn, 256), 256, 0, st->stream>>>(b, (int64_t)nn, 2);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemsetAsync(c, 0, nn * sizeof(double), st->stream));
  cudaEvent_t e0, e1;
  HY_CUDA(cudaEventCreate(&e0));
  HY_CUDA(cudaEventCreate(&e1));
  t[0] = 1e30;
  t[1] = 0;
  for (int r = -1; r < reps; r++) {
    HY_CUDA(cudaEventRecord(e0, st->stream));
    HY_CALL(c_gemm_sub(be, 0, n, n, n, a, n, b, n, c, n));
    HY_CUDA(cudaEventRecord(e1, st->stream));
    HY_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    HY_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (r < 0) continue;
    if (ms * 1e-3 < t[0]) t[0] = ms * 1e-3;
    t[1] += ms * 1e-3 / reps;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  HY_CUDA(cudaFree(a));
  HY_CUDA(cudaFree(b));
  HY_CUDA(cudaFree(c));
  return HY_OK;
}

/* ---------------------------------------------------------------- device collectives */
/* Device copy of an m x n column-major block (lda -> ldb) on the current stream.  Local. */
static int c_copy_2d(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda, void *b,
                     int64_t ldb) {
  if (m <= 0 || n <= 0) return HY_OK;
  size_t e = sp ? 4 : 8;
  HY_CUDA(cudaMemcpy2DAsync(b, (size_t)ldb * e, a, (size_t)lda * e, (size_t)m * e, (size_t)n,
                            cudaMemcpyDeviceToDevice, strm(be)));
  return HY_OK;
}

/* auto block size on a GPU: GEMM-sized blocks (1024 for FP64 from n = 32768, 1536 from 65536), one panel up to
 * n = 1024 (there the run is latency bound and extra steps only add launches).  Local. */
static int64_t c_nb_auto(int64_t n, int lowp) {
  if (n <= 1024) return n > 0 ? n : 1;
  /* FP64 from n = 32768 on: nb 1024 (H200, 21:35: n = 65536 43.4 TF against 41.3 at 512; n =
   * 32768 34.9 against 34.5); FP32 factors (mixed, HPL-MxP) from n = 65536 (00:34: HPL-MxP FP16
   * 65536 fused panel 175.4 TF-eq at 1024 against 146.4 at 512; vendor panel 190.7 at 22:00
   * against 156.6); below, 512 */
  if (lowp) return n >= 65536 ? 1024 : 512;
  /* FP64 from n = 65536: nb 1536 (H200 mid run 07:25, b8a85d5, traced, repeat 2: 46.13 TF against
   * 45.54 at 1024 and 46.07 at 2048: the trailing GEMM 3448 ms at K 1536 against 3566 at 1024 -
   * cuBLAS's DGEMM at the first step's shape 53.8 TF against 52.1 - more than the panels' and the
   * TRSM's growth; n = 32768 stays at 1024: 38.61 TF against 37.84 at 1536) */
  if (n >= 65536) return 1536;
  return n >= 32768 ? 1024 : 512;
}

/* The small-n LU (gauss_small_cuda.cu; k_gauss_ops getrf_small / getrs_small). */
extern "C" int k_cuda_small_getrf(k_backend *be, int kind, int64_t n, double *a, int64_t lda, int *dpiv,
                                  int *info, double *minpiv, int64_t *minidx);
extern "C" int k_cuda_small_getrs(k_backend *be, int kind, int64_t n, const double *a, int64_t lda,
                                  const int *dpiv, double *x);

/* gauss.trace's marks: one timing event each, recorded on the stream current at the mark. */
typedef struct {
  int n;
  cudaEvent_t *ev;
  unsigned char *rec;   /* recorded since the open */
} c_trace;

/* A set of nmark events, none recorded.  Local. */
static int c_trace_open(k_backend *be, int nmark, void **tr) {
  (void)be;
  c_trace *c = (c_trace *)calloc(1, sizeof *c);
  if (!c) hy_fatal(HY_ESYS, "out of memory (gauss trace)");
  c->n = nmark > 0 ? nmark : 1;
  c->ev = (cudaEvent_t *)calloc((size_t)c->n, sizeof(cudaEvent_t));
  c->rec = (unsigned char *)calloc((size_t)c->n, 1);
  if (!c->ev || !c->rec) hy_fatal(HY_ESYS, "out of memory (gauss trace)");
  for (int i = 0; i < c->n; i++) HY_CUDA(cudaEventCreate(&c->ev[i]));
  *tr = c;
  return HY_OK;
}

/* Record mark i on the current gauss stream (queued, no synchronisation).  Local. */
static int c_trace_mark(k_backend *be, void *tr, int i) {
  c_trace *c = (c_trace *)tr;
  if (i < 0 || i >= c->n) return hy_err(HY_ESYS, "gauss trace: mark %d outside 0..%d", i, c->n - 1);
  HY_CUDA(cudaEventRecord(c->ev[i], strm(be)));
  c->rec[i] = 1;
  return HY_OK;
}

/* Wait for every recorded mark; t[i] = seconds from mark 0 to mark i (NAN: not recorded).
 * Local. */
static int c_trace_read(k_backend *be, void *tr, double *t) {
  (void)be;
  c_trace *c = (c_trace *)tr;
  if (!c->rec[0]) return hy_err(HY_ESYS, "gauss trace: mark 0 not recorded");
  for (int i = 0; i < c->n; i++)
    if (c->rec[i]) HY_CUDA(cudaEventSynchronize(c->ev[i]));
  for (int i = 0; i < c->n; i++) {
    float ms = 0;
    if (!c->rec[i]) { t[i] = NAN; continue; }
    HY_CUDA(cudaEventElapsedTime(&ms, c->ev[0], c->ev[i]));
    t[i] = ms * 1e-3;
  }
  return HY_OK;
}

/* Free the events.  Local. */
static void c_trace_close(k_backend *be, void *tr) {
  (void)be;
  c_trace *c = (c_trace *)tr;
  if (!c) return;
  for (int i = 0; i < c->n; i++) cudaEventDestroy(c->ev[i]);
  free(c->ev);
  free(c->rec);
  free(c);
}

/* (positional: nvcc's C++ has no designated initializers; the order of k_gauss_ops) */
extern "C" const k_gauss_ops k_gauss_cuda_ops = {
  1, 'G', "GPU", "cuSOLVER", "cuBLAS", c_nb_auto,
  c_row_scale, c_rank1, c_col_zero, c_col_absmax, c_swap,
  c_getrf, c_laswp, c_rows_perm, c_rows_get, c_rows_put, c_trsm_lunit, c_gemm_sub, c_trsv, c_gemv_add,
  c_d2h_2d, c_h2d_2d, c_convert, c_stream_ctl, c_tensor,
  c_mem_free, c_ref_lu, c_gemm_time,
  c_copy_2d, c_gemm_sub_low,
  { 4, 4, 2, 2 }, c_to_low, c_gemm_sub_lowp,
  c_getrf_rec,
  c_getrf_dev, c_swap_plan, c_swap_apply,
  2048, 1024, k_cuda_small_getrf, k_cuda_small_getrs,   /* auto: up to n = 1024 (the steps LU won on the H200) */
  c_gemv_sub,
  /* panel = auto (H200, 00:34, main 51237d1, trace runs): FP64 the fused panel from n = 16384
   * (32768: 38.35 TF against the vendor panel's 37.27; 65536: 45.62 against 44.66), FP32 factors
   * (HPL-MxP) the vendor's (65536 FP16: nb 512 156.6 TF-eq against fused 146.4; nb 1024 190.7 at
   * 22:00 against fused 175.4); below 16384 not measured: the vendor's */
  K_GAUSS_PANEL_FUSED,
  c_trace_open, c_trace_mark, c_trace_read, c_trace_close,
  0,   /* panel_auto_rows: every panel by panel_auto */
  /* panel_auto_short (H200, 12-03, 9e296eb, FP64 traced, panel_vendor_short = 0 / 8192 / 16384 /
   * all): 32768 1.161x / 1.192x / 1.193x / 1.144x cuSOLVER (the last quarter's waits for the
   * panel 39.8 -> 22.9 ms: the vendor's getrf factors a short panel faster than the fused one,
   * 8192 x 1024 alone 4.0 against 6.2 ms), 65536 1.154x / 1.159x / 1.162x (24576: 1.158x);
   * session 17 (c7fc03b, the register base block of gauss.panel_kernel = auto, means of 2 timed
   * runs): 32768 16384 1.203x / 1.207x (two runs), 8192 1.223x, 0 1.222x, and the shared kernel at
   * 16384 1.216x; 65536 16384 1.170x, 8192 1.171x: 8192 since (the register panel of 16384 x 1024
   * alone 4.55 ms against the vendor's 4.96, of 8192 rows 4.27 against 4.05) */
  8192,
  K_GAUSS_PANEL_VENDOR, 16384,
  c_aux_ctl,
  1,   /* update_chunks_auto: none until measured on the H200 */
};
