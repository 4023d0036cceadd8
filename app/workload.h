/* workload.h - the run context every workload driver receives, the workload registry, and
 * the services of the runtime: phase timers, progress, metrics for the results record.
 * Drivers live in app/<workload>/ and never include CUDA headers; their device work goes
 * through kernels/ (kernels.h and the per-workload kernel tables). */
#ifndef HY_WORKLOAD_H
#define HY_WORKLOAD_H

#include <stdio.h>
#include <mpi.h>

#include "hybrid.h"
#include "config/cfg.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HY_MAX_PHASES 64
#define HY_MAX_METRICS 256

typedef struct {
  char name[48];
  double total;      /* seconds accumulated */
  double t0;         /* start of the open interval, < 0 when closed */
} hy_phase;

typedef struct {
  char name[64];
  char *json;        /* the value, already JSON-encoded */
} hy_metric;

/* The [debug] test hooks, read once by main (no driver reads them from the configuration). */
typedef struct {
  int fail_rank;             /* this rank fails alone (local fatal error); -1 none */
  int fail_code;             /* exit code of that failure */
  char fail_stage[64];       /* stage where it fails (hy_debug_point); "" before the run */
  long long fail_alloc;      /* fail_rank's allocations of at least this many bytes fail; 0 off */
  double perturb;            /* relative perturbation of the result before the check; 0 none */
  int host_coll;             /* host backend: device-collective transport, MPI underneath */
} hy_debug;

typedef struct hy_ctx {
  MPI_Comm comm;             /* MPI_COMM_WORLD (a dup) */
  int rank, size;
  int node_rank, node_size;  /* position among the ranks of this node */
  int nnodes;                /* distinct hosts */
  int threads;               /* threads this rank may use (rt_threads_choose; lle's default) */
  const char *threads_why;   /* where that figure came from */
  char blas[512];            /* the BLAS library linked (rt_blas_library) */
  int blas_threads;          /* its thread count (set at start-up to run.blas_threads, else threads) */
  int blas_threads_want;     /* run.blas_threads: > 0 fixes the BLAS threads for the whole run */
  int argc;                  /* the command line, for the record (rank 0's) */
  char **argv;
  char host[256];
  hy_cfg *cfg;
  k_backend be;              /* this rank's backend */
  int shared_device;         /* more ranks than devices on this node */
  char out_dir[1024];        /* [output] dir */
  /* timers and record (record data is meaningful on rank 0) */
  int nphases;
  hy_phase phases[HY_MAX_PHASES];
  int nmetrics;
  hy_metric metrics[HY_MAX_METRICS];
  char *validation_json;     /* "validation" object, or NULL */
  char verdict[512];         /* the deciding check for the last line */
  double progress_interval;  /* seconds between progress lines in batch logs; 0 off */
  int progress_mode;         /* run.progress_mode: 0 auto, 1 bar, 2 lines, 3 off */
  hy_debug debug;            /* [debug] test hooks */
  char backend[16];          /* [run] backend as configured: auto, cuda or host */
  int cuda_pool;             /* [run] cuda_pool: 1 on (the CUDA backend's memory pool), 0 off */
  char pool_json[320];       /* the record's cuda_pool (rt_pool_summary); "" before it: null */
  char *unused_keys_json;    /* keys set that the workload does not read: a JSON array */
  double t_start;
} hy_ctx;

typedef struct {
  const char *name;                 /* [run] workload = name */
  const char *summary;              /* one line for --help */
  const cfg_key *keys;              /* the keys of its sections (CFG_END-terminated) */
  int (*check)(hy_cfg *c);          /* rank 0: cross-key checks, may be NULL */
  int (*run)(hy_ctx *ctx);          /* collective: the whole workload */
  const char *default_config;       /* embedded config text, may be NULL */
} hy_workload;

/* The registry (app/workloads.c), NULL-terminated. */
extern const hy_workload *const hy_workloads[];
/* The workload of that name, or NULL.  Local. */
const hy_workload *hy_workload_find(const char *name);

/* ---- phase timers (wall clock; the backend is synchronised before each reading) ---- */
/* Start / stop accumulating time into phase name.  Local. */
void hy_phase_begin(hy_ctx *ctx, const char *name);
void hy_phase_end(hy_ctx *ctx, const char *name);
/* Seconds accumulated in a phase on this rank.  Local. */
double hy_phase_seconds(const hy_ctx *ctx, const char *name);
/* Wall clock in seconds.  Local. */
double hy_wtime(void);

/* ---- progress for long phases (printed by rank 0 to stderr: a bar on a terminal, a line
 *      every [run] progress seconds otherwise) ---- */
typedef struct {
  const hy_ctx *ctx;
  char label[64];
  double total, t0, last;
  double v0, best;             /* hy_progress_toward: the first value, the best fraction so far */
  int tty, active, width_done;
} hy_progress;
/* Start, update (done out of total), finish.  Local (no communication): a phase that runs on
 * rank 0 only may call them there; only rank 0 prints.  Update and end accept p = NULL. */
void hy_progress_begin(hy_progress *p, const hy_ctx *ctx, const char *label, double total);
void hy_progress_update(hy_progress *p, double done);
void hy_progress_end(hy_progress *p);
/* Update for an iteration that drives a value (a residual) down to target: the fraction is
 * log(v0 / v) / log(v0 / target) of the first value v0 passed, never decreasing; begin with
 * total 1.  Local; p may be NULL. */
void hy_progress_toward(hy_progress *p, double v, double target);
/* Work of the first j of n elimination steps of an LU (or Gaussian elimination) as a share of
 * n^3: n^3 - (n - j)^3, so progress and its ETA follow the flops, not the steps (the first
 * steps hold most of the work).  Begin with total (double)n * n * n.  Local. */
double hy_lu_work_done(int64_t n, int64_t j);

/* ---- figures for the results record (kept on rank 0; calls on other ranks are ignored) ---- */
void hy_metric_num(hy_ctx *ctx, const char *name, double v);
void hy_metric_int(hy_ctx *ctx, const char *name, long long v);
void hy_metric_str(hy_ctx *ctx, const char *name, const char *s);
/* A value already encoded as JSON (array or object). */
void hy_metric_json(hy_ctx *ctx, const char *name, const char *json);
/* The in-run check that decides PASSED/FAILED: name, value, threshold, passed. */
void hy_validation(hy_ctx *ctx, const char *check, double value, double threshold, int passed);
/* The text after PASSED/FAILED on the last line. */
void hy_verdict(hy_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- memory pre-check (app/runtime/memcheck.c) ---- */
/* Refuse, before allocating, a run that needs more memory per rank than a rank has: host bytes
 * against io_mem_limit() shared by the node's ranks, device bytes against the backend's
 * mem_info free figure shared by the ranks on that device (skipped where mem_info is NULL: the
 * host backend, whose device memory is the host figure).  detail says what the figures count
 * ("keys and the exchange buffer, at least"), fmt... names the size ("sort.n = %lld"): both go
 * into the message with the figure and the limit; exit 5 (system).  The figures must be lower
 * bounds, never refusing a run that fits.  Collective (agreed on comm). */
int hy_mem_check(hy_ctx *ctx, double host_bytes, double dev_bytes, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ---- test hooks ([debug]) ---- */
/* A point inside stage `stage` where [debug] fail_rank fails alone when fail_stage names that
 * stage: prints rank, host and the stage and calls MPI_Abort with fail_code.  Local (no
 * communication: the other ranks go on into their next collective and are torn down). */
void hy_debug_point(const hy_ctx *ctx, const char *stage);

/* Append s to a growing string, JSON-escaped (helpers for building metric JSON).  Local. */
void hy_json_escape(FILE *out, const char *s);

/* Rank 0 prints (printf that only rank 0 does).  Local. */
void hy_printf0(const hy_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
