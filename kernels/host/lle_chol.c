/* lle_chol.c - the numeric supernodal Cholesky factor of chol-nd (lle.cnd_factor = own):
 * L L^T = P (A A^T + tau I) P^T on a supernodal symbolic factor in CHOLMOD's layout
 * (k_lle_super), the values written where CHOLMOD's own factor writes them, so its solves
 * and everything after work unchanged.
 *
 * Left-looking: supernode s assembles its columns of A A^T + tau I from A's CSC (M never
 * formed: column j of A A^T is the sum over the columns c of A with A_jc != 0 of A_jc A(:, c),
 * c ascending), subtracts the update L_d(rows >= s's first column, :) L_d(s's columns, :)^T of
 * every descendant d with rows in its columns, d ascending (dgemm into a scratch block in row
 * chunks, scattered by s's relative row map), then dpotrf and dtrsm.
 *
 * Scheduled over the supernodal elimination tree (postordered: a subtree is the contiguous
 * index range first[r]..r, and every updater of s is in s's subtree): the tree is cut from
 * the roots down, the heaviest subtree (flops) split while it is heavier than a thread's share
 * of what is left below the cut; the subtrees below the cut run on the threads, one BLAS
 * thread each, each subtree by one thread in ascending order (the heaviest first); then the
 * supernodes above the cut ("top": the big separators, fewer independent tasks than threads)
 * one after another in ascending order, each one's assembly split by columns and its updates
 * split by rows over the threads (one BLAS thread each: the BLAS count is process-wide in
 * OpenBLAS, so it is switched between these phases only, never while a thread calls BLAS),
 * its dpotrf / dtrsm on top_blas BLAS threads.  Every entry gets the same operations in the
 * same order whichever thread computes it; only the top's dpotrf / dtrsm use a threaded BLAS.
 * With in->top (lle.cnd_top = device) the top supernodes are assembled and updated from below
 * the cut on the threads as above, and the engine (the backend's chol_top) applies their
 * updates among themselves and factors them (k_lle_chol_top).
 * The threads are a persistent pool (k_lle_pool, lle_pool.c: the caller's or the plan's own):
 * each phase is one job on it (no thread start), the top phase's meeting points its spinning
 * barrier (no futex sleep while the next supernode follows within microseconds).
 * No file-scope state, no MPI. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
                   const int *ldc, size_t, size_t);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
extern void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m, const int *n,
                   const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t, size_t,
                   size_t, size_t);

/* rows of an update block; threads at most; a top supernode's dpotrf / dtrsm get one BLAS
 * thread per CH_BLAS_COLS columns (at most top_blas) */
enum { CH_RCH = 64, CH_MAXT = 64, CH_BLAS_COLS = 256 };

typedef struct k_lle_chol_plan ch_fact;
typedef struct ch_thr ch_thr;
static void ch_open_discard(ch_fact *f);
typedef void (*ch_step)(ch_fact *f, ch_thr *t, int64_t s);   /* one supernode's step */
static void ch_tail_pack(ch_fact *f, int64_t s);
static k_lle_chol_plan *ch_plan_init(k_lle_chol_plan *f, const k_lle_super *L, int threads, k_lle_pool *pool, double cut);

/* One thread's scratch: its row map, update block and gather block. */
struct ch_thr {
  ch_fact *f;
  int tid;
  int32_t *map;           /* n: L row -> local row of the supernode in work */
  double *c;              /* CH_RCH x maxcols */
  double *tb;             /* the backward solve's gather: maxrows x nrhs */
};

/* The plan (structure, schedule, scratch) and the call in work. */
struct k_lle_chol_plan {
  const k_lle_super *L;
  int32_t *smap;          /* n: the supernode of each column */
  int32_t *parent, *first;   /* ns: the supernodal tree, a subtree's first supernode */
  double *wsub;           /* ns: flops of the subtree */
  int64_t *uptr;          /* ns + 1: the updaters of s are ud/up1/up2[uptr[s] .. uptr[s + 1]) */
  int32_t *ud, *up1, *up2;   /* updater d and its rows' positions [p1, p2) in s's columns */
  int32_t *sub;           /* the subtrees' roots below the cut, heaviest first */
  int32_t *top;           /* the supernodes above the cut, ascending */
  int nsub, ntop, nt;
  double cut;             /* the cut's depth: split while heavier than below / (nt cut); 1 by default */
  const int32_t *roots;   /* NULL: the tree's roots; else the plan's domain, these subtrees (k_lle_chol_plan_new_roots) */
  int nroots;
  int64_t maxcols, maxrows;   /* the widest supernode, the tallest */
  ch_thr thr[CH_MAXT];
  /* the numeric factor's matrix: A by rows (row j is atc/atx[atp[j] .. atp[j + 1])), perm's inverse */
  const k_lle_chol_in *in;
  int64_t *atp;
  int32_t *atc;
  double *atx;
  int32_t *ilp;
  int64_t *tfill;         /* ch_transpose's next slot of each row */
  /* the top phase on another engine (in->top): the top index of each supernode (-1: below the
   * cut) and the updaters among the top (k_lle_chol_top's lists) */
  int32_t *tpos, *tud, *tup1, *tup2, *trmap;
  int64_t *tuptr, *trptr;
  /* and (in->top_below) the tails of the supernodes below that update the top, the pairs */
  int64_t ntail;
  int32_t *tail_sn, *tail_q, *bud, *bup1, *bup2, *brmap;
  int64_t *buptr, *brptr;
  int32_t *tix;           /* ns: the tail of each supernode below, or -1 */
  int32_t *sub_of;        /* ns: the subtree (index in sub) of each supernode below the cut, -1 above */
  const unsigned char *mine;   /* the call's subtrees (k_lle_chol_in.sub_mine), NULL: all */
  int64_t *toff;          /* ntail + 1: tail t at tailx + toff[t] */
  double *tailx;          /* the tails packed, by the subtree phase as each supernode is done */
  /* the top kept on the engine for the solves (in->top_solve): its state, the factor's job, the
   * packed X blocks (top columns, tails' columns) and their row offsets */
  void *top_state;
  void (*top_release)(void *state);
  k_lle_chol_top top_job;
  /* the engine opened beside the subtree phase (in->top_open): its thread, job and result, the
   * drop of a state the top did not take (in->top_drop) */
  pthread_t open_th;
  int open_started, open_rc;
  k_lle_chol_top open_job;
  int (*open_fn)(k_backend *be, k_lle_chol_top *job);
  k_backend *open_be;
  void (*open_drop)(void *state);
  int64_t *xoff, *yoff;
  double *xtop, *xtail;
  int x_cols;
  /* the call in work */
  double *lx;             /* the factor's values */
  double *xb;             /* the solve's block (n x nrhs) */
  int nrhs, tb_cols;      /* its columns; the gather buffers' */
  double *tb;             /* the top's shared gather block */
  atomic_int next;        /* the next subtree to take */
  atomic_llong blk_next;  /* the top phase: the next row block of the supernode in work */
  atomic_int fail;        /* 0, or 1 + the first failing column (a non-positive pivot) */
  ch_step node, pre, part, post;   /* the phases' steps */
  ch_step post_all;       /* the top phase: post on every thread where ch_post_all says so */
  int solve_tiles;        /* the solves' triangular solves of wide supernodes by tiles */
  int small;              /* blocks of fewer columns by ch_small_* loops (k_lle_chol_in.small_cols) */
  int desc;               /* the phase descending (the backward solve) */
  int stop;               /* the top phase: leave (a failed pivot), set by thread 0 */
  k_lle_pool *pool;       /* the threads (the plan's own where pool_own) */
  int pool_own;
};

/* Wall seconds (CLOCK_MONOTONIC).  Local. */
static double ch_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The updaters of every supernode (d ascending), the tree, the subtrees' flops.  Local. */
static int ch_structure(ch_fact *f) {
  const k_lle_super *L = f->L;
  int64_t ns = L->nsuper;
  HY_MALLOC(f->smap, L->n);
  HY_MALLOC(f->parent, ns); HY_MALLOC(f->first, ns); HY_CALLOC(f->wsub, ns); HY_CALLOC(f->uptr, ns + 1);
  for (int64_t s = 0; s < ns; s++)
    for (int64_t j = L->super[s]; j < L->super[s + 1]; j++) f->smap[j] = (int32_t)s;
  for (int pass = 0; pass < 2; pass++) {   /* count, then fill (d ascending within each list) */
    int64_t *fill = NULL;
    if (pass) {
      for (int64_t s = 0; s < ns; s++) f->uptr[s + 1] += f->uptr[s];
      HY_MALLOC(fill, ns + 1);
      memcpy(fill, f->uptr, (size_t)(ns + 1) * sizeof *fill);
      HY_MALLOC(f->ud, f->uptr[ns]); HY_MALLOC(f->up1, f->uptr[ns]); HY_MALLOC(f->up2, f->uptr[ns]);
    }
    for (int64_t d = 0; d < ns; d++) {
      const int64_t *rows = L->s + L->pi[d];
      int64_t nr = L->pi[d + 1] - L->pi[d], nc = L->super[d + 1] - L->super[d];
      for (int64_t p = nc; p < nr;) {
        int32_t t = f->smap[rows[p]];
        int64_t q = p;
        while (q < nr && rows[q] < L->super[t + 1]) q++;
        if (!pass) f->uptr[t + 1]++;
        else {
          int64_t at = fill[t]++;
          f->ud[at] = (int32_t)d; f->up1[at] = (int32_t)p; f->up2[at] = (int32_t)q;
          f->wsub[t] += 2.0 * (double)(nr - p) * (double)(q - p) * (double)nc;
        }
        p = q;
      }
    }
    free(fill);
  }
  f->maxcols = 1;
  for (int64_t s = 0; s < ns; s++) {
    int64_t nr = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
    f->parent[s] = nr > nc ? f->smap[L->s[L->pi[s] + nc]] : -1;
    f->first[s] = (int32_t)s;
    if (nc > f->maxcols) f->maxcols = nc;
    f->wsub[s] += (double)nc * nc * nc / 3.0 + (double)nc * nc * (double)(nr - nc);
  }
  int ok = 1;
  for (int64_t s = 0; s < ns && ok; s++) {   /* postordered: parents later, subtrees contiguous */
    int32_t p = f->parent[s];
    if (p >= 0 && p <= s) ok = 0;
    else if (p >= 0) {
      f->wsub[p] += f->wsub[s];
      if (f->first[s] < f->first[p]) f->first[p] = f->first[s];
    }
  }
  if (!ok) return hy_err(HY_ENUMERIC, "supernodal tree not postordered (a parent before its child)");
  int32_t *cnt = NULL;   /* a subtree is contiguous where its count is its range's length */
  HY_MALLOC(cnt, ns);
  for (int64_t s = 0; s < ns; s++) cnt[s] = 1;
  for (int64_t s = 0; s < ns; s++) if (f->parent[s] >= 0) cnt[f->parent[s]] += cnt[s];
  for (int64_t s = 0; s < ns && ok; s++) ok = cnt[s] == s - f->first[s] + 1;
  free(cnt);
  if (!ok) return hy_err(HY_ENUMERIC, "supernodal tree not postordered (a subtree not contiguous)");
  return HY_OK;
}

/* ch_transpose's job on thread tid of nt: A's columns [n tid / nt, n (tid + 1) / nt) counted
 * into the rows (atomic), a barrier, thread 0's prefix, a barrier, the entries put into their
 * rows' slots (atomic), a barrier, then the rows [same split] sorted by column: each row's
 * columns ascending with their values, the serial transpose's result at any thread count.  Local. */
static void ch_transpose_job(void *arg, int tid, int nt) {
  ch_fact *f = arg;
  const k_lle_chol_in *in = f->in;
  int64_t n = f->L->n, c0 = n * tid / nt, c1 = n * (tid + 1) / nt;
  for (int64_t e = in->ap[c0]; e < in->ap[c1]; e++) __atomic_fetch_add(&f->atp[in->ai[e] + 1], 1, __ATOMIC_RELAXED);
  k_lle_pool_barrier(f->pool, nt);
  if (tid == 0) {
    for (int64_t j = 0; j < n; j++) f->atp[j + 1] += f->atp[j];
    memcpy(f->tfill, f->atp, (size_t)n * sizeof *f->tfill);
  }
  k_lle_pool_barrier(f->pool, nt);
  for (int64_t c = c0; c < c1; c++)
    for (int64_t e = in->ap[c]; e < in->ap[c + 1]; e++) {
      int64_t at = __atomic_fetch_add(&f->tfill[in->ai[e]], 1, __ATOMIC_RELAXED);
      f->atc[at] = (int32_t)c; f->atx[at] = in->ax[e];
    }
  k_lle_pool_barrier(f->pool, nt);
  for (int64_t j = c0; j < c1; j++)   /* insertion sort by column (short, nearly sorted rows) */
    for (int64_t q = f->atp[j] + 1; q < f->atp[j + 1]; q++) {
      int32_t c = f->atc[q];
      double x = f->atx[q];
      int64_t b = q - 1;
      while (b >= f->atp[j] && f->atc[b] > c) { f->atc[b + 1] = f->atc[b]; f->atx[b + 1] = f->atx[b]; b--; }
      f->atc[b + 1] = c; f->atx[b + 1] = x;
    }
  for (int64_t t = c0; t < c1; t++) f->ilp[in->perm[t]] = (int32_t)t;
}

/* A by rows (A^T's CSC: columns c ascending within a row) and perm's inverse, on the plan's
 * threads.  Local. */
static void ch_transpose(ch_fact *f) {
  int64_t n = f->L->n, nnz = f->in->ap[n];
  HY_CALLOC(f->atp, n + 1);
  HY_MALLOC(f->atc, nnz); HY_MALLOC(f->atx, nnz); HY_MALLOC(f->ilp, n); HY_MALLOC(f->tfill, n);
  k_lle_pool_run(f->pool, n < 4096 ? 1 : f->nt, ch_transpose_job, f);
  free(f->tfill);
  f->tfill = NULL;
}

/* The cut: from the roots down, the heaviest subtree below it split (moved above, its
 * children below) while it is heavier than a thread's share of what is below and has
 * children; one thread: no cut.  Subtrees heaviest first; the top ascending.  Local. */
static void ch_schedule(ch_fact *f) {
  int64_t ns = f->L->nsuper;
  char *above = NULL;
  int32_t *fr = NULL;
  HY_CALLOC(above, ns);
  HY_MALLOC(fr, ns);
  HY_MALLOC(f->top, ns);
  int nf = 0;
  double below = 0;
  if (f->roots)   /* the domain: these subtrees (nothing outside them is the plan's) */
    for (int i = 0; i < f->nroots; i++) { fr[nf++] = f->roots[i]; below += f->wsub[f->roots[i]]; }
  else
    for (int64_t s = 0; s < ns; s++) if (f->parent[s] < 0) { fr[nf++] = (int32_t)s; below += f->wsub[s]; }
  int32_t *kids = NULL;   /* children lists, for the splits */
  int64_t *kp = NULL;
  HY_CALLOC(kp, ns + 1);
  for (int64_t s = 0; s < ns; s++) if (f->parent[s] >= 0) kp[f->parent[s] + 1]++;
  for (int64_t s = 0; s < ns; s++) kp[s + 1] += kp[s];
  HY_MALLOC(kids, kp[ns] + 1);
  int64_t *fill = NULL;
  HY_MALLOC(fill, ns);
  memcpy(fill, kp, (size_t)ns * sizeof *fill);
  for (int64_t s = 0; s < ns; s++) if (f->parent[s] >= 0) kids[fill[f->parent[s]]++] = (int32_t)s;
  free(fill);
  while (f->nt * f->cut > 1 && nf > 0) {
    int h = 0;
    for (int i = 1; i < nf; i++) if (f->wsub[fr[i]] > f->wsub[fr[h]]) h = i;
    int32_t s = fr[h];
    if (f->wsub[s] <= below / (f->nt * f->cut) || kp[s + 1] == kp[s]) break;
    above[s] = 1;
    double own = f->wsub[s];
    fr[h] = fr[--nf];
    for (int64_t q = kp[s]; q < kp[s + 1]; q++) { fr[nf++] = kids[q]; own -= f->wsub[kids[q]]; }
    below -= own;
  }
  for (int i = 1; i < nf; i++)   /* heaviest first (insertion sort; ties by index) */
    for (int j = i; j > 0 && (f->wsub[fr[j]] > f->wsub[fr[j - 1]] ||
                              (f->wsub[fr[j]] == f->wsub[fr[j - 1]] && fr[j] < fr[j - 1])); j--) {
      int32_t t = fr[j]; fr[j] = fr[j - 1]; fr[j - 1] = t;
    }
  f->sub = fr;
  f->nsub = nf;
  f->ntop = 0;
  for (int64_t s = 0; s < ns; s++) if (above[s]) f->top[f->ntop++] = (int32_t)s;
  free(above); free(kids); free(kp);
}

/* Supernode s's columns [c0, c1) of P (A A^T + tau I) P^T into its block (zeroed by the
 * caller), lower part only; map: L row -> s's local row.  Local. */
static void ch_assemble(const ch_fact *f, int64_t s, const int32_t *map, int64_t c0, int64_t c1) {
  const k_lle_super *L = f->L;
  const k_lle_chol_in *in = f->in;
  int64_t fc = L->super[s], lda = L->pi[s + 1] - L->pi[s];
  double *blk = f->lx + L->px[s];
  for (int64_t col = c0; col < c1; col++) {
    int64_t t = fc + col, j = in->perm[t];
    double *bc = blk + col * lda;
    for (int64_t q = f->atp[j]; q < f->atp[j + 1]; q++) {
      int64_t c = f->atc[q];
      double a = f->atx[q];
      for (int64_t e = in->ap[c]; e < in->ap[c + 1]; e++) {
        int64_t ti = f->ilp[in->ai[e]];
        if (ti >= t) bc[map[ti]] += a * in->ax[e];
      }
    }
    bc[col] += in->tau;
  }
}

/* First position q in [lo, hi) of d's rows whose local row in s is >= r (map monotonic).  Local. */
static int64_t ch_row_search(const int64_t *rows, const int32_t *map, int64_t lo, int64_t hi, int64_t r) {
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (map[rows[mid]] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* s -= L_d(rows, :) L_d([p1, p2), :)^T for d's rows (positions >= p1) whose local rows in s
 * are in [r0, r1) (multiples of CH_RCH, or the block's end), the lower part: one dgemm into
 * c (CH_RCH x maxcols) per CH_RCH-row block of s's rows, so the calls (and so the bits) are
 * the same however the rows are split over threads.  Local. */
static void ch_update(const ch_fact *f, int64_t s, int64_t d, int64_t p1, int64_t p2, int64_t r0, int64_t r1,
                      const int32_t *map, double *c) {
  const k_lle_super *L = f->L;
  int64_t fc = L->super[s], lda = L->pi[s + 1] - L->pi[s], nr = L->pi[d + 1] - L->pi[d];
  int ldd = (int)nr, kd = (int)(L->super[d + 1] - L->super[d]);
  const int64_t *rows = L->s + L->pi[d];
  const double *ld = f->lx + L->px[d];
  double *blk = f->lx + L->px[s];
  const double one = 1, zero = 0;
  int64_t a = r0 > 0 ? ch_row_search(rows, map, p1, nr, r0) : p1;
  int64_t qend = r1 < lda ? ch_row_search(rows, map, a, nr, r1) : nr;
  while (a < qend) {
    int64_t b = ch_row_search(rows, map, a, qend, (map[rows[a]] / CH_RCH + 1) * CH_RCH);
    int64_t pc = p2 < b ? p2 : b;
    int m = (int)(b - a), nc = (int)(pc - p1);
    dgemm_("N", "T", &m, &nc, &kd, &one, ld + a, &ldd, ld + p1, &ldd, &zero, c, &m, 1, 1);
    for (int jj = 0; jj < nc; jj++) {
      int64_t col = rows[p1 + jj] - fc;
      double *bc = blk + col * lda;
      const double *cc = c + (size_t)jj * m;
      for (int ii = 0; ii < m; ii++) {
        int64_t r = map[rows[a + ii]];
        if (r >= col) bc[r] -= cc[ii];
      }
    }
    a = b;
  }
}

/* dpotrf of s's diagonal block and dtrsm of the rows below; a non-positive pivot recorded
 * in f->fail (1 + the column).  Local. */
static void ch_factor_diag(ch_fact *f, int64_t s) {
  const k_lle_super *L = f->L;
  int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]), info = 0;
  double *blk = f->lx + L->px[s];
  dpotrf_("L", &nc, blk, &lda, &info, 1);
  if (info != 0) {
    int want = 0, col = (int)(L->super[s] + (info > 0 ? info - 1 : 0)) + 1;
    atomic_compare_exchange_strong(&f->fail, &want, col);
    return;
  }
  int m = lda - nc;
  const double one = 1;
  if (m > 0) dtrsm_("R", "L", "T", "N", &m, &nc, &one, blk, &lda, blk + nc, &lda, 1, 1, 1, 1);
}

/* ---- lle.cnd_top = tiles: s's block factored by CH_RCH-wide tiles (right-looking), the
 * same tiles and calls whether one thread or all do it ---- */

extern void dsyrk_(const char *uplo, const char *tr, const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *beta, double *c, const int *ldc, size_t, size_t);

/* ---- small blocks (k_lle_chol_in.small_cols, lle.cnd_small): plain loops instead of the
 * LAPACK / BLAS calls, whose fixed costs (argument checks, packing, a dpotf2 of BLAS-1/2 calls)
 * exceed the work of a block of a few dozen columns (N = 20k: 1127 of 1375 supernodes have at
 * most 16 columns); right-looking, the inner loops down contiguous columns ---- */

/* dpotrf("L") of the kb x kb block a (leading dimension lda): 0, or 1 + the column of the
 * first non-positive pivot.  Local. */
static int ch_small_potrf(double *a, int lda, int kb) {
  for (int j = 0; j < kb; j++) {
    double *aj = a + (size_t)j * lda, d = aj[j];
    if (!(d > 0)) return j + 1;
    d = sqrt(d);
    aj[j] = d;
    for (int i = j + 1; i < kb; i++) aj[i] /= d;
    for (int c = j + 1; c < kb; c++) {
      double *ac = a + (size_t)c * lda, l = aj[c];
      for (int i = c; i < kb; i++) ac[i] -= aj[i] * l;
    }
  }
  return 0;
}

/* B := B L^-T (dtrsm "R", "L", "T", "N"): B m x kb (ldb), L kb x kb lower (lda).  Local. */
static void ch_small_trsm_rlt(const double *l, int lda, int kb, double *b, int ldb, int m) {
  for (int j = 0; j < kb; j++) {
    double *bj = b + (size_t)j * ldb, d = 1.0 / l[(size_t)j * lda + j];
    for (int i = 0; i < m; i++) bj[i] *= d;
    for (int c = j + 1; c < kb; c++) {
      double *bc = b + (size_t)c * ldb, lc = l[(size_t)j * lda + c];
      for (int i = 0; i < m; i++) bc[i] -= bj[i] * lc;
    }
  }
}

/* X := L^-1 X (trans "N") or L^-T X ("T") for nrhs columns of X (ldx), L nc x nc lower (lda),
 * nc <= 64: CH_SW columns of X at a time copied into a row-major nc x CH_SW block, the solve
 * across them (the inner loops over the right-hand sides), the diagonal's reciprocals once.  Local. */
enum { CH_SW = 8 };
static void ch_small_trsm_l(const double *l, int lda, int nc, const char *trans, double *x, int ldx, int nrhs) {
  double xb[64 * CH_SW], inv[64];
  for (int j = 0; j < nc; j++) inv[j] = 1.0 / l[(size_t)j * lda + j];
  for (int r0 = 0; r0 < nrhs; r0 += CH_SW) {
    int w = nrhs - r0 < CH_SW ? nrhs - r0 : CH_SW;
    for (int i = 0; i < nc; i++)
      for (int r = 0; r < CH_SW; r++) xb[i * CH_SW + r] = r < w ? x[(size_t)(r0 + r) * ldx + i] : 0;
    if (trans[0] == 'N')
      for (int j = 0; j < nc; j++) {
        const double *lj = l + (size_t)j * lda;
        double *vj = xb + j * CH_SW;
        for (int r = 0; r < CH_SW; r++) vj[r] *= inv[j];
        for (int i = j + 1; i < nc; i++) {
          double li = lj[i], *vi = xb + i * CH_SW;
          for (int r = 0; r < CH_SW; r++) vi[r] -= li * vj[r];
        }
      }
    else
      for (int j = nc - 1; j >= 0; j--) {
        const double *lj = l + (size_t)j * lda;
        double *vj = xb + j * CH_SW;
        for (int i = j + 1; i < nc; i++) {
          double li = lj[i];
          const double *vi = xb + i * CH_SW;
          for (int r = 0; r < CH_SW; r++) vj[r] -= li * vi[r];
        }
        for (int r = 0; r < CH_SW; r++) vj[r] *= inv[j];
      }
    for (int i = 0; i < nc; i++)
      for (int r = 0; r < w; r++) x[(size_t)(r0 + r) * ldx + i] = xb[i * CH_SW + r];
  }
}

/* Step k's diagonal tile: dpotrf (kb columns); a non-positive pivot recorded.  Local. */
static void ch_tile_diag(ch_fact *f, int64_t s, int64_t k, int kb) {
  const k_lle_super *L = f->L;
  int lda = (int)(L->pi[s + 1] - L->pi[s]), info = 0;
  double *a = f->lx + L->px[s] + k * lda + k;
  if (kb < f->small) info = ch_small_potrf(a, lda, kb);
  else dpotrf_("L", &kb, a, &lda, &info, 1);
  if (info != 0) {
    int want = 0, col = (int)(L->super[s] + k + (info > 0 ? info - 1 : 0)) + 1;
    atomic_compare_exchange_strong(&f->fail, &want, col);
  }
}

/* Step k's panel: row block i below the diagonal tile (rows k + kb + i CH_RCH ..), dtrsm.  Local. */
static void ch_tile_panel(ch_fact *f, int64_t s, int64_t k, int kb, int64_t i) {
  const k_lle_super *L = f->L;
  int64_t lda = L->pi[s + 1] - L->pi[s], r = k + kb + i * CH_RCH;
  int m = (int)(r + CH_RCH < lda ? CH_RCH : lda - r), ilda = (int)lda;
  double *blk = f->lx + L->px[s];
  const double one = 1;
  if (kb < f->small) ch_small_trsm_rlt(blk + k * lda + k, ilda, kb, blk + k * lda + r, ilda, m);
  else dtrsm_("R", "L", "T", "N", &m, &kb, &one, blk + k * lda + k, &ilda, blk + k * lda + r, &ilda, 1, 1, 1, 1);
}

/* Step k's panel row blocks.  Local. */
static int64_t ch_tile_npanel(const ch_fact *f, int64_t s, int64_t k, int kb) {
  int64_t lda = f->L->pi[s + 1] - f->L->pi[s];
  return (lda - k - kb + CH_RCH - 1) / CH_RCH;
}

/* Step k's trailing tasks: per column tile j (from k + kb) its diagonal tile (dsyrk) and the
 * row blocks below it (dgemm); task q of them.  Local. */
static void ch_tile_trail(ch_fact *f, int64_t s, int64_t k, int kb, int64_t q) {
  const k_lle_super *L = f->L;
  int64_t lda = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
  double *blk = f->lx + L->px[s];
  const double one = 1, mone = -1;
  int ilda = (int)lda;
  for (int64_t j = k + kb; j < nc; j += CH_RCH) {
    int jb = (int)(j + CH_RCH < nc ? CH_RCH : nc - j);
    int64_t cnt = 1 + (lda - j - jb + CH_RCH - 1) / CH_RCH;
    if (q >= cnt) { q -= cnt; continue; }
    if (q == 0) {
      dsyrk_("L", "N", &jb, &kb, &mone, blk + k * lda + j, &ilda, &one, blk + j * lda + j, &ilda, 1, 1);
      return;
    }
    int64_t r = j + jb + (q - 1) * CH_RCH;
    int m = (int)(r + CH_RCH < lda ? CH_RCH : lda - r);
    dgemm_("N", "T", &m, &jb, &kb, &mone, blk + k * lda + r, &ilda, blk + k * lda + j, &ilda, &one,
           blk + j * lda + r, &ilda, 1, 1);
    return;
  }
}

/* Step k's trailing task count.  Local. */
static int64_t ch_tile_ntrail(const ch_fact *f, int64_t s, int64_t k, int kb) {
  int64_t lda = f->L->pi[s + 1] - f->L->pi[s], nc = f->L->super[s + 1] - f->L->super[s], cnt = 0;
  for (int64_t j = k + kb; j < nc; j += CH_RCH) {
    int64_t jb = j + CH_RCH < nc ? CH_RCH : nc - j;
    cnt += 1 + (lda - j - jb + CH_RCH - 1) / CH_RCH;
  }
  return cnt;
}

/* s's block factored by tiles on one thread.  Local. */
static void ch_tile_serial(ch_fact *f, int64_t s) {
  int64_t nc = f->L->super[s + 1] - f->L->super[s];
  for (int64_t k = 0; k < nc && !atomic_load(&f->fail); k += CH_RCH) {
    int kb = (int)(k + CH_RCH < nc ? CH_RCH : nc - k);
    ch_tile_diag(f, s, k, kb);
    if (atomic_load(&f->fail)) return;
    for (int64_t i = 0, np = ch_tile_npanel(f, s, k, kb); i < np; i++) ch_tile_panel(f, s, k, kb, i);
    for (int64_t q = 0, nq = ch_tile_ntrail(f, s, k, kb); q < nq; q++) ch_tile_trail(f, s, k, kb, q);
  }
}

/* s's block factored by tiles on all the threads (every thread calls it: barriers inside;
 * the tasks of a step from the shared counter).  Local. */
static void ch_tile_parallel(ch_fact *f, ch_thr *t, int64_t s) {
  int64_t nc = f->L->super[s + 1] - f->L->super[s];
  for (int64_t k = 0; k < nc; k += CH_RCH) {
    int kb = (int)(k + CH_RCH < nc ? CH_RCH : nc - k);
    k_lle_pool_barrier(f->pool, f->nt);
    if (t->tid == 0) { ch_tile_diag(f, s, k, kb); atomic_store(&f->blk_next, 0); }
    k_lle_pool_barrier(f->pool, f->nt);
    if (atomic_load(&f->fail)) return;   /* every thread sees it after the barrier */
    for (int64_t np = ch_tile_npanel(f, s, k, kb), i; (i = atomic_fetch_add(&f->blk_next, 1)) < np;)
      ch_tile_panel(f, s, k, kb, i);
    k_lle_pool_barrier(f->pool, f->nt);
    if (t->tid == 0) atomic_store(&f->blk_next, 0);
    k_lle_pool_barrier(f->pool, f->nt);
    for (int64_t nq = ch_tile_ntrail(f, s, k, kb), q; (q = atomic_fetch_add(&f->blk_next, 1)) < nq;)
      ch_tile_trail(f, s, k, kb, q);
  }
}

/* s's row map: L row -> local row.  Local. */
static void ch_map(const ch_fact *f, int64_t s, int32_t *map) {
  const k_lle_super *L = f->L;
  for (int64_t r = L->pi[s]; r < L->pi[s + 1]; r++) map[L->s[r]] = (int32_t)(r - L->pi[s]);
}

/* ---- the two phases, for the factor and both solves ---- */

/* The subtree phase's job on thread tid: subtrees from the shared counter, each in ascending
 * order (f->desc: descending), f->node on each supernode.  Local. */
static void ch_sub_job(void *arg, int tid, int nt) {
  ch_fact *f = arg;
  ch_thr *t = &f->thr[tid];
  (void)nt;
  for (;;) {
    int i = atomic_fetch_add(&f->next, 1);
    if (i >= f->nsub || atomic_load(&f->fail)) break;
    if (f->mine && !f->mine[i]) continue;   /* another rank's subtree */
    int64_t r = f->sub[i], a = f->first[r];
    for (int64_t k = 0; k <= r - a && !atomic_load(&f->fail); k++) f->node(f, t, f->desc ? r - k : a + k);
  }
}

/* The subtrees below the cut on the pool's threads, node on each supernode.  Local. */
static void ch_sub_phase(ch_fact *f, ch_step node, int desc) {
  f->node = node;
  f->desc = desc;
  atomic_store(&f->next, 0);
  k_lle_pool_run(f->pool, f->nt < f->nsub ? f->nt : f->nsub, ch_sub_job, f);
}

/* 1 where the top phase's post step of s runs on every thread (f->post_all: the solves'
 * triangular solve by tiles, lle.cnd_solve_trsm = tiles, for s of at least CH_BLAS_COLS
 * columns); the same answer on every thread.  Local. */
static int ch_post_all(const ch_fact *f, int64_t s) {
  return f->post_all && f->L->super[s + 1] - f->L->super[s] >= CH_BLAS_COLS;
}

/* The top phase's job on thread tid of f->nt: the supernodes above the cut one by one
 * (ascending, or descending): pre on thread 0, a barrier, part on every thread (its share), a
 * barrier, post on thread 0; thread 0 decides before the first barrier whether to stop (a
 * failed pivot), so that all leave together.  Local. */
static void ch_top_job(void *arg, int tid, int nt) {
  ch_fact *f = arg;
  ch_thr *t = &f->thr[tid];
  for (int i = 0; i < f->ntop; i++) {
    int64_t s = f->top[f->desc ? f->ntop - 1 - i : i];
    if (tid == 0) {
      f->stop = atomic_load(&f->fail) != 0;
      if (!f->stop && f->pre) f->pre(f, t, s);
    }
    k_lle_pool_barrier(f->pool, nt);
    if (f->stop) break;
    f->part(f, t, s);
    k_lle_pool_barrier(f->pool, nt);
    if (ch_post_all(f, s)) f->post_all(f, t, s);   /* every thread (barriers inside) */
    else if (tid == 0) f->post(f, t, s);
  }
}

/* The supernodes above the cut on all f->nt threads (see ch_top_job).  Local. */
static void ch_top_phase(ch_fact *f, ch_step pre, ch_step part, ch_step post, int desc) {
  f->pre = pre; f->part = part; f->post = post;
  f->desc = desc;
  f->stop = 0;
  k_lle_pool_run(f->pool, f->nt, ch_top_job, f);
  f->post_all = NULL;
}

/* Thread t's share [b0, b1) of nb blocks.  Local. */
static void ch_share(const ch_fact *f, const ch_thr *t, int64_t nb, int64_t *b0, int64_t *b1) {
  *b0 = nb * t->tid / f->nt;
  *b1 = nb * (t->tid + 1) / f->nt;
}

/* ---- the numeric factor's steps ---- */

/* Supernode s by one thread: assemble, every update, factor.  Local. */
static void ch_fact_node(ch_fact *f, ch_thr *t, int64_t s) {
  const k_lle_super *L = f->L;
  int64_t lda = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
  memset(f->lx + L->px[s], 0, (size_t)(lda * nc) * sizeof(double));
  ch_map(f, s, t->map);
  ch_assemble(f, s, t->map, 0, nc);
  for (int64_t u = f->uptr[s]; u < f->uptr[s + 1]; u++)
    ch_update(f, s, f->ud[u], f->up1[u], f->up2[u], 0, lda, t->map, t->c);
  if (f->in->top_tiles) ch_tile_serial(f, s);
  else ch_factor_diag(f, s);
  if (f->in->top_below && f->in->top && f->tix && f->tix[s] >= 0) ch_tail_pack(f, s);   /* for the engine */
}

/* A top supernode's row map and its block counter (the caller's thread).  Local. */
static void ch_fact_pre(ch_fact *f, ch_thr *t, int64_t s) {
  ch_map(f, s, t->map);
  atomic_store(&f->blk_next, 0);
}

/* Thread t's share of a top supernode: its columns zeroed and assembled, a barrier, then
 * CH_RCH-row blocks' updates taken from a shared counter (each block's arithmetic is the
 * same whichever thread takes it).  Local. */
static void ch_fact_part(ch_fact *f, ch_thr *t, int64_t s) {
  const k_lle_super *L = f->L;
  int64_t nt = f->nt, lda = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
  const int32_t *map0 = f->thr[0].map;
  int64_t c0 = nc * t->tid / nt, c1 = nc * (t->tid + 1) / nt;   /* its columns zeroed (first touch) and assembled */
  memset(f->lx + L->px[s] + c0 * lda, 0, (size_t)((c1 - c0) * lda) * sizeof(double));
  ch_assemble(f, s, map0, c0, c1);
  k_lle_pool_barrier(f->pool, f->nt);
  /* the CH_RCH-row blocks from a shared counter, the bottom (full-width, heaviest) first */
  int64_t nb = (lda + CH_RCH - 1) / CH_RCH;
  for (;;) {
    int64_t b = atomic_fetch_add(&f->blk_next, 1);
    if (b >= nb) break;
    int64_t r0 = (nb - 1 - b) * CH_RCH, r1 = r0 + CH_RCH < lda ? r0 + CH_RCH : lda;
    for (int64_t u = f->uptr[s]; u < f->uptr[s + 1]; u++)
      if (!f->in->top || (!f->in->top_below && f->tpos[f->ud[u]] < 0))   /* an engine: from below only, or none */
        ch_update(f, s, f->ud[u], f->up1[u], f->up2[u], r0, r1, map0, t->c);
  }
  if (f->in->top_tiles && !f->in->top) ch_tile_parallel(f, t, s);
}

/* A top supernode's dpotrf / dtrsm on min(top_blas, its columns / CH_BLAS_COLS) BLAS
 * threads (the others wait): OpenBLAS's threads cost more than they give on small blocks.  Local. */
static void ch_fact_post(ch_fact *f, ch_thr *t, int64_t s) {
  const k_lle_chol_in *in = f->in;
  (void)t;
  if (in->top_tiles || in->top) return;   /* factored by tiles in ch_fact_part, or by the engine */
  int64_t nc = f->L->super[s + 1] - f->L->super[s], bt = nc / CH_BLAS_COLS;
  if (bt > in->top_blas) bt = in->top_blas;
  if (in->blas_set && bt > 1) in->blas_set((int)bt);
  ch_factor_diag(f, s);
  if (in->blas_set && bt > 1) in->blas_set(1);
}

/* ---- the solves L Y = B, L^T X = Y on n x nrhs blocks in L's order ---- */

/* First position q in [lo, hi) with rows[q] >= r.  Local. */
static int64_t ch_lower(const int64_t *rows, int64_t lo, int64_t hi, int64_t r) {
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (rows[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Forward, s's columns in blocks [b0, b1) of CH_RCH: X(s's columns) -= L_d(those rows, :)
 * X(d's columns) for every updater d (ascending), one dgemm a block, so the calls are the
 * same however the blocks are split.  Local. */
static void ch_fwd_cols(ch_fact *f, ch_thr *t, int64_t s, int64_t b0, int64_t b1) {
  const k_lle_super *L = f->L;
  int64_t fs = L->super[s], nc = L->super[s + 1] - fs, n = L->n;
  int64_t c0 = fs + b0 * CH_RCH, c1 = fs + (b1 * CH_RCH < nc ? b1 * CH_RCH : nc);
  int nrhs = f->nrhs, ldx = (int)n;
  const double one = 1, zero = 0;
  for (int64_t u = f->uptr[s]; u < f->uptr[s + 1]; u++) {
    int64_t d = f->ud[u], p2 = f->up2[u];
    const int64_t *rows = L->s + L->pi[d];
    int ldd = (int)(L->pi[d + 1] - L->pi[d]), kd = (int)(L->super[d + 1] - L->super[d]);
    const double *ld = f->lx + L->px[d];
    int64_t a = ch_lower(rows, f->up1[u], p2, c0), qe = ch_lower(rows, a, p2, c1);
    while (a < qe) {
      int64_t b = ch_lower(rows, a, qe, fs + ((rows[a] - fs) / CH_RCH + 1) * CH_RCH);
      int m = (int)(b - a);
      dgemm_("N", "N", &m, &nrhs, &kd, &one, ld + a, &ldd, f->xb + L->super[d], &ldx, &zero, t->c, &m, 1, 1);
      for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < m; i++) f->xb[(size_t)c * n + rows[a + i]] -= t->c[(size_t)c * m + i];
      a = b;
    }
  }
}

static void ch_fwd_tiles(ch_fact *f, int64_t s, int tid, int nt);
static void ch_bwd_tiles(ch_fact *f, int64_t s, int tid, int nt);

/* X(s's columns) = L_11^-1 X(s's columns) (forward) or L_11^-T (backward): by tiles on this
 * thread where f->solve_tiles and s has at least CH_BLAS_COLS columns (the calls the top
 * phase makes on all threads: the same bits wherever s falls), else one dtrsm.  Local. */
static void ch_trsm(ch_fact *f, int64_t s, const char *trans) {
  if (f->solve_tiles && f->L->super[s + 1] - f->L->super[s] >= CH_BLAS_COLS) {
    if (trans[0] == 'N') ch_fwd_tiles(f, s, 0, 1);
    else ch_bwd_tiles(f, s, 0, 1);
    return;
  }
  const k_lle_super *L = f->L;
  int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]), ldx = (int)L->n;
  const double one = 1;
  if (nc < f->small) ch_small_trsm_l(f->lx + L->px[s], lda, nc, trans, f->xb + L->super[s], ldx, f->nrhs);
  else dtrsm_("L", "L", trans, "N", &nc, &f->nrhs, &one, f->lx + L->px[s], &lda, f->xb + L->super[s], &ldx, 1, 1, 1, 1);
}

/* Backward, s's columns in blocks [b0, b1): X(s's columns) -= L_21^T T, T = X(s's rows
 * below its columns) gathered in tb.  Local. */
static void ch_bwd_cols(ch_fact *f, int64_t s, int64_t b0, int64_t b1, const double *tb) {
  const k_lle_super *L = f->L;
  int64_t fs = L->super[s], nc = L->super[s + 1] - fs, lda = L->pi[s + 1] - L->pi[s];
  int m2 = (int)(lda - nc), ldx = (int)L->n, ilda = (int)lda;
  const double one = 1, mone = -1;
  if (m2 <= 0) return;
  for (int64_t b = b0; b < b1; b++) {
    int64_t j0 = b * CH_RCH, j1 = j0 + CH_RCH < nc ? j0 + CH_RCH : nc;
    int w = (int)(j1 - j0);
    dgemm_("T", "N", &w, &f->nrhs, &m2, &mone, f->lx + L->px[s] + nc + j0 * lda, &ilda, tb, &m2, &one,
           f->xb + fs + j0, &ldx, 1, 1);
  }
}

/* T = X(s's rows below its columns) into tb.  Local. */
static void ch_gather(const ch_fact *f, int64_t s, double *tb) {
  const k_lle_super *L = f->L;
  int64_t nc = L->super[s + 1] - L->super[s], m2 = L->pi[s + 1] - L->pi[s] - nc;
  const int64_t *rows = L->s + L->pi[s] + nc;
  for (int c = 0; c < f->nrhs; c++)
    for (int64_t i = 0; i < m2; i++) tb[(size_t)c * m2 + i] = f->xb[(size_t)c * L->n + rows[i]];
}

/* Number of CH_RCH blocks of s's columns.  Local. */
static int64_t ch_nblk(const ch_fact *f, int64_t s) {
  return (f->L->super[s + 1] - f->L->super[s] + CH_RCH - 1) / CH_RCH;
}

/* Forward supernode s by one thread.  Local. */
static void ch_fwd_node(ch_fact *f, ch_thr *t, int64_t s) {
  ch_fwd_cols(f, t, s, 0, ch_nblk(f, s));
  ch_trsm(f, s, "N");
}

/* Forward: thread t's blocks of a top supernode.  Local. */
static void ch_fwd_part(ch_fact *f, ch_thr *t, int64_t s) {
  int64_t b0, b1;
  ch_share(f, t, ch_nblk(f, s), &b0, &b1);
  if (b0 < b1) ch_fwd_cols(f, t, s, b0, b1);
}

/* Forward / backward: a top supernode's triangular solve (one BLAS thread).  Local. */
static void ch_fwd_post(ch_fact *f, ch_thr *t, int64_t s) { (void)t; ch_trsm(f, s, "N"); }
static void ch_bwd_post(ch_fact *f, ch_thr *t, int64_t s) { (void)t; ch_trsm(f, s, "T"); }

/* Forward, X(s's columns) = L_11^-1 X by CH_RCH tiles on threads tid of nt (a top supernode
 * on every thread of the phase, or 0 of 1): thread 0 the diagonal tile's dtrsm, a barrier,
 * the row blocks below it updated (block b by thread b mod nt, one dgemm each), a barrier;
 * each block gets the same calls in the same order at any thread count.  Local. */
static void ch_fwd_tiles(ch_fact *f, int64_t s, int tid, int nt) {
  const k_lle_super *L = f->L;
  int lda = (int)(L->pi[s + 1] - L->pi[s]), ldx = (int)L->n, nrhs = f->nrhs;
  int64_t nc = L->super[s + 1] - L->super[s];
  const double *a = f->lx + L->px[s];
  double *x = f->xb + L->super[s];
  const double one = 1, mone = -1;
  for (int64_t k0 = 0; k0 < nc; k0 += CH_RCH) {
    int kb = (int)(k0 + CH_RCH < nc ? CH_RCH : nc - k0);
    if (tid == 0) dtrsm_("L", "L", "N", "N", &kb, &nrhs, &one, a + k0 * lda + k0, &lda, x + k0, &ldx, 1, 1, 1, 1);
    k_lle_pool_barrier(f->pool, nt);
    int64_t nb = (nc - k0 - kb + CH_RCH - 1) / CH_RCH;
    for (int64_t b = tid; b < nb; b += nt) {
      int64_t i0 = k0 + kb + b * CH_RCH;
      int ib = (int)(i0 + CH_RCH < nc ? CH_RCH : nc - i0);
      dgemm_("N", "N", &ib, &nrhs, &kb, &mone, a + k0 * lda + i0, &lda, x + k0, &ldx, &one, x + i0, &ldx, 1, 1);
    }
    k_lle_pool_barrier(f->pool, nt);
  }
}

/* Backward, X(s's columns) = L_11^-T X by tiles from the last on threads tid of nt: thread 0
 * the diagonal tile's dtrsm, a barrier, the row blocks above it updated by L_11(tile rows,
 * block)^T (block b by thread b mod nt), a barrier.  Local. */
static void ch_bwd_tiles(ch_fact *f, int64_t s, int tid, int nt) {
  const k_lle_super *L = f->L;
  int lda = (int)(L->pi[s + 1] - L->pi[s]), ldx = (int)L->n, nrhs = f->nrhs, ib = CH_RCH;
  int64_t nc = L->super[s + 1] - L->super[s], ntile = (nc + CH_RCH - 1) / CH_RCH;
  const double *a = f->lx + L->px[s];
  double *x = f->xb + L->super[s];
  const double one = 1, mone = -1;
  for (int64_t kt = ntile - 1; kt >= 0; kt--) {
    int64_t k0 = kt * CH_RCH;
    int kb = (int)(k0 + CH_RCH < nc ? CH_RCH : nc - k0);
    if (tid == 0) dtrsm_("L", "L", "T", "N", &kb, &nrhs, &one, a + k0 * lda + k0, &lda, x + k0, &ldx, 1, 1, 1, 1);
    k_lle_pool_barrier(f->pool, nt);
    for (int64_t b = tid; b < kt; b += nt)
      dgemm_("T", "N", &ib, &nrhs, &kb, &mone, a + b * CH_RCH * lda + k0, &lda, x + k0, &ldx, &one, x + b * CH_RCH, &ldx,
             1, 1);
    k_lle_pool_barrier(f->pool, nt);
  }
}

/* The top phase's post steps by tiles on every thread of the phase.  Local. */
static void ch_fwd_post_tiles(ch_fact *f, ch_thr *t, int64_t s) { ch_fwd_tiles(f, s, t->tid, f->nt); }
static void ch_bwd_post_tiles(ch_fact *f, ch_thr *t, int64_t s) { ch_bwd_tiles(f, s, t->tid, f->nt); }

/* Backward supernode s by one thread.  Local. */
static void ch_bwd_node(ch_fact *f, ch_thr *t, int64_t s) {
  ch_gather(f, s, t->tb);
  ch_bwd_cols(f, s, 0, ch_nblk(f, s), t->tb);
  ch_trsm(f, s, "T");
}

/* Backward: a top supernode's T gathered into the shared buffer (the caller's thread).  Local. */
static void ch_bwd_pre(ch_fact *f, ch_thr *t, int64_t s) { (void)t; ch_gather(f, s, f->tb); }

/* Backward: thread t's blocks of a top supernode.  Local. */
static void ch_bwd_part(ch_fact *f, ch_thr *t, int64_t s) {
  int64_t b0, b1;
  ch_share(f, t, ch_nblk(f, s), &b0, &b1);
  if (b0 < b1) ch_bwd_cols(f, s, b0, b1, f->tb);
}

/* ---- the plan ---- */

/* Free the plan.  Local. */
void k_lle_chol_plan_free(k_lle_chol_plan *f) {
  if (!f) return;
  for (int t = 0; t < f->nt; t++) { free(f->thr[t].map); free(f->thr[t].c); free(f->thr[t].tb); }
  free(f->smap); free(f->parent); free(f->first); free(f->wsub); free(f->uptr);
  free(f->ud); free(f->up1); free(f->up2); free(f->atp); free(f->atc); free(f->atx); free(f->ilp);
  free(f->sub); free(f->top); free(f->tb); free((void *)f->roots);
  free(f->tpos); free(f->tud); free(f->tup1); free(f->tup2); free(f->trmap); free(f->tuptr); free(f->trptr);
  free(f->tail_sn); free(f->tail_q); free(f->bud); free(f->bup1); free(f->bup2); free(f->brmap); free(f->buptr);
  ch_open_discard(f);
  if (f->top_state && f->top_release) f->top_release(f->top_state);   /* before tailx: the state may lock it */
  free(f->brptr); free(f->tix); free(f->sub_of); free(f->toff); free(f->tailx);
  free(f->xoff); free(f->yoff); free(f->xtop); free(f->xtail);
  if (f->pool_own) k_lle_pool_free(f->pool);
  free(f);
}

/* The structure, the cut for threads threads (at most the pool's; pool NULL: the plan's
 * own pool of threads threads) and the threads' scratch; NULL (hy_err recorded) where the
 * tree is not postordered.  Local. */
k_lle_chol_plan *k_lle_chol_plan_new(const k_lle_super *L, int threads, k_lle_pool *pool) {
  return k_lle_chol_plan_new_cut(L, threads, pool, 1.0);
}

/* k_lle_chol_plan_new with the cut cut times deeper (see k_lle.h).  Local. */
k_lle_chol_plan *k_lle_chol_plan_new_cut(const k_lle_super *L, int threads, k_lle_pool *pool, double cut) {
  k_lle_chol_plan *f = NULL;
  HY_CALLOC(f, 1);
  return ch_plan_init(f, L, threads, pool, cut);
}

/* The plan f (allocated, its domain set) for L: structure, cut, scratch.  Local. */
static k_lle_chol_plan *ch_plan_init(k_lle_chol_plan *f, const k_lle_super *L, int threads, k_lle_pool *pool, double cut) {
  f->L = L;
  f->cut = cut > 0 ? cut : 1;
  f->nt = threads < 1 ? 1 : threads > CH_MAXT ? CH_MAXT : threads;
  if (!pool && f->nt > 1) { pool = k_lle_pool_new(f->nt); f->pool_own = 1; }
  f->pool = pool;
  if (f->nt > k_lle_pool_size(pool)) {   /* fewer threads than asked: the same cut (threads x cut) */
    f->cut *= (double)f->nt / k_lle_pool_size(pool);
    f->nt = k_lle_pool_size(pool);
  }
  if (ch_structure(f) != HY_OK) { k_lle_chol_plan_free(f); return NULL; }
  ch_schedule(f);
  f->maxrows = 1;
  for (int64_t s = 0; s < L->nsuper; s++) if (L->pi[s + 1] - L->pi[s] > f->maxrows) f->maxrows = L->pi[s + 1] - L->pi[s];
  for (int t = 0; t < f->nt; t++) {
    f->thr[t].f = f; f->thr[t].tid = t;
    HY_MALLOC(f->thr[t].map, L->n);
    HY_MALLOC(f->thr[t].c, (size_t)CH_RCH * f->maxcols);
  }
  return f;
}

/* k_lle_chol_plan_new_cut on the subtrees rooted at roots[0 .. nroots) alone (see k_lle.h).  Local. */
k_lle_chol_plan *k_lle_chol_plan_new_roots(const k_lle_super *L, int threads, k_lle_pool *pool, double cut,
                                           const int32_t *roots, int nroots) {
  int32_t *own = NULL;
  HY_MALLOC(own, nroots + 1);
  memcpy(own, roots, (size_t)nroots * sizeof *own);
  ch_fact *f = NULL;
  HY_CALLOC(f, 1);
  f->roots = own;
  f->nroots = nroots;
  return ch_plan_init(f, L, threads, pool, cut);
}

/* The plan's figures: subtrees, top supernodes, threads, flops in all and above the cut.  Local. */
static void ch_stats(const ch_fact *f, k_lle_chol_stats *st) {
  memset(st, 0, sizeof *st);
  double below = 0;   /* the subtrees' flops: the rest is above the cut */
  for (int i = 0; i < f->nsub; i++) below += f->wsub[f->sub[i]];
  if (f->roots) for (int i = 0; i < f->nroots; i++) st->flops += f->wsub[f->roots[i]];
  else for (int64_t s = 0; s < f->L->nsuper; s++) if (f->parent[s] < 0) st->flops += f->wsub[s];
  st->top_flops = f->ntop ? st->flops - below : 0;
  st->nsub = f->nsub; st->ntop = f->ntop; st->threads = f->nt;
}

/* ---- the top phase on another engine (in->top, lle.cnd_top = device) ---- */

/* One kind of pair lists (k_lle_chol_top's): for each top supernode its updaters d with
 * (below ? tpos[d] < 0 : tpos[d] >= 0), d's index idx[d], its rows' positions and their local
 * rows in the top supernode (map: thread 0's n scratch).  Local. */
static void ch_pair_lists(ch_fact *f, int below, const int32_t *idx, int64_t **uptr, int32_t **ud, int32_t **up1,
                          int32_t **up2, int64_t **rptr, int32_t **rmap) {
  const k_lle_super *L = f->L;
  int64_t nu = 0, nr = 0;
  HY_CALLOC(*uptr, f->ntop + 1);
  for (int i = 0; i < f->ntop; i++)   /* count: updaters and their rows */
    for (int64_t u = f->uptr[f->top[i]]; u < f->uptr[f->top[i] + 1]; u++)
      if ((f->tpos[f->ud[u]] < 0) == below) { nu++; nr += L->pi[f->ud[u] + 1] - L->pi[f->ud[u]] - f->up1[u]; }
  HY_MALLOC(*ud, nu + 1); HY_MALLOC(*up1, nu + 1); HY_MALLOC(*up2, nu + 1);
  HY_MALLOC(*rptr, nu + 1); HY_MALLOC(*rmap, nr + 1);
  int32_t *map = f->thr[0].map;
  int64_t at = 0;
  (*rptr)[0] = 0;
  for (int i = 0; i < f->ntop; i++) {
    int64_t s = f->top[i];
    ch_map(f, s, map);
    for (int64_t u = f->uptr[s]; u < f->uptr[s + 1]; u++) {
      int64_t d = f->ud[u];
      if ((f->tpos[d] < 0) != below) continue;
      const int64_t *rows = L->s + L->pi[d];
      int64_t q = (*rptr)[at];
      for (int64_t p = f->up1[u]; p < L->pi[d + 1] - L->pi[d]; p++) (*rmap)[q++] = map[rows[p]];
      (*ud)[at] = idx[d]; (*up1)[at] = f->up1[u]; (*up2)[at] = f->up2[u];
      (*rptr)[++at] = q;
    }
    (*uptr)[i + 1] = at;
  }
}

/* The top index of every supernode and the updaters among the top supernodes with their rows'
 * local rows (k_lle_chol_top's lists).  Local. */
static void ch_tpos(ch_fact *f) {
  int64_t ns = f->L->nsuper;
  if (f->tpos) return;
  HY_MALLOC(f->tpos, ns);
  for (int64_t s = 0; s < ns; s++) f->tpos[s] = -1;
  for (int i = 0; i < f->ntop; i++) f->tpos[f->top[i]] = i;
}
static void ch_top_lists(ch_fact *f) {
  ch_tpos(f);
  ch_pair_lists(f, 0, f->tpos, &f->tuptr, &f->tud, &f->tup1, &f->tup2, &f->trptr, &f->trmap);
}

/* The tails of the supernodes below the cut with rows in the top (d ascending: the first
 * position whose row is a top supernode's column) and their packed offsets, once.  Local. */
static void ch_tail_index(ch_fact *f) {
  const k_lle_super *L = f->L;
  int64_t ns = L->nsuper;
  if (f->tix) return;
  ch_tpos(f);
  int32_t *tix = NULL;
  HY_MALLOC(tix, ns);
  f->tix = tix;
  HY_MALLOC(f->tail_sn, ns); HY_MALLOC(f->tail_q, ns);
  f->ntail = 0;
  for (int64_t d = 0; d < ns; d++) {
    tix[d] = -1;
    if (f->tpos[d] >= 0) continue;
    int64_t nc = L->super[d + 1] - L->super[d], lda = L->pi[d + 1] - L->pi[d];
    const int64_t *rows = L->s + L->pi[d];
    for (int64_t p = nc; p < lda; p++)
      if (f->tpos[f->smap[rows[p]]] >= 0) {
        tix[d] = (int32_t)f->ntail; f->tail_sn[f->ntail] = (int32_t)d; f->tail_q[f->ntail++] = (int32_t)p;
        break;
      }
  }
  HY_MALLOC(f->toff, f->ntail + 1);
  f->toff[0] = 0;
  for (int64_t t = 0; t < f->ntail; t++) {
    int64_t d = f->tail_sn[t];
    f->toff[t + 1] = f->toff[t] + (L->pi[d + 1] - L->pi[d] - f->tail_q[t]) * (L->super[d + 1] - L->super[d]);
  }
}
/* The tails and each top supernode's pairs with them and their rows' local rows
 * (k_lle_chol_top's below lists), the packed tails' storage.  Local. */
static void ch_below_lists(ch_fact *f) {
  ch_tail_index(f);
  ch_pair_lists(f, 1, f->tix, &f->buptr, &f->bud, &f->bup1, &f->bup2, &f->brptr, &f->brmap);
  HY_MALLOC(f->tailx, f->toff[f->ntail] + 1);
}

/* Supernode s's tail (its rows from the first top one, all its columns) into the packed
 * tails, once factored.  Local. */
static void ch_tail_pack(ch_fact *f, int64_t s) {
  const k_lle_super *L = f->L;
  int64_t t = f->tix[s], lda = L->pi[s + 1] - L->pi[s], q = f->tail_q[t], m = lda - q;
  const double *blk = f->lx + L->px[s];
  for (int64_t j = 0; j < L->super[s + 1] - L->super[s]; j++)
    memcpy(f->tailx + f->toff[t] + j * m, blk + j * lda + q, (size_t)m * sizeof(double));
}

/* ---- the top's assembly on the engine (in->top_assemble): its entry lists ---- */

/* The lists in work: the top's first column of each supernode (gcol[i], ntop + 1) and the
 * lists (k_lle_chol_top's eptr / erow / eval). */
typedef struct {
  const ch_fact *f;
  const int64_t *gcol;
  int64_t *eptr;
  int32_t *erow;
  double *eval;
} ch_elist;

/* The top supernode holding the top's column g (gcol[i] <= g < gcol[i + 1]).  Local. */
static int ch_elist_top(const ch_elist *el, int64_t g) {
  int lo = 0, hi = el->f->ntop - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (el->gcol[mid] <= g) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Columns [g0, g1): their entry counts into eptr[g + 1] (the products ch_assemble adds, and
 * tau).  Local. */
static void ch_elist_count(void *arg, int64_t g0, int64_t g1) {
  const ch_elist *el = arg;
  const ch_fact *f = el->f;
  const k_lle_chol_in *in = f->in;
  int i = g0 < g1 ? ch_elist_top(el, g0) : 0;
  for (int64_t g = g0; g < g1; g++) {
    while (g >= el->gcol[i + 1]) i++;
    int64_t t = f->L->super[f->top[i]] + g - el->gcol[i], j = in->perm[t], n = 1;
    for (int64_t q = f->atp[j]; q < f->atp[j + 1]; q++)
      for (int64_t e = in->ap[f->atc[q]]; e < in->ap[f->atc[q] + 1]; e++) n += f->ilp[in->ai[e]] >= t;
    el->eptr[g + 1] = n;
  }
}

/* Columns [g0, g1): their entries, in ch_assemble's order (a product each, tau last), the local
 * row by bisection in the supernode's rows (ascending).  Local. */
static void ch_elist_fill(void *arg, int64_t g0, int64_t g1) {
  const ch_elist *el = arg;
  const ch_fact *f = el->f;
  const k_lle_super *L = f->L;
  const k_lle_chol_in *in = f->in;
  int i = g0 < g1 ? ch_elist_top(el, g0) : 0;
  for (int64_t g = g0; g < g1; g++) {
    while (g >= el->gcol[i + 1]) i++;
    int64_t s = f->top[i], col = g - el->gcol[i], t = L->super[s] + col, j = in->perm[t], k = el->eptr[g];
    const int64_t *rows = L->s + L->pi[s];
    int64_t nr = L->pi[s + 1] - L->pi[s];
    for (int64_t q = f->atp[j]; q < f->atp[j + 1]; q++) {
      int64_t c = f->atc[q];
      double a = f->atx[q];
      for (int64_t e = in->ap[c]; e < in->ap[c + 1]; e++) {
        int64_t ti = f->ilp[in->ai[e]];
        if (ti < t) continue;
        int64_t lo = col, hi = nr;   /* rows[lo] <= ti: ti >= t, the column's own row at col */
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (rows[mid] < ti) lo = mid + 1;
          else hi = mid;
        }
        el->erow[k] = (int32_t)lo;
        el->eval[k++] = a * in->ax[e];
      }
    }
    el->erow[k] = (int32_t)col;
    el->eval[k] = in->tau;
  }
}

/* The top's entry lists into job (ncols, eptr, erow, eval: freed by the caller) on the
 * threads.  Local. */
static void ch_elists(ch_fact *f, k_lle_chol_top *job) {
  const k_lle_super *L = f->L;
  int64_t *gcol;
  HY_MALLOC(gcol, f->ntop + 1);
  gcol[0] = 0;
  for (int i = 0; i < f->ntop; i++) gcol[i + 1] = gcol[i] + L->super[f->top[i] + 1] - L->super[f->top[i]];
  int64_t nc = gcol[f->ntop];
  ch_elist el = { .f = f, .gcol = gcol };
  HY_MALLOC(el.eptr, nc + 1);
  el.eptr[0] = 0;
  k_lle_pool_for(f->pool, f->nt, nc, ch_elist_count, &el);
  for (int64_t g = 0; g < nc; g++) el.eptr[g + 1] += el.eptr[g];
  HY_MALLOC(el.erow, el.eptr[nc] + 1);
  HY_MALLOC(el.eval, el.eptr[nc] + 1);
  k_lle_pool_for(f->pool, f->nt, nc, ch_elist_fill, &el);
  free(gcol);
  job->ncols = nc; job->eptr = el.eptr; job->erow = el.erow; job->eval = el.eval;
}

/* The engine's job for the top of this call (its lists; no entry lists).  Local. */
static k_lle_chol_top ch_engine_job(ch_fact *f, const k_lle_chol_in *in) {
  k_lle_chol_top job = { .L = f->L, .ntop = f->ntop, .top = f->top, .uptr = f->tuptr, .ud = f->tud,
                         .up1 = f->tup1, .up2 = f->tup2, .rptr = f->trptr, .rmap = f->trmap, .x = f->lx,
                         .minor = f->L->n, .keep = in->top_solve && in->top_below,
                         .back = !(in->top_solve && in->top_below) || in->top_values,
                         .stage = in->top_stage, .pool = f->pool, .pool_threads = f->nt,
                         .gemm_k = in->top_below ? in->top_gemm_k : 0, .reg = in->top_reg };
  if (in->top_below) {
    job.ntail = f->ntail; job.tail_sn = f->tail_sn; job.tail_q = f->tail_q; job.buptr = f->buptr;
    job.brptr = f->brptr; job.bud = f->bud; job.bup1 = f->bup1; job.bup2 = f->bup2; job.brmap = f->brmap;
    job.tailx = f->tailx; job.toff = f->toff;
  }
  return job;
}

/* pthread entry: the engine opened (in->top_open) beside the subtree phase.  Local. */
static void *ch_open_run(void *arg) {
  ch_fact *f = arg;
  f->open_rc = f->open_fn(f->open_be, &f->open_job);
  if (f->open_rc != HY_OK) hy_err_clear();   /* the top phase opens it itself (and records a failure there) */
  return NULL;
}

/* The engine's open beside the subtree phase started where in asks for it (a call whose top runs
 * here: in->top_open is set only there), the last factor's kept state released first (this
 * factor replaces it; its tails' buffer is the one the open locks).  Local. */
static void ch_open_start(ch_fact *f, const k_lle_chol_in *in) {
  if (f->top_state && f->top_release) f->top_release(f->top_state);
  f->top_state = NULL;
  f->open_job = ch_engine_job(f, in);
  f->open_job.warm = in->top_warm;
  f->open_fn = in->top_open; f->open_be = in->top_be; f->open_drop = in->top_drop;
  f->open_rc = HY_ESYS;
  f->open_started = pthread_create(&f->open_th, NULL, ch_open_run, f) == 0;
}

/* The opened state joined (its open's seconds, the wait for it into st where non-NULL): the
 * state, or NULL (none started, or its open failed).  Local. */
static void *ch_open_take(ch_fact *f, k_lle_chol_stats *st) {
  if (!f->open_started) return NULL;
  double t0 = ch_now();
  pthread_join(f->open_th, NULL);
  f->open_started = 0;
  if (st) { st->t_open_wait = ch_now() - t0; st->t_open = f->open_job.t_open; st->t_warm = f->open_job.t_warm; }
  return f->open_rc == HY_OK ? f->open_job.opened : NULL;
}

/* An opened state that no top took (a failed pivot in the subtrees, the plan freed): dropped.  Local. */
static void ch_open_discard(ch_fact *f) {
  void *st = ch_open_take(f, NULL);
  if (st && f->open_drop) f->open_drop(st);
}

/* The top phase with in->top: each top supernode assembled (and with !in->top_below updated
 * from below the cut) on the threads, or (in->top_assemble) its entry lists built there, then
 * the engine's assembly, updates and factor (on the state opened beside the subtrees where
 * there is one).  Local. */
static int ch_top_engine(ch_fact *f, const k_lle_chol_in *in, k_lle_chol_stats *st) {
  double t0 = ch_now();
  int on_engine = in->top_below && in->top_assemble;
  k_lle_chol_top lists = { 0 };
  if (on_engine) ch_elists(f, &lists);
  else ch_top_phase(f, ch_fact_pre, ch_fact_part, ch_fact_post, 0);
  st->t_below = ch_now() - t0;
  k_lle_chol_top job = ch_engine_job(f, in);
  if (f->top_state && f->top_release) f->top_release(f->top_state);   /* a factor before (another shift) */
  f->top_state = NULL;
  job.opened = ch_open_take(f, st);
  if (in->top_below) { job.ncols = lists.ncols; job.eptr = lists.eptr; job.erow = lists.erow; job.eval = lists.eval; }
  int rc = in->top(in->top_be, &job);
  if (job.opened && in->top_drop) in->top_drop(job.opened);   /* an engine that did not take it */
  free((void *)lists.eptr); free((void *)lists.erow); free((void *)lists.eval);
  job.eptr = NULL; job.erow = NULL; job.eval = NULL;
  f->top_state = rc == HY_OK ? job.state : NULL;
  if (rc != HY_OK && job.state && in->top_release) in->top_release(job.state);
  f->top_release = in->top_release;
  f->top_job = job;
  st->top_engine = 1;
  st->top_bytes = job.bytes; st->t_up = job.t_up; st->t_dev = job.t_dev; st->t_down = job.t_down;
  st->t_dev_asm = job.t_dev_asm; st->t_dev_below = job.t_dev_below; st->t_alloc = job.t_alloc; st->top_ngemm = job.ngemm;
  st->t_up_tails = job.t_up_tails; st->t_up_lists = job.t_up_lists; st->top_reg_used = job.reg_used; st->t_dev_tails = job.t_dev_tails; st->t_dev_own = job.t_dev_own;
  if (rc == HY_ENUMERIC) {
    int want = 0;
    atomic_compare_exchange_strong(&f->fail, &want, (int)job.minor + 1);
  }
  return rc == HY_ENUMERIC ? HY_OK : rc;
}

/* Tails [t0, t1) of the supernodes of the subtrees not in f->mine packed (a thread's share:
 * each tail its own range of tailx).  Local. */
static void ch_tail_pack_others(void *arg, int64_t t0, int64_t t1) {
  ch_fact *f = arg;
  for (int64_t t = t0; t < t1; t++)
    if (!f->mine[f->sub_of[f->tail_sn[t]]]) ch_tail_pack(f, f->tail_sn[t]);
}

/* The numeric factor (see the file comment): lx (L's xsize values) overwritten; HY_ENUMERIC
 * (no message) with st->minor the first column with a non-positive pivot.  Local. */
int k_lle_chol_numeric(k_lle_chol_plan *f, const k_lle_chol_in *in, double *lx, k_lle_chol_stats *st) {
  int ph = in->phase ? in->phase : K_LLE_CH_SUB | K_LLE_CH_TOP;
  ch_stats(f, st);
  f->in = in; f->lx = lx;
  f->mine = in->sub_mine;
  f->small = in->small_cols;
  atomic_store(&f->fail, 0);
  if (!f->atp) ch_transpose(f);
  if (in->top && f->ntop && !f->tuptr) ch_top_lists(f);   /* the engine's lists (before the subtrees pack tails) */
  if (in->top && f->ntop && in->top_below && !f->buptr) ch_below_lists(f);
  if (f->open_started && ((ph & K_LLE_CH_SUB) || !in->top || !in->top_open)) ch_open_discard(f);   /* a call before's, not taken */
  if ((ph & K_LLE_CH_SUB) && in->top && in->top_open && f->ntop) ch_open_start(f, in);
  double t0 = ch_now();
  if (in->blas_set) in->blas_set(1);   /* the same BLAS calls at any thread count */
  if (ph & K_LLE_CH_SUB) ch_sub_phase(f, ch_fact_node, 0);
  st->t_sub = ch_now() - t0;
  t0 = ch_now();
  int rc = HY_OK;
  if ((ph & K_LLE_CH_TOP) && f->mine && f->tailx)   /* the other ranks' tails, put into lx by the caller, packed */
    k_lle_pool_for(f->pool, f->nt, f->ntail, ch_tail_pack_others, f);
  if (!(ph & K_LLE_CH_TOP) || !f->ntop) {
  } else if (in->top && !atomic_load(&f->fail)) rc = ch_top_engine(f, in, st);
  else ch_top_phase(f, ch_fact_pre, ch_fact_part, ch_fact_post, 0);
  st->t_top = ch_now() - t0;
  if (in->blas_set) in->blas_set(in->blas_after);
  f->mine = NULL;
  if (rc != HY_OK) return rc;
  int fail = atomic_load(&f->fail);
  st->minor = fail ? fail - 1 : f->L->n;
  return fail ? HY_ENUMERIC : HY_OK;
}

/* The plan's split for a caller that spreads it (k_lle_chol_layout in k_lle.h): the subtrees,
 * the top, the tails (built once), each supernode's subtree.  Local. */
void k_lle_chol_layout_get(k_lle_chol_plan *f, k_lle_chol_layout *lay) {
  int64_t ns = f->L->nsuper;
  ch_tail_index(f);
  if (!f->sub_of) {
    HY_MALLOC(f->sub_of, ns);
    for (int64_t s = 0; s < ns; s++) f->sub_of[s] = -1;
    for (int i = 0; i < f->nsub; i++)
      for (int64_t s = f->first[f->sub[i]]; s <= f->sub[i]; s++) f->sub_of[s] = i;
  }
  *lay = (k_lle_chol_layout){ .nsub = f->nsub, .ntop = f->ntop, .sub = f->sub, .first = f->first, .wsub = f->wsub,
                              .top = f->top, .sub_of = f->sub_of, .ntail = f->ntail, .tail_sn = f->tail_sn,
                              .tail_q = f->tail_q, .pool = f->pool, .threads = f->nt };
}

/* The top part of a solve on the engine that keeps the factored top (in->top_solve): X at the
 * top supernodes' columns and at the tails' columns packed, the engine's forward and backward
 * solve of the top, X at the top columns back.  Local. */
static void ch_top_solve_engine(ch_fact *f, const k_lle_chol_in *in, int nrhs) {
  const k_lle_super *L = f->L;
  int64_t n = L->n;
  if (!f->xoff) {
    HY_MALLOC(f->xoff, f->ntop + 1); HY_MALLOC(f->yoff, f->ntail + 1);
    f->xoff[0] = f->yoff[0] = 0;
    for (int i = 0; i < f->ntop; i++) f->xoff[i + 1] = f->xoff[i] + L->super[f->top[i] + 1] - L->super[f->top[i]];
    for (int64_t t = 0; t < f->ntail; t++)
      f->yoff[t + 1] = f->yoff[t] + L->super[f->tail_sn[t] + 1] - L->super[f->tail_sn[t]];
  }
  int64_t nt = f->xoff[f->ntop], ny = f->yoff[f->ntail];
  if (nrhs > f->x_cols) {
    free(f->xtop); free(f->xtail);
    HY_MALLOC(f->xtop, (size_t)nt * nrhs + 1); HY_MALLOC(f->xtail, (size_t)ny * nrhs + 1);
    f->x_cols = nrhs;
  }
  for (int c = 0; c < nrhs; c++) {
    for (int i = 0; i < f->ntop; i++)
      memcpy(f->xtop + (size_t)c * nt + f->xoff[i], f->xb + (size_t)c * n + L->super[f->top[i]],
             (size_t)(f->xoff[i + 1] - f->xoff[i]) * sizeof(double));
    for (int64_t t = 0; t < f->ntail; t++)
      memcpy(f->xtail + (size_t)c * ny + f->yoff[t], f->xb + (size_t)c * n + L->super[f->tail_sn[t]],
             (size_t)(f->yoff[t + 1] - f->yoff[t]) * sizeof(double));
  }
  k_lle_chol_top_solve sj = { .job = &f->top_job, .nrhs = nrhs, .xtop = f->xtop, .xtail = f->xtail, .xoff = f->xoff,
                              .yoff = f->yoff };
  HY_LOCAL(in->top_solve(in->top_be, &sj));   /* a device failure ends the job */
  for (int c = 0; c < nrhs; c++)
    for (int i = 0; i < f->ntop; i++)
      memcpy(f->xb + (size_t)c * n + L->super[f->top[i]], f->xtop + (size_t)c * nt + f->xoff[i],
             (size_t)(f->xoff[i + 1] - f->xoff[i]) * sizeof(double));
}

/* x <- (L L^T)^-1 x for nrhs columns (n x nrhs, leading dimension n, L's order) with the
 * factor lx: forward over the subtrees then the top, backward over the top then the
 * subtrees; one BLAS thread throughout (the same bits at any thread count).  Local. */
void k_lle_chol_solve(k_lle_chol_plan *f, const k_lle_chol_in *in, const double *lx, int nrhs, double *x) {
  f->lx = (double *)lx;
  f->xb = x;
  f->nrhs = nrhs;
  f->solve_tiles = in && in->solve_tiles;
  f->small = in ? in->small_cols : 0;
  atomic_store(&f->fail, 0);
  if (nrhs > f->tb_cols) {   /* the gather buffers: maxrows x nrhs, and c: CH_RCH x nrhs */
    for (int t = 0; t < f->nt; t++) {
      free(f->thr[t].tb);
      HY_MALLOC(f->thr[t].tb, (size_t)f->maxrows * nrhs);
      if (nrhs > f->maxcols) {
        free(f->thr[t].c);
        HY_MALLOC(f->thr[t].c, (size_t)CH_RCH * nrhs);
      }
    }
    free(f->tb);
    HY_MALLOC(f->tb, (size_t)f->maxrows * nrhs);
    f->tb_cols = nrhs;
    if (nrhs > f->maxcols) f->maxcols = nrhs;
  }
  int ph = in && in->phase ? in->phase : K_LLE_CH_SUB | K_LLE_CH_TOP | K_LLE_CH_TOPB | K_LLE_CH_BWD;
  f->mine = in ? in->sub_mine : NULL;
  if (in && in->blas_set) in->blas_set(1);
  if (ph & K_LLE_CH_SUB) ch_sub_phase(f, ch_fwd_node, 0);
  if (!(ph & (K_LLE_CH_TOP | K_LLE_CH_TOPB)) || !f->ntop) {
  } else if (f->top_state && in && in->top_solve) ch_top_solve_engine(f, in, nrhs);   /* the top on the engine (both) */
  else {
    if (ph & K_LLE_CH_TOP) {
      f->post_all = f->solve_tiles ? ch_fwd_post_tiles : NULL;
      ch_top_phase(f, NULL, ch_fwd_part, ch_fwd_post, 0);
    }
    if (ph & K_LLE_CH_TOPB) {
      f->post_all = f->solve_tiles ? ch_bwd_post_tiles : NULL;
      ch_top_phase(f, ch_bwd_pre, ch_bwd_part, ch_bwd_post, 1);
    }
  }
  if (ph & K_LLE_CH_BWD) ch_sub_phase(f, ch_bwd_node, 1);
  if (in && in->blas_set) in->blas_set(in->blas_after);
  f->mine = NULL;
}

/* y = L L^T z (ab: |L| |L|^T |z|); w: n scratch.  Local. */
static void ch_llt(const k_lle_super *L, const double *lx, const double *z, double *w, double *y, int ab) {
  int64_t n = L->n;
  memset(y, 0, (size_t)n * sizeof *y);
  for (int64_t s = 0; s < L->nsuper; s++) {   /* w = L^T z */
    int64_t lda = L->pi[s + 1] - L->pi[s], f0 = L->super[s], nc = L->super[s + 1] - f0;
    const double *blk = lx + L->px[s];
    const int64_t *rows = L->s + L->pi[s];
    for (int64_t j = 0; j < nc; j++) {
      double a = 0;
      for (int64_t r = j; r < lda; r++) a += ab ? fabs(blk[r + j * lda] * z[rows[r]]) : blk[r + j * lda] * z[rows[r]];
      w[f0 + j] = a;
    }
  }
  for (int64_t s = 0; s < L->nsuper; s++) {   /* y = L w */
    int64_t lda = L->pi[s + 1] - L->pi[s], f0 = L->super[s], nc = L->super[s + 1] - f0;
    const double *blk = lx + L->px[s];
    const int64_t *rows = L->s + L->pi[s];
    for (int64_t j = 0; j < nc; j++)
      for (int64_t r = j; r < lda; r++) y[rows[r]] += (ab ? fabs(blk[r + j * lda]) : blk[r + j * lda]) * w[f0 + j];
  }
}

/* A fixed pseudo-random z in [-1, 1).  Local. */
static void ch_probe(int64_t n, double *z) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int64_t t = 0; t < n; t++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    z[t] = (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}

/* ||P (A A^T + tau I) P^T z - L L^T z|| / ||P (A A^T + tau I) P^T z|| for the probe z: the
 * factor's backward error.  Local. */
double k_lle_chol_check(const k_lle_super *L, const k_lle_chol_in *in, const double *lx) {
  int64_t n = L->n;
  double *z = NULL, *u = NULL, *v = NULL, *w = NULL, *y = NULL;
  HY_MALLOC(z, n); HY_CALLOC(u, n); HY_CALLOC(v, n); HY_CALLOC(w, n); HY_CALLOC(y, n);
  ch_probe(n, z);
  double *zn = w;   /* z in A's numbering, then A^T zn in u, A u in v */
  for (int64_t t = 0; t < n; t++) zn[in->perm[t]] = z[t];
  for (int64_t c = 0; c < n; c++)
    for (int64_t e = in->ap[c]; e < in->ap[c + 1]; e++) u[c] += in->ax[e] * zn[in->ai[e]];
  for (int64_t c = 0; c < n; c++)
    for (int64_t e = in->ap[c]; e < in->ap[c + 1]; e++) v[in->ai[e]] += in->ax[e] * u[c];
  ch_llt(L, lx, z, w, y, 0);
  double num = 0, den = 0;
  for (int64_t t = 0; t < n; t++) {
    double a = v[in->perm[t]] + in->tau * z[t];
    num += (a - y[t]) * (a - y[t]);
    den += a * a;
  }
  free(z); free(u); free(v); free(w); free(y);
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The solve's componentwise backward error on the probe b: x = (L L^T)^-1 b by
 * k_lle_chol_solve, max_i |L L^T x - b|_i / (|L| |L|^T |x| + |b|)_i.  Local. */
double k_lle_chol_check_solve(k_lle_chol_plan *p, const k_lle_chol_in *in, const double *lx) {
  const k_lle_super *L = p->L;
  int64_t n = L->n;
  double *b = NULL, *x = NULL, *w = NULL, *y = NULL, *ya = NULL;
  HY_MALLOC(b, n); HY_MALLOC(x, n); HY_MALLOC(w, n); HY_MALLOC(y, n); HY_MALLOC(ya, n);
  ch_probe(n, b);
  memcpy(x, b, (size_t)n * sizeof *x);
  k_lle_chol_solve(p, in, lx, 1, x);
  ch_llt(L, lx, x, w, y, 0);
  ch_llt(L, lx, x, w, ya, 1);
  double worst = 0;
  for (int64_t t = 0; t < n; t++) {
    double e = fabs(y[t] - b[t]) / (ya[t] + fabs(b[t]));
    if (!(e <= worst)) worst = e;   /* a NaN stays */
  }
  free(b); free(x); free(w); free(y); free(ya);
  return worst;
}
