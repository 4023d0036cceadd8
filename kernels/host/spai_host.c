/* spai_host.c - the spai kernels on the host: SPAI columns with LAPACK (dgeqrf, dormqr) and a
 * guarded back substitution, and the CSR SpMV of BiCGSTAB (its vector operations: vec_host.c). */
#include "k_spai.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ILU(0) (spai_ilu_host.c). */
int k_spai_host_ilu_create(k_backend *be, int64_t n, const int64_t *rowptr, const int32_t *colind,
                           const double *val, void **ilu);
int k_spai_host_ilu_apply(k_backend *be, void *ilu, const double *x, double *y);
int k_spai_host_ilu_free(k_backend *be, void *ilu);

/* LAPACK (Fortran interface; hidden string lengths last). */
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
                    double *work, const int *lwork, int *info);
extern void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
                    const double *a, const int *lda, const double *tau, double *c, const int *ldc,
                    double *work, const int *lwork, int *info, size_t side_len, size_t trans_len);

typedef struct {
  k_spai_cols d;
  int32_t *iset;      /* I_c at ioff[c], packed (laid out by the bound iub, the sets would touch
                       * ~5x the memory at cfd2's size: 320 MB instead of 60 MB) */
  int64_t *ioff;      /* ncols + 1 */
  int32_t *isize;
  int64_t nglob;      /* 1 + the largest row index in B */
  int64_t *pos;       /* pos[g]: the column that last marked g (index sets), its place in I_c (solve) */
  int64_t c0, c1;     /* the chunk whose submatrices cols_solve builds */
  double *mval, *res;
  void *own[6];       /* dist_setup: the J entries, column indices and |I| bounds it made;
                       * single_setup also B's rows (offsets, indices, values) */
} h_cols;

/* Keep the description; size the row marker.  Local. */
static int h_cols_setup(k_backend *be, const k_spai_cols *d, void **state) {
  h_cols *s = calloc(1, sizeof *s);
  if (!s) return hy_err(HY_ESYS, "out of memory");
  s->d = *d;
  HY_MALLOC(s->ioff, d->ncols + 1);
  HY_MALLOC(s->isize, d->ncols + 1);
  HY_MALLOC(s->mval, d->jptr[d->ncols] + 1);
  HY_MALLOC(s->res, d->ncols + 1);
  int64_t g = 0;
  for (int64_t e = 0; e < d->bptr[d->nb]; e++)
    if (d->bcol[e] >= g) g = (int64_t)d->bcol[e] + 1;
  s->nglob = g;
  HY_MALLOC(s->pos, g + 1);
  for (int64_t i = 0; i <= g; i++) s->pos[i] = -1;
  s->c0 = s->c1 = -1;
  *state = s;
  return HY_OK;
}

/* Sort distinct int32 keys (insertion sort below 17, else quicksort).  Local. */
static void sort_i32(int32_t *k, int64_t n) {
  while (n > 16) {
    int32_t piv = k[n / 2];
    int64_t i = 0, j = n - 1;
    for (;;) {
      while (k[i] < piv) i++;
      while (k[j] > piv) j--;
      if (i >= j) break;
      int32_t t = k[i]; k[i] = k[j]; k[j] = t;
      i++;
      j--;
    }
    int64_t nl = j + 1;
    if (nl < n - nl) {
      sort_i32(k, nl);
      k += nl;
      n -= nl;
    } else {
      sort_i32(k + nl, n - nl);
      n = nl;
    }
  }
  for (int64_t i = 1; i < n; i++) {
    int32_t v = k[i];
    int64_t j = i - 1;
    while (j >= 0 && k[j] > v) {
      k[j + 1] = k[j];
      j--;
    }
    k[j + 1] = v;
  }
}

/* I_c = sorted union of the B rows of J_c (distinct rows marked, then sorted), packed one after
 * the other (the buffer grows by doubling, at most to the bound iub).  Local. */
static int h_cols_index(k_backend *be, void *state, int32_t *isize) {
  h_cols *s = state;
  const k_spai_cols *d = &s->d;
  int64_t cap = 0, at = 0;
  for (int64_t c = 0; c < d->ncols; c++) {
    int64_t need = at + d->iub[c + 1] - d->iub[c];
    if (need > cap) {
      int64_t nc = cap * 2 > need ? cap * 2 : need + (1 << 20);
      if (nc > d->iub[d->ncols] - d->iub[c] + at) nc = d->iub[d->ncols] - d->iub[c] + at;
      int32_t *p = realloc(s->iset, (size_t)(nc + 1) * sizeof *p);
      if (!p) return hy_err(HY_ESYS, "out of memory for the index sets (%lld entries)", (long long)nc);
      s->iset = p;
      cap = nc;
    }
    s->ioff[c] = at;
    int32_t *I = s->iset + at;
    int64_t n = 0;
    for (int64_t t = d->jptr[c]; t < d->jptr[c + 1]; t++) {
      int32_t r = d->jloc[t];
      for (int64_t e = d->bptr[r]; e < d->bptr[r + 1]; e++) {
        int32_t g = d->bcol[e];
        if (s->pos[g] != c) {
          s->pos[g] = c;
          I[n++] = g;
        }
      }
    }
    sort_i32(I, n);
    s->isize[c] = (int32_t)n;
    isize[c] = (int32_t)n;
    at += n;
  }
  s->ioff[d->ncols] = at;
  for (int64_t i = 0; i <= s->nglob; i++) s->pos[i] = -1;
  return HY_OK;
}

/* Position of g in sorted I[0..n), or -1.  Local. */
static int64_t find32(const int32_t *I, int64_t n, int32_t g) {
  int64_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (I[mid] == g) return mid;
    if (I[mid] < g) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* Chunk [c0, c1): on the host each A(I_c, J_c) is built by cols_solve right before its QR
 * (a column-sized buffer in cache instead of the chunk's workspace).  Local. */
static int h_cols_submat(k_backend *be, void *state, int64_t c0, int64_t c1) {
  h_cols *s = state;
  s->c0 = c0;
  s->c1 = c1;
  return HY_OK;
}

/* Dense A(I_c, J_c), column-major m x n, into a (zeroed here).  Local. */
static void h_build_submat(h_cols *s, int64_t c, double *a) {
  const k_spai_cols *d = &s->d;
  const int32_t *I = s->iset + s->ioff[c];
  int64_t m = s->isize[c], n = d->jptr[c + 1] - d->jptr[c];
  memset(a, 0, (size_t)(m * n) * sizeof *a);
  for (int64_t i = 0; i < m; i++) s->pos[I[i]] = i;
  for (int64_t t = d->jptr[c]; t < d->jptr[c + 1]; t++) {
    int32_t r = d->jloc[t];
    double *col = a + (t - d->jptr[c]) * m;
    for (int64_t e = d->bptr[r]; e < d->bptr[r + 1]; e++) col[s->pos[d->bcol[e]]] = d->bval[e];
  }
}

/* QR + Q^T e + guarded back substitution per column.  Local. */
static int h_cols_solve(k_backend *be, void *state, int64_t c0, int64_t c1, k_spai_stats *st) {
  h_cols *s = state;
  const k_spai_cols *d = &s->d;
  if (c0 != s->c0 || c1 != s->c1) return hy_err(HY_ESYS, "spai host: solve of a chunk without submatrices");
  int64_t maxm = 1, maxn = 1;
  for (int64_t c = c0; c < c1; c++) {
    if (s->isize[c] > maxm) maxm = s->isize[c];
    if (d->jptr[c + 1] - d->jptr[c] > maxn) maxn = d->jptr[c + 1] - d->jptr[c];
  }
  int lwork = (int)(maxn * 64 + 64);
  double *tau = NULL, *work = NULL, *rhs = NULL, *a = NULL;
  HY_MALLOC(tau, maxn);
  HY_MALLOC(work, lwork);
  HY_MALLOC(rhs, maxm);
  HY_MALLOC(a, maxm * maxn);
  for (int64_t c = c0; c < c1; c++) {
    int m = s->isize[c], n = (int)(d->jptr[c + 1] - d->jptr[c]);
    h_build_submat(s, c, a);
    double *x = s->mval + d->jptr[c];
    const int32_t *I = s->iset + s->ioff[c];
    if (m > st->max_i) st->max_i = m;
    if (n > st->max_j) st->max_j = n;
    st->ncols_small++;
    for (int j = 0; j < n; j++) x[j] = 0;
    int64_t pk = find32(I, m, d->kglob[c]);
    if (pk < 0 || m == 0) {  /* e_k lies outside the rows A(:, J) reaches: m_k = 0 */
      s->res[c] = 1.0;
      st->rank_deficient++;
      continue;
    }
    int info = 0, nmin = m < n ? m : n;
    dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
    if (info != 0) return hy_err(HY_ESYS, "dgeqrf failed (info %d) on column %d", info, d->kglob[c]);
    for (int i = 0; i < m; i++) rhs[i] = 0;
    rhs[pk] = 1.0;
    int one = 1;
    dormqr_("L", "T", &m, &one, &nmin, a, &m, tau, rhs, &m, work, &lwork, &info, 1, 1);
    if (info != 0) return hy_err(HY_ESYS, "dormqr failed (info %d) on column %d", info, d->kglob[c]);
    double rmax = 0;
    for (int j = 0; j < nmin; j++)
      if (fabs(a[j + (int64_t)j * m]) > rmax) rmax = fabs(a[j + (int64_t)j * m]);
    double rtol = 1e-12 * rmax, dropped = 0, tail = 0;
    int def = n > m;
    for (int j = nmin - 1; j >= 0; j--) {
      double sum = rhs[j];
      for (int l = j + 1; l < n; l++) sum -= a[j + (int64_t)l * m] * x[l];
      double rjj = a[j + (int64_t)j * m];
      if (fabs(rjj) <= rtol) {
        x[j] = 0;
        dropped += sum * sum;
        def = 1;
      } else {
        x[j] = sum / rjj;
      }
    }
    for (int i = nmin; i < m; i++) tail += rhs[i] * rhs[i];
    s->res[c] = sqrt(tail + dropped);
    st->rank_deficient += def;
  }
  free(tau); free(work); free(rhs); free(a);
  return HY_OK;
}

static int h_cols_result(k_backend *be, void *state, double *mval, double *res) {
  h_cols *s = state;
  memcpy(mval, s->mval, s->d.jptr[s->d.ncols] * sizeof *mval);
  memcpy(res, s->res, s->d.ncols * sizeof *res);
  return HY_OK;
}

static int h_cols_free(k_backend *be, void *state) {
  h_cols *s = state;
  if (!s) return HY_OK;
  free(s->iset); free(s->ioff); free(s->isize); free(s->pos); free(s->mval); free(s->res);
  for (int i = 0; i < 6; i++) free(s->own[i]);
  free(s);
  return HY_OK;
}

/* The B row that global index g stands for: local g - r0, else nloc + its place among the
 * (sorted) ghosts (-1: not there).  Local. */
static int64_t h_dist_pos(const k_spai_dist *in, int64_t g) {
  if (g >= in->r0 && g < in->r0 + in->nloc) return g - in->r0;
  int64_t lo = 0, hi = in->nghost - 1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (in->ghost[mid] == g) return in->nloc + mid;
    if (in->ghost[mid] < g) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* J_k of local column k from B's row k, as the host pattern: the rows i with |a_ik| >
 * (1 - tau) m (the row maximum of i, or the column's) and k itself in order; jloc / jglob get the
 * B rows and global indices; returns the count.  Local. */
static int64_t h_dist_jset(const k_spai_dist *in, int64_t k, int32_t *jloc, int32_t *jglob) {
  int64_t g = in->r0 + k, nz = 0;
  int diag = 0;
  for (int64_t e = in->bptr[k]; e < in->bptr[k + 1]; e++) {
    int32_t i = in->bcol[e];
    if (!diag && i > g) {
      jloc[nz] = (int32_t)k;
      jglob[nz++] = (int32_t)g;
      diag = 1;
    }
    if (i == g) {
      jloc[nz] = (int32_t)k;
      jglob[nz++] = i;
      diag = 1;
      continue;
    }
    int64_t p = h_dist_pos(in, i);
    double m = in->cmax ? in->cmax[k] : in->mxb[p];
    if (k_spai_keep(fabs(in->bval[e]), m, in->tau)) {
      jloc[nz] = (int32_t)p;
      jglob[nz++] = i;
    }
  }
  if (!diag) {
    jloc[nz] = (int32_t)k;
    jglob[nz++] = (int32_t)g;
  }
  return nz;
}

/* P ranks, levels 1: the J sets and |I| bounds of the local columns from B's rows (the C
 * version of the CUDA backend's, so that the driver's P-rank device path runs here too).
 * Local. */
static int h_dist_setup_b(k_backend *be, const k_spai_dist *in, void **state, int64_t **jptr,
                          int32_t **jglob, int *fits);
/* The rows blocks of the P-rank device setup in host memory (k_spai_piece). */
typedef struct {
  int64_t m;
  int64_t *rp;
  int32_t *col;
  double *val;
} h_rows;

/* Free a rows block.  Local. */
static int h_rows_free(k_backend *be, void *t) {
  (void)be;
  h_rows *r = t;
  if (!r) return HY_OK;
  free(r->rp); free(r->col); free(r->val); free(r);
  return HY_OK;
}

/* dist_setup: with in->brows, B's rows are that block (taken over: its arrays go to the state,
 * or are freed when nothing fits).  Local. */
static int h_dist_setup(k_backend *be, const k_spai_dist *in, void **state, int64_t **jptr,
                        int32_t **jglob, int *fits) {
  if (!in->brows) return h_dist_setup_b(be, in, state, jptr, jglob, fits);
  h_rows *r = in->brows;
  k_spai_dist d = *in;
  d.bptr = r->rp;
  d.bcol = r->col;
  d.bval = r->val;
  d.brows = NULL;
  int rc = h_dist_setup_b(be, &d, state, jptr, jglob, fits);
  if (rc == HY_OK && *fits) {
    h_cols *hs = *state;
    hs->own[3] = r->rp;
    hs->own[4] = r->col;
    hs->own[5] = r->val;
    free(r);
  } else {
    h_rows_free(be, r);
  }
  return rc;
}

static int h_dist_setup_b(k_backend *be, const k_spai_dist *in, void **state, int64_t **jptr,
                          int32_t **jglob, int *fits) {
  int64_t n = in->nloc, cap = in->bptr[n] + n + 1;
  int32_t *jloc = NULL, *jg = NULL, *kglob = NULL;
  int64_t *jp = NULL, *iub = NULL;
  *state = NULL;
  *jptr = NULL;
  *jglob = NULL;
  *fits = 0;
  HY_MALLOC(jloc, cap);
  HY_MALLOC(jg, cap);
  HY_MALLOC(jp, n + 1);
  HY_MALLOC(iub, n + 1);
  HY_MALLOC(kglob, n + 1);
  jp[0] = iub[0] = 0;
  int ok = 1;
  for (int64_t k = 0; k < n; k++) {
    int64_t c = h_dist_jset(in, k, jloc + jp[k], jg + jp[k]), s = 0;
    if (c > in->max_col) ok = 0;
    for (int64_t t = jp[k]; t < jp[k] + c; t++) s += in->bptr[jloc[t] + 1] - in->bptr[jloc[t]];
    jp[k + 1] = jp[k] + c;
    iub[k + 1] = iub[k] + s;
    kglob[k] = (int32_t)(in->r0 + k);
  }
  if (!ok) {  /* the host pattern caps the long sets */
    free(jloc); free(jg); free(jp); free(iub); free(kglob);
    return HY_OK;
  }
  k_spai_cols d = { .ncols = n, .kglob = kglob, .jptr = jp, .jloc = jloc,
                    .nb = in->nloc + in->nghost, .bptr = in->bptr, .bcol = in->bcol,
                    .bval = in->bval, .iub = iub, .small_rows = in->small_rows,
                    .small_cols = in->small_cols, .medium_elems = in->medium_elems,
                    .block_threads = in->block_threads };
  HY_CALL(h_cols_setup(be, &d, state));
  h_cols *hs = *state;
  hs->own[0] = jloc;
  hs->own[1] = kglob;
  hs->own[2] = iub;
  *jptr = jp;
  *jglob = jg;
  *fits = 1;
  return HY_OK;
}

/* M's rows g0 .. g1 - 1 from the columns of a dist_setup state (a counting sort by row, the
 * columns of a row in increasing order).  Local. */
static int h_dist_rows(k_backend *be, void *state, const int32_t *jglob, int64_t g0, int64_t g1,
                       int64_t c0, int64_t **rowptr, int32_t **colind, double **val, double *res,
                       int64_t *bad, double *split) {
  h_cols *s = state;
  const int64_t n = s->d.ncols, nj = s->d.jptr[n], m = g1 - g0, *jp = s->d.jptr;
  int64_t *rp = NULL, *pos = NULL;
  int32_t *ci = NULL;
  double *v = NULL;
  *bad = -1;
  for (int64_t k = 0; k < n && *bad < 0; k++) {
    int nonfinite = !isfinite(s->res[k]);
    for (int64_t e = jp[k]; e < jp[k + 1]; e++) nonfinite |= !isfinite(s->mval[e]);
    if (nonfinite) *bad = k;
  }
  HY_CALLOC(rp, m + 1);
  HY_MALLOC(pos, m + 1);
  HY_MALLOC(ci, nj + 1);
  HY_MALLOC(v, nj + 1);
  for (int64_t e = 0; e < nj; e++) rp[jglob[e] - g0 + 1]++;
  for (int64_t i = 0; i < m; i++) rp[i + 1] += rp[i];
  memcpy(pos, rp, (size_t)(m + 1) * sizeof *pos);
  for (int64_t k = 0; k < n; k++)
    for (int64_t e = jp[k]; e < jp[k + 1]; e++) {
      int64_t at = pos[jglob[e] - g0]++;
      ci[at] = (int32_t)(c0 + k);
      v[at] = s->mval[e];
    }
  free(pos);
  memcpy(res, s->res, (size_t)n * sizeof *res);
  if (split) split[0] = split[1] = 0;
  *rowptr = rp;
  *colind = ci;
  *val = v;
  return HY_OK;
}

/* A's local rows transposed: rows g0 .. g1 - 1 (the columns touched), entries r0 + i in
 * increasing order (a counting sort), and the row maxima.  Local. */
static int h_dist_trans(k_backend *be, int64_t nloc, int64_t r0, const int64_t *rowptr,
                        const int32_t *colind, const double *val, void **t, int64_t *g0,
                        int64_t *g1, double *mx) {
  (void)be;
  const int64_t nnz = rowptr[nloc];
  int64_t lo = INT64_MAX, hi = -1;
  for (int64_t e = 0; e < nnz; e++) {
    if (colind[e] < lo) lo = colind[e];
    if (colind[e] > hi) hi = colind[e];
  }
  if (hi < 0) lo = hi = -1;
  h_rows *r = calloc(1, sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  r->m = hi - lo + 1 > 0 ? hi - lo + 1 : 0;
  HY_CALLOC(r->rp, r->m + 2);
  HY_MALLOC(r->col, nnz + 1);
  HY_MALLOC(r->val, nnz + 1);
  for (int64_t e = 0; e < nnz; e++) r->rp[colind[e] - lo + 2]++;
  for (int64_t j = 0; j < r->m; j++) r->rp[j + 2] += r->rp[j + 1];
  for (int64_t i = 0; i < nloc; i++) {
    double m = 0;
    for (int64_t e = rowptr[i]; e < rowptr[i + 1]; e++) {
      int64_t at = r->rp[colind[e] - lo + 1]++;
      r->col[at] = (int32_t)(r0 + i);
      r->val[at] = val[e];
      if (fabs(val[e]) > m) m = fabs(val[e]);
    }
    if (mx) mx[i] = m;
  }
  *g0 = r->m ? lo : 0;
  *g1 = r->m ? hi + 1 : 0;
  *t = r;
  return HY_OK;
}

/* The listed rows to host arrays.  Local. */
static int h_rows_gather(k_backend *be, void *t, int64_t nr, const int64_t *rows, int64_t **off,
                         int32_t **col, double **val) {
  (void)be;
  const h_rows *r = t;
  int64_t *o = NULL;
  HY_MALLOC(o, nr + 1);
  o[0] = 0;
  for (int64_t i = 0; i < nr; i++) {
    if (rows[i] < 0 || rows[i] >= r->m)
      return hy_err(HY_ESYS, "spai rows_gather: row %lld of a block of %lld", (long long)rows[i],
                    (long long)r->m);
    o[i + 1] = o[i] + r->rp[rows[i] + 1] - r->rp[rows[i]];
  }
  HY_MALLOC(*col, o[nr] + 1);
  HY_MALLOC(*val, o[nr] + 1);
  for (int64_t i = 0; i < nr; i++) {
    int64_t b = r->rp[rows[i]], l = o[i + 1] - o[i];
    memcpy(*col + o[i], r->col + b, (size_t)l * sizeof **col);
    memcpy(*val + o[i], r->val + b, (size_t)l * sizeof **val);
  }
  *off = o;
  return HY_OK;
}

/* Local rows from pieces, each row's pieces in list order.  Local. */
static int h_rows_merge(k_backend *be, int64_t mloc, int np, const k_spai_piece *pc, void **out) {
  (void)be;
  h_rows *r = calloc(1, sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  r->m = mloc;
  HY_CALLOC(r->rp, mloc + 1);
  for (int p = 0; p < np; p++)
    for (int64_t i = 0; i < pc[p].rows; i++) {
      const h_rows *t = pc[p].t;
      r->rp[pc[p].row0 + i + 1] += t ? t->rp[pc[p].t_row0 + i + 1] - t->rp[pc[p].t_row0 + i]
                                     : pc[p].off[i + 1] - pc[p].off[i];
    }
  for (int64_t i = 0; i < mloc; i++) r->rp[i + 1] += r->rp[i];
  int64_t *pos = NULL;
  HY_MALLOC(pos, mloc + 1);
  memcpy(pos, r->rp, (size_t)(mloc + 1) * sizeof *pos);
  HY_MALLOC(r->col, r->rp[mloc] + 1);
  HY_MALLOC(r->val, r->rp[mloc] + 1);
  for (int p = 0; p < np; p++)
    for (int64_t i = 0; i < pc[p].rows; i++) {
      const h_rows *t = pc[p].t;
      int64_t b = t ? t->rp[pc[p].t_row0 + i] : pc[p].off[i];
      int64_t l = t ? t->rp[pc[p].t_row0 + i + 1] - b : pc[p].off[i + 1] - b;
      const int32_t *sc = t ? t->col + b : pc[p].col + b;
      const double *sv = t ? t->val + b : pc[p].val + b;
      int64_t at = pos[pc[p].row0 + i];
      memcpy(r->col + at, sc, (size_t)l * sizeof *sc);
      memcpy(r->val + at, sv, (size_t)l * sizeof *sv);
      pos[pc[p].row0 + i] += l;
    }
  free(pos);
  *out = r;
  return HY_OK;
}

/* The new column index of global g (la_halo_build's numbering).  Local. */
static int32_t h_halo_col(int64_t g, int64_t r0, int64_t nloc, int64_t ng, const int64_t *gh) {
  if (g >= r0 && g < r0 + nloc) return (int32_t)(g - r0);
  int64_t lo = 0, hi = ng - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (gh[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return (int32_t)(nloc + lo);
}

/* Seconds of a monotonic clock (the split figures).  Local. */
static double h_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One rank, levels 1 (the C version of the CUDA backend's, so that the driver's one-rank device
 * path runs here too): B = A^T by a counting sort, the row maxima, then the J sets and |I|
 * bounds as h_dist_setup with every row local (r0 = 0, no ghosts: the sets of the host pattern);
 * the state owns B.  Local. */
static int h_single_setup(k_backend *be, const k_spai_single *in, void **state, int64_t **jptr,
                          int *fits) {
  const double t0 = h_now();
  const int64_t n = in->n, nnz = in->rowptr[n];
  int64_t *bp = NULL;
  int32_t *bc = NULL;
  double *bv = NULL, *mx = NULL;
  *state = NULL;
  *jptr = NULL;
  *fits = 0;
  HY_CALLOC(bp, n + 2);
  HY_MALLOC(bc, nnz + 1);
  HY_MALLOC(bv, nnz + 1);
  HY_MALLOC(mx, n + 1);
  for (int64_t i = 0; i < n; i++) {
    double m = 0;
    for (int64_t e = in->rowptr[i]; e < in->rowptr[i + 1]; e++) {
      if (fabs(in->val[e]) > m) m = fabs(in->val[e]);
      bp[in->colind[e] + 2]++;
    }
    mx[i] = m;
  }
  for (int64_t j = 0; j < n; j++) bp[j + 2] += bp[j + 1];
  for (int64_t i = 0; i < n; i++)   /* bp[j + 1]: the next place in B's row j */
    for (int64_t e = in->rowptr[i]; e < in->rowptr[i + 1]; e++) {
      int64_t at = bp[in->colind[e] + 1]++;
      bc[at] = (int32_t)i;
      bv[at] = in->val[e];
    }
  k_spai_dist d = { .nloc = n, .r0 = 0, .nghost = 0, .ghost = NULL, .bptr = bp, .bcol = bc,
                    .bval = bv, .mxb = mx, .cmax = in->cmax, .tau = in->tau,
                    .max_col = in->max_col, .small_rows = in->small_rows,
                    .small_cols = in->small_cols, .medium_elems = in->medium_elems,
                    .block_threads = in->block_threads };
  int32_t *jglob = NULL;
  HY_CALL(h_dist_setup_b(be, &d, state, jptr, &jglob, fits));
  free(jglob);   /* the B rows themselves (r0 = 0): jloc */
  free(mx);
  if (!*fits) {
    free(bp); free(bc); free(bv);
  } else {
    h_cols *hs = *state;
    hs->own[3] = bp;
    hs->own[4] = bc;
    hs->own[5] = bv;
  }
  if (in->split) {   /* nothing to upload */
    in->split[0] = 0;
    in->split[1] = h_now() - t0;
  }
  return HY_OK;
}

/* M's rows of a single_setup state (a counting sort by row, h_dist_rows with every row local).
 * Local. */
static int h_single_rows(k_backend *be, void *state, int64_t **rowptr, int32_t **colind,
                         double **val, double *res, int64_t *bad, double *split) {
  h_cols *s = state;
  return h_dist_rows(be, state, s->d.jloc, 0, s->d.ncols, 0, rowptr, colind, val, res, bad, split);
}

typedef struct {
  int64_t rows, cols;
  int64_t *rowptr;
  int32_t *colind;
  double *val;
} h_mat;

static int h_mat_create(k_backend *be, int64_t rows, int64_t cols, const int64_t *rowptr,
                        const int32_t *colind, const double *val, void **mat) {
  h_mat *a = calloc(1, sizeof *a);
  if (!a) return hy_err(HY_ESYS, "out of memory");
  a->rows = rows;
  a->cols = cols;
  int64_t nnz = rowptr[rows];
  HY_MALLOC(a->rowptr, rows + 1);
  HY_MALLOC(a->colind, nnz + 1);
  HY_MALLOC(a->val, nnz + 1);
  memcpy(a->rowptr, rowptr, (rows + 1) * sizeof *rowptr);
  memcpy(a->colind, colind, nnz * sizeof *colind);
  memcpy(a->val, val, nnz * sizeof *val);
  *mat = a;
  return HY_OK;
}

static int h_mat_free(k_backend *be, void *mat) {
  h_mat *a = mat;
  if (!a) return HY_OK;
  free(a->rowptr); free(a->colind); free(a->val); free(a);
  return HY_OK;
}

static int h_mat_spmv(k_backend *be, void *mat, const double *x, double *y) {
  const h_mat *a = mat;
  for (int64_t i = 0; i < a->rows; i++) {
    double s = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) s += a->val[e] * x[a->colind[e]];
    y[i] = s;
  }
  return HY_OK;
}

/* The matrix's arrays (the C loop: one thread per row).  Local. */
static int h_mat_view(k_backend *be, void *mat, k_csr_view *view) {
  (void)be;
  const h_mat *a = mat;
  memset(view, 0, sizeof *view);
  view->rows = a->rows;
  view->rp64 = a->rowptr;
  view->colind = a->colind;
  view->val = a->val;
  view->tpr = 1;
  return HY_OK;
}

/* M's rows of a single_setup state as a matrix of h_mat_create's kind (its arrays, no copy).
 * Local. */
static int h_single_mat(k_backend *be, void *state, void **mat, int64_t *nnz, double *res,
                        int64_t *bad, double *split) {
  h_cols *s = state;
  h_mat *a = calloc(1, sizeof *a);
  if (!a) return hy_err(HY_ESYS, "out of memory");
  a->rows = a->cols = s->d.ncols;
  HY_CALL(h_single_rows(be, state, &a->rowptr, &a->colind, &a->val, res, bad, split));
  *nnz = a->rowptr[a->rows];
  *mat = a;
  return HY_OK;
}

/* The matrix's arrays copied out.  Local. */
static int h_mat_get(k_backend *be, void *mat, int64_t **rowptr, int32_t **colind, double **val) {
  (void)be;
  const h_mat *a = mat;
  int64_t nnz = a->rowptr[a->rows];
  HY_MALLOC(*rowptr, a->rows + 1);
  HY_MALLOC(*colind, nnz + 1);
  HY_MALLOC(*val, nnz + 1);
  memcpy(*rowptr, a->rowptr, (size_t)(a->rows + 1) * sizeof **rowptr);
  memcpy(*colind, a->colind, (size_t)nnz * sizeof **colind);
  memcpy(*val, a->val, (size_t)nnz * sizeof **val);
  return HY_OK;
}

/* The first row where x and y differ (a value by its bits), -1 none.  Local. */
static int h_mat_differs(k_backend *be, void *x, void *y, int64_t *row) {
  (void)be;
  const h_mat *a = x, *b = y;
  *row = -1;
  if (a->rows != b->rows || a->cols != b->cols) {
    *row = 0;
    return HY_OK;
  }
  for (int64_t i = 0; i < a->rows && *row < 0; i++) {
    int d = a->rowptr[i] != b->rowptr[i] || a->rowptr[i + 1] != b->rowptr[i + 1];
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1] && !d; e++)
      d = a->colind[e] != b->colind[e] || memcmp(a->val + e, b->val + e, sizeof *a->val) != 0;
    if (d) *row = i;
  }
  return HY_OK;
}

/* The block renumbered to local columns and made a matrix (the block's offsets; new index and
 * value arrays): a row's global order is below r0 (ghosts), local, above; the new order local,
 * the ghosts below, those above (increasing new index: la_halo_build's sorted rows).  Local. */
static int h_rows_mat(k_backend *be, void *t, int64_t r0, int64_t nloc, int64_t ng,
                      const int64_t *ghost, void **mat, int64_t *nnz) {
  (void)be;
  h_rows *r = t;
  const int64_t nz = r->rp[r->m];
  h_mat *a = calloc(1, sizeof *a);
  if (!a) return hy_err(HY_ESYS, "out of memory");
  a->rows = r->m;
  a->cols = nloc + ng;
  HY_MALLOC(a->colind, nz + 1);
  HY_MALLOC(a->val, nz + 1);
  for (int64_t i = 0; i < r->m; i++) {
    int64_t b = r->rp[i], e = r->rp[i + 1], nlow = 0, nown = 0;
    while (b + nlow < e && r->col[b + nlow] < r0) nlow++;
    while (b + nlow + nown < e && r->col[b + nlow + nown] < r0 + nloc) nown++;
    for (int64_t k = 0; k < e - b; k++) {
      int64_t at = k < nlow ? nown + k : k < nlow + nown ? k - nlow : k;
      a->colind[b + at] = h_halo_col(r->col[b + k], r0, nloc, ng, ghost);
      a->val[b + at] = r->val[b + k];
    }
  }
  a->rowptr = r->rp;
  r->rp = NULL;
  h_rows_free(be, r);
  *nnz = nz;
  *mat = a;
  return HY_OK;
}

/* dist_rows with the rows kept as a block (host memory here).  Local. */
static int h_dist_rows_dev(k_backend *be, void *state, const int32_t *jglob, int64_t c0,
                           void **t, int64_t *g0_out, int64_t *g1_out, double *res, int64_t *bad,
                           double *split) {
  const h_cols *s = state;
  const int64_t nj = s->d.jptr[s->d.ncols];
  int64_t g0 = INT64_MAX, g1 = 0;
  for (int64_t e = 0; e < nj; e++) {
    if (jglob[e] < g0) g0 = jglob[e];
    if (jglob[e] >= g1) g1 = (int64_t)jglob[e] + 1;
  }
  if (nj == 0) g0 = g1 = 0;
  *g0_out = g0;
  *g1_out = g1;
  h_rows *r = calloc(1, sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  r->m = g1 - g0;
  int rc = h_dist_rows(be, state, jglob, g0, g1, c0, &r->rp, &r->col, &r->val, res, bad, split);
  if (rc != HY_OK) {
    free(r);
    return rc;
  }
  *t = r;
  return HY_OK;
}


const k_spai_ops k_spai_host_ops = {
  .cols_setup = h_cols_setup,
  .cols_index = h_cols_index,
  .cols_submat = h_cols_submat,
  .cols_solve = h_cols_solve,
  .cols_result = h_cols_result,
  .cols_free = h_cols_free,
  /* single_setup, single_rows, single_mat and dist_setup: the device builders in C, so that the
   * driver's device paths run here too (spai.gpu_setup = device on the host backend; auto takes
   * the driver's host pattern) */
  .single_setup = h_single_setup,
  .single_rows = h_single_rows,
  .single_mat = h_single_mat,
  .dist_setup = h_dist_setup,
  .dist_rows = h_dist_rows,
  .dist_trans = h_dist_trans,
  .rows_gather = h_rows_gather,
  .rows_merge = h_rows_merge,
  .rows_free = h_rows_free,
  .rows_mat = h_rows_mat,
  .dist_rows_dev = h_dist_rows_dev,
  .mat_create = h_mat_create,
  .mat_free = h_mat_free,
  .mat_spmv = h_mat_spmv,
  .mat_view = h_mat_view,
  .mat_get = h_mat_get,
  .mat_differs = h_mat_differs,
  .ilu_create = k_spai_host_ilu_create,
  .ilu_apply = k_spai_host_ilu_apply,
  .ilu_free = k_spai_host_ilu_free,
};
