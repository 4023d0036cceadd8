/* gauss_report.c - every line gauss prints (but the refinement's per-step monitor lines in
 * gauss_refine.c and the fallback notes of the solve), every metric of its record and the
 * verdict, from gauss_t (the set-up) and gauss_info (what the stages found).  GPU figures
 * (targets at the H200's rates) print on a GPU backend only (k_gauss_ops.gpu).  Rank 0 prints;
 * every rank may call these. */
#include "gauss/gauss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const gauss_pname[] = { "double", "single", "mixed" };
static const char *const gauss_rname[] = { "classic", "gmres", "auto" };
static const char *const gauss_lname[] = { "fp32", "tf32", "bf16", "fp16" };
static const char *const gauss_panel_names[] = { "vendor", "recursive", "fused", "auto" };

/* The run's first line: size, algorithm, precision, data, backend, distribution.  Local. */
void gauss_report_setup(const gauss_t *g, const gauss_info *info) {
  const gauss_opts *o = g->o;
  hy_ctx *ctx = g->ctx;
  hy_printf0(ctx, "gauss: n = %lld, algorithm %s, precision %s, matrix %s, rhs %s, backend %s, "
             "%d rank(s)", (long long)g->n, info->alg->name, gauss_pname[g->prec], o->matrix_name,
             o->rhs_name, g->be->name, ctx->size);
  if (g->alg == GAUSS_BLOCKED) hy_printf0(ctx, ", grid %dx%d, nb %lld\n", g->P, g->Q, (long long)g->nb);
  else hy_printf0(ctx, ", rows cyclic, memory %s\n", g->managed ? "managed" : "device");
  if (info->alg == &gauss_small_alg)
    hy_printf0(ctx, "gauss: small-n LU (gauss.small = %s, n <= %lld on this backend): the whole "
               "factorization by the backend's getrf_small (%s), the solve by getrs_small\n",
               o->small == GAUSS_SMALL_ON ? "on" : o->small == GAUSS_SMALL_COOP ? "coop" : "auto",
               (long long)(o->small == GAUSS_SMALL_AUTO ? g->ko->small_auto : g->ko->small_nmax),
               o->small == GAUSS_SMALL_COOP ? "one cooperative kernel" : "one launch per panel");
  hy_metric_int(ctx, "small_lu", info->alg == &gauss_small_alg);
}

/* The broadcast path of the blocked LU (more than one rank) and its metric.  Local. */
void gauss_report_bcast(const gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  int P = g->P, Q = g->Q;
  if (hy_bcast_note(g->bc)[0]) hy_printf0(ctx, "gauss: %s\n", hy_bcast_note(g->bc));
  const char *name = hy_bcast_name(g->bc);
  int emul = !strcmp(name, "emulated");
  if (hy_bcast_is_device(g->bc))
    hy_printf0(ctx, "gauss: panel broadcasts: %s (%s; L along process rows of %d, U down process "
               "columns of %d)%s%s%s\n", name,
               emul ? "[debug] host_coll test hook: device-collective path, MPI on the host"
                    : "device buffers on the GPU streams", Q, P,
               P > 1 ? "; row swaps: " : "", P > 1 ? name : "",
               P > 1 ? ", one exchange per panel; panel gather: mpi" : "");
  else
    hy_printf0(ctx, "gauss: panel broadcasts: mpi (%s): %s\n", hy_bcast_path(g->bc), hy_bcast_why(g->bc));
  hy_metric_str(ctx, "bcast", hy_bcast_is_device(g->bc) ? "nccl" : "mpi");
}

/* ||A||, ||b|| and the illcond construction.  Local. */
void gauss_report_norms(const gauss_t *g) {
  hy_printf0(g->ctx, "||A||_inf = %.6e, ||b||_inf = %.6e\n", g->normA, g->normb);
  if (g->mtype == GAUSS_ILLCOND)
    hy_printf0(g->ctx, "illcond: A = U diag(sigma) V^T, kappa_2(A) = %.3g (sigma geometric from 1 "
               "to %.3g)\n", g->o->cond, 1 / g->o->cond);
}

/* The vendor's figures (compare_cusolver): best and mean of the timed runs after a warm-up,
 * and their metrics (the best under the old names).  Local. */
void gauss_report_reference(const gauss_t *g, const gauss_info *info) {
  hy_ctx *ctx = g->ctx;
  double n = (double)g->n, gn = (double)g->o->gemm_n;
  double fl = 2.0 / 3.0 * n * n * n, gfl = 2.0 * gn * gn * gn;
  hy_printf0(ctx, "reference: %s dgetrf %.3f ms (%.3f TFLOP/s), dgetrs %.3f ms, info %d, scaled "
             "residual %.4g (best of %d after a warm-up; mean dgetrf %.3f ms, dgetrs %.3f ms)\n",
             g->ko->vendor_lu, info->ref_f[0] * 1e3, fl / info->ref_f[0] / 1e12, info->ref_s[0] * 1e3,
             info->ref_info, info->ref_scaled, info->ref_reps, info->ref_f[1] * 1e3,
             info->ref_s[1] * 1e3);
  hy_printf0(ctx, "reference: %s DGEMM n = %lld: %.3f ms, %.3f TFLOP/s (best of %d after a warm-up; "
             "mean %.3f ms)\n", g->ko->vendor_blas, (long long)g->o->gemm_n, info->gemm_s[0] * 1e3,
             gfl / info->gemm_s[0] / 1e12, info->ref_reps, info->gemm_s[1] * 1e3);
  if (g->o->sweep) return;
  hy_metric_num(ctx, "ref_getrf_seconds", info->ref_f[0]);
  hy_metric_num(ctx, "ref_getrs_seconds", info->ref_s[0]);
  hy_metric_num(ctx, "ref_getrf_seconds_mean", info->ref_f[1]);
  hy_metric_num(ctx, "ref_getrs_seconds_mean", info->ref_s[1]);
  hy_metric_int(ctx, "ref_timed_runs", info->ref_reps);
  hy_metric_num(ctx, "ref_getrf_tflops", fl / info->ref_f[0] / 1e12);
  hy_metric_num(ctx, "ref_scaled_residual", info->ref_scaled);
  hy_metric_num(ctx, "dgemm_tflops", gfl / info->gemm_s[0] / 1e12);
  hy_metric_num(ctx, "dgemm_seconds_mean", info->gemm_s[1]);
}

/* gauss.trace: where the last factorization's wall time went (gauss_trace), and by quarter of
 * the steps.  Local. */
static void gauss_report_trace(const gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  const gauss_trace *tr = &g->tr;
  const double *p = tr->part;
  double la = p[GAUSS_TR_LAGEMM], gm = p[GAUSS_TR_GEMM];
  double hidden = tr->panels - p[GAUSS_TR_WAIT];
  hy_printf0(ctx, "trace (rank 0, time marks on both streams, not synchronised, last factorization): "
             "factor %.3f ms = first panel %.3f + swaps %.3f + trsm+U %.3f + low copies %.3f + "
             "lookahead gemm %.3f (%.4g TF) + trailing gemm %.3f (%.4g TF) + waiting for the next "
             "panel %.3f ms; side stream: panels %.3f ms, %.3f ms of them hidden behind the "
             "trailing update\n", tr->factor * 1e3, p[GAUSS_TR_FIRST] * 1e3, p[GAUSS_TR_SWAP] * 1e3,
             p[GAUSS_TR_TRSM] * 1e3, p[GAUSS_TR_LOW] * 1e3, la * 1e3,
             la > 0 ? tr->fl_la / la / 1e12 : 0.0, gm * 1e3, gm > 0 ? tr->fl_gemm / gm / 1e12 : 0.0,
             p[GAUSS_TR_WAIT] * 1e3, tr->panels * 1e3, hidden * 1e3);
  char buf[512];
  int len = 0;
  for (int q = 0; q < tr->nq && len < (int)sizeof buf - 128; q++)
    len += snprintf(buf + len, sizeof buf - (size_t)len, "%s steps %lld-%lld: busy %.3f ms, waiting "
                    "%.3f ms, panels %.3f ms", q ? ";" : "", (long long)tr->q0[q],
                    (long long)tr->q0[q + 1] - 1, tr->qbusy[q] * 1e3, tr->qwait[q] * 1e3,
                    tr->qpanel[q] * 1e3);
  hy_printf0(ctx, "trace by quarter of the steps (main stream busy, waiting for the next panel; "
             "side stream panels):%s\n", buf);
  if (tr->chunks > 1)
    hy_printf0(ctx, "trace, update chunks (gauss.update_chunks = %d, aux stream priority %s): the "
               "chunks' swaps + trsm + low copies %.3f ms on the aux stream beside the trailing "
               "gemm; on the main stream swaps is its wait for each step's first chunk and the "
               "trailing gemm holds its waits for the later ones\n", tr->chunks,
               g->o->update_same ? "same" : "high", tr->aux * 1e3);
  hy_printf0(ctx, "trace, host (rank 0): %.3f ms queueing the factorization's work (of them %.3f "
             "ms in the GEMM calls, %.3f ms in the panels'): %s\n", tr->host * 1e3,
             tr->host_gemm * 1e3, tr->host_panel * 1e3,
             tr->host > 0.9 * tr->factor ? "the host, not the device, may set the pace"
                                         : "ahead of the device");
}

/* HPL's result table, the rate per device, the refinement summary and the residual lines.
 * Local. */
static void gauss_report_hpl(const gauss_t *g, const gauss_info *info, double gf, const char *tv) {
  hy_ctx *ctx = g->ctx;
  if (info->reps > 1)
    hy_printf0(ctx, "repeat: %d timed run(s) after a warm-up: mean %.6f s, fastest %.6f s (factor: "
               "mean %.6f s, fastest %.6f s)\n", info->nt, info->t, info->best_t, info->t_factor,
               info->best_f);
  hy_printf0(ctx, "================================================================================\n"
             "T/V                N    NB     P     Q               Time                 Gflops\n"
             "--------------------------------------------------------------------------------\n"
             "%-10s %9lld %5lld %5d %5d %18.6f %22.4e\n"
             "================================================================================\n",
             tv, (long long)g->n, (long long)(g->alg == GAUSS_BLOCKED ? g->nb : 1), g->P, g->Q,
             info->t, gf);
  hy_printf0(ctx, "Gflops per %s: %.4e  (time %.6f s: factor %.6f s, %s)\n", g->ko->unit,
             gf / ctx->size, info->t, info->t_factor,
             g->alg == GAUSS_BLOCKED ? "matrix resident on the device"
                                     : "includes the upload, as the seed's buffer version");
  if (g->o->profile && g->alg == GAUSS_BLOCKED)
    hy_printf0(ctx, "profile (rank 0, synchronised, last factorization): panel %.3f ms, swaps %.3f "
               "ms, trsm+U %.3f ms, lookahead gemm %.3f ms, rest of the trailing update (swaps, "
               "trsm, gemm; before the next panel, not beside it) %.3f ms; sum %.3f ms\n",
               g->prof[0] * 1e3, g->prof[1] * 1e3, g->prof[2] * 1e3, g->prof[3] * 1e3,
               g->prof[4] * 1e3, (g->prof[0] + g->prof[1] + g->prof[2] + g->prof[3] + g->prof[4]) * 1e3);
  if (g->tr.done && g->alg == GAUSS_BLOCKED) gauss_report_trace(g);
  if (g->o->panel_sms > 0 && g->alg == GAUSS_BLOCKED && info->alg == &gauss_blocked_alg && g->ko->gpu)
    hy_printf0(ctx, "gauss: panel_sms = %d: the main stream's GEMMs and TRSM on all but %d "
               "multiprocessors, left to the lookahead panel beside them\n", g->o->panel_sms, g->o->panel_sms);
  if ((g->vendor_rows > 0 || g->vendor_short > 0) && g->alg == GAUSS_BLOCKED && info->alg == &gauss_blocked_alg) {
    char why[160];
    if (g->vendor_rows > 0 && g->vendor_short > 0)
      snprintf(why, sizeof why, "more than gauss.panel_vendor_rows = %lld rows or at most gauss.panel_vendor_short = %lld rows",
               (long long)g->vendor_rows, (long long)g->vendor_short);
    else if (g->vendor_rows > 0)
      snprintf(why, sizeof why, "more than gauss.panel_vendor_rows = %lld rows", (long long)g->vendor_rows);
    else
      snprintf(why, sizeof why, "at most gauss.panel_vendor_short = %lld rows", (long long)g->vendor_short);
    hy_printf0(ctx, "gauss: panels (last factorization): %lld of %lld by the vendor's getrf (%s), the rest by "
               "panel %s\n", (long long)g->ntall, (long long)g->npanels, why, gauss_panel_names[g->panel]);
  }
  const gauss_refine_stats *rs = &info->rs;
  if (g->prec == GAUSS_MIXED)
    hy_printf0(ctx, "mixed: %d refinement step(s) (refine %s: %d classic, %d GMRES-IR with %d GMRES "
               "iteration(s)%s)%s\n", info->iters, gauss_rname[g->o->refine], rs->classic_steps,
               rs->gmres_steps, rs->gmres_iters, rs->switched ? ", switched from classic" : "",
               info->fellback ? ", then FP64 fallback" : "");
  if (g->prec == GAUSS_MIXED && (g->mtype == GAUSS_HPLMXP || g->o->low != GAUSS_LOW_FP32)) {
    double n = (double)g->n, lu = 2.0 / 3.0 * n * n * n / info->t_factor / 1e9;
    hy_printf0(ctx, "hpl-mxp: low %s, matrix %s: %.4e Gflops as HPL-MxP reports it ((2/3 n^3 + 3/2 "
               "n^2) over LU + refinement, %.6f s), LU alone %.4e Gflops (%.6f s); %d refinement "
               "step(s), %d GMRES iteration(s); %s%s\n", gauss_lname[g->o->low], g->o->matrix_name, gf,
               info->t, lu, info->t_factor, info->iters, rs->gmres_iters,
               g->o->nopiv ? "pivoting none (the FP32 LU without row exchanges)" : "partial pivoting",
               info->fellback ? "; FP64 fallback: not a mixed-precision result" : "");
  }
  if (info->perturb != 0)
    hy_printf0(ctx, "[debug] perturb = %g: x scaled by 1 + perturb before the check\n", info->perturb);
  hy_printf0(ctx, "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N) = %.7f ...... %s\n",
             info->scaled, info->ok ? "PASSED" : "FAILED");
  hy_printf0(ctx, "||Ax-b||_oo = %.6e, ||A||_oo = %.6e, ||x||_oo = %.6e, ||b||_oo = %.6e, eps = %.3e\n",
             info->nr, g->normA, info->nx, g->normb, info->eps);
}

/* The small-n path's runs (gauss_small.c) split by the host's clock: getrf_small, the solve and
 * what the run's time holds outside them; means over the timed runs, as info->t.  Local. */
static void gauss_small_means(const gauss_t *g, const gauss_info *info, double m[3]) {
  const gauss_small_times *tm = &g->small_tm;
  const double *d = tm->runs > 1 ? tm->sum : tm->first;
  int k = tm->runs > 1 ? tm->runs - 1 : 1;
  m[0] = d[GAUSS_SM_LU] / k;
  m[1] = d[GAUSS_SM_SOLVE] / k;
  m[2] = info->t - m[0] - m[1];
}

/* The small-n path's line: where its run's time goes.  Local. */
static void gauss_report_small(const gauss_t *g, const gauss_info *info) {
  if (info->alg != &gauss_small_alg || g->small_tm.runs < 1) return;
  double m[3];
  gauss_small_means(g, info, m);
  hy_printf0(g->ctx, "gauss: small-n LU, the run's %.3f ms (mean of %d): getrf_small %.3f ms (the "
             "launches, the LU, its info read back), solve %.3f ms (getrs_small, x downloaded), "
             "outside them %.3f ms; A and b are placed on the device before the timer, as "
             "the vendor's copies are\n", info->t * 1e3, info->nt, m[0] * 1e3, m[1] * 1e3, m[2] * 1e3);
}

/* Ours against the vendor's (compare_cusolver), best against best and mean against mean
 * over the same number of timed runs; the targets only on a GPU.  Local. */
static void gauss_report_compare(const gauss_t *g, const gauss_info *info) {
  hy_ctx *ctx = g->ctx;
  double n = (double)g->n;
  double fl = 2.0 / 3.0 * n * n * n;
  double ours = fl / info->t_factor / 1e12, ref = fl / info->ref_f[1] / 1e12;
  double ours_b = fl / info->best_f / 1e12, ref_b = fl / info->ref_f[0] / 1e12;
  double gemm = 2.0 * pow((double)g->o->gemm_n, 3) / info->gemm_s[0] / 1e12;
  double vt = info->ref_f[1] + info->ref_s[1], vtb = info->ref_f[0] + info->ref_s[0];
  int gpu = g->ko->gpu;
  /* issue 18's FP64 targets on one GPU: 1.2x cuSOLVER at n = 32768, 1.25x and 50 TF/s at 65536 */
  const char *tgt = !gpu || g->prec != GAUSS_DOUBLE ? ""
                    : g->n == 32768 ? " (target >= 1.2 at n = 32768)"
                    : g->n == 65536 ? " (target >= 1.25 and 50 TFLOP/s at n = 65536)"
                                    : " (targets at n = 32768: >= 1.2; at 65536: >= 1.25 and 50 TFLOP/s)";
  hy_printf0(ctx, "compare: %s factor %.3f TFLOP/s vs vendor dgetrf %.3f TFLOP/s (means of %d "
             "timed runs): ratio %.3f; best %.3f vs %.3f: ratio %.3f%s; DGEMM %.3f TFLOP/s, ours "
             "= %.3f of DGEMM\n", info->alg->name, ours, ref, info->nt, ours / ref, ours_b, ref_b,
             ours_b / ref_b, tgt, gemm, ours_b / gemm);
  hy_printf0(ctx, "compare: %s solve time %.3f ms vs vendor dgetrf+dgetrs %.3f ms (means): ratio "
             "%.3f; best %.3f ms vs %.3f ms: ratio %.3f%s\n", info->alg->name, info->t * 1e3,
             vt * 1e3, info->t / vt, info->best_t * 1e3, vtb * 1e3, info->best_t / vtb,
             gpu ? " (mixed target <= 0.4)" : "");
  if (g->o->sweep) return;   /* one set of vendor fields: a single combination's */
  hy_metric_num(ctx, "ratio_factor_rate_vs_ref", ours / ref);
  hy_metric_num(ctx, "ratio_factor_rate_vs_ref_best", ours_b / ref_b);
  hy_metric_num(ctx, "ratio_time_vs_ref_solve", info->t / vt);
  hy_metric_num(ctx, "ratio_time_vs_ref_solve_best", info->best_t / vtb);
  hy_metric_num(ctx, "fraction_of_dgemm", ours_b / gemm);
}

/* The record's figures.  Local. */
static void gauss_report_metrics(const gauss_t *g, const gauss_info *info, double gf) {
  hy_ctx *ctx = g->ctx;
  const gauss_refine_stats *rs = &info->rs;
  hy_metric_int(ctx, "n", g->n);
  hy_metric_int(ctx, "nb", g->nb);
  hy_metric_int(ctx, "P", g->P);
  hy_metric_int(ctx, "Q", g->Q);
  hy_metric_str(ctx, "algorithm", info->alg->name);
  hy_metric_str(ctx, "precision", gauss_pname[g->prec]);
  hy_metric_num(ctx, "time_seconds", info->t);
  hy_metric_num(ctx, "factor_seconds", info->t_factor);
  hy_metric_num(ctx, "gflops", gf);
  hy_metric_num(ctx, "gflops_per_device", gf / ctx->size);
  hy_metric_num(ctx, "residual_inf", info->nr);
  hy_metric_num(ctx, "norm_A_inf", g->normA);
  hy_metric_num(ctx, "norm_x_inf", info->nx);
  hy_metric_num(ctx, "norm_b_inf", g->normb);
  hy_metric_int(ctx, "refine_iterations", info->iters);
  hy_metric_int(ctx, "fp64_fallback", info->fellback);
  if (g->prec == GAUSS_MIXED) {
    hy_metric_str(ctx, "refine_method", gauss_rname[g->o->refine]);
    hy_metric_int(ctx, "refine_classic_steps", rs->classic_steps);
    hy_metric_int(ctx, "refine_gmres_steps", rs->gmres_steps);
    hy_metric_int(ctx, "gmres_iterations", rs->gmres_iters);
    hy_metric_int(ctx, "refine_switched_to_gmres", rs->switched);
    if (rs->cond_lower > 0) hy_metric_num(ctx, "cond_inf_lower_bound", rs->cond_lower);
  }
  if (g->mtype == GAUSS_ILLCOND) hy_metric_num(ctx, "cond", g->o->cond);
  if (g->prec != GAUSS_DOUBLE) hy_metric_str(ctx, "low", gauss_lname[g->o->low]);
  if (g->prec != GAUSS_DOUBLE && g->alg == GAUSS_BLOCKED)
    hy_metric_str(ctx, "pivoting", g->o->nopiv ? "none" : "partial");
  if (g->prec == GAUSS_MIXED && (g->mtype == GAUSS_HPLMXP || g->o->low != GAUSS_LOW_FP32)) {
    double n = (double)g->n;
    hy_metric_num(ctx, "hplmxp_gflops", gf);
    hy_metric_num(ctx, "lu_gflops", 2.0 / 3.0 * n * n * n / info->t_factor / 1e9);
  }
  if (info->perturb != 0) hy_metric_num(ctx, "debug_perturb", info->perturb);
  if (info->alg == &gauss_small_alg && g->small_tm.runs > 0) {
    double m[3];
    gauss_small_means(g, info, m);
    hy_metric_num(ctx, "small_getrf_ms", m[0] * 1e3);
    hy_metric_num(ctx, "small_solve_ms", m[1] * 1e3);
    hy_metric_num(ctx, "small_outside_ms", m[2] * 1e3);
  }
  if (g->tr.done && g->alg == GAUSS_BLOCKED) {
    static const char *const tn[GAUSS_TR_PARTS] = { "trace_first_panel_ms", "trace_swaps_ms",
      "trace_trsm_ms", "trace_low_copies_ms", "trace_lookahead_gemm_ms", "trace_gemm_ms",
      "trace_wait_panel_ms" };
    hy_metric_num(ctx, "trace_factor_ms", g->tr.factor * 1e3);
    for (int i = 0; i < GAUSS_TR_PARTS; i++) hy_metric_num(ctx, tn[i], g->tr.part[i] * 1e3);
    hy_metric_num(ctx, "trace_side_panels_ms", g->tr.panels * 1e3);
    if (g->tr.chunks > 1) hy_metric_num(ctx, "trace_aux_ms", g->tr.aux * 1e3);
  }
  if (info->alg == &gauss_blocked_alg) {
    hy_metric_num(ctx, "update_chunks", g->chunks);
    hy_metric_str(ctx, "update_priority", g->o->update_same ? "same" : "high");
    hy_metric_str(ctx, "side_priority", g->o->side_same ? "same" : "high");
    hy_metric_str(ctx, "panel_sync", g->o->panel_sync_grid ? "grid" : "flags");
    hy_metric_str(ctx, "panel_kernel", g->o->panel_kernel == 1 ? "shared" : g->o->panel_kernel == 2 ? "registers" : "auto");
  }
}

/* The report stage (see gauss.h).  Collective ([output] files: an agreed outcome). */
int gauss_report(gauss_t *g, const gauss_info *info, const double *x, gauss_line *line) {
  hy_ctx *ctx = g->ctx;
  double n = (double)g->n, thr = g->o->threshold;
  double gf = (2.0 / 3.0 * n * n * n + 1.5 * n * n) / info->t / 1e9;
  /* T/V: algorithm (Naive, Stepwise, Blocked), precision (Double, Single, Mixed), device
   * (G, H), F when the mixed run fell back to FP64 (README, gauss) */
  memset(line, 0, sizeof *line);
  snprintf(line->tv, sizeof line->tv, "%c%c%c%s", "NSB"[g->alg], "DSM"[g->prec], g->ko->tv,
           info->fellback ? "F" : "");
  line->n = g->n;
  line->nb = g->alg == GAUSS_BLOCKED ? g->nb : 1;
  line->P = g->P;
  line->Q = g->Q;
  line->t = info->t;
  line->t_factor = info->t_factor;
  line->gflops = gf;
  line->scaled = info->scaled;
  line->ok = info->ok;
  gauss_report_hpl(g, info, gf, line->tv);
  gauss_report_small(g, info);
  if (g->o->compare) gauss_report_compare(g, info);
  HY_CALL(gauss_outputs(g, x));
  if (g->o->sweep) return info->ok ? HY_OK : HY_EVALID;   /* the record: gauss_report_sweep */
  gauss_report_metrics(g, info, gf);
  hy_validation(ctx, "HPL scaled residual", info->scaled, thr, info->ok);
  hy_verdict(ctx, "gauss %s %s n=%lld: HPL scaled residual %.4g %s %g", info->alg->name,
             gauss_pname[g->prec], (long long)g->n, info->scaled, info->ok ? "<" : ">=", thr);
  return info->ok ? HY_OK : HY_EVALID;
}

/* The sweep's summary (see gauss.h): HPL's table with every combination's line followed by its
 * residual verdict, HPL's closing count, the record's "sweep" list (one object per line; a
 * non-finite scaled residual is written as -1, never passed) and counts, the validation on
 * the worst scaled residual and the verdict.  Local. */
int gauss_report_sweep(hy_ctx *ctx, const gauss_opts *o, const gauss_line *lines, int k) {
  int passed = 0;
  double worst = 0;
  hy_printf0(ctx, "sweep: %d combination(s) of gauss.grid (%d) x n (%d) x nb (%d), in that order\n"
             "================================================================================\n"
             "T/V                N    NB     P     Q               Time                 Gflops\n",
             k, o->grid_count, o->n_count, o->nb_count);
  char *js = NULL;
  size_t jl = 0;
  FILE *m = ctx->rank == 0 ? open_memstream(&js, &jl) : NULL;
  if (m) fputc('[', m);
  for (int i = 0; i < k; i++) {
    const gauss_line *l = &lines[i];
    passed += l->ok;
    if (!(l->scaled <= worst)) worst = l->scaled;
    hy_printf0(ctx, "--------------------------------------------------------------------------------\n"
               "%-10s %9lld %5lld %5d %5d %18.6f %22.4e\n"
               "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N) = %.7f ...... %s\n", l->tv,
               (long long)l->n, (long long)l->nb, l->P, l->Q, l->t, l->gflops, l->scaled,
               l->ok ? "PASSED" : "FAILED");
    if (m)
      fprintf(m, "%s{\"tv\": \"%s\", \"n\": %lld, \"nb\": %lld, \"P\": %d, \"Q\": %d, "
              "\"time_seconds\": %.9g, \"factor_seconds\": %.9g, \"gflops\": %.9g, "
              "\"scaled_residual\": %.9g, \"passed\": %s}", i ? ", " : "", l->tv, (long long)l->n,
              (long long)l->nb, l->P, l->Q, l->t, l->t_factor, l->gflops,
              isfinite(l->scaled) ? l->scaled : -1, l->ok ? "true" : "false");
  }
  hy_printf0(ctx, "================================================================================\n"
             "Finished %6d tests with the following results:\n"
             "         %6d tests completed and passed residual checks,\n"
             "         %6d tests completed and failed residual checks,\n"
             "         %6d tests skipped because of illegal input values.\n", k, passed, k - passed, 0);
  if (m) {
    fputc(']', m);
    fclose(m);
    hy_metric_json(ctx, "sweep", js);
    free(js);
  }
  hy_metric_int(ctx, "sweep_tests", k);
  hy_metric_int(ctx, "sweep_passed", passed);
  hy_metric_int(ctx, "sweep_failed", k - passed);
  hy_metric_str(ctx, "precision", gauss_pname[o->prec]);
  int ok = passed == k && k > 0;
  hy_validation(ctx, "HPL scaled residual (worst line of the sweep)", worst, o->threshold, ok);
  hy_verdict(ctx, "gauss sweep %s: %d of %d line(s) passed, worst HPL scaled residual %.4g %s %g",
             gauss_pname[o->prec], passed, k, worst, ok ? "<" : ">=", o->threshold);
  return ok ? HY_OK : HY_EVALID;
}
