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
 * the host: far less fill) has no GPU counterpart there.  The order is computed on the host
 * from B alone (lle.gpu_ordering = colamd: CHOLMOD's COLAMD of B^T, whose A A^T is M; B's
 * pattern has k + 1 entries a row against M's ~3k; metis | symamd: cuSOLVER's host orders of
 * M's pattern), M is assembled here (lle_build_m: deterministic; cuSPARSE SpGEMM on the
 * device gave embeddings that differed from run to run in the last bits), P M P^T permuted
 * on the host, and everything else runs on the device (kernels/cuda/lle_eig_cuda.cu, own
 * deterministic CSR x block kernel).  Measured on one H200 (18:15 run, COLAMD, M by SpGEMM):
 * N = 20k eigen 1.0 s against bsvd's 0.28 s, N = 1M 23.6 s against 15.4 s (COLAMD 4.8 s,
 * csrchol analysis 8.0 s, factor 4.4 s, 17 one-column solves 5.7 s): auto stays bsvd.  The constant vector is deflated
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
#include <mpi.h>
#include <stdio.h>
#include <suitesparse/cholmod.h>
#include <stdlib.h>
#include <string.h>

/* The seeded start block on e^perp (bsvd's vectors).  Local. */
static void gchol_start(const lle_eig_in *in, int p, double *v) {
  int64_t n = in->n;
  for (int c = 0; c < p; c++) {
    double *col = v + (size_t)c * n, s = 0;
    for (int64_t i = 0; i < n; i++) col[i] = hy_rand_u01(in->seed, 0x1e16 + c + 1, (uint64_t)i) - 0.5;
    for (int64_t i = 0; i < n; i++) s += col[i];
    s /= (double)n;
    for (int64_t i = 0; i < n; i++) col[i] -= s;
  }
}

/* COLAMD's order of M = B^T B from B's pattern alone (CHOLMOD's cholmod_l_colamd of
 * A = B^T, whose A A^T is M; postordered): perm[i] = the old index of new index i.  Local. */
static int gchol_colamd(const lle_eig_in *in, int32_t *perm) {
  int64_t n = in->n;
  int k1 = in->k + 1;
  cholmod_common cc;
  cholmod_l_start(&cc);
  cc.print = 0;
  cc.error_handler = NULL;
  /* column i of A = B^T is row i of B: the point and its neighbours */
  cholmod_sparse *a = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)n * k1, 0, 1, 0, CHOLMOD_PATTERN, &cc);
  SuiteSparse_long *q = NULL;
  int rc = HY_OK;
  if (!a) rc = hy_err(HY_ESYS, "CHOLMOD could not allocate B's pattern (status %d)", cc.status);
  if (rc == HY_OK) {
    SuiteSparse_long *ap = a->p, *ai = a->i;
    for (int64_t i = 0; i < n; i++) {
      ap[i] = i * k1;
      ai[i * k1] = i;
      for (int j = 0; j < in->k; j++) ai[i * k1 + 1 + j] = in->nbr[i * in->k + j];
    }
    ap[n] = n * k1;
    q = malloc((size_t)n * sizeof *q);
    if (!q) rc = hy_err(HY_ESYS, "out of memory for the order (n = %lld)", (long long)n);
  }
  if (rc == HY_OK && !cholmod_l_colamd(a, NULL, 0, 1, q, &cc))
    rc = hy_err(HY_ESYS, "CHOLMOD's COLAMD order of B^T B failed (status %d)", cc.status);
  for (int64_t i = 0; rc == HY_OK && i < n; i++) perm[i] = (int32_t)q[i];
  free(q);
  cholmod_l_free_sparse(&a, &cc);
  cholmod_l_finish(&cc);
  return rc;
}

/* max diag M, M_ii = 1 + the sum of the squared weights in column i of W (W_ii = 0).  Local. */
static double gchol_dmax(const lle_eig_in *in) {
  double *d = NULL, dmax = 0;
  HY_MALLOC(d, in->n);
  for (int64_t i = 0; i < in->n; i++) d[i] = 1.0;
  for (int64_t r = 0; r < in->n; r++)
    for (int j = 0; j < in->k; j++) d[in->nbr[r * in->k + j]] += in->w[r * in->k + j] * in->w[r * in->k + j];
  for (int64_t i = 0; i < in->n; i++) if (d[i] > dmax) dmax = d[i];
  free(d);
  return dmax;
}

/* The device job's figures into e (pair 0, the Ritz pairs, times, the method).  Local. */
static void gchol_result(const lle_eig_in *in, const k_lle_eig_job *job, double t_host_form, lle_eig *e) {
  int64_t n = in->n;
  e->normm = job->normm;
  for (int64_t i = 0; i < n; i++) e->vec[i] = 1.0 / sqrt((double)n);
  e->val[0] = job->lam0;
  e->res[0] = job->res0;
  memcpy(e->vec + n, job->v, (size_t)n * (in->nev - 1) * sizeof *job->v);
  for (int j = 1; j < in->nev; j++) { e->val[j] = job->theta[j - 1]; e->res[j] = job->res[j - 1]; }
  e->converged = job->res0 <= in->tol * e->normm ? 1 + job->converged : 0;
  e->iters = job->iters;
  e->shift = job->shift;
  e->lnz = -1;   /* csrchol does not report nnz(L); its storage is factor_bytes */
  e->flops = -1;
  e->factor_bytes = job->factor_bytes;
  e->t_order = job->t_order;
  e->t_form = t_host_form;
  e->t_analyze = job->t_order + e->t_form + job->t_analyze;
  e->t_numeric = job->t_factor;
  e->t_factor = e->t_analyze + job->t_factor;
  e->t_solve = job->t_solve;
  e->t_rr = job->t_rr;
  e->t_iter = job->t_solve + job->t_rr;
  snprintf(e->method, sizeof e->method, "cuSOLVER csrchol of P (M + tau I) P^T, %s order",
           job->ordering == K_LLE_ORD_SYMAMD ? "symamd" : job->ordering == K_LLE_ORD_METIS ? "METIS" : "COLAMD");
}

/* The device iteration's progress: its leading unconverged residual toward tol ||M||_1, as
 * bsvd reports it (job.progress).  Local. */
static void gchol_progress(void *arg, double res, double target) {
  hy_progress_toward((hy_progress *)arg, res, target);
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
  int32_t *perm = NULL;
  HY_MALLOC(v, (size_t)n * p); HY_MALLOC(theta, p); HY_MALLOC(res, p);
  gchol_start(in, p, v);
  const char *ord = in->gpu_ordering ? in->gpu_ordering : "colamd";
  k_lle_eig_job job = {
    .n = n, .p = p, .nconv = nev - 1, .maxit = in->maxit,
    .ordering = !strcmp(ord, "symamd") ? K_LLE_ORD_SYMAMD : !strcmp(ord, "metis") ? K_LLE_ORD_METIS : K_LLE_ORD_GIVEN,
    .v = v, .theta = theta, .res = res,
    .progress = in->prog ? gchol_progress : NULL, .progress_arg = in->prog,
  };
  hy_csr m = { 0 };
  double t0 = MPI_Wtime(), t_host = 0;
  int rc = HY_OK;
  if (job.ordering == K_LLE_ORD_GIVEN) {   /* COLAMD of B here; else ordered by the backend */
    HY_MALLOC(perm, n);
    rc = gchol_colamd(in, perm);
    job.perm = perm;
  }
  double t_colamd = MPI_Wtime() - t0;
  t0 = MPI_Wtime();
  if (rc == HY_OK) rc = lle_build_m(n, in->k, in->nbr, in->w, &m);   /* deterministic, on the host */
  job.rowptr = m.rowptr; job.colind = m.colind; job.val = m.val; job.nnz = m.nnz;
  t_host = MPI_Wtime() - t0;
  double dmax = gchol_dmax(in);   /* tau as shift-invert's: 1e-13 max diag M, up to 1e-6 max diag M */
  job.tau0 = 1e-13 * dmax; job.tau_max = 1e-6 * dmax; job.tol = in->tol;
  if (rc == HY_OK) rc = ops->eig_si(in->be, &job);
  if (rc != HY_OK && rc != HY_ENUMERIC && rc != HY_EUSAGE) HY_LOCAL(rc);   /* a device failure ends the job */
  job.t_order += t_colamd;
  io_csr_free(&m);
  free(perm);
  if (rc == HY_OK) {
    gchol_result(in, &job, t_host, e);
    rc = lle_eig_residuals_w(n, in->k, in->nbr, in->w, in->threads, e);
  }
  free(v); free(theta); free(res);
  if (rc != HY_OK) lle_eig_free(e);
  return rc;
}

const lle_eigsolver lle_eig_gpu_solver = {
  .name = "gpu-chol", .needs_m = 0, .needs_w = 1, .solve = gchol_solve, .report = lle_report_eig_gpu,
  /* M + tau I not positive definite up to tau_max, a failed Rayleigh-Ritz, or no W (ltsa,
   * hessian, modified): the host's shift-invert takes over (convergence in 2-4 iterations is
   * normal; 50 without means trouble) */
  .fallback = "shift-invert", .stall_iters = 50, .stall_why = "M + tau I badly conditioned?",
};
