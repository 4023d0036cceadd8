/* conv_halo_dev.c - the device halo transport: the packed device buffers to the neighbours by
 * app/comm's point-to-point (one group of ncclSend / ncclRecv per axis, queued on the halo
 * stream after the packing copies, the unpacking queued after it: no host round trip), or with
 * [debug] host_coll the same calls with MPI underneath on the host backend. */
#include "conv_halo.h"
#include "hybrid.h"

/* The two neighbours' messages of one axis.  Collective between the neighbours. */
static int dev_start(conv_xfer *x, const conv_grid *gr, int axis, void *const send[2],
                     void *const recv[2], int bytes) {
  /* north / south neighbours are process rows of this column, west / east process columns of
   * this row */
  int dir = axis ? HY_ROW : HY_COL, me = axis ? gr->pc : gr->pr;
  const int *nbr = gr->nbr + (axis ? K_CONV_WEST : K_CONV_NORTH);
  hy_msg m[4];
  int n = 0;
  x->nreq = 0;
  for (int s = 0; s < 2; s++)
    if (nbr[s] != MPI_PROC_NULL) {
      int peer = s == 0 ? me - 1 : me + 1;
      m[n++] = (hy_msg){ peer, 0, recv[s], (size_t)bytes };
      m[n++] = (hy_msg){ peer, 1, send[s], (size_t)bytes };
    }
  return hy_bcast_sendrecv(gr->xc, dir, n, m);
}

/* Nothing to wait for: the messages are ordered on the halo stream.  Local. */
static int dev_wait(conv_xfer *x) {
  (void)x;
  return HY_OK;
}

const conv_transport conv_transport_dev = {
  .name = "device",
  .device = 1,
  .start = dev_start,
  .wait = dev_wait,
};
