/* main.c - the hybrid executable: arguments, configuration, runtime, the workload, the
 * results record and the last line (PASSED / FAILED).
 *
 *   hybrid [CONFIG.ini] [section.key=value ...]
 *   hybrid --help | --version | --inspect FILE
 */
#include "workload.h"
#include "runtime/runtime.h"
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void print_help(void) {
  printf("hybrid %s (%s): one MPI executable, one rank per GPU\n\n"
         "usage: mpiexec -n N hybrid [CONFIG.ini] [section.key=value ...]\n"
         "       hybrid --help | --version | --inspect FILE\n\n"
         "Without CONFIG, the embedded default configuration of the first registered workload\n"
         "(%s) runs; keys of other workloads given with it are not read (a warning names them).\n"
         "A CONFIG that names no [run] workload runs '%s'.  section.key=value arguments\n"
         "override the file.  A CONFIG given as a bare name (spai.ini) is looked up in the\n"
         "current directory, then $HYBRID_DATADIR (and $HYBRID_DATADIR/config), then the\n"
         "install's share/hybrid/config.  --inspect reads a matrix or vector file (Matrix Market,\n"
         "optionally gzip'ed, or PETSc binary) and prints its size.\n\n"
         "workloads ([run] workload = NAME):\n", hy_version(), hy_git_id(), hy_workloads[0]->name,
         cfg_default("run.workload"));
  for (int i = 0; hy_workloads[i]; i++)
    printf("  %-10s %s\n", hy_workloads[i]->name, hy_workloads[i]->summary);
  printf("\nsections and keys (type, default, allowed values):\n");
  cfg_print_help(stdout);
  printf("\nexit codes:\n"
         "  0  ok: the run passed its check\n"
         "  1  usage or configuration error (bad argument, unknown key, value out of range)\n"
         "  2  input data error (malformed or unreadable matrix/vector file)\n"
         "  3  numerical failure (singular matrix, Krylov breakdown)\n"
         "  4  validation failed (the run's check did not pass)\n"
         "  5  system error (MPI, CUDA, memory, I/O)\n");
}

/* --inspect FILE: read it on rank 0 and print its size.  Collective (agreed exit code). */
static int inspect(MPI_Comm comm, int rank, const char *path) {
  int rc = HY_OK;
  if (rank == 0) {
    unsigned char magic[4] = { 0 };
    FILE *f = fopen(path, "rb");
    if (f) {
      size_t got = fread(magic, 1, 4, f);
      (void)got;
      fclose(f);
    }
    uint32_t id = (uint32_t)magic[0] << 24 | (uint32_t)magic[1] << 16 | (uint32_t)magic[2] << 8 | magic[3];
    if (id == 1211214u) {
      double *x = NULL;
      int64_t n = 0;
      rc = io_read_vec(path, &x, &n);
      if (rc == HY_OK) printf("%s: vector n = %lld\n", path, (long long)n);
      free(x);
    } else {
      hy_csr a = { 0 };
      rc = io_read_csr(path, &a);
      if (rc == HY_OK)
        printf("%s: matrix %lld x %lld, nnz = %lld\n", path, (long long)a.m, (long long)a.n,
               (long long)a.nnz);
      io_csr_free(&a);
    }
  }
  rc = hy_agree(comm, rc);
  if (rc != HY_OK && rank == 0) fprintf(stderr, "hybrid: error: %s\n", hy_err_msg());
  return rc;
}

/* Rank 0: parse the configuration from arguments.  Local. */
static int config_from_args(hy_cfg *cfg, int argc, char **argv) {
  HY_CALL(cfg_init(cfg));
  const char *file = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-')
      return hy_err(HY_EUSAGE, "command line: unknown option '%s' (see hybrid --help)", argv[i]);
    if (!strchr(argv[i], '=')) {
      if (file)
        return hy_err(HY_EUSAGE, "command line: two configuration files given ('%s' and '%s'); "
                      "an override is written section.key=value",
                      file, argv[i]);
      file = argv[i];
    }
  }
  if (file) {
    char path[4096];
    HY_CALL(cfg_find_file(file, path, sizeof path));
    HY_CALL(cfg_parse_file(cfg, path));
  } else {
    const hy_workload *w = hy_workloads[0];
    HY_CALL(cfg_parse_text(cfg, CFG_EMBEDDED_NAME, w->default_config ? w->default_config : ""));
  }
  for (int i = 1; i < argc; i++)
    if (strchr(argv[i], '=')) HY_CALL(cfg_override(cfg, argv[i]));
  HY_CALL(cfg_check(cfg));
  return HY_OK;
}

/* The core's keys ([run], [output], [debug]) into ctx, read once; the selected workload and
 * whether a record is wanted.  Local. */
static void core_opts_from_cfg(const hy_cfg *c, hy_ctx *ctx, const hy_workload **wl, int *record) {
  *wl = hy_workload_find(cfg_str(c, "run.workload"));
  snprintf(ctx->backend, sizeof ctx->backend, "%s", cfg_str(c, "run.backend"));
  snprintf(ctx->out_dir, sizeof ctx->out_dir, "%s", cfg_str(c, "output.dir"));
  *record = cfg_bool(c, "output.record");
  ctx->progress_interval = cfg_real(c, "run.progress");
  ctx->blas_threads_want = (int)cfg_int(c, "run.blas_threads");
  ctx->cuda_pool = !strcmp(cfg_str(c, "run.cuda_pool"), "on");
  const char *pm = cfg_str(c, "run.progress_mode");
  ctx->progress_mode = !strcmp(pm, "bar") ? 1 : !strcmp(pm, "lines") ? 2 : !strcmp(pm, "off") ? 3 : 0;
  hy_exit_file_set(cfg_str(c, "run.exit_file"));
  ctx->debug.fail_rank = (int)cfg_int(c, "debug.fail_rank");
  ctx->debug.fail_code = (int)cfg_int(c, "debug.fail_code");
  snprintf(ctx->debug.fail_stage, sizeof ctx->debug.fail_stage, "%s", cfg_str(c, "debug.fail_stage"));
  ctx->debug.fail_alloc = cfg_int(c, "debug.fail_alloc");
  ctx->debug.perturb = cfg_real(c, "debug.perturb");
  ctx->debug.host_coll = cfg_bool(c, "debug.host_coll");
}

/* Keys set that the workload does not read: ctx->unused_keys_json (always an array) and, on
 * rank 0, one warning naming each with where it was set.  Local (every rank holds the same
 * configuration). */
static void unused_keys(hy_ctx *ctx, const hy_workload *wl) {
  const hy_cfg *c = ctx->cfg;
  int *idx = NULL;
  HY_MALLOC(idx, c->nkeys);
  int n = cfg_unused(c, wl->keys, idx, c->nkeys);
  size_t cap = 16 + (size_t)n * 160;
  char *json = NULL, *msg = NULL;
  HY_MALLOC(json, cap);
  HY_MALLOC(msg, cap + (size_t)n * 1100);
  size_t lj = (size_t)snprintf(json, cap, "[");
  size_t lm = 0;
  msg[0] = '\0';
  for (int i = 0; i < n; i++) {
    const cfg_key *k = c->keys[idx[i]];
    char name[160], where[1100];
    snprintf(name, sizeof name, "%s.%s", k->section, k->key);
    lj += (size_t)snprintf(json + lj, cap - lj, "%s\"%s\"", i ? ", " : "", name);
    lm += (size_t)sprintf(msg + lm, "%s%s (%s)", i ? ", " : "", name,
                          cfg_where(c, name, where, sizeof where));
  }
  snprintf(json + lj, cap - lj, "]");
  if (n && ctx->rank == 0) {
    fprintf(stderr, "hybrid: warning: %d key(s) set but not read by workload %s: %s\n", n,
            wl->name, msg);
    fflush(stderr);
  }
  ctx->unused_keys_json = json;
  free(msg);
  free(idx);
}

/* Print the final line, and the error on stderr.  Local (rank 0). */
static void final_line(const hy_ctx *ctx, int rc) {
  if (ctx->rank != 0) return;
  if (rc == HY_OK) {
    printf("PASSED: %s\n", ctx->verdict[0] ? ctx->verdict : "ok");
  } else if (rc == HY_EVALID) {
    printf("FAILED: %s\n", ctx->verdict[0] ? ctx->verdict : "validation failed");
  } else {
    fprintf(stderr, "hybrid: error: %s\n", hy_err_msg());
    printf("FAILED: %s error (exit %d): %s\n", hy_code_name(rc), rc,
           ctx->verdict[0] ? ctx->verdict : hy_err_msg());
  }
  fflush(stdout);
  fflush(stderr);
}

/* --help, --version, --inspect: handled here (1, with the exit code in *rc), else 0.  Collective. */
static int early_options(int argc, char **argv, MPI_Comm comm, int rank, int *rc) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (rank == 0) print_help();
      *rc = 0;
      return 1;
    }
    if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
      if (rank == 0) printf("hybrid %s (git %s)\n", hy_version(), hy_git_id());
      *rc = 0;
      return 1;
    }
    if (!strcmp(argv[i], "--inspect")) {
      if (i + 1 < argc) *rc = inspect(comm, rank, argv[i + 1]);
      else {
        if (rank == 0) fprintf(stderr, "hybrid: error: --inspect needs a FILE\n");
        *rc = HY_EUSAGE;
      }
      return 1;
    }
  }
  return 0;
}

/* The record (rank 0) and the last line; the exit code every rank returns.  Collective. */
static int finish(hy_ctx *ctx, const hy_workload *wl, int rc, int want_record) {
  char *devices = NULL, *phases = NULL;
  if (ctx->be.ops) {
    if (rt_devices_json(ctx, &devices) != HY_OK) hy_abort_recorded(HY_ESYS);
    if (rt_phases_json(ctx, &phases, 1) != HY_OK) hy_abort_recorded(HY_ESYS);
    if (rt_pool_summary(ctx) != HY_OK) hy_abort_recorded(HY_ESYS);
  }
  if (ctx->rank == 0 && want_record) {
    char path[1400];
    char errmsg[2100] = "";
    if (rc != HY_OK && rc != HY_EVALID) snprintf(errmsg, sizeof errmsg, "%s", hy_err_msg());
    hy_err_clear(); /* the record's own error must not hide behind the run's (first wins) */
    int wrc = rt_record_write(ctx, wl->name, rc, devices, phases, errmsg, path, sizeof path);
    if (wrc == HY_OK) printf("record: %s\n", path);
    if (wrc != HY_OK && rc == HY_OK) {
      rc = wrc; /* final_line prints the record's error (once), not the passed verdict */
      ctx->verdict[0] = '\0';
    } else {
      if (wrc != HY_OK) fprintf(stderr, "hybrid: error: %s\n", hy_err_msg());
      hy_err_clear();
      if (errmsg[0]) hy_err(rc, "%s", errmsg); /* the run's error again, for final_line */
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->comm);
  final_line(ctx, rc);
  free(devices);
  free(phases);
  return rc;
}

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "hybrid: MPI_Init failed\n");
    return HY_ESYS;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rank, rc = HY_OK;
  MPI_Comm_rank(comm, &rank);
  if (early_options(argc, argv, comm, rank, &rc)) {
    MPI_Finalize();
    return rc;
  }

  hy_cfg cfg;
  hy_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.comm = comm;
  ctx.cfg = &cfg;
  ctx.t_start = hy_wtime();
  ctx.rank = rank;

  /* rank 0 reads and checks the configuration, the verdict is shared, then the values */
  if (rank == 0) rc = config_from_args(&cfg, argc, argv);
  else rc = cfg_init(&cfg);
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  if (rc != HY_OK) {
    if (rank == 0) {
      fprintf(stderr, "hybrid: %s\n", hy_err_msg());
      printf("FAILED: configuration error (exit %d)\n", rc);
    }
    cfg_free(&cfg);
    MPI_Finalize();
    return rc;
  }
  if (cfg_bcast(&cfg, comm) != HY_OK) hy_abort_recorded(HY_ESYS);
  const hy_workload *wl;
  int want_record;
  core_opts_from_cfg(&cfg, &ctx, &wl, &want_record);
  ctx.argc = argc;
  ctx.argv = argv;

  rc = rt_topology(&ctx);
  if (rc == HY_OK) rc = rt_output_paths_check(&ctx);
  if (rc == HY_OK && want_record) {
    rc = rt_record_dir_check(&ctx);
    if (rc != HY_OK) want_record = 0; /* nowhere to write it */
  }
  if (rc == HY_OK) rc = rt_backend_open(&ctx);
  if (rc == HY_OK && rank == 0) {
    printf("hybrid %s (%s): workload %s, %d rank(s) on %d node(s), backend %s\n", hy_version(),
           hy_git_id(), wl->name, ctx.size, ctx.nnodes, ctx.be.name);
    printf("MPI: %s\nBLAS: %s, %d thread(s); %d thread(s) per rank (%s)\ncompiler: %s\nconfig: %s\n",
           rt_mpi_library(), ctx.blas, ctx.blas_threads, ctx.threads, ctx.threads_why, rt_compiler(),
           cfg.file);
    fflush(stdout);
  }
  unused_keys(&ctx, wl);

  if (rc == HY_OK) {
    if (ctx.debug.fail_rank == rank && !ctx.debug.fail_stage[0] && !ctx.debug.fail_alloc) {
      struct timespec ts = { 0, 200000000 };
      nanosleep(&ts, NULL);
      hy_fatal(ctx.debug.fail_code,
               "injected failure ([debug] fail_rank = %d): this rank stops alone", ctx.debug.fail_rank);
    }
    rc = wl->run(&ctx);
    rc = hy_agree(comm, rc);
  }
  rc = finish(&ctx, wl, rc, want_record);
  for (int i = 0; i < ctx.nmetrics; i++) free(ctx.metrics[i].json);
  free(ctx.validation_json);
  free(ctx.unused_keys_json);
  k_backend_close(&ctx.be);
  cfg_free(&cfg);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return rc;
}
