/* gemm_summa.c - stage summa: upload A, B, C0; C = alpha A B + beta C0 by SUMMA; download C.
 *
 * Step s covers the k-range [k0, k0 + w) of one block column of A / block row of B (w = nb;
 * on a 1x1 grid with gemm.whole_k the whole of k in one step).  The process column owning A's
 * block column broadcasts its panel (m_loc x w) along each process row, the process row owning
 * B's block row broadcasts its panel (w x n_loc) down each process column; every rank then adds
 * A_panel B_panel to its C block.  The broadcasts of step s + 1 are posted before the local GEMM
 * of step s and finished after it (they overlap the GEMM).  "Device time" runs from the first
 * upload to the end of the download of C (transfers included), "kernel time" is the local GEMMs
 * alone (cudaEvent-timed on a GPU). */
#include "gemm/gemm.h"

#include <stdlib.h>
#include <string.h>

/* Largest time over the ranks.  Collective. */
static int gemm_tmax(hy_ctx *ctx, double *t, int n) {
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, t, n, MPI_DOUBLE, MPI_MAX, ctx->comm));
  return HY_OK;
}

/* Host -> device copies of this rank's blocks.  Local (aborts on failure). */
static void gemm_upload(gemm_t *g) {
  const k_ops *op = g->be->ops;
  size_t cb = k_gemm_c_bytes(g->o->prec);
  HY_LOCAL(op->h2d(g->be, g->A.d, g->A.hs, (size_t)(g->A.ld * g->A.cols) * g->ein));
  HY_LOCAL(op->h2d(g->be, g->B.d, g->B.hs, (size_t)(g->B.ld * g->B.cols) * g->ein));
  HY_LOCAL(op->h2d(g->be, g->C.d, g->C.hs, (size_t)(g->C.ld * g->C.cols) * cb));
  HY_LOCAL(op->sync(g->be));
}

/* Device -> host copy of C, then C's FP64 host copy.  Local (aborts on failure). */
static void gemm_download(gemm_t *g) {
  size_t cnt = (size_t)(g->C.ld * g->C.cols);
  HY_LOCAL(g->be->ops->d2h(g->be, g->C.hs, g->C.d, cnt * k_gemm_c_bytes(g->o->prec)));
  HY_LOCAL(g->be->ops->sync(g->be));
  if (g->o->prec == K_GEMM_DOUBLE) {
    memcpy(g->C.h, g->C.hs, cnt * sizeof(double));
  } else {
    const float *f = g->C.hs;
    for (size_t i = 0; i < cnt; i++) g->C.h[i] = f[i];
  }
}

/* The SUMMA loop.  Collective. */
static int gemm_steps(gemm_t *g, gemm_info *info) {
  const gemm_opts *o = g->o;
  int whole = o->whole_k && g->P == 1 && g->Q == 1;
  int64_t w0 = whole ? g->k : o->nb, steps = (g->k + w0 - 1) / w0;
  gemm_bc bc;
  memset(&bc, 0, sizeof bc);
  HY_CALL(gemm_bc_open(g, &bc, w0));
  info->bcast = bc.t->name;
  info->steps = steps;
  HY_CALL(bc.t->post(g, &bc, 0, 0, g->k < w0 ? g->k : w0));
  for (int64_t s = 0; s < steps; s++) {
    int64_t k0 = s * w0, w = g->k - k0 < w0 ? g->k - k0 : w0;
    const void *a, *b;
    int64_t lda, ldb;
    HY_CALL(bc.t->wait(g, &bc, s, k0, w, &a, &lda, &b, &ldb));
    if (s + 1 < steps) {
      int64_t k1 = k0 + w0;
      HY_CALL(bc.t->post(g, &bc, s + 1, k1, g->k - k1 < w0 ? g->k - k1 : w0));
    }
    if (s == steps / 2) hy_debug_point(g->ctx, "summa");
    if (g->C.rows > 0 && g->C.cols > 0)
      HY_LOCAL(g->kern(g->be, g->ws, o->prec, g->C.rows, g->C.cols, w, o->alpha, a, lda, b, ldb,
                       s == 0 ? o->beta : 1.0, g->C.d, g->C.ld));
  }
  info->t_bcast_wait = bc.t_wait;
  bc.t->close(g, &bc);
  return HY_OK;
}

/* Stage summa (phases upload, summa, download).  Collective. */
int gemm_summa(gemm_t *g, gemm_info *info) {
  hy_ctx *ctx = g->ctx;
  double ksec = 0;
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  hy_phase_begin(ctx, "upload");
  gemm_upload(g);
  hy_phase_end(ctx, "upload");
  double t1 = hy_wtime();
  HY_LOCAL(g->ko->ktime(g->be, g->ws, 1, &ksec));
  hy_phase_begin(ctx, "summa");
  HY_CALL(gemm_steps(g, info));
  HY_LOCAL(g->be->ops->sync(g->be));
  hy_phase_end(ctx, "summa");
  double t2 = hy_wtime();
  HY_LOCAL(g->ko->ktime(g->be, g->ws, 1, &ksec));
  hy_phase_begin(ctx, "download");
  gemm_download(g);
  hy_phase_end(ctx, "download");
  double t3 = hy_wtime();
  double t[6] = { t1 - t0, t2 - t1, t3 - t2, t3 - t0, ksec, info->t_bcast_wait };
  HY_CALL(gemm_tmax(ctx, t, 6));
  info->t_upload = t[0];
  info->t_summa = t[1];
  info->t_download = t[2];
  info->t_device = t[3];
  info->t_kernel = t[4];
  info->t_bcast_wait = t[5];
  return HY_OK;
}
