/* la_csr.c - local helpers on hy_csr (copy, exact comparison). */
#include "la/la_csr.h"
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>

/* Deep copy.  Local. */
int la_csr_copy(const hy_csr *s, hy_csr *d) {
  memset(d, 0, sizeof *d);
  d->m = s->m;
  d->n = s->n;
  d->nnz = s->nnz;
  HY_MALLOC(d->rowptr, s->m + 1);
  HY_MALLOC(d->colind, s->nnz + 1);
  HY_MALLOC(d->val, s->nnz + 1);
  memcpy(d->rowptr, s->rowptr, (size_t)(s->m + 1) * sizeof *d->rowptr);
  if (s->nnz) {
    memcpy(d->colind, s->colind, (size_t)s->nnz * sizeof *d->colind);
    memcpy(d->val, s->val, (size_t)s->nnz * sizeof *d->val);
  }
  return HY_OK;
}

/* The first differing row, exactly (0 when the sizes differ), -1 if identical.  Local. */
int64_t la_csr_differs(const hy_csr *x, const hy_csr *y) {
  if (x->m != y->m || x->nnz != y->nnz) return 0;
  for (int64_t i = 0; i < x->m; i++) {
    if (x->rowptr[i + 1] != y->rowptr[i + 1]) return i;
    for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
      if (x->colind[e] != y->colind[e] || x->val[e] != y->val[e]) return i;
  }
  return -1;
}
