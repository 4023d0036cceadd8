/* gemm_bcast.c - the panel-broadcast dispatcher of SUMMA: chooses the transport once for the
 * run (gemm.bcast; one file per transport: gemm_bcast_mpi.c) and opens it. */
#include "gemm/gemm.h"

#include <string.h>

/* Choose the transport and open it for panels of width <= w.  Collective. */
int gemm_bc_open(gemm_t *g, gemm_bc *bc, int64_t w) {
  memset(bc, 0, sizeof *bc);
  /* auto and mpi: staged through pinned host memory (MPI here is not CUDA-aware) */
  bc->t = &gemm_bc_mpi;
  bc->req[0] = bc->req[1] = MPI_REQUEST_NULL;
  return bc->t->open(g, bc, w);
}
