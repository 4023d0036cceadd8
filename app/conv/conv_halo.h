/* conv_halo.h - the halo transports of the conv workload (one dispatcher, conv_halo.c; one file
 * per transport: conv_halo_mpi.c).  A transport moves two packed host buffers to the two
 * neighbours along one axis and receives theirs. */
#ifndef HY_CONV_HALO_H
#define HY_CONV_HALO_H

#include <mpi.h>

/* The state of one exchange in flight. */
typedef struct {
  MPI_Request req[4];
  int nreq;
} conv_xfer;

typedef struct {
  const char *name;
  /* Start sending send[0] to nbr[0] (the lower neighbour: north / west) and send[1] to nbr[1],
   * receiving theirs into recv[0] / recv[1]; bytes each; MPI_PROC_NULL neighbours are skipped.
   * Collective between the neighbours. */
  int (*start)(conv_xfer *x, MPI_Comm comm, const int nbr[2], void *const send[2], void *const recv[2],
               int bytes);
  /* Wait for the exchange.  Collective between the neighbours. */
  int (*wait)(conv_xfer *x);
} conv_transport;

extern const conv_transport conv_transport_mpi;

#endif
