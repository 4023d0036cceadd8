/* test_kernels_host.c - the host backend's core operations (kernels/host/k_host.c) against
 * references written here: plain loops in long double, byte-by-byte comparisons.  Not through
 * selftest, not through another backend: a bug in k_host.c cannot cancel itself here.
 * Exit 0 when every check passes, 1 otherwise; each failed check is printed. */
#include "kernels.h"
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

/* daxpy of length n with factor a against y0 + a x rounded once from long double. */
static void check_daxpy(k_backend *be, int64_t n, double a) {
  double *x = malloc((size_t)(n + 1) * sizeof *x), *y = malloc((size_t)(n + 2) * sizeof *y);
  double *y0 = malloc((size_t)(n + 1) * sizeof *y0);
  for (int64_t i = 0; i < n; i++) {
    x[i] = val(1, (uint64_t)i);
    y[i] = y0[i] = val(2, (uint64_t)i);
  }
  y[n] = 12345.0; /* past the end: must stay */
  ok(be->ops->daxpy(be, n, a, x, y) == HY_OK, "daxpy returns HY_OK", 0);
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double ref = (double)((long double)y0[i] + (long double)a * (long double)x[i]);
    /* fl(fl(a x) + y0) and the once-rounded ref differ by at most ~3 units of roundoff of
     * |a x| + |y0| (with or without FMA) */
    double e = fabs(y[i] - ref), tol = 3.4e-16 * (fabs(a * x[i]) + fabs(y0[i]));
    if (!(e <= tol) && e > worst) worst = e;
  }
  char what[128];
  snprintf(what, sizeof what, "daxpy n = %lld, a = %g: every y[i] = y0[i] + a x[i]", (long long)n, a);
  ok(worst == 0, what, worst);
  ok(y[n] == 12345.0, "daxpy writes nothing past y[n-1]", y[n]);
  free(x);
  free(y);
  free(y0);
}

/* ddot of length n against a long-double sum, relative to sum |x y|. */
static void check_ddot(k_backend *be, int64_t n) {
  double *x = malloc((size_t)(n + 1) * sizeof *x), *y = malloc((size_t)(n + 1) * sizeof *y);
  long double ref = 0, sabs = 0;
  for (int64_t i = 0; i < n; i++) {
    x[i] = val(3, (uint64_t)i);
    y[i] = val(4, (uint64_t)i) + 0.25; /* a nonzero mean: the dot does not vanish */
    ref += (long double)x[i] * y[i];
    sabs += fabsl((long double)x[i] * y[i]);
  }
  double dot = -7;
  ok(be->ops->ddot(be, n, x, y, &dot) == HY_OK, "ddot returns HY_OK", 0);
  double e = (double)(fabsl((long double)dot - ref) / (sabs > 0 ? sabs : 1));
  char what[128];
  snprintf(what, sizeof what, "ddot n = %lld: |dot - sum x y| <= 1e-14 sum |x y|", (long long)n);
  ok(n == 0 ? dot == 0 : e <= 1e-14, what, n == 0 ? dot : e);
  free(x);
  free(y);
}

/* alloc (aligned, usable), every copy direction, memset0, the zero-byte cases. */
static void check_memory(k_backend *be) {
  size_t bytes = 1000003;
  unsigned char *a = NULL, *b = NULL, *c = NULL, *h = malloc(bytes), *back = malloc(bytes);
  ok(be->ops->alloc(be, (void **)&a, bytes) == HY_OK && a, "alloc", 0);
  ok(((uintptr_t)a & 63) == 0, "alloc is 64-byte aligned", (double)((uintptr_t)a & 63));
  ok(be->ops->alloc_pinned(be, (void **)&b, bytes) == HY_OK && b, "alloc_pinned", 0);
  ok(be->ops->alloc_managed(be, (void **)&c, bytes) == HY_OK && c, "alloc_managed", 0);
  for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(i * 131 + (i >> 8));
  memset(back, 0, bytes);
  ok(be->ops->h2d(be, a, h, bytes) == HY_OK, "h2d returns HY_OK", 0);
  ok(be->ops->d2d(be, c, a, bytes) == HY_OK, "d2d returns HY_OK", 0);
  ok(be->ops->d2h(be, b, c, bytes) == HY_OK, "d2h returns HY_OK", 0);
  ok(be->ops->sync(be) == HY_OK, "sync returns HY_OK", 0);
  size_t bad = 0;
  for (size_t i = 0; i < bytes; i++) bad += b[i] != (unsigned char)(i * 131 + (i >> 8));
  ok(bad == 0, "h2d -> d2d -> d2h gives every byte back", (double)bad);
  ok(be->ops->d2h(be, back, a, 17) == HY_OK, "d2h of 17 bytes", 0);
  bad = 0;
  for (size_t i = 0; i < bytes; i++) bad += back[i] != (i < 17 ? h[i] : 0);
  ok(bad == 0, "d2h of 17 bytes copies those and nothing else", (double)bad);
  ok(be->ops->memset0(be, a + 5, 1000) == HY_OK, "memset0 returns HY_OK", 0);
  ok(be->ops->d2h(be, back, a, bytes) == HY_OK, "d2h after memset0", 0);
  bad = 0;
  for (size_t i = 0; i < bytes; i++) bad += back[i] != (i >= 5 && i < 1005 ? 0 : h[i]);
  ok(bad == 0, "memset0 zeroes exactly bytes [5, 1005)", (double)bad);
  void *z = (void *)1;
  ok(be->ops->alloc(be, &z, 0) == HY_OK, "alloc of 0 bytes is not an error", 0);
  be->ops->free(be, z);
  ok(be->ops->h2d(be, a, h, 0) == HY_OK && be->ops->memset0(be, a, 0) == HY_OK, "0-byte copies", 0);
  ok(be->ops->free(be, a) == HY_OK && be->ops->free_pinned(be, b) == HY_OK &&
     be->ops->free(be, c) == HY_OK, "free", 0);
  free(h);
  free(back);
}

int main(void) {
  k_backend be;
  if (k_backend_open(&be, K_HOST, -1) != HY_OK) {
    printf("FAILED: cannot open the host backend: %s\n", hy_err_msg());
    return 1;
  }
  ok(!be.gpu && be.device == -1 && !strcmp(be.name, "host"), "host backend: gpu = 0, no device", 0);
  ok(be.vendor_blas && be.vendor_solver && be.vendor_sparse, "host backend names its libraries", 0);
  check_memory(&be);
  int64_t ns[] = { 0, 1, 2, 7, 1023, 1024, 1025, 4097, 100003 };
  double as[] = { 1.0, -0.75, 3.5e-3, 0.0 };
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
    for (size_t j = 0; j < sizeof as / sizeof *as; j++) check_daxpy(&be, ns[i], as[j]);
    check_ddot(&be, ns[i]);
  }
  k_backend_close(&be);
  printf("kernels_host: %d checks, %d failed: %s\n", nchecks, nfailed, nfailed ? "FAILED" : "PASSED");
  return nfailed ? 1 : 0;
}
