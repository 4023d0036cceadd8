/* conv_halo_mpi.c - the MPI halo transport: nonblocking point-to-point messages between packed
 * pinned host buffers (MPI here is not CUDA-aware). */
#include "conv_halo.h"
#include "hybrid.h"

/* Post the two receives and the two sends.  Collective between the neighbours. */
static int mpi_start(conv_xfer *x, const conv_grid *gr, int axis, void *const send[2],
                     void *const recv[2], int bytes) {
  MPI_Comm comm = gr->cart;
  const int *nbr = gr->nbr + (axis ? K_CONV_WEST : K_CONV_NORTH);
  x->nreq = 0;
  /* tag 1: a message moving towards the lower neighbour, tag 2: towards the upper one */
  for (int s = 0; s < 2; s++)
    if (nbr[s] != MPI_PROC_NULL)
      HY_MPI(MPI_Irecv(recv[s], bytes, MPI_BYTE, nbr[s], s == 0 ? 2 : 1, comm, &x->req[x->nreq++]));
  for (int s = 0; s < 2; s++)
    if (nbr[s] != MPI_PROC_NULL)
      HY_MPI(MPI_Isend(send[s], bytes, MPI_BYTE, nbr[s], s == 0 ? 1 : 2, comm, &x->req[x->nreq++]));
  return HY_OK;
}

/* Wait for all four.  Collective between the neighbours. */
static int mpi_wait(conv_xfer *x) {
  MPI_Status st[4];
  if (x->nreq) HY_MPI(MPI_Waitall(x->nreq, x->req, st));
  x->nreq = 0;
  return HY_OK;
}

const conv_transport conv_transport_mpi = {
  .name = "mpi",
  .device = 0,
  .start = mpi_start,
  .wait = mpi_wait,
};
