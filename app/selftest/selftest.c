/* selftest.c - workload "selftest": a check of an allocation.  Ranks and hosts, the rank ->
 * device binding, an all-reduce, host<->device copy bandwidth, and one kernel (daxpy + dot)
 * on the rank's backend compared with the host backend.  Ends PASSED or FAILED. */
#include "workload.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cfg_key selftest_keys[] = {
  { "selftest", "copy_mib", CFG_INT, "64", 1, 65536, NULL,
    "MiB moved per host<->device copy in the bandwidth check" },
  { "selftest", "n", CFG_INT, "1000000", 1, 1e10, NULL, "vector length of the kernel check" },
  { "selftest", "reps", CFG_INT, "5", 1, 1000, NULL, "repetitions of each timed copy" },
  CFG_END
};

typedef struct {
  int failed;
  char first[256];
} checks;

static void check(hy_ctx *ctx, checks *c, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Count one check on every rank (ok must already be agreed on).  Local. */
static void check(hy_ctx *ctx, checks *c, int ok, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hy_printf0(ctx, "  %-6s %s\n", ok ? "ok" : "FAILED", msg);
  if (!ok && !c->failed) snprintf(c->first, sizeof c->first, "%s", msg);
  if (!ok) c->failed++;
}

/* Ranks, hosts and devices, printed by rank 0.  Collective. */
static int st_topology(hy_ctx *ctx, checks *c) {
  char line[512];
  snprintf(line, sizeof line, "%5d  %-20.20s %5d  %-5s %4d  %-28.28s %s", ctx->rank, ctx->host,
           ctx->node_rank, ctx->be.name, ctx->be.device, ctx->be.device_name, ctx->be.device_id);
  char *all = NULL;
  if (ctx->rank == 0) HY_MALLOC(all, (size_t)ctx->size * sizeof line);
  HY_MPI(MPI_Gather(line, sizeof line, MPI_CHAR, all, sizeof line, MPI_CHAR, 0, ctx->comm));
  hy_printf0(ctx, "ranks %d on %d node(s)\n %4s  %-20s %5s  %-5s %4s  %-28s %s\n", ctx->size,
             ctx->nnodes, "rank", "host", "local", "back", "dev", "device", "bus id");
  if (ctx->rank == 0)
    for (int r = 0; r < ctx->size; r++) printf("%s\n", all + (size_t)r * sizeof line);
  free(all);
  /* binding: on a CUDA backend, ranks of one node use distinct devices unless shared */
  int dev = ctx->be.gpu ? ctx->be.device : -1;
  int *devs = NULL;
  HY_MALLOC(devs, ctx->size);
  HY_MPI(MPI_Allgather(&dev, 1, MPI_INT, devs, 1, MPI_INT, ctx->comm));
  char *hosts = NULL;
  HY_MALLOC(hosts, (size_t)ctx->size * 256);
  HY_MPI(MPI_Allgather(ctx->host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, ctx->comm));
  int clashes = 0;
  for (int a = 0; a < ctx->size; a++)
    for (int b = a + 1; b < ctx->size; b++)
      if (devs[a] >= 0 && devs[a] == devs[b] && !strcmp(hosts + a * 256, hosts + b * 256)) clashes++;
  int shared = 0;
  HY_MPI(MPI_Allreduce(&ctx->shared_device, &shared, 1, MPI_INT, MPI_MAX, ctx->comm));
  free(devs);
  free(hosts);
  if (ctx->be.gpu)
    check(ctx, c, clashes == 0 || shared, "binding: %d pair(s) of ranks share a device%s", clashes,
          shared ? " (more ranks than devices: reported, allowed)" : "");
  else
    check(ctx, c, 1, "binding: host backend (no CUDA device used)");
  hy_metric_int(ctx, "device_sharing_pairs", clashes);
  return HY_OK;
}

/* All-reduce of rank numbers (exact) and of a vector (timed).  Collective. */
static int st_allreduce(hy_ctx *ctx, checks *c) {
  long long mine = ctx->rank + 1, sum = 0;
  HY_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm));
  long long want = (long long)ctx->size * (ctx->size + 1) / 2;
  int n = 1 << 20;
  double *v = NULL, *r = NULL;
  HY_MALLOC(v, n);
  HY_MALLOC(r, n);
  for (int i = 0; i < n; i++) v[i] = (double)((i % 1000) * (ctx->rank + 1));
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  HY_MPI(MPI_Allreduce(v, r, n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  double t = hy_wtime() - t0, tmax = 0;
  HY_MPI(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (r[i] != (double)((i % 1000)) * (double)want) bad++;
  int badall = 0;
  HY_MPI(MPI_Allreduce(&bad, &badall, 1, MPI_INT, MPI_SUM, ctx->comm));
  free(v);
  free(r);
  double gbs = 8.0 * n / tmax / 1e9;
  check(ctx, c, sum == want && badall == 0,
        "all-reduce: sum of ranks %lld (expected %lld), %d MiB vector in %.3f ms (%.2f GB/s)", sum,
        want, (int)(8.0 * n / (1 << 20)), tmax * 1e3, gbs);
  hy_metric_num(ctx, "allreduce_8MiB_seconds", tmax);
  return HY_OK;
}

/* Host<->device copy bandwidth (pinned host buffer), slowest rank.  Collective. */
static int st_copies(hy_ctx *ctx, checks *c) {
  size_t bytes = (size_t)cfg_int(ctx->cfg, "selftest.copy_mib") << 20;
  int reps = (int)cfg_int(ctx->cfg, "selftest.reps");
  k_backend *be = &ctx->be;
  unsigned char *h = NULL, *d = NULL;
  int rc = be->ops->alloc_pinned(be, (void **)&h, bytes);
  if (rc == HY_OK) rc = be->ops->alloc(be, (void **)&d, bytes);
  HY_CALL(hy_agree(ctx->comm, rc));
  for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(hy_rand_u64(7, ctx->rank, i / 8) >> (8 * (i % 8)));
  double th2d = 1e30, td2h = 1e30;
  for (int r = 0; r < reps && rc == HY_OK; r++) {
    double t0 = hy_wtime();
    rc = be->ops->h2d(be, d, h, bytes);
    if (rc == HY_OK) rc = be->ops->sync(be);
    double t1 = hy_wtime();
    if (rc == HY_OK) rc = be->ops->d2h(be, h, d, bytes);
    if (rc == HY_OK) rc = be->ops->sync(be);
    double t2 = hy_wtime();
    if (t1 - t0 < th2d) th2d = t1 - t0;
    if (t2 - t1 < td2h) td2h = t2 - t1;
  }
  /* the round trip must give back the same bytes */
  int bad = 0;
  for (size_t i = 0; i < bytes && rc == HY_OK; i++)
    if (h[i] != (unsigned char)(hy_rand_u64(7, ctx->rank, i / 8) >> (8 * (i % 8)))) { bad = 1; break; }
  be->ops->free(be, d);
  be->ops->free_pinned(be, h);
  HY_CALL(hy_agree(ctx->comm, rc));
  double worst[2] = { th2d, td2h }, wmax[2];
  HY_MPI(MPI_Allreduce(worst, wmax, 2, MPI_DOUBLE, MPI_MAX, ctx->comm));
  int badall = 0;
  HY_MPI(MPI_Allreduce(&bad, &badall, 1, MPI_INT, MPI_MAX, ctx->comm));
  double bw1 = bytes / wmax[0] / 1e9, bw2 = bytes / wmax[1] / 1e9;
  check(ctx, c, !badall, "copies: %zu MiB host->device %.2f GB/s, device->host %.2f GB/s "
        "(slowest rank, best of %d), data intact", bytes >> 20, bw1, bw2, reps);
  hy_metric_num(ctx, "h2d_GBps", bw1);
  hy_metric_num(ctx, "d2h_GBps", bw2);
  return HY_OK;
}

/* daxpy and dot on the backend against the host computation.  Collective. */
static int st_kernel(hy_ctx *ctx, checks *c) {
  int64_t n = cfg_int(ctx->cfg, "selftest.n");
  uint64_t seed = (uint64_t)cfg_int(ctx->cfg, "run.seed");
  k_backend *be = &ctx->be, host;
  HY_CALL(k_backend_open(&host, K_HOST, -1));
  double *x = NULL, *y = NULL, *yref = NULL, *dx = NULL, *dy = NULL;
  int rc = HY_OK;
  x = malloc((size_t)n * sizeof *x);
  y = malloc((size_t)n * sizeof *y);
  yref = malloc((size_t)n * sizeof *yref);
  if (!x || !y || !yref) rc = hy_err(HY_ESYS, "out of memory for the kernel check (n = %lld)", (long long)n);
  if (rc == HY_OK) rc = be->ops->alloc(be, (void **)&dx, (size_t)n * sizeof *x);
  if (rc == HY_OK) rc = be->ops->alloc(be, (void **)&dy, (size_t)n * sizeof *y);
  double relerr = INFINITY, doterr = INFINITY, t = 0;
  if (rc == HY_OK) {
    for (int64_t i = 0; i < n; i++) {
      x[i] = 2 * hy_rand_u01(seed, 100 + ctx->rank, (uint64_t)i) - 1;
      y[i] = yref[i] = 2 * hy_rand_u01(seed, 200 + ctx->rank, (uint64_t)i) - 1;
    }
    double a = 0.5 + hy_rand_u01(seed, 300, 0);
    rc = be->ops->h2d(be, dx, x, (size_t)n * sizeof *x);
    if (rc == HY_OK) rc = be->ops->h2d(be, dy, y, (size_t)n * sizeof *y);
    if (rc == HY_OK) rc = be->ops->sync(be);
    double t0 = hy_wtime();
    if (rc == HY_OK) rc = be->ops->daxpy(be, n, a, dx, dy);
    if (rc == HY_OK) rc = be->ops->sync(be);
    t = hy_wtime() - t0;
    double dot = 0, dotref = 0;
    if (rc == HY_OK) rc = be->ops->ddot(be, n, dx, dy, &dot);
    if (rc == HY_OK) rc = be->ops->d2h(be, y, dy, (size_t)n * sizeof *y);
    if (rc == HY_OK) {
      host.ops->daxpy(&host, n, a, x, yref);
      host.ops->ddot(&host, n, x, yref, &dotref);
      double num = 0, den = 0;
      for (int64_t i = 0; i < n; i++) {
        num += (y[i] - yref[i]) * (y[i] - yref[i]);
        den += yref[i] * yref[i];
      }
      relerr = sqrt(num / (den > 0 ? den : 1));
      double sabs = 0;
      for (int64_t i = 0; i < n; i++) sabs += fabs(x[i] * yref[i]);
      doterr = fabs(dot - dotref) / (sabs > 0 ? sabs : 1);
    }
  }
  if (be->ops) { be->ops->free(be, dx); be->ops->free(be, dy); }
  free(x); free(y); free(yref);
  k_backend_close(&host);
  HY_CALL(hy_agree(ctx->comm, rc));
  double errs[2] = { relerr, doterr }, emax[2];
  HY_MPI(MPI_Allreduce(errs, emax, 2, MPI_DOUBLE, MPI_MAX, ctx->comm));
  double tmax = 0;
  HY_MPI(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  /* daxpy may differ by FMA rounding: one ulp relative; the dot by reduction order */
  int ok = emax[0] <= 4e-16 && emax[1] <= 1e-13;
  check(ctx, c, ok, "kernel: daxpy on %s vs host, n = %lld: relative error %.2e (<= 4e-16), dot "
        "error %.2e (<= 1e-13 of sum |x y|), %.2f GB/s", be->name, (long long)n, emax[0], emax[1],
        24.0 * n / tmax / 1e9);
  hy_metric_num(ctx, "daxpy_relerr", emax[0]);
  hy_metric_num(ctx, "ddot_relerr", emax[1]);
  hy_metric_num(ctx, "daxpy_GBps", 24.0 * n / tmax / 1e9);
  return HY_OK;
}

/* The workload.  Collective. */
static int selftest_run(hy_ctx *ctx) {
  checks c = { 0, "" };
  hy_printf0(ctx, "selftest: backend %s\n", ctx->be.name);
  hy_phase_begin(ctx, "topology");
  HY_CALL(st_topology(ctx, &c));
  hy_phase_end(ctx, "topology");
  hy_phase_begin(ctx, "allreduce");
  HY_CALL(st_allreduce(ctx, &c));
  hy_phase_end(ctx, "allreduce");
  hy_phase_begin(ctx, "copies");
  HY_CALL(st_copies(ctx, &c));
  hy_phase_end(ctx, "copies");
  hy_phase_begin(ctx, "kernel");
  HY_CALL(st_kernel(ctx, &c));
  hy_phase_end(ctx, "kernel");
  hy_metric_int(ctx, "checks_failed", c.failed);
  hy_validation(ctx, "selftest checks failed", c.failed, 0, c.failed == 0);
  if (c.failed) {
    hy_verdict(ctx, "%d check(s) failed, first: %s", c.failed, c.first);
    return HY_EVALID;
  }
  hy_verdict(ctx, "selftest: 4 checks on %d rank(s), backend %s", ctx->size, ctx->be.name);
  return HY_OK;
}

static const char selftest_default[] =
  "; embedded default: check the allocation (no data, no GPU needed)\n"
  "[run]\nworkload = selftest\nbackend = auto\n"
  "[selftest]\ncopy_mib = 16\nn = 1000000\n";

const hy_workload selftest_workload = {
  "selftest", "check an allocation: ranks, binding, all-reduce, copies, one kernel vs host",
  selftest_keys, NULL, selftest_run, selftest_default,
};
