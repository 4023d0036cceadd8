/* spai_ilu_host.c - ILU(0) on the host (k_spai_ops.ilu_*): the row-wise IKJ elimination in A's
 * pattern (PETSc's PCILU with 0 levels and the natural ordering computes the same factors),
 * and the two triangular solves. */
#include "k_spai.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t n;
  int64_t *rowptr, *diag;    /* diag[i]: position of (i, i) */
  int32_t *colind;
  double *val;               /* L below the diagonal (unit diagonal implied), U on and above */
} h_ilu;

/* Free the factors.  Local. */
int k_spai_host_ilu_free(k_backend *be, void *ilu) {
  (void)be;
  h_ilu *f = ilu;
  if (!f) return HY_OK;
  free(f->rowptr); free(f->diag); free(f->colind); free(f->val); free(f);
  return HY_OK;
}

/* Eliminate row i with the rows above it (pos: column -> position in row i, or -1).  Local. */
static void ilu_row(h_ilu *f, int64_t i, int64_t *pos) {
  for (int64_t e = f->rowptr[i]; e < f->rowptr[i + 1]; e++) pos[f->colind[e]] = e;
  for (int64_t e = f->rowptr[i]; e < f->rowptr[i + 1] && f->colind[e] < i; e++) {
    int64_t k = f->colind[e];
    double lik = f->val[e] / f->val[f->diag[k]];
    f->val[e] = lik;
    for (int64_t g = f->diag[k] + 1; g < f->rowptr[k + 1]; g++) {
      int64_t at = pos[f->colind[g]];
      if (at >= 0) f->val[at] -= lik * f->val[g];
    }
  }
  for (int64_t e = f->rowptr[i]; e < f->rowptr[i + 1]; e++) pos[f->colind[e]] = -1;
}

/* The factors of the n x n CSR (sorted columns).  Local. */
int k_spai_host_ilu_create(k_backend *be, int64_t n, const int64_t *rowptr, const int32_t *colind,
                           const double *val, void **ilu) {
  (void)be;
  h_ilu *f = calloc(1, sizeof *f);
  if (!f) hy_fatal(HY_ESYS, "out of memory");
  int64_t nnz = rowptr[n];
  f->n = n;
  HY_MALLOC(f->rowptr, n + 1);
  HY_MALLOC(f->diag, n + 1);
  HY_MALLOC(f->colind, nnz + 1);
  HY_MALLOC(f->val, nnz + 1);
  memcpy(f->rowptr, rowptr, (size_t)(n + 1) * sizeof *rowptr);
  if (nnz) {
    memcpy(f->colind, colind, (size_t)nnz * sizeof *colind);
    memcpy(f->val, val, (size_t)nnz * sizeof *val);
  }
  *ilu = f;
  for (int64_t i = 0; i < n; i++) {
    f->diag[i] = -1;
    for (int64_t e = rowptr[i]; e < rowptr[i + 1]; e++)
      if (colind[e] == i) f->diag[i] = e;
    if (f->diag[i] < 0)
      return hy_err(HY_ENUMERIC, "ILU(0): row %lld has no diagonal entry (zero pivot)", (long long)i);
  }
  int64_t *pos = NULL;
  HY_MALLOC(pos, n + 1);
  for (int64_t j = 0; j <= n; j++) pos[j] = -1;
  for (int64_t i = 0; i < n; i++) {
    ilu_row(f, i, pos);
    double d = f->val[f->diag[i]];
    if (d == 0 || !isfinite(d)) {
      free(pos);
      return hy_err(HY_ENUMERIC, "ILU(0): zero or non-finite pivot %g at row %lld", d, (long long)i);
    }
  }
  free(pos);
  return HY_OK;
}

/* y = U^-1 L^-1 x.  Local. */
int k_spai_host_ilu_apply(k_backend *be, void *ilu, const double *x, double *y) {
  (void)be;
  const h_ilu *f = ilu;
  for (int64_t i = 0; i < f->n; i++) {
    double s = x[i];
    for (int64_t e = f->rowptr[i]; e < f->diag[i]; e++) s -= f->val[e] * y[f->colind[e]];
    y[i] = s;
  }
  for (int64_t i = f->n - 1; i >= 0; i--) {
    double s = y[i];
    for (int64_t e = f->diag[i] + 1; e < f->rowptr[i + 1]; e++) s -= f->val[e] * y[f->colind[e]];
    y[i] = s / f->val[f->diag[i]];
  }
  return HY_OK;
}
