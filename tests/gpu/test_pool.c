/* test_pool.c - the CUDA backend's memory pool (run.cuda_pool, kernels/cuda/k_cuda.cu) through
 * the backend table only: `test_pool on` checks that alloc / free inside a busy stream do not
 * wait for it (the device is still busy when the loop ends), that a block handed out again
 * after a free whose users were still queued holds exactly what its new owner wrote, that
 * freed memory stays reserved (release threshold) until mem_info trims it, the pool's
 * figures, and that an allocation larger than the device fails with the out-of-memory message
 * and leaves the backend usable.  `test_pool off` is the control: the same timed loop with
 * cudaMalloc / cudaFree must wait for the stream (cudaFree synchronises the device), which
 * shows the timing can see a wait.  Exit 0 pass, 1 fail, 77 skip (no CUDA device). */
#include "hybrid.h"
#include "kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nchecks, nfailed;

/* Count a check; print it with its figures.  Local. */
static void ok(int cond, const char *what, double a, double b) {
  nchecks++;
  if (!cond) nfailed++;
  printf("%s: %s (%.6g, %.6g)\n", cond ? "ok" : "FAILED", what, a, b);
}

/* reps daxpys of n on the stream (queued, not waited for).  Local. */
static void busy(k_backend *be, int64_t n, double *x, double *y, int reps) {
  for (int r = 0; r < reps; r++) HY_LOCAL(be->ops->daxpy(be, n, 1e-300, x, y));
}

/* Seconds that reps queued daxpys take to finish.  Local. */
static double busy_time(k_backend *be, int64_t n, double *x, double *y, int reps) {
  HY_LOCAL(be->ops->sync(be));
  double t0 = MPI_Wtime();
  busy(be, n, x, y, reps);
  HY_LOCAL(be->ops->sync(be));
  return MPI_Wtime() - t0;
}

/* 64 alloc / free pairs of 1..64 MiB while the stream is busy: the loop's time and the time
 * the stream still needed after it (the wait the loop did not do).  Local. */
static void timed_loop(k_backend *be, int64_t n, double *x, double *y, int reps, double *t_loop,
                       double *t_rest) {
  HY_LOCAL(be->ops->sync(be));
  busy(be, n, x, y, reps);
  double t0 = MPI_Wtime();
  for (int i = 0; i < 64; i++) {
    void *p = NULL;
    HY_LOCAL(be->ops->alloc(be, &p, ((size_t)(i % 8) + 1) << 23));
    HY_LOCAL(be->ops->free(be, p));
  }
  double t1 = MPI_Wtime();
  HY_LOCAL(be->ops->sync(be));
  *t_loop = t1 - t0;
  *t_rest = MPI_Wtime() - t1;
}

/* Blocks handed out while others are live never overlap them; a block freed while its users
 * (a += ones, queued) are still running and handed out again holds exactly what its new owner
 * wrote, and the live block beside it is untouched.  Local. */
static void check_reuse(k_backend *be, int64_t n, int reps) {
  size_t nb = (size_t)n * sizeof(double);
  double *h = malloc(nb), *back = malloc(nb), *ones = NULL;
  for (int64_t i = 0; i < n; i++) h[i] = 1.0;
  HY_LOCAL(be->ops->alloc(be, (void **)&ones, nb));
  HY_LOCAL(be->ops->h2d(be, ones, h, nb));
  for (int round = 0; round < 4; round++) {
    double *a = NULL, *b = NULL, *c = NULL;
    HY_LOCAL(be->ops->alloc(be, (void **)&a, nb));
    HY_LOCAL(be->ops->alloc(be, (void **)&b, nb));
    ok((char *)a + nb <= (char *)b || (char *)b + nb <= (char *)a, "two live blocks do not overlap",
       (double)(uintptr_t)a, (double)(uintptr_t)b);
    HY_LOCAL(be->ops->memset0(be, a, nb));
    HY_LOCAL(be->ops->memset0(be, b, nb));
    HY_LOCAL(be->ops->daxpy(be, n, 5.0, ones, b));   /* b = 5 */
    for (int r = 0; r < reps; r++) HY_LOCAL(be->ops->daxpy(be, n, 1.0, ones, a));   /* queued */
    HY_LOCAL(be->ops->free(be, a));
    HY_LOCAL(be->ops->alloc(be, (void **)&c, nb));
    for (int64_t i = 0; i < n; i++) h[i] = (double)(i % 1000) + round;
    HY_LOCAL(be->ops->h2d(be, c, h, nb));
    HY_LOCAL(be->ops->daxpy(be, n, 2.0, c, c));   /* c = 3 h */
    HY_LOCAL(be->ops->d2h(be, back, c, nb));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += back[i] != 3.0 * h[i];
    char what[160];
    snprintf(what, sizeof what, "round %d: a block handed out again holds its new owner's data (%s block)",
             round, a == c ? "the freed" : "another");
    ok(bad == 0, what, (double)bad, (double)(a == c));
    HY_LOCAL(be->ops->d2h(be, back, b, nb));
    bad = 0;
    for (int64_t i = 0; i < n; i++) bad += back[i] != 5.0;
    ok(bad == 0, "the live block beside it is untouched", (double)bad, 0);
    HY_LOCAL(be->ops->free(be, b));
    HY_LOCAL(be->ops->free(be, c));
  }
  HY_LOCAL(be->ops->free(be, ones));
  free(h);
  free(back);
}

/* The pool's figures: used, kept after frees, trimmed by mem_info.  Local. */
static void check_stats(k_backend *be, size_t held) {
  k_pool_stats s;
  HY_LOCAL(be->ops->sync(be));
  HY_LOCAL(be->ops->pool_stats(be, &s));
  ok(s.used >= held && s.used < held + ((size_t)64 << 20), "in use after the loops: the two held vectors",
     (double)s.used, (double)held);
  ok(s.used_peak >= held + ((size_t)64 << 20), "peak in use >= the vectors + the largest loop block",
     (double)s.used_peak, (double)(held + ((size_t)64 << 20)));
  /* ones, a and b (64 MiB each) were live together and freed: >= 192 MiB kept */
  ok(s.reserved >= s.used + ((size_t)128 << 20), "freed memory stays reserved (release threshold)",
     (double)s.reserved, (double)s.used);
  ok(s.reserved_peak >= s.reserved, "reserved peak >= reserved", (double)s.reserved_peak, (double)s.reserved);
  ok(s.allocs == 2 + 8 + 64 + 1 + 4 * 3, "allocations counted", (double)s.allocs, 2 + 8 + 64 + 1 + 4 * 3);
  size_t fr = 0, tot = 0;
  HY_LOCAL(be->ops->mem_info(be, &fr, &tot));
  HY_LOCAL(be->ops->pool_stats(be, &s));
  ok(s.reserved < s.used + ((size_t)128 << 20), "mem_info trims the kept memory", (double)s.reserved,
     (double)s.used);
}

/* An allocation of twice the device: HY_ESYS, the out-of-memory message with the size; the
 * backend still allocates and computes afterwards.  Local. */
static void check_oom(k_backend *be) {
  size_t huge = be->device_mem * 2;
  void *p = NULL;
  int rc = be->ops->alloc(be, &p, huge);
  char sz[32];
  snprintf(sz, sizeof sz, "%zu bytes", huge);
  ok(rc == HY_ESYS && p == NULL, "an allocation of twice the device fails with HY_ESYS", rc, 0);
  ok(strstr(hy_err_msg(), "out of memory") && strstr(hy_err_msg(), sz),
     "the message says out of memory and the size", 0, 0);
  printf("message: %s\n", hy_err_msg());
  hy_err_clear();
  double *d = NULL, h[4] = { 1, 2, 3, 4 }, r = 0;
  ok(be->ops->alloc(be, (void **)&d, sizeof h) == HY_OK && d, "an allocation after it succeeds", 0, 0);
  HY_LOCAL(be->ops->h2d(be, d, h, sizeof h));
  HY_LOCAL(be->ops->ddot(be, 4, d, d, &r));
  ok(r == 30.0, "and the stream still computes (dot 30)", r, 30);
  HY_LOCAL(be->ops->free(be, d));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int pool = argc > 1 && !strcmp(argv[1], "on");
  if (argc < 2 || (!pool && strcmp(argv[1], "off"))) {
    fprintf(stderr, "usage: test_pool on|off\n");
    MPI_Finalize();
    return 1;
  }
  if (k_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device\n");
    MPI_Finalize();
    return 77;
  }
  k_backend be;
  k_open_opts o = { .pool = pool };
  HY_LOCAL(k_backend_open_opts(&be, K_CUDA, 0, &o));
  ok((be.ops->pool_stats != NULL) == pool, "pool_stats in the table iff the pool is on", pool, 0);
  int64_t n = (int64_t)1 << 25;   /* 256 MiB per vector */
  size_t nb = (size_t)n * sizeof(double);
  double *x = NULL, *y = NULL;
  HY_LOCAL(be.ops->alloc(&be, (void **)&x, nb));
  HY_LOCAL(be.ops->alloc(&be, (void **)&y, nb));
  HY_LOCAL(be.ops->memset0(&be, x, nb));
  HY_LOCAL(be.ops->memset0(&be, y, nb));
  int reps = 8;
  double tb = busy_time(&be, n, x, y, reps);
  while (tb < 0.03 && reps < (1 << 16)) tb = busy_time(&be, n, x, y, reps *= 2);
  /* warm: the loop's 8 sizes live together once, so that the pool holds them (steady state) */
  void *w[8];
  for (int i = 0; i < 8; i++) HY_LOCAL(be.ops->alloc(&be, &w[i], ((size_t)i + 1) << 23));
  for (int i = 0; i < 8; i++) HY_LOCAL(be.ops->free(&be, w[i]));
  double tl = 0, tr = 0;
  timed_loop(&be, n, x, y, reps, &tl, &tr);
  printf("busy stream %.2f ms (%d daxpys); 64 alloc/free while busy %.3f ms, the stream after them %.2f ms\n",
         tb * 1e3, reps, tl * 1e3, tr * 1e3);
  if (pool) {
    ok(tl < 0.2 * tb, "alloc / free do not wait for the busy stream (loop time vs busy time)", tl, tb);
    ok(tr > 0.5 * tb, "the stream was still busy after the loop", tr, tb);
    check_reuse(&be, n / 4, reps / 4 + 1);
    check_stats(&be, 2 * nb);
  } else {
    ok(tl > 0.5 * tb, "control: cudaMalloc / cudaFree wait for the busy stream", tl, tb);
  }
  check_oom(&be);
  HY_LOCAL(be.ops->free(&be, x));
  HY_LOCAL(be.ops->free(&be, y));
  HY_LOCAL(k_backend_close(&be));
  printf("%d check(s), %d failed\n", nchecks, nfailed);
  MPI_Finalize();
  return nfailed ? 1 : 0;
}
