/* lle_eig_cnd_counts.c - chol-nd's elimination tree and column counts of A A^T on the rank's
 * threads (lle.cnd_symbolic = tree): what cholmod_l_etree, cholmod_l_postorder and
 * cholmod_l_rowcolcounts give (Parent and ColCount of L, Common->fl / lnz / aatfl), exactly,
 * from CHOLMOD's own calls on the nested-dissection order's subtrees, side by side.
 *
 * A is n x n CSC in the ND order (column c: stencil S_c = {c} + nbr(c) of B's row, rows sorted),
 * M = A A^T.  The order's segments [lo, hi) (the subtrees the order ran on threads) are closed:
 * every stencil with a row in [lo, hi) has its smallest row there (checked here, O(nnz(A)): a
 * segment list that is not so makes the caller take CHOLMOD's serial steps).  Then for j in
 * [lo, hi) the structure of L(:, j), { i > j : a path from j to i in M's graph through vertices
 * < j }, lies in T = [lo, hi) and its neighbours N(T) (all later, in the ancestors' separators):
 * the paths cannot leave T but through a vertex > j.  So CHOLMOD's etree and counts of the
 * local problem, the stencils with their smallest row in T, rows T (in order) then N(T)
 * (ascending), give Parent and ColCount of T's columns exactly.  The rest ("the top": the
 * vertices of no segment) is one more local problem in which each tree of T's local forest
 * (a connected part C of T) is one virtual vertex, first in the order, in every stencil that
 * meets C (those stencils restricted to the top's rows): eliminating it joins N(C) as C's
 * elimination does, and every path through C of the global problem is one through it, so
 * the top's Parent and ColCount are exact too.  fl = sum ColCount^2, lnz = sum ColCount
 * (ascending j, as CHOLMOD sums them), aatfl over A's columns.  The weighted postorder
 * (cholmod_l_postorder's) by the same segments: below.  Local. */
#include "lle_eig_cnd.h"
#include "hybrid.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* One segment's result for the top problem: its roots with rows outside it (virtual vertices)
 * and its stencils that reach outside, restricted: rp / ri (CSR; the first entry of each the
 * root's virtual index within the segment, the others global rows, ascending). */
typedef struct {
  int64_t nvirt, nstr;
  SuiteSparse_long *rp, *ri;
} cnt_seg;

/* The job over the segments. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *ap, *ai, *fp, *fi;   /* A, F = A' */
  const int64_t *segs;
  int nseg;
  SuiteSparse_long *parent, *colcount;
  cnt_seg *res;
  int next;          /* the next segment (shared counter) */
  int bad;           /* 1: a segment not closed; 2: out of memory or a CHOLMOD failure */
} cnt_job;

/* Sort a[0..m) ascending (insertion sort for short lists, else a heap sort).  Local. */
static void cnt_sort(SuiteSparse_long *a, int64_t m) {
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

/* CHOLMOD's etree, postorder and column counts of the local problem A_l A_l' (nr rows, nc
 * columns, lap / lai): parent and colcount (nr each).  1, or 0.  Local. */
static int cnt_local(int64_t nr, int64_t nc, SuiteSparse_long *lap, SuiteSparse_long *lai, SuiteSparse_long *parent,
                     SuiteSparse_long *colcount, cholmod_common *cc) {
  int64_t nnz = lap[nc];
  SuiteSparse_long *fp = NULL, *fi = NULL, *post = NULL, *first = NULL, *level = NULL;
  HY_CALLOC(fp, nr + 1); HY_MALLOC(fi, nnz > 0 ? nnz : 1);
  HY_MALLOC(post, nr + 1); HY_MALLOC(first, nr + 1); HY_MALLOC(level, nr + 1);
  for (int64_t a = 0; a < nnz; a++) fp[lai[a] + 1]++;
  for (int64_t r = 0; r < nr; r++) fp[r + 1] += fp[r];
  SuiteSparse_long *fill = first;   /* first as the fill's workspace until rowcolcounts */
  memcpy(fill, fp, (size_t)nr * sizeof *fill);
  for (int64_t c = 0; c < nc; c++)
    for (SuiteSparse_long a = lap[c]; a < lap[c + 1]; a++) fi[fill[lai[a]]++] = c;
  cholmod_sparse al = { .nrow = (size_t)nr, .ncol = (size_t)nc, .nzmax = (size_t)(nnz > 0 ? nnz : 1), .p = lap,
                        .i = lai, .stype = 0, .itype = CHOLMOD_LONG, .xtype = CHOLMOD_PATTERN,
                        .dtype = CHOLMOD_DOUBLE, .sorted = 1, .packed = 1 };
  cholmod_sparse fl = { .nrow = (size_t)nc, .ncol = (size_t)nr, .nzmax = (size_t)(nnz > 0 ? nnz : 1), .p = fp,
                        .i = fi, .stype = 0, .itype = CHOLMOD_LONG, .xtype = CHOLMOD_PATTERN,
                        .dtype = CHOLMOD_DOUBLE, .sorted = 1, .packed = 1 };
  int ok = cholmod_l_etree(&fl, parent, cc) && cholmod_l_postorder(parent, (size_t)nr, NULL, post, cc) == nr &&
           cholmod_l_rowcolcounts(&al, NULL, 0, parent, post, NULL, colcount, first, level, cc);
  free(fp); free(fi); free(post); free(first); free(level);
  return ok;
}

/* Segment s on a thread (mark / lid: its arrays of n, mark stamped with s + 1).  Local. */
static int cnt_segment(cnt_job *j, int s, int32_t *mark, int32_t *lid, cholmod_common *cc) {
  int64_t lo = j->segs[2 * s], hi = j->segs[2 * s + 1], m = hi - lo, nc = 0, nnz = 0, nout = 0;
  const SuiteSparse_long *ap = j->ap, *ai = j->ai;
  for (int64_t k = lo; k < hi; k++)   /* the stencils with their smallest row here; closed? */
    for (SuiteSparse_long q = j->fp[k]; q < j->fp[k + 1]; q++) {
      SuiteSparse_long c = j->fi[q];
      if (ai[ap[c]] < lo) return 1;
      if (ai[ap[c]] == k) { nc++; nnz += ap[c + 1] - ap[c]; }
    }
  SuiteSparse_long *cl = NULL, *out = NULL, *lap = NULL, *lai = NULL, *par = NULL, *cnt = NULL, *root = NULL;
  HY_MALLOC(cl, nc + 1); HY_MALLOC(out, nnz + 1); HY_MALLOC(lap, nc + 1); HY_MALLOC(lai, nnz + 1);
  nc = 0;
  int32_t st = (int32_t)(s + 1);
  for (int64_t k = lo; k < hi; k++)
    for (SuiteSparse_long q = j->fp[k]; q < j->fp[k + 1]; q++) {
      SuiteSparse_long c = j->fi[q];
      if (ai[ap[c]] != k) continue;
      cl[nc++] = c;
      for (SuiteSparse_long a = ap[c]; a < ap[c + 1]; a++)
        if (ai[a] >= hi && mark[ai[a]] != st) { mark[ai[a]] = st; out[nout++] = ai[a]; }
    }
  cnt_sort(out, nout);
  for (int64_t t = 0; t < nout; t++) lid[out[t]] = (int32_t)(m + t);
  lap[0] = 0;
  for (int64_t c = 0; c < nc; c++) {
    SuiteSparse_long p = lap[c];
    for (SuiteSparse_long a = ap[cl[c]]; a < ap[cl[c] + 1]; a++) lai[p++] = ai[a] < hi ? ai[a] - lo : lid[ai[a]];
    lap[c + 1] = p;
  }
  int64_t nr = m + nout;
  HY_MALLOC(par, nr); HY_MALLOC(cnt, nr); HY_MALLOC(root, m);
  int rc = cnt_local(nr, nc, lap, lai, par, cnt, cc) ? 0 : 2;
  cnt_seg *r = &j->res[s];
  if (!rc) {
    for (int64_t i = 0; i < m; i++) {
      SuiteSparse_long p = par[i];
      j->parent[lo + i] = p < 0 ? -1 : p < m ? lo + p : out[p - m];
      j->colcount[lo + i] = cnt[i];
    }
    r->nvirt = 0;   /* root[i]: the virtual index of i's tree (its roots with a parent outside), else -1 */
    for (int64_t i = m - 1; i >= 0; i--)
      root[i] = par[i] >= 0 && par[i] < m ? root[par[i]] : par[i] >= m ? r->nvirt++ : -1;
    int64_t ns = 0, nz = 0;   /* the stencils that reach outside, restricted */
    for (int64_t c = 0; c < nc; c++)
      if (lai[lap[c + 1] - 1] >= m) { ns++; nz += 1 + (lap[c + 1] - lap[c]); }
    HY_MALLOC(r->rp, ns + 1); HY_MALLOC(r->ri, nz + 1);
    r->rp[0] = 0;
    r->nstr = 0;
    for (int64_t c = 0; c < nc; c++) {
      if (lai[lap[c + 1] - 1] < m) continue;
      SuiteSparse_long p = r->rp[r->nstr];
      r->ri[p++] = root[lai[lap[c]]];
      for (SuiteSparse_long a = lap[c]; a < lap[c + 1]; a++) if (lai[a] >= m) r->ri[p++] = out[lai[a] - m];
      r->rp[++r->nstr] = p;
    }
  }
  free(cl); free(out); free(lap); free(lai); free(par); free(cnt); free(root);
  return rc;
}

/* The segments on the threads, from the shared counter; each thread its CHOLMOD common and
 * marks.  Local. */
static void cnt_run(void *arg, int tid, int nt) {
  cnt_job *j = arg;
  (void)tid; (void)nt;
  cholmod_common cc;
  cholmod_l_start(&cc);
  cc.print = 0;
  cc.error_handler = NULL;
  int32_t *mark = calloc((size_t)j->n, sizeof *mark), *lid = malloc((size_t)j->n * sizeof *lid);
  if (!mark || !lid) __atomic_store_n(&j->bad, 2, __ATOMIC_RELAXED);
  for (int s; mark && lid && (s = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->nseg;) {
    int rc = cnt_segment(j, s, mark, lid, &cc);
    if (rc) { __atomic_store_n(&j->bad, rc, __ATOMIC_RELAXED); break; }
  }
  free(mark); free(lid);
  cholmod_l_finish(&cc);
}

/* The top problem (see the file comment): the virtual vertices, then the vertices of no
 * segment (intop), their stencils and the segments' restricted ones.  1, or 0.  Local. */
static int cnt_top(const cnt_job *j, const char *inseg, cholmod_common *cc) {
  int64_t n = j->n, nv = 0, ntop = 0, nc = 0, nnz = 0;
  const SuiteSparse_long *ap = j->ap, *ai = j->ai;
  SuiteSparse_long *tid = NULL, *vbase = NULL, *gl = NULL;
  HY_MALLOC(tid, n); HY_MALLOC(vbase, j->nseg + 1);
  for (int s = 0; s < j->nseg; s++) { vbase[s] = nv; nv += j->res[s].nvirt; nc += j->res[s].nstr; nnz += j->res[s].rp[j->res[s].nstr]; }
  for (int64_t k = 0; k < n; k++) if (!inseg[k]) {
    tid[k] = nv + ntop++;
    for (SuiteSparse_long q = j->fp[k]; q < j->fp[k + 1]; q++)
      if (ai[ap[j->fi[q]]] == k) { nc++; nnz += ap[j->fi[q] + 1] - ap[j->fi[q]]; }
  }
  HY_MALLOC(gl, ntop + 1);
  SuiteSparse_long *lap = NULL, *lai = NULL, *par = NULL, *cnt = NULL;
  HY_MALLOC(lap, nc + 1); HY_MALLOC(lai, nnz + 1); HY_MALLOC(par, nv + ntop + 1); HY_MALLOC(cnt, nv + ntop + 1);
  int64_t c = 0, p = 0;
  lap[0] = 0;
  for (int s = 0; s < j->nseg; s++) {
    const cnt_seg *r = &j->res[s];
    for (int64_t q = 0; q < r->nstr; q++) {
      lai[p++] = vbase[s] + r->ri[r->rp[q]];
      for (SuiteSparse_long a = r->rp[q] + 1; a < r->rp[q + 1]; a++) lai[p++] = tid[r->ri[a]];
      lap[++c] = p;
    }
  }
  for (int64_t k = 0; k < n; k++) if (!inseg[k]) {
    gl[tid[k] - nv] = k;
    for (SuiteSparse_long q = j->fp[k]; q < j->fp[k + 1]; q++) {
      SuiteSparse_long col = j->fi[q];
      if (ai[ap[col]] != k) continue;
      for (SuiteSparse_long a = ap[col]; a < ap[col + 1]; a++) lai[p++] = tid[ai[a]];
      lap[++c] = p;
    }
  }
  int ok = cnt_local(nv + ntop, nc, lap, lai, par, cnt, cc);
  for (int64_t t = 0; ok && t < ntop; t++) {
    SuiteSparse_long pp = par[nv + t];
    j->parent[gl[t]] = pp < 0 ? -1 : gl[pp - nv];
    j->colcount[gl[t]] = cnt[nv + t];
  }
  free(tid); free(vbase); free(gl); free(lap); free(lai); free(par); free(cnt);
  return ok;
}

/* Parent and ColCount of A A^T (n x n, ap / ai; F = A' in fp / fi) by the segments segs[0 ..
 * 2 nseg) on the pool's threads and the top after them (see the file comment); cc's fl, lnz
 * and aatfl as cholmod_l_rowcolcounts sets them; ts[0], ts[1]: the seconds of the segments'
 * part and of the top's.  1 done, 0 not applicable (no segments, or
 * one not closed: nothing written to cc), -1 failure (cc->status set).  Local. */
int lle_cnd_tree_counts(const cnd_counts_in *in, SuiteSparse_long *parent, SuiteSparse_long *colcount,
                        cholmod_common *cc, double *ts) {
  int64_t n = in->n;
  if (in->nseg < 2 || !in->segs) return 0;
  for (int s = 0; s < in->nseg; s++)   /* ascending, disjoint, inside [0, n) */
    if (in->segs[2 * s] < (s ? in->segs[2 * s - 1] : 0) || in->segs[2 * s + 1] <= in->segs[2 * s] || in->segs[2 * s + 1] > n)
      return 0;
  cnt_job j = { .n = n, .ap = in->ap, .ai = in->ai, .fp = in->fp, .fi = in->fi, .segs = in->segs, .nseg = in->nseg,
                .parent = parent, .colcount = colcount };
  HY_CALLOC(j.res, in->nseg);
  int nt = in->pool && in->threads > 1 ? in->threads : 1;
  double t0 = MPI_Wtime();
  k_lle_pool_run(nt > 1 ? in->pool : NULL, nt, cnt_run, &j);
  double t1 = MPI_Wtime();
  ts[0] = t1 - t0;
  int rc = j.bad == 1 ? 0 : j.bad ? -1 : 1;
  if (rc == 1) {
    char *inseg = NULL;
    HY_CALLOC(inseg, n);
    for (int s = 0; s < in->nseg; s++) memset(inseg + in->segs[2 * s], 1, (size_t)(in->segs[2 * s + 1] - in->segs[2 * s]));
    rc = cnt_top(&j, inseg, cc) ? 1 : -1;
    free(inseg);
    ts[1] = MPI_Wtime() - t1;
  }
  for (int s = 0; s < in->nseg; s++) { free(j.res[s].rp); free(j.res[s].ri); }
  free(j.res);
  if (rc == -1) {
    if (cc->status >= CHOLMOD_OK) cc->status = CHOLMOD_OUT_OF_MEMORY;
    return -1;
  }
  if (rc == 0) return 0;
  double fl = 0, lnz = 0, aatfl = 0;
  for (int64_t k = 0; k < n; k++) { double ff = (double)colcount[k]; lnz += ff; fl += ff * ff; }
  for (int64_t c = 0; c < n; c++) { double ff = (double)(in->ap[c + 1] - in->ap[c]); aatfl += ff * ff + ff; }
  cc->fl = fl; cc->lnz = lnz; cc->aatfl = aatfl;
  cc->status = CHOLMOD_OK;
  return 1;
}

/* ---- the weighted postorder (cholmod_l_postorder with the column counts as weights) ----
 * CHOLMOD's: a depth-first search from each root in ascending order, each node's children in
 * ascending (weight, index) order (its weight buckets), the weights clipped to [0, n - 1].  A
 * segment's nodes have their children in it (a node below it reaches it only through it), so
 * each tree of a segment's forest is postordered on its own, side by side on the threads; the
 * top nodes' search then takes a segment's tree as one block of its size. */

/* The postorder's job: the etree, the weights, each segment's postordered trees. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *parent, *colcount;
  const int64_t *segs;
  int nseg;
  SuiteSparse_long *seq;     /* each segment's trees' postorders, in its range [lo, hi) */
  SuiteSparse_long *rstart;  /* a segment's root: its tree's first position in seq; its size in rsize */
  SuiteSparse_long *rsize;
  int next;
} po_job;

/* The clipped weight of node j.  Local. */
static SuiteSparse_long po_w(const po_job *j, SuiteSparse_long v) {
  SuiteSparse_long w = j->colcount[v];
  return w < 0 ? 0 : w > j->n - 1 ? j->n - 1 : w;
}

/* Sort kids[0..m) by ascending (weight, index) (insertion sort: short lists).  Local. */
static void po_sort(const po_job *j, SuiteSparse_long *kids, int64_t m) {
  for (int64_t q = 1; q < m; q++) {
    SuiteSparse_long v = kids[q], wv = po_w(j, v);
    int64_t t = q - 1;
    while (t >= 0 && (po_w(j, kids[t]) > wv || (po_w(j, kids[t]) == wv && kids[t] > v))) { kids[t + 1] = kids[t]; t--; }
    kids[t + 1] = v;
  }
}

/* The depth-first postorder of the tree at root over the children lists kp / ki (node v's at
 * ki[kp[v - base] .. kp[v - base + 1])), a child that is a block (blk != NULL and blk[v] >= 0:
 * a segment's tree of rsize[v] nodes) counted whole: out[pos ..] (a block's position in
 * bpos[v]); stack: workspace.  Returns the next position.  Local. */
static int64_t po_dfs(SuiteSparse_long root, int64_t pos, SuiteSparse_long base, const SuiteSparse_long *kp,
                      const SuiteSparse_long *ki, SuiteSparse_long *next, SuiteSparse_long *stack, SuiteSparse_long *out,
                      const char *isblk, const SuiteSparse_long *rsize, SuiteSparse_long *bpos) {
  int64_t top = 0;
  stack[top++] = root;
  next[root - base] = kp[root - base];
  while (top > 0) {
    SuiteSparse_long v = stack[top - 1];
    if (isblk && isblk[v]) { bpos[v] = pos; pos += rsize[v]; top--; continue; }
    if (next[v - base] < kp[v - base + 1]) {
      SuiteSparse_long c = ki[next[v - base]++];
      stack[top++] = c;
      if (!(isblk && isblk[c])) next[c - base] = kp[c - base];
    } else {
      out[pos++] = v;
      top--;
    }
  }
  return pos;
}

/* Segment s's trees postordered into seq[lo, hi), each root's start and size.  Local. */
static void po_segment(po_job *j, int s) {
  SuiteSparse_long lo = j->segs[2 * s], hi = j->segs[2 * s + 1], m = hi - lo;
  SuiteSparse_long *kp = NULL, *ki = NULL, *nx = NULL, *stk = NULL, *fill = NULL;
  HY_CALLOC(kp, m + 1); HY_MALLOC(ki, m + 1); HY_MALLOC(nx, m + 1); HY_MALLOC(stk, m + 1); HY_MALLOC(fill, m + 1);
  for (SuiteSparse_long v = lo; v < hi; v++) {
    SuiteSparse_long p = j->parent[v];
    if (p >= lo && p < hi) kp[p - lo + 1]++;
  }
  for (int64_t q = 0; q < m; q++) kp[q + 1] += kp[q];
  memcpy(fill, kp, (size_t)m * sizeof *fill);
  for (SuiteSparse_long v = lo; v < hi; v++) {
    SuiteSparse_long p = j->parent[v];
    if (p >= lo && p < hi) ki[fill[p - lo]++] = v;
  }
  for (int64_t q = 0; q < m; q++) po_sort(j, ki + kp[q], kp[q + 1] - kp[q]);
  int64_t pos = lo;
  for (SuiteSparse_long v = lo; v < hi; v++) {
    SuiteSparse_long p = j->parent[v];
    if (p >= lo && p < hi) continue;   /* a root of the segment's forest */
    int64_t p0 = pos;
    pos = po_dfs(v, pos, lo, kp, ki, nx, stk, j->seq, NULL, NULL, NULL);
    j->rstart[v] = p0; j->rsize[v] = pos - p0;
  }
  free(kp); free(ki); free(nx); free(stk); free(fill);
}

/* The segments' trees on the threads from the shared counter.  Local. */
static void po_run(void *arg, int tid, int nt) {
  po_job *j = arg;
  (void)tid; (void)nt;
  for (int s; (s = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->nseg;) po_segment(j, s);
}

/* The blocks' copies into post: segment s's trees at their positions.  Local. */
typedef struct {
  const po_job *j;
  const char *isroot;
  const SuiteSparse_long *bpos;
  SuiteSparse_long *post;
} po_copy;

static void po_copy_part(void *arg, int64_t s0, int64_t s1) {
  const po_copy *c = arg;
  const po_job *j = c->j;
  for (int64_t s = s0; s < s1; s++)
    for (SuiteSparse_long v = j->segs[2 * s]; v < j->segs[2 * s + 1]; v++)
      if (c->isroot[v])
        memcpy(c->post + c->bpos[v], j->seq + j->rstart[v], (size_t)j->rsize[v] * sizeof *c->post);
}

/* cholmod_l_postorder(parent, n, colcount, post)'s result by the segments (1), or 0 where they
 * do not apply (in as lle_cnd_tree_counts: Parent and ColCount computed there).  Local. */
int lle_cnd_tree_postorder(const cnd_counts_in *in, const SuiteSparse_long *parent, const SuiteSparse_long *colcount,
                           SuiteSparse_long *post) {
  int64_t n = in->n;
  if (in->nseg < 2 || !in->segs) return 0;
  po_job j = { .n = n, .parent = parent, .colcount = colcount, .segs = in->segs, .nseg = in->nseg };
  char *inseg = NULL, *isroot = NULL;
  HY_MALLOC(j.seq, n); HY_MALLOC(j.rstart, n); HY_MALLOC(j.rsize, n);
  HY_CALLOC(inseg, n); HY_CALLOC(isroot, n);
  for (int s = 0; s < in->nseg; s++) {
    SuiteSparse_long lo = in->segs[2 * s], hi = in->segs[2 * s + 1];
    memset(inseg + lo, 1, (size_t)(hi - lo));
    for (SuiteSparse_long v = lo; v < hi; v++) if (parent[v] < lo || parent[v] >= hi) isroot[v] = 1;
  }
  int nt = in->pool && in->threads > 1 ? in->threads : 1;
  k_lle_pool_run(nt > 1 ? in->pool : NULL, nt, po_run, &j);
  /* the quotient tree: the top nodes and the segments' roots (blocks), children lists by parent */
  SuiteSparse_long *kp = NULL, *ki = NULL, *nx = NULL, *stk = NULL, *fill = NULL, *bpos = NULL;
  HY_CALLOC(kp, n + 1); HY_MALLOC(ki, n + 1); HY_MALLOC(nx, n + 1); HY_MALLOC(stk, n + 1); HY_MALLOC(fill, n + 1);
  HY_MALLOC(bpos, n + 1);
  for (int64_t v = 0; v < n; v++)
    if ((!inseg[v] || isroot[v]) && parent[v] >= 0) kp[parent[v] + 1]++;
  for (int64_t v = 0; v < n; v++) kp[v + 1] += kp[v];
  memcpy(fill, kp, (size_t)n * sizeof *fill);
  for (int64_t v = 0; v < n; v++)
    if ((!inseg[v] || isroot[v]) && parent[v] >= 0) ki[fill[parent[v]]++] = v;
  for (int64_t v = 0; v < n; v++) if (!inseg[v]) po_sort(&j, ki + kp[v], kp[v + 1] - kp[v]);
  int64_t pos = 0;
  for (int64_t v = 0; v < n; v++)
    if (parent[v] < 0 && (!inseg[v] || isroot[v]))
      pos = po_dfs(v, pos, 0, kp, ki, nx, stk, post, isroot, j.rsize, bpos);
  int ok = pos == n;
  if (ok) {
    po_copy c = { &j, isroot, bpos, post };
    k_lle_pool_for(nt > 1 ? in->pool : NULL, nt, in->nseg, po_copy_part, &c);
  }
  free(j.seq); free(j.rstart); free(j.rsize); free(inseg); free(isroot);
  free(kp); free(ki); free(nx); free(stk); free(fill); free(bpos);
  return ok;
}
