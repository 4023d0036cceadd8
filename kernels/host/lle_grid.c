/* lle_grid.c - exact K nearest neighbours through a uniform grid (cell list) on the host: the
 * grid's shape (k_lle_grid_plan, shared with the CUDA table), the points sorted by cell id by
 * a counting sort (stable, so by index within a cell), and k_lle_grid_query (kernels/k_lle.h)
 * per query, the same function the CUDA kernel runs.  Distances in the FP64 direct form and the
 * stop rule only skip cells strictly farther than the K-th neighbour, so the lists (ties by
 * index) equal the brute force's. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Grid shape for p's points: bounding box, a cube side h that gives about K_LLE_GRID_FILL
 * points a cell over the box's non-degenerate axes, at most 2 n + 64 cells.  Local. */
int k_lle_grid_plan(const k_lle_points *p, k_lle_grid *g) {
  int dim = p->dim;
  if (dim < 1 || dim > K_LLE_GRID_MAXD)
    return hy_err(HY_EUSAGE, "lle.knn = grid: the data has %d dimensions, the grid search takes 1..%d", dim, K_LLE_GRID_MAXD);
  if (p->n > INT32_MAX) return hy_err(HY_EUSAGE, "lle.knn = grid: %lld points exceed 2^31", (long long)p->n);
  memset(g, 0, sizeof *g);
  g->dim = dim;
  g->n = p->n;
  double hi[K_LLE_GRID_MAXD], amax = 0;
  for (int c = 0; c < dim; c++) { g->lo[c] = INFINITY; hi[c] = -INFINITY; }
  for (int64_t i = 0; i < p->n; i++)
    for (int c = 0; c < dim; c++) {
      double v = p->x[i * dim + c];
      if (v < g->lo[c]) g->lo[c] = v;
      if (v > hi[c]) hi[c] = v;
    }
  double vol = 1, emax = 0;
  int de = 0;
  for (int c = 0; c < dim; c++) {
    double e = hi[c] - g->lo[c];
    if (!isfinite(e)) return hy_err(HY_EINPUT, "lle.knn = grid: coordinate %d is not finite", c);
    if (e > 0) { vol *= e; de++; }
    if (e > emax) emax = e;
    if (fabs(g->lo[c]) > amax) amax = fabs(g->lo[c]);
    if (fabs(hi[c]) > amax) amax = fabs(hi[c]);
  }
  double h = de ? pow(vol * K_LLE_GRID_FILL / (double)p->n, 1.0 / de) : 1.0;
  if (!(h > 0)) h = emax > 0 ? emax : 1.0;
  for (;;) {   /* grow h until the cell count is bounded */
    double cells = 1;
    for (int c = 0; c < dim; c++) cells *= floor((hi[c] - g->lo[c]) / h) + 1;
    if (cells <= 2.0 * (double)p->n + 64) break;
    h *= 1.25;
  }
  g->h = h;
  g->inv_h = 1.0 / h;
  g->ncell = 1;
  for (int c = dim - 1; c >= 0; c--) {
    g->nc[c] = (int32_t)(floor((hi[c] - g->lo[c]) / h) + 1);
    g->stride[c] = g->ncell;
    g->ncell *= g->nc[c];
  }
  g->slack = 1e-12 * (amax + h);   /* the rounding of lo + m h and of the cell index: a few ulps of amax */
  return HY_OK;
}

/* k_lle_grid_knn_on's job: the grid, the points, the queries' first index, the lists. */
typedef struct {
  const k_lle_grid *g;
  const k_lle_points *p;
  int64_t q0;
  int k;
  int32_t *nbr;
  double *d2;
} grid_job;

/* Queries q0 + [i0, i1).  Local. */
static void grid_query_part(void *arg, int64_t i0, int64_t i1) {
  const grid_job *j = arg;
  for (int64_t i = i0; i < i1; i++) {
    int64_t q = j->q0 + i;
    k_lle_grid_query(j->g, j->p->x + q * j->p->dim, q, j->k, j->d2 + i * j->k, j->nbr + i * j->k);
  }
}

/* Neighbours of queries q0..q1-1 by the grid on the host (the caller's thread).  Local. */
int k_lle_grid_knn(const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr, double *d2) {
  return k_lle_grid_knn_on(p, NULL, 1, q0, q1, k, nbr, d2);
}

/* The same with the queries on threads threads of pool (NULL: the caller's; each query on its
 * own: the same lists at any count).  Local. */
int k_lle_grid_knn_on(const k_lle_points *p, k_lle_pool *pool, int threads, int64_t q0, int64_t q1, int k,
                      int32_t *nbr, double *d2) {
  k_lle_grid g;
  HY_CALL(k_lle_grid_plan(p, &g));
  int64_t n = p->n, *cell = NULL;
  int32_t *start = NULL, *idx = NULL;
  double *xs = NULL;
  HY_CALLOC(start, g.ncell + 1);
  HY_MALLOC(cell, n);
  HY_MALLOC(idx, n);
  HY_MALLOC(xs, n * p->dim);
  for (int64_t i = 0; i < n; i++) {   /* counting sort by cell id */
    cell[i] = k_lle_grid_cell(&g, p->x + i * p->dim);
    start[cell[i] + 1]++;
  }
  for (int64_t c = 0; c < g.ncell; c++) start[c + 1] += start[c];
  for (int64_t i = 0; i < n; i++) {
    int32_t s = start[cell[i]]++;
    idx[s] = (int32_t)i;
    memcpy(xs + (int64_t)s * p->dim, p->x + i * p->dim, (size_t)p->dim * sizeof *xs);
  }
  memmove(start + 1, start, (size_t)g.ncell * sizeof *start);   /* back to the cells' first positions */
  start[0] = 0;
  free(cell);
  g.start = start; g.idx = idx; g.xs = xs;
  grid_job j = { &g, p, q0, k, nbr, d2 };
  if (!pool || threads < 2 || q1 - q0 < 2 * threads) grid_query_part(&j, 0, q1 - q0);
  else k_lle_pool_for(pool, threads, q1 - q0, grid_query_part, &j);
  free(start); free(idx); free(xs);
  return HY_OK;
}
