/* k_sort.c - choosing the sort kernel table of a backend (the one place of the sort kernels
 * that knows whether CUDA is compiled in). */
#include "k_sort.h"

/* The host or the CUDA table, by the backend's kind.  Local. */
const k_sort_ops *k_sort_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_sort_cuda_ops;
#endif
  return &k_sort_host_ops;
}
