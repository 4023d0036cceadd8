/* gauss_host.c - the gauss kernels on the host backend: plain C loops for the seed's kernels
 * and row moves, BLAS/LAPACK (dgemm, dtrsm, dgetrf, ...) for the dense algebra. */
#include "k_gauss.h"
#include "hybrid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Fortran BLAS / LAPACK (reference or optimized, whatever the build links). */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);
void strsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const float *alpha, const float *a, const int *lda, float *b,
            const int *ldb);
void dtrsv_(const char *uplo, const char *ta, const char *diag, const int *n, const double *a,
            const int *lda, double *x, const int *incx);
void strsv_(const char *uplo, const char *ta, const char *diag, const int *n, const float *a,
            const int *lda, float *x, const int *incx);
void dgemv_(const char *ta, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);
void sgemv_(const char *ta, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *x, const int *incx, const float *beta, float *y,
            const int *incy);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *t, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info);

#define ELEM(sp) ((sp) ? sizeof(float) : sizeof(double))

/* Check that a size fits the 32-bit BLAS interface.  Local. */
static int fits(int64_t v, const char *what) {
  if (v > 2147483647LL) return hy_err(HY_EUSAGE, "host backend: %s = %lld exceeds the 32-bit BLAS "
                                      "interface", what, (long long)v);
  return HY_OK;
}

/* The seed's first kernel: scale the pivot row.  Local. */
static int h_row_scale(k_backend *be, int sp, void *row, int64_t len, double pivot) {
  if (sp) {
    float *r = row, p = (float)pivot;
    for (int64_t j = 1; j < len; j++) r[j] = r[j] / p;
    if (len) r[0] = 1;
  } else {
    double *r = row;
    for (int64_t j = 1; j < len; j++) r[j] = r[j] / pivot;
    if (len) r[0] = 1;
  }
  return HY_OK;
}

/* The seed's second kernel: rank-1 update of the rows below the pivot.  Local. */
static int h_rank1(k_backend *be, int sp, void *a, int64_t lda, int64_t m, int64_t k,
                   int64_t ncols, const void *prow) {
  for (int64_t i = 0; i < m; i++) {
    if (sp) {
      float *r = (float *)a + i * lda;
      const float *p = prow;
      float f = r[k];
      for (int64_t j = k + 1; j < ncols; j++) r[j] = r[j] - f * p[j - k];
    } else {
      double *r = (double *)a + i * lda;
      const double *p = prow;
      double f = r[k];
      for (int64_t j = k + 1; j < ncols; j++) r[j] = r[j] - f * p[j - k];
    }
  }
  return HY_OK;
}

/* The seed's third kernel: zero column k (keeping the multipliers in l if asked).  Local. */
static int h_col_zero(k_backend *be, int sp, void *a, int64_t lda, int64_t m, int64_t k, void *l,
                      int64_t ldl) {
  for (int64_t i = 0; i < m; i++) {
    if (sp) {
      float *r = (float *)a + i * lda;
      if (l) ((float *)l)[i * ldl + k] = r[k];
      r[k] = 0;
    } else {
      double *r = (double *)a + i * lda;
      if (l) ((double *)l)[i * ldl + k] = r[k];
      r[k] = 0;
    }
  }
  return HY_OK;
}

/* Largest |a[i][k]| and its first row.  Local. */
static int h_col_absmax(k_backend *be, int sp, const void *a, int64_t lda, int64_t m, int64_t k,
                        double *val, int64_t *idx) {
  double best = -1;
  int64_t bi = 0;
  for (int64_t i = 0; i < m; i++) {
    double v = sp ? fabs((double)((const float *)a)[i * lda + k]) : fabs(((const double *)a)[i * lda + k]);
    if (v > best || (isnan(v) && best >= 0)) { best = v; bi = i; }
  }
  *val = best;
  *idx = bi;
  return HY_OK;
}

/* Swap two vectors.  Local. */
static int h_swap(k_backend *be, int sp, void *x, void *y, int64_t len) {
  size_t e = ELEM(sp);
  unsigned char tmp[64], *px = x, *py = y;
  for (int64_t i = 0; i < len; i++) {
    memcpy(tmp, px + i * e, e);
    memcpy(px + i * e, py + i * e, e);
    memcpy(py + i * e, tmp, e);
  }
  return HY_OK;
}

/* Smallest |diagonal| of an m x n factor.  Local. */
static void diag_min(int sp, int64_t m, int64_t n, const void *a, int64_t lda, double *minpiv,
                     int64_t *minidx) {
  int64_t d = m < n ? m : n;
  double mn = INFINITY;
  int64_t mi = 0;
  for (int64_t j = 0; j < d; j++) {
    double v = sp ? fabs((double)((const float *)a)[j + j * lda]) : fabs(((const double *)a)[j + j * lda]);
    if (!(v >= mn)) { mn = v; mi = j; }
  }
  *minpiv = mn;
  *minidx = mi;
}

/* LAPACK getrf of a panel, pivots made 0-based.  Local. */
static int h_getrf(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *hipiv,
                   int *info, double *minpiv, int64_t *minidx) {
  HY_CALL(fits(lda, "lda"));
  int im = (int)m, in = (int)n, ilda = (int)(lda > 0 ? lda : 1), inf = 0;
  if (sp) sgetrf_(&im, &in, a, &ilda, hipiv, &inf);
  else dgetrf_(&im, &in, a, &ilda, hipiv, &inf);
  if (inf < 0) return hy_err(HY_ESYS, "host backend: getrf argument %d illegal", -inf);
  int64_t d = m < n ? m : n;
  for (int64_t j = 0; j < d; j++) hipiv[j] -= 1;
  *info = inf;
  diag_min(sp, m, n, a, lda, minpiv, minidx);
  return HY_OK;
}

/* Sequence of row swaps on ncols columns.  Local. */
static int h_laswp(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nswap,
                   const int *hipiv) {
  for (int64_t j = 0; j < ncols; j++) {
    for (int i = 0; i < nswap; i++) {
      int p = hipiv[i];
      if (p == i) continue;
      if (sp) {
        float *c = (float *)a + j * lda, t = c[i];
        c[i] = c[p];
        c[p] = t;
      } else {
        double *c = (double *)a + j * lda, t = c[i];
        c[i] = c[p];
        c[p] = t;
      }
    }
  }
  return HY_OK;
}

/* Permute rows in place through a column of scratch.  Local. */
static int h_rows_perm(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int ns,
                       const int *hrows, const int *hsrc) {
  double *tmp = NULL;
  HY_MALLOC(tmp, ns > 0 ? ns : 1);
  for (int64_t j = 0; j < ncols; j++) {
    for (int r = 0; r < ns; r++)
      tmp[r] = sp ? ((float *)a)[hrows[r] + j * lda] : ((double *)a)[hrows[r] + j * lda];
    for (int r = 0; r < ns; r++) {
      if (sp) ((float *)a)[hrows[r] + j * lda] = (float)tmp[hsrc[r]];
      else ((double *)a)[hrows[r] + j * lda] = tmp[hsrc[r]];
    }
  }
  free(tmp);
  return HY_OK;
}

/* Gather rows into a column-major nrows x ncols buffer.  Local. */
static int h_rows_get(k_backend *be, int sp, const void *a, int64_t lda, int64_t ncols, int nrows,
                      const int *hrows, void *buf) {
  for (int64_t j = 0; j < ncols; j++)
    for (int r = 0; r < nrows; r++) {
      if (sp) ((float *)buf)[r + j * nrows] = ((const float *)a)[hrows[r] + j * lda];
      else ((double *)buf)[r + j * nrows] = ((const double *)a)[hrows[r] + j * lda];
    }
  return HY_OK;
}

/* Scatter rows from a column-major nrows x ncols buffer.  Local. */
static int h_rows_put(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nrows,
                      const int *hrows, const void *buf) {
  for (int64_t j = 0; j < ncols; j++)
    for (int r = 0; r < nrows; r++) {
      if (sp) ((float *)a)[hrows[r] + j * lda] = ((const float *)buf)[r + j * nrows];
      else ((double *)a)[hrows[r] + j * lda] = ((const double *)buf)[r + j * nrows];
    }
  return HY_OK;
}

/* B = L^-1 B (unit lower).  Local. */
static int h_trsm_lunit(k_backend *be, int sp, int64_t m, int64_t n, const void *l, int64_t ldl,
                        void *b, int64_t ldb) {
  if (m <= 0 || n <= 0) return HY_OK;
  HY_CALL(fits(n, "n"));
  int im = (int)m, in = (int)n, il = (int)ldl, ib = (int)ldb;
  if (sp) {
    float one = 1;
    strsm_("L", "L", "N", "U", &im, &in, &one, l, &il, b, &ib);
  } else {
    double one = 1;
    dtrsm_("L", "L", "N", "U", &im, &in, &one, l, &il, b, &ib);
  }
  return HY_OK;
}

/* C -= A B.  Local. */
static int h_gemm_sub(k_backend *be, int sp, int64_t m, int64_t n, int64_t k, const void *a,
                      int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return HY_OK;
  HY_CALL(fits(m, "m"));
  HY_CALL(fits(n, "n"));
  int im = (int)m, in = (int)n, ik = (int)k, ia = (int)lda, ib = (int)ldb, ic = (int)ldc;
  if (sp) {
    float mone = -1, one = 1;
    sgemm_("N", "N", &im, &in, &ik, &mone, a, &ia, b, &ib, &one, c, &ic);
  } else {
    double mone = -1, one = 1;
    dgemm_("N", "N", &im, &in, &ik, &mone, a, &ia, b, &ib, &one, c, &ic);
  }
  return HY_OK;
}

/* x = T^-1 x.  Local. */
static int h_trsv(k_backend *be, int sp, int upper, int64_t n, const void *t, int64_t ldt, void *x) {
  if (n <= 0) return HY_OK;
  int in = (int)n, il = (int)ldt, one = 1;
  if (sp) strsv_(upper ? "U" : "L", "N", upper ? "N" : "U", &in, t, &il, x, &one);
  else dtrsv_(upper ? "U" : "L", "N", upper ? "N" : "U", &in, t, &il, x, &one);
  return HY_OK;
}

/* y += alpha A x (alpha = 1 or -1, in the element type sp names).  Local. */
static int h_gemv_pm(int sp, int64_t m, int64_t n, const void *a, int64_t lda, const void *x,
                     void *y, double alpha) {
  if (m <= 0 || n <= 0) return HY_OK;
  HY_CALL(fits(m, "m"));
  HY_CALL(fits(n, "n"));
  int im = (int)m, in = (int)n, il = (int)lda, one = 1;
  if (sp) {
    float a1 = (float)alpha, b1 = 1;
    sgemv_("N", &im, &in, &a1, a, &il, x, &one, &b1, y, &one);
  } else {
    double a1 = alpha, b1 = 1;
    dgemv_("N", &im, &in, &a1, a, &il, x, &one, &b1, y, &one);
  }
  return HY_OK;
}

/* y -= A x.  Local. */
static int h_gemv_sub(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                      const void *x, void *y) {
  return h_gemv_pm(sp, m, n, a, lda, x, y, -1.0);
}

/* y += A x.  Local. */
static int h_gemv_add(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                      const void *x, void *y) {
  return h_gemv_pm(sp, m, n, a, lda, x, y, 1.0);
}

/* 2D copy (host to host).  Local. */
static int h_copy_2d(k_backend *be, int sp, int64_t m, int64_t n, const void *src, int64_t lds,
                     void *dst, int64_t ldd) {
  size_t e = ELEM(sp);
  for (int64_t j = 0; j < n; j++)
    memmove((char *)dst + (size_t)(j * ldd) * e, (const char *)src + (size_t)(j * lds) * e, (size_t)m * e);
  return HY_OK;
}
/* Device -> host 2D copy (host memory on both sides here).  Local. */
static int h_d2h_2d(k_backend *be, int sp, int64_t m, int64_t n, const void *a, int64_t lda,
                    void *h, int64_t ldh) {
  return h_copy_2d(be, sp, m, n, a, lda, h, ldh);
}
/* Host -> device 2D copy (host memory on both sides here).  Local. */
static int h_h2d_2d(k_backend *be, int sp, int64_t m, int64_t n, const void *h, int64_t ldh,
                    void *a, int64_t lda) {
  return h_copy_2d(be, sp, m, n, h, ldh, a, lda);
}

/* Convert between FP64 and FP32.  Local. */
static int h_convert(k_backend *be, int to_sp, int64_t m, int64_t n, const void *src, int64_t lds,
                     void *dst, int64_t ldd) {
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      if (to_sp) ((float *)dst)[i + j * ldd] = (float)((const double *)src)[i + j * lds];
      else ((double *)dst)[i + j * ldd] = (double)((const float *)src)[i + j * lds];
    }
  return HY_OK;
}

/* The host has one queue: nothing to do.  Local. */
static int h_stream_ctl(k_backend *be, int what) { return HY_OK; }

/* The update chunks' aux stream: the host runs everything in order, nothing to do.  Local. */
static int h_aux_ctl(k_backend *be, int what, int c) {
  (void)be;
  (void)what;
  (void)c;
  return HY_OK;
}

/* No tensor cores on the host: nothing to do.  Local. */
static int h_tensor(k_backend *be, int on) { return HY_OK; }

/* Available physical memory.  Local. */
static int h_mem_free(k_backend *be, size_t *bytes) {
  long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  *bytes = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : (size_t)1 << 40;
  return HY_OK;
}

/* Monotonic clock in seconds.  Local. */
static double h_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* LAPACK dgetrf + dgetrs: a warm-up, then reps timed runs on fresh copies of a0.  Local. */
static int h_ref_lu(k_backend *be, int64_t n, const double *a0, const double *b, double *x, int reps,
                    double tf[2], double ts[2], int *info) {
  HY_CALL(fits(n, "n"));
  int in = (int)n, inf = 0, one = 1;
  int *ipiv = NULL;
  double *a = NULL;
  HY_MALLOC(ipiv, n);
  HY_MALLOC(a, n * n);
  tf[0] = ts[0] = INFINITY;
  tf[1] = ts[1] = 0;
  for (int r = -1; r < reps; r++) {
    memcpy(a, a0, sizeof(double) * (size_t)(n * n));
    memcpy(x, b, sizeof(double) * (size_t)n);
    double t0 = h_now();
    dgetrf_(&in, &in, a, &in, ipiv, &inf);
    double t1 = h_now();
    if (inf == 0) {
      int inf2 = 0;
      dgetrs_("N", &in, &one, a, &in, ipiv, x, &in, &inf2);
    }
    double t2 = h_now();
    if (r < 0) continue;   /* the warm-up */
    if (t1 - t0 < tf[0]) tf[0] = t1 - t0;
    if (t2 - t1 < ts[0]) ts[0] = t2 - t1;
    tf[1] += (t1 - t0) / reps;
    ts[1] += (t2 - t1) / reps;
  }
  *info = inf;
  free(a);
  free(ipiv);
  return HY_OK;
}

/* A BLAS DGEMM of order n: a warm-up, then reps timed.  Local. */
static int h_gemm_time(k_backend *be, int64_t n, int reps, double t[2]) {
  double *a = NULL, *b = NULL, *c = NULL;
  HY_MALLOC(a, n * n);
  HY_MALLOC(b, n * n);
  HY_CALLOC(c, n * n);
  for (int64_t i = 0; i < n * n; i++) { a[i] = (double)(i % 7) - 3; b[i] = (double)(i % 5) - 2; }
  int rc = HY_OK;
  t[0] = INFINITY;
  t[1] = 0;
  for (int r = -1; r < reps && rc == HY_OK; r++) {
    double t0 = h_now();
    rc = h_gemm_sub(be, 0, n, n, n, a, n, b, n, c, n);
    double s = h_now() - t0;
    if (r < 0) continue;
    if (s < t[0]) t[0] = s;
    t[1] += s / reps;
  }
  free(a); free(b); free(c);
  return rc;
}

/* x rounded to nearest even with a significand of bits bits (the implicit one included) and,
 * fp16, IEEE half's range (subnormals below 2^-14, 65520 and beyond to infinity).  Local. */
static float h_round(float x, int bits, int fp16) {
  if (!isfinite(x) || x == 0) return x;
  float ax = fabsf(x);
  if (fp16 && ax >= 65520.0f) return copysignf(INFINITY, x);
  int e = 0;
  frexpf(ax, &e);
  if (fp16 && e < -13) e = -13;            /* subnormal half: quantum 2^-24 */
  float q = ldexpf(1.0f, e - bits);
  if (q == 0) return x;                     /* deep in FP32's subnormals (not in half) */
  return copysignf(nearbyintf(ax / q) * q, x);
}

/* dst (ld ldd) = the m x n block src rounded to low, kept as FP32 values (the host's storage of
 * every low format).  Local. */
static int h_to_low(k_backend *be, int low, int64_t m, int64_t n, const float *src, int64_t lds,
                    void *dst, int64_t ldd) {
  int bits = low == 2 ? 8 : 11, fp16 = low == 3;
  float *d = (float *)dst;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) d[i + j * ldd] = h_round(src[i + j * lds], bits, fp16);
  return HY_OK;
}

/* A rows x cols block rounded to low (TF32: 11 bits, BF16: 8 bits, FP16: 11 bits and half's
 * range) into a packed copy.  Local. */
static float *h_round_block(int low, int64_t rows, int64_t cols, const float *a, int64_t lda) {
  float *r = NULL;
  HY_MALLOC(r, rows * cols + 1);
  h_to_low(NULL, low, rows, cols, a, lda, r, rows > 0 ? rows : 1);
  return r;
}

/* C -= A B with the inputs rounded to low, FP32 products and sums (SGEMM).  Local. */
static int h_gemm_sub_low(k_backend *be, int low, int64_t m, int64_t n, int64_t k, const float *a,
                          int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return HY_OK;
  if (low == 0) return h_gemm_sub(be, 1, m, n, k, a, lda, b, ldb, c, ldc);
  float *ar = h_round_block(low, m, k, a, lda), *br = h_round_block(low, k, n, b, ldb);
  int rc = h_gemm_sub(be, 1, m, n, k, ar, m, br, k, c, ldc);
  free(ar);
  free(br);
  return rc;
}

/* C -= A B on inputs rounded by h_to_low: SGEMM, FP32 products and sums.  Local. */
static int h_gemm_sub_lowp(k_backend *be, int low, int64_t m, int64_t n, int64_t k, const void *a,
                           int64_t lda, const void *b, int64_t ldb, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return HY_OK;
  return h_gemm_sub(be, 1, m, n, k, a, lda, b, ldb, c, ldc);
}

static int h_trsm_lunit(k_backend *be, int sp, int64_t m, int64_t n, const void *l, int64_t ldl,
                        void *b, int64_t ldb);
static int h_gemm_sub(k_backend *be, int sp, int64_t m, int64_t n, int64_t k, const void *a,
                      int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc);

/* The fused base block on the host (getrf_rec's base = K_GAUSS_BASE_FUSED): an unblocked
 * right-looking LU with partial pivoting of the m x n block a, the largest magnitude on the
 * lowest row of equals (the CUDA kernel's choice), an exact zero pivot leaving its column
 * unscaled; piv 0-based, *inf = 1 + the first zero pivot's column (0: none).  nopiv
 * (K_GAUSS_BASE_NOPIV): the same without row exchanges, the pivot of column j the diagonal
 * a_jj (piv[j] = j).  Local. */
static void h_getf2(int sp, int64_t m, int64_t n, void *a, int64_t lda, int *piv, int *inf, int nopiv) {
  int64_t d = m < n ? m : n;
  *inf = 0;
  for (int64_t j = 0; j < d; j++) {
    int64_t p = j;
    double best = -1;
    for (int64_t i = j; i < (nopiv ? j + 1 : m); i++) {
      double v = fabs(sp ? (double)((float *)a)[i + j * lda] : ((double *)a)[i + j * lda]);
      if (v > best) { best = v; p = i; }
    }
    piv[j] = (int)p;
    for (int64_t c = 0; c < n && p != j; c++) {
      if (sp) { float *x = (float *)a + c * lda, t = x[j]; x[j] = x[p]; x[p] = t; }
      else { double *x = (double *)a + c * lda, t = x[j]; x[j] = x[p]; x[p] = t; }
    }
    if (best == 0 && *inf == 0) *inf = (int)j + 1;
    for (int64_t i = j + 1; i < m; i++) {
      if (sp) {
        float *x = (float *)a, pv = x[j + j * lda], l = x[i + j * lda];
        if (pv != 0) l = l / pv;
        x[i + j * lda] = l;
        for (int64_t c = j + 1; c < n; c++) x[i + c * lda] -= l * x[j + c * lda];
      } else {
        double *x = (double *)a, pv = x[j + j * lda], l = x[i + j * lda];
        if (pv != 0) l = l / pv;
        x[i + j * lda] = l;
        for (int64_t c = j + 1; c < n; c++) x[i + c * lda] -= l * x[j + c * lda];
      }
    }
  }
}

/* getrf_rec's recursion on columns c0 .. c0+n of the M x N panel a (see the CUDA backend):
 * base blocks by LAPACK getrf, their swaps applied to every other column of the panel; piv
 * 0-based from the panel's top.  Local. */
static int h_getrf_rec_cols(k_backend *be, int sp, int64_t M, int64_t N, void *a, int64_t lda,
                            int64_t c0, int64_t n, int nbmin, int base, int *piv, int *info) {
  size_t e = sp ? 4 : 8;
  int64_t rows = M - c0;
  if (rows <= 0 || n <= 0) return HY_OK;
  char *blk = (char *)a + (size_t)(c0 + c0 * lda) * e;
  if (n <= nbmin) {
    double mp;
    int64_t mi;
    int inf = 0;
    if (base == K_GAUSS_BASE_FUSED || base == K_GAUSS_BASE_NOPIV)
      h_getf2(sp, rows, n, blk, lda, piv + c0, &inf, base == K_GAUSS_BASE_NOPIV);
    else HY_CALL(h_getrf(be, sp, rows, n, blk, lda, piv + c0, &inf, &mp, &mi));
    if (inf > 0 && *info == 0) *info = (int)c0 + inf;
    int64_t d = rows < n ? rows : n;
    for (int64_t i = 0; i < d; i++) piv[c0 + i] += (int)c0;
    /* the block's swaps (rows c0 .. c0+d) on the columns left and right of it */
    for (int side = 0; side < 2; side++) {
      int64_t j0 = side ? c0 + n : 0, j1 = side ? N : c0;
      for (int64_t j = j0; j < j1; j++)
        for (int64_t i = c0; i < c0 + d; i++) {
          int64_t p = piv[i];
          if (p == i) continue;
          if (sp) { float *c = (float *)a + j * lda, t = c[i]; c[i] = c[p]; c[p] = t; }
          else { double *c = (double *)a + j * lda, t = c[i]; c[i] = c[p]; c[p] = t; }
        }
    }
    return HY_OK;
  }
  int64_t n1 = n / 2, n2 = n - n1;
  HY_CALL(h_getrf_rec_cols(be, sp, M, N, a, lda, c0, n1, nbmin, base, piv, info));
  if (rows > n1) {
    char *a12 = (char *)a + (size_t)(c0 + (c0 + n1) * lda) * e;
    char *a21 = (char *)a + (size_t)(c0 + n1 + c0 * lda) * e;
    char *a22 = (char *)a + (size_t)(c0 + n1 + (c0 + n1) * lda) * e;
    HY_CALL(h_trsm_lunit(be, sp, n1, n2, blk, lda, a12, lda));
    HY_CALL(h_gemm_sub(be, sp, rows - n1, n2, n1, a21, lda, a12, lda, a22, lda));
  }
  return h_getrf_rec_cols(be, sp, M, N, a, lda, c0 + n1, n2, nbmin, base, piv, info);
}

/* Recursive panel LU (k_gauss_ops getrf_rec) on the host.  Local. */
static int h_getrf_rec(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int nbmin,
                       int base, int *hipiv, int *info, double *minpiv, int64_t *minidx) {
  *info = 0;
  HY_CALL(h_getrf_rec_cols(be, sp, m, n, a, lda, 0, n, nbmin > 0 ? nbmin : 1, base, hipiv, info));
  diag_min(sp, m, n, a, lda, minpiv, minidx);
  return HY_OK;
}

/* getrf_dev on the host: getrf (nbmin = 0) or getrf_rec, the outputs into dpiv / dstat.
 * Local. */
static int h_getrf_dev(k_backend *be, int sp, int64_t m, int64_t n, void *a, int64_t lda, int nbmin,
                       int base, int *dpiv, double *dstat) {
  int info = 0;
  double mp = 0;
  int64_t mi = 0;
  if (nbmin <= 0) HY_CALL(h_getrf(be, sp, m, n, a, lda, dpiv, &info, &mp, &mi));
  else HY_CALL(h_getrf_rec(be, sp, m, n, a, lda, nbmin, base, dpiv, &info, &mp, &mi));
  dstat[0] = info;
  dstat[1] = mp;
  dstat[2] = (double)mi;
  return HY_OK;
}

/* The swap plan (k_gauss_ops swap_plan; the CUDA kernel's steps, one after another): slot i <
 * nswap is panel row i, slot nswap + j the row of pivot j when j is its first occurrence below
 * the top nswap rows; the swaps run once on the slots' contents, and every used slot records
 * its row and the row its final content comes from.  Local. */
static int h_swap_plan(k_backend *be, int nswap, int64_t m, const int *dpiv, int *plan) {
  int cap = 2 * nswap;
  int *sp = NULL, *code = NULL, *content = NULL;
  HY_MALLOC(sp, nswap + 1);
  HY_MALLOC(code, nswap + 1);
  HY_MALLOC(content, cap + 1);
  for (int i = 0; i < nswap; i++) {
    int p = dpiv[i];
    sp[i] = p < i || p >= m ? i : p;
  }
  for (int i = 0; i < nswap; i++) {
    int p = sp[i], j = 0;
    if (p >= nswap) {
      while (sp[j] != p) j++;
      p = nswap + j;
    }
    code[i] = p;
  }
  for (int v = 0; v < cap; v++) content[v] = v;
  for (int i = 0; i < nswap; i++) {
    int t = content[i];
    content[i] = content[code[i]];
    content[code[i]] = t;
  }
  for (int v = 0; v < cap; v++) {
    int j = v - nswap, used = v < nswap || (sp[j] >= nswap && code[j] == v);
    int c = content[v];
    plan[v] = used ? (v < nswap ? v : sp[j]) : -1;
    plan[cap + v] = used ? (c < nswap ? c : sp[c - nswap]) : 0;
  }
  free(sp);
  free(code);
  free(content);
  return HY_OK;
}

/* Apply a swap plan to ncols columns: each column's moved rows read, then written.  Local. */
static int h_swap_apply(k_backend *be, int sp, void *a, int64_t lda, int64_t ncols, int nswap,
                        const int *dpiv, const int *plan) {
  int cap = 2 * nswap;
  double *tmp = NULL;
  HY_MALLOC(tmp, cap + 1);
  for (int64_t j = 0; j < ncols; j++) {
    for (int v = 0; v < cap; v++)
      if (plan[v] >= 0)
        tmp[v] = sp ? ((float *)a)[plan[cap + v] + j * lda] : ((double *)a)[plan[cap + v] + j * lda];
    for (int v = 0; v < cap; v++) {
      if (plan[v] < 0) continue;
      if (sp) ((float *)a)[plan[v] + j * lda] = (float)tmp[v];
      else ((double *)a)[plan[v] + j * lda] = tmp[v];
    }
  }
  free(tmp);
  return HY_OK;
}

/* auto block size on the host: 64 (BLAS-3 sized for a CPU cache).  Local. */
static int64_t h_nb_auto(int64_t n, int lowp) {
  (void)n;
  (void)lowp;
  return 64;
}

/* gauss.trace's marks on the host: the wall clock when each is recorded (NAN: not yet). */
typedef struct {
  int n;
  double t[];
} h_trace;

/* A set of nmark marks, none recorded.  Local. */
static int h_trace_open(k_backend *be, int nmark, void **tr) {
  (void)be;
  h_trace *h = malloc(sizeof(h_trace) + sizeof(double) * (size_t)(nmark > 0 ? nmark : 1));
  if (!h) hy_fatal(HY_ESYS, "out of memory (gauss trace)");
  h->n = nmark;
  for (int i = 0; i < nmark; i++) h->t[i] = NAN;
  *tr = h;
  return HY_OK;
}

/* Mark i: the clock now (the host runs everything in order).  Local. */
static int h_trace_mark(k_backend *be, void *tr, int i) {
  (void)be;
  h_trace *h = tr;
  if (i < 0 || i >= h->n) return hy_err(HY_ESYS, "gauss trace: mark %d outside 0..%d", i, h->n - 1);
  h->t[i] = h_now();
  return HY_OK;
}

/* t[i] = seconds from mark 0 to mark i (NAN: not recorded).  Local. */
static int h_trace_read(k_backend *be, void *tr, double *t) {
  (void)be;
  h_trace *h = tr;
  for (int i = 0; i < h->n; i++) t[i] = h->t[i] - h->t[0];
  return HY_OK;
}

/* Free the set.  Local. */
static void h_trace_close(k_backend *be, void *tr) {
  (void)be;
  free(tr);
}

const k_gauss_ops k_gauss_host_ops = {
  .gpu = 0, .tv = 'H', .unit = "rank", .vendor_lu = "LAPACK", .vendor_blas = "BLAS",
  .nb_auto = h_nb_auto,
  .row_scale = h_row_scale, .rank1 = h_rank1, .col_zero = h_col_zero, .col_absmax = h_col_absmax,
  .swap = h_swap, .getrf = h_getrf, .laswp = h_laswp, .rows_perm = h_rows_perm,
  .rows_get = h_rows_get, .rows_put = h_rows_put, .trsm_lunit = h_trsm_lunit,
  .gemm_sub = h_gemm_sub, .trsv = h_trsv, .gemv_add = h_gemv_add, .d2h_2d = h_d2h_2d,
  .h2d_2d = h_h2d_2d, .convert = h_convert, .stream_ctl = h_stream_ctl, .tensor = h_tensor,
  .mem_free = h_mem_free, .ref_lu = h_ref_lu, .gemm_time = h_gemm_time, .copy_2d = h_copy_2d,
  .gemm_sub_low = h_gemm_sub_low, .low_bytes = { 4, 4, 4, 4 }, .to_low = h_to_low,
  .gemm_sub_lowp = h_gemm_sub_lowp, .getrf_rec = h_getrf_rec,
  .getrf_dev = h_getrf_dev, .swap_plan = h_swap_plan, .swap_apply = h_swap_apply,
  .gemv_sub = h_gemv_sub, .panel_auto = K_GAUSS_PANEL_VENDOR,
  .trace_open = h_trace_open, .trace_mark = h_trace_mark, .trace_read = h_trace_read,
  .trace_close = h_trace_close, .panel_auto_rows = 0, .panel_auto_short = 0, .panel_auto_sp = K_GAUSS_PANEL_VENDOR,
  .panel_auto_nmin = 0, .aux_ctl = h_aux_ctl, .update_chunks_auto = 1,
};
