/* la_dist.h - shared numerics: distributed sparse matrices by row blocks (partitions, transpose, fetching
 * remote rows, and the halo plan of a distributed SpMV.  A local part is an hy_csr whose m
 * is the number of local rows and whose column indices are global. */
#ifndef HY_LA_DIST_H
#define HY_LA_DIST_H

#include <stdint.h>
#include <mpi.h>
#include "la/la_csr.h"

/* Row partition: rank p owns rows [start[p], start[p+1]). */
typedef struct {
  int size;
  int64_t n;
  int64_t *start;   /* size + 1 */
} la_part;

/* Even split of n rows over size ranks (by rows).  Local. */
int la_part_even(la_part *p, int size, int64_t n);
/* Split so that each rank gets about the same sum of weights w (this rank's rows [r0, r1)
 * of the current partition cur carry w[0 .. r1-r0)).  Collective. */
int la_part_weighted(MPI_Comm comm, const la_part *cur, int rank, const double *w,
                       la_part *out);
void la_part_free(la_part *p);
/* Owner rank of global row g.  Local. */
int la_part_owner(const la_part *p, int64_t g);

/* out = the local rows (under partition pout) of the transpose of the distributed matrix
 * whose local rows (under pin) are loc.  Column indices sorted.  Collective. */
int la_transpose(MPI_Comm comm, const la_part *pin, const hy_csr *loc, const la_part *pout,
                   hy_csr *out);

/* The transpose when one rank owns all of it (loc's rows are global rows r0.., out = rows
 * [o0, o1) of the transpose, every column of loc inside): a counting sort.  Local. */
int la_transpose_local(const hy_csr *loc, int64_t r0, int64_t o0, int64_t o1, hy_csr *out);

/* out[i] = the value of global index rows[i] in the distributed vector loc (local part under
 * p); this rank's own indices read here, the others fetched in one exchange.  Collective. */
int la_fetch_values(MPI_Comm comm, const la_part *p, const double *loc, int64_t nr,
                    const int64_t *rows, double *out);
/* out = rows rows[0..nr) (global indices, any order) of the distributed matrix loc under
 * partition p, in request order.  out->m = nr.  Collective. */
int la_fetch_rows(MPI_Comm comm, const la_part *p, const hy_csr *loc, int64_t nr,
                    const int64_t *rows, hy_csr *out);

/* Halo plan of y = A x for local rows of A (global columns): columns are renumbered in place to
 * local indices (owned rows 0..nloc-1, then ghosts nloc.. in increasing global order). */
typedef struct {
  int64_t nloc, nghost;
  int nsend, nrecv;            /* neighbour counts */
  int *send_rank, *recv_rank;
  int64_t *send_off, *recv_off;  /* nsend + 1, nrecv + 1 offsets into sidx / ghosts */
  int32_t *sidx;               /* local indices this rank sends, grouped by neighbour */
  int64_t nsidx;
} la_halo;

/* Build the plan and renumber loc's columns to local.  Collective. */
int la_halo_build(MPI_Comm comm, const la_part *p, int rank, hy_csr *loc, la_halo *h);
/* The plan alone, for the sorted distinct ghost columns gh[0..ng) of a matrix whose columns are
 * (or will be) renumbered as la_halo_build does (la_halo_build = the ghosts, the renumbering,
 * then this).  Collective. */
int la_halo_plan(MPI_Comm comm, const la_part *p, int rank, int64_t ng, const int64_t *gh,
                 la_halo *h);
void la_halo_free(la_halo *h);

/* Gather a distributed local CSR to rank 0 as one matrix (MPI_Gatherv).  Collective. */
int la_gather_csr(MPI_Comm comm, const la_part *p, const hy_csr *loc, hy_csr *all);

#endif
