/* gemm_host.c - the gemm kernels on the host backend: the seed's naive kernel (one dot product
 * per element of C) and tiled kernel (tile x tile blocks of C, the k loop in tiles) as plain C
 * loops, and BLAS sgemm / dgemm as the vendor variant.  bf16 / fp16 / tf32 inputs are floats
 * holding the values rounded once (k_gemm_round), so the host computes the function the
 * tensor cores compute: exact products, FP32 sums. */
#include "k_gemm.h"
#include "hybrid.h"
#include "runtime/rng.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);

struct k_gemm_ws {
  int tile;
  double ksec;               /* kernel seconds since the last reset */
};

/* Monotonic wall clock in seconds.  Local. */
static double hg_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Per-run state.  Local. */
static int hg_ws_open(k_backend *be, int tile, k_gemm_ws **ws) {
  HY_CALLOC(*ws, 1);
  (*ws)->tile = tile;
  return HY_OK;
}
static int hg_ws_close(k_backend *be, k_gemm_ws *ws) {
  free(ws);
  return HY_OK;
}

/* Input element bytes: double, else floats holding the rounded values.  Local. */
static size_t hg_in_bytes(int prec) { return prec == K_GEMM_DOUBLE ? 8 : 4; }

/* Values (already rounded) into the input format.  Local. */
static int hg_pack(int prec, int64_t count, const double *src, void *dst) {
  if (prec == K_GEMM_DOUBLE) {
    memcpy(dst, src, (size_t)count * sizeof(double));
  } else {
    float *d = dst;
    for (int64_t i = 0; i < count; i++) d[i] = (float)src[i];
  }
  return HY_OK;
}

/* The seed's naive kernel: C(i,j) = alpha sum_l A(i,l) B(l,j) + beta C(i,j), l ascending. */
#define HG_NAIVE(T, NAME)                                                                    \
  static void NAME(int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t lda,        \
                   const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {                     \
    for (int64_t j = 0; j < n; j++)                                                          \
      for (int64_t i = 0; i < m; i++) {                                                      \
        T s = 0;                                                                             \
        for (int64_t l = 0; l < k; l++) s += a[i + l * lda] * b[l + j * ldb];                \
        c[i + j * ldc] = beta == 0 ? alpha * s : alpha * s + beta * c[i + j * ldc];          \
      }                                                                                      \
  }
HG_NAIVE(double, hg_naive_d)
HG_NAIVE(float, hg_naive_s)

/* The seed's tiled kernel: tile x tile blocks of C, the k loop in tiles of the same edge
 * (partial tiles at the edges); every element's sum still runs over l ascending, so it equals
 * the naive kernel's bit for bit.  acc: tile * tile scratch. */
#define HG_TILED(T, NAME)                                                                    \
  static void NAME(int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t lda,        \
                   const T *b, int64_t ldb, T beta, T *c, int64_t ldc, int64_t t, T *acc) {  \
    for (int64_t j0 = 0; j0 < n; j0 += t)                                                    \
      for (int64_t i0 = 0; i0 < m; i0 += t) {                                                \
        int64_t ni = m - i0 < t ? m - i0 : t, nj = n - j0 < t ? n - j0 : t;                  \
        for (int64_t x = 0; x < t * t; x++) acc[x] = 0;                                      \
        for (int64_t l0 = 0; l0 < k; l0 += t) {                                              \
          int64_t nl = k - l0 < t ? k - l0 : t;                                              \
          for (int64_t jj = 0; jj < nj; jj++)                                                \
            for (int64_t ii = 0; ii < ni; ii++) {                                            \
              T s = acc[ii + jj * t];                                                        \
              for (int64_t ll = 0; ll < nl; ll++)                                            \
                s += a[(i0 + ii) + (l0 + ll) * lda] * b[(l0 + ll) + (j0 + jj) * ldb];        \
              acc[ii + jj * t] = s;                                                          \
            }                                                                                \
        }                                                                                    \
        for (int64_t jj = 0; jj < nj; jj++)                                                  \
          for (int64_t ii = 0; ii < ni; ii++) {                                              \
            T *cp = &c[(i0 + ii) + (j0 + jj) * ldc];                                         \
            *cp = beta == 0 ? alpha * acc[ii + jj * t] : alpha * acc[ii + jj * t] + beta * *cp; \
          }                                                                                  \
      }                                                                                      \
  }
HG_TILED(double, hg_tiled_d)
HG_TILED(float, hg_tiled_s)

/* Variant naive.  Local. */
static int hg_naive(k_backend *be, k_gemm_ws *ws, int prec, int64_t m, int64_t n, int64_t k,
                    double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                    double beta, void *c, int64_t ldc) {
  double t0 = hg_now();
  if (prec == K_GEMM_DOUBLE) hg_naive_d(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else hg_naive_s(m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
  ws->ksec += hg_now() - t0;
  return HY_OK;
}

/* Variant tiled.  Local. */
static int hg_tiled(k_backend *be, k_gemm_ws *ws, int prec, int64_t m, int64_t n, int64_t k,
                    double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                    double beta, void *c, int64_t ldc) {
  int64_t t = ws->tile;
  double t0 = hg_now();
  if (prec == K_GEMM_DOUBLE) {
    double acc[32 * 32];
    hg_tiled_d(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, t, acc);
  } else {
    float acc[32 * 32];
    hg_tiled_s(m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc, t, acc);
  }
  ws->ksec += hg_now() - t0;
  return HY_OK;
}

/* Variant vendor: BLAS (dimensions must fit a Fortran int).  Local. */
static int hg_vendor(k_backend *be, k_gemm_ws *ws, int prec, int64_t m, int64_t n, int64_t k,
                     double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                     double beta, void *c, int64_t ldc) {
  if (m <= 0 || n <= 0) return HY_OK;
  if (m > 2147483647 || n > 2147483647 || k > 2147483647 || lda > 2147483647 ||
      ldb > 2147483647 || ldc > 2147483647)
    return hy_err(HY_ESYS, "BLAS gemm: dimensions %lld x %lld x %lld exceed a 32-bit int",
                  (long long)m, (long long)n, (long long)k);
  int im = (int)m, in = (int)n, ik = (int)k, ia = (int)(lda ? lda : 1), ib = (int)(ldb ? ldb : 1),
      ic = (int)ldc;
  double t0 = hg_now();
  if (prec == K_GEMM_DOUBLE) {
    dgemm_("N", "N", &im, &in, &ik, &alpha, a, &ia, b, &ib, &beta, c, &ic);
  } else {
    float fa = (float)alpha, fb = (float)beta;
    sgemm_("N", "N", &im, &in, &ik, &fa, a, &ia, b, &ib, &fb, c, &ic);
  }
  ws->ksec += hg_now() - t0;
  return HY_OK;
}

/* No streams on the host: nothing to order.  Local. */
static int hg_stream_ctl(k_backend *be, k_gemm_ws *ws, int what) { return HY_OK; }

/* Kernel seconds since the last reset.  Local. */
static int hg_ktime(k_backend *be, k_gemm_ws *ws, int reset, double *seconds) {
  *seconds = ws->ksec;
  if (reset) ws->ksec = 0;
  return HY_OK;
}

/* The fastest of reps runs of a variant on random data (after a warm-up).  Local. */
static int hg_bench(k_backend *be, k_gemm_ws *ws, int prec, int kernel, int64_t m, int64_t n,
                    int64_t k, int reps, double *seconds) {
  static const k_gemm_fn fns[K_GEMM_NKERNELS] = { hg_naive, hg_tiled, hg_vendor };
  size_t e = hg_in_bytes(prec), ec = k_gemm_c_bytes(prec);
  unsigned char *a = NULL, *b = NULL, *c = NULL;
  HY_MALLOC(a, (size_t)(m * k) * e);
  HY_MALLOC(b, (size_t)(k * n) * e);
  HY_CALLOC(c, (size_t)(m * n) * ec);
  for (int64_t i = 0; i < m * k; i++) {
    double v = k_gemm_round(prec, hy_rand_u01(1, 901, (uint64_t)i) - 0.5);
    hg_pack(prec, 1, &v, a + i * e);
  }
  for (int64_t i = 0; i < k * n; i++) {
    double v = k_gemm_round(prec, hy_rand_u01(1, 902, (uint64_t)i) - 0.5);
    hg_pack(prec, 1, &v, b + i * e);
  }
  double saved = ws->ksec, best = INFINITY;
  int rc = HY_OK;
  for (int r = 0; r <= reps && rc == HY_OK; r++) {
    ws->ksec = 0;
    rc = fns[kernel](be, ws, prec, m, n, k, 1.0, a, m, b, k, 0.0, c, m);
    if (r > 0 && ws->ksec < best) best = ws->ksec;
  }
  ws->ksec = saved;
  free(a); free(b); free(c);
  *seconds = best;
  return rc;
}

/* 2D copy (k_gemm.h).  Local. */
static int hg_copy2d(k_backend *be, void *dst, int64_t ldd, const void *src, int64_t lds, int64_t rows,
                     int64_t cols, size_t esz) {
  for (int64_t j = 0; j < cols && rows > 0; j++)
    memcpy((char *)dst + (size_t)(j * ldd) * esz, (const char *)src + (size_t)(j * lds) * esz, (size_t)rows * esz);
  return HY_OK;
}

const k_gemm_ops k_gemm_host_ops = {
  "BLAS", 0, hg_ws_open, hg_ws_close, hg_in_bytes, hg_pack, hg_naive, hg_tiled, hg_vendor,
  hg_stream_ctl, hg_ktime, hg_bench, NULL, hg_copy2d,
};
