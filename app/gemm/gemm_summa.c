/* gemm_summa.c - stage summa: upload A, B, C0; C = alpha A B + beta C0 by SUMMA; download C.
 *
 * Step s covers the k-range [k0, k0 + w) of w = gemm.panel (default nb) columns of A / rows of B,
 * one or more k-blocks (on a 1x1 grid with gemm.whole_k the whole of k in one step).  The process column owning A's
 * block column broadcasts its panel (m_loc x w) along each process row, the process row owning
 * B's block row broadcasts its panel (w x n_loc) down each process column; every rank then adds
 * A_panel B_panel to its C block.  The broadcasts of step s + 1 are posted before the local GEMM
 * of step s and finished after it (they overlap the GEMM).  "Device time" runs from the first
 * upload to the end of the download of C (transfers included), "kernel time" is the local GEMMs
 * alone (cudaEvent-timed on a GPU).  Before the timed region the receive buffers are allocated
 * and the local kernel is warmed up once per step shape (the table's warm, GPU only): a first
 * cuBLAS call of a shape costs ~75 ms of module loading and heuristics, which was inside the
 * one GEMM of a 1x1 grid (bf16 n = 16384: 86.6 ms timed vs 11.1 ms for the same GemmEx alone). */
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

/* Device -> host copy of C (into its pinned storage copy).  Local (aborts on failure). */
static void gemm_download(gemm_t *g) {
  size_t cnt = (size_t)(g->C.ld * g->C.cols);
  HY_LOCAL(g->be->ops->d2h(g->be, g->C.hs, g->C.d, cnt * k_gemm_c_bytes(g->o->prec)));
  HY_LOCAL(g->be->ops->sync(g->be));
}

/* C's FP64 host copy from the downloaded storage copy (for the check; not part of the seed's
 * device time: no transfer).  Local. */
static void gemm_c_fp64(gemm_t *g) {
  size_t cnt = (size_t)(g->C.ld * g->C.cols);
  if (g->o->prec == K_GEMM_DOUBLE) {
    memcpy(g->C.h, g->C.hs, cnt * sizeof(double));
  } else {
    const float *f = g->C.hs;
    for (size_t i = 0; i < cnt; i++) g->C.h[i] = f[i];
  }
}

/* The panels of a step of one k-block (k-range k0 .. k0 + w, block column / row kb = k0 / nb):
 * broadcast A's from process column kb % Q along the process rows and B's from process row
 * kb % P down the columns (into the receive buffers of step parity par); on return *a, *b point
 * at them (the owner's own blocks in place).  Collective on the process row and column. */
static int gemm_panel1(gemm_t *g, void *const rbuf[2][2], int par, int64_t k0, int64_t w,
                       const void **a, int64_t *lda, const void **b, int64_t *ldb) {
  int64_t nb = g->o->nb, kb = k0 / nb;
  int qk = (int)(kb % g->Q), pk = (int)(kb % g->P);
  void *pa = rbuf[0][par], *pb = rbuf[1][par];
  int64_t la = g->A.ld, lb = w;
  if (g->q == qk) pa = (char *)g->A.d + (size_t)((g->Q == 1 ? k0 : (kb / g->Q) * nb) * g->A.ld) * g->ein;
  if (g->p == pk) {
    pb = (char *)g->B.d + (size_t)(g->P == 1 ? k0 : (kb / g->P) * nb) * g->ein;
    lb = g->B.ld;
  }
  HY_LOCAL(hy_bcast_2d(g->bc, HY_ROW, g->ein, g->A.rows, w, pa, la, qk));
  HY_LOCAL(hy_bcast_2d(g->bc, HY_COL, g->ein, w, g->B.cols, pb, lb, pk));
  *a = pa;
  *lda = la;
  *b = pb;
  *ldb = lb;
  return HY_OK;
}

/* The panels of step s (k-range k0 .. k0 + w, of one or more k-blocks: gemm.panel): one
 * k-block as gemm_panel1; several gathered side by side into the receive buffers of step
 * parity par, each k-block broadcast from its owner (which also copies it in), where one
 * process column (row) holds all of k the A (B) panel taken in place.  Collective on the
 * process row and column. */
static int gemm_panels(gemm_t *g, void *const rbuf[2][2], int64_t s, int64_t k0, int64_t w,
                       const void **a, int64_t *lda, const void **b, int64_t *ldb) {
  int64_t nb = g->o->nb, b0 = k0 / nb, b1 = (k0 + w + nb - 1) / nb;
  int par = (int)(s & 1);
  if (b1 - b0 == 1) return gemm_panel1(g, rbuf, par, k0, w, a, lda, b, ldb);
  char *pa = g->Q == 1 ? (char *)g->A.d + (size_t)(k0 * g->A.ld) * g->ein : (char *)rbuf[0][par];
  char *pb = g->P == 1 ? (char *)g->B.d + (size_t)k0 * g->ein : (char *)rbuf[1][par];
  int64_t lb = g->P == 1 ? g->B.ld : w;
  for (int64_t kb = b0; kb < b1; kb++) {
    int64_t off = kb * nb - k0, wb = k0 + w - kb * nb < nb ? k0 + w - kb * nb : nb;
    if (g->Q > 1) {
      int qk = (int)(kb % g->Q);
      char *dst = pa + (size_t)(off * g->A.ld) * g->ein;
      char *own = (char *)g->A.d + (size_t)((kb / g->Q) * nb * g->A.ld) * g->ein;
      if (g->q == qk) HY_LOCAL(g->ko->copy2d(g->be, dst, g->A.ld, own, g->A.ld, g->A.rows, wb, g->ein));
      HY_LOCAL(hy_bcast_2d(g->bc, HY_ROW, g->ein, g->A.rows, wb, g->q == qk ? own : dst, g->A.ld, qk));
    }
    if (g->P > 1) {
      int pk = (int)(kb % g->P);
      char *dst = pb + (size_t)off * g->ein;
      char *own = (char *)g->B.d + (size_t)((kb / g->P) * nb) * g->ein;
      if (g->p == pk) HY_LOCAL(g->ko->copy2d(g->be, dst, w, own, g->B.ld, wb, g->B.cols, g->ein));
      HY_LOCAL(hy_bcast_2d(g->bc, HY_COL, g->ein, wb, g->B.cols, g->p == pk ? own : dst,
                           g->p == pk ? g->B.ld : w, pk));
    }
  }
  *a = pa;
  *lda = g->A.ld;
  *b = pb;
  *ldb = lb;
  return HY_OK;
}

/* Width of every SUMMA step but a shorter last one: all of k on a 1x1 grid with gemm.whole_k,
 * else gemm.panel (nb by default).  Local. */
static int64_t gemm_width(const gemm_t *g) {
  return g->o->whole_k && g->P == 1 && g->Q == 1 ? g->k : g->o->panel;
}

/* The panels' receive buffers [A / B][step parity], where panels travel (Q > 1 for A, P > 1
 * for B; NULL elsewhere), and the transport's reservations.  Local (aborts on failure). */
static void gemm_rbufs(gemm_t *g, int64_t w0, void *rbuf[2][2]) {
  size_t bytes[2] = { (size_t)(g->A.rows * w0) * g->ein, (size_t)(w0 * g->B.cols) * g->ein };
  for (int x = 0; x < 2; x++)
    for (int par = 0; par < 2; par++) {
      rbuf[x][par] = NULL;
      if ((x ? g->P : g->Q) > 1) HY_LOCAL(g->be->ops->alloc(g->be, &rbuf[x][par], bytes[x] + 8));
    }
  HY_LOCAL(hy_bcast_reserve(g->bc, HY_ROW, bytes[0], bytes[0]));
  HY_LOCAL(hy_bcast_reserve(g->bc, HY_COL, bytes[1], bytes[1]));
}

/* Warm-up (the table's warm, where it has one): the local kernel once on each shape the steps
 * use (step 0 with beta, step 1 and the last with 1; a shorter last step), on operands valid
 * for that shape (A's / B's own block where one process column / row holds all of k, else the
 * receive buffers), so that a first call's costs (module loading, the vendor's heuristics)
 * stay outside the timed region.  Before the upload: C's device copy is overwritten.  Local
 * (aborts on failure). */
static void gemm_warm(gemm_t *g, int64_t w0, void *const rbuf[2][2]) {
  if (!g->ko->warm || g->C.rows <= 0 || g->C.cols <= 0) return;
  int64_t steps = (g->k + w0 - 1) / w0, last = steps - 1, done = -1;
  int64_t pick[3] = { 0, steps > 1 ? 1 : 0, last };
  for (int i = 0; i < 3; i++) {
    int64_t s = pick[i];
    if (s <= done) continue;
    done = s;
    int64_t w = s == last ? g->k - last * w0 : w0;
    const void *a = g->Q == 1 ? g->A.d : rbuf[0][0], *b = g->P == 1 ? g->B.d : rbuf[1][0];
    HY_LOCAL(g->ko->warm(g->be, g->ws, g->o->prec, g->o->kernel, g->C.rows, g->C.cols, w,
                         s == 0 ? g->o->beta : 1.0, a, g->A.ld, b, g->P == 1 ? g->B.ld : w,
                         g->C.d, g->C.ld));
  }
}

/* The SUMMA loop over steps of width w0 (panels received into rbuf): step s + 1's broadcasts
 * are queued on the side stream (ko->stream_ctl) after step s's GEMM is queued on the main one,
 * so they overlap it (device collectives: on the GPU; MPI: the host sends while the GPU
 * computes).  Collective. */
static int gemm_steps(gemm_t *g, gemm_info *info, int64_t w0, void *const rbuf[2][2]) {
  const gemm_opts *o = g->o;
  const k_gemm_ops *ko = g->ko;
  int multi = g->ctx->size > 1;
  int64_t steps = (g->k + w0 - 1) / w0;
  info->steps = steps;
  const void *a, *b, *na = NULL, *nbp = NULL;
  int64_t lda, ldb, nlda = 0, nldb = 0;
  HY_CALL(gemm_panels(g, rbuf, 0, 0, g->k < w0 ? g->k : w0, &a, &lda, &b, &ldb));
  double tw = 0;
  for (int64_t s = 0; s < steps; s++) {
    int64_t k0 = s * w0, w = g->k - k0 < w0 ? g->k - k0 : w0;
    if (multi) HY_LOCAL(ko->stream_ctl(g->be, g->ws, 0));   /* GEMM s - 1 and panels s queued */
    if (s == steps / 2) hy_debug_point(g->ctx, "summa");
    if (g->C.rows > 0 && g->C.cols > 0)
      HY_LOCAL(g->kern(g->be, g->ws, o->prec, g->C.rows, g->C.cols, w, o->alpha, a, lda, b, ldb,
                       s == 0 ? o->beta : 1.0, g->C.d, g->C.ld));
    if (s + 1 < steps) {
      int64_t k1 = k0 + w0;
      double t0 = hy_wtime();
      if (multi) HY_LOCAL(ko->stream_ctl(g->be, g->ws, 1));
      HY_CALL(gemm_panels(g, rbuf, s + 1, k1, g->k - k1 < w0 ? g->k - k1 : w0, &na, &nlda, &nbp, &nldb));
      if (multi) HY_LOCAL(ko->stream_ctl(g->be, g->ws, 2));
      tw += hy_wtime() - t0;
      a = na; lda = nlda; b = nbp; ldb = nldb;
    }
  }
  info->t_bcast_wait = tw;
  HY_LOCAL(g->be->ops->sync(g->be));
  return HY_OK;
}

/* Open the panel broadcasts' transport (gemm.bcast; one rank: MPI, never used).  Collective. */
static int gemm_bcast_open(gemm_t *g) {
  hy_ctx *ctx = g->ctx;
  if (ctx->size == 1) return hy_bcast_open(&g->grid, g->be, HY_BCAST_MPI, "gemm.bcast", 0, &g->bc);
  HY_CALL(hy_bcast_open(&g->grid, g->be, g->o->bcast, "gemm.bcast", ctx->debug.host_coll, &g->bc));
  if (hy_bcast_note(g->bc)[0]) hy_printf0(ctx, "gemm: %s\n", hy_bcast_note(g->bc));
  return HY_OK;
}

/* Stage summa (phases upload, summa, download).  Collective. */
int gemm_summa(gemm_t *g, gemm_info *info) {
  hy_ctx *ctx = g->ctx;
  double ksec = 0;
  HY_CALL(gemm_bcast_open(g));
  info->bcast = hy_bcast_name(g->bc);
  info->bcast_dev = hy_bcast_is_device(g->bc);
  info->bcast_path = hy_bcast_path(g->bc);
  info->bcast_why = hy_bcast_why(g->bc);
  int64_t w0 = gemm_width(g);
  void *rbuf[2][2];
  gemm_rbufs(g, w0, rbuf);
  gemm_warm(g, w0, rbuf);
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime();
  hy_phase_begin(ctx, "upload");
  gemm_upload(g);
  hy_phase_end(ctx, "upload");
  double t1 = hy_wtime();
  HY_LOCAL(g->ko->ktime(g->be, g->ws, 1, &ksec));
  hy_phase_begin(ctx, "summa");
  HY_CALL(gemm_steps(g, info, w0, rbuf));
  HY_LOCAL(g->be->ops->sync(g->be));
  hy_phase_end(ctx, "summa");
  double t2 = hy_wtime();
  HY_LOCAL(g->ko->ktime(g->be, g->ws, 1, &ksec));
  hy_phase_begin(ctx, "download");
  gemm_download(g);
  hy_phase_end(ctx, "download");
  double t3 = hy_wtime();
  gemm_c_fp64(g);
  for (int x = 0; x < 2; x++)
    for (int par = 0; par < 2; par++)
      if (rbuf[x][par]) HY_LOCAL(g->be->ops->free(g->be, rbuf[x][par]));
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
