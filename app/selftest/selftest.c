/* selftest.c - workload "selftest": a check of an allocation.  Ranks and hosts, the rank ->
 * device binding, an all-reduce, host<->device copies, and one kernel (daxpy + dot) on the
 * rank's backend compared with a reference computed another way (a long-double loop).  Ends
 * PASSED or FAILED.  The key table, the options and the staged run; the stages are in
 * selftest_checks.c, every line it prints in selftest_report.c. */
#include "selftest/selftest.h"

#include <stdlib.h>

static const cfg_key selftest_keys[] = {
  { "selftest", "copy_mib", CFG_INT, "64", 1, 65536, NULL,
    "MiB moved per host<->device copy in the bandwidth check" },
  { "selftest", "n", CFG_INT, "1000000", 1, 1e10, NULL, "vector length of the kernel check" },
  { "selftest", "reps", CFG_INT, "5", 1, 1000, NULL, "repetitions of each timed copy" },
  CFG_END
};

/* The options from the configuration.  Local. */
void selftest_opts_from_cfg(const hy_cfg *c, selftest_opts *o) {
  o->copy_bytes = (size_t)cfg_int(c, "selftest.copy_mib") << 20;
  o->reps = (int)cfg_int(c, "selftest.reps");
  o->n = cfg_int(c, "selftest.n");
  o->seed = (uint64_t)cfg_int(c, "run.seed");
}

/* The workload: topology -> all-reduce -> copies -> kernel -> report.  Collective. */
static int selftest_run(hy_ctx *ctx) {
  selftest_opts o;
  selftest_opts_from_cfg(ctx->cfg, &o);
  selftest_info info = { 0 };
  hy_printf0(ctx, "selftest: backend %s\n", ctx->be.name);
  hy_phase_begin(ctx, "topology");
  HY_CALL(selftest_topology(ctx, &info));
  hy_phase_end(ctx, "topology");
  hy_phase_begin(ctx, "allreduce");
  HY_CALL(selftest_allreduce(ctx, &info));
  hy_phase_end(ctx, "allreduce");
  double kern = 16.0 * o.n, copies = 2.0 * o.copy_bytes;
  HY_CALL(hy_mem_check(ctx, kern > copies ? kern : copies, kern > copies ? kern : copies,
                       "two copy buffers, or the kernel's x and y", "selftest.n = %lld, copy_mib = %lld",
                       (long long)o.n, (long long)(o.copy_bytes >> 20)));
  hy_phase_begin(ctx, "copies");
  HY_CALL(selftest_copies(ctx, &o, &info));
  hy_phase_end(ctx, "copies");
  hy_phase_begin(ctx, "kernel");
  HY_CALL(selftest_kernel(ctx, &o, &info));
  hy_phase_end(ctx, "kernel");
  int rc = selftest_report(ctx, &o, &info);
  free(info.rank_table);
  return rc;
}

static const char selftest_default[] =
  "; embedded default: check the allocation (no data, no GPU needed)\n"
  "[run]\nworkload = selftest\nbackend = auto\n"
  "[selftest]\ncopy_mib = 16\nn = 1000000\n";

const hy_workload selftest_workload = {
  .name = "selftest",
  .summary = "check an allocation: ranks, binding, all-reduce, copies, one kernel vs a reference",
  .keys = selftest_keys,
  .check = NULL,
  .run = selftest_run,
  .default_config = selftest_default,
};
