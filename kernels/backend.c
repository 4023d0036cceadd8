/* backend.c - choosing between the host and the CUDA backend (the one place that knows
 * whether CUDA is compiled in). */
#include "kernels.h"
#include "hybrid.h"

#include <string.h>

/* 1 when the CUDA backend is compiled in.  Local. */
int k_cuda_compiled(void) {
#ifdef HYBRID_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

/* CUDA devices visible to this process; 0 without CUDA, driver or device.  Local. */
int k_cuda_device_count(void) {
#ifdef HYBRID_HAVE_CUDA
  return k_cuda_count();
#else
  return 0;
#endif
}

/* Open the backend of the given kind with the default options.  Local. */
int k_backend_open(k_backend *be, k_kind kind, int dev) { return k_backend_open_opts(be, kind, dev, NULL); }

/* Open the backend of the given kind (opts NULL: the defaults).  Local. */
int k_backend_open_opts(k_backend *be, k_kind kind, int dev, const k_open_opts *opts) {
  memset(be, 0, sizeof *be);
  be->device = -1;
  if (kind == K_HOST) return k_host_open(be);
#ifdef HYBRID_HAVE_CUDA
  return k_cuda_open(be, dev, opts ? opts->pool : 1);
#else
  (void)opts;
  return hy_err(HY_ESYS, "this binary was built without the CUDA backend");
#endif
}

/* Close it.  Local. */
int k_backend_close(k_backend *be) {
  if (!be->ops) return HY_OK;
  int rc = HY_OK;
  if (be->kind == K_HOST) rc = k_host_close(be);
#ifdef HYBRID_HAVE_CUDA
  else rc = k_cuda_close(be);
#endif
  be->ops = NULL;
  return rc;
}
