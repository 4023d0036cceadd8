/* conv_halo.h - the halo transports of the conv workload (one dispatcher, conv_halo.c; one file
 * per transport: conv_halo_mpi.c, conv_halo_dev.c).  A transport moves two packed buffers to
 * the two neighbours along one axis and receives theirs: the MPI one host buffers (pinned),
 * the device one device buffers (app/comm's point-to-point: NCCL, queued on the halo stream). */
#ifndef HY_CONV_HALO_H
#define HY_CONV_HALO_H

#include <mpi.h>

#include "conv.h"

/* The state of one exchange in flight. */
typedef struct {
  MPI_Request req[4];
  int nreq;
} conv_xfer;

typedef struct {
  const char *name;
  int device;   /* 1: the buffers are device buffers (pack_dev / unpack_dev), else pinned host */
  /* Start sending send[0] to the lower neighbour along axis (0: north, 1: west) and send[1] to
   * the upper one (south / east), receiving theirs into recv[0] / recv[1]; bytes each; sides at
   * the image's edge are skipped.  Collective between the neighbours. */
  int (*start)(conv_xfer *x, const conv_grid *gr, int axis, void *const send[2], void *const recv[2],
               int bytes);
  /* Wait for the exchange (the device transport: ordered on the halo stream, nothing to wait
   * for on the host).  Collective between the neighbours. */
  int (*wait)(conv_xfer *x);
} conv_transport;

extern const conv_transport conv_transport_mpi, conv_transport_dev;

#endif
