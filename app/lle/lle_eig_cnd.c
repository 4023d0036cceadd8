/* lle_eig_cnd.c - eigensolver chol-nd: bsvd's subspace iteration on e^perp (lle_bsub_solve)
 * with (M + tau I)^-1 from a CHOLMOD supernodal Cholesky factor of P (B^T B + tau I) P^T, P a
 * geometric nested dissection of the points (k_lle_nd_order, kernels/host/lle_nd.c).
 *
 * Why: bsvd's UMFPACK LU of B is a multifrontal LU that runs its assembly on one core and
 * spends most of its time in the symbolic analysis (N = 1M on the H200's host: analysis ~7 s
 * of 15.4 s); METIS would cut the flops but costs more still.  The order here costs
 * O(n log n) and gives a Cholesky of M with fewer flops than METIS's order; CHOLMOD's
 * supernodal factorisation then spends its time in dsyrk / dgemm / dpotrf on large
 * supernodes (every core of the rank through the BLAS), and the block solves with all the
 * block's right-hand sides at once are dtrsm / dgemm.  M is never assembled: CHOLMOD
 * factors A A^T + tau I with A = B^T given (its unsymmetric mode, stype 0), i.e. the CSR
 * arrays of B as they are.  tau as shift-invert's (1e-13 max diag M, tenfold while a pivot
 * fails); the constant vector is deflated exactly by the iteration (pair 0 is (e^T M e, e)),
 * so its 1/tau eigenvalue never enters the block; Rayleigh-Ritz and the residuals use M =
 * B^T B itself, as bsvd. */
#include "lle_eig_cnd.h"
#include "lle_eig_rows.h"
#include "hybrid.h"
#include "k_lle.h"

#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cholmod.h>

/* chol-nd's operator: the factor, a dense block for the solves, and with lle.cnd_solve_cols
 * = c > 0 one CHOLMOD workspace and c-column block per solve call. */
enum { CND_MAXG = 64, CND_DEVICE_CUT_THREADS = 16 };
/* chol-nd's size rules where lle.threads / run.blas_threads are 0 (cnd_sizes): one thread per
 * CND_N_THREAD points at most, one BLAS thread for the iteration below CND_N_BLAS points */
enum { CND_N_THREAD = 2500, CND_N_BLAS = 200000 };
/* lle.cnd_symbolic = auto: tree from this many points (below, steps: tree's fixed costs on the
 * threads lose) */
enum { CND_N_SYM_TREE = 100000 };
/* cnd_dmax's job on a thread of its own (cnd_dmax_run): B, the result. */
typedef struct {
  const lle_bmat *b;
  double dmax;
} cnd_dmax_job;
typedef struct {
  cholmod_common cc;
  int started;
  cholmod_factor *L;
  cholmod_dense *rhs;
  int64_t n;
  int cols, ngrp, nthreads, blas_threads;   /* columns a call (0: all), calls, threads */
  int width;                   /* the block's columns at most */
  SuiteSparse_long *perm;      /* the order: new index i = old perm[i] */
  SuiteSparse_long *ap, *ai;   /* A = B^T with rows and columns in that order (P A P^T) */
  double *ax;
  k_lle_super ls;              /* the own factor (lle.cnd_factor = own): L's structure, */
  k_lle_chol_plan *plan;       /* its plan (schedule and scratch), */
  k_lle_chol_in ci;            /* its matrix and BLAS threads, */
  SuiteSparse_long *cperm;     /* B's index of L's column t (perm[L->Perm[t]]), */
  double *xl;                  /* the block in L's order for its solves */
  k_backend *be;               /* the rank's backend (lle.cnd_top = device: its chol_top) */
  k_lle_pool *pool;            /* the rank's threads for the order, the factor and the solves */
  cnd_dist *dist;              /* lle.eig_ranks > 1: the factor and the solves spread over the ranks */
  int rank, serving;           /* this rank of in->comm; 1: the factor done, the other ranks serve */
  lle_eig *e;                  /* the figures (cnd_dist_end writes the ranks' phases) */
  double t_start;              /* the eigen-solve's start (B and the block before the factor) */
  pthread_t dmax_th;           /* cnd_dmax beside the order (cnd_factor), joined by cnd_numeric */
  int dmax_started;
  cnd_dmax_job dmax_job;
  cholmod_common gcc[CND_MAXG];
  cholmod_dense *grhs[CND_MAXG];
  int gstatus[CND_MAXG];
} cnd_op;

/* Free the operator.  Local. */
static void cnd_free(void *st) {
  cnd_op *o = st;
  if (!o) return;
  if (o->dmax_started) pthread_join(o->dmax_th, NULL);
  if (o->dist && o->serving && o->rank == 0) cnd_dist_end(o->dist, o->e, o->t_start);   /* the others leave their serve */
  cnd_dist_free(o->dist);
  for (int g = 0; g < o->ngrp; g++) {
    cholmod_l_free_dense(&o->grhs[g], &o->gcc[g]);
    cholmod_l_finish(&o->gcc[g]);
  }
  free(o->perm); free(o->ap); free(o->ai); free(o->ax);
  k_lle_chol_plan_free(o->plan);
  k_lle_pool_free(o->pool);
  free(o->cperm); free(o->xl);
  if (o->started) {
    cholmod_l_free_dense(&o->rhs, &o->cc);
    cholmod_l_free_factor(&o->L, &o->cc);
    cholmod_l_finish(&o->cc);
  }
  free(o);
}

/* The calls' workspaces and blocks (lle.cnd_solve_cols = c: ceil(p / c) calls).  Local. */
static int cnd_groups(const lle_eig_in *in, cnd_op *o, int p, int blas_threads) {
  o->width = p;
  o->cols = in->solve_cols > 0 && in->solve_cols < p ? in->solve_cols : 0;
  o->nthreads = lle_threads(in->threads);
  o->blas_threads = blas_threads;
  if (!o->cols) return HY_OK;
  int ng = (p + o->cols - 1) / o->cols;
  if (ng > CND_MAXG) return hy_err(HY_EUSAGE, "lle.cnd_solve_cols = %d: %d calls for %d columns, at most %d", o->cols, ng, p, CND_MAXG);
  for (; o->ngrp < ng; o->ngrp++) {
    cholmod_l_start(&o->gcc[o->ngrp]);
    o->gcc[o->ngrp].print = 0;
    o->gcc[o->ngrp].error_handler = NULL;
    o->grhs[o->ngrp] = cholmod_l_allocate_dense((size_t)o->n, (size_t)o->cols, (size_t)o->n, CHOLMOD_REAL, &o->gcc[o->ngrp]);
    if (!o->grhs[o->ngrp]) { o->ngrp++; return hy_err(HY_ESYS, "CHOLMOD could not allocate a %d-column block", o->cols); }
  }
  return HY_OK;
}

/* max diag M = max_i sum_r B_ri^2 (the column sums of B's squares).  Local. */
static double cnd_dmax(const lle_bmat *b) {
  double *d = NULL, dmax = 0;
  HY_CALLOC(d, b->n);
  for (int64_t a = 0; a < b->p[b->n]; a++) d[b->i[a]] += b->x[a] * b->x[a];
  for (int64_t i = 0; i < b->n; i++) if (d[i] > dmax) dmax = d[i];
  free(d);
  return dmax;
}

/* cnd_dmax on a thread of its own beside the order and the analysis (a serial pass over B's
 * entries, scattered: off the factorisation's path; the same sums).  Local. */
static void *cnd_dmax_run(void *arg) {
  cnd_dmax_job *j = arg;
  j->dmax = cnd_dmax(j->b);
  return NULL;
}

/* The order's threads: the rank's (lle_solve passes lle.threads, or the rank's threads where
 * it is 0), at most 16 (k_lle_nd_order's own cap).  Local. */
static int cnd_order_threads(const lle_eig_in *in) {
  int nt = in->threads > 0 ? in->threads : 1;
  return nt > 16 ? 16 : nt;
}

/* BLAS threads of the numeric factor: lle.cnd_blas_threads; 0: run.blas_threads where set,
 * else the size rule (lle_blas_threads) capped at 4: CHOLMOD's supernodal factor is many
 * small dsyrk / dgemm / dtrsm / dpotrf calls whose OpenBLAS threads cost more than they
 * give (H200, N = 1M: numeric 54.7 s at 16 threads, 6.9 s at 4, 8.6 s at 1).  Local. */
static int cnd_factor_blas(const lle_eig_in *in, int64_t n) {
  if (in->cnd_blas_threads > 0) return in->cnd_blas_threads;
  if (in->blas_threads > 0) return in->blas_threads;
  int nt = lle_blas_threads(n, in->threads);
  return nt > 4 ? 4 : nt;
}

/* The nested-dissection order as CHOLMOD's permutation (new index i = old perm[i]), and its
 * subtrees' segments for the symbolic analysis (k_lle_nd_order_segs).  Local. */
static int cnd_order(const lle_eig_in *in, k_lle_pool *pool, SuiteSparse_long **permp, lle_eig *e, int64_t **segs,
                     int *nseg) {
  int32_t *p32 = NULL;
  SuiteSparse_long *perm = NULL;
  if (!in->x || in->xdim < 1)
    return hy_err(HY_EUSAGE, "lle.eigensolver = chol-nd needs the points' coordinates for its order");
  HY_MALLOC(p32, in->n);
  k_lle_points pts = { .n = in->n, .dim = in->xdim, .x = in->x };
  int rc = k_lle_nd_order_segs(&pts, in->k, in->nbr, in->nd_leaf, cnd_order_threads(in), pool, p32, e->order_parts,
                               segs, nseg);
  if (rc == HY_OK) {
    HY_MALLOC(perm, in->n);
    for (int64_t i = 0; i < in->n; i++) perm[i] = p32[i];
  }
  free(p32);
  *permp = perm;
  return rc;
}

/* cnd_permute's job: B, the inverse order, the operator. */
typedef struct {
  const lle_bmat *b;
  const SuiteSparse_long *ip;
  cnd_op *o;
} cnd_perm_job;

/* Columns [c0, c1) of P A P^T: column c is row perm[c] of B (b->k1 entries a row, so column
 * c starts at c k1), its entries in the new numbering, sorted.  Local. */
static void cnd_permute_part(void *arg, int64_t c0, int64_t c1) {
  const cnd_perm_job *j = arg;
  const lle_bmat *b = j->b;
  cnd_op *o = j->o;
  for (int64_t c = c0; c < c1; c++) {
    int64_t r = o->perm[c], q = c * b->k1;
    if (c + 16 < c1) {   /* B's rows are random here (the order): their entries asked for ahead */
      int64_t r2 = o->perm[c + 16], a0 = b->p[r2], a1 = b->p[r2 + 1] - 1;
      __builtin_prefetch(b->i + a0); __builtin_prefetch(b->i + a1);
      __builtin_prefetch(b->x + a0); __builtin_prefetch(b->x + a1);
    }
    if (c + 32 < c1) __builtin_prefetch(b->p + o->perm[c + 32]);
    o->ap[c] = q;
    for (int64_t a = b->p[r]; a < b->p[r + 1]; a++) {
      SuiteSparse_long i = j->ip[b->i[a]];
      double x = b->x[a];
      int64_t t = q++;   /* insertion sort by the new row index */
      while (t > o->ap[c] && o->ai[t - 1] > i) { o->ai[t] = o->ai[t - 1]; o->ax[t] = o->ax[t - 1]; t--; }
      o->ai[t] = i; o->ax[t] = x;
    }
  }
}

/* P A P^T for A = B^T (column i = row i of B), on the rank's threads.  Local. */
static int cnd_permute(const lle_bmat *b, cnd_op *o, int threads) {
  int64_t n = b->n, nnz = b->p[n];
  SuiteSparse_long *ip = NULL;
  HY_MALLOC(ip, n);
  HY_MALLOC(o->ap, n + 1); HY_MALLOC(o->ai, nnz); HY_MALLOC(o->ax, nnz);
  for (int64_t c = 0; c < n; c++) ip[o->perm[c]] = c;
  cnd_perm_job j = { b, ip, o };
  k_lle_pool_for(o->pool, threads, n, cnd_permute_part, &j);   /* every thread of the pool (not lle_threads' 8) */
  o->ap[n] = nnz;
  free(ip);
  return HY_OK;
}

/* The matrix A A^T (A = B^T in the order: column c is row perm[c] of B) as CHOLMOD sees it. */
static cholmod_sparse cnd_amat(const cnd_op *o) {
  cholmod_sparse a = {
    .nrow = (size_t)o->n, .ncol = (size_t)o->n, .nzmax = (size_t)o->ap[o->n], .p = o->ap, .i = o->ai,
    .x = o->ax, .stype = 0, .itype = CHOLMOD_LONG, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE,
    .sorted = 1, .packed = 1,
  };
  return a;
}

/* CHOLMOD's numeric factor of A A^T + tau I on its BLAS threads: HY_OK, HY_ENUMERIC for a
 * non-positive pivot (no message), HY_ESYS.  Local. */
static int cnd_numeric_cholmod(const lle_eig_in *in, cnd_op *o, double tau, lle_eig *e) {
  (void)in;
  cholmod_sparse a = cnd_amat(o);
  double beta[2] = { tau, 0 };
  if (!cholmod_l_factorize_p(&a, beta, NULL, 0, o->L, &o->cc) && o->cc.status < CHOLMOD_OK)
    return hy_err(HY_ESYS, "CHOLMOD factorisation of P (M + tau I) P^T failed (status %d)", o->cc.status);
  if (o->cc.status == CHOLMOD_NOT_POSDEF || o->L->minor < o->L->n) return HY_ENUMERIC;
  e->t_sub = e->t_top = 0;
  return HY_OK;
}

/* The factor's structure and the matrix as k_lle_chol_numeric takes them.  Local. */
static void cnd_own_args(const cnd_op *o, double tau, const lle_eig *e, k_lle_super *ls, k_lle_chol_in *ci) {
  int tiles = e->cnd_tiles;
  const cholmod_factor *L = o->L;
  *ls = (k_lle_super){ .n = (int64_t)L->n, .nsuper = (int64_t)L->nsuper, .super = L->super, .pi = L->pi,
                       .px = L->px, .s = L->s };
  *ci = (k_lle_chol_in){ .ap = o->ap, .ai = o->ai, .ax = o->ax, .perm = L->Perm, .tau = tau,
                         .top_blas = e->factor_blas_threads, .blas_after = e->blas_threads, .blas_set = lle_blas_set,
                         .top_tiles = tiles, .solve_tiles = e->cnd_solve_tiles, .small_cols = e->cnd_small, .top = e->cnd_device ? k_lle_eig_ops_get(o->be)->chol_top : NULL,
                         .top_be = o->be, .top_below = e->cnd_below,
                         .top_solve = e->cnd_solve_top ? k_lle_eig_ops_get(o->be)->chol_top_solve : NULL,
                         .top_release = e->cnd_solve_top ? k_lle_eig_ops_get(o->be)->chol_top_release : NULL,
                         .top_values = e->cnd_top_values, .top_stage = e->cnd_device && e->cnd_top_copy,
                         .top_assemble = e->cnd_top_asm,
                         .top_open = e->cnd_top_open ? k_lle_eig_ops_get(o->be)->chol_top_open : NULL,
                         .top_drop = k_lle_eig_ops_get(o->be)->chol_top_release, .top_reg = e->cnd_top_open && e->cnd_below,
                         .top_warm = e->cnd_top_warm,
                         .top_gemm_k = e->cnd_below ? e->cnd_below_gemm : 0 };
}

/* The own tree-parallel numeric factor (kernels/host/lle_chol.c) written into CHOLMOD's
 * supernodal L (so cholmod_solve could take it as its own), its plan kept for the solves:
 * HY_OK, or HY_ENUMERIC for a non-positive pivot (no message).  Local. */
static int cnd_numeric_own(const lle_eig_in *in, cnd_op *o, double tau, lle_eig *e) {
  cholmod_factor *L = o->L;
  if (L->xtype == CHOLMOD_PATTERN && !cholmod_l_change_factor(CHOLMOD_REAL, 1, 1, 1, 1, L, &o->cc))
    return hy_err(HY_ESYS, "CHOLMOD could not allocate the factor's values (status %d)", o->cc.status);
  if (!L->is_super || !L->x) return hy_err(HY_ESYS, "chol-nd: the factor is not supernodal (CHOLMOD's analysis)");
  k_lle_chol_stats st;
  cnd_own_args(o, tau, e, &o->ls, &o->ci);
  /* with the top on the device the cut of CND_DEVICE_CUT_THREADS threads (times lle.cnd_cut),
   * whatever the rank's: the same supernodes on the device, the same factor at any thread count */
  int nt = in->threads > 0 ? in->threads : 1;
  double cut = in->cnd_cut * (e->cnd_device ? (double)CND_DEVICE_CUT_THREADS / nt : 1.0);
  /* spread over the ranks with the host's top by tiles: the cut for all the ranks' threads (a
   * rank's subtrees keep its threads busy; the factor is the same bit for bit at any cut); with
   * the top on the device the one-rank cut (the same supernodes on the device, the same bits) */
  /* lle.eig_top = spread: the plan cut for the ranks (two subtrees a rank: the balance of the
   * split), its top alone rank 0's; each rank's plan on its subtrees cut as one rank's */
  double rcut = cut;
  if (in->eig_ranks > 1 && in->cnd_spread) cut = 2.0 * in->eig_ranks / nt;
  else if (in->eig_ranks > 1 && e->cnd_tiles && !e->cnd_device) cut *= in->eig_ranks;
  if (!o->plan && !(o->plan = k_lle_chol_plan_new_cut(&o->ls, nt, o->pool, cut))) return HY_ESYS;
  if (in->eig_ranks > 1 && !o->dist) {   /* the subtrees over the ranks (the same plan on each) */
    cnd_spread sp = { .threads = nt, .pool = o->pool, .cut = rcut };
    int rc = cnd_dist_new(in->comm, o->plan, &o->ls, L->Perm, in->cnd_spread ? &sp : NULL, &o->dist);
    if (rc != HY_OK) return rc;
  }
  int rc = o->dist ? cnd_dist_numeric(o->dist, &o->ci, L->x, &st) : k_lle_chol_numeric(o->plan, &o->ci, L->x, &st);
  L->minor = (size_t)st.minor;
  e->cnd_nsub = st.nsub; e->cnd_ntop = st.ntop; e->cnd_threads = st.threads;
  e->cnd_top_frac = st.flops > 0 ? st.top_flops / st.flops : 0;
  e->t_sub = st.t_sub; e->t_top = st.t_top;
  e->cnd_top_used = st.top_engine;
  e->t_below = st.t_below; e->top_bytes = st.top_bytes; e->t_up = st.t_up; e->t_dev = st.t_dev; e->t_down = st.t_down;
  e->t_dev_asm = st.t_dev_asm; e->t_dev_below = st.t_dev_below; e->t_alloc = st.t_alloc;
  e->t_open = st.t_open; e->t_open_wait = st.t_open_wait; e->t_warm = st.t_warm; e->cnd_ngemm = st.top_ngemm;
  e->t_up_tails = st.t_up_tails; e->t_up_lists = st.t_up_lists; e->top_reg_used = st.top_reg_used; e->t_dev_tails = st.t_dev_tails; e->t_dev_own = st.t_dev_own;
  if (rc != HY_OK && rc != HY_ENUMERIC) HY_LOCAL(rc);   /* a device failure ends the job */
  if (rc == HY_OK && !o->cperm) {   /* the solves' permutation and block */
    const SuiteSparse_long *lp = L->Perm;
    HY_MALLOC(o->cperm, o->n);
    for (int64_t t = 0; t < o->n; t++) o->cperm[t] = o->perm[lp[t]];
  }
  return rc;
}

/* The numeric factor's variants (lle.cnd_factor). */
typedef struct {
  const char *name;
  int (*numeric)(const lle_eig_in *in, cnd_op *o, double tau, lle_eig *e);
  int (*blas)(const lle_eig_in *in, int64_t n);   /* its BLAS threads */
} cnd_numeric_kind;

/* BLAS threads of the own factor's top dpotrf / dtrsm: lle.cnd_blas_threads, else
 * run.blas_threads, else the rank's threads.  Local. */
static int cnd_own_blas(const lle_eig_in *in, int64_t n) {
  (void)n;
  if (in->cnd_tiles) return 1;   /* the tiles on the threads, one BLAS thread each */
  if (in->cnd_blas_threads > 0) return in->cnd_blas_threads;
  if (in->blas_threads > 0) return in->blas_threads;
  return in->threads > 0 ? in->threads : 1;
}

static const cnd_numeric_kind cnd_kind_own = { .name = "own", .numeric = cnd_numeric_own, .blas = cnd_own_blas };
static const cnd_numeric_kind cnd_kind_cholmod = { .name = "cholmod", .numeric = cnd_numeric_cholmod,
                                                   .blas = cnd_factor_blas };

/* The factorisation of A A^T + tau I (A = B^T: M + tau I) in the order P, tau from 1e-13
 * max diag M up tenfold while the factor meets a non-positive pivot; with lle.cnd_check the
 * probe's backward error.  Local. */
static int cnd_numeric(const lle_eig_in *in, const lle_bmat *b, cnd_op *o, lle_eig *e) {
  const cnd_numeric_kind *kind = in->cnd_own ? &cnd_kind_own : &cnd_kind_cholmod;
  double dmax = o->dmax_started ? (pthread_join(o->dmax_th, NULL), o->dmax_started = 0, o->dmax_job.dmax) : cnd_dmax(b);
  double tau = 1e-13 * (dmax > 0 ? dmax : 1);
  double t0 = MPI_Wtime();
  e->cnd_own = in->cnd_own;
  e->cnd_tiles = in->cnd_own && in->cnd_tiles;
  e->cnd_solve_tiles = in->cnd_own && in->cnd_solve_tiles;
  e->cnd_small = in->cnd_own ? in->cnd_small : 0;
  e->cnd_device = in->cnd_own && in->cnd_device && k_lle_eig_ops_get(in->be)->chol_top;
  e->cnd_below = e->cnd_device && in->cnd_below;
  e->cnd_solve_top = e->cnd_below && in->cnd_solve_top && k_lle_eig_ops_get(in->be)->chol_top_solve;
  e->cnd_top_values = !e->cnd_solve_top || in->cnd_check || in->solve_cols > 0;   /* host reads of the top's values */
  e->cnd_top_copy = e->cnd_device && in->cnd_top_copy;
  e->cnd_top_asm = e->cnd_below && in->cnd_top_asm;
  e->cnd_top_open = e->cnd_device && in->cnd_top_open;
  e->cnd_top_warm = e->cnd_top_open && in->cnd_top_warm;
  e->cnd_below_gemm = in->cnd_below_gemm;
  e->factor_blas_threads = kind->blas(in, b->n);
  lle_blas_set(e->factor_blas_threads);
  int rc;
  while ((rc = kind->numeric(in, o, tau, e)) == HY_ENUMERIC && tau * 10 <= 1e-6 * (dmax > 0 ? dmax : 1)) tau *= 10;
  lle_blas_set(e->blas_threads);   /* the block solves: the size rule (N = 1M: 1.98 s at 16, 2.42 at 4) */
  if (rc == HY_ENUMERIC)
    return hy_err(HY_ENUMERIC, "M + tau I is not positive definite up to tau = %.3g (bad weights?)", tau);
  if (rc != HY_OK) return rc;
  e->t_numeric = MPI_Wtime() - t0;
  e->shift = tau;
  e->lnz = o->cc.lnz;
  e->flops = o->cc.fl;
  if (in->cnd_check && o->dist) HY_CALL(cnd_dist_gather_factor(o->dist, o->L->x));   /* rank 0's checks read all of L */
  if (in->cnd_check && o->rank == 0) {
    e->factor_checked = 1;
    k_lle_super ls;
    k_lle_chol_in ci;
    cnd_own_args(o, tau, e, &ls, &ci);
    e->factor_check = k_lle_chol_check(&ls, &ci, o->L->x);
    k_lle_chol_in whole = o->ci;   /* rank 0 alone, all of L (the phases and share reset) */
    whole.phase = 0;
    whole.sub_mine = NULL;
    e->solve_check = o->plan ? k_lle_chol_check_solve(o->plan, &whole, o->L->x) : -1;
  }
  return HY_OK;
}

/* The memory the eigen-solve holds from the symbolic analysis on (printed: N = 10M must fit
 * one host): the factor's values and row indices (CHOLMOD's sizes), A = P B^T P^T (CSC), A by
 * rows (the own factor's copy) and B (CSR), and the blocks (the iteration's, the solves').  Local. */
static void cnd_memory(const lle_eig_in *in, const lle_bmat *b, const cnd_op *o, lle_eig *e) {
  double nnz = (double)b->p[b->n], n = (double)b->n, width = lle_bsub_width(in);
  e->mem_factor = 8.0 * ((double)o->L->xsize + (double)o->L->ssize) + 24.0 * (double)o->L->nsuper + 16 * n;
  e->mem_matrix = nnz * 16 + n * 8 + (in->cnd_own ? nnz * 12 + n * 12 : 0) + nnz * 16 + n * 8;
  e->mem_block = 8.0 * n * width * (in->cnd_own ? 6 : 5) + 4.0 * n * (in->threads > 1 ? in->threads : 1);
}

/* Order, symbolic analysis (postordered, supernodal) and the numeric factor; the dense block
 * for the solves.  Local. */
static int cnd_factor(const lle_eig_in *in, const lle_bmat *b, void **stp, lle_eig *e, double t0) {
  cnd_op *o = NULL;
  HY_CALLOC(o, 1);
  *stp = o;
  o->n = b->n;
  o->be = in->be;
  o->e = e;
  o->t_start = t0;
  if (in->eig_ranks > 1) MPI_Comm_rank(in->comm, &o->rank);
  e->order_threads = cnd_order_threads(in);
  double ta = MPI_Wtime();
  e->t_setup = ta - t0;   /* B and the iteration's block (lle_bsub_solve) */
  if (in->cnd_own && in->blas_threads <= 0 && b->n < CND_N_BLAS) e->blas_threads = 1;   /* the iteration's (cnd_sizes) */
  if (in->threads > 1) o->pool = k_lle_pool_new(in->threads);   /* parked between its jobs */
  o->dmax_job.b = b;
  o->dmax_started = in->threads > 1 && pthread_create(&o->dmax_th, NULL, cnd_dmax_run, &o->dmax_job) == 0;
  k_lle_pool_set_spin(o->pool, (int64_t)in->pool_spin_us * 1000);
  e->t_pool = MPI_Wtime() - ta;
  int64_t *segs = NULL;
  int nseg = 0;
  int rc = cnd_order(in, o->pool, &o->perm, e, &segs, &nseg);
  if (rc != HY_OK) { free(segs); return rc; }
  double tb = MPI_Wtime();
  rc = cnd_permute(b, o, in->threads);
  if (rc != HY_OK) { free(segs); return rc; }
  e->t_order = MPI_Wtime() - t0;
  e->t_permute = MPI_Wtime() - tb;
  cholmod_l_start(&o->cc);
  o->started = 1;
  o->cc.print = 0;
  o->cc.error_handler = NULL;
  o->cc.nmethods = 1;
  o->cc.method[0].ordering = CHOLMOD_NATURAL;   /* A is given in the order (better locality) */
  o->cc.postorder = 1;
  o->cc.supernodal = CHOLMOD_SUPERNODAL;
  cnd_sym_in si = { .n = b->n, .ap = o->ap, .ai = o->ai, .pool = o->pool,
                     .threads = in->threads, .variant = in->cnd_sym >= 0 ? in->cnd_sym : b->n >= CND_N_SYM_TREE ? 2 : 1,
                     .check = in->cnd_check, .parts = e->sym_parts,
                     .segs = segs, .nseg = nseg };
  e->sym_kind = si.variant;
  o->L = lle_cnd_analyze(&si, &o->cc, &e->sym_diff);
  free(segs);
  if (!o->L) return hy_err(o->cc.status == CHOLMOD_OUT_OF_MEMORY ? HY_ESYS : HY_ENUMERIC,
                           "CHOLMOD analysis of M in the nested-dissection order failed (status %d)", o->cc.status);
  e->t_analyze = MPI_Wtime() - t0;
  e->ordering = (int)o->L->ordering;
  cnd_memory(in, b, o, e);
  snprintf(e->method, sizeof e->method, "%s", in->cnd_own ? "CHOLMOD analysis, own tree-parallel Cholesky, geometric ND"
                                                            : "CHOLMOD supernodal Cholesky of P (M + tau I) P^T, geometric ND");
  HY_CALL(cnd_numeric(in, b, o, e));
  o->serving = o->dist != NULL;
  o->rhs = cholmod_l_allocate_dense((size_t)b->n, (size_t)lle_bsub_width(in), (size_t)b->n, CHOLMOD_REAL, &o->cc);
  if (!o->rhs) return hy_err(HY_ESYS, "CHOLMOD could not allocate the %d-column block", lle_bsub_width(in));
  return cnd_groups(in, o, lle_bsub_width(in), e->blas_threads);
}

/* y = P x (y_i = x_perm[i]) for nc columns (leading dimension n).  Local. */
static void cnd_gather(const cnd_op *o, int nc, const double *x, double *y) {
  for (int c = 0; c < nc; c++)
    for (int64_t i = 0; i < o->n; i++) y[(size_t)c * o->n + i] = x[(size_t)c * o->n + o->perm[i]];
}

/* x = P^T y (x_perm[i] = y_i) for nc columns.  Local. */
static void cnd_scatter(const cnd_op *o, int nc, const double *y, double *x) {
  for (int c = 0; c < nc; c++)
    for (int64_t i = 0; i < o->n; i++) x[(size_t)c * o->n + o->perm[i]] = y[(size_t)c * o->n + i];
}

/* One solve call's job: columns [g cols, (g + 1) cols) of v. */
typedef struct {
  cnd_op *o;
  int p;
  double *v;
} cnd_job;

/* Calls [g0, g1) of the split solve, each with its own workspace.  Local. */
static void cnd_apply_part(void *arg, int g0, int g1) {
  cnd_job *j = arg;
  cnd_op *o = j->o;
  for (int g = g0; g < g1; g++) {
    int c0 = g * o->cols, nc = j->p - c0 < o->cols ? j->p - c0 : o->cols;
    o->grhs[g]->ncol = (size_t)nc;
    cnd_gather(o, nc, j->v + (size_t)c0 * o->n, o->grhs[g]->x);
    cholmod_dense *x = cholmod_l_solve(CHOLMOD_A, o->L, o->grhs[g], &o->gcc[g]);
    o->gstatus[g] = x ? CHOLMOD_OK : (o->gcc[g].status < 0 ? o->gcc[g].status : -1);
    if (x) cnd_scatter(o, nc, x->x, j->v + (size_t)c0 * o->n);
    cholmod_l_free_dense(&x, &o->gcc[g]);
  }
}

/* The own solve's block moves: v into L's order (xl), or back. */
typedef struct {
  cnd_op *o;
  double *v;
  int back;
} cnd_move_job;

/* Columns [c0, c1): xl = v in L's order (back: v = xl in B's).  Local. */
static void cnd_move_part(void *arg, int c0, int c1) {
  const cnd_move_job *j = arg;
  const cnd_op *o = j->o;
  for (int64_t c = c0; c < c1; c++) {
    double *x = o->xl + (size_t)c * o->n, *v = j->v + (size_t)c * o->n;
    if (j->back) for (int64_t t = 0; t < o->n; t++) v[o->cperm[t]] = x[t];
    else for (int64_t t = 0; t < o->n; t++) x[t] = v[o->cperm[t]];
  }
}

/* v <- (M + tau I)^-1 v for p columns: all of them in one supernodal solve, or (cnd_solve_cols
 * = c) in calls of c columns on the rank's threads, one BLAS thread each.  Local. */
static int cnd_apply(void *st, int p, double *v, double *tmp) {
  cnd_op *o = st;
  (void)tmp;
  if (o->cols && (p + o->cols - 1) / o->cols <= o->ngrp) {   /* c columns a call, on threads */
    cnd_job j = { o, p, v };
    int ng = (p + o->cols - 1) / o->cols;
    if (o->nthreads > 1) lle_blas_set(1);
    lle_parallel_on(o->pool, o->nthreads, ng, cnd_apply_part, &j);
    if (o->nthreads > 1) lle_blas_set(o->blas_threads);
    for (int g = 0; g < ng; g++)
      if (o->gstatus[g] != CHOLMOD_OK)
        return hy_err(HY_ESYS, "CHOLMOD solve %d of %d with the factor of M + tau I failed (status %d)", g + 1, ng, o->gstatus[g]);
    return HY_OK;
  }
  if (o->plan && o->cperm) {   /* the own factor: its tree-parallel solves in L's order */
    if (!o->xl) HY_MALLOC(o->xl, (size_t)o->n * o->width);
    cnd_move_job j = { o, v, 0 };
    lle_parallel_on(o->pool, o->nthreads, p, cnd_move_part, &j);
    if (o->dist) HY_CALL(cnd_dist_solve0(o->dist, &o->ci, o->L->x, p, o->xl));   /* over the ranks */
    else k_lle_chol_solve(o->plan, &o->ci, o->L->x, p, o->xl);
    j.back = 1;
    lle_parallel_on(o->pool, o->nthreads, p, cnd_move_part, &j);
    return HY_OK;
  }
  o->rhs->ncol = (size_t)p;
  cnd_gather(o, p, v, o->rhs->x);
  cholmod_dense *x = cholmod_l_solve(CHOLMOD_A, o->L, o->rhs, &o->cc);
  if (!x) return hy_err(HY_ESYS, "CHOLMOD solve with the factor of M + tau I failed (status %d)", o->cc.status);
  cnd_scatter(o, p, x->x, v);
  cholmod_l_free_dense(&x, &o->cc);
  return HY_OK;
}

/* chol-nd's threads and the iteration's BLAS threads by size where not set (lle.threads = 0,
 * run.blas_threads = 0): at most one thread per CND_N_THREAD points, and one BLAS thread below
 * CND_N_BLAS points.  The H200 at N = 20k (03:15 run, 16 cores): block solves 0.060 s at 16
 * threads with the size rule's 4 BLAS threads (OpenBLAS's idle threads spin after each QR /
 * Rayleigh-Ritz call and take cores from the pool's), 0.031 s at 16 with one BLAS thread,
 * 0.020 s at 4 threads; the order 0.053 s at 16, 0.028 s at 4 (its steps too small to split
 * 16 ways).  The H200 mid run of session 8 (b8a85d5, 07:25-07:33) at 20k: eigen 0.102 s (S1) /
 * 0.085 s (S2) at 4 threads, 0.092 s at 8, 0.088 s at 6, 0.119 s at 2; at 8 with the pool's
 * waiting threads spinning 2 ms (lle.pool_spin_us) 0.071 s (order 0.018, numeric 0.015): one
 * thread per 2500 points now (8 at 20k).  The results do not depend on the thread count; the
 * BLAS count (cnd_factor sets it) changes the last bits of QR / Rayleigh-Ritz.  Local. */
static void cnd_sizes(const lle_eig_in *in, lle_eig_in *use) {
  *use = *in;
  if (in->threads_auto) {
    int64_t cap = in->n / CND_N_THREAD;
    if (cap < 1) cap = 1;
    if (use->threads > cap) use->threads = (int)cap;
  }
}

/* Rank 0's word to the others before a by-rows step (lle_rows_call).  Local on rank 0. */
static int cnd_rows_call(void *arg, int code) {
  return cnd_dist_announce(arg, code);
}

/* The factor's pool for the iteration's loops (lle_bop.pool): one set of threads for the solves
 * and the products, not a second pool started in the first iteration.  Local. */
static k_lle_pool *cnd_pool(void *st) {
  return ((cnd_op *)st)->pool;
}

/* lle.iter_block = rows: the block's rows over the ranks of the solves (this rank alone where
 * they are not spread), the rank's pool.  Local. */
static int cnd_rows_link(void *st, MPI_Comm *comm, lle_rows_call *call, void **arg, k_lle_pool **pool) {
  cnd_op *o = st;
  *comm = o->dist ? cnd_dist_comm(o->dist) : MPI_COMM_SELF;
  *call = o->dist ? cnd_rows_call : NULL;
  *arg = o->dist;
  *pool = o->pool;
  return HY_OK;
}

/* chol-nd (see the file comment).  Local (rank 0). */
static int cnd_solve(const lle_eig_in *in, lle_eig *e) {
  static const lle_bop chol = { .name = "CHOLMOD Cholesky of M + tau I", .factor = cnd_factor,
                                .apply = cnd_apply, .free = cnd_free, .rows_link = cnd_rows_link, .pool = cnd_pool };
  lle_eig_in use;
  cnd_sizes(in, &use);
  return lle_bsub_solve(&use, &chol, e);
}

/* A rank other than 0 in rank 0's by-rows iteration (lle.iter_block = rows): its B, threads,
 * operator and rows. */
typedef struct {
  const lle_bmat *b;
  int nt;
  cnd_op *o;
  lle_rows *r;
} cnd_rows_srv;

/* The step rank 0 told (cnd_dist_serve's step): open the rows (again), or a step on them.  Collective. */
static int cnd_rows_step(void *arg, int code) {
  cnd_rows_srv *w = arg;
  if (code % LLE_ROWS_STEPS == LLE_ROWS_OPEN) {
    lle_rows_free(w->r);
    w->r = NULL;
    return lle_rows_open(cnd_dist_comm(w->o->dist), w->b, code / LLE_ROWS_STEPS, w->nt, w->o->pool, NULL, NULL, &w->r);
  }
  if (!w->r) return hy_err(HY_ESYS, "chol-nd by rows: step %d before the rows were opened", code);
  return lle_rows_step(w->r, code);
}

/* chol-nd spread over the ranks, ranks other than 0: B, the factor as rank 0's (every retry),
 * then their part of its solves (and with lle.iter_block = rows of its iteration's block work)
 * until it ends.  Collective with rank 0's cnd_solve. */
int lle_cnd_worker(const lle_eig_in *in) {
  lle_eig_in use;
  cnd_sizes(in, &use);
  if (in->n > INT32_MAX || in->nev < 1 || in->nev >= in->n) return HY_OK;   /* rank 0 refuses it alone (lle_bsub_solve) */
  double t0 = MPI_Wtime();
  lle_bmat b;
  lle_eig e;
  memset(&e, 0, sizeof e);
  HY_CALL(lle_bmat_build(use.n, use.k, use.nbr, use.w, lle_threads(use.threads), &b));
  e.blas_threads = use.blas_threads > 0 ? use.blas_threads : lle_blas_threads(use.n, use.threads);   /* as bsvd_setup */
  void *st = NULL;
  int rc = cnd_factor(&use, &b, &st, &e, t0);
  cnd_op *o = st;
  if (rc == HY_OK && o->dist) {
    o->serving = 0;   /* rank 0 ends the serve */
    cnd_rows_srv w = { .b = &b, .nt = lle_threads(use.threads), .o = o };
    rc = cnd_dist_serve(o->dist, &o->ci, o->L->x, &e, t0, use.iter_rows ? cnd_rows_step : NULL, &w);
    lle_rows_free(w.r);
  }
  cnd_free(st);
  lle_bmat_free(&b);
  return rc;
}

const lle_eigsolver lle_eig_cnd_solver = {
  .name = "chol-nd", .needs_m = 0, .needs_w = 1, .solve = cnd_solve, .report = lle_report_eig_cnd,
  /* as bsvd: no W (ltsa, hessian, modified), M + tau I not positive definite up to tau_max,
   * or 50 iterations without convergence (normal: 2-4): shift-invert takes over */
  .fallback = "shift-invert", .stall_iters = 50, .stall_why = "M + tau I badly conditioned?",
};
