/* conv_solve.c - the passes of the conv workload on this rank's tile: upload, then per pass
 * the north/south halo started, the interior (pixels at least r from the tile's edges, which
 * need no halo) computed while it travels, the halo finished, the four edge strips computed,
 * output and input swapped; the result downloaded.  Variants that compute only whole tiles
 * (fft, vendor on the GPU) run after the halo.  Device time is submission to completion
 * (upload, passes, halo, download); kernel time the filter kernels alone. */
#include "conv.h"

#include <string.h>

/* The interior and the four edge strips of a th x tw tile with halo r.  Local. */
static void conv_parts(const k_conv_geom *g, k_conv_rect part[5]) {
  int r = g->r, th = g->th, tw = g->tw;
  int ya = r < th ? r : th, yb = th - r > ya ? th - r : ya;   /* rows [ya, yb) are interior */
  int xa = r < tw ? r : tw, xb = tw - r > xa ? tw - r : xa;
  part[0] = (k_conv_rect){ ya, yb, xa, xb };      /* interior */
  part[1] = (k_conv_rect){ 0, ya, 0, tw };        /* north strip */
  part[2] = (k_conv_rect){ yb, th, 0, tw };       /* south strip */
  part[3] = (k_conv_rect){ ya, yb, 0, xa };       /* west strip */
  part[4] = (k_conv_rect){ ya, yb, xb, tw };      /* east strip */
}

/* One pass.  Collective over the grid. */
static int conv_pass(conv_halo *h, const k_conv_ops *ops, const k_conv_variant *var, k_conv_plan *p,
                     const k_conv_geom *g, double *halo_s) {
  k_conv_rect part[5], whole = { 0, g->th, 0, g->tw };
  conv_parts(g, part);
  HY_LOCAL(conv_halo_begin(h, ops, p));
  if (var->any_rect) HY_LOCAL(var->run(p, &part[0]));
  HY_LOCAL(conv_halo_end(h, ops, p, halo_s));
  if (var->any_rect)
    for (int k = 1; k < 5; k++) HY_LOCAL(var->run(p, &part[k]));
  else
    HY_LOCAL(var->run(p, &whole));
  HY_LOCAL(ops->swap(p));
  return HY_OK;
}

/* `passes` passes of variant v (see conv.h).  Collective over the grid. */
int conv_solve(hy_ctx *ctx, const conv_opts *o, const conv_grid *gr, const conv_filter *f, int v,
               const void *tile, void *out_tile, conv_run *run) {
  const k_conv_ops *ops = k_conv_ops_get(&ctx->be);
  const k_conv_variant *var = &ops->v[v];
  const k_conv_geom *g = &gr->g;
  memset(run, 0, sizeof *run);
  run->variant = v;
  k_conv_plan *p = NULL;
  conv_halo *h = NULL;
  int rc = ops->plan_create(&ctx->be, g, v, f->w, f->separable ? f->w1 : NULL, &p);
  if (rc == HY_OK) rc = conv_halo_create(&ctx->be, gr, o->boundary, &h);
  rc = hy_agree(ctx->comm, rc);
  if (rc != HY_OK) {   /* some rank could not set up: free what this one made, every rank returns */
    conv_halo_free(h);
    if (p) ops->plan_destroy(p);
    return rc;
  }
  HY_MPI(MPI_Barrier(gr->cart));
  double t0 = hy_wtime(), kernel_s = 0, halo_s = 0;
  HY_LOCAL(ops->put(p, tile, (int64_t)g->tw * g->C));
  for (int pass = 0; pass < o->passes; pass++) {
    HY_CALL(conv_pass(h, ops, var, p, g, &halo_s));
    hy_debug_point(ctx, "solve");
  }
  HY_LOCAL(ops->get(p, out_tile, (int64_t)g->tw * g->C));
  HY_LOCAL(ops->finish(p, &kernel_s));
  double t[3] = { hy_wtime() - t0, kernel_s, halo_s }, tmax[3];
  HY_MPI(MPI_Allreduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, ctx->comm));
  run->device_s = tmax[0];
  run->kernel_s = tmax[1];
  run->halo_s = tmax[2];
  conv_halo_free(h);
  ops->plan_destroy(p);
  return HY_OK;
}
