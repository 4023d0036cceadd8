/* lle_eig_host.c - the host backend's lle eigen-solve table: no device sparse Cholesky
 * (eigensolver = gpu-chol is refused there; bsvd and shift-invert are the host's solvers). */
#include "k_lle.h"

/* lle_bsub_host.c: the iteration's block work, sequential (lle.iter_block = backend) */
int k_lle_bsub_open_host(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **w);
int k_lle_bsub_rr_host(k_lle_bsub *w, const double *v, double *h);
int k_lle_bsub_rotate_host(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res, double *v);
void k_lle_bsub_close_host(k_lle_bsub *w, double *bytes);
double *k_lle_bsub_host_block_host(k_lle_bsub *w);
int k_lle_bsub_orth_host(k_lle_bsub *w, double *v);
int k_lle_bsub_resid_host(k_lle_bsub *w, const double *x, int nc, const double *val, double *res);

const k_lle_eig_ops k_lle_eig_host_ops = {
  .name = "host",
  .eig_si = NULL,
  .chol_top = NULL,   /* chol-nd's top supernodes on the threads (kernels/host/lle_chol.c) */
  .bsub_device = 0,   /* lle.iter_block = auto: the driver's threaded loop */
  .bsub_open = k_lle_bsub_open_host,
  .bsub_rr = k_lle_bsub_rr_host,
  .bsub_rotate = k_lle_bsub_rotate_host,
  .bsub_close = k_lle_bsub_close_host,
  .bsub_host_block = k_lle_bsub_host_block_host,
  .bsub_orth = k_lle_bsub_orth_host,
  .bsub_resid = k_lle_bsub_resid_host,
};
