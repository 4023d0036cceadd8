/* memcheck.c - the memory pre-check every workload makes before its big allocations. */
#include "workload.h"
#include "io/io.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* This rank's refusal of dev bytes of device memory, or HY_OK.  Local. */
static int mem_check_device(hy_ctx *ctx, const char *what, const char *detail, double dev) {
  k_backend *be = &ctx->be;
  if (dev <= 0 || !be->ops->mem_info) return HY_OK;
  size_t fr = 0, tot = 0;
  HY_CALL(be->ops->mem_info(be, &fr, &tot));
  int ndev = k_cuda_device_count();
  double share = ctx->shared_device && ndev > 0 ? (double)((ctx->node_size + ndev - 1) / ndev) : 1.0;
  double have = (double)fr / share;
  if (dev <= have) return HY_OK;
  return hy_err(HY_ESYS, "%s needs about %.3g GiB of device memory per rank (%s) but rank %d has %.3g GiB "
                "on device %d (%s: %.3g GiB free of %.3g GiB, %.0f rank(s) on it): use more ranks or "
                "nodes, or a smaller size", what, dev / GIB, detail, ctx->rank, have / GIB, be->device,
                be->device_name, (double)fr / GIB, (double)tot / GIB, share);
}

/* Refuse a run needing more memory per rank than a rank has (see workload.h).  Collective. */
int hy_mem_check(hy_ctx *ctx, double host, double dev, const char *detail, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  double per_node = ctx->node_size > 0 ? (double)ctx->node_size : 1.0;
  double limit = (double)io_mem_limit(), have = limit / per_node;
  int rc = HY_OK;
  if (host > have)
    rc = hy_err(HY_ESYS, "%s needs about %.3g GiB of host memory per rank (%s) but a rank has %.3g GiB "
                "here (%.3g GiB for %.0f rank(s) per node): use more ranks or nodes, or a smaller size",
                what, host / GIB, detail, have / GIB, limit / GIB, per_node);
  else
    rc = mem_check_device(ctx, what, detail, dev);
  return hy_agree(ctx->comm, rc);
}
