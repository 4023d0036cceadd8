/* lle_kdtree.c - exact K nearest neighbours through a KD-tree on the host: median splits on
 * the widest coordinate, buckets of up to 16 points, depth-first search pruned by the distance
 * to the splitting plane.  Distances are computed exactly as the brute-force kernel does and
 * pruning only skips subtrees strictly farther than the current K-th neighbour, so the result
 * (including ties broken by index) equals the brute-force one. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KD_LEAF 16

typedef struct {
  int32_t lo, hi;       /* range in perm */
  int32_t left, right;  /* children, -1 for a leaf */
  int dim;
  double split;
} kd_node;

typedef struct {
  const double *x;
  int dim;
  int32_t *perm;
  kd_node *node;
  int32_t nnode, cap;
} kd_tree;

/* Partition perm[lo..hi) around its median in coordinate c (quickselect).  Local. */
static void kd_select(kd_tree *t, int32_t lo, int32_t hi, int32_t mid, int c) {
  int32_t *p = t->perm;
  const double *x = t->x;
  int dim = t->dim;
  while (hi - lo > 1) {
    double pv = x[(int64_t)p[lo + (hi - lo) / 2] * dim + c];
    int32_t i = lo, j = hi - 1;
    while (i <= j) {
      while (x[(int64_t)p[i] * dim + c] < pv) i++;
      while (x[(int64_t)p[j] * dim + c] > pv) j--;
      if (i <= j) { int32_t s = p[i]; p[i] = p[j]; p[j] = s; i++; j--; }
    }
    if (mid <= j) hi = j + 1;
    else if (mid >= i) lo = i;
    else return;
  }
}

/* Build the subtree over perm[lo..hi); returns its node index.  Local. */
static int32_t kd_build(kd_tree *t, int32_t lo, int32_t hi) {
  int32_t id = t->nnode++;
  kd_node *nd = &t->node[id];
  nd->lo = lo; nd->hi = hi; nd->left = nd->right = -1; nd->dim = 0; nd->split = 0;
  if (hi - lo <= KD_LEAF) return id;
  int best = 0;
  double bw = -1;
  for (int c = 0; c < t->dim; c++) {
    double mn = INFINITY, mx = -INFINITY;
    for (int32_t i = lo; i < hi; i++) {
      double v = t->x[(int64_t)t->perm[i] * t->dim + c];
      if (v < mn) mn = v;
      if (v > mx) mx = v;
    }
    if (mx - mn > bw) { bw = mx - mn; best = c; }
  }
  if (!(bw > 0)) return id;   /* all points equal: one bucket */
  int32_t mid = lo + (hi - lo) / 2;
  kd_select(t, lo, hi, mid, best);
  double split = t->x[(int64_t)t->perm[mid] * t->dim + best];
  int32_t l = kd_build(t, lo, mid);
  int32_t r = kd_build(t, mid, hi);
  nd = &t->node[id];
  nd->dim = best; nd->split = split; nd->left = l; nd->right = r;
  return id;
}

/* ---- the build on threads: the top levels split here as kd_build splits them, the ranges
 * below become tasks built by kd_build into their own node arrays on the pool's threads, then
 * joined (the same splits and leaves whichever thread builds what: only the node numbering
 * differs, and the search does not depend on it) ---- */
enum { KD_PAR_MIN = 2048, KD_MAXTASK = 128 };
typedef struct {
  int32_t lo, hi, slot;   /* the range, the placeholder node in the top */
  kd_tree sub;            /* its nodes (root at 0) */
} kd_task;

/* kd_build down to depth (or below KD_PAR_MIN points), the ranges below queued.  Local. */
static int32_t kd_build_top(kd_tree *t, int32_t lo, int32_t hi, int depth, kd_task *tk, int *ntk) {
  if ((depth <= 0 || hi - lo < KD_PAR_MIN) && *ntk < KD_MAXTASK) {
    int32_t id = t->nnode++;
    t->node[id] = (kd_node){ lo, hi, -1, -1, 0, 0 };
    tk[(*ntk)++] = (kd_task){ .lo = lo, .hi = hi, .slot = id };
    return id;
  }
  int32_t id = t->nnode++;
  kd_node *nd = &t->node[id];
  nd->lo = lo; nd->hi = hi; nd->left = nd->right = -1; nd->dim = 0; nd->split = 0;
  if (hi - lo <= KD_LEAF) return id;
  int best = 0;
  double bw = -1;
  for (int c = 0; c < t->dim; c++) {
    double mn = INFINITY, mx = -INFINITY;
    for (int32_t i = lo; i < hi; i++) {
      double v = t->x[(int64_t)t->perm[i] * t->dim + c];
      if (v < mn) mn = v;
      if (v > mx) mx = v;
    }
    if (mx - mn > bw) { bw = mx - mn; best = c; }
  }
  if (!(bw > 0)) return id;
  int32_t mid = lo + (hi - lo) / 2;
  kd_select(t, lo, hi, mid, best);
  double split = t->x[(int64_t)t->perm[mid] * t->dim + best];
  int32_t l = kd_build_top(t, lo, mid, depth - 1, tk, ntk);
  int32_t r = kd_build_top(t, mid, hi, depth - 1, tk, ntk);
  nd = &t->node[id];
  nd->dim = best; nd->split = split; nd->left = l; nd->right = r;
  return id;
}

/* The tasks' build job: task i on thread i mod nt. */
typedef struct {
  kd_task *tk;
  int ntk;
} kd_build_job;

/* Thread tid's tasks (their node arrays allocated by the caller).  Local. */
static void kd_build_run(void *arg, int tid, int nt) {
  kd_build_job *j = arg;
  for (int i = tid; i < j->ntk; i += nt) kd_build(&j->tk[i].sub, j->tk[i].lo, j->tk[i].hi);
}

/* The tree over perm[0..n) on threads threads of pool: t->node holds the top's nodes (cap
 * t->cap); replaced by the joined array.  Local. */
static int kd_build_par(kd_tree *t, int32_t n, k_lle_pool *pool, int threads) {
  kd_task tk[KD_MAXTASK];
  int ntk = 0, depth = 1;
  while ((1 << depth) < threads && depth < 6) depth++;   /* a task a thread: median splits make them equal */
  kd_build_top(t, 0, n, depth, tk, &ntk);
  int rc = HY_OK;
  for (int i = 0; i < ntk; i++) {
    int32_t m = tk[i].hi - tk[i].lo;
    tk[i].sub = (kd_tree){ t->x, t->dim, t->perm, NULL, 0, (int32_t)(2 * (m / (KD_LEAF / 2) + 1) + 1) };
    tk[i].sub.node = malloc((size_t)tk[i].sub.cap * sizeof *tk[i].sub.node);
    if (!tk[i].sub.node) rc = hy_err(HY_ESYS, "out of memory for the KD-tree");
  }
  if (rc == HY_OK) {
    kd_build_job j = { tk, ntk };
    k_lle_pool_run(pool, threads, kd_build_run, &j);
    int64_t total = t->nnode;
    for (int i = 0; i < ntk; i++) total += tk[i].sub.nnode - 1;
    kd_node *all = malloc((size_t)total * sizeof *all);
    if (!all) rc = hy_err(HY_ESYS, "out of memory for the KD-tree");
    else {
      memcpy(all, t->node, (size_t)t->nnode * sizeof *all);
      int32_t off = t->nnode;
      for (int i = 0; i < ntk; i++) {   /* local 0 -> the slot, local c >= 1 -> off + c - 1 */
        const kd_tree *s = &tk[i].sub;
        for (int32_t c = 0; c < s->nnode; c++) {
          kd_node nd = s->node[c];
          if (nd.left >= 0) nd.left = off + nd.left - 1;
          if (nd.right >= 0) nd.right = off + nd.right - 1;
          all[c == 0 ? tk[i].slot : off + c - 1] = nd;
        }
        off += s->nnode - 1;
      }
      free(t->node);
      t->node = all;
      t->nnode = (int32_t)total;
      t->cap = (int32_t)total;
    }
  }
  for (int i = 0; i < ntk; i++) free(tk[i].sub.node);
  return rc;
}

typedef struct {
  double *dl;
  int32_t *il;
  int k;
  int64_t q;
  const double *xq;
} kd_query;

/* Depth-first search of node for the query.  Local. */
static void kd_search(const kd_tree *t, int32_t id, kd_query *s) {
  const kd_node *nd = &t->node[id];
  int dim = t->dim, k = s->k;
  if (nd->left < 0) {
    for (int32_t i = nd->lo; i < nd->hi; i++) {
      int32_t j = t->perm[i];
      if (j == s->q) continue;
      const double *xj = t->x + (int64_t)j * dim;
      double sum = 0;
      for (int c = 0; c < dim; c++) { double d = xj[c] - s->xq[c]; sum += d * d; }
      double *dl = s->dl;
      int32_t *il = s->il;
      if (sum > dl[k - 1] || (sum == dl[k - 1] && j > il[k - 1])) continue;
      int p = k - 1;
      while (p > 0 && (dl[p - 1] > sum || (dl[p - 1] == sum && il[p - 1] > j))) {
        dl[p] = dl[p - 1]; il[p] = il[p - 1]; p--;
      }
      dl[p] = sum; il[p] = j;
    }
    return;
  }
  /* points left of the split have coordinate <= split, right ones >= split */
  double diff = s->xq[nd->dim] - nd->split;
  int32_t first = diff < 0 ? nd->left : nd->right, second = diff < 0 ? nd->right : nd->left;
  kd_search(t, first, s);
  if (diff * diff <= s->dl[k - 1]) kd_search(t, second, s);
}

/* The tree over all points (k_lle_kdtree_new): built once, queried by blocks of queries on
 * any number of threads (each query independent: the same lists at any thread count). */
struct k_lle_kdtree {
  kd_tree t;
};

void k_lle_kdtree_free(k_lle_kdtree *kt);

/* Build the tree over p's points (p->x must outlive it) into *out, on threads threads of
 * pool (NULL: the caller's thread; the same tree either way).  Local. */
int k_lle_kdtree_new(const k_lle_points *p, k_lle_pool *pool, int threads, k_lle_kdtree **out) {
  *out = NULL;
  if (p->n > INT32_MAX) return hy_err(HY_EUSAGE, "kdtree: %lld points exceed 2^31", (long long)p->n);
  k_lle_kdtree *kt = calloc(1, sizeof *kt);
  if (!kt) return hy_err(HY_ESYS, "out of memory for the KD-tree");
  kd_tree *t = &kt->t;
  *t = (kd_tree){ p->x, p->dim, NULL, NULL, 0, 0 };
  t->perm = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *t->perm);
  t->cap = (int32_t)(2 * (p->n / (KD_LEAF / 2) + 1) + 1);
  t->node = malloc((size_t)t->cap * sizeof *t->node);
  if (!t->perm || !t->node) {
    free(t->perm); free(t->node); free(kt);
    return hy_err(HY_ESYS, "out of memory for the KD-tree");
  }
  for (int64_t i = 0; i < p->n; i++) t->perm[i] = (int32_t)i;
  if (pool && threads > 1 && p->n >= 2 * KD_PAR_MIN) {
    if (threads > k_lle_pool_size(pool)) threads = k_lle_pool_size(pool);
    int rc = kd_build_par(t, (int32_t)p->n, pool, threads);
    if (rc != HY_OK) { k_lle_kdtree_free(kt); return rc; }
  } else
    kd_build(t, 0, (int32_t)p->n);
  *out = kt;
  return HY_OK;
}

/* Free the tree (NULL allowed).  Local. */
void k_lle_kdtree_free(k_lle_kdtree *kt) {
  if (!kt) return;
  free(kt->t.perm);
  free(kt->t.node);
  free(kt);
}

/* k_lle_kdtree_query's job: the tree, the queries' first index, the lists. */
typedef struct {
  const kd_tree *t;
  int64_t q0;
  int k;
  int32_t *nbr;
  double *d2;
} kd_job;

/* Queries q0 + [i0, i1).  Local. */
static void kd_query_part(void *arg, int64_t i0, int64_t i1) {
  const kd_job *j = arg;
  const kd_tree *t = j->t;
  for (int64_t i = i0; i < i1; i++) {
    int64_t q = j->q0 + i;
    kd_query s = { j->d2 + i * j->k, j->nbr + i * j->k, j->k, q, t->x + q * t->dim };
    for (int c = 0; c < j->k; c++) { s.dl[c] = INFINITY; s.il[c] = INT32_MAX; }
    kd_search(t, 0, &s);
  }
}

/* Neighbours of queries q0..q1-1 by the tree, split over threads threads of pool (NULL: the
 * caller's thread alone).  Local. */
int k_lle_kdtree_query(const k_lle_kdtree *kt, k_lle_pool *pool, int threads, int64_t q0, int64_t q1, int k,
                       int32_t *nbr, double *d2) {
  kd_job j = { &kt->t, q0, k, nbr, d2 };
  if (!pool || threads < 2 || q1 - q0 < 2 * threads) kd_query_part(&j, 0, q1 - q0);
  else k_lle_pool_for(pool, threads, q1 - q0, kd_query_part, &j);
  return HY_OK;
}

/* Neighbours of queries q0..q1-1 by a KD-tree built for the call, on the caller's thread.  Local. */
int k_lle_kdtree_knn(const k_lle_points *p, int64_t q0, int64_t q1, int k, int32_t *nbr, double *d2) {
  k_lle_kdtree *kt = NULL;
  HY_CALL(k_lle_kdtree_new(p, NULL, 1, &kt));
  int rc = k_lle_kdtree_query(kt, NULL, 1, q0, q1, k, nbr, d2);
  k_lle_kdtree_free(kt);
  return rc;
}
