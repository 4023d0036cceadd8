/* test_gauss_small_gpu.c - the CUDA backend's small-n LU (k_gauss_ops getrf_small /
 * getrs_small, both kinds: steps, kernels/cuda/gauss_small_step_cuda.cu, and coop,
 * kernels/cuda/gauss_small_cuda.cu) against LAPACK through the host backend's table (dgetrf,
 * laswp + trsv): at orders the panel widths (32, 16, 8) and the kernels' template bounds (512,
 * 1024) do not divide or sit beside, the pivots identical to dgetrf's
 * (ties too: the first row of equal magnitude), the row order the pivots' composition, the
 * factors to 1e-11, min |u_jj| and its column, x to LAPACK's and HPL's scaled residual < 16; an
 * exactly singular matrix gives dgetrf's info.  Exit 0 when every check passes, 1 otherwise
 * (each failed check printed), 77 without a CUDA device (skip). */
#include "k_gauss.h"
#include "hybrid.h"
#include "../common/test_rand.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nchecks, nfailed;
static int lu_kind;   /* the getrf_small kind under test (K_GAUSS_SMALL_*) */
static const char *const kname[] = { "steps", "coop" };

/* Count a check; print it when it failed.  Local. */
static void ok(int cond, const char *what, int64_t n, double fig) {
  nchecks++;
  if (!cond) {
    nfailed++;
    printf("FAILED: %s, n = %lld: %s (figure %.3e)\n", kname[lu_kind], (long long)n, what, fig);
  }
}

/* A deterministic value in [-0.5, 0.5) for index i of stream s. */
static double val(uint64_t s, uint64_t i) { return test_u01(s, i) - 0.5; }

/* max |a - b| relative to max |b| over len values.  Local. */
static double rdiff(const double *a, const double *b, int64_t len) {
  double e = 0, s = 0;
  for (int64_t i = 0; i < len; i++) {
    double d = fabs(a[i] - b[i]);
    if (d > e || isnan(d)) e = isnan(d) ? INFINITY : d;
    if (fabs(b[i]) > s) s = fabs(b[i]);
  }
  return e / (s > 0 ? s : 1);
}

/* HPL's scaled residual of x for A x = b (n x n, column-major), FP64 eps.  Local. */
static double hpl_scaled(int64_t n, const double *a, const double *x, const double *b) {
  double nr = 0, na = 0, nx = 0, nb = 0;
  for (int64_t i = 0; i < n; i++) {
    double r = -b[i], rs = 0;
    for (int64_t j = 0; j < n; j++) {
      r += a[i + j * n] * x[j];
      rs += fabs(a[i + j * n]);
    }
    if (fabs(r) > nr || isnan(r)) nr = isnan(r) ? INFINITY : fabs(r);
    if (rs > na) na = rs;
    if (fabs(x[i]) > nx) nx = fabs(x[i]);
    if (fabs(b[i]) > nb) nb = fabs(b[i]);
  }
  return nr / (DBL_EPSILON * (na * nx + nb) * (double)n);
}

/* One matrix (kind 0: random; 1: column 0 with ties of magnitude; 2: column zc zero) through
 * both backends; the checks as the file's head says.  Local. */
static void check_one(const k_gauss_ops *ho, k_backend *hb, const k_gauss_ops *co, k_backend *cb,
                      int64_t n, int kind, int64_t zc, uint64_t seed) {
  size_t nn = (size_t)(n * n);
  double *a0 = malloc(nn * sizeof(double)), *ah = malloc(nn * sizeof(double));
  double *ac = malloc(nn * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  double *xh = malloc((size_t)n * sizeof(double)), *xc = malloc((size_t)n * sizeof(double));
  int *hp = malloc((size_t)(n + 1) * sizeof(int)), *cp = malloc((size_t)K_GAUSS_SMALL_INTS(n) * sizeof(int));
  for (size_t e = 0; e < nn; e++) a0[e] = val(seed, e);
  if (kind == 1)   /* |a| = 0.25 down column 0 but +-0.5 at rows n/3 and 2n/3: the first one wins */
    for (int64_t i = 0; i < n; i++) a0[i] = i == n / 3 ? -0.5 : i == 2 * n / 3 ? 0.5 : 0.25;
  if (kind == 2)
    for (int64_t i = 0; i < n; i++) a0[i + zc * n] = 0;
  for (int64_t i = 0; i < n; i++) b[i] = val(seed + 1, (uint64_t)i);
  memcpy(ah, a0, nn * sizeof(double));
  int hinfo = 0, cinfo = -1;
  double hmin = 0, cmin = -1;
  int64_t hmi = 0, cmi = -1;
  ok(ho->getrf(hb, 0, n, n, ah, n, hp, &hinfo, &hmin, &hmi) == HY_OK, "host getrf", n, 0);
  double *da = NULL, *dx = NULL;
  int *dp = NULL;
  ok(cb->ops->alloc(cb, (void **)&da, nn * sizeof(double)) == HY_OK &&
     cb->ops->alloc(cb, (void **)&dx, (size_t)n * sizeof(double)) == HY_OK &&
     cb->ops->alloc(cb, (void **)&dp, (size_t)K_GAUSS_SMALL_INTS(n) * sizeof(int)) == HY_OK, "device buffers", n, 0);
  cb->ops->h2d(cb, da, a0, nn * sizeof(double));
  int rc = co->getrf_small(cb, lu_kind, n, da, n, dp, &cinfo, &cmin, &cmi);
  ok(rc == HY_OK, "getrf_small returns HY_OK", n, rc);
  if (rc != HY_OK) printf("  (%s)\n", hy_err_msg());
  cb->ops->d2h(cb, ac, da, nn * sizeof(double));
  cb->ops->d2h(cb, cp, dp, (size_t)(2 * n) * sizeof(int));
  cb->ops->sync(cb);
  ok(cinfo == hinfo, "info equal to dgetrf's", n, cinfo - hinfo);
  int bad = 0;
  for (int64_t i = 0; i < n; i++) bad += cp[i] != hp[i];
  ok(bad == 0, "pivots identical to dgetrf's", n, bad);
  if (kind == 1) ok(cp[0] == n / 3, "tie: the first row of the largest magnitude", n, cp[0]);
  /* the row order: the pivots applied in order to 0 .. n-1 */
  int *perm = malloc((size_t)n * sizeof(int));
  for (int64_t i = 0; i < n; i++) perm[i] = (int)i;
  for (int64_t i = 0; i < n; i++) {
    int t = perm[i];
    perm[i] = perm[cp[i]];
    perm[cp[i]] = t;
  }
  bad = 0;
  for (int64_t i = 0; i < n; i++) bad += perm[i] != cp[n + i];
  ok(bad == 0, "row order = the pivots' composition", n, bad);
  if (kind != 2) {
    double fd = rdiff(ac, ah, (int64_t)nn);
    ok(fd < 1e-11, "factors within 1e-11 of dgetrf's", n, fd);
    double fmax = 0;
    for (size_t e = 0; e < nn; e++) fmax = fabs(ah[e]) > fmax ? fabs(ah[e]) : fmax;
    ok(fabs(cmin - hmin) <= 1e-11 * fmax && cmi == hmi,
       "min |u_jj| (to 1e-11 max |LU|) and its column as dgetrf's", n, cmin - hmin);
    /* x: ours against LAPACK's (laswp + two trsv on the host factors) */
    memcpy(xh, b, (size_t)n * sizeof(double));
    ho->laswp(hb, 0, xh, n, 1, (int)n, hp);
    ho->trsv(hb, 0, 0, n, ah, n, xh);
    ho->trsv(hb, 0, 1, n, ah, n, xh);
    cb->ops->h2d(cb, dx, b, (size_t)n * sizeof(double));
    rc = co->getrs_small(cb, lu_kind, n, da, n, dp, dx);
    ok(rc == HY_OK, "getrs_small returns HY_OK", n, rc);
    cb->ops->d2h(cb, xc, dx, (size_t)n * sizeof(double));
    cb->ops->sync(cb);
    double xd = rdiff(xc, xh, n), sc = hpl_scaled(n, a0, xc, b);
    ok(xd < 1e-9, "x within 1e-9 of LAPACK's", n, xd);
    ok(sc < 16, "HPL scaled residual < 16", n, sc);
    printf("%s n = %lld%s: pivots as dgetrf, factors %.2e, x %.2e, HPL scaled residual %.4f\n",
           kname[lu_kind], (long long)n, kind == 1 ? " (ties)" : "", fd, xd, sc);
  } else {
    ok(cinfo == zc + 1 && cmin == 0, "zero column: info = its 1-based index, min |u_jj| = 0", n, cinfo);
    printf("%s n = %lld, column %lld zero: info %d (dgetrf %d)\n", kname[lu_kind], (long long)n, (long long)zc, cinfo, hinfo);
  }
  cb->ops->free(cb, da);
  cb->ops->free(cb, dx);
  cb->ops->free(cb, dp);
  free(a0); free(ah); free(ac); free(b); free(xh); free(xc); free(hp); free(cp); free(perm);
}

int main(void) {
  if (!k_cuda_compiled() || k_cuda_device_count() < 1) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  k_backend hb, cb;
  memset(&hb, 0, sizeof hb);
  memset(&cb, 0, sizeof cb);
  if (k_backend_open(&hb, K_HOST, -1) != HY_OK || k_backend_open(&cb, K_CUDA, 0) != HY_OK) {
    printf("FAILED: a backend does not open: %s\n", hy_err_msg());
    return 1;
  }
  const k_gauss_ops *ho = k_gauss_ops_get(&hb), *co = k_gauss_ops_get(&cb);
  ok(co->getrf_small && co->getrs_small && co->small_nmax >= 2048, "CUDA has the small-n LU up to 2048", 0,
     (double)co->small_nmax);
  if (!co->getrf_small) return 1;
  static const int64_t sizes[] = { 1, 2, 31, 33, 100, 511, 512, 513, 1000, 1024, 1025, 2047, 2048 };
  for (lu_kind = K_GAUSS_SMALL_STEPS; lu_kind <= K_GAUSS_SMALL_COOP; lu_kind++) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      check_one(ho, &hb, co, &cb, sizes[i], 0, 0, 11 + i);
    check_one(ho, &hb, co, &cb, 64, 1, 0, 41);
    check_one(ho, &hb, co, &cb, 700, 1, 0, 42);
    check_one(ho, &hb, co, &cb, 1500, 1, 0, 45);
    check_one(ho, &hb, co, &cb, 100, 2, 40, 43);
    check_one(ho, &hb, co, &cb, 1500, 2, 1499, 44);
    check_one(ho, &hb, co, &cb, 1000, 2, 517, 46);
  }
  lu_kind = 0;
  k_backend_close(&cb);
  k_backend_close(&hb);
  printf("%s: %d of %d checks passed\n", nfailed ? "FAILED" : "PASSED", nchecks - nfailed, nchecks);
  return nfailed ? 1 : 0;
}
