/* k_conv.c - choosing the conv kernel table of a backend (the one place of the conv kernels
 * that knows whether CUDA is compiled in). */
#include "k_conv.h"

/* The host or the CUDA table, by the backend's kind.  Local. */
const k_conv_ops *k_conv_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_conv_cuda_ops;
#endif
  return &k_conv_host_ops;
}
