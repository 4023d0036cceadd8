/* spai_report.c - the report stage of spai: every line it prints, every metric of its record and
 * the verdict, from the spai_info the stages filled (the last run's figures; with spai.repeat the
 * cold / warm summary).  GPU figures (the 20 ms setup target, the iteration floor at the H200's
 * copy rate) are printed on a GPU backend only (k_backend's `gpu` field); the record keeps
 * the floor figures on every backend. */
#include "spai/spai.h"
#include "krylov/krylov.h"

#include <stdio.h>
#include <string.h>

/* The H200's copy rate: the floor of a memory-bound iteration. */
#define SPAI_H200_BW 4.25e12

/* Mean and fastest of the warm runs (runs 2..n; with one run, that run).  Local. */
void spai_rep_stats(spai_rep *r) {
  int from = r->n > 1 ? 1 : 0;
  r->setup_mean = r->iter_mean = 0;
  r->setup_fast = r->setup[from];
  r->iter_fast = r->iter[from];
  for (int i = from; i < r->n; i++) {
    r->setup_mean += r->setup[i] / (r->n - from);
    r->iter_mean += r->iter[i] / (r->n - from);
    if (r->setup[i] < r->setup_fast) r->setup_fast = r->setup[i];
    if (r->iter[i] < r->iter_fast) r->iter_fast = r->iter[i];
  }
}

/* The matrix line.  Local (rank 0 prints). */
void spai_report_matrix(hy_ctx *ctx, const spai_opts *o, const spai_problem *p) {
  hy_printf0(ctx, "matrix: %s: n = %lld, nnz(A) = %lld (%.2f per row), rhs %s\n", p->desc,
             (long long)p->n, p->nnz_a, (double)p->nnz_a / p->n, o->rhs_name);
  hy_metric_int(ctx, "n", p->n);
  hy_metric_int(ctx, "nnz_A", p->nnz_a);
}

/* The figures of M as metrics.  Local. */
static void report_setup_metrics(hy_ctx *ctx, const spai_problem *p, const spai_info *in) {
  const spai_setup_info *si = &in->setup;
  hy_metric_int(ctx, "nnz_M", si->nnz_m);
  hy_metric_num(ctx, "nnz_ratio", (double)si->nnz_m / p->nnz_a);
  hy_metric_num(ctx, "AM_I_frobenius", si->frob);
  hy_metric_num(ctx, "colres_min", si->res_min);
  hy_metric_num(ctx, "colres_median", si->res_med);
  hy_metric_num(ctx, "colres_max", si->res_max);
  hy_metric_int(ctx, "rank_deficient_columns", si->rank_deficient);
  hy_metric_int(ctx, "filter_dropped", si->dropped_filter);
  hy_metric_num(ctx, "cost_imbalance", si->cost_imbalance);
  hy_metric_int(ctx, "cols_small", si->ncols_small);
  hy_metric_int(ctx, "cols_medium", si->ncols_medium);
  hy_metric_int(ctx, "cols_large", si->ncols_large);
  hy_metric_int(ctx, "cols_warp", si->ncols_warp);
  hy_metric_int(ctx, "warmup", in->warm.done);
  if (in->warm.done) {
    hy_metric_num(ctx, "warmup_s", in->warm.seconds);
    hy_metric_num(ctx, "warmup_pool_mib", in->warm.pool_bytes / 1048576.0);
    hy_metric_num(ctx, "warmup_pool_estimate_mib", in->warm.pool_want / 1048576.0);
    hy_metric_num(ctx, "warmup_pinned_mib", in->warm.pin_bytes / 1048576.0);
  }
  hy_metric_str(ctx, "pattern_builder", si->pattern ? si->pattern : "");
  static const char *keys[] = { "setup_pattern_s", "setup_distribute_s", "setup_index_sets_s",
                                "setup_submatrices_s", "setup_qr_solve_s", "setup_assembly_s" };
  for (int i = 0; i < 6; i++) hy_metric_num(ctx, keys[i], in->phases[i]);
  hy_metric_int(ctx, "setup_on_device", si->device_setup);
  if (in->check.done) {
    hy_metric_num(ctx, "colres_check", in->check.worst);
    hy_metric_num(ctx, "colres_check_threshold", in->check.threshold);
  }
}

/* Where the last run's M is: made on the device by the setup and kept there for the solve, or
 * assembled on the host; what needed a copy on the host and its time (after the setup, not in
 * its time).  Local (rank 0 prints). */
static void report_m_where(hy_ctx *ctx, const spai_info *in) {
  hy_metric_int(ctx, "m_on_device", in->m_on_device);
  hy_metric_int(ctx, "m_solve_on_device", in->m_solve_device);
  hy_metric_num(ctx, "m_download_s", in->m_down_s);
  char down[256] = "nothing of M copied to the host";
  if (in->m_down_why[0])
    snprintf(down, sizeof down, "copied to the host for %s in %.2f ms (slowest rank; after the "
             "setup, not in its time)", in->m_down_why, 1e3 * in->m_down_s);
  if (!in->m_on_device)
    hy_printf0(ctx, "spai: M is on the host (assembled there; the solve copies it to the "
               "backend)\n");
  else if (in->m_solve_device)
    hy_printf0(ctx, "spai: M is on the device (%smade there by the setup, where the solve takes it "
               "as it is); %s\n", ctx->be.gpu ? "" : "the host backend's device path in C: ",
               down);
  else
    hy_printf0(ctx, "spai: M was made on the device, %s; the solve uploads that host copy "
               "([debug] perturb changed it)\n", down);
}

/* The preconditioner's lines and metrics (the last run's; the target line uses the fastest
 * warm run when repeat > 1).  Local (rank 0 prints). */
void spai_report_setup(hy_ctx *ctx, const spai_opts *o, const spai_problem *p, spai_info *in) {
  if (o->pc == SPAI_PC_JACOBI) {
    hy_printf0(ctx, "precond: jacobi, M = diag(1 / a_ii)\n");
    return;
  }
  if (o->pc == SPAI_PC_NONE) {
    hy_printf0(ctx, "precond: none\n");
    return;
  }
  if (o->pc == SPAI_PC_ILU0) {
    hy_printf0(ctx, "precond: ilu0, %s (factored in the solve setup)\n", ctx->size > 1 ?
               "block Jacobi: ILU(0) of each rank's diagonal block" : "ILU(0) of A");
    return;
  }
  const spai_setup_opts *s = &o->setup;
  const spai_setup_info *si = &in->setup;
  const double *phs = in->phases;
  hy_printf0(ctx, "spai: tau %g (%s), levels %d, max_col %d, filter %g, scale %s: nnz(M) = %lld, "
             "nnz(M)/nnz(A) = %.3f, max |I| = %lld, max |J| = %lld\n", s->tau,
             s->colthr ? "column" : "row", s->levels, s->max_col, s->filter,
             s->scale ? "diag" : "none", (long long)si->nnz_m, (double)si->nnz_m / p->nnz_a,
             (long long)si->max_i, (long long)si->max_j);
  hy_printf0(ctx, "spai: ||%sAM - I||_F = %.6e; column residuals ||A m_k - e_k||: min %.3e, "
             "median %.3e, max %.3e; %lld rank-deficient column(s)\n", s->scale ? "scaled " : "",
             si->frob, si->res_min, si->res_med, si->res_max, (long long)si->rank_deficient);
  if (in->check.done)
    hy_printf0(ctx, "spai: column check: ||A m_k - e_k|| recomputed from M vs the least-squares "
               "residual: max difference %.3e (relative to 1 + || |A| |m_k| ||, column %lld) %s "
               "%.1e\n", in->check.worst, (long long)in->check.column,
               in->check.passed ? "<=" : ">", in->check.threshold);
  hy_printf0(ctx, "spai: setup %.4f s (slowest rank), cost imbalance max/mean %.3f, kernel "
             "classes small/medium/large %lld/%lld/%lld%s\n", in->t_setup, si->cost_imbalance,
             (long long)si->ncols_small, (long long)si->ncols_medium, (long long)si->ncols_large,
             si->dropped_filter ? ", filtered entries dropped" : "");
  if (si->ncols_warp)
    hy_printf0(ctx, "spai: warp class (a warp per column, gather fused into the QR kernel): %lld "
               "column(s)\n", (long long)si->ncols_warp);
  char pool[128] = "no device memory pool on this backend";
  if (in->warm.pool)
    snprintf(pool, sizeof pool, "memory pool %.1f MiB reserved and kept (estimate %.1f MiB)",
             in->warm.pool_bytes / 1048576.0, in->warm.pool_want / 1048576.0);
  char pin[96] = "";
  if (in->warm.pin_tried)
    snprintf(pin, sizeof pin, "; A's arrays page-locked: %.1f MiB (spai.gpu_pin_matrix)",
             in->warm.pin_bytes / 1048576.0);
  if (in->warm.done)
    hy_printf0(ctx, "spai: warm-up %.2f ms before the first setup (slowest rank; not in the setup "
               "times): %d column-kernel passes and the pattern builders on a 48-row problem, "
               "%s%s\n", 1e3 * in->warm.seconds, in->warm.passes, pool, pin);
  report_setup_metrics(ctx, p, in);
  /* where the pattern and M's rows were made: one rank's device setup does both on the device,
   * P ranks' the pattern (M's rows: the distributed transpose); "by the backend" on the host's */
  const char *where = !si->device_setup ? "pattern and M's rows built on the host"
                      : p->pr.size == 1 ? "pattern and M's rows built on the device"
                      : si->dist_dev && in->m_on_device
                        ? (ctx->be.gpu ? "B's rows, pattern and M's rows built on the device, "
                                         "only the slices that cross ranks through the host"
                                       : "B's rows, pattern and M's rows built by the backend's "
                                         "device path in C")
                      : ctx->be.gpu ? "pattern built on the device, M's rows by the distributed transpose"
                      : "pattern built by the backend, M's rows by the distributed transpose";
  hy_printf0(ctx, "spai: setup phases (ms, slowest rank%s): pattern %.2f, distribute %.2f, index "
             "sets %.2f, submatrices %.2f, qr+solve %.2f, assembly %.2f; %s (%s pattern)\n",
             in->rep.n > 1 ? ", last run" : "", 1e3 * phs[0], 1e3 * phs[1], 1e3 * phs[2],
             1e3 * phs[3], 1e3 * phs[4], 1e3 * phs[5], where, si->pattern ? si->pattern : "?");
  if (si->device_setup) {
    const double *x = si->split;
    static const char *keys[] = { "split_pattern_host_s", "split_pattern_upload_s",
                                  "split_pattern_device_s", "split_assembly_device_s",
                                  "split_assembly_download_s", "split_assembly_host_s" };
    for (int i = 0; i < 6; i++) hy_metric_num(ctx, keys[i], x[i]);
    hy_metric_int(ctx, "dist_exchange_device", si->dist_dev);
    if (si->dist_dev)
      hy_printf0(ctx, "spai: setup split (ms, slowest rank%s): pattern: B's rows %.2f (A's "
                 "transpose on the device, the slices that cross ranks by MPI, merged on the "
                 "device, the rows they name fetched once), J sets on the device %.2f; assembly: "
                 "M's rows on the device %.2f (the columns' transpose), residuals to the host "
                 "%.2f, M's rows exchanged and made the solve's matrix %.2f (MPI of the slices "
                 "that cross ranks, merged and renumbered on the device, the halo plan)\n",
                 in->rep.n > 1 ? ", last run" : "", 1e3 * x[0], 1e3 * (x[1] + x[2]), 1e3 * x[3],
                 1e3 * x[4], 1e3 * x[5]);
    if (si->dist_dev) {
      const double *y = si->bsplit;
      static const char *bk[] = { "split_brows_transpose_s", "split_brows_exchange_s",
                                  "split_brows_fetch_s", "split_brows_append_s" };
      for (int i = 0; i < 4; i++) hy_metric_num(ctx, bk[i], y[i]);
      hy_printf0(ctx, "spai: B's rows (ms, slowest rank%s; each part includes its waits for the "
                 "other ranks, and for their kernels on a shared GPU): A's transpose %.2f (A to "
                 "the device, csr2csc, the row maxima to the host), exchange %.2f (the slices "
                 "for other ranks to the host, MPI, merged on the device), fetch %.2f (the rows "
                 "they name, from the owners' device rows), append %.2f (merged on the device, "
                 "their row maxima fetched)\n", in->rep.n > 1 ? ", last run" : "", 1e3 * y[0],
                 1e3 * y[1], 1e3 * y[2], 1e3 * y[3]);
    }
    else
    hy_printf0(ctx, "spai: setup split (ms, slowest rank%s): pattern on the host %.2f (A^T and "
               "the fetches), to the device %.2f, on the device %.2f; assembly on the device %.2f "
               "(M's rows), to the host %.2f, on the host %.2f (filter, scaling, distributed "
               "transpose)\n", in->rep.n > 1 ? ", last run" : "", 1e3 * x[0], 1e3 * x[1],
               1e3 * x[2], 1e3 * x[3], 1e3 * x[4], 1e3 * x[5]);
  }
  report_m_where(ctx, in);
  spai_rep_stats(&in->rep);
  double ts = in->rep.n > 1 ? in->rep.setup_fast : in->t_setup;
  char warm[64] = "";
  if (in->rep.n > 1) snprintf(warm, sizeof warm, " (warm, fastest of %d)", in->rep.n - 1);
  if (ctx->be.gpu)
    hy_printf0(ctx, "spai: setup %.2f ms%s against the target <= 20 ms (cfd2's size, nnz(M) ~ "
               "nnz(A), one H200): ratio %.2f\n", 1e3 * ts, warm, 1e3 * ts / 20.0);
  else
    hy_printf0(ctx, "spai: setup %.2f ms%s on the host backend\n", 1e3 * ts, warm);
}

/* repeat > 1: the cold run against the warm runs (setup and us per iteration), printed and in
 * the record.  Local (rank 0 prints). */
static void report_repeat(hy_ctx *ctx, spai_rep *rp, int have_setup, int have_solve, int iters) {
  if (rp->n < 2) return;
  spai_rep_stats(rp);
  char s1[256] = "", s2[256] = "";
  if (have_setup) {
    snprintf(s1, sizeof s1, "setup cold %.2f ms, warm mean %.2f ms, fastest %.2f ms",
             1e3 * rp->setup[0], 1e3 * rp->setup_mean, 1e3 * rp->setup_fast);
    hy_metric_num(ctx, "setup_cold_s", rp->setup[0]);
    hy_metric_num(ctx, "setup_warm_mean_s", rp->setup_mean);
    hy_metric_num(ctx, "setup_warm_s", rp->setup_fast);
  }
  if (have_solve) {
    char its[96];
    if (rp->its_min == rp->its_max)
      snprintf(its, sizeof its, "%d iterations in every run", iters);
    else
      snprintf(its, sizeof its, "iterations %d..%d over the runs", rp->its_min, rp->its_max);
    snprintf(s2, sizeof s2, "bicgstab cold %.2f us/it, warm mean %.2f us/it, fastest %.2f us/it "
             "(%s)", 1e6 * rp->iter[0], 1e6 * rp->iter_mean, 1e6 * rp->iter_fast, its);
    hy_metric_int(ctx, "iterations_min", rp->its_min);
    hy_metric_int(ctx, "iterations_max", rp->its_max);
    hy_metric_num(ctx, "iter_us_cold", 1e6 * rp->iter[0]);
    hy_metric_num(ctx, "iter_us_warm_mean", 1e6 * rp->iter_mean);
    hy_metric_num(ctx, "iter_us_warm", 1e6 * rp->iter_fast);
  }
  hy_printf0(ctx, "spai: repeat %d: %s%s%s\n", rp->n, s1, s1[0] && s2[0] ? "; " : "",
             s1[0] || s2[0] ? s2 : "(nothing timed)");
  if (have_setup) {   /* the spread of the warm runs, run by run (the first 16) and by phase */
    char per[16 * 64 + 8] = "";
    size_t l = 0;
    for (int r = 0; r < rp->n && r < 16; r++) {
      const double *f = rp->phase + 6 * r;
      l += (size_t)snprintf(per + l, sizeof per - l, "%s%.2f (%.2f/%.2f/%.2f/%.2f)", r ? ", " : "",
                            1e3 * rp->setup[r], 1e3 * f[0], 1e3 * f[2], 1e3 * (f[3] + f[4]),
                            1e3 * f[5]);
    }
    hy_printf0(ctx, "spai: setup of each run (ms, slowest rank, run 1 the cold one; pattern / index "
               "sets / submatrices+qr+solve / assembly): %s%s\n", per, rp->n > 16 ? " .." : "");
  }
}

/* The persistent kernel's variant (GPU) and, with solver.phase_times, what each phase of its
 * iterations took: clock ticks of each phase over the sum of all, times the phases' ns per
 * iteration (the grid syncs included); on a GPU the SpMV floors beside them.  Local. */
static void report_phases(hy_ctx *ctx, const spai_opts *o, const spai_solve_info *sv) {
  static const char *name[K_PH_N] = { "p", "M p", "A ph", "alpha", "s", "M s", "A s", "omega",
                                      "x r", "rho" };
  static const char *key[K_PH_N] = { "p", "Mp", "Aph", "alpha", "s", "Ms", "As", "omega", "xr",
                                     "rho" };
  if (sv->batch == 1) {
    hy_metric_int(ctx, "persistent_unroll", sv->unroll);
    hy_metric_int(ctx, "persistent_blocks", sv->blocks);
    hy_metric_int(ctx, "persistent_rows", o->solver.persistent_rows);
    hy_metric_int(ctx, "persistent_prefetch", o->solver.persistent_prefetch);
    hy_metric_int(ctx, "tpr_A", sv->tpr_a);
    hy_metric_int(ctx, "tpr_M", sv->tpr_m);
    if (ctx->be.gpu && sv->fmt_made && sv->fmt.dia_used)
      hy_printf0(ctx, "bicgstab: persistent kernel: A and M by diagonals (solver.persistent_dia), "
                 "one thread a row, %d blocks of 512 threads per SM (solver.persistent_blocks)\n",
                 sv->blocks);
    else if (ctx->be.gpu)
      hy_printf0(ctx, "bicgstab: persistent kernel: %d entries of a row per lane loaded at once "
                 "(solver.persistent_unroll), %d blocks of 512 threads per SM "
                 "(solver.persistent_blocks), %d / %d threads per row of A / M "
                 "(solver.persistent_tpr), %d row(s) of a lane group in flight "
                 "(solver.persistent_rows)%s\n", sv->unroll, sv->blocks, sv->tpr_a, sv->tpr_m, o->solver.persistent_rows,
                 o->solver.persistent_prefetch ? ", the next chunk of entries loaded while one is "
                 "gathered (solver.persistent_prefetch)" : "");
  }
  if (o->solver.phase_times && !sv->phase_timed)
    hy_printf0(ctx, "bicgstab: solver.phase_times ignored: it times the persistent kernel "
               "(solver.device_kernel = persistent, device loop)\n");
  if (!sv->phase_timed || sv->phase_iters <= 0) return;
  double ticks = 0, ns = 0;
  for (int i = 0; i < K_PH_N; i++) {
    ticks += sv->phase_ticks[i];
    ns += sv->phase_ns[i];
  }
  double per_it = ns / 1e3 / (double)sv->phase_iters;   /* us */
  char buf[640];
  int len = 0;
  for (int i = 0; i < K_PH_N; i++) {
    if (sv->phase_ticks[i] <= 0) continue;
    double us = ticks > 0 ? sv->phase_ticks[i] / ticks * per_it : 0;
    len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s %.2f", len ? ", " : "", name[i], us);
    char k[32];
    snprintf(k, sizeof k, "phase_us_%s", key[i]);
    hy_metric_num(ctx, k, us);
  }
  char fl[160] = "";
  if (ctx->be.gpu)
    snprintf(fl, sizeof fl, "; SpMV floors at 4.25 TB/s: A %.2f, M %.2f us",
             sv->spmv_a_bytes / SPAI_H200_BW * 1e6, sv->spmv_m_bytes / SPAI_H200_BW * 1e6);
  hy_printf0(ctx, "bicgstab phases (us per iteration over %lld iterations, the grid syncs "
             "included): %s; sum %.2f us%s\n", (long long)sv->phase_iters, buf, per_it, fl);
  hy_metric_num(ctx, "phase_sum_us", per_it);
  hy_metric_int(ctx, "phase_iters", sv->phase_iters);
}

/* The solve format and the L2 window (solver.precond_precision, index16, l2_window): what was
 * made, and on a GPU the floor of the format's bytes beside the FP64 / 32-bit one.  Local. */
static void report_format(hy_ctx *ctx, const spai_opts *o, const spai_solve_info *sv,
                          double per_it) {
  const k_bcgs_fmt *f = &sv->fmt;
  hy_metric_int(ctx, "precond_single", sv->fmt_made && f->m_single_used);
  hy_metric_int(ctx, "index16", sv->fmt_made && f->index16_used);
  hy_metric_int(ctx, "persistent_sell", sv->fmt_made && f->sell_used);
  hy_metric_int(ctx, "persistent_dia", sv->fmt_made && f->dia_used);
  if (f->dia) {
    hy_metric_int(ctx, "dia_A", f->dia_a);
    hy_metric_int(ctx, "dia_M", f->dia_m);
    hy_metric_num(ctx, "dia_fill", f->dia_fill);
  }
  int w = f->l2;   /* as made (solver.l2_window = auto resolved by bcgs_prepare; none on the host) */
  hy_metric_str(ctx, "l2_window", w == K_L2_A ? "a" : w == K_L2_M ? "m" : w == K_L2_ALL ? "all"
                                  : w == K_L2_STREAM ? "stream" : "none");
  /* persistent_dia = true where the classic persistent kernel does not run: CSR, a line says why */
  if (ctx->be.gpu && o->solver.persistent_dia == 1 && !f->dia)
    hy_printf0(ctx, "bicgstab: not by diagonals (solver.persistent_dia): the persistent kernel "
               "does not run (solver.device_kernel = %s); CSR\n",
               !sv->device_loop ? "none: no device loop" : sv->batch == 2 ? "fused"
               : sv->device_graph ? "graph" : "queued");
  if (!sv->fmt_asked) return;
  if (!sv->fmt_made) {
    hy_printf0(ctx, "bicgstab: solve format not made (solver.precond_precision, index16, "
               "l2_window): %s; FP64 values, 32-bit columns\n", sv->fmt_why);
    return;
  }
  if (f->dia && !f->dia_used && f->dia_why[0])
    hy_printf0(ctx, "bicgstab: not by diagonals (solver.persistent_dia): %s; CSR\n", f->dia_why);
  char idx[160];
  if (f->dia_used)
    snprintf(idx, sizeof idx, "none: A and M by diagonals (solver.persistent_dia: %d / %d "
             "diagonals, %.2f x the entries stored)", f->dia_a, f->dia_m, f->dia_fill);
  else if (f->index16 && !f->index16_used && !sv->fmt_why[0])
    snprintf(idx, sizeof idx, "32-bit (solver.index16: |column - row| up to %lld > 32767)",
             (long long)f->max_offset);
  else
    snprintf(idx, sizeof idx, "%s", f->index16_used ? "16-bit offsets from the row (solver.index16)"
                                                    : "32-bit");
  hy_printf0(ctx, "bicgstab: solve format: M's values %s, columns %s%s; copy made in %.3f ms "
             "(outside the timed solve)%s%s\n", !o->solver.use_m ? "(none)" : f->m_single_used
             ? "FP32 (solver.precond_precision = single)" : "FP64", idx,
             f->sell_used ? ", entries in slices of 32 rows (solver.persistent_sell)" : "",
             1e3 * sv->fmt_s,
             sv->fmt_why[0] ? "; format not made: " : "", sv->fmt_why);
  hy_metric_num(ctx, "fmt_ms", 1e3 * sv->fmt_s);
  hy_metric_int(ctx, "max_offset", f->max_offset);
  if (!ctx->be.gpu) return;
  if (f->l2 != K_L2_NONE)
    hy_printf0(ctx, "bicgstab: L2 window (solver.l2_window): %.2f MB of the solve copy, set-aside "
               "%.2f MB, hit ratio %.3f%s\n", f->l2_window / 1e6, f->l2_setaside / 1e6, f->l2_hit,
               f->l2_window <= 0 ? " (none: the device has no persisting L2, refused the "
                                   "set-aside, or nothing to cover)"
               : f->l2 == K_L2_STREAM ? " (solver.l2_window = stream: every line streaming, "
                                        "evict-first; no set-aside)"
               : f->l2_auto ? " (solver.l2_window = auto: A and M by diagonals, both)" : "");
  else if (f->l2_auto && f->dia_used && f->l2_why[0])
    hy_printf0(ctx, "bicgstab: L2 window (solver.l2_window = auto): none: %s\n", f->l2_why);
  hy_metric_num(ctx, "l2_window_mb", f->l2_window / 1e6);
  hy_metric_num(ctx, "l2_setaside_mb", f->l2_setaside / 1e6);
  hy_metric_num(ctx, "l2_hit", f->l2_hit);
  double fl = sv->bytes_fmt / SPAI_H200_BW;
  hy_printf0(ctx, "bicgstab: %.2f MB per iteration in the solve format: floor %.2f us, ratio %.2f "
             "(the floor line above counts FP64 values and 32-bit columns; both count every byte "
             "from HBM%s)\n", sv->bytes_fmt / 1e6, fl * 1e6, fl > 0 ? per_it / fl : 0,
             f->l2_window > 0 ? ": the L2 window serves part of them from L2" : "");
  hy_metric_num(ctx, "floor_fmt_us", fl * 1e6);
}

/* The BiCGSTAB lines and metrics (us per iteration against the floor: the fastest warm run
 * when repeat > 1).  Local (rank 0 prints). */
static void report_solve(hy_ctx *ctx, const spai_opts *o, spai_info *in) {
  const spai_solve_info *sv = &in->solve;
  int reps = in->rep.n;
  double per_it_last = sv->iterations ? sv->seconds / sv->iterations : 0;
  double per_it = reps > 1 ? in->rep.iter_fast : per_it_last;
  double floor_it = sv->bytes_per_iter / SPAI_H200_BW;
  char warm[64] = "";
  if (reps > 1) snprintf(warm, sizeof warm, " (warm, fastest of %d)", reps - 1);
  hy_printf0(ctx, "bicgstab (%s, right preconditioning): %d iteration(s), %.4f s, recursive "
             "residual %.3e, true residual ||b - Ax||/||b|| = %.3e\n", o->pc_name, sv->iterations,
             sv->seconds, sv->relres, sv->true_relres);
  /* (the persistent kernel by the key's auto, the default, or named) */
  char pk[64] = "persistent";
  if (sv->batch_auto)
    snprintf(pk, sizeof pk, "auto: persistent on a GPU backend");
  if (sv->device_loop && sv->batch == 1)
    hy_printf0(ctx, "bicgstab: device loop (scalars in backend memory, convergence read every %d "
               "iteration(s)), the iterations between reads in one launch of a persistent kernel "
               "(solver.device_kernel = %s%s)\n", o->solver.check_every, pk,
               sv->persistent_split ? "; p and s in phases of their own: solver.persistent_split"
                                    : "");
  else if (sv->device_loop)
    hy_printf0(ctx, "bicgstab: device loop (scalars in backend memory, convergence read every %d "
               "iteration(s))%s\n", o->solver.check_every,
               sv->batch == 2 && sv->device_graph
                   ? ", the fused kernels (solver.device_kernel = fused) of the iterations between "
                     "reads recorded once and replayed (solver.device_graph)"
               : sv->batch == 2 ? ", the fused kernels (solver.device_kernel = fused) queued"
               : sv->device_graph ? ", the iterations between reads recorded once and replayed "
                                    "(solver.device_graph)" : "");
  if (sv->device_loop && sv->batch_why[0] && sv->batch_auto)
    hy_printf0(ctx, "bicgstab: solver.device_kernel = auto: the graph, not the persistent kernel "
               "(%s)\n", sv->batch_why);
  else if (sv->device_loop && sv->batch_why[0])
    hy_printf0(ctx, "bicgstab: solver.device_kernel = %s not run: %s; the iterations are "
               "queued kernels\n", o->solver.device_kernel == 3 ? "fused" : "persistent",
               sv->batch_why);
  else if (o->solver.device_loop == 1 && !sv->device_loop)
    hy_printf0(ctx, "bicgstab: solver.device_loop = true ignored: it needs one rank and a "
               "backend with the scalar-block vector operations (%d ranks, %s backend)\n",
               ctx->size, ctx->be.name);
  if (sv->merged_loop_off)
    hy_printf0(ctx, "bicgstab: solver.merge_reductions = true: the device loop runs it only as the "
               "persistent kernel (solver.device_kernel = persistent); the usual loop ran\n");
  hy_metric_int(ctx, "merge_reductions", o->solver.merge_reductions);
  hy_metric_int(ctx, "device_loop", sv->device_loop);
  hy_metric_int(ctx, "device_graph", sv->device_graph);
  hy_metric_int(ctx, "persistent_split", sv->persistent_split);
  hy_metric_str(ctx, "device_kernel", !sv->device_loop ? "none" : sv->batch == 1 ? "persistent"
                                      : sv->batch == 2 ? "fused"
                                      : sv->device_graph ? "graph" : "queued");
  hy_metric_int(ctx, "spmv_own", sv->spmv_own);
  if (ctx->be.gpu)
    hy_printf0(ctx, "bicgstab: %.2f us per iteration%s; floor %.2f us (%.2f MB per iteration on "
               "the busiest rank at 4.25 TB/s, H200 copy rate): ratio %.2f\n", per_it * 1e6, warm,
               floor_it * 1e6, sv->bytes_per_iter / 1e6, floor_it > 0 ? per_it / floor_it : 0);
  else
    hy_printf0(ctx, "bicgstab: %.2f us per iteration%s (%.2f MB per iteration on the busiest "
               "rank; host backend)\n", per_it * 1e6, warm, sv->bytes_per_iter / 1e6);
  report_phases(ctx, o, sv);
  report_format(ctx, o, sv, per_it);
  if (sv->spmv_a_s > 0)
    hy_printf0(ctx, "spmv (%s library, alone): A %.2f us (%.0f GB/s of its minimum bytes), M %.2f us "
               "(%.0f GB/s); 2 A + %s per iteration = %.2f us of the %.2f\n", ctx->be.vendor_sparse,
               sv->spmv_a_s * 1e6, sv->spmv_a_bytes / sv->spmv_a_s / 1e9, sv->spmv_m_s * 1e6,
               sv->spmv_m_s > 0 ? sv->spmv_m_bytes / sv->spmv_m_s / 1e9 : 0,
               o->solver.use_m ? "2 M" : "0 M", (2 * sv->spmv_a_s + 2 * sv->spmv_m_s) * 1e6,
               per_it * 1e6);
  if (sv->own_a_s > 0) {
    const double *t = sv->own_tpr_a_s;
    hy_printf0(ctx, "spmv (ours, alone): A %.2f us (%.0f GB/s of its minimum bytes), M %.2f us "
               "(%.0f GB/s); A with 1/2/4/8/16/32 threads per row: %.2f/%.2f/%.2f/%.2f/%.2f/%.2f "
               "us; bicgstab used %s\n", sv->own_a_s * 1e6, sv->spmv_a_bytes / sv->own_a_s / 1e9,
               sv->own_m_s * 1e6, sv->own_m_s > 0 ? sv->spmv_m_bytes / sv->own_m_s / 1e9 : 0,
               t[0] * 1e6, t[1] * 1e6, t[2] * 1e6, t[3] * 1e6, t[4] * 1e6, t[5] * 1e6,
               sv->spmv_own ? "ours" : "the library's (solver.spmv = library)");
    hy_metric_num(ctx, "spmv_own_A_us", sv->own_a_s * 1e6);
    hy_metric_num(ctx, "spmv_own_M_us", sv->own_m_s * 1e6);
  }
  if (o->solver.ilu) {
    hy_printf0(ctx, "ilu0: %lld entries in the factors (%s), factorisation %.3f ms (slowest rank)\n",
               (long long)sv->ilu_nnz, ctx->size > 1 ? "diagonal blocks" : "pattern of A",
               1e3 * sv->ilu_s);
    hy_metric_num(ctx, "ilu_factor_s", sv->ilu_s);
    hy_metric_int(ctx, "ilu_nnz", sv->ilu_nnz);
  }
  report_repeat(ctx, &in->rep, o->pc == SPAI_PC_SPAI, 1, sv->iterations);
  hy_metric_num(ctx, "spmv_A_us", sv->spmv_a_s * 1e6);
  hy_metric_num(ctx, "spmv_M_us", sv->spmv_m_s * 1e6);
  hy_printf0(ctx, "total: setup + solve = %.4f s\n", in->t_setup + sv->seconds);
  hy_metric_int(ctx, "iterations", sv->iterations);
  hy_metric_num(ctx, "solve_s", sv->seconds);
  hy_metric_num(ctx, "krylov_ws_ms", 1e3 * sv->ws_s);
  hy_metric_num(ctx, "total_s", in->t_setup + sv->seconds);
  hy_metric_num(ctx, "relres", sv->relres);
  hy_metric_num(ctx, "true_relres", sv->true_relres);
  hy_metric_num(ctx, "iter_us", per_it_last * 1e6);
  hy_metric_num(ctx, "iter_floor_us", floor_it * 1e6);
  hy_metric_num(ctx, "iter_floor_ratio", floor_it > 0 ? per_it / floor_it : 0);
  hy_metric_str(ctx, "precond", o->pc_name);
}

/* The verdict of a run without a solve, or whose M failed its check.  Local. */
static int verdict_setup(hy_ctx *ctx, const spai_opts *o, const spai_problem *p, spai_info *in) {
  const spai_check_info *ck = &in->check;
  if (ck->done && !ck->passed) {
    hy_metric_str(ctx, "verdict", "column check failed");
    hy_validation(ctx, "||A m_k - e_k|| recomputed from M vs the least-squares residual",
                  ck->worst, ck->threshold, 0);
    hy_verdict(ctx, "SPAI column check: ||A m_k - e_k|| recomputed from M differs from the "
               "least-squares residual by %.3e > %.1e (relative to 1 + || |A| |m_k| ||) at column %lld",
               ck->worst, ck->threshold, (long long)ck->column);
    return HY_EVALID;
  }
  report_repeat(ctx, &in->rep, o->pc == SPAI_PC_SPAI, 0, 0);
  if (ck->done)
    hy_validation(ctx, "||A m_k - e_k|| recomputed from M vs the least-squares residual",
                  ck->worst, ck->threshold, 1);
  else
    hy_validation(ctx, "preconditioner built (solver.solve = false)", in->t_setup, 0, 1);
  hy_verdict(ctx, "preconditioner %s built in %.4f s (no solve: solver.solve = false), n = %lld, "
             "%d rank(s), backend %s", o->pc_name, in->t_setup, (long long)p->n, ctx->size,
             ctx->be.name);
  return HY_OK;
}

/* The solve's lines, the validation and the verdict; the exit code.  Local (the same figures
 * on every rank, so the same code). */
int spai_report_result(hy_ctx *ctx, const spai_opts *o, const spai_problem *p, spai_info *in) {
  if (in->repeat_differs) {
    hy_verdict(ctx, "spai.repeat: run %d of %d built a different preconditioner M than run 1",
               in->repeat_differs, o->repeat);
    return HY_EVALID;
  }
  spai_rep_stats(&in->rep);
  hy_metric_num(ctx, "setup_s", in->t_setup);
  hy_metric_int(ctx, "repeat", o->repeat);
  if (!in->solved) return verdict_setup(ctx, o, p, in);
  report_solve(ctx, o, in);
  const spai_solve_info *sv = &in->solve;
  double tol = o->solver.tol;
  if (sv->status == KRYLOV_BREAKDOWN) {
    hy_metric_str(ctx, "verdict", "breakdown");
    hy_verdict(ctx, "BiCGSTAB breakdown: %s (residual %.3e)", sv->breakdown, sv->relres);
    return hy_err(HY_ENUMERIC, "BiCGSTAB breakdown: %s", sv->breakdown);
  }
  if (sv->status == KRYLOV_MAXIT) {
    hy_metric_str(ctx, "verdict", "not converged");
    hy_validation(ctx, "BiCGSTAB relative residual", sv->relres, tol, 0);
    hy_verdict(ctx, "BiCGSTAB (%s) not converged after %d iterations: residual %.3e > tol %.1e "
               "(true residual %.3e)", o->pc_name, sv->iterations, sv->relres, tol, sv->true_relres);
    return HY_EVALID;
  }
  /* converged: the true residual must confirm it (10x tol allows recursive-residual drift) */
  int ok = sv->true_relres <= 10 * tol;
  hy_metric_str(ctx, "verdict", ok ? "converged" : "true residual too large");
  hy_validation(ctx, "true relative residual ||b - Ax||/||b||", sv->true_relres, 10 * tol, ok);
  if (!ok) {
    hy_verdict(ctx, "BiCGSTAB (%s) converged in %d iterations but the true residual %.3e > "
               "10 tol = %.1e", o->pc_name, sv->iterations, sv->true_relres, 10 * tol);
    return HY_EVALID;
  }
  hy_verdict(ctx, "BiCGSTAB (%s) converged in %d iterations: true residual %.3e <= %.1e, n = %lld, "
             "%d rank(s), backend %s", o->pc_name, sv->iterations, sv->true_relres, 10 * tol,
             (long long)p->n, ctx->size, ctx->be.name);
  return HY_OK;
}
