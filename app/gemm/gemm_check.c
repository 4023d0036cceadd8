/* gemm_check.c - stages check and write.
 *
 * Check: Freivalds' test for 2 random sign vectors r: C r against alpha A (B r) + beta C0 r,
 * all in FP64 from the values the run used (rounded inputs, the C it computed), each component
 * divided by its rounding-error bound ((k + 4) u + (n + 2 k + 4) eps_64) (|alpha| |A| |B| |r| +
 * |beta| |C0| |r|), u the unit roundoff of the accumulation (FP64 for double, FP32 for the
 * others); the ratio is the largest of these.  At small sizes (m n k <= gemm.full_check_max) also
 * every element of C against the FP64 host BLAS product on rank 0, divided by its bound
 * ((k + 4) u + (2 k + 8) eps_64) (|alpha| |A| |B| + |beta| |C0|).  Both pass at <= threshold.
 * debug.perturb scales C by (1 + perturb) before the check. */
#include "gemm/gemm.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Random sign r_v(j) of vector v.  Local. */
static inline double gemm_sign(uint64_t seed, int v, int64_t j) {
  return (hy_rand_u64(seed, 0x7a + (uint64_t)v, (uint64_t)j) & 1) ? 1.0 : -1.0;
}

/* t_v = B r_v (v = 0, 1) and |B| |r| into vk (3 k, summed over the ranks).  Collective. */
static int gemm_fr_b(gemm_t *g, double *vk) {
  int64_t nb = g->o->nb, k = g->k;
  for (int64_t lj = 0; lj < g->B.cols; lj++) {
    int64_t j = gemm_l2g(lj, nb, g->q, g->Q);
    double r0 = gemm_sign(g->o->seed, 0, j), r1 = gemm_sign(g->o->seed, 1, j);
    for (int64_t li = 0; li < g->B.rows; li++) {
      int64_t l = gemm_l2g(li, nb, g->p, g->P);
      double b = g->B.h[li + lj * g->B.ld];
      vk[l] += b * r0;
      vk[k + l] += b * r1;
      vk[2 * k + l] += fabs(b);
    }
  }
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, vk, (int)(3 * k), MPI_DOUBLE, MPI_SUM, g->ctx->comm));
  return HY_OK;
}

/* Into vm (8 m, summed over the ranks): C r_v, C0 r_v, A t_v (v = 0, 1), |A| |B| |r|, |C0| |r|.
 * Collective. */
static int gemm_fr_c(gemm_t *g, const double *vk, double *vm) {
  int64_t nb = g->o->nb, m = g->m, k = g->k;
  int use_c0 = g->o->beta != 0;
  for (int64_t lj = 0; lj < g->C.cols; lj++) {
    int64_t j = gemm_l2g(lj, nb, g->q, g->Q);
    double r0 = gemm_sign(g->o->seed, 0, j), r1 = gemm_sign(g->o->seed, 1, j);
    for (int64_t li = 0; li < g->C.rows; li++) {
      int64_t i = gemm_l2g(li, nb, g->p, g->P);
      double c = g->C.h[li + lj * g->C.ld];
      vm[i] += c * r0;
      vm[m + i] += c * r1;
      if (use_c0) {
        double c0 = gemm_entry(g, 2, i, j);
        vm[2 * m + i] += c0 * r0;
        vm[3 * m + i] += c0 * r1;
        vm[7 * m + i] += fabs(c0);
      }
    }
  }
  for (int64_t lj = 0; lj < g->A.cols; lj++) {
    int64_t l = gemm_l2g(lj, nb, g->q, g->Q);
    for (int64_t li = 0; li < g->A.rows; li++) {
      int64_t i = gemm_l2g(li, nb, g->p, g->P);
      double a = g->A.h[li + lj * g->A.ld];
      vm[4 * m + i] += a * vk[l];
      vm[5 * m + i] += a * vk[k + l];
      vm[6 * m + i] += fabs(a) * vk[2 * k + l];
    }
  }
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, vm, (int)(8 * m), MPI_DOUBLE, MPI_SUM, g->ctx->comm));
  return HY_OK;
}

/* err / bound, 0 / 0 = 0, x / 0 = inf, NaN stays NaN.  Local. */
static double gemm_ratio(double err, double bound) {
  if (bound > 0 || isnan(err)) return err / bound;
  return err == 0 ? 0 : INFINITY;
}

/* Freivalds' ratio (every rank gets it).  Collective. */
static int gemm_freivalds(gemm_t *g, double *ratio) {
  int64_t m = g->m, k = g->k;
  if (3 * k > 2147483647 || 8 * m > 2147483647)
    return hy_err(HY_EUSAGE, "gemm: m = %lld or k = %lld too large for the check's reductions",
                  (long long)m, (long long)k);
  double *vk = NULL, *vm = NULL;
  HY_CALLOC(vk, (size_t)(3 * k));
  HY_CALLOC(vm, (size_t)(8 * m));
  HY_CALL(gemm_fr_b(g, vk));
  HY_CALL(gemm_fr_c(g, vk, vm));
  double al = g->o->alpha, be = g->o->beta;
  double scale = (k + 4) * k_gemm_unit(g->o->prec) + (g->n + 2 * k + 4) * 0x1.0p-53;
  double worst = 0;
  for (int v = 0; v < 2; v++)
    for (int64_t i = 0; i < m; i++) {
      double want = al * vm[(4 + v) * m + i] + be * vm[(2 + v) * m + i];
      double bound = scale * (fabs(al) * vm[6 * m + i] + fabs(be) * vm[7 * m + i]);
      double r = gemm_ratio(fabs(vm[v * m + i] - want), bound);
      if (!(r <= worst)) worst = r;   /* NaN wins */
    }
  free(vk);
  free(vm);
  *ratio = worst;
  return HY_OK;
}

/* Rank 0: every element of C (whole, m x n) against the FP64 host BLAS product.  Local. */
static int gemm_full_rank0(gemm_t *g, const double *c, double *ratio) {
  int64_t m = g->m, n = g->n, k = g->k;
  double *a = NULL, *b = NULL, *ref = NULL, *bnd = NULL;
  HY_MALLOC(a, (size_t)(m * k));
  HY_MALLOC(b, (size_t)(k * n));
  HY_MALLOC(ref, (size_t)(m * n));
  HY_MALLOC(bnd, (size_t)(m * n));
  double be = g->o->beta, al = g->o->alpha;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      double c0 = be != 0 ? gemm_entry(g, 2, i, j) : 0;
      ref[i + j * m] = c0;
      bnd[i + j * m] = fabs(c0);
    }
  k_gemm_ws *ws = NULL;
  const k_gemm_ops *h = &k_gemm_host_ops;   /* the host reference: needs no open backend */
  HY_CALL(h->ws_open(NULL, 16, &ws));
  for (int pass = 0; pass < 2; pass++) {  /* alpha A B + beta C0, then |alpha| |A| |B| + |beta| |C0| */
    for (int64_t j = 0; j < k; j++)
      for (int64_t i = 0; i < m; i++) a[i + j * m] = pass ? fabs(gemm_entry(g, 0, i, j)) : gemm_entry(g, 0, i, j);
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < k; i++) b[i + j * k] = pass ? fabs(gemm_entry(g, 1, i, j)) : gemm_entry(g, 1, i, j);
    HY_CALL(h->vendor(NULL, ws, K_GEMM_DOUBLE, m, n, k, pass ? fabs(al) : al, a, m, b, k,
                      pass ? fabs(be) : be, pass ? bnd : ref, m));
  }
  h->ws_close(NULL, ws);
  double scale = (k + 4) * k_gemm_unit(g->o->prec) + (2 * k + 8) * 0x1.0p-53, worst = 0;
  for (int64_t x = 0; x < m * n; x++) {
    double r = gemm_ratio(fabs(c[x] - ref[x]), scale * bnd[x]);
    if (!(r <= worst)) worst = r;
  }
  free(a); free(b); free(ref); free(bnd);
  *ratio = worst;
  return HY_OK;
}

/* Stage check.  Collective. */
int gemm_check(gemm_t *g, gemm_info *info) {
  hy_ctx *ctx = g->ctx;
  size_t cnt = (size_t)(g->C.ld * g->C.cols);
  if (ctx->debug.perturb != 0)
    for (size_t i = 0; i < cnt; i++) g->C.h[i] *= 1 + ctx->debug.perturb;
  double ss = 0;
  for (int64_t j = 0; j < g->C.cols; j++)
    for (int64_t i = 0; i < g->C.rows; i++) ss += g->C.h[i + j * g->C.ld] * g->C.h[i + j * g->C.ld];
  HY_MPI(MPI_Allreduce(MPI_IN_PLACE, &ss, 1, MPI_DOUBLE, MPI_SUM, ctx->comm));
  info->cnorm = sqrt(ss);
  HY_CALL(gemm_freivalds(g, &info->freivalds));
  double mnk = (double)g->m * (double)g->n * (double)g->k;
  double elems = (double)g->m * g->n + (double)g->m * g->k + (double)g->k * g->n;
  info->full = -1;
  if (mnk <= g->o->full_max && elems <= 3e7) {
    double *c = NULL;
    HY_CALL(gemm_gather_c(g, g->C.h, &c));
    int rc = ctx->rank == 0 ? gemm_full_rank0(g, c, &info->full) : HY_OK;
    free(c);
    HY_CALL(hy_agree(ctx->comm, rc));
    HY_MPI(MPI_Bcast(&info->full, 1, MPI_DOUBLE, 0, ctx->comm));
  }
  double thr = g->o->threshold;
  info->passed = info->freivalds <= thr && (info->full < 0 || info->full <= thr);
  return HY_OK;
}

/* Write a whole matrix by extension (PETSc binary or Matrix Market array).  Local. */
static int gemm_write_one(const char *path, int64_t m, int64_t n, double *a, const char *what) {
  hy_dense d = { m, n, a };
  const char *dot = strrchr(path, '.');
  if (dot && (!strcmp(dot, ".petsc") || !strcmp(dot, ".bin") || !strcmp(dot, ".dat"))) {
    hy_csr s;
    memset(&s, 0, sizeof s);
    HY_CALL(io_dense_to_csr(&d, &s));
    int rc = io_petsc_write_mat(path, &s);
    io_csr_free(&s);
    return rc;
  }
  return io_mm_write_dense(path, &d, what);
}

/* Rank 0: A, B or C0 (which 0, 1, 2) as used, whole, to path.  Local. */
static int gemm_write_input(gemm_t *g, int which, const char *path) {
  int64_t rows = which == 1 ? g->k : g->m, cols = which == 0 ? g->k : g->n;
  double *a = NULL;
  HY_MALLOC(a, (size_t)(rows * cols));
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++) a[i + j * rows] = gemm_entry(g, which, i, j);
  static const char *const what[] = { "hybrid gemm: A as used (rounded to the precision)",
                                      "hybrid gemm: B as used (rounded to the precision)",
                                      "hybrid gemm: C0 (the C that beta scaled)" };
  int rc = gemm_write_one(path, rows, cols, a, what[which]);
  free(a);
  return rc;
}

/* Stage write: output.a, output.b, output.c0 and output.c from rank 0.  Collective. */
int gemm_write(gemm_t *g) {
  hy_ctx *ctx = g->ctx;
  const gemm_opts *o = g->o;
  const char *ins[3] = { o->out_a, o->out_b, o->out_c0 };
  int rc = HY_OK;
  for (int w = 0; w < 3; w++)
    if (ins[w][0] && ctx->rank == 0 && rc == HY_OK) rc = gemm_write_input(g, w, ins[w]);
  HY_CALL(hy_agree(ctx->comm, rc));
  if (!o->out_c[0]) return HY_OK;
  double *c = NULL;
  HY_CALL(gemm_gather_c(g, g->C.h, &c));
  if (ctx->rank == 0) rc = gemm_write_one(o->out_c, g->m, g->n, c, "hybrid gemm: C = alpha A B + beta C0");
  free(c);
  return hy_agree(ctx->comm, rc);
}
