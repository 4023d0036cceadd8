/* k_gemm.c - the gemm kernel table of a backend (the only place that knows whether the CUDA
 * backend is compiled in). */
#include "k_gemm.h"

/* The table of be's kind.  Local. */
const k_gemm_ops *k_gemm_ops_get(const k_backend *be) {
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) return &k_gemm_cuda_ops;
#endif
  return &k_gemm_host_ops;
}
