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

/* d = a deep copy of s (d's old arrays are not freed).  Aborts on out of memory.  Local. */
int la_csr_copy(const hy_csr *s, hy_csr *d);
/* The first row where x and y differ (size, pattern or value, exactly), -1 if identical.  Local. */
int64_t la_csr_differs(const hy_csr *x, const hy_csr *y);

#ifdef __cplusplus
}
#endif
#endif
