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
         "Without CONFIG, the embedded default configuration of the first workload runs.\n"
         "section.key=value arguments override the file.  --inspect reads a matrix or vector\n"
         "file (Matrix Market, optionally gzip'ed, or PETSc binary) and prints its size.\n\n"
         "workloads ([run] workload = NAME):\n", hy_version(), hy_git_id());
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
    HY_CALL(cfg_parse_file(cfg, file));
  } else {
    const hy_workload *w = hy_workloads[0];
    HY_CALL(cfg_parse_text(cfg, "(embedded default)", w->default_config ? w->default_config : ""));
  }
  for (int i = 1; i < argc; i++)
    if (strchr(argv[i], '=')) HY_CALL(cfg_override(cfg, argv[i]));
  HY_CALL(cfg_check(cfg));
  return HY_OK;
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

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "hybrid: MPI_Init failed\n");
    return HY_ESYS;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rank;
  MPI_Comm_rank(comm, &rank);

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (rank == 0) print_help();
      MPI_Finalize();
      return 0;
    }
    if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
      if (rank == 0) printf("hybrid %s (git %s)\n", hy_version(), hy_git_id());
      MPI_Finalize();
      return 0;
    }
    if (!strcmp(argv[i], "--inspect")) {
      int rc = i + 1 < argc ? inspect(comm, rank, argv[i + 1])
                            : (rank == 0 ? fprintf(stderr, "hybrid: error: --inspect needs a FILE\n") : 0, HY_EUSAGE);
      MPI_Finalize();
      return rc;
    }
  }

  hy_cfg cfg;
  hy_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.comm = comm;
  ctx.cfg = &cfg;
  ctx.t_start = hy_wtime();
  ctx.rank = rank;

  /* rank 0 reads and checks the configuration, the verdict is shared, then the values */
  int rc = HY_OK;
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

  const hy_workload *wl = hy_workload_find(cfg_str(&cfg, "run.workload"));
  snprintf(ctx.out_dir, sizeof ctx.out_dir, "%s", cfg_str(&cfg, "output.dir"));
  ctx.progress_interval = (int)cfg_int(&cfg, "run.progress");
  ctx.debug.fail_rank = (int)cfg_int(&cfg, "debug.fail_rank");
  ctx.debug.fail_code = (int)cfg_int(&cfg, "debug.fail_code");
  snprintf(ctx.debug.fail_stage, sizeof ctx.debug.fail_stage, "%s", cfg_str(&cfg, "debug.fail_stage"));
  ctx.debug.perturb = cfg_real(&cfg, "debug.perturb");
  ctx.debug.host_coll = cfg_bool(&cfg, "debug.host_coll");

  rc = rt_topology(&ctx);
  int want_record = cfg_bool(&cfg, "output.record");
  if (rc == HY_OK && want_record) {
    rc = rt_record_dir_check(&ctx);
    if (rc != HY_OK) want_record = 0; /* nowhere to write it */
  }
  if (rc == HY_OK) rc = rt_backend_open(&ctx);
  if (rc == HY_OK && rank == 0) {
    printf("hybrid %s (%s): workload %s, %d rank(s) on %d node(s), backend %s\n", hy_version(),
           hy_git_id(), wl->name, ctx.size, ctx.nnodes, ctx.be.name);
    printf("MPI: %s\nconfig: %s\n", rt_mpi_library(), cfg.file);
    fflush(stdout);
  }

  if (rc == HY_OK) {
    if (ctx.debug.fail_rank == rank && !ctx.debug.fail_stage[0]) {
      struct timespec ts = { 0, 200000000 };
      nanosleep(&ts, NULL);
      hy_fatal(ctx.debug.fail_code,
               "injected failure ([debug] fail_rank = %d): this rank stops alone", ctx.debug.fail_rank);
    }
    rc = wl->run(&ctx);
    rc = hy_agree(comm, rc);
  }

  char *devices = NULL, *phases = NULL;
  if (ctx.be.ops) {
    if (rt_devices_json(&ctx, &devices) != HY_OK) hy_abort_recorded(HY_ESYS);
    if (rt_phases_json(&ctx, &phases, 1) != HY_OK) hy_abort_recorded(HY_ESYS);
  }
  if (rank == 0 && want_record) {
    char path[1400];
    char errmsg[2100] = "";
    if (rc != HY_OK && rc != HY_EVALID) snprintf(errmsg, sizeof errmsg, "%s", hy_err_msg());
    hy_err_clear(); /* the record's own error must not hide behind the run's (first wins) */
    int wrc = rt_record_write(&ctx, wl->name, rc, devices, phases, errmsg, path, sizeof path);
    if (wrc == HY_OK) printf("record: %s\n", path);
    if (wrc != HY_OK && rc == HY_OK) {
      rc = wrc; /* final_line prints the record's error (once), not the passed verdict */
      ctx.verdict[0] = '\0';
    } else {
      if (wrc != HY_OK) fprintf(stderr, "hybrid: error: %s\n", hy_err_msg());
      hy_err_clear();
      if (errmsg[0]) hy_err(rc, "%s", errmsg); /* the run's error again, for final_line */
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  final_line(&ctx, rc);
  free(devices);
  free(phases);
  for (int i = 0; i < ctx.nmetrics; i++) free(ctx.metrics[i].json);
  free(ctx.validation_json);
  k_backend_close(&ctx.be);
  cfg_free(&cfg);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return rc;
}
