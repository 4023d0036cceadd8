/* lle.c - workload "lle": locally linear embedding (seed 004).  Every rank holds all points
 * (generated identically or read by rank 0 and broadcast); each rank finds the K nearest
 * neighbours and the reconstruction weights of its block of query points on its backend;
 * the rows of W are gathered on rank 0, which finds the d + 1 smallest eigenpairs of
 * M = (I - W)^T (I - W) on the host for either backend (bsvd: UMFPACK LU of I - W, M not
 * assembled; shift-invert: assembles M, CHOLMOD), drops
 * the constant vector and writes the embedding.  The graph and the embedding are the same for
 * any rank count (ties broken by index; M assembled in a fixed order). */
#include "workload.h"
#include "lle.h"
#include "k_lle.h"
#include "io/io.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const cfg_key lle_keys[] = {
  { "lle", "dataset", CFG_ENUM, "swissroll", 0, 0, "swissroll|scurve|uniform|file",
    "points: scikit-learn's make_swiss_roll / make_s_curve (same values for the same seed), uniform in [0,1)^ambient_dim (KNN benchmarks), or a file" },
  { "lle", "stage", CFG_ENUM, "all", 0, 0, "all|knn|weights", "stop after this stage (knn / weights: benchmarks of the first stages)" },
  { "lle", "file", CFG_STR, "", 0, 0, NULL, "dataset = file: CSV (optional header line) or .npy (float32/float64)" },
  { "lle", "color_column", CFG_ENUM, "none", 0, 0, "none|last", "dataset = file: the last column is a colour for the plot" },
  { "lle", "n", CFG_INT, "2000", 3, 2e9, NULL, "number of generated points" },
  { "lle", "noise", CFG_REAL, "0", 0, 1e6, NULL, "standard deviation of the generators' Gaussian noise" },
  { "lle", "ambient_dim", CFG_INT, "0", 0, 4096, NULL,
    "lift the points into this many dimensions by a seeded random orthonormal map (0: keep)" },
  { "lle", "k", CFG_INT, "10", 1, 64, NULL, "neighbours per point (K)" },
  { "lle", "dim", CFG_INT, "2", 1, 32, NULL, "embedding dimension d (< k)" },
  { "lle", "reg", CFG_REAL, "1e-3", 0, 1e6, NULL, "regularisation of the local Gram matrix: reg * trace(G) (reg when the trace is 0)" },
  { "lle", "knn", CFG_ENUM, "auto", 0, 0, "auto|brute|kdtree",
    "neighbour search: brute (backend kernel, query blocks over ranks), kdtree (host), auto: kdtree on the host backend for dimension <= 8, else brute" },
  { "lle", "precision", CFG_ENUM, "fp64", 0, 0, "fp64|fp32", "brute-force distances: FP64 or FP32, both in the direct form sum (x - y)^2" },
  { "lle", "eigensolver", CFG_ENUM, "bsvd", 0, 0, "bsvd|shift-invert|dense",
    "bsvd: UMFPACK LU of B = I - W (+ one diagonal entry), M^+ = B^+ B^+T with the constant vector deflated, subspace iteration, M never assembled; "
    "shift-invert: CHOLMOD factorisation of M + tau I and subspace iteration; dense: LAPACK on the n x n matrix (small n, reference)" },
  { "lle", "ordering", CFG_ENUM, "amd", 0, 0, "amd|metis",
    "bsvd: UMFPACK's fill-reducing ordering of B + B^T: amd (fast analysis) or metis (fewer flops, N = 1M: 28% fewer, 2.6x the analysis time)" },
  { "lle", "tol", CFG_REAL, "1e-14", 1e-16, 1e-2, NULL, "an eigenpair is converged when ||M v - lambda v|| <= tol * ||M||_1" },
  { "lle", "maxit", CFG_INT, "500", 1, 1e6, NULL, "subspace iterations at most" },
  { "lle", "trust_k", CFG_INT, "5", 1, 1000, NULL, "neighbours of the trustworthiness figure" },
  { "lle", "trust_sample", CFG_INT, "1000", 0, 1e9, NULL,
    "trustworthiness over this many seeded query points (all when n is smaller; 0: not computed)" },
  { "lle", "trust_max_n", CFG_INT, "200000", 0, 2e9, NULL, "skip trustworthiness above this n (it costs sample x n)" },
  { "output", "embedding", CFG_STR, "", 0, 0, NULL, "lle: write the n x d embedding here (CSV with a header line, or .npy by extension)" },
  { "output", "plot", CFG_STR, "", 0, 0, NULL, "lle: scatter plot PNG of the embedding coloured by the manifold parameter" },
  { "output", "matrix", CFG_STR, "", 0, 0, NULL, "write the workload's matrix here (PETSc binary by extension .petsc/.bin/.dat, else Matrix Market)" },
  { "output", "eigvecs", CFG_STR, "", 0, 0, NULL, "lle: the d+1 eigenvectors of M as an n x (d+1) Matrix Market array (for hybrid-validate lle)" },
  { "output", "points", CFG_STR, "", 0, 0, NULL, "lle: write the (generated or read) points as CSV, the colour t last" },
  { "output", "neighbors", CFG_STR, "", 0, 0, NULL, "lle: the n x k neighbour indices as .npy (int32), ascending distance" },
  { "output", "eigvals", CFG_STR, "", 0, 0, NULL, "lle: the d+1 eigenvalues as a Matrix Market vector" },
  CFG_END
};

/* Cross-key rules.  Local (rank 0). */
static int lle_check(hy_cfg *c) {
  int k = (int)cfg_int(c, "lle.k"), d = (int)cfg_int(c, "lle.dim");
  if (d >= k) return cfg_err(c, "lle.dim", "= %d must be below lle.k = %d (the local weights span at most k - 1 directions)", d, k);
  if (cfg_is(c, "lle.dataset", "file") && !cfg_str(c, "lle.file")[0])
    return cfg_err(c, "lle.file", "is required when lle.dataset = file");
  if (!cfg_is(c, "lle.dataset", "file")) {
    int64_t n = cfg_int(c, "lle.n");
    if (k >= n) return cfg_err(c, "lle.k", "= %d must be below lle.n = %lld", k, (long long)n);
    if (n > INT32_MAX) return cfg_err(c, "lle.n", "= %lld exceeds 2^31 - 1 points", (long long)n);
  }
  int64_t ad = cfg_int(c, "lle.ambient_dim");
  if (ad > 0 && ad < 3 && (cfg_is(c, "lle.dataset", "swissroll") || cfg_is(c, "lle.dataset", "scurve")))
    return cfg_err(c, "lle.ambient_dim", "= %lld is below the generators' 3 dimensions", (long long)ad);
  return HY_OK;
}

/* Rank 0 reads the file, every rank receives the points.  Collective. */
static int lle_load_file(hy_ctx *ctx, lle_data *d) {
  int rc = HY_OK;
  long long hdr[3] = { 0, 0, 0 };
  if (ctx->rank == 0) {
    rc = lle_read_points(cfg_str(ctx->cfg, "lle.file"), cfg_is(ctx->cfg, "lle.color_column", "last"), d);
    if (rc == HY_OK) { hdr[0] = d->n; hdr[1] = d->dim; }
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  HY_MPI(MPI_Bcast(hdr, 3, MPI_LONG_LONG, 0, ctx->comm));
  if (ctx->rank != 0) {
    d->n = hdr[0];
    d->dim = (int)hdr[1];
    d->x = malloc((size_t)d->n * d->dim * sizeof *d->x);
    d->t = malloc((size_t)d->n * sizeof *d->t);
    rc = d->x && d->t ? HY_OK : hy_err(HY_ESYS, "out of memory for %lld points", hdr[0]);
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  const size_t chunk = (size_t)1 << 27;
  size_t tot = (size_t)d->n * d->dim;
  for (size_t o = 0; o < tot; o += chunk)
    HY_MPI(MPI_Bcast(d->x + o, (int)(tot - o < chunk ? tot - o : chunk), MPI_DOUBLE, 0, ctx->comm));
  for (size_t o = 0; o < (size_t)d->n; o += chunk)
    HY_MPI(MPI_Bcast(d->t + o, (int)((size_t)d->n - o < chunk ? (size_t)d->n - o : chunk), MPI_DOUBLE, 0, ctx->comm));
  return HY_OK;
}

/* Write the points and their colour as CSV (header x1..xD,t), atomically.  Local. */
static int lle_write_points(const char *path, const lle_data *d) {
  char tmp[4096];
  FILE *f = NULL;
  HY_CALL(io_atomic_open(path, tmp, sizeof tmp, &f));
  for (int c = 0; c < d->dim; c++) fprintf(f, "x%d,", c + 1);
  fprintf(f, "t\n");
  int ok = 1;
  for (int64_t i = 0; ok && i < d->n; i++) {
    for (int c = 0; c < d->dim; c++) fprintf(f, "%.17g,", d->x[i * d->dim + c]);
    ok = fprintf(f, "%.17g\n", d->t[i]) > 0;
  }
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  return ok ? HY_OK : hy_err(HY_ESYS, "%s: write failed", path);
}

/* Write an n x k int32 array as .npy, atomically.  Local. */
static int lle_write_npy_i32(const char *path, int64_t n, int k, const int32_t *a) {
  char tmp[4096], hdr[128];
  FILE *f = NULL;
  HY_CALL(io_atomic_open(path, tmp, sizeof tmp, &f));
  int hl = snprintf(hdr, sizeof hdr, "{'descr': '<i4', 'fortran_order': False, 'shape': (%lld, %d), }", (long long)n, k);
  int pad = (64 - (10 + hl + 1) % 64) % 64;
  unsigned len = (unsigned)(hl + pad + 1);
  unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8) };
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)hl, f) == (size_t)hl;
  for (int i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF && fwrite(a, sizeof *a, (size_t)n * k, f) == (size_t)n * k;
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  return ok ? HY_OK : hy_err(HY_ESYS, "%s: write failed", path);
}

/* CPU seconds of this process (the phase table is wall time; on a shared machine the two
 * differ).  Local. */
static double lle_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* FNV-1a 64 of bytes (digests that show the graph is the same for any rank count).  Local. */
static uint64_t fnv64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ULL; }
  return h;
}

/* The workload.  Collective. */
static int lle_run(hy_ctx *ctx) {
  hy_cfg *c = ctx->cfg;
  uint32_t seed = (uint32_t)cfg_int(c, "run.seed");
  int k = (int)cfg_int(c, "lle.k"), dd = (int)cfg_int(c, "lle.dim"), nev = dd + 1;
  double reg = cfg_real(c, "lle.reg");
  lle_data data = { 0, 0, NULL, NULL };
  int rc = HY_OK;

  /* ---- data ---- */
  hy_phase_begin(ctx, "data");
  if (cfg_is(c, "lle.dataset", "file")) {
    HY_CALL(lle_load_file(ctx, &data));
  } else if (cfg_is(c, "lle.dataset", "uniform")) {
    int64_t n = cfg_int(c, "lle.n");
    int D = (int)cfg_int(c, "lle.ambient_dim");
    if (D == 0) D = 3;
    data.n = n;
    data.dim = D;
    data.x = malloc((size_t)n * D * sizeof *data.x);
    data.t = malloc((size_t)n * sizeof *data.t);
    rc = data.x && data.t ? HY_OK : hy_err(HY_ESYS, "out of memory for %lld x %d points", (long long)n, D);
    for (int64_t i = 0; rc == HY_OK && i < n * D; i++) data.x[i] = hy_rand_u01(seed, 0x4e11, (uint64_t)i);
    for (int64_t i = 0; rc == HY_OK && i < n; i++) data.t[i] = data.x[i * D];
    HY_CALL(hy_agree(ctx->comm, rc));
  } else {
    int64_t n = cfg_int(c, "lle.n");
    double noise = cfg_real(c, "lle.noise");
    rc = cfg_is(c, "lle.dataset", "swissroll") ? lle_gen_swissroll(&data, n, noise, seed)
                                                : lle_gen_scurve(&data, n, noise, seed);
    HY_CALL(hy_agree(ctx->comm, rc));
  }
  int ad = (int)cfg_int(c, "lle.ambient_dim");
  if (ad > 0 && !cfg_is(c, "lle.dataset", "uniform")) {
    rc = ad < data.dim ? hy_err(HY_EUSAGE, "lle.ambient_dim = %d is below the data dimension %d", ad, data.dim)
                       : lle_lift(&data, ad, seed);
    HY_CALL(hy_agree(ctx->comm, rc));
  }
  hy_phase_end(ctx, "data");
  if (cfg_str(c, "output.points")[0]) {
    rc = ctx->rank == 0 ? lle_write_points(cfg_str(c, "output.points"), &data) : HY_OK;
    HY_CALL(hy_agree(ctx->comm, rc));
  }
  int64_t n = data.n;
  if (k >= n) {
    lle_data_free(&data);
    return hy_err(HY_EINPUT, "lle.k = %d neighbours need more than %lld points (the data has %lld)", k, (long long)k, (long long)n);
  }
  if (n > INT32_MAX) {
    lle_data_free(&data);
    return hy_err(HY_EINPUT, "%lld points exceed 2^31 - 1", (long long)n);
  }
  int use_kd = cfg_is(c, "lle.knn", "kdtree") ||
               (cfg_is(c, "lle.knn", "auto") && ctx->be.kind == K_HOST && data.dim <= 8);
  int fp32 = cfg_is(c, "lle.precision", "fp32");
  hy_printf0(ctx, "lle: %s, n = %lld points in %d dimensions, k = %d, d = %d, reg = %g\n",
             cfg_str(c, "lle.dataset"), (long long)n, data.dim, k, dd, reg);
  hy_printf0(ctx, "lle: neighbours by %s (%s), weights on %s, %d rank(s) with query blocks\n",
             use_kd ? "kdtree" : "brute force", use_kd ? "host" : (fp32 ? "FP32 direct form" : "FP64 direct form"),
             ctx->be.name, ctx->size);

  /* ---- this rank's query block: K nearest neighbours and weights ---- */
  int64_t q0 = n * ctx->rank / ctx->size, q1 = n * (ctx->rank + 1) / ctx->size, nq = q1 - q0;
  int32_t *nbr = malloc((size_t)(nq ? nq : 1) * k * sizeof *nbr);
  double *d2 = malloc((size_t)(nq ? nq : 1) * k * sizeof *d2);
  double *w = malloc((size_t)(nq ? nq : 1) * k * sizeof *w);
  rc = nbr && d2 && w ? HY_OK : hy_err(HY_ESYS, "out of memory for %lld x %d neighbours", (long long)nq, k);
  HY_CALL(hy_agree(ctx->comm, rc));
  k_lle_points pts = { n, data.dim, data.x };
  const k_lle_ops *ops = k_lle_ops_get(&ctx->be);
  hy_phase_begin(ctx, "knn");
  if (nq > 0) rc = use_kd ? k_lle_kdtree_knn(&pts, q0, q1, k, nbr, d2) : ops->knn(&ctx->be, &pts, q0, q1, k, fp32, nbr, d2);
  hy_debug_point(ctx, "knn");
  hy_phase_end(ctx, "knn");
  HY_CALL(hy_agree(ctx->comm, rc));
  int64_t nbad = 0, nbadall = 0, ndup = 0, nduppall = 0;
  for (int64_t i = 0; i < nq * k; i++) ndup += d2[i] == 0;
  int stage = cfg_enum(c, "lle.stage");   /* 0 all, 1 knn, 2 weights */
  hy_phase_begin(ctx, "weights");
  if (nq > 0 && stage != 1) rc = ops->weights(&ctx->be, &pts, q0, q1, k, nbr, reg, w, &nbad);
  hy_debug_point(ctx, "weights");
  hy_phase_end(ctx, "weights");
  HY_CALL(hy_agree(ctx->comm, rc));
  HY_MPI(MPI_Reduce(&nbad, &nbadall, 1, MPI_INT64_T, MPI_SUM, 0, ctx->comm));
  double tkw[2] = { hy_phase_seconds(ctx, "knn"), hy_phase_seconds(ctx, "weights") }, tkwmax[2];
  HY_MPI(MPI_Allreduce(tkw, tkwmax, 2, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Reduce(&ndup, &nduppall, 1, MPI_INT64_T, MPI_SUM, 0, ctx->comm));

  /* ---- gather the rows of W on rank 0 ---- */
  hy_phase_begin(ctx, "gather");
  int32_t *anbr = NULL;
  double *aw = NULL;
  int *cnt = NULL, *dsp = NULL;
  if (ctx->rank == 0 && ctx->size > 1) {
    anbr = malloc((size_t)n * k * sizeof *anbr);
    aw = malloc((size_t)n * k * sizeof *aw);
    cnt = malloc((size_t)ctx->size * sizeof *cnt);
    dsp = malloc((size_t)ctx->size * sizeof *dsp);
    rc = anbr && aw && cnt && dsp ? HY_OK : hy_err(HY_ESYS, "out of memory gathering W (n = %lld)", (long long)n);
    if (rc == HY_OK && n * k > INT32_MAX) rc = hy_err(HY_EUSAGE, "n * k = %lld exceeds the MPI count limit", (long long)(n * k));
    for (int r = 0; rc == HY_OK && r < ctx->size; r++) {
      int64_t a = n * r / ctx->size, b = n * (r + 1) / ctx->size;
      cnt[r] = (int)((b - a) * k);
      dsp[r] = (int)(a * k);
    }
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  if (ctx->size == 1) {   /* one rank: its block is all of W, no copy (N = 1M: 120 MB) */
    anbr = nbr; aw = w;
    nbr = NULL; w = NULL;
  } else {
    HY_MPI(MPI_Gatherv(nbr, (int)(nq * k), MPI_INT32_T, anbr, cnt, dsp, MPI_INT32_T, 0, ctx->comm));
    HY_MPI(MPI_Gatherv(w, (int)(nq * k), MPI_DOUBLE, aw, cnt, dsp, MPI_DOUBLE, 0, ctx->comm));
  }
  hy_phase_end(ctx, "gather");
  free(nbr); free(d2); free(w);
  free(cnt); free(dsp);

  /* ---- rank 0: M, eigenpairs, outputs ---- */
  hy_csr m = { 0 };
  lle_eig eig = { 0 };
  double *emb = NULL;
  int passed = 0;
  double worst = INFINITY;
  if (ctx->rank == 0) {
    uint64_t gdig = fnv64(0xcbf29ce484222325ULL, anbr, (size_t)n * k * sizeof *anbr);
    hy_printf0(ctx, "lle: knn graph digest %016llx, %lld zero-distance neighbour(s) (duplicates), "
               "%lld point(s) with a singular local Gram matrix\n", (unsigned long long)gdig,
               (long long)nduppall, (long long)nbadall);
    hy_metric_str(ctx, "knn", use_kd ? "kdtree" : "brute");
    hy_metric_int(ctx, "duplicate_neighbours", nduppall);
    hy_metric_int(ctx, "singular_gram", nbadall);
    const char *nf = cfg_str(c, "output.neighbors");
    if (nf[0]) rc = lle_write_npy_i32(nf, n, k, anbr);
    if (stage != 0) {
      double tk = tkwmax[0];
      hy_printf0(ctx, "lle: stage %s: knn %.6f s (%.3g queries/s), weights %.6f s, knn+weights %.6f s "
                 "(slowest rank)\n", cfg_str(c, "lle.stage"), tk, n / (tk > 0 ? tk : 1e-30), tkwmax[1], tk + tkwmax[1]);
      hy_metric_num(ctx, "knn_seconds", tk);
      hy_metric_num(ctx, "weights_seconds", tkwmax[1]);
      passed = 1;
      worst = 0;
    }
    if (stage != 0) goto done0;
    const char *mf = cfg_str(c, "output.matrix");
    int bsvd = cfg_is(c, "lle.eigensolver", "bsvd");
    const char *solver = cfg_str(c, "lle.eigensolver");
    double cpu0 = lle_cpu(), cpu_asm = 0;
    if (!bsvd || mf[0]) {   /* bsvd never needs M itself */
    hy_phase_begin(ctx, "assemble");
    if (rc == HY_OK) rc = lle_build_m(n, k, anbr, aw, &m);
    hy_phase_end(ctx, "assemble");
    cpu_asm = lle_cpu() - cpu0;
    if (rc == HY_OK) hy_printf0(ctx, "lle: M = (I - W)^T (I - W): %lld x %lld, %lld nonzeros\n",
                                (long long)n, (long long)n, (long long)m.nnz);
    }
    if (rc == HY_OK && mf[0]) rc = io_write_csr(mf, &m, "lle: M = (I - W)^T (I - W)");
    cpu0 = lle_cpu();
    hy_phase_begin(ctx, "eigen");
    hy_debug_point(ctx, "eigen");
    if (rc == HY_OK) {
      if (cfg_is(c, "lle.eigensolver", "dense")) rc = lle_eig_dense(&m, nev, &eig);
      else if (bsvd) {
        /* bsvd deflates one null vector of I - W; a kNN graph in several pieces has more (M
         * then has several zero eigenvalues), C stays singular and the iteration stalls.  Its
         * convergence rate is shift-invert's, so 50 iterations without convergence (normal
         * runs: 2-4) or a singular C mean that: fall back to shift-invert, whose shift
         * handles any null space. */
        int mi = (int)cfg_int(c, "lle.maxit"), cap = mi > 50 ? 50 : mi;
        rc = lle_eig_bsvd(n, k, anbr, aw, cfg_str(c, "lle.ordering"), nev,
                          cfg_real(c, "lle.tol"), cap, seed, &eig);
        if ((rc == HY_OK && eig.converged < nev && mi > cap) || rc == HY_ENUMERIC) {
          if (rc == HY_OK) hy_printf0(ctx, "lle: bsvd: %d of %d eigenpairs after %d iterations (several null vectors of I - W?): falling back to shift-invert\n", eig.converged, nev, cap);
          else hy_printf0(ctx, "lle: bsvd: %s: falling back to shift-invert\n", hy_err_msg());
          hy_err_clear();
          lle_eig_free(&eig);
          bsvd = 0;
          solver = "shift-invert (fallback)";
          rc = m.nnz ? HY_OK : lle_build_m(n, k, anbr, aw, &m);
          if (rc == HY_OK) rc = lle_eig_shift_invert(&m, nev, cfg_real(c, "lle.tol"), mi, seed, &eig);
        }
      }
      else rc = lle_eig_shift_invert(&m, nev, cfg_real(c, "lle.tol"), (int)cfg_int(c, "lle.maxit"), seed, &eig);
    }
    hy_phase_end(ctx, "eigen");
    double cpu_eig = lle_cpu() - cpu0;
    if (rc == HY_OK && ctx->debug.perturb != 0) {   /* test hook: a wrong result for the check */
      lle_eig_perturb(&eig, n, ctx->debug.perturb, seed);
      rc = lle_eig_residuals_w(n, k, anbr, aw, &eig);
      hy_printf0(ctx, "lle: [debug] perturb = %g: eigenvectors perturbed after the solve, residuals recomputed\n",
                 ctx->debug.perturb);
    }
    if (rc == HY_OK) {
      /* sign convention: the largest-magnitude entry of each vector is positive */
      for (int j = 0; j < nev; j++) {
        double *v = eig.vec + (size_t)j * n, best = 0;
        for (int64_t i = 0; i < n; i++) if (fabs(v[i]) > fabs(best)) best = v[i];
        if (best < 0) for (int64_t i = 0; i < n; i++) v[i] = -v[i];
      }
      double tol = cfg_real(c, "lle.tol");
      worst = 0;
      if (bsvd)
        hy_printf0(ctx, "lle: eigensolver bsvd (%s): factorisation %.3f s (analysis %.3f s; nnz(L+U) %.4g, "
                   "%.4g flops, BLAS threads %d), %d iteration(s) %.3f s, ||M||_1 = %.4g\n",
                   eig.method, eig.t_factor, eig.t_analyze, eig.lnz, eig.flops, eig.blas_threads, eig.iters,
                   eig.t_iter, eig.normm);
      if (bsvd)
        hy_printf0(ctx, "lle: bsvd parts: B and symbolic analysis %.3f s, numeric LU %.3f s, factor extraction %.3f s, "
                   "block solves %.3f s of the iterations (%d threads)\n", eig.t_analyze, eig.t_numeric,
                   eig.t_extract, eig.t_solve, eig.solve_threads);
      if (!bsvd)
      hy_printf0(ctx, "lle: eigensolver %s: shift %.3g, factorisation %.3f s (analysis %.3f s; nnz(L) %.4g, "
                 "%.4g flops, ordering %d, BLAS threads %d), %d iteration(s) %.3f s, ||M||_1 = %.4g\n",
                 solver, eig.shift, eig.t_factor, eig.t_analyze, eig.lnz, eig.flops,
                 eig.ordering, eig.blas_threads, eig.iters, eig.t_iter, eig.normm);
      hy_printf0(ctx, "lle: CPU time of this process: assemble %.3f s, eigen %.3f s\n", cpu_asm, cpu_eig);
      hy_metric_num(ctx, "eigen_cpu_seconds", cpu_eig);
      hy_printf0(ctx, "  %3s %24s %12s %12s\n", "j", "eigenvalue", "residual", "res/||M||");
      char buf[2048];
      int pos = snprintf(buf, sizeof buf, "[");
      for (int j = 0; j < nev; j++) {
        double rel = eig.res[j] / eig.normm;
        if (rel > worst || isnan(rel)) worst = rel;
        hy_printf0(ctx, "  %3d %24.16e %12.3e %12.3e%s\n", j, eig.val[j], eig.res[j], rel, j == 0 ? "  (constant vector, dropped)" : "");
        pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s{\"lambda\": %.17g, \"residual\": %.6g}", j ? ", " : "", eig.val[j], eig.res[j]);
      }
      snprintf(buf + pos, sizeof buf - (size_t)pos, "]");
      hy_metric_json(ctx, "eigenpairs", buf);
      hy_metric_int(ctx, "eigen_iterations", eig.iters);
      hy_metric_num(ctx, "eigen_shift", eig.shift);
      hy_metric_num(ctx, "normM", eig.normm);
      if (m.nnz) hy_metric_int(ctx, "nnz_M", m.nnz);
      hy_metric_num(ctx, "eigen_factor_seconds", eig.t_factor);
      hy_metric_num(ctx, "eigen_iter_seconds", eig.t_iter);
      passed = worst <= tol && !isnan(worst) && (eig.converged == nev);
      emb = malloc((size_t)n * dd * sizeof *emb);
      if (!emb) rc = hy_err(HY_ESYS, "out of memory for the embedding");
      else memcpy(emb, eig.vec + (size_t)n, (size_t)n * dd * sizeof *emb);
      uint64_t edig = emb ? fnv64(0xcbf29ce484222325ULL, emb, (size_t)n * dd * sizeof *emb) : 0;
      hy_printf0(ctx, "lle: embedding digest %016llx\n", (unsigned long long)edig);
    }
    const char *ef = cfg_str(c, "output.embedding"), *pf = cfg_str(c, "output.plot");
    const char *vf = cfg_str(c, "output.eigvecs"), *lf = cfg_str(c, "output.eigvals");
    if (rc == HY_OK && ef[0]) rc = lle_write_embedding(ef, n, dd, emb);
    if (rc == HY_OK && pf[0]) {
      int has_t = 0;
      for (int64_t i = 0; i < n && !has_t; i++) has_t = !isnan(data.t[i]);
      rc = lle_write_plot(pf, n, dd, emb, has_t ? data.t : NULL);
    }
    if (rc == HY_OK && vf[0]) {
      hy_dense dv = { n, nev, eig.vec };
      rc = io_mm_write_dense(vf, &dv, "lle: eigenvectors of M, one per column, ascending eigenvalues");
    }
    if (rc == HY_OK && lf[0]) rc = io_mm_write_vec(lf, eig.val, nev, "lle: eigenvalues of M, ascending");
    /* quality: trustworthiness */
    int64_t ts = cfg_int(c, "lle.trust_sample");
    if (rc == HY_OK && ts > 0 && n <= cfg_int(c, "lle.trust_max_n") && (int64_t)cfg_int(c, "lle.trust_k") < n / 2) {
      hy_phase_begin(ctx, "quality");
      double tr = 0;
      int kt = (int)cfg_int(c, "lle.trust_k");
      rc = lle_trustworthiness(&data, dd, emb, kt, ts, seed, &tr);
      hy_phase_end(ctx, "quality");
      if (rc == HY_OK) {
        hy_printf0(ctx, "lle: trustworthiness %.6f (n_neighbors = %d, %s)\n", tr, kt,
                   n <= ts ? "all points" : "seeded sample of query points");
        hy_metric_num(ctx, "trustworthiness", tr);
      }
    }
  }
done0:
  free(anbr); free(aw);
  io_csr_free(&m);
  lle_eig_free(&eig);
  free(emb);
  lle_data_free(&data);
  HY_CALL(hy_agree(ctx->comm, rc));
  double tol = cfg_real(c, "lle.tol");
  HY_MPI(MPI_Bcast(&passed, 1, MPI_INT, 0, ctx->comm));
  HY_MPI(MPI_Bcast(&worst, 1, MPI_DOUBLE, 0, ctx->comm));
  if (cfg_enum(c, "lle.stage") != 0) {
    hy_validation(ctx, "stage only (no eigenproblem)", 0, 0, 1);
    hy_verdict(ctx, "lle: stage %s only, %d rank(s)", cfg_str(c, "lle.stage"), ctx->size);
    return HY_OK;
  }
  hy_validation(ctx, "max eigen-residual / ||M||_1", worst, tol, passed);
  if (!passed) {
    hy_verdict(ctx, "lle: eigenpairs not converged: max ||M v - lambda v|| / ||M||_1 = %.3e > %.1e", worst, tol);
    return HY_EVALID;
  }
  hy_verdict(ctx, "lle: %d eigenpairs converged, max ||M v - lambda v|| / ||M||_1 = %.3e <= %.1e", nev, worst, tol);
  return HY_OK;
}

static const char lle_default[] =
  "; embedded default: Swiss roll, n = 2000, k = 10, d = 2\n"
  "[run]\nworkload = lle\n"
  "[lle]\ndataset = swissroll\nn = 2000\nk = 10\ndim = 2\n";

const hy_workload lle_workload = {
  "lle", "locally linear embedding: KNN (brute/kdtree), weights, shift-invert eigenpairs of (I-W)^T(I-W)",
  lle_keys, lle_check, lle_run, lle_default,
};
