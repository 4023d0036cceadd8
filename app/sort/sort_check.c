/* sort_check.c - stage "check": every rank's block sorted (keys never decrease; with indices
 * equal keys in increasing original index: stability), the last key of each non-empty block
 * not above the first of the next one, the multiset preserved (count, sum and xor of a hash
 * of every key and index, before and after).  Also the [debug] perturb hook. */
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Key i as (integer, real) for comparisons across types.  Local. */
static void ck_get(const sort_block *b, int64_t i, int64_t *ki, double *kd) {
  *ki = 0;
  *kd = 0;
  switch (b->type) {
  case K_SORT_I32: *ki = ((const int32_t *)b->keys)[i]; break;
  case K_SORT_I64: *ki = ((const int64_t *)b->keys)[i]; break;
  case K_SORT_F32: *kd = ((const float *)b->keys)[i]; break;
  case K_SORT_F64: *kd = ((const double *)b->keys)[i]; break;
  }
}

/* -1, 0, 1 as key a is below, equal to, above key b.  Local. */
static int ck_cmp(int64_t ai, double ad, int64_t bi, double bd) {
  if (ai != bi) return ai < bi ? -1 : 1;
  if (ad < bd) return -1;
  if (bd < ad) return 1;
  return 0;
}

/* Order of neighbours inside the block: *inv keys that decrease, *ties equal keys whose
 * indices do not increase.  Local. */
static void ck_local(const sort_block *b, int64_t *inv, int64_t *ties) {
  *inv = *ties = 0;
  for (int64_t i = 1; i < b->n; i++) {
    int64_t ai, bi;
    double ad, bd;
    ck_get(b, i - 1, &ai, &ad);
    ck_get(b, i, &bi, &bd);
    int c = ck_cmp(ai, ad, bi, bd);
    if (c > 0) (*inv)++;
    else if (c == 0 && b->idx && b->idx[i] <= b->idx[i - 1]) (*ties)++;
  }
}

/* First and last element of every rank, gathered: boundaries out of order.  Collective. */
static int ck_boundaries(hy_ctx *ctx, const sort_block *b, int64_t *bad) {
  typedef struct { int64_t n, fi, li, fx, lx; double fd, ld; } edge;
  edge e = { b->n, 0, 0, 0, 0, 0, 0 };
  if (b->n) {
    ck_get(b, 0, &e.fi, &e.fd);
    ck_get(b, b->n - 1, &e.li, &e.ld);
    e.fx = b->idx ? b->idx[0] : 0;
    e.lx = b->idx ? b->idx[b->n - 1] : 0;
  }
  edge *all = NULL;
  HY_MALLOC(all, ctx->size);
  HY_MPI(MPI_Allgather(&e, sizeof e, MPI_BYTE, all, sizeof e, MPI_BYTE, ctx->comm));
  *bad = 0;
  int prev = -1;
  for (int r = 0; r < ctx->size; r++) {
    if (!all[r].n) continue;
    if (prev >= 0) {
      int c = ck_cmp(all[prev].li, all[prev].ld, all[r].fi, all[r].fd);
      if (c > 0 || (c == 0 && b->idx && all[prev].lx >= all[r].fx)) (*bad)++;
    }
    prev = r;
  }
  free(all);
  return HY_OK;
}

/* The check.  Collective. */
int sort_check(hy_ctx *ctx, const sort_opts *o, const sort_block *b, sort_info *inf) {
  int64_t inv, ties, l[2], g[2];
  ck_local(b, &inv, &ties);
  l[0] = inv;
  l[1] = ties;
  HY_MPI(MPI_Allreduce(l, g, 2, MPI_INT64_T, MPI_SUM, ctx->comm));
  inf->inversions = g[0];
  inf->tie_inversions = g[1];
  HY_CALL(ck_boundaries(ctx, b, &inf->boundary_bad));
  sort_digest mine = { 0, 0, 0 };
  sort_digest_add(&mine, b->type, b->keys, b->idx, b->n);
  HY_CALL(sort_digest_reduce(ctx, &mine, &inf->after));
  inf->passed = inf->inversions == 0 && inf->tie_inversions == 0 && inf->boundary_bad == 0 &&
                inf->before.count == inf->after.count && inf->before.sum == inf->after.sum &&
                inf->before.xor_ == inf->after.xor_;
  return HY_OK;
}

/* Change the middle key of the block by the relative amount p (integers by at least 1).
 * Local. */
void sort_perturb(sort_block *b, double p) {
  if (!b->n || p == 0) return;
  int64_t m = b->n / 2;
  switch (b->type) {
  case K_SORT_I32: {
    int32_t *k = b->keys;
    int64_t d = llround(fabs((double)k[m]) * p);
    k[m] = (int32_t)((int64_t)k[m] + (d ? d : 1));
    break;
  }
  case K_SORT_I64: {
    int64_t *k = b->keys;
    int64_t d = llround(fabs((double)k[m]) * p);
    k[m] = (int64_t)((uint64_t)k[m] + (uint64_t)(d ? d : 1));
    break;
  }
  case K_SORT_F32: { float *k = b->keys; k[m] = k[m] ? k[m] * (float)(1 + p) : (float)p; break; }
  case K_SORT_F64: { double *k = b->keys; k[m] = k[m] ? k[m] * (1 + p) : p; break; }
  }
}
