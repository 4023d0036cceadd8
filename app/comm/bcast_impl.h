/* bcast_impl.h - what the broadcast dispatcher (bcast.c) and its transports (bcast_mpi.c,
 * bcast_dev.c) share: the transport table and the state behind hy_bcast. */
#ifndef HY_BCAST_IMPL_H
#define HY_BCAST_IMPL_H

#include "comm/comm.h"
#include "k_comm.h"

/* One transport: the operations of comm.h with the same contracts. */
typedef struct {
  const char *name;   /* "mpi", "device" (the name printed comes from hy_bcast_name) */
  int (*bcast_2d)(hy_bcast *b, int dir, size_t esz, int64_t m, int64_t n, void *a, int64_t lda,
                  int root);
  int (*exchange)(hy_bcast *b, int dir, const int64_t *cnt, const void *sbuf,
                  const int64_t *sdsp, void *rbuf, const int64_t *rdsp);
  int (*sendrecv)(hy_bcast *b, int dir, int nmsg, const hy_msg *msg);
} hy_bcast_transport;

struct hy_bcast {
  hy_grid g;                    /* a copy (the communicators stay the caller's) */
  k_backend *be;
  const k_comm_ops *kc;
  const hy_bcast_transport *t;
  int emulate;                  /* device transport with MPI underneath (test hook) */
  void *dc[2];                  /* device communicators along rows / down columns (or NULL) */
  void *dstage[2];              /* device staging per direction (packing) */
  size_t dbytes[2];
  unsigned char *hstage[2];     /* pinned host staging per direction (MPI) */
  size_t hbytes[2];
  char why[160];                /* why not the device transport ("" when it is used) */
  char note[512];               /* a device set-up failure auto fell back from */
};

extern const hy_bcast_transport hy_bcast_mpi_transport, hy_bcast_dev_transport;

/* The communicator and size of direction dir.  Local. */
static inline MPI_Comm hy_bcast_comm(const hy_bcast *b, int dir) {
  return dir == HY_ROW ? b->g.row : b->g.col;
}
static inline int hy_bcast_size(const hy_bcast *b, int dir) {
  return dir == HY_ROW ? b->g.Q : b->g.P;
}
static inline int hy_bcast_me(const hy_bcast *b, int dir) {
  return dir == HY_ROW ? b->g.q : b->g.p;
}

/* Grow device buffer *p (have bytes) to at least need bytes, after waiting for every queued
 * use of the old one.  Local. */
int hy_bcast_dgrow(hy_bcast *b, void **p, size_t *have, size_t need);
/* Grow pinned host buffer *p to at least need bytes.  Local. */
int hy_bcast_hgrow(hy_bcast *b, unsigned char **p, size_t *have, size_t need);
/* The messages by MPI_Irecv / MPI_Isend on host memory, each in chunks below 2^30 bytes
 * (chunk c with tag c), then MPI_Waitall.  Collective between the peers. */
int hy_bcast_p2p_mpi(MPI_Comm comm, int nmsg, const hy_msg *msg);
/* MPI_Bcast of bytes at buf (host memory) in chunks below 2^30 bytes.  Collective over comm. */
int hy_bcast_mpi_bytes(MPI_Comm comm, void *buf, size_t bytes, int root);

/* Device transport set-up (device communicators, warm-up) for hy_bcast_open: returns the
 * agreed code; *why gets bit 8 (no id) or 16 (set-up failed) when auto falls back.
 * Collective over b->g.comm. */
int hy_bcast_dev_setup(hy_bcast *b, int want, int *why);
/* Free the device communicators; abort = 1: locally, at once.  Local or collective. */
void hy_bcast_dev_free(hy_bcast *b, int abort);

#endif
