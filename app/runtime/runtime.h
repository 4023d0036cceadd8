/* runtime.h - starting and ending a run: ranks and nodes, device binding, backend choice,
 * the results record. */
#ifndef HY_RUNTIME_H
#define HY_RUNTIME_H

#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill ranks, nodes and host of ctx (comm must be set).  Collective. */
int rt_topology(hy_ctx *ctx);

/* Bind this rank to a device by its node-local rank (or the one device Slurm left visible)
 * and open the backend [run] backend asks for.  Errors (backend=cuda with no device on some
 * rank) are agreed on.  Collective. */
int rt_backend_open(hy_ctx *ctx);

/* One line per rank (rank, host, backend, device) gathered to rank 0 as a JSON array; the
 * string is malloc'ed on rank 0, NULL elsewhere.  Collective. */
int rt_devices_json(hy_ctx *ctx, char **json);

/* The memory pool's figures, max over ranks, into ctx->pool_json (null on the host backend,
 * {"enabled": false} without a pool) and, on a GPU backend, one line on rank 0.  Collective. */
int rt_pool_summary(hy_ctx *ctx);

/* Reduce the phase timers over ranks to min/avg/max and write them as a JSON object (rank 0
 * gets the string, malloc'ed).  Also prints the phase table on rank 0.  Collective. */
int rt_phases_json(hy_ctx *ctx, char **json, int print);

/* Write the results record (rank 0) into [output] dir: a new file, never overwriting, written
 * under a temporary name and linked into place.  Local (rank 0); devices/phases from above. */
int rt_record_write(hy_ctx *ctx, const char *workload, int exit_code, const char *devices,
                    const char *phases, const char *errmsg, char *path_out, size_t path_len);

/* Refuse (exit 1, naming both keys) an [output] file key that names the same file as another
 * output key or as a text key naming an existing input file (same path, or same inode).
 * Before the run.  Collective. */
int rt_output_paths_check(hy_ctx *ctx);

/* Create [output] dir and check it is writable (before the run).  Collective. */
int rt_record_dir_check(hy_ctx *ctx);

/* The version of hybrid and the git id of the build.  Local. */
const char *hy_version(void);
const char *hy_git_id(void);

/* The MPI library's version string.  Local. */
const char *rt_mpi_library(void);

/* sysinfo.c: threads per rank (OMP_NUM_THREADS, SLURM_CPUS_PER_TASK, CPU affinity shared among
 * the node's ranks), the BLAS library (name and path) and its threads, the compiler.  Local. */
int rt_threads_choose(int node_size, const char **why);
void rt_blas_library(char *out, size_t n);
int rt_blas_threads_set(int nt);
const char *rt_compiler(void);

#ifdef __cplusplus
}
#endif
#endif
