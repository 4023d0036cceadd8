/* selftest_report.c - every line selftest prints, its metrics and its verdict, from the
 * selftest_info its stages filled. */
#include "selftest/selftest.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
  int failed;
  char first[512], more[512];
} st_checks;

static void check(const hy_ctx *ctx, st_checks *c, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Print one check line (rank 0) and count it (every rank: ok is agreed on).  Local. */
static void check(const hy_ctx *ctx, st_checks *c, int ok, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hy_printf0(ctx, "  %-6s %s\n", ok ? "ok" : "FAILED", msg);
  if (ok) return;
  if (!c->failed++) snprintf(c->first, sizeof c->first, "%s", msg);
  else {
    size_t l = strlen(c->more);
    snprintf(c->more + l, sizeof c->more - l, "; also: %s", msg);
  }
}

/* The rank table (rank 0).  Local. */
static void print_ranks(const hy_ctx *ctx, const selftest_info *in) {
  hy_printf0(ctx, "ranks %d on %d node(s)\n %4s  %-20s %5s  %-5s %4s  %-28s %s\n", ctx->size,
             ctx->nnodes, "rank", "host", "local", "back", "dev", "device", "bus id");
  if (ctx->rank == 0 && in->rank_table)
    for (int r = 0; r < ctx->size; r++) printf("%s\n", in->rank_table + (size_t)r * in->rank_line);
}

/* Lines, metrics, validation and verdict.  Every rank returns the same code. */
int selftest_report(hy_ctx *ctx, const selftest_opts *o, const selftest_info *in) {
  st_checks c = { 0, "", "" };
  print_ranks(ctx, in);
  if (in->gpu)
    check(ctx, &c, in->clashes == 0 || in->shared, "binding: %d pair(s) of ranks share a device%s",
          in->clashes, in->shared ? " (more ranks than devices: reported, allowed)" : "");
  else
    check(ctx, &c, 1, "binding: host backend (no CUDA device used)");
  check(ctx, &c, in->sum == in->sum_want && in->allreduce_bad == 0,
        "all-reduce: sum of ranks %lld (expected %lld), %d MiB vector in %.3f ms (%.2f GB/s)%s",
        in->sum, in->sum_want, in->allreduce_mib, in->allreduce_s * 1e3,
        in->allreduce_mib * 1048576.0 / in->allreduce_s / 1e9,
        in->allreduce_bad ? ", wrong elements" : "");
  double mib = (double)(o->copy_bytes >> 20);
  double bw1 = o->copy_bytes / in->h2d_s / 1e9, bw2 = o->copy_bytes / in->d2h_s / 1e9;
  check(ctx, &c, in->copy_diff == 0,
        "copies: %.0f MiB host->device %.2f GB/s, device->host %.2f GB/s (slowest rank, best of "
        "%d), host->device->device->host max relative difference %.2e (must be 0)", mib, bw1, bw2,
        o->reps, in->copy_diff);
  double gbs = 24.0 * o->n / in->daxpy_s / 1e9;
  int kok = in->daxpy_err <= SELFTEST_DAXPY_TOL && in->ddot_err <= SELFTEST_DDOT_TOL;
  check(ctx, &c, kok, "kernel: daxpy on %s vs a long-double loop, n = %lld: relative error %.2e "
        "(<= %.0e), dot error %.2e (<= %.0e of sum |x y|), %.2f GB/s", ctx->be.name,
        (long long)o->n, in->daxpy_err, SELFTEST_DAXPY_TOL, in->ddot_err, SELFTEST_DDOT_TOL, gbs);
  hy_metric_int(ctx, "device_sharing_pairs", in->clashes);
  hy_metric_num(ctx, "allreduce_8MiB_seconds", in->allreduce_s);
  hy_metric_num(ctx, "h2d_GBps", bw1);
  hy_metric_num(ctx, "d2h_GBps", bw2);
  hy_metric_num(ctx, "copy_max_reldiff", in->copy_diff);
  hy_metric_num(ctx, "daxpy_relerr", in->daxpy_err);
  hy_metric_num(ctx, "ddot_relerr", in->ddot_err);
  hy_metric_num(ctx, "daxpy_GBps", gbs);
  hy_metric_int(ctx, "checks_failed", c.failed);
  hy_validation(ctx, "selftest checks failed", c.failed, 0, c.failed == 0);
  if (c.failed) {
    hy_verdict(ctx, "%d check(s) failed, first: %s%s", c.failed, c.first, c.more);
    return HY_EVALID;
  }
  hy_verdict(ctx, "selftest: 4 checks on %d rank(s), backend %s", ctx->size, ctx->be.name);
  return HY_OK;
}
