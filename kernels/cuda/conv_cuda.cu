/* conv_cuda.cu - the conv kernels on a CUDA device.  Same function as kernels/host/conv_host.c
 * (the GPU tests compare them):
 *  - naive: the seed's kernel, one thread per pixel, all channels, weights read from global
 *    memory;
 *  - tiled: a block stages its output tile plus the halo (all channels) and the weights in
 *    shared memory; each thread computes PY (8, or fewer when shared memory is short)
 *    vertically adjacent pixels, every staged value
 *    read once per tap column and used by the PY outputs that need it (the per-pixel order of
 *    the taps stays row-major: bit-identical to naive); RGBA float with ksize 3, 5, 7 takes a
 *    fast path (tiled4_kernel: float4 pixels loaded, staged and stored in one 16-byte access,
 *    weights in registers, one inside weight per interior block);
 *  - separable: a vertical 1D pass into a scratch buffer, then a horizontal one;
 *  - fft: cuFFT R2C of the whole padded tile (the channels batched, strided), times the
 *    conjugate spectrum of the kernel, C2R, the valid region copied out (a circular correlation
 *    of the padded tile equals the direct one on the owned pixels);
 *  - vendor: cuDNN's convolution forward (cross-correlation, C groups of one channel, the padded
 *    tile as a packed NHWC tensor, the algorithm cuDNN ranks first, FMA math: no TF32).
 * Arithmetic of the exact variants uses explicitly rounded operations (__fmul_rn / __fadd_rn,
 * __dmul_rn / __dadd_rn), so no fused multiply-add makes them differ from the host.
 * Two streams: the filter kernels on one (cudaEvent-timed), halo copies and boundary fills on
 * the other, ordered by events, so the interior runs while the halo is packed, sent and
 * unpacked. */
#include "k_cuda.h"
#include "k_conv.h"

#include <stdlib.h>
#include <string.h>
#ifdef HYBRID_HAVE_CUFFT
#include <cufft.h>
#endif
#ifdef HYBRID_HAVE_CUDNN
#include <cudnn.h>
#endif

#define CONV_MAX_EVENTS 512

struct k_conv_plan {
  k_backend *be;
  k_conv_geom g;
  size_t es;
  int64_t ld;                 /* padded row length, elements */
  void *in, *out, *tmp;       /* padded buffers; separable scratch (th x ld) */
  void *w, *w1;               /* weights in the element type (device) */
  double *P;                  /* prefix sums of w (device) */
  cudaStream_t cs, hs;        /* compute, halo */
  cudaEvent_t ev_cs, ev_hs;   /* last compute (swap), last halo operation */
  cudaEvent_t ev[CONV_MAX_EVENTS];
  int nev;                    /* events used since the last finish (pairs) */
  double kernel_s;            /* from pairs already summed */
  int smem_optin;             /* bytes of shared memory a block may opt in to */
#ifdef HYBRID_HAVE_CUFFT
  cufftHandle fwd, inv;
  int fft_ready;
  int fn0, fn1;               /* transform size: >= the padded tile, 2^a 3^b 5^c 7^d */
  void *fin, *spec, *kspec, *fout;  /* real input (zero beyond the tile), spectra, real result */
#endif
#ifdef HYBRID_HAVE_CUDNN
  cudnnHandle_t dnn;
  cudnnTensorDescriptor_t tin, tout;
  cudnnFilterDescriptor_t filt;
  cudnnConvolutionDescriptor_t cdesc;
  cudnnConvolutionFwdAlgo_t algo;
  int dnn_ready;
  void *wdnn, *dnn_out, *work;
  size_t work_bytes;
#endif
};

/* ---------------------------------------------------------------- arithmetic */
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }

/* Kernel arguments shared by the filter kernels. */
struct conv_args {
  int C, r, ks, th, tw, H, W, gy, gx, renorm;
  int64_t ld;
  int y0, y1, x0, x1;         /* the rect */
  const double *P;
};

/* Write channel sums s of owned pixel (y, x), divided by the inside weight if asked.  Device. */
template <typename T>
__device__ __forceinline__ void conv_store(const conv_args &a, T *out, int y, int x, const T *s) {
  T *o = out + (int64_t)(y + a.r) * a.ld + (int64_t)(x + a.r) * a.C;
  if (a.renorm) {
    T wt = (T)k_conv_inside_weight(a.P, a.ks, a.r, a.H, a.W, a.gy + y, a.gx + x);
    for (int c = 0; c < a.C; c++) o[c] = div_rn(s[c], wt);
  } else {
    for (int c = 0; c < a.C; c++) o[c] = s[c];
  }
}

/* The seed's kernel: one thread per pixel of the rect, every tap, every channel.  Global. */
template <typename T>
__global__ void naive_kernel(conv_args a, const T *__restrict__ in, const T *__restrict__ w, T *out) {
  int x = a.x0 + blockIdx.x * blockDim.x + threadIdx.x, y = a.y0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.x1 || y >= a.y1) return;
  T s[K_CONV_CMAX] = { 0, 0, 0, 0 };
  for (int i = 0; i < a.ks; i++) {
    const T *row = in + (int64_t)(y + i) * a.ld + (int64_t)x * a.C;
    for (int j = 0; j < a.ks; j++) {
      T wij = __ldg(w + i * a.ks + j);
      for (int c = 0; c < a.C; c++) s[c] = add_rn(s[c], mul_rn(wij, __ldg(row + j * a.C + c)));
    }
  }
  conv_store(a, out, y, x, s);
}

#define TILE_BX 32
#define TILE_BY 8

/* Shared-memory tile: block (32, 8) computes 32 x (8 PY) pixels; C channels (template).  Global. */
template <typename T, int C, int PY>
__global__ void tiled_kernel(conv_args a, const T *__restrict__ in, const T *__restrict__ w, T *out) {
  extern __shared__ unsigned char smem_raw[];
  T *sw = (T *)smem_raw;                              /* ks * ks weights */
  T *st = sw + ((a.ks * a.ks + 3) & ~3);              /* (8 PY + 2r) rows x (32 + 2r) pixels x C */
  const int r = a.r, ks = a.ks, OH = TILE_BY * PY, SW = TILE_BX + 2 * r, SH = OH + 2 * r;
  const int bx = a.x0 + blockIdx.x * TILE_BX, by = a.y0 + blockIdx.y * OH;
  const int tid = threadIdx.y * TILE_BX + threadIdx.x, nt = TILE_BX * TILE_BY;
  for (int e = tid; e < ks * ks; e += nt) sw[e] = w[e];
  /* stage padded rows by .. by + OH + 2r - 1, columns bx .. bx + 32 + 2r - 1 (padded coords),
   * clipped to the padded buffer (values beyond are never used by a valid output); a row's
   * elements are contiguous in global memory: warp-wide coalesced loads, no division */
  const int rowsmax = a.th + 2 * r;
  const int64_t rowlen = (int64_t)(a.tw + 2 * r) * C, e0 = (int64_t)bx * C;
  for (int yy = threadIdx.y; yy < SH; yy += TILE_BY) {
    int gy = by + yy;
    const T *src = in + (int64_t)gy * a.ld + e0;
    T *dst = st + (int64_t)yy * SW * C;
    for (int e = threadIdx.x; e < SW * C; e += TILE_BX)
      dst[e] = (gy < rowsmax && e0 + e < rowlen) ? src[e] : (T)0;
  }
  __syncthreads();
  const int x = bx + threadIdx.x, ty = threadIdx.y * PY;
  T acc[PY][C];
#pragma unroll
  for (int p = 0; p < PY; p++)
#pragma unroll
    for (int c = 0; c < C; c++) acc[p][c] = 0;
  for (int yy = 0; yy < PY + 2 * r; yy++) {
    const T *srow = st + ((int64_t)(ty + yy) * SW + threadIdx.x) * C;
    for (int j = 0; j < ks; j++) {
      T v[C];
#pragma unroll
      for (int c = 0; c < C; c++) v[c] = srow[j * C + c];
#pragma unroll
      for (int p = 0; p < PY; p++) {
        int i = yy - p;
        if (i >= 0 && i < ks) {
          T wij = sw[i * ks + j];
#pragma unroll
          for (int c = 0; c < C; c++) acc[p][c] = add_rn(acc[p][c], mul_rn(wij, v[c]));
        }
      }
    }
  }
#pragma unroll
  for (int p = 0; p < PY; p++) {
    int y = by + ty + p;
    if (x < a.x1 && y < a.y1) {
      T s[K_CONV_CMAX];
#pragma unroll
      for (int c = 0; c < C; c++) s[c] = acc[p][c];
      conv_store(a, out, y, x, s);
    }
  }
}

/* Rows per thread of the RGBA fast path (a 32 x 32 output tile per block of 32 x 8). */
#define T4_PY 4

/* One pixel's four channels: acc += wij * v, each channel rounded as tiled_kernel's.  Device. */
__device__ __forceinline__ void t4_fma(float4 &acc, float wij, const float4 &v) {
  acc.x = add_rn(acc.x, mul_rn(wij, v.x));
  acc.y = add_rn(acc.y, mul_rn(wij, v.y));
  acc.z = add_rn(acc.z, mul_rn(wij, v.z));
  acc.w = add_rn(acc.w, mul_rn(wij, v.w));
}

/* The tiled variant's fast path for RGBA float (C = 4) and ksize KS = 3, 5, 7: a pixel is one
 * 16-byte float4 (every padded row and pixel starts on a multiple of 4 floats of a cudaMalloc'd
 * buffer), the block's tile and halo staged once with 16-byte loads (consecutive threads,
 * consecutive pixels) and read back as float4 (conflict-free), the KS x KS weights in
 * registers, the loops unrolled; each thread computes T4_PY vertically adjacent pixels and
 * stores each as one float4.  Renormalising: a block whose pixels all lie r inside the image
 * divides by the one inside weight they share, computed once (the same double as per pixel).
 * Per pixel the taps are added in tiled_kernel's order (row i ascending, column j inner, no
 * FMA): bit-identical to it and to the host.  Global. */
template <int KS>
__global__ void __launch_bounds__(TILE_BX * TILE_BY) tiled4_kernel(conv_args a, const float4 *__restrict__ in,
                                                                   const float *__restrict__ w, float4 *out) {
  constexpr int R = KS / 2, OH = TILE_BY * T4_PY, SW = TILE_BX + 2 * R, SH = OH + 2 * R;
  __shared__ float4 st[SH][SW];
  const int bx = a.x0 + blockIdx.x * TILE_BX, by = a.y0 + blockIdx.y * OH;
  const int tid = threadIdx.y * TILE_BX + threadIdx.x;
  const int64_t ld4 = a.ld / 4;
  const int rowsmax = a.th + 2 * R, rowpx = a.tw + 2 * R;
  for (int e = tid; e < SH * SW; e += TILE_BX * TILE_BY) {
    int yy = e / SW, xx = e - yy * SW, gy = by + yy, gx = bx + xx;
    st[yy][xx] = gy < rowsmax && gx < rowpx ? __ldg(in + gy * ld4 + gx) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  float wr[KS * KS];
#pragma unroll
  for (int e = 0; e < KS * KS; e++) wr[e] = __ldg(w + e);
  __syncthreads();
  const int ty = threadIdx.y * T4_PY;
  float4 acc[T4_PY];
#pragma unroll
  for (int p = 0; p < T4_PY; p++) acc[p] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int yy = 0; yy < T4_PY + 2 * R; yy++)
#pragma unroll
    for (int j = 0; j < KS; j++) {
      const float4 v = st[ty + yy][threadIdx.x + j];
#pragma unroll
      for (int p = 0; p < T4_PY; p++)
        if (yy - p >= 0 && yy - p < KS) t4_fma(acc[p], wr[(yy - p) * KS + j], v);
    }
  const int x = bx + threadIdx.x, Y0 = a.gy + by, X0 = a.gx + bx;
  const bool inner = Y0 >= R && Y0 + OH - 1 + R <= a.H - 1 && X0 >= R && X0 + TILE_BX - 1 + R <= a.W - 1;
  const float wblk = a.renorm && inner ? (float)k_conv_inside_weight(a.P, KS, R, a.H, a.W, Y0, X0) : 1.f;
#pragma unroll
  for (int p = 0; p < T4_PY; p++) {
    int y = by + ty + p;
    if (x < a.x1 && y < a.y1) {
      float4 s = acc[p];
      if (a.renorm) {
        float wt = inner ? wblk : (float)k_conv_inside_weight(a.P, KS, R, a.H, a.W, a.gy + y, a.gx + x);
        s.x = div_rn(s.x, wt); s.y = div_rn(s.y, wt); s.z = div_rn(s.z, wt); s.w = div_rn(s.w, wt);
      }
      out[(int64_t)(y + R) * ld4 + x + R] = s;
    }
  }
}

/* Separable, vertical: tmp(y, padded column xp) = sum_i w1[i] in(y + i, xp) for the rect's rows
 * and padded columns x0 .. x1 + 2r - 1.  Global. */
template <typename T>
__global__ void sep_vert_kernel(conv_args a, const T *__restrict__ in, const T *__restrict__ w1, T *tmp) {
  int xp = a.x0 + blockIdx.x * blockDim.x + threadIdx.x, y = a.y0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (xp >= a.x1 + 2 * a.r || y >= a.y1) return;
  T s[K_CONV_CMAX] = { 0, 0, 0, 0 };
  for (int i = 0; i < a.ks; i++) {
    const T *src = in + (int64_t)(y + i) * a.ld + (int64_t)xp * a.C;
    T wi = __ldg(w1 + i);
    for (int c = 0; c < a.C; c++) s[c] = add_rn(s[c], mul_rn(wi, __ldg(src + c)));
  }
  for (int c = 0; c < a.C; c++) tmp[(int64_t)y * a.ld + (int64_t)xp * a.C + c] = s[c];
}

/* Separable, horizontal: out(y, x) = sum_j w1[j] tmp(y, x + j).  Global. */
template <typename T>
__global__ void sep_horiz_kernel(conv_args a, const T *__restrict__ tmp, const T *__restrict__ w1, T *out) {
  int x = a.x0 + blockIdx.x * blockDim.x + threadIdx.x, y = a.y0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.x1 || y >= a.y1) return;
  T s[K_CONV_CMAX] = { 0, 0, 0, 0 };
  const T *src = tmp + (int64_t)y * a.ld + (int64_t)x * a.C;
  for (int j = 0; j < a.ks; j++) {
    T wj = __ldg(w1 + j);
    for (int c = 0; c < a.C; c++) s[c] = add_rn(s[c], mul_rn(wj, src[j * a.C + c]));
  }
  conv_store(a, out, y, x, s);
}

/* Copy a th x tw x C result (row length sld) into the owned region of out, dividing by the
 * inside weight if asked (fft and vendor).  Global. */
template <typename T>
__global__ void copy_out_kernel(conv_args a, const T *__restrict__ src, int64_t sld, T scale, T *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.tw || y >= a.th) return;
  T s[K_CONV_CMAX];
  for (int c = 0; c < a.C; c++) s[c] = src[(int64_t)y * sld + (int64_t)x * a.C + c] * scale;
  conv_store(a, out, y, x, s);
}

/* Boundary fill of one side (see k_conv.h).  Global. */
template <typename T>
__global__ void fill_kernel(T *in, int64_t ld, int C, int r, int th, int tw, int side, int rule) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int ns = side == K_CONV_NORTH || side == K_CONV_SOUTH;
  int64_t n = ns ? (int64_t)r * tw * C : (int64_t)(th + 2 * r) * r * C;
  if (e >= n) return;
  int c = (int)(e % C), k, y, x, sy, sx;
  if (ns) {
    x = (int)(e / C % tw);
    k = (int)(e / C / tw) + 1;
    int low = side == K_CONV_NORTH;
    y = low ? -k : th - 1 + k;
    sy = rule == K_CONV_FILL_CLAMP ? (low ? 0 : th - 1) : (low ? k - 1 : th - k);
    sx = x;
  } else {
    k = (int)(e / C % r) + 1;
    y = (int)(e / C / r) - r;
    int low = side == K_CONV_WEST;
    x = low ? -k : tw - 1 + k;
    sx = rule == K_CONV_FILL_CLAMP ? (low ? 0 : tw - 1) : (low ? k - 1 : tw - k);
    sy = y;
  }
  T v = rule == K_CONV_FILL_ZERO ? (T)0 : in[(int64_t)(sy + r) * ld + (int64_t)(sx + r) * C + c];
  in[(int64_t)(y + r) * ld + (int64_t)(x + r) * C + c] = v;
}

#ifdef HYBRID_HAVE_CUFFT
/* spec *= conj(kspec) (complex, n entries per channel, kspec one channel).  Global. */
template <typename CT>
__global__ void spec_mul_kernel(CT *spec, const CT *__restrict__ kspec, int64_t n, int C) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n * C) return;
  CT a = spec[e], b = kspec[e % n];
  CT o;
  o.x = a.x * b.x + a.y * b.y;
  o.y = a.y * b.x - a.x * b.y;
  spec[e] = o;
}
#endif

/* ---------------------------------------------------------------- plumbing */
/* Arguments of a rect.  Local. */
static conv_args conv_args_of(const k_conv_plan *p, const k_conv_rect *rc) {
  conv_args a;
  a.C = p->g.C; a.r = p->g.r; a.ks = p->g.ks; a.th = p->g.th; a.tw = p->g.tw;
  a.H = p->g.H; a.W = p->g.W; a.gy = p->g.gy; a.gx = p->g.gx; a.renorm = p->g.renorm;
  a.ld = p->ld;
  a.y0 = rc->y0; a.y1 = rc->y1; a.x0 = rc->x0; a.x1 = rc->x1;
  a.P = p->P;
  return a;
}

/* Before a computation: wait for the halo; record the start event.  Local. */
static int conv_begin(k_conv_plan *p) {
  HY_CUDA(cudaStreamWaitEvent(p->cs, p->ev_hs, 0));
  if (p->nev + 2 > CONV_MAX_EVENTS) {   /* sum the pairs so far (a sync) */
    HY_CUDA(cudaStreamSynchronize(p->cs));
    for (int k = 0; k < p->nev; k += 2) {
      float ms = 0;
      HY_CUDA(cudaEventElapsedTime(&ms, p->ev[k], p->ev[k + 1]));
      p->kernel_s += ms * 1e-3;
    }
    p->nev = 0;
  }
  HY_CUDA(cudaEventRecord(p->ev[p->nev++], p->cs));
  return HY_OK;
}

/* After a computation: check the launch, record the stop event.  Local. */
static int conv_end(k_conv_plan *p) {
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaEventRecord(p->ev[p->nev++], p->cs));
  return HY_OK;
}

/* Launch geometry of a rect (16 x 16 threads).  Local. */
static void conv_grid2(const k_conv_rect *rc, int extra, dim3 *grid, dim3 *block) {
  *block = dim3(16, 16);
  *grid = dim3((unsigned)((rc->x1 - rc->x0 + extra + 15) / 16), (unsigned)((rc->y1 - rc->y0 + 15) / 16));
}

/* The naive variant on a rect.  Local. */
static int cuda_naive(k_conv_plan *p, const k_conv_rect *rc) {
  if (rc->y1 <= rc->y0 || rc->x1 <= rc->x0) return HY_OK;
  conv_args a = conv_args_of(p, rc);
  dim3 grid, block;
  conv_grid2(rc, 0, &grid, &block);
  HY_CALL(conv_begin(p));
  if (p->g.fp64) naive_kernel<double><<<grid, block, 0, p->cs>>>(a, (const double *)p->in, (const double *)p->w, (double *)p->out);
  else naive_kernel<float><<<grid, block, 0, p->cs>>>(a, (const float *)p->in, (const float *)p->w, (float *)p->out);
  return conv_end(p);
}

/* Shared bytes of a tiled block.  Local. */
static size_t tiled_smem(const k_conv_plan *p, int py) {
  size_t r = p->g.r;
  return ((((size_t)p->g.ks * p->g.ks + 3) & ~(size_t)3) + (TILE_BY * py + 2 * r) * (TILE_BX + 2 * r) * p->g.C) * p->es;
}

/* Launch tiled_kernel<T, C, PY>.  Local. */
template <typename T, int C, int PY>
static int tiled_launch(k_conv_plan *p, const conv_args &a, size_t smem) {
  auto kfn = tiled_kernel<T, C, PY>;
  HY_CUDA(cudaFuncSetAttribute(kfn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  dim3 block(TILE_BX, TILE_BY);
  dim3 grid((unsigned)((a.x1 - a.x0 + TILE_BX - 1) / TILE_BX), (unsigned)((a.y1 - a.y0 + TILE_BY * PY - 1) / (TILE_BY * PY)));
  kfn<<<grid, block, smem, p->cs>>>(a, (const T *)p->in, (const T *)p->w, (T *)p->out);
  return HY_OK;
}

/* Dispatch on channels and rows per thread.  Local. */
template <typename T, int PY>
static int tiled_c(k_conv_plan *p, const conv_args &a, size_t smem) {
  switch (p->g.C) {
  case 1: return tiled_launch<T, 1, PY>(p, a, smem);
  case 2: return tiled_launch<T, 2, PY>(p, a, smem);
  case 3: return tiled_launch<T, 3, PY>(p, a, smem);
  default: return tiled_launch<T, 4, PY>(p, a, smem);
  }
}

/* The RGBA float fast path of the tiled variant (tiled4_kernel) on a rect.  Local. */
static int tiled4(k_conv_plan *p, const k_conv_rect *rc) {
  conv_args a = conv_args_of(p, rc);
  dim3 block(TILE_BX, TILE_BY);
  dim3 grid((unsigned)((a.x1 - a.x0 + TILE_BX - 1) / TILE_BX),
            (unsigned)((a.y1 - a.y0 + TILE_BY * T4_PY - 1) / (TILE_BY * T4_PY)));
  const float4 *in = (const float4 *)p->in;
  float4 *out = (float4 *)p->out;
  const float *w = (const float *)p->w;
  HY_CALL(conv_begin(p));
  switch (p->g.ks) {
  case 3: tiled4_kernel<3><<<grid, block, 0, p->cs>>>(a, in, w, out); break;
  case 5: tiled4_kernel<5><<<grid, block, 0, p->cs>>>(a, in, w, out); break;
  default: tiled4_kernel<7><<<grid, block, 0, p->cs>>>(a, in, w, out); break;
  }
  return conv_end(p);
}

/* The tiled variant on a rect: 8, 4, 2 or 1 rows per thread (a 32 x 64 .. 32 x 8 output tile:
 * the more rows, the less halo staged per output), whichever tile fits in shared memory
 * (none fits: the naive kernel, same pixels).  Local. */
static int cuda_tiled(k_conv_plan *p, const k_conv_rect *rc) {
  if (rc->y1 <= rc->y0 || rc->x1 <= rc->x0) return HY_OK;
  if (!p->g.fp64 && p->g.C == 4 && (p->g.ks == 3 || p->g.ks == 5 || p->g.ks == 7)) return tiled4(p, rc);
  int py = 8;
  while (py > 1 && tiled_smem(p, py) > (size_t)p->smem_optin) py /= 2;
  if (tiled_smem(p, py) > (size_t)p->smem_optin) return cuda_naive(p, rc);
  conv_args a = conv_args_of(p, rc);
  size_t smem = tiled_smem(p, py);
  HY_CALL(conv_begin(p));
  if (p->g.fp64) {
    if (py == 8) HY_CALL((tiled_c<double, 8>(p, a, smem)));
    else if (py == 4) HY_CALL((tiled_c<double, 4>(p, a, smem)));
    else if (py == 2) HY_CALL((tiled_c<double, 2>(p, a, smem)));
    else HY_CALL((tiled_c<double, 1>(p, a, smem)));
  } else {
    if (py == 8) HY_CALL((tiled_c<float, 8>(p, a, smem)));
    else if (py == 4) HY_CALL((tiled_c<float, 4>(p, a, smem)));
    else if (py == 2) HY_CALL((tiled_c<float, 2>(p, a, smem)));
    else HY_CALL((tiled_c<float, 1>(p, a, smem)));
  }
  return conv_end(p);
}

/* The separable variant on a rect.  Local. */
static int cuda_separable(k_conv_plan *p, const k_conv_rect *rc) {
  if (!p->w1) return hy_err(HY_EUSAGE, "separable: this kernel has no 1D factor");
  if (rc->y1 <= rc->y0 || rc->x1 <= rc->x0) return HY_OK;
  conv_args a = conv_args_of(p, rc);
  dim3 g1, g2, block;
  conv_grid2(rc, 2 * p->g.r, &g1, &block);
  conv_grid2(rc, 0, &g2, &block);
  HY_CALL(conv_begin(p));
  if (p->g.fp64) {
    sep_vert_kernel<double><<<g1, block, 0, p->cs>>>(a, (const double *)p->in, (const double *)p->w1, (double *)p->tmp);
    sep_horiz_kernel<double><<<g2, block, 0, p->cs>>>(a, (const double *)p->tmp, (const double *)p->w1, (double *)p->out);
  } else {
    sep_vert_kernel<float><<<g1, block, 0, p->cs>>>(a, (const float *)p->in, (const float *)p->w1, (float *)p->tmp);
    sep_horiz_kernel<float><<<g2, block, 0, p->cs>>>(a, (const float *)p->tmp, (const float *)p->w1, (float *)p->out);
  }
  return conv_end(p);
}

/* Copy a packed/strided th x tw result into out's owned region (fft, vendor).  Local. */
static int conv_copy_out(k_conv_plan *p, const void *src, int64_t sld, double scale) {
  k_conv_rect whole = { 0, p->g.th, 0, p->g.tw };
  conv_args a = conv_args_of(p, &whole);
  dim3 grid, block;
  conv_grid2(&whole, 0, &grid, &block);
  if (p->g.fp64) copy_out_kernel<double><<<grid, block, 0, p->cs>>>(a, (const double *)src, sld, scale, (double *)p->out);
  else copy_out_kernel<float><<<grid, block, 0, p->cs>>>(a, (const float *)src, sld, (float)scale, (float *)p->out);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

#ifdef HYBRID_HAVE_CUFFT
#define HY_CUFFT(expr)                                                              \
  do {                                                                              \
    cufftResult hy_fr_ = (expr);                                                    \
    if (hy_fr_ != CUFFT_SUCCESS) return hy_err(HY_ESYS, "cuFFT: %s failed: %d", #expr, (int)hy_fr_); \
  } while (0)

/* cuFFT plans for the padded tile zero-extended to a nice size (channels batched, strided:
 * a circular correlation of that size equals the direct one on the owned pixels), and the
 * kernel's spectrum.  Local. */
static int fft_setup(k_conv_plan *p, const double *w) {
  const k_conv_geom *g = &p->g;
  p->fn0 = k_conv_fft_nice(g->th + 2 * g->r);
  p->fn1 = k_conv_fft_nice(g->tw + 2 * g->r);
  int n[2] = { p->fn0, p->fn1 }, C = g->C;
  int64_t nc = (int64_t)n[0] * (n[1] / 2 + 1), nr = (int64_t)n[0] * n[1];
  size_t cs = p->es * 2;
  HY_CUDA(cudaMalloc(&p->fin, (size_t)nr * C * p->es));
  HY_CUDA(cudaMemset(p->fin, 0, (size_t)nr * C * p->es));
  HY_CUDA(cudaMalloc(&p->spec, (size_t)nc * C * cs));
  HY_CUDA(cudaMalloc(&p->kspec, (size_t)nc * cs));
  HY_CUDA(cudaMalloc(&p->fout, (size_t)nr * C * p->es));
  int inembed[2] = { n[0], n[1] }, onembed[2] = { n[0], n[1] / 2 + 1 };
  cufftType f = g->fp64 ? CUFFT_D2Z : CUFFT_R2C, b = g->fp64 ? CUFFT_Z2D : CUFFT_C2R;
  HY_CUFFT(cufftPlanMany(&p->fwd, 2, n, inembed, C, 1, onembed, 1, (int)nc, f, C));
  HY_CUFFT(cufftPlanMany(&p->inv, 2, n, onembed, 1, (int)nc, inembed, C, 1, b, C));
  HY_CUFFT(cufftSetStream(p->fwd, p->cs));
  HY_CUFFT(cufftSetStream(p->inv, p->cs));
  p->fft_ready = 1;
  /* the kernel zero-padded to the transform size, one channel */
  cufftHandle kp;
  HY_CUFFT(cufftPlan2d(&kp, n[0], n[1], f));
  HY_CUFFT(cufftSetStream(kp, p->cs));
  void *kr = NULL;
  HY_CUDA(cudaMalloc(&kr, (size_t)nr * p->es));
  void *hk = calloc((size_t)nr, p->es);
  if (!hk) return hy_err(HY_ESYS, "conv: out of memory for the fft kernel");
  for (int i = 0; i < g->ks; i++)
    for (int j = 0; j < g->ks; j++) {
      size_t e = (size_t)i * n[1] + j;
      if (g->fp64) ((double *)hk)[e] = w[i * g->ks + j];
      else ((float *)hk)[e] = (float)w[i * g->ks + j];
    }
  HY_CUDA(cudaMemcpyAsync(kr, hk, (size_t)nr * p->es, cudaMemcpyHostToDevice, p->cs));
  if (g->fp64) HY_CUFFT(cufftExecD2Z(kp, (cufftDoubleReal *)kr, (cufftDoubleComplex *)p->kspec));
  else HY_CUFFT(cufftExecR2C(kp, (cufftReal *)kr, (cufftComplex *)p->kspec));
  HY_CUDA(cudaStreamSynchronize(p->cs));
  free(hk);
  cudaFree(kr);
  cufftDestroy(kp);
  return HY_OK;
}

/* The fft variant on the whole tile: the padded tile into the transform's input, R2C,
 * times conj(K), C2R, the owned pixels copied out (scaled, divided if renormalising).  Local. */
static int cuda_fft(k_conv_plan *p, const k_conv_rect *rc) {
  const k_conv_geom *g = &p->g;
  int64_t nc = (int64_t)p->fn0 * (p->fn1 / 2 + 1), fl = (int64_t)p->fn1 * g->C;
  HY_CALL(conv_begin(p));
  HY_CUDA(cudaMemcpy2DAsync(p->fin, fl * p->es, p->in, p->ld * p->es, p->ld * p->es, g->th + 2 * g->r,
                            cudaMemcpyDeviceToDevice, p->cs));
  if (g->fp64) HY_CUFFT(cufftExecD2Z(p->fwd, (cufftDoubleReal *)p->fin, (cufftDoubleComplex *)p->spec));
  else HY_CUFFT(cufftExecR2C(p->fwd, (cufftReal *)p->fin, (cufftComplex *)p->spec));
  unsigned nb = (unsigned)((nc * g->C + 255) / 256);
  if (g->fp64) spec_mul_kernel<cufftDoubleComplex><<<nb, 256, 0, p->cs>>>((cufftDoubleComplex *)p->spec, (const cufftDoubleComplex *)p->kspec, nc, g->C);
  else spec_mul_kernel<cufftComplex><<<nb, 256, 0, p->cs>>>((cufftComplex *)p->spec, (const cufftComplex *)p->kspec, nc, g->C);
  HY_CUDA_LAUNCH();
  if (g->fp64) HY_CUFFT(cufftExecZ2D(p->inv, (cufftDoubleComplex *)p->spec, (cufftDoubleReal *)p->fout));
  else HY_CUFFT(cufftExecC2R(p->inv, (cufftComplex *)p->spec, (cufftReal *)p->fout));
  HY_CALL(conv_copy_out(p, p->fout, fl, 1.0 / ((double)p->fn0 * p->fn1)));
  return conv_end(p);
}
#endif

#ifdef HYBRID_HAVE_CUDNN
#define HY_CUDNN(expr)                                                              \
  do {                                                                              \
    cudnnStatus_t hy_ds_ = (expr);                                                  \
    if (hy_ds_ != CUDNN_STATUS_SUCCESS)                                             \
      return hy_err(HY_ESYS, "cuDNN: %s failed: %s", #expr, cudnnGetErrorString(hy_ds_)); \
  } while (0)

/* cuDNN descriptors: the padded tile as packed NHWC (1 x C x th+2r x tw+2r), C groups of one
 * channel, a packed th x tw x C output, the algorithm cuDNN ranks first.  Local. */
static int dnn_setup(k_conv_plan *p, const double *w) {
  const k_conv_geom *g = &p->g;
  cudnnDataType_t dt = g->fp64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  HY_CUDNN(cudnnCreate(&p->dnn));
  HY_CUDNN(cudnnSetStream(p->dnn, p->cs));
  HY_CUDNN(cudnnCreateTensorDescriptor(&p->tin));
  HY_CUDNN(cudnnCreateTensorDescriptor(&p->tout));
  HY_CUDNN(cudnnCreateFilterDescriptor(&p->filt));
  HY_CUDNN(cudnnCreateConvolutionDescriptor(&p->cdesc));
  HY_CUDNN(cudnnSetTensor4dDescriptor(p->tin, CUDNN_TENSOR_NHWC, dt, 1, g->C, g->th + 2 * g->r, g->tw + 2 * g->r));
  HY_CUDNN(cudnnSetTensor4dDescriptor(p->tout, CUDNN_TENSOR_NHWC, dt, 1, g->C, g->th, g->tw));
  HY_CUDNN(cudnnSetFilter4dDescriptor(p->filt, dt, CUDNN_TENSOR_NHWC, g->C, 1, g->ks, g->ks));
  HY_CUDNN(cudnnSetConvolution2dDescriptor(p->cdesc, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, dt));
  HY_CUDNN(cudnnSetConvolutionGroupCount(p->cdesc, g->C));
  /* no tensor cores: CUDNN_DEFAULT_MATH would let FP32 run as TF32 (10-bit mantissa) */
  HY_CUDNN(cudnnSetConvolutionMathType(p->cdesc, CUDNN_FMA_MATH));
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  int got = 0;
  HY_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(p->dnn, p->tin, p->filt, p->cdesc, p->tout, 8, &got, perf));
  int k = 0;
  while (k < got && perf[k].status != CUDNN_STATUS_SUCCESS) k++;
  if (k == got) return hy_err(HY_ESYS, "cuDNN: no forward algorithm for a %d x %d x %d tile, ksize %d", g->th, g->tw, g->C, g->ks);
  p->algo = perf[k].algo;
  HY_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(p->dnn, p->tin, p->filt, p->cdesc, p->tout, p->algo, &p->work_bytes));
  if (p->work_bytes) HY_CUDA(cudaMalloc(&p->work, p->work_bytes));
  HY_CUDA(cudaMalloc(&p->dnn_out, (size_t)g->th * g->tw * g->C * p->es));
  /* filter k x 1 x ks x ks in NHWC: the same weights for every output channel */
  size_t nw = (size_t)g->C * g->ks * g->ks;
  void *hw = malloc(nw * p->es);
  if (!hw) return hy_err(HY_ESYS, "conv: out of memory for the cuDNN filter");
  for (size_t e = 0; e < nw; e++) {
    double v = w[e % ((size_t)g->ks * g->ks)];
    if (g->fp64) ((double *)hw)[e] = v;
    else ((float *)hw)[e] = (float)v;
  }
  HY_CUDA(cudaMalloc(&p->wdnn, nw * p->es));
  HY_CUDA(cudaMemcpy(p->wdnn, hw, nw * p->es, cudaMemcpyHostToDevice));
  free(hw);
  p->dnn_ready = 1;
  return HY_OK;
}

/* The vendor variant (cuDNN) on the whole tile; kernel time is the cuDNN call.  Local. */
static int cuda_vendor(k_conv_plan *p, const k_conv_rect *rc) {
  double one_d = 1, zero_d = 0;
  float one_f = 1, zero_f = 0;
  const void *one = p->g.fp64 ? (const void *)&one_d : (const void *)&one_f;
  const void *zero = p->g.fp64 ? (const void *)&zero_d : (const void *)&zero_f;
  HY_CALL(conv_begin(p));
  HY_CUDNN(cudnnConvolutionForward(p->dnn, one, p->tin, p->in, p->filt, p->wdnn, p->cdesc, p->algo, p->work,
                                   p->work_bytes, zero, p->tout, p->dnn_out));
  HY_CALL(conv_end(p));
  return conv_copy_out(p, p->dnn_out, (int64_t)p->g.tw * p->g.C, 1.0);
}
#endif

/* Free a plan.  Local. */
static void cuda_plan_destroy(k_conv_plan *p) {
  if (!p) return;
  cudaSetDevice(p->be->device);
  if (p->cs) cudaStreamSynchronize(p->cs);
  if (p->hs) cudaStreamSynchronize(p->hs);
  cudaFree(p->in); cudaFree(p->out); cudaFree(p->tmp); cudaFree(p->w); cudaFree(p->w1); cudaFree(p->P);
#ifdef HYBRID_HAVE_CUFFT
  if (p->fft_ready) { cufftDestroy(p->fwd); cufftDestroy(p->inv); }
  cudaFree(p->fin); cudaFree(p->spec); cudaFree(p->kspec); cudaFree(p->fout);
#endif
#ifdef HYBRID_HAVE_CUDNN
  if (p->dnn) {
    cudnnDestroyTensorDescriptor(p->tin); cudnnDestroyTensorDescriptor(p->tout);
    cudnnDestroyFilterDescriptor(p->filt); cudnnDestroyConvolutionDescriptor(p->cdesc);
    cudnnDestroy(p->dnn);
  }
  cudaFree(p->wdnn); cudaFree(p->dnn_out); cudaFree(p->work);
#endif
  for (int k = 0; k < CONV_MAX_EVENTS; k++) if (p->ev[k]) cudaEventDestroy(p->ev[k]);
  if (p->ev_cs) cudaEventDestroy(p->ev_cs);
  if (p->ev_hs) cudaEventDestroy(p->ev_hs);
  if (p->cs) { k_cuda_side_drop(p->be, p->cs); cudaStreamDestroy(p->cs); }
  if (p->hs) { k_cuda_side_drop(p->be, p->hs); cudaStreamDestroy(p->hs); }
  free(p);
}

/* Weights in the element type on the device.  Local. */
static int conv_upload_weights(k_conv_plan *p, void **dst, const double *w, int n) {
  void *h = malloc((size_t)n * p->es);
  if (!h) return hy_err(HY_ESYS, "conv: out of memory for the weights");
  for (int e = 0; e < n; e++) {
    if (p->g.fp64) ((double *)h)[e] = w[e];
    else ((float *)h)[e] = (float)w[e];
  }
  HY_CUDA(cudaMalloc(dst, (size_t)n * p->es));
  HY_CUDA(cudaMemcpy(*dst, h, (size_t)n * p->es, cudaMemcpyHostToDevice));
  free(h);
  return HY_OK;
}

/* Warm-up of an any-rect variant: one launch on owned pixel (0, 0) (the buffers are zeroed; the
 * pixel is computed again by every pass) and its timer pair dropped, so that what a first launch
 * costs (lazy loading of the kernel's module: milliseconds, inside the timed pair of the first
 * pass otherwise) stays out of the kernel time.  Local. */
static int conv_warm(k_conv_plan *p, k_conv_fn fn) {
  k_conv_rect px = { 0, 1, 0, 1 };
  HY_CALL(fn(p, &px));
  HY_CUDA(cudaStreamSynchronize(p->cs));
  p->nev = 0;
  p->kernel_s = 0;
  return HY_OK;
}

/* Buffers, streams, events and weights of a plan; the library plans of variant v.  Local. */
static int cuda_plan_init(k_conv_plan *p, int v, const double *w, const double *w1) {
  const k_conv_geom *g = &p->g;
  HY_CUDA(cudaSetDevice(p->be->device));
  HY_CUDA(cudaStreamCreateWithFlags(&p->cs, cudaStreamNonBlocking));
  HY_CALL(k_cuda_side_add(p->be, p->cs));   /* the memory pool orders its blocks with them */
  HY_CUDA(cudaStreamCreateWithFlags(&p->hs, cudaStreamNonBlocking));
  HY_CALL(k_cuda_side_add(p->be, p->hs));
  HY_CUDA(cudaEventCreateWithFlags(&p->ev_cs, cudaEventDisableTiming));
  HY_CUDA(cudaEventCreateWithFlags(&p->ev_hs, cudaEventDisableTiming));
  HY_CUDA(cudaEventRecord(p->ev_cs, p->cs));
  HY_CUDA(cudaEventRecord(p->ev_hs, p->hs));
  for (int k = 0; k < CONV_MAX_EVENTS; k++) HY_CUDA(cudaEventCreate(&p->ev[k]));
  HY_CUDA(cudaDeviceGetAttribute(&p->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, p->be->device));
  size_t nel = (size_t)(g->th + 2 * g->r) * (size_t)p->ld;
  HY_CUDA(cudaMalloc(&p->in, nel * p->es));
  HY_CUDA(cudaMalloc(&p->out, nel * p->es));
  HY_CUDA(cudaMemset(p->in, 0, nel * p->es));
  HY_CUDA(cudaMemset(p->out, 0, nel * p->es));
  if (w1) HY_CUDA(cudaMalloc(&p->tmp, (size_t)g->th * p->ld * p->es));
  HY_CALL(conv_upload_weights(p, &p->w, w, g->ks * g->ks));
  if (w1) HY_CALL(conv_upload_weights(p, &p->w1, w1, g->ks));
  double *P = (double *)malloc(sizeof(double) * (g->ks + 1) * (g->ks + 1));
  if (!P) return hy_err(HY_ESYS, "conv: out of memory for the prefix sums");
  k_conv_prefix(w, g->ks, P);
  HY_CUDA(cudaMalloc(&p->P, sizeof(double) * (g->ks + 1) * (g->ks + 1)));
  HY_CUDA(cudaMemcpy(p->P, P, sizeof(double) * (g->ks + 1) * (g->ks + 1), cudaMemcpyHostToDevice));
  free(P);
#ifdef HYBRID_HAVE_CUFFT
  if (v == K_CONV_FFT) HY_CALL(fft_setup(p, w));
#endif
#ifdef HYBRID_HAVE_CUDNN
  if (v == K_CONV_VENDOR) HY_CALL(dnn_setup(p, w));
#endif
  if (v == K_CONV_NAIVE) HY_CALL(conv_warm(p, cuda_naive));
  if (v == K_CONV_TILED) HY_CALL(conv_warm(p, cuda_tiled));
  if (v == K_CONV_SEPARABLE && w1) HY_CALL(conv_warm(p, cuda_separable));
  return HY_OK;
}

/* A plan (see k_conv.h).  Local. */
static int cuda_plan_create(k_backend *be, const k_conv_geom *g, int v, const double *w, const double *w1,
                            k_conv_plan **out) {
  k_conv_plan *p = (k_conv_plan *)calloc(1, sizeof *p);
  if (!p) return hy_err(HY_ESYS, "conv: out of memory for a plan");
  p->be = be;
  p->g = *g;
  p->es = g->fp64 ? sizeof(double) : sizeof(float);
  p->ld = (int64_t)(g->tw + 2 * g->r) * g->C;
  int rc = cuda_plan_init(p, v, w, w1);
  if (rc != HY_OK) {
    cuda_plan_destroy(p);
    return rc;
  }
  *out = p;
  return HY_OK;
}

/* Host rows into the owned region.  Local. */
static int cuda_put(k_conv_plan *p, const void *host, int64_t ld) {
  char *dst = (char *)p->in + ((size_t)p->g.r * p->ld + (size_t)p->g.r * p->g.C) * p->es;
  HY_CUDA(cudaMemcpy2DAsync(dst, p->ld * p->es, host, ld * p->es, (size_t)p->g.tw * p->g.C * p->es, p->g.th,
                            cudaMemcpyHostToDevice, p->cs));
  HY_CUDA(cudaStreamSynchronize(p->cs));
  return HY_OK;
}

/* The owned region to host rows (after every queued computation).  Local. */
static int cuda_get(k_conv_plan *p, void *host, int64_t ld) {
  const char *src = (const char *)p->in + ((size_t)p->g.r * p->ld + (size_t)p->g.r * p->g.C) * p->es;
  HY_CUDA(cudaMemcpy2DAsync(host, ld * p->es, src, p->ld * p->es, (size_t)p->g.tw * p->g.C * p->es, p->g.th,
                            cudaMemcpyDeviceToHost, p->cs));
  HY_CUDA(cudaStreamSynchronize(p->cs));
  return HY_OK;
}

/* Device address of owned pixel (y, x) of the input.  Local. */
static char *conv_at(const k_conv_plan *p, int y, int x) {
  return (char *)p->in + ((size_t)(y + p->g.r) * p->ld + (size_t)(x + p->g.r) * p->g.C) * p->es;
}

/* Rect of the input to a packed host buffer (halo stream, after the last computation).  Local. */
static int cuda_pack(k_conv_plan *p, const k_conv_rect *rc, void *host) {
  size_t row = (size_t)(rc->x1 - rc->x0) * p->g.C * p->es;
  HY_CUDA(cudaStreamWaitEvent(p->hs, p->ev_cs, 0));
  HY_CUDA(cudaMemcpy2DAsync(host, row, conv_at(p, rc->y0, rc->x0), p->ld * p->es, row, rc->y1 - rc->y0,
                            cudaMemcpyDeviceToHost, p->hs));
  HY_CUDA(cudaStreamSynchronize(p->hs));
  return HY_OK;
}

/* A packed host buffer into rect of the input (halo stream).  Local. */
static int cuda_unpack(k_conv_plan *p, const k_conv_rect *rc, const void *host) {
  size_t row = (size_t)(rc->x1 - rc->x0) * p->g.C * p->es;
  HY_CUDA(cudaStreamWaitEvent(p->hs, p->ev_cs, 0));
  HY_CUDA(cudaMemcpy2DAsync(conv_at(p, rc->y0, rc->x0), p->ld * p->es, host, row, row, rc->y1 - rc->y0,
                            cudaMemcpyHostToDevice, p->hs));
  HY_CUDA(cudaEventRecord(p->ev_hs, p->hs));
  HY_CUDA(cudaStreamSynchronize(p->hs));   /* the host buffer is reused by the next message */
  return HY_OK;
}

/* Rect of the input to a packed device buffer, queued on the halo stream after the last
 * computation (asynchronous: the device transport queues its messages after it).  Local. */
static int cuda_pack_dev(k_conv_plan *p, const k_conv_rect *rc, void *dev) {
  size_t row = (size_t)(rc->x1 - rc->x0) * p->g.C * p->es;
  HY_CUDA(cudaStreamWaitEvent(p->hs, p->ev_cs, 0));
  HY_CUDA(cudaMemcpy2DAsync(dev, row, conv_at(p, rc->y0, rc->x0), p->ld * p->es, row, rc->y1 - rc->y0,
                            cudaMemcpyDeviceToDevice, p->hs));
  return HY_OK;
}

/* A packed device buffer into rect of the input, queued on the halo stream (after the
 * transport's receive queued there).  Local. */
static int cuda_unpack_dev(k_conv_plan *p, const k_conv_rect *rc, const void *dev) {
  size_t row = (size_t)(rc->x1 - rc->x0) * p->g.C * p->es;
  HY_CUDA(cudaStreamWaitEvent(p->hs, p->ev_cs, 0));
  HY_CUDA(cudaMemcpy2DAsync(conv_at(p, rc->y0, rc->x0), p->ld * p->es, dev, row, row, rc->y1 - rc->y0,
                            cudaMemcpyDeviceToDevice, p->hs));
  HY_CUDA(cudaEventRecord(p->ev_hs, p->hs));
  return HY_OK;
}

/* The halo stream as the backend's current stream (on = 1) or the default again.  Local. */
static int cuda_halo_select(k_conv_plan *p, int on) {
  k_cuda_st(p->be)->cur = on ? p->hs : NULL;
  return HY_OK;
}

/* Boundary fill of one side (halo stream).  Local. */
static int cuda_fill(k_conv_plan *p, int side, int rule) {
  const k_conv_geom *g = &p->g;
  if (g->r == 0) return HY_OK;
  int ns = side == K_CONV_NORTH || side == K_CONV_SOUTH;
  int64_t n = ns ? (int64_t)g->r * g->tw * g->C : (int64_t)(g->th + 2 * g->r) * g->r * g->C;
  unsigned nb = (unsigned)((n + 255) / 256);
  HY_CUDA(cudaStreamWaitEvent(p->hs, p->ev_cs, 0));
  if (g->fp64) fill_kernel<double><<<nb, 256, 0, p->hs>>>((double *)p->in, p->ld, g->C, g->r, g->th, g->tw, side, rule);
  else fill_kernel<float><<<nb, 256, 0, p->hs>>>((float *)p->in, p->ld, g->C, g->r, g->th, g->tw, side, rule);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaEventRecord(p->ev_hs, p->hs));
  return HY_OK;
}

/* Output becomes input (ordered after the queued computations).  Local. */
static int cuda_swap(k_conv_plan *p) {
  HY_CUDA(cudaEventRecord(p->ev_cs, p->cs));
  void *t = p->in;
  p->in = p->out;
  p->out = t;
  return HY_OK;
}

/* Wait, and add the kernel seconds of the recorded event pairs.  Local. */
static int cuda_finish(k_conv_plan *p, double *kernel_s) {
  HY_CUDA(cudaStreamSynchronize(p->hs));
  HY_CUDA(cudaStreamSynchronize(p->cs));
  for (int k = 0; k + 1 < p->nev; k += 2) {
    float ms = 0;
    HY_CUDA(cudaEventElapsedTime(&ms, p->ev[k], p->ev[k + 1]));
    p->kernel_s += ms * 1e-3;
  }
  p->nev = 0;
  if (kernel_s) *kernel_s += p->kernel_s;
  p->kernel_s = 0;
  return HY_OK;
}

#ifdef HYBRID_HAVE_CUFFT
#define CONV_FFT_FN cuda_fft
#define CONV_FFT_NAME "cuFFT"
#else
#define CONV_FFT_FN NULL
#define CONV_FFT_NAME NULL
#endif
#ifdef HYBRID_HAVE_CUDNN
#define CONV_VENDOR_FN cuda_vendor
#define CONV_VENDOR_NAME "cuDNN"
#else
#define CONV_VENDOR_FN NULL
#define CONV_VENDOR_NAME NULL
#endif

extern "C" const k_conv_ops k_conv_cuda_ops = {
  "cuda", CONV_VENDOR_NAME, CONV_FFT_NAME, 4.25e12,
  cuda_plan_create, cuda_plan_destroy, cuda_put, cuda_get, cuda_pack, cuda_unpack, cuda_fill,
  cuda_swap, cuda_finish,
  {
    { "naive", cuda_naive, 1, 1 },
    { "tiled", cuda_tiled, 1, 1 },
    { "separable", cuda_separable, 1, 1 },
    { "fft", CONV_FFT_FN, 0, 0 },
    { "vendor", CONV_VENDOR_FN, 0, 0 },
  },
  cuda_pack_dev, cuda_unpack_dev, cuda_halo_select,
};
