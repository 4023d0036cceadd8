/* conv_report.c - every line the conv workload prints, its metrics and the verdict, from a
 * conv_info.  The seed's two times per variant: device time (submission to completion, the
 * upload, halo exchanges and download included) and kernel time (the filter kernels alone:
 * cudaEvents on the GPU, the compute's wall time on the host); the rate; on a backend with a
 * memory floor (the GPU: read + write once at 4.25 TB/s) the floor and the vendor's figure. */
#include "conv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const conv_boundary_names[] = { "renormalise", "zero", "clamp", "reflect" };

/* The set-up lines (image, filter, grid).  Collective (rank 0 prints). */
void conv_report_setup(hy_ctx *ctx, const conv_info *in) {
  const conv_opts *o = in->o;
  const conv_grid *gr = in->grid;
  hy_printf0(ctx, "conv: image %d x %d x %d (%s), %s; kernel %s; boundary %s; %d pass(es)\n", in->W, in->H,
             in->C, o->generate ? "generated" : o->file, o->fp64 ? "double" : "float", in->f->desc,
             conv_boundary_names[o->boundary], o->passes);
  hy_printf0(ctx, "conv: grid %dx%d (MPI_Cart_create), tiles of %d..%d x %d..%d pixels, halo %d, "
             "algorithm %s on %s\n", gr->P, gr->Q, in->H / gr->P, (in->H + gr->P - 1) / gr->P,
             in->W / gr->Q, (in->W + gr->Q - 1) / gr->Q, in->f->r, conv_variant_names[o->algorithm], in->backend);
  if (gr->P * gr->Q > 1) hy_printf0(ctx, "conv: halo: %s\n", gr->xdesc);
  hy_metric_str(ctx, "halo_transport", gr->xc ? hy_bcast_name(gr->xc) : "none");
  hy_metric_int(ctx, "width", in->W);
  hy_metric_int(ctx, "height", in->H);
  hy_metric_int(ctx, "channels", in->C);
  hy_metric_int(ctx, "ksize", in->f->ks);
  hy_metric_int(ctx, "passes", o->passes);
  hy_metric_int(ctx, "grid_P", gr->P);
  hy_metric_int(ctx, "grid_Q", gr->Q);
  hy_metric_str(ctx, "algorithm", conv_variant_names[o->algorithm]);
  hy_metric_str(ctx, "kernel", in->f->desc);
}

/* One variant's line and metrics.  Collective (rank 0 prints). */
static void conv_report_run(hy_ctx *ctx, const conv_info *in, const conv_run *r, double floor_bw) {
  const char *name = conv_variant_names[r->variant];
  double es = in->o->fp64 ? 8 : 4, px = (double)in->H * in->W * in->o->passes;
  double bytes = 2 * px * in->C * es;   /* read + write once per pass */
  hy_printf0(ctx, "conv: %-9s device time %10.3f ms, kernel time %10.3f ms (halo %.3f ms), %9.1f Mpixel/s, "
             "%8.2f GB/s effective; check: max error %.3e (<= %.3e)%s\n", name, r->device_s * 1e3,
             r->kernel_s * 1e3, r->halo_s * 1e3, px / r->kernel_s / 1e6, bytes / r->kernel_s / 1e9, r->max_err,
             r->ulp_bound, r->passed ? "" : "  FAILED");
  char key[64];
  snprintf(key, sizeof key, "%s_device_s", name);
  hy_metric_num(ctx, key, r->device_s);
  snprintf(key, sizeof key, "%s_kernel_s", name);
  hy_metric_num(ctx, key, r->kernel_s);
  snprintf(key, sizeof key, "%s_halo_s", name);
  hy_metric_num(ctx, key, r->halo_s);
  snprintf(key, sizeof key, "%s_max_err", name);
  hy_metric_num(ctx, key, r->max_err);
  if (floor_bw > 0) {
    double fl = bytes / floor_bw;
    hy_printf0(ctx, "conv: %-9s kernel at %.2f x the memory floor (read + write once at %.2f TB/s: %.3f ms)\n",
               name, fl / r->kernel_s, floor_bw / 1e12, fl * 1e3);
    snprintf(key, sizeof key, "%s_floor_fraction", name);
    hy_metric_num(ctx, key, fl / r->kernel_s);
  }
}

/* Every figure and the verdict.  Collective (rank 0 prints). */
int conv_report(hy_ctx *ctx, const conv_info *in) {
  const k_conv_ops *ops = k_conv_ops_get(&ctx->be);
  const conv_run *main_run = &in->runs[0];
  hy_printf0(ctx, "conv: check against the host double reference on %s\n", in->samples_desc);
  int failed = -1;
  const conv_run *vendor = NULL, *best = NULL;
  for (int k = 0; k < in->nruns; k++) {
    const conv_run *r = &in->runs[k];
    conv_report_run(ctx, in, r, ops->floor_bw);
    if (!r->passed && failed < 0) failed = k;
    if (r->variant == K_CONV_VENDOR && in->vendor_name) vendor = r;
    else if (!best || r->kernel_s < best->kernel_s) best = r;
  }
  double es = in->o->fp64 ? 8 : 4, px = (double)in->H * in->W * in->o->passes;
  hy_metric_num(ctx, "device_s", main_run->device_s);
  hy_metric_num(ctx, "kernel_s", main_run->kernel_s);
  hy_metric_num(ctx, "halo_s", main_run->halo_s);
  hy_metric_num(ctx, "mpixel_per_s", px / main_run->kernel_s / 1e6);
  hy_metric_num(ctx, "gbps", 2 * px * in->C * es / main_run->kernel_s / 1e9);
  hy_metric_num(ctx, "max_err", main_run->max_err);
  hy_metric_num(ctx, "tolerance", main_run->ulp_bound);
  hy_metric_int(ctx, "checked_pixels", main_run->checked);
  if (ops->floor_bw > 0) hy_metric_num(ctx, "floor_s", 2 * px * in->C * es / ops->floor_bw);
  if (vendor && best) {
    hy_printf0(ctx, "conv: vendor %s kernel time %.3f ms; best of ours (%s) %.3f ms: %.2f x the vendor's speed\n",
               in->vendor_name, vendor->kernel_s * 1e3, conv_variant_names[best->variant], best->kernel_s * 1e3,
               vendor->kernel_s / best->kernel_s);
    hy_metric_num(ctx, "best_vs_vendor", vendor->kernel_s / best->kernel_s);
  }
  if (in->perturb != 0) hy_printf0(ctx, "conv: [debug] perturb = %g applied to the result before its check\n", in->perturb);
  const conv_run *dr = failed >= 0 ? &in->runs[failed] : main_run;
  hy_validation(ctx, "max |out - ref| / max (|K|^N |x|)", dr->max_err, dr->ulp_bound, failed < 0);
  if (failed >= 0) {
    hy_verdict(ctx, "conv: %s: max error %.3e > %.3e against the double reference (%s)",
               conv_variant_names[dr->variant], dr->max_err, dr->ulp_bound, in->samples_desc);
    return HY_EVALID;
  }
  hy_verdict(ctx, "conv: %s, %d x %d x %d, %d pass(es): max error %.3e <= %.3e (%s), %d rank(s)",
             conv_variant_names[main_run->variant], in->W, in->H, in->C, in->o->passes, main_run->max_err,
             main_run->ulp_bound, in->samples_desc, ctx->size);
  return HY_OK;
}
