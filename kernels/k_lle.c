/* k_lle.c - choosing the lle kernel table of a backend (the one place of the lle kernels
 * that knows whether CUDA is compiled in). */
#include "k_lle.h"

/* The host or the CUDA table, by the backend's kind.  Local. */
const k_lle_ops *k_lle_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_lle_cuda_ops;
#endif
  return &k_lle_host_ops;
}

/* The host or the CUDA eigen-solve table, by the backend's kind.  Local. */
const k_lle_eig_ops *k_lle_eig_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_lle_eig_cuda_ops;
#endif
  return &k_lle_eig_host_ops;
}
