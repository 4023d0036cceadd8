/* la_csr.c - local helpers on hy_csr (allocation, copy, exact comparison). */
#include "la/la_csr.h"
#include "hybrid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One array of a's, "NAME->FIELD" in the out-of-memory message, at the caller's file:line.  Local. */
static void *csr_array(size_t count, size_t size, int zero, const char *name, const char *field,
                       const char *file, int line) {
  char what[96];
  if (name[0] == '&') name++;
  snprintf(what, sizeof what, "%s->%s", name, field);
  return hy_alloc_at(count, size, zero, what, file, line);
}

/* rowptr zeroed, no entries (la_csr_alloc_rows).  Local. */
void la_csr_alloc_rows_at(hy_csr *a, int64_t m, int64_t n, const char *name, const char *file,
                          int line) {
  memset(a, 0, sizeof *a);
  a->m = m;
  a->n = n;
  a->rowptr = csr_array((size_t)m + 1, sizeof *a->rowptr, 1, name, "rowptr", file, line);
}

/* a->nnz = nnz, colind and val for nnz entries (+ 1, never NULL).  Local. */
static void csr_entries(hy_csr *a, int64_t nnz, const char *name, const char *file, int line) {
  a->nnz = nnz;
  a->colind = csr_array((size_t)nnz + 1, sizeof *a->colind, 0, name, "colind", file, line);
  a->val = csr_array((size_t)nnz + 1, sizeof *a->val, 0, name, "val", file, line);
}

/* colind and val for rowptr[m] entries (la_csr_alloc_entries).  Local. */
void la_csr_alloc_entries_at(hy_csr *a, const char *name, const char *file, int line) {
  csr_entries(a, a->rowptr[a->m], name, file, line);
}

/* m x n with room for nnz entries (la_csr_alloc).  Local. */
void la_csr_alloc_at(hy_csr *a, int64_t m, int64_t n, int64_t nnz, const char *name,
                     const char *file, int line) {
  la_csr_alloc_rows_at(a, m, n, name, file, line);
  csr_entries(a, nnz, name, file, line);
}

/* Deep copy.  Local. */
int la_csr_copy(const hy_csr *s, hy_csr *d) {
  la_csr_alloc(d, s->m, s->n, s->nnz);
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
