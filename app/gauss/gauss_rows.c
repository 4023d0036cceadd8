/* gauss_rows.c - algorithms naive and stepwise: the seed's Gaussian elimination on the
 * augmented matrix [A | b], rows distributed cyclically over the ranks (row i on rank i % P).
 * Per step k: (stepwise: all-reduce the largest |a_ik| with its row, ties to the lowest row;
 * swap rows) the owner divides row k by the pivot (kernel 1) and broadcasts it; every rank
 * updates its rows below k (kernel 2) and zeroes column k (kernel 3).  Then back substitution
 * on the unit upper triangle.  With keep (mixed precision), kernel 3 also keeps the
 * multipliers, so that later right-hand sides can be solved (forward + back substitution). */
#include "gauss/gauss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int sp, keep;
  int64_t nloc, ld;   /* local rows, row length (n + 1: the b column) */
  void *a, *l;        /* device (or managed) rows; multipliers (keep) */
  double *hu, *hl;    /* host FP64 copies after the elimination */
  int64_t *perm;      /* row swapped with row k at step k */
} rows_fact;

/* Byte offset helper.  Local. */
static inline void *rows_at(void *p, int64_t elems, int sp) {
  return (char *)p + elems * (sp ? 4 : 8);
}

/* Copy a device row block to a host FP64 array.  Local. */
static void rows_to_host(gauss_t *g, rows_fact *f, const void *src, int64_t count, double *dst) {
  size_t e = f->sp ? 4 : 8;
  void *tmp = gauss_xmalloc((size_t)count * e + 8);
  HY_LOCAL(g->be->ops->d2h(g->be, tmp, src, (size_t)count * e));
  HY_LOCAL(g->be->ops->sync(g->be));
  for (int64_t i = 0; i < count; i++) dst[i] = f->sp ? (double)((float *)tmp)[i] : ((double *)tmp)[i];
  free(tmp);
}

/* Exchange local row li with the partner rank's row (both rows' ranks call it).  Collective
 * between the two ranks. */
static int rows_exchange(gauss_t *g, void *row, int64_t len, int sp, int partner, void *hbuf) {
  size_t bytes = (size_t)len * (sp ? 4 : 8);
  HY_LOCAL(g->be->ops->d2h(g->be, hbuf, row, bytes));
  HY_LOCAL(g->be->ops->sync(g->be));
  HY_MPI(MPI_Sendrecv_replace(hbuf, (int)bytes, MPI_BYTE, partner, 7, partner, 7, g->ctx->comm,
                              MPI_STATUS_IGNORE));
  HY_LOCAL(g->be->ops->h2d(g->be, row, hbuf, bytes));
  return HY_OK;
}

/* This rank's rows of [A | b] on the device (memory = managed: written by the host in place,
 * the seed's USM; else a copy, the seed's buffer), the multipliers' rows (keep) and the
 * permutation.  An allocation failure is agreed on.  Collective. */
static int rows_setup(gauss_t *g, rows_fact *f) {
  hy_ctx *ctx = g->ctx;
  k_backend *be = g->be;
  int P = ctx->size, r = ctx->rank;
  int64_t n = g->n;
  size_t e = f->sp ? 4 : 8;
  f->nloc = gauss_numroc(n, 1, r, P);
  f->ld = n + 1;
  size_t bytes = (size_t)(f->nloc * f->ld) * e + e;
  int rc = HY_OK;
  if (g->managed) {
    size_t avail = 0;
    HY_LOCAL(g->ko->mem_free(be, &avail));
    if (bytes > avail)
      rc = hy_err(HY_ESYS, "memory = managed: %zu MiB of rows asked for, but the device has only "
                  "%zu MiB free (rank %d)", bytes >> 20, avail >> 20, r);
    else
      rc = be->ops->alloc_managed(be, &f->a, bytes);
  } else {
    rc = be->ops->alloc(be, &f->a, bytes);
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  void *h = g->managed ? f->a : gauss_xmalloc(bytes);
  for (int64_t li = 0; li < f->nloc; li++) {
    int64_t gi = li * P + r;
    for (int64_t j = 0; j <= n; j++) {
      double v = j < n ? gauss_entry(g, gi, j) : g->b[gi];
      if (f->sp) ((float *)h)[li * f->ld + j] = (float)v;
      else ((double *)h)[li * f->ld + j] = v;
    }
  }
  if (!g->managed) {
    HY_LOCAL(be->ops->h2d(be, f->a, h, bytes));
    HY_LOCAL(be->ops->sync(be));
    free(h);
  }
  if (f->keep) {
    f->l = gauss_dalloc(g, (size_t)(f->nloc * n) * e + e);
    HY_LOCAL(be->ops->memset0(be, f->l, (size_t)(f->nloc * n) * e + e));
  }
  f->perm = gauss_xmalloc((size_t)n * sizeof(int64_t));
  return HY_OK;
}

/* Partial pivoting at step k: the largest |a_ik| (i >= k) by an all-reduce (ties to the lowest
 * row), rows k and the pivot's swapped (between ranks through hb); the singular-column code
 * when it is below tiny (every rank sees the same reduced value).  Collective. */
static int rows_pivot(gauss_t *g, rows_fact *f, int64_t k, unsigned char *hb, double tiny) {
  hy_ctx *ctx = g->ctx;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = ctx->size, r = ctx->rank, sp = f->sp, keep = f->keep;
  int64_t n = g->n;
  int64_t ls = gauss_numroc(k, 1, r, P), idx = 0;
  double val = -1;
  if (f->nloc > ls) HY_LOCAL(ko->col_absmax(be, sp, rows_at(f->a, ls * f->ld, sp), f->ld, f->nloc - ls, k, &val, &idx));
  struct { double v; int i; } in, best;
  in.v = isnan(val) ? INFINITY : val;
  in.i = f->nloc > ls ? (int)((ls + idx) * P + r) : (int)n;
  if (P > 1) HY_MPI(MPI_Allreduce(&in, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->comm));
  else best = in;
  if (!(best.v > tiny) || isinf(best.v))
    return gauss_singular(g, "the largest remaining |a_ik| of the column", k, isinf(best.v) ? NAN : best.v);
  int64_t pr = best.i;
  f->perm[k] = pr;
  if (pr == k) return HY_OK;
  int o1 = (int)(k % P), o2 = (int)(pr % P);
  int64_t l1 = k / P, l2 = pr / P;
  if (o1 == r && o2 == r) {
    HY_LOCAL(ko->swap(be, sp, rows_at(f->a, l1 * f->ld, sp), rows_at(f->a, l2 * f->ld, sp), f->ld));
    if (keep) HY_LOCAL(ko->swap(be, sp, rows_at(f->l, l1 * n, sp), rows_at(f->l, l2 * n, sp), n));
  } else if (o1 == r || o2 == r) {
    int64_t li = o1 == r ? l1 : l2;
    int partner = o1 == r ? o2 : o1;
    HY_LOCAL(rows_exchange(g, rows_at(f->a, li * f->ld, sp), f->ld, sp, partner, hb));
    if (keep) HY_LOCAL(rows_exchange(g, rows_at(f->l, li * n, sp), n, sp, partner, hb));
  }
  return HY_OK;
}

/* Elimination of [A | b] (pivoting: stepwise).  Collective. */
static int rows_factor(gauss_t *g, int sp, int keep, void **out, int pivoting) {
  hy_ctx *ctx = g->ctx;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = ctx->size, r = ctx->rank;
  int64_t n = g->n;
  size_t e = sp ? 4 : 8;
  rows_fact *f;
  HY_CALLOC(f, 1);
  f->sp = sp;
  f->keep = keep;
  HY_CALL(rows_setup(g, f));
  void *prow = gauss_dalloc(g, (size_t)f->ld * e);
  unsigned char *hb = NULL;
  HY_LOCAL(be->ops->alloc_pinned(be, (void **)&hb, 8 + (size_t)(f->ld + n) * e));
  double tiny = gauss_tiny(g, sp);
  hy_progress prog;
  hy_progress_begin(&prog, ctx, pivoting ? "stepwise elimination" : "naive elimination", (double)n * n * n);
  int rc = HY_OK;
  for (int64_t k = 0; k < n; k++) {
    int owner = (int)(k % P);
    int64_t lk = k / P;
    if (pivoting) {
      rc = rows_pivot(g, f, k, hb, tiny);
      if (rc != HY_OK) break;
    } else {
      f->perm[k] = k;
    }
    if (k == n / 2) hy_debug_point(ctx, "factor");
    /* the owner scales its row (kernel 1) and sends it with the pivot */
    int64_t len = f->ld - k;
    double piv = 0;
    void *mine = r == owner ? rows_at(f->a, lk * f->ld + k, sp) : NULL;
    if (r == owner) {
      HY_LOCAL(be->ops->d2h(be, hb, mine, e));
      HY_LOCAL(be->ops->sync(be));
      piv = sp ? (double)*(float *)hb : *(double *)hb;
      if (fabs(piv) > tiny) {
        if (keep) {
          HY_LOCAL(be->ops->h2d(be, rows_at(f->l, lk * n + k, sp), hb, e));
        }
        HY_LOCAL(ko->row_scale(be, sp, mine, len, piv));
      }
      if (P > 1) {
        memcpy(hb, &piv, 8);
        HY_LOCAL(be->ops->d2h(be, hb + 8, mine, (size_t)len * e));
        HY_LOCAL(be->ops->sync(be));
      }
    }
    if (P > 1) {
      HY_MPI(MPI_Bcast(hb, (int)(8 + (size_t)len * e), MPI_BYTE, owner, ctx->comm));
      memcpy(&piv, hb, 8);
    }
    if (!(fabs(piv) > tiny)) {
      rc = gauss_singular(g, pivoting ? "the pivot |a_kk|" : "the step's pivot |a_kk| (no pivoting)", k, piv);
      break;
    }
    if (r != owner) HY_LOCAL(be->ops->h2d(be, prow, hb + 8, (size_t)len * e));
    const void *pr = r == owner ? mine : prow;
    int64_t l0 = gauss_numroc(k + 1, 1, r, P);
    if (f->nloc > l0) {
      HY_LOCAL(ko->rank1(be, sp, rows_at(f->a, l0 * f->ld, sp), f->ld, f->nloc - l0, k, f->ld, pr));
      HY_LOCAL(ko->col_zero(be, sp, rows_at(f->a, l0 * f->ld, sp), f->ld, f->nloc - l0, k,
                           keep ? rows_at(f->l, l0 * n, sp) : NULL, n));
    }
    if ((k & 63) == 0) hy_progress_update(&prog, hy_lu_work_done(n, k));
  }
  hy_progress_end(&prog);
  HY_LOCAL(be->ops->sync(be));
  be->ops->free(be, prow);
  be->ops->free_pinned(be, hb);
  if (rc == HY_OK) {
    f->hu = gauss_xmalloc((size_t)(f->nloc * f->ld + 1) * sizeof(double));
    rows_to_host(g, f, f->a, f->nloc * f->ld, f->hu);
    if (keep) {
      f->hl = gauss_xmalloc((size_t)(f->nloc * n + 1) * sizeof(double));
      rows_to_host(g, f, f->l, f->nloc * n, f->hl);
    }
  }
  *out = f;
  if (rc != HY_OK) {
    be->ops->free(be, f->a);
    be->ops->free(be, f->l);
    free(f->perm);
    free(f);
    *out = NULL;
  }
  return rc;
}

/* The two row algorithms: without and with partial pivoting.  Collective. */
static int rows_factor_naive(gauss_t *g, int sp, int keep, void **f) {
  return rows_factor(g, sp, keep, f, 0);
}
static int rows_factor_stepwise(gauss_t *g, int sp, int keep, void **f) {
  return rows_factor(g, sp, keep, f, 1);
}

/* Back substitution x = U^-1 y on the unit upper rows (y replicated, overwritten by x); rows
 * on their owners, each x_k broadcast.  Collective. */
static int rows_back(gauss_t *g, rows_fact *f, double *y) {
  int P = g->ctx->size, r = g->ctx->rank;
  for (int64_t k = g->n - 1; k >= 0; k--) {
    int owner = (int)(k % P);
    if (owner == r) {
      const double *u = f->hu + (k / P) * f->ld;
      double s = y[k];
      for (int64_t j = k + 1; j < g->n; j++) s -= u[j] * y[j];
      y[k] = s;
    }
    if (P > 1) HY_MPI(MPI_Bcast(&y[k], 1, MPI_DOUBLE, owner, g->ctx->comm));
  }
  return HY_OK;
}

/* x = A^-1 rhs with the factors (rhs NULL: the eliminated b column).  Collective. */
static int rows_solve(gauss_t *g, void *fact, const double *rhs, double *x) {
  rows_fact *f = fact;
  int P = g->ctx->size, r = g->ctx->rank;
  int64_t n = g->n;
  if (!rhs && !f->keep) {
    /* y = the transformed b column, gathered by the owners' broadcasts in rows_back */
    for (int64_t k = 0; k < n; k++) x[k] = (k % P == r) ? f->hu[(k / P) * f->ld + n] : 0;
    return rows_back(g, f, x);
  }
  if (!rhs) rhs = g->b;
  memcpy(x, rhs, (size_t)n * sizeof(double));
  for (int64_t k = 0; k < n; k++) {
    int64_t p = f->perm[k];
    if (p != k) { double t = x[k]; x[k] = x[p]; x[p] = t; }
  }
  /* forward: y_k = (v_k - sum_j<k l_kj y_j) / l_kk */
  for (int64_t k = 0; k < n; k++) {
    int owner = (int)(k % P);
    if (owner == r) {
      const double *l = f->hl + (k / P) * n;
      double s = x[k];
      for (int64_t j = 0; j < k; j++) s -= l[j] * x[j];
      x[k] = s / l[k];
    }
    if (P > 1) HY_MPI(MPI_Bcast(&x[k], 1, MPI_DOUBLE, owner, g->ctx->comm));
  }
  return rows_back(g, f, x);
}

/* Free the factors.  Local. */
static void rows_release(gauss_t *g, void *fact) {
  rows_fact *f = fact;
  if (!f) return;
  g->be->ops->free(g->be, f->a);
  g->be->ops->free(g->be, f->l);
  free(f->hu);
  free(f->hl);
  free(f->perm);
  free(f);
}

const gauss_alg gauss_rows_naive = { "naive", rows_factor_naive, rows_solve, rows_release, NULL };
const gauss_alg gauss_rows_stepwise = { "stepwise", rows_factor_stepwise, rows_solve, rows_release, NULL };
