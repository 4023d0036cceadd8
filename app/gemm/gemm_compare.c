/* gemm_compare.c - stage compare: the kernel variants timed alone on the m x n x k problem in
 * the same run (gemm.compare, one rank: the seed's table columns naive / tiled / vendor), and on
 * a device backend the vendor's figure that the floors and targets are measured against. */
#include "gemm/gemm.h"

/* Time variant v alone on rank 0's device; a failure (e.g. no memory for a second copy of the
 * problem) is reported and leaves the figure out.  Collective (agreed). */
static int gemm_time_variant(gemm_t *g, int v, gemm_info *info) {
  hy_ctx *ctx = g->ctx;
  int rc = HY_OK;
  double sec = -1;
  if (ctx->rank == 0)
    rc = g->ko->bench(g->be, g->ws, g->o->prec, v, g->m, g->n, g->k, g->o->reps, &sec);
  rc = hy_agree(ctx->comm, rc);
  if (rc != HY_OK) {
    hy_printf0(ctx, "gemm: %s alone not measured: %s\n", v == K_GEMM_NAIVE ? "naive" :
               v == K_GEMM_TILED ? "tiled" : "vendor", hy_err_msg());
    hy_err_clear();
    return HY_OK;
  }
  info->k_sec[v] = sec;
  return HY_OK;
}

/* Stage compare.  Collective. */
int gemm_compare(gemm_t *g, gemm_info *info) {
  if (g->o->compare) {
    for (int v = 0; v < K_GEMM_NKERNELS; v++) HY_CALL(gemm_time_variant(g, v, info));
  } else if (g->ko->device_figures) {
    HY_CALL(gemm_time_variant(g, K_GEMM_VENDOR, info));
  }
  return HY_OK;
}
