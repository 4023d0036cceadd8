/* k_spai.c - picks the spai kernel table of a backend (the one place of this workload that
 * knows whether CUDA is compiled in). */
#include "k_spai.h"

/* The host or CUDA table.  Local. */
const k_spai_ops *k_spai_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_spai_cuda_ops;
#endif
  return &k_spai_host_ops;
}
