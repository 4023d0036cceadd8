/* selftest.h - workload "selftest" (a check of an allocation): its typed options, the facts
 * its stages gather (selftest_info), and the stages and the report. */
#ifndef HY_SELFTEST_H
#define HY_SELFTEST_H

#include "workload.h"

#include <stddef.h>
#include <stdint.h>

/* The [selftest] keys and the core keys it uses, read once (selftest_opts_from_cfg). */
typedef struct {
  size_t copy_bytes;   /* bytes per host<->device copy (selftest.copy_mib MiB) */
  int reps;            /* repetitions of each timed copy */
  int64_t n;           /* vector length of the kernel check */
  uint64_t seed;       /* run.seed */
} selftest_opts;

/* What the stages found (the figures of rank 0 after the reductions: every rank holds them
 * unless said otherwise).  The report turns it into lines, metrics and the verdict. */
typedef struct {
  char *rank_table;          /* rank 0: one line per rank (rank, host, device), NUL-separated */
  size_t rank_line;          /* length of one line in rank_table */
  int gpu;                   /* the backend is a GPU backend (binding is checked) */
  int clashes, shared;       /* pairs of ranks of one node on one device; more ranks than devices */
  long long sum, sum_want;   /* all-reduce of rank + 1 */
  int allreduce_bad;         /* wrong elements of the vector all-reduce (all ranks) */
  int allreduce_mib;
  double allreduce_s;        /* slowest rank */
  double h2d_s, d2h_s;       /* best of reps, slowest rank */
  double copy_diff;          /* max relative difference after h2d + d2d + d2h (must be 0) */
  double daxpy_err;          /* ||y - yref|| / ||yref|| against a long-double loop */
  double ddot_err;           /* |dot - dotref| / sum |x y| against a long-double loop */
  double daxpy_s;            /* slowest rank */
} selftest_info;

/* The options from the configuration.  Local. */
void selftest_opts_from_cfg(const hy_cfg *c, selftest_opts *o);

/* The stages; each is collective and fills its part of info. */
int selftest_topology(hy_ctx *ctx, selftest_info *info);
int selftest_allreduce(hy_ctx *ctx, selftest_info *info);
int selftest_copies(hy_ctx *ctx, const selftest_opts *o, selftest_info *info);
int selftest_kernel(hy_ctx *ctx, const selftest_opts *o, selftest_info *info);

/* Print the checks, record the metrics and the verdict; HY_EVALID when a check failed.
 * Collective in name only (rank 0 prints; every rank returns the same code). */
int selftest_report(hy_ctx *ctx, const selftest_opts *o, const selftest_info *info);

/* Thresholds of the kernel check: daxpy may differ from the exact result by FMA rounding
 * (one ulp relative); the dot by the reduction order. */
#define SELFTEST_DAXPY_TOL 4e-16
#define SELFTEST_DDOT_TOL 1e-13

#endif
