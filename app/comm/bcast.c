/* bcast.c - the broadcast dispatcher: chooses the transport once (hy_bcast_open) and sends
 * every broadcast and exchange to it (bcast_mpi.c, bcast_dev.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcast_impl.h"
#include "hybrid.h"

/* Why the device transport is not used, for the log (bits of the OR over ranks).  Local. */
static const char *bc_why(const hy_bcast *b, int why) {
  if (why & 1) return b->kc->no_coll ? b->kc->no_coll : "no device collectives";
  if (why & 4) return "ranks share a device (NCCL needs one device per rank)";
  if (why & 8) return "no NCCL communicator id (ncclGetUniqueId failed)";
  if (why & 16) return "NCCL communicator set-up failed (message above)";
  return "";
}

/* Bit 4 when another rank of comm drives the same device (host, PCI bus id, ordinal).
 * Collective over comm. */
static int bc_shared_device(const hy_bcast *b, int *why) {
  enum { ID = MPI_MAX_PROCESSOR_NAME + 96 };
  int rank = 0, size = 0, hl = 0;
  char me[ID], host[MPI_MAX_PROCESSOR_NAME];
  HY_MPI(MPI_Comm_rank(b->g.comm, &rank));
  HY_MPI(MPI_Comm_size(b->g.comm, &size));
  HY_MPI(MPI_Get_processor_name(host, &hl));
  memset(me, 0, sizeof me);
  snprintf(me, sizeof me, "%s|%s|%d", host, b->be->device_id, b->be->device);
  char *all;
  HY_MALLOC(all, (size_t)ID * (size_t)size);
  HY_MPI(MPI_Allgather(me, ID, MPI_CHAR, all, ID, MPI_CHAR, b->g.comm));
  for (int r = 0; r < size; r++)
    if (r != rank && !strncmp(all + (size_t)r * ID, me, ID)) *why |= 4;
  free(all);
  return HY_OK;
}

/* Choose and set up the transport.  Collective over g->comm. */
int hy_bcast_open(const hy_grid *g, k_backend *be, int want, const char *key, int emulate,
                  hy_bcast **out) {
  hy_bcast *b;
  HY_CALLOC(b, 1);
  *out = NULL;
  b->g = *g;
  b->be = be;
  b->kc = k_comm_ops_get(be);
  b->emulate = emulate && b->kc->no_coll != NULL;
  b->t = &hy_bcast_mpi_transport;
  int why = 0;
  if (b->kc->no_coll && !b->emulate) why |= 1;
  if (!b->kc->no_coll) HY_CALL(bc_shared_device(b, &why));
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, &why, 1, MPI_INT, MPI_BOR, g->comm));
  if (want != HY_BCAST_MPI && why == 0) {
    int rc = hy_bcast_dev_setup(b, want, &why);
    if (rc != HY_OK) {
      free(b);
      return rc;
    }
    if (why == 0) b->t = &hy_bcast_dev_transport;
  }
  if (want == HY_BCAST_DEVICE && why) {
    int rc = hy_err(HY_EUSAGE, "%s = nccl: device collectives are not available here: %s "
                    "(allowed here: auto or mpi)", key, bc_why(b, why));
    free(b);
    return rc;
  }
  if (b->t == &hy_bcast_dev_transport) b->why[0] = 0;
  else if (want == HY_BCAST_MPI) snprintf(b->why, sizeof b->why, "%s = mpi", key);
  else snprintf(b->why, sizeof b->why, "%s", bc_why(b, why));
  *out = b;
  return HY_OK;
}

/* Free everything.  Collective over the grid. */
void hy_bcast_close(hy_bcast *b) {
  if (!b) return;
  b->kc->sync_all(b->be);
  hy_bcast_dev_free(b, 0);
  for (int d = 0; d < 2; d++) {
    if (b->dstage[d]) b->be->ops->free(b->be, b->dstage[d]);
    if (b->hstage[d]) b->be->ops->free_pinned(b->be, b->hstage[d]);
  }
  free(b);
}

/* The transport's name.  Local. */
const char *hy_bcast_name(const hy_bcast *b) {
  if (b->t != &hy_bcast_dev_transport) return "mpi";
  return b->emulate ? "emulated" : b->kc->coll_name;
}
/* 1 for the device transport.  Local. */
int hy_bcast_is_device(const hy_bcast *b) { return b->t == &hy_bcast_dev_transport; }
/* How the MPI transport reaches the data.  Local. */
const char *hy_bcast_path(const hy_bcast *b) { return b->kc->mpi_path; }
/* Why the device transport was not taken.  Local. */
const char *hy_bcast_why(const hy_bcast *b) { return b->why; }
/* A set-up failure auto fell back from.  Local. */
const char *hy_bcast_note(const hy_bcast *b) { return b->note; }

/* The transport in one phrase.  Local. */
void hy_bcast_describe(const hy_bcast *b, char *buf, size_t n) {
  const char *sep = b->note[0] ? "; " : "";
  if (hy_bcast_is_device(b))
    snprintf(buf, n, "%s (%s)%s%s", hy_bcast_name(b),
             b->emulate ? "[debug] host_coll test hook: the device path, MPI on the host" : "device to device",
             sep, b->note);
  else
    snprintf(buf, n, "mpi (%s): %s%s%s", hy_bcast_path(b), b->why, sep, b->note);
}

/* Grow a device buffer (waits for its queued uses first).  Local. */
int hy_bcast_dgrow(hy_bcast *b, void **p, size_t *have, size_t need) {
  if (*p && *have >= need) return HY_OK;
  if (*p) {
    HY_CALL(b->kc->sync_all(b->be));
    HY_CALL(b->be->ops->free(b->be, *p));
  }
  *p = NULL;
  *have = 0;
  HY_CALL(b->be->ops->alloc(b->be, p, need ? need : 1));
  *have = need;
  return HY_OK;
}

/* Grow a pinned host buffer (the MPI transport's copies are complete on return).  Local. */
int hy_bcast_hgrow(hy_bcast *b, unsigned char **p, size_t *have, size_t need) {
  if (*p && *have >= need) return HY_OK;
  if (*p) HY_CALL(b->be->ops->free_pinned(b->be, *p));
  *p = NULL;
  *have = 0;
  HY_CALL(b->be->ops->alloc_pinned(b->be, (void **)p, need ? need : 1));
  *have = need;
  return HY_OK;
}

/* MPI_Bcast in chunks (counts stay below INT_MAX).  Collective over comm. */
int hy_bcast_mpi_bytes(MPI_Comm comm, void *buf, size_t bytes, int root) {
  const size_t chunk = (size_t)1 << 30;
  for (size_t o = 0; o < bytes; o += chunk) {
    size_t c = bytes - o < chunk ? bytes - o : chunk;
    HY_MPI(MPI_Bcast((char *)buf + o, (int)c, MPI_BYTE, root, comm));
  }
  return HY_OK;
}

/* Staging at least this large per direction.  Local. */
int hy_bcast_reserve(hy_bcast *b, int dir, size_t dev_bytes, size_t host_bytes) {
  if (hy_bcast_size(b, dir) < 2) return HY_OK;
  if (b->t == &hy_bcast_dev_transport && dev_bytes)
    HY_CALL(hy_bcast_dgrow(b, &b->dstage[dir], &b->dbytes[dir], dev_bytes));
  if (b->t != &hy_bcast_dev_transport && host_bytes)
    HY_CALL(hy_bcast_hgrow(b, &b->hstage[dir], &b->hbytes[dir], host_bytes));
  return HY_OK;
}

/* Dispatch a 2D broadcast.  Collective over the ranks of dir. */
int hy_bcast_2d(hy_bcast *b, int dir, size_t esz, int64_t m, int64_t n, void *a, int64_t lda,
                int root) {
  if (hy_bcast_size(b, dir) < 2 || m <= 0 || n <= 0) return HY_OK;
  return b->t->bcast_2d(b, dir, esz, m, n, a, lda, root);
}

/* Dispatch an exchange.  Collective over the ranks of dir. */
int hy_bcast_exchange(hy_bcast *b, int dir, const int64_t *cnt, const void *sbuf,
                      const int64_t *sdsp, void *rbuf, const int64_t *rdsp) {
  if (hy_bcast_size(b, dir) < 2) return HY_OK;
  return b->t->exchange(b, dir, cnt, sbuf, sdsp, rbuf, rdsp);
}

/* Dispatch point-to-point messages.  Collective between the peers. */
int hy_bcast_sendrecv(hy_bcast *b, int dir, int nmsg, const hy_msg *msg) {
  if (nmsg <= 0) return HY_OK;
  return b->t->sendrecv(b, dir, nmsg, msg);
}

/* MPI point-to-point in chunks.  Collective between the peers. */
int hy_bcast_p2p_mpi(MPI_Comm comm, int nmsg, const hy_msg *msg) {
  const size_t chunk = (size_t)1 << 30;
  int nreq = 0;
  for (int i = 0; i < nmsg; i++) nreq += (int)((msg[i].bytes + chunk - 1) / chunk);
  MPI_Request *req;
  HY_MALLOC(req, (size_t)(nreq ? nreq : 1));
  nreq = 0;
  for (int pass = 0; pass < 2; pass++)   /* receives first, then sends */
    for (int i = 0; i < nmsg; i++) {
      if (msg[i].send != pass) continue;
      for (size_t o = 0, c = 0; o < msg[i].bytes; o += chunk, c++) {
        int len = (int)(msg[i].bytes - o < chunk ? msg[i].bytes - o : chunk);
        char *p = (char *)msg[i].buf + o;
        int mrc = pass ? MPI_Isend(p, len, MPI_BYTE, msg[i].peer, (int)c, comm, &req[nreq++])
                       : MPI_Irecv(p, len, MPI_BYTE, msg[i].peer, (int)c, comm, &req[nreq++]);
        if (mrc != MPI_SUCCESS) {
          free(req);
          return hy_err(HY_ESYS, "MPI point-to-point of %zu bytes with rank %d failed", msg[i].bytes, msg[i].peer);
        }
      }
    }
  MPI_Status *st;
  HY_MALLOC(st, (size_t)(nreq ? nreq : 1));
  int mrc = MPI_Waitall(nreq, req, st);
  free(st);
  free(req);
  if (mrc != MPI_SUCCESS) return hy_err(HY_ESYS, "MPI_Waitall of the point-to-point messages failed");
  return HY_OK;
}
