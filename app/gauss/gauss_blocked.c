/* gauss_blocked.c - algorithm blocked: right-looking blocked LU with partial pivoting on a 2D
 * block-cyclic P x Q grid (rank = p * Q + q), block size nb, lookahead 0 or 1 (gauss.lookahead).
 *
 * Per panel k (columns k0 .. k0 + jb): the panel's process column factors it on the device
 * (P = 1: in place; else gathered to the diagonal process, getrf there, scattered back), the
 * pivots go to every rank, the L panel is broadcast along the process rows; row swaps on the
 * other columns; the diagonal process row computes U = L11^-1 A12 (TRSM) and broadcasts it down
 * the process columns; then the trailing matrix gets A22 -= L21 U (GEMM).  Lookahead: the next
 * panel's columns are updated first (P = 1: swapped, solved and updated first) and the next
 * panel is factored and broadcast on a side stream while the rest of the trailing update runs.
 * The L and U broadcasts go through device collectives (NCCL, queued on the GPU streams: the
 * next panel's broadcast overlaps the trailing GEMM) when the backend has them and every rank
 * drives its own device (gauss.bcast = auto|nccl), else through MPI staged in pinned host
 * memory.  Row swaps (P > 1): one exchange per panel for all its nb pivots (the rows each process
 * needs from another packed by a row-gather kernel, sent as one block, put in place by a
 * row-scatter kernel), through the device collectives when they are used, else one
 * MPI_Alltoallv staged in pinned memory.  The panel gather (P > 1: one MPI_Gatherv / Scatterv
 * per panel, the rows put in order on the device) and the pivots use MPI.  With one rank nothing
 * touches MPI, and (gauss.pivots = device) the pivots stay on the device: getrf_dev, one planned
 * row permutation per step (swap_plan / swap_apply), the singular check after the last panel,
 * so that the host never waits inside the factorization.  Solves: block forward / back substitution, partial sums reduced along
 * process rows, block solutions broadcast down process columns. */
#include "gauss/gauss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int sp;
  int deferred;               /* P == 1: L panels keep the row order of their own step */
  int p, q;
  int64_t mloc, nloc, lda;
  void *a;                    /* device, column-major mloc x nloc */
  int64_t *piv;               /* global: row i swapped with piv[i] (i = 0..n-1) */
  MPI_Comm rowc, colc;        /* the grid's: same p (varying q) / same q (varying p) */
  void *swv, *sxb;            /* the solve's device vectors (mloc + 1, nb), kept for the next
                               * solve (refinement solves once per step / GMRES iteration) */
  /* one rank: every panel's pivots (0-based from its top row) and swap plan on the device, for
   * the solve that never waits for the host (blk_solve_one); NULL until made */
  int *dpiv, *dplans;
} blk_fact;

typedef struct {
  gauss_t *g;
  blk_fact *f;
  size_t e;
  void *lbuf[2];              /* L panels received along the process row (mloc x nb) */
  void *ubuf;                 /* U block row received down the process column (nb x nloc) */
  void *pbuf;                 /* gathered panel on the diagonal process (device) */
  void *pbuf2;                /* the panel's rows as gathered, by process (device, P > 1) */
  void *rbuf;                 /* rows for swaps: sent blocks, then received blocks (device) */
  size_t rbytes;
  unsigned char *hbuf;        /* pinned staging */
  unsigned char *hall;        /* pinned: the gathered panel on the diagonal process (P > 1) */
  int *glist;                 /* the gathered panel's global rows, by process (n) */
  size_t hbytes;
  int *ipiv;                  /* host, nb + 4 */
  int64_t *perm;              /* swap simulation, length n */
  int *rows, *rows2;          /* host row lists */
  /* HPL-MxP (FP32 factors, gauss.low = bf16 | fp16): the step's L panel (mloc x nb) and U block
   * row (nb x nloc) rounded once to low, in the backend's storage (k_gauss_ops to_low); the
   * trailing GEMMs read them, the trailing matrix stays FP32.  NULL otherwise. */
  void *lowl, *lowu;
  /* the panel LU of gauss.panel (blk_panels) */
  int (*panel)(gauss_t *g, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *ip, int *info,
               double *minpiv, int64_t *mi);
  int nbmin, base;            /* getrf_dev's base block: 0 (the vendor's whole panel) or the
                               * recursive panels' (blk_nbmin), and its kind */
  /* where the pivots live (blk_pivot_ways, by gauss.pivots and the rank count) */
  const struct blk_pivot_way *pw;
  int *dpiv;                  /* device pivots (pw = device): panel k's from k nb, 0-based from
                               * its top row */
  double *dstat;              /* device: getrf_dev's 3 figures per panel */
  int *dplans;                /* device: every panel's swap plan (K_GAUSS_PLAN_INTS(nb) ints
                               * each), kept for the solve */
  /* the lookahead stream hook: ko->stream_ctl (gauss.lookahead = 1) or none */
  int (*side)(k_backend *be, int what);
  int la;                     /* gauss.lookahead: the next panel's columns updated first */
  int nopiv;                  /* gauss.pivoting = none with FP32 factors: every panel by
                               * blk_panel_nopiv (identity pivots), no row swaps */
  int chunks;                 /* gauss.update_chunks (P = 1 and a backend with aux_ctl; else 1) */
  int64_t cw;                 /* the chunks' width: chunk c holds local columns [c cw, (c + 1) cw) */
  int aux_prio;               /* aux_ctl's ENTER argument: the aux stream's priority (0 high, 1 same) */
  int aux_in;                 /* the aux stream was entered in this factorization */
  void *tr;                   /* gauss.trace: the factorization's time marks (NULL: none) */
  double fl[2];               /* flops of the lookahead GEMMs, of the rest of the trailing GEMMs */
  int64_t ntall;              /* panels factored by the vendor's getrf for gauss.panel_vendor_rows */
  double hprev, host[16];     /* gauss.trace: the host's clock at the last mark; its time queueing
                               * the work before each kind of mark (BLK_TR_*; [BLK_TR]: mark 1) */
} blk_ws;

/* gauss.trace's marks: 0 the factorization's start, 1 its end, then BLK_TR of each step k from
 * 2 + k BLK_TR: on the main stream the step's start (after the wait for its panel) and the end
 * of each part in order - lookahead columns' swaps, TRSM, low copies, GEMM; the rest's swaps,
 * TRSM, low copies, GEMM - then on the side stream the next panel's start and end, and with
 * update chunks on the aux stream the start of the first chunk's swaps and the end of the last
 * chunk's work (the main stream's rest swaps mark then ends its wait for the first chunk, its
 * TRSM and low marks follow at once: the chunks' swaps and TRSM run on the aux stream). */
enum { BLK_TR_START, BLK_TR_LA_SWAP, BLK_TR_LA_TRSM, BLK_TR_LA_LOW, BLK_TR_LA_GEMM, BLK_TR_SWAP,
       BLK_TR_TRSM, BLK_TR_LOW, BLK_TR_GEMM, BLK_TR_SIDE0, BLK_TR_SIDE1, BLK_TR_AUX0, BLK_TR_AUX1,
       BLK_TR };

/* gauss.trace: record step k's mark `what` (k < 0: mark what of the factorization) on the
 * current stream.  Local. */
static void blk_tr(blk_ws *w, int64_t k, int what) {
  if (!w->tr) return;
  HY_LOCAL(w->g->ko->trace_mark(w->g->be, w->tr, k < 0 ? what : 2 + (int)k * BLK_TR + what));
  double now = hy_wtime();
  if (k >= 0 || what == 1) w->host[k < 0 ? BLK_TR : what] += now - w->hprev;
  w->hprev = now;
}

/* Where a one-process-row factorization keeps its pivots: the panel (factor, pivots, the L
 * panel's address), the swaps on a range of this rank's columns, and the end of the
 * factorization (pivots into f->piv, the singularity check).  Collective where blk_panel is. */
typedef struct blk_pivot_way {
  int (*panel)(blk_ws *w, int64_t k, void **lp, int64_t *ldl);
  int (*swap1)(blk_ws *w, int64_t k, int64_t s0, int64_t c1);
  int (*finish)(blk_ws *w, int64_t nblk);
} blk_pivot_way;

/* gauss.panel = vendor: the backend's getrf on the whole panel.  Local. */
static int blk_panel_vendor(gauss_t *g, int sp, int64_t m, int64_t n, void *a, int64_t lda,
                            int *ip, int *info, double *minpiv, int64_t *mi) {
  return g->ko->getrf(g->be, sp, m, n, a, lda, ip, info, minpiv, mi);
}

/* The base block (columns) of the recursive panels: gauss.panel_nb, at most 32 for fused.
 * Local. */
static int blk_nbmin(const gauss_t *g) {
  int nb = g->o->panel_nb;
  return g->panel == GAUSS_PANEL_FUSED && nb > 32 ? 32 : nb;
}

/* gauss.panel = recursive: the backend's getrf_rec with gauss.panel_nb, the vendor's base
 * blocks.  Local. */
static int blk_panel_rec(gauss_t *g, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *ip,
                         int *info, double *minpiv, int64_t *mi) {
  return g->ko->getrf_rec(g->be, sp, m, n, a, lda, blk_nbmin(g), K_GAUSS_BASE_VENDOR, ip, info, minpiv, mi);
}

/* gauss.panel = fused: getrf_rec with the backend's own one-launch base blocks.  Local. */
static int blk_panel_fused(gauss_t *g, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *ip,
                           int *info, double *minpiv, int64_t *mi) {
  return g->ko->getrf_rec(g->be, sp, m, n, a, lda, blk_nbmin(g), K_GAUSS_BASE_FUSED, ip, info, minpiv, mi);
}

/* gauss.pivoting = none (FP32 factors): getrf_rec with base blocks of at most
 * K_GAUSS_NOPIV_MAX (32) columns factored without row exchanges; the pivots come back the
 * identity.  Local. */
static int blk_nbmin_nopiv(const gauss_t *g) {
  return g->o->panel_nb > K_GAUSS_NOPIV_MAX ? K_GAUSS_NOPIV_MAX : g->o->panel_nb;
}
static int blk_panel_nopiv(gauss_t *g, int sp, int64_t m, int64_t n, void *a, int64_t lda, int *ip,
                           int *info, double *minpiv, int64_t *mi) {
  return g->ko->getrf_rec(g->be, sp, m, n, a, lda, blk_nbmin_nopiv(g), K_GAUSS_BASE_NOPIV, ip, info, minpiv, mi);
}

/* gauss.panel_vendor_rows (g->vendor_rows): a panel of more than that many rows (0: none) is factored by the
 * vendor's getrf whatever gauss.panel says (the fused base block holds all the panel's rows in
 * shared memory: a tall panel takes many multiprocessors from the trailing GEMM beside it);
 * gauss.panel_vendor_short (g->vendor_short): so is a panel of at most that many rows (0: none;
 * the short panels at the end of the factorization are its critical path).  Local. */
static int blk_by_vendor(const gauss_t *g, int64_t rows) {
  return (g->vendor_rows > 0 && rows > g->vendor_rows) || (g->vendor_short > 0 && rows <= g->vendor_short);
}

/* The panel variants by gauss.panel's index (GAUSS_PANEL_*), and getrf_dev's base blocks. */
static int (*const blk_panels[])(gauss_t *, int, int64_t, int64_t, void *, int64_t, int *, int *,
                                 double *, int64_t *) = { blk_panel_vendor, blk_panel_rec, blk_panel_fused };
static const int blk_panel_base[] = { K_GAUSS_BASE_VENDOR, K_GAUSS_BASE_VENDOR, K_GAUSS_BASE_FUSED };

/* Make the grid, open its transport, print the choice.  Collective. */
int gauss_blocked_comm_setup(gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  HY_CALL(hy_grid_make(ctx->comm, g->P, g->Q, &g->grid));
  g->grid_made = 1;
  if (ctx->size == 1) return hy_bcast_open(&g->grid, g->be, HY_BCAST_MPI, "gauss.bcast", 0, &g->bc);
  HY_CALL(hy_bcast_open(&g->grid, g->be, g->o->bcast, "gauss.bcast", ctx->debug.host_coll, &g->bc));
  gauss_report_bcast(g);
  return HY_OK;
}

/* Close the transport, free the grid.  Collective. */
void gauss_blocked_comm_free(gauss_t *g) {
  hy_bcast_close(g->bc);
  g->bc = NULL;
  if (g->grid_made) hy_grid_free(&g->grid);
  g->grid_made = 0;
}

/* gauss.profile: synchronised times of the parts of the factorization into g->prof (slot
 * < 0: start the clock).  Local. */
static void prof_mark(gauss_t *g, int slot, double *t) {
  if (!g->o->profile) return;
  HY_LOCAL(g->be->ops->sync(g->be));
  double now = hy_wtime();
  if (slot >= 0) g->prof[slot] += now - *t;
  *t = now;
}

/* The factors' leading dimension for m local rows of e bytes: gauss.lda = exact: m; auto: m
 * rounded up to 64 elements and, when a column's stride is then a multiple of 4 KiB, 64 more
 * (n = 32768 or 65536 gives a 256 / 512 KiB stride: every column of a GEMM tile starts at the
 * same offset of the memory's interleave).  Local. */
static int64_t blk_lda(int64_t m, int pad, size_t e) {
  int64_t ld = m > 0 ? m : 1;
  if (!pad) return ld;
  ld = (ld + 63) / 64 * 64;
  if ((ld * (int64_t)e) % 4096 == 0) ld += 64;
  return ld;
}

/* The leading dimension of a 16-bit copy of m rows (HPL-MxP's w->lowl, w->lowu): m rounded up to
 * a multiple of 8 elements, so that every column starts 16-byte aligned (the tensor cores'
 * operands; an odd m, n that nb does not divide, would leave cuBLAS its unaligned kernels).
 * Local. */
static inline int64_t blk_ld8(int64_t m) {
  return m > 0 ? (m + 7) / 8 * 8 : 8;
}

/* Bytes of the factors' device block (mloc x nloc, ld lda).  Local. */
static size_t blk_abytes(const blk_fact *f) {
  return (size_t)(f->lda * (f->nloc > 0 ? f->nloc : 1)) * (f->sp ? 4 : 8);
}

/* f's place in the grid and its block's shape (p, q, mloc, nloc, lda; f->sp set).  Local. */
static void blk_geom(const gauss_t *g, blk_fact *f) {
  int Q = g->Q;
  f->p = g->ctx->rank / Q;
  f->q = g->ctx->rank % Q;
  f->mloc = gauss_numroc(g->n, g->nb, f->p, g->P);
  f->nloc = gauss_numroc(g->n, g->nb, f->q, Q);
  f->lda = blk_lda(f->mloc, g->o->lda_pad, f->sp ? 4 : 8);
}

/* The original matrix (g->a0, FP64) copied into dst, f's block (converted for FP32 factors).
 * Queued on the device's stream.  Local. */
static void blk_copy_a0(gauss_t *g, const blk_fact *f, void *dst) {
  k_backend *be = g->be;
  int64_t ld0 = f->mloc > 0 ? f->mloc : 1;   /* the original's */
  if (f->sp) HY_LOCAL(g->ko->convert(be, 1, f->mloc, f->nloc, g->a0, ld0, dst, f->lda));
  else if (f->lda == ld0) HY_LOCAL(be->ops->d2d(be, dst, g->a0, (size_t)(f->mloc * f->nloc) * 8));
  else HY_LOCAL(g->ko->copy_2d(be, 0, f->mloc, f->nloc, g->a0, ld0, dst, f->lda));
}

/* The FP64 factors' copy of the original, made before the timer (gauss_alg.prepare): as the
 * vendor reference's untimed copy of A (and HPL, which times the factorization of a matrix already
 * in place; the copy is how a repeat starts from the original again).  FP32 factors (precision
 * single, mixed) keep their conversion in the timed factorization. */
typedef struct {
  void *a;
  size_t bytes;
} blk_pre;

/* gauss_alg.prepare: blk_pre with the copy made and waited for (*out; NULL for FP32 factors).
 * Local. */
static int blk_prepare(gauss_t *g, void **out) {
  *out = NULL;
  if (g->prec != GAUSS_DOUBLE) return HY_OK;
  blk_fact f0;
  memset(&f0, 0, sizeof f0);
  blk_geom(g, &f0);
  blk_pre *pre;
  HY_CALLOC(pre, 1);
  pre->bytes = blk_abytes(&f0);
  pre->a = gauss_dalloc_parked(g, pre->bytes);
  blk_copy_a0(g, &f0, pre->a);
  HY_LOCAL(g->be->ops->sync(g->be));
  *out = pre;
  return HY_OK;
}

/* Address of element (i, j) of a column-major block with leading dimension ld.  Local. */
static inline void *at(const blk_ws *w, void *p, int64_t i, int64_t j, int64_t ld) {
  return (char *)p + (size_t)(i + j * ld) * w->e;
}

/* Factor panel k in its process column, share the pivots with every rank and the L panel
 * along the process rows; returns the L panel from its first local row at or after k0 (the
 * owner's columns in place, elsewhere packed) and its leading dimension.  Collective. */
static int blk_panel_host(blk_ws *w, int64_t k, void **lp, int64_t *ldl) {
  gauss_t *g = w->g;
  blk_fact *f = w->f;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = g->P, Q = g->Q, sp = f->sp;
  int64_t n = g->n, nb = g->nb, k0 = k * nb, jb = n - k0 < nb ? n - k0 : nb;
  int pk = (int)(k % P), qk = (int)(k % Q);
  int64_t lr0 = gauss_numroc(k0, nb, f->p, P), lc0 = gauss_numroc(k0, nb, f->q, Q);
  int64_t mrows = f->mloc - lr0;
  int *ip = w->ipiv;  /* ip[0..jb): pivots relative to k0; ip[jb]: singular column or -1 */
  double minpiv = INFINITY;
  int root = pk * Q + qk;
  int tall = !w->nopiv && blk_by_vendor(g, n - k0);   /* (no pivots: never the vendor's getrf) */
  w->ntall += tall;
  if (f->q == qk) {
    void *pan = at(w, f->a, lr0, lc0, f->lda);
    if (P == 1) {
      int info = 0;
      int64_t mi = 0;
      HY_LOCAL((tall ? blk_panel_vendor : w->panel)(g, sp, mrows, jb, pan, f->lda, ip, &info, &minpiv, &mi));
      ip[jb] = info > 0 ? (int)(k0 + info - 1) : (minpiv <= gauss_tiny(g, sp) ? (int)(k0 + mi) : -1);
    } else {
      /* gather the panel's rows to the diagonal process of this column: one message per
       * process (counts in elements), the rows put in global order on the device with one
       * row-scatter kernel per process, factored there, split with one row-gather kernel per
       * process, one message back */
      int64_t m = n - k0;
      MPI_Datatype et = sp ? MPI_FLOAT : MPI_DOUBLE;
      int *cnt = NULL, *dsp = NULL;
      if ((n - k0) * jb > 2147483647LL)
        hy_fatal(HY_EUSAGE, "gauss: panel of %lld x %lld elements exceeds the 32-bit MPI counts",
                 (long long)m, (long long)jb);
      int mycount = (int)(mrows * jb);
      HY_LOCAL(ko->d2h_2d(be, sp, mrows, jb, pan, f->lda, w->hbuf, mrows > 0 ? mrows : 1));
      unsigned char *all = w->hall;
      if (f->p == pk) {
        cnt = gauss_xmalloc(sizeof(int) * (size_t)P);
        dsp = gauss_xmalloc(sizeof(int) * (size_t)P);
        int64_t off = 0;
        for (int pp = 0; pp < P; pp++) {
          int64_t l0 = gauss_numroc(k0, nb, pp, P);
          int64_t mr = gauss_numroc(n, nb, pp, P) - l0;
          cnt[pp] = (int)(mr * jb);
          dsp[pp] = (int)off;
          off += cnt[pp];
          /* global rows (relative to k0) of process pp's panel rows, in its local order */
          for (int64_t i = 0; i < mr; i++) w->glist[dsp[pp] / jb + i] = (int)(gauss_l2g(l0 + i, nb, pp, P) - k0);
        }
      }
      HY_MPI(MPI_Gatherv(w->hbuf, mycount, et, all, cnt, dsp, et, pk, f->colc));
      if (f->p == pk) {
        /* assemble in global row order, factor on the device, split again */
        HY_LOCAL(ko->h2d_2d(be, sp, m * jb, 1, all, m * jb, w->pbuf2, m * jb));
        for (int pp = 0; pp < P; pp++)
          if (cnt[pp] > 0)
            HY_LOCAL(ko->rows_put(be, sp, w->pbuf, m, jb, cnt[pp] / (int)jb, w->glist + dsp[pp] / jb,
                                 at(w, w->pbuf2, dsp[pp], 0, 1)));
        int info = 0;
        int64_t mi = 0;
        HY_LOCAL((tall ? blk_panel_vendor : w->panel)(g, sp, m, jb, w->pbuf, m, ip, &info, &minpiv, &mi));
        ip[jb] = info > 0 ? (int)(k0 + info - 1) : (minpiv <= gauss_tiny(g, sp) ? (int)(k0 + mi) : -1);
        for (int pp = 0; pp < P; pp++)
          if (cnt[pp] > 0)
            HY_LOCAL(ko->rows_get(be, sp, w->pbuf, m, jb, cnt[pp] / (int)jb, w->glist + dsp[pp] / jb,
                                 at(w, w->pbuf2, dsp[pp], 0, 1)));
        HY_LOCAL(ko->d2h_2d(be, sp, m * jb, 1, w->pbuf2, m * jb, all, m * jb));
      }
      HY_MPI(MPI_Scatterv(all, cnt, dsp, et, w->hbuf, mycount, et, pk, f->colc));
      HY_LOCAL(ko->h2d_2d(be, sp, mrows, jb, w->hbuf, mrows > 0 ? mrows : 1, pan, f->lda));
      free(cnt); free(dsp);
    }
  }
  double mp = minpiv;
  if (g->ctx->size > 1) {
    HY_MPI(MPI_Bcast(ip, (int)jb + 1, MPI_INT, root, g->ctx->comm));
    HY_MPI(MPI_Bcast(&mp, 1, MPI_DOUBLE, root, g->ctx->comm));
  }
  if (ip[jb] >= 0) return gauss_singular(g, "the LU pivot |u_kk|", ip[jb], mp);
  for (int64_t i = 0; i < jb; i++) f->piv[k0 + i] = k0 + ip[i];
  /* L panel along the process row: rows lr0.. (the same count on the whole row), packed */
  int64_t ldp = mrows > 0 ? mrows : 1;
  if (f->q == qk) {
    *lp = at(w, f->a, lr0, lc0, f->lda);
    *ldl = f->lda;
  } else {
    *lp = w->lbuf[k & 1];
    *ldl = ldp;
  }
  /* queued on this stream (the lookahead side stream after panel 0) by the device transport */
  if (Q > 1 && mrows > 0) HY_LOCAL(hy_bcast_2d(g->bc, HY_ROW, w->e, mrows, jb, *lp, *ldl, qk));
  return HY_OK;
}

/* One rank, pivots on the device: factor panel k in place (getrf_dev: pivots and status stay
 * on the device, checked by blk_finish_dev) and plan its row swaps; the L panel is the panel
 * itself.  Nothing waits for the device.  Local. */
static int blk_panel_dev(blk_ws *w, int64_t k, void **lp, int64_t *ldl) {
  gauss_t *g = w->g;
  blk_fact *f = w->f;
  int64_t n = g->n, k0 = k * g->nb, jb = n - k0 < g->nb ? n - k0 : g->nb;
  void *pan = at(w, f->a, k0, k0, f->lda);
  int tall = !w->nopiv && blk_by_vendor(g, n - k0);
  w->ntall += tall;
  HY_LOCAL(g->ko->getrf_dev(g->be, f->sp, n - k0, jb, pan, f->lda, tall ? 0 : w->nbmin, w->base,
                            w->dpiv + k0, w->dstat + 3 * k));
  HY_LOCAL(g->ko->swap_plan(g->be, (int)jb, n - k0, w->dpiv + k0, w->dplans + k * K_GAUSS_PLAN_INTS(g->nb)));
  *lp = pan;
  *ldl = f->lda;
  return HY_OK;
}

/* One process row, host pivots: panel k's swaps in order (LAPACK laswp) on columns [s0, c1)
 * from row k0.  Local. */
static int blk_swap1_host(blk_ws *w, int64_t k, int64_t s0, int64_t c1) {
  blk_fact *f = w->f;
  int64_t n = w->g->n, k0 = k * w->g->nb, jb = n - k0 < w->g->nb ? n - k0 : w->g->nb;
  int *ip = w->ipiv;
  for (int64_t i = 0; i < jb; i++) ip[i] = (int)(f->piv[k0 + i] - k0);
  HY_LOCAL(w->g->ko->laswp(w->g->be, f->sp, at(w, f->a, k0, s0, f->lda), f->lda, c1 - s0, (int)jb, ip));
  return HY_OK;
}

/* One rank, device pivots: panel k's swaps by its plan, one launch for the columns [s0, c1).
 * Local. */
static int blk_swap1_dev(blk_ws *w, int64_t k, int64_t s0, int64_t c1) {
  blk_fact *f = w->f;
  int64_t n = w->g->n, k0 = k * w->g->nb, jb = n - k0 < w->g->nb ? n - k0 : w->g->nb;
  HY_LOCAL(w->g->ko->swap_apply(w->g->be, f->sp, at(w, f->a, k0, s0, f->lda), f->lda, c1 - s0,
                                (int)jb, w->dpiv + k0, w->dplans + k * K_GAUSS_PLAN_INTS(w->g->nb)));
  return HY_OK;
}

/* Host pivots: f->piv and the singularity checks were done panel by panel.  Local. */
static int blk_finish_host(blk_ws *w, int64_t nblk) {
  (void)w;
  (void)nblk;
  return HY_OK;
}

/* Device pivots, after the last panel: the pivots into f->piv, then the panels' status in
 * order: the first with an exact zero pivot or a pivot below gauss_tiny stops the run naming
 * its column (the same column and message as the host-pivot path).  Local (one rank). */
static int blk_finish_dev(blk_ws *w, int64_t nblk) {
  gauss_t *g = w->g;
  blk_fact *f = w->f;
  int64_t n = g->n, nb = g->nb;
  int *hp = gauss_xmalloc(sizeof(int) * (size_t)n);
  double *hs = gauss_xmalloc(sizeof(double) * (size_t)(3 * nblk));
  HY_LOCAL(g->be->ops->d2h(g->be, hp, w->dpiv, sizeof(int) * (size_t)n));
  HY_LOCAL(g->be->ops->d2h(g->be, hs, w->dstat, sizeof(double) * (size_t)(3 * nblk)));
  for (int64_t i = 0; i < n; i++) f->piv[i] = (i / nb) * nb + hp[i];
  /* the pivots and plans stay on the device for the solve */
  f->dpiv = w->dpiv;
  f->dplans = w->dplans;
  w->dpiv = NULL;
  w->dplans = NULL;
  int rc = HY_OK;
  for (int64_t k = 0; k < nblk && rc == HY_OK; k++) {
    int64_t k0 = k * nb;
    double info = hs[3 * k], mp = hs[3 * k + 1];
    if (info < 0) hy_fatal(HY_ESYS, "gauss: the vendor's getrf: argument %d illegal", (int)-info);
    int64_t col = info > 0 ? k0 + (int64_t)info - 1 : (mp <= gauss_tiny(g, f->sp) ? k0 + (int64_t)hs[3 * k + 2] : -1);
    if (col >= 0) rc = gauss_singular(g, "the LU pivot |u_kk|", col, mp);
  }
  free(hp);
  free(hs);
  return rc;
}

/* The pivot ways: [0] host (every rank, any grid), [1] device (one rank). */
static const blk_pivot_way blk_pivot_ways[2] = {
  { .panel = blk_panel_host, .swap1 = blk_swap1_host, .finish = blk_finish_host },
  { .panel = blk_panel_dev, .swap1 = blk_swap1_dev, .finish = blk_finish_dev },
};

/* No lookahead stream (gauss.lookahead = 0): everything stays on the main stream.  Local. */
static int blk_side_none(k_backend *be, int what) {
  (void)be;
  (void)what;
  return HY_OK;
}

/* Apply panel k's row swaps to this rank's columns [c0, c1).  Collective on the process
 * column (every rank calls it). */
static int blk_swap(blk_ws *w, int64_t k, int64_t c0, int64_t c1, int64_t x0, int64_t x1) {
  gauss_t *g = w->g;
  blk_fact *f = w->f;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = g->P, sp = f->sp;
  int64_t n = g->n, nb = g->nb, k0 = k * nb, jb = n - k0 < nb ? n - k0 : nb;
  if (w->nopiv) return HY_OK;   /* gauss.pivoting = none: the pivots are the identity */
  if (P == 1) {
    /* one process row: the panel's swaps (in order: laswp, or one planned permutation with the
     * pivots on the device) on the columns right of the panel; the columns left of it (earlier
     * L panels) stay unswapped and the solve applies the pivots panel by panel */
    int64_t s0 = x1 > c0 ? x1 : c0;
    if (c1 > s0) HY_CALL(w->pw->swap1(w, k, s0, c1));
    return HY_OK;
  }
  /* the set S of touched rows, and which row's content ends at each */
  int64_t *perm = w->perm;
  int64_t ns = 0;
  int64_t *set = gauss_xmalloc(sizeof(int64_t) * (size_t)(2 * jb + 1));
  for (int64_t i = 0; i < jb; i++) {
    int64_t a = k0 + i, b = f->piv[k0 + i];
    if (perm[a] < 0) { perm[a] = a; set[ns++] = a; }
    if (perm[b] < 0) { perm[b] = b; set[ns++] = b; }
    int64_t t = perm[a]; perm[a] = perm[b]; perm[b] = t;
  }
  /* sort S (small) so every rank packs in the same order */
  for (int64_t i = 1; i < ns; i++)
    for (int64_t j = i; j > 0 && set[j - 1] > set[j]; j--) { int64_t t = set[j]; set[j] = set[j - 1]; set[j - 1] = t; }
  int64_t ncols = f->nloc;
  /* row r of S (owner pr) gets the content of row perm[r] (owner ps): for each process, the
   * rows I send it (my local source rows) and the rows I receive from it (my local target
   * rows), both in the order of S, so that sender and receiver agree without telling each
   * other; my own moves stay on the device */
  int me = f->p;
  int *scnt = gauss_xmalloc(sizeof(int) * (size_t)(4 * P + P * P));
  int *rcnt = scnt + P, *soff = scnt + 2 * P, *roff = scnt + 3 * P;
  int *cm = scnt + 4 * P;     /* cm[ps * P + pr]: rows process ps sends to process pr */
  for (int pp = 0; pp < P * P; pp++) cm[pp] = 0;
  for (int64_t i = 0; i < ns; i++) {
    int pr = (int)((set[i] / nb) % P), ps = (int)((perm[set[i]] / nb) % P);
    cm[ps * P + pr]++;
  }
  for (int pp = 0; pp < P; pp++) { scnt[pp] = cm[me * P + pp]; rcnt[pp] = cm[pp * P + me]; }
  /* blocks by process, the other processes' first (contiguous, through the host), mine last */
  int so = 0, ro = 0;
  for (int pp = 0; pp < P; pp++)
    if (pp != me) { soff[pp] = so; so += scnt[pp]; roff[pp] = ro; ro += rcnt[pp]; }
  int nrecv = ro;
  soff[me] = so;
  roff[me] = ro;
  int nmine = so + scnt[me];
  if ((int64_t)nmine * (ncols > 0 ? ncols : 1) > 2147483647LL)
    hy_fatal(HY_EUSAGE, "gauss: row swaps of %d rows x %lld columns exceed the 32-bit MPI counts",
             nmine, (long long)ncols);
  for (int pp = 0; pp < P; pp++) scnt[pp] = rcnt[pp] = 0;
  for (int64_t i = 0; i < ns; i++) {
    int64_t r = set[i], src = perm[r];
    int pr = (int)((r / nb) % P), ps = (int)((src / nb) % P);
    if (ps == me) w->rows[soff[pr] + scnt[pr]++] = (int)((src / (nb * P)) * nb + src % nb);
    if (pr == me) w->rows2[roff[ps] + rcnt[ps]++] = (int)((r / (nb * P)) * nb + r % nb);
  }
  /* the device buffer: the send blocks (scnt[pp] x ncols each, column-major, the other
   * processes' first, mine last), then the received blocks of the other processes (grown when
   * short: sized for 2 nb rows at the start, about twice the usual need) */
  size_t dneed = (size_t)((nmine + nrecv) * ncols) * w->e;
  if (dneed > w->rbytes) {
    HY_LOCAL(be->ops->sync(be));
    HY_LOCAL(be->ops->free(be, w->rbuf));
    w->rbuf = gauss_dalloc(g, dneed);
    w->rbytes = dneed;
  }
  void *sd = w->rbuf, *rd = at(w, w->rbuf, (int64_t)nmine * ncols, 0, 1);
  if (ncols > 0) {
    for (int pp = 0; pp < P; pp++)
      if (scnt[pp] > 0)
        HY_LOCAL(ko->rows_get(be, sp, f->a, f->lda, ncols, scnt[pp], w->rows + soff[pp],
                             at(w, sd, (int64_t)soff[pp] * ncols, 0, 1)));
    /* the blocks from / to the other processes of the column, through the transport (one
     * exchange per panel: P = 2, one block each way) */
    int64_t *xc = gauss_xmalloc(sizeof(int64_t) * (size_t)(P * P + 2 * P));
    int64_t *xs = xc + P * P, *xr = xs + P;
    size_t row = (size_t)ncols * w->e;
    for (int pp = 0; pp < P * P; pp++) xc[pp] = (int64_t)(cm[pp] * row);
    for (int pp = 0; pp < P; pp++) {
      xs[pp] = (int64_t)(soff[pp] * row);
      xr[pp] = (int64_t)(roff[pp] * row);
    }
    HY_LOCAL(hy_bcast_exchange(g->bc, HY_COL, xc, sd, xs, rd, xr));
    free(xc);
    /* scatter into my rows: all columns in [c0, c1) except [x0, x1) */
    for (int pp = 0; pp < P; pp++) {
      int c = rcnt[pp];
      if (c == 0) continue;
      void *blk = pp == me ? at(w, sd, (int64_t)soff[me] * ncols, 0, 1)
                           : at(w, rd, (int64_t)roff[pp] * ncols, 0, 1);
      const int *tr = w->rows2 + roff[pp];
      if (x0 > c0) HY_LOCAL(ko->rows_put(be, sp, at(w, f->a, 0, c0, f->lda), f->lda, x0 - c0, c, tr, at(w, blk, 0, c0, c)));
      int64_t s = x1 > c0 ? x1 : c0;
      if (c1 > s) HY_LOCAL(ko->rows_put(be, sp, at(w, f->a, 0, s, f->lda), f->lda, c1 - s, c, tr, at(w, blk, 0, s, c)));
    }
  }
  free(scnt);
  for (int64_t i = 0; i < ns; i++) perm[set[i]] = -1;
  free(set);
  return HY_OK;
}

/* The factors' storage (a copy of the FP64 original in this rank's distribution, FP32 when
 * sp) and the factorization's workspaces: panels, U rows, gathers, swaps, pinned staging, the
 * transport's reserve.  Local (allocation failures abort). */
static blk_fact *blk_alloc(gauss_t *g, int sp, blk_ws *w, blk_pre *pre) {
  hy_ctx *ctx = g->ctx;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = g->P, Q = g->Q;
  int64_t n = g->n, nb = g->nb;
  blk_fact *f;
  HY_CALLOC(f, 1);
  f->sp = sp;
  f->deferred = P == 1;
  blk_geom(g, f);
  memset(w, 0, sizeof *w);
  w->g = g;
  w->f = f;
  w->e = sp ? 4 : 8;
  /* the matrix: a copy of the FP64 original (same distribution), converted for FP32; FP64:
   * blk_prepare's, made before the timer, where there is one */
  int pre_ok = pre && !sp && pre->a && pre->bytes == blk_abytes(f);
  if (pre && pre->a && !pre_ok) be->ops->free(be, pre->a);
  f->a = pre_ok ? pre->a : gauss_dalloc_parked(g, blk_abytes(f));
  free(pre);
  f->piv = gauss_xmalloc(sizeof(int64_t) * (size_t)n);
  f->rowc = g->grid.row;
  f->colc = g->grid.col;
  if (!pre_ok) blk_copy_a0(g, f, f->a);
  /* workspaces */
  if (Q > 1) {
    w->lbuf[0] = gauss_dalloc(g, (size_t)(f->lda * nb) * w->e);
    w->lbuf[1] = gauss_dalloc(g, (size_t)(f->lda * nb) * w->e);
  }
  if (P > 1) {
    w->ubuf = gauss_dalloc(g, (size_t)(nb * (f->nloc > 0 ? f->nloc : 1)) * w->e);
    w->pbuf = gauss_dalloc(g, (size_t)(n * nb) * w->e);
    w->pbuf2 = gauss_dalloc(g, (size_t)(n * nb) * w->e);
  }
  if (P > 1) {
    w->rbytes = (size_t)(2 * nb * (f->nloc > 0 ? f->nloc : 1)) * w->e;
    w->rbuf = gauss_dalloc(g, w->rbytes);
  }
  /* the transport's staging, once: L panels along the rows, U block rows down the columns */
  HY_LOCAL(hy_bcast_reserve(g->bc, HY_ROW, (size_t)(f->lda * nb) * w->e, (size_t)(f->lda * nb) * w->e));
  HY_LOCAL(hy_bcast_reserve(g->bc, HY_COL, (size_t)(nb * (f->nloc > 0 ? f->nloc : 1)) * w->e,
                           (size_t)(2 * nb * (f->nloc > 0 ? f->nloc : 1)) * w->e));
  w->perm = gauss_xmalloc(sizeof(int64_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++) w->perm[i] = -1;
  w->rows = gauss_xmalloc(sizeof(int) * (size_t)(2 * nb + 2));
  w->rows2 = gauss_xmalloc(sizeof(int) * (size_t)(2 * nb + 2));
  int64_t mx = f->mloc * nb, ux = 2 * nb * f->nloc;
  w->hbytes = (size_t)((mx > ux ? mx : ux) + nb + 16) * w->e;
  if (ctx->size > 1) HY_LOCAL(be->ops->alloc_pinned(be, (void **)&w->hbuf, w->hbytes));
  if (P > 1) {
    HY_LOCAL(be->ops->alloc_pinned(be, (void **)&w->hall, (size_t)(n * nb) * w->e));
    w->glist = gauss_xmalloc(sizeof(int) * (size_t)n);
  }
  w->ipiv = gauss_xmalloc(sizeof(int) * (size_t)(nb + 4));
  w->nopiv = sp && g->o->nopiv;
  w->panel = w->nopiv ? blk_panel_nopiv : blk_panels[g->panel];
  w->nbmin = w->nopiv ? blk_nbmin_nopiv(g) : g->panel != GAUSS_PANEL_VENDOR ? blk_nbmin(g) : 0;
  w->base = w->nopiv ? K_GAUSS_BASE_NOPIV : blk_panel_base[g->panel];
  w->la = g->o->lookahead > 0;
  w->side = w->la ? ko->stream_ctl : blk_side_none;
  w->chunks = P == 1 && ko->aux_ctl ? (g->o->update_chunks > 0 ? g->o->update_chunks : ko->update_chunks_auto) : 1;
  if (w->chunks < 1) w->chunks = 1;
  if (w->chunks > K_GAUSS_CHUNKS_MAX) w->chunks = K_GAUSS_CHUNKS_MAX;
  w->cw = ((f->nloc + w->chunks - 1) / w->chunks + nb - 1) / nb * nb;
  if (w->cw < nb) w->cw = nb;
  w->aux_prio = g->o->update_same;
  /* gauss.side_priority: the lookahead panel's stream (made at its first use) */
  if (ko->aux_ctl) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_SIDE, g->o->side_same));
  /* gauss.panel_rows: the fused base block's rows per thread block */
  if (ko->aux_ctl) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_PBROWS, g->o->panel_rows));
  /* gauss.panel_sync: how the fused base block's thread blocks share a column's candidates */
  if (ko->aux_ctl) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_PBSYNC, g->o->panel_sync_grid));
  /* gauss.panel_kernel: the fused base block's kernel (registers or shared memory) */
  if (ko->aux_ctl) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_PBKIND, g->o->panel_kernel));
  /* gauss.panel_sms: multiprocessors the main stream's GEMMs leave to the panel (until blk_ws_free) */
  if (ko->aux_ctl && g->o->panel_sms > 0) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_SMS, g->o->panel_sms));
  /* pivots on the device: one rank, gauss.pivots = device, a backend that has getrf_dev */
  int dev = ctx->size == 1 && g->o->pivots_dev && ko->getrf_dev && ko->swap_plan && ko->swap_apply;
  w->pw = &blk_pivot_ways[dev];
  if (dev) {
    int64_t nblk = (n + nb - 1) / nb;
    w->dpiv = gauss_dalloc(g, sizeof(int) * (size_t)n);
    w->dstat = gauss_dalloc(g, sizeof(double) * (size_t)(3 * nblk));
    w->dplans = gauss_dalloc(g, sizeof(int) * (size_t)(nblk * K_GAUSS_PLAN_INTS(nb)));
  }
  if (sp && g->o->low >= GAUSS_LOW_BF16) {
    size_t le = ko->low_bytes[g->o->low];
    w->lowl = gauss_dalloc(g, (size_t)(blk_ld8(f->mloc) * nb) * le);
    w->lowu = gauss_dalloc(g, (size_t)(blk_ld8(nb) * (f->nloc > 0 ? f->nloc : 1)) * le);
  }
  return f;
}

/* A trailing update C -= A B in the factors' precision; FP32 factors with gauss.low = tf32
 * round the inputs to it in the GEMM; bf16 / fp16 take A and B from the step's rounded copies
 * (w->lowl from row a_row of the L panel, w->lowu from column b_col of the U block row: ld
 * blk_ld8 of mt and of jb; blk_step's blk_lowcopy); tensor cores, FP32 sums: HPL-MxP's updates.  Local. */
static void blk_gemm(blk_ws *w, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                     const void *b, int64_t ldb, void *c, int64_t ldc, int64_t b_col) {
  gauss_t *g = w->g;
  int low = g->o->low;
  if (w->lowl) {
    size_t le = g->ko->low_bytes[low];
    HY_LOCAL(g->ko->gemm_sub_lowp(g->be, low, m, n, k, w->lowl, blk_ld8(m),
                                  (char *)w->lowu + (size_t)(b_col * blk_ld8(k)) * le, blk_ld8(k), c, ldc));
  } else if (w->f->sp && low != GAUSS_LOW_FP32) {
    HY_LOCAL(g->ko->gemm_sub_low(g->be, low, m, n, k, a, lda, b, ldb, c, ldc));
  } else {
    HY_LOCAL(g->ko->gemm_sub(g->be, w->f->sp, m, n, k, a, lda, b, ldb, c, ldc));
  }
}

/* HPL-MxP (w->lowl): round the m rows of the step's L panel (a, ld lda; m x k) into w->lowl
 * (ld blk_ld8(m)), when lcols = 1, and columns c0 .. c1 of its U block row (b, ld ldb; k rows)
 * into w->lowu (ld blk_ld8(k)), on the current stream: each element once per step.  Local. */
static void blk_lowcopy(blk_ws *w, int lcols, int64_t m, int64_t k, const void *a, int64_t lda,
                        const void *b, int64_t ldb, int64_t c0, int64_t c1) {
  gauss_t *g = w->g;
  if (!w->lowl) return;
  int low = g->o->low;
  size_t le = g->ko->low_bytes[low];
  if (lcols && m > 0) HY_LOCAL(g->ko->to_low(g->be, low, m, k, a, lda, w->lowl, blk_ld8(m)));
  if (c1 > c0)
    HY_LOCAL(g->ko->to_low(g->be, low, k, c1 - c0, at(w, (void *)b, 0, c0, ldb), ldb,
                           (char *)w->lowu + (size_t)(c0 * blk_ld8(k)) * le, blk_ld8(k)));
}

/* The columns [c0, c1) of step k's trailing update beyond the lookahead panel (blk_step). */
typedef struct {
  int64_t k, jb, c0, c1, lt, x0, x1, lr0, lr1, mt, ldcur, ldu;
  void *lcur, *up;            /* the step's L panel (from row lr0) and U block row (column lt) */
} blk_rest;

/* Chunk c of step k's update beyond the lookahead panel (r: columns [c0, c1), the part of
 * chunk c's columns [c cw, (c + 1) cw) in it; first, last: of the step): the row swaps (P = 1),
 * the TRSM (P = 1), the low copy of U, then the GEMM.  With update chunks (w->chunks > 1) the
 * first three run on the aux stream - the step's first chunk after the step's panel and the
 * previous step's GEMM of these columns (the first step, or lookahead 0: after everything
 * queued on the main stream so far), the others after that GEMM too - and the GEMM on the main
 * stream after them, so that the swaps and TRSM of a chunk run beside the GEMMs of the chunks
 * before it (of this step and of the previous one).  Collective (blk_swap; P > 1: one chunk). */
static int blk_rest_part(blk_ws *w, const blk_rest *r, int c, int first, int last) {
  gauss_t *g = w->g;
  blk_fact *f = w->f;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int64_t k = r->k, nr = r->c1 - r->c0, mt = r->mt, jb = r->jb;
  int ch = w->chunks > 1;
  if (ch) {
    int what = !first ? K_GAUSS_AUX_CHUNK : w->aux_in && w->la ? K_GAUSS_AUX_PANEL : K_GAUSS_AUX_ENTER;
    HY_LOCAL(ko->aux_ctl(be, what, what == K_GAUSS_AUX_ENTER ? w->aux_prio : c));
    w->aux_in = 1;
    if (first) blk_tr(w, k, BLK_TR_AUX0);
  }
  if (g->P == 1 && nr > 0) HY_CALL(blk_swap(w, k, r->c0, r->c1, r->x0, r->x1));
  if (!ch) blk_tr(w, k, BLK_TR_SWAP);
  if (g->P == 1 && nr > 0)
    HY_LOCAL(ko->trsm_lunit(be, f->sp, jb, nr, r->lcur, r->ldcur, at(w, f->a, r->lr0, r->c0, f->lda), f->lda));
  if (!ch) blk_tr(w, k, BLK_TR_TRSM);
  /* (P > 1: all of U was rounded with the lookahead columns, but with lookahead_low = tf32,
   * which leaves the lookahead columns unrounded and these to here) */
  if ((g->P == 1 || g->o->la_tf32) && mt > 0 && nr > 0) blk_lowcopy(w, 0, mt, jb, NULL, 0, r->up, r->ldu, r->c0 - r->lt, r->c1 - r->lt);
  if (ch && last) blk_tr(w, k, BLK_TR_AUX1);
  if (ch) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_MAIN, 0));
  if (ch && first) {
    blk_tr(w, k, BLK_TR_SWAP);
    blk_tr(w, k, BLK_TR_TRSM);
  }
  if (first) blk_tr(w, k, BLK_TR_LOW);
  if (mt > 0 && nr > 0) {
    blk_gemm(w, mt, nr, jb, at(w, r->lcur, r->lr1 - r->lr0, 0, r->ldcur), r->ldcur, at(w, r->up, 0, r->c0 - r->lt, r->ldu),
             r->ldu, at(w, f->a, r->lr1, r->c0, f->lda), f->lda, r->c0 - r->lt);
    w->fl[1] += 2.0 * (double)mt * (double)nr * (double)jb;
  }
  if (ch) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_MARK, c));
  if (last) blk_tr(w, k, BLK_TR_GEMM);
  return HY_OK;
}

/* Step k's update beyond the lookahead panel, columns [c0, nloc) (r), by chunk (w->cw wide, at
 * fixed columns: a chunk of this step lies inside the same chunk of the previous one; one chunk
 * without update chunks).  Collective. */
static int blk_rest_all(blk_ws *w, blk_rest *r) {
  int64_t c0 = r->c0, nloc = w->f->nloc;
  if (w->chunks <= 1 || nloc <= c0) return blk_rest_part(w, r, 0, 1, 1);
  int cf = (int)(c0 / w->cw), cl = (int)((nloc - 1) / w->cw);
  for (int c = cf; c <= cl; c++) {
    r->c0 = c == cf ? c0 : c * w->cw;
    r->c1 = (c + 1) * w->cw < nloc ? (c + 1) * w->cw : nloc;
    HY_CALL(blk_rest_part(w, r, c, c == cf, c == cl));
  }
  return HY_OK;
}

/* Step k of the blocked LU (panel k already factored and broadcast: lp, ldl): row swaps,
 * U block row (TRSM, broadcast down the columns), the next panel's columns updated, the next
 * panel factored on the side stream (lp, ldl: it) while the rest of the trailing update runs.
 * Returns the next panel's code (a singular column: agreed).  Collective. */
static int blk_step(blk_ws *w, int64_t k, int64_t nblk, void **lpp, int64_t *ldlp, double *tpp) {
  gauss_t *g = w->g;
  blk_fact *f = w->f;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = g->P, Q = g->Q;
  int64_t n = g->n, nb = g->nb;
  void *lp = *lpp;
  int64_t ldl = *ldlp;
  double tp = *tpp;
  int rc = HY_OK, sp = f->sp;
  int64_t k0 = k * nb, jb = n - k0 < nb ? n - k0 : nb;
  int pk = (int)(k % P), qk = (int)(k % Q);
  int64_t lr0 = gauss_numroc(k0, nb, f->p, P), lc0 = gauss_numroc(k0, nb, f->q, Q);
  int64_t lr1 = gauss_numroc(k0 + jb, nb, f->p, P), lt = gauss_numroc(k0 + jb, nb, f->q, Q);
  /* my columns of the next panel: [lt, split) (empty when another process column owns it) */
  int64_t split = lt;
  if (w->la && k + 1 < nblk && f->q == (int)((k + 1) % Q))
    split = lt + (n - (k0 + jb) < nb ? n - (k0 + jb) : nb);
  /* row swaps on all my columns except the panel's; one process row (no communication):
   * first only the next panel's columns, the rest after the lookahead mark below, so that
   * the next panel's factorization waits for as little as possible */
  int64_t x0 = f->q == qk ? lc0 : 0, x1 = f->q == qk ? lc0 + jb : 0;
  blk_tr(w, k, BLK_TR_START);
  /* the step's U block row solves share one L^-1 on the main stream (K_GAUSS_AUX_LSTEP) */
  if (ko->aux_ctl) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_LSTEP, 1));
  HY_CALL(blk_swap(w, k, P == 1 ? lt : 0, P == 1 ? split : f->nloc, x0, x1));
  blk_tr(w, k, BLK_TR_LA_SWAP);
  prof_mark(g, 1, &tp);
  /* U block row: TRSM on the diagonal process row (P = 1: the next panel's columns first),
   * broadcast down the columns */
  int64_t nt = f->nloc - lt, nt1 = P == 1 ? split - lt : nt;
  void *up = NULL;
  int64_t ldu = 0;
  if (f->p == pk) {
    if (nt1 > 0) HY_LOCAL(ko->trsm_lunit(be, sp, jb, nt1, lp, ldl, at(w, f->a, lr0, lt, f->lda), f->lda));
    up = at(w, f->a, lr0, lt, f->lda);
    ldu = f->lda;
  } else {
    up = w->ubuf;
    ldu = jb;
  }
  if (P > 1 && nt > 0) HY_LOCAL(hy_bcast_2d(g->bc, HY_COL, w->e, jb, nt, up, ldu, pk));
  blk_tr(w, k, BLK_TR_LA_TRSM);
  prof_mark(g, 2, &tp);
  /* lookahead: update the next panel's columns, factor it, then the rest */
  int64_t mt = f->mloc - lr1;
  void *lcur = lp;
  int64_t ldcur = ldl;
  /* HPL-MxP: L and the U solved so far rounded once (P = 1: the rest of U after its TRSM) */
  int la32 = w->lowl && g->o->la_tf32;   /* gauss.lookahead_low = tf32: no 16-bit copy of U's */
  blk_lowcopy(w, 1, mt, jb, at(w, lcur, lr1 - lr0, 0, ldcur), ldcur, up, ldu, 0, mt > 0 && !la32 ? nt1 : 0);
  blk_tr(w, k, BLK_TR_LA_LOW);
  if (k + 1 < nblk) {
    if (split > lt && mt > 0) {
      if (la32)
        HY_LOCAL(ko->gemm_sub_low(be, GAUSS_LOW_TF32, mt, split - lt, jb, at(w, lcur, lr1 - lr0, 0, ldcur), ldcur,
                                  up, ldu, at(w, f->a, lr1, lt, f->lda), f->lda));
      else
        blk_gemm(w, mt, split - lt, jb, at(w, lcur, lr1 - lr0, 0, ldcur), ldcur, up, ldu,
                 at(w, f->a, lr1, lt, f->lda), f->lda, 0);
      w->fl[0] += 2.0 * (double)mt * (double)(split - lt) * (double)jb;
    }
    prof_mark(g, 3, &tp);
  }
  blk_tr(w, k, BLK_TR_LA_GEMM);
  /* the rest of the trailing update is queued on the main stream; the next panel is factored
   * on the side stream (and communicated) meanwhile */
  HY_LOCAL(w->side(be, 0));
  blk_rest r = { .k = k, .jb = jb, .c0 = split, .c1 = f->nloc, .lt = lt, .x0 = x0, .x1 = x1,
                 .lr0 = lr0, .lr1 = lr1, .mt = mt, .lcur = lcur, .ldcur = ldcur, .up = up, .ldu = ldu };
  HY_CALL(blk_rest_all(w, &r));
  if (ko->aux_ctl) HY_LOCAL(ko->aux_ctl(be, K_GAUSS_AUX_LSTEP, 0));
  /* gauss.profile: the rest of the trailing update alone (else it would count as the panel's,
   * which runs beside it on the side stream) */
  prof_mark(g, 4, &tp);
  if (k + 1 < nblk) {
    HY_LOCAL(w->side(be, 1));
    blk_tr(w, k, BLK_TR_SIDE0);
    rc = w->pw->panel(w, k + 1, &lp, &ldl);
    blk_tr(w, k, BLK_TR_SIDE1);
    HY_LOCAL(w->side(be, 2));
    prof_mark(g, 0, &tp);
  }
  *lpp = lp;
  *ldlp = ldl;
  *tpp = tp;
  return rc;
}

/* Free the workspaces of blk_alloc (after the device finished with them).  Local. */
static void blk_ws_free(blk_ws *w) {
  k_backend *be = w->g->be;
  HY_LOCAL(be->ops->sync(be));
  if (w->g->ko->aux_ctl && w->g->o->panel_sms > 0) HY_LOCAL(w->g->ko->aux_ctl(be, K_GAUSS_AUX_SMS, 0));
  be->ops->free(be, w->lbuf[0]);
  be->ops->free(be, w->lbuf[1]);
  be->ops->free(be, w->ubuf);
  be->ops->free(be, w->rbuf);
  be->ops->free(be, w->pbuf);
  be->ops->free(be, w->pbuf2);
  if (w->hall) be->ops->free_pinned(be, w->hall);
  free(w->glist);
  if (w->hbuf) be->ops->free_pinned(be, w->hbuf);
  if (w->lowl) be->ops->free(be, w->lowl);
  if (w->lowu) be->ops->free(be, w->lowu);
  if (w->dpiv) be->ops->free(be, w->dpiv);
  if (w->dstat) be->ops->free(be, w->dstat);
  if (w->dplans) be->ops->free(be, w->dplans);
  free(w->ipiv);
  free(w->perm);
  free(w->rows);
  free(w->rows2);
}

/* gauss.trace: the recorded marks (blk_tr) of a factorization of nblk steps summed into g->tr:
 * the main stream's parts (consecutive marks: they sum to the factor time), the side stream's
 * panels, the quarters of the steps.  Local (waits for the device). */
static void blk_trace_sum(blk_ws *w, int64_t nblk) {
  gauss_t *g = w->g;
  gauss_trace *tr = &g->tr;
  int nm = 2 + (int)nblk * BLK_TR;
  double *t = gauss_xmalloc(sizeof(double) * (size_t)nm);
  HY_LOCAL(g->ko->trace_read(g->be, w->tr, t));
  memset(tr, 0, sizeof *tr);
  tr->done = 1;
  tr->factor = t[1];
  tr->fl_la = w->fl[0];
  tr->fl_gemm = w->fl[1];
  tr->chunks = w->chunks;
  for (int i = 0; i <= BLK_TR; i++) tr->host += w->host[i];
  tr->host_gemm = w->host[BLK_TR_LA_GEMM] + w->host[BLK_TR_GEMM];
  tr->host_panel = w->host[BLK_TR_SIDE1] + w->host[BLK_TR_START];
  tr->nq = nblk < GAUSS_TR_QUARTERS ? (int)nblk : GAUSS_TR_QUARTERS;
  for (int q = 0; q <= tr->nq; q++) tr->q0[q] = nblk * q / tr->nq;
  tr->part[GAUSS_TR_FIRST] = t[2 + BLK_TR_START];
  for (int64_t k = 0, q = 0; k < nblk; k++) {
    const double *m = t + 2 + k * BLK_TR;
    double next = k + 1 < nblk ? m[BLK_TR + BLK_TR_START] : t[1];
    while (k >= tr->q0[q + 1]) q++;
    tr->part[GAUSS_TR_SWAP] += (m[BLK_TR_LA_SWAP] - m[BLK_TR_START]) + (m[BLK_TR_SWAP] - m[BLK_TR_LA_GEMM]);
    tr->part[GAUSS_TR_TRSM] += (m[BLK_TR_LA_TRSM] - m[BLK_TR_LA_SWAP]) + (m[BLK_TR_TRSM] - m[BLK_TR_SWAP]);
    tr->part[GAUSS_TR_LOW] += (m[BLK_TR_LA_LOW] - m[BLK_TR_LA_TRSM]) + (m[BLK_TR_LOW] - m[BLK_TR_TRSM]);
    tr->part[GAUSS_TR_LAGEMM] += m[BLK_TR_LA_GEMM] - m[BLK_TR_LA_LOW];
    tr->part[GAUSS_TR_GEMM] += m[BLK_TR_GEMM] - m[BLK_TR_LOW];
    tr->part[GAUSS_TR_WAIT] += next - m[BLK_TR_GEMM];
    tr->qbusy[q] += m[BLK_TR_GEMM] - m[BLK_TR_START];
    tr->qwait[q] += next - m[BLK_TR_GEMM];
    if (!isnan(m[BLK_TR_AUX0]) && !isnan(m[BLK_TR_AUX1])) tr->aux += m[BLK_TR_AUX1] - m[BLK_TR_AUX0];
    if (k + 1 < nblk) {
      tr->panels += m[BLK_TR_SIDE1] - m[BLK_TR_SIDE0];
      tr->qpanel[q] += m[BLK_TR_SIDE1] - m[BLK_TR_SIDE0];
    }
  }
  free(t);
}

/* Blocked LU.  Collective. */
static int blk_factor(gauss_t *g, int sp, int keep, void **out) {
  hy_ctx *ctx = g->ctx;
  k_backend *be = g->be;
  int64_t n = g->n, nb = g->nb;
  blk_ws w;
  blk_pre *pre = *out;   /* (blk_prepare's copy, or NULL) */
  *out = NULL;
  blk_fact *f = blk_alloc(g, sp, &w, pre);
  int64_t nblk = (n + nb - 1) / nb;
  void *lp = NULL;
  int64_t ldl = 0;
  memset(g->prof, 0, sizeof g->prof);
  g->tr.done = 0;
  if (g->o->trace && g->ko->trace_open) HY_LOCAL(g->ko->trace_open(be, 2 + (int)nblk * BLK_TR, &w.tr));
  double tp = 0;
  prof_mark(g, -1, &tp);
  blk_tr(&w, -1, 0);
  int rc = w.pw->panel(&w, 0, &lp, &ldl);
  prof_mark(g, 0, &tp);
  hy_progress prog;
  hy_progress_begin(&prog, ctx, "blocked LU", (double)n * n * n);
  for (int64_t k = 0; k < nblk && rc == HY_OK; k++) {
    if (k == nblk / 2) hy_debug_point(ctx, "factor");
    rc = blk_step(&w, k, nblk, &lp, &ldl, &tp);
    if (rc != HY_OK) break;
    prof_mark(g, 4, &tp);   /* (the trailing update waited for here only when profiling) */
    hy_progress_update(&prog, hy_lu_work_done(n, (k + 1) * nb));
  }
  if (w.tr) {
    if (rc == HY_OK) {
      blk_tr(&w, -1, 1);
      blk_trace_sum(&w, nblk);
    }
    g->ko->trace_close(be, w.tr);
  }
  g->ntall = w.ntall;
  g->chunks = w.chunks;
  g->npanels = nblk;
  if (rc == HY_OK) rc = w.pw->finish(&w, nblk);
  hy_progress_end(&prog);
  blk_ws_free(&w);
  *out = f;
  if (rc != HY_OK) {
    be->ops->free(be, f->a);
    if (f->dpiv) be->ops->free(be, f->dpiv);
    if (f->dplans) be->ops->free(be, f->dplans);
    free(f->piv);
    free(f);
    *out = NULL;
  }
  return rc;
}

/* One rank: every panel's pivots (0-based from its top) and swap plan on the device, from
 * f->piv (host pivots: uploaded once, the plans made on the device).  Local. */
static void blk_plans_make(gauss_t *g, blk_fact *f) {
  k_backend *be = g->be;
  int64_t n = g->n, nb = g->nb, nblk = (n + nb - 1) / nb;
  int *hp = gauss_xmalloc(sizeof(int) * (size_t)n);
  for (int64_t i = 0; i < n; i++) hp[i] = (int)(f->piv[i] - (i / nb) * nb);
  f->dpiv = gauss_dalloc(g, sizeof(int) * (size_t)n);
  f->dplans = gauss_dalloc(g, sizeof(int) * (size_t)(nblk * K_GAUSS_PLAN_INTS(nb)));
  HY_LOCAL(be->ops->h2d(be, f->dpiv, hp, sizeof(int) * (size_t)n));
  for (int64_t k = 0; k < nblk; k++) {
    int64_t k0 = k * nb, jb = n - k0 < nb ? n - k0 : nb;
    HY_LOCAL(g->ko->swap_plan(be, (int)jb, n - k0, f->dpiv + k0, f->dplans + k * K_GAUSS_PLAN_INTS(nb)));
  }
  HY_LOCAL(be->ops->sync(be));   /* hp is freed */
  free(hp);
}

/* One rank: forward (block J's row swaps by its plan, L_JJ, then the rows below) and back
 * substitution with every step queued on the device, one copy in and one out (the
 * factorization's precision throughout, as LAPACK's getrs).  Local. */
static int blk_solve_one(gauss_t *g, blk_fact *f, const double *rhs, double *x) {
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int sp = f->sp;
  int64_t n = g->n, nb = g->nb, nblk = (n + nb - 1) / nb, ld = f->lda;
  size_t e = sp ? 4 : 8;
  if (!f->dplans) blk_plans_make(g, f);
  if (!f->swv) f->swv = gauss_dalloc_parked(g, (size_t)(f->mloc + 1) * e);
  char *wv = f->swv, *a = f->a;
  unsigned char *h = gauss_xmalloc((size_t)n * e + 8);
  for (int64_t i = 0; i < n; i++) {
    if (sp) ((float *)h)[i] = (float)rhs[i];
    else ((double *)h)[i] = rhs[i];
  }
  HY_LOCAL(be->ops->h2d(be, wv, h, (size_t)n * e));
  for (int64_t J = 0; J < nblk; J++) {
    int64_t j0 = J * nb, jb = n - j0 < nb ? n - j0 : nb;
    HY_LOCAL(ko->swap_apply(be, sp, wv + j0 * e, n - j0, 1, (int)jb, f->dpiv + j0,
                            f->dplans + J * K_GAUSS_PLAN_INTS(nb)));
    HY_LOCAL(ko->trsv(be, sp, 0, jb, a + (size_t)(j0 + j0 * ld) * e, ld, wv + j0 * e));
    HY_LOCAL(ko->gemv_sub(be, sp, n - j0 - jb, jb, a + (size_t)(j0 + jb + j0 * ld) * e, ld, wv + j0 * e,
                          wv + (j0 + jb) * e));
  }
  for (int64_t J = nblk - 1; J >= 0; J--) {
    int64_t j0 = J * nb, jb = n - j0 < nb ? n - j0 : nb;
    HY_LOCAL(ko->trsv(be, sp, 1, jb, a + (size_t)(j0 + j0 * ld) * e, ld, wv + j0 * e));
    HY_LOCAL(ko->gemv_sub(be, sp, j0, jb, a + (size_t)(j0 * ld) * e, ld, wv + j0 * e, wv));
  }
  HY_LOCAL(be->ops->d2h(be, h, wv, (size_t)n * e));
  for (int64_t i = 0; i < n; i++) x[i] = sp ? (double)((float *)h)[i] : ((double *)h)[i];
  free(h);
  return HY_OK;
}

/* Forward (L, unit) then back (U) block substitution on the grid; rhs and x replicated.
 * Collective. */
static int blk_solve_grid(gauss_t *g, void *fact, const double *rhs, double *x) {
  blk_fact *f = fact;
  hy_ctx *ctx = g->ctx;
  k_backend *be = g->be;
  const k_gauss_ops *ko = g->ko;
  int P = g->P, Q = g->Q, sp = f->sp;
  int64_t n = g->n, nb = g->nb, nblk = (n + nb - 1) / nb;
  size_t e = sp ? 4 : 8;
  if (!rhs) rhs = g->b;
  double *y = gauss_xmalloc(sizeof(double) * (size_t)n);
  memcpy(y, rhs, sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n && !f->deferred; i++) {
    int64_t p = f->piv[i];
    if (p != i) { double t = y[i]; y[i] = y[p]; y[p] = t; }
  }
  int *ipl = gauss_xmalloc(sizeof(int) * (size_t)(nb + 1));
  if (!f->swv) f->swv = gauss_dalloc_parked(g, (size_t)(f->mloc + 1) * e);
  if (!f->sxb) f->sxb = gauss_dalloc_parked(g, (size_t)nb * e);
  void *wv = f->swv, *xb = f->sxb;
  double *hw = gauss_xmalloc(sizeof(double) * (size_t)(nb + 1));
  double *red = gauss_xmalloc(sizeof(double) * (size_t)(nb + 1));
  unsigned char *hx = gauss_xmalloc((size_t)nb * 8 + 8);
  double *z = calloc((size_t)n, sizeof(double));
  if (!z) hy_fatal(HY_ESYS, "out of memory");
  for (int pass = 0; pass < 2; pass++) {
    int upper = pass == 1;
    HY_LOCAL(be->ops->memset0(be, wv, (size_t)(f->mloc + 1) * e));
    for (int64_t s = 0; s < nblk; s++) {
      int64_t J = upper ? nblk - 1 - s : s;
      int64_t j0 = J * nb, jb = n - j0 < nb ? n - j0 : nb;
      int pj = (int)(J % P), qj = (int)(J % Q);
      int64_t lrJ = gauss_numroc(j0, nb, f->p, P), lcJ = gauss_numroc(j0, nb, f->q, Q);
      int diag = f->p == pj && f->q == qj;
      if (f->deferred && !upper) {
        /* block J's pivots on the right-hand side and on the partial sums (all rows are local) */
        for (int64_t i = 0; i < jb; i++) {
          int64_t p = f->piv[j0 + i];
          ipl[i] = (int)(p - j0);
          if (p != j0 + i) { double t = y[j0 + i]; y[j0 + i] = y[p]; y[p] = t; }
        }
        HY_LOCAL(ko->laswp(be, sp, (char *)wv + (size_t)j0 * e, f->mloc, 1, (int)jb, ipl));
      }
      if (f->p == pj) {
        /* partial sums of block J's rows, reduced to the diagonal process */
        void *hv = hx;
        HY_LOCAL(be->ops->d2h(be, hv, (char *)wv + (size_t)lrJ * e, (size_t)jb * e));
        HY_LOCAL(be->ops->sync(be));
        for (int64_t i = 0; i < jb; i++) hw[i] = sp ? (double)((float *)hv)[i] : ((double *)hv)[i];
        if (Q > 1) HY_MPI(MPI_Reduce(hw, red, (int)jb, MPI_DOUBLE, MPI_SUM, qj, f->rowc));
        else memcpy(red, hw, sizeof(double) * (size_t)jb);
        if (diag) {
          const double *src = upper ? z : y;
          for (int64_t i = 0; i < jb; i++) {
            double v = src[j0 + i] - red[i];
            if (sp) ((float *)hx)[i] = (float)v;
            else ((double *)hx)[i] = v;
          }
          HY_LOCAL(be->ops->h2d(be, xb, hx, (size_t)jb * e));
          HY_LOCAL(ko->trsv(be, sp, upper, jb, (char *)f->a + (size_t)(lrJ + lcJ * f->lda) * e, f->lda, xb));
        }
      }
      if (f->q == qj) {
        if (P > 1) {
          if (diag) {
            HY_LOCAL(be->ops->d2h(be, hx, xb, (size_t)jb * e));
            HY_LOCAL(be->ops->sync(be));
          }
          HY_MPI(MPI_Bcast(hx, (int)(jb * (int64_t)e), MPI_BYTE, pj, f->colc));
          if (!diag) HY_LOCAL(be->ops->h2d(be, xb, hx, (size_t)jb * e));
        } else {
          HY_LOCAL(be->ops->d2h(be, hx, xb, (size_t)jb * e));
          HY_LOCAL(be->ops->sync(be));
        }
        for (int64_t i = 0; i < jb; i++) z[j0 + i] = sp ? (double)((float *)hx)[i] : ((double *)hx)[i];
        /* rows below (forward) or above (back) the block */
        int64_t r0 = upper ? 0 : gauss_numroc(j0 + jb, nb, f->p, P);
        int64_t r1 = upper ? lrJ : f->mloc;
        if (r1 > r0) HY_LOCAL(ko->gemv_add(be, sp, r1 - r0, jb, (char *)f->a + (size_t)(r0 + lcJ * f->lda) * e, f->lda, xb, (char *)wv + (size_t)r0 * e));
      }
    }
  }
  /* x: each block from its diagonal process, summed with zeros elsewhere (exact) */
  for (int64_t i = 0; i < n; i++) x[i] = 0;
  for (int64_t J = 0; J < nblk; J++) {
    int64_t j0 = J * nb, jb = n - j0 < nb ? n - j0 : nb;
    if (f->p == (int)(J % P) && f->q == (int)(J % Q))
      for (int64_t i = 0; i < jb; i++) x[j0 + i] = z[j0 + i];
  }
  if (ctx->size > 1) HY_MPI(MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  free(hw); free(red); free(hx); free(z); free(y); free(ipl);
  return HY_OK;
}

/* The solve: one rank on the device alone (blk_solve_one, when the backend has its entries),
 * else the grid's.  Collective. */
static int blk_solve(gauss_t *g, void *fact, const double *rhs, double *x) {
  if (g->ctx->size == 1 && g->ko->swap_plan && g->ko->swap_apply && g->ko->gemv_sub)
    return blk_solve_one(g, fact, rhs ? rhs : g->b, x);
  return blk_solve_grid(g, fact, rhs, x);
}

/* Free the factors.  Local. */
static void blk_release(gauss_t *g, void *fact) {
  blk_fact *f = fact;
  if (!f) return;
  if (f->dpiv) g->be->ops->free(g->be, f->dpiv);
  if (f->dplans) g->be->ops->free(g->be, f->dplans);
  size_t e = f->sp ? 4 : 8;
  gauss_dpark(g, f->a, blk_abytes(f));
  gauss_dpark(g, f->swv, (size_t)(f->mloc + 1) * e);
  gauss_dpark(g, f->sxb, (size_t)g->nb * e);
  free(f->piv);
  free(f);
}

const gauss_alg gauss_blocked_alg = { "blocked", blk_factor, blk_solve, blk_release, blk_prepare };
