/* gauss.c - workload "gauss": solve A x = b by Gaussian elimination / LU on every rank's device.
 *
 * Algorithms (app/gauss/gauss_rows.c, gauss_blocked.c): naive (the seed's three kernels per
 * step, no pivoting, rows cyclic over ranks), stepwise (the same with partial pivoting through
 * an all-reduce), blocked (right-looking blocked LU on a 2D block-cyclic grid, GEMM updates,
 * lookahead 1).  Precision double, single, or mixed (FP32 factors + FP64 iterative refinement:
 * classical or GMRES-IR, app/gauss/gauss_refine.c).
 * Every run ends with the HPL scaled residual in FP64 against the original matrix. */
#include "gauss/gauss.h"
#include "io/io.h"
#include "runtime/rng.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const cfg_key gauss_keys[] = {
  { "gauss", "algorithm", CFG_ENUM, "blocked", 0, 0, "naive|stepwise|blocked",
    "naive: the seed (no pivoting); stepwise: + partial pivoting; blocked: 2D block-cyclic LU" },
  { "gauss", "precision", CFG_ENUM, "double", 0, 0, "double|single|mixed",
    "arithmetic of the factorization; mixed: FP32 factors + FP64 iterative refinement" },
  { "gauss", "n", CFG_INT, "1000", 1, 2147483647.0, NULL, "matrix order (matrix = file: from the file)" },
  { "gauss", "nb", CFG_INT, "0", 0, 65536, NULL,
    "blocked: block size (0: auto: 512 on a GPU, n when n <= 1024; 64 on the host)" },
  { "gauss", "grid", CFG_GRID, "auto", 0, 0, NULL,
    "blocked: process grid PxQ (P * Q = ranks); auto: the most square with P <= Q" },
  { "gauss", "memory", CFG_ENUM, "device", 0, 0, "device|managed",
    "naive/stepwise: device memory + explicit copies (seed: buffer) or managed memory (seed: USM)" },
  { "gauss", "matrix", CFG_ENUM, "random", 0, 0, "random|diagdom|file|illcond",
    "random: uniform in [-0.5, 0.5]; diagdom: random + n on the diagonal; file: gauss.file; "
    "illcond: U diag(sigma) V^T, sigma geometric from 1 to 1/cond (n <= 2048)" },
  { "gauss", "cond", CFG_REAL, "1e8", 1, 1e15, NULL,
    "matrix = illcond: 2-norm condition number of A" },
  { "gauss", "file", CFG_STR, "", 0, 0, NULL, "matrix = file: Matrix Market (dense or sparse) or PETSc binary" },
  { "gauss", "rhs", CFG_ENUM, "random", 0, 0, "random|ones|file", "right-hand side b" },
  { "gauss", "rhs_file", CFG_STR, "", 0, 0, NULL, "rhs = file: Matrix Market or PETSc binary vector" },
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
static int gauss_check(hy_cfg *c) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (cfg_is(c, "gauss.matrix", "file") && !cfg_str(c, "gauss.file")[0])
    return cfg_err(c, "gauss.matrix", "= file needs gauss.file = PATH");
  if (cfg_is(c, "gauss.rhs", "file") && !cfg_str(c, "gauss.rhs_file")[0])
    return cfg_err(c, "gauss.rhs", "= file needs gauss.rhs_file = PATH");
  int P = 0, Q = 0;
  cfg_grid(c, "gauss.grid", &P, &Q);
  if (P > 0 && P * Q != size)
    return cfg_err(c, "gauss.grid", "= %dx%d needs %d ranks, but the run has %d (allowed: PxQ with "
                   "P * Q = %d, or auto)", P, Q, P * Q, size, size);
  if (P > 0 && !cfg_is(c, "gauss.algorithm", "blocked") && Q != 1)
    return cfg_err(c, "gauss.grid", "= %dx%d: algorithm %s distributes rows only (allowed: auto or "
                   "%dx1)", P, Q, cfg_str(c, "gauss.algorithm"), size);
  if (cfg_is(c, "gauss.memory", "managed") && cfg_is(c, "gauss.algorithm", "blocked"))
    return cfg_err(c, "gauss.memory", "= managed applies to algorithm naive or stepwise (the seed's "
                   "USM variant); blocked keeps its matrix in device memory");
  if (cfg_is(c, "gauss.matrix", "illcond") && cfg_int(c, "gauss.n") > 2048)
    return cfg_err(c, "gauss.n", "= %lld: matrix = illcond is built on one rank in O(n^3) and kept "
                   "whole on every rank (allowed: n <= 2048)", (long long)cfg_int(c, "gauss.n"));
  if (cfg_bool(c, "gauss.compare_cusolver") && size != 1)
    return cfg_err(c, "gauss.compare_cusolver", "= true times the vendor LU on one device: run it "
                   "with 1 rank (this run has %d)", size);
  return HY_OK;
}

/* malloc or a local fatal error (rank and place printed, MPI_Abort).  Local. */
void *gauss_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) hy_fatal(HY_ESYS, "out of memory allocating %zu bytes", bytes);
  return p;
}

/* Backend allocation or a local fatal error.  Local. */
void *gauss_dalloc(gauss_t *g, size_t bytes) {
  void *p = NULL;
  GAUSS_K(g->be->ops->alloc(g->be, &p, bytes ? bytes : 8));
  return p;
}

/* Entry (i, j) of the original matrix.  Local. */
double gauss_entry(const gauss_t *g, int64_t i, int64_t j) {
  if (g->mtype == GAUSS_FILE || g->mtype == GAUSS_ILLCOND) return g->fileA[i + j * g->n];
  double v = hy_rand_u01(g->seed, 1, (uint64_t)i * (uint64_t)g->n + (uint64_t)j) - 0.5;
  if (g->mtype == GAUSS_DIAGDOM && i == j) v += (double)g->n;
  return v;
}

/* Smallest acceptable pivot: eps * ||A||_inf; the FP32 factors of precision = mixed only need
 * to precondition the refinement (GMRES-IR reaches kappa ~ 1 / u_32^2, the FP64 fallback
 * catches the rest): eps_32^2 * ||A||_inf there.  Local. */
double gauss_tiny(const gauss_t *g, int sp) {
  double eps = sp ? FLT_EPSILON : DBL_EPSILON;
  if (sp && g->prec == GAUSS_MIXED) eps = (double)FLT_EPSILON * FLT_EPSILON;
  double na = g->normA > 0 ? g->normA : 1;
  return eps * na;
}

/* The agreed numerical failure.  Local. */
int gauss_singular(const gauss_t *g, const char *what, int64_t col, double piv) {
  return hy_err(HY_ENUMERIC, "matrix is %s singular at column %lld (0-based): %s = %.3e <= %.3e "
                "(%s * ||A||_inf)%s", piv == 0 ? "exactly" : "numerically", (long long)col, what,
                fabs(piv), gauss_tiny(g, g->fact_sp),
                !g->fact_sp ? "eps" : g->prec == GAUSS_MIXED ? "eps_32^2" : "eps_32",
                g->alg == GAUSS_NAIVE ? "; naive elimination does not pivot: use algorithm = "
                "stepwise or blocked" : "");
}

/* Broadcast a long double array from root in chunks below INT_MAX.  Collective. */
static int gauss_bcast_big(double *p, int64_t n, MPI_Comm comm) {
  const int64_t chunk = 1 << 26;
  for (int64_t o = 0; o < n; o += chunk) {
    int c = (int)(n - o < chunk ? n - o : chunk);
    HY_MPI(MPI_Bcast(p + o, c, MPI_DOUBLE, 0, comm));
  }
  return HY_OK;
}

/* Read matrix / rhs files on rank 0 and broadcast them; build b.  Collective. */
static int gauss_inputs(gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  hy_cfg *c = ctx->cfg;
  int rc = HY_OK;
  int64_t n = g->n;
  if (g->mtype == GAUSS_FILE) {
    hy_dense d = { 0 };
    if (ctx->rank == 0) {
      const char *path = cfg_str(c, "gauss.file");
      rc = io_read_dense(path, &d);
      if (rc == HY_OK && d.m != d.n)
        rc = hy_err(HY_EINPUT, "%s: matrix is %lld x %lld, gauss needs a square matrix", path,
                    (long long)d.m, (long long)d.n);
      if (rc == HY_OK && cfg_given(c, "gauss.n") && d.n != g->n) {
        char w[1100];
        rc = hy_err(HY_EUSAGE, "%s: key 'gauss.n' = %lld, but %s holds a %lld x %lld matrix (leave "
                    "n out with matrix = file)", cfg_where(c, "gauss.n", w, sizeof w), (long long)g->n,
                    path, (long long)d.m, (long long)d.n);
      }
      n = d.n;
    }
    HY_CALL(hy_agree(ctx->comm, rc));
    HY_MPI(MPI_Bcast(&n, 1, MPI_INT64_T, 0, ctx->comm));
    g->n = n;
    if (ctx->rank == 0) g->fileA = d.a;
    else g->fileA = gauss_xmalloc((size_t)(n * n) * sizeof(double));
    HY_CALL(gauss_bcast_big(g->fileA, n * n, ctx->comm));
  } else if (g->mtype == GAUSS_ILLCOND) {
    HY_CALL(gauss_illcond_make(g, cfg_real(c, "gauss.cond")));
  }
  g->b = gauss_xmalloc((size_t)n * sizeof(double));
  if (cfg_is(c, "gauss.rhs", "file")) {
    if (ctx->rank == 0) {
      double *v = NULL;
      int64_t m = 0;
      const char *path = cfg_str(c, "gauss.rhs_file");
      rc = io_read_vec(path, &v, &m);
      if (rc == HY_OK && m != n)
        rc = hy_err(HY_EINPUT, "%s: vector has %lld entries, the matrix has order %lld", path,
                    (long long)m, (long long)n);
      if (rc == HY_OK) memcpy(g->b, v, (size_t)n * sizeof(double));
      free(v);
    }
    HY_CALL(hy_agree(ctx->comm, rc));
    HY_CALL(gauss_bcast_big(g->b, n, ctx->comm));
  } else if (cfg_is(c, "gauss.rhs", "ones")) {
    for (int64_t i = 0; i < n; i++) g->b[i] = 1;
  } else {
    for (int64_t i = 0; i < n; i++) g->b[i] = hy_rand_u01(g->seed, 2, (uint64_t)i) - 0.5;
  }
  g->normb = 0;
  for (int64_t i = 0; i < n; i++)
    if (fabs(g->b[i]) > g->normb || isnan(g->b[i])) g->normb = fabs(g->b[i]);
  return HY_OK;
}

/* Generate this rank's part of the original matrix in FP64 on the device and ||A||_inf.
 * Collective. */
static int gauss_a0_make(gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  int64_t n = g->n;
  g->a0_m = gauss_numroc(n, g->a0_mb, g->a0_p, g->a0_P);
  g->a0_n = gauss_numroc(n, g->a0_nb, g->a0_q, g->a0_Q);
  int64_t ld = g->a0_m > 0 ? g->a0_m : 1;
  g->a0 = gauss_dalloc(g, (size_t)(ld * (g->a0_n > 0 ? g->a0_n : 1)) * sizeof(double));
  double *rows = calloc((size_t)n, sizeof(double));
  if (!rows) hy_fatal(HY_ESYS, "out of memory (row sums, n = %lld)", (long long)n);
  int64_t cc = g->a0_n < 256 ? (g->a0_n > 0 ? g->a0_n : 1) : 256;
  double *h = gauss_xmalloc((size_t)(ld * cc) * sizeof(double));
  int64_t *gi = gauss_xmalloc((size_t)ld * sizeof(int64_t));
  for (int64_t i = 0; i < g->a0_m; i++) gi[i] = gauss_l2g(i, g->a0_mb, g->a0_p, g->a0_P);
  for (int64_t j0 = 0; j0 < g->a0_n; j0 += cc) {
    int64_t w = g->a0_n - j0 < cc ? g->a0_n - j0 : cc;
    for (int64_t j = 0; j < w; j++) {
      int64_t gj = gauss_l2g(j0 + j, g->a0_nb, g->a0_q, g->a0_Q);
      for (int64_t i = 0; i < g->a0_m; i++) {
        double v = gauss_entry(g, gi[i], gj);
        h[i + j * ld] = v;
        rows[gi[i]] += fabs(v);
      }
    }
    GAUSS_K(g->ko->h2d_2d(g->be, 0, g->a0_m, w, h, ld, g->a0 + j0 * ld, ld));
  }
  GAUSS_K(g->be->ops->sync(g->be));
  free(h);
  free(gi);
  if (ctx->size > 1) HY_MPI(MPI_Allreduce(MPI_IN_PLACE, rows, (int)n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  g->normA = 0;
  for (int64_t i = 0; i < n; i++)
    if (rows[i] > g->normA || isnan(rows[i])) g->normA = rows[i];
  free(rows);
  return HY_OK;
}

/* y = A x in FP64 with the original matrix; x, y replicated.  Collective. */
int gauss_matvec(gauss_t *g, const double *x, double *r) {
  hy_ctx *ctx = g->ctx;
  int64_t n = g->n, m = g->a0_m, nc = g->a0_n, ld = m > 0 ? m : 1;
  double *xl = gauss_xmalloc((size_t)(nc + 1) * sizeof(double));
  double *yl = gauss_xmalloc((size_t)(m + 1) * sizeof(double));
  for (int64_t j = 0; j < nc; j++) xl[j] = x[gauss_l2g(j, g->a0_nb, g->a0_q, g->a0_Q)];
  /* device vectors kept for the run: GMRES-IR calls this once per iteration */
  if (!g->mv_dx) g->mv_dx = gauss_dalloc(g, (size_t)(nc + 1) * sizeof(double));
  if (!g->mv_dy) g->mv_dy = gauss_dalloc(g, (size_t)(m + 1) * sizeof(double));
  double *dx = g->mv_dx, *dy = g->mv_dy;
  k_backend *be = g->be;
  GAUSS_K(be->ops->h2d(be, dx, xl, (size_t)nc * sizeof(double)));
  GAUSS_K(be->ops->memset0(be, dy, (size_t)(m + 1) * sizeof(double)));
  GAUSS_K(g->ko->gemv_add(be, 0, m, nc, g->a0, ld, dx, dy));
  GAUSS_K(be->ops->d2h(be, yl, dy, (size_t)m * sizeof(double)));
  GAUSS_K(be->ops->sync(be));
  for (int64_t i = 0; i < n; i++) r[i] = 0;
  for (int64_t i = 0; i < m; i++) r[gauss_l2g(i, g->a0_mb, g->a0_p, g->a0_P)] = yl[i];
  free(xl);
  free(yl);
  if (ctx->size > 1) HY_MPI(MPI_Allreduce(MPI_IN_PLACE, r, (int)n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  return HY_OK;
}

/* r = A x - b in FP64 with the original matrix; x, r replicated.  Collective. */
static int gauss_residual(gauss_t *g, const double *x, double *r) {
  HY_CALL(gauss_matvec(g, x, r));
  for (int64_t i = 0; i < g->n; i++) r[i] -= g->b[i];
  return HY_OK;
}

/* Infinity norm (NaN propagates).  Local. */
static double gauss_norminf(const double *v, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++)
    if (fabs(v[i]) > m || isnan(v[i])) m = isnan(v[i]) ? NAN : fabs(v[i]);
  return m;
}

/* HPL scaled residual of x with FP64 eps (or FP32 eps for single).  Collective. */
int gauss_scaled(gauss_t *g, const double *x, double *r, double eps, double *scaled,
                        double *nr, double *nx) {
  HY_CALL(gauss_residual(g, x, r));
  *nr = gauss_norminf(r, g->n);
  *nx = gauss_norminf(x, g->n);
  *scaled = *nr / (eps * (g->normA * *nx + g->normb) * (double)g->n);
  if (isnan(*scaled)) *scaled = INFINITY;
  return HY_OK;
}

/* Write A, b and x as asked in [output] (rank 0; A is regenerated or the file's).  Collective
 * (agreed outcome). */
static int gauss_outputs(gauss_t *g, const double *x) {
  hy_ctx *ctx = g->ctx;
  hy_cfg *c = ctx->cfg;
  int rc = HY_OK;
  if (ctx->rank == 0) {
    const char *pa = cfg_str(c, "output.matrix"), *pb = cfg_str(c, "output.rhs"),
               *px = cfg_str(c, "output.solution");
    char comment[256];
    snprintf(comment, sizeof comment, "hybrid gauss: n = %lld, matrix %s, seed %llu",
             (long long)g->n, cfg_str(c, "gauss.matrix"), (unsigned long long)g->seed);
    if (pa[0]) {
      hy_dense d = { g->n, g->n, NULL };
      d.a = malloc((size_t)(g->n * g->n) * sizeof(double));
      if (!d.a) rc = hy_err(HY_ESYS, "out of memory writing %s", pa);
      for (int64_t j = 0; rc == HY_OK && j < g->n; j++)
        for (int64_t i = 0; i < g->n; i++) d.a[i + j * g->n] = gauss_entry(g, i, j);
      const char *ext = strrchr(pa, '.');
      int petsc = ext && (!strcasecmp(ext, ".petsc") || !strcasecmp(ext, ".bin") || !strcasecmp(ext, ".dat"));
      if (rc == HY_OK && petsc) {
        hy_csr s = { 0 };
        rc = io_dense_to_csr(&d, &s);
        if (rc == HY_OK) rc = io_write_csr(pa, &s, comment);
        io_csr_free(&s);
      } else if (rc == HY_OK) {
        rc = io_mm_write_dense(pa, &d, comment);
      }
      free(d.a);
      if (rc == HY_OK) printf("wrote matrix %s\n", pa);
    }
    if (rc == HY_OK && pb[0]) {
      rc = io_write_vec(pb, g->b, g->n, comment);
      if (rc == HY_OK) printf("wrote rhs %s\n", pb);
    }
    if (rc == HY_OK && px[0]) {
      rc = io_write_vec(px, x, g->n, comment);
      if (rc == HY_OK) printf("wrote solution %s\n", px);
    }
  }
  return hy_agree(ctx->comm, rc);
}

/* Vendor LU and DGEMM on this rank's device beside ours (1 rank).  Collective (1 rank). */
static int gauss_reference(gauss_t *g, double *t_ref_f, double *t_ref_s, double *t_gemm) {
  k_backend *be = g->be;
  int64_t n = g->n;
  double *a = gauss_dalloc(g, (size_t)(n * n) * sizeof(double));
  double *b = gauss_dalloc(g, (size_t)n * sizeof(double));
  GAUSS_K(be->ops->d2d(be, a, g->a0, (size_t)(n * n) * sizeof(double)));
  GAUSS_K(be->ops->h2d(be, b, g->b, (size_t)n * sizeof(double)));
  GAUSS_K(be->ops->sync(be));
  int info = 0;
  GAUSS_K(g->ko->ref_lu(be, n, a, b, t_ref_f, t_ref_s, &info));
  double *x = gauss_xmalloc((size_t)n * sizeof(double)), *r = gauss_xmalloc((size_t)n * sizeof(double));
  GAUSS_K(be->ops->d2h(be, x, b, (size_t)n * sizeof(double)));
  GAUSS_K(be->ops->sync(be));
  be->ops->free(be, a);
  be->ops->free(be, b);
  double scaled = INFINITY, nr = 0, nx = 0;
  if (info == 0) HY_CALL(gauss_scaled(g, x, r, DBL_EPSILON, &scaled, &nr, &nx));
  free(x);
  free(r);
  int64_t gn = cfg_int(g->ctx->cfg, "gauss.gemm_n");
  GAUSS_K(g->ko->gemm_time(be, gn, t_gemm));
  double fl = 2.0 / 3.0 * (double)n * n * n;
  const char *vendor = be->kind == K_CUDA ? "cuSOLVER" : "LAPACK";
  hy_printf0(g->ctx, "reference: %s dgetrf %.3f ms (%.3f TFLOP/s), dgetrs %.3f ms, info %d, scaled "
             "residual %.4g\n", vendor, *t_ref_f * 1e3, fl / *t_ref_f / 1e12, *t_ref_s * 1e3, info, scaled);
  hy_printf0(g->ctx, "reference: %s DGEMM n = %lld: %.3f ms, %.3f TFLOP/s\n",
             be->kind == K_CUDA ? "cuBLAS" : "BLAS", (long long)gn, *t_gemm * 1e3,
             2.0 * gn * gn * (double)gn / *t_gemm / 1e12);
  hy_metric_num(g->ctx, "ref_getrf_seconds", *t_ref_f);
  hy_metric_num(g->ctx, "ref_getrs_seconds", *t_ref_s);
  hy_metric_num(g->ctx, "ref_getrf_tflops", fl / *t_ref_f / 1e12);
  hy_metric_num(g->ctx, "ref_scaled_residual", scaled);
  hy_metric_num(g->ctx, "dgemm_tflops", 2.0 * gn * gn * (double)gn / *t_gemm / 1e12);
  return HY_OK;
}

/* The workload (gauss_run without the clean-up of the device communicators).  Collective. */
static int gauss_run_body(hy_ctx *ctx, gauss_t *g) {
  hy_cfg *c = ctx->cfg;
  g->ctx = ctx;
  g->be = &ctx->be;
  g->ko = k_gauss_ops_get(g->be);
  g->n = cfg_int(c, "gauss.n");
  g->alg = cfg_enum(c, "gauss.algorithm");
  g->prec = cfg_enum(c, "gauss.precision");
  g->managed = cfg_is(c, "gauss.memory", "managed");
  g->mtype = cfg_enum(c, "gauss.matrix");
  g->seed = (uint64_t)cfg_int(c, "run.seed");
  g->nb = cfg_int(c, "gauss.nb");
  /* auto: GEMM-sized blocks on a GPU (one panel up to n = 1024, where the run is latency
   * bound and extra steps only add launches), 64 on the host */
  if (g->nb == 0) g->nb = g->be->kind == K_CUDA ? (g->n <= 1024 ? (g->n > 0 ? g->n : 1) : 512) : 64;
  HY_CALL(gauss_inputs(g));
  if (g->alg == GAUSS_BLOCKED) {
    cfg_grid(c, "gauss.grid", &g->P, &g->Q);
    if (g->P == 0) hy_grid_auto(ctx->size, &g->P, &g->Q);
    g->a0_mb = g->a0_nb = g->nb;
    g->a0_P = g->P;
    g->a0_Q = g->Q;
    g->a0_p = ctx->rank / g->Q;
    g->a0_q = ctx->rank % g->Q;
  } else {
    g->P = ctx->size;
    g->Q = 1;
    g->a0_mb = 1;
    g->a0_nb = g->n;
    g->a0_P = ctx->size;
    g->a0_Q = 1;
    g->a0_p = ctx->rank;
    g->a0_q = 0;
  }
  const gauss_alg *alg = g->alg == GAUSS_NAIVE ? &gauss_rows_naive
                         : g->alg == GAUSS_STEPWISE ? &gauss_rows_stepwise : &gauss_blocked_alg;
  static const char *pname[] = { "double", "single", "mixed" };
  hy_printf0(ctx, "gauss: n = %lld, algorithm %s, precision %s, matrix %s, rhs %s, backend %s, "
             "%d rank(s)", (long long)g->n, alg->name, pname[g->prec], cfg_str(c, "gauss.matrix"),
             cfg_str(c, "gauss.rhs"), g->be->name, ctx->size);
  if (g->alg == GAUSS_BLOCKED) hy_printf0(ctx, ", grid %dx%d, nb %lld\n", g->P, g->Q, (long long)g->nb);
  else hy_printf0(ctx, ", rows cyclic, memory %s\n", g->managed ? "managed" : "device");
  if (g->alg == GAUSS_BLOCKED) HY_CALL(gauss_blocked_comm_setup(g));

  hy_phase_begin(ctx, "generate");
  HY_CALL(gauss_a0_make(g));
  hy_phase_end(ctx, "generate");
  hy_printf0(ctx, "||A||_inf = %.6e, ||b||_inf = %.6e\n", g->normA, g->normb);
  if (g->mtype == GAUSS_ILLCOND)
    hy_printf0(ctx, "illcond: A = U diag(sigma) V^T, kappa_2(A) = %.3g (sigma geometric from 1 to "
               "%.3g)\n", cfg_real(c, "gauss.cond"), 1 / cfg_real(c, "gauss.cond"));

  double t_ref_f = 0, t_ref_s = 0, t_gemm = 0;
  int compare = cfg_bool(c, "gauss.compare_cusolver");
  if (compare) {
    hy_phase_begin(ctx, "reference");
    HY_CALL(gauss_reference(g, &t_ref_f, &t_ref_s, &t_gemm));
    hy_phase_end(ctx, "reference");
  }

  int64_t n = g->n;
  double *x = gauss_xmalloc((size_t)n * sizeof(double)), *r = gauss_xmalloc((size_t)n * sizeof(double));
  double *d = gauss_xmalloc((size_t)n * sizeof(double));
  int sp = g->prec != GAUSS_DOUBLE, keep = g->prec == GAUSS_MIXED;
  int reps = (int)cfg_int(c, "gauss.repeat");
  double thr = cfg_real(c, "gauss.threshold");
  double best_t = INFINITY, best_f = INFINITY, sum_t = 0, sum_f = 0;
  int iters = 0, fellback = 0;
  int refine = cfg_enum(c, "gauss.refine");
  gauss_refine_stats rs;
  memset(&rs, 0, sizeof rs);
  rs.method = refine;
  double eps = DBL_EPSILON;
  for (int rep = 0; rep < reps; rep++) {
  void *fact = NULL;
  iters = 0;
  fellback = 0;
  memset(&rs, 0, sizeof rs);
  rs.method = refine;
  HY_MPI(MPI_Barrier(ctx->comm));
  double t0 = hy_wtime(), t_factor = 0;
  int tf32 = sp && cfg_is(c, "gauss.tensor", "tf32");
  if (tf32) GAUSS_K(g->ko->tensor(g->be, 1));
  hy_phase_begin(ctx, "factor");
  g->fact_sp = sp;
  int rc = alg->factor(g, sp, keep, &fact);
  hy_phase_end(ctx, "factor");
  if (tf32) GAUSS_K(g->ko->tensor(g->be, 0));
  t_factor = hy_wtime() - t0;
  eps = g->prec == GAUSS_SINGLE ? FLT_EPSILON : DBL_EPSILON;

  if (rc == HY_ENUMERIC && g->prec == GAUSS_MIXED) {
    hy_printf0(ctx, "mixed: the FP32 factorization failed (%s); falling back to FP64\n", hy_err_msg());
    hy_err_clear();
    fellback = 1;
  } else if (rc != HY_OK) {
    free(x); free(r); free(d);
    return rc;
  } else {
    hy_phase_begin(ctx, "solve");
    rc = alg->solve(g, fact, NULL, x);
    hy_phase_end(ctx, "solve");
    if (rc != HY_OK) return rc;
  }
  if (g->prec == GAUSS_MIXED && !fellback) {
    /* iterative refinement in FP64 against the original matrix (gauss_refine.c) */
    hy_phase_begin(ctx, "refine");
    rc = gauss_refine(g, alg, fact, x, refine, (int)cfg_int(c, "gauss.max_refine"),
                      (int)cfg_int(c, "gauss.gmres_max"), cfg_real(c, "gauss.gmres_tol"),
                      cfg_is(c, "gauss.gmres_precond", "right"), thr, &rs);
    hy_phase_end(ctx, "refine");
    if (rc != HY_OK) { free(x); free(r); free(d); return rc; }
    iters = rs.classic_steps + rs.gmres_steps;
    fellback = rs.fellback;
    if (fellback && !(rs.scaled < thr))
      hy_printf0(ctx, "mixed: refinement did not reach the threshold in %d step(s); falling back "
                 "to FP64\n", iters);
  }
  if (fellback) {
    if (fact) alg->release(g, fact);
    fact = NULL;
    hy_phase_begin(ctx, "factor64");
    g->fact_sp = 0;
    rc = alg->factor(g, 0, 0, &fact);
    hy_phase_end(ctx, "factor64");
    if (rc != HY_OK) { free(x); free(r); free(d); return rc; }
    hy_phase_begin(ctx, "solve");
    HY_CALL(alg->solve(g, fact, NULL, x));
    hy_phase_end(ctx, "solve");
    eps = DBL_EPSILON;
  }
  double t = hy_wtime() - t0;
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, &t_factor, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  if (fact) alg->release(g, fact);
  if (t < best_t) best_t = t;
  if (t_factor < best_f) best_f = t_factor;
  if (rep > 0 || reps == 1) { sum_t += t; sum_f += t_factor; }
  }
  /* repeat > 1: the first run warms up (as the seed does), the figure is the mean of the rest */
  int nt = reps > 1 ? reps - 1 : 1;
  double t = sum_t / nt, t_factor = sum_f / nt;
  if (reps > 1)
    hy_printf0(ctx, "repeat: %d timed run(s) after a warm-up: mean %.6f s, fastest %.6f s (factor: "
               "mean %.6f s, fastest %.6f s)\n", nt, t, best_t, t_factor, best_f);

  /* the check: HPL scaled residual against the original matrix in FP64 */
  hy_phase_begin(ctx, "check");
  double scaled, nr, nx;
  HY_CALL(gauss_scaled(g, x, r, eps, &scaled, &nr, &nx));
  hy_phase_end(ctx, "check");
  double flops = 2.0 / 3.0 * (double)n * n * n + 1.5 * (double)n * n;
  double gf = flops / t / 1e9;
  char tv[32];
  snprintf(tv, sizeof tv, "%c%c%c%s", "NSB"[g->alg], "DSM"[g->prec], g->be->kind == K_CUDA ? 'G' : 'H',
           fellback ? "F" : "");
  hy_printf0(ctx, "================================================================================\n"
             "T/V                N    NB     P     Q               Time                 Gflops\n"
             "--------------------------------------------------------------------------------\n"
             "%-10s %9lld %5lld %5d %5d %18.6f %22.4e\n"
             "================================================================================\n",
             tv, (long long)n, (long long)(g->alg == GAUSS_BLOCKED ? g->nb : 1), g->P, g->Q, t, gf);
  hy_printf0(ctx, "Gflops per %s: %.4e  (time %.6f s: factor %.6f s, %s)\n",
             g->be->kind == K_CUDA ? "GPU" : "rank", gf / ctx->size, t, t_factor,
             g->alg == GAUSS_BLOCKED ? "matrix resident on the device" : "includes the upload, as the seed's buffer version");
  static const char *rname[] = { "classic", "gmres", "auto" };
  if (g->prec == GAUSS_MIXED)
    hy_printf0(ctx, "mixed: %d refinement step(s) (refine %s: %d classic, %d GMRES-IR with %d GMRES "
               "iteration(s)%s)%s\n", iters, rname[refine], rs.classic_steps, rs.gmres_steps,
               rs.gmres_iters, rs.switched ? ", switched from classic" : "",
               fellback ? ", then FP64 fallback" : "");
  hy_printf0(ctx, "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N) = %.7f ...... %s\n", scaled,
             scaled < thr ? "PASSED" : "FAILED");
  hy_printf0(ctx, "||Ax-b||_oo = %.6e, ||A||_oo = %.6e, ||x||_oo = %.6e, ||b||_oo = %.6e, eps = %.3e\n",
             nr, g->normA, nx, g->normb, eps);
  if (compare) {
    double fl = 2.0 / 3.0 * (double)n * n * n;
    double ours = fl / t_factor / 1e12, ref = fl / t_ref_f / 1e12;
    double gemm = 2.0 * pow((double)cfg_int(c, "gauss.gemm_n"), 3) / t_gemm / 1e12;
    hy_printf0(ctx, "compare: %s factor %.3f TFLOP/s vs vendor dgetrf %.3f TFLOP/s: ratio %.3f "
               "(target >= 1.15 for double); DGEMM %.3f TFLOP/s, ours = %.3f of DGEMM\n", alg->name,
               ours, ref, ours / ref, gemm, ours / gemm);
    hy_printf0(ctx, "compare: %s solve time %.3f ms vs vendor dgetrf+dgetrs %.3f ms: ratio %.3f "
               "(mixed target <= 0.4)\n", alg->name, t * 1e3, (t_ref_f + t_ref_s) * 1e3,
               t / (t_ref_f + t_ref_s));
    hy_metric_num(ctx, "ratio_factor_rate_vs_ref", ours / ref);
    hy_metric_num(ctx, "ratio_time_vs_ref_solve", t / (t_ref_f + t_ref_s));
    hy_metric_num(ctx, "fraction_of_dgemm", ours / gemm);
  }
  hy_metric_int(ctx, "n", n);
  hy_metric_int(ctx, "nb", g->nb);
  hy_metric_int(ctx, "P", g->P);
  hy_metric_int(ctx, "Q", g->Q);
  hy_metric_str(ctx, "algorithm", alg->name);
  hy_metric_str(ctx, "precision", pname[g->prec]);
  hy_metric_num(ctx, "time_seconds", t);
  hy_metric_num(ctx, "factor_seconds", t_factor);
  hy_metric_num(ctx, "gflops", gf);
  hy_metric_num(ctx, "gflops_per_device", gf / ctx->size);
  hy_metric_num(ctx, "residual_inf", nr);
  hy_metric_num(ctx, "norm_A_inf", g->normA);
  hy_metric_num(ctx, "norm_x_inf", nx);
  hy_metric_num(ctx, "norm_b_inf", g->normb);
  hy_metric_int(ctx, "refine_iterations", iters);
  hy_metric_int(ctx, "fp64_fallback", fellback);
  if (g->prec == GAUSS_MIXED) {
    hy_metric_str(ctx, "refine_method", rname[refine]);
    hy_metric_int(ctx, "refine_classic_steps", rs.classic_steps);
    hy_metric_int(ctx, "refine_gmres_steps", rs.gmres_steps);
    hy_metric_int(ctx, "gmres_iterations", rs.gmres_iters);
    hy_metric_int(ctx, "refine_switched_to_gmres", rs.switched);
    if (rs.cond_lower > 0) hy_metric_num(ctx, "cond_inf_lower_bound", rs.cond_lower);
  }
  if (g->mtype == GAUSS_ILLCOND) hy_metric_num(ctx, "cond", cfg_real(c, "gauss.cond"));
  HY_CALL(gauss_outputs(g, x));
  int ok = scaled < thr;
  hy_validation(ctx, "HPL scaled residual", scaled, thr, ok);
  hy_verdict(ctx, "gauss %s %s n=%lld: HPL scaled residual %.4g %s %g", alg->name, pname[g->prec],
             (long long)n, scaled, ok ? "<" : ">=", thr);
  free(x); free(r); free(d);
  free(g->b);
  free(g->fileA);
  g->be->ops->free(g->be, g->a0);
  if (g->mv_dx) g->be->ops->free(g->be, g->mv_dx);
  if (g->mv_dy) g->be->ops->free(g->be, g->mv_dy);
  return ok ? HY_OK : HY_EVALID;
}

/* The workload; the blocked LU's device communicators are freed on every way out.
 * Collective. */
static int gauss_run(hy_ctx *ctx) {
  gauss_t g;
  memset(&g, 0, sizeof g);
  int rc = gauss_run_body(ctx, &g);
  gauss_blocked_comm_free(&g);
  return rc;
}

static const char gauss_default[] =
  "[run]\nworkload = gauss\n[gauss]\nn = 1000\nalgorithm = blocked\n";

const hy_workload gauss_workload = {
  "gauss", "dense A x = b by Gaussian elimination / blocked LU (the seed 000), HPL residual check",
  gauss_keys, gauss_check, gauss_run, gauss_default,
};
