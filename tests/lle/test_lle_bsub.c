/* test_lle_bsub.c - the subspace iteration engine's start-block QR and final residuals
 * (k_lle_eig_ops.bsub_orth, bsub_resid; lle.iter_block = backend) against plain loops, on a
 * random B (n = 3000, CSR, 7 entries a row at random columns, values in [-1, 1)) and random
 * blocks from a fresh seed (printed; argv[2] sets one):
 *   orth:  Q^T Q = I within 1e-13, and V = Q (Q^T V) within 1e-13 ||V||_F (the same span);
 *   resid: ||B^T B x_j - val_j x_j|| within 1e-12 of this file's loops (relative to
 *          ||B^T B x_j|| + |val_j| ||x_j||), for nc = 1 and 3 columns and val from [0, 2);
 *   a block of more columns than the engine's p refused (an error, no result).
 * The engine: `host` (kernels/host/lle_bsub_host.c) or `cuda` (exit 77 without a device).
 * Exit 0 pass, 1 fail. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int nchecks, nfailed;

/* One check: print it, count it.  Local. */
static void ok(int cond, const char *what, double val) {
  nchecks++;
  if (!cond) nfailed++;
  printf("%s %s: %.3e\n", cond ? "ok  " : "FAIL", what, val);
}

static uint64_t rng;
/* A uniform double in [0, 1) (xorshift64).  Local. */
static double urand(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (double)(rng >> 11) * 0x1p-53;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "host";
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)time(NULL) * 2654435761u;
  rng = seed | 1;
  printf("seed %llu\n", (unsigned long long)seed);
  k_backend be;
  memset(&be, 0, sizeof be);
  if (!strcmp(mode, "cuda")) {
    if (!k_cuda_compiled() || k_cuda_device_count() < 1) {
      printf("SKIP: no CUDA device\n");
      return 77;
    }
    if (k_backend_open(&be, K_CUDA, 0) != HY_OK) {
      printf("FAILED: the CUDA backend does not open: %s\n", hy_err_msg());
      return 1;
    }
  }
  const k_lle_eig_ops *ops = k_lle_eig_ops_get(&be);
  ok(ops->bsub_open && ops->bsub_orth && ops->bsub_resid && ops->bsub_close, "the table has bsub_open, _orth, _resid, _close", 0);
  if (!ops->bsub_open || !ops->bsub_orth || !ops->bsub_resid || !ops->bsub_close) return 1;
  enum { N = 3000, K1 = 7, P = 8 };
  int64_t *bp = NULL, *bi = NULL;
  double *bx = NULL, *v = NULL, *q = NULL, *x = NULL, *t = NULL, *y = NULL;
  HY_MALLOC(bp, N + 1); HY_MALLOC(bi, (size_t)N * K1); HY_MALLOC(bx, (size_t)N * K1);
  HY_MALLOC(v, (size_t)N * P); HY_MALLOC(q, (size_t)N * P); HY_MALLOC(x, (size_t)N * P);
  HY_MALLOC(t, N); HY_MALLOC(y, N);
  for (int64_t r = 0; r <= N; r++) bp[r] = r * K1;
  for (int64_t a = 0; a < (int64_t)N * K1; a++) {
    bi[a] = (int64_t)(urand() * N);
    bx[a] = 2 * urand() - 1;
  }
  k_lle_bsub_in in = { .n = N, .k1 = K1, .p = P, .bp = bp, .bi = bi, .bx = bx };
  k_lle_bsub *w = NULL;
  int rc = ops->bsub_open(&be, &in, &w);
  ok(rc == HY_OK && w, "the engine opens", (double)rc);
  if (rc != HY_OK) return 1;
  /* orth */
  for (size_t i = 0; i < (size_t)N * P; i++) v[i] = 2 * urand() - 1;
  memcpy(q, v, (size_t)N * P * sizeof *q);
  rc = ops->bsub_orth(w, q);
  double orth = 0, span = 0, vn = 0;
  for (int a = 0; a < P; a++)
    for (int b = 0; b < P; b++) {
      double s = 0;
      for (int64_t i = 0; i < N; i++) s += q[(size_t)a * N + i] * q[(size_t)b * N + i];
      orth = fmax(orth, fabs(s - (a == b)));
    }
  for (int b = 0; b < P; b++) {   /* V - Q (Q^T V), column b */
    double c[P];
    for (int a = 0; a < P; a++) {
      double s = 0;
      for (int64_t i = 0; i < N; i++) s += q[(size_t)a * N + i] * v[(size_t)b * N + i];
      c[a] = s;
    }
    for (int64_t i = 0; i < N; i++) {
      double r = v[(size_t)b * N + i];
      for (int a = 0; a < P; a++) r -= q[(size_t)a * N + i] * c[a];
      span += r * r;
      vn += v[(size_t)b * N + i] * v[(size_t)b * N + i];
    }
  }
  ok(rc == HY_OK && orth <= 1e-13, "orth: max |Q^T Q - I| (<= 1e-13)", orth);
  ok(rc == HY_OK && sqrt(span) <= 1e-13 * sqrt(vn), "orth: ||V - Q Q^T V||_F / ||V||_F (<= 1e-13)", sqrt(span / vn));
  /* resid */
  for (int nc = 1; nc <= 3; nc += 2) {
    double val[3], res[3] = { -1, -1, -1 }, worst = 0;
    for (size_t i = 0; i < (size_t)N * nc; i++) x[i] = 2 * urand() - 1;
    for (int j = 0; j < nc; j++) val[j] = 2 * urand();
    rc = ops->bsub_resid(w, x, nc, val, res);
    for (int j = 0; j < nc; j++) {
      const double *xj = x + (size_t)j * N;
      double s = 0, yn = 0, xn = 0;
      for (int64_t r = 0; r < N; r++) {
        double a = 0;
        for (int64_t e = bp[r]; e < bp[r + 1]; e++) a += bx[e] * xj[bi[e]];
        t[r] = a;
      }
      memset(y, 0, N * sizeof *y);
      for (int64_t r = 0; r < N; r++)
        for (int64_t e = bp[r]; e < bp[r + 1]; e++) y[bi[e]] += bx[e] * t[r];
      for (int64_t i = 0; i < N; i++) {
        double d = y[i] - val[j] * xj[i];
        s += d * d; yn += y[i] * y[i]; xn += xj[i] * xj[i];
      }
      double scale = sqrt(yn) + fabs(val[j]) * sqrt(xn);
      worst = fmax(worst, fabs(res[j] - sqrt(s)) / scale);
    }
    char what[160];
    snprintf(what, sizeof what, "resid, %d column(s): |res_j - ||B^T B x_j - val_j x_j||| / (||B^T B x_j|| + |val_j| ||x_j||) "
             "(<= 1e-12)", nc);
    ok(rc == HY_OK && worst <= 1e-12, what, worst);
  }
  double val9[P + 1] = { 0 }, res9[P + 1];
  rc = ops->bsub_resid(w, x, P + 1, val9, res9);
  ok(rc != HY_OK, "resid: p + 1 columns refused (an error)", (double)rc);
  hy_err_clear();
  double bytes = 0;
  ops->bsub_close(w, &bytes);
  if (!strcmp(mode, "cuda")) k_backend_close(&be);
  free(bp); free(bi); free(bx); free(v); free(q); free(x); free(t); free(y);
  printf("%s: %d of %d checks passed\n", nfailed ? "FAILED" : "PASSED", nchecks - nfailed, nchecks);
  return nfailed ? 1 : 0;
}
