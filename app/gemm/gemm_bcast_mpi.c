/* gemm_bcast_mpi.c - SUMMA panel broadcasts through MPI, staged in pinned host memory: the
 * owner of a panel sends it from its pinned host copy of A / B (A's panel columns are
 * contiguous; B's panel rows are packed first), the others receive into pinned buffers
 * (MPI_Ibcast, posted a step ahead) and copy them to the device.  A process row / column of
 * one process broadcasts nothing; with one rank nothing touches MPI. */
#include "gemm/gemm.h"

#include <limits.h>
#include <string.h>

/* Pinned and device panel buffers (two of each, by step parity).  Collective (agreed). */
static int bm_open(gemm_t *g, gemm_bc *bc, int64_t w) {
  size_t bytes[2] = { (size_t)(g->A.rows * w) * g->ein, (size_t)(w * g->B.cols) * g->ein };
  int need[2] = { g->Q > 1, g->P > 1 };
  int rc = HY_OK;
  for (int x = 0; x < 2; x++)
    if (need[x] && bytes[x] > INT_MAX)
      rc = hy_err(HY_EUSAGE, "gemm.nb = %lld: a panel of %zu bytes exceeds MPI's int count; "
                  "allowed: a smaller nb", (long long)g->o->nb, bytes[x]);
  HY_CALL(hy_agree(g->ctx->comm, rc));
  for (int x = 0; x < 2; x++)
    for (int par = 0; par < 2 && need[x]; par++) {
      HY_LOCAL(g->be->ops->alloc_pinned(g->be, &bc->hbuf[x][par], bytes[x] + 8));
      HY_LOCAL(g->be->ops->alloc(g->be, &bc->dbuf[x][par], bytes[x] + 8));
    }
  return HY_OK;
}

/* Start step s's broadcasts: A's block column k0 / nb from process column (k0 / nb) % Q along
 * the process row, B's block row from process row (k0 / nb) % P down the column.  Collective on
 * the process row and column. */
static int bm_post(gemm_t *g, gemm_bc *bc, int64_t s, int64_t k0, int64_t w) {
  int64_t nb = g->o->nb, kb = k0 / nb;
  int par = (int)(s & 1);
  if (g->Q > 1) {
    int qk = (int)(kb % g->Q);
    size_t bytes = (size_t)(g->A.rows * w) * g->ein;
    void *buf = g->q == qk ? (char *)g->A.hs + (size_t)((kb / g->Q) * nb * g->A.ld) * g->ein
                           : bc->hbuf[0][par];
    HY_MPI(MPI_Ibcast(buf, (int)bytes, MPI_BYTE, qk, g->rowc, &bc->req[0]));
  }
  if (g->P > 1) {
    int pk = (int)(kb % g->P);
    size_t bytes = (size_t)(w * g->B.cols) * g->ein, e = g->ein;
    if (g->p == pk) {  /* pack rows lr.. of the pinned copy: w x n_loc, ld w */
      int64_t lr = (kb / g->P) * nb;
      const char *src = g->B.hs;
      char *dst = bc->hbuf[1][par];
      for (int64_t j = 0; j < g->B.cols; j++)
        memcpy(dst + (size_t)(j * w) * e, src + (size_t)(lr + j * g->B.ld) * e, (size_t)w * e);
    }
    HY_MPI(MPI_Ibcast(bc->hbuf[1][par], (int)bytes, MPI_BYTE, pk, g->colc, &bc->req[1]));
  }
  return HY_OK;
}

/* Finish step s: wait for its panels, copy the received ones to the device; the owner's panels
 * are its own device blocks.  Collective on the process row and column. */
static int bm_wait(gemm_t *g, gemm_bc *bc, int64_t s, int64_t k0, int64_t w, const void **a,
                   int64_t *lda, const void **b, int64_t *ldb) {
  int64_t nb = g->o->nb, kb = k0 / nb;
  int par = (int)(s & 1);
  double t0 = hy_wtime();
  MPI_Status st[2];
  HY_MPI(MPI_Waitall(2, bc->req, st));
  bc->t_wait += hy_wtime() - t0;
  if (g->Q == 1 || g->q == (int)(kb % g->Q)) {
    *a = (const char *)g->A.d + (size_t)((g->Q == 1 ? k0 : (kb / g->Q) * nb) * g->A.ld) * g->ein;
    *lda = g->A.ld;
  } else {
    HY_LOCAL(g->be->ops->h2d(g->be, bc->dbuf[0][par], bc->hbuf[0][par],
                             (size_t)(g->A.rows * w) * g->ein));
    *a = bc->dbuf[0][par];
    *lda = g->A.ld;
  }
  if (g->P == 1 || g->p == (int)(kb % g->P)) {
    *b = (const char *)g->B.d + (size_t)(g->P == 1 ? k0 : (kb / g->P) * nb) * g->ein;
    *ldb = g->B.ld;
  } else {
    HY_LOCAL(g->be->ops->h2d(g->be, bc->dbuf[1][par], bc->hbuf[1][par],
                             (size_t)(w * g->B.cols) * g->ein));
    *b = bc->dbuf[1][par];
    *ldb = w;
  }
  return HY_OK;
}

/* Free the buffers.  Local. */
static void bm_close(gemm_t *g, gemm_bc *bc) {
  for (int x = 0; x < 2; x++)
    for (int par = 0; par < 2; par++) {
      if (bc->hbuf[x][par]) g->be->ops->free_pinned(g->be, bc->hbuf[x][par]);
      if (bc->dbuf[x][par]) g->be->ops->free(g->be, bc->dbuf[x][par]);
      bc->hbuf[x][par] = bc->dbuf[x][par] = NULL;
    }
}

const gemm_transport gemm_bc_mpi = {
  .name = "mpi", .open = bm_open, .post = bm_post, .wait = bm_wait, .close = bm_close,
};
