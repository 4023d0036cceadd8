/* lle_nd.c - a geometric nested-dissection order of M = B^T B (B = I - W, W's pattern the K
 * nearest neighbours) from the points' coordinates, for the sparse Cholesky factorisation of
 * lle.eigensolver = chol-nd.  O(n log n): a segment of points is split at the median of its
 * widest coordinate (quickselect); its vertex separator is exact in M's graph (i ~ j when
 * both are in S_r = {r} + nbr(r) for some row r): the points of one half with an M-neighbour
 * in the other half, the smaller of the two one-sided boundaries; only the points within
 * 2 reach of the cut can have one (reach_i: the largest kNN radius of a row whose S_r holds
 * i), so the search costs the boundary band, not the segment.  The halves are ordered first,
 * recursively, then the separator; segments of at most `leaf` points keep their order (the
 * caller's postordered symbolic analysis arranges the rest).  For a manifold sampled in R^D
 * the cuts follow the coordinates, which is what METIS finds on such graphs at a fraction of
 * its cost (N = 200k Swiss roll: see README, chol-nd). */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

/* The order's work arrays. */
typedef struct {
  int64_t n;
  int dim, k;
  const double *x;
  const int32_t *nbr;
  int32_t *idx;          /* the order being built: idx[pos] = point */
  int32_t *tp, *ti;      /* transpose of nbr: rows r with i in nbr(r) are ti[tp[i]..tp[i+1]) */
  double *reach;         /* see the file comment */
  int32_t *stamp;        /* the segment side a point was last put on */
  int32_t *buf;          /* n scratch for the partitions */
  int32_t next_stamp;
} nd_work;

/* Partition idx[lo..hi) around its mid-th smallest coordinate c (quickselect, ties by point
 * index so the order is a function of the data alone).  Local. */
static void nd_select(nd_work *w, int64_t lo, int64_t hi, int64_t mid, int c) {
  int32_t *a = w->idx;
  const double *x = w->x;
  int d = w->dim;
  while (hi - lo > 1) {
    int64_t m = lo + (hi - lo) / 2;
    int32_t pv = a[m];
    double pvx = x[(int64_t)pv * d + c];
    int32_t t = a[m]; a[m] = a[hi - 1]; a[hi - 1] = t;
    int64_t s = lo;
    for (int64_t i = lo; i < hi - 1; i++) {
      double xi = x[(int64_t)a[i] * d + c];
      if (xi < pvx || (xi == pvx && a[i] < pv)) { t = a[i]; a[i] = a[s]; a[s] = t; s++; }
    }
    t = a[s]; a[s] = a[hi - 1]; a[hi - 1] = t;
    if (s == mid) return;
    if (s < mid) lo = s + 1;
    else hi = s;
  }
}

/* 1 if point i has an M-neighbour stamped st (a row r in {i} + rows holding i whose S_r has
 * one).  Local. */
static int nd_touches(const nd_work *w, int32_t i, int32_t st) {
  const int k = w->k;
  for (int64_t a = w->tp[i] - 1; a < w->tp[i + 1]; a++) {
    int32_t r = a < w->tp[i] ? i : w->ti[a];
    if (w->stamp[r] == st) return 1;
    const int32_t *nr = w->nbr + (int64_t)r * k;
    for (int j = 0; j < k; j++)
      if (w->stamp[nr[j]] == st) return 1;
  }
  return 0;
}

/* Split idx[lo..hi) into [first half without separator | second half | separator]; *n1, *n2
 * the sizes of the two halves left.  Local. */
static void nd_split(nd_work *w, int64_t lo, int64_t hi, int64_t *n1, int64_t *n2) {
  int d = w->dim;
  double bl[K_LLE_ND_MAXD], bh[K_LLE_ND_MAXD], rmax = 0;
  for (int c = 0; c < d; c++) { bl[c] = INFINITY; bh[c] = -INFINITY; }
  for (int64_t p = lo; p < hi; p++) {
    const double *xp = w->x + (int64_t)w->idx[p] * d;
    for (int c = 0; c < d; c++) { if (xp[c] < bl[c]) bl[c] = xp[c]; if (xp[c] > bh[c]) bh[c] = xp[c]; }
    if (w->reach[w->idx[p]] > rmax) rmax = w->reach[w->idx[p]];
  }
  int ax = 0;
  for (int c = 1; c < d; c++) if (bh[c] - bl[c] > bh[ax] - bl[ax]) ax = c;
  int64_t mid = lo + (hi - lo) / 2;
  nd_select(w, lo, hi, mid, ax);
  double xm = w->x[(int64_t)w->idx[mid] * d + ax], band = 2 * rmax;
  int32_t s1 = ++w->next_stamp, s2 = ++w->next_stamp;
  for (int64_t p = lo; p < hi; p++) w->stamp[w->idx[p]] = p < mid ? s1 : s2;
  /* the one-sided boundaries: side 1's points touching side 2 (marked in buf), and back */
  int64_t c1 = 0, c2 = 0;
  int32_t *sep = w->buf;   /* 1: in side 1's boundary, 2: in side 2's (by position - lo) */
  for (int64_t p = lo; p < hi; p++) {
    int32_t i = w->idx[p];
    double xi = w->x[(int64_t)i * d + ax];
    sep[p - lo] = 0;
    if (p < mid && xi >= xm - band && nd_touches(w, i, s2)) { sep[p - lo] = 1; c1++; }
    if (p >= mid && xi <= xm + band && nd_touches(w, i, s1)) { sep[p - lo] = 2; c2++; }
  }
  int side = c1 <= c2 ? 1 : 2;
  /* stable partition: kept side-1 points, kept side-2 points, the separator */
  int32_t *out = w->buf + (hi - lo);
  int64_t q = 0;
  for (int pass = 0; pass < 3; pass++)
    for (int64_t p = lo; p < hi; p++) {
      int in_sep = sep[p - lo] == side;
      int half = p < mid ? 0 : 1;
      if ((pass == 2 && in_sep) || (pass < 2 && !in_sep && half == pass)) out[q++] = w->idx[p];
    }
  memcpy(w->idx + lo, out, (size_t)(hi - lo) * sizeof *out);
  if (hi - lo > 20000) fprintf(stderr, "ND seg %lld axis %d ext %.3g %.3g %.3g sep %lld %lld band %.3g\n", (long long)(hi - lo), ax, bh[0]-bl[0], bh[1]-bl[1], bh[2]-bl[2], (long long)c1, (long long)c2, band);
  *n1 = (mid - lo) - (side == 1 ? c1 : 0);
  *n2 = (hi - mid) - (side == 2 ? c2 : 0);
}

/* The transpose of nbr and every point's reach.  Local. */
static int nd_prepare(nd_work *w) {
  int64_t n = w->n;
  int k = w->k, d = w->dim;
  double *rad = NULL;
  HY_CALLOC(w->tp, n + 1);
  HY_MALLOC(w->ti, n * k);
  HY_MALLOC(rad, n);
  for (int64_t a = 0; a < n * k; a++) w->tp[w->nbr[a] + 1]++;
  for (int64_t i = 0; i < n; i++) w->tp[i + 1] += w->tp[i];
  int32_t *fill = w->buf;
  memcpy(fill, w->tp, (size_t)n * sizeof *fill);
  for (int64_t r = 0; r < n; r++) {
    double rr = 0;
    for (int j = 0; j < k; j++) {
      int32_t c = w->nbr[r * k + j];
      w->ti[fill[c]++] = (int32_t)r;
      double s = 0;
      for (int e = 0; e < d; e++) { double t = w->x[r * d + e] - w->x[(int64_t)c * d + e]; s += t * t; }
      if (s > rr) rr = s;
    }
    rad[r] = sqrt(rr) * (1 + 1e-12);   /* rounding of the distances: a band never too narrow */
  }
  for (int64_t i = 0; i < n; i++) {
    double m = rad[i];
    for (int64_t a = w->tp[i]; a < w->tp[i + 1]; a++) if (rad[w->ti[a]] > m) m = rad[w->ti[a]];
    w->reach[i] = m;
  }
  free(rad);
  return HY_OK;
}

/* perm[new] = old: the nested-dissection order of M = B^T B (see the file comment); leaf:
 * segments of at most this many points are not split (>= 2).  Host.  Local. */
int k_lle_nd_order(const k_lle_points *p, int k, const int32_t *nbr, int leaf, int32_t *perm) {
  if (p->dim < 1 || p->dim > K_LLE_ND_MAXD)
    return hy_err(HY_EUSAGE, "the nested-dissection order takes data of 1..%d dimensions, not %d", K_LLE_ND_MAXD, p->dim);
  if (leaf < 2) leaf = 2;
  int64_t n = p->n;
  nd_work w = { .n = n, .dim = p->dim, .k = k, .x = p->x, .nbr = nbr, .idx = perm };
  HY_MALLOC(w.reach, n);
  HY_MALLOC(w.buf, 2 * n);
  HY_MALLOC(w.stamp, n);
  for (int64_t i = 0; i < n; i++) { perm[i] = (int32_t)i; w.stamp[i] = 0; }
  int rc = nd_prepare(&w);
  /* a child holds at most ceil(half) of its segment: depth <= 32 for n < 2^31, and the stack
   * holds at most one pending segment a level plus the two just pushed */
  int64_t stk[2 * 72], top = 0;
  stk[top++] = 0; stk[top++] = n;
  while (rc == HY_OK && top > 0) {
    int64_t hi = stk[--top], lo = stk[--top];
    if (hi - lo <= leaf) continue;
    int64_t n1, n2;
    nd_split(&w, lo, hi, &n1, &n2);
    stk[top++] = lo; stk[top++] = lo + n1;
    stk[top++] = lo + n1; stk[top++] = lo + n1 + n2;
  }
  free(w.reach); free(w.buf); free(w.stamp); free(w.tp); free(w.ti);
  return rc;
}
