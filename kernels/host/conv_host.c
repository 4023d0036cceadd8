/* conv_host.c - the conv kernels on the host: naive (the seed's loop: one pixel at a time, all
 * channels), tiled (the same per-pixel order, cache-blocked: a strip of pixels accumulated
 * together tap by tap), separable (a vertical then a horizontal 1D pass), fft (FFTW, when the
 * build found it: the padded tile zero-extended to a 2^a 3^b 5^c 7^d size, channels batched,
 * times the kernel's conjugate spectrum; else a NULL entry) and vendor (the naive C loop: the
 * host has no vendor library).  The serial baseline of the seed's tables; the CUDA backend
 * computes the same function. */
#include "k_conv.h"
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HYBRID_HAVE_FFTW
#include <fftw3.h>
#endif

struct k_conv_plan {
  k_conv_geom g;
  size_t es;            /* element size */
  int64_t ld;           /* padded row length, elements */
  void *in, *out;       /* padded buffers ((th + 2r) * ld elements) */
  void *tmp;            /* separable: th x (tw + 2r) x C */
  float *wf, *w1f;      /* weights in float */
  double *wd, *w1d;     /* weights in double */
  double *P;            /* prefix sums of w (inside weight) */
  double kernel_s;      /* compute seconds not yet handed out by finish */
  int fn0, fn1;         /* fft: transform size */
  void *fin, *fout;     /* fft: real input (zero beyond the tile) and result */
  void *spec, *kspec;   /* fft: spectra of the tile (C batched) and of the kernel */
  void *fwd, *inv;      /* fft: FFTW plans (fftw_plan or fftwf_plan) */
};

/* Monotonic seconds.  Local. */
static double host_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Element offset of owned pixel (y, x) in a padded buffer.  Local. */
static inline int64_t pix(const k_conv_plan *p, int y, int x) {
  return (int64_t)(y + p->g.r) * p->ld + (int64_t)(x + p->g.r) * p->g.C;
}

/* The seed's loop and the cache-blocked one, for element type T (no FMA: ISO C, fp-contract
 * off).  DEFINE_HOST(T, SFX, WSEL) defines naive_SFX, tiled_SFX and separable_SFX. */
#define DEFINE_HOST(T, SFX, W2, W1)                                                          \
  static void naive_##SFX(k_conv_plan *p, const k_conv_rect *rc) {                          \
    const k_conv_geom *g = &p->g;                                                           \
    const T *in = (const T *)p->in, *w = p->W2;                                             \
    T *out = (T *)p->out;                                                                   \
    const int C = g->C, ks = g->ks;                                                         \
    for (int y = rc->y0; y < rc->y1; y++)                                                   \
      for (int x = rc->x0; x < rc->x1; x++) {                                               \
        T s[K_CONV_CMAX] = { 0 };                                                           \
        for (int i = 0; i < ks; i++) {                                                      \
          const T *row = in + pix(p, y + i - g->r, x - g->r);                               \
          for (int j = 0; j < ks; j++) {                                                    \
            T wij = w[i * ks + j];                                                          \
            for (int c = 0; c < C; c++) s[c] = s[c] + wij * row[j * C + c];                 \
          }                                                                                 \
        }                                                                                   \
        T *o = out + pix(p, y, x);                                                          \
        if (g->renorm) {                                                                    \
          T wt = (T)k_conv_inside_weight(p->P, ks, g->r, g->H, g->W, g->gy + y, g->gx + x); \
          for (int c = 0; c < C; c++) o[c] = s[c] / wt;                                     \
        } else {                                                                            \
          for (int c = 0; c < C; c++) o[c] = s[c];                                          \
        }                                                                                   \
      }                                                                                     \
  }                                                                                         \
  static void tiled_##SFX(k_conv_plan *p, const k_conv_rect *rc) {                          \
    enum { BX = 64 };                                                                       \
    const k_conv_geom *g = &p->g;                                                           \
    const T *in = (const T *)p->in, *w = p->W2;                                             \
    T *out = (T *)p->out;                                                                   \
    const int C = g->C, ks = g->ks;                                                         \
    T acc[BX * K_CONV_CMAX];                                                                \
    for (int y = rc->y0; y < rc->y1; y++)                                                   \
      for (int xb = rc->x0; xb < rc->x1; xb += BX) {                                        \
        int nx = rc->x1 - xb < BX ? rc->x1 - xb : BX, n = nx * C;                           \
        for (int e = 0; e < n; e++) acc[e] = 0;                                             \
        for (int i = 0; i < ks; i++) {                                                      \
          const T *row = in + pix(p, y + i - g->r, xb - g->r);                              \
          for (int j = 0; j < ks; j++) {                                                    \
            T wij = w[i * ks + j];                                                          \
            const T *src = row + j * C;                                                     \
            for (int e = 0; e < n; e++) acc[e] = acc[e] + wij * src[e];                     \
          }                                                                                 \
        }                                                                                   \
        T *o = out + pix(p, y, xb);                                                         \
        for (int e = 0; e < n; e++) {                                                       \
          if (g->renorm) {                                                                  \
            T wt = (T)k_conv_inside_weight(p->P, ks, g->r, g->H, g->W, g->gy + y,           \
                                           g->gx + xb + e / C);                             \
            o[e] = acc[e] / wt;                                                             \
          } else {                                                                          \
            o[e] = acc[e];                                                                  \
          }                                                                                 \
        }                                                                                   \
      }                                                                                     \
  }                                                                                         \
  static void separable_##SFX(k_conv_plan *p, const k_conv_rect *rc) {                      \
    const k_conv_geom *g = &p->g;                                                           \
    const T *in = (const T *)p->in, *w1 = p->W1;                                            \
    T *out = (T *)p->out, *tmp = (T *)p->tmp;                                               \
    const int C = g->C, ks = g->ks, r = g->r;                                               \
    const int64_t tl = (int64_t)(g->tw + 2 * r) * C; /* tmp row: padded columns */          \
    for (int y = rc->y0; y < rc->y1; y++) {                                                 \
      T *t = tmp + (int64_t)y * tl;                                                         \
      int e0 = (rc->x0) * C, e1 = (rc->x1 + 2 * r) * C; /* padded columns x0-r .. x1+r */   \
      for (int e = e0; e < e1; e++) t[e] = 0;                                               \
      for (int i = 0; i < ks; i++) {                                                        \
        const T *row = in + (int64_t)(y + i) * p->ld;                                       \
        for (int e = e0; e < e1; e++) t[e] = t[e] + w1[i] * row[e];                         \
      }                                                                                     \
      for (int x = rc->x0; x < rc->x1; x++) {                                               \
        T s[K_CONV_CMAX] = { 0 };                                                           \
        for (int j = 0; j < ks; j++)                                                        \
          for (int c = 0; c < C; c++) s[c] = s[c] + w1[j] * t[(x + j) * C + c];             \
        T *o = out + pix(p, y, x);                                                          \
        if (g->renorm) {                                                                    \
          T wt = (T)k_conv_inside_weight(p->P, ks, r, g->H, g->W, g->gy + y, g->gx + x);    \
          for (int c = 0; c < C; c++) o[c] = s[c] / wt;                                     \
        } else {                                                                            \
          for (int c = 0; c < C; c++) o[c] = s[c];                                          \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }

DEFINE_HOST(float, f, wf, w1f)
DEFINE_HOST(double, d, wd, w1d)

/* Time one computation into the plan.  Local. */
#define HOST_VARIANT(NAME)                                                    \
  static int host_##NAME(k_conv_plan *p, const k_conv_rect *rc) {             \
    if (rc->y1 <= rc->y0 || rc->x1 <= rc->x0) return HY_OK;                   \
    double t0 = host_now();                                                   \
    if (p->g.fp64) NAME##_d(p, rc);                                           \
    else NAME##_f(p, rc);                                                     \
    p->kernel_s += host_now() - t0;                                           \
    return HY_OK;                                                             \
  }
HOST_VARIANT(naive)
HOST_VARIANT(tiled)

/* Separable: needs the 1D factor.  Local. */
static int host_separable(k_conv_plan *p, const k_conv_rect *rc) {
  if (!p->w1d) return hy_err(HY_EUSAGE, "separable: this kernel has no 1D factor");
  if (rc->y1 <= rc->y0 || rc->x1 <= rc->x0) return HY_OK;
  double t0 = host_now();
  if (p->g.fp64) separable_d(p, rc);
  else separable_f(p, rc);
  p->kernel_s += host_now() - t0;
  return HY_OK;
}


#ifdef HYBRID_HAVE_FFTW
/* FFTW plans and the kernel's spectrum for element type T with FFTW prefix PX.  Local. */
#define DEFINE_FFT(T, SFX, PX)                                                                 \
  static int fft_setup_##SFX(k_conv_plan *p, const double *w) {                               \
    const k_conv_geom *g = &p->g;                                                             \
    int n[2] = { p->fn0, p->fn1 }, C = g->C;                                                  \
    size_t nc = (size_t)n[0] * (n[1] / 2 + 1), nr = (size_t)n[0] * n[1];                      \
    p->fin = PX##_malloc(nr * C * sizeof(T));                                                 \
    p->fout = PX##_malloc(nr * C * sizeof(T));                                                \
    p->spec = PX##_malloc(nc * C * sizeof(PX##_complex));                                     \
    p->kspec = PX##_malloc(nc * sizeof(PX##_complex));                                        \
    T *kr = PX##_malloc(nr * sizeof(T));                                                      \
    if (!p->fin || !p->fout || !p->spec || !p->kspec || !kr)                                  \
      return hy_err(HY_ESYS, "conv: out of memory for the fft of a %d x %d tile", n[0], n[1]); \
    int onembed[2] = { n[0], n[1] / 2 + 1 };                                                  \
    p->fwd = PX##_plan_many_dft_r2c(2, n, C, (T *)p->fin, n, C, 1, (PX##_complex *)p->spec,   \
                                    onembed, 1, (int)nc, FFTW_ESTIMATE);                      \
    p->inv = PX##_plan_many_dft_c2r(2, n, C, (PX##_complex *)p->spec, onembed, 1, (int)nc,    \
                                    (T *)p->fout, n, C, 1, FFTW_ESTIMATE);                    \
    PX##_plan kp = PX##_plan_dft_r2c_2d(n[0], n[1], kr, (PX##_complex *)p->kspec, FFTW_ESTIMATE); \
    if (!p->fwd || !p->inv || !kp) return hy_err(HY_ESYS, "conv: FFTW could not plan a %d x %d transform", n[0], n[1]); \
    memset(p->fin, 0, nr * C * sizeof(T));                                                    \
    memset(kr, 0, nr * sizeof(T));                                                            \
    for (int i = 0; i < g->ks; i++)                                                           \
      for (int j = 0; j < g->ks; j++) kr[(size_t)i * n[1] + j] = (T)w[i * g->ks + j];         \
    PX##_execute(kp);                                                                         \
    PX##_destroy_plan(kp);                                                                    \
    PX##_free(kr);                                                                            \
    return HY_OK;                                                                             \
  }                                                                                           \
  static void fft_run_##SFX(k_conv_plan *p) {                                                 \
    const k_conv_geom *g = &p->g;                                                             \
    const int C = g->C, r = g->r;                                                             \
    size_t nc = (size_t)p->fn0 * (p->fn1 / 2 + 1), fl = (size_t)p->fn1 * C;                   \
    for (int y = 0; y < g->th + 2 * r; y++)                                                   \
      memcpy((T *)p->fin + y * fl, (const T *)p->in + (size_t)y * p->ld, (size_t)p->ld * sizeof(T)); \
    PX##_execute((PX##_plan)p->fwd);                                                          \
    PX##_complex *sp = (PX##_complex *)p->spec, *ks = (PX##_complex *)p->kspec;              \
    for (size_t e = 0; e < nc * C; e++) {                                                     \
      T ar = sp[e][0], ai = sp[e][1], br = ks[e % nc][0], bi = ks[e % nc][1];                 \
      sp[e][0] = ar * br + ai * bi;                                                           \
      sp[e][1] = ai * br - ar * bi;                                                           \
    }                                                                                         \
    PX##_execute((PX##_plan)p->inv);                                                          \
    T scale = (T)(1.0 / ((double)p->fn0 * p->fn1));                                           \
    T *out = (T *)p->out;                                                                     \
    for (int y = 0; y < g->th; y++)                                                           \
      for (int x = 0; x < g->tw; x++) {                                                       \
        const T *src = (const T *)p->fout + y * fl + (size_t)x * C;                           \
        T *o = out + pix(p, y, x);                                                            \
        T wt = g->renorm ? (T)k_conv_inside_weight(p->P, g->ks, r, g->H, g->W, g->gy + y, g->gx + x) : (T)1; \
        for (int c = 0; c < C; c++) o[c] = g->renorm ? src[c] * scale / wt : src[c] * scale;   \
      }                                                                                       \
  }
DEFINE_FFT(float, f, fftwf)
DEFINE_FFT(double, d, fftw)

/* The fft variant on the whole tile.  Local. */
static int host_fft(k_conv_plan *p, const k_conv_rect *rc) {
  double t0 = host_now();
  if (p->g.fp64) fft_run_d(p);
  else fft_run_f(p);
  p->kernel_s += host_now() - t0;
  return HY_OK;
}
#define HOST_FFT_FN host_fft
#define HOST_FFT_NAME "FFTW"
#else
#define HOST_FFT_FN NULL
#define HOST_FFT_NAME NULL
#endif

/* Free a plan.  Local. */
static void host_plan_destroy(k_conv_plan *p) {
  if (!p) return;
#ifdef HYBRID_HAVE_FFTW
  if (p->g.fp64) {
    if (p->fwd) fftw_destroy_plan((fftw_plan)p->fwd);
    if (p->inv) fftw_destroy_plan((fftw_plan)p->inv);
  } else {
    if (p->fwd) fftwf_destroy_plan((fftwf_plan)p->fwd);
    if (p->inv) fftwf_destroy_plan((fftwf_plan)p->inv);
  }
  fftw_free(p->fin); fftw_free(p->fout); fftw_free(p->spec); fftw_free(p->kspec);
#endif
  free(p->in); free(p->out); free(p->tmp);
  free(p->wf); free(p->w1f); free(p->wd); free(p->w1d); free(p->P);
  free(p);
}

/* A plan: two padded buffers (zeroed), the weights in both types, the prefix sums.  Local. */
static int host_plan_create(k_backend *be, const k_conv_geom *g, int v, const double *w, const double *w1,
                            k_conv_plan **out) {
  k_conv_plan *p = NULL;
  HY_CALLOC(p, 1);
  p->g = *g;
  p->es = g->fp64 ? sizeof(double) : sizeof(float);
  p->ld = (int64_t)(g->tw + 2 * g->r) * g->C;
  size_t nel = (size_t)(g->th + 2 * g->r) * (size_t)p->ld;
  p->in = calloc(nel, p->es);
  p->out = calloc(nel, p->es);
  if (w1) p->tmp = calloc((size_t)g->th * (size_t)p->ld, p->es);
  if (!p->in || !p->out || (w1 && !p->tmp)) {
    host_plan_destroy(p);
    return hy_err(HY_ESYS, "conv: out of memory for a %d x %d tile (%zu bytes per buffer)", g->th,
                  g->tw, nel * (g->fp64 ? 8 : 4));
  }
  int kk = g->ks * g->ks;
  HY_MALLOC(p->wf, kk);
  HY_MALLOC(p->wd, kk);
  HY_MALLOC(p->P, (g->ks + 1) * (g->ks + 1));
  for (int i = 0; i < kk; i++) { p->wd[i] = w[i]; p->wf[i] = (float)w[i]; }
  if (w1) {
    HY_MALLOC(p->w1f, g->ks);
    HY_MALLOC(p->w1d, g->ks);
    for (int i = 0; i < g->ks; i++) { p->w1d[i] = w1[i]; p->w1f[i] = (float)w1[i]; }
  }
  k_conv_prefix(w, g->ks, p->P);
#ifdef HYBRID_HAVE_FFTW
  if (v == K_CONV_FFT) {
    p->fn0 = k_conv_fft_nice(g->th + 2 * g->r);
    p->fn1 = k_conv_fft_nice(g->tw + 2 * g->r);
    int rc = g->fp64 ? fft_setup_d(p, w) : fft_setup_f(p, w);
    if (rc != HY_OK) {
      host_plan_destroy(p);
      return rc;
    }
  }
#endif
  *out = p;
  return HY_OK;
}

/* Owned region from host rows.  Local. */
static int host_put(k_conv_plan *p, const void *host, int64_t ld) {
  size_t row = (size_t)p->g.tw * p->g.C * p->es;
  for (int y = 0; y < p->g.th; y++)
    memcpy((char *)p->in + pix(p, y, 0) * p->es, (const char *)host + (size_t)y * ld * p->es, row);
  return HY_OK;
}

/* Owned region to host rows.  Local. */
static int host_get(k_conv_plan *p, void *host, int64_t ld) {
  size_t row = (size_t)p->g.tw * p->g.C * p->es;
  for (int y = 0; y < p->g.th; y++)
    memcpy((char *)host + (size_t)y * ld * p->es, (const char *)p->in + pix(p, y, 0) * p->es, row);
  return HY_OK;
}

/* Rect of the input to a packed buffer.  Local. */
static int host_pack(k_conv_plan *p, const k_conv_rect *rc, void *host) {
  size_t row = (size_t)(rc->x1 - rc->x0) * p->g.C * p->es;
  for (int y = rc->y0; y < rc->y1; y++)
    memcpy((char *)host + (size_t)(y - rc->y0) * row, (const char *)p->in + pix(p, y, rc->x0) * p->es, row);
  return HY_OK;
}

/* A packed buffer into rect of the input.  Local. */
static int host_unpack(k_conv_plan *p, const k_conv_rect *rc, const void *host) {
  size_t row = (size_t)(rc->x1 - rc->x0) * p->g.C * p->es;
  for (int y = rc->y0; y < rc->y1; y++)
    memcpy((char *)p->in + pix(p, y, rc->x0) * p->es, (const char *)host + (size_t)(y - rc->y0) * row, row);
  return HY_OK;
}

/* The owned row/column that ghost k (1..r) beyond the edge copies (-1: zeros).  Local. */
static int ghost_src(int rule, int k, int n, int low) {
  if (rule == K_CONV_FILL_ZERO) return -1;
  if (rule == K_CONV_FILL_CLAMP) return low ? 0 : n - 1;
  return low ? k - 1 : n - k; /* reflect: d c b a | a b c d */
}

/* Boundary fill of one side.  Local. */
static int host_fill(k_conv_plan *p, int side, int rule) {
  const k_conv_geom *g = &p->g;
  const int C = g->C;
  char *in = (char *)p->in;
  size_t es = p->es;
  for (int k = 1; k <= g->r; k++) {
    if (side == K_CONV_NORTH || side == K_CONV_SOUTH) {
      int low = side == K_CONV_NORTH, dst = low ? -k : g->th - 1 + k;
      int src = ghost_src(rule, k, g->th, low);
      size_t row = (size_t)g->tw * C * es;
      if (src < 0) memset(in + pix(p, dst, 0) * es, 0, row);
      else memcpy(in + pix(p, dst, 0) * es, in + pix(p, src, 0) * es, row);
    } else {
      int low = side == K_CONV_WEST, dst = low ? -k : g->tw - 1 + k;
      int src = ghost_src(rule, k, g->tw, low);
      for (int y = -g->r; y < g->th + g->r; y++) {
        if (src < 0) memset(in + pix(p, y, dst) * es, 0, C * es);
        else memcpy(in + pix(p, y, dst) * es, in + pix(p, y, src) * es, C * es);
      }
    }
  }
  return HY_OK;
}

/* Output becomes input.  Local. */
static int host_swap(k_conv_plan *p) {
  void *t = p->in;
  p->in = p->out;
  p->out = t;
  return HY_OK;
}

/* Hand out the compute seconds.  Local. */
static int host_finish(k_conv_plan *p, double *kernel_s) {
  if (kernel_s) *kernel_s += p->kernel_s;
  p->kernel_s = 0;
  return HY_OK;
}

/* No streams on the host: the halo order is program order.  Local. */
static int host_halo_select(k_conv_plan *p, int on) { return HY_OK; }

const k_conv_ops k_conv_host_ops = {
  .name = "host",
  .vendor_name = NULL,
  .fft_name = HOST_FFT_NAME,
  .floor_bw = 0,
  .plan_create = host_plan_create,
  .plan_destroy = host_plan_destroy,
  .put = host_put,
  .get = host_get,
  .pack = host_pack,
  .unpack = host_unpack,
  .fill = host_fill,
  .swap = host_swap,
  .finish = host_finish,
  .v = {
    [K_CONV_NAIVE] = { .name = "naive", .run = host_naive, .any_rect = 1, .exact = 1 },
    [K_CONV_TILED] = { .name = "tiled", .run = host_tiled, .any_rect = 1, .exact = 1 },
    [K_CONV_SEPARABLE] = { .name = "separable", .run = host_separable, .any_rect = 1, .exact = 1 },
    [K_CONV_FFT] = { .name = "fft", .run = HOST_FFT_FN, .any_rect = 0, .exact = 0 },
    [K_CONV_VENDOR] = { .name = "vendor", .run = host_naive, .any_rect = 1, .exact = 1 },
  },
  .pack_dev = host_pack,      /* "device" memory is host memory here */
  .unpack_dev = host_unpack,
  .halo_select = host_halo_select,
};
