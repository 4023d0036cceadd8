/* lle_eig_cnd_super.c - chol-nd's supernodal symbolic factor on the rank's threads
 * (lle.cnd_symbolic = tree): what cholmod_l_super_symbolic2 computes for the Cholesky of
 * S2 S2' (unsymmetric mode, F2 = S2'), the same fields bit for bit, with its serial row
 * subtree traversal replaced by a bottom-up pass over the supernodal elimination tree whose
 * subtrees run on the pool's threads.
 *
 * As CHOLMOD: the fundamental supernodes from the postordered Parent and ColCount (j joins
 * j - 1's supernode where Parent[j - 1] = j, ColCount[j - 1] = ColCount[j] + 1 and j has one
 * child), CHOLMOD's relaxed amalgamation (Common->nrelax / zrelax, the same loop, serial:
 * O(n)), the relaxed supernodes' Snz, pi, px and sizes, then each supernode's rows (its
 * columns, then the rows below them, ascending: the order CHOLMOD's traversal writes them,
 * row k appended to every supernode on the paths it climbs, k ascending).  Here supernode s's
 * rows below its columns k1..k2-1 are pulled instead: R(s) = { k >= k2 : M(j, k) != 0 for a
 * column j of s } u { k >= k2 : k in R(c), c a child of s }, which by induction is
 * { k >= k2 : M(i, k) != 0, i in s's subtree }, the set CHOLMOD's traversal gives s (k's
 * supernode is a proper ancestor of s exactly then: the etree's ancestors of a column lie in
 * the relaxed supernodal tree's ancestors of its supernode).  M(j, k) != 0 for k >= k2: the
 * columns c of S2 with row j (F2's column j), their rows >= k2 (S2's columns are sorted).
 * Each supernode reads only its children's finished lists and writes its own (pi known in
 * advance), so the subtrees below a cut (subtree weight <= 1 / (8 threads) of the total) run
 * on the threads from a shared counter and the supernodes above it after them in waves by
 * height (a supernode once its children are done), each wave on the threads;
 * every list is sorted, so the result does not depend on the threads.  A list whose length
 * is not CHOLMOD's Snz (a bug) fails the call.  maxcsize / maxesize as CHOLMOD, by ranges
 * on the threads.  Local. */
#include "lle_eig_cnd.h"
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>

/* The row pass's job. */
typedef struct {
  int64_t n, nsuper;
  const SuiteSparse_long *ap, *s2i, *f2p, *f2i;   /* S2 (A's pointers, rows renumbered) and F2 = S2' */
  const SuiteSparse_long *super, *lpi, *supermap;
  const SuiteSparse_long *kidp, *kids;   /* the supernodal tree's children (CSR, ascending) */
  const SuiteSparse_long *fd;            /* each supernode's first descendant */
  const SuiteSparse_long *roots;         /* the subtrees' roots below the cut (single: a wave's supernodes) */
  int64_t nroots;
  int single;                            /* 1: each root alone (a wave of the top), 0: its whole subtree */
  SuiteSparse_long *ls;
  int32_t **flag;                        /* a mark array per thread (n each, lazily zeroed) */
  int64_t next;                          /* the next root (shared counter) */
  int bad;                               /* a list of the wrong length */
  SuiteSparse_long *csize, *esize;       /* maxcsize / maxesize per range */
} sup_job;

/* Sort a[0..m) ascending: insertion sort for short lists, else a heap sort (no recursion,
 * no allocation).  Local. */
static void sup_sort(SuiteSparse_long *a, int64_t m) {
  if (m <= 32) {
    for (int64_t q = 1; q < m; q++) {
      SuiteSparse_long v = a[q];
      int64_t t = q - 1;
      while (t >= 0 && a[t] > v) { a[t + 1] = a[t]; t--; }
      a[t + 1] = v;
    }
    return;
  }
  for (int64_t end = m, start = m / 2; end > 1;) {
    int64_t r;
    if (start > 0) r = --start;
    else { SuiteSparse_long t = a[--end]; a[end] = a[0]; a[0] = t; r = 0; }
    SuiteSparse_long v = a[r];
    for (int64_t c; (c = 2 * r + 1) < end; r = c) {
      if (c + 1 < end && a[c + 1] > a[c]) c++;
      if (a[c] <= v) break;
      a[r] = a[c];
    }
    a[r] = v;
  }
}

/* Supernode s's rows into ls[lpi[s] ..): its columns, then R(s) sorted (the file comment);
 * flag: the thread's marks.  0, or 1 where the count is not lpi's.  Local. */
static int sup_rows(const sup_job *j, int64_t s, int32_t *flag) {
  SuiteSparse_long k1 = j->super[s], k2 = j->super[s + 1];
  SuiteSparse_long *out = j->ls + j->lpi[s];
  int64_t cap = j->lpi[s + 1] - j->lpi[s], m = 0;
  int32_t mk = (int32_t)(s + 1);
  for (SuiteSparse_long k = k1; k < k2; k++) out[m++] = k;
  for (SuiteSparse_long q = j->kidp[s]; q < j->kidp[s + 1]; q++) {   /* the children's rows below s's columns */
    SuiteSparse_long c = j->kids[q];
    const SuiteSparse_long *cl = j->ls + j->lpi[c];
    for (int64_t p = (j->super[c + 1] - j->super[c]); p < j->lpi[c + 1] - j->lpi[c]; p++) {
      SuiteSparse_long k = cl[p];
      if (k < k2 || flag[k] == mk) continue;
      if (m == cap) return 1;
      flag[k] = mk; out[m++] = k;
    }
  }
  for (SuiteSparse_long jc = k1; jc < k2; jc++)   /* M(jc, k) != 0, k >= k2 */
    for (SuiteSparse_long q = j->f2p[jc]; q < j->f2p[jc + 1]; q++) {
      SuiteSparse_long c = j->f2i[q];
      for (SuiteSparse_long p = j->ap[c + 1] - 1; p >= j->ap[c]; p--) {
        SuiteSparse_long k = j->s2i[p];
        if (k < k2) break;
        if (flag[k] == mk) continue;
        if (m == cap) return 1;
        flag[k] = mk; out[m++] = k;
      }
    }
  if (m != cap) return 1;
  sup_sort(out + (k2 - k1), m - (k2 - k1));
  return 0;
}

/* The subtrees below the cut, taken from the shared counter.  Local. */
static void sup_subtrees(void *arg, int tid, int nt) {
  sup_job *j = arg;
  (void)nt;
  if (!j->flag[tid] && !(j->flag[tid] = calloc((size_t)j->n, sizeof(int32_t)))) {
    __atomic_store_n(&j->bad, 2, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t r; (r = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->nroots;) {
    SuiteSparse_long root = j->roots[r];
    for (SuiteSparse_long s = j->single ? root : j->fd[root]; s <= root; s++)
      if (sup_rows(j, s, j->flag[tid])) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
  }
}

/* maxcsize / maxesize (CHOLMOD's loop) over thread tid's range of supernodes, into its
 * slots csize[tid], esize[tid].  Local. */
static void sup_csize(void *arg, int tid, int nt) {
  sup_job *j = arg;
  SuiteSparse_long maxc = 1, maxe = 1;
  int64_t d0 = j->nsuper * tid / nt, d1 = j->nsuper * (tid + 1) / nt;
  for (int64_t d = d0; d < d1; d++) {
    SuiteSparse_long p = j->lpi[d] + (j->super[d + 1] - j->super[d]), plast = p, pend = j->lpi[d + 1];
    if (pend - p > maxe) maxe = pend - p;
    SuiteSparse_long slast = p == pend ? -1 : j->supermap[j->ls[p]];
    for (; p <= pend; p++) {
      SuiteSparse_long s = p == pend ? -1 : j->supermap[j->ls[p]];
      if (s != slast) {
        SuiteSparse_long cs = (pend - plast) * (p - plast);
        if (cs > maxc) maxc = cs;
        plast = p; slast = s;
      }
    }
  }
  j->csize[tid] = maxc; j->esize[tid] = maxe;
}

/* CHOLMOD's fundamental supernodes and relaxed amalgamation (super_symbolic2's loops, as
 * there): Super[0..nsuper] and Snz of the relaxed supernodes; returns nsuper.  wi, sparent,
 * merged, nscol, zeros, map: workspace of n each.  Local. */
static int64_t sup_relax(int64_t n, const SuiteSparse_long *parent, const SuiteSparse_long *colcount,
                         const cholmod_common *cc, SuiteSparse_long *super, SuiteSparse_long *snz, SuiteSparse_long *wi,
                         SuiteSparse_long *sparent, SuiteSparse_long *merged, SuiteSparse_long *zeros,
                         SuiteSparse_long *map) {
  double zr0 = cc->zrelax[0], zr1 = cc->zrelax[1], zr2 = cc->zrelax[2];
  SuiteSparse_long nr0 = (SuiteSparse_long)cc->nrelax[0], nr1 = (SuiteSparse_long)cc->nrelax[1],
                   nr2 = (SuiteSparse_long)cc->nrelax[2];
  if (zr0 != zr0) zr0 = 0;
  if (zr1 != zr1) zr1 = 0;
  if (zr2 != zr2) zr2 = 0;
  memset(wi, 0, (size_t)n * sizeof *wi);
  for (int64_t j = 0; j < n; j++) if (parent[j] >= 0) wi[parent[j]]++;
  int64_t nf = n == 0 ? 0 : 1;
  super[0] = 0;
  for (int64_t j = 1; j < n; j++)
    if (parent[j - 1] != j || colcount[j - 1] != colcount[j] + 1 || wi[j] > 1) super[nf++] = j;
  super[nf] = n;
  SuiteSparse_long *nscol = wi;
  for (int64_t s = 0; s < nf; s++)
    for (SuiteSparse_long k = super[s]; k < super[s + 1]; k++) map[k] = s;
  for (int64_t s = 0; s < nf; s++) {
    SuiteSparse_long p = parent[super[s + 1] - 1];
    sparent[s] = p < 0 ? -1 : map[p];
  }
  for (int64_t s = 0; s < nf; s++) {
    merged[s] = -1; nscol[s] = super[s + 1] - super[s]; zeros[s] = 0; snz[s] = colcount[super[s]];
  }
  for (int64_t s = nf - 2; s >= 0; s--) {
    if (sparent[s] < 0) continue;
    SuiteSparse_long ss, sp, snext;
    for (ss = sparent[s]; merged[ss] != -1; ss = merged[ss]) {}
    sp = ss;
    for (ss = sparent[s]; merged[ss] != -1; ss = snext) { snext = merged[ss]; merged[ss] = sp; }
    if (sp != s + 1) continue;
    SuiteSparse_long nscol0 = nscol[s], nscol1 = nscol[s + 1], ns = nscol0 + nscol1, totzeros = zeros[s + 1];
    double lnz1 = (double)snz[s + 1];
    int merge;
    if (ns <= nr0) merge = 1;
    else {
      double lnz0 = (double)snz[s], xnewzeros = (double)nscol0 * (lnz1 + (double)nscol0 - lnz0);
      SuiteSparse_long newzeros = nscol0 * (snz[s + 1] + nscol0 - snz[s]);
      if (xnewzeros == 0) merge = 1;
      else {
        double xtotzeros = (double)totzeros + xnewzeros, xns = (double)ns;
        double xtotsize = (xns * (xns + 1) / 2) + xns * (lnz1 - (double)nscol1), z = xtotzeros / xtotsize;
        totzeros += newzeros;
        merge = ((ns <= nr1 && z < zr0) || (ns <= nr2 && z < zr1) || (z < zr2)) &&
                (xtotsize < ((double)SuiteSparse_long_max) / sizeof(double));
      }
    }
    if (merge) { zeros[s] = totzeros; merged[s + 1] = s; snz[s] = nscol0 + snz[s + 1]; nscol[s] += nscol[s + 1]; }
  }
  int64_t ns = 0;
  for (int64_t s = 0; s < nf; s++)
    if (merged[s] == -1) { super[ns] = super[s]; snz[ns] = snz[s]; ns++; }
  super[ns] = n;
  return ns;
}

/* The cut and the children lists over the relaxed supernodal tree (sparent): kidp / kids,
 * fd, roots (the subtrees of weight <= total / (8 nt), weight = rows of the subtree's lists).
 * Returns the number of roots.  w: workspace of nsuper.  Local. */
static int64_t sup_cut(int64_t ns, const SuiteSparse_long *sparent, const SuiteSparse_long *lpi, int nt,
                       SuiteSparse_long *kidp, SuiteSparse_long *kids, SuiteSparse_long *fd, SuiteSparse_long *roots,
                       SuiteSparse_long *w) {
  memset(kidp, 0, (size_t)(ns + 1) * sizeof *kidp);
  for (int64_t s = 0; s < ns; s++) { fd[s] = s; w[s] = lpi[s + 1] - lpi[s]; }
  for (int64_t s = 0; s < ns; s++) {
    SuiteSparse_long p = sparent[s];
    if (p < 0) continue;
    kidp[p + 1]++;
    if (fd[s] < fd[p]) fd[p] = fd[s];
    w[p] += w[s];   /* s < p: s's weight is final here */
  }
  for (int64_t s = 0; s < ns; s++) kidp[s + 1] += kidp[s];
  SuiteSparse_long *fill = roots;   /* roots as the fill's workspace first */
  memcpy(fill, kidp, (size_t)ns * sizeof *fill);
  for (int64_t s = 0; s < ns; s++) if (sparent[s] >= 0) kids[fill[sparent[s]]++] = s;
  double total = 0;
  for (int64_t s = 0; s < ns; s++) if (sparent[s] < 0) total += (double)w[s];
  double limit = total / (8.0 * (nt > 1 ? nt : 1));
  int64_t nr = 0;
  for (int64_t s = 0; s < ns; s++) {
    SuiteSparse_long p = sparent[s];
    if ((double)w[s] <= limit && (p < 0 || (double)w[p] > limit)) roots[nr++] = s;
  }
  return nr;
}

enum { SUP_WAVE_ROWS = 32768 };   /* a wave on the threads from this many rows of its lists */

/* The supernodes above the cut (those in no root's subtree) in waves by height (a wave: those
 * whose children above the cut are all in earlier waves), each wave's on the threads from the
 * shared counter.  Local. */
static void sup_top(sup_job *j, const SuiteSparse_long *sparent, k_lle_pool *pool, int nt) {
  int64_t ns = j->nsuper, ntop = 0, hmax = 0;
  SuiteSparse_long *h = NULL, *cnt = NULL, *order = NULL;
  HY_CALLOC(h, ns + 1);   /* 0: below the cut; a top supernode's height from 1 */
  for (int64_t r = 0; r < j->nroots; r++) for (SuiteSparse_long s = j->fd[j->roots[r]]; s <= j->roots[r]; s++) h[s] = -1;
  for (int64_t s = 0; s < ns; s++) {
    if (h[s] < 0) continue;
    h[s] += 1;   /* 1 + its top children's highest (pushed up below) */
    ntop++;
    if (h[s] > hmax) hmax = h[s];
    if (sparent[s] >= 0 && h[sparent[s]] >= 0 && h[sparent[s]] < h[s]) h[sparent[s]] = h[s];
  }
  HY_CALLOC(cnt, hmax + 2); HY_MALLOC(order, ntop + 1);
  for (int64_t s = 0; s < ns; s++) if (h[s] > 0) cnt[h[s] + 1]++;
  for (int64_t l = 1; l <= hmax; l++) cnt[l + 1] += cnt[l];
  for (int64_t s = 0; s < ns; s++) if (h[s] > 0) order[cnt[h[s]]++] = s;   /* by height, ascending within */
  j->single = 1;
  for (int64_t l = 1, a = 0; l <= hmax && !j->bad; l++) {   /* cnt[l]: the end of wave l */
    int64_t b = cnt[l], rows = 0;
    for (int64_t q = a; q < b; q++) rows += j->lpi[order[q] + 1] - j->lpi[order[q]];
    j->roots = order + a; j->nroots = b - a; j->next = 0;
    /* a small wave on this thread alone (a pool job's wake-up costs more than its lists) */
    int w = b - a < 2 || rows < SUP_WAVE_ROWS ? 1 : b - a < nt ? (int)(b - a) : nt;
    k_lle_pool_run(w > 1 ? pool : NULL, w, sup_subtrees, j);
    a = b;
  }
  free(h); free(cnt); free(order);
}

/* The supernodal symbolic factor of S2 S2' into L (simplicial symbolic on input, with
 * ColCount; Parent postordered): as cholmod_l_super_symbolic2(1, S2, F2, Parent, L, cc).
 * 1, or 0 with cc->status set.  Local. */
int lle_cnd_super(const cnd_super_in *in, const SuiteSparse_long *parent, cholmod_factor *L, cholmod_common *cc) {
  int64_t n = in->n;
  int nt = in->pool && in->threads > 1 ? in->threads : 1;
  SuiteSparse_long *super = NULL, *snz = NULL, *wi = NULL, *sparent = NULL, *merged = NULL, *zeros = NULL,
                   *map = NULL;
  HY_MALLOC(super, n + 1); HY_MALLOC(snz, n + 1); HY_MALLOC(wi, n + 1); HY_MALLOC(sparent, n + 1);
  HY_MALLOC(merged, n + 1); HY_MALLOC(zeros, n + 1); HY_MALLOC(map, n + 1);
  int64_t ns = sup_relax(n, parent, L->ColCount, cc, super, snz, wi, sparent, merged, zeros, map);
  for (int64_t s = 0; s < ns; s++)
    for (SuiteSparse_long k = super[s]; k < super[s + 1]; k++) map[k] = s;
  for (int64_t s = 0; s < ns; s++) {
    SuiteSparse_long p = parent[super[s + 1] - 1];
    sparent[s] = p < 0 ? -1 : map[p];
  }
  double ssize = 0, xsize = 0;
  for (int64_t s = 0; s < ns; s++) { ssize += (double)snz[s]; xsize += (double)(super[s + 1] - super[s]) * (double)snz[s]; }
  int ok = 1;
  if (ssize > (double)SuiteSparse_long_max || xsize > (double)SuiteSparse_long_max) {
    cc->status = CHOLMOD_TOO_LARGE;
    ok = 0;
  }
  if (ok) {
    L->ssize = (size_t)(ssize > 1 ? ssize : 1);
    L->xsize = (size_t)(xsize > 1 ? xsize : 1);
    L->nsuper = (size_t)ns;
    ok = cholmod_l_change_factor(CHOLMOD_PATTERN, 1, 1, 1, 1, L, cc) && cc->status >= CHOLMOD_OK;
  }
  if (ok) {
    SuiteSparse_long *lpi = L->pi, *lpx = L->px, *ls = L->s;
    memcpy(L->super, super, (size_t)(ns + 1) * sizeof *super);
    lpi[0] = 0; lpx[0] = 0;
    for (int64_t s = 0; s < ns; s++) {
      lpi[s + 1] = lpi[s] + snz[s];
      lpx[s + 1] = lpx[s] + (super[s + 1] - super[s]) * snz[s];
    }
    ls[0] = 0;
    /* the row pass: workspace reused (wi: kidp, merged: kids, zeros: fd, snz: roots, sparent kept) */
    SuiteSparse_long *w = NULL;
    HY_MALLOC(w, ns + 1);
    int64_t nr = sup_cut(ns, sparent, lpi, nt, wi, merged, zeros, snz, w);
    free(w);
    int32_t **flag = NULL;
    HY_CALLOC(flag, nt);
    sup_job j = { .n = n, .nsuper = ns, .ap = in->ap, .s2i = in->s2i, .f2p = in->f2p, .f2i = in->f2i,
                  .super = L->super, .lpi = lpi, .supermap = map, .kidp = wi, .kids = merged, .fd = zeros,
                  .roots = snz, .nroots = nr, .ls = ls, .flag = flag };
    k_lle_pool_run(nt > 1 ? in->pool : NULL, nt, sup_subtrees, &j);
    if (!j.bad) sup_top(&j, sparent, in->pool, nt);
    if (!j.bad) {
      HY_MALLOC(j.csize, (size_t)nt); HY_MALLOC(j.esize, (size_t)nt);
      for (int t = 0; t < nt; t++) j.csize[t] = j.esize[t] = 1;   /* the pool may run fewer */
      k_lle_pool_run(nt > 1 ? in->pool : NULL, nt, sup_csize, &j);
      SuiteSparse_long maxc = 1, maxe = 1;
      for (int t = 0; t < nt; t++) {
        if (j.csize[t] > maxc) maxc = j.csize[t];
        if (j.esize[t] > maxe) maxe = j.esize[t];
      }
      L->maxcsize = (size_t)maxc; L->maxesize = (size_t)maxe;
      L->is_super = 1;
      free(j.csize); free(j.esize);
    }
    for (int t = 0; t < nt; t++) free(flag[t]);
    free(flag);
    if (j.bad) { cc->status = j.bad == 2 ? CHOLMOD_OUT_OF_MEMORY : CHOLMOD_INVALID; ok = 0; }
  }
  free(super); free(snz); free(wi); free(sparent); free(merged); free(zeros); free(map);
  return ok;
}
