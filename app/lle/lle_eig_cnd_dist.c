/* lle_eig_cnd_dist.c - chol-nd's factor and solves spread over the ranks (lle.eig_ranks; see
 * lle_eig_cnd.h).  What moves: the factor's tails (each rank's supernodes that update the top:
 * their rows in the top, all their columns) to rank 0; per solve the block's rows of each rank's
 * subtrees out and back, the rows of its tails' columns to rank 0, the top's rows to every rank.
 * Rank 0 runs the iteration (its QR / Rayleigh-Ritz on the gathered block, on its device where
 * the one-rank path does) and sends each solve's column count as the command (0: the end). */
#include "lle_eig_cnd.h"
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CD_CHUNK = 1 << 27 };   /* doubles a message at most (the int count of MPI) */
enum { CD_TAG_TAIL = 7101, CD_TAG_RHS, CD_TAG_XT, CD_TAG_XS, CD_TAG_L };

/* Column ranges [lo, hi) of L's order, packed one column of the block after another. */
typedef struct {
  int64_t n, cols;
  int64_t *lo, *hi;
} cd_ranges;

struct cnd_dist {
  MPI_Comm comm;
  int rank, size;
  const k_lle_super *L;
  k_lle_chol_plan *plan;
  k_lle_chol_plan *rplan;   /* spread (lle.eig_top): this rank's plan on its subtrees (NULL: none, or rank 0's top) */
  k_lle_chol_layout lay;
  unsigned char *none;      /* nsub zeros: every tail another rank's (spread: rank 0 packs them all for its top) */
  int *owner;             /* nsub: each subtree's rank */
  unsigned char *mine;    /* nsub */
  double *wrank;          /* size: each rank's subtree flops */
  int *nsub_rank;         /* size: its subtrees */
  cd_ranges *sub;         /* size: each rank's subtrees' columns */
  cd_ranges *tail;        /* size: each rank's tails' columns */
  cd_ranges top;          /* the top supernodes' columns */
  int64_t *tvals;         /* size: values of each rank's tails */
  double *buf, *xw;       /* scratch; the other ranks' block (n x nrhs) */
  size_t nbuf, nxw;
  double t[LLE_DP_N];     /* this rank's phases (the last factor's, the solves' sums) */
  double bytes_f, bytes_s;
  int spread;             /* lle.eig_top = spread */
};

/* A rank's plan's input (spread): the factor's, its top's values back on the host and its solves'
 * top there (the engine keeps one top: rank 0's).  Local. */
static k_lle_chol_in cd_rank_in(const k_lle_chol_in *ci) {
  k_lle_chol_in r = *ci;
  r.top_solve = NULL;
  r.top_release = NULL;
  r.top_open = NULL;   /* (the spread ranks' own tops open in their top phase) */
  r.top_values = 1;
  r.phase = 0;
  r.sub_mine = NULL;
  return r;
}

/* The figures of a factor that did no part of its own.  Local. */
static void ch_stats_zero(k_lle_chol_stats *st) {
  memset(st, 0, sizeof *st);
}

/* The buffer at least m doubles.  Local. */
static double *cd_buf(cnd_dist *d, size_t m) {
  if (m > d->nbuf) {
    free(d->buf);
    HY_MALLOC(d->buf, m);
    d->nbuf = m;
  }
  return d->buf;
}

/* Wait for rq: MPI_Test spinning for CD_SPIN_NS, then between tests CD_NAP_NS asleep, so that a
 * rank waiting for another (the others for rank 0's top and iteration, rank 0 for the slowest
 * subtrees) leaves the cores to the ranks that work (ranks sharing a host: MPI's own blocking
 * waits poll at full speed).  Local. */
enum { CD_SPIN_NS = 200000, CD_NAP_NS = 20000 };
static int cd_wait(MPI_Request *rq) {
  struct timespec t0, t1, nap = { 0, CD_NAP_NS };
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int done = 0;;) {
    HY_MPI(MPI_Test(rq, &done, MPI_STATUS_IGNORE));
    if (done) return HY_OK;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if ((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec) > CD_SPIN_NS) nanosleep(&nap, NULL);
  }
}

/* Meet rank peer (both call it with the same tag): a one-int message each way, the wait asleep
 * (cd_wait), so that the rank that comes first sleeps and the bulk transfer after it runs in
 * MPI's blocking calls at full speed with both present (a sleeping wait on the bulk itself moves
 * a fragment a nap: the H200 mid run's tails, 20 MB, took 0.059 s).  Local (paired). */
static int cd_meet(cnd_dist *d, int peer, int tag) {
  int me = d->rank, other = -1;
  MPI_Request rq;
  HY_MPI(MPI_Irecv(&other, 1, MPI_INT, peer, tag + 100, d->comm, &rq));
  HY_MPI(MPI_Send(&me, 1, MPI_INT, peer, tag + 100, d->comm));
  return cd_wait(&rq);
}

/* m doubles to / from rank peer, or from rank 0 to all, after meeting the peer (every rank for
 * the broadcast: a sleeping barrier), in messages of at most CD_CHUNK (one empty message where
 * m = 0, point to point).  Local (paired) / collective. */
static int cd_send(cnd_dist *d, const double *x, size_t m, int peer, int tag) {
  HY_CALL(cd_meet(d, peer, tag));
  for (size_t a = 0; a < m || a == 0; a += CD_CHUNK) {
    int c = (int)(m - a < CD_CHUNK ? m - a : CD_CHUNK);
    HY_MPI(MPI_Send(x + a, c, MPI_DOUBLE, peer, tag, d->comm));
    if (m == 0) break;
  }
  return HY_OK;
}
static int cd_recv(cnd_dist *d, double *x, size_t m, int peer, int tag) {
  HY_CALL(cd_meet(d, peer, tag));
  for (size_t a = 0; a < m || a == 0; a += CD_CHUNK) {
    int c = (int)(m - a < CD_CHUNK ? m - a : CD_CHUNK);
    HY_MPI(MPI_Recv(x + a, c, MPI_DOUBLE, peer, tag, d->comm, MPI_STATUS_IGNORE));
    if (m == 0) break;
  }
  return HY_OK;
}
static int cd_bcast(cnd_dist *d, void *x, size_t m, MPI_Datatype type) {
  MPI_Request rq;
  if (m > 1) {   /* bulk: all present first (asleep), then MPI's own broadcast */
    HY_MPI(MPI_Ibarrier(d->comm, &rq));
    HY_CALL(cd_wait(&rq));
    for (size_t a = 0; a < m; a += CD_CHUNK) {
      int c = (int)(m - a < CD_CHUNK ? m - a : CD_CHUNK);
      HY_MPI(MPI_Bcast((char *)x + a * (type == MPI_INT ? sizeof(int) : sizeof(double)), c, type, 0, d->comm));
    }
    return HY_OK;
  }
  if (m == 1) {   /* a command or a code: asleep until it comes */
    HY_MPI(MPI_Ibcast(x, 1, type, 0, d->comm, &rq));
    HY_CALL(cd_wait(&rq));
  }
  return HY_OK;
}

/* Pack (back = 0) the ranges' rows of the n x nrhs block x into buf, or unpack (back = 1).  Local. */
static void cd_pack(const cd_ranges *r, int64_t n, int nrhs, double *x, double *buf, int back) {
  size_t at = 0;
  for (int c = 0; c < nrhs; c++)
    for (int64_t i = 0; i < r->n; i++) {
      size_t m = (size_t)(r->hi[i] - r->lo[i]);
      double *xc = x + (size_t)c * n + r->lo[i];
      if (back) memcpy(xc, buf + at, m * sizeof *xc);
      else memcpy(buf + at, xc, m * sizeof *xc);
      at += m;
    }
}

/* Add the range [lo, hi) (merged with the last where they touch).  Local. */
static void cd_add(cd_ranges *r, int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  r->cols += hi - lo;
  if (r->n > 0 && r->hi[r->n - 1] == lo) { r->hi[r->n - 1] = hi; return; }
  r->lo[r->n] = lo; r->hi[r->n++] = hi;
}

/* FNV-1a 64 of m int64 values.  Local. */
static uint64_t cd_fnv(uint64_t h, const int64_t *a, int64_t m) {
  for (int64_t i = 0; i < m; i++) {
    uint64_t v = (uint64_t)a[i];
    for (int b = 0; b < 8; b++) { h ^= (v >> (8 * b)) & 0xff; h *= 0x100000001b3ull; }
  }
  return h;
}

int cnd_dist_new(MPI_Comm comm, k_lle_chol_plan *plan, const k_lle_super *L, const int64_t *perm, const cnd_spread *sp,
                 cnd_dist **dp) {
  cnd_dist *d = NULL;
  HY_CALLOC(d, 1);
  *dp = d;
  d->comm = comm;
  MPI_Comm_rank(comm, &d->rank);
  MPI_Comm_size(comm, &d->size);
  d->L = L;
  d->plan = plan;
  d->spread = sp != NULL;
  /* the same structure on every rank: n, the supernodes' columns, rows and values' offsets, the order */
  uint64_t h = 0xcbf29ce484222325ull;
  int64_t hd[2] = { L->n, L->nsuper };
  h = cd_fnv(h, hd, 2);
  h = cd_fnv(h, L->super, L->nsuper + 1);
  h = cd_fnv(h, L->pi, L->nsuper + 1);
  h = cd_fnv(h, L->px, L->nsuper + 1);
  h = cd_fnv(h, perm, L->n);
  uint64_t hh[2] = { h, ~h }, hm[2];
  HY_MPI(MPI_Allreduce(hh, hm, 2, MPI_UINT64_T, MPI_MAX, comm));
  int rc = hm[0] == h && hm[1] == ~h ? HY_OK : HY_ESYS;
  int all = rc;
  HY_MPI(MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm));
  if (all != HY_OK)
    return hy_err(HY_ESYS, "chol-nd over %d ranks: the ranks' symbolic factors differ (digest %016llx on rank %d); "
                  "lle.eig_ranks = 1 solves on rank 0 alone", d->size, (unsigned long long)h, d->rank);
  k_lle_chol_layout_get(plan, &d->lay);
  const k_lle_chol_layout *lay = &d->lay;
  int P = d->size;
  HY_MALLOC(d->owner, lay->nsub + 1); HY_CALLOC(d->mine, lay->nsub + 1);
  HY_CALLOC(d->wrank, P); HY_CALLOC(d->nsub_rank, P);
  for (int i = 0; i < lay->nsub; i++) {   /* heaviest first, each to the least loaded rank (ties: the lowest) */
    int r = 0;
    for (int q = 1; q < P; q++) if (d->wrank[q] < d->wrank[r]) r = q;
    d->owner[i] = r;
    d->wrank[r] += lay->wsub[lay->sub[i]];
    d->nsub_rank[r]++;
    d->mine[i] = r == d->rank;
  }
  HY_CALLOC(d->sub, P); HY_CALLOC(d->tail, P); HY_CALLOC(d->tvals, P);
  for (int r = 0; r < P; r++) {
    HY_MALLOC(d->sub[r].lo, lay->nsub + 1); HY_MALLOC(d->sub[r].hi, lay->nsub + 1);
    HY_MALLOC(d->tail[r].lo, lay->ntail + 1); HY_MALLOC(d->tail[r].hi, lay->ntail + 1);
  }
  /* the subtrees' columns in L's order (ascending: the unpacking order is the packing order) */
  for (int64_t s = 0; s < L->nsuper; s++) {
    int i = lay->sub_of[s];
    if (i >= 0 && lay->first[lay->sub[i]] == s)
      cd_add(&d->sub[d->owner[i]], L->super[s], L->super[lay->sub[i] + 1]);
  }
  for (int64_t t = 0; t < lay->ntail; t++) {
    int64_t s = lay->tail_sn[t];
    int r = d->owner[lay->sub_of[s]];
    cd_add(&d->tail[r], L->super[s], L->super[s + 1]);
    d->tvals[r] += (L->pi[s + 1] - L->pi[s] - lay->tail_q[t]) * (L->super[s + 1] - L->super[s]);
  }
  HY_MALLOC(d->top.lo, lay->ntop + 1); HY_MALLOC(d->top.hi, lay->ntop + 1);
  for (int i = 0; i < lay->ntop; i++) cd_add(&d->top, L->super[lay->top[i]], L->super[lay->top[i] + 1]);
  HY_CALLOC(d->none, lay->nsub + 1);
  if (sp) {   /* spread: this rank's plan on its subtrees, cut for its threads (its top on its device where so) */
    int32_t *roots = NULL;
    int nr = 0;
    HY_MALLOC(roots, lay->nsub + 1);
    for (int i = 0; i < lay->nsub; i++) if (d->mine[i]) roots[nr++] = lay->sub[i];
    if (nr > 0 && !(d->rplan = k_lle_chol_plan_new_roots(L, sp->threads, sp->pool, sp->cut, roots, nr))) rc = HY_ESYS;
    free(roots);
    HY_MPI(MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm));
    if (all != HY_OK) return rc != HY_OK ? rc : hy_err(HY_ESYS, "chol-nd over the ranks: another rank's plan failed");
  }
  return HY_OK;
}

/* A copy of rank r's tails between lx and the buffer (cd_tails), tail t at buf + at[t]. */
typedef struct {
  const cnd_dist *d;
  int r, back;
  double *lx, *buf;
  const int64_t *at;
} cd_tail_copy;

/* Tails [t0, t1) of cd_tail_copy's (those of rank r's subtrees; a thread's share).  Local. */
static void cd_tails_part(void *arg, int64_t t0, int64_t t1) {
  const cd_tail_copy *c = arg;
  const k_lle_super *L = c->d->L;
  const k_lle_chol_layout *lay = &c->d->lay;
  for (int64_t t = t0; t < t1; t++) {
    int64_t s = lay->tail_sn[t];
    if (c->d->owner[lay->sub_of[s]] != c->r) continue;
    int64_t lda = L->pi[s + 1] - L->pi[s], q = lay->tail_q[t], m = lda - q;
    double *b = c->buf + c->at[t];
    for (int64_t j = 0; j < L->super[s + 1] - L->super[s]; j++, b += m) {
      double *col = c->lx + L->px[s] + j * lda + q;
      if (c->back) memcpy(col, b, (size_t)m * sizeof *col);
      else memcpy(b, col, (size_t)m * sizeof *col);
    }
  }
}

/* The tails of rank r's subtrees: packed from lx (back = 0) or into it (back = 1), one tail
 * after another, on the plan's threads.  Local. */
static void cd_tails(cnd_dist *d, int r, double *lx, double *buf, int back) {
  const k_lle_super *L = d->L;
  const k_lle_chol_layout *lay = &d->lay;
  int64_t *at = NULL, pos = 0;
  HY_MALLOC(at, lay->ntail + 1);
  for (int64_t t = 0; t < lay->ntail; t++) {
    int64_t s = lay->tail_sn[t];
    at[t] = pos;
    if (d->owner[lay->sub_of[s]] == r) pos += (L->pi[s + 1] - L->pi[s] - lay->tail_q[t]) * (L->super[s + 1] - L->super[s]);
  }
  cd_tail_copy c = { .d = d, .r = r, .back = back, .lx = lx, .buf = buf, .at = at };
  k_lle_pool_for(lay->pool, lay->threads, lay->ntail, cd_tails_part, &c);
  free(at);
}

/* The top engine's figures of a plan's call s into st (the threads' part, bytes, the copies,
 * the device's parts, the open beside).  Local. */
static void cd_top_figs(k_lle_chol_stats *st, const k_lle_chol_stats *s) {
  st->t_below = s->t_below; st->top_bytes = s->top_bytes; st->t_up = s->t_up; st->t_dev = s->t_dev; st->t_down = s->t_down;
  st->t_dev_asm = s->t_dev_asm; st->t_dev_below = s->t_dev_below; st->t_alloc = s->t_alloc;
  st->t_open = s->t_open; st->t_open_wait = s->t_open_wait; st->t_warm = s->t_warm; st->top_ngemm = s->top_ngemm;
  st->t_up_tails = s->t_up_tails; st->t_up_lists = s->t_up_lists; st->top_reg_used = s->top_reg_used;
  st->t_dev_tails = s->t_dev_tails; st->t_dev_own = s->t_dev_own;
}

int cnd_dist_numeric(cnd_dist *d, const k_lle_chol_in *ci, double *lx, k_lle_chol_stats *st) {
  double t0 = MPI_Wtime();
  k_lle_chol_in c = *ci;
  c.phase = K_LLE_CH_SUB;
  c.sub_mine = d->mine;
  if (d->rank != 0 || d->spread) c.top_open = NULL;   /* rank 0 alone runs the top: its engine opened beside its subtrees */
  int rc = HY_OK;
  if (d->rplan || d->spread) {   /* spread: this rank's subtrees and their top, its solves' top on the host */
    k_lle_chol_in rc_in = cd_rank_in(ci);
    k_lle_chol_stats rs;
    ch_stats_zero(st);
    if (d->rplan) rc = k_lle_chol_numeric(d->rplan, &rc_in, lx, &rs);
    if (d->rplan) cd_top_figs(st, &rs);
  } else rc = k_lle_chol_numeric(d->plan, &c, lx, st);
  if (rc != HY_OK && rc != HY_ENUMERIC) HY_LOCAL(rc);
  double t1 = MPI_Wtime();
  d->t[LLE_DP_SUB] = t1 - t0;
  if (d->spread) st->t_sub = t1 - t0;   /* this rank's subtrees with their top */
  int bad = rc == HY_ENUMERIC, any = 0;
  MPI_Request rq;
  HY_MPI(MPI_Iallreduce(&bad, &any, 1, MPI_INT, MPI_MAX, d->comm, &rq));
  HY_CALL(cd_wait(&rq));
  if (any) return HY_ENUMERIC;   /* a pivot anywhere: the next shift, on every rank */
  if (d->rank != 0) {
    double *buf = cd_buf(d, (size_t)d->tvals[d->rank] + 1);
    cd_tails(d, d->rank, lx, buf, 0);
    HY_CALL(cd_send(d, buf, (size_t)d->tvals[d->rank], 0, CD_TAG_TAIL));
  } else
    for (int r = 1; r < d->size; r++) {
      double *buf = cd_buf(d, (size_t)d->tvals[r] + 1);
      HY_CALL(cd_recv(d, buf, (size_t)d->tvals[r], r, CD_TAG_TAIL));
      cd_tails(d, r, lx, buf, 1);
    }
  d->bytes_f = 0;
  for (int r = 1; r < d->size; r++) d->bytes_f += 8.0 * (double)d->tvals[r];
  double t2 = MPI_Wtime();
  d->t[LLE_DP_TAILS] = t2 - t1;
  if (d->rank == 0) {
    k_lle_chol_stats s2;
    c.phase = K_LLE_CH_TOP;
    if (d->spread) c.sub_mine = d->none;   /* every tail packed for the top (its own rank's too: its plan packs its own) */
    rc = k_lle_chol_numeric(d->plan, &c, lx, &s2);
    if (d->spread) { st->nsub = s2.nsub; st->ntop = s2.ntop; st->threads = s2.threads; st->flops = s2.flops; st->top_flops = s2.top_flops; }
    if (rc != HY_OK && rc != HY_ENUMERIC) HY_LOCAL(rc);   /* a device failure ends the job */
    st->t_top = s2.t_top; st->minor = s2.minor; st->top_engine = s2.top_engine;
    cd_top_figs(st, &s2);
    d->t[LLE_DP_TOP] = MPI_Wtime() - t2;
  }
  HY_CALL(cd_bcast(d, &rc, 1, MPI_INT));
  return rc;
}

int cnd_dist_gather_factor(cnd_dist *d, double *lx) {
  const k_lle_super *L = d->L;
  for (int r = 1; r < d->size; r++)
    for (int i = 0; i < d->lay.nsub; i++) {
      if (d->owner[i] != r || (d->rank != 0 && d->rank != r)) continue;
      int64_t a = L->px[d->lay.first[d->lay.sub[i]]], b = L->px[d->lay.sub[i] + 1];
      if (d->rank == r) HY_CALL(cd_send(d, lx + a, (size_t)(b - a), 0, CD_TAG_L));
      else HY_CALL(cd_recv(d, lx + a, (size_t)(b - a), r, CD_TAG_L));
    }
  return HY_OK;
}

/* One solve on every rank (x: rank 0's block; the others' own).  Collective. */
static int cd_solve(cnd_dist *d, const k_lle_chol_in *ci, const double *lx, int nrhs, double *x) {
  int64_t n = d->L->n;
  double t0 = MPI_Wtime(), tc = 0;
  if (d->rank != 0) {
    if ((size_t)n * nrhs > d->nxw) {
      free(d->xw);
      HY_MALLOC(d->xw, (size_t)n * nrhs);
      d->nxw = (size_t)n * nrhs;
    }
    x = d->xw;
  }
  const cd_ranges *mys = &d->sub[d->rank], *myt = &d->tail[d->rank];
  /* the block's rows of each rank's subtrees to it */
  if (d->rank == 0)
    for (int r = 1; r < d->size; r++) {
      double *buf = cd_buf(d, (size_t)d->sub[r].cols * nrhs + 1);
      cd_pack(&d->sub[r], n, nrhs, x, buf, 0);
      HY_CALL(cd_send(d, buf, (size_t)d->sub[r].cols * nrhs, r, CD_TAG_RHS));
    }
  else {
    double *buf = cd_buf(d, (size_t)mys->cols * nrhs + 1);
    HY_CALL(cd_recv(d, buf, (size_t)mys->cols * nrhs, 0, CD_TAG_RHS));
    cd_pack(mys, n, nrhs, x, buf, 1);
  }
  double t1 = MPI_Wtime();
  tc += t1 - t0;
  k_lle_chol_in c = *ci, rin = cd_rank_in(ci);
  c.sub_mine = d->mine;
  c.phase = K_LLE_CH_SUB;
  if (d->rplan) {   /* spread: its subtrees' and their top's forward */
    rin.phase = K_LLE_CH_SUB | K_LLE_CH_TOP;
    k_lle_chol_solve(d->rplan, &rin, lx, nrhs, x);
  } else if (!d->spread) k_lle_chol_solve(d->plan, &c, lx, nrhs, x);
  double t2 = MPI_Wtime();
  d->t[LLE_DP_SSUB] += t2 - t1;
  /* the tails' rows to rank 0, its top forward and backward, the top's rows to every rank */
  if (d->rank != 0) {
    double *buf = cd_buf(d, (size_t)myt->cols * nrhs + 1);
    cd_pack(myt, n, nrhs, x, buf, 0);
    HY_CALL(cd_send(d, buf, (size_t)myt->cols * nrhs, 0, CD_TAG_XT));
  } else
    for (int r = 1; r < d->size; r++) {
      double *buf = cd_buf(d, (size_t)d->tail[r].cols * nrhs + 1);
      HY_CALL(cd_recv(d, buf, (size_t)d->tail[r].cols * nrhs, r, CD_TAG_XT));
      cd_pack(&d->tail[r], n, nrhs, x, buf, 1);
    }
  double t3 = MPI_Wtime();
  tc += t3 - t2;
  if (d->rank == 0) {
    c.phase = K_LLE_CH_TOP | K_LLE_CH_TOPB;
    k_lle_chol_solve(d->plan, &c, lx, nrhs, x);
  }
  double t4 = MPI_Wtime();
  d->t[LLE_DP_STOP] += t4 - t3;
  {
    double *buf = cd_buf(d, (size_t)d->top.cols * nrhs + 1);
    if (d->rank == 0) cd_pack(&d->top, n, nrhs, x, buf, 0);
    HY_CALL(cd_bcast(d, buf, (size_t)d->top.cols * nrhs, MPI_DOUBLE));
    if (d->rank != 0) cd_pack(&d->top, n, nrhs, x, buf, 1);
  }
  double t5 = MPI_Wtime();
  tc += t5 - t4;
  c.phase = K_LLE_CH_BWD;
  if (d->rplan) {   /* spread: its subtrees' top's backward, then theirs */
    rin.phase = K_LLE_CH_TOPB | K_LLE_CH_BWD;
    k_lle_chol_solve(d->rplan, &rin, lx, nrhs, x);
  } else if (!d->spread) k_lle_chol_solve(d->plan, &c, lx, nrhs, x);
  double t6 = MPI_Wtime();
  d->t[LLE_DP_SSUB] += t6 - t5;
  /* the subtrees' rows back to rank 0 */
  if (d->rank != 0) {
    double *buf = cd_buf(d, (size_t)mys->cols * nrhs + 1);
    cd_pack(mys, n, nrhs, x, buf, 0);
    HY_CALL(cd_send(d, buf, (size_t)mys->cols * nrhs, 0, CD_TAG_XS));
  } else
    for (int r = 1; r < d->size; r++) {
      double *buf = cd_buf(d, (size_t)d->sub[r].cols * nrhs + 1);
      HY_CALL(cd_recv(d, buf, (size_t)d->sub[r].cols * nrhs, r, CD_TAG_XS));
      cd_pack(&d->sub[r], n, nrhs, x, buf, 1);
    }
  tc += MPI_Wtime() - t6;
  d->t[LLE_DP_SCOMM] += tc;
  double moved = 0;
  for (int r = 1; r < d->size; r++) moved += 2.0 * (double)d->sub[r].cols + (double)d->tail[r].cols + d->top.cols;
  d->bytes_s += 8.0 * moved * nrhs;
  return HY_OK;
}

int cnd_dist_solve0(cnd_dist *d, const k_lle_chol_in *ci, const double *lx, int nrhs, double *x) {
  HY_LOCAL(cd_bcast(d, &nrhs, 1, MPI_INT));
  HY_LOCAL(cd_solve(d, ci, lx, nrhs, x));   /* the other ranks are inside it too: a failure ends the job */
  return HY_OK;
}

/* Every rank's phases to rank 0 (t: this rank's); rank 0 writes the maxima and its own into e.  Collective. */
static void cd_figures(cnd_dist *d, const lle_eig *mine, lle_eig *e, double t_start) {
  double t[LLE_DP_N], *all = NULL;
  memcpy(t, d->t, sizeof t);
  t[LLE_DP_ORDER] = mine->t_order;
  t[LLE_DP_SYM] = mine->t_analyze - mine->t_order;
  t[LLE_DP_TOTAL] = MPI_Wtime() - t_start;
  if (d->rank == 0) HY_MALLOC(all, (size_t)LLE_DP_N * d->size);
  MPI_Gather(t, LLE_DP_N, MPI_DOUBLE, all, LLE_DP_N, MPI_DOUBLE, 0, d->comm);
  if (d->rank != 0 || !e) { free(all); return; }
  e->dist_ranks = d->size;
  e->dist_spread = d->spread;
  e->dist_nsub_min = e->dist_nsub_max = d->nsub_rank[0];
  double wall = 0, wmax = 0;
  for (int r = 0; r < d->size; r++) {
    if (d->nsub_rank[r] < e->dist_nsub_min) e->dist_nsub_min = d->nsub_rank[r];
    if (d->nsub_rank[r] > e->dist_nsub_max) e->dist_nsub_max = d->nsub_rank[r];
    wall += d->wrank[r];
    if (d->wrank[r] > wmax) wmax = d->wrank[r];
  }
  e->dist_wmax = wall > 0 ? wmax / wall : 0;
  for (int p = 0; p < LLE_DP_N; p++) {
    e->dist_r0[p] = all[p];
    e->dist_max[p] = 0;
    for (int r = 0; r < d->size; r++) if (all[(size_t)r * LLE_DP_N + p] > e->dist_max[p]) e->dist_max[p] = all[(size_t)r * LLE_DP_N + p];
  }
  e->dist_bytes_f = d->bytes_f;
  e->dist_bytes_s = d->bytes_s;
  free(all);
}

void cnd_dist_end(cnd_dist *d, lle_eig *e, double t_start) {
  int zero = 0;
  if (cd_bcast(d, &zero, 1, MPI_INT) != HY_OK) hy_err_clear();
  cd_figures(d, e, e, t_start);
}

int cnd_dist_announce(cnd_dist *d, int code) {
  int cmd = -code;
  HY_LOCAL(cd_bcast(d, &cmd, 1, MPI_INT));   /* the others are waiting for it: a failure ends the job */
  return HY_OK;
}

MPI_Comm cnd_dist_comm(const cnd_dist *d) { return d->comm; }

int cnd_dist_serve(cnd_dist *d, const k_lle_chol_in *ci, const double *lx, const lle_eig *e, double t_start,
                   int (*step)(void *arg, int code), void *arg) {
  for (;;) {
    int nrhs = 0;
    HY_CALL(cd_bcast(d, &nrhs, 1, MPI_INT));   /* rank 0's iteration step: asleep between tests */
    if (nrhs == 0) break;
    if (nrhs < 0) {   /* another step of rank 0's (lle.iter_block = rows) */
      int rc = step ? step(arg, -nrhs) : hy_err(HY_ESYS, "chol-nd over the ranks: step %d and no one to take it", -nrhs);
      if (rc == HY_ENUMERIC) hy_err_clear();   /* seen by rank 0 too (the same reduced values): it ends the serve */
      else HY_LOCAL(rc);
      continue;
    }
    HY_LOCAL(cd_solve(d, ci, lx, nrhs, NULL));   /* an MPI failure mid-way ends the job */
  }
  cd_figures(d, e, NULL, t_start);
  return HY_OK;
}

void cnd_dist_free(cnd_dist *d) {
  if (!d) return;
  if (d->sub)
    for (int r = 0; r < d->size; r++) { free(d->sub[r].lo); free(d->sub[r].hi); free(d->tail[r].lo); free(d->tail[r].hi); }
  free(d->sub); free(d->tail); free(d->tvals); free(d->top.lo); free(d->top.hi);
  k_lle_chol_plan_free(d->rplan);
  free(d->none);
  free(d->owner); free(d->mine); free(d->wrank); free(d->nsub_rank); free(d->buf); free(d->xw);
  free(d);
}
