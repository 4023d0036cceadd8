/* sort_exchange.c - the sample-sort exchange of the locally sorted blocks, which stay in device
 * memory: regular samples of every block (the backend's pick; each weighted by the keys it
 * stands for) gathered on all ranks by MPI_Allgatherv, P - 1 splitters chosen alike on every
 * rank, each block cut at them on its device (the backend's cuts: binary search), the P x P
 * counts by MPI_Allgather, keys and indices to their ranks through the transport of app/comm
 * (hy_bcast_exchange: NCCL device to device when every rank has its own GPU, else
 * MPI_Alltoallv through pinned memory).  Every comparison is on (key, original global index),
 * so runs of equal keys (few_unique, sorted) are cut like any others and the ranks stay
 * balanced. */
#include "sort.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A key with its index, comparable whatever the type, and its bytes. */
typedef struct {
  int64_t ki;      /* integer types */
  double kd;       /* float types */
  int64_t idx;
  double w;        /* samples: keys this one stands for */
  unsigned char raw[8];
} sx_key;

/* Key j of the host array k as an sx_key.  Local. */
static sx_key sx_make(k_sort_type t, const void *k, const int64_t *ix, int j) {
  sx_key s;
  memset(&s, 0, sizeof s);
  s.idx = ix[j];
  size_t kb = k_sort_key_bytes(t);
  memcpy(s.raw, (const char *)k + (size_t)j * kb, kb);
  switch (t) {
  case K_SORT_I32: s.ki = ((const int32_t *)k)[j]; break;
  case K_SORT_I64: s.ki = ((const int64_t *)k)[j]; break;
  case K_SORT_F32: s.kd = ((const float *)k)[j]; break;
  case K_SORT_F64: s.kd = ((const double *)k)[j]; break;
  }
  return s;
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

/* This rank's regular samples, weighted, from the device block.  Local. */
static sx_key *sx_samples(hy_ctx *ctx, const sort_opts *o, const sort_block *b, const sort_dev *d, int *ns) {
  const k_sort_ops *ops = k_sort_ops_get(&ctx->be);
  int s = (int)(b->n < o->oversample ? b->n : o->oversample);
  int64_t *pos = NULL, *hi = NULL;
  unsigned char *hk = NULL;
  sx_key *mine = NULL;
  HY_MALLOC(pos, s + 1);
  HY_MALLOC(hi, s + 1);
  HY_MALLOC(hk, (size_t)(s + 1) * 8);
  HY_MALLOC(mine, s + 1);
  for (int j = 0; j < s; j++) pos[j] = (int64_t)((2 * (__int128)j + 1) * b->n / (2 * s));
  HY_LOCAL(ops->pick(&ctx->be, b->type, d->k, d->i, pos, s, hk, hi));
  for (int j = 0; j < s; j++) {
    mine[j] = sx_make(b->type, hk, hi, j);
    mine[j].w = (double)b->n / s;
  }
  free(pos);
  free(hi);
  free(hk);
  *ns = s;
  return mine;
}

/* Splitters from every rank's regular samples, then cut[d] for d = 0..P: this rank's keys
 * [cut[d], cut[d+1]) go to rank d.  Collective. */
static int sx_cuts(hy_ctx *ctx, const sort_opts *o, const sort_block *b, const sort_dev *d, int64_t *cut) {
  const int P = ctx->size;
  int s = 0;
  sx_key *mine = sx_samples(ctx, o, b, d, &s), *all = NULL;
  int *cnt = NULL, *dsp = NULL;
  HY_MALLOC(cnt, P);
  HY_MALLOC(dsp, P);
  int sb = s * (int)sizeof(sx_key);
  HY_MPI(MPI_Allgather(&sb, 1, MPI_INT, cnt, 1, MPI_INT, ctx->comm));
  int tot = 0;
  for (int r = 0; r < P; r++) { dsp[r] = tot; tot += cnt[r]; }
  HY_MALLOC(all, tot / (int)sizeof(sx_key) + 1);
  HY_MPI(MPI_Allgatherv(mine, sb, MPI_BYTE, all, cnt, dsp, MPI_BYTE, ctx->comm));
  int nall = tot / (int)sizeof(sx_key);
  qsort(all, (size_t)nall, sizeof *all, sx_cmp);
  /* splitter q: the first sample whose estimated global rank reaches (q + 1) n / P; none
   * left: the block's end */
  unsigned char *sk = NULL;
  int64_t *si = NULL;
  HY_MALLOC(sk, (size_t)P * 8);
  HY_MALLOC(si, P);
  int j = 0, nsp = 0;
  double acc = 0;
  for (int q = 0; q + 1 < P; q++) {
    double target = (double)b->n_global * (q + 1) / P;
    while (j < nall && acc + 0.5 * all[j].w < target) acc += all[j++].w;
    if (j >= nall) break;
    memcpy(sk + (size_t)nsp * b->kb, all[j].raw, b->kb);
    si[nsp++] = all[j].idx;
  }
  cut[0] = 0;
  if (nsp) HY_LOCAL(k_sort_ops_get(&ctx->be)->cuts(&ctx->be, b->type, d->k, d->i, b->n, sk, si, nsp, cut + 1));
  for (int q = nsp + 1; q <= P; q++) cut[q] = b->n;
  for (int q = 1; q <= P; q++) if (cut[q] < cut[q - 1]) cut[q] = cut[q - 1];
  free(mine); free(all); free(cnt); free(dsp); free(sk); free(si);
  return HY_OK;
}

/* Keys and indices to their ranks: d becomes the P received runs (off[0..P]).  Collective. */
int sort_exchange(hy_ctx *ctx, const sort_opts *o, hy_bcast *xc, sort_block *b, sort_dev *d, int64_t *off) {
  const int P = ctx->size, me = ctx->rank;
  k_backend *be = &ctx->be;
  int64_t *cut = NULL, *sc = NULL, *all = NULL, *ck = NULL, *ci = NULL, *sdk = NULL, *sdi = NULL, *rdk = NULL, *rdi = NULL;
  HY_MALLOC(cut, P + 1); HY_MALLOC(sc, P); HY_MALLOC(all, (size_t)P * P);
  HY_MALLOC(ck, (size_t)P * P); HY_MALLOC(ci, (size_t)P * P);
  HY_MALLOC(sdk, P); HY_MALLOC(sdi, P); HY_MALLOC(rdk, P); HY_MALLOC(rdi, P);
  HY_CALL(sx_cuts(ctx, o, b, d, cut));
  for (int q = 0; q < P; q++) sc[q] = cut[q + 1] - cut[q];
  HY_MPI(MPI_Allgather(sc, P, MPI_INT64_T, all, P, MPI_INT64_T, ctx->comm));
  int64_t nr = 0;
  for (int r = 0; r < P; r++) { off[r] = nr; nr += all[r * P + me]; }
  off[P] = nr;
  for (int x = 0; x < P * P; x++) { ck[x] = all[x] * (int64_t)b->kb; ci[x] = all[x] * 8; }
  for (int r = 0; r < P; r++) {
    sdk[r] = cut[r] * (int64_t)b->kb; sdi[r] = cut[r] * 8;
    rdk[r] = off[r] * (int64_t)b->kb; rdi[r] = off[r] * 8;
  }
  sort_dev nd = { NULL, NULL, 0 };
  sort_dev_reserve(be, &nd, nr, b->kb, d->i != NULL);
  /* this rank's own piece stays on its device; the others travel */
  if (sc[me]) {
    HY_LOCAL(be->ops->d2d(be, (char *)nd.k + rdk[me], (const char *)d->k + sdk[me], (size_t)sc[me] * b->kb));
    if (d->i) HY_LOCAL(be->ops->d2d(be, (char *)nd.i + rdi[me], (const char *)d->i + sdi[me], (size_t)sc[me] * 8));
  }
  HY_LOCAL(hy_bcast_exchange(xc, HY_ROW, ck, d->k, sdk, nd.k, rdk));
  if (d->i) HY_LOCAL(hy_bcast_exchange(xc, HY_ROW, ci, d->i, sdi, nd.i, rdi));
  HY_LOCAL(be->ops->sync(be));
  sort_dev_free(be, d);
  *d = nd;
  b->n = nr;
  b->lo = 0;
  HY_MPI(MPI_Exscan(&nr, &b->lo, 1, MPI_INT64_T, MPI_SUM, ctx->comm));
  if (me == 0) b->lo = 0;
  free(cut); free(sc); free(all); free(ck); free(ci); free(sdk); free(sdi); free(rdk); free(rdi);
  return HY_OK;
}
