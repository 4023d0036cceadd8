/* test_gauss_trsm_gpu.c - the CUDA backend's trsm_lunit (B = L^-1 B, L unit lower) against the
 * host backend's (BLAS dtrsm / strsm): L the unit lower factor of LAPACK's getrf of a random
 * matrix (as the blocked LU's panels give it, |l_ij| <= 1), B random with a leading dimension
 * above m, at the shapes that take each path: FP64 through L^-1 (m >= 128, n >= m: linv_fp64's
 * diagonal blocks of 32 and its levels, orders 32 does not divide, a last shorter pair), FP64
 * by cuBLAS's TRSM (n < m, m < 128), FP32 (through the identity's TRSM from n >= 2 m), on the
 * main stream and on the lookahead side stream (its own buffers: its FP64 rule n >= 2 m), the
 * same L twice in a row (nothing cached on the main stream).  B to 1e-12 of the host's in FP64,
 * 2e-4 in FP32 (relative to max |B|); the rows of B below m and its columns beyond n untouched.
 * Prints the device time of trsm_lunit at m = 1024 (n = 1024 and 64512 through L^-1; n = 1023:
 * cuBLAS's TRSM), for the record.  Exit 0 when every check passes, 1 otherwise, 77 without a
 * CUDA device (skip).
 *   test_gauss_trsm_gpu --gemm [N]: no checks; the FP64 trailing GEMM of the blocked LU
 *   (gemm_sub: cuBLAS DGEMM, C -= A B inside one random N x N matrix, N = 65536 by default:
 *   A = L21, B = U12 beside the lookahead columns, C = A22, all with ld N) timed at the shapes of
 *   its first step and of its middle step for nb = 768, 1024, 1536, 2048 and at nb = 1024 with
 *   the leading dimension padded by 64: the GEMM's own ceiling at each nb, without the panel
 *   beside it (best of 3 after a warm-up, TF = 2 M N K over the time); at the first step of nb =
 *   1024 and 1536 also every algorithm cuBLASLt's heuristic offers for the shape (up to 8, 64 MiB
 *   of workspace),
 *   the best of them beside cuBLAS's own pick: whether the library's default leaves rate behind.
 *   test_gauss_trsm_gpu --panel [N]: the blocked LU's FP64 fused panel (getrf_dev: the recursion
 *   of nb = 1024 columns with base blocks of 32) and one base block alone (32 columns) at m =
 *   1024 .. N rows (N = 65536 by default), with both gauss.panel_sync ways (flags, grid; best of 3
 *   after a warm-up, each call on a fresh copy of the same random panel) and flags at 512
 *   threads a thread block (K_GAUSS_AUX_PBTHREADS; the default 1024), all three with the
 *   shared-memory kernel, and the register kernel (K_GAUSS_AUX_PBKIND 2: a row a thread in
 *   registers wherever it fits; gauss.panel_kernel): the time and the time a
 *   column, the vendor's getrf beside them; checked: every way gives the same pivots and the
 *   same factors bit for bit, and the vendor's pivots with factors within 1e-10 (exit 1
 *   otherwise); one base block also once with its clocks on (gauss_cuda_pb_clk: thread 0 of the
 *   first and of the last thread block, SM cycles turned into us by the kernel's global timer),
 *   each phase's mean a column printed (`panel clocks ...`: warp 0's pick - publish, poll, read -,
 *   the block barrier after it, thread 0's own update, the barrier after the update), the factors
 *   bit for bit the flags way's. */
#include "k_gauss.h"
#include "cuda/gauss_panel_cuda.h"
#include "hybrid.h"
#include "workload.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nchecks, nfailed;

/* Count a check; print it when it failed.  Local. */
static void ok(int cond, const char *what, int sp, int64_t m, int64_t n, double fig) {
  nchecks++;
  if (!cond) {
    nfailed++;
    printf("FAILED: %s, %s m = %lld, n = %lld (figure %.3e)\n", what, sp ? "FP32" : "FP64", (long long)m,
           (long long)n, fig);
  }
}

/* A deterministic value in [-0.5, 0.5) for index i of stream s. */
static double val(uint64_t s, uint64_t i) {
  uint64_t z = (s * 0x9E3779B97F4A7C15ull) ^ (i + 0x632BE59BD9B4E5ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0 - 0.5;
}

/* Element i of a buffer of e-byte values as double.  Local. */
static double get(const void *p, size_t e, int64_t i) {
  return e == 4 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* One shape: L (m x m, ld m + 3) from the host getrf of a random matrix, B (m x n inside an
 * (m + 5) x (n + 2) block, ld m + 5), host and device trsm_lunit (on stream `side`: 0 main, 1
 * the lookahead side stream), compared; twice when twice (the same L, a fresh B).  Local. */
static void check(const k_gauss_ops *ho, k_backend *hb, const k_gauss_ops *co, k_backend *cb, int sp,
                  int64_t m, int64_t n, int side, int twice, uint64_t seed) {
  size_t e = sp ? 4 : 8;
  int64_t ldl = m + 3, ldb = m + 5, nbc = n + 2;
  size_t lbytes = (size_t)(ldl * m) * e, bbytes = (size_t)(ldb * nbc) * e;
  void *l = malloc(lbytes), *b0 = malloc(bbytes), *bh = malloc(bbytes), *bc = malloc(bbytes);
  int *ip = malloc(sizeof(int) * (size_t)(m + 1));
  for (int64_t i = 0; i < ldl * m; i++) {
    double v = val(seed, (uint64_t)i);
    if (sp) ((float *)l)[i] = (float)v;
    else ((double *)l)[i] = v;
  }
  int info = 0;
  double mp = 0;
  int64_t mi = 0;
  ok(ho->getrf(hb, sp, m, m, l, ldl, ip, &info, &mp, &mi) == HY_OK && info == 0, "host getrf of L's matrix", sp, m, n, info);
  void *dl = NULL, *db = NULL;
  ok(cb->ops->alloc(cb, &dl, lbytes) == HY_OK && cb->ops->alloc(cb, &db, bbytes) == HY_OK, "device buffers", sp, m, n, 0);
  cb->ops->h2d(cb, dl, l, lbytes);
  for (int rep = 0; rep <= twice; rep++) {
    for (int64_t i = 0; i < ldb * nbc; i++) {
      double v = val(seed + 1000 + (uint64_t)rep, (uint64_t)i);
      if (sp) ((float *)b0)[i] = (float)v;
      else ((double *)b0)[i] = v;
    }
    memcpy(bh, b0, bbytes);
    ho->trsm_lunit(hb, sp, m, n, l, ldl, bh, ldb);
    cb->ops->h2d(cb, db, b0, bbytes);
    if (side) {
      co->stream_ctl(cb, 0);
      co->stream_ctl(cb, 1);
    }
    int rc = co->trsm_lunit(cb, sp, m, n, dl, ldl, db, ldb);
    if (side) co->stream_ctl(cb, 2);
    ok(rc == HY_OK, "device trsm_lunit returns HY_OK", sp, m, n, rc);
    cb->ops->d2h(cb, bc, db, bbytes);
    cb->ops->sync(cb);
    double d = 0, s = 0;
    int outside = 0;
    for (int64_t j = 0; j < nbc; j++)
      for (int64_t i = 0; i < ldb; i++) {
        int64_t x = i + j * ldb;
        if (i < m && j < n) {
          double dd = fabs(get(bc, e, x) - get(bh, e, x));
          if (dd > d || isnan(dd)) d = isnan(dd) ? INFINITY : dd;
          if (fabs(get(bh, e, x)) > s) s = fabs(get(bh, e, x));
        } else if (get(bc, e, x) != get(b0, e, x)) {
          outside++;
        }
      }
    d /= s > 0 ? s : 1;
    ok(d <= (sp ? 2e-4 : 1e-12), "B = L^-1 B as the host's", sp, m, n, d);
    ok(outside == 0, "B's rows below m and columns beyond n untouched", sp, m, n, outside);
    printf("trsm_lunit %s m = %lld, n = %lld%s%s: max |B_gpu - B_host| / max |B| = %.2e\n", sp ? "FP32" : "FP64",
           (long long)m, (long long)n, side ? " (side stream)" : "", rep ? " (same L again)" : "", d);
  }
  cb->ops->free(cb, dl);
  cb->ops->free(cb, db);
  free(l); free(b0); free(bh); free(bc); free(ip);
}

/* The mean device time (ms) of 5 calls of trsm_lunit (m x n, FP64) after a warm-up.  Local. */
static double timed(const k_gauss_ops *co, k_backend *cb, int64_t m, int64_t n) {
  void *dl = NULL, *db = NULL;
  if (cb->ops->alloc(cb, &dl, (size_t)(m * m) * 8) != HY_OK || cb->ops->alloc(cb, &db, (size_t)(m * n) * 8) != HY_OK)
    return NAN;
  /* L = I + a small strictly lower part: the solves stay bounded however often repeated */
  double *h = calloc((size_t)(m * m), sizeof(double));
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = j; i < m; i++) h[i + j * m] = i == j ? 1.0 : val(7, (uint64_t)(i + j * m)) / (double)m;
  cb->ops->h2d(cb, dl, h, (size_t)(m * m) * 8);
  cb->ops->memset0(cb, db, (size_t)(m * n) * 8);
  co->trsm_lunit(cb, 0, m, n, dl, m, db, m);
  cb->ops->sync(cb);
  double t0 = hy_wtime();
  for (int r = 0; r < 5; r++) co->trsm_lunit(cb, 0, m, n, dl, m, db, m);
  cb->ops->sync(cb);
  double t = (hy_wtime() - t0) / 5 * 1e3;
  cb->ops->free(cb, dl);
  cb->ops->free(cb, db);
  free(h);
  return t;
}

/* --gemm at one shape: C -= A B through every algorithm cuBLASLt's heuristic returns (best of 2
 * after a warm-up each); prints the best and how many ran.  Local. */
static void gemm_lt(int64_t m, int64_t n, int64_t k, const double *a, const double *b, double *c, int64_t ld,
                    double tsub) {
  cublasLtHandle_t lt = NULL;
  cublasLtMatmulDesc_t op = NULL;
  cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  void *ws = NULL;
  size_t wsb = (size_t)64 << 20;
  cublasLtMatmulHeuristicResult_t res[8];
  int nres = 0;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS || cudaMalloc(&ws, wsb) != cudaSuccess ||
      cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_64F, CUDA_R_64F) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&la, CUDA_R_64F, (uint64_t)m, (uint64_t)k, ld) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&lb, CUDA_R_64F, (uint64_t)k, (uint64_t)n, ld) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&lc, CUDA_R_64F, (uint64_t)m, (uint64_t)n, ld) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb) !=
          CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, res, &nres) != CUBLAS_STATUS_SUCCESS) {
    printf("gemm_sub FP64 cuBLASLt: no heuristic for M %lld x N %lld x K %lld\n", (long long)m, (long long)n, (long long)k);
    nres = 0;
  }
  const double mone = -1, one = 1;
  double best = INFINITY;
  int bi = -1, ran = 0;
  for (int r = 0; r < nres; r++) {
    if (res[r].state != CUBLAS_STATUS_SUCCESS) continue;
    double bt = INFINITY;
    int okr = 1;
    for (int q = 0; q < 3 && okr; q++) {
      cudaDeviceSynchronize();
      double t0 = hy_wtime();
      okr = cublasLtMatmul(lt, op, &mone, a, la, b, lb, &one, c, lc, c, lc, &res[r].algo, ws, wsb, 0) ==
            CUBLAS_STATUS_SUCCESS;
      cudaDeviceSynchronize();
      double t = hy_wtime() - t0;
      if (q > 0 && t < bt) bt = t;
    }
    if (!okr) continue;
    ran++;
    if (bt < best) { best = bt; bi = r; }
  }
  if (bi >= 0)
    printf("gemm_sub FP64 cuBLASLt, M %lld x N %lld x K %lld: best of %d algorithms (heuristic rank %d) %.2f ms = %.2f TF "
           "(cuBLAS's own %.2f ms: %.3fx)\n", (long long)m, (long long)n, (long long)k, ran, bi, best * 1e3,
           2.0 * (double)m * (double)n * (double)k / best / 1e12, tsub * 1e3, tsub / best);
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (la) cublasLtMatrixLayoutDestroy(la);
  if (lb) cublasLtMatrixLayoutDestroy(lb);
  if (lc) cublasLtMatrixLayoutDestroy(lc);
  if (op) cublasLtMatmulDescDestroy(op);
  if (ws) cudaFree(ws);
  if (lt) cublasLtDestroy(lt);
}

/* gauss.panel_sync's ways as K_GAUSS_AUX_PBSYNC takes them. */
enum { PB_FLAGS = 0, PB_GRID = 1, PB_FLAGS_512 = 2, PB_REG = 3 };

/* The fused base block's clocks (gauss_cuda_pb_clk, a test hook). */
#define PB_CLK_SLOTS GAUSS_PB_CLK_SLOTS

/* --panel, one base block (n <= 32 columns): the flags way once more with the kernel's clocks on
 * (thread 0 of the first and of the last thread block), printed as each phase's mean a column;
 * the factors checked bit for bit against hf / pf (the flags way's).  Returns 1 when they differ
 * or the clocks fail.  Local. */
static int panel_clocks(const k_gauss_ops *co, k_backend *cb, int64_t m, int64_t n, const double *d0, double *d,
                        int *dpiv, double *dstat, const double *hf, const int *pf, double *h, int *pv) {
  long long c[2 * PB_CLK_SLOTS];
  if (gauss_cuda_pb_clk(1, NULL)) return 1;
  cb->ops->d2d(cb, d, d0, (size_t)(m * n) * 8);
  co->getrf_dev(cb, 0, m, n, d, m, 32, K_GAUSS_BASE_FUSED, dpiv, dstat);
  cb->ops->sync(cb);
  int bad = gauss_cuda_pb_clk(2, c) || gauss_cuda_pb_clk(0, NULL);
  cb->ops->d2h(cb, h, d, (size_t)(m * n) * 8);
  cb->ops->d2h(cb, pv, dpiv, sizeof(int) * (size_t)n);
  cb->ops->sync(cb);
  bad |= memcmp(h, hf, (size_t)(m * n) * 8) != 0 || memcmp(pv, pf, sizeof(int) * (size_t)n) != 0;
  ok(!bad, "--panel: the clocked base block gives other pivots or factors", 0, m, n, 0);
  for (int q = 0; q < 2 && !bad; q++) {
    const long long *k = c + q * PB_CLK_SLOTS;
    double ns = (double)(k[5] - k[1]), cyc = (double)(k[4] - k[0]), ghz = ns > 0 ? cyc / ns : 0;
    double ph[4] = { 0, 0, 0, 0 };
    for (int j = 0; j < n; j++)
      for (int p = 0; p < 4; p++) ph[p] += (double)(k[8 + 5 * j + p + 1] - k[8 + 5 * j + p]);
    double us = ghz > 0 ? 1e-3 / ghz : 0;   /* us a cycle */
    printf("panel clocks m = %lld, n = %lld, %s block: %.2f us in the kernel (SM clock %.3f GHz), load %.2f us, "
           "a column: pick %.2f us, barrier %.2f, own update %.2f, barrier %.2f; store + clear %.2f us\n",
           (long long)m, (long long)n, q ? "last" : "first", ns * 1e-3, ghz, (double)(k[2] - k[0]) * us,
           ph[0] / n * us, ph[1] / n * us, ph[2] / n * us, ph[3] / n * us,
           (double)(k[4] - k[8 + 5 * (n - 1) + 4]) * us);
  }
  return bad;
}

/* --panel at m rows and n columns (see the head): the best of 3 timed calls of getrf_dev (fused base
 * blocks of 32, sync PB_* way; way -1: the vendor's whole-panel getrf) on a fresh copy of
 * d0 into d each time; the factors left in d, the pivots in dpiv.  Returns seconds.  Local. */
static double panel_timed(const k_gauss_ops *co, k_backend *cb, int64_t m, int64_t n, const double *d0, double *d,
                          int *dpiv, double *dstat, int way) {
  double best = INFINITY;
  if (way >= 0) co->aux_ctl(cb, K_GAUSS_AUX_PBSYNC, way == PB_GRID);
  if (way == PB_FLAGS_512) co->aux_ctl(cb, K_GAUSS_AUX_PBTHREADS, 512);
  /* flags, grid, 512: the shared-memory kernel; registers: the register kernel wherever it fits */
  co->aux_ctl(cb, K_GAUSS_AUX_PBKIND, way == PB_REG ? 2 : 1);
  for (int r = 0; r < 4; r++) {
    cb->ops->d2d(cb, d, d0, (size_t)(m * n) * 8);
    cb->ops->sync(cb);
    double t0 = hy_wtime();
    co->getrf_dev(cb, 0, m, n, d, m, way >= 0 ? 32 : 0, K_GAUSS_BASE_FUSED, dpiv, dstat);
    cb->ops->sync(cb);
    double t = hy_wtime() - t0;
    if (r > 0 && t < best) best = t;
  }
  co->aux_ctl(cb, K_GAUSS_AUX_PBSYNC, 0);
  co->aux_ctl(cb, K_GAUSS_AUX_PBTHREADS, 0);
  co->aux_ctl(cb, K_GAUSS_AUX_PBKIND, 0);
  return best;
}

/* --panel (see the head).  Returns 0, 1 when a buffer fails or the two ways differ.  Local. */
static int panel_shapes(const k_gauss_ops *co, k_backend *cb, int64_t nmax) {
  int bad = 0;
  for (int64_t m = 1024; m <= nmax; m *= 2) {
    const int64_t nbs[] = { 1024, 32 };
    for (int v = 0; v < 2; v++) {
      int64_t n = nbs[v];
      size_t bytes = (size_t)(m * n) * 8;
      double *h = malloc(bytes), *hf = malloc(bytes), *hg = malloc(bytes), *d0 = NULL, *d = NULL, *dstat = NULL;
      int *dpiv = NULL, *pf = malloc(sizeof(int) * (size_t)n), *pg = malloc(sizeof(int) * (size_t)n);
      if (!h || !hf || !hg || !pf || !pg || cb->ops->alloc(cb, (void **)&d0, bytes) != HY_OK ||
          cb->ops->alloc(cb, (void **)&d, bytes) != HY_OK || cb->ops->alloc(cb, (void **)&dpiv, sizeof(int) * (size_t)n) != HY_OK ||
          cb->ops->alloc(cb, (void **)&dstat, 4 * sizeof(double)) != HY_OK) {
        printf("FAILED: no room for the %lld x %lld panel\n", (long long)m, (long long)n);
        return 1;
      }
      for (int64_t i = 0; i < m * n; i++) h[i] = val(41 + (uint64_t)m, (uint64_t)i);
      cb->ops->h2d(cb, d0, h, bytes);
      double tf = panel_timed(co, cb, m, n, d0, d, dpiv, dstat, PB_FLAGS);
      cb->ops->d2h(cb, hf, d, bytes);
      cb->ops->d2h(cb, pf, dpiv, sizeof(int) * (size_t)n);
      double tg = panel_timed(co, cb, m, n, d0, d, dpiv, dstat, PB_GRID);
      cb->ops->d2h(cb, hg, d, bytes);
      cb->ops->d2h(cb, pg, dpiv, sizeof(int) * (size_t)n);
      cb->ops->sync(cb);
      int same = memcmp(hf, hg, bytes) == 0 && memcmp(pf, pg, sizeof(int) * (size_t)n) == 0;
      double tk = panel_timed(co, cb, m, n, d0, d, dpiv, dstat, PB_FLAGS_512);
      cb->ops->d2h(cb, hg, d, bytes);
      cb->ops->d2h(cb, pg, dpiv, sizeof(int) * (size_t)n);
      double tv = panel_timed(co, cb, m, n, d0, d, dpiv, dstat, -1);
      cb->ops->d2h(cb, h, d, bytes);   /* (the vendor's factors over the input: it is on the device still) */
      int *pv = malloc(sizeof(int) * (size_t)n);
      if (pv) cb->ops->d2h(cb, pv, dpiv, sizeof(int) * (size_t)n);
      cb->ops->sync(cb);
      int same_k = memcmp(hf, hg, bytes) == 0 && memcmp(pf, pg, sizeof(int) * (size_t)n) == 0;
      double tr = panel_timed(co, cb, m, n, d0, d, dpiv, dstat, PB_REG);
      cb->ops->d2h(cb, hg, d, bytes);
      cb->ops->d2h(cb, pg, dpiv, sizeof(int) * (size_t)n);
      cb->ops->sync(cb);
      int same_r = memcmp(hf, hg, bytes) == 0 && memcmp(pf, pg, sizeof(int) * (size_t)n) == 0;
      ok(same, "--panel: panel_sync flags and grid give other pivots or factors", 0, m, n, 0);
      ok(same_k, "--panel: flags at 1024 and 512 threads give other pivots or factors", 0, m, n, 0);
      ok(same_r, "--panel: the register and the shared-memory base block give other pivots or factors", 0, m, n, 0);
      same &= same_k & same_r;
      bad |= !same;
      /* against the vendor's getrf: the same pivots (the same rule), the factors to rounding */
      double dmax = 0;
      for (int64_t i = 0; i < m * n; i++) {
        double e = fabs(hf[i] - h[i]) / (1 + fabs(h[i]));
        if (e > dmax) dmax = e;
      }
      int piv_same = pv && memcmp(pf, pv, sizeof(int) * (size_t)n) == 0;
      ok(piv_same && dmax <= 1e-10, "--panel: the fused panel against the vendor's getrf", 0, m, n, dmax);
      bad |= !(piv_same && dmax <= 1e-10);
      if (n == 32 && pv) bad |= panel_clocks(co, cb, m, n, d0, d, dpiv, dstat, hf, pf, h, pv);
      free(pv);
      printf("panel FP64 m = %lld, n = %lld (%s): flags %.3f ms (%.2f us a column), grid %.3f ms (%.2f us), "
             "flags / grid %.3f, flags at 512 threads %.3f ms (%.2f us), registers %.3f ms (%.2f us, %.3f of flags); "
             "vendor getrf %.3f ms; %s; against the vendor's: %s pivots, factors within %.1e\n",
             (long long)m, (long long)n, n == 32 ? "one base block" : "the recursion, base blocks of 32", tf * 1e3,
             tf * 1e6 / (double)n, tg * 1e3, tg * 1e6 / (double)n, tf / tg, tk * 1e3, tk * 1e6 / (double)n, tr * 1e3,
             tr * 1e6 / (double)n, tr / tf, tv * 1e3,
             same ? "the same pivots and factors" : "DIFFERENT pivots or factors", piv_same ? "the same" : "DIFFERENT", dmax);
      cb->ops->free(cb, d0);
      cb->ops->free(cb, d);
      cb->ops->free(cb, dpiv);
      cb->ops->free(cb, dstat);
      free(h); free(hf); free(hg); free(pf); free(pg);
    }
  }
  return bad;
}

/* --gemm: the trailing GEMM's shapes (see the head).  Returns 0, 1 when a buffer fails.  Local. */
static int gemm_shapes(const k_gauss_ops *co, k_backend *cb, int64_t n) {
  size_t bytes = (size_t)(n * n) * 8, blk = (size_t)(n * 1024) * 8;
  double *d = NULL, *h = malloc(blk);
  if (!h || cb->ops->alloc(cb, (void **)&d, bytes) != HY_OK) {
    printf("FAILED: no room for the %lld x %lld matrix\n", (long long)n, (long long)n);
    return 1;
  }
  for (int64_t i = 0; i < n * 1024; i++) h[i] = val(99, (uint64_t)i);
  for (int64_t c = 0; c < n; c += 1024) {
    int64_t w = n - c < 1024 ? n - c : 1024;
    cb->ops->h2d(cb, d + c * n, h, (size_t)(w * n) * 8);
  }
  cb->ops->sync(cb);
  static const int64_t nbs[] = { 768, 1024, 1536, 2048, -1024 };
  for (size_t v = 0; v < sizeof nbs / sizeof nbs[0]; v++) {
    int64_t nb = nbs[v] < 0 ? -nbs[v] : nbs[v], ld = nbs[v] < 0 ? n + 64 : n;
    int64_t cols = bytes / 8 / (size_t)ld;   /* the columns the buffer holds with this ld */
    for (int mid = 0; mid < 2; mid++) {
      int64_t k0 = mid ? (n / 2) / nb * nb : 0;   /* the step's first column */
      int64_t m = n - k0 - nb, nc = (cols < n ? cols : n) - k0 - 2 * nb;
      if (m <= 0 || nc <= 0) continue;
      const double *a = d + (k0 + nb) + k0 * ld, *b = d + k0 + (k0 + 2 * nb) * ld;
      double *c = d + (k0 + nb) + (k0 + 2 * nb) * ld;
      double best = INFINITY;
      for (int r = 0; r < 4; r++) {
        cb->ops->sync(cb);
        double t0 = hy_wtime();
        co->gemm_sub(cb, 0, m, nc, nb, a, ld, b, ld, c, ld);
        cb->ops->sync(cb);
        double t = hy_wtime() - t0;
        if (r > 0 && t < best) best = t;
      }
      printf("gemm_sub FP64 trailing GEMM, n = %lld, nb = %lld, %s step (M %lld x N %lld x K %lld, ld %lld): %.2f ms "
             "= %.2f TF\n", (long long)n, (long long)nb, mid ? "middle" : "first", (long long)m, (long long)nc,
             (long long)nb, (long long)ld, best * 1e3, 2.0 * (double)m * (double)nc * (double)nb / best / 1e12);
      if (ld == n && !mid && (nb == 1024 || nb == 1536)) gemm_lt(m, nc, nb, a, b, c, ld, best);
    }
  }
  cb->ops->free(cb, d);
  free(h);
  return 0;
}

int main(int argc, char **argv) {
  if (!k_cuda_compiled() || k_cuda_device_count() < 1) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  k_backend hb, cb;
  memset(&hb, 0, sizeof hb);
  memset(&cb, 0, sizeof cb);
  if (k_backend_open(&hb, K_HOST, -1) != HY_OK || k_backend_open(&cb, K_CUDA, 0) != HY_OK) {
    printf("FAILED: a backend does not open: %s\n", hy_err_msg());
    return 1;
  }
  const k_gauss_ops *ho = k_gauss_ops_get(&hb), *co = k_gauss_ops_get(&cb);
  if (argc > 1 && strcmp(argv[1], "--panel") == 0) {
    int rc = panel_shapes(co, &cb, argc > 2 ? atoll(argv[2]) : 65536);
    k_backend_close(&cb);
    k_backend_close(&hb);
    return rc;
  }
  if (argc > 1 && strcmp(argv[1], "--gemm") == 0) {
    int rc = gemm_shapes(co, &cb, argc > 2 ? atoll(argv[2]) : 65536);
    k_backend_close(&cb);
    k_backend_close(&hb);
    return rc;
  }
  /* FP64 through L^-1: base blocks of 32 + levels, 32 not dividing m (200: last pairs of 64 + 8
   * and 128 + 72; 1000: every level's last pair shorter), m = 1024 (full levels), n = m and wide */
  static const int64_t sh[][2] = { { 128, 128 }, { 200, 333 }, { 256, 1000 }, { 1000, 1000 }, { 1024, 1024 },
                                   { 1024, 3000 }, { 777, 1601 }, { 129, 129 },
                                   /* cuBLAS's TRSM: n < m, m < 128 */
                                   { 1024, 700 }, { 100, 500 }, { 64, 64 } };
  uint64_t seed = 21;
  for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) check(ho, &hb, co, &cb, 0, sh[i][0], sh[i][1], 0, i == 4, seed++);
  /* the side stream: its own buffers, FP64 through L^-1 from n >= 2 m */
  check(ho, &hb, co, &cb, 0, 256, 512, 1, 0, seed++);
  check(ho, &hb, co, &cb, 0, 512, 512, 1, 0, seed++);
  /* FP32: through the identity's TRSM from n >= 2 m, else cuBLAS's */
  check(ho, &hb, co, &cb, 1, 256, 600, 0, 1, seed++);
  check(ho, &hb, co, &cb, 1, 300, 300, 0, 0, seed++);
  printf("trsm_lunit FP64 time, m = 1024: n = 1024 %.3f ms, n = 64512 %.3f ms (through L^-1); n = 1023 %.3f ms "
         "(cuBLAS TRSM)\n", timed(co, &cb, 1024, 1024), timed(co, &cb, 1024, 64512), timed(co, &cb, 1024, 1023));
  k_backend_close(&cb);
  k_backend_close(&hb);
  printf("%s: %d of %d checks passed\n", nfailed ? "FAILED" : "PASSED", nchecks - nfailed, nchecks);
  return nfailed ? 1 : 0;
}
