/* la_csr.h - shared numerics: the compressed-sparse-row matrix every part of hybrid uses (the
 * readers and writers of app/io, the distributed matrices of app/la, the workloads), and the
 * local helpers on it.  All functions here are local (no MPI). */
#ifndef HY_LA_CSR_H
#define HY_LA_CSR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compressed sparse rows, 0-based, column indices sorted within a row, no duplicates. */
typedef struct {
  int64_t m, n;       /* rows, columns */
  int64_t nnz;        /* rowptr[m] */
  int64_t *rowptr;    /* m + 1 */
  int32_t *colind;    /* nnz */
  double *val;        /* nnz */
} hy_csr;

/* a = an m x n matrix with room for nnz entries: a's fields set (a->nnz = nnz), rowptr zeroed
 * (m + 1), colind and val uninitialised (nnz + 1, never NULL).  A caller that fills fewer entries
 * (nnz as a capacity) sets a->nnz when done.  a's old arrays are not freed.  On out of memory the
 * local fatal error, naming the array and the caller's file:line.  Local. */
#define la_csr_alloc(a, m, n, nnz) la_csr_alloc_at((a), (m), (n), (nnz), #a, __FILE__, __LINE__)
/* The first half of a counting build: a's fields set, rowptr zeroed (m + 1), no entries yet (nnz 0,
 * colind and val NULL); la_csr_alloc_entries(a) follows once rowptr holds the counts' sums.
 * Aborts on out of memory as la_csr_alloc.  Local. */
#define la_csr_alloc_rows(a, m, n) la_csr_alloc_rows_at((a), (m), (n), #a, __FILE__, __LINE__)
/* The second half: colind and val for a->nnz = a->rowptr[a->m] entries (+ 1, never NULL).  Local. */
#define la_csr_alloc_entries(a) la_csr_alloc_entries_at((a), #a, __FILE__, __LINE__)
void la_csr_alloc_at(hy_csr *a, int64_t m, int64_t n, int64_t nnz, const char *name,
                     const char *file, int line);
void la_csr_alloc_rows_at(hy_csr *a, int64_t m, int64_t n, const char *name, const char *file,
                          int line);
void la_csr_alloc_entries_at(hy_csr *a, const char *name, const char *file, int line);

/* d = a deep copy of s (d's old arrays are not freed).  Aborts on out of memory.  Local. */
int la_csr_copy(const hy_csr *s, hy_csr *d);
/* The first row where x and y differ (size, pattern or value, exactly), -1 if identical.  Local. */
int64_t la_csr_differs(const hy_csr *x, const hy_csr *y);

#ifdef __cplusplus
}
#endif
#endif
