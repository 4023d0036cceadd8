/* cfgtest.c - the workload registry of the test executable hybrid_cfgtest (app/main.c linked
 * with this file instead of app/workloads.c) and of the unit test test_cfg: the selftest plus
 * the test workload "cfgtest", whose [cfgtest] section declares a key of every type (int,
 * real, bool, enum, text, grid, int list, grid list).  The core and the selftest have no real or grid key, so the
 * parser's messages for those types are tested through this table; its run checks the sum of
 * 1..ranks against [cfgtest] expect, so a wrong expect gives a genuine FAILED run (exit 4)
 * through main.c, and a grid that does not match the rank count a collective config error. */
#include "workload.h"

#include <string.h>

extern const hy_workload selftest_workload;

static const cfg_key cfgtest_keys[] = {
  { "cfgtest", "count", CFG_INT, "10", 1, 1000, NULL, "an integer in [1, 1000]" },
  { "cfgtest", "ratio", CFG_REAL, "0.5", 0, 1, NULL, "a real in [0, 1]" },
  { "cfgtest", "flag", CFG_BOOL, "false", 0, 0, NULL, "a boolean" },
  { "cfgtest", "mode", CFG_ENUM, "alpha", 0, 0, "alpha|beta|gamma", "gamma needs a label" },
  { "cfgtest", "label", CFG_STR, "", 0, 0, NULL, "free text" },
  { "cfgtest", "grid", CFG_GRID, "auto", 0, 0, NULL, "PxQ must equal the rank count" },
  { "cfgtest", "expect", CFG_INT, "-1", -1, 1e9, NULL,
    "expected sum of 1..ranks (-1: the right one); another value fails the check (exit 4)" },
  { "cfgtest", "sizes", CFG_INT_LIST, "8", 1, 1000, NULL, "a list of integers, each in [1, 1000]" },
  { "cfgtest", "grids", CFG_GRID_LIST, "auto", 0, 0, NULL, "a list of grids (auto or PxQ)" },
  CFG_END
};

/* Cross-key rule: mode = gamma needs a label.  Local (rank 0). */
static int cfgtest_check(hy_cfg *c) {
  if (cfg_is(c, "cfgtest.mode", "gamma") && !cfg_given(c, "cfgtest.label"))
    return cfg_err(c, "cfgtest.mode", "= gamma needs [cfgtest] label");
  return HY_OK;
}

/* Sum of rank+1 over ranks against the expected value; grid must match.  Collective. */
static int cfgtest_run(hy_ctx *ctx) {
  int p, q;
  cfg_grid(ctx->cfg, "cfgtest.grid", &p, &q);
  if (p && p * q != ctx->size) /* every rank sees the same values: an agreed error */
    return cfg_err(ctx->cfg, "cfgtest.grid", "= %dx%d needs %d ranks, the run has %d", p, q,
                   p * q, ctx->size);
  long long mine = ctx->rank + 1, sum = 0;
  HY_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm));
  long long want = cfg_int(ctx->cfg, "cfgtest.expect");
  if (want < 0) want = (long long)ctx->size * (ctx->size + 1) / 2;
  hy_printf0(ctx, "cfgtest: count %lld ratio %.17g flag %d mode %s label '%s' grid %dx%d\n",
             (long long)cfg_int(ctx->cfg, "cfgtest.count"), cfg_real(ctx->cfg, "cfgtest.ratio"),
             cfg_bool(ctx->cfg, "cfgtest.flag"), cfg_str(ctx->cfg, "cfgtest.mode"),
             cfg_str(ctx->cfg, "cfgtest.label"), p, q);
  hy_metric_int(ctx, "sum", sum);
  hy_metric_num(ctx, "ratio", cfg_real(ctx->cfg, "cfgtest.ratio"));
  hy_validation(ctx, "sum of 1..ranks", (double)sum, (double)want, sum == want);
  hy_verdict(ctx, "cfgtest: sum of 1..%d = %lld, expected %lld", ctx->size, sum, want);
  return sum == want ? HY_OK : HY_EVALID;
}

static const hy_workload cfgtest_workload = {
  "cfgtest", "test-only: a key of every type; checks the sum of 1..ranks", cfgtest_keys,
  cfgtest_check, cfgtest_run, NULL,
};

/* The registry of the test executables (replaces app/workloads.c). */
const hy_workload *const hy_workloads[] = { &selftest_workload, &cfgtest_workload, NULL };

/* The workload named name, or NULL.  Local. */
const hy_workload *hy_workload_find(const char *name) {
  for (int i = 0; hy_workloads[i]; i++)
    if (!strcmp(hy_workloads[i]->name, name)) return hy_workloads[i];
  return NULL;
}
