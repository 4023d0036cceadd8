/* test_gauss_host.c - the host backend's gauss kernels (kernels/host/gauss_host.c) and its
 * transport copies (kernels/host/comm_host.c) against references written here: plain loops
 * (an unblocked LU with partial pivoting, triangular solves, products, row moves), exact
 * comparisons where the operation is a data move or the same arithmetic, a stated tolerance
 * where LAPACK/BLAS may order the sums differently.  Not through the driver, not through
 * another backend.  Exit 0 when every check passes, 1 otherwise; each failed check is printed. */
#include "k_comm.h"
#include "k_gauss.h"
#include "hybrid.h"
#include "../common/test_rand.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nchecks, nfailed;

/* Count a check; print it when it failed.  Local. */
static void ok(int cond, const char *what, double fig) {
  nchecks++;
  if (!cond) {
    nfailed++;
    printf("FAILED: %s (figure %.3e)\n", what, fig);
  }
}

/* A deterministic value in [-1, 1) for index i of stream s (not the library's generator). */
static double val(uint64_t s, uint64_t i) { return 2.0 * test_u01(s, i) - 1.0; }

/* Fill an m x n column-major matrix from stream s.  Local. */
static double *mat(uint64_t s, int64_t m, int64_t n, int64_t ld) {
  double *a = calloc((size_t)(ld * n + 1), sizeof *a);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) a[i + j * ld] = val(s, (uint64_t)(i + j * ld));
  return a;
}

/* max |a - b| over an m x n block, relative to max |b|.  Local. */
static double rdiff(const double *a, const double *b, int64_t m, int64_t n, int64_t ld) {
  double e = 0, s = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      double d = fabs(a[i + j * ld] - b[i + j * ld]);
      if (d > e || isnan(d)) e = isnan(d) ? INFINITY : d;
      if (fabs(b[i + j * ld]) > s) s = fabs(b[i + j * ld]);
    }
  return e / (s > 0 ? s : 1);
}

/* The reference LU: unblocked, right-looking, partial pivoting on the largest magnitude (the
 * first of equals), on an m x n block.  Local. */
static void ref_getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv) {
  int64_t d = m < n ? m : n;
  for (int64_t k = 0; k < d; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < m; i++)
      if (fabs(a[i + k * lda]) > fabs(a[p + k * lda])) p = i;
    ipiv[k] = (int)p;
    if (p != k)
      for (int64_t j = 0; j < n; j++) {
        double t = a[k + j * lda];
        a[k + j * lda] = a[p + j * lda];
        a[p + j * lda] = t;
      }
    double piv = a[k + k * lda];
    if (piv == 0) continue;
    for (int64_t i = k + 1; i < m; i++) a[i + k * lda] /= piv;
    for (int64_t j = k + 1; j < n; j++)
      for (int64_t i = k + 1; i < m; i++) a[i + j * lda] -= a[i + k * lda] * a[k + j * lda];
  }
}

/* getrf against the reference: pivots exactly, factors to 1e-13 (sums ordered differently),
 * info and the smallest |u_kk|; tall, square and a matrix needing a swap at every step.
 * Local. */
static void check_getrf(const k_gauss_ops *ko, k_backend *be) {
  int64_t shapes[][2] = { { 37, 37 }, { 53, 16 }, { 16, 16 }, { 1, 1 } };
  for (int s = 0; s < 4; s++) {
    int64_t m = shapes[s][0], n = shapes[s][1], lda = m + 3;
    double *a = mat(10 + (uint64_t)s, m, n, lda), *r = malloc(sizeof *r * (size_t)(lda * n + 1));
    /* s == 2: the largest entry of every column k lies in the last row, negative */
    if (s == 2)
      for (int64_t j = 0; j < n; j++) a[(m - 1 - j) + j * lda] = -4.0 - (double)j;
    memcpy(r, a, sizeof *r * (size_t)(lda * n));
    int ip[64], rp[64], info = -1;
    double minpiv = -1;
    int64_t mi = -1;
    ok(ko->getrf(be, 0, m, n, a, lda, ip, &info, &minpiv, &mi) == HY_OK, "getrf returns HY_OK", 0);
    ref_getrf(m, n, r, lda, rp);
    int64_t d = m < n ? m : n, same = 1;
    for (int64_t k = 0; k < d; k++) same &= ip[k] == rp[k];
    char w[160];
    snprintf(w, sizeof w, "getrf %lld x %lld: the pivot rows of partial pivoting", (long long)m, (long long)n);
    ok(same, w, 0);
    double e = rdiff(a, r, m, n, lda);
    snprintf(w, sizeof w, "getrf %lld x %lld: L and U as the unblocked LU (1e-13)", (long long)m, (long long)n);
    ok(e <= 1e-13, w, e);
    double mp = INFINITY;
    int64_t mk = 0;
    for (int64_t k = 0; k < d; k++)
      if (fabs(r[k + k * lda]) < mp) { mp = fabs(r[k + k * lda]); mk = k; }
    snprintf(w, sizeof w, "getrf %lld x %lld: info 0, smallest |u_kk| and its column", (long long)m, (long long)n);
    ok(info == 0 && fabs(minpiv - mp) <= 1e-13 * (mp > 0 ? mp : 1) && mi == mk, w, minpiv - mp);
    free(a);
    free(r);
  }
  /* an exactly singular column: info = 1 + that column */
  double z[9] = { 1, 2, 3, 0, 0, 0, 4, 5, 7 };
  int ip[3], info = 0;
  double mp = 0;
  int64_t mi = 0;
  ko->getrf(be, 0, 3, 3, z, 3, ip, &info, &mp, &mi);
  ok(info == 2, "getrf: a zero column 1 gives info = 2", info);
}

/* laswp, rows_perm, rows_get, rows_put, swap, copies and convert: exact data moves.  Local. */
static void check_moves(const k_gauss_ops *ko, const k_comm_ops *kc, k_backend *be) {
  int64_t m = 19, n = 7, ld = 23;
  double *a = mat(20, m, n, ld), *r = malloc(sizeof *r * (size_t)(ld * n + 1));
  memcpy(r, a, sizeof *r * (size_t)(ld * n));
  int ip[5] = { 3, 1, 18, 3, 4 };   /* row i <-> row ip[i], in order */
  ko->laswp(be, 0, a, ld, n, 5, ip);
  for (int i = 0; i < 5; i++)
    for (int64_t j = 0; j < n; j++) {
      double t = r[i + j * ld];
      r[i + j * ld] = r[ip[i] + j * ld];
      r[ip[i] + j * ld] = t;
    }
  ok(rdiff(a, r, m, n, ld) == 0, "laswp: the swaps in order", rdiff(a, r, m, n, ld));
  int rows[4] = { 2, 17, 5, 9 }, src[4] = { 3, 0, 1, 2 };
  double old[4][7];
  for (int r0 = 0; r0 < 4; r0++)
    for (int64_t j = 0; j < n; j++) old[r0][j] = r[rows[r0] + j * ld];
  for (int r0 = 0; r0 < 4; r0++)
    for (int64_t j = 0; j < n; j++) r[rows[r0] + j * ld] = old[src[r0]][j];
  ko->rows_perm(be, 0, a, ld, n, 4, rows, src);
  ok(rdiff(a, r, m, n, ld) == 0, "rows_perm: row hrows[r] gets row hrows[hsrc[r]]", rdiff(a, r, m, n, ld));
  double buf[4 * 7], want[4 * 7];
  ko->rows_get(be, 0, a, ld, n, 4, rows, buf);
  for (int r0 = 0; r0 < 4; r0++)
    for (int64_t j = 0; j < n; j++) want[r0 + j * 4] = r[rows[r0] + j * ld];
  ok(memcmp(buf, want, sizeof buf) == 0, "rows_get: buf[r + j nrows] = a[hrows[r] + j lda]", 0);
  for (int k = 0; k < 28; k++) buf[k] = -100.0 - k;
  ko->rows_put(be, 0, a, ld, n, 4, rows, buf);
  for (int r0 = 0; r0 < 4; r0++)
    for (int64_t j = 0; j < n; j++) r[rows[r0] + j * ld] = buf[r0 + j * 4];
  ok(rdiff(a, r, m, n, ld) == 0, "rows_put: a[hrows[r] + j lda] = buf[r + j nrows]", rdiff(a, r, m, n, ld));
  double x[6] = { 1, 2, 3, 4, 5, 6 }, y[6] = { -1, -2, -3, -4, -5, -6 };
  ko->swap(be, 0, x, y, 5);
  ok(x[0] == -1 && x[4] == -5 && y[4] == 5 && x[5] == 6 && y[5] == -6, "swap: len elements, no more", 0);
  double c[23 * 7];
  memset(c, 0, sizeof c);
  ko->copy_2d(be, 0, m, n, a, ld, c, ld);
  ok(rdiff(c, a, m, n, ld) == 0, "gauss copy_2d", 0);
  double h[19 * 7];
  kc->d2h_2d(be, 8, m, n, a, ld, h, m);
  kc->h2d_2d(be, 8, m, n, h, m, c, ld);
  kc->copy_2d(be, 8, m, n, c, ld, r, ld);
  ok(rdiff(r, a, m, n, ld) == 0 && h[m] == a[ld], "k_comm d2h_2d / h2d_2d / copy_2d (esz 8)", 0);
  float f[19 * 7];
  ko->convert(be, 1, m, n, a, ld, f, m);
  int same = 1;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) same &= f[i + j * m] == (float)a[i + j * ld];
  ok(same, "convert to FP32: (float) of every element", 0);
  free(a);
  free(r);
}

/* trsm_lunit, gemm_sub, trsv (both), gemv_add against loops (1e-13), FP64.  Local. */
static void check_blas(const k_gauss_ops *ko, k_backend *be) {
  int64_t m = 13, n = 9, k = 6, ld = 17;
  double *l = mat(30, m, m, ld), *b = mat(31, m, n, ld), *r = malloc(sizeof *r * (size_t)(ld * n + 1));
  memcpy(r, b, sizeof *r * (size_t)(ld * n));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t p = 0; p < i; p++) r[i + j * ld] -= l[i + p * ld] * r[p + j * ld];
  ko->trsm_lunit(be, 0, m, n, l, ld, b, ld);
  ok(rdiff(b, r, m, n, ld) <= 1e-13, "trsm_lunit: B = L^-1 B, L unit lower", rdiff(b, r, m, n, ld));
  double *A = mat(32, m, k, ld), *B = mat(33, k, n, ld), *C = mat(34, m, n, ld);
  memcpy(r, C, sizeof *r * (size_t)(ld * n));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t p = 0; p < k; p++) r[i + j * ld] -= A[i + p * ld] * B[p + j * ld];
  ko->gemm_sub(be, 0, m, n, k, A, ld, B, ld, C, ld);
  ok(rdiff(C, r, m, n, ld) <= 1e-13, "gemm_sub: C -= A B", rdiff(C, r, m, n, ld));
  double x[13], xr[13], y[13], yr[13];
  for (int upper = 0; upper < 2; upper++) {
    for (int i = 0; i < m; i++) x[i] = xr[i] = val(35, (uint64_t)i);
    double *t = mat(36, m, m, ld);
    for (int i = 0; i < m; i++) t[i + i * ld] = 2 + val(37, (uint64_t)i);
    if (!upper)
      for (int i = 0; i < m; i++)
        for (int p = 0; p < i; p++) xr[i] -= t[i + p * ld] * xr[p];
    else
      for (int i = (int)m - 1; i >= 0; i--) {
        for (int p = i + 1; p < m; p++) xr[i] -= t[i + p * ld] * xr[p];
        xr[i] /= t[i + i * ld];
      }
    ko->trsv(be, 0, upper, m, t, ld, x);
    ok(rdiff(x, xr, m, 1, m) <= 1e-13, upper ? "trsv upper non-unit" : "trsv lower unit", rdiff(x, xr, m, 1, m));
    free(t);
  }
  for (int i = 0; i < m; i++) y[i] = yr[i] = val(38, (uint64_t)i);
  for (int i = 0; i < m; i++)
    for (int p = 0; p < k; p++) yr[i] += A[i + p * ld] * x[p];
  ko->gemv_add(be, 0, m, k, A, ld, x, y);
  ok(rdiff(y, yr, m, 1, m) <= 1e-13, "gemv_add: y += A x", rdiff(y, yr, m, 1, m));
  free(l); free(b); free(r); free(A); free(B); free(C);
}

/* The seed's row kernels (row-major) and the pivot search: the same arithmetic as the loops
 * here (exact), col_absmax on magnitudes with the first of equals.  Local. */
static void check_rows(const k_gauss_ops *ko, k_backend *be) {
  int64_t m = 6, ncol = 9, lda = 10;
  double a[60], r[60], prow[9];
  for (int i = 0; i < 60; i++) a[i] = r[i] = val(40, (uint64_t)i);
  for (int j = 0; j < 9; j++) prow[j] = val(41, (uint64_t)j);
  int64_t k = 2;
  ko->rank1(be, 0, a, lda, m, k, ncol, prow);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = k + 1; j < ncol; j++) r[i * lda + j] -= r[i * lda + k] * prow[j - k];
  ok(memcmp(a, r, sizeof a) == 0, "rank1: a[i][j] -= a[i][k] prow[j - k] for k < j < ncols", 0);
  double l[60];
  memset(l, 0, sizeof l);
  ko->col_zero(be, 0, a, lda, m, k, l, lda);
  int good = 1;
  for (int64_t i = 0; i < m; i++) good &= a[i * lda + k] == 0 && l[i * lda + k] == r[i * lda + k];
  ok(good, "col_zero: the multipliers kept, the column zeroed", 0);
  double row[7] = { 3, 6, -9, 12, 1, 2, 99 };
  ko->row_scale(be, 0, row, 6, 3.0);
  ok(row[0] == 1 && row[1] == 2 && row[2] == -3 && row[3] == 4 && row[4] == 1.0 / 3 && row[6] == 99,
     "row_scale: row[0] = 1, row[j] /= pivot for j < len", 0);
  double c[5 * 4] = { 0 };
  double colv[5] = { 0.5, -3.0, 2.0, 3.0, -1.0 };
  for (int i = 0; i < 5; i++) c[i * 4 + 1] = colv[i];
  double v = 0;
  int64_t idx = -7;
  ko->col_absmax(be, 0, c, 4, 5, 1, &v, &idx);
  ok(v == 3.0 && idx == 1, "col_absmax: largest magnitude (negative), first of equals", (double)idx);
  ko->col_absmax(be, 0, c + 8, 4, 3, 1, &v, &idx);
  ok(v == 3.0 && idx == 1, "col_absmax on rows 2..4: |3| at row 1 of them (the last is not skipped)", (double)idx);
  c[4 * 4 + 1] = -7.5;
  ko->col_absmax(be, 0, c, 4, 5, 1, &v, &idx);
  ok(v == 7.5 && idx == 4, "col_absmax: the maximum in the last row", (double)idx);
  ko->col_absmax(be, 0, c, 4, 0, 1, &v, &idx);
  ok(v == -1 && idx == 0, "col_absmax: m = 0 gives -1 and index 0 (as documented)", (double)idx);
}

/* gemm_sub_low on 1 x 1 x 1 products with b = 1: c = -round(a) for known roundings (nearest,
 * ties to even; half's range and subnormals); and FP32 sums of the rounded inputs.  Local. */
static void check_low(const k_gauss_ops *ko, k_backend *be) {
  struct { int low; float a, want; const char *what; } t[] = {
    { 3, 1.0f + 0x1p-11f, 1.0f, "fp16: 1 + 2^-11 ties to 1" },
    { 3, 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-9f, "fp16: 1 + 3 2^-11 ties up to 1 + 2^-9" },
    { 3, 65519.0f, 65504.0f, "fp16: 65519 to the largest half 65504" },
    { 3, 65520.0f, INFINITY, "fp16: 65520 overflows to infinity" },
    { 3, 0x1p-25f, 0.0f, "fp16: 2^-25 (half the smallest subnormal) ties to 0" },
    { 3, 3 * 0x1p-25f, 0x1p-23f, "fp16: 3 2^-25 to 2^-23 (subnormal, tie to even)" },
    { 3, 0.1f, 0.0999755859375f, "fp16: 0.1 to 0.0999755859375" },
    { 2, 1.0f + 0x1p-8f, 1.0f, "bf16: 1 + 2^-8 ties to 1" },
    { 2, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-6f, "bf16: 1 + 3 2^-8 ties up to 1 + 2^-6" },
    { 2, 0.1f, 0.10009765625f, "bf16: 0.1 to 0.10009765625" },
    { 2, 3e38f, 0x1.c4p+127f, "bf16: 3e38 to 0x1.c4p+127, finite (FP32's range)" },
    { 1, 1.0f + 0x1p-11f, 1.0f, "tf32: 1 + 2^-11 ties to 1" },
    { 1, 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-9f, "tf32: 1 + 3 2^-11 ties up to 1 + 2^-9" },
    { 1, 1e30f, 0x1.94p+99f, "tf32: 1e30 to 0x1.94p+99 (FP32's range)" },
    { 0, 1.0f + 0x1p-11f, 1.0f + 0x1p-11f, "fp32: exact" },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    float a = t[i].a, b = 1.0f, c = 0.0f;
    ko->gemm_sub_low(be, t[i].low, 1, 1, 1, &a, 1, &b, 1, &c, 1);
    ok(-c == t[i].want, t[i].what, (double)-c - (double)t[i].want);
  }
  /* the sum in FP32 of rounded products: (1 + 2^-11) rounds to 1 in fp16, twice: c = -2 */
  float a2[2] = { 1.0f + 0x1p-11f, 1.0f + 0x1p-11f }, b2[2] = { 1.0f, 1.0f }, c2 = 0.0f;
  ko->gemm_sub_low(be, 3, 1, 1, 2, a2, 1, b2, 2, &c2, 1);
  ok(c2 == -2.0f, "fp16 gemm_sub_low: the rounded inputs summed (k = 2)", c2);
  /* the two-part form (to_low once, gemm_sub_lowp from the copies; HPL-MxP's per-step
   * rounding) equals gemm_sub_low bit for bit on blocks with leading dimensions > rows, and the
   * copies hold the rounded values (fp16: 1 + 2^-11 -> 1) */
  for (int low = 2; low <= 3; low++) {
    enum { M = 7, N = 5, K = 3, LDA = 9, LDB = 4, LDC = 8 };
    float a[LDA * K], b[LDB * N], c1[LDC * N], c2[LDC * N], la[M * K + 1], lb[K * N + 1];
    for (int i = 0; i < LDA * K; i++) a[i] = (float)val(7 + low, (uint64_t)i) * (1.0f + 0x1p-10f);
    for (int i = 0; i < LDB * N; i++) b[i] = (float)val(9 + low, (uint64_t)i) * 3.0f;
    for (int i = 0; i < LDC * N; i++) c1[i] = c2[i] = (float)val(11, (uint64_t)i);
    a[0] = 1.0f + 0x1p-11f;
    ko->gemm_sub_low(be, low, M, N, K, a, LDA, b, LDB, c1, LDC);
    int rc = ko->to_low(be, low, M, K, a, LDA, la, M);
    if (rc == HY_OK) rc = ko->to_low(be, low, K, N, b, LDB, lb, K);
    if (rc == HY_OK) rc = ko->gemm_sub_lowp(be, low, M, N, K, la, M, lb, K, c2, LDC);
    int same = rc == HY_OK && ko->low_bytes[low] == sizeof(float);
    for (int i = 0; i < LDC * N && same; i++) same = memcmp(&c1[i], &c2[i], sizeof(float)) == 0;
    char what[160];
    snprintf(what, sizeof what, "%s: to_low + gemm_sub_lowp = gemm_sub_low bit for bit (7 x 5 x 3, "
             "ld 9 / 4 / 8)", low == 2 ? "bf16" : "fp16");
    ok(same, what, (double)(c1[0] - c2[0]));
    ok(la[0] == 1.0f, low == 2 ? "bf16 to_low: 1 + 2^-11 to 1" : "fp16 to_low: 1 + 2^-11 to 1",
       (double)la[0] - 1.0);
  }
}

/* swap_plan + swap_apply against the swaps in order (a plain loop), exact: pivots that repeat a
 * row below the top block, that point inside it, that stay put, and one out of range (taken as
 * no swap); FP64 and FP32; getrf_dev's pivots and status against getrf's.  Local. */
static void check_plan(const k_gauss_ops *ko, k_backend *be) {
  int64_t m = 41, n = 6, ld = 45;
  const int cases[3][8] = { { 9, 1, 9, 30, 30, 5, 30, 7 },      /* 9 twice, 30 three times */
                            { 0, 7, 2, 3, 6, 5, 6, 40 },         /* inside the top block */
                            { 3, 40, 2, 41, 4, 39, 39, 7 } };    /* 41: out of range */
  for (int c = 0; c < 3; c++)
    for (int sp = 0; sp < 2; sp++) {
      int nswap = 8, plan[K_GAUSS_PLAN_INTS(8)];
      double *a = mat(30 + c, m, n, ld), *r = malloc(sizeof *r * (size_t)(ld * n + 1));
      float *af = malloc(sizeof *af * (size_t)(ld * n + 1));
      for (int64_t t = 0; t < ld * n; t++) af[t] = (float)a[t];
      memcpy(r, a, sizeof *r * (size_t)(ld * n));
      for (int i = 0; i < nswap; i++) {
        int p = cases[c][i] >= m ? i : cases[c][i];
        for (int64_t j = 0; j < n; j++) {
          double t = r[i + j * ld];
          r[i + j * ld] = r[p + j * ld];
          r[p + j * ld] = t;
        }
      }
      ko->swap_plan(be, nswap, m, cases[c], plan);
      int used = 0;
      for (int v = 0; v < 2 * nswap; v++) used += plan[v] >= 0;
      ko->swap_apply(be, sp, sp ? (void *)af : (void *)a, ld, n, nswap, cases[c], plan);
      if (sp)
        for (int64_t t = 0; t < ld * n; t++) a[t] = af[t];
      char what[96];
      snprintf(what, sizeof what, "swap plan case %d (%s): the swaps in order", c, sp ? "FP32" : "FP64");
      double e = rdiff(a, r, m, n, ld);
      ok(sp ? e < 1e-7 : e == 0, what, e);
      /* used slots: the 8 top rows and the distinct rows below them */
      int want = c == 1 ? 9 : 10;
      snprintf(what, sizeof what, "swap plan case %d: %d used slots", c, want);
      ok(used == want, what, used);
      free(a); free(r); free(af);
    }
  /* the fused base block (getrf_rec, base fused): one block (nbmin >= n) is the unblocked
   * reference LU exactly, pivots and factors; with base blocks of 4 columns the pivots and the
   * factors to 1e-13; an exactly zero column gives info = 1 + it */
  for (int nbm = 16; nbm >= 4; nbm -= 12) {
    int64_t fm = 29, fn = 11;
    double *fa = mat(50, fm, fn, fm), *fr = mat(50, fm, fn, fm), fmp = 0;
    int fp[11], rp[11], finfo = -1;
    int64_t fmi = 0;
    ko->getrf_rec(be, 0, fm, fn, fa, fm, nbm, K_GAUSS_BASE_FUSED, fp, &finfo, &fmp, &fmi);
    ref_getrf(fm, fn, fr, fm, rp);
    char what[96];
    double e = rdiff(fa, fr, fm, fn, fm);
    snprintf(what, sizeof what, "fused base blocks of %d: the unblocked LU's pivots and factors", nbm);
    ok(!memcmp(fp, rp, sizeof fp) && finfo == 0 && (nbm == 16 ? e == 0 : e <= 1e-13), what, e);
    free(fa); free(fr);
  }
  double z[9] = { 1, 2, 3, 0, 0, 0, 4, 5, 7 }, zmp = 0;
  int zp[3], zinfo = 0;
  int64_t zmi = 0;
  ko->getrf_rec(be, 0, 3, 3, z, 3, 2, K_GAUSS_BASE_FUSED, zp, &zinfo, &zmp, &zmi);
  ok(zinfo == 2 && zmp == 0 && zmi == 1, "fused base blocks: a zero column 1 gives info = 2", zinfo);
  /* getrf_dev = getrf: the same factors, pivots, and status figures */
  int64_t pm = 37, pn = 9;
  double *a1 = mat(40, pm, pn, pm), *a2 = mat(40, pm, pn, pm), st[3], mp = 0;
  int p1[9], p2[9], info = 0;
  int64_t mi = 0;
  ko->getrf(be, 0, pm, pn, a1, pm, p1, &info, &mp, &mi);
  ko->getrf_dev(be, 0, pm, pn, a2, pm, 0, K_GAUSS_BASE_VENDOR, p2, st);
  ok(rdiff(a2, a1, pm, pn, pm) == 0 && !memcmp(p1, p2, sizeof p1), "getrf_dev: getrf's factors and pivots",
     rdiff(a2, a1, pm, pn, pm));
  ok(st[0] == info && st[1] == mp && st[2] == (double)mi, "getrf_dev: getrf's info, min |u_jj|, its column",
     st[1] - mp);
  free(a1); free(a2);
}

/* The reference LU without pivoting (unblocked, right-looking; a zero pivot leaves its column
 * unscaled).  Local. */
static void ref_getrf_nopiv(int64_t m, int64_t n, double *a, int64_t lda) {
  int64_t d = m < n ? m : n;
  for (int64_t k = 0; k < d; k++) {
    double piv = a[k + k * lda];
    if (piv == 0) continue;
    for (int64_t i = k + 1; i < m; i++) a[i + k * lda] /= piv;
    for (int64_t j = k + 1; j < n; j++)
      for (int64_t i = k + 1; i < m; i++) a[i + j * lda] -= a[i + k * lda] * a[k + j * lda];
  }
}

/* getrf_rec / getrf_dev with base = K_GAUSS_BASE_NOPIV (gauss.pivoting = none) on a matrix
 * where partial pivoting swaps: the identity pivots, the factors of the LU without pivoting
 * (one base block: exactly; blocks of 4 and 32 columns through the recursion's TRSM + GEMM:
 * 1e-12 FP64, 1e-5 FP32), getrf_dev's status 0; a zero a_00 of a nonsingular matrix gives
 * info = 1 (partial pivoting factors it).  Local. */
static void check_nopiv(const k_gauss_ops *ko, k_backend *be) {
  int64_t m = 61, n = 23;
  double *a0 = mat(70, m, n, m);
  for (int64_t j = 0; j < n; j++) a0[j + j * m] += 3.0;   /* keep the pivots away from 0 */
  double *r = malloc(sizeof *r * (size_t)(m * n)), *pr = malloc(sizeof *pr * (size_t)(m * n));
  memcpy(r, a0, sizeof *r * (size_t)(m * n));
  memcpy(pr, a0, sizeof *pr * (size_t)(m * n));
  ref_getrf_nopiv(m, n, r, m);
  int rp[23], moved = 0;
  ref_getrf(m, n, pr, m, rp);
  for (int64_t k = 0; k < n; k++) moved += rp[k] != k;
  ok(moved > 0, "no-pivot check: partial pivoting would swap rows of this matrix", moved);
  const int nbms[3] = { 32, 4, 7 };
  for (int sp = 0; sp < 2; sp++)
    for (int t = 0; t < 3; t++) {
      int nbm = nbms[t], ip[23], info = -1, ident = 1;
      double mp = 0, *a = malloc(sizeof *a * (size_t)(m * n));
      float *af = malloc(sizeof *af * (size_t)(m * n));
      int64_t mi = 0;
      memcpy(a, a0, sizeof *a * (size_t)(m * n));
      for (int64_t i = 0; i < m * n; i++) af[i] = (float)a0[i];
      ok(ko->getrf_rec(be, sp, m, n, sp ? (void *)af : (void *)a, m, nbm, K_GAUSS_BASE_NOPIV, ip, &info, &mp, &mi)
             == HY_OK, "no-pivot getrf_rec returns HY_OK", 0);
      if (sp)
        for (int64_t i = 0; i < m * n; i++) a[i] = af[i];
      for (int64_t k = 0; k < n; k++) ident &= ip[k] == k;
      double e = rdiff(a, r, m, n, m);
      char what[128];
      snprintf(what, sizeof what, "no-pivot base blocks of %d (%s): identity pivots, info 0, the LU without "
               "pivoting", nbm, sp ? "FP32" : "FP64");
      ok(ident && info == 0 && (sp ? e <= 1e-5 : nbm >= n ? e == 0 : e <= 1e-12), what, e);
      free(a); free(af);
    }
  /* getrf_dev: the same factors, identity pivots, status 0 and the smallest |u_jj| */
  double *a = malloc(sizeof *a * (size_t)(m * n)), st[3];
  int dp[23], ident = 1;
  memcpy(a, a0, sizeof *a * (size_t)(m * n));
  ko->getrf_dev(be, 0, m, n, a, m, 8, K_GAUSS_BASE_NOPIV, dp, st);
  for (int64_t k = 0; k < n; k++) ident &= dp[k] == k;
  double mp = INFINITY;
  for (int64_t k = 0; k < n; k++) mp = fabs(r[k + k * m]) < mp ? fabs(r[k + k * m]) : mp;
  ok(ident && st[0] == 0 && fabs(st[1] - mp) <= 1e-12 * mp && rdiff(a, r, m, n, m) <= 1e-12,
     "no-pivot getrf_dev: identity pivots, status 0, min |u_jj|, the factors", st[1] - mp);
  free(a); free(a0); free(r); free(pr);
  double z[4] = { 0, 1, 1, 0 }, zmp = 1;
  int zp[2], zinfo = 0;
  int64_t zmi = 5;
  ko->getrf_rec(be, 0, 2, 2, z, 2, 2, K_GAUSS_BASE_NOPIV, zp, &zinfo, &zmp, &zmi);
  ok(zinfo == 1 && zmp == 0 && zmi == 0 && zp[0] == 0 && zp[1] == 1,
     "no-pivot base block: a zero a_00 gives info = 1, identity pivots", zinfo);
}

int main(void) {
  k_backend be;
  memset(&be, 0, sizeof be);
  if (k_backend_open(&be, K_HOST, -1) != HY_OK) {
    printf("FAILED: the host backend does not open: %s\n", hy_err_msg());
    return 1;
  }
  const k_gauss_ops *ko = k_gauss_ops_get(&be);
  const k_comm_ops *kc = k_comm_ops_get(&be);
  check_getrf(ko, &be);
  check_moves(ko, kc, &be);
  check_blas(ko, &be);
  check_rows(ko, &be);
  check_low(ko, &be);
  check_plan(ko, &be);
  check_nopiv(ko, &be);
  ok(kc->coll_id_bytes(&be) == 0 && kc->no_coll != NULL, "host: no device collectives", 0);
  k_backend_close(&be);
  printf("%s: %d of %d checks passed\n", nfailed ? "FAILED" : "PASSED", nchecks - nfailed, nchecks);
  return nfailed ? 1 : 0;
}
