/* lle_eig_bsvd.c - eigensolver bsvd (lle.eigensolver = auto's below lle.auto_cnd_n points):
 * subspace iteration with M^+ = B^+ B^+T from one UMFPACK LU of B = I - W (+ one diagonal
 * entry), M never assembled; falls back to shift-invert when the kNN graph has several
 * components.  N = 300k: 4e9 LU flops against 2.7e10 for the Cholesky of M. */
#include "lle_eig.h"
#include "lle_eig_rows.h"
#include "hybrid.h"
#include "k_lle.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include <pthread.h>
#include <suitesparse/umfpack.h>

/* ---------------------------------------------------------------------------------------
 * eigensolver = bsvd: the eigenvectors of M = B^T B, B = I - W, are the right singular
 * vectors of B, so M^-1 can be applied as B^-1 B^-T with a sparse LU of B (K + 1 nonzeros a
 * row) instead of a Cholesky factorisation of M (~K^2 a row, far more fill: N = 100k, 4.5e9
 * flops for M against ~1e8 for B); M itself is never assembled (applied as B^T (B x)).
 *
 * B is singular: its rows sum to 1 - sum_j W_ij = 0, so B e = 0 for the unit constant vector
 * e; its left null vector q (B^T q = 0) is not known in advance.  We do not shift B (the
 * singular vectors of B + sigma I are not those of B).  Instead factor the nonsingular
 * rank-one modification C = B + delta e_k e_k^T (one diagonal entry changed) and use the
 * exact identities, for x _|_ e (= range B^T) and y _|_ q (= range B):
 *   C^-T x = B^+T x + beta q   (beta = -(B^+T x)_k / q_k)        so  B^+T x = P_q C^-T x
 *   C^-1 y = B^+  y + alpha e  (alpha = -(B^+ y)_k / e_k)        so  B^+  y = P_e C^-1 y
 * (check: C^T (B^+T x + beta q) = x + delta e_k ((B^+T x)_k + beta q_k) = x, using
 * B^T B^+T x = x on range B^T and B^T q = 0; the same for C with B e = 0), with P_q, P_e
 * the orthogonal projectors away from q and e.  And C^T q = delta q_k e_k, so q is C^-T e_k
 * up to scale: one extra solve.  Hence M^+ x = P_e C^-1 P_q C^-T x exactly, the constant
 * eigenvector (lambda = 0, dropped by LLE) is deflated explicitly, and the iteration runs on
 * e^perp with the pseudo-inverse, i.e. shift-invert at sigma = 0 with no shift at all.
 * C is singular exactly when q_k = 0 and ill-conditioned when |q_k| << rms(q) (beta is
 * then large and cancels in P_q); k = argmax (W^T)^2 1 (a guess of argmax |q|, see
 * bmat_pick_k), moved once to the computed argmax |q_i| if |q_k| < 0.1 rms(q).  delta = 1
 * keeps C on the scale of B (unit diagonal).
 * Conditioning: cond(C) ~ sqrt(cond(M + tau I)), and Rayleigh-Ritz uses M = B^T B itself, so
 * the eigenvalues and the residuals ||M v - lambda v|| are those of M, as for shift-invert.
 * --------------------------------------------------------------------------------------- */


/* Free B.  Local. */
static void bmat_free(lle_bmat *b) {
  free(b->p); free(b->i); free(b->x);
  memset(b, 0, sizeof *b);
}
void lle_bmat_free(lle_bmat *b) { bmat_free(b); }

/* bmat_build's job: the neighbour lists and weights, B. */
typedef struct {
  int k;
  const int32_t *nbr;
  const double *w;
  lle_bmat *b;
} bmat_job;

/* Rows [r0, r1) of B.  Local. */
static void bmat_rows(void *arg, int r0, int r1) {
  const bmat_job *jb = arg;
  int k = jb->k;
  const int32_t *nbr = jb->nbr;
  const double *w = jb->w;
  lle_bmat *b = jb->b;
  for (int64_t r = r0; r < r1; r++) {
    SuiteSparse_long *ci = b->i + r * (k + 1);
    double *cx = b->x + r * (k + 1);
    int cnt = 0;
    ci[cnt] = r; cx[cnt++] = 1.0;
    for (int j = 0; j < k; j++) {
      SuiteSparse_long c = nbr[r * k + j];
      double v = -w[r * k + j];
      int a = cnt++;             /* insertion sort by column; a neighbour is never r itself */
      while (a > 0 && ci[a - 1] > c) { ci[a] = ci[a - 1]; cx[a] = cx[a - 1]; a--; }
      ci[a] = c; cx[a] = v;
    }
    b->p[r] = r * (k + 1);
  }
}

/* B = I - W from the neighbour lists (sorted columns, exact -w values), rows on nt threads
 * (pool's, or started for the call when pool is NULL).  Local. */
static int bmat_build(int64_t n, int k, const int32_t *nbr, const double *w, int nt, k_lle_pool *pool, lle_bmat *b) {
  memset(b, 0, sizeof *b);
  b->n = n;
  b->k1 = k + 1;
  int64_t nnz = n * (k + 1);
  b->p = malloc((size_t)(n + 1) * sizeof *b->p);
  b->i = malloc((size_t)nnz * sizeof *b->i);
  b->x = malloc((size_t)nnz * sizeof *b->x);
  if (!b->p || !b->i || !b->x) { bmat_free(b); return hy_err(HY_ESYS, "out of memory for B = I - W (n = %lld)", (long long)n); }
  bmat_job jb = { k, nbr, w, b };
  lle_parallel_on(pool, nt, (int)n, bmat_rows, &jb);
  b->p[n] = nnz;
  return HY_OK;
}

int lle_bmat_build(int64_t n, int k, const int32_t *nbr, const double *w, int nt, lle_bmat *b) {
  return bmat_build(n, k, nbr, w, nt, NULL, b);
}

/* Y = B^T B X for nc columns (leading dimension n); t: n scratch.  Local. */
static void bmat_btb(const lle_bmat *b, int nc, const double *x, double *y, double *t) {
  int64_t n = b->n;
  for (int c = 0; c < nc; c++) {
    const double *xc = x + (size_t)c * n;
    double *yc = y + (size_t)c * n;
    for (int64_t r = 0; r < n; r++) {
      double s = 0;
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) s += b->x[q] * xc[b->i[q]];
      t[r] = s;
    }
    memset(yc, 0, (size_t)n * sizeof *yc);
    for (int64_t r = 0; r < n; r++) {
      double tr = t[r];
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) yc[b->i[q]] += b->x[q] * tr;
    }
  }
}

/* Arguments of Y = B^T B X split by columns over threads. */
typedef struct {
  const lle_bmat *b;
  const double *x;
  double *y, *t;   /* t: n scratch per column */
} btb_job;

/* Columns [c0, c1) of Y = B^T B X.  Local. */
static void btb_part(void *arg, int c0, int c1) {
  const btb_job *j = arg;
  size_t n = (size_t)j->b->n;
  bmat_btb(j->b, c1 - c0, j->x + c0 * n, j->y + c0 * n, j->t + c0 * n);
}

/* Y = B^T B X for nc columns on nt threads (pool's; NULL: started for the call); t: n x nc
 * scratch.  Local. */
static void bmat_btb_par(const lle_bmat *b, int nt, k_lle_pool *pool, int nc, const double *x, double *y, double *t) {
  btb_job j = { b, x, y, t };
  lle_parallel_on(pool, nt, nc, btb_part, &j);
}

/* B^T's rows (bt: row i lists the rows r of B holding column i, ascending, with B_ri), for
 * the blocked product below.  Local. */
static int bmat_transpose(const lle_bmat *b, lle_bmat *bt) {
  int64_t n = b->n, nnz = b->p[n];
  memset(bt, 0, sizeof *bt);
  bt->n = n;
  bt->p = calloc((size_t)n + 1, sizeof *bt->p);
  bt->i = malloc((size_t)(nnz ? nnz : 1) * sizeof *bt->i);
  bt->x = malloc((size_t)(nnz ? nnz : 1) * sizeof *bt->x);
  int64_t *fill = malloc((size_t)(n ? n : 1) * sizeof *fill);
  if (!bt->p || !bt->i || !bt->x || !fill) {
    free(fill); bmat_free(bt);
    return hy_err(HY_ESYS, "out of memory for B^T (n = %lld)", (long long)n);
  }
  for (int64_t q = 0; q < nnz; q++) bt->p[b->i[q] + 1]++;
  for (int64_t i = 0; i < n; i++) bt->p[i + 1] += bt->p[i];
  memcpy(fill, bt->p, (size_t)n * sizeof *fill);
  for (int64_t r = 0; r < n; r++)
    for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) {
      int64_t d = fill[b->i[q]]++;
      bt->i[d] = r;
      bt->x[d] = b->x[q];
    }
  free(fill);
  return HY_OK;
}

/* Y = B^T B X by blocks of BTB_W columns, rows split over the threads: X's rows interleaved
 * (xr: n x BTB_W, row-major), T = B X by B's rows, Y = B^T T by B^T's rows (bt), so that each
 * entry of B brings one cache line of the block instead of one a column, and B is swept twice
 * a block instead of twice a column.  Every entry gets its terms in the order of bmat_btb's
 * one-column loops (t_r over the row's entries; y_i over the rows r ascending, the order of
 * bt's lists), so the bits are bmat_btb's. */
enum { BTB_W = 8 };
typedef struct {
  const lle_bmat *b, *bt;
  int nc;
  const double *x;
  double *y, *xr, *tr;
  k_lle_pool *pool;
} btb_blk_job;

/* Thread tid of nt: its rows in the three steps, a barrier between them.  Local. */
static void btb_blk_run(void *arg, int tid, int nt) {
  const btb_blk_job *j = arg;
  const lle_bmat *b = j->b, *bt = j->bt;
  int64_t n = b->n, r0 = n * tid / nt, r1 = n * (tid + 1) / nt;
  for (int c0 = 0; c0 < j->nc; c0 += BTB_W) {
    int m = j->nc - c0 < BTB_W ? j->nc - c0 : BTB_W;
    const double *x = j->x + (size_t)c0 * n;
    double *y = j->y + (size_t)c0 * n, *xr = j->xr, *tr = j->tr;
    for (int64_t r = r0; r < r1; r++) {
      double *d = xr + r * BTB_W;
      int c = 0;
      for (; c < m; c++) d[c] = x[(size_t)c * n + r];
      for (; c < BTB_W; c++) d[c] = 0;
    }
    k_lle_pool_barrier(j->pool, nt);
    for (int64_t r = r0; r < r1; r++) {
      double s[BTB_W] = { 0 };
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) {
        double v = b->x[q];
        const double *xx = xr + b->i[q] * BTB_W;
        for (int c = 0; c < BTB_W; c++) s[c] += v * xx[c];
      }
      for (int c = 0; c < BTB_W; c++) tr[r * BTB_W + c] = s[c];
    }
    k_lle_pool_barrier(j->pool, nt);
    for (int64_t i = r0; i < r1; i++) {
      double s[BTB_W] = { 0 };
      for (int64_t q = bt->p[i]; q < bt->p[i + 1]; q++) {
        double v = bt->x[q];
        const double *tt = tr + bt->i[q] * BTB_W;
        for (int c = 0; c < BTB_W; c++) s[c] += v * tt[c];
      }
      for (int c = 0; c < m; c++) y[(size_t)c * n + i] = s[c];
    }
    k_lle_pool_barrier(j->pool, nt);   /* xr and tr are the next block's */
  }
}

/* (index, value) of one contribution B_rj B_ri to M_ij, for bmat_btb_norm1. */
typedef struct { int64_t i; double v; } lle_pair;

/* lle_pair by index, then value (a total order: the same sums on every run).  Local. */
static int cmp_pair(const void *a, const void *b) {
  const lle_pair *x = a, *y = b;
  if (x->i != y->i) return (x->i > y->i) - (x->i < y->i);
  return (x->v > y->v) - (x->v < y->v);
}

/* ||B^T B||_1 exactly without storing M.  Summing every column of M costs a cache miss per
 * (row of B, column) pair (N = 100k: 0.6 s); instead the upper bounds
 * u_j = (|B|^T |B| 1)_j >= sum_i |M_ij| (two streaming sweeps) leave few columns that can
 * attain the maximum: the column of the largest u_j gives a lower bound L, and only the
 * columns with u_j > L are summed, up to 4096 at a time in one sweep over B that collects
 * their contributions B_rj B_r: (N = 300k: 1 column).  Local. */
static int bmat_btb_norm1(const lle_bmat *b, double *norm) {
  enum { CHUNK = 4096 };
  int64_t n = b->n;
  double *u = malloc((size_t)n * sizeof *u), *t = malloc((size_t)n * sizeof *t);
  int32_t *slot = malloc((size_t)n * sizeof *slot);
  int64_t *off = malloc((CHUNK + 1) * sizeof *off), *fill = malloc(CHUNK * sizeof *fill);
  int64_t *cand = malloc(CHUNK * sizeof *cand);
  lle_pair *pr = NULL;
  int rc = HY_OK;
  double best = 0;
  *norm = 0;
  if (!u || !t || !slot || !off || !fill || !cand) rc = hy_err(HY_ESYS, "out of memory for ||M||_1 (n = %lld)", (long long)n);
  int64_t jmax = 0;
  if (rc == HY_OK) {
    for (int64_t r = 0; r < n; r++) {
      double s = 0;
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) s += fabs(b->x[q]);
      t[r] = s;
    }
    memset(u, 0, (size_t)n * sizeof *u);
    for (int64_t r = 0; r < n; r++)
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) u[b->i[q]] += fabs(b->x[q]) * t[r];
    for (int64_t j = 0; j < n; j++) { slot[j] = -1; if (u[j] > u[jmax]) jmax = j; }
  }
  int64_t next = 0;   /* columns below next have been considered */
  int first = 1;
  while (rc == HY_OK) {
    /* this round's candidates: the column of max u first, then u_j > best */
    int nc = 0;
    if (first) cand[nc++] = jmax;
    else
      for (; next < n && nc < CHUNK; next++)
        if (next != jmax && u[next] > best * (1 + 1e-12)) cand[nc++] = next;
    if (nc == 0) break;
    for (int c = 0; c < nc; c++) { slot[cand[c]] = c; off[c + 1] = 0; }
    off[0] = 0;
    for (int64_t r = 0; r < n; r++)
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++)
        if (slot[b->i[q]] >= 0) off[slot[b->i[q]] + 1] += b->p[r + 1] - b->p[r];
    for (int c = 0; c < nc; c++) off[c + 1] += off[c];
    free(pr);
    pr = malloc((size_t)(off[nc] ? off[nc] : 1) * sizeof *pr);
    if (!pr) { rc = hy_err(HY_ESYS, "out of memory for ||M||_1 (%lld terms)", (long long)off[nc]); break; }
    for (int c = 0; c < nc; c++) fill[c] = off[c];
    for (int64_t r = 0; r < n; r++)
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) {
        int32_t c = slot[b->i[q]];
        if (c < 0) continue;
        for (int64_t a = b->p[r]; a < b->p[r + 1]; a++) {
          pr[fill[c]].i = b->i[a];
          pr[fill[c]++].v = b->x[q] * b->x[a];
        }
      }
    for (int c = 0; c < nc; c++) {
      lle_pair *z = pr + off[c];
      int64_t m = off[c + 1] - off[c];
      qsort(z, (size_t)m, sizeof *z, cmp_pair);
      double s = 0;
      for (int64_t a = 0; a < m;) {
        double e = 0;
        int64_t i = z[a].i;
        for (; a < m && z[a].i == i; a++) e += z[a].v;
        s += fabs(e);
      }
      if (s > best) best = s;
      slot[cand[c]] = -1;
    }
    first = 0;
  }
  *norm = best;
  free(u); free(t); free(slot); free(off); free(fill); free(cand); free(pr);
  return rc;
}

/* Remove the component along the unit vector u (or along e = 1/sqrt(n) when u is NULL) from
 * the nc columns of v.  Local. */
static void project_out(int64_t n, int nc, double *v, const double *u) {
  for (int c = 0; c < nc; c++) {
    double *vc = v + (size_t)c * n, s = 0;
    if (u) {
      for (int64_t i = 0; i < n; i++) s += u[i] * vc[i];
      for (int64_t i = 0; i < n; i++) vc[i] -= s * u[i];
    } else {
      for (int64_t i = 0; i < n; i++) s += vc[i];
      s /= (double)n;
      for (int64_t i = 0; i < n; i++) vc[i] -= s;
    }
  }
}

/* A guess of argmax |q| for the left null vector q of B (q = W^T q): argmax of (W^T)^2 1.
 * q is strongly localised (Swiss roll N = 100k: 92% of its entries below 0.1 of its rms),
 * so an arbitrary k would often give a tiny q_k; two passes found an entry 2.3x the rms
 * where the middle index had 0.017x.  s, t: n scratch.  Local. */
static int64_t bmat_pick_k(const lle_bmat *b, double *s, double *t) {
  int64_t n = b->n, best = 0;
  for (int64_t i = 0; i < n; i++) s[i] = 1.0;
  for (int pass = 0; pass < 2; pass++) {
    memset(t, 0, (size_t)n * sizeof *t);
    for (int64_t r = 0; r < n; r++)
      for (int64_t a = b->p[r]; a < b->p[r + 1]; a++)
        if (b->i[a] != r) t[b->i[a]] -= b->x[a] * s[r];   /* W_rj = -B_rj off the diagonal */
    memcpy(s, t, (size_t)n * sizeof *s);
  }
  for (int64_t i = 1; i < n; i++) if (fabs(s[i]) > fabs(s[best])) best = i;
  return best;
}

/* UMFPACK LU of C^T = (B + delta e_k e_k^T)^T, and its factors extracted for solves with a
 * block of right-hand sides: P R C^T Q = L U (L unit lower triangular by rows, U upper
 * triangular by columns, diagonals last; R the row scaling; pivot row k is row pp[k], pivot
 * column l is column qq[l]).  UMFPACK's own solve takes one vector at a time and reads all of
 * L and U for each (N = 100k: 65 ms a vector); the block solves read them once for p vectors. */
typedef struct {
  void *sym, *num;
  double *cx;             /* C's values in B's pattern (B's with delta added at (k, k)) */
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  int64_t n;
  SuiteSparse_long *lp, *lj, *up, *ui, *pp, *qq;
  int32_t *lj32, *ui32;      /* lj, ui in 32 bits (n < 2^31): 12 bytes an entry per solve, not 16 */
  double *lx, *ux, *r, *z;   /* z: n x nr interleaved scratch */
  int nthreads;              /* threads of the block solves */
  k_lle_pool *pool;          /* their pool (the solve's, not owned), or NULL: started per solve */
} lle_lu;

/* Free the factors.  Local. */
static void lu_free(lle_lu *f) {
  if (f->num) umfpack_dl_free_numeric(&f->num);
  if (f->sym) umfpack_dl_free_symbolic(&f->sym);
  free(f->cx); free(f->lp); free(f->lj); free(f->up); free(f->ui); free(f->pp); free(f->qq);
  free(f->lx); free(f->ux); free(f->r); free(f->z); free(f->lj32); free(f->ui32);
  f->lj32 = f->ui32 = NULL;
  f->cx = f->lx = f->ux = f->r = f->z = NULL;
  f->lp = f->lj = f->up = f->ui = f->pp = f->qq = NULL;
}

/* Copy L, U, P, Q, R out of the numeric object (then freed); scratch for nr vectors.  Local. */
static int lu_extract(lle_lu *f, int64_t n, int nr) {
  SuiteSparse_long lnz = 0, unz = 0, nrow = 0, ncol = 0, nzud = 0, recip = 0;
  if (umfpack_dl_get_lunz(&lnz, &unz, &nrow, &ncol, &nzud, f->num) != UMFPACK_OK)
    return hy_err(HY_ENUMERIC, "UMFPACK: cannot read the LU sizes of B");
  free(f->lp); free(f->lj); free(f->up); free(f->ui); free(f->pp); free(f->qq);   /* a retry */
  free(f->lx); free(f->ux); free(f->r); free(f->z); free(f->lj32); free(f->ui32);
  f->lj32 = f->ui32 = NULL;
  f->n = n;
  f->lp = malloc((size_t)(n + 1) * sizeof *f->lp);
  f->up = malloc((size_t)(n + 1) * sizeof *f->up);
  f->lj = malloc((size_t)(lnz ? lnz : 1) * sizeof *f->lj);
  f->ui = malloc((size_t)(unz ? unz : 1) * sizeof *f->ui);
  f->lx = malloc((size_t)(lnz ? lnz : 1) * sizeof *f->lx);
  f->ux = malloc((size_t)(unz ? unz : 1) * sizeof *f->ux);
  f->pp = malloc((size_t)n * sizeof *f->pp);
  f->qq = malloc((size_t)n * sizeof *f->qq);
  f->r = malloc((size_t)n * sizeof *f->r);
  f->z = malloc((size_t)n * nr * sizeof *f->z);
  if (!f->lp || !f->up || !f->lj || !f->ui || !f->lx || !f->ux || !f->pp || !f->qq || !f->r || !f->z)
    return hy_err(HY_ESYS, "out of memory for the LU factors of B (%.4g nonzeros)", (double)(lnz + unz));
  if (umfpack_dl_get_numeric(f->lp, f->lj, f->lx, f->up, f->ui, f->ux, f->pp, f->qq, NULL, &recip, f->r, f->num) != UMFPACK_OK)
    return hy_err(HY_ENUMERIC, "UMFPACK: cannot extract the LU factors of B");
  if (!recip) for (int64_t i = 0; i < n; i++) f->r[i] = 1.0 / f->r[i];
  for (int64_t j = 0; j < n; j++)   /* documented: diagonals last, U's nonzero (no singular warning) */
    if (f->lp[j + 1] <= f->lp[j] || f->lj[f->lp[j + 1] - 1] != j || f->up[j + 1] <= f->up[j] ||
        f->ui[f->up[j + 1] - 1] != j || f->ux[f->up[j + 1] - 1] == 0)
      return hy_err(HY_ENUMERIC, "UMFPACK: unexpected factor layout at pivot %lld", (long long)j);
  umfpack_dl_free_numeric(&f->num);
  f->lj32 = malloc((size_t)(lnz ? lnz : 1) * sizeof *f->lj32);
  f->ui32 = malloc((size_t)(unz ? unz : 1) * sizeof *f->ui32);
  if (!f->lj32 || !f->ui32) return hy_err(HY_ESYS, "out of memory for the LU factors of B (%.4g nonzeros)", (double)(lnz + unz));
  for (SuiteSparse_long a = 0; a < lnz; a++) f->lj32[a] = (int32_t)f->lj[a];
  for (SuiteSparse_long a = 0; a < unz; a++) f->ui32[a] = (int32_t)f->ui[a];
  free(f->lj); free(f->ui);
  f->lj = f->ui = NULL;
  return HY_OK;
}

/* X = (C^T)^-1 B (trans = 0) or C^-1 B (trans = 1) for nr columns (column-major, leading
 * dimension n; x must not be b).  Inlined with a constant nr by lu_solve.  Local. */
static inline __attribute__((always_inline)) void lu_solve_nr(const lle_lu *f, int trans, int nr, const double *b, double *x,
                                                              double *restrict z) {
  int64_t n = f->n;
  const SuiteSparse_long *lp = f->lp, *up = f->up;
  const int32_t *lj = f->lj32, *ui = f->ui32;
  const double *lx = f->lx, *ux = f->ux;
  if (!trans) {
    /* L U (Q^T x) = P R b */
    for (int64_t k = 0; k < n; k++) {
      SuiteSparse_long i = f->pp[k];
      for (int c = 0; c < nr; c++) z[k * nr + c] = f->r[i] * b[(size_t)c * n + i];
    }
    for (int64_t i = 0; i < n; i++) {
      double *zi = z + i * nr;
      for (SuiteSparse_long a = lp[i]; a < lp[i + 1] - 1; a++) {
        const double *zj = z + (int64_t)lj[a] * nr, l = lx[a];
        for (int c = 0; c < nr; c++) zi[c] -= l * zj[c];
      }
    }
    for (int64_t j = n - 1; j >= 0; j--) {
      double *zj = z + j * nr, d = 1.0 / ux[up[j + 1] - 1];
      for (int c = 0; c < nr; c++) zj[c] *= d;
      for (SuiteSparse_long a = up[j]; a < up[j + 1] - 1; a++) {
        double *zi = z + (int64_t)ui[a] * nr, u = ux[a];
        for (int c = 0; c < nr; c++) zi[c] -= u * zj[c];
      }
    }
    for (int64_t l = 0; l < n; l++) {
      SuiteSparse_long j = f->qq[l];
      for (int c = 0; c < nr; c++) x[(size_t)c * n + j] = z[l * nr + c];
    }
  } else {
    /* C = (C^T)^T = Q U^T L^T P R^-1: U^T L^T (P R^-1 x) = Q^T b */
    for (int64_t l = 0; l < n; l++) {
      SuiteSparse_long j = f->qq[l];
      for (int c = 0; c < nr; c++) z[l * nr + c] = b[(size_t)c * n + j];
    }
    for (int64_t j = 0; j < n; j++) {
      double *zj = z + j * nr;
      for (SuiteSparse_long a = up[j]; a < up[j + 1] - 1; a++) {
        const double *zi = z + (int64_t)ui[a] * nr, u = ux[a];
        for (int c = 0; c < nr; c++) zj[c] -= u * zi[c];
      }
      double d = 1.0 / ux[up[j + 1] - 1];
      for (int c = 0; c < nr; c++) zj[c] *= d;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
      const double *zi = z + i * nr;
      for (SuiteSparse_long a = lp[i]; a < lp[i + 1] - 1; a++) {
        double *zj = z + (int64_t)lj[a] * nr, l = lx[a];
        for (int c = 0; c < nr; c++) zj[c] -= l * zi[c];
      }
    }
    for (int64_t k = 0; k < n; k++) {
      SuiteSparse_long i = f->pp[k];
      for (int c = 0; c < nr; c++) x[(size_t)c * n + i] = f->r[i] * z[k * nr + c];
    }
  }
}

/* lu_solve_nr on nr columns with the widths in use compiled as constants; z: n x nr scratch.  Local. */
static void lu_solve_cols(const lle_lu *f, int trans, int nr, const double *b, double *x, double *z) {
  switch (nr) {
  case 1: lu_solve_nr(f, trans, 1, b, x, z); break;
  case 2: lu_solve_nr(f, trans, 2, b, x, z); break;
  case 4: lu_solve_nr(f, trans, 4, b, x, z); break;
  case 8: lu_solve_nr(f, trans, 8, b, x, z); break;
  default: lu_solve_nr(f, trans, nr, b, x, z); break;
  }
}

/* Arguments of one block solve split by columns over threads. */
typedef struct {
  const lle_lu *f;
  int trans;
  const double *b;
  double *x;
} lu_job;

/* Columns [c0, c1) of a block solve (each range its own slice of the scratch).  Local. */
static void lu_solve_part(void *arg, int c0, int c1) {
  const lu_job *j = arg;
  size_t n = (size_t)j->f->n;
  lu_solve_cols(j->f, j->trans, c1 - c0, j->b + c0 * n, j->x + c0 * n, j->f->z + c0 * n);
}

/* X = (C^T)^-1 B (trans = 0) or C^-1 B (trans = 1), nr columns: each thread streams the
 * factors for its columns (the solves are bound by memory traffic: L and U are read once per
 * thread, the columns of a thread interleaved in its scratch).  Local. */
static void lu_solve(lle_lu *f, int trans, int nr, const double *b, double *x) {
  lu_job j = { f, trans, b, x };
  int nt = f->nthreads;
  /* whole columns per thread in the widths compiled above: 8 -> 2 x 4 or 4 x 2 or 8 x 1 */
  if (nr == 8 && nt >= 2) nt = nt >= 8 ? 8 : nt >= 4 ? 4 : 2;
  lle_parallel_on(f->pool, nt, nr, lu_solve_part, &j);
}

/* Residuals ||B^T B v - lambda v|| (normm already set), the products on nt threads (pool's,
 * or NULL).  Local. */
static int bmat_residuals(const lle_bmat *b, int nt, k_lle_pool *pool, lle_eig *e) {
  int64_t n = b->n;
  double *y = malloc((size_t)n * e->nev * sizeof *y), *t = malloc((size_t)n * e->nev * sizeof *t);
  if (!y || !t) { free(y); free(t); return hy_err(HY_ESYS, "out of memory for residuals"); }
  bmat_btb_par(b, nt, pool, e->nev, e->vec, y, t);
  for (int j = 0; j < e->nev; j++) {
    const double *v = e->vec + (size_t)j * n, *yj = y + (size_t)j * n;
    double s = 0;
    for (int64_t i = 0; i < n; i++) { double r = yj[i] - e->val[j] * v[i]; s += r * r; }
    e->res[j] = sqrt(s);
  }
  free(y); free(t);
  return HY_OK;
}

/* Residuals with M applied as B^T B from the neighbour lists and weights.  Local. */
int lle_eig_residuals_w(int64_t n, int k, const int32_t *nbr, const double *w, int threads, lle_eig *e) {
  lle_bmat b;
  HY_CALL(bmat_build(n, k, nbr, w, lle_threads(threads), NULL, &b));
  int rc = bmat_residuals(&b, lle_threads(threads), NULL, e);
  bmat_free(&b);
  return rc;
}

/* [debug] perturb of every eigenvector (a wrong result for the in-run check).  Local. */
void lle_eig_perturb(lle_eig *e, int64_t n, double rel, uint64_t seed) {
  for (int j = 0; j < e->nev; j++)
    for (int64_t i = 0; i < n; i++)
      e->vec[(size_t)j * n + i] *= 1.0 + rel * (2.0 * hy_rand_u01(seed, 0xbad0 + j, (uint64_t)i) - 1.0);
}

/* The work of bsvd that needs B but not its LU, run beside the (sequential) symbolic
 * analysis and the factorisation. */
typedef struct {
  const lle_bmat *b;
  int p, rc;
  uint64_t seed;
  double *v, *e0, *y, *t;   /* v: n x p start block; e0: the unit constant vector; y, t: n scratch */
  double normm, lam0, res0;
  lle_bmat *bt;             /* B^T for the iteration's products (NULL: none; left empty where it fails) */
  char msg[512];            /* the thread's error message (its own hy_err record), for the caller */
} bsvd_prep;

/* ||M||_1, pair 0 (the constant vector: lambda_0 = e^T M e = ||B e||^2, rounding level, and
 * its residual) and the seeded start block on e^perp (not yet orthonormal).  Local. */
static void *bsvd_prep_run(void *arg) {
  bsvd_prep *a = arg;
  int64_t n = a->b->n;
  a->rc = bmat_btb_norm1(a->b, &a->normm);
  if (a->rc) {
    snprintf(a->msg, sizeof a->msg, "%s", hy_err_msg());
    return NULL;
  }
  for (int64_t i = 0; i < n; i++) a->e0[i] = 1.0 / sqrt((double)n);
  bmat_btb(a->b, 1, a->e0, a->y, a->t);
  double lam0 = 0, res0 = 0;
  for (int64_t i = 0; i < n; i++) lam0 += a->e0[i] * a->y[i];
  for (int64_t i = 0; i < n; i++) { double r = a->y[i] - lam0 * a->e0[i]; res0 += r * r; }
  a->lam0 = lam0;
  a->res0 = sqrt(res0);
  for (int c = 0; c < a->p; c++)
    for (int64_t i = 0; i < n; i++) a->v[(size_t)c * n + i] = hy_rand_u01(a->seed, 0x1e16 + c + 1, (uint64_t)i) - 0.5;
  project_out(n, a->p, a->v, NULL);
  if (a->bt && bmat_transpose(a->b, a->bt) != HY_OK) hy_err_clear();   /* without it: the column products */
  return NULL;
}

/* The subspace iteration's state between its steps: B, the operator's factor, the block and
 * scratch. */
typedef struct {
  lle_bmat b;
  const lle_bop *op;           /* M^+ (bsvd: the LU of B) or (M + tau I)^-1 (chol-nd) */
  void *st;                    /* its factor */
  int p;                       /* block width on e^perp */
  int nt;                      /* threads of the B^T B products */
  double *v, *mv, *h, *theta, *tmp;
  lle_bmat bt;                 /* B^T (made on the prep thread) for the blocked products */
  k_lle_pool *in_pool;         /* the solve's pool (lle_eig_in.pool: bsvd's), or NULL */
  k_lle_pool *pool;            /* the products' own where there is none (made at the first product) */
  double *xr, *tr;             /* their n x BTB_W blocks */
  pthread_t open_th;           /* lle.iter_open = beside: the engine opened on this thread during the */
  int open_started, open_rc;   /* factorisation (bsvd_open_run), taken by bsvd_iterate_engine */
  const k_lle_eig_ops *open_ops;
  k_backend *open_be;
  k_lle_bsub_in open_in;
  k_lle_bsub *open_w;
} bsvd_ws;

/* The engine opened beside the factorisation (its set-up on a stream and handles of its own:
 * k_lle_bsub_in.early).  Local. */
static void *bsvd_open_run(void *arg) {
  bsvd_ws *s = arg;
  s->open_rc = s->open_ops->bsub_open(s->open_be, &s->open_in, &s->open_w);
  if (s->open_rc != HY_OK) hy_err_clear();   /* the iteration opens it again, on its own thread */
  return NULL;
}

/* The early-opened engine, joined: it, or NULL where it failed (or none was started).  Local. */
static k_lle_bsub *bsvd_open_take(bsvd_ws *s) {
  if (!s->open_started) return NULL;
  pthread_join(s->open_th, NULL);
  s->open_started = 0;
  k_lle_bsub *w = s->open_rc == HY_OK ? s->open_w : NULL;
  if (!w && s->open_w) s->open_ops->bsub_close(s->open_w, NULL);
  s->open_w = NULL;
  return w;
}

/* Y = B^T B X for nc columns on the iteration's threads (btb_blk_run); where B^T or the
 * scratch is missing, bmat_btb_par's column split (the same bits).  Local. */
static void bsvd_btb(bsvd_ws *s, int nc, const double *x, double *y, double *t) {
  int64_t n = s->b.n;
  if (s->bt.p && !s->xr) {
    s->xr = malloc((size_t)n * BTB_W * sizeof *s->xr);
    s->tr = malloc((size_t)n * BTB_W * sizeof *s->tr);
    if (s->nt > 1 && s->xr && s->tr && !s->in_pool) s->pool = k_lle_pool_new(s->nt);
  }
  k_lle_pool *pool = s->in_pool ? s->in_pool : s->pool;
  if (!s->bt.p || !s->xr || !s->tr) { bmat_btb_par(&s->b, s->nt, s->in_pool, nc, x, y, t); return; }
  int nt = s->nt < k_lle_pool_size(pool) ? s->nt : k_lle_pool_size(pool);
  btb_blk_job j = { &s->b, &s->bt, nc, x, y, s->xr, s->tr, pool };
  k_lle_pool_run(pool, nt, btb_blk_run, &j);
}

/* Residuals ||B^T B v - lambda v|| of e's pairs by bsvd_btb.  Local. */
static int bsvd_residuals(bsvd_ws *s, lle_eig *e) {
  int64_t n = s->b.n;
  double *y = malloc((size_t)n * e->nev * sizeof *y), *t = malloc((size_t)n * e->nev * sizeof *t);
  if (!y || !t) { free(y); free(t); return hy_err(HY_ESYS, "out of memory for residuals"); }
  bsvd_btb(s, e->nev, e->vec, y, t);
  for (int j = 0; j < e->nev; j++) {
    const double *v = e->vec + (size_t)j * n, *yj = y + (size_t)j * n;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) { double r = yj[i] - e->val[j] * v[i]; sum += r * r; }
    e->res[j] = sqrt(sum);
  }
  free(y); free(t);
  return HY_OK;
}

/* The block width on e^perp: nev - 1 + max(nev, 6) (with e: nev + max(nev, 6), as
 * shift-invert), at most n - 1.  Local. */
int lle_bsub_width(const lle_eig_in *in) {
  int p = in->nev - 1 + (in->nev > 6 ? in->nev : 6);
  return p > in->n - 1 ? (int)(in->n - 1) : p;
}

/* B, the block and scratch.  Local. */
static int bsvd_setup(const lle_eig_in *in, bsvd_ws *s, lle_eig *e) {
  int64_t n = in->n;
  int nev = in->nev;
  s->p = lle_bsub_width(in);
  HY_CALL(bmat_build(n, in->k, in->nbr, in->w, lle_threads(in->threads), in->pool, &s->b));
  e->blas_threads = in->blas_threads > 0 ? in->blas_threads : lle_blas_threads(n, in->threads);
  s->nt = e->solve_threads = lle_threads(in->threads);
  s->in_pool = in->pool;
  size_t np = (size_t)n * s->p;
  HY_MALLOC(s->v, np); HY_MALLOC(s->mv, np); HY_MALLOC(s->tmp, np);
  HY_MALLOC(s->h, (size_t)s->p * s->p); HY_MALLOC(s->theta, s->p);
  e->nev = nev;
  HY_MALLOC(e->val, nev); HY_MALLOC(e->vec, (size_t)n * nev); HY_MALLOC(e->res, nev);
  return HY_OK;
}

/* bsvd's operator: the UMFPACK LU of C = B + delta e_k e_k^T and the left null vector q. */
typedef struct {
  lle_lu f;
  int64_t kk;                  /* the modified diagonal entry of C = B + e_k e_k^T */
  double *q, *y, *t;           /* q: unit left null vector of B; y, t: n scratch */
} bsvd_op;

/* Free bsvd's operator.  Local. */
static void bsvd_op_free(void *st) {
  bsvd_op *o = st;
  if (!o) return;
  lu_free(&o->f);
  free(o->q); free(o->y); free(o->t);
  free(o);
}

/* UMFPACK's controls: the symmetric strategy, the ordering of B + B^T (lle.ordering).  Local. */
static const char *bsvd_controls(const lle_eig_in *in, lle_lu *f) {
  umfpack_dl_defaults(f->control);
  f->control[UMFPACK_IRSTEP] = 0;      /* the outer iteration corrects; refinement costs 2 SpMVs */
  /* Ordering of B + B^T (UMFPACK's symmetric strategy, chosen by its pattern symmetry 0.86):
   * AMD by default.  Swiss roll, this machine (reference BLAS): N = 300k AMD 4.7e9 flops,
   * analysis 3.0 s, factorisation 9.5 s in all; METIS 4.0e9 flops but analysis 5.4 s, 11.3 s;
   * N = 1M: METIS 28% fewer flops (2.6e10 against 3.6e10) for 2.6x the analysis time, which
   * does not shrink with a faster BLAS.  A nested dissection of our own by BFS level sets
   * (with CAMD below 256-vertex parts) was tried: N = 200k, 3x AMD's flops (Cholesky of
   * B + B^T: 3.9e9 against 1.3e9).  lle.ordering (amd | metis | cholmod | best) chooses. */
  const char *ordname = in->ordering && *in->ordering ? in->ordering : "amd";
  f->control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_SYMMETRIC;
  f->control[UMFPACK_ORDERING] = !strcmp(ordname, "amd") ? UMFPACK_ORDERING_AMD
                                 : !strcmp(ordname, "cholmod") ? UMFPACK_ORDERING_CHOLMOD
                                 : !strcmp(ordname, "best") ? UMFPACK_ORDERING_BEST : UMFPACK_ORDERING_METIS;
  return ordname;
}

/* Symbolic analysis and LU of C = B + delta e_k e_k^T, moving k once when the left null
 * vector q = C^-T e_k is small at k; q normalised.  Local. */
static int bsvd_factor(const lle_eig_in *in, const lle_bmat *b, void **stp, lle_eig *e, double t0) {
  bsvd_op *s = NULL;
  HY_CALLOC(s, 1);
  *stp = s;
  lle_lu *f = &s->f;
  int64_t n = b->n, nnzb = b->p[n];
  const double delta = 1.0;
  const char *ordname = bsvd_controls(in, f);
  f->nthreads = lle_threads(in->threads);
  f->pool = in->pool;
  snprintf(e->method, sizeof e->method, "UMFPACK LU of B + e_k e_k^T, ordering %s", ordname);
  HY_MALLOC(s->q, n); HY_MALLOC(s->y, n); HY_MALLOC(s->t, n); HY_MALLOC(f->cx, nnzb);
  s->kk = bmat_pick_k(b, s->y, s->t);
  SuiteSparse_long st = umfpack_dl_symbolic(n, n, b->p, b->i, b->x, &f->sym, f->control, f->info);
  if (st != UMFPACK_OK) return hy_err(HY_ENUMERIC, "UMFPACK symbolic analysis of B failed (status %ld)", (long)st);
  /* Numeric->Memory at the size of AMD's estimate of nnz(L + U) (in 8-byte units): UMFPACK's
   * default first allocation is too small for this LU (N = 20k..1M: one costly reallocation
   * of everything and one garbage collection); the estimate is ~2x the peak it reaches. */
  if (f->info[UMFPACK_SYMMETRIC_LUNZ] > 0) f->control[UMFPACK_ALLOC_INIT] = -f->info[UMFPACK_SYMMETRIC_LUNZ];
  e->t_analyze = MPI_Wtime() - t0;
  int rc = HY_ENUMERIC;
  for (int attempt = 0; attempt < 2 && rc != HY_OK; attempt++) {
    int64_t kk = s->kk;
    memcpy(f->cx, b->x, (size_t)nnzb * sizeof *f->cx);
    for (int64_t a = b->p[kk]; a < b->p[kk + 1]; a++) if (b->i[a] == kk) f->cx[a] += delta;
    double tn = MPI_Wtime();
    st = umfpack_dl_numeric(b->p, b->i, f->cx, f->sym, &f->num, f->control, f->info);
    e->t_numeric += MPI_Wtime() - tn;
    if (st != UMFPACK_OK && st != UMFPACK_WARNING_singular_matrix)
      return hy_err(st == UMFPACK_ERROR_out_of_memory ? HY_ESYS : HY_ENUMERIC, "UMFPACK LU of B failed (status %ld)", (long)st);
    int64_t next = (kk + n / 3 + 1) % n;
    if (st == UMFPACK_OK) {
      tn = MPI_Wtime();
      rc = lu_extract(f, n, lle_bsub_width(in));
      e->t_extract += MPI_Wtime() - tn;
      if (rc) return rc;
      /* q = C^-T e_k: the left null vector of B, up to scale */
      double *q = s->q;
      memset(s->y, 0, (size_t)n * sizeof *s->y);
      s->y[kk] = 1.0;
      lu_solve(f, 0, 1, s->y, q);
      double qn = 0, qmax = 0;
      for (int64_t i = 0; i < n; i++) {
        qn += q[i] * q[i];
        if (fabs(q[i]) > qmax) { qmax = fabs(q[i]); next = i; }
      }
      rc = isfinite(qn) && qn > 0 && fabs(q[kk]) >= 0.1 * sqrt(qn / (double)n) ? HY_OK : HY_ENUMERIC;
      if (rc == HY_OK) {
        qn = 1.0 / sqrt(qn);
        for (int64_t i = 0; i < n; i++) q[i] *= qn;
      }
      if (!isfinite(qn)) next = (kk + n / 3 + 1) % n;
    }
    if (rc != HY_OK && f->num) umfpack_dl_free_numeric(&f->num);
    if (rc != HY_OK && attempt == 0) s->kk = next;
  }
  e->lnz = f->info[UMFPACK_LNZ] + f->info[UMFPACK_UNZ];
  e->flops = f->info[UMFPACK_FLOPS];
  e->ordering = (int)f->info[UMFPACK_ORDERING_USED];
  e->shift = 0;
  if (rc == HY_OK) return HY_OK;
  return hy_err(HY_ENUMERIC, "B = I - W: B + e_k e_k^T singular or ill-conditioned for two k (last k = %lld): "
                "W's rows are degenerate", (long long)s->kk);
}

/* V <- P_e-less M^+ V = C^-1 P_q C^-T V (the caller projects away from e); tmp: n x p.  Local. */
static int bsvd_apply(void *st, int p, double *v, double *tmp) {
  bsvd_op *s = st;
  lu_solve(&s->f, 0, p, v, tmp);
  project_out(s->f.n, p, tmp, s->q);
  lu_solve(&s->f, 1, p, tmp, v);
  return HY_OK;
}

/* Convergence of pairs 1..nev-1 (pair 0 is the constant vector, lam0/res0): residuals of
 * the Ritz pairs in v, mv; returns the count of leading converged pairs.  Local. */
static int bsvd_converged(const bsvd_ws *s, int64_t n, int nev, double tol, double lam0, double res0, lle_eig *e) {
  e->val[0] = lam0;
  e->res[0] = res0;
  int conv = res0 <= tol * e->normm;
  for (int j = 1; conv == j && j < nev; j++) {
    double sum = 0;
    for (int64_t r = 0; r < n; r++) {
      double d = s->mv[(size_t)(j - 1) * n + r] - s->theta[j - 1] * s->v[(size_t)(j - 1) * n + r];
      sum += d * d;
    }
    e->res[j] = sqrt(sum);
    e->val[j] = s->theta[j - 1];
    if (e->res[j] <= tol * e->normm) conv++;
  }
  return conv;
}

/* Subspace iteration V <- P_e op(V) with Rayleigh-Ritz on M = B^T B (op: M^+ = C^-1 P_q C^-T
 * for bsvd, (M + tau I)^-1 for chol-nd).  Local. */
static int bsvd_iterate(const lle_eig_in *in, bsvd_ws *s, double lam0, double res0, lle_eig *e) {
  int64_t n = in->n;
  int p = s->p, nn = (int)n;
  double d1 = 1, d0 = 0;
  HY_CALL(lle_orthonormalise(n, p, s->v));
  for (int it = 1; it <= in->maxit; it++) {
    double ts = MPI_Wtime();
    HY_CALL(s->op->apply(s->st, p, s->v, s->tmp));
    e->t_solve += MPI_Wtime() - ts;
    project_out(n, p, s->v, NULL);
    HY_CALL(lle_orthonormalise(n, p, s->v));
    /* Rayleigh-Ritz with M = B^T B: H = V^T M V */
    bsvd_btb(s, p, s->v, s->mv, s->tmp);
    double *h = s->h;
    dgemm_("T", "N", &p, &p, &nn, &d1, s->v, &nn, s->mv, &nn, &d0, h, &p, 1, 1);
    for (int i = 0; i < p; i++)
      for (int j = 0; j < i; j++) {
        double a = 0.5 * (h[(size_t)j * p + i] + h[(size_t)i * p + j]);
        h[(size_t)j * p + i] = h[(size_t)i * p + j] = a;
      }
    HY_CALL(lle_small_eig(p, h, s->theta));
    double *sw;   /* V <- V Y, MV <- MV Y through tmp, by pointer swaps */
    dgemm_("N", "N", &nn, &p, &p, &d1, s->v, &nn, h, &p, &d0, s->tmp, &nn, 1, 1);
    sw = s->v; s->v = s->tmp; s->tmp = sw;
    dgemm_("N", "N", &nn, &p, &p, &d1, s->mv, &nn, h, &p, &d0, s->tmp, &nn, 1, 1);
    sw = s->mv; s->mv = s->tmp; s->tmp = sw;
    e->converged = bsvd_converged(s, n, in->nev, in->tol, lam0, res0, e);
    e->iters = it;
    hy_progress_toward(in->prog, e->res[e->converged < in->nev ? e->converged : in->nev - 1], in->tol * e->normm);
    if (e->converged == in->nev) break;
  }
  memcpy(e->vec + n, s->v, (size_t)n * (in->nev - 1) * sizeof *s->v);
  for (int j = 1; j < in->nev; j++) e->val[j] = s->theta[j - 1];
  return bsvd_residuals(s, e);
}

/* The convergence of pairs 1..nev-1 from their residuals res[j - 1] (the engine's), as
 * bsvd_converged: pair j counts while every pair before it has.  Local. */
static int bsvd_converged_res(const bsvd_ws *s, int nev, double tol, double lam0, double res0, const double *res,
                              lle_eig *e) {
  e->val[0] = lam0;
  e->res[0] = res0;
  int conv = res0 <= tol * e->normm;
  for (int j = 1; conv == j && j < nev; j++) {
    e->res[j] = res[j - 1];
    e->val[j] = s->theta[j - 1];
    if (e->res[j] <= tol * e->normm) conv++;
  }
  return conv;
}

/* bsvd_iterate with the block work on the backend's engine (lle.iter_block = backend:
 * k_lle_bsub; CUDA: on the device): the same steps, the host keeping the solves and the p x p
 * eigen-decomposition; V crosses to the engine and back once an iteration.  Local. */
static int bsvd_iterate_engine(const lle_eig_in *in, bsvd_ws *s, double lam0, double res0, lle_eig *e) {
  const k_lle_eig_ops *ops = k_lle_eig_ops_get(in->be);
  int64_t n = in->n;
  int p = s->p;
  k_lle_bsub_in bi = { .n = n, .k1 = s->b.k1, .p = p, .bp = s->b.p, .bi = s->b.i, .bx = s->b.x };
  k_lle_bsub *w = NULL;
  double res[64], tq = MPI_Wtime();
  w = bsvd_open_take(s);   /* lle.iter_open = beside: opened during the factorisation */
  e->iter_opened_beside = w != NULL;
  int rc = w ? HY_OK : ops->bsub_open(in->be, &bi, &w);
  double *v0 = s->v, *hv = rc == HY_OK && ops->bsub_host_block ? ops->bsub_host_block(w) : NULL;
  if (hv) {   /* V in the engine's host block (CUDA: pinned) until close */
    memcpy(hv, s->v, (size_t)n * p * sizeof *hv);
    s->v = hv;
  }
  if (rc == HY_OK)   /* the start block orthonormalised on the engine (on the host where it has no bsub_orth) */
    rc = ops->bsub_orth ? ops->bsub_orth(w, s->v) : lle_orthonormalise(n, p, s->v);
  memset(e->t_ie, 0, sizeof e->t_ie);
  e->t_ie[0] = MPI_Wtime() - tq;
  for (int it = 1; it <= in->maxit && rc == HY_OK; it++) {
    double ts = MPI_Wtime();
    rc = s->op->apply(s->st, p, s->v, s->tmp);
    e->t_solve += MPI_Wtime() - ts;
    ts = MPI_Wtime();
    if (rc == HY_OK) rc = ops->bsub_rr(w, s->v, s->h);   /* P_e, QR, MV = B^T B V, H = V^T MV */
    e->t_ie[1] += MPI_Wtime() - ts;
    if (rc != HY_OK) break;
    ts = MPI_Wtime();
    double *h = s->h;
    for (int i = 0; i < p; i++)
      for (int j = 0; j < i; j++) {
        double a = 0.5 * (h[(size_t)j * p + i] + h[(size_t)i * p + j]);
        h[(size_t)j * p + i] = h[(size_t)i * p + j] = a;
      }
    rc = lle_small_eig(p, h, s->theta);
    e->t_ie[2] += MPI_Wtime() - ts;
    ts = MPI_Wtime();
    int nres = in->nev - 1 < 64 ? in->nev - 1 : 64;
    if (rc == HY_OK) rc = ops->bsub_rotate(w, h, s->theta, nres, res, s->v);   /* V Y, MV Y, residuals, V */
    e->t_ie[3] += MPI_Wtime() - ts;
    if (rc != HY_OK) break;
    e->converged = bsvd_converged_res(s, in->nev, in->tol, lam0, res0, res, e);
    e->iters = it;
    hy_progress_toward(in->prog, e->res[e->converged < in->nev ? e->converged : in->nev - 1], in->tol * e->normm);
    if (e->converged == in->nev) break;
  }
  if (hv) {   /* V back into the driver's block before the engine goes */
    memcpy(v0, hv, (size_t)n * p * sizeof *v0);
    s->v = v0;
  }
  if (rc == HY_OK) {   /* the eigenvectors, their residuals on the engine (on the host where it has no bsub_resid) */
    memcpy(e->vec + n, s->v, (size_t)n * (in->nev - 1) * sizeof *s->v);
    for (int j = 1; j < in->nev; j++) e->val[j] = s->theta[j - 1];
    double tr = MPI_Wtime();
    rc = ops->bsub_resid && in->nev <= p ? ops->bsub_resid(w, e->vec, in->nev, e->val, e->res) : bsvd_residuals(s, e);
    e->t_ie[4] = MPI_Wtime() - tr;
  }
  double bytes = 0;
  if (w) ops->bsub_close(w, &bytes);
  e->iter_bytes = bytes;
  e->iter_engine = 1;
  if (rc != HY_OK && rc != HY_ENUMERIC) HY_LOCAL(rc);   /* a device failure ends the job */
  return rc;
}

/* bsvd_iterate with the block work by rows over the ranks that share the operator's solves
 * (lle.iter_block = rows; lle_eig_rows.c): the block gathered on rank 0 for each solve and its
 * rows back to the ranks after it, the rest (P_e, QR, M V, H, V Y, M V Y, the residuals, the
 * final residuals too) by rows on every rank; only H's p x p eigen-decomposition on rank 0
 * alone.  The same bits at any rank and thread count (not the driver's: other loops).  Local
 * on rank 0, collective with the other ranks' serve (op->rows_link). */
static int bsvd_iterate_rows(const lle_eig_in *in, bsvd_ws *s, double lam0, double res0, lle_eig *e) {
  int64_t n = in->n;
  int p = s->p, nres = in->nev - 1;
  if (p > LLE_ROWS_PMAX) return hy_err(HY_EUSAGE, "lle.iter_block = rows: a block of %d columns, at most %d", p, LLE_ROWS_PMAX);
  MPI_Comm comm = MPI_COMM_SELF;
  lle_rows_call call = NULL;
  void *arg = NULL;
  k_lle_pool *pool = NULL;
  HY_CALL(s->op->rows_link(s->st, &comm, &call, &arg, &pool));
  lle_rows *r = NULL;
  double t_rows = 0, t0 = MPI_Wtime(), res[LLE_ROWS_PMAX], *h = NULL, *theta = NULL;
  int rc = lle_rows_open(comm, &s->b, p, s->nt, pool, call, arg, &r);
  if (rc == HY_OK) rc = lle_rows_scatter(r, s->v, p);
  if (rc == HY_OK) rc = lle_rows_orth(r);
  t_rows += MPI_Wtime() - t0;
  for (int it = 1; it <= in->maxit && rc == HY_OK; it++) {
    double ta = MPI_Wtime();
    rc = lle_rows_gather(r, s->v, p);   /* the solve's block on rank 0 */
    double ts = MPI_Wtime();
    t_rows += ts - ta;
    if (rc == HY_OK) rc = s->op->apply(s->st, p, s->v, s->tmp);
    double tb = MPI_Wtime();
    e->t_solve += tb - ts;
    if (rc == HY_OK) rc = lle_rows_scatter(r, s->v, p);
    if (rc == HY_OK) rc = lle_rows_orth(r);   /* P_e, CholeskyQR3 */
    if (rc == HY_OK) rc = lle_rows_rr(r, &h, &theta);   /* M V = B^T B V, H = V^T M V, its eigenpairs */
    if (rc == HY_OK) rc = lle_rows_rotate(r, nres, res);   /* V Y, M V Y, the residuals */
    t_rows += MPI_Wtime() - tb;
    if (rc != HY_OK) break;
    memcpy(s->theta, theta, (size_t)p * sizeof *s->theta);
    e->converged = bsvd_converged_res(s, in->nev, in->tol, lam0, res0, res, e);
    e->iters = it;
    hy_progress_toward(in->prog, e->res[e->converged < in->nev ? e->converged : in->nev - 1], in->tol * e->normm);
    if (e->converged == in->nev) break;
  }
  double tc = MPI_Wtime();
  if (rc == HY_OK) rc = lle_rows_gather(r, e->vec + n, nres);
  if (rc == HY_OK) {
    e->val[0] = lam0;
    for (int j = 1; j < in->nev; j++) e->val[j] = s->theta[j - 1];
    rc = lle_rows_residuals(r, e->vec, in->nev, e->val, e->res);   /* ||B^T B v - lambda v||, pair 0 too */
  }
  t_rows += MPI_Wtime() - tc;
  lle_rows_figures(r, &e->t_rows_eig, &e->rows_bytes);
  e->t_rows = t_rows - e->t_rows_eig;
  int size = 1;
  MPI_Comm_size(comm, &size);
  e->iter_rows = size;
  lle_rows_free(r);
  return rc;
}

/* Free the iteration's state and the operator's factor.  Local. */
static void bsvd_free(bsvd_ws *s) {
  k_lle_bsub *w = bsvd_open_take(s);   /* (an early engine the iteration did not take) */
  if (w) s->open_ops->bsub_close(w, NULL);
  if (s->op) s->op->free(s->st);
  bmat_free(&s->b);
  bmat_free(&s->bt);
  k_lle_pool_free(s->pool);
  free(s->xr); free(s->tr);
  free(s->v); free(s->mv); free(s->h); free(s->theta); free(s->tmp);
}

/* Subspace iteration on e^perp with Rayleigh-Ritz on M = B^T B and the operator op (bsvd's
 * LU, chol-nd's Cholesky): ||M||_1, pair 0 and the start block on a second thread during the
 * operator's factorisation, whose error (its own record) is handed to this thread after the
 * join.  Local. */
int lle_bsub_solve(const lle_eig_in *in, const lle_bop *op, lle_eig *e) {
  int64_t n = in->n;
  memset(e, 0, sizeof *e);
  if (n > INT32_MAX) return hy_err(HY_EUSAGE, "n = %lld exceeds the LAPACK 32-bit limit", (long long)n);
  if (in->nev < 1 || in->nev >= n) return hy_err(HY_EUSAGE, "%d eigenpairs of an n = %lld matrix", in->nev, (long long)n);
  double t0 = MPI_Wtime();
  bsvd_ws s;
  memset(&s, 0, sizeof s);
  HY_CALL(bsvd_setup(in, &s, e));
  bsvd_prep prep = { &s.b, s.p, HY_OK, in->seed, s.v, e->vec, s.mv, s.tmp, 0, 0, 0,
                     in->iter_columns || in->iter_engine || (in->iter_rows && op->rows_link) ? NULL : &s.bt, "" };
  pthread_t prep_th;
  int prep_started = pthread_create(&prep_th, NULL, bsvd_prep_run, &prep) == 0;
  if (in->iter_engine && in->iter_open_beside) {   /* the engine's set-up beside the factorisation */
    s.open_ops = k_lle_eig_ops_get(in->be);
    s.open_be = in->be;
    s.open_in = (k_lle_bsub_in){ .n = n, .k1 = s.b.k1, .p = s.p, .bp = s.b.p, .bi = s.b.i, .bx = s.b.x, .early = 1 };
    s.open_started = pthread_create(&s.open_th, NULL, bsvd_open_run, &s) == 0;
  }
  if (!prep_started) bsvd_prep_run(&prep);
  s.op = op;
  int rc = op->factor(in, &s.b, &s.st, e, t0);
  if (prep_started) pthread_join(prep_th, NULL);
  if (rc == HY_OK && prep.rc != HY_OK)
    rc = prep_started ? hy_err(prep.rc, "%s", prep.msg) : prep.rc;  /* run here: recorded here */
  e->t_factor = MPI_Wtime() - t0;
  t0 = MPI_Wtime();
  if (rc == HY_OK && !s.in_pool && op->pool) s.in_pool = op->pool(s.st);   /* (its threads; NULL: its own) */
  e->normm = prep.normm;
  if (rc == HY_OK)
    rc = (in->iter_rows && op->rows_link ? bsvd_iterate_rows : in->iter_engine ? bsvd_iterate_engine
                                                                               : bsvd_iterate)(in, &s, prep.lam0, prep.res0, e);
  e->t_iter = MPI_Wtime() - t0;
  bsvd_free(&s);
  if (rc != HY_OK) lle_eig_free(e);
  return rc;
}

/* bsvd: the subspace iteration with M^+ from the LU of B; its column-parallel loops (B's rows,
 * the block solves, the B^T B products: ~3 an iteration) on one pool of lle_threads threads
 * started for the solve and parked between them (not a thread start per loop; the same ranges,
 * so the same results bit for bit), unless the caller hands one in.  Local. */
static int bsvd_solve(const lle_eig_in *in, lle_eig *e) {
  static const lle_bop lu = { .name = "UMFPACK LU of B", .factor = bsvd_factor, .apply = bsvd_apply, .free = bsvd_op_free };
  lle_eig_in pin = *in;
  k_lle_pool *own = NULL;
  int nt = lle_threads(in->threads);
  if (!pin.pool && nt > 1) pin.pool = own = k_lle_pool_new(nt);
  k_lle_pool_set_spin(own, (int64_t)in->pool_spin_us * 1000);
  int rc = lle_bsub_solve(&pin, &lu, e);
  k_lle_pool_free(own);
  return rc;
}

const lle_eigsolver lle_eig_bsvd_solver = {
  .name = "bsvd", .needs_m = 0, .needs_w = 1, .solve = bsvd_solve, .report = lle_report_eig_lu,
  /* bsvd deflates one null vector of I - W; a kNN graph in several pieces has more (M then
   * has several zero eigenvalues), C stays singular and the iteration stalls.  Its
   * convergence rate is shift-invert's, so 50 iterations without convergence (normal runs:
   * 2-4) or a singular C mean that: shift-invert, whose shift handles any null space, takes
   * over. */
  .fallback = "shift-invert", .stall_iters = 50, .stall_why = "several null vectors of I - W?",
};
