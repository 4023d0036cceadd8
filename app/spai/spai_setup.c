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
static int pattern_threshold(const spai_part *pr, int rank, const hy_csr *a, double tau, hy_csr *s) {
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

/* P = P * S (pattern with summed products of the ranking values).  Collective. */
static int pattern_power(MPI_Comm comm, const spai_part *pr, const hy_csr *s, hy_csr *p) {
  /* rows of S for every column of the local P */
  int64_t nc = p->nnz, u = 0;
  int64_t *need = NULL;
  HY_MALLOC(need, nc + 1);
  for (int64_t e = 0; e < nc; e++) need[e] = p->colind[e];
  qsort(need, nc, sizeof *need, cmp_i64);
  for (int64_t i = 0; i < nc; i++)
    if (u == 0 || need[i] != need[u - 1]) need[u++] = need[i];
  hy_csr sr;
  HY_CALL(spai_fetch_rows(comm, pr, s, u, need, &sr));
  hy_csr q;
  memset(&q, 0, sizeof q);
  q.m = p->m;
  q.n = p->n;
  HY_MALLOC(q.rowptr, p->m + 1);
  int64_t cap = p->nnz * 4 + 16, nz = 0;
  HY_MALLOC(q.colind, cap);
  HY_MALLOC(q.val, cap);
  int32_t *tk = NULL;
  double *tv = NULL;
  int64_t tcap = 0;
  q.rowptr[0] = 0;
  for (int64_t i = 0; i < p->m; i++) {
    int64_t t = 0;
    for (int64_t e = p->rowptr[i]; e < p->rowptr[i + 1]; e++) {
      int64_t lo = 0, hi = u - 1, g = p->colind[e];
      while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (need[mid] < g) lo = mid + 1;
        else hi = mid;
      }
      int64_t len = sr.rowptr[lo + 1] - sr.rowptr[lo];
      if (t + len > tcap) {
        tcap = (t + len) * 2 + 64;
        tk = realloc(tk, tcap * sizeof *tk);
        tv = realloc(tv, tcap * sizeof *tv);
        if (!tk || !tv) return hy_err(HY_ESYS, "out of memory in the pattern power");
      }
      for (int64_t f = sr.rowptr[lo]; f < sr.rowptr[lo + 1]; f++) {
        tk[t] = sr.colind[f];
        tv[t++] = p->val[e] * sr.val[f];
      }
    }
    spai_sort_pairs(tk, tv, t);  /* rows are short: insertion sort */
    if (nz + t > cap) {
      cap = (nz + t) * 2;
      q.colind = realloc(q.colind, cap * sizeof *q.colind);
      q.val = realloc(q.val, cap * sizeof *q.val);
      if (!q.colind || !q.val) return hy_err(HY_ESYS, "out of memory in the pattern power");
    }
    for (int64_t k = 0; k < t; k++) {
      if (k > 0 && tk[k] == tk[k - 1]) {
        q.val[nz - 1] += tv[k];
      } else {
        q.colind[nz] = tk[k];
        q.val[nz++] = tv[k];
      }
    }
    q.rowptr[i + 1] = nz;
  }
  q.nnz = nz;
  free(tk); free(tv); free(need);
  csr_clear(&sr);
  csr_clear(p);
  *p = q;
  return HY_OK;
}

/* Cap each row of pt (J sets) at max_col entries: the diagonal, then the largest ranking
 * values (ties: smaller index).  Local. */
static void pattern_cap(hy_csr *pt, int64_t r0, int max_col) {
  int64_t nz = 0;
  int64_t start = 0;
  for (int64_t k = 0; k < pt->m; k++) {
    int64_t b = start, e = pt->rowptr[k + 1], len = e - b;
    start = e;
    int32_t *col = pt->colind + b;
    double *val = pt->val + b;
    if (len > max_col) {
      /* selection by repeated max: rows are short relative to the cost of the QR */
      for (int64_t t = 0; t < len; t++)
        if (col[t] == r0 + k) val[t] = INFINITY;
      for (int64_t a = 0; a < max_col; a++) {
        int64_t best = a;
        for (int64_t t = a + 1; t < len; t++)
          if (val[t] > val[best] || (val[t] == val[best] && col[t] < col[best])) best = t;
        int32_t tc = col[a]; col[a] = col[best]; col[best] = tc;
        double tv = val[a]; val[a] = val[best]; val[best] = tv;
      }
      len = max_col;
      spai_sort_pairs(col, val, len);
    }
    memmove(pt->colind + nz, col, len * sizeof *col);
    memmove(pt->val + nz, val, len * sizeof *val);
    pt->rowptr[k] = nz;
    nz += len;
  }
  pt->rowptr[pt->m] = nz;
  pt->nnz = nz;
}

/* The J sets of the local columns (rows of P^T) for levels = 1, from B = A^T's local rows: in
 * column k of A keep row i when |a_ik| > (1 - tau) max_j |a_ij| (row maxima of other ranks'
 * rows are fetched), and k itself; the same sets and ranking values as thresholding A by rows
 * and transposing.  Collective. */
static int pattern_from_columns(MPI_Comm comm, const spai_part *pr, int rank, const hy_csr *a,
                                const hy_csr *bt, double tau, hy_csr *pt) {
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
  /* remote rows referenced by B's rows, sorted and unique */
  int64_t ng = 0, u = 0;
  int64_t *gh = NULL;
  HY_MALLOC(gh, bt->nnz + 1);
  for (int64_t e = 0; e < bt->nnz; e++)
    if (bt->colind[e] < r0 || bt->colind[e] >= r1) gh[ng++] = bt->colind[e];
  qsort(gh, ng, sizeof *gh, cmp_i64);
  for (int64_t i = 0; i < ng; i++)
    if (u == 0 || gh[i] != gh[u - 1]) gh[u++] = gh[i];
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
      if (i >= r0 && i < r1) {
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
  hy_csr p, pt, bt;
  /* B = A^T by rows (= A by columns): the columns of A that the index sets are made of */
  HY_CALL(spai_transpose(comm, pr, a, pr, &bt));
  if (opt->levels == 1) {
    /* J sets straight from B's rows: one transpose (of A) serves the pattern and the columns */
    HY_CALL(pattern_from_columns(comm, pr, rank, a, &bt, opt->tau, &pt));
  } else {
    HY_CALL(pattern_threshold(pr, rank, a, opt->tau, &p));
    for (int l = 1; l < opt->levels; l++) {
      hy_csr s;
      HY_CALL(pattern_threshold(pr, rank, a, opt->tau, &s));
      HY_CALL(pattern_power(comm, pr, &s, &p));
      csr_clear(&s);
    }
    HY_CALL(spai_transpose(comm, pr, &p, pr, &pt));
    csr_clear(&p);
  }
  pattern_cap(&pt, r0, opt->max_col);
  hy_phase_end(ctx, "spai pattern");

  /* ---- distribution: columns balanced by cost |I| |J|^2 (|I| estimated) ---- */
  hy_phase_begin(ctx, "spai distribute");
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
  spai_part pc;
  HY_CALL(spai_part_weighted(comm, pr, rank, w, &pc));
  free(w);
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
  /* the distinct J entries, sorted, through a marker over their index range (no sort) */
  int64_t nj = jc.nnz, u = 0, jmin = pr->n, jmax = -1;
  for (int64_t e = 0; e < nj; e++) {
    if (jc.colind[e] < jmin) jmin = jc.colind[e];
    if (jc.colind[e] > jmax) jmax = jc.colind[e];
  }
  int64_t range = jmax >= jmin ? jmax - jmin + 1 : 0;
  int32_t *mark = NULL;
  int64_t *jl = NULL;
  HY_CALLOC(mark, range + 1);
  for (int64_t e = 0; e < nj; e++) mark[jc.colind[e] - jmin] = 1;
  for (int64_t t = 0; t < range; t++) u += mark[t];
  HY_MALLOC(jl, u + 1);
  u = 0;
  for (int64_t t = 0; t < range; t++)
    if (mark[t]) {
      mark[t] = (int32_t)u;  /* now: position in jl */
      jl[u++] = jmin + t;
    }
  HY_CALL(spai_fetch_rows(comm, pr, &bt, u, jl, &bx));
  csr_clear(&bt);
  int32_t *jloc = NULL, *kglob = NULL;
  int64_t *iub = NULL;
  HY_MALLOC(jloc, nj + 1);
  HY_MALLOC(kglob, ncol + 1);
  HY_MALLOC(iub, ncol + 1);
  iub[0] = 0;
  for (int64_t k = 0; k < ncol; k++) {
    kglob[k] = (int32_t)(c0 + k);
    int64_t s = 0;
    for (int64_t e = jc.rowptr[k]; e < jc.rowptr[k + 1]; e++) {
      int32_t lo = mark[jc.colind[e] - jmin];
      jloc[e] = lo;
      s += bx.rowptr[lo + 1] - bx.rowptr[lo];
    }
    iub[k + 1] = iub[k] + s;
  }
  free(jl);
  free(mark);
  double mycost = 0;
  for (int64_t k = 0; k < ncol; k++) {
    double jn = (double)(jc.rowptr[k + 1] - jc.rowptr[k]);
    mycost += (double)(iub[k + 1] - iub[k]) * jn * jn;
  }
  double cmax = 0, csum = 0;
  HY_MPI(MPI_Allreduce(&mycost, &cmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  HY_MPI(MPI_Allreduce(&mycost, &csum, 1, MPI_DOUBLE, MPI_SUM, comm));
  info->cost_imbalance = csum > 0 ? cmax / (csum / size) : 1;
  hy_phase_end(ctx, "spai distribute");

  /* ---- index sets, submatrices, QR + solve on the backend ---- */
  k_spai_cols d = { ncol, kglob, jc.rowptr, jloc, bx.m, bx.rowptr, bx.colind, bx.val, iub,
                    opt->small_rows, opt->small_cols, opt->medium_elems, opt->block_threads };
  void *st = NULL;
  int32_t *isize = NULL;
  HY_MALLOC(isize, ncol + 1);
  hy_phase_begin(ctx, "spai index sets");
  int rc = ko->cols_setup(be, &d, &st);
  if (rc == HY_OK) rc = ko->cols_index(be, st, isize);
  hy_phase_end(ctx, "spai index sets");
  HY_CALL(hy_agree(comm, rc));
  k_spai_stats ks;
  memset(&ks, 0, sizeof ks);
  int64_t c = 0;
  while (c < ncol && rc == HY_OK) {
    int64_t e = c, bytes = 0;
    while (e < ncol) {
      int64_t b = (int64_t)isize[e] * (jc.rowptr[e + 1] - jc.rowptr[e]) * 8;
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
  rc = ko->cols_result(be, st, jc.val, res);
  ko->cols_free(be, st);
  HY_CALL(hy_agree(comm, rc));
  int64_t bad = -1, nz = 0, dropped = 0;
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
      if (opt->filter > 0 && fabs(jc.val[e]) < opt->filter * mx && jc.colind[e] != c0 + k) {
        dropped++;
        continue;
      }
      jc.colind[nz] = jc.colind[e];
      jc.val[nz++] = jc.val[e];
    }
  }
  jc.rowptr[ncol] = nz;
  jc.nnz = nz;
  rc = bad >= 0 ? hy_err(HY_ENUMERIC, "SPAI column %lld has a non-finite value", (long long)bad) : HY_OK;
  HY_CALL(hy_agree(comm, rc));
  HY_CALL(spai_transpose(comm, &pc, &jc, pr, m));
  csr_clear(&jc);
  csr_clear(&bx);
  free(jloc); free(kglob); free(iub); free(isize);
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
