/* lle_eig_si.c - eigensolver shift-invert: subspace iteration with a CHOLMOD factorisation of
 * M + tau I (lle.eigensolver = shift-invert; bsvd's fallback).
 *
 * Why shift-invert with a sparse Cholesky factorisation: the wanted eigenvalues are ~1e-10
 * (N = 2000) down to ~1e-12 (N = 20000) and below against a largest one near 5, so plain
 * Lanczos/Arnoldi on M needs ~ sqrt(5 / 1e-12) iterations and does not converge in practice.
 * With (M + tau I)^-1 the wanted eigenvalues become the largest, 1/(lambda + tau), separated
 * by ratios (lambda_j + tau) / (lambda_p + tau) well below 1.  M is positive semidefinite
 * (singular: the constant vector) so the small shift tau > 0 makes the Cholesky factorisation
 * (CHOLMOD, supernodal, fill-reducing ordering) well defined; tau starts at 1e-13 max(diag M)
 * and grows tenfold if CHOLMOD finds a non-positive pivot.  The iteration is block subspace
 * iteration with Rayleigh-Ritz on M itself (not on the shifted inverse), so eigenvalues and the
 * reported residuals ||M v - lambda v|| are those of M; a pair is converged when its residual
 * is <= tol * ||M||_1 (a backward-error criterion, as SLEPc's EPS_CONV_NORM). */
#include "lle_eig.h"
#include "hybrid.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <suitesparse/cholmod.h>

/* Copy M's upper triangle into a CHOLMOD matrix (stype 1).  Local. */
static cholmod_sparse *to_cholmod(const hy_csr *m, cholmod_common *cc) {
  int64_t n = m->m, nnz = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++) nnz += m->colind[p] >= i;
  /* CSR of the lower triangle == CSC of the upper triangle; take row i's entries j <= i:
   * as column i of a CSC matrix they are the upper triangle entries (j, i), j <= i */
  cholmod_sparse *a = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, cc);
  if (!a) return NULL;
  SuiteSparse_long *ap = a->p, *ai = a->i;
  double *ax = a->x;
  int64_t q = 0;
  for (int64_t i = 0; i < n; i++) {
    ap[i] = q;
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++)
      if (m->colind[p] <= i) { ai[q] = m->colind[p]; ax[q++] = m->val[p]; }
  }
  ap[n] = q;
  return a;
}

/* CHOLMOD's controls, analysis and the factorisation of M + tau I, tau from 1e-13 max(diag M)
 * up tenfold while CHOLMOD finds a non-positive pivot; *L the factor.  Local. */
static int si_factor(const lle_eig_in *in, cholmod_common *cc, cholmod_sparse *a, cholmod_factor **Lp, lle_eig *e) {
  const hy_csr *m = in->m;
  int64_t n = m->m;
  double t0 = MPI_Wtime();
  const char *ord = in->chol_ordering;   /* lle.cholmod_ordering: auto | amd | metis | nesdis */
  if (ord && *ord && strcmp(ord, "auto")) {
    cc->nmethods = 1;
    cc->method[0].ordering = !strcmp(ord, "metis") ? CHOLMOD_METIS : !strcmp(ord, "nesdis") ? CHOLMOD_NESDIS : CHOLMOD_AMD;
  }
  const char *sn = in->chol_supernodal;  /* lle.cholmod_supernodal: auto | simplicial | supernodal */
  if (sn && *sn && strcmp(sn, "auto")) cc->supernodal = !strcmp(sn, "supernodal") ? CHOLMOD_SUPERNODAL : CHOLMOD_SIMPLICIAL;
  e->blas_threads = in->blas_threads > 0 ? in->blas_threads : lle_blas_threads(n, in->threads);
  int rc = HY_OK;
  cholmod_factor *L = cholmod_l_analyze(a, cc);
  if (!L) rc = hy_err(HY_ESYS, "CHOLMOD analyze failed (status %d)", cc->status);
  e->t_analyze = MPI_Wtime() - t0;
  double dmax = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t q = m->rowptr[i]; q < m->rowptr[i + 1]; q++)
      if (m->colind[q] == i && m->val[q] > dmax) dmax = m->val[q];
  double tau = 1e-13 * (dmax > 0 ? dmax : 1);
  while (rc == HY_OK) {
    double beta[2] = { tau, 0 };
    if (!cholmod_l_factorize_p(a, beta, NULL, 0, L, cc) && cc->status < CHOLMOD_OK) {
      rc = hy_err(HY_ESYS, "CHOLMOD factorisation failed (status %d)", cc->status);
      break;
    }
    if (cc->status == CHOLMOD_NOT_POSDEF || L->minor < L->n) {
      tau *= 10;
      if (tau > 1e-6 * (dmax > 0 ? dmax : 1)) {
        rc = hy_err(HY_ENUMERIC, "M + tau I is not positive definite up to tau = %.3g "
                    "(M is not positive semidefinite: bad weights?)", tau / 10);
        break;
      }
      continue;
    }
    break;
  }
  e->shift = tau;
  e->t_factor = MPI_Wtime() - t0;
  e->lnz = cc->lnz;
  e->flops = cc->fl;
  e->ordering = L ? (int)L->ordering : -1;
  *Lp = L;
  return rc;
}

/* Shift-invert subspace iteration (see the file comment).  Local. */
static int si_solve(const lle_eig_in *in, lle_eig *e) {
  const hy_csr *m = in->m;
  int nev = in->nev, maxit = in->maxit;
  double tol = in->tol;
  uint64_t seed = in->seed;
  int64_t n = m->m;
  memset(e, 0, sizeof *e);
  int p = nev + (nev > 6 ? nev : 6);
  if (p > n) p = (int)n;
  if (n > INT32_MAX) return hy_err(HY_EUSAGE, "n = %lld exceeds the LAPACK 32-bit limit", (long long)n);
  cholmod_common cc;
  cholmod_l_start(&cc);
  cc.print = 0;
  cc.error_handler = NULL;
  cholmod_sparse *a = to_cholmod(m, &cc);
  cholmod_factor *L = NULL;
  cholmod_dense *b = NULL, *z = NULL;
  double *v = NULL, *mv = NULL, *h = NULL, *theta = NULL, *tmp = NULL;
  int rc = a ? si_factor(in, &cc, a, &L, e) : hy_err(HY_ESYS, "CHOLMOD could not allocate M (status %d)", cc.status);
  double t0;
  t0 = MPI_Wtime();
  e->nev = nev;
  if (rc == HY_OK) {
    b = cholmod_l_allocate_dense((size_t)n, (size_t)p, (size_t)n, CHOLMOD_REAL, &cc);
    v = malloc((size_t)n * p * sizeof *v);
    mv = malloc((size_t)n * p * sizeof *mv);
    tmp = malloc((size_t)n * p * sizeof *tmp);
    h = malloc((size_t)p * p * sizeof *h);
    theta = malloc((size_t)p * sizeof *theta);
    e->val = malloc((size_t)nev * sizeof *e->val);
    e->vec = malloc((size_t)n * nev * sizeof *e->vec);
    e->res = malloc((size_t)nev * sizeof *e->res);
    if (!b || !v || !mv || !tmp || !h || !theta || !e->val || !e->vec || !e->res)
      rc = hy_err(HY_ESYS, "out of memory for the eigensolver block (n = %lld, p = %d)", (long long)n, p);
  }
  if (rc == HY_OK) {
    /* start: the constant vector and seeded random vectors */
    for (int64_t i = 0; i < n; i++) v[i] = 1.0;
    for (int c = 1; c < p; c++)
      for (int64_t i = 0; i < n; i++) v[(size_t)c * n + i] = hy_rand_u01(seed, 0x1e16 + c, (uint64_t)i) - 0.5;
    rc = lle_orthonormalise(n, p, v);
  }
  e->normm = lle_csr_norm1(m);
  int it = 0;
  for (it = 1; rc == HY_OK && it <= maxit; it++) {
    memcpy(b->x, v, (size_t)n * p * sizeof *v);
    z = cholmod_l_solve(CHOLMOD_A, L, b, &cc);
    if (!z) { rc = hy_err(HY_ESYS, "CHOLMOD solve failed (status %d)", cc.status); break; }
    memcpy(v, z->x, (size_t)n * p * sizeof *v);
    cholmod_l_free_dense(&z, &cc);
    rc = lle_orthonormalise(n, p, v);
    if (rc) break;
    /* Rayleigh-Ritz with M: H = V^T M V */
    lle_csr_mm(m, p, v, mv);
    for (int i = 0; i < p; i++)
      for (int j = i; j < p; j++) {
        double s = 0;
        for (int64_t r = 0; r < n; r++) s += v[(size_t)i * n + r] * mv[(size_t)j * n + r];
        h[(size_t)j * p + i] = s;
      }
    for (int i = 0; i < p; i++)
      for (int j = 0; j < i; j++) h[(size_t)j * p + i] = h[(size_t)i * p + j];
    rc = lle_small_eig(p, h, theta);
    if (rc) break;
    /* V <- V Y, MV <- MV Y */
    for (int pass = 0; pass < 2; pass++) {
      double *src = pass ? mv : v;
      for (int j = 0; j < p; j++) {
        double *dst = tmp + (size_t)j * n;
        memset(dst, 0, (size_t)n * sizeof *dst);
        for (int l = 0; l < p; l++) {
          double y = h[(size_t)j * p + l];
          const double *s = src + (size_t)l * n;
          for (int64_t r = 0; r < n; r++) dst[r] += y * s[r];
        }
      }
      memcpy(src, tmp, (size_t)n * p * sizeof *tmp);
    }
    int conv = 0;
    for (int j = 0; j < nev; j++) {
      double s = 0;
      for (int64_t r = 0; r < n; r++) {
        double d = mv[(size_t)j * n + r] - theta[j] * v[(size_t)j * n + r];
        s += d * d;
      }
      e->res[j] = sqrt(s);
      e->val[j] = theta[j];
      if (e->res[j] <= tol * e->normm) conv++;
      else break;
    }
    e->converged = conv;
    e->iters = it;
    hy_progress_toward(in->prog, e->res[e->converged < in->nev ? e->converged : in->nev - 1], in->tol * e->normm);
    if (conv == nev) break;
  }
  if (rc == HY_OK) {
    memcpy(e->vec, v, (size_t)n * nev * sizeof *v);
    lle_eig_residuals(m, e);
  }
  e->t_iter = MPI_Wtime() - t0;
  cholmod_l_free_dense(&b, &cc);
  cholmod_l_free_factor(&L, &cc);
  cholmod_l_free_sparse(&a, &cc);
  cholmod_l_finish(&cc);
  free(v); free(mv); free(h); free(theta); free(tmp);
  if (rc != HY_OK) lle_eig_free(e);
  return rc;
}

const lle_eigsolver lle_eig_si_solver = {
  .name = "shift-invert", .needs_m = 1, .solve = si_solve, .report = lle_report_eig_chol,
};
