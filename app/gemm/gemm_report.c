/* gemm_report.c - every line the gemm workload prints, its metrics and the verdict, from the
 * gemm_info the stages filled.  GPU figures (vendor rate, floor, targets) print only where the
 * backend's table says its rates mean something (device_figures). */
#include "gemm/gemm.h"

#include <math.h>
#include <stdio.h>

static const char *const gemm_prec_names[K_GEMM_NPREC] = { "float", "double", "tf32", "bf16", "fp16" };
static const char *const gemm_kernel_names[K_GEMM_NKERNELS] = { "naive", "tiled", "vendor" };

/* The problem, the grid, the times and rates.  Local (rank 0 prints). */
static void gemm_report_run(gemm_t *g, const gemm_info *in, double flops) {
  hy_ctx *ctx = g->ctx;
  const gemm_opts *o = g->o;
  char tile[64] = "";
  if (o->kernel == K_GEMM_TILED) snprintf(tile, sizeof tile, " (tile %d)", o->tile);
  if (o->kernel == K_GEMM_VENDOR) snprintf(tile, sizeof tile, " (%s)", g->ko->vendor_name);
  hy_printf0(ctx, "gemm: C = alpha A B + beta C, m x n x k = %lld x %lld x %lld, precision %s, "
             "kernel %s%s, alpha %g, beta %g, %s inputs\n", (long long)g->m, (long long)g->n,
             (long long)g->k, gemm_prec_names[o->prec], gemm_kernel_names[o->kernel], tile, o->alpha, o->beta,
             o->source == GEMM_FILE ? "file" : "random");
  char how[256];
  if (ctx->size == 1) snprintf(how, sizeof how, "none (1 rank)");
  else if (in->bcast_dev) snprintf(how, sizeof how, "%s (device buffers, side stream overlapping the GEMM)", in->bcast);
  else snprintf(how, sizeof how, "mpi (%s): %s", in->bcast_path, in->bcast_why);
  hy_printf0(ctx, "gemm: grid %dx%d, nb %lld, %lld SUMMA step(s), panel broadcasts: %s; host "
             "time in broadcasts %.3f ms\n", g->P, g->Q, (long long)o->nb, (long long)in->steps,
             how, in->t_bcast_wait * 1e3);
  hy_printf0(ctx, "gemm: device time %.3f ms (upload %.3f, summa %.3f, download %.3f; transfers "
             "included), kernel time %.3f ms (slowest rank)\n", in->t_device * 1e3,
             in->t_upload * 1e3, in->t_summa * 1e3, in->t_download * 1e3, in->t_kernel * 1e3);
  hy_printf0(ctx, "gemm: rate %.3f GFLOP/s by kernel time, %.3f GFLOP/s by device time (2 m n k = "
             "%.4g flop)\n", flops / in->t_kernel / 1e9, flops / in->t_device / 1e9, flops);
  hy_metric_int(ctx, "m", g->m);
  hy_metric_int(ctx, "n", g->n);
  hy_metric_int(ctx, "k", g->k);
  hy_metric_int(ctx, "nb", o->nb);
  hy_metric_int(ctx, "P", g->P);
  hy_metric_int(ctx, "Q", g->Q);
  hy_metric_str(ctx, "precision", gemm_prec_names[o->prec]);
  hy_metric_str(ctx, "kernel", gemm_kernel_names[o->kernel]);
  hy_metric_int(ctx, "tile", o->tile);
  hy_metric_int(ctx, "steps", in->steps);
  hy_metric_str(ctx, "bcast", ctx->size == 1 ? "none" : in->bcast);
  hy_metric_num(ctx, "upload_seconds", in->t_upload);
  hy_metric_num(ctx, "summa_seconds", in->t_summa);
  hy_metric_num(ctx, "download_seconds", in->t_download);
  hy_metric_num(ctx, "device_seconds", in->t_device);
  hy_metric_num(ctx, "kernel_seconds", in->t_kernel);
  hy_metric_num(ctx, "bcast_wait_seconds", in->t_bcast_wait);
  hy_metric_num(ctx, "gflops_kernel", flops / in->t_kernel / 1e9);
  hy_metric_num(ctx, "gflops_device", flops / in->t_device / 1e9);
}

/* The variants alone, the vendor's figure, the floor and the targets.  Local (rank 0 prints). */
static void gemm_report_compare(gemm_t *g, const gemm_info *in, double flops) {
  hy_ctx *ctx = g->ctx;
  const gemm_opts *o = g->o;
  static const char *const mnames[K_GEMM_NKERNELS] = { "naive_seconds", "tiled_seconds", "vendor_seconds" };
  for (int v = 0; v < K_GEMM_NKERNELS; v++) {
    if (in->k_sec[v] < 0) continue;
    hy_printf0(ctx, "gemm: alone on %lld x %lld x %lld: %s%s%s kernel time %.3f ms, %.3f GFLOP/s\n",
               (long long)g->m, (long long)g->n, (long long)g->k, gemm_kernel_names[v],
               v == K_GEMM_VENDOR ? " " : "", v == K_GEMM_VENDOR ? g->ko->vendor_name : "",
               in->k_sec[v] * 1e3, flops / in->k_sec[v] / 1e9);
    hy_metric_num(ctx, mnames[v], in->k_sec[v]);
  }
  if (in->k_sec[K_GEMM_NAIVE] > 0 && in->k_sec[K_GEMM_TILED] > 0) {
    double f = in->k_sec[K_GEMM_TILED] / in->k_sec[K_GEMM_NAIVE];
    hy_printf0(ctx, "gemm: tiled takes %.1f%% of naive's kernel time (saves %.1f%%; the seed claims ~50%%)\n",
               100 * f, 100 * (1 - f));
    hy_metric_num(ctx, "tiled_over_naive", f);
  }
  double tv = in->k_sec[K_GEMM_VENDOR];
  if (!g->ko->device_figures || tv <= 0) return;
  double rate = flops / tv, floor_s = flops / rate / ctx->size;
  hy_printf0(ctx, "gemm: vendor (%s) rate in this run %.2f TFLOP/s (%s); floor of this run at that "
             "rate %.3f ms per rank; kernel time / floor = %.2f\n", g->ko->vendor_name, rate / 1e12,
             gemm_prec_names[o->prec], floor_s * 1e3, in->t_kernel / floor_s);
  hy_metric_num(ctx, "vendor_tflops", rate / 1e12);
  hy_metric_num(ctx, "floor_seconds", floor_s);
  if (in->k_sec[K_GEMM_TILED] > 0)
    hy_printf0(ctx, "gemm: target: tiled >= 0.5 x vendor: %.3f x (vendor / tiled kernel time)\n",
               tv / in->k_sec[K_GEMM_TILED]);
  if (o->kernel == K_GEMM_VENDOR && ctx->size == 1)
    hy_printf0(ctx, "gemm: target: vendor through the SUMMA driver >= 0.95 x vendor alone: %.3f x "
               "(vendor alone / summa time)\n", tv / in->t_summa);
  if (o->prec == K_GEMM_BF16 || o->prec == K_GEMM_FP16)
    hy_printf0(ctx, "gemm: target: %s tensor cores >= 0.8 x 790 TFLOP/s (dense BF16 measured on the "
               "H200): %.1f TFLOP/s by kernel time = %.3f x\n", gemm_prec_names[o->prec],
               flops / in->t_kernel / 1e12, flops / in->t_kernel / 790e12);
}

/* Stage report.  Collective (nothing to reduce: the stages agreed their figures).  Returns
 * HY_OK when the check passed, else HY_EVALID. */
int gemm_report(gemm_t *g, const gemm_info *in) {
  hy_ctx *ctx = g->ctx;
  const gemm_opts *o = g->o;
  double flops = 2.0 * (double)g->m * (double)g->n * (double)g->k;
  gemm_report_run(g, in, flops);
  gemm_report_compare(g, in, flops);
  char full[128];
  if (in->full >= 0) snprintf(full, sizeof full, "full product vs host BLAS ratio %.3e", in->full);
  else snprintf(full, sizeof full, "full product skipped (m n k > gemm.full_check_max)");
  hy_printf0(ctx, "gemm: check: Freivalds (2 vectors) ratio %.3e, %s (pass: <= %g); ||C||_F = %.6e\n",
             in->freivalds, full, o->threshold, in->cnorm);
  hy_metric_num(ctx, "freivalds_ratio", in->freivalds);
  hy_metric_num(ctx, "full_ratio", in->full);
  hy_metric_num(ctx, "c_norm_fro", in->cnorm);
  double deciding = in->full > in->freivalds || isnan(in->full) ? in->full : in->freivalds;
  hy_validation(ctx, in->full >= 0 ? "gemm error ratio (max of Freivalds and full product)"
                : "gemm Freivalds error ratio", deciding, o->threshold, in->passed);
  if (!in->passed) {
    hy_verdict(ctx, "gemm: error ratio %.3e > %g (Freivalds %.3e, %s), %lld x %lld x %lld %s %s",
               deciding, o->threshold, in->freivalds, full, (long long)g->m, (long long)g->n,
               (long long)g->k, gemm_prec_names[o->prec], gemm_kernel_names[o->kernel]);
    return HY_EVALID;
  }
  hy_verdict(ctx, "gemm: error ratio %.3e <= %g (Freivalds%s), %lld x %lld x %lld %s %s, %d rank(s)",
             deciding, o->threshold, in->full >= 0 ? " and full product" : "", (long long)g->m,
             (long long)g->n, (long long)g->k, gemm_prec_names[o->prec],
             gemm_kernel_names[o->kernel], ctx->size);
  return HY_OK;
}
