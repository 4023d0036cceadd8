/* test_lle_chol_top.c - chol-nd's top phase on another engine (k_lle_chol_in.top, k_lle_chol_top)
 * against the host's own top phase, on CHOLMOD's supernodal analysis of A A^T + tau I for
 * A = I - W of points on a jittered 2D grid (8 neighbours each, weights summing to 0.9): for
 * 2 and 4 threads (a cut with several top supernodes and updates among them) and at one thread
 * with the device's cut of 16 threads (54 top supernodes), the factor's
 * probe backward error (k_lle_chol_check) <= 1e-14 with either top, the engine's values within
 * 1e-12 of max |L| of the host's, the solve's componentwise backward error <= 1e-14 with the
 * engine's factor; and with one row of A zeroed (tau = 0: column n - 1 of L has a zero pivot)
 * both return HY_ENUMERIC with minor n - 1.
 * The engine: `host` (this file's BLAS version of the device algorithm: the same lists, one
 * dgemm an updater into a scratch block, scattered by the relative rows, dpotrf, dtrsm) or
 * `cuda` (the CUDA backend's chol_top; exit 77 without a device).  Exit 0 pass, 1 fail. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cholmod.h>

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
                   const int *ldc, size_t, size_t);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
extern void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m, const int *n,
                   const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t, size_t,
                   size_t, size_t);

static int nchecks, nfailed;
static int nkept, nreleased;   /* the host engine's kept states */
static int64_t seen_updates, seen_below;   /* updaters among the top, pairs with below, in the last job */
static int64_t seen_lists;   /* the host engine: entries of the last job's lists (-1: columns miscounted) */
static int nopened, ntaken, ndropped;   /* the host engine's states opened ahead (top_open), taken by a top, dropped */

/* One check: print it, count it.  Local. */
static void ok(int cond, const char *what, double val) {
  nchecks++;
  if (!cond) nfailed++;
  printf("%s %s: %.3e\n", cond ? "ok  " : "FAIL", what, val);
}

/* The updates from below into top[i] as the CUDA kernel does them: per column c of top[i],
 * the pairs in order, c's position in the pair's columns by bisection, then the pair's rows
 * from there (dot products over d's columns).  Local. */
static void host_below(const k_lle_chol_top *job, int i) {
  const k_lle_super *L = job->L;
  int64_t s = job->top[i], lda = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
  double *blk = job->x + L->px[s];
  for (int64_t c = 0; c < nc; c++)
    for (int64_t u = job->buptr[i]; u < job->buptr[i + 1]; u++) {
      int64_t d = job->tail_sn[job->bud[u]], ldd = L->pi[d + 1] - L->pi[d], kd = L->super[d + 1] - L->super[d];
      const int32_t *rm = job->brmap + job->brptr[u];
      int ncol = job->bup2[u] - job->bup1[u], mu = (int)(ldd - job->bup1[u]), lo = 0, hi = ncol;
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (rm[mid] < c) lo = mid + 1;
        else hi = mid;
      }
      if (lo >= ncol || rm[lo] != c) continue;
      const double *t = job->tailx + job->toff[job->bud[u]];   /* the packed tail, as the device has it */
      int64_t q = job->tail_q[job->bud[u]], ld = ldd - q, b = job->bup1[u] - q + lo;
      for (int ar = lo; ar < mu; ar++) {
        int64_t a = job->bup1[u] - q + ar;
        double acc = 0;
        for (int64_t k = 0; k < kd; k++) acc = fma(t[a + k * ld], t[b + k * ld], acc);
        blk[rm[ar] + c * lda] -= acc;
      }
    }
}

/* The host engine: k_lle_chol_top's algorithm with the host BLAS, in place.  Local. */
static int host_top(k_backend *be, k_lle_chol_top *job) {
  (void)be;
  const k_lle_super *L = job->L;
  if (job->opened) {   /* opened ahead (host_open): for this job's lists */
    const int64_t *tok = job->opened;
    if (tok[0] == job->ntop && tok[1] == job->ntail && tok[2] == job->reg) ntaken++;
    free(job->opened);
    job->opened = NULL;
  }

  const double one = 1, zero = 0;
  double *c = NULL;
  size_t cmax = 0;
  if (job->eptr) {   /* the blocks assembled from the entry lists, as the device does it */
    int64_t g = 0;
    for (int i = 0; i < job->ntop; i++) {
      int64_t s = job->top[i], lda = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
      double *blk = job->x + L->px[s];
      memset(blk, 0, (size_t)(lda * nc) * sizeof(double));
      for (int64_t col = 0; col < nc; col++, g++)
        for (int64_t e = job->eptr[g]; e < job->eptr[g + 1]; e++) blk[job->erow[e] + col * lda] += job->eval[e];
    }
    seen_lists = g == job->ncols ? job->eptr[g] : -1;
  }
  for (int i = 0; i < job->ntop; i++) {
    int64_t s = job->top[i];
    int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]), info = 0;
    double *blk = job->x + L->px[s];
    if (job->ntail) host_below(job, i);
    for (int64_t u = job->uptr[i]; u < job->uptr[i + 1]; u++) {
      int64_t d = job->top[job->ud[u]];
      int ldd = (int)(L->pi[d + 1] - L->pi[d]), kd = (int)(L->super[d + 1] - L->super[d]);
      int p1 = job->up1[u], m = ldd - p1, ncol = job->up2[u] - p1;
      if ((size_t)m * ncol > cmax) { free(c); cmax = (size_t)m * ncol; HY_MALLOC(c, cmax); }
      const double *ld = job->x + L->px[d] + p1;
      dgemm_("N", "T", &m, &ncol, &kd, &one, ld, &ldd, ld, &ldd, &zero, c, &m, 1, 1);
      const int32_t *rm = job->rmap + job->rptr[u];
      for (int jj = 0; jj < ncol; jj++)
        for (int ii = 0; ii < m; ii++)
          if (rm[ii] >= rm[jj]) blk[rm[ii] + (int64_t)rm[jj] * lda] -= c[ii + (size_t)jj * m];
    }
    dpotrf_("L", &nc, blk, &lda, &info, 1);
    if (info != 0) { free(c); job->minor = L->super[s] + (info > 0 ? info - 1 : 0); return HY_ENUMERIC; }
    if (lda > nc) dtrsm_("R", "L", "T", "N", &(int){ lda - nc }, &nc, &one, blk, &lda, blk + nc, &lda, 1, 1, 1, 1);
  }
  free(c);
  job->bytes = 0;
  job->state = NULL;
  if (job->keep) { HY_MALLOC(job->state, 1); nkept++; }
  return HY_OK;
}

extern void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m, const int *n,
                   const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t, size_t,
                   size_t, size_t);


/* The host engine's open ahead (k_lle_chol_top.opened): a token with the job's sizes.  Local. */
static int host_open(k_backend *be, k_lle_chol_top *job) {
  (void)be;
  int64_t *tok = NULL;
  HY_MALLOC(tok, 3);
  tok[0] = job->ntop; tok[1] = job->ntail; tok[2] = job->reg;
  job->opened = tok;
  job->t_open = 1e-6;
  job->t_warm = job->warm ? 1e-7 : 0;   /* (nothing to warm: the figure says the plan asked for it) */
  nopened++;
  return HY_OK;
}

/* The host engine's drop of an opened state no top took.  Local. */
static void host_drop(void *state) {
  ndropped++;
  free(state);
}

/* The host engine's release of a kept state.  Local. */
static void host_release(void *state) {
  nreleased++;
  free(state);
}

/* The host engine's top solve, the CUDA one's steps on the packed X blocks: forward per top i
 * (its rows' updates from the tails, pairs in order; the top updaters; L_ii^-1), backward per
 * top i descending (X_i -= L_21^T X(rows below), L_ii^-T).  Local. */
static int host_top_solve(k_backend *be, k_lle_chol_top_solve *sj) {
  (void)be;
  const k_lle_chol_top *job = sj->job;
  const k_lle_super *L = job->L;
  int p = sj->nrhs;
  int64_t nt = sj->xoff[job->ntop], ny = job->ntail ? sj->yoff[job->ntail] : 0;
  const double one = 1, mone = -1;
  int ldx = (int)nt;
  for (int i = 0; i < job->ntop; i++) {
    int64_t s = job->top[i];
    int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]);
    double *xs = sj->xtop + sj->xoff[i];
    for (int r = 0; r < nc && job->ntail; r++)
      for (int64_t u = job->buptr[i]; u < job->buptr[i + 1]; u++) {
        const int32_t *rm = job->brmap + job->brptr[u];
        int ncol = job->bup2[u] - job->bup1[u], lo = 0, hi = ncol;
        while (lo < hi) { int mid = (lo + hi) / 2; if (rm[mid] < r) lo = mid + 1; else hi = mid; }
        if (lo >= ncol || rm[lo] != r) continue;
        int64_t t = job->bud[u], d = job->tail_sn[t], q = job->tail_q[t], ld = L->pi[d + 1] - L->pi[d] - q;
        int64_t kd = L->super[d + 1] - L->super[d], a = job->bup1[u] - q + lo;
        const double *tl = job->tailx + job->toff[t];
        for (int c = 0; c < p; c++) {
          double acc = 0;
          for (int64_t k = 0; k < kd; k++) acc = fma(tl[a + k * ld], sj->xtail[sj->yoff[t] + k + c * ny], acc);
          xs[r + c * nt] -= acc;
        }
      }
    for (int64_t u = job->uptr[i]; u < job->uptr[i + 1]; u++) {
      int j = job->ud[u];
      int64_t d = job->top[j], ldd = L->pi[d + 1] - L->pi[d], kd = L->super[d + 1] - L->super[d];
      const int32_t *rm = job->rmap + job->rptr[u];
      const double *ld = job->x + L->px[d];
      for (int jj = 0; jj < job->up2[u] - job->up1[u]; jj++)
        for (int c = 0; c < p; c++) {
          double acc = 0;
          for (int64_t k = 0; k < kd; k++) acc += ld[job->up1[u] + jj + k * ldd] * sj->xtop[sj->xoff[j] + k + c * nt];
          xs[rm[jj] + c * nt] -= acc;
        }
    }
    dtrsm_("L", "L", "N", "N", &nc, &p, &one, job->x + L->px[s], &lda, xs, &ldx, 1, 1, 1, 1);
  }
  int32_t *pos = NULL;
  double *tb = NULL;
  HY_MALLOC(pos, L->n);
  for (int i = 0; i < job->ntop; i++)
    for (int64_t c = L->super[job->top[i]]; c < L->super[job->top[i] + 1]; c++)
      pos[c] = (int32_t)(sj->xoff[i] + c - L->super[job->top[i]]);
  for (int i = job->ntop - 1; i >= 0; i--) {
    int64_t s = job->top[i];
    int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]), m2 = lda - nc;
    double *xs = sj->xtop + sj->xoff[i];
    const double *blk = job->x + L->px[s];
    if (m2 > 0) {
      HY_MALLOC(tb, (size_t)m2 * p);
      for (int c = 0; c < p; c++)
        for (int r = 0; r < m2; r++) tb[r + (size_t)c * m2] = sj->xtop[pos[L->s[L->pi[s] + nc + r]] + c * nt];
      dgemm_("T", "N", &nc, &p, &m2, &mone, blk + nc, &lda, tb, &m2, &one, xs, &ldx, 1, 1);
      free(tb);
    }
    dtrsm_("L", "L", "T", "N", &nc, &p, &one, blk, &lda, xs, &ldx, 1, 1, 1, 1);
  }
  free(pos);
  sj->bytes = 0;
  return HY_OK;
}

static int (*engine)(k_backend *be, k_lle_chol_top *job);
static int (*engine_solve)(k_backend *be, k_lle_chol_top_solve *sj);
static void (*engine_release)(void *state);

/* The engine under test, its lists' size noted.  Local. */
static int noting_top(k_backend *be, k_lle_chol_top *job) {
  seen_updates = job->uptr[job->ntop];
  seen_below = job->ntail ? job->buptr[job->ntop] : 0;
  return engine(be, job);
}

/* CHOLMOD started for a supernodal AMD analysis, postordered, quiet.  Local. */
static void cc_start(cholmod_common *cc) {
  cholmod_l_start(cc);
  cc->print = 0;
  cc->supernodal = CHOLMOD_SUPERNODAL;
  cc->nmethods = 1;
  cc->method[0].ordering = CHOLMOD_AMD;
  cc->postorder = 1;
}

/* A = I - W (CSC; column i: the diagonal and point i's 8 grid neighbours' -w, rows sorted) for
 * a side x side jittered grid; row zero (>= 0) zeroed.  Local. */
static cholmod_sparse *make_a(int side, int64_t zero, cholmod_common *cc) {
  int64_t n = (int64_t)side * side;
  cholmod_sparse *a = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)(9 * n), 1, 1, 0, CHOLMOD_REAL, cc);
  SuiteSparse_long *ap = a->p, *ai = a->i;
  double *ax = a->x;
  uint64_t r = 0x9e3779b97f4a7c15ull;
  int64_t q = 0;
  for (int64_t i = 0; i < n; i++) {
    int x = (int)(i % side), y = (int)(i / side);
    ap[i] = q;
    int64_t nb[9];
    int cnt = 0;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int xx = x + dx, yy = y + dy;
        if (xx >= 0 && xx < side && yy >= 0 && yy < side) nb[cnt++] = (int64_t)yy * side + xx;
      }
    double w[9], sum = 0;
    for (int t = 0; t < cnt; t++) {
      r ^= r << 13; r ^= r >> 7; r ^= r << 17;
      w[t] = 0.5 + (double)(r >> 11) * 0x1p-53;
      if (nb[t] != i) sum += w[t];
    }
    for (int t = 0; t < cnt; t++) {   /* nb ascending already */
      ai[q] = nb[t];
      ax[q] = nb[t] == i ? 1.0 : -0.9 * w[t] / sum;
      if (nb[t] == zero) ax[q] = 0;
      q++;
    }
  }
  ap[n] = q;
  return a;
}

/* One problem: the host's factor and the engine's at threads threads, compared.  Local. */
static void check_one(int side, int threads, double cut, int singular, int below, k_backend *be) {
  cholmod_common cc;
  cc_start(&cc);
  int64_t n = (int64_t)side * side;
  cholmod_sparse *a0 = make_a(side, -1, &cc);
  cholmod_factor *F = cholmod_l_analyze(a0, &cc);
  if (!F || !F->is_super || !cholmod_l_change_factor(CHOLMOD_REAL, 1, 1, 1, 1, F, &cc)) {
    ok(0, "CHOLMOD supernodal analysis", (double)cc.status);
    return;
  }
  const SuiteSparse_long *perm = F->Perm;
  cholmod_sparse *a = singular ? make_a(side, perm[n - 1], &cc) : a0;
  k_lle_super L = { .n = n, .nsuper = (int64_t)F->nsuper, .super = F->super, .pi = F->pi, .px = F->px, .s = F->s };
  k_lle_chol_in in = { .ap = a->p, .ai = a->i, .ax = a->x, .perm = F->Perm, .tau = singular ? 0 : 1e-13,
                       .top_blas = 1, .blas_after = 1, .top_tiles = 1 };
  size_t nx = F->xsize;
  double *x0 = NULL, *x1 = NULL;
  HY_MALLOC(x0, nx); HY_MALLOC(x1, nx);
  k_lle_chol_plan *p = k_lle_chol_plan_new_cut(&L, threads, NULL, cut);
  k_lle_chol_stats s0, s1;
  int rc0 = k_lle_chol_numeric(p, &in, x0, &s0);
  in.top = noting_top;
  in.top_be = be;
  in.top_below = below >= 1;
  if (below >= 2) { in.top_solve = engine_solve; in.top_release = engine_release; in.top_values = 1; }
  seen_updates = -1;
  double *x2 = NULL;
  int rc2 = HY_OK;
  if (below == 3) {   /* the engine's assembly from the entry lists against its blocks from the threads: bit for bit */
    HY_MALLOC(x2, nx);
    k_lle_chol_stats s2;
    rc2 = k_lle_chol_numeric(p, &in, x2, &s2);
    in.top_assemble = 1;
    seen_lists = 0;
  }
  int rc1 = k_lle_chol_numeric(p, &in, x1, &s1);
  char what[200];
  if (below == 3) {
    snprintf(what, sizeof what, "side %d, %d threads, the top assembled on the engine from the threads' entry lists: "
             "the factor the one from the threads' blocks bit for bit (rc %d / %d, %lld entries; differing values: the count)",
             side, threads, rc2, rc1, (long long)seen_lists);
    size_t nd = 0;
    for (size_t t = 0; t < nx; t++) nd += memcmp(&x1[t], &x2[t], sizeof(double)) != 0;
    ok(rc1 == rc2 && nd == 0 && (engine != host_top || seen_lists > 0), what, (double)nd);
    free(x2);
  }
  if (singular) {
    snprintf(what, sizeof what, "side %d, %d threads, below %d, row perm[n-1] of A zero: HY_ENUMERIC (host %d, engine %d), "
             "minor n - 1 = %lld (host %lld, engine; the figure)", side, threads, below, rc0, rc1, (long long)(n - 1),
             (long long)s0.minor);
    ok(rc0 == HY_ENUMERIC && rc1 == HY_ENUMERIC && s0.minor == n - 1 && s1.minor == n - 1, what, (double)s1.minor);
  } else {
    double c0 = k_lle_chol_check(&L, &in, x0), c1 = k_lle_chol_check(&L, &in, x1), dmax = 0, lmax = 0;
    for (size_t t = 0; t < nx; t++) {
      if (fabs(x0[t]) > lmax) lmax = fabs(x0[t]);
      if (!(fabs(x1[t] - x0[t]) <= dmax)) dmax = fabs(x1[t] - x0[t]);
    }
    snprintf(what, sizeof what, "side %d, %d threads, below on the engine %d: %d top supernode(s), %lld update(s) among "
             "them (>= 1), %lld pair(s) with below (>= 1 with it), factors HY_OK (host %d, engine %d, engine used %d)",
             side, threads, below, s1.ntop, (long long)seen_updates, (long long)seen_below, rc0, rc1, s1.top_engine);
    ok(rc0 == HY_OK && rc1 == HY_OK && s1.ntop >= 2 && seen_updates >= 1 && s1.top_engine == 1 &&
       (below ? seen_below >= 1 : seen_below == 0), what, (double)s1.ntop);
    snprintf(what, sizeof what, "side %d, %d threads, below %d: probe backward error host %.3e, engine (<= 1e-14)", side, threads, below, c0);
    ok(c0 <= 1e-14 && c1 <= 1e-14, what, c1);
    snprintf(what, sizeof what, "side %d, %d threads, below %d: max |L_engine - L_host| / max |L| (<= 1e-12)", side, threads, below);
    ok(dmax <= 1e-12 * lmax, what, dmax / lmax);
    double sc = k_lle_chol_check_solve(p, &in, x1);
    snprintf(what, sizeof what, "side %d, %d threads, below %d: solve's componentwise backward error, engine's factor (<= 1e-14)",
             side, threads, below);
    ok(sc <= 1e-14, what, sc);
  }
  k_lle_chol_plan_free(p);
  if (below >= 2 && engine_release == host_release) {
    snprintf(what, sizeof what, "side %d, %d threads, solves on the engine: states kept %d, released %d (equal; the count)",
             side, threads, nkept, nreleased);
    ok(nkept == nreleased && (singular || nkept >= 1), what, (double)nkept);
  }
  free(x0); free(x1);
  if (a != a0) cholmod_l_free_sparse(&a, &cc);
  cholmod_l_free_sparse(&a0, &cc);
  cholmod_l_free_factor(&F, &cc);
  cholmod_l_finish(&cc);
}

static int (*engine_open)(k_backend *be, k_lle_chol_top *job);

/* The engine opened beside the subtree phase (k_lle_chol_in.top_open, lle.cnd_top_open =
 * beside; the tails' buffer page-locked there on CUDA) against opened in the top phase, with
 * the updates from below, the solves' top and the assembly on the engine: the same factor bit
 * for bit in one call (phase 0), in a SUB call then a TOP call (rank 0 over the ranks), after
 * a SUB call whose open no top took (dropped by the next call) and with a plan freed after a
 * SUB call (dropped there); the host engine counts its opens, takes and drops.  With the
 * open's warm-up (top_warm: the top's work run once on the opened buffers; CUDA) the same
 * factor bit for bit, its seconds reported.  With
 * gemm_k (k_lle_chol_top.gemm_k) 1 against 0: every pair from below by DGEMM on CUDA (the host
 * engine ignores it), the factor within 1e-12 of max |L|, its probe <= 1e-14.  Local. */
static void check_open(int side, int threads, double cut, k_backend *be) {
  cholmod_common cc;
  cc_start(&cc);
  cholmod_sparse *a = make_a(side, -1, &cc);
  cholmod_factor *F = cholmod_l_analyze(a, &cc);
  if (!F || !F->is_super || !cholmod_l_change_factor(CHOLMOD_REAL, 1, 1, 1, 1, F, &cc)) {
    ok(0, "CHOLMOD supernodal analysis", (double)cc.status);
    return;
  }
  k_lle_super L = { .n = (int64_t)side * side, .nsuper = (int64_t)F->nsuper, .super = F->super, .pi = F->pi, .px = F->px, .s = F->s };
  k_lle_chol_in in = { .ap = a->p, .ai = a->i, .ax = a->x, .perm = F->Perm, .tau = 1e-13, .top_blas = 1, .blas_after = 1,
                       .top_tiles = 1, .top = engine, .top_be = be, .top_below = 1, .top_solve = engine_solve,
                       .top_release = engine_release, .top_values = 1, .top_assemble = 1 };
  size_t nx = F->xsize;
  double *x[7];
  for (int v = 0; v < 7; v++) HY_MALLOC(x[v], nx);
  k_lle_chol_plan *p = k_lle_chol_plan_new_cut(&L, threads, NULL, cut);
  k_lle_chol_stats st;
  int rc[6];
  rc[0] = k_lle_chol_numeric(p, &in, x[0], &st);   /* opened in the top phase */
  nopened = ntaken = ndropped = 0;
  in.top_open = engine_open; in.top_drop = engine == host_top ? host_drop : engine_release; in.top_reg = 1;
  rc[1] = k_lle_chol_numeric(p, &in, x[1], &st);   /* opened beside the subtrees */
  double t_open = st.t_open, t_warm0 = st.t_warm;
  in.top_warm = 1;   /* and the top's work run once there (lle.cnd_top_warm) */
  int rcw = k_lle_chol_numeric(p, &in, x[6], &st);
  double t_warm = st.t_warm;
  in.top_warm = 0;
  size_t ndw = 0;
  for (size_t t = 0; t < nx; t++) ndw += memcmp(&x[6][t], &x[1][t], sizeof(double)) != 0;
  k_lle_chol_in c = in;
  c.phase = K_LLE_CH_SUB;
  rc[2] = k_lle_chol_numeric(p, &c, x[2], &st);
  c.phase = K_LLE_CH_TOP;
  int rct = k_lle_chol_numeric(p, &c, x[2], &st);
  c.phase = K_LLE_CH_SUB;
  rc[3] = k_lle_chol_numeric(p, &c, x[3], &st);   /* its open not taken: the next call drops it */
  int dropped_sub = ndropped;
  rc[3] |= k_lle_chol_numeric(p, &in, x[3], &st);
  size_t nd[4] = { 0 };
  for (int v = 1; v < 4; v++)
    for (size_t t = 0; t < nx; t++) nd[v] += memcmp(&x[v][t], &x[0][t], sizeof(double)) != 0;
  char what[300];
  snprintf(what, sizeof what, "side %d, %d threads: the engine opened beside the subtrees, the factor the one opened in the "
           "top phase bit for bit: in one call, SUB then TOP, after a SUB call not followed by a top (rc %d %d %d %d %d; "
           "differing values %zu %zu; the count of the last)", side, threads, rc[0], rc[1], rc[2], rct, rc[3], nd[1], nd[2]);
  ok(rc[0] == HY_OK && rc[1] == HY_OK && rc[2] == HY_OK && rct == HY_OK && rc[3] == HY_OK && !nd[1] && !nd[2] && !nd[3] &&
     t_open > 0, what, (double)nd[3]);
  snprintf(what, sizeof what, "side %d, %d threads: the open's warm-up (top_warm): the factor bit for bit the one without "
           "(rc %d, differing values: the count), its seconds %.3g (> 0; without it %.3g, 0)", side, threads, rcw, t_warm, t_warm0);
  ok(rcw == HY_OK && ndw == 0 && t_warm > 0 && t_warm0 == 0, what, (double)ndw);
  if (engine == host_top) {
    snprintf(what, sizeof what, "side %d, %d threads: host engine states opened %d, taken by a top %d, dropped %d (one "
             "before the call after the untaken SUB: %d; opened = taken + dropped, 5 opens)", side, threads, nopened, ntaken,
             ndropped, dropped_sub);
    ok(nopened == 5 && ntaken == 4 && ndropped == 1 && dropped_sub == 0, what, (double)nopened);
  }
  c.phase = K_LLE_CH_SUB;
  rc[4] = k_lle_chol_numeric(p, &c, x[4], &st);   /* the plan freed with an open no top took */
  k_lle_chol_plan_free(p);
  if (engine == host_top) {
    snprintf(what, sizeof what, "side %d, %d threads: the plan freed after a SUB call: its open dropped (rc %d; drops: the count)",
             side, threads, rc[4]);
    ok(rc[4] == HY_OK && ndropped == 2 && nopened == ntaken + ndropped, what, (double)ndropped);
  }
  /* the pairs from below by DGEMM (gemm_k = 1) against the kernel (0) */
  in.top_open = NULL;
  p = k_lle_chol_plan_new_cut(&L, threads, NULL, cut);
  in.top_gemm_k = 1;
  in.top = noting_top;
  rc[5] = k_lle_chol_numeric(p, &in, x[5], &st);
  int64_t ngemm = st.top_ngemm;
  double c5 = k_lle_chol_check(&L, &in, x[5]), dmax = 0, lmax = 0;
  for (size_t t = 0; t < nx; t++) {
    if (fabs(x[0][t]) > lmax) lmax = fabs(x[0][t]);
    if (!(fabs(x[5][t] - x[0][t]) <= dmax)) dmax = fabs(x[5][t] - x[0][t]);
  }
  snprintf(what, sizeof what, "side %d, %d threads: the pairs from below by DGEMM from 1 column (%lld of the job's %lld pairs "
           "on the engine: all, >= 1; the host engine none): probe %.3e (<= 1e-14), max |L - L_kernel| / max |L| (<= 1e-12)",
           side, threads, (long long)ngemm, (long long)seen_below, c5);
  ok(rc[5] == HY_OK && c5 <= 1e-14 && dmax <= 1e-12 * lmax && seen_below >= 1 && ngemm == (engine == host_top ? 0 : seen_below),
     what, dmax / lmax);
  k_lle_chol_plan_free(p);
  for (int v = 0; v < 7; v++) free(x[v]);
  cholmod_l_free_sparse(&a, &cc);
  cholmod_l_free_factor(&F, &cc);
  cholmod_l_finish(&cc);
}

/* The factor and a solve split over nr simulated ranks as chol-nd over the ranks does it
 * (app/lle/lle_eig_cnd_dist.c): the plan's subtrees to the ranks (heaviest first to the least
 * loaded), each rank's own arrays NaN where it has nothing, so that a read of anything the
 * exchanges do not bring is caught: each rank's subtrees (sub_mine, phase SUB; spread: its own
 * plan on its subtrees, k_lle_chol_plan_new_roots), the tails to rank 0, its top (TOP); a solve:
 * each rank's rows of its subtrees, the forward subtree phase, the tails' rows to rank 0, its
 * top forward and backward, the top's rows back, the backward subtree phase.  The pieces from
 * their owners must be the whole factor's and the whole solve's bit for bit.  Local. */
static void check_split(int side, int threads, int nr, int spread, int below, k_backend *be) {
  cholmod_common cc;
  cc_start(&cc);
  int64_t n = (int64_t)side * side;
  cholmod_sparse *a = make_a(side, -1, &cc);
  cholmod_factor *F = cholmod_l_analyze(a, &cc);
  if (!F || !F->is_super || !cholmod_l_change_factor(CHOLMOD_REAL, 1, 1, 1, 1, F, &cc)) {
    ok(0, "CHOLMOD supernodal analysis", (double)cc.status);
    return;
  }
  k_lle_super L = { .n = n, .nsuper = (int64_t)F->nsuper, .super = F->super, .pi = F->pi, .px = F->px, .s = F->s };
  k_lle_chol_in in = { .ap = a->p, .ai = a->i, .ax = a->x, .perm = F->Perm, .tau = 1e-13, .top_blas = 1, .blas_after = 1,
                       .top_tiles = 1, .solve_tiles = 1 };
  if (below) { in.top = engine; in.top_be = be; in.top_below = 1; in.top_assemble = below == 2; }
  size_t nx = F->xsize;
  enum { NRHS = 3, MAXR = 4 };
  double *x0 = NULL, *b = NULL, *y0 = NULL, *xr[MAXR], *yr[MAXR];
  HY_MALLOC(x0, nx); HY_MALLOC(b, (size_t)n * NRHS); HY_MALLOC(y0, (size_t)n * NRHS);
  /* the whole factor: with the top by tiles on the threads at another cut (the host's factor is
   * the same at any cut); with the engine at the split's cut (the engine's top is its own) */
  k_lle_chol_plan *g = k_lle_chol_plan_new_cut(&L, threads, NULL, spread ? 2.0 * nr / threads : (double)nr);
  k_lle_chol_plan *p = below ? g : k_lle_chol_plan_new_cut(&L, threads, NULL, 1.0);
  k_lle_chol_stats st;
  int rc0 = k_lle_chol_numeric(p, &in, x0, &st);
  uint64_t r = 0x2545f4914f6cdd1dull;
  for (size_t t = 0; t < (size_t)n * NRHS; t++) {
    r ^= r << 13; r ^= r >> 7; r ^= r << 17;
    b[t] = (double)(r >> 11) * 0x1p-52 - 1.0;
  }
  memcpy(y0, b, (size_t)n * NRHS * sizeof *y0);
  k_lle_chol_solve(p, &in, x0, NRHS, y0);
  /* the split plan (spread: cut for 2 nr parts, else for nr x threads), its owners */
  k_lle_chol_layout lay;
  k_lle_chol_layout_get(g, &lay);
  int *owner = NULL;
  unsigned char *mine[MAXR], *none = NULL;
  double load[MAXR] = { 0 };
  HY_MALLOC(owner, lay.nsub + 1);
  HY_CALLOC(none, lay.nsub + 1);
  k_lle_chol_plan *rp[MAXR] = { 0 };
  for (int q = 0; q < nr; q++) HY_CALLOC(mine[q], lay.nsub + 1);
  for (int i = 0; i < lay.nsub; i++) {
    int q = 0;
    for (int t = 1; t < nr; t++) if (load[t] < load[q]) q = t;
    owner[i] = q; mine[q][i] = 1; load[q] += lay.wsub[lay.sub[i]];
  }
  int64_t *col_owner = NULL;   /* each column's rank (-1: the top, rank 0) */
  HY_MALLOC(col_owner, n);
  for (int64_t s = 0; s < L.nsuper; s++)
    for (int64_t j = L.super[s]; j < L.super[s + 1]; j++) col_owner[j] = lay.sub_of[s] < 0 ? -1 : owner[lay.sub_of[s]];
  k_lle_chol_in rin = in;   /* a rank's own plan (spread): its top's values back, its solves' top on its threads */
  rin.top_solve = NULL; rin.top_release = NULL; rin.top_values = 1;
  for (int q = 0; q < nr; q++) {
    HY_MALLOC(xr[q], nx); HY_MALLOC(yr[q], (size_t)n * NRHS);
    for (size_t t = 0; t < nx; t++) xr[q][t] = NAN;
    if (spread) {
      int32_t roots[512];
      int nroot = 0;
      for (int i = 0; i < lay.nsub && nroot < 512; i++) if (owner[i] == q) roots[nroot++] = lay.sub[i];
      if (nroot) rp[q] = k_lle_chol_plan_new_roots(&L, threads, NULL, 1.0, roots, nroot);
    }
  }
  int rcs = HY_OK;
  for (int q = 0; q < nr; q++) {   /* each rank's subtrees */
    k_lle_chol_in c = in;
    c.phase = K_LLE_CH_SUB; c.sub_mine = mine[q];
    int rq = spread ? (rp[q] ? k_lle_chol_numeric(rp[q], &rin, xr[q], &st) : HY_OK) : k_lle_chol_numeric(g, &c, xr[q], &st);
    if (rq != HY_OK) rcs = rq;
  }
  for (int64_t t = 0; t < lay.ntail; t++) {   /* the tails to rank 0 */
    int64_t s = lay.tail_sn[t], lda = L.pi[s + 1] - L.pi[s], q0 = lay.tail_q[t];
    int q = owner[lay.sub_of[s]];
    if (q == 0) continue;
    for (int64_t j = 0; j < L.super[s + 1] - L.super[s]; j++)
      memcpy(xr[0] + L.px[s] + j * lda + q0, xr[q] + L.px[s] + j * lda + q0, (size_t)(lda - q0) * sizeof(double));
  }
  k_lle_chol_in c0 = in;
  c0.phase = K_LLE_CH_TOP; c0.sub_mine = spread ? none : mine[0];
  int rct = k_lle_chol_numeric(g, &c0, xr[0], &st);
  size_t bad = 0;   /* the factor from the owners */
  for (int64_t s = 0; s < L.nsuper; s++) {
    int q = lay.sub_of[s] < 0 ? 0 : owner[lay.sub_of[s]];
    size_t m = (size_t)((L.pi[s + 1] - L.pi[s]) * (L.super[s + 1] - L.super[s]));
    if (memcmp(xr[q] + L.px[s], x0 + L.px[s], m * sizeof(double))) bad++;
  }
  char what[240];
  snprintf(what, sizeof what, "side %d, %d threads, %d ranks%s, below on the engine %d: %d subtrees, %d top supernodes, "
           "%lld tails; the factor from its owners the whole one's bit for bit (supernodes differing: the count)",
           side, threads, nr, spread ? " (spread)" : "", below, lay.nsub, lay.ntop, (long long)lay.ntail);
  ok(rc0 == HY_OK && rcs == HY_OK && rct == HY_OK && bad == 0 && lay.nsub >= nr, what, (double)bad);
  /* a solve: rows of the block where their rank has them, NaN elsewhere */
  for (int q = 0; q < nr; q++)
    for (int c = 0; c < NRHS; c++)
      for (int64_t j = 0; j < n; j++)
        yr[q][(size_t)c * n + j] = (q == 0 || col_owner[j] == q) ? b[(size_t)c * n + j] : NAN;
  k_lle_chol_in rs = rin;
  for (int q = 0; q < nr; q++) {   /* forward subtree phases (spread: and their own top) */
    k_lle_chol_in c = in;
    c.phase = K_LLE_CH_SUB; c.sub_mine = mine[q];
    rs.phase = K_LLE_CH_SUB | K_LLE_CH_TOP;
    if (spread && rp[q]) k_lle_chol_solve(rp[q], &rs, xr[q], NRHS, yr[q]);
    else if (!spread) k_lle_chol_solve(g, &c, xr[q], NRHS, yr[q]);
  }
  for (int64_t t = 0; t < lay.ntail; t++) {   /* the tails' rows to rank 0 */
    int64_t s = lay.tail_sn[t];
    int q = owner[lay.sub_of[s]];
    for (int c = 0; c < NRHS && q; c++)
      memcpy(yr[0] + (size_t)c * n + L.super[s], yr[q] + (size_t)c * n + L.super[s], (size_t)(L.super[s + 1] - L.super[s]) * sizeof(double));
  }
  c0.phase = K_LLE_CH_TOP | K_LLE_CH_TOPB;
  k_lle_chol_solve(g, &c0, xr[0], NRHS, yr[0]);
  for (int q = 1; q < nr; q++)   /* the top's rows to every rank */
    for (int c = 0; c < NRHS; c++)
      for (int64_t j = 0; j < n; j++)
        if (col_owner[j] < 0) yr[q][(size_t)c * n + j] = yr[0][(size_t)c * n + j];
  for (int q = 0; q < nr; q++) {   /* backward */
    k_lle_chol_in c = in;
    c.phase = K_LLE_CH_BWD; c.sub_mine = mine[q];
    rs.phase = K_LLE_CH_TOPB | K_LLE_CH_BWD;
    if (spread && rp[q]) k_lle_chol_solve(rp[q], &rs, xr[q], NRHS, yr[q]);
    else if (!spread) k_lle_chol_solve(g, &c, xr[q], NRHS, yr[q]);
  }
  size_t bads = 0;
  for (int c = 0; c < NRHS; c++)
    for (int64_t j = 0; j < n; j++) {
      int q = col_owner[j] < 0 ? 0 : (int)col_owner[j];
      double u = yr[q][(size_t)c * n + j], v = y0[(size_t)c * n + j];
      if (memcmp(&u, &v, sizeof u)) bads++;
    }
  snprintf(what, sizeof what, "side %d, %d threads, %d ranks%s, below %d: a %d-column solve from its owners the whole one's "
           "bit for bit (entries differing: the count)", side, threads, nr, spread ? " (spread)" : "", below, NRHS);
  ok(bads == 0, what, (double)bads);
  for (int q = 0; q < nr; q++) { free(xr[q]); free(yr[q]); free(mine[q]); k_lle_chol_plan_free(rp[q]); }
  free(owner); free(none); free(col_owner); free(x0); free(b); free(y0);
  if (p != g) k_lle_chol_plan_free(p);
  k_lle_chol_plan_free(g);
  cholmod_l_free_sparse(&a, &cc);
  cholmod_l_free_factor(&F, &cc);
  cholmod_l_finish(&cc);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "host";
  k_backend be;
  memset(&be, 0, sizeof be);
  if (!strcmp(mode, "cuda")) {
    if (!k_cuda_compiled() || k_cuda_device_count() < 1) {
      printf("SKIP: no CUDA device\n");
      return 77;
    }
    if (k_backend_open(&be, K_CUDA, 0) != HY_OK) {
      printf("FAILED: the CUDA backend does not open: %s\n", hy_err_msg());
      return 1;
    }
    engine = k_lle_eig_ops_get(&be)->chol_top;
    engine_solve = k_lle_eig_ops_get(&be)->chol_top_solve;
    engine_release = k_lle_eig_ops_get(&be)->chol_top_release;
    engine_open = k_lle_eig_ops_get(&be)->chol_top_open;
    ok(engine && engine_solve && engine_release && engine_open, "the CUDA table has chol_top, chol_top_solve, chol_top_release, chol_top_open", 0);
    if (!engine || !engine_solve || !engine_release || !engine_open) return 1;
  } else {
    engine = host_top;
    engine_solve = host_top_solve;
    engine_release = host_release;
    engine_open = host_open;
    ok(k_lle_eig_ops_get(&be)->chol_top == NULL, "the host table has no chol_top (the top on the threads)", 0);
  }
  for (int below = 0; below <= 3; below++) {   /* 1: the updates from below on the engine; 2: and the solves' top;
                                                  3: and the top's assembly (lle.cnd_top_assembly = device) */
    check_one(40, 2, 1.0, 0, below, &be);
    check_one(70, 4, 1.0, 0, below, &be);
    check_one(40, 4, 1.0, 1, below, &be);
    check_one(40, 1, 16.0, 0, below, &be);   /* one thread, the device's cut of 16 (a binding mpiexec) */
  }
  check_open(70, 2, 8.0, &be);   /* the engine opened beside the subtrees; the pairs from below by DGEMM */
  check_open(100, 1, 16.0, &be);
  if (strcmp(mode, "cuda")) {   /* the split over simulated ranks (host arithmetic: bit for bit) */
    for (int below = 0; below <= 2; below++) {   /* 1: the top on the (host) engine with the updates from below;
                                                    2: and its assembly there from the entry lists */
      check_split(60, 2, 2, 0, below, &be);
      check_split(60, 1, 3, 0, below, &be);
    }
    check_split(60, 2, 2, 1, 0, &be);   /* spread: the ranks' own tops by tiles (an engine's top would be another one) */
    check_split(70, 2, 3, 1, 0, &be);
  }
  if (!strcmp(mode, "cuda")) k_backend_close(&be);
  printf("%s: %d of %d checks passed\n", nfailed ? "FAILED" : "PASSED", nchecks - nfailed, nchecks);
  return nfailed ? 1 : 0;
}
