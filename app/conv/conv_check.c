/* conv_check.c - the in-run check of the conv workload (rank 0): a host double-precision
 * reference of the sampled pixels, computed from the input image through all passes over the
 * pixel's cone of dependence (the region it depends on shrinks by r each pass), with the
 * boundary rule applied by coordinates (not by a halo), beside the same sums of |w| |x| that
 * bound the rounding.  All pixels when that is cheap (at most check_budget multiply-adds);
 * else the four corners, the edge midpoints, the centre and a seeded sample. */
#include "conv.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Values (v) and bounds (a) of a rectangle of the image, C interleaved. */
typedef struct {
  int y0, y1, x0, x1;
  double *v, *a;
} conv_region;

/* The image coordinate that tap coordinate t (maybe outside [0, n)) reads under the boundary
 * rule, or -1 when it contributes nothing.  Local. */
static int conv_map(int t, int n, int boundary) {
  if (t >= 0 && t < n) return t;
  if (boundary == CONV_BND_CLAMP) return t < 0 ? 0 : n - 1;
  if (boundary == CONV_BND_REFLECT) return t < 0 ? -t - 1 : 2 * n - 1 - t;
  return -1;
}

/* One pass of the reference from src into dst (dst within src shrunk by r).  Local. */
static void conv_ref_pass(const conv_opts *o, const conv_filter *f, const double *P, int H, int W,
                          int C, const conv_region *src, conv_region *dst) {
  int ks = f->ks, r = f->r, sw = src->x1 - src->x0, dw = dst->x1 - dst->x0;
  for (int y = dst->y0; y < dst->y1; y++)
    for (int x = dst->x0; x < dst->x1; x++) {
      double s[K_CONV_CMAX] = { 0 }, sa[K_CONV_CMAX] = { 0 };
      for (int i = 0; i < ks; i++) {
        int yy = conv_map(y + i - r, H, o->boundary);
        if (yy < 0) continue;
        for (int j = 0; j < ks; j++) {
          int xx = conv_map(x + j - r, W, o->boundary);
          if (xx < 0) continue;
          double w = f->w[i * ks + j];
          size_t e = ((size_t)(yy - src->y0) * sw + (xx - src->x0)) * C;
          for (int c = 0; c < C; c++) {
            s[c] += w * src->v[e + c];
            sa[c] += fabs(w) * src->a[e + c];
          }
        }
      }
      double wt = o->boundary == CONV_BND_RENORM ? k_conv_inside_weight(P, ks, r, H, W, y, x) : 1.0;
      size_t d = ((size_t)(y - dst->y0) * dw + (x - dst->x0)) * C;
      for (int c = 0; c < C; c++) {
        dst->v[d + c] = s[c] / wt;
        dst->a[d + c] = sa[c] / fabs(wt);
      }
    }
}

/* The region of target [ty0, ty1) x [tx0, tx1) grown by g, clipped to the image.  Local. */
static conv_region conv_grow(int ty0, int ty1, int tx0, int tx1, int g, int H, int W) {
  conv_region R = { ty0 - g < 0 ? 0 : ty0 - g, ty1 + g > H ? H : ty1 + g,
                    tx0 - g < 0 ? 0 : tx0 - g, tx1 + g > W ? W : tx1 + g, NULL, NULL };
  return R;
}

/* Reference values (and bounds) of the target rectangle after all passes; ref/abs hold
 * (ty1-ty0) x (tx1-tx0) x C.  Local. */
static void conv_reference(const conv_opts *o, const conv_filter *f, const double *P,
                           const conv_image *in, int ty0, int ty1, int tx0, int tx1, double *ref,
                           double *abs_out) {
  int H = in->H, W = in->W, C = in->C, N = o->passes;
  conv_region a = conv_grow(ty0, ty1, tx0, tx1, f->r * N, H, W);
  size_t na = (size_t)(a.y1 - a.y0) * (a.x1 - a.x0) * C;
  HY_MALLOC(a.v, na);
  HY_MALLOC(a.a, na);
  for (int y = a.y0; y < a.y1; y++)
    for (int x = a.x0; x < a.x1; x++)
      for (int c = 0; c < C; c++) {
        size_t e = ((size_t)y * W + x) * C + c, d = ((size_t)(y - a.y0) * (a.x1 - a.x0) + (x - a.x0)) * C + c;
        double v = in->fp64 ? ((const double *)in->px)[e] : ((const float *)in->px)[e];
        a.v[d] = v;
        a.a[d] = fabs(v);
      }
  for (int p = 1; p <= N; p++) {
    conv_region b = conv_grow(ty0, ty1, tx0, tx1, f->r * (N - p), H, W);
    size_t nb = (size_t)(b.y1 - b.y0) * (b.x1 - b.x0) * C;
    HY_MALLOC(b.v, nb);
    HY_MALLOC(b.a, nb);
    conv_ref_pass(o, f, P, H, W, C, &a, &b);
    free(a.v);
    free(a.a);
    a = b;
  }
  memcpy(ref, a.v, (size_t)(ty1 - ty0) * (tx1 - tx0) * C * sizeof *ref);
  memcpy(abs_out, a.a, (size_t)(ty1 - ty0) * (tx1 - tx0) * C * sizeof *abs_out);
  free(a.v);
  free(a.a);
}

/* Multiply-adds of one pixel's cone through N passes.  Local. */
static double conv_cone_cost(const conv_filter *f, int N, int C) {
  double s = 0;
  for (int p = 1; p <= N; p++) {
    double side = 2.0 * f->r * (N - p) + 1;
    s += side * side;
  }
  return s * f->ks * f->ks * C;
}

/* The error bound of the variant: rounding of ks^2 products and sums per pass and output
 * (plus the division), the fft's transforms.  Local. */
static double conv_tolerance(const conv_opts *o, const conv_filter *f, int variant, int H, int W) {
  double u = o->fp64 ? 0x1p-53 : 0x1p-24, per = (double)f->ks * f->ks + 2;
  if (variant == K_CONV_FFT) per += 16 * log2((double)H * W + 2);
  return 2 * o->passes * per * u;
}

/* Compare the result with the reference (see conv.h).  Local (rank 0). */
int conv_check(const conv_opts *o, const conv_filter *f, const conv_image *in, const conv_image *out,
               conv_run *run, char *desc, size_t desclen) {
  int H = in->H, W = in->W, C = in->C;
  double P[(K_CONV_KMAX + 1) * (K_CONV_KMAX + 1)];
  k_conv_prefix(f->w, f->ks, P);
  double full = (double)H * W * C * f->ks * f->ks * o->passes, cone = conv_cone_cost(f, o->passes, C);
  int all = o->check_samples == 0 || full <= o->check_budget;
  double err = 0, scale = 0;
  int64_t n = 0;
  if (all) {
    size_t ne = (size_t)H * W * C;
    double *ref = NULL, *ab = NULL;
    HY_MALLOC(ref, ne);
    HY_MALLOC(ab, ne);
    conv_reference(o, f, P, in, 0, H, 0, W, ref, ab);
    for (size_t e = 0; e < ne; e++) {
      double v = out->fp64 ? ((const double *)out->px)[e] : ((const float *)out->px)[e];
      double d = fabs(v - ref[e]);
      if (!(d <= err)) err = d;   /* NaN wins */
      if (ab[e] > scale) scale = ab[e];
    }
    n = H * (int64_t)W;
    free(ref);
    free(ab);
    snprintf(desc, desclen, "all %lld pixels", (long long)n);
  } else {
    int64_t ns = o->check_samples;
    if (ns * cone > o->check_budget) ns = (int64_t)(o->check_budget / cone);
    if (ns < 64) ns = 64;
    int fixed[9][2] = { { 0, 0 }, { 0, W - 1 }, { H - 1, 0 }, { H - 1, W - 1 }, { 0, W / 2 },
                        { H - 1, W / 2 }, { H / 2, 0 }, { H / 2, W - 1 }, { H / 2, W / 2 } };
    for (int64_t s = 0; s < ns + 9; s++) {
      int y = s < 9 ? fixed[s][0] : (int)(hy_rand_u01(o->seed, 0xC4EC, (uint64_t)s) * H);
      int x = s < 9 ? fixed[s][1] : (int)(hy_rand_u01(o->seed, 0xC4ED, (uint64_t)s) * W);
      double ref[K_CONV_CMAX], ab[K_CONV_CMAX];
      conv_reference(o, f, P, in, y, y + 1, x, x + 1, ref, ab);
      for (int c = 0; c < C; c++) {
        size_t e = ((size_t)y * W + x) * C + c;
        double v = out->fp64 ? ((const double *)out->px)[e] : ((const float *)out->px)[e];
        double d = fabs(v - ref[c]);
        if (!(d <= err)) err = d;
        if (ab[c] > scale) scale = ab[c];
      }
      n++;
    }
    snprintf(desc, desclen, "%lld sampled pixels (corners, edges, centre, seeded)", (long long)n);
  }
  run->checked = n;
  run->max_err = scale > 0 ? err / scale : err;
  run->ulp_bound = conv_tolerance(o, f, run->variant, H, W);
  run->passed = run->max_err <= run->ulp_bound;
  return HY_OK;
}
