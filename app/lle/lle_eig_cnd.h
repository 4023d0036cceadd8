/* lle_eig_cnd.h - chol-nd's pieces shared between its files (private to app/lle/): the
 * symbolic analysis (lle_eig_cnd_sym.c) that lle_eig_cnd.c calls.  Local work on the rank that
 * solves (rank 0). */
#ifndef HY_LLE_EIG_CND_H
#define HY_LLE_EIG_CND_H

#include "lle_eig.h"
#include <suitesparse/cholmod.h>
#include <mpi.h>

/* What the symbolic analysis of A A^T takes: A = P B^T P^T (n x n CSC, columns sorted, in
 * the nested-dissection order), the rank's threads. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *ap, *ai;
  k_lle_pool *pool;
  int threads;
  int variant;  /* lle.cnd_symbolic: CND_SYM_CHOLMOD, CND_SYM_STEPS or CND_SYM_TREE */
  const int64_t *segs;   /* tree: the order's closed segments [segs[2s], segs[2s + 1]) (NULL: none) */
  int nseg;
  int check;    /* lle.cnd_check: cholmod_analyze's too (steps' where the variant is cholmod), compared */
  double *parts;   /* NULL or CND_SYM_PARTS seconds (steps and tree): the transposes, etree, postorder,
                      row / column counts, weighted postorder, the permuted copies, the supernodal
                      pattern; parts[7] = 1 where the etree and counts ran over the order's segments
                      (tree), parts[1], [2], [3] then: the segments' part, the top's, 0 */
} cnd_sym_in;
enum { CND_SYM_CHOLMOD = 0, CND_SYM_STEPS = 1, CND_SYM_TREE = 2, CND_SYM_PARTS = 8 };

/* What the supernodal pattern on the threads (lle_eig_cnd_super.c) takes: S2 = A(p, p)
 * (A's pointers, its rows renumbered by the postorder, columns sorted), F2 = S2', the pool. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *ap, *s2i, *f2p, *f2i;
  k_lle_pool *pool;
  int threads;
} cnd_super_in;

/* What the elimination tree and counts on the threads (lle_eig_cnd_counts.c) take: A (n x n
 * CSC in the order, columns sorted), F = A', the order's segments, the pool. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *ap, *ai, *fp, *fi;
  const int64_t *segs;
  int nseg;
  k_lle_pool *pool;
  int threads;
} cnd_counts_in;

/* Parent and ColCount of A A^T as cholmod_l_etree + cholmod_l_rowcolcounts give them (cc's fl,
 * lnz, aatfl too), the segments' local problems on the threads, the top after: 1 done, 0 not
 * applicable (no segments, or one not closed), -1 failure (cc->status set).  Local. */
int lle_cnd_tree_counts(const cnd_counts_in *in, SuiteSparse_long *parent, SuiteSparse_long *colcount,
                        cholmod_common *cc, double *ts);   /* ts (2): the seconds of the segments' part, the top's */

/* cholmod_l_postorder(Parent, n, ColCount, post)'s result (the weighted postorder) by the
 * segments' trees on the threads and the top after (in as lle_cnd_tree_counts): 1, or 0 where
 * the segments do not apply.  Local. */
int lle_cnd_tree_postorder(const cnd_counts_in *in, const SuiteSparse_long *parent, const SuiteSparse_long *colcount,
                           SuiteSparse_long *post);

/* cholmod_l_super_symbolic2(1, S2, F2, Parent, L, cc)'s result, its row pass over the
 * supernodal tree's subtrees on the pool's threads (L: simplicial symbolic with ColCount,
 * Parent postordered).  1, or 0 with cc->status set.  Local. */
int lle_cnd_super(const cnd_super_in *in, const SuiteSparse_long *parent, cholmod_factor *L, cholmod_common *cc);

/* A variant of the analysis (lle.cnd_symbolic). */
typedef struct {
  const char *name;
  cholmod_factor *(*analyze)(const cnd_sym_in *in, cholmod_common *cc);
} cnd_sym_kind;

/* The supernodal symbolic factor of A A^T, postordered, in CHOLMOD's layout (cc->fl and
 * cc->lnz set as cholmod_analyze sets them), by in->variant; with in->check
 * cholmod_analyze's too (steps' for variant cholmod) and *diff = 0 where they are the same in
 * every field (else the first that differs; -1 not compared).  NULL with cc->status set on
 * failure.  Local. */
cholmod_factor *lle_cnd_analyze(const cnd_sym_in *in, cholmod_common *cc, int *diff);

/* ---- chol-nd spread over the ranks (lle.eig_ranks; lle_eig_cnd_dist.c) ----
 * Every rank has B and runs the same order, symbolic analysis and plan (checked the same); the
 * plan's subtrees are split over the ranks by their flops (largest first to the least loaded
 * rank); a numeric factor is each rank's subtrees on its threads, their tails to rank 0, the top
 * there (on its device where the one-rank path puts it); a solve (rank 0 holds the block) is the
 * block's rows of each rank's subtrees to it, the forward subtree phase on every rank, the tails'
 * rows to rank 0, the top's forward and backward there, the top's rows to every rank, the
 * backward subtree phase, the subtrees' rows back to rank 0.  Every supernode's arithmetic is the
 * one-rank path's: the factor and every solve are the same bit for bit at any rank count. */
typedef struct cnd_dist cnd_dist;
/* The split of plan's subtrees over comm's ranks, the structure compared between the ranks
 * (a digest of L and perm), with sp (spread) each rank's own plan; HY_OK on every rank or the
 * same error.  Collective. */
/* lle.eig_top = spread: plan is cut for the ranks (its subtrees the ranks' shares, its top rank
 * 0's alone), each rank's plan on its subtrees is cut for its threads with cut (k_lle_chol_plan_new_roots). */
typedef struct {
  int threads;
  k_lle_pool *pool;
  double cut;
} cnd_spread;
int cnd_dist_new(MPI_Comm comm, k_lle_chol_plan *plan, const k_lle_super *L, const int64_t *perm, const cnd_spread *sp,
                 cnd_dist **dp);
/* One numeric factor (ci as k_lle_chol_numeric's, phase and sub_mine set here): HY_OK or
 * HY_ENUMERIC on every rank (a device error ends the job).  Collective. */
int cnd_dist_numeric(cnd_dist *d, const k_lle_chol_in *ci, double *lx, k_lle_chol_stats *st);
/* The other ranks' subtrees' values into rank 0's lx (its checks read all of L).  Collective. */
int cnd_dist_gather_factor(cnd_dist *d, double *lx);
/* Rank 0: x <- (L L^T)^-1 x for nrhs columns (n x nrhs in L's order), the other ranks serving
 * (cnd_dist_serve); then at the end cnd_dist_end with the eigen-solve's figures e (its phases
 * gathered from every rank, the per-phase maxima written into e).  Local on rank 0, collective
 * with the others' serve. */
int cnd_dist_solve0(cnd_dist *d, const k_lle_chol_in *ci, const double *lx, int nrhs, double *x);
void cnd_dist_end(cnd_dist *d, lle_eig *e, double t_start);
/* The other ranks: their part of rank 0's solves until its cnd_dist_end, then their figures to
 * it (e: the rank's order and analysis times).  Collective with rank 0. */
int cnd_dist_serve(cnd_dist *d, const k_lle_chol_in *ci, const double *lx, const lle_eig *e, double t_start,
                   int (*step)(void *arg, int code), void *arg);
/* Rank 0: the other ranks' next step other than a solve (code > 0: lle.iter_block = rows'
 * lle_rows steps), which their serve hands to its step(arg, code); HY_ENUMERIC from it is
 * rank 0's to see too (the same reduced values), any other failure ends the job.  Local on
 * rank 0, collective with the others' serve.  The ranks' communicator: cnd_dist_comm. */
int cnd_dist_announce(cnd_dist *d, int code);
MPI_Comm cnd_dist_comm(const cnd_dist *d);
/* Free it.  Local. */
void cnd_dist_free(cnd_dist *d);

#endif
