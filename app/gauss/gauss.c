/* gauss.c - workload "gauss": solve A x = b by Gaussian elimination / LU on every rank's device.
 *
 * Algorithms (app/gauss/gauss_rows.c, gauss_blocked.c): naive (the seed's three kernels per
 * step, no pivoting, rows cyclic over ranks), stepwise (the same with partial pivoting through
 * an all-reduce), blocked (right-looking blocked LU on a 2D block-cyclic grid, GEMM updates,
 * lookahead 0 or 1).  Precision double, single, or mixed (FP32 factors + FP64 iterative refinement:
 * classical or GMRES-IR, app/gauss/gauss_refine.c).
 * Every run ends with the HPL scaled residual in FP64 against the original matrix. */
#include "gauss/gauss.h"

#include <stdlib.h>
#include <string.h>

static const cfg_key gauss_keys[] = {
  { "gauss", "algorithm", CFG_ENUM, "blocked", 0, 0, "naive|stepwise|blocked",
    "naive: the seed (no pivoting); stepwise: + partial pivoting; blocked: 2D block-cyclic LU" },
  { "gauss", "precision", CFG_ENUM, "double", 0, 0, "double|single|mixed",
    "arithmetic of the factorization; mixed: FP32 factors + FP64 iterative refinement" },
  { "gauss", "n", CFG_INT_LIST, "1000", 1, 2147483647.0, NULL,
    "matrix order (matrix = file: from the file); a list (16384, 32768) sweeps HPL.dat-style" },
  { "gauss", "nb", CFG_INT_LIST, "0", 0, 65536, NULL,
    "blocked: block size (0: auto: on a GPU 512, 1024 in FP64 from n = 32768, 1536 from 65536, n when n <= 1024; "
    "64 on the host); a list sweeps" },
  { "gauss", "grid", CFG_GRID_LIST, "auto", 0, 0, NULL,
    "blocked: process grid PxQ (P * Q = ranks); auto: the most square with P <= Q; a list sweeps" },
  { "gauss", "memory", CFG_ENUM, "device", 0, 0, "device|managed",
    "naive/stepwise: device memory + explicit copies (seed: buffer) or managed memory (seed: USM)" },
  { "gauss", "matrix", CFG_ENUM, "random", 0, 0, "random|diagdom|file|illcond|hplmxp",
    "random: uniform in [-0.5, 0.5]; diagdom: random + n on the diagonal; file: gauss.file; "
    "illcond: U diag(sigma) V^T, sigma geometric from 1 to 1/cond (n <= 2048); hplmxp: HPL-MxP's "
    "matrix, random off the diagonal, a_ii = sum of |a_ij| over j != i" },
  { "gauss", "cond", CFG_REAL, "1e8", 1, 1e15, NULL,
    "matrix = illcond: 2-norm condition number of A" },
  { "gauss", "file", CFG_STR, "", 0, 0, NULL, "matrix = file: Matrix Market (dense or sparse) or PETSc binary" },
  { "gauss", "rhs", CFG_ENUM, "random", 0, 0, "random|ones|file", "right-hand side b" },
  { "gauss", "rhs_file", CFG_STR, "", 0, 0, NULL, "rhs = file: Matrix Market or PETSc binary vector" },
  { "gauss", "low", CFG_ENUM, "fp32", 0, 0, "fp32|tf32|bf16|fp16",
    "single/mixed, blocked: the inputs of the trailing-update GEMMs rounded to this format with "
    "FP32 accumulation (GPU: tensor cores, cublasGemmEx; host: the rounding emulated), the panel "
    "and TRSM in FP32 (tensor = tf32 instead: cuBLAS's TF32 math mode for GEMM and TRSM)" },
  { "gauss", "lookahead_low", CFG_ENUM, "low", 0, 0, "low|tf32",
    "blocked, low = fp16|bf16: the lookahead GEMM's inputs: low (the step's 16-bit copies of the "
    "L panel and U block row, as the rest of the trailing update) or tf32 (the FP32 L panel and U "
    "columns rounded to TF32 inside the GEMM, tensor cores, FP32 sums: no 16-bit copy of those U "
    "columns; the next panel's columns then carry TF32 rounding, at least as fine as FP16's)" },
  { "gauss", "tensor", CFG_ENUM, "none", 0, 0, "none|tf32",
    "single/mixed on a GPU: FP32 GEMMs through TF32 tensor cores (mixed refines to FP64 or falls back)" },
  { "gauss", "max_refine", CFG_INT, "30", 1, 1000, NULL,
    "mixed: most refinement steps (of each method) before falling back to FP64" },
  { "gauss", "refine", CFG_ENUM, "auto", 0, 0, "classic|gmres|auto",
    "mixed: classic: x -= (LU)^-1 r; gmres: GMRES-IR (GMRES in FP64 preconditioned by the FP32 "
    "LU); auto: classic, switching to GMRES-IR when it stops halving the residual" },
  { "gauss", "gmres_max", CFG_INT, "50", 1, 1000, NULL,
    "mixed, GMRES-IR: most GMRES iterations per refinement step" },
  { "gauss", "gmres_precond", CFG_ENUM, "right", 0, 0, "left|right",
    "mixed, GMRES-IR: left: GMRES on (LU)^-1 A d = (LU)^-1 r (Carson & Higham); right: flexible "
    "GMRES (FGMRES) on A (LU)^-1, minimising the true FP64 residual" },
  { "gauss", "gmres_tol", CFG_REAL, "1e-10", 1e-15, 0.5, NULL,
    "mixed, GMRES-IR: GMRES stops when the preconditioned residual falls by this factor" },
  { "gauss", "bcast", CFG_ENUM, "auto", 0, 0, "auto|nccl|mpi",
    "blocked, > 1 rank: panel / U broadcasts: nccl (device buffers, CUDA backend built with NCCL, "
    "one device per rank), mpi (staged through host memory), auto (nccl when possible, else mpi)" },
  { "gauss", "threshold", CFG_REAL, "16", 0, 1e30, NULL, "HPL scaled residual threshold" },
  { "gauss", "profile", CFG_BOOL, "false", 0, 0, NULL,
    "blocked: synchronise between the factorization's parts and print their times (panel, swaps, "
    "TRSM + U broadcast, lookahead GEMM, rest of the trailing GEMM); slows the run" },
  { "gauss", "trace", CFG_BOOL, "false", 0, 0, NULL,
    "blocked: time marks on both streams (GPU: events), nothing synchronised: print where the "
    "factorization's wall time went (first panel, swaps, TRSM, low copies, lookahead GEMM, "
    "trailing GEMM, waiting for the next panel; the side stream's panels and how much of them "
    "was hidden; by quarter of the steps)" },
  { "gauss", "panel", CFG_ENUM, "auto", 0, 0, "vendor|recursive|fused|auto",
    "blocked: the panel LU: auto (the backend's choice: CUDA fused for FP64 from n = 16384, its "
    "short panels by the vendor's (panel_vendor_short), else vendor; host vendor), vendor (cuSOLVER / LAPACK "
    "getrf on the whole nb-wide panel), "
    "recursive (halves of the columns: left factored, TRSM + GEMM on the right, right factored; "
    "blocks of panel_nb columns by getrf: most panel flops in GEMM, pivots kept on the device) or "
    "fused (recursive, blocks of min(panel_nb, 32) columns in one launch of our own: GPU: a "
    "cooperative kernel, rows in shared memory, the blocks in step per column (panel_sync); host: "
    "a plain loop)" },
  { "gauss", "panel_vendor_rows", CFG_INT, "-1", -1, 1e12, NULL,
    "blocked, panel = recursive | fused: panels of more than this many rows are factored by the "
    "vendor's getrf instead (0: none; -1: with panel = auto the backend's bound, else none; fused "
    "holds a panel's rows in shared memory, so a tall one takes many multiprocessors from the "
    "trailing GEMM beside it)" },
  { "gauss", "panel_vendor_short", CFG_INT, "-1", -1, 1e12, NULL,
    "blocked, panel = recursive | fused: panels of at most this many rows are factored by the "
    "vendor's getrf instead (0: none; -1: with panel = auto the backend's bound, else none; the "
    "short panels of the factorization's end are on its critical path, where the vendor's "
    "getrf may be the faster)" },
  { "gauss", "panel_rows", CFG_INT, "0", 0, 1048576, NULL,
    "blocked, panel = fused (GPU): about this many rows a thread block of the base block (0: "
    "1024; more rows: fewer blocks, so fewer multiprocessors taken from the trailing GEMM, as far "
    "as shared memory holds them: at most ~1600 FP32 / ~800 FP64 rows of 32 columns)" },
  { "gauss", "panel_sync", CFG_ENUM, "flags", 0, 0, "flags|grid",
    "blocked, panel = fused (GPU): how the base block's thread blocks share each column's pivot "
    "candidates: flags (each candidate's key is its own flag, polled by every block: no grid "
    "barrier per column; one block alone publishes nothing) or grid (a grid barrier per column, "
    "then the candidates read); the same pivots and factors" },
  { "gauss", "panel_kernel", CFG_ENUM, "auto", 0, 0, "auto|registers|shared",
    "blocked, panel = fused (GPU), panel_sync = flags: the base block's kernel: registers (a row a "
    "thread held in registers, 512 rows a thread block, where one block a multiprocessor holds "
    "the panel's rows), shared (a chunk of rows a block in shared memory), auto (registers up to "
    "64 blocks, 32768 rows: taller panels take most of the GPU beside the trailing GEMM); the "
    "same pivots and factors" },
  { "gauss", "panel_sms", CFG_INT, "0", 0, 1024, NULL,
    "blocked, lookahead 1, GPU: the main stream's library calls (the trailing GEMMs, TRSM) use all "
    "but this many multiprocessors (cublasSetSmCountTarget), left to the lookahead panel factored "
    "beside them (0: all; the GEMM's kernels otherwise hold every multiprocessor to the end of "
    "the call, and the panel waits for it)" },
  { "gauss", "panel_nb", CFG_INT, "64", 1, 4096, NULL,
    "blocked, panel = recursive | fused: widest column block factored as one (fused: at most 32)" },
  { "gauss", "lookahead", CFG_INT, "1", 0, 1, NULL,
    "blocked: 1: the next panel's columns updated first, the panel factored (and sent) on a "
    "second stream while the rest of the trailing update runs; 0: each step in order on one stream" },
  { "gauss", "update_chunks", CFG_INT, "0", 0, 16, NULL,
    "blocked, one process row: the trailing update's columns beyond the lookahead panel in this "
    "many chunks of fixed columns (each a multiple of nb wide): a chunk's row swaps and TRSM run "
    "on a second stream beside the GEMMs of the chunks before it (of this step and the previous "
    "one), off the main stream's critical path; 1: one swap, TRSM and GEMM in order on the main "
    "stream; 0: the backend's choice (host: 1; CUDA: see README)" },
  { "gauss", "update_priority", CFG_ENUM, "high", 0, 0, "high|same",
    "blocked, update_chunks > 1: the priority of the chunks' swap + TRSM stream: high (between "
    "the main stream's and the lookahead panel's: its kernels pass the GEMM's queued blocks) or "
    "same (the main stream's)" },
  { "gauss", "side_priority", CFG_ENUM, "high", 0, 0, "high|same",
    "blocked, lookahead 1: the priority of the stream that factors the next panel: high (its "
    "kernels pass the trailing GEMM's queued blocks) or same (the main stream's: the GEMM keeps "
    "its multiprocessors, the panel waits for free ones)" },
  { "gauss", "lda", CFG_ENUM, "exact", 0, 0, "auto|exact",
    "blocked: leading dimension of the factors: exact (the local rows) or auto (rounded up to 64 "
    "elements, 64 more when a column's stride would be a multiple of 4 KiB: no power-of-two stride)" },
  { "gauss", "pivots", CFG_ENUM, "device", 0, 0, "device|host",
    "blocked, 1 rank: device: the panels' pivots stay on the device (row swaps planned and "
    "applied there, one launch per step; a singular column found after the factorization); host: "
    "each panel's pivots to the host before its swaps (always so with more ranks)" },
  { "gauss", "pivoting", CFG_ENUM, "partial", 0, 0, "partial|none",
    "blocked, precision = single | mixed: partial (row exchanges, LAPACK's getrf) or none (the "
    "FP32 LU without row exchanges, as HPL-MxP's rules allow for its diagonally dominant matrix: "
    "every panel by a recursion whose base blocks need no pivot search, no row swaps; a zero "
    "pivot makes mixed fall back to FP64, which pivots)" },
  { "gauss", "small", CFG_ENUM, "auto", 0, 0, "auto|on|off|coop",
    "blocked, 1 rank, FP64, nb = 0: the small-n LU (GPU: one launch per panel of 8 columns, no "
    "host synchronisation until the end, the solve in one more launch); auto: up to the "
    "backend's measured bound (CUDA: n <= 1024, where it beat the blocked LU on the H200); on: "
    "required (CUDA: n <= 2048; exit 1 where it cannot run); coop: as on with the older "
    "whole-LU cooperative kernel (slower: kept to compare)" },
  { "gauss", "compare_cusolver", CFG_BOOL, "false", 0, 0, NULL,
    "1 rank: also time the vendor LU (cuSOLVER / LAPACK dgetrf+dgetrs) and a DGEMM on the same device" },
  { "gauss", "repeat", CFG_INT, "1", 1, 1000, NULL,
    "run the factorization + solve this many times; > 1: the first warms up, the mean of the rest is reported" },
  { "gauss", "gemm_n", CFG_INT, "8192", 64, 65536, NULL, "compare_cusolver: order of the timed DGEMM" },
  { "output", "matrix", CFG_STR, "", 0, 0, NULL,
    "write A here (.petsc/.bin/.dat: PETSc binary, else Matrix Market)" },
  { "output", "rhs", CFG_STR, "", 0, 0, NULL, "write b here (PETSc binary by extension, else Matrix Market)" },
  { "output", "solution", CFG_STR, "", 0, 0, NULL, "write x here (PETSc binary by extension, else Matrix Market)" },
  CFG_END
};

/* Cross-key checks (rank 0, before the run).  Local. */
static int gauss_cfg_check(hy_cfg *c) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (cfg_is(c, "gauss.matrix", "file") && !cfg_str(c, "gauss.file")[0])
    return cfg_err(c, "gauss.matrix", "= file needs gauss.file = PATH");
  if (cfg_is(c, "gauss.rhs", "file") && !cfg_str(c, "gauss.rhs_file")[0])
    return cfg_err(c, "gauss.rhs", "= file needs gauss.rhs_file = PATH");
  int Ps[CFG_LIST_MAX], Qs[CFG_LIST_MAX];
  int ng = cfg_grid_list(c, "gauss.grid", Ps, Qs, CFG_LIST_MAX);
  for (int i = 0; i < ng; i++) {
    int P = Ps[i], Q = Qs[i];
    char el[32] = "";
    if (ng > 1) snprintf(el, sizeof el, "element %d ", i + 1);
    if (P > 0 && P * Q != size)
      return cfg_err(c, "gauss.grid", "%s= %dx%d needs %d ranks, but the run has %d (allowed: PxQ "
                     "with P * Q = %d, or auto)", el, P, Q, P * Q, size, size);
    if (P > 0 && !cfg_is(c, "gauss.algorithm", "blocked") && Q != 1)
      return cfg_err(c, "gauss.grid", "%s= %dx%d: algorithm %s distributes rows only (allowed: "
                     "auto or %dx1)", el, P, Q, cfg_str(c, "gauss.algorithm"), size);
  }
  int64_t ns[CFG_LIST_MAX], nbs[CFG_LIST_MAX];
  int nn = cfg_int_list(c, "gauss.n", ns, CFG_LIST_MAX);
  int nnb = cfg_int_list(c, "gauss.nb", nbs, CFG_LIST_MAX);
  if (cfg_is(c, "gauss.matrix", "file") && nn > 1)
    return cfg_err(c, "gauss.n", "= %s: a list of orders needs a generated matrix (matrix = file "
                   "has the file's order)", cfg_str(c, "gauss.n"));
  if ((long long)ng * nn * nnb > 1)
    for (const char *const *k = (const char *const[]){ "output.matrix", "output.rhs",
                                                         "output.solution", NULL }; *k; k++)
      if (cfg_str(c, *k)[0])
        return cfg_err(c, *k, "= %s: one file, but the sweep (gauss.n / nb / grid lists) solves "
                       "%lld systems (allowed: a single combination)", cfg_str(c, *k),
                       (long long)ng * nn * nnb);
  for (int i = 0; i < nn && cfg_is(c, "gauss.matrix", "illcond"); i++)
    if (ns[i] > 2048)
      return cfg_err(c, "gauss.n", "= %lld: matrix = illcond is built on one rank in O(n^3) and "
                     "kept whole on every rank (allowed: n <= 2048)", (long long)ns[i]);
  if (cfg_is(c, "gauss.memory", "managed") && cfg_is(c, "gauss.algorithm", "blocked"))
    return cfg_err(c, "gauss.memory", "= managed applies to algorithm naive or stepwise (the seed's "
                   "USM variant); blocked keeps its matrix in device memory");
  if (cfg_enum(c, "gauss.low") != GAUSS_LOW_FP32 &&
      (cfg_is(c, "gauss.precision", "double") || !cfg_is(c, "gauss.algorithm", "blocked")))
    return cfg_err(c, "gauss.low", "= %s rounds the blocked LU's FP32 GEMM inputs: it needs "
                   "algorithm = blocked and precision = single or mixed", cfg_str(c, "gauss.low"));
  if (cfg_is(c, "gauss.pivoting", "none") &&
      (cfg_is(c, "gauss.precision", "double") || !cfg_is(c, "gauss.algorithm", "blocked")))
    return cfg_err(c, "gauss.pivoting", "= none factors the blocked LU's FP32 factors without row "
                   "exchanges: it needs algorithm = blocked and precision = single or mixed (allowed "
                   "otherwise: partial)");
  if (cfg_is(c, "gauss.panel_kernel", "registers") &&
      (cfg_is(c, "gauss.panel_sync", "grid") || cfg_int(c, "gauss.panel_rows") != 0))
    return cfg_err(c, "gauss.panel_kernel", "= registers holds 512 rows a thread block and shares the "
                   "candidates by flags: it needs gauss.panel_sync = flags and gauss.panel_rows = 0 "
                   "(allowed otherwise: auto, shared)");
  if (cfg_bool(c, "gauss.compare_cusolver") && size != 1)
    return cfg_err(c, "gauss.compare_cusolver", "= true times the vendor LU on one device: run it "
                   "with 1 rank (this run has %d)", size);
  return HY_OK;
}

/* The typed options, read once.  Local. */
void gauss_opts_from_cfg(const hy_cfg *c, gauss_opts *o) {
  memset(o, 0, sizeof *o);
  o->n_count = cfg_int_list(c, "gauss.n", o->ns, CFG_LIST_MAX);
  o->nb_count = cfg_int_list(c, "gauss.nb", o->nbs, CFG_LIST_MAX);
  o->grid_count = cfg_grid_list(c, "gauss.grid", o->Ps, o->Qs, CFG_LIST_MAX);
  o->sweep = o->n_count * o->nb_count * o->grid_count > 1;
  o->n = o->ns[0];
  o->n_given = cfg_given(c, "gauss.n");
  o->nb = o->nbs[0];
  o->P = o->Ps[0];
  o->Q = o->Qs[0];
  o->alg = cfg_enum(c, "gauss.algorithm");
  o->prec = cfg_enum(c, "gauss.precision");
  o->managed = cfg_is(c, "gauss.memory", "managed");
  o->mtype = cfg_enum(c, "gauss.matrix");
  o->matrix_name = cfg_str(c, "gauss.matrix");
  o->cond = cfg_real(c, "gauss.cond");
  o->file = cfg_str(c, "gauss.file");
  o->rhs = cfg_enum(c, "gauss.rhs");
  o->rhs_name = cfg_str(c, "gauss.rhs");
  o->rhs_file = cfg_str(c, "gauss.rhs_file");
  o->low = cfg_enum(c, "gauss.low");
  o->la_tf32 = cfg_is(c, "gauss.lookahead_low", "tf32");
  o->tf32 = cfg_is(c, "gauss.tensor", "tf32");
  o->max_refine = (int)cfg_int(c, "gauss.max_refine");
  o->refine = cfg_enum(c, "gauss.refine");
  o->gmres_max = (int)cfg_int(c, "gauss.gmres_max");
  o->gmres_right = cfg_is(c, "gauss.gmres_precond", "right");
  o->gmres_tol = cfg_real(c, "gauss.gmres_tol");
  o->bcast = cfg_enum(c, "gauss.bcast");
  o->threshold = cfg_real(c, "gauss.threshold");
  o->compare = cfg_bool(c, "gauss.compare_cusolver");
  o->repeat = (int)cfg_int(c, "gauss.repeat");
  o->gemm_n = cfg_int(c, "gauss.gemm_n");
  o->profile = cfg_bool(c, "gauss.profile");
  o->trace = cfg_bool(c, "gauss.trace");
  o->panel = cfg_enum(c, "gauss.panel");
  o->panel_nb = (int)cfg_int(c, "gauss.panel_nb");
  o->panel_rows = (int)cfg_int(c, "gauss.panel_rows");
  o->panel_sms = (int)cfg_int(c, "gauss.panel_sms");
  o->panel_sync_grid = cfg_is(c, "gauss.panel_sync", "grid");
  o->panel_kernel = cfg_is(c, "gauss.panel_kernel", "shared") ? 1 : cfg_is(c, "gauss.panel_kernel", "registers") ? 2 : 0;
  o->panel_vendor_rows = cfg_int(c, "gauss.panel_vendor_rows");
  o->panel_vendor_short = cfg_int(c, "gauss.panel_vendor_short");
  o->lookahead = (int)cfg_int(c, "gauss.lookahead");
  o->update_chunks = (int)cfg_int(c, "gauss.update_chunks");
  o->update_same = cfg_is(c, "gauss.update_priority", "same");
  o->side_same = cfg_is(c, "gauss.side_priority", "same");
  o->pivots_dev = cfg_is(c, "gauss.pivots", "device");
  o->nopiv = cfg_is(c, "gauss.pivoting", "none");
  o->lda_pad = cfg_is(c, "gauss.lda", "auto");
  o->small = cfg_enum(c, "gauss.small");
  o->seed = (uint64_t)cfg_int(c, "run.seed");
  o->out_matrix = cfg_str(c, "output.matrix");
  o->out_rhs = cfg_str(c, "output.rhs");
  o->out_solution = cfg_str(c, "output.solution");
}

/* The stages in order; the first failure (a code every rank holds) ends the story.
 * Collective. */
static int gauss_stages(gauss_t *g, hy_ctx *ctx, const gauss_opts *o, gauss_info *info,
                        double **x, gauss_line *line) {
  /* load: inputs, grid and transport, the FP64 matrix on the device */
  hy_phase_begin(ctx, "generate");
  HY_CALL(gauss_load(g, ctx, o, info));
  hy_phase_end(ctx, "generate");
  /* the vendor's figures beside ours (1 rank) */
  if (o->compare) {
    hy_phase_begin(ctx, "reference");
    HY_CALL(gauss_reference(g, info));
    hy_phase_end(ctx, "reference");
  }
  /* solve: factor + solve (+ refinement, FP64 fallback), gauss.repeat times */
  HY_MALLOC(*x, g->n);
  HY_CALL(gauss_solve(g, info, *x));
  /* the vendor's DGEMM after both LU timings (its power burst slowed the runs right after it) */
  if (o->compare) {
    hy_phase_begin(ctx, "reference");
    HY_CALL(gauss_reference_gemm(g, info));
    hy_phase_end(ctx, "reference");
  }
  /* check: HPL's scaled residual in FP64 against the original matrix */
  hy_phase_begin(ctx, "check");
  HY_CALL(gauss_verify(g, info, *x));
  hy_phase_end(ctx, "check");
  /* report: lines, metrics, verdict, output files */
  return gauss_report(g, info, *x, line);
}

/* One combination of gauss.n / nb / grid (the whole of a run without a sweep): the stages
 * with this combination's options, everything freed on every way out.  Collective. */
static int gauss_one(hy_ctx *ctx, const gauss_opts *o, gauss_line *line) {
  gauss_t g;
  gauss_info info;
  memset(&g, 0, sizeof g);
  memset(&info, 0, sizeof info);
  double *x = NULL;
  int rc = gauss_stages(&g, ctx, o, &info, &x, line);
  free(x);
  gauss_free(&g);
  return rc;
}

/* The workload: for every combination of the lists (HPL's order: grid, then n, then nb; one
 * without lists) load -> (reference) -> solve -> check -> report; a sweep then reports every
 * line again with its verdict.  A failed check goes on to the next combination (exit 4 at the
 * end, as HPL does); any other failure ends the run with its code.  Collective. */
static int gauss_run(hy_ctx *ctx) {
  gauss_opts o;
  gauss_opts_from_cfg(ctx->cfg, &o);
  int total = o.grid_count * o.n_count * o.nb_count, k = 0, rc = HY_OK;
  gauss_line *lines;
  HY_CALLOC(lines, total);
  for (int gi = 0; gi < o.grid_count; gi++)
    for (int ni = 0; ni < o.n_count; ni++)
      for (int bi = 0; bi < o.nb_count && (rc == HY_OK || rc == HY_EVALID); bi++) {
        gauss_opts one = o;
        one.P = o.Ps[gi];
        one.Q = o.Qs[gi];
        one.n = o.ns[ni];
        one.nb = o.nbs[bi];
        if (o.sweep && one.P)
          hy_printf0(ctx, "sweep: combination %d of %d: n = %lld, nb = %lld, grid %dx%d\n", k + 1,
                     total, (long long)one.n, (long long)one.nb, one.P, one.Q);
        else if (o.sweep)
          hy_printf0(ctx, "sweep: combination %d of %d: n = %lld, nb = %lld, grid auto\n", k + 1,
                     total, (long long)one.n, (long long)one.nb);
        int r = gauss_one(ctx, &one, &lines[k]);
        k += r == HY_OK || r == HY_EVALID;
        if (rc == HY_OK) rc = r;
        else if (r != HY_OK && r != HY_EVALID) rc = r;
      }
  if (o.sweep && (rc == HY_OK || rc == HY_EVALID)) rc = gauss_report_sweep(ctx, &o, lines, k);
  free(lines);
  return rc;
}

static const char gauss_default[] =
  "[run]\nworkload = gauss\n[gauss]\nn = 1000\nalgorithm = blocked\n";

const hy_workload gauss_workload = {
  "gauss", "dense A x = b by Gaussian elimination / blocked LU (the seed 000), HPL residual check",
  gauss_keys, gauss_cfg_check, gauss_run, gauss_default,
};
