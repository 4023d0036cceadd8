/* selftest_checks.c - the stages of selftest: topology and binding, all-reduce, copies, the
 * kernel against a reference computed another way.  Each stage is collective at its end and
 * fills its part of a selftest_info; local failures (allocation, a backend call) end the job
 * through HY_LOCAL / HY_MALLOC.  Nothing is printed here (selftest_report.c does). */
#include "selftest/selftest.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ranks, hosts and devices (gathered to rank 0), and device sharing within a node.
 * Collective. */
int selftest_topology(hy_ctx *ctx, selftest_info *info) {
  char line[512];
  snprintf(line, sizeof line, "%5d  %-20.20s %5d  %-5s %4d  %-28.28s %s", ctx->rank, ctx->host,
           ctx->node_rank, ctx->be.name, ctx->be.device, ctx->be.device_name, ctx->be.device_id);
  info->rank_line = sizeof line;
  info->rank_table = NULL;
  if (ctx->rank == 0) HY_MALLOC(info->rank_table, (size_t)ctx->size * sizeof line);
  HY_MPI(MPI_Gather(line, sizeof line, MPI_CHAR, info->rank_table, sizeof line, MPI_CHAR, 0,
                    ctx->comm));
  /* binding: on a GPU backend, ranks of one node use distinct devices unless shared */
  info->gpu = ctx->be.gpu;
  int dev = ctx->be.gpu ? ctx->be.device : -1;
  int *devs = NULL;
  char *hosts = NULL;
  HY_MALLOC(devs, ctx->size);
  HY_MALLOC(hosts, (size_t)ctx->size * 256);
  HY_MPI(MPI_Allgather(&dev, 1, MPI_INT, devs, 1, MPI_INT, ctx->comm));
  HY_MPI(MPI_Allgather(ctx->host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, ctx->comm));
  info->clashes = 0;
  for (int a = 0; a < ctx->size; a++)
    for (int b = a + 1; b < ctx->size; b++)
      if (devs[a] >= 0 && devs[a] == devs[b] && !strcmp(hosts + a * 256, hosts + b * 256))
        info->clashes++;
  HY_MPI(MPI_Allreduce(&ctx->shared_device, &info->shared, 1, MPI_INT, MPI_MAX, ctx->comm));
  free(devs);
  free(hosts);
  return HY_OK;
}

/* All-reduce of rank numbers (exact) and of an 8 MiB vector (timed, checked).  Collective. */
int selftest_allreduce(hy_ctx *ctx, selftest_info *info) {
  long long mine = ctx->rank + 1;
  HY_MPI(MPI_Allreduce(&mine, &info->sum, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm));
  info->sum_want = (long long)ctx->size * (ctx->size + 1) / 2;
  int n = 1 << 20;
  double *v = NULL, *r = NULL;
  HY_MALLOC(v, n);
  HY_MALLOC(r, n);
  for (int i = 0; i < n; i++) v[i] = (double)((i % 1000) * (ctx->rank + 1));
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  HY_MPI(MPI_Allreduce(v, r, n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  double t = hy_wtime() - t0;
  HY_MPI(MPI_Allreduce(&t, &info->allreduce_s, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (r[i] != (double)(i % 1000) * (double)info->sum_want) bad++;
  HY_MPI(MPI_Allreduce(&bad, &info->allreduce_bad, 1, MPI_INT, MPI_SUM, ctx->comm));
  info->allreduce_mib = (int)(8.0 * n / (1 << 20));
  free(v);
  free(r);
  return HY_OK;
}

/* The value at index i of the copy pattern (never 0, so that relative differences exist). */
static double copy_value(uint64_t seed, int rank, size_t i) {
  return 1.0 + hy_rand_u01(seed, 7000 + (uint64_t)rank, i);
}

/* Host -> device -> device -> host round trip of copy_bytes (pinned host buffers), timed;
 * what comes back is compared with the pattern regenerated (not with the source buffer).
 * [debug] perturb scales what came back before the check.  Collective. */
int selftest_copies(hy_ctx *ctx, const selftest_opts *o, selftest_info *info) {
  k_backend *be = &ctx->be;
  size_t n = o->copy_bytes / sizeof(double), bytes = n * sizeof(double);
  double *h = NULL, *back = NULL, *d = NULL, *d2 = NULL;
  HY_LOCAL(be->ops->alloc_pinned(be, (void **)&h, bytes));
  HY_LOCAL(be->ops->alloc_pinned(be, (void **)&back, bytes));
  HY_LOCAL(be->ops->alloc(be, (void **)&d, bytes));
  HY_LOCAL(be->ops->alloc(be, (void **)&d2, bytes));
  for (size_t i = 0; i < n; i++) h[i] = copy_value(o->seed, ctx->rank, i);
  double th2d = 1e30, td2h = 1e30;
  for (int r = 0; r < o->reps; r++) {
    memset(back, 0, bytes);
    HY_LOCAL(be->ops->memset0(be, d2, bytes));
    double t0 = hy_wtime();
    HY_LOCAL(be->ops->h2d(be, d, h, bytes));
    HY_LOCAL(be->ops->sync(be));
    double t1 = hy_wtime();
    HY_LOCAL(be->ops->d2d(be, d2, d, bytes));
    HY_LOCAL(be->ops->sync(be));
    double t2 = hy_wtime();
    HY_LOCAL(be->ops->d2h(be, back, d2, bytes));
    HY_LOCAL(be->ops->sync(be));
    double t3 = hy_wtime();
    if (t1 - t0 < th2d) th2d = t1 - t0;
    if (t3 - t2 < td2h) td2h = t3 - t2;
  }
  hy_debug_point(ctx, "copies");
  if (ctx->debug.perturb != 0)
    for (size_t i = 0; i < n; i++) back[i] *= 1 + ctx->debug.perturb;
  double diff = 0;
  for (size_t i = 0; i < n; i++) {
    double want = copy_value(o->seed, ctx->rank, i);
    double e = back[i] == want ? 0 : fabs(back[i] - want) / want;
    if (!(e <= diff)) diff = e; /* a NaN that came back counts too */
  }
  HY_LOCAL(be->ops->free(be, d));
  HY_LOCAL(be->ops->free(be, d2));
  HY_LOCAL(be->ops->free_pinned(be, h));
  HY_LOCAL(be->ops->free_pinned(be, back));
  double mine[3] = { th2d, td2h, diff }, all[3];
  HY_MPI(MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, ctx->comm));
  info->h2d_s = all[0];
  info->d2h_s = all[1];
  info->copy_diff = all[2];
  return HY_OK;
}

/* ||y - yref|| / ||yref|| with yref = y0 + a x rounded from long double.  Local. */
static double daxpy_error(int64_t n, double a, const double *x, const double *y0, const double *y) {
  long double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) {
    double yref = (double)((long double)y0[i] + (long double)a * (long double)x[i]);
    long double e = (long double)y[i] - yref;
    num += e * e;
    den += (long double)yref * yref;
  }
  return (double)sqrtl(num / (den > 0 ? den : 1));
}

/* |dot - sum x y| / sum |x y|, the sums in long double.  Local. */
static double ddot_error(int64_t n, const double *x, const double *y, double dot) {
  long double dref = 0, sabs = 0;
  for (int64_t i = 0; i < n; i++) {
    dref += (long double)x[i] * (long double)y[i];
    sabs += fabsl((long double)x[i] * (long double)y[i]);
  }
  return (double)(fabsl((long double)dot - dref) / (sabs > 0 ? sabs : 1));
}

/* daxpy and dot on the backend, checked against long-double loops.  [debug] perturb scales the
 * daxpy result (perturb > 0) or the dot (perturb < 0) before the check.  Collective. */
int selftest_kernel(hy_ctx *ctx, const selftest_opts *o, selftest_info *info) {
  int64_t n = o->n;
  k_backend *be = &ctx->be;
  double *x = NULL, *y0 = NULL, *y = NULL, *dx = NULL, *dy = NULL;
  HY_MALLOC(x, n);
  HY_MALLOC(y0, n);
  HY_MALLOC(y, n);
  HY_LOCAL(be->ops->alloc(be, (void **)&dx, (size_t)n * sizeof *x));
  HY_LOCAL(be->ops->alloc(be, (void **)&dy, (size_t)n * sizeof *y));
  for (int64_t i = 0; i < n; i++) {
    x[i] = 2 * hy_rand_u01(o->seed, 100 + ctx->rank, (uint64_t)i) - 1;
    y0[i] = 2 * hy_rand_u01(o->seed, 200 + ctx->rank, (uint64_t)i) - 1;
  }
  double a = 0.5 + hy_rand_u01(o->seed, 300, 0);
  HY_LOCAL(be->ops->h2d(be, dx, x, (size_t)n * sizeof *x));
  HY_LOCAL(be->ops->h2d(be, dy, y0, (size_t)n * sizeof *y));
  HY_LOCAL(be->ops->sync(be));
  double t0 = hy_wtime();
  HY_LOCAL(be->ops->daxpy(be, n, a, dx, dy));
  HY_LOCAL(be->ops->sync(be));
  double t = hy_wtime() - t0, dot = 0;
  HY_LOCAL(be->ops->ddot(be, n, dx, dy, &dot));
  HY_LOCAL(be->ops->d2h(be, y, dy, (size_t)n * sizeof *y));
  hy_debug_point(ctx, "kernel");
  /* [debug] perturb p scales one result before its check: p > 0 the daxpy result y, p < 0 the
   * dot (by 1 + |p|), so that each half of the check is seen to fail alone */
  double p = ctx->debug.perturb, e[3];
  e[1] = ddot_error(n, x, y, p < 0 ? dot * (1 - p) : dot); /* x with the y the backend holds */
  if (p > 0)
    for (int64_t i = 0; i < n; i++) y[i] *= 1 + p;
  e[0] = daxpy_error(n, a, x, y0, y);
  e[2] = t;
  HY_LOCAL(be->ops->free(be, dx));
  HY_LOCAL(be->ops->free(be, dy));
  free(x);
  free(y0);
  free(y);
  double all[3];
  HY_MPI(MPI_Allreduce(e, all, 3, MPI_DOUBLE, MPI_MAX, ctx->comm));
  info->daxpy_err = all[0];
  info->ddot_err = all[1];
  info->daxpy_s = all[2];
  return HY_OK;
}
