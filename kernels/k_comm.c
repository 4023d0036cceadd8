/* k_comm.c - the transport table of a backend (the only place that knows whether the CUDA
 * backend is compiled in). */
#include "k_comm.h"

/* The table of be's kind.  Local. */
const k_comm_ops *k_comm_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_comm_cuda_ops;
#endif
  return &k_comm_host_ops;
}
