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
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* One trial cut's marks (two sets: the two trials of a split run side by side, each on its
 * own copy of the segment's order; stale marks of other points never equal a fresh stamp). */
typedef struct {
  int32_t *idx;          /* the trial's order of the segment (set 0: the order itself) */
  int32_t *stamp;        /* the segment side a point was last put on */
  int32_t *vmark;        /* = the split's first stamp: the point is in its separator */
  int32_t *rmark;        /* = the split's first stamp: the row was examined */
  double *key;           /* the trial cut's key of each point */
} nd_marks;

/* The order's work arrays. */
typedef struct {
  int64_t n;
  int dim, k;
  const double *x;
  const int32_t *nbr;
  int32_t *idx;          /* the order being built: idx[pos] = point */
  int32_t *tp, *ti;      /* transpose of nbr: rows r with i in nbr(r) are ti[tp[i]..tp[i+1]) */
  double *reach;         /* see the file comment */
  int32_t *stamp;        /* = mk[0].stamp (the leaves' membership marks too) */
  nd_marks mk[2];        /* the two trials' marks, n each; mk[0].idx = idx */
  int32_t *lid;          /* n: a leaf's local index of its own points (nd_leaf_order) */
  int64_t leaf;          /* segments of at most this many points are leaves */
  k_lle_pool *pool;      /* the threads */
  int64_t par_min;       /* splits of at least this many points run their two trials on two
                            threads (the breadth-first phase only) */
} nd_work;

/* One thread's part: its own stamps (unique over all threads: stamps are only compared for
 * equality, with the marks of its segments' points and of the ancestor separators, which no
 * thread writes while the subtrees run) and scratch. */
enum { ND_LEAF_MD = 512, ND_BOUNDARY = 2048, ND_HASH = 4096 };
typedef struct {
  int32_t stamp;         /* the last stamp used */
  int32_t *buf;          /* scratch for the partitions: the largest segment's size */
  uint64_t *bits;        /* a leaf's elimination graph: (ND_LEAF_MD + 1) x ND_BOUNDARY bits */
  int32_t *hk, *hv;      /* a leaf's boundary points (ND_HASH slots, point + 1; 0 free) -> local id */
  int32_t *sep[2];       /* the trials' separator points: the largest segment's size each */
} nd_thr;

/* Partition idx[lo..hi) around its mid-th smallest key (quickselect, ties by point index so
 * the order is a function of the data alone).  Local. */
static void nd_select(int32_t *a, const double *key, int64_t lo, int64_t hi, int64_t mid) {
  while (hi - lo > 1) {
    int64_t m = lo + (hi - lo) / 2;
    int32_t pv = a[m];
    double pvx = key[pv];
    int32_t t = a[m]; a[m] = a[hi - 1]; a[hi - 1] = t;
    int64_t s = lo;
    for (int64_t i = lo; i < hi - 1; i++) {
      double xi = key[a[i]];
      if (xi < pvx || (xi == pvx && a[i] < pv)) { t = a[i]; a[i] = a[s]; a[s] = t; s++; }
    }
    t = a[s]; a[s] = a[hi - 1]; a[hi - 1] = t;
    if (s == mid) return;
    if (s < mid) lo = s + 1;
    else hi = s;
  }
}

/* Row r's clique S_r = {r} + nbr(r) against the split s1 | s2: when it has members on both
 * sides, its smaller part (side 1 on a tie) goes into the separator (vmark = s1: a complete
 * bipartite graph is covered by one whole side, so the union over the crossing rows covers
 * every M-edge across the cut).  Local. */
static void nd_cover_row(const nd_work *w, const nd_marks *m, int32_t *sep, int32_t r, int32_t s1, int32_t s2, int32_t *nsep) {
  const int32_t *nr = w->nbr + (int64_t)r * w->k;
  int c1 = 0, c2 = 0;
  for (int j = -1; j < w->k; j++) {
    int32_t v = j < 0 ? r : nr[j];
    c1 += m->stamp[v] == s1;
    c2 += m->stamp[v] == s2;
  }
  if (!c1 || !c2) return;
  int32_t side = c1 <= c2 ? s1 : s2;
  for (int j = -1; j < w->k; j++) {
    int32_t v = j < 0 ? r : nr[j];
    if (m->stamp[v] == side && m->vmark[v] != s1) { m->vmark[v] = s1; sep[(*nsep)++] = v; }
  }
}

/* One trial cut of m's order of [lo, hi) at the median of m's key: the halves stamped s1 | s2,
 * the separator marked (vmark = s1), listed in sep and counted.  Crossing rows are searched from the points i with
 * |key_i - median| <= band reach_i (a crossing row's members lie within its kNN radius of its
 * point, so for a unit-direction projection band = 2 suffices), or from all (band < 0).  Local. */
static int32_t nd_try(const nd_work *w, const nd_marks *m, int32_t *sep, int64_t lo, int64_t hi, double band,
                      int32_t s1, int32_t s2) {
  int64_t mid = lo + (hi - lo) / 2;
  const double *key = m->key;
  nd_select(m->idx, key, lo, hi, mid);
  double km = key[m->idx[mid]];
  for (int64_t p = lo; p < hi; p++) m->stamp[m->idx[p]] = p < mid ? s1 : s2;
  int32_t nsep = 0;
  for (int64_t p = lo; p < hi; p++) {
    int32_t i = m->idx[p];
    if (band >= 0 && fabs(key[i] - km) > band * w->reach[i]) continue;
    for (int64_t a = w->tp[i] - 1; a < w->tp[i + 1]; a++) {   /* rows i and those holding i */
      int32_t r = a < w->tp[i] ? i : w->ti[a];
      if (m->stamp[r] == s1 || m->stamp[r] == s2) {   /* a row of the segment: once (an */
        if (m->rmark[r] == s1) continue;               /* ancestor's row is only read) */
        m->rmark[r] = s1;
      }
      nd_cover_row(w, m, sep, r, s1, s2, &nsep);
    }
  }
  /* refinement: a separator point with no M-neighbour outside the separator on one side
   * joins the other side (in the order found) */
  int32_t kept = 0;
  for (int32_t a = 0; a < nsep; a++) {
    int32_t v = sep[a];
    int has1 = 0, has2 = 0;
    for (int64_t b = (int64_t)w->tp[v] - 1; b < w->tp[v + 1] && !(has1 && has2); b++) {
      int32_t r = b < w->tp[v] ? v : w->ti[b];
      for (int j = -1; j < w->k; j++) {
        int32_t u = j < 0 ? r : w->nbr[(int64_t)r * w->k + j];
        if (m->vmark[u] == s1) continue;
        has1 |= m->stamp[u] == s1;
        has2 |= m->stamp[u] == s2;
      }
    }
    if (has1 && has2) { sep[kept++] = v; continue; }
    m->vmark[v] = 0;
    if (!has2 && has1) m->stamp[v] = s1;
    else if (!has1 && has2) m->stamp[v] = s2;
  }
  return kept;
}

/* key = the points' projection on the unit vector u (dim entries) over idx[lo..hi).  Local. */
static void nd_project(const nd_work *w, const nd_marks *m, const double *u, int64_t lo, int64_t hi) {
  int d = w->dim;
  for (int64_t p = lo; p < hi; p++) {
    const double *xp = w->x + (int64_t)m->idx[p] * d;
    double s = 0;
    for (int c = 0; c < d; c++) s += u[c] * xp[c];
    m->key[m->idx[p]] = s;
  }
}

/* The principal axis of idx[lo..hi) (power iteration on the covariance, from the widest
 * coordinate ax) into u.  Local. */
static void nd_principal(const nd_work *w, const int32_t *idx, int64_t lo, int64_t hi, int ax, double *u) {
  int d = w->dim;
  double mean[K_LLE_ND_MAXD] = { 0 }, cov[K_LLE_ND_MAXD * K_LLE_ND_MAXD] = { 0 }, t[K_LLE_ND_MAXD];
  for (int64_t p = lo; p < hi; p++)
    for (int c = 0; c < d; c++) mean[c] += w->x[(int64_t)idx[p] * d + c];
  for (int c = 0; c < d; c++) mean[c] /= (double)(hi - lo);
  for (int64_t p = lo; p < hi; p++) {
    const double *xp = w->x + (int64_t)idx[p] * d;
    for (int a = 0; a < d; a++)
      for (int b = 0; b <= a; b++) cov[a * d + b] += (xp[a] - mean[a]) * (xp[b] - mean[b]);
  }
  for (int a = 0; a < d; a++) for (int b = a + 1; b < d; b++) cov[a * d + b] = cov[b * d + a];
  for (int c = 0; c < d; c++) u[c] = c == ax;
  for (int it = 0; it < 30; it++) {
    double nn = 0;
    for (int a = 0; a < d; a++) {
      t[a] = 0;
      for (int b = 0; b < d; b++) t[a] += cov[a * d + b] * u[b];
      nn += t[a] * t[a];
    }
    if (!(nn > 0)) { for (int c = 0; c < d; c++) u[c] = c == ax; return; }
    for (int c = 0; c < d; c++) u[c] = t[c] / sqrt(nn);
  }
}

/* A trial of a split: its marks, separator list, stamps, the widest coordinate. */
typedef struct {
  const nd_work *w;
  const nd_marks *m;
  int32_t *sep;
  int64_t lo, hi;
  int ax, principal;
  int32_t s1, ns;
} nd_trial;

/* The trial's key (the widest coordinate, or the projection on the principal axis) and its
 * cut.  Local. */
static void *nd_trial_run(void *arg) {
  nd_trial *a = arg;
  const nd_work *w = a->w;
  const nd_marks *m = a->m;
  if (!a->principal)
    for (int64_t p = a->lo; p < a->hi; p++) m->key[m->idx[p]] = w->x[(int64_t)m->idx[p] * w->dim + a->ax];
  else {
    double u[K_LLE_ND_MAXD];
    nd_principal(w, m->idx, a->lo, a->hi, a->ax, u);
    nd_project(w, m, u, a->lo, a->hi);
  }
  a->ns = nd_try(w, m, a->sep, a->lo, a->hi, 2.0, a->s1, a->s1 + 1);
  return NULL;
}

/* Split idx[lo..hi) into [first half without the separator | second half without it |
 * separator]; *n1, *n2 the sizes of the halves left; 0 when a side holds the whole segment
 * (no progress: the caller makes it a leaf).  The cut of the smaller separator of two, the
 * widest coordinate's median (ties: this one) and the principal axis's median, each trial on
 * its own marks and copy of the order, on two threads where par and the segment has at least
 * par_min points.  (A third, the median breadth-first level in the kNN graph, cut the Swiss
 * roll's first separator from 1643 to 654 points at N = 200k, as a plane cuts a rolled sheet
 * several times, but the factor's flops only by 7%, for about a third of the order's time:
 * left out.)  Local. */
static int nd_split(nd_work *w, nd_thr *t, int64_t lo, int64_t hi, int par, int64_t *n1, int64_t *n2) {
  int d = w->dim;
  double bl[K_LLE_ND_MAXD], bh[K_LLE_ND_MAXD];
  for (int c = 0; c < d; c++) { bl[c] = INFINITY; bh[c] = -INFINITY; }
  for (int64_t p = lo; p < hi; p++) {
    const double *xp = w->x + (int64_t)w->idx[p] * d;
    for (int c = 0; c < d; c++) { if (xp[c] < bl[c]) bl[c] = xp[c]; if (xp[c] > bh[c]) bh[c] = xp[c]; }
  }
  int ax = 0;
  for (int c = 1; c < d; c++) if (bh[c] - bl[c] > bh[ax] - bl[ax]) ax = c;
  memcpy(w->mk[1].idx + lo, w->idx + lo, (size_t)(hi - lo) * sizeof *w->idx);
  nd_trial tr[2];
  for (int c = 0; c < 2; c++) {
    tr[c] = (nd_trial){ w, &w->mk[c], t->sep[c], lo, hi, ax, c, t->stamp + 1, 0 };
    t->stamp += 2;
  }
  pthread_t th;
  int two = par && hi - lo >= w->par_min && pthread_create(&th, NULL, nd_trial_run, &tr[1]) == 0;
  nd_trial_run(&tr[0]);
  if (two) pthread_join(th, NULL);
  else nd_trial_run(&tr[1]);
  int b = tr[1].ns < tr[0].ns;
  const nd_marks *m = &w->mk[b];
  int32_t s1 = tr[b].s1, nbest = tr[b].ns;
  /* stable partition of the kept cut (stamp s1 | s1 + 1, separator vmark = s1) */
  int32_t *out = t->buf;
  int64_t q = 0, k1 = 0;
  for (int pass = 0; pass < 3; pass++) {
    for (int64_t p = lo; p < hi; p++) {
      int32_t v = m->idx[p];
      int in_sep = m->vmark[v] == s1;
      if ((pass == 2 && in_sep) || (pass < 2 && !in_sep && (m->stamp[v] != s1) == pass)) out[q++] = v;
    }
    if (pass == 0) k1 = q;
  }
  memcpy(w->idx + lo, out, (size_t)(hi - lo) * sizeof *out);
  *n1 = k1;
  *n2 = (hi - lo) - nbest - k1;
  return *n1 < hi - lo && *n2 < hi - lo;
}

/* Bits set in x, and the index of the lowest set bit of x != 0 (portable: no popcnt needed).
 * Local. */
static inline int nd_popcount(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}
static inline int nd_ctz(uint64_t x) { return __builtin_ctzll(x); }

/* The local id of point v in a leaf's boundary table, inserted as *nloc (and counted) when
 * new; -1 when the table is full.  Local. */
static int nd_hash_id(nd_thr *t, int32_t v, int *nloc, int32_t *used, int *nused) {
  uint32_t h = ((uint32_t)v * 2654435761u) & (ND_HASH - 1);
  while (t->hk[h] && t->hk[h] != v + 1) h = (h + 1) & (ND_HASH - 1);
  if (t->hk[h]) return t->hv[h];
  if (*nused >= ND_BOUNDARY) return -1;
  t->hk[h] = v + 1; t->hv[h] = (*nloc)++;
  used[(*nused)++] = (int32_t)h;
  return t->hv[h];
}

/* Minimum-degree order of a leaf idx[lo..hi) in M's graph with its boundary (the points of
 * the ancestor separators adjacent to it, eliminated later): the leaf's points as a bitset
 * elimination graph over leaf + boundary, the point of least current degree eliminated first
 * (ties by position), its neighbours made a clique.  Leaves above ND_LEAF_MD points or with
 * more than ND_BOUNDARY boundary points keep their order.  Local. */
static void nd_leaf_order(nd_work *w, nd_thr *t, int64_t lo, int64_t hi) {
  int L = (int)(hi - lo);
  if (L < 3 || L > ND_LEAF_MD) return;
  int32_t sg = ++t->stamp;   /* the leaf's points: stamp sg, local id lid; boundary: the table */
  int nloc = L, nused = 0, full = 0;
  int32_t *used = t->buf + L;   /* the table's slots in use (cleared at the end) */
  for (int p = 0; p < L; p++) { int32_t v = w->idx[lo + p]; w->stamp[v] = sg; w->lid[v] = p; }
  int nw = (ND_BOUNDARY + L + 63) / 64;
  uint64_t *adj = t->bits, *elim = t->bits + (size_t)L * nw;
  memset(adj, 0, (size_t)(L + 1) * nw * sizeof *adj);
  for (int p = 0; p < L && !full; p++) {
    int32_t i = w->idx[lo + p];
    uint64_t *ap = adj + (size_t)p * nw;
    for (int64_t a = (int64_t)w->tp[i] - 1; a < w->tp[i + 1] && !full; a++) {
      int32_t r = a < w->tp[i] ? i : w->ti[a];
      for (int j = -1; j < w->k; j++) {
        int32_t v = j < 0 ? r : w->nbr[(int64_t)r * w->k + j];
        int l = w->stamp[v] == sg ? w->lid[v] : nd_hash_id(t, v, &nloc, used, &nused);
        if (l < 0) { full = 1; break; }
        ap[l >> 6] |= 1ull << (l & 63);
      }
    }
    ap[p >> 6] &= ~(1ull << (p & 63));
  }
  for (int u = 0; u < nused; u++) t->hk[used[u]] = 0;
  if (full) return;
  nw = (nloc + 63) / 64;   /* rows were laid out at the larger stride: compact the count only */
  int stride = (ND_BOUNDARY + L + 63) / 64;
  int32_t *out = t->buf, *deg = t->buf + L;   /* (the table's slot list is done with) */
  for (int p = 0; p < L; p++) {
    const uint64_t *ap = adj + (size_t)p * stride;
    int dg = 0;
    for (int q = 0; q < nw; q++) dg += nd_popcount(ap[q]);
    deg[p] = dg;
  }
  for (int step = 0; step < L; step++) {
    int best = -1, bdeg = INT32_MAX;
    for (int p = 0; p < L; p++)
      if (deg[p] < bdeg && !(elim[p >> 6] >> (p & 63) & 1)) { bdeg = deg[p]; best = p; }
    uint64_t *bp = adj + (size_t)best * stride;
    elim[best >> 6] |= 1ull << (best & 63);
    for (int q = 0; q < nw; q++) bp[q] &= ~elim[q];
    for (int q = 0; q < (L + 63) / 64; q++)   /* the leaf neighbours: a clique, their degrees anew */
      for (uint64_t m = bp[q]; m; m &= m - 1) {
        int u = q * 64 + nd_ctz(m);
        if (u >= L) break;
        uint64_t *au = adj + (size_t)u * stride;
        int dg = 0;
        au[u >> 6] |= 1ull << (u & 63);   /* (u's own bit is in bp; cleared below) */
        for (int e = 0; e < nw; e++) { au[e] = (au[e] | bp[e]) & ~elim[e]; }
        au[u >> 6] &= ~(1ull << (u & 63));
        for (int e = 0; e < nw; e++) dg += nd_popcount(au[e]);
        deg[u] = dg;
      }
    out[step] = w->idx[lo + best];
  }
  memcpy(w->idx + lo, out, (size_t)L * sizeof *out);
}

/* Wall seconds (CLOCK_MONOTONIC).  Local. */
static double nd_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Below this many points the Morton sort's loops (the bounding box, the keys, the radix
 * passes) run on the caller's thread: their work (well under a millisecond at N = 20k) was less
 * than the pool's wake-ups in the first loops of the order (this 2-core host: the box and the
 * keys of 20k points 0.8-4.2 ms on 2 threads; the H200 host, 8 threads: the Morton sort
 * 0.003-0.046 s, 0.001-0.002 serial).  The heavier loops after it (the transposes, the
 * reach: 0.005-0.007 s serial against 0.001 on 8 threads there) stay on the threads.  Local. */
enum { ND_SERIAL_N = 65536 };

/* fn(arg, i0, i1) over [0, n) in nt contiguous ranges on the pool's threads (ranges write
 * disjoint memory; below 4096 items one range).  Local. */
static void nd_for(k_lle_pool *pool, int nt, int64_t n, void (*fn)(void *, int64_t, int64_t), void *arg) {
  if (nt > 16) nt = 16;
  if (nt < 1 || n < 4096) nt = 1;
  k_lle_pool_for(pool, nt, n, fn, arg);
}

/* nd_prepare's job: the work arrays and the rows' kNN radii. */
typedef struct {
  nd_work *w;
  double *rad;
  int32_t *fill;   /* the transpose's next slot of each list */
} nd_prep;

/* Rows [r0, r1): their kNN radius (the largest neighbour distance).  Local. */
static void nd_rad_part(void *arg, int64_t r0, int64_t r1) {
  nd_prep *a = arg;
  const nd_work *w = a->w;
  int k = w->k, d = w->dim;
  for (int64_t r = r0; r < r1; r++) {
    double rr = 0;
    for (int j = 0; j < k; j++) {
      int32_t c = w->nbr[r * k + j];
      double s = 0;
      for (int e = 0; e < d; e++) { double t = w->x[r * d + e] - w->x[(int64_t)c * d + e]; s += t * t; }
      if (s > rr) rr = s;
    }
    a->rad[r] = sqrt(rr) * (1 + 1e-12);   /* rounding of the distances: a band never too narrow */
  }
}

/* Points [i0, i1): their reach (the largest radius of a row holding them).  Local. */
static void nd_reach_part(void *arg, int64_t i0, int64_t i1) {
  nd_prep *a = arg;
  nd_work *w = a->w;
  for (int64_t i = i0; i < i1; i++) {
    double m = a->rad[i];
    for (int64_t q = w->tp[i]; q < w->tp[i + 1]; q++) if (a->rad[w->ti[q]] > m) m = a->rad[w->ti[q]];
    w->reach[i] = m;
  }
}

/* Rows [r0, r1): their entries counted into tp[i + 1] (atomic: rows on threads).  Local. */
static void nd_tcount_part(void *arg, int64_t r0, int64_t r1) {
  nd_prep *a = arg;
  nd_work *w = a->w;
  for (int64_t q = r0 * w->k; q < r1 * w->k; q++) __atomic_fetch_add(&w->tp[w->nbr[q] + 1], 1, __ATOMIC_RELAXED);
}

/* Rows [r0, r1): each row r put into the lists of its neighbours (a slot by an atomic
 * counter: the lists' order depends on the threads, nd_tsort_part sorts them).  Local. */
static void nd_tfill_part(void *arg, int64_t r0, int64_t r1) {
  nd_prep *a = arg;
  nd_work *w = a->w;
  for (int64_t r = r0; r < r1; r++)
    for (int j = 0; j < w->k; j++) w->ti[__atomic_fetch_add(&a->fill[w->nbr[r * w->k + j]], 1, __ATOMIC_RELAXED)] = (int32_t)r;
}

/* Points [i0, i1): their lists of rows ascending (insertion sort: short lists, nearly sorted),
 * the serial fill's result at any thread count.  Local. */
static void nd_tsort_part(void *arg, int64_t i0, int64_t i1) {
  nd_prep *a = arg;
  nd_work *w = a->w;
  for (int64_t i = i0; i < i1; i++)
    for (int64_t q = w->tp[i] + 1; q < w->tp[i + 1]; q++) {
      int32_t v = w->ti[q];
      int64_t b = q - 1;
      while (b >= w->tp[i] && w->ti[b] > v) { w->ti[b + 1] = w->ti[b]; b--; }
      w->ti[b + 1] = v;
    }
}

/* The transpose of nbr (counted, filled and sorted on nt threads: the lists ascending as a
 * serial fill makes them) and every point's reach (the radii and reaches on nt threads).  Local. */
static int nd_prepare(nd_work *w, int nt) {
  int64_t n = w->n;
  int k = w->k;
  double *rad = NULL;
  HY_CALLOC(w->tp, n + 1);
  HY_MALLOC(w->ti, n * k);
  HY_MALLOC(rad, n);
  int32_t *fill = NULL;
  HY_MALLOC(fill, n);
  nd_prep a = { w, rad, fill };
  nd_for(w->pool, nt, n, nd_tcount_part, &a);
  for (int64_t i = 0; i < n; i++) w->tp[i + 1] += w->tp[i];
  memcpy(fill, w->tp, (size_t)n * sizeof *fill);
  nd_for(w->pool, nt, n, nd_tfill_part, &a);
  nd_for(w->pool, nt, n, nd_tsort_part, &a);
  nd_for(w->pool, nt, n, nd_rad_part, &a);
  nd_for(w->pool, nt, n, nd_reach_part, &a);
  free(rad);
  free(fill);
  return HY_OK;
}

/* A thread's scratch for segments of at most maxseg points, its stamps from base.  Local. */
static void nd_thr_init(nd_thr *t, int64_t maxseg, int32_t base) {
  t->stamp = base;
  int64_t nb = maxseg > ND_LEAF_MD + ND_BOUNDARY ? maxseg : ND_LEAF_MD + ND_BOUNDARY;
  HY_MALLOC(t->buf, nb);
  HY_MALLOC(t->sep[0], nb);
  HY_MALLOC(t->sep[1], nb);
  HY_MALLOC(t->bits, (size_t)(ND_LEAF_MD + 1) * ((ND_BOUNDARY + ND_LEAF_MD + 63) / 64));
  HY_CALLOC(t->hk, ND_HASH);
  HY_MALLOC(t->hv, ND_HASH);
}

/* Free a thread's scratch.  Local. */
static void nd_thr_free(nd_thr *t) {
  free(t->buf); free(t->sep[0]); free(t->sep[1]); free(t->bits); free(t->hk); free(t->hv);
}

/* The whole subtree of the segment [lo, hi): split depth-first down to the leaves, each
 * ordered.  Local. */
static void nd_subtree(nd_work *w, nd_thr *t, int64_t lo, int64_t hi) {
  /* each child is smaller than its segment (a split that leaves one side empty makes a leaf),
   * so at most hi - lo segments are pending */
  int64_t *stk = NULL, top = 0;
  HY_MALLOC(stk, 2 * (hi - lo) + 2);
  stk[top++] = lo; stk[top++] = hi;
  while (top > 0) {
    hi = stk[--top]; lo = stk[--top];
    if (hi - lo <= w->leaf) { nd_leaf_order(w, t, lo, hi); continue; }
    int64_t n1, n2;
    if (!nd_split(w, t, lo, hi, 0, &n1, &n2)) { nd_leaf_order(w, t, lo, hi); continue; }
    stk[top++] = lo; stk[top++] = lo + n1;
    stk[top++] = lo + n1; stk[top++] = lo + n1 + n2;
  }
  free(stk);
}

/* The subtrees' job: the segments (lo, hi pairs), the next one to take. */
typedef struct {
  nd_work *w;
  const int64_t *seg;
  int nseg;
  int64_t maxseg;
  atomic_int next;
} nd_par;

/* nd_par_all's job on thread tid of nt: segments from the shared counter (in list order), each
 * subtree with the thread's own stamps (from 2^30 + tid 2^25: unique over the threads; a split
 * depends on its segment alone, so which thread takes it does not change the order) and
 * scratch.  Local. */
static void nd_par_job(void *arg, int tid, int nt) {
  nd_par *a = arg;
  (void)nt;
  nd_thr t;
  nd_thr_init(&t, a->maxseg, (int32_t)(((int64_t)1 << 30) + ((int64_t)tid << 25)));
  for (int c; (c = atomic_fetch_add(&a->next, 1)) < a->nseg;) nd_subtree(a->w, &t, a->seg[2 * c], a->seg[2 * c + 1]);
  nd_thr_free(&t);
}

/* The subtrees of the nseg segments over nt threads of the pool, taken one by one from a
 * shared counter (contiguous ranges left threads idle where the subtrees' costs differ).  Local. */
static void nd_par_all(nd_work *w, const int64_t *seg, int nseg, int nt) {
  int64_t maxseg = 0;
  for (int c = 0; c < nseg; c++) if (seg[2 * c + 1] - seg[2 * c] > maxseg) maxseg = seg[2 * c + 1] - seg[2 * c];
  if (nt > k_lle_pool_size(w->pool)) nt = k_lle_pool_size(w->pool);
  nd_par a = { .w = w, .seg = seg, .nseg = nseg, .maxseg = maxseg };
  atomic_init(&a.next, 0);
  k_lle_pool_run(w->pool, nt, nd_par_job, &a);
}

/* One level's splits: segments [c0, c1) of the list, a thread's stamps from *stamp (kept for
 * its next level). */
typedef struct {
  nd_work *w;
  const int64_t *seg;
  int64_t *res;        /* per segment: n1, n2, and 1 split / 0 ordered as a leaf / 2 a leaf */
  int c0, c1, par;
  int32_t *stamp;
} nd_lvl;

/* A thread's splits of one level (each split's two trials side by side where par).  Local. */
static void nd_lvl_run(nd_lvl *a) {
  int64_t maxseg = 0;
  for (int c = a->c0; c < a->c1; c++) if (a->seg[2 * c + 1] - a->seg[2 * c] > maxseg) maxseg = a->seg[2 * c + 1] - a->seg[2 * c];
  nd_thr t;
  nd_thr_init(&t, maxseg, *a->stamp);
  for (int c = a->c0; c < a->c1; c++) {
    int64_t lo = a->seg[2 * c], hi = a->seg[2 * c + 1], *r = a->res + 3 * c;
    r[0] = r[1] = 0;
    if (hi - lo <= a->w->leaf) { r[2] = 2; continue; }
    r[2] = nd_split(a->w, &t, lo, hi, a->par, &r[0], &r[1]);
    if (!r[2]) nd_leaf_order(a->w, &t, lo, hi);
  }
  *a->stamp = t.stamp;
  nd_thr_free(&t);
}

/* nd_level's job on thread tid of nt: its contiguous range of the level's segments, with the
 * stamps lstamp[tid].  Local. */
static void nd_lvl_job(void *arg, int tid, int nt) {
  nd_lvl a = *(const nd_lvl *)arg;
  int nseg = a.c1;   /* the level's count here */
  a.c0 = nseg * tid / nt;
  a.c1 = nseg * (tid + 1) / nt;
  a.stamp += tid;
  nd_lvl_run(&a);
}

/* The splits of one level's nseg segments on up to nt threads of the pool (contiguous ranges,
 * thread t with the stamps lstamp[t]); the results do not depend on the split over threads.
 * Local. */
static void nd_level(nd_work *w, const int64_t *seg, int nseg, int nt, int32_t *lstamp, int64_t *res) {
  int nth = nseg < nt ? nseg : nt;
  if (nth > k_lle_pool_size(w->pool)) nth = k_lle_pool_size(w->pool);
  nd_lvl a = { w, seg, res, 0, nseg, 2 * nseg <= nt, lstamp };
  k_lle_pool_run(w->pool, nth, nd_lvl_job, &a);
}

/* The order of the points as given (see k_lle_nd_order).  Local. */
static int nd_order(const k_lle_points *p, int k, const int32_t *nbr, int leaf, int threads, k_lle_pool *pool,
                    int32_t *perm, double *tm, int64_t **segs, int *nsegs) {
  int64_t n = p->n;
  nd_work w = { .n = n, .dim = p->dim, .k = k, .x = p->x, .nbr = nbr, .idx = perm, .leaf = leaf < 2 ? 2 : leaf,
                .pool = pool };
  HY_MALLOC(w.reach, n);
  HY_MALLOC(w.lid, n);
  w.par_min = 16384;
  for (int c = 0; c < 2; c++) {
    nd_marks *m = &w.mk[c];
    if (c) HY_MALLOC(m->idx, n);
    else m->idx = perm;
    HY_CALLOC(m->stamp, n); HY_CALLOC(m->vmark, n); HY_CALLOC(m->rmark, n); HY_MALLOC(m->key, n);
  }
  w.stamp = w.mk[0].stamp;
  for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)i;
  tm[7] = nd_now();
  int rc = nd_prepare(&w, threads);
  tm[1] = nd_now();
  tm[8] = tm[9] = tm[1];
  int nt = threads < 1 ? 1 : threads > 16 ? 16 : threads;
  /* breadth-first: the list of segments, split level by level (a level's splits on threads)
   * until 4 nt of them or none splittable */
  int cap = 64 * 8, nseg = 1;
  int64_t *seg = NULL, *nxt = NULL, *res = NULL;
  HY_MALLOC(seg, 2 * cap); HY_MALLOC(nxt, 2 * cap); HY_MALLOC(res, 3 * cap);
  seg[0] = 0; seg[1] = n;
  nd_thr t0;
  nd_thr_init(&t0, n, 0);
  int32_t lstamp[16];
  for (int t = 0; t < 16; t++) lstamp[t] = (int32_t)(((int64_t)1 << 30) + ((int64_t)(16 + t) << 25));
  for (int lev = 0; nt > 1 && nseg < 4 * nt && 2 * nseg <= cap; lev++) {
    nd_level(&w, seg, nseg, nt, lstamp, res);
    if (lev < 2) tm[8 + lev] = nd_now();
    int m = 0, split = 0;
    for (int c = 0; c < nseg; c++) {
      int64_t lo = seg[2 * c], n1 = res[3 * c], n2 = res[3 * c + 1];
      if (res[3 * c + 2] == 2) { nxt[m++] = lo; nxt[m++] = seg[2 * c + 1]; continue; }   /* a leaf */
      if (!res[3 * c + 2]) continue;   /* ordered as a leaf */
      nxt[m++] = lo; nxt[m++] = lo + n1; nxt[m++] = lo + n1; nxt[m++] = lo + n1 + n2;
      split = 1;
    }
    int64_t *sw = seg; seg = nxt; nxt = sw;
    nseg = m / 2;
    if (!split) break;
  }
  free(res);
  tm[2] = nd_now();
  if (tm[9] < tm[8]) tm[9] = tm[8];   /* (one level, or none: the second 0) */
  if (segs && nt > 1 && nseg > 1) {   /* the subtrees' segments for the caller (k_lle_nd_order_segs) */
    HY_MALLOC(*segs, 2 * (size_t)nseg);
    memcpy(*segs, seg, 2 * (size_t)nseg * sizeof **segs);
    *nsegs = nseg;
  }
  if (nt > 1 && nseg > 1) {
    nd_par_all(&w, seg, nseg, nt);
  } else
    nd_subtree(&w, &t0, 0, n);
  tm[3] = nd_now();
  nd_thr_free(&t0);
  free(seg); free(nxt);
  for (int c = 0; c < 2; c++) {
    if (c) free(w.mk[c].idx);
    free(w.mk[c].stamp); free(w.mk[c].vmark); free(w.mk[c].rmark); free(w.mk[c].key);
  }
  free(w.reach); free(w.lid); free(w.tp); free(w.ti);
  return rc;
}

/* The low 21 bits of x spread to every third bit (bit q to bit 3q).  Local. */
static uint64_t nd_spread3(uint64_t x) {
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffull;
  x = (x | x << 16) & 0x1f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}

/* Interleave the low 21 bits of a, b, c (a Morton code: bit q of a, b, c to bits 3q + 2,
 * 3q + 1, 3q; the same keys as the bit-by-bit loop it replaces, checked on 2e7 random triples).
 * Local. */
static uint64_t nd_morton3(uint64_t a, uint64_t b, uint64_t c) {
  return nd_spread3(a) << 2 | nd_spread3(b) << 1 | nd_spread3(c);
}

/* nd_spatial's Morton keys: the points, the grid, the keys and the identity order. */
typedef struct {
  const k_lle_points *p;
  const double *lo, *sc;
  int dm;
  uint64_t *key;
  int32_t *so;
} nd_key_job;

/* Points [i0, i1): their Morton keys.  Local. */
static void nd_key_part(void *arg, int64_t i0, int64_t i1) {
  const nd_key_job *j = arg;
  int d = j->p->dim;
  for (int64_t i = i0; i < i1; i++) {
    uint64_t q[3] = { 0, 0, 0 };
    for (int c = 0; c < j->dm; c++) q[c] = (uint64_t)((j->p->x[i * d + c] - j->lo[c]) * j->sc[c]);
    j->key[i] = nd_morton3(q[0], q[1], q[2]);
    j->so[i] = (int32_t)i;
  }
}

/* One pass of nd_spatial's radix sort: bits bits of the keys from bit sh. */
typedef struct {
  k_lle_pool *pool;
  int64_t n;
  int sh, bits;
  const uint64_t *key;
  const int32_t *so;
  uint64_t *k2;
  int32_t *s2;
  int64_t *cnt;   /* 2^bits counts a thread */
} nd_radix_job;

/* nd_spatial's radix digits: 16 bits (4 passes) from this many points, else 8 (8 passes: at
 * N = 20k the 16-bit passes' 65536 counts a thread and their serial prefix were most of the
 * Morton sort's 0.003-0.046 s on the H200 host).  The order is the same either way (a stable
 * sort of the same keys).  Local. */
enum { ND_RADIX16_N = 500000 };

/* The pass on thread tid of nt: its contiguous chunk counted, a barrier, thread 0's prefix
 * over (bucket, thread), a barrier, the chunk scattered in order: stable, the serial sort's
 * result at any thread count.  Local. */
static void nd_radix_run(void *arg, int tid, int nt) {
  nd_radix_job *j = arg;
  int64_t i0 = j->n * tid / nt, i1 = j->n * (tid + 1) / nt;
  size_t nb = (size_t)1 << j->bits;
  uint64_t mask = nb - 1;
  int64_t *c = j->cnt + tid * nb;
  memset(c, 0, nb * sizeof *c);
  for (int64_t i = i0; i < i1; i++) c[j->key[i] >> j->sh & mask]++;
  k_lle_pool_barrier(j->pool, nt);
  if (tid == 0) {
    int64_t sum = 0;
    for (size_t b = 0; b < nb; b++)
      for (int t = 0; t < nt; t++) { int64_t v = j->cnt[t * nb + b]; j->cnt[t * nb + b] = sum; sum += v; }
  }
  k_lle_pool_barrier(j->pool, nt);
  for (int64_t i = i0; i < i1; i++) {
    int64_t at = c[j->key[i] >> j->sh & mask]++;
    j->k2[at] = j->key[i];
    j->s2[at] = j->so[i];
  }
}

/* nd_spatial's bounding box: per thread the least and largest of each of the first dm
 * coordinates over its contiguous range. */
typedef struct {
  const k_lle_points *p;
  int dm;
  double lo[16][3], hi[16][3];
} nd_box_job;

/* Thread tid's range of the points into its box.  Local. */
static void nd_box_run(void *arg, int tid, int nt) {
  nd_box_job *j = arg;
  int64_t n = j->p->n, i0 = n * tid / nt, i1 = n * (tid + 1) / nt;
  int d = j->p->dim;
  for (int c = 0; c < j->dm; c++) {
    double a = INFINITY, b = -INFINITY;
    for (int64_t i = i0; i < i1; i++) { double v = j->p->x[i * d + c]; if (v < a) a = v; if (v > b) b = v; }
    j->lo[tid][c] = a; j->hi[tid][c] = b;
  }
}

/* The points in Morton order of their first (up to 3) coordinates on a 2^21 grid over the
 * bounding box (an LSD radix sort, stable: ties by index; its passes on nt threads):
 * so[new] = old.  Local. */
static void nd_spatial(const k_lle_points *p, k_lle_pool *pool, int nt, int32_t *so) {
  int64_t n = p->n;
  int d = p->dim, dm = d < 3 ? d : 3;
  double lo[3] = { 0, 0, 0 }, sc[3] = { 0, 0, 0 };
  nd_box_job bj;
  memset(&bj, 0, sizeof bj);
  bj.p = p; bj.dm = dm;
  int bt = nt < 1 || n < ND_SERIAL_N ? 1 : nt > 16 ? 16 : nt;
  for (int t = 0; t < 16; t++)
    for (int c = 0; c < 3; c++) { bj.lo[t][c] = INFINITY; bj.hi[t][c] = -INFINITY; }
  k_lle_pool_run(pool, bt, nd_box_run, &bj);
  for (int c = 0; c < dm; c++) {   /* min / max: exact whatever the split */
    double a = INFINITY, b = -INFINITY;
    for (int t = 0; t < 16; t++) { if (bj.lo[t][c] < a) a = bj.lo[t][c]; if (bj.hi[t][c] > b) b = bj.hi[t][c]; }
    lo[c] = a;
    sc[c] = b > a ? 2097151.0 / (b - a) : 0;
  }
  uint64_t *key = NULL, *k2 = NULL;
  int32_t *s2 = NULL;
  HY_MALLOC(key, n); HY_MALLOC(k2, n); HY_MALLOC(s2, n);
  nd_key_job kj = { p, lo, sc, dm, key, so };
  nd_for(pool, n < ND_SERIAL_N ? 1 : nt, n, nd_key_part, &kj);
  int rt = nt < 1 || n < ND_SERIAL_N ? 1 : nt > 16 ? 16 : nt;
  if (rt > k_lle_pool_size(pool)) rt = k_lle_pool_size(pool);
  int bits = n >= ND_RADIX16_N ? 16 : 8;
  nd_radix_job rj = { pool, n, 0, bits, NULL, so, NULL, s2, NULL };
  HY_MALLOC(rj.cnt, ((size_t)rt << bits));
  int32_t *sa = so, *sb = s2;   /* the order alternates between so and s2: an even count of passes ends in so */
  for (int pass = 0; pass < 64 / bits; pass++) {
    rj.sh = bits * pass;
    rj.key = key; rj.k2 = k2;
    rj.so = sa; rj.s2 = sb;
    k_lle_pool_run(pool, rt, nd_radix_run, &rj);
    uint64_t *tk = key; key = k2; k2 = tk;
    int32_t *ts = sa; sa = sb; sb = ts;
  }
  free(key); free(k2); free(s2); free(rj.cnt);
}

/* The renumbering in the Morton order: the points, the lists, the order and its inverse, the
 * renumbered copies. */
typedef struct {
  const k_lle_points *p;
  int k;
  const int32_t *nbr, *so;
  int32_t *inv;
  double *xs;
  int32_t *nb;
  const int32_t *ps;   /* the order of the renumbered points (nd_perm_part) */
  int32_t *perm;
} nd_renum_job;

/* [i0, i1): inv[so[i]] = i (so a permutation: disjoint writes).  Local. */
static void nd_inv_part(void *arg, int64_t i0, int64_t i1) {
  const nd_renum_job *j = arg;
  for (int64_t i = i0; i < i1; i++) j->inv[j->so[i]] = (int32_t)i;
}

/* [i0, i1): the order in the caller's numbering, perm[i] = so[ps[i]].  Local. */
static void nd_perm_part(void *arg, int64_t i0, int64_t i1) {
  const nd_renum_job *j = arg;
  for (int64_t i = i0; i < i1; i++) j->perm[i] = j->so[j->ps[i]];
}

/* New points [i0, i1): their coordinates and renumbered neighbour lists.  Local. */
static void nd_renum_part(void *arg, int64_t i0, int64_t i1) {
  const nd_renum_job *j = arg;
  int d = j->p->dim, k = j->k;
  for (int64_t i = i0; i < i1; i++) {
    memcpy(j->xs + i * d, j->p->x + (int64_t)j->so[i] * d, (size_t)d * sizeof *j->xs);
    for (int q = 0; q < k; q++) j->nb[i * k + q] = j->inv[j->nbr[(int64_t)j->so[i] * k + q]];
  }
}

/* perm[new] = old: the nested-dissection order of M = B^T B (see the file comment); leaf:
 * segments of at most this many points are not split (>= 2); the splits breadth-first on
 * this thread until there are 4 segments a thread, then their subtrees on threads threads
 * (the order does not depend on the count: each split depends on its segment alone).  The
 * points are first renumbered in a Morton order of their coordinates, so that a segment's
 * points, neighbour lists and marks lie close in memory (N = 1M: the order's random accesses
 * were most of its time).  Host.  Local. */
int k_lle_nd_order_segs(const k_lle_points *p, int k, const int32_t *nbr, int leaf, int threads, k_lle_pool *pool,
                        int32_t *perm, double *parts, int64_t **segs, int *nseg) {
  if (segs) { *segs = NULL; *nseg = 0; }
  if (p->dim < 1 || p->dim > K_LLE_ND_MAXD)
    return hy_err(HY_EUSAGE, "the nested-dissection order takes data of 1..%d dimensions, not %d", K_LLE_ND_MAXD, p->dim);
  int64_t n = p->n;
  int d = p->dim;
  int32_t *so = NULL, *inv = NULL, *nb = NULL, *ps = NULL;
  double *xs = NULL;
  double tm[10];
  tm[0] = nd_now();
  HY_MALLOC(so, n); HY_MALLOC(inv, n); HY_MALLOC(nb, n * k); HY_MALLOC(xs, n * d); HY_MALLOC(ps, n);
  k_lle_pool *own = NULL;
  if (!pool && threads > 1) pool = own = k_lle_pool_new(threads > 16 ? 16 : threads);
  nd_spatial(p, pool, threads, so);
  tm[5] = nd_now();
  nd_renum_job rj = { p, k, nbr, so, inv, xs, nb, NULL, NULL };
  nd_for(pool, threads, n, nd_inv_part, &rj);
  nd_for(pool, threads, n, nd_renum_part, &rj);
  tm[6] = nd_now();
  k_lle_points ps_pts = { .n = n, .dim = d, .x = xs };
  int rc = nd_order(&ps_pts, k, nb, leaf, threads, pool, ps, tm, segs, nseg);
  k_lle_pool_free(own);
  rj.ps = ps; rj.perm = perm;
  if (rc == HY_OK) nd_for(pool, threads, n, nd_perm_part, &rj);
  free(so); free(inv); free(nb); free(xs); free(ps);
  tm[4] = nd_now();
  if (parts) {   /* renumbering and preparation, the breadth-first levels, the subtrees, the rest; then
                    the first's parts (Morton sort, renumbered copies, work arrays, transpose and
                    reach) and the first two levels */
    parts[0] = tm[1] - tm[0]; parts[1] = tm[2] - tm[1]; parts[2] = tm[3] - tm[2]; parts[3] = tm[4] - tm[3];
    parts[4] = tm[5] - tm[0]; parts[5] = tm[6] - tm[5]; parts[6] = tm[7] - tm[6]; parts[7] = tm[1] - tm[7];
    parts[8] = tm[8] - tm[1]; parts[9] = tm[9] - tm[8];
  }
  return rc;
}

/* k_lle_nd_order without the segments.  Host.  Local. */
int k_lle_nd_order(const k_lle_points *p, int k, const int32_t *nbr, int leaf, int threads, k_lle_pool *pool,
                   int32_t *perm, double *parts) {
  return k_lle_nd_order_segs(p, k, nbr, leaf, threads, pool, perm, parts, NULL, NULL);
}
