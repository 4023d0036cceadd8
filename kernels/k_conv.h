/* k_conv.h - the conv workload's kernels behind one C interface: 2D filtering of one rank's
 * tile of an image (C interleaved channels, float or double) held in "padded" buffers with a
 * halo of r = ksize / 2 rows and columns on every side.
 *
 * The function computed (every variant, every backend) is the correlation
 *     out(y, x, c) = sum_{i, j} w[i][j] * in(y + i - r, x + j - r, c)      i, j = 0 .. ksize-1
 * over the padded input (the halo holds the neighbours' pixels or the boundary rule's ghost
 * values: zeros, clamped or reflected pixels), divided by the inside weight W(y, x) (the sum
 * of the taps that fall inside the image) when `renorm` is set (the seed's rule: a tap outside
 * the image contributes 0).  "exact" variants (naive, tiled, separable's own order) add the
 * taps in a fixed order, row i outer, column j inner, in the element type, without fused
 * multiply-add; the same pixel therefore comes out bit-identical for any tile it lies in, on
 * the host and on the GPU.  Coordinates are the tile's own ("owned"): rows 0..th-1, columns
 * 0..tw-1 are the owned pixels, -r..-1 and th..th+r-1 the halo.  "Device" pointers are host
 * memory on the host backend.  All functions are local. */
#ifndef HY_K_CONV_H
#define HY_K_CONV_H

#include <stdint.h>
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define K_CONV_KMAX 63   /* largest ksize */
#define K_CONV_CMAX 4    /* most channels */

/* The tile of one rank and the filter (every field local input). */
typedef struct {
  int C;              /* channels, 1..4 */
  int r;              /* ksize / 2 */
  int ks;             /* ksize = 2 r + 1 */
  int th, tw;         /* owned rows, columns (each >= r) */
  int H, W;           /* the whole image */
  int gy, gx;         /* global position of owned pixel (0, 0) */
  int fp64;           /* element type double (else float) */
  int renorm;         /* divide by the inside weight (boundary renormalise) */
} k_conv_geom;

/* A rectangle in owned coordinates: rows y0..y1-1, columns x0..x1-1. */
typedef struct {
  int y0, y1, x0, x1;
} k_conv_rect;

/* The sides of a tile, for the boundary fill. */
enum { K_CONV_NORTH = 0, K_CONV_SOUTH = 1, K_CONV_WEST = 2, K_CONV_EAST = 3 };
/* Ghost values at the image's edge. */
enum { K_CONV_FILL_ZERO = 0, K_CONV_FILL_CLAMP = 1, K_CONV_FILL_REFLECT = 2 };

/* The variants, indices into k_conv_ops.v. */
enum { K_CONV_NAIVE = 0, K_CONV_TILED, K_CONV_SEPARABLE, K_CONV_FFT, K_CONV_VENDOR, K_CONV_NVAR };

typedef struct k_conv_plan k_conv_plan;   /* backend-private: buffers, streams, library plans */

/* Compute the output pixels of rect (of the tile's owned region) from the current input.
 * Queued (asynchronous on the GPU).  Local. */
typedef int (*k_conv_fn)(k_conv_plan *p, const k_conv_rect *rc);

typedef struct {
  const char *name;   /* "naive", "tiled", ... */
  k_conv_fn run;      /* NULL: not available on this backend (the driver says so, exit 1) */
  int any_rect;       /* 1: computes any rectangle (the interior runs while the halo travels);
                         0: the whole tile at once, after the halo */
  int exact;          /* 1: the fixed per-pixel order above (pixels identical for any grid) */
} k_conv_variant;

typedef struct {
  const char *name;          /* "host" / "cuda" */
  const char *vendor_name;   /* the vendor library of the vendor variant ("cuDNN"), or NULL */
  const char *fft_name;      /* the FFT library of the fft variant ("cuFFT", "FFTW"), or NULL */
  double floor_bw;           /* bytes/s of the memory floor printed beside the kernels (the GPU:
                                the H200's 4.25 TB/s); 0: none (the host) */
  /* A plan for tile g and variant v (K_CONV_*: what it sets up, e.g. library plans) with the
   * ks x ks weights w (row-major, double; rounded to the element type once) and, for
   * separable kernels, the 1D factor w1 (w = w1 w1^T; NULL otherwise). */
  int (*plan_create)(k_backend *be, const k_conv_geom *g, int v, const double *w, const double *w1,
                     k_conv_plan **out);
  void (*plan_destroy)(k_conv_plan *p);
  /* Host rows (th x tw x C elements of the element type, row length ld elements) into the
   * current input's owned region / the current input's owned region out to the host.
   * Synchronous. */
  int (*put)(k_conv_plan *p, const void *host, int64_t ld);
  int (*get)(k_conv_plan *p, void *host, int64_t ld);
  /* Copy rect of the current input (halo parts allowed) to / from a packed host buffer
   * (rows of (x1-x0) C elements).  Synchronous (they wait for the copy). */
  int (*pack)(k_conv_plan *p, const k_conv_rect *rc, void *host);
  int (*unpack)(k_conv_plan *p, const k_conv_rect *rc, const void *host);
  /* Fill the halo on side `side` by rule (K_CONV_FILL_*) from the owned pixels: NORTH/SOUTH
   * fill the owned columns, WEST/EAST every padded row.  Queued on the halo order. */
  int (*fill)(k_conv_plan *p, int side, int rule);
  /* The output becomes the next pass's input (after every queued computation). */
  int (*swap)(k_conv_plan *p);
  /* Wait for everything queued; add the seconds the filter kernels ran since the last call
   * to *kernel_s (cudaEvent-timed on the GPU; wall time of the compute on the host). */
  int (*finish)(k_conv_plan *p, double *kernel_s);
  k_conv_variant v[K_CONV_NVAR];
  /* The device transport of the halo (app/comm's NCCL point-to-point): rect of the current
   * input to / from a packed DEVICE buffer (the host backend: host memory), queued on the halo
   * order after the last computation (asynchronous), and halo_select(p, 1) making the halo
   * order the backend's current stream, so that a transport queues its messages there, (p, 0)
   * the default stream again. */
  int (*pack_dev)(k_conv_plan *p, const k_conv_rect *rc, void *dev);
  int (*unpack_dev)(k_conv_plan *p, const k_conv_rect *rc, const void *dev);
  int (*halo_select)(k_conv_plan *p, int on);
} k_conv_ops;

/* The table of the backend's kind.  Local. */
const k_conv_ops *k_conv_ops_get(const k_backend *be);
extern const k_conv_ops k_conv_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_conv_ops k_conv_cuda_ops;
#endif

/* ---- shared by both backends: the inside weight from the kernel's prefix sums ---- */
#ifdef __CUDACC__
#define K_CONV_HD __host__ __device__
#else
#define K_CONV_HD
#endif

/* Inside weight of the pixel at global (y, x): the sum of w[i][j] over the taps inside the
 * image, from P, the (ks+1) x (ks+1) prefix sums of w in double (P[a][b] = sum over i < a,
 * j < b).  Additions only, so the host and the GPU get the same double.  Local. */
static inline K_CONV_HD double k_conv_inside_weight(const double *P, int ks, int r, int H, int W,
                                                    int y, int x) {
  int i0 = r - y > 0 ? r - y : 0, i1 = ks - (y + r - (H - 1) > 0 ? y + r - (H - 1) : 0);
  int j0 = r - x > 0 ? r - x : 0, j1 = ks - (x + r - (W - 1) > 0 ? x + r - (W - 1) : 0);
  int n = ks + 1;
  return ((P[i1 * n + j1] - P[i0 * n + j1]) - P[i1 * n + j0]) + P[i0 * n + j0];
}

/* The prefix sums P of the ks x ks weights w ((ks+1)^2 doubles).  Local. */
static inline void k_conv_prefix(const double *w, int ks, double *P) {
  int n = ks + 1;
  for (int b = 0; b < n; b++) P[b] = 0;
  for (int a = 1; a < n; a++) {
    double row = 0;
    P[a * n] = 0;
    for (int b = 1; b < n; b++) {
      row += w[(a - 1) * ks + (b - 1)];
      P[a * n + b] = P[(a - 1) * n + b] + row;
    }
  }
}

/* The FFT variant's transform size of a padded tile side n: the smallest 2^a 3^b 5^c 7^d >= n
 * (a size cuFFT and FFTW transform without Bluestein or a generic-prime pass); the host and
 * the CUDA plans take the same.  Local. */
static inline int k_conv_fft_nice(int n) {
  for (int m = n;; m++) {
    int t = m;
    for (int f = 2; f <= 7; f++)
      while (t % f == 0) t /= f;
    if (t == 1) return m;
  }
}

#ifdef __cplusplus
}
#endif
#endif
