/* lle_eig_cnd.h - chol-nd's pieces shared between its files (private to app/lle/): the
 * symbolic analysis (lle_eig_cnd_sym.c) that lle_eig_cnd.c calls.  Local work on the rank that
 * solves (rank 0). */
#ifndef HY_LLE_EIG_CND_H
#define HY_LLE_EIG_CND_H

#include "lle_eig.h"
#include <suitesparse/cholmod.h>

/* What the symbolic analysis of A A^T takes: A = P B^T P^T (n x n CSC, columns sorted, in
 * the nested-dissection order), the rank's threads. */
typedef struct {
  int64_t n;
  const SuiteSparse_long *ap, *ai;
  k_lle_pool *pool;
  int threads;
  int steps;    /* lle.cnd_symbolic = steps (else cholmod) */
  int check;    /* lle.cnd_check: the other analysis too, compared */
} cnd_sym_in;

/* A variant of the analysis (lle.cnd_symbolic). */
typedef struct {
  const char *name;
  cholmod_factor *(*analyze)(const cnd_sym_in *in, cholmod_common *cc);
} cnd_sym_kind;

/* The supernodal symbolic factor of A A^T, postordered, in CHOLMOD's layout (cc->fl and
 * cc->lnz set as cholmod_analyze sets them), by in->steps's variant; with in->check the
 * other variant too and *diff = 0 where they are the same in every field (else the first
 * that differs; -1 not compared).  NULL with cc->status set on failure.  Local. */
cholmod_factor *lle_cnd_analyze(const cnd_sym_in *in, cholmod_common *cc, int *diff);

#endif
