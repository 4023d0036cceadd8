/* k_vec.c - opening the vector-operation table of a backend (the one place of the vector
 * kernels that knows whether CUDA is compiled in). */
#include "k_vec.h"

#include <string.h>

/* Pick be's table and let it allocate its scratch.  Local. */
int k_vec_open(k_backend *be, k_vec *v) {
  memset(v, 0, sizeof *v);
  v->be = be;
  v->ops = &k_vec_host_ops;
#ifdef HYBRID_HAVE_CUDA
  if (be->kind == K_CUDA) v->ops = &k_vec_cuda_ops;
#endif
  int rc = v->ops->open(v);
  if (rc != 0) v->ops->close(v);   /* whatever part was allocated */
  return rc;
}

/* Release the scratch; the handle is zeroed.  Local. */
int k_vec_close(k_vec *v) {
  int rc = v->ops ? v->ops->close(v) : 0;
  memset(v, 0, sizeof *v);
  return rc;
}
