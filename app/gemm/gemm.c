/* gemm.c - workload "gemm" (seed 002): dense C = alpha A B + beta C distributed over a 2D
 * process grid by SUMMA, with the seed's naive and tiled kernels beside the vendor's GEMM.
 *
 * The key table, the typed options (gemm_opts_from_cfg: the only place that reads them), the
 * cross-key checks, and the staged driver: load -> summa -> check -> write -> compare ->
 * report.  The stages live in gemm_data.c, gemm_summa.c (+ gemm_bcast*.c), gemm_check.c and
 * gemm_report.c. */
#include "gemm/gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cfg_key gemm_keys[] = {
  { "gemm", "m", CFG_INT, "1024", 1, 2147483647.0, NULL, "rows of A and C (source = file: from the file)" },
  { "gemm", "n", CFG_INT, "1024", 1, 2147483647.0, NULL, "columns of B and C (source = file: from the file)" },
  { "gemm", "k", CFG_INT, "1024", 1, 2147483647.0, NULL, "columns of A, rows of B (source = file: from the files)" },
  { "gemm", "nb", CFG_INT, "256", 1, 65536, NULL,
    "block size of the 2D block-cyclic distribution and width of the SUMMA panels" },
  { "gemm", "grid", CFG_GRID, "auto", 0, 0, NULL,
    "process grid PxQ (P * Q = ranks); auto: the most square with P <= Q" },
  { "gemm", "precision", CFG_ENUM, "float", 0, 0, "float|double|tf32|bf16|fp16",
    "float: the seed (FP32); double: FP64; tf32 / bf16 / fp16: inputs rounded once, FP32 "
    "accumulation (tensor cores through the vendor kernel on a GPU)" },
  { "gemm", "kernel", CFG_ENUM, "tiled", 0, 0, "naive|tiled|vendor",
    "local GEMM: naive (the seed: one thread per element of C), tiled (the seed: shared-memory "
    "tiles), vendor (cuBLAS on a GPU, BLAS on the host)" },
  { "gemm", "tile", CFG_INT, "16", 8, 32, NULL, "kernel = tiled: tile edge (any size of matrix works)" },
  { "gemm", "source", CFG_ENUM, "random", 0, 0, "random|file",
    "random: uniform in [-0.5, 0.5) by global index from run.seed (the same for any rank count); "
    "file: gemm.a_file, gemm.b_file (and gemm.c_file when beta != 0)" },
  { "gemm", "a_file", CFG_STR, "", 0, 0, NULL, "source = file: A (Matrix Market or PETSc binary)" },
  { "gemm", "b_file", CFG_STR, "", 0, 0, NULL, "source = file: B (Matrix Market or PETSc binary)" },
  { "gemm", "c_file", CFG_STR, "", 0, 0, NULL, "source = file, beta != 0: the C that beta scales" },
  { "gemm", "alpha", CFG_REAL, "1", -1e30, 1e30, NULL, "C = alpha A B + beta C" },
  { "gemm", "beta", CFG_REAL, "0", -1e30, 1e30, NULL, "C = alpha A B + beta C (random C0 when source = random)" },
  { "gemm", "bcast", CFG_ENUM, "auto", 0, 0, "auto|nccl|mpi",
    "> 1 rank: panel broadcasts: nccl (device buffers, CUDA backend built with NCCL, one device "
    "per rank; on a side stream, overlapping the GEMM), mpi (staged through pinned host memory), "
    "auto (nccl when possible, else mpi)" },
  { "gemm", "panel", CFG_INT, "0", 0, 2147483647.0, NULL,
    "width of each SUMMA step's local update, a multiple of nb: that many consecutive k-blocks' panels "
    "gathered (from their owners) into one GEMM; 0: nb.  C is identical for any grid with the same panel" },
  { "gemm", "whole_k", CFG_BOOL, "true", 0, 0, NULL,
    "1x1 grid: one local GEMM over all of k (false: panels of nb, as on a larger grid)" },
  { "gemm", "threshold", CFG_REAL, "1", 0, 1e30, NULL,
    "pass when the check ratios (error / ((k + 4) u (|alpha| |A| |B| + |beta| |C0|))) are <= this" },
  { "gemm", "full_check_max", CFG_REAL, "1e9", 0, 1e30, NULL,
    "also compare every element with the host BLAS product (FP64, rank 0) when m n k <= this" },
  { "gemm", "compare", CFG_BOOL, "false", 0, 0, NULL,
    "also time naive, tiled and vendor alone on the m x n x k problem (1 rank; the seed's table)" },
  { "gemm", "reps", CFG_INT, "3", 1, 1000, NULL, "compare / vendor figure: timed runs after a warm-up (fastest)" },
  { "output", "a", CFG_STR, "", 0, 0, NULL, "gemm: write A as used (rounded) here (.petsc/.bin/.dat: PETSc binary, else Matrix Market)" },
  { "output", "b", CFG_STR, "", 0, 0, NULL, "gemm: write B as used (rounded) here" },
  { "output", "c", CFG_STR, "", 0, 0, NULL, "gemm: write the result C here (beta != 0: output.c0 gets C0)" },
  { "output", "c0", CFG_STR, "", 0, 0, NULL, "gemm: write the C0 that beta scaled here" },
  CFG_END
};

/* Cross-key checks (rank 0, before the run).  Local. */
static int gemm_cfg_check(hy_cfg *c) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int P = 0, Q = 0;
  cfg_grid(c, "gemm.grid", &P, &Q);
  if (P > 0 && P * Q != size)
    return cfg_err(c, "gemm.grid", "= %dx%d needs %d ranks, but the run has %d (allowed: PxQ with "
                   "P * Q = %d, or auto)", P, Q, P * Q, size, size);
  if (cfg_is(c, "gemm.source", "file")) {
    if (!cfg_str(c, "gemm.a_file")[0]) return cfg_err(c, "gemm.source", "= file needs gemm.a_file = PATH");
    if (!cfg_str(c, "gemm.b_file")[0]) return cfg_err(c, "gemm.source", "= file needs gemm.b_file = PATH");
    if (cfg_real(c, "gemm.beta") != 0 && !cfg_str(c, "gemm.c_file")[0])
      return cfg_err(c, "gemm.beta", "= %g with source = file needs gemm.c_file = PATH (the C that "
                     "beta scales), or beta = 0", cfg_real(c, "gemm.beta"));
    static const char *const dims[] = { "gemm.m", "gemm.n", "gemm.k" };
    for (int i = 0; i < 3; i++)
      if (cfg_given(c, dims[i]))
        return cfg_err(c, dims[i], "is set, but source = file takes the sizes from the files "
                       "(leave m, n, k out)");
  } else {
    static const char *const files[] = { "gemm.a_file", "gemm.b_file", "gemm.c_file" };
    for (int i = 0; i < 3; i++)
      if (cfg_str(c, files[i])[0])
        return cfg_err(c, files[i], "is set, but gemm.source = random (allowed: source = file)");
  }
  int64_t panel = cfg_int(c, "gemm.panel"), nb = cfg_int(c, "gemm.nb");
  if (panel % nb != 0)
    return cfg_err(c, "gemm.panel", "= %lld is not a multiple of gemm.nb = %lld (allowed: 0 for nb, or "
                   "%lld, %lld, ...)", (long long)panel, (long long)nb, (long long)nb, (long long)(2 * nb));
  if (cfg_bool(c, "gemm.compare") && size != 1)
    return cfg_err(c, "gemm.compare", "= true times every kernel alone on one device: run it with "
                   "1 rank (this run has %d)", size);
  if (cfg_str(c, "output.c0")[0] && cfg_real(c, "gemm.beta") == 0)
    return cfg_err(c, "output.c0", "is set, but gemm.beta = 0 (no C0 is used)");
  return HY_OK;
}

/* The typed options: every key of the workload, read once.  Local. */
static void gemm_opts_from_cfg(const hy_cfg *c, gemm_opts *o) {
  memset(o, 0, sizeof *o);
  o->m = cfg_int(c, "gemm.m");
  o->n = cfg_int(c, "gemm.n");
  o->k = cfg_int(c, "gemm.k");
  o->nb = cfg_int(c, "gemm.nb");
  cfg_grid(c, "gemm.grid", &o->P, &o->Q);
  o->prec = cfg_enum(c, "gemm.precision");
  o->kernel = cfg_enum(c, "gemm.kernel");
  o->tile = (int)cfg_int(c, "gemm.tile");
  o->source = cfg_is(c, "gemm.source", "file") ? GEMM_FILE : GEMM_RANDOM;
  snprintf(o->afile, sizeof o->afile, "%s", cfg_str(c, "gemm.a_file"));
  snprintf(o->bfile, sizeof o->bfile, "%s", cfg_str(c, "gemm.b_file"));
  snprintf(o->cfile, sizeof o->cfile, "%s", cfg_str(c, "gemm.c_file"));
  o->alpha = cfg_real(c, "gemm.alpha");
  o->beta = cfg_real(c, "gemm.beta");
  o->seed = (uint64_t)cfg_int(c, "run.seed");
  o->bcast = cfg_enum(c, "gemm.bcast");   /* auto|nccl|mpi: HY_BCAST_AUTO / DEVICE / MPI */
  o->panel = cfg_int(c, "gemm.panel") ? cfg_int(c, "gemm.panel") : o->nb;
  o->whole_k = cfg_bool(c, "gemm.whole_k");
  o->threshold = cfg_real(c, "gemm.threshold");
  o->full_max = cfg_real(c, "gemm.full_check_max");
  o->compare = cfg_bool(c, "gemm.compare");
  o->reps = (int)cfg_int(c, "gemm.reps");
  snprintf(o->out_a, sizeof o->out_a, "%s", cfg_str(c, "output.a"));
  snprintf(o->out_b, sizeof o->out_b, "%s", cfg_str(c, "output.b"));
  snprintf(o->out_c, sizeof o->out_c, "%s", cfg_str(c, "output.c"));
  snprintf(o->out_c0, sizeof o->out_c0, "%s", cfg_str(c, "output.c0"));
}

/* The workload: load -> summa -> check -> write -> compare -> report.  Collective. */
static int gemm_run(hy_ctx *ctx) {
  gemm_opts o;
  gemm_opts_from_cfg(ctx->cfg, &o);
  gemm_t g;
  memset(&g, 0, sizeof g);
  g.ctx = ctx;
  g.o = &o;
  g.be = &ctx->be;
  g.ko = k_gemm_ops_get(&ctx->be);
  gemm_info info;
  memset(&info, 0, sizeof info);
  for (int v = 0; v < K_GEMM_NKERNELS; v++) info.k_sec[v] = -1;
  info.full = -1;

  hy_phase_begin(ctx, "load");
  int rc = gemm_load(&g);
  hy_phase_end(ctx, "load");
  if (rc == HY_OK) rc = gemm_summa(&g, &info);
  if (rc == HY_OK) {
    hy_phase_begin(ctx, "check");
    rc = gemm_check(&g, &info);
    hy_phase_end(ctx, "check");
  }
  if (rc == HY_OK) {
    hy_phase_begin(ctx, "write");
    rc = gemm_write(&g);
    hy_phase_end(ctx, "write");
  }
  if (rc == HY_OK) {
    hy_phase_begin(ctx, "compare");
    rc = gemm_compare(&g, &info);
    hy_phase_end(ctx, "compare");
  }
  if (rc == HY_OK) rc = gemm_report(&g, &info);
  gemm_free(&g);
  return rc;
}

static const char gemm_default[] =
  "; embedded default: C = A B, 512^3 in FP32 with the seed's tiled kernel\n"
  "[run]\nworkload = gemm\n[gemm]\nm = 512\nn = 512\nk = 512\n";

const hy_workload gemm_workload = {
  "gemm", "dense C = alpha A B + beta C over a 2D grid (SUMMA): the seed's naive / tiled kernels and the vendor's",
  gemm_keys, gemm_cfg_check, gemm_run, gemm_default,
};
