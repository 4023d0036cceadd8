/* spai_setup.c - the SPAI preconditioner (HybridSPAI's three stages): pattern from the
 * thresholded A (eq. 3) to the power `levels`, columns balanced over ranks by estimated cost,
 * index sets / submatrices / QR + triangular solve on the rank's backend, assembly of M by rows. */
#include "spai/spai.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void csr_clear(hy_csr *a) { io_csr_free(a); }

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}
/* The k-th smallest of v[0..n) (quickselect; v is reordered so that v[0..k) <= v[k]).  Local. */
static double select_kth(double *v, int64_t n, int64_t k) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double piv = v[lo + (hi - lo) / 2];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < piv) i++;
      while (v[j] > piv) j--;
      if (i <= j) {
        double t = v[i]; v[i] = v[j]; v[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return v[k];
  }
  return v[k];
}

/* S: keep (i, j) with |a_ij| > (1 - tau) max_j |a_ij|, and the diagonal; values |a_ij| / max
 * (the diagonal ranks first: value 1 + its own).  Local. */
static int pattern_threshold(const spai_part *pr, int rank, const hy_csr *a, double tau,
                             const double *cmax, hy_csr *s) {
  int64_t r0 = pr->start[rank];
  memset(s, 0, sizeof *s);
  s->m = a->m;
  s->n = a->n;
  HY_MALLOC(s->rowptr, a->m + 1);
  HY_MALLOC(s->colind, a->nnz + a->m + 1);
  HY_MALLOC(s->val, a->nnz + a->m + 1);
  int64_t nz = 0;
  s->rowptr[0] = 0;
  for (int64_t i = 0; i < a->m; i++) {
    double mx = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (fabs(a->val[e]) > mx) mx = fabs(a->val[e]);
    double thr = (1.0 - tau) * mx;
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
        if (v > (1.0 - tau) * cmax[j] && v > 0) {
          s->colind[nz] = j;
          s->val[nz++] = v / cmax[j];
        }
      } else if (fabs(a->val[e]) > thr && fabs(a->val[e]) > 0) {
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
static int pattern_power(MPI_Comm comm, const spai_part *pr, const hy_csr *s, hy_csr *p) {
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
    HY_CALL(spai_fetch_rows(comm, pr, s, u, need, &sr));
  }
  const hy_csr *src = size > 1 ? &sr : s;
  int64_t n = pr->n;
  double *acc = NULL;
  int64_t *last = NULL;   /* last[c]: the row of P that c was last seen in, or -1 */
  HY_MALLOC(acc, n + 1);
  HY_MALLOC(last, n + 1);
  for (int64_t c = 0; c <= n; c++) last[c] = -1;
  hy_csr q;
  memset(&q, 0, sizeof q);
  q.m = p->m;
  q.n = p->n;
  HY_MALLOC(q.rowptr, p->m + 1);
  int64_t cap = p->nnz * 4 + 16, nz = 0;
  HY_MALLOC(q.colind, cap);
  HY_MALLOC(q.val, cap);
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
      else if (!(v > (cmax ? (1.0 - tau) * cmax[j] : (1.0 - tau) * m) && v > 0)) all = 0;
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
    HY_MALLOC(pt->rowptr, n + 1);
    memcpy(pt->rowptr, bt->rowptr, (size_t)(n + 1) * sizeof *pt->rowptr);
    pt->colind = bt->colind;
    HY_MALLOC(pt->val, nnz + 1);
    pt->nnz = nnz;
    free(mx);
    return HY_OK;
  }
  /* J_k: rows i of A's column k (B's row k) above the threshold, and k itself, in order */
  HY_MALLOC(pt->rowptr, n + 1);
  HY_MALLOC(pt->colind, nnz + n + 1);
  HY_MALLOC(pt->val, nnz + n + 1);
  int64_t nz = 0;
  pt->rowptr[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    int diag = 0;
    double ck = cmax ? cmax[k] : 0, ct = (1.0 - tau) * ck;
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
      if (v > (cmax ? ct : (1.0 - tau) * m) && v > 0) {
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

/* The J sets of the local columns (rows of P^T) for levels = 1, from B = A^T's local rows: in
 * column k of A keep row i when |a_ik| > (1 - tau) max_j |a_ij| (row maxima of other ranks'
 * rows are fetched), and k itself; the same sets and ranking values as thresholding A by rows
 * and transposing.  Collective. */
static int pattern_from_columns(MPI_Comm comm, const spai_part *pr, int rank, const hy_csr *a,
                                const hy_csr *bt, double tau, const double *cmax, hy_csr *pt) {
  int64_t r0 = pr->start[rank], r1 = pr->start[rank + 1];
  /* row maxima as a one-column distributed matrix, so that remote ones can be fetched */
  hy_csr rm;
  memset(&rm, 0, sizeof rm);
  rm.m = a->m;
  rm.n = 1;
  rm.nnz = a->m;
  HY_MALLOC(rm.rowptr, a->m + 1);
  HY_MALLOC(rm.colind, a->m + 1);
  HY_MALLOC(rm.val, a->m + 1);
  for (int64_t i = 0; i < a->m; i++) {
    double mx = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (fabs(a->val[e]) > mx) mx = fabs(a->val[e]);
    rm.rowptr[i] = i;
    rm.colind[i] = 0;
    rm.val[i] = mx;
  }
  rm.rowptr[a->m] = a->m;
  /* remote rows referenced by B's rows, sorted and unique: marked over their index range (one
   * pass, no sort of the nnz references); none with column maxima (they replace the rows') */
  int64_t u = 0, gmin = pr->n, gmax = -1;
  int64_t *gh = NULL;
  if (!cmax)
    for (int64_t e = 0; e < bt->nnz; e++) {
      int64_t g = bt->colind[e];
      if (g >= r0 && g < r1) continue;
      if (g < gmin) gmin = g;
      if (g > gmax) gmax = g;
    }
  int64_t range = gmax >= gmin ? gmax - gmin + 1 : 0;
  unsigned char *seen = NULL;
  HY_CALLOC(seen, range + 1);
  for (int64_t e = 0; e < bt->nnz && range; e++) {
    int64_t g = bt->colind[e];
    if (g < r0 || g >= r1) seen[g - gmin] = 1;
  }
  for (int64_t t = 0; t < range; t++) u += seen[t];
  HY_MALLOC(gh, u + 1);
  u = 0;
  for (int64_t t = 0; t < range; t++)
    if (seen[t]) gh[u++] = gmin + t;
  free(seen);
  hy_csr rg;
  HY_CALL(spai_fetch_rows(comm, pr, &rm, u, gh, &rg));
  memset(pt, 0, sizeof *pt);
  pt->m = bt->m;
  pt->n = bt->n;
  HY_MALLOC(pt->rowptr, bt->m + 1);
  HY_MALLOC(pt->colind, bt->nnz + bt->m + 1);
  HY_MALLOC(pt->val, bt->nnz + bt->m + 1);
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
      if (v > (1.0 - tau) * mx && v > 0) {
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

/* as = D^-1/2 A D^-1/2 (local rows), D = |diag(A)| (1 where a_gg = 0); *sinv = D^-1/2 for every
 * global index (gathered: n doubles per rank).  Collective. */
static int scale_matrix(MPI_Comm comm, const spai_part *pr, int rank, const hy_csr *a, hy_csr *as,
                        double **sinv) {
  int size = pr->size;
  int64_t r0 = pr->start[rank], n = pr->n;
  double *s = NULL;
  HY_MALLOC(s, n + 1);
  for (int64_t i = 0; i < a->m; i++) {
    double d = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (a->colind[e] == r0 + i) d = fabs(a->val[e]);
    s[r0 + i] = d > 0 ? 1.0 / sqrt(d) : 1.0;
  }
  if (size > 1) {
    int *cnt = NULL, *dsp = NULL;
    HY_MALLOC(cnt, size);
    HY_MALLOC(dsp, size);
    for (int q = 0; q < size; q++) {
      cnt[q] = (int)(pr->start[q + 1] - pr->start[q]);
      dsp[q] = (int)pr->start[q];
    }
    HY_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, s, cnt, dsp, MPI_DOUBLE, comm));
    free(cnt);
    free(dsp);
  }
  memset(as, 0, sizeof *as);
  as->m = a->m;
  as->n = a->n;
  as->nnz = a->nnz;
  HY_MALLOC(as->rowptr, a->m + 1);
  HY_MALLOC(as->colind, a->nnz + 1);
  HY_MALLOC(as->val, a->nnz + 1);
  as->rowptr[0] = a->rowptr[0];
  for (int64_t i = 0; i < a->m; i++) {
    as->rowptr[i + 1] = a->rowptr[i + 1];
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      as->colind[e] = a->colind[e];
      as->val[e] = s[r0 + i] * a->val[e] * s[a->colind[e]];
    }
  }
  *sinv = s;
  return HY_OK;
}

/* Jacobi as a matrix.  Local. */
int spai_jacobi(const spai_part *pr, int rank, const hy_csr *a, hy_csr *m) {
  int64_t r0 = pr->start[rank];
  memset(m, 0, sizeof *m);
  m->m = a->m;
  m->n = a->n;
  m->nnz = a->m;
  HY_MALLOC(m->rowptr, a->m + 1);
  HY_MALLOC(m->colind, a->m + 1);
  HY_MALLOC(m->val, a->m + 1);
  for (int64_t i = 0; i < a->m; i++) {
    double d = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (a->colind[e] == r0 + i) d = a->val[e];
    m->rowptr[i] = i;
    m->colind[i] = (int32_t)(r0 + i);
    m->val[i] = d != 0 ? 1.0 / d : 1.0;
  }
  m->rowptr[a->m] = a->m;
  return HY_OK;
}

/* The whole setup.  Collective. */
int spai_build(hy_ctx *ctx, const spai_part *pr, const hy_csr *a, const spai_opts *opt, hy_csr *m,
               spai_info *info) {
  MPI_Comm comm = ctx->comm;
  int rank = ctx->rank, size = ctx->size;
  int64_t r0 = pr->start[rank];
  k_backend *be = &ctx->be;
  const k_spai_ops *ko = k_spai_ops_get(be);
  memset(info, 0, sizeof *info);

  /* ---- pattern: S, S^L, transposed into J sets by column ---- */
  hy_phase_begin(ctx, "spai pattern");
  hy_csr as;     /* scale: D^-1/2 A D^-1/2; sinv[g] = |a_gg|^-1/2 (1 where a_gg = 0) */
  double *sinv = NULL;
  memset(&as, 0, sizeof as);
  if (opt->scale) {
    HY_CALL(scale_matrix(comm, pr, rank, a, &as, &sinv));
    a = &as;
  }
  double *cmax = NULL;   /* threshold per column: max_i |a_ij| for every global j */
  if (opt->colthr) {
    HY_CALLOC(cmax, pr->n + 1);
    for (int64_t e = 0; e < a->nnz; e++)
      if (fabs(a->val[e]) > cmax[a->colind[e]]) cmax[a->colind[e]] = fabs(a->val[e]);
    if (size > 1) HY_MPI(MPI_Allreduce(MPI_IN_PLACE, cmax, (int)pr->n, MPI_DOUBLE, MPI_MAX, comm));
  }
  hy_csr p, pt, bt;
  int shared = 0;   /* pt.colind is bt.colind (one rank, every entry of A kept) */
  memset(&pt, 0, sizeof pt);
  memset(&bt, 0, sizeof bt);
  void *st = NULL;          /* the backend's state of the columns */
  int64_t *djptr = NULL;    /* dev: the J offsets (host copy) */
  int dev = 0;              /* the backend built B, the J sets (and builds M's rows) from A */
  if (size == 1 && opt->levels == 1 && opt->filter <= 0 && opt->device_setup && ko->single_setup) {
    /* A is uploaded once; B = A^T, J and the |I| bounds stay on the device (dev = 0: a J set
     * over max_col, the host pattern below caps it) */
    k_spai_single in = { a->m, a->rowptr, a->colind, a->val, opt->tau, cmax, opt->max_col,
                         opt->small_rows, opt->small_cols, opt->medium_elems, opt->block_threads };
    HY_CALL(hy_agree(comm, ko->single_setup(be, &in, &st, &djptr, &dev)));
  }
  info->device_setup = dev;
  if (dev) {
    /* nothing on the host: the device holds the pattern */
  } else if (size == 1 && opt->levels == 1) {
    /* one pass over A's rows gives B = A^T and the J sets together */
    HY_CALL(pattern_single(a, opt->tau, cmax, opt->max_col, &bt, &pt, &shared));
  } else {
    /* B = A^T by rows (= A by columns): the columns of A that the index sets are made of */
    HY_CALL(spai_transpose(comm, pr, a, pr, &bt));
    if (opt->levels == 1) {
      /* J sets straight from B's rows: one transpose (of A) serves the pattern and the columns */
      HY_CALL(pattern_from_columns(comm, pr, rank, a, &bt, opt->tau, cmax, &pt));
    } else {
      hy_csr s;
      HY_CALL(pattern_threshold(pr, rank, a, opt->tau, cmax, &s));
      memset(&p, 0, sizeof p);
      p.m = s.m;
      p.n = s.n;
      p.nnz = s.nnz;
      HY_MALLOC(p.rowptr, s.m + 1);
      HY_MALLOC(p.colind, s.nnz + 1);
      HY_MALLOC(p.val, s.nnz + 1);
      memcpy(p.rowptr, s.rowptr, (s.m + 1) * sizeof *p.rowptr);
      memcpy(p.colind, s.colind, s.nnz * sizeof *p.colind);
      memcpy(p.val, s.val, s.nnz * sizeof *p.val);
      for (int l = 1; l < opt->levels; l++) HY_CALL(pattern_power(comm, pr, &s, &p));
      csr_clear(&s);
      HY_CALL(spai_transpose(comm, pr, &p, pr, &pt));
      csr_clear(&p);
    }
  }
  free(cmax);
  if (!dev) HY_CALL(pattern_cap(&pt, r0, opt->max_col));
  hy_phase_end(ctx, "spai pattern");

  /* ---- distribution: columns balanced by cost |I| |J|^2 (|I| estimated) ---- */
  hy_phase_begin(ctx, "spai distribute");
  spai_part pc;
  if (size == 1) {
    HY_CALL(spai_part_even(&pc, 1, pr->n));
  } else {
    double avg_len = a->m ? (double)a->nnz / a->m : 1;
    double *w = NULL;
    HY_MALLOC(w, pt.m + 1);
    for (int64_t k = 0; k < pt.m; k++) {
      double ilen = 0, jl = (double)(pt.rowptr[k + 1] - pt.rowptr[k]);
      for (int64_t e = pt.rowptr[k]; e < pt.rowptr[k + 1]; e++) {
        int64_t j = pt.colind[e] - r0;
        ilen += (j >= 0 && j < a->m) ? (double)(a->rowptr[j + 1] - a->rowptr[j]) : avg_len;
      }
      w[k] = ilen * jl * jl + 1.0;
    }
    HY_CALL(spai_part_weighted(comm, pr, rank, w, &pc));
    free(w);
  }
  int64_t c0 = pc.start[rank], ncol = pc.start[rank + 1] - c0;
  hy_csr jc;   /* J sets of my columns under pc */
  int same = 1;
  for (int q = 0; q <= size; q++) same &= pc.start[q] == pr->start[q];
  if (same) {
    jc = pt;   /* the balance kept the row partition: no data moves */
  } else {
    int64_t *want = NULL;
    HY_MALLOC(want, ncol + 1);
    for (int64_t k = 0; k < ncol; k++) want[k] = c0 + k;
    HY_CALL(spai_fetch_rows(comm, pr, &pt, ncol, want, &jc));
    free(want);
    csr_clear(&pt);
  }
  /* the rows of B my columns need */
  hy_csr bx;
  memset(&bx, 0, sizeof bx);
  int64_t nj = jc.nnz;
  int32_t *jloc = NULL, *kglob = NULL;
  int64_t *iub = NULL;
  if (dev) {
    info->cost_imbalance = 1;  /* one rank; B, J and |I| bounds are on the device */
  } else {
  HY_MALLOC(kglob, ncol + 1);
  HY_MALLOC(iub, ncol + 1);
  if (size == 1) {
    /* B's rows are all here, numbered by their global index: no fetch, no renumbering; the J
     * entries are B's row numbers (jloc is jc's column index array, not a copy) */
    bx = bt;
    jloc = jc.colind;
  } else {
    HY_MALLOC(jloc, nj + 1);
    /* B's local rows stay where they are (global row g is row g - r0); the rows of other
     * ranks that J entries name (distinct, sorted through a marker over their index range) are
     * fetched and appended after them: rows m.. of bx */
    int64_t r1 = pr->start[rank + 1], mloc = r1 - r0;
    int64_t u = 0, jmin = pr->n, jmax = -1;
    for (int64_t e = 0; e < nj; e++) {
      int64_t g = jc.colind[e];
      if (g >= r0 && g < r1) continue;
      if (g < jmin) jmin = g;
      if (g > jmax) jmax = g;
    }
    int64_t range = jmax >= jmin ? jmax - jmin + 1 : 0;
    int32_t *mark = NULL;
    int64_t *jl = NULL;
    HY_CALLOC(mark, range + 1);
    for (int64_t e = 0; e < nj; e++) {
      int64_t g = jc.colind[e];
      if (g < r0 || g >= r1) mark[g - jmin] = 1;
    }
    for (int64_t t = 0; t < range; t++) u += mark[t];
    HY_MALLOC(jl, u + 1);
    u = 0;
    for (int64_t t = 0; t < range; t++)
      if (mark[t]) {
        mark[t] = (int32_t)u;  /* now: position in jl */
        jl[u++] = jmin + t;
      }
    hy_csr gx;
    HY_CALL(spai_fetch_rows(comm, pr, &bt, u, jl, &gx));
    bx = bt;
    int64_t tot = bt.nnz + gx.nnz;
    int64_t *rp = realloc(bx.rowptr, (size_t)(mloc + u + 1) * sizeof *rp);
    if (rp) bx.rowptr = rp;
    int32_t *ci = realloc(bx.colind, (size_t)(tot + 1) * sizeof *ci);
    if (ci) bx.colind = ci;
    double *cv = realloc(bx.val, (size_t)(tot + 1) * sizeof *cv);
    if (cv) bx.val = cv;
    if (!rp || !ci || !cv) return hy_err(HY_ESYS, "out of memory for the rows of B");
    for (int64_t t = 0; t < u; t++) bx.rowptr[mloc + t + 1] = bt.nnz + gx.rowptr[t + 1];
    if (gx.nnz) {
      memcpy(bx.colind + bt.nnz, gx.colind, (size_t)gx.nnz * sizeof *bx.colind);
      memcpy(bx.val + bt.nnz, gx.val, (size_t)gx.nnz * sizeof *bx.val);
    }
    bx.m = mloc + u;
    bx.nnz = tot;
    csr_clear(&gx);
    for (int64_t e = 0; e < nj; e++) {
      int64_t g = jc.colind[e];
      jloc[e] = (g >= r0 && g < r1) ? (int32_t)(g - r0) : (int32_t)(mloc + mark[g - jmin]);
    }
    free(jl);
    free(mark);
  }
  iub[0] = 0;
  double mycost = 0;
  for (int64_t k = 0; k < ncol; k++) {
    kglob[k] = (int32_t)(c0 + k);
    int64_t s = 0;
    for (int64_t e = jc.rowptr[k]; e < jc.rowptr[k + 1]; e++)
      s += bx.rowptr[jloc[e] + 1] - bx.rowptr[jloc[e]];
    iub[k + 1] = iub[k] + s;
    double jn = (double)(jc.rowptr[k + 1] - jc.rowptr[k]);
    mycost += (double)s * jn * jn;
  }
  if (size > 1) {
    double cmax = 0, csum = 0;
    HY_MPI(MPI_Allreduce(&mycost, &cmax, 1, MPI_DOUBLE, MPI_MAX, comm));
    HY_MPI(MPI_Allreduce(&mycost, &csum, 1, MPI_DOUBLE, MPI_SUM, comm));
    info->cost_imbalance = csum > 0 ? cmax / (csum / size) : 1;
  } else {
    info->cost_imbalance = 1;
  }
  }
  hy_phase_end(ctx, "spai distribute");

  /* ---- index sets, submatrices, QR + solve on the backend ---- */
  k_spai_cols d = { ncol, kglob, jc.rowptr, jloc, bx.m, bx.rowptr, bx.colind, bx.val, iub,
                    opt->small_rows, opt->small_cols, opt->medium_elems, opt->block_threads };
  const int64_t *jp = dev ? djptr : jc.rowptr;   /* J offsets of my columns */
  int32_t *isize = NULL;
  HY_MALLOC(isize, ncol + 1);
  hy_phase_begin(ctx, "spai index sets");
  int rc = dev ? HY_OK : ko->cols_setup(be, &d, &st);
  if (rc == HY_OK) rc = ko->cols_index(be, st, isize);
  hy_phase_end(ctx, "spai index sets");
  HY_CALL(hy_agree(comm, rc));
  k_spai_stats ks;
  memset(&ks, 0, sizeof ks);
  int64_t c = 0;
  while (c < ncol && rc == HY_OK) {
    int64_t e = c, bytes = 0;
    while (e < ncol) {
      int64_t b = (int64_t)isize[e] * (jp[e + 1] - jp[e]) * 8;
      if (e > c && bytes + b > opt->workspace) break;
      bytes += b;
      e++;
    }
    hy_phase_begin(ctx, "spai submatrices");
    rc = ko->cols_submat(be, st, c, e);
    hy_phase_end(ctx, "spai submatrices");
    if (rc != HY_OK) break;
    hy_phase_begin(ctx, "spai qr+solve");
    rc = ko->cols_solve(be, st, c, e, &ks);
    hy_phase_end(ctx, "spai qr+solve");
    c = e;
  }
  HY_CALL(hy_agree(comm, rc));

  /* ---- assembly: values, filter, transpose to rows of M ---- */
  hy_phase_begin(ctx, "spai assembly");
  double *res = NULL;
  HY_MALLOC(res, ncol + 1);
  int64_t bad = -1, dropped = 0;
  if (dev) {
    /* M's rows by the backend's transpose of the columns (no filter on this path) */
    memset(m, 0, sizeof *m);
    rc = ko->single_rows(be, st, &m->rowptr, &m->colind, &m->val, res, &bad);
    ko->cols_free(be, st);
    free(djptr);
    free(isize);
    HY_CALL(hy_agree(comm, rc));
    m->m = m->n = pr->n;
    m->nnz = m->rowptr[pr->n];
    /* bad: the smallest column with a non-finite value or residual, as the column path finds it */
    rc = bad >= 0 ? hy_err(HY_ENUMERIC, "SPAI column %lld has a non-finite value", (long long)bad) : HY_OK;
    HY_CALL(hy_agree(comm, rc));
    if (sinv) {  /* M = D^-1/2 Mhat D^-1/2, the column path's products */
      for (int64_t i = 0; i < m->m; i++)
        for (int64_t e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
          m->val[e] *= sinv[i] * sinv[m->colind[e]];
      free(sinv);
      csr_clear(&as);
    }
  } else {
  rc = ko->cols_result(be, st, jc.val, res);
  ko->cols_free(be, st);
  HY_CALL(hy_agree(comm, rc));
  if (opt->filter > 0) {
    int64_t nz = 0;
    for (int64_t k = 0; k < ncol; k++) {
      double mx = 0;
      for (int64_t e = jc.rowptr[k]; e < jc.rowptr[k + 1]; e++) {
        if (!isfinite(jc.val[e]) && bad < 0) bad = c0 + k;
        if (fabs(jc.val[e]) > mx) mx = fabs(jc.val[e]);
      }
      if (!isfinite(res[k]) && bad < 0) bad = c0 + k;
      int64_t b = jc.rowptr[k];
      jc.rowptr[k] = nz;
      for (int64_t e = b; e < jc.rowptr[k + 1]; e++) {
        if (fabs(jc.val[e]) < opt->filter * mx && jc.colind[e] != c0 + k) {
          dropped++;
          continue;
        }
        jc.colind[nz] = jc.colind[e];
        jc.val[nz++] = jc.val[e];
      }
    }
    jc.rowptr[ncol] = nz;
    jc.nnz = nz;
  } else {
    /* no filter: only the finiteness check (a NaN in a column is an error) */
    for (int64_t e = 0; e < jc.nnz && bad < 0; e++)
      if (!isfinite(jc.val[e])) {
        int64_t lo = 0, hi = ncol - 1;  /* the column of entry e */
        while (lo < hi) {
          int64_t mid = (lo + hi + 1) / 2;
          if (jc.rowptr[mid] <= e) lo = mid;
          else hi = mid - 1;
        }
        bad = c0 + lo;
      }
    for (int64_t k = 0; k < ncol; k++)
      if (!isfinite(res[k]) && (bad < 0 || c0 + k < bad)) {
        bad = c0 + k;
        break;
      }
  }
  rc = bad >= 0 ? hy_err(HY_ENUMERIC, "SPAI column %lld has a non-finite value", (long long)bad) : HY_OK;
  HY_CALL(hy_agree(comm, rc));
  if (sinv) {  /* M = D^-1/2 Mhat D^-1/2 */
    for (int64_t k = 0; k < ncol; k++)
      for (int64_t e = jc.rowptr[k]; e < jc.rowptr[k + 1]; e++)
        jc.val[e] *= sinv[jc.colind[e]] * sinv[c0 + k];
    free(sinv);
    csr_clear(&as);
  }
  HY_CALL(spai_transpose(comm, &pc, &jc, pr, m));
  csr_clear(&jc);
  if (shared) bx.colind = NULL;  /* freed with jc's */
  csr_clear(&bx);
  if (size > 1) free(jloc);
  free(kglob); free(iub); free(isize);
  }
  hy_phase_end(ctx, "spai assembly");

  /* ---- figures ---- */
  long long loc[7] = { m->nnz, ks.rank_deficient, ks.ncols_small, ks.ncols_medium, ks.ncols_large,
                       dropped, 0 }, glob[7];
  HY_MPI(MPI_Allreduce(loc, glob, 7, MPI_LONG_LONG, MPI_SUM, comm));
  info->nnz_m = glob[0];
  info->rank_deficient = glob[1];
  info->ncols_small = glob[2];
  info->ncols_medium = glob[3];
  info->ncols_large = glob[4];
  info->dropped_filter = glob[5];
  long long mx[2] = { ks.max_i, ks.max_j }, gmx[2];
  HY_MPI(MPI_Allreduce(mx, gmx, 2, MPI_LONG_LONG, MPI_MAX, comm));
  info->max_i = gmx[0];
  info->max_j = gmx[1];
  double ss = 0;
  for (int64_t k = 0; k < ncol; k++) ss += res[k] * res[k];
  double sst = 0;
  HY_MPI(MPI_Allreduce(&ss, &sst, 1, MPI_DOUBLE, MPI_SUM, comm));
  info->frob = sqrt(sst);
  /* min / median / max of the column residuals: gathered on rank 0 */
  int *cnt = NULL, *dsp = NULL;
  double *allr = NULL;
  if (rank == 0) {
    HY_MALLOC(cnt, size);
    HY_MALLOC(dsp, size);
    HY_MALLOC(allr, pr->n + 1);
    for (int q = 0; q < size; q++) {
      cnt[q] = (int)(pc.start[q + 1] - pc.start[q]);
      dsp[q] = (int)pc.start[q];
    }
  }
  HY_MPI(MPI_Gatherv(res, (int)ncol, MPI_DOUBLE, allr, cnt, dsp, MPI_DOUBLE, 0, comm));
  if (rank == 0 && pr->n > 0) {
    int64_t nn = pr->n;
    info->res_min = info->res_max = allr[0];
    for (int64_t i = 1; i < nn; i++) {
      if (allr[i] < info->res_min) info->res_min = allr[i];
      if (allr[i] > info->res_max) info->res_max = allr[i];
    }
    double hi = select_kth(allr, nn, nn / 2);
    info->res_med = nn % 2 ? hi : 0.5 * (hi + select_kth(allr, nn / 2, nn / 2 - 1));
  }
  double meds[3] = { info->res_min, info->res_med, info->res_max };
  HY_MPI(MPI_Bcast(meds, 3, MPI_DOUBLE, 0, comm));
  info->res_min = meds[0];
  info->res_med = meds[1];
  info->res_max = meds[2];
  free(cnt); free(dsp); free(allr); free(res);
  spai_part_free(&pc);
  return HY_OK;
}
