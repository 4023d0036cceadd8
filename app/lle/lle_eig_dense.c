/* lle_eig_dense.c - eigensolver dense: LAPACK dsyevr on the n x n matrix M (small n; the
 * reference of the sparse solvers). */
#include "lle_eig.h"
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>
#include <mpi.h>

/* The nev smallest eigenpairs of M by LAPACK dsyevr on the dense matrix.  Local. */
static int dense_solve(const lle_eig_in *in, lle_eig *e) {
  const hy_csr *m = in->m;
  int nev = in->nev;
  int64_t n = m->m;
  memset(e, 0, sizeof *e);
  if ((double)n * n * 8 > (double)io_mem_limit() / 2 || n > 46000)
    return hy_err(HY_EUSAGE, "eigensolver = dense needs an n x n matrix: n = %lld is too large "
                  "(use eigensolver = shift-invert)", (long long)n);
  double t0 = MPI_Wtime();
  double *a = NULL;
  HY_CALLOC(a, (size_t)n * n);
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++) a[(size_t)m->colind[p] * n + i] = m->val[p];
  int nn = (int)n, il = 1, iu = nev, mfound = 0, info = 0, lwork = -1, liwork = -1, iq;
  double vl = 0, vu = 0, abstol = 0, q;
  int *isuppz = NULL;
  e->nev = nev;
  e->val = malloc((size_t)n * sizeof *e->val);
  e->vec = malloc((size_t)n * nev * sizeof *e->vec);
  e->res = malloc((size_t)nev * sizeof *e->res);
  isuppz = malloc((size_t)2 * nev * sizeof *isuppz);
  if (!e->val || !e->vec || !e->res || !isuppz) {
    free(a); free(isuppz); lle_eig_free(e);
    return hy_err(HY_ESYS, "out of memory for the dense eigensolver");
  }
  dsyevr_("V", "I", "U", &nn, a, &nn, &vl, &vu, &il, &iu, &abstol, &mfound, e->val, e->vec, &nn,
          isuppz, &q, &lwork, &iq, &liwork, &info, 1, 1, 1);
  lwork = (int)q + 1;
  liwork = iq;
  double *work = malloc((size_t)lwork * sizeof *work);
  int *iwork = malloc((size_t)liwork * sizeof *iwork);
  if (work && iwork)
    dsyevr_("V", "I", "U", &nn, a, &nn, &vl, &vu, &il, &iu, &abstol, &mfound, e->val, e->vec, &nn,
            isuppz, work, &lwork, iwork, &liwork, &info, 1, 1, 1);
  else info = -1000;
  free(work); free(iwork); free(isuppz); free(a);
  if (info || mfound != nev) {
    lle_eig_free(e);
    return hy_err(HY_ENUMERIC, "dsyevr failed (info %d, %d of %d eigenpairs)", info, mfound, nev);
  }
  e->iters = 1;
  e->converged = nev;
  e->t_factor = MPI_Wtime() - t0;
  lle_eig_residuals(m, e);
  return HY_OK;
}

const lle_eigsolver lle_eig_dense_solver = {
  .name = "dense", .needs_m = 1, .solve = dense_solve, .report = lle_report_eig_chol,
};
