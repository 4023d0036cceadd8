/* lle_eig_gpu.c - eigensolver gpu-chol: shift-invert subspace iteration on e^perp with a
 * sparse Cholesky factor of P (M + tau I) P^T on the backend's device (lle.eigensolver =
 * gpu-chol; auto picks it where the backend has the entry).
 *
 * Why this method: the wanted eigenvalues are 1e-10..1e-12 against a largest near 5, so an
 * unpreconditioned Krylov method on the GPU does not converge (lle_eig_si.c); shift-invert
 * with an exact factorisation converges in 2-4 iterations, as bsvd and shift-invert do on the
 * host.  A Cholesky factor of M (symmetric positive definite after the tiny shift) is what a
 * GPU sparse direct solver offers without cuDSS: cuSOLVER's low-level csrchol (analysis,
 * numeric factor and triangular solves on the device); an LU of B = I - W (bsvd's choice on
 * the host: far less fill) has no GPU counterpart there.  M is assembled on the host (as for
 * shift-invert), the fill-reducing order is computed on the host (lle.gpu_ordering = metis:
 * nested dissection, the least fill on a 2-D manifold graph, | symamd), and everything else
 * runs on the device (kernels/cuda/lle_eig_cuda.cu).  The constant vector is deflated
 * exactly as bsvd does: pair 0 is (e^T M e, e) with e = 1/sqrt(n), the block starts on
 * e^perp from bsvd's seeded vectors and is projected away from e after every solve, so the
 * iteration never sees the 1/tau eigenvalue of the null vector.  Rayleigh-Ritz uses M itself,
 * and the final residuals ||M v - lambda v|| are recomputed on the host (B^T B from W where
 * there is W, else M) like bsvd's: the same convergence test tol ||M||_1. */
#include "lle_eig.h"
#include "hybrid.h"
#include "k_lle.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pair 0 (the constant vector: lambda_0 = e^T M e, rounding level, and its residual), the
 * seeded start block on e^perp (bsvd's vectors).  Local. */
static void gchol_start(const lle_eig_in *in, int p, double *v, lle_eig *e) {
  int64_t n = in->n;
  double *e0 = e->vec, *y = v;   /* y: v's first column as scratch before the start block */
  for (int64_t i = 0; i < n; i++) e0[i] = 1.0 / sqrt((double)n);
  lle_csr_mm(in->m, 1, e0, y);
  double lam0 = 0, res0 = 0;
  for (int64_t i = 0; i < n; i++) lam0 += e0[i] * y[i];
  for (int64_t i = 0; i < n; i++) { double r = y[i] - lam0 * e0[i]; res0 += r * r; }
  e->val[0] = lam0;
  e->res[0] = sqrt(res0);
  for (int c = 0; c < p; c++) {
    double *col = v + (size_t)c * n, s = 0;
    for (int64_t i = 0; i < n; i++) col[i] = hy_rand_u01(in->seed, 0x1e16 + c + 1, (uint64_t)i) - 0.5;
    for (int64_t i = 0; i < n; i++) s += col[i];
    s /= (double)n;
    for (int64_t i = 0; i < n; i++) col[i] -= s;
  }
}

/* The largest diagonal entry of M.  Local. */
static double gchol_dmax(const hy_csr *m) {
  double dmax = 0;
  for (int64_t i = 0; i < m->m; i++)
    for (int64_t q = m->rowptr[i]; q < m->rowptr[i + 1]; q++)
      if (m->colind[q] == i && m->val[q] > dmax) dmax = m->val[q];
  return dmax > 0 ? dmax : 1;
}

/* gpu-chol (see the file comment).  Local (rank 0). */
static int gchol_solve(const lle_eig_in *in, lle_eig *e) {
  int64_t n = in->n;
  int nev = in->nev;
  memset(e, 0, sizeof *e);
  const k_lle_eig_ops *ops = k_lle_eig_ops_get(in->be);
  if (!ops->eig_si)
    return hy_err(HY_EUSAGE, "lle.eigensolver = gpu-chol: the %s backend has no device sparse Cholesky "
                  "(run.backend = cuda; on the host: bsvd, shift-invert or dense)", in->be->name);
  if (nev < 1 || nev >= n) return hy_err(HY_EUSAGE, "%d eigenpairs of an n = %lld matrix", nev, (long long)n);
  int p = nev - 1 + (nev > 6 ? nev : 6);   /* bsvd's block width on e^perp */
  if (p > n - 1) p = (int)(n - 1);
  e->nev = nev;
  e->blas_threads = -1;
  HY_MALLOC(e->val, nev); HY_MALLOC(e->vec, (size_t)n * nev); HY_MALLOC(e->res, nev);
  double *v = NULL, *theta = NULL, *res = NULL;
  HY_MALLOC(v, (size_t)n * p); HY_MALLOC(theta, p); HY_MALLOC(res, p);
  e->normm = lle_csr_norm1(in->m);
  gchol_start(in, p, v, e);
  double dmax = gchol_dmax(in->m);
  k_lle_eig_job job = {
    .n = n, .nnz = in->m->nnz, .rowptr = in->m->rowptr, .colind = in->m->colind, .val = in->m->val,
    .p = p, .nconv = nev - 1, .maxit = in->maxit, .tol_abs = in->tol * e->normm,
    .ordering = in->gpu_ordering && !strcmp(in->gpu_ordering, "symamd") ? K_LLE_ORD_SYMAMD : K_LLE_ORD_METIS,
    .tau0 = 1e-13 * dmax, .tau_max = 1e-6 * dmax, .v = v, .theta = theta, .res = res,
  };
  int rc = ops->eig_si(in->be, &job);
  if (rc != HY_ENUMERIC && rc != HY_EUSAGE) HY_LOCAL(rc);   /* a device failure ends the job here */
  if (rc == HY_OK) {
    memcpy(e->vec + n, v, (size_t)n * (nev - 1) * sizeof *v);
    for (int j = 1; j < nev; j++) { e->val[j] = theta[j - 1]; e->res[j] = res[j - 1]; }
    e->converged = e->res[0] <= in->tol * e->normm ? 1 + job.converged : 0;
    e->iters = job.iters;
    if (in->w) rc = lle_eig_residuals_w(n, in->k, in->nbr, in->w, in->threads, e);
    else lle_eig_residuals(in->m, e);
  }
  e->shift = job.shift;
  e->lnz = -1;   /* csrchol does not report nnz(L); its storage is factor_bytes */
  e->factor_bytes = job.factor_bytes;
  e->t_order = job.t_order;
  e->t_analyze = job.t_order + job.t_analyze;
  e->t_numeric = job.t_factor;
  e->t_factor = job.t_order + job.t_analyze + job.t_factor;
  e->t_solve = job.t_solve;
  e->t_rr = job.t_rr;
  e->t_iter = job.t_solve + job.t_rr;
  e->flops = -1;
  snprintf(e->method, sizeof e->method, "cuSOLVER csrchol of P (M + tau I) P^T, %s order on the host",
           job.ordering == K_LLE_ORD_SYMAMD ? "symamd" : "METIS");
  free(v); free(theta); free(res);
  if (rc != HY_OK) lle_eig_free(e);
  return rc;
}

const lle_eigsolver lle_eig_gpu_solver = {
  .name = "gpu-chol", .needs_m = 1, .solve = gchol_solve, .report = lle_report_eig_gpu,
  /* M + tau I not positive definite (bad weights) or a failed Rayleigh-Ritz: the host's
   * shift-invert, which has the same test, says so with its own figures */
  .fallback = NULL,
};
