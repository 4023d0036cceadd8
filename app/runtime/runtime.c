/* runtime.c - topology, device binding and backend choice. */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ranks, node-local rank, number of nodes, host name.  Collective. */
int rt_topology(hy_ctx *ctx) {
  HY_MPI(MPI_Comm_rank(ctx->comm, &ctx->rank));
  HY_MPI(MPI_Comm_size(ctx->comm, &ctx->size));
  if (gethostname(ctx->host, sizeof ctx->host - 1) != 0) snprintf(ctx->host, sizeof ctx->host, "?");
  MPI_Comm node;
  HY_MPI(MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node));
  HY_MPI(MPI_Comm_rank(node, &ctx->node_rank));
  HY_MPI(MPI_Comm_size(node, &ctx->node_size));
  int leader = ctx->node_rank == 0, nn = 0;
  HY_MPI(MPI_Allreduce(&leader, &nn, 1, MPI_INT, MPI_SUM, ctx->comm));
  ctx->nnodes = nn;
  MPI_Comm_free(&node);
  /* threads per rank, and the BLAS set to them (or to run.blas_threads; no oversubscription of the node's cores) */
  ctx->threads = rt_threads_choose(ctx->node_size, &ctx->threads_why);
  rt_blas_library(ctx->blas, sizeof ctx->blas);
  ctx->blas_threads = rt_blas_threads_set(ctx->blas_threads_want > 0 ? ctx->blas_threads_want : ctx->threads);
  return HY_OK;
}

/* [debug] fail_alloc: the backend's table with its alloc entries refusing large sizes (this
 * rank only; app state, the backend itself is untouched) */
static k_ops fail_ops;
static const k_ops *real_ops;

/* One allocation through the real table unless [debug] fail_alloc refuses its size.  Local. */
static int fail_alloc_one(k_backend *be, void **p, size_t bytes,
                          int (*real)(k_backend *, void **, size_t), const char *kind) {
  if (hy_alloc_refused(bytes))
    return hy_err(HY_ESYS, "%s backend: out of memory allocating %zu bytes of %s memory ([debug] fail_alloc)",
                  be->name, bytes, kind);
  return real(be, p, bytes);
}
/* The table's alloc, alloc_managed and alloc_pinned under [debug] fail_alloc.  Local. */
static int fail_alloc(k_backend *be, void **p, size_t b) { return fail_alloc_one(be, p, b, real_ops->alloc, "device"); }
static int fail_alloc_managed(k_backend *be, void **p, size_t b) {
  return fail_alloc_one(be, p, b, real_ops->alloc_managed, "managed");
}
static int fail_alloc_pinned(k_backend *be, void **p, size_t b) {
  return fail_alloc_one(be, p, b, real_ops->alloc_pinned, "pinned host");
}

/* Arm [debug] fail_alloc on fail_rank: HY_MALLOC and the backend's alloc entries.  Local. */
static void rt_fail_alloc_arm(hy_ctx *ctx) {
  if (ctx->debug.fail_alloc <= 0 || ctx->debug.fail_rank != ctx->rank) return;
  hy_alloc_fail_set((size_t)ctx->debug.fail_alloc);
  real_ops = ctx->be.ops;
  fail_ops = *real_ops;
  fail_ops.alloc = fail_alloc;
  fail_ops.alloc_managed = fail_alloc_managed;
  fail_ops.alloc_pinned = fail_alloc_pinned;
  ctx->be.ops = &fail_ops;
}

/* Choose device and backend; agree on failures.  Collective. */
int rt_backend_open(hy_ctx *ctx) {
  const char *want = ctx->backend;
  int ndev = k_cuda_device_count();
  int use_cuda = 0, rc = HY_OK;
  char where[1100];
  cfg_where(ctx->cfg, "run.backend", where, sizeof where);
  if (!strcmp(want, "cuda")) {
    if (!k_cuda_compiled())
      rc = hy_err(HY_EUSAGE, "%s: run.backend = cuda, but this binary was built without CUDA "
                  "(configure with -DHYBRID_CUDA=ON)", where);
    else if (ndev == 0)
      rc = hy_err(HY_ESYS, "%s: run.backend = cuda, but rank %d on %s sees no CUDA device "
                  "(CUDA_VISIBLE_DEVICES=%s)", where, ctx->rank, ctx->host,
                  getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
    use_cuda = 1;
  } else if (!strcmp(want, "auto")) {
    use_cuda = ndev > 0;
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  /* every rank uses the same backend: auto falls back to host if any rank lacks a device */
  int all_cuda = use_cuda;
  HY_MPI(MPI_Allreduce(&use_cuda, &all_cuda, 1, MPI_INT, MPI_MIN, ctx->comm));
  int dev = -1;
  if (all_cuda) {
    dev = ctx->node_rank % ndev;
    ctx->shared_device = ctx->node_size > ndev;
  }
  k_open_opts opts = { .pool = ctx->cuda_pool };
  rc = k_backend_open_opts(&ctx->be, all_cuda ? K_CUDA : K_HOST, dev, &opts);
  HY_CALL(hy_agree(ctx->comm, rc));
  rt_fail_alloc_arm(ctx);
  int shared = ctx->shared_device, any_shared = 0;
  HY_MPI(MPI_Allreduce(&shared, &any_shared, 1, MPI_INT, MPI_MAX, ctx->comm));
  if (any_shared && ctx->rank == 0)
    fprintf(stderr, "hybrid: note: more ranks than CUDA devices on a node (%d ranks, %d devices "
            "on %s): ranks share devices\n", ctx->node_size, ndev, ctx->host);
  return HY_OK;
}

/* The memory pool's figures (max over ranks) into ctx->pool_json; one line on rank 0 of a GPU
 * backend.  Collective. */
int rt_pool_summary(hy_ctx *ctx) {
  k_pool_stats s = { 0 };
  int has = ctx->be.ops->pool_stats != NULL, bad = 0;
  /* the frees queued so far done: used_bytes is what the run left allocated; a device left in
   * error by the run gives no figures (the run's own error stays the one reported) */
  if (has && (ctx->be.ops->sync(&ctx->be) != HY_OK || ctx->be.ops->pool_stats(&ctx->be, &s) != HY_OK)) bad = 1;
  unsigned long long v[7] = { (unsigned long long)has, s.used_peak, s.reserved_peak, s.reserved, s.allocs,
                              s.used, (unsigned long long)bad }, m[7];
  HY_MPI(MPI_Allreduce(v, m, 7, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ctx->comm));
  ctx->pool_json[0] = '\0';
  if (!ctx->be.gpu && !m[0]) return HY_OK;   /* host backend: null */
  if (!m[0]) {
    snprintf(ctx->pool_json, sizeof ctx->pool_json, "{\"enabled\": false}");
    if (ctx->rank == 0) printf("memory pool: off (run.cuda_pool = off: cudaMalloc / cudaFree)\n");
    return HY_OK;
  }
  if (m[6]) {
    snprintf(ctx->pool_json, sizeof ctx->pool_json, "{\"enabled\": true, \"figures\": null}");
    if (ctx->rank == 0) printf("memory pool: on (run.cuda_pool); no figures: a device ended in error\n");
    return HY_OK;
  }
  snprintf(ctx->pool_json, sizeof ctx->pool_json,
           "{\"enabled\": true, \"used_peak_bytes\": %llu, \"reserved_peak_bytes\": %llu, "
           "\"reserved_bytes\": %llu, \"used_bytes\": %llu, \"allocs\": %llu}", m[1], m[2], m[3], m[5], m[4]);
  if (ctx->rank == 0 && !m[4])
    printf("memory pool: on (run.cuda_pool), unused: no device buffer of this run came from the "
           "backend's alloc (the workload's kernels allocate their own)\n");
  else if (ctx->rank == 0)
    printf("memory pool: on (run.cuda_pool), max over ranks: peak in use %.1f MiB, reserved at most %.1f MiB, "
           "%.1f MiB reserved at the end (released at close), %llu allocations\n",
           m[1] / 1048576.0, m[2] / 1048576.0, m[3] / 1048576.0, m[4]);
  return HY_OK;
}

/* Gather "rank, host, backend, device" to rank 0 as JSON.  Collective. */
int rt_devices_json(hy_ctx *ctx, char **json) {
  char line[768];
  snprintf(line, sizeof line,
           "{\"rank\": %d, \"host\": \"%s\", \"node_rank\": %d, \"backend\": \"%s\", "
           "\"device\": %d, \"name\": \"%s\", \"bus_id\": \"%s\"}",
           ctx->rank, ctx->host, ctx->node_rank, ctx->be.name ? ctx->be.name : "?", ctx->be.device,
           ctx->be.device_name, ctx->be.device_id);
  char *all = NULL;
  if (ctx->rank == 0) {
    all = malloc((size_t)ctx->size * sizeof line);
    if (!all) hy_fatal(HY_ESYS, "out of memory");
  }
  HY_MPI(MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0, ctx->comm));
  *json = NULL;
  if (ctx->rank == 0) {
    size_t cap = (size_t)ctx->size * (sizeof line + 8) + 16;
    char *s = malloc(cap);
    if (!s) hy_fatal(HY_ESYS, "out of memory");
    size_t l = 0;
    l += (size_t)snprintf(s + l, cap - l, "[");
    for (int r = 0; r < ctx->size; r++)
      l += (size_t)snprintf(s + l, cap - l, "%s\n    %s", r ? "," : "", all + (size_t)r * sizeof line);
    snprintf(s + l, cap - l, "\n  ]");
    *json = s;
    free(all);
  }
  return HY_OK;
}

/* The MPI library version.  Local. */
const char *rt_mpi_library(void) {
  static char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  /* first line only */
  for (int i = 0; i < len; i++)
    if (v[i] == '\n' || v[i] == '\r') { v[i] = '\0'; break; }
  return v;
}
