/* k_gauss.c - the gauss kernel table of a backend (the only place that knows whether the
 * CUDA backend is compiled in). */
#include "k_gauss.h"

/* The table of be's kind.  Local. */
const k_gauss_ops *k_gauss_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_gauss_cuda_ops;
#endif
  return &k_gauss_host_ops;
}
