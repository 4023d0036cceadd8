/* test_gauss_small_time.c - where the small-n LU's time goes on the CUDA backend, and its panel
 * widths checked against each other.  At n = 512, 1024, 2048 (warm: one run, then 10 timed,
 * host clock around each synchronising call, the device idle before each): cuSOLVER getrf +
 * getrs (k_gauss_ops ref_lu, the same repeats), the steps LU (gauss_small_step_cuda.cu) at every
 * panel width it has for n, without programmatic dependent launch (no-pdl: each step launched
 * after the previous one ended), with the pivot search by shuffles of doubles (shfl-red) instead
 * of keys and warp reductions, with CTA 0 alone (lead only: the critical path without the
 * trailing update's CTAs; its factors are wrong and not checked), and the cooperative kernel
 * (coop); one line each with factor and solve (mean and best), the total against cuSOLVER's,
 * and from two widths the fit t = n c + (n / W) s: c the cost of a column, s that of a step.
 * Checks: every variant but lead-only gives coop's pivots (coop: checked against dgetrf by
 * gauss_gpu_small_kernels) and factors within 1e-11 of them, each on its own; the steps LU
 * without the dependent launch (no-pdl), with the other pivot search (shfl-red) and with the
 * panel's column loop unrolled 2, 4, 8 times (unroll2 / 4 / 8: timed too) give the auto
 * width's factors and pivots bit for bit, and the solve without lookahead (solve-plain: timed
 * too; getrs_small has the lookahead) its x (the same arithmetic: digests, FNV-1a over the bytes of the factors and pivots and of
 * x, printed for every variant; coop's and the auto steps LU's must be those of the run before
 * the kernels shared gauss_small_dev.cuh, golden[]).  Exit 0
 * when they pass, 1 otherwise, 77 without a CUDA device. */
#include "k_gauss.h"
#include "hybrid.h"
#include "../common/test_rand.h"
#include "workload.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (gauss_small_step_cuda.cu, beside the table's getrf_small) */
int k_cuda_small_step_getrf_w(k_backend *be, int64_t n, double *a, int64_t lda, int *dpiv, int w,
                              int flags, int *info, double *minpiv, int64_t *minidx);
int k_cuda_small_step_getrs_v(k_backend *be, int64_t n, const double *a, int64_t lda, const int *dpiv,
                              double *x, int variant);

static int nfailed;

/* A deterministic value in [-0.5, 0.5) for index i of stream s. */
static double val(uint64_t s, uint64_t i) { return test_u01(s, i) - 0.5; }

/* k_cuda_small_step_getrf_w's flags (gauss_small_step_cuda.cu) */
enum { SS_LEAD_ONLY = 1, SS_NO_PDL = 2, SS_SHFL_RED = 4, SS_UNROLL2 = 8, SS_UNROLL4 = 16, SS_UNROLL8 = 32 };

typedef struct {
  const char *name;
  int kind, w, flags;       /* K_GAUSS_SMALL_*; steps: the width (0 auto), SS_* flags */
  int solve;                /* steps: 0 the table's getrs_small, else k_cuda_small_step_getrs_v's
                             * variant solve - 1 (1: plain, without lookahead) */
} variant;

typedef struct {
  k_backend *be;
  const k_gauss_ops *ko;
  int64_t n;
  double *a0, *a, *b, *x;   /* device */
  int *piv;                 /* device, K_GAUSS_SMALL_INTS(n) */
} bench;

/* One variant's factorization (synchronises).  Local. */
static int run_lu(bench *q, const variant *v) {
  int info = 0;
  double mp = 0;
  int64_t mi = 0;
  if (v->kind == K_GAUSS_SMALL_STEPS)
    return k_cuda_small_step_getrf_w(q->be, q->n, q->a, q->n, q->piv, v->w, v->flags, &info, &mp, &mi);
  return q->ko->getrf_small(q->be, v->kind, q->n, q->a, q->n, q->piv, &info, &mp, &mi);
}

/* Time a variant: 1 + reps runs of copy, factor, solve; tf / ts: mean [0], best [1] of the
 * timed ones; the last factors, pivots and x into ha / hp / hx.  Local. */
static int time_one(bench *q, const variant *v, int reps, double tf[2], double ts[2], double *ha, int *hp,
                    double *hx) {
  size_t ab = (size_t)(q->n * q->n) * sizeof(double), xb = (size_t)q->n * sizeof(double);
  tf[0] = ts[0] = 0;
  tf[1] = ts[1] = INFINITY;
  for (int r = 0; r <= reps; r++) {
    q->be->ops->d2d(q->be, q->a, q->a0, ab);
    q->be->ops->d2d(q->be, q->x, q->b, xb);
    q->be->ops->sync(q->be);
    double t0 = hy_wtime();
    if (run_lu(q, v) != HY_OK) {
      printf("FAILED: %s n = %lld: %s\n", v->name, (long long)q->n, hy_err_msg());
      return 1;
    }
    double t1 = hy_wtime();
    int rc = v->solve ? k_cuda_small_step_getrs_v(q->be, q->n, q->a, q->n, q->piv, q->x, v->solve - 1)
                      : q->ko->getrs_small(q->be, v->kind, q->n, q->a, q->n, q->piv, q->x);
    if (rc != HY_OK) {
      printf("FAILED: %s n = %lld: %s\n", v->name, (long long)q->n, hy_err_msg());
      return 1;
    }
    q->be->ops->sync(q->be);
    double t2 = hy_wtime();
    if (r == 0) continue;
    tf[0] += (t1 - t0) / reps;
    ts[0] += (t2 - t1) / reps;
    if (t1 - t0 < tf[1]) tf[1] = t1 - t0;
    if (t2 - t1 < ts[1]) ts[1] = t2 - t1;
  }
  q->be->ops->d2h(q->be, ha, q->a, ab);
  q->be->ops->d2h(q->be, hp, q->piv, (size_t)q->n * sizeof(int));
  q->be->ops->d2h(q->be, hx, q->x, xb);
  q->be->ops->sync(q->be);
  return 0;
}

/* FNV-1a (64 bits) of len bytes, continuing h.  Local. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t len) {
  const unsigned char *b = p;
  for (size_t i = 0; i < len; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* The digest of the factors' and the pivots' bytes.  Local. */
static unsigned long long digest(const double *a, const int *p, int64_t n) {
  return fnv(fnv(1469598103934665603ull, a, (size_t)(n * n) * sizeof(double)), p, (size_t)n * sizeof(int));
}

/* The digests (factors and pivots; x) of coop and of the steps LU at the auto width from the H200
 * run of 03:15 (main bd8e183), before both kernels took their pivot search, pivot record and
 * register rotation from kernels/cuda/gauss_small_dev.cuh: the same bits expected (refresh them
 * only when the arithmetic changes on purpose, saying so). */
static const struct {
  int64_t n;
  int kind;
  unsigned long long d, dx;
} golden[] = {
  { 512, K_GAUSS_SMALL_COOP, 0xaa877acb483b30c7ull, 0x55a5ab7dd42fb745ull },
  { 512, K_GAUSS_SMALL_STEPS, 0xe2c043b8b1331546ull, 0x165c0289a5e3b59full },
  { 1024, K_GAUSS_SMALL_COOP, 0x44f02ff08e4871baull, 0x126f00cd7f1654d3ull },
  { 1024, K_GAUSS_SMALL_STEPS, 0x0f63f5044fc714e8ull, 0xdd803d1257b639fdull },
  { 2048, K_GAUSS_SMALL_COOP, 0xf728b1479a7d9f06ull, 0xb3cc62bf4c40a5cdull },
  { 2048, K_GAUSS_SMALL_STEPS, 0x3c5c72fc70487bf9ull, 0xd95eb55cd2ad33bfull },
};

/* coop's and the auto steps LU's digests against golden[].  Local. */
static void check_golden(const variant *v, int64_t n, unsigned long long d, unsigned long long dx) {
  if (v->flags != 0 || v->w != 0 || v->solve != 0) return;
  for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++)
    if (golden[i].n == n && golden[i].kind == v->kind && (golden[i].d != d || golden[i].dx != dx)) {
      nfailed++;
      printf("FAILED: %s n = %lld: digest %016llx (x %016llx), not that of main bd8e183 %016llx (x %016llx)\n",
             v->name, (long long)n, d, dx, golden[i].d, golden[i].dx);
    }
}

/* A variant's digests (d: factors and pivots, dx: x) printed; those of the steps LU at the auto
 * width kept (da: "steps auto"), every other variant at the auto width but CTA 0 alone must
 * match them bit for bit (the same arithmetic).  Local. */
static void check_bits(const variant *v, int64_t n, const char *label, unsigned long long d,
                       unsigned long long dx, unsigned long long da[2]) {
  printf("small-time n=%lld %s: digest %016llx (x %016llx)\n", (long long)n, label, d, dx);
  check_golden(v, n, d, dx);
  if (v->kind != K_GAUSS_SMALL_STEPS || v->w != 0 || (v->flags & SS_LEAD_ONLY)) return;
  if (v->flags == 0 && v->solve == 0) {
    da[0] = d;
    da[1] = dx;
    return;
  }
  if (d != da[0] || dx != da[1]) {
    nfailed++;
    printf("FAILED: %s n = %lld: digest %016llx (x %016llx), not the auto width's %016llx (x %016llx): "
           "the same arithmetic must give the same bits\n", v->name, (long long)n, d, dx, da[0], da[1]);
  }
}

/* Pivots identical and factors within 1e-11 (relative to max |ref|) of the reference (coop).
 * Local. */
static void check_same(const char *name, int64_t n, const double *a, const int *p, const double *ra,
                       const int *rp) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) bad += p[i] != rp[i];
  double e = 0, s = 0;
  for (int64_t k = 0; k < n * n; k++) {
    double d = fabs(a[k] - ra[k]);
    if (d > e || isnan(d)) e = isnan(d) ? INFINITY : d;
    if (fabs(ra[k]) > s) s = fabs(ra[k]);
  }
  e /= s > 0 ? s : 1;
  if (bad || !(e < 1e-11)) {
    nfailed++;
    printf("FAILED: %s n = %lld: %d pivots differ from coop's, factors %.2e apart\n", name,
           (long long)n, bad, e);
  }
}

/* Every variant at order n against cuSOLVER.  Local. */
static void bench_n(k_backend *be, const k_gauss_ops *ko, int64_t n) {
  bench q = { be, ko, n, NULL, NULL, NULL, NULL, NULL };
  size_t nn = (size_t)(n * n), ab = nn * sizeof(double), xb = (size_t)n * sizeof(double);
  double *h = malloc(ab), *ha = malloc(ab), *ra = malloc(ab), *hx = malloc(xb);
  int *hp = malloc((size_t)n * sizeof(int)), *rp = malloc((size_t)n * sizeof(int));
  for (size_t e = 0; e < nn; e++) h[e] = val(7 + (uint64_t)n, e);
  be->ops->alloc(be, (void **)&q.a0, ab);
  be->ops->alloc(be, (void **)&q.a, ab);
  be->ops->alloc(be, (void **)&q.b, xb);
  be->ops->alloc(be, (void **)&q.x, xb);
  be->ops->alloc(be, (void **)&q.piv, (size_t)K_GAUSS_SMALL_INTS(n) * sizeof(int));
  be->ops->h2d(be, q.a0, h, ab);
  for (int64_t i = 0; i < n; i++) h[i] = val(8, (uint64_t)i);
  be->ops->h2d(be, q.b, h, xb);
  be->ops->sync(be);
  double vf[2], vs[2];
  int info = 0;
  ko->ref_lu(be, n, q.a0, q.b, q.x, 10, vf, vs, &info);
  double vt = vf[1] + vs[1];
  printf("small-time n=%lld cuSOLVER getrf+getrs: factor %.3f ms (best %.3f), solve %.3f ms (best %.3f), "
         "total %.3f ms\n", (long long)n, vf[1] * 1e3, vf[0] * 1e3, vs[1] * 1e3, vs[0] * 1e3, vt * 1e3);
  const int wa = 8;   /* ss_w_auto */
  /* coop first: the reference (checked against dgetrf by gauss_gpu_small_kernels) */
  variant vars[] = {
    { "coop", K_GAUSS_SMALL_COOP, 0, 0, 0 }, { "steps auto", K_GAUSS_SMALL_STEPS, 0, 0, 0 },
    { "steps w=32", K_GAUSS_SMALL_STEPS, 32, 0, 0 }, { "steps w=16", K_GAUSS_SMALL_STEPS, 16, 0, 0 },
    { "steps w=8", K_GAUSS_SMALL_STEPS, 8, 0, 0 }, { "steps no-pdl", K_GAUSS_SMALL_STEPS, 0, 2, 0 },
    { "steps shfl-red", K_GAUSS_SMALL_STEPS, 0, 4, 0 }, { "steps lead-only", K_GAUSS_SMALL_STEPS, 0, 1, 0 },
    { "steps lead-only no-pdl", K_GAUSS_SMALL_STEPS, 0, 3, 0 },
    { "steps unroll2", K_GAUSS_SMALL_STEPS, 0, SS_UNROLL2, 0 }, { "steps unroll4", K_GAUSS_SMALL_STEPS, 0, SS_UNROLL4, 0 },
    { "steps unroll8", K_GAUSS_SMALL_STEPS, 0, SS_UNROLL8, 0 }, { "steps solve-plain", K_GAUSS_SMALL_STEPS, 0, 0, 1 },
  };
  const int R = n <= 512 ? 1 : n <= 1024 ? 2 : 4;
  double tw[33] = { 0 };
  unsigned long long dauto[2] = { 0, 0 };   /* the steps LU's digests at the auto width */
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const variant *v = &vars[i];
    if (v->kind == K_GAUSS_SMALL_STEPS && v->w != 0 && (v->w == wa || R * v->w > 32)) continue;
    double tf[2], ts[2];
    if (time_one(&q, v, 10, tf, ts, ha, hp, hx)) {
      nfailed++;
      continue;
    }
    double tt = tf[0] + ts[0];
    char label[64];
    if (v->kind == K_GAUSS_SMALL_STEPS && v->w == 0) snprintf(label, sizeof label, "%s (w=%d)", v->name, wa);
    else snprintf(label, sizeof label, "%s", v->name);
    printf("small-time n=%lld %s: factor %.3f ms (best %.3f), solve %.3f ms (best %.3f), total %.3f ms "
           "= %.2f x cuSOLVER's\n", (long long)n, label, tf[0] * 1e3, tf[1] * 1e3, ts[0] * 1e3, ts[1] * 1e3,
           tt * 1e3, tt / vt);
    check_bits(v, n, label, digest(ha, hp, n), fnv(1469598103934665603ull, hx, xb), dauto);
    if (i == 0) {
      memcpy(ra, ha, ab);
      memcpy(rp, hp, (size_t)n * sizeof(int));
    } else if (!(v->flags & 1)) {
      check_same(v->name, n, ha, hp, ra, rp);
    }
    if (v->kind == K_GAUSS_SMALL_STEPS && v->flags == 0 && v->solve == 0) tw[v->w ? v->w : wa] = tf[0];
  }
  /* t = n c + (n / W) s from the two widest widths measured */
  int w1 = 0, w2 = 0;
  for (int w = 32; w >= 8; w /= 2)
    if (tw[w] > 0) {
      if (!w1) w1 = w;
      else if (!w2) w2 = w;
    }
  if (w1 && w2) {
    double s1 = (double)n / w1, s2 = (double)n / w2;
    double st = (tw[w2] - tw[w1]) / (s2 - s1), c = (tw[w1] - s1 * st) / (double)n;
    printf("small-time n=%lld fit (w=%d, %d): per column %.3f us, per step %.3f us\n", (long long)n, w1, w2,
           c * 1e6, st * 1e6);
  }
  be->ops->free(be, q.a0);
  be->ops->free(be, q.a);
  be->ops->free(be, q.b);
  be->ops->free(be, q.x);
  be->ops->free(be, q.piv);
  free(h); free(ha); free(ra); free(hx); free(hp); free(rp);
}

int main(void) {
  if (!k_cuda_compiled() || k_cuda_device_count() < 1) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  k_backend cb;
  memset(&cb, 0, sizeof cb);
  if (k_backend_open(&cb, K_CUDA, 0) != HY_OK) {
    printf("FAILED: the CUDA backend does not open: %s\n", hy_err_msg());
    return 1;
  }
  const k_gauss_ops *co = k_gauss_ops_get(&cb);
  static const int64_t sizes[] = { 512, 1024, 2048 };
  for (size_t i = 0; i < 3; i++) bench_n(&cb, co, sizes[i]);
  k_backend_close(&cb);
  printf("%s: the small-n LU's widths and kinds agree\n", nfailed ? "FAILED" : "PASSED");
  return nfailed ? 1 : 0;
}
