/* vec_host.c - the vector operations of k_vec.h on the host (plain C loops, no scratch).
 * Dot products sum blocks of VEC_CHUNK terms in order, then the block sums in order; the fused
 * update + dots keeps that order, so it gives the separate calls' values bit for bit. */
#include "k_vec.h"
#include "hybrid.h"

#define VEC_CHUNK 1024

/* Nothing to allocate on the host.  Local. */
static int h_open(k_vec *v) {
  v->impl = NULL;
  return HY_OK;
}
static int h_close(k_vec *v) {
  (void)v;
  return HY_OK;
}

/* buf[i] = x[idx[i]].  Local. */
static int h_gather(k_vec *v, int64_t n, const int32_t *idx, const double *x, double *buf) {
  (void)v;
  for (int64_t i = 0; i < n; i++) buf[i] = x[idx[i]];
  return HY_OK;
}

/* z[i0..i1) = a x + b y + c z (c == 0: z not read).  Local. */
static void h_upd_range(int64_t i0, int64_t i1, double a, const double *x, double b,
                        const double *y, double c, double *z) {
  if (c == 0) {
    for (int64_t i = i0; i < i1; i++) z[i] = a * x[i] + b * y[i];
  } else {
    for (int64_t i = i0; i < i1; i++) z[i] = a * x[i] + b * y[i] + c * z[i];
  }
}

/* z = a x + b y + c z.  Local. */
static int h_axpbypcz(k_vec *v, int64_t n, double a, const double *x, double b, const double *y,
                      double c, double *z) {
  (void)v;
  h_upd_range(0, n, a, x, b, y, c, z);
  return HY_OK;
}

/* Local dots of up to K_VEC_MAXDOTS pairs, by chunks in order.  Local. */
static int h_dots(k_vec *v, int64_t n, int npair, const double *const *x,
                  const double *const *y, double *out) {
  (void)v;
  if (npair < 1 || npair > K_VEC_MAXDOTS)
    return hy_err(HY_ESYS, "vec host: %d dot products in one pass (1..%d)", npair, K_VEC_MAXDOTS);
  for (int p = 0; p < npair; p++) {
    double s = 0;
    for (int64_t i = 0; i < n; i += VEC_CHUNK) {
      double b = 0;
      int64_t e = i + VEC_CHUNK < n ? i + VEC_CHUNK : n;
      for (int64_t j = i; j < e; j++) b += x[p][j] * y[p][j];
      s += b;
    }
    out[p] = s;
  }
  return HY_OK;
}

/* z = a x + b y + c z and the dots of the updated vectors, one pass by chunks (a chunk of z is
 * updated, then its terms summed while in cache), every sum in h_dots' order.  Local. */
static int h_axpbypcz_dots(k_vec *v, int64_t n, double a, const double *x, double b,
                           const double *y, double c, double *z, int npair,
                           const double *const *dx, const double *const *dy, double *out) {
  (void)v;
  if (npair < 1 || npair > K_VEC_MAXDOTS)
    return hy_err(HY_ESYS, "vec host: %d dot products in one pass (1..%d)", npair, K_VEC_MAXDOTS);
  double s[K_VEC_MAXDOTS] = { 0 };
  for (int64_t i = 0; i < n; i += VEC_CHUNK) {
    int64_t e = i + VEC_CHUNK < n ? i + VEC_CHUNK : n;
    h_upd_range(i, e, a, x, b, y, c, z);
    for (int p = 0; p < npair; p++) {
      double bs = 0;
      for (int64_t j = i; j < e; j++) bs += dx[p][j] * dy[p][j];
      s[p] += bs;
    }
  }
  for (int p = 0; p < npair; p++) out[p] = s[p];
  return HY_OK;
}

const k_vec_ops k_vec_host_ops = {
  .open = h_open,
  .close = h_close,
  .gather = h_gather,
  .axpbypcz = h_axpbypcz,
  .dots = h_dots,
  .axpbypcz_dots = h_axpbypcz_dots,
};
