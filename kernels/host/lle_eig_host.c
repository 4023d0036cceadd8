/* lle_eig_host.c - the host backend's lle eigen-solve table: no device sparse Cholesky
 * (eigensolver = gpu-chol is refused there; bsvd and shift-invert are the host's solvers). */
#include "k_lle.h"

const k_lle_eig_ops k_lle_eig_host_ops = {
  .name = "host",
  .eig_si = NULL,
  .chol_top = NULL,   /* chol-nd's top supernodes on the threads (kernels/host/lle_chol.c) */
};
