/* bcast_dev.c - the device transport: broadcasts of device buffers by the backend's device
 * collectives (NCCL), the exchange by grouped point-to-point (ncclSend / ncclRecv), queued on
 * its current stream; with [debug] host_coll on the host
 * backend, the same code with MPI_Bcast underneath (synchronous), so that CI runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcast_impl.h"
#include "hybrid.h"

/* Broadcast bytes of device memory along dir.  Collective over the ranks of dir. */
static int dev_coll(hy_bcast *b, int dir, void *buf, size_t bytes, int root) {
  if (bytes == 0) return HY_OK;
  if (b->emulate) return hy_bcast_mpi_bytes(hy_bcast_comm(b, dir), buf, bytes, root);
  return b->kc->coll_bcast(b->be, b->dc[dir], buf, bytes, root);
}

/* 2D broadcast in place when the block is contiguous, else packed in (root) / unpacked from
 * (the others) this direction's staging.  Collective over the ranks of dir. */
static int dev_bcast_2d(hy_bcast *b, int dir, size_t esz, int64_t m, int64_t n, void *a,
                        int64_t lda, int root) {
  size_t bytes = (size_t)(m * n) * esz;
  if (lda == m || n == 1) return dev_coll(b, dir, a, bytes, root);
  HY_CALL(hy_bcast_dgrow(b, &b->dstage[dir], &b->dbytes[dir], bytes));
  void *s = b->dstage[dir];
  int me = hy_bcast_me(b, dir);
  if (me == root) HY_CALL(b->kc->copy_2d(b->be, esz, m, n, a, lda, s, m));
  HY_CALL(dev_coll(b, dir, s, bytes, root));
  if (me != root) HY_CALL(b->kc->copy_2d(b->be, esz, m, n, s, m, a, lda));
  return HY_OK;
}

/* The messages on the device: NCCL's grouped point-to-point, or (emulated, [debug] host_coll)
 * MPI point-to-point on the host backend's memory.  Collective between the peers. */
static int dev_p2p(hy_bcast *b, int dir, int nmsg, const hy_msg *msg) {
  if (nmsg <= 0) return HY_OK;
  if (b->emulate) return hy_bcast_p2p_mpi(hy_bcast_comm(b, dir), nmsg, msg);
  if (!b->kc->coll_sendrecv)
    return hy_err(HY_ESYS, "device transport: the backend's collectives have no point-to-point");
  k_comm_msg *km;
  HY_MALLOC(km, (size_t)nmsg);
  for (int i = 0; i < nmsg; i++) km[i] = (k_comm_msg){ msg[i].peer, msg[i].send, msg[i].buf, msg[i].bytes };
  int rc = b->kc->coll_sendrecv(b->be, b->dc[dir], nmsg, km);
  free(km);
  return rc;
}

/* The exchange as one group of point-to-point messages (NCCL ncclSend / ncclRecv between
 * device buffers, queued on the current stream): to each other rank its block, from each its
 * block, nothing staged.  Collective over the ranks of dir. */
static int dev_exchange(hy_bcast *b, int dir, const int64_t *cnt, const void *sbuf,
                        const int64_t *sdsp, void *rbuf, const int64_t *rdsp) {
  int N = hy_bcast_size(b, dir), me = hy_bcast_me(b, dir), n = 0;
  hy_msg *msg;
  HY_MALLOC(msg, (size_t)(2 * N));
  for (int r = 0; r < N; r++) {
    if (r == me) continue;
    if (cnt[r * N + me] > 0)
      msg[n++] = (hy_msg){ r, 0, (char *)rbuf + rdsp[r], (size_t)cnt[r * N + me] };
    if (cnt[me * N + r] > 0)
      msg[n++] = (hy_msg){ r, 1, (char *)(uintptr_t)sbuf + sdsp[r], (size_t)cnt[me * N + r] };
  }
  int rc = dev_p2p(b, dir, n, msg);
  free(msg);
  return rc;
}

const hy_bcast_transport hy_bcast_dev_transport = {
  .name = "device",
  .bcast_2d = dev_bcast_2d,
  .exchange = dev_exchange,
  .sendrecv = dev_p2p,
};

/* Free the device communicators (abort: locally, at once).  Local or collective. */
void hy_bcast_dev_free(hy_bcast *b, int abort) {
  for (int d = 0; d < 2; d++) {
    if (b->dc[d]) b->kc->coll_free(b->be, b->dc[d], abort);
    b->dc[d] = NULL;
  }
}

/* Small and 8 MiB broadcasts on every communicator (NCCL connects lazily), agreed before
 * waiting.  Collective over b->g.comm. */
static int dev_warm(hy_bcast *b) {
  size_t wb = (size_t)8 << 20;
  void *tmp = NULL;
  HY_LOCAL(b->be->ops->alloc(b->be, &tmp, wb));
  HY_LOCAL(b->be->ops->memset0(b->be, tmp, wb));
  int rc = HY_OK;
  for (int d = 0; d < 2 && rc == HY_OK; d++) {
    if (!b->dc[d]) continue;
    rc = b->kc->coll_bcast(b->be, b->dc[d], tmp, 4096, 0);
    if (rc == HY_OK) rc = b->kc->coll_bcast(b->be, b->dc[d], tmp, wb, 0);
  }
  /* agreed before waiting: a rank whose broadcast was queued must not wait for a peer whose
   * call failed (the communicators are aborted instead) */
  rc = hy_agree(b->g.comm, rc);
  if (rc != HY_OK) hy_bcast_dev_free(b, 1);
  HY_LOCAL(b->kc->sync_all(b->be));
  HY_LOCAL(b->be->ops->free(b->be, tmp));
  return rc;
}

/* A failure of the set-up: want = device returns it; auto notes it and falls back.  Local
 * (every rank calls it with the same agreed rc). */
static int dev_fail(hy_bcast *b, int want, int rc, int bit, int *why) {
  hy_bcast_dev_free(b, 1);
  if (want == HY_BCAST_DEVICE) return rc;
  snprintf(b->note, sizeof b->note, "%s", hy_err_msg());
  hy_err_clear();
  *why |= bit;
  return HY_OK;
}

/* Device communicators along the rows (Q > 1) and down the columns (P > 1): an id made by
 * rank 0 of each, sent with MPI, joined by all; then the warm-up.  Collective over
 * b->g.comm. */
int hy_bcast_dev_setup(hy_bcast *b, int want, int *why) {
  if (b->emulate) return HY_OK;
  size_t idb = b->kc->coll_id_bytes(b->be);
  unsigned char *id;
  HY_MALLOC(id, idb);
  for (int d = 0; d < 2; d++) {
    int nr = hy_bcast_size(b, d), mine = hy_bcast_me(b, d);
    if (nr < 2) continue;
    int rc = hy_agree(b->g.comm, mine == 0 ? b->kc->coll_id(b->be, id) : HY_OK), bit = 8;
    if (rc == HY_OK) {
      HY_MPI(MPI_Bcast(id, (int)idb, MPI_BYTE, 0, hy_bcast_comm(b, d)));
      /* a set-up failure (NCCL init fails on every rank of a communicator, e.g. no usable
       * transport) is agreed on */
      rc = hy_agree(b->g.comm, b->kc->coll_init(b->be, id, nr, mine, &b->dc[d]));
      bit = 16;
    }
    if (rc != HY_OK) {
      free(id);
      return dev_fail(b, want, rc, bit, why);
    }
  }
  free(id);
  int rc = dev_warm(b);
  if (rc != HY_OK) return dev_fail(b, want, rc, 16, why);
  return HY_OK;
}
