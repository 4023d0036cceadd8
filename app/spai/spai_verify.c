/* spai_verify.c - the in-run check of M: ||A m_k - e_k||_2 recomputed for every column from the
 * assembled M (its rows distributed like A's, as BiCGSTAB uses it) against the residual the
 * least-squares solve reported for that column.  Agreement within rounding shows that M is
 * the least-squares solution of every column and that the assembly (transpose, distribution,
 * scaling) put every value where it belongs.  With spai.scale = diag the scaled residual
 * ||D^1/2 A m_k d_k^-1/2 - e_k|| is the one compared; columns the filter thinned are skipped
 * (their residual legitimately differs).  The difference is measured relative to
 * 1 + || |A| |m_k| ||_2, the scale of the rounding in both figures. */
#include "spai/spai.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Agreement required (relative to 1 + || |A| |m_k| ||): a few hundred ulps of headroom over the
 * rounding of a QR least-squares residual. */
#define SPAI_CHECK_TOL 1e-9

/* [debug] perturb: m_jk *= 1 + p (-1)^k (k the global column: the same for any rank count).
 * Local. */
void spai_perturb_m(hy_csr *m, double p) {
  for (int64_t e = 0; e < m->nnz; e++) m->val[e] *= 1.0 + ((m->colind[e] & 1) ? -p : p);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The rows of M that the local rows of A name (every rank's M rows are numbered by global
 * index on one rank; else fetched, with the sorted list of their global indices).  Collective. */
static int verify_rows(hy_ctx *ctx, const la_part *pr, const hy_csr *a, const hy_csr *m,
                       hy_csr *mr, int64_t **list, int64_t *nl) {
  *list = NULL;
  *nl = 0;
  if (pr->size == 1) {
    *mr = *m;
    return HY_OK;
  }
  int64_t *need = NULL, u = 0;
  HY_MALLOC(need, a->nnz + 1);
  for (int64_t e = 0; e < a->nnz; e++) need[e] = a->colind[e];
  qsort(need, (size_t)a->nnz, sizeof *need, cmp_i64);
  for (int64_t i = 0; i < a->nnz; i++)
    if (u == 0 || need[i] != need[u - 1]) need[u++] = need[i];
  HY_CALL(la_fetch_rows(ctx->comm, pr, m, u, need, mr));
  *list = need;
  *nl = u;
  return HY_OK;
}

/* Row g of M inside mr (binary search in list; the identity on one rank).  Local. */
static int64_t verify_row_of(const int64_t *list, int64_t nl, int64_t g) {
  if (!list) return g;
  int64_t lo = 0, hi = nl - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (list[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Column sums over my rows i of ((A M)_ik s_i / s_k - delta_ik)^2 and of ((|A| |M|)_ik s_i /
 * s_k)^2 into sq[k], ab[k] (n entries each; s = sinv or 1).  Local. */
static void verify_sums(const la_part *pr, int rank, const hy_csr *a, const hy_csr *mr,
                        const int64_t *list, int64_t nl, const double *sinv, double *sq,
                        double *ab) {
  int64_t n = pr->n, r0 = pr->start[rank];
  double *acc = NULL, *aac = NULL;
  int64_t *last = NULL;
  int32_t *cols = NULL;
  HY_CALLOC(acc, n + 1);
  HY_CALLOC(aac, n + 1);
  HY_MALLOC(last, n + 1);
  HY_MALLOC(cols, n + 1);
  for (int64_t c = 0; c <= n; c++) last[c] = -1;
  for (int64_t i = 0; i < a->m; i++) {
    int64_t g = r0 + i, nc = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      int64_t r = verify_row_of(list, nl, a->colind[e]);
      for (int64_t f = mr->rowptr[r]; f < mr->rowptr[r + 1]; f++) {
        int32_t k = mr->colind[f];
        if (last[k] != i) {
          last[k] = i;
          acc[k] = aac[k] = 0;
          cols[nc++] = k;
        }
        acc[k] += a->val[e] * mr->val[f];
        aac[k] += fabs(a->val[e]) * fabs(mr->val[f]);
      }
    }
    if (last[g] != i) {   /* e_i's column even where row i of AM is empty there */
      last[g] = i;
      acc[g] = aac[g] = 0;
      cols[nc++] = (int32_t)g;
    }
    for (int64_t t = 0; t < nc; t++) {
      int32_t k = cols[t];
      double f = sinv ? sinv[g] / sinv[k] : 1.0;
      double v = acc[k] * f - (k == g ? 1.0 : 0.0), w = aac[k] * f;
      sq[k] += v * v;
      ab[k] += w * w;
    }
  }
  free(acc); free(aac); free(last); free(cols);
}

/* The check.  Collective. */
int spai_verify(hy_ctx *ctx, const la_part *pr, const hy_csr *a, const hy_csr *m,
                const spai_setup_info *si, spai_check_info *out) {
  memset(out, 0, sizeof *out);
  hy_phase_begin(ctx, "spai check");
  int64_t n = pr->n, *list = NULL, nl = 0;
  hy_csr mr;
  memset(&mr, 0, sizeof mr);
  HY_CALL(verify_rows(ctx, pr, a, m, &mr, &list, &nl));
  double *sq = NULL, *ab = NULL;
  HY_CALLOC(sq, 2 * n + 2);
  ab = sq + n + 1;
  verify_sums(pr, ctx->rank, a, &mr, list, nl, si->sinv, sq, ab);
  if (pr->size > 1) io_csr_free(&mr);
  free(list);
  /* every column's sums to its owner under pc (interleaved: sq then ab of each column) */
  int size = pr->size, rank = ctx->rank;
  int64_t c0 = si->pc.start[rank], nc = si->pc.start[rank + 1] - c0;
  double *mine = NULL;
  HY_MALLOC(mine, 2 * nc + 2);
  if (size > 1) {
    double *il = NULL;
    int *cnt = NULL;
    HY_MALLOC(il, 2 * n + 2);
    HY_MALLOC(cnt, size);
    for (int64_t k = 0; k < n; k++) { il[2 * k] = sq[k]; il[2 * k + 1] = ab[k]; }
    for (int q = 0; q < size; q++) cnt[q] = (int)(2 * (si->pc.start[q + 1] - si->pc.start[q]));
    HY_MPI(MPI_Reduce_scatter(il, mine, cnt, MPI_DOUBLE, MPI_SUM, ctx->comm));
    free(il);
    free(cnt);
  } else {
    for (int64_t k = 0; k < n; k++) { mine[2 * k] = sq[k]; mine[2 * k + 1] = ab[k]; }
  }
  free(sq);
  struct { double v; int k; } loc = { -1.0, 0 }, glob;
  for (int64_t k = 0; k < nc; k++) {
    if (si->filtered && si->filtered[k]) continue;
    double t = sqrt(mine[2 * k]), s = sqrt(mine[2 * k + 1]);
    double d = fabs(t - si->res[k]) / (1.0 + s);
    if (!(d <= loc.v)) { loc.v = isfinite(d) ? d : INFINITY; loc.k = (int)(c0 + k); }
  }
  free(mine);
  HY_MPI(MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->comm));
  out->done = 1;
  out->worst = glob.v < 0 ? 0 : glob.v;
  out->column = glob.v < 0 ? -1 : glob.k;
  out->threshold = SPAI_CHECK_TOL;
  out->passed = out->worst <= SPAI_CHECK_TOL;
  hy_phase_end(ctx, "spai check");
  return HY_OK;
}
