/* spai_pattern.c - the pattern of M: the J sets of the local columns (rows of the transposed
 * pattern) and B = A^T's rows, by one of five builders behind one table (spai_patterns[]):
 *   device  one rank, levels 1, no filter: the backend builds B, J and the |I| bounds from A on
 *           its device (k_spai_ops.single_setup; declines when a J set exceeds max_col)
 *   dist    P ranks, levels 1, no filter: B's local rows by the distributed transpose, the rows
 *           of B they name on other ranks fetched once, the backend builds J and the |I| bounds
 *           (k_spai_ops.dist_setup; declines on every rank when a J set exceeds max_col)
 *   single  one rank, levels 1: B and J in one pass over A (a counting sort)
 *   cols    P ranks, levels 1: J straight from B's rows (remote row maxima fetched)
 *   power   levels > 1: S = thresholded A (eq. 3 + the diagonal), P = S^levels, J = P^T
 * The threshold is k_spai_keep (kernels/k_spai.h), the one definition of eq. 3.  Every builder
 * gives the same sets and ranking values; J sets longer than max_col are then capped (the
 * diagonal, then the largest ranking values). */
#include "spai/spai.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void csr_clear(hy_csr *a) { io_csr_free(a); }

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* S: keep (i, j) with |a_ij| > (1 - tau) max_j |a_ij|, and the diagonal; values |a_ij| / max
 * (the diagonal ranks first: value 1 + its own).  Local. */
static int pattern_threshold(const la_part *pr, int rank, const hy_csr *a, double tau,
                             const double *cmax, hy_csr *s) {
  int64_t r0 = pr->start[rank];
  la_csr_alloc(s, a->m, a->n, a->nnz + a->m);   /* room; nnz set below */
  int64_t nz = 0;
  s->rowptr[0] = 0;
  for (int64_t i = 0; i < a->m; i++) {
    double mx = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (fabs(a->val[e]) > mx) mx = fabs(a->val[e]);
    int64_t g = r0 + i;
    int diag = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      int32_t j = a->colind[e];
      if (!diag && j > g) {  /* structural diagonal where A has none */
        s->colind[nz] = (int32_t)g;
        s->val[nz++] = 2.0;
        diag = 1;
      }
      if (j == g) {
        s->colind[nz] = j;
        s->val[nz++] = 2.0;
        diag = 1;
      } else if (cmax) {  /* per column: max_i |a_ij| */
        double v = fabs(a->val[e]);
        if (k_spai_keep(v, cmax[j], tau)) {
          s->colind[nz] = j;
          s->val[nz++] = v / cmax[j];
        }
      } else if (k_spai_keep(fabs(a->val[e]), mx, tau)) {
        s->colind[nz] = j;
        s->val[nz++] = fabs(a->val[e]) / mx;
      }
    }
    if (!diag) {
      s->colind[nz] = (int32_t)g;
      s->val[nz++] = 2.0;
    }
    s->rowptr[i + 1] = nz;
  }
  s->nnz = nz;
  return HY_OK;
}

/* P = P * S (pattern with summed products of the ranking values): a dense accumulator over the
 * global columns (each product added in the order of its row, the same sums for any rank
 * count), the distinct columns of a row sorted once.  Collective. */
static int pattern_power(MPI_Comm comm, const la_part *pr, const hy_csr *s, hy_csr *p) {
  int size = pr->size;
  /* rows of S for every column of the local P (one rank: S itself) */
  int64_t nc = p->nnz, u = 0;
  int64_t *need = NULL;
  hy_csr sr;
  memset(&sr, 0, sizeof sr);
  if (size > 1) {
    HY_MALLOC(need, nc + 1);
    for (int64_t e = 0; e < nc; e++) need[e] = p->colind[e];
    qsort(need, nc, sizeof *need, cmp_i64);
    for (int64_t i = 0; i < nc; i++)
      if (u == 0 || need[i] != need[u - 1]) need[u++] = need[i];
    HY_CALL(la_fetch_rows(comm, pr, s, u, need, &sr));
  }
  const hy_csr *src = size > 1 ? &sr : s;
  int64_t n = pr->n;
  double *acc = NULL;
  int64_t *last = NULL;   /* last[c]: the row of P that c was last seen in, or -1 */
  HY_MALLOC(acc, n + 1);
  HY_MALLOC(last, n + 1);
  for (int64_t c = 0; c <= n; c++) last[c] = -1;
  hy_csr q;
  int64_t cap = p->nnz * 4 + 16, nz = 0;
  la_csr_alloc(&q, p->m, p->n, cap);   /* room, grown below; nnz set below */
  q.rowptr[0] = 0;
  for (int64_t i = 0; i < p->m; i++) {
    int64_t t0 = nz;
    for (int64_t e = p->rowptr[i]; e < p->rowptr[i + 1]; e++) {
      int64_t g = p->colind[e], lo = g;
      if (size > 1) {
        int64_t l = 0, hi = u - 1;
        while (l < hi) {
          int64_t mid = (l + hi) / 2;
          if (need[mid] < g) l = mid + 1;
          else hi = mid;
        }
        lo = l;
      }
      int64_t len = src->rowptr[lo + 1] - src->rowptr[lo];
      if (nz + len > cap) {
        cap = (nz + len) * 2;
        int32_t *nc2 = realloc(q.colind, cap * sizeof *q.colind);
        if (nc2) q.colind = nc2;
        double *nv2 = realloc(q.val, cap * sizeof *q.val);
        if (nv2) q.val = nv2;
        if (!nc2 || !nv2) return hy_err(HY_ESYS, "out of memory in the pattern power");
      }
      for (int64_t f = src->rowptr[lo]; f < src->rowptr[lo + 1]; f++) {
        int32_t c = src->colind[f];
        double v = p->val[e] * src->val[f];
        if (last[c] == i) {
          acc[c] += v;
        } else {
          last[c] = i;
          acc[c] = v;
          q.colind[nz++] = c;
        }
      }
    }
    /* distinct columns: any O(len log len) sort gives the same row */
    io_sort_pairs(q.colind + t0, q.val + t0, nz - t0);
    for (int64_t k = t0; k < nz; k++) q.val[k] = acc[q.colind[k]];
    q.rowptr[i + 1] = nz;
  }
  q.nnz = nz;
  free(acc); free(last); free(need);
  csr_clear(&sr);
  csr_clear(p);
  *p = q;
  return HY_OK;
}

typedef struct {
  double v;
  int32_t c;
} rank_ent;
/* Larger ranking value first, ties: smaller index.  Local. */
static int cmp_rank(const void *a, const void *b) {
  const rank_ent *x = a, *y = b;
  if (x->v != y->v) return x->v > y->v ? -1 : 1;
  return x->c < y->c ? -1 : x->c > y->c;
}

/* Cap each row of pt (J sets) at max_col entries: the diagonal, then the largest ranking
 * values (ties: smaller index); O(len log len) per long row.  Local. */
static int pattern_cap(hy_csr *pt, int64_t r0, int max_col) {
  int64_t nz = 0, start = 0, lmax = 0;
  for (int64_t k = 0; k < pt->m; k++)
    if (pt->rowptr[k + 1] - pt->rowptr[k] > lmax) lmax = pt->rowptr[k + 1] - pt->rowptr[k];
  if (lmax <= max_col) return HY_OK;
  rank_ent *tmp = NULL;
  HY_MALLOC(tmp, lmax);
  for (int64_t k = 0; k < pt->m; k++) {
    int64_t b = start, e = pt->rowptr[k + 1], len = e - b;
    start = e;
    int32_t *col = pt->colind + b;
    double *val = pt->val + b;
    if (len > max_col) {
      for (int64_t t = 0; t < len; t++) {
        tmp[t].c = col[t];
        tmp[t].v = col[t] == r0 + k ? INFINITY : val[t];
      }
      qsort(tmp, len, sizeof *tmp, cmp_rank);
      len = max_col;
      for (int64_t t = 0; t < len; t++) {
        col[t] = tmp[t].c;
        val[t] = tmp[t].v;
      }
      io_sort_pairs(col, val, len);  /* distinct indices */
    }
    memmove(pt->colind + nz, col, len * sizeof *col);
    memmove(pt->val + nz, val, len * sizeof *val);
    pt->rowptr[k] = nz;
    nz += len;
  }
  pt->rowptr[pt->m] = nz;
  pt->nnz = nz;
  free(tmp);
  return HY_OK;
}

/* One rank owns A: B = A^T by a counting sort that also takes the row maxima (two passes over A),
 * then the J sets of levels = 1 (S^T, S = A thresholded as in eq. 3, with the diagonal) by one
 * sequential pass over B; the same sets and ranking values as pattern_from_columns.  When the
 * threshold keeps every entry, every diagonal is there and no column exceeds max_col, the J sets
 * are B's rows: pt shares bt's column indices (*shared = 1; its values are left unset: nothing
 * ranks them) and the pass is skipped.  Local. */
static int pattern_single(const hy_csr *a, double tau, const double *cmax, int max_col, hy_csr *bt,
                          hy_csr *pt, int *shared) {
  int64_t n = a->m, nnz = a->nnz;
  memset(bt, 0, sizeof *bt);
  memset(pt, 0, sizeof *pt);
  bt->m = pt->m = n;
  bt->n = pt->n = n;
  double *mx = NULL;
  HY_MALLOC(mx, n + 1);
  HY_CALLOC(bt->rowptr, n + 2);
  int64_t *cb = bt->rowptr + 1;
  int all = 1;   /* every entry kept, every diagonal present */
  for (int64_t i = 0; i < n; i++) {
    double m = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      if (fabs(a->val[e]) > m) m = fabs(a->val[e]);
      cb[a->colind[e]]++;
    }
    mx[i] = m;
    if (!all) continue;
    int diag = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      int32_t j = a->colind[e];
      double v = fabs(a->val[e]);
      if (j == i) diag = 1;
      else if (!k_spai_keep(v, cmax ? cmax[j] : m, tau)) all = 0;
    }
    all &= diag;
  }
  int64_t sb = 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t x = cb[j];
    if (x > max_col) all = 0;
    cb[j] = sb;
    sb += x;
  }
  bt->nnz = nnz;
  HY_MALLOC(bt->colind, nnz + 1);
  HY_MALLOC(bt->val, nnz + 1);
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      int64_t at = cb[a->colind[e]]++;
      bt->colind[at] = (int32_t)i;
      bt->val[at] = a->val[e];
    }
  bt->rowptr[0] = 0;
  *shared = all;
  if (all) {
    HY_MALLOC(pt->rowptr, n + 1);   /* P's pattern is B's: colind shared, own rowptr and val */
    memcpy(pt->rowptr, bt->rowptr, (size_t)(n + 1) * sizeof *pt->rowptr);
    pt->colind = bt->colind;
    HY_MALLOC(pt->val, nnz + 1);
    pt->nnz = nnz;
    free(mx);
    return HY_OK;
  }
  /* J_k: rows i of A's column k (B's row k) above the threshold, and k itself, in order */
  la_csr_alloc(pt, n, n, nnz + n);   /* room; nnz set below */
  int64_t nz = 0;
  pt->rowptr[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    int diag = 0;
    double ck = cmax ? cmax[k] : 0;
    for (int64_t e = bt->rowptr[k]; e < bt->rowptr[k + 1]; e++) {
      int32_t i = bt->colind[e];
      if (!diag && i > k) {  /* structural diagonal where A has none */
        pt->colind[nz] = (int32_t)k;
        pt->val[nz++] = 2.0;
        diag = 1;
      }
      if (i == k) {
        pt->colind[nz] = i;
        pt->val[nz++] = 2.0;
        diag = 1;
        continue;
      }
      double v = fabs(bt->val[e]), m = cmax ? ck : mx[i];
      if (k_spai_keep(v, m, tau)) {
        pt->colind[nz] = i;
        pt->val[nz++] = v / m;
      }
    }
    if (!diag) {
      pt->colind[nz] = (int32_t)k;
      pt->val[nz++] = 2.0;
    }
    pt->rowptr[k + 1] = nz;
  }
  pt->nnz = nz;
  free(mx);
  return HY_OK;
}

/* Row maxima max_j |a_ij| of the local rows as a one-column distributed matrix (so that remote
 * ones can be fetched).  Local. */
static void row_maxima(const hy_csr *a, hy_csr *rm) {
  la_csr_alloc(rm, a->m, 1, a->m);
  for (int64_t i = 0; i < a->m; i++) {
    double mx = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (fabs(a->val[e]) > mx) mx = fabs(a->val[e]);
    rm->rowptr[i] = i;
    rm->colind[i] = 0;
    rm->val[i] = mx;
  }
  rm->rowptr[a->m] = a->m;
}

/* The global rows outside [r0, r1) that bt's entries name, sorted and unique: marked in one
 * pass over the entries (a byte per global row), then read in order.  *gh (malloc'd), *u of
 * them.  Local. */
static void ghost_rows(const hy_csr *bt, int64_t n, int64_t r0, int64_t r1, int64_t **gh_out,
                       int64_t *u_out) {
  int64_t u = 0;
  int64_t *gh = NULL;
  unsigned char *seen = NULL;
  HY_CALLOC(seen, n + 1);
  for (int64_t e = 0; e < bt->nnz; e++) seen[bt->colind[e]] = 1;
  for (int64_t g = 0; g < n; g++) u += seen[g] && (g < r0 || g >= r1);
  HY_MALLOC(gh, u + 1);
  u = 0;
  for (int64_t g = 0; g < n; g++)
    if (seen[g] && (g < r0 || g >= r1)) gh[u++] = g;
  free(seen);
  *gh_out = gh;
  *u_out = u;
}

/* The J sets of the local columns (rows of P^T) for levels = 1, from B = A^T's local rows: in
 * column k of A keep row i when |a_ik| > (1 - tau) max_j |a_ij| (row maxima of other ranks'
 * rows are fetched), and k itself; the same sets and ranking values as thresholding A by rows
 * and transposing.  Collective. */
static int pattern_from_columns(MPI_Comm comm, const la_part *pr, int rank, const hy_csr *a,
                                const hy_csr *bt, double tau, const double *cmax, hy_csr *pt) {
  int64_t r0 = pr->start[rank], r1 = pr->start[rank + 1];
  hy_csr rm;
  row_maxima(a, &rm);
  /* remote rows referenced by B's rows; none with column maxima (they replace the rows') */
  int64_t u = 0, *gh = NULL;
  if (cmax) HY_CALLOC(gh, 1);
  else ghost_rows(bt, pr->n, r0, r1, &gh, &u);
  hy_csr rg;
  HY_CALL(la_fetch_rows(comm, pr, &rm, u, gh, &rg));
  la_csr_alloc(pt, bt->m, bt->n, bt->nnz + bt->m);   /* room; nnz set below */
  int64_t nz = 0;
  pt->rowptr[0] = 0;
  for (int64_t k = 0; k < bt->m; k++) {
    int64_t g = r0 + k;
    int diag = 0;
    for (int64_t e = bt->rowptr[k]; e < bt->rowptr[k + 1]; e++) {
      int32_t i = bt->colind[e];
      double v = fabs(bt->val[e]);
      if (!diag && i > g) {
        pt->colind[nz] = (int32_t)g;
        pt->val[nz++] = 2.0;
        diag = 1;
      }
      if (i == g) {
        pt->colind[nz] = i;
        pt->val[nz++] = 2.0;
        diag = 1;
        continue;
      }
      double mx;
      if (cmax) {
        mx = cmax[g];  /* per column */
      } else if (i >= r0 && i < r1) {
        mx = rm.val[i - r0];
      } else {
        int64_t lo = 0, hi = u - 1;
        while (lo < hi) {
          int64_t mid = (lo + hi) / 2;
          if (gh[mid] < i) lo = mid + 1;
          else hi = mid;
        }
        mx = rg.val[rg.rowptr[lo]];
      }
      if (k_spai_keep(v, mx, tau)) {
        pt->colind[nz] = i;
        pt->val[nz++] = v / mx;
      }
    }
    if (!diag) {
      pt->colind[nz] = (int32_t)g;
      pt->val[nz++] = 2.0;
    }
    pt->rowptr[k + 1] = nz;
  }
  pt->nnz = nz;
  free(gh);
  csr_clear(&rm);
  csr_clear(&rg);
  return HY_OK;
}

/* ---- the builders ---- */

/* device: one rank, levels 1, no filter, a backend with single_setup and [spai] gpu_setup =
 * device, or auto on a GPU backend (the host backend's C version runs with device only).
 * Local. */
static int pat_device_usable(const spai_pattern_st *s) {
  int where = s->opt->device_setup;
  return s->pr->size == 1 && s->opt->levels == 1 && s->opt->filter <= 0 &&
         s->ko->single_setup != NULL &&
         (where == SPAI_SETUP_DEVICE || (where == SPAI_SETUP_AUTO && s->ctx->be.gpu));
}
/* A uploaded once; B = A^T, J and the |I| bounds stay on the device (declines, dev = 0, when a
 * J set exceeds max_col: the host pattern caps it).  Local (one rank). */
static int pat_device(spai_pattern_st *s) {
  const spai_setup_opts *o = s->opt;
  const hy_csr *a = s->a;
  k_spai_single in = { .n = a->m, .rowptr = a->rowptr, .colind = a->colind, .val = a->val,
                       .tau = o->tau, .cmax = s->cmax, .max_col = o->max_col,
                       .small_rows = o->small_rows, .small_cols = o->small_cols,
                       .medium_elems = o->medium_elems, .block_threads = o->block_threads,
                       .fuse_submat = o->fuse_submat, .warp_rows = o->warp_rows,
                       .split = s->split + 1 };
  HY_LOCAL(s->ko->single_setup(&s->ctx->be, &in, &s->st, &s->djptr, &s->dev));
  return HY_OK;
}

/* dist: P ranks, levels 1, no filter, a backend with dist_setup and [spai] gpu_setup = device,
 * or auto on a GPU backend.  Local (the same answer on every rank). */
static int pat_dist_usable(const spai_pattern_st *s) {
  int where = s->opt->device_setup;
  return s->pr->size > 1 && s->opt->levels == 1 && s->opt->filter <= 0 &&
         s->ko->dist_setup != NULL &&
         (where == SPAI_SETUP_DEVICE || (where == SPAI_SETUP_AUTO && s->ctx->be.gpu));
}

/* bt = bt's rows, then the rows of gx after them (rows bt->m.. of bt); gx unchanged.  Local. */
void spai_append_rows(hy_csr *bt, const hy_csr *gx) {
  int64_t m = bt->m, tot = bt->nnz + gx->nnz;
  int64_t *rp = realloc(bt->rowptr, (size_t)(m + gx->m + 1) * sizeof *rp);
  if (rp) bt->rowptr = rp;
  int32_t *ci = realloc(bt->colind, (size_t)(tot + 1) * sizeof *ci);
  if (ci) bt->colind = ci;
  double *cv = realloc(bt->val, (size_t)(tot + 1) * sizeof *cv);
  if (cv) bt->val = cv;
  if (!rp || !ci || !cv) hy_fatal(HY_ESYS, "out of memory for the rows of B");
  for (int64_t t = 0; t < gx->m; t++) bt->rowptr[m + t + 1] = bt->nnz + gx->rowptr[t + 1];
  if (gx->nnz) {
    memcpy(bt->colind + bt->nnz, gx->colind, (size_t)gx->nnz * sizeof *bt->colind);
    memcpy(bt->val + bt->nnz, gx->val, (size_t)gx->nnz * sizeof *bt->val);
  }
  bt->m = m + gx->m;
  bt->nnz = tot;
}

/* B's rows through the host: B = A^T's local rows by the distributed transpose (s->bt), the rows
 * of B they name on other ranks (*gh, *u of them, sorted) fetched and appended, their rows'
 * maxima (*mxb: local, then fetched; NULL with column maxima).  Collective. */
static int dist_brows_host(spai_pattern_st *s, int64_t **gh, int64_t *u, double **mxb) {
  MPI_Comm comm = s->ctx->comm;
  const la_part *pr = s->pr;
  int rank = s->ctx->rank;
  int64_t r0 = pr->start[rank], r1 = pr->start[rank + 1], nloc = r1 - r0;
  HY_CALL(la_transpose(comm, pr, s->a, pr, &s->bt));
  ghost_rows(&s->bt, pr->n, r0, r1, gh, u);
  hy_csr gx;
  HY_CALL(la_fetch_rows(comm, pr, &s->bt, *u, *gh, &gx));
  *mxb = NULL;
  if (!s->cmax) {  /* the row maxima of the local rows, then of the fetched ones */
    HY_MALLOC(*mxb, nloc + *u + 1);
    const hy_csr *a = s->a;
    for (int64_t i = 0; i < nloc; i++) {
      double mx = 0;
      for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
        if (fabs(a->val[e]) > mx) mx = fabs(a->val[e]);
      (*mxb)[i] = mx;
    }
    HY_CALL(la_fetch_values(comm, pr, *mxb, *u, *gh, *mxb + nloc));
  }
  spai_append_rows(&s->bt, &gx);
  csr_clear(&gx);
  return HY_OK;
}

/* B's rows on the backend (spai.dist_exchange = device): A's local rows transposed there
 * (dist_trans, with the row maxima), each slice to the rank that owns it and merged there
 * (spai_dev_exchange: B's local rows, and the ghosts *gh: the other ranks' rows they name), those
 * rows fetched once from the owners' blocks (spai_dev_fetch) and appended on the backend
 * (*brows: nloc + *u rows); *mxb as dist_brows_host.  The same rows as dist_brows_host.
 * Collective. */
static int dist_brows_dev(spai_pattern_st *s, int64_t **gh, int64_t *u, double **mxb,
                          void **brows) {
  hy_ctx *ctx = s->ctx;
  k_backend *be = &ctx->be;
  const k_spai_ops *ko = s->ko;
  const la_part *pr = s->pr;
  const hy_csr *a = s->a;
  int64_t r0 = pr->start[ctx->rank], nloc = pr->start[ctx->rank + 1] - r0, g0 = 0, g1 = 0;
  double *mx = NULL;
  void *t = NULL, *bl = NULL;
  double *bs = s->bsplit, t0 = hy_wtime(), t1;
  HY_MALLOC(mx, nloc + 1);
  HY_LOCAL(ko->dist_trans(be, nloc, r0, a->rowptr, a->colind, a->val, &t, &g0, &g1,
                          s->cmax ? NULL : mx));
  t1 = hy_wtime();
  bs[0] = t1 - t0;
  HY_CALL(spai_dev_exchange(ctx, ko, pr, t, g0, g1, &bl, gh, u));
  HY_LOCAL(ko->rows_free(be, t));
  t0 = hy_wtime();
  bs[1] = t0 - t1;
  hy_csr gx;
  HY_CALL(spai_dev_fetch(ctx, ko, pr, bl, *u, *gh, &gx));
  t1 = hy_wtime();
  bs[2] = t1 - t0;
  k_spai_piece pc[2] = { { .row0 = 0, .rows = nloc, .t = bl, .t_row0 = 0 },
                         { .row0 = nloc, .rows = *u, .off = gx.rowptr, .col = gx.colind,
                           .val = gx.val } };
  HY_LOCAL(ko->rows_merge(be, nloc + *u, 2, pc, brows));
  HY_LOCAL(ko->rows_free(be, bl));
  csr_clear(&gx);
  *mxb = NULL;
  if (!s->cmax) {
    HY_MALLOC(*mxb, nloc + *u + 1);
    memcpy(*mxb, mx, (size_t)nloc * sizeof *mx);
    HY_CALL(la_fetch_values(ctx->comm, pr, *mxb, *u, *gh, *mxb + nloc));
  }
  free(mx);
  bs[3] = hy_wtime() - t1;
  return HY_OK;
}

/* The backend has the device setup's row entries.  Local. */
int spai_dev_rows_ok(const k_spai_ops *ko) {
  return ko->dist_trans && ko->rows_gather && ko->rows_merge && ko->rows_free && ko->rows_mat &&
         ko->dist_rows_dev;
}

/* P ranks: B's rows (local, then the rows of other ranks they name: a superset of the J sets'
 * rows, J_k lies in B's row k and k) with their rows' maxima, through the host (s->bt keeps
 * them) or made on the backend (spai.dist_exchange = device, s->dist_dev), and the backend
 * builds the J sets and |I| bounds from them; s->pt = the J sets (global indices).  Declines on
 * every rank (dev = 0, bt cleared) when a J set exceeds max_col on one.  Collective. */
static int pat_dist(spai_pattern_st *s) {
  MPI_Comm comm = s->ctx->comm;
  const la_part *pr = s->pr;
  int rank = s->ctx->rank;
  int64_t r0 = pr->start[rank], r1 = pr->start[rank + 1], nloc = r1 - r0, u = 0, *gh = NULL;
  double t0 = hy_wtime(), *mxb = NULL;
  void *brows = NULL;
  s->dist_dev = s->opt->dist_device && spai_dev_rows_ok(s->ko);
  if (s->dist_dev) HY_CALL(dist_brows_dev(s, &gh, &u, &mxb, &brows));
  else HY_CALL(dist_brows_host(s, &gh, &u, &mxb));
  int32_t *g32 = NULL, *jglob = NULL;
  HY_MALLOC(g32, u + 1);
  for (int64_t t = 0; t < u; t++) g32[t] = (int32_t)gh[t];
  const spai_setup_opts *o = s->opt;
  k_spai_dist in = { .nloc = nloc, .r0 = r0, .nghost = u, .ghost = g32, .bptr = s->bt.rowptr,
                     .bcol = s->bt.colind, .bval = s->bt.val, .mxb = mxb,
                     .cmax = s->cmax ? s->cmax + r0 : NULL, .tau = o->tau, .max_col = o->max_col,
                     .small_rows = o->small_rows, .small_cols = o->small_cols,
                     .medium_elems = o->medium_elems, .block_threads = o->block_threads,
                     .fuse_submat = o->fuse_submat, .warp_rows = o->warp_rows,
                     .split = s->split + 1, .brows = brows,
                     /* the device assembly finds M's row range itself (the host's, with
                      * spai.scale, reads the J sets' global indices) */
                     .jglob_kept = s->dist_dev && !o->scale };
  int fits = 0, all = 0;
  s->split[0] = hy_wtime() - t0;
  HY_LOCAL(s->ko->dist_setup(&s->ctx->be, &in, &s->st, &s->djptr, &jglob, &fits));
  free(g32);
  free(mxb);
  free(gh);
  HY_MPI(MPI_Allreduce(&fits, &all, 1, MPI_INT, MPI_MIN, comm));
  if (!all) {  /* one rank has a J set over max_col: every rank takes the host pattern */
    if (s->st) s->ko->cols_free(&s->ctx->be, s->st);
    s->st = NULL;
    free(s->djptr);
    s->djptr = NULL;
    free(jglob);
    csr_clear(&s->bt);
    s->dist_dev = 0;
    return HY_OK;
  }
  s->dev = 1;
  memset(&s->pt, 0, sizeof s->pt);
  s->pt.m = nloc;
  s->pt.n = pr->n;
  s->pt.nnz = s->djptr[nloc];
  HY_MALLOC(s->pt.rowptr, nloc + 1);
  memcpy(s->pt.rowptr, s->djptr, (size_t)(nloc + 1) * sizeof *s->pt.rowptr);
  s->pt.colind = jglob;   /* NULL where the backend kept them (jglob_kept) */
  HY_MALLOC(s->pt.val, s->pt.nnz + 1);   /* M's values, by cols_result */
  return HY_OK;
}

/* single: one rank, levels 1.  Local. */
static int pat_single_usable(const spai_pattern_st *s) {
  return s->pr->size == 1 && s->opt->levels == 1;
}
static int pat_single(spai_pattern_st *s) {
  return pattern_single(s->a, s->opt->tau, s->cmax, s->opt->max_col, &s->bt, &s->pt, &s->shared);
}

/* cols: levels 1 on P ranks: B = A^T by rows (the columns of A the index sets are made of), J
 * from B's rows (one transpose serves the pattern and the columns).  Collective. */
static int pat_cols_usable(const spai_pattern_st *s) { return s->opt->levels == 1; }
static int pat_cols(spai_pattern_st *s) {
  MPI_Comm comm = s->ctx->comm;
  HY_CALL(la_transpose(comm, s->pr, s->a, s->pr, &s->bt));
  return pattern_from_columns(comm, s->pr, s->ctx->rank, s->a, &s->bt, s->opt->tau, s->cmax, &s->pt);
}

/* power: levels > 1: S thresholded, P = S^levels, J = P^T; B = A^T.  Collective. */
static int pat_power_usable(const spai_pattern_st *s) { return s->opt->levels > 1; }
static int pat_power(spai_pattern_st *s) {
  MPI_Comm comm = s->ctx->comm;
  HY_CALL(la_transpose(comm, s->pr, s->a, s->pr, &s->bt));
  hy_csr sm, p;
  HY_CALL(pattern_threshold(s->pr, s->ctx->rank, s->a, s->opt->tau, s->cmax, &sm));
  HY_CALL(la_csr_copy(&sm, &p));
  for (int l = 1; l < s->opt->levels; l++) HY_CALL(pattern_power(comm, s->pr, &sm, &p));
  csr_clear(&sm);
  HY_CALL(la_transpose(comm, s->pr, &p, s->pr, &s->pt));
  csr_clear(&p);
  return HY_OK;
}

const spai_pattern_alg spai_patterns[] = {
  { .name = "device", .usable = pat_device_usable, .build = pat_device },
  { .name = "dist", .usable = pat_dist_usable, .build = pat_dist },
  { .name = "single", .usable = pat_single_usable, .build = pat_single },
  { .name = "cols", .usable = pat_cols_usable, .build = pat_cols },
  { .name = "power", .usable = pat_power_usable, .build = pat_power },
  { .name = NULL },
};

/* The first usable builder that does not decline, then the cap of the J sets.  Every rank
 * takes the same builder (usable depends on options and rank count only; the device
 * builders decline, dist on every rank together).  Collective. */
int spai_pattern_build(spai_pattern_st *s, const char **name) {
  *name = NULL;
  for (const spai_pattern_alg *b = spai_patterns; b->name; b++) {
    if (!b->usable(s)) continue;
    HY_CALL(b->build(s));
    if (s->dev || s->pt.rowptr) {
      *name = b->name;
      break;
    }
  }
  if (!*name) return hy_err(HY_ESYS, "spai: no pattern builder applies (levels %d, %d ranks)",
                            s->opt->levels, s->pr->size);
  if (!s->dev) HY_CALL(pattern_cap(&s->pt, s->pr->start[s->ctx->rank], s->opt->max_col));
  return HY_OK;
}
