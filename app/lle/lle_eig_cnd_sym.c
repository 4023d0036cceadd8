/* lle_eig_cnd_sym.c - chol-nd's symbolic analysis of A A^T (A = P B^T P^T, n x n CSC, given in
 * the nested-dissection order): lle.cnd_symbolic = cholmod (one cholmod_l_analyze call,
 * natural ordering, postordered, supernodal) or steps (the default: the same steps as
 * cholmod_analyze_p2 takes there, through CHOLMOD's public functions, with its three serial
 * transposes of A replaced by parallel ones on the rank's thread pool).
 *
 * cholmod_analyze_p2 with CHOLMOD_NATURAL, postorder and supernodal on an unsymmetric A:
 *   F = A' (ptranspose), Parent = etree(F) (the etree of A A'), Post = postorder(Parent),
 *   ColCount = rowcolcounts(A, Parent, Post) (also Common->fl, lnz), then the postorder
 *   weighted by ColCount combined into L->Perm, ColCount and Parent (L->ordering
 *   POSTORDERED), then F2 = A(p,:)' and S2 = F2' (two more ptransposes), and
 *   super_symbolic2(S2, F2, Parent, L).
 * Here F is A's transpose made on the threads (atomic slots, then each column sorted), F2 by
 * gathering F's columns by L->Perm, S2 = A's columns with their
 * rows renumbered by L->Perm's inverse and sorted: the matrices CHOLMOD's ptranspose makes
 * (columns sorted), so every later step sees the same input and L is the same bit for bit
 * (lle.cnd_check compares the two analyses field by field; test lle_chol_nd_symbolic).
 * lle.cnd_symbolic = tree: the same steps with cholmod_l_super_symbolic2 replaced by
 * lle_cnd_super (lle_eig_cnd_super.c: its row pass over the supernodal tree on the threads),
 * the same factor bit for bit. */
#include "lle_eig_cnd.h"
#include "hybrid.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* The transposes' job: A (ap, ai), the postorder, the outputs. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *ap, *ai;   /* A */
  SuiteSparse_long *fp, *fi;   /* F = A' */
  SuiteSparse_long *fill;      /* F's next slot of each column */
  const SuiteSparse_long *lp;   /* L->Perm */
  SuiteSparse_long *ilp;        /* and its inverse */
  SuiteSparse_long *f2p, *f2i, *s2i;   /* F2 = F(:, lp), S2 = A(lp, :) (its pointers are A's) */
} sym_job;

/* Sort a[0..m) ascending (short lists: insertion sort).  Local. */
static void sym_sort(SuiteSparse_long *a, int64_t m) {
  for (int64_t q = 1; q < m; q++) {
    SuiteSparse_long v = a[q];
    int64_t t = q - 1;
    while (t >= 0 && a[t] > v) { a[t + 1] = a[t]; t--; }
    a[t + 1] = v;
  }
}

/* A's columns [c0, c1): their entries counted into F's columns (atomic: columns on threads;
 * A is in the ND order, so its columns' rows lie close: local accesses).  Local. */
static void sym_fcount(void *arg, int64_t c0, int64_t c1) {
  sym_job *j = arg;
  for (int64_t a = j->ap[c0]; a < j->ap[c1]; a++) __atomic_fetch_add(&j->fp[j->ai[a] + 1], 1, __ATOMIC_RELAXED);
}

/* A's columns [c0, c1): c put into F's column of each of its rows (a slot by an atomic
 * counter: ascending within a thread's range, sym_fsort orders the threads' parts).  Local. */
static void sym_ffill(void *arg, int64_t c0, int64_t c1) {
  sym_job *j = arg;
  for (int64_t c = c0; c < c1; c++)
    for (int64_t a = j->ap[c]; a < j->ap[c + 1]; a++) j->fi[__atomic_fetch_add(&j->fill[j->ai[a]], 1, __ATOMIC_RELAXED)] = c;
}

/* F's columns [c0, c1) sorted (ptranspose's order: ascending).  Local. */
static void sym_fsort(void *arg, int64_t c0, int64_t c1) {
  sym_job *j = arg;
  for (int64_t c = c0; c < c1; c++) sym_sort(j->fi + j->fp[c], j->fp[c + 1] - j->fp[c]);
}

/* [c0, c1): L->Perm's inverse (a permutation: disjoint writes) and F2's column lengths into
 * f2p[c + 1] (the prefix after).  Local. */
static void sym_inv_len(void *arg, int64_t c0, int64_t c1) {
  sym_job *j = arg;
  for (int64_t c = c0; c < c1; c++) {
    j->ilp[j->lp[c]] = c;
    j->f2p[c + 1] = j->fp[j->lp[c] + 1] - j->fp[j->lp[c]];
  }
}

/* F2's columns [c0, c1): F's columns lp[c] (pointers from a prefix made before).  Local. */
static void sym_f2(void *arg, int64_t c0, int64_t c1) {
  sym_job *j = arg;
  for (int64_t c = c0; c < c1; c++) {
    SuiteSparse_long s = j->fp[j->lp[c]], m = j->fp[j->lp[c] + 1] - s;
    memcpy(j->f2i + j->f2p[c], j->fi + s, (size_t)m * sizeof *j->f2i);
  }
}

/* S2's columns [c0, c1): A's columns, rows renumbered by L->Perm's inverse, sorted.  Local. */
static void sym_s2(void *arg, int64_t c0, int64_t c1) {
  sym_job *j = arg;
  for (int64_t c = c0; c < c1; c++) {
    for (int64_t a = j->ap[c]; a < j->ap[c + 1]; a++) j->s2i[a] = j->ilp[j->ai[a]];
    sym_sort(j->s2i + j->ap[c], j->ap[c + 1] - j->ap[c]);
  }
}

/* A CSC pattern matrix over the arrays.  Local. */
static cholmod_sparse sym_pattern(int64_t n, SuiteSparse_long *p, SuiteSparse_long *i) {
  cholmod_sparse s = { .nrow = (size_t)n, .ncol = (size_t)n, .nzmax = (size_t)p[n], .p = p, .i = i, .stype = 0,
                       .itype = CHOLMOD_LONG, .xtype = CHOLMOD_PATTERN, .dtype = CHOLMOD_DOUBLE, .sorted = 1,
                       .packed = 1 };
  return s;
}

/* sym_postorder's combination into L on the threads: the postorder, its inverse, the counts. */
typedef struct {
  const SuiteSparse_long *post, *parent, *colcount, *inv;
  SuiteSparse_long *lperm, *lcc, *w, *invw;
} sym_po_job;

/* [k0, k1): Perm, ColCount and the inverse.  Local. */
static void sym_po_a(void *arg, int64_t k0, int64_t k1) {
  const sym_po_job *j = arg;
  for (int64_t k = k0; k < k1; k++) {
    j->lperm[k] = j->post[k];   /* the natural order's Perm is the identity */
    j->lcc[k] = j->colcount[j->post[k]];
    j->invw[j->post[k]] = k;
  }
}

/* [k0, k1): the postordered tree.  Local. */
static void sym_po_b(void *arg, int64_t k0, int64_t k1) {
  const sym_po_job *j = arg;
  for (int64_t k = k0; k < k1; k++) j->w[k] = j->parent[j->post[k]] < 0 ? -1 : j->inv[j->parent[j->post[k]]];
}

/* cholmod_analyze_p2's weighted postorder combined into L (Perm, ColCount, Parent), as there;
 * the postorder CHOLMOD's, or given (post0: the same, computed over the order's segments),
 * the combination on the pool's threads.  Local. */
static int sym_postorder(int64_t n, SuiteSparse_long *parent, SuiteSparse_long *colcount, cholmod_factor *L,
                         cholmod_common *cc, SuiteSparse_long *post0, k_lle_pool *pool, int nt) {
  SuiteSparse_long *post = post0, *w = NULL, *inv = NULL;
  if (!post) HY_MALLOC(post, n);
  HY_MALLOC(w, n); HY_MALLOC(inv, n);
  int ok = post0 || cholmod_l_postorder(parent, (size_t)n, colcount, post, cc) == n;
  if (ok) {
    sym_po_job j = { .post = post, .parent = parent, .colcount = colcount, .inv = inv, .lperm = L->Perm,
                     .lcc = L->ColCount, .w = w, .invw = inv };
    k_lle_pool_for(pool, nt, n, sym_po_a, &j);
    k_lle_pool_for(pool, nt, n, sym_po_b, &j);
    memcpy(parent, w, (size_t)n * sizeof *w);
    L->ordering = CHOLMOD_POSTORDERED;
  }
  if (post != post0) free(post);
  free(w); free(inv);
  return ok;
}

/* F = A' on the pool's threads (see the file comment).  Local. */
static void sym_transpose(sym_job *j, k_lle_pool *pool, int nt) {
  int64_t n = j->n, nnz = j->ap[n];
  HY_CALLOC(j->fp, n + 1); HY_MALLOC(j->fi, nnz); HY_MALLOC(j->fill, n);
  k_lle_pool_for(pool, nt, n, sym_fcount, j);
  for (int64_t c = 0; c < n; c++) j->fp[c + 1] += j->fp[c];
  memcpy(j->fill, j->fp, (size_t)n * sizeof *j->fill);
  k_lle_pool_for(pool, nt, n, sym_ffill, j);
  k_lle_pool_for(pool, nt, n, sym_fsort, j);
}

/* Seconds since *t into parts[i] (parts NULL: nothing); *t reset.  Local. */
static void sym_lap(double *parts, int i, double *t) {
  double now = MPI_Wtime();
  if (parts) parts[i] = now - *t;
  *t = now;
}

/* The steps (see the file comment): the supernodal symbolic factor, or NULL with
 * cc->status set; tree: the supernodal pattern by lle_cnd_super.  Local. */
static cholmod_factor *sym_steps_kind(const cnd_sym_in *in, cholmod_common *cc, int tree) {
  int64_t n = in->n;
  sym_job j = { .n = n, .ap = in->ap, .ai = in->ai };
  SuiteSparse_long *parent = NULL, *post = NULL, *colcount = NULL, *first = NULL, *level = NULL, *ilp = NULL;
  double t = MPI_Wtime();
  sym_transpose(&j, in->pool, in->threads);
  sym_lap(in->parts, 0, &t);
  HY_MALLOC(parent, n); HY_MALLOC(post, n); HY_MALLOC(colcount, n); HY_MALLOC(first, n); HY_MALLOC(level, n);
  cholmod_sparse f = sym_pattern(n, j.fp, j.fi), s = sym_pattern(n, (SuiteSparse_long *)in->ap, (SuiteSparse_long *)in->ai);
  cholmod_factor *L = NULL;
  int ok = 1, done = 0;
  if (tree) {   /* the etree and counts on the threads where the order's segments allow it */
    cnd_counts_in ci = { .n = n, .ap = in->ap, .ai = in->ai, .fp = j.fp, .fi = j.fi, .segs = in->segs,
                         .nseg = in->nseg, .pool = in->pool, .threads = in->threads };
    double ts[2] = { 0, 0 };
    int rc = lle_cnd_tree_counts(&ci, parent, colcount, cc, ts);
    ok = rc >= 0; done = rc == 1;
    if (in->parts) { in->parts[7] = done; in->parts[1] = ts[0]; in->parts[2] = ts[1]; in->parts[3] = 0; }
    t = MPI_Wtime();
  }
  if (ok && !done) {
    ok = cholmod_l_etree(&f, parent, cc);
    sym_lap(in->parts, 1, &t);
    ok = ok && cholmod_l_postorder(parent, (size_t)n, NULL, post, cc) == n;
    sym_lap(in->parts, 2, &t);
    ok = ok && cholmod_l_rowcolcounts(&s, NULL, 0, parent, post, NULL, colcount, first, level, cc);
    sym_lap(in->parts, 3, &t);
  }
  if (ok) L = cholmod_l_allocate_factor((size_t)n, cc);
  if (ok && L && done) {   /* the weighted postorder over the segments too (CHOLMOD's, exactly) */
    cnd_counts_in ci = { .n = n, .ap = in->ap, .ai = in->ai, .fp = j.fp, .fi = j.fi, .segs = in->segs,
                         .nseg = in->nseg, .pool = in->pool, .threads = in->threads };
    if (!lle_cnd_tree_postorder(&ci, parent, colcount, post)) done = 0;
  }
  ok = ok && L && sym_postorder(n, parent, colcount, L, cc, done ? post : NULL, in->pool, in->threads);
  sym_lap(in->parts, 4, &t);
  if (ok) {   /* F2 = A(p,:)' and S2 = F2' */
    HY_MALLOC(ilp, n);
    j.lp = L->Perm;
    j.ilp = ilp;
    HY_MALLOC(j.f2p, n + 1); HY_MALLOC(j.f2i, in->ap[n]); HY_MALLOC(j.s2i, in->ap[n]);
    k_lle_pool_for(in->pool, in->threads, n, sym_inv_len, &j);   /* L->Perm's inverse, F2's column lengths */
    j.f2p[0] = 0;
    for (int64_t c = 0; c < n; c++) j.f2p[c + 1] += j.f2p[c];
    k_lle_pool_for(in->pool, in->threads, n, sym_f2, &j);
    k_lle_pool_for(in->pool, in->threads, n, sym_s2, &j);
    sym_lap(in->parts, 5, &t);
    cholmod_sparse f2 = sym_pattern(n, j.f2p, j.f2i), s2 = sym_pattern(n, (SuiteSparse_long *)in->ap, j.s2i);
    cnd_super_in si = { .n = n, .ap = in->ap, .s2i = j.s2i, .f2p = j.f2p, .f2i = j.f2i, .pool = in->pool,
                        .threads = in->threads };
    ok = tree ? lle_cnd_super(&si, parent, L, cc) : cholmod_l_super_symbolic2(1, &s2, &f2, parent, L, cc);
    sym_lap(in->parts, 6, &t);
  }
  if (!ok) cholmod_l_free_factor(&L, cc);
  free(parent); free(post); free(colcount); free(first); free(level); free(ilp);
  free(j.fp); free(j.fi); free(j.fill); free(j.f2p); free(j.f2i); free(j.s2i);
  return L;
}

/* The steps with CHOLMOD's supernodal pattern (cnd_symbolic = steps).  Local. */
static cholmod_factor *sym_steps(const cnd_sym_in *in, cholmod_common *cc) { return sym_steps_kind(in, cc, 0); }

/* The steps with the supernodal pattern on the threads (cnd_symbolic = tree).  Local. */
static cholmod_factor *sym_tree(const cnd_sym_in *in, cholmod_common *cc) { return sym_steps_kind(in, cc, 1); }

/* One cholmod_l_analyze call on A (natural ordering, postordered, supernodal).  Local. */
static cholmod_factor *sym_cholmod(const cnd_sym_in *in, cholmod_common *cc) {
  cholmod_sparse a = sym_pattern(in->n, (SuiteSparse_long *)in->ap, (SuiteSparse_long *)in->ai);
  return cholmod_l_analyze(&a, cc);
}

/* 0 where the two symbolic factors are the same (every field the numeric factor and the
 * solves read), else 1 + the first that differs.  Local. */
static int sym_compare(const cholmod_factor *a, const cholmod_factor *b) {
  if (a->n != b->n || a->nsuper != b->nsuper || a->ssize != b->ssize || a->xsize != b->xsize ||
      a->maxcsize != b->maxcsize || a->maxesize != b->maxesize || a->ordering != b->ordering || !a->is_super ||
      !b->is_super)
    return 1;
  size_t n = a->n, ns = a->nsuper + 1;
  if (memcmp(a->Perm, b->Perm, n * sizeof(SuiteSparse_long))) return 2;
  if (memcmp(a->ColCount, b->ColCount, n * sizeof(SuiteSparse_long))) return 3;
  if (memcmp(a->super, b->super, ns * sizeof(SuiteSparse_long))) return 4;
  if (memcmp(a->pi, b->pi, ns * sizeof(SuiteSparse_long))) return 5;
  if (memcmp(a->px, b->px, ns * sizeof(SuiteSparse_long))) return 6;
  if (memcmp(a->s, b->s, a->ssize * sizeof(SuiteSparse_long))) return 7;
  return 0;
}

/* The analysis by in->variant (lle.cnd_symbolic); with in->check also cholmod_analyze's (steps'
 * where the kind is cholmod), compared field by field (*diff: 0 the same, else the first
 * field that differs; -1 not compared) and CHOLMOD's flop and nonzero counts checked equal.
 * NULL with cc->status set on failure.  Local. */
cholmod_factor *lle_cnd_analyze(const cnd_sym_in *in, cholmod_common *cc, int *diff) {
  static const cnd_sym_kind kinds[] = { { "cholmod", sym_cholmod }, { "steps", sym_steps }, { "tree", sym_tree } };
  int kind = in->variant >= CND_SYM_CHOLMOD && in->variant <= CND_SYM_TREE ? in->variant : CND_SYM_STEPS;
  const cnd_sym_kind *k = &kinds[kind], *other = &kinds[kind == CND_SYM_CHOLMOD ? CND_SYM_STEPS : CND_SYM_CHOLMOD];
  *diff = -1;
  cholmod_factor *L = k->analyze(in, cc);
  if (!L || !in->check) return L;
  double fl = cc->fl, lnz = cc->lnz;
  cnd_sym_in in2 = *in;
  in2.parts = NULL;   /* the parts are the chosen analysis's */
  cholmod_factor *L2 = other->analyze(&in2, cc);
  *diff = L2 ? sym_compare(L, L2) : 8;
  if (!*diff && (cc->fl != fl || cc->lnz != lnz)) *diff = 9;
  cc->fl = fl; cc->lnz = lnz;
  cholmod_l_free_factor(&L2, cc);
  return L;
}
