/* sort_exchange.c - the sample-sort exchange of locally sorted blocks (host memory, the
 * backend's pinned buffers): regular samples of every block (weighted by the keys each
 * stands for) gathered on all ranks by MPI_Allgatherv, P - 1 splitters chosen alike on every
 * rank, each block cut at the splitters by binary search, counts by MPI_Alltoall, keys and
 * indices by MPI_Alltoallv.  Every comparison is on (key, original global index), so runs of
 * equal keys (few_unique, sorted) are cut like any others and the ranks stay balanced. */
#include "sort.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A key with its index, comparable whatever the type. */
typedef struct {
  int64_t ki;      /* integer types */
  double kd;       /* float types */
  int64_t idx;
  double w;        /* samples: keys this one stands for */
} sx_key;

/* Element i of a block as an sx_key.  Local. */
static sx_key sx_get(const sort_block *b, int64_t i) {
  sx_key k = { 0, 0, b->idx ? b->idx[i] : i, 0 };
  switch (b->type) {
  case K_SORT_I32: k.ki = ((const int32_t *)b->keys)[i]; break;
  case K_SORT_I64: k.ki = ((const int64_t *)b->keys)[i]; break;
  case K_SORT_F32: k.kd = ((const float *)b->keys)[i]; break;
  case K_SORT_F64: k.kd = ((const double *)b->keys)[i]; break;
  }
  return k;
}

/* a < b in the (key, index) order.  Local. */
static inline int sx_lt(const sx_key *a, const sx_key *b) {
  if (a->ki != b->ki) return a->ki < b->ki;
  if (a->kd < b->kd) return 1;
  if (b->kd < a->kd) return 0;
  return a->idx < b->idx;
}

/* qsort order of sx_key.  Local. */
static int sx_cmp(const void *x, const void *y) {
  const sx_key *a = x, *b = y;
  return sx_lt(a, b) ? -1 : sx_lt(b, a) ? 1 : 0;
}

/* First position of the block whose element is not below s.  Local. */
static int64_t sx_lower_bound(const sort_block *b, const sx_key *s) {
  int64_t lo = 0, hi = b->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    sx_key e = sx_get(b, mid);
    if (sx_lt(&e, s)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Splitters from every rank's regular samples: cut[d] for d = 0..P, where this rank's keys
 * [cut[d], cut[d+1]) go to rank d.  Collective. */
static int sx_cuts(hy_ctx *ctx, const sort_opts *o, const sort_block *b, int64_t *cut) {
  const int P = ctx->size;
  int s = (int)(b->n < o->oversample ? b->n : o->oversample);
  sx_key *mine = NULL, *all = NULL;
  HY_MALLOC(mine, s + 1);
  for (int j = 0; j < s; j++) {
    mine[j] = sx_get(b, (int64_t)((2 * (__int128)j + 1) * b->n / (2 * s)));
    mine[j].w = (double)b->n / s;
  }
  int *cnt = NULL, *dsp = NULL;
  HY_MALLOC(cnt, P);
  HY_MALLOC(dsp, P);
  int sb = s * (int)sizeof(sx_key);
  HY_MPI(MPI_Allgather(&sb, 1, MPI_INT, cnt, 1, MPI_INT, ctx->comm));
  int tot = 0;
  for (int r = 0; r < P; r++) { dsp[r] = tot; tot += cnt[r]; }
  HY_MALLOC(all, tot / (int)sizeof(sx_key) + 1);
  HY_MPI(MPI_Allgatherv(mine, sb, MPI_BYTE, all, cnt, dsp, MPI_BYTE, ctx->comm));
  int ns = tot / (int)sizeof(sx_key);
  qsort(all, (size_t)ns, sizeof *all, sx_cmp);
  /* splitter d: the first sample whose estimated global rank reaches (d + 1) n / P */
  cut[0] = 0;
  int j = 0;
  double acc = 0;
  for (int d = 0; d + 1 < P; d++) {
    double target = (double)b->n_global * (d + 1) / P;
    while (j < ns && acc + 0.5 * all[j].w < target) acc += all[j++].w;
    cut[d + 1] = j < ns ? sx_lower_bound(b, &all[j]) : b->n;
    if (cut[d + 1] < cut[d]) cut[d + 1] = cut[d];
  }
  cut[P] = b->n;
  free(mine);
  free(all);
  free(cnt);
  free(dsp);
  return HY_OK;
}

/* Counts, then keys and indices by MPI_Alltoallv (int counts: at most 2^31 - 1 elements per
 * rank and message, checked on every rank alike).  Collective. */
int sort_exchange(hy_ctx *ctx, const sort_opts *o, sort_block *b, int64_t *off) {
  const int P = ctx->size;
  k_backend *be = &ctx->be;
  int64_t *cut = NULL, *sc = NULL, *rc64 = NULL;
  HY_MALLOC(cut, P + 1);
  HY_MALLOC(sc, P);
  HY_MALLOC(rc64, P);
  HY_CALL(sx_cuts(ctx, o, b, cut));
  for (int d = 0; d < P; d++) sc[d] = cut[d + 1] - cut[d];
  HY_MPI(MPI_Alltoall(sc, 1, MPI_INT64_T, rc64, 1, MPI_INT64_T, ctx->comm));
  int64_t nr = 0;
  for (int r = 0; r < P; r++) { off[r] = nr; nr += rc64[r]; }
  off[P] = nr;
  int64_t big = b->n > nr ? b->n : nr, bigall = 0;
  HY_MPI(MPI_Allreduce(&big, &bigall, 1, MPI_INT64_T, MPI_MAX, ctx->comm));
  if (bigall > INT_MAX)
    return hy_err(HY_EUSAGE, "sort: %lld keys on one rank exceed the MPI exchange's 2^31 - 1 elements; use more ranks",
                  (long long)bigall);
  int *sci = NULL, *sdi = NULL, *rci = NULL, *rdi = NULL;
  HY_MALLOC(sci, P); HY_MALLOC(sdi, P); HY_MALLOC(rci, P); HY_MALLOC(rdi, P);
  for (int r = 0; r < P; r++) {
    sci[r] = (int)sc[r]; sdi[r] = (int)cut[r]; rci[r] = (int)rc64[r]; rdi[r] = (int)off[r];
  }
  void *nk = NULL;
  int64_t *ni = NULL;
  HY_LOCAL(be->ops->alloc_pinned(be, &nk, (size_t)nr * b->kb + 8));
  if (b->idx) HY_LOCAL(be->ops->alloc_pinned(be, (void **)&ni, (size_t)nr * 8 + 8));
  MPI_Datatype kt;
  HY_MPI(MPI_Type_contiguous((int)b->kb, MPI_BYTE, &kt));
  HY_MPI(MPI_Type_commit(&kt));
  HY_MPI(MPI_Alltoallv(b->keys, sci, sdi, kt, nk, rci, rdi, kt, ctx->comm));
  if (b->idx) HY_MPI(MPI_Alltoallv(b->idx, sci, sdi, MPI_INT64_T, ni, rci, rdi, MPI_INT64_T, ctx->comm));
  MPI_Type_free(&kt);
  sort_block_free(ctx, b);
  b->keys = nk;
  b->idx = ni;
  b->n = nr;
  b->lo = 0;
  HY_MPI(MPI_Exscan(&nr, &b->lo, 1, MPI_INT64_T, MPI_SUM, ctx->comm));
  if (ctx->rank == 0) b->lo = 0;
  free(cut); free(sc); free(rc64); free(sci); free(sdi); free(rci); free(rdi);
  return HY_OK;
}
