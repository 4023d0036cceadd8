/* grid.c - the 2D process grid: P x Q ranks, row-major, with row and column communicators. */
#include "comm/comm.h"
#include "hybrid.h"

/* Most square grid P x Q = size with P <= Q.  Local. */
void hy_grid_auto(int size, int *P, int *Q) {
  int p = 1;
  for (int d = 1; d * d <= size; d++)
    if (size % d == 0) p = d;
  *P = p;
  *Q = size / p;
}

/* Split comm into the rows and columns of a P x Q grid.  Collective over comm. */
int hy_grid_make(MPI_Comm comm, int P, int Q, hy_grid *g) {
  int rank = 0, size = 0;
  HY_MPI(MPI_Comm_rank(comm, &rank));
  HY_MPI(MPI_Comm_size(comm, &size));
  g->row = g->col = MPI_COMM_NULL;
  if (P < 1 || Q < 1 || P * Q != size)
    return hy_err(HY_EUSAGE, "process grid %dx%d needs %d ranks, but the communicator has %d",
                  P, Q, P * Q, size);
  g->comm = comm;
  g->P = P;
  g->Q = Q;
  g->p = rank / Q;
  g->q = rank % Q;
  HY_MPI(MPI_Comm_split(comm, g->p, g->q, &g->row));
  HY_MPI(MPI_Comm_split(comm, g->q, g->p, &g->col));
  return HY_OK;
}

/* Free the row and column communicators.  Collective over g->comm. */
void hy_grid_free(hy_grid *g) {
  if (g->row != MPI_COMM_NULL) MPI_Comm_free(&g->row);
  if (g->col != MPI_COMM_NULL) MPI_Comm_free(&g->col);
}
