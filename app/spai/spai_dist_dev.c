/* spai_dist_dev.c - the P-rank device setup's row movements (spai.dist_exchange = device): rows
 * blocks that stay in the backend's memory (k_spai_piece in kernels/k_spai.h), the MPI between
 * them through host buffers of only what crosses ranks:
 *   spai_dev_exchange  each slice of a block's rows to the rank that owns it, a row's pieces
 *                      concatenated in rank order on the backend (spai_rows_exchange's rows,
 *                      the rank's own slice never leaving the device)
 *   spai_dev_fetch     rows of the other ranks' blocks, by global index (la_fetch_rows' answer,
 *                      the owners gathering the rows from their blocks)
 * Used for B = A^T's rows (the pattern: A's local transpose on the device, exchanged, the rows
 * the local ones name fetched once) and for M's rows (the columns' transpose exchanged, M kept on
 * the device for the solve with the halo plan of its ghost columns). */
#include "spai/spai.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* MPI counts and displacements from int64 counts (error past 2^31).  Local. */
static int counts_int(int size, const int64_t *c, int *cnt, int *dsp, int64_t *total) {
  int64_t s = 0;
  for (int q = 0; q < size; q++) {
    if (c[q] > INT_MAX || s + c[q] > INT_MAX)
      return hy_err(HY_ESYS, "spai: a rank exchanges more than 2^31 rows or entries in one step "
                    "of the device setup (use more ranks)");
    cnt[q] = (int)c[q];
    dsp[q] = (int)s;
    s += c[q];
  }
  *total = s;
  return HY_OK;
}

/* The sorted distinct values of v[0..n) (v reordered); their count.  Local. */
static int64_t sort_unique(int64_t *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  int64_t u = 0;
  for (int64_t i = 0; i < n; i++)
    if (u == 0 || v[i] != v[u - 1]) v[u++] = v[i];
  return u;
}

/* The received slices' rows: their lengths (int64) and entries, per sender. */
typedef struct {
  int64_t hdr[3];              /* this rank's slice for one destination: first row, rows, entries */
  int64_t *hs, *hr;            /* 3 per rank: sent / received headers */
  int *c, *d;                  /* 8 per rank: counts and displacements (rows s/r, entries s/r) */
  int64_t *slen, *rlen;        /* row lengths sent / received */
  int32_t *scol, *rcol;
  double *sval, *rval;
  int64_t *soff;               /* rows_gather's offsets of the sent rows */
  int64_t nrl, nre;            /* rows / entries received */
} xch_st;

/* Free the exchange's buffers.  Local. */
static void xch_free(xch_st *x) {
  free(x->hs); free(x->hr); free(x->c); free(x->slen); free(x->rlen); free(x->scol);
  free(x->rcol); free(x->sval); free(x->rval); free(x->soff);
  memset(x, 0, sizeof *x);
}

/* The slices of t (rows g0 .. g1 - 1) for the other ranks gathered to the host, and the
 * exchange of headers, lengths, columns and values.  Collective. */
static int xch_send(hy_ctx *ctx, const k_spai_ops *ko, const la_part *pr, void *t, int64_t g0,
                    int64_t g1, xch_st *x) {
  const int size = pr->size, rank = ctx->rank;
  HY_MALLOC(x->hs, 3 * size);
  HY_MALLOC(x->hr, 3 * size);
  HY_MALLOC(x->c, 8 * size);
  int *crs = x->c, *drs = crs + size, *cre = drs + size, *dre = cre + size, *crr = dre + size,
      *drr = crr + size, *cer = drr + size, *der = cer + size;
  int64_t nsr = 0, *list = NULL;
  for (int q = 0; q < size; q++) {
    int64_t lo = pr->start[q] > g0 ? pr->start[q] : g0;
    int64_t hi = pr->start[q + 1] < g1 ? pr->start[q + 1] : g1;
    if (hi < lo) hi = lo;
    x->hs[3 * q] = lo;
    x->hs[3 * q + 1] = hi - lo;
    if (q != rank) nsr += hi - lo;
  }
  HY_MALLOC(list, nsr + 1);
  nsr = 0;
  for (int q = 0; q < size; q++)
    for (int64_t i = 0; q != rank && i < x->hs[3 * q + 1]; i++) list[nsr++] = x->hs[3 * q] - g0 + i;
  HY_LOCAL(ko->rows_gather(&ctx->be, t, nsr, list, &x->soff, &x->scol, &x->sval));
  free(list);
  HY_MALLOC(x->slen, nsr + 1);
  for (int64_t i = 0; i < nsr; i++) x->slen[i] = x->soff[i + 1] - x->soff[i];
  int64_t at = 0, *rc = NULL, *ec = NULL, tot;
  HY_MALLOC(rc, size);
  HY_MALLOC(ec, size);
  for (int q = 0; q < size; q++) {
    int64_t nr = q == rank ? 0 : x->hs[3 * q + 1];
    x->hs[3 * q + 2] = x->soff[at + nr] - x->soff[at];
    rc[q] = nr;
    ec[q] = q == rank ? 0 : x->hs[3 * q + 2];
    at += nr;
  }
  HY_CALL(counts_int(size, rc, crs, drs, &tot));
  HY_CALL(counts_int(size, ec, cre, dre, &tot));
  HY_MPI(MPI_Alltoall(x->hs, 3, MPI_INT64_T, x->hr, 3, MPI_INT64_T, ctx->comm));
  for (int q = 0; q < size; q++) {
    rc[q] = q == rank ? 0 : x->hr[3 * q + 1];
    ec[q] = q == rank ? 0 : x->hr[3 * q + 2];
  }
  HY_CALL(counts_int(size, rc, crr, drr, &x->nrl));
  HY_CALL(counts_int(size, ec, cer, der, &x->nre));
  free(rc);
  free(ec);
  HY_MALLOC(x->rlen, x->nrl + 1);
  HY_MALLOC(x->rcol, x->nre + 1);
  HY_MALLOC(x->rval, x->nre + 1);
  HY_MPI(MPI_Alltoallv(x->slen, crs, drs, MPI_INT64_T, x->rlen, crr, drr, MPI_INT64_T, ctx->comm));
  HY_MPI(MPI_Alltoallv(x->scol, cre, dre, MPI_INT32_T, x->rcol, cer, der, MPI_INT32_T, ctx->comm));
  HY_MPI(MPI_Alltoallv(x->sval, cre, dre, MPI_DOUBLE, x->rval, cer, der, MPI_DOUBLE, ctx->comm));
  return HY_OK;
}

/* *out = this rank's rows under pr from every rank's block t of rows g0 .. g1 - 1 (global
 * columns increasing in each row, a rank's columns all below the next rank's): the slices for
 * other ranks gathered from t to the host and sent, the received pieces and t's own slice
 * merged by the backend in rank order (spai_rows_exchange's rows bit for bit; t is left as it
 * is).  *ghost (malloc'd, sorted, distinct; *ng of them): the columns of the received pieces
 * (the global indices outside this rank's rows that its rows name: the own slice's are its own
 * when each rank's block holds only columns of its rows).  Collective. */
int spai_dev_exchange(hy_ctx *ctx, const k_spai_ops *ko, const la_part *pr, void *t, int64_t g0,
                      int64_t g1, void **out, int64_t **ghost, int64_t *ng) {
  const int size = pr->size, rank = ctx->rank;
  const int64_t r0 = pr->start[rank], mloc = pr->start[rank + 1] - r0;
  xch_st x;
  memset(&x, 0, sizeof x);
  HY_CALL(xch_send(ctx, ko, pr, t, g0, g1, &x));
  const int *drr = x.c + 5 * size, *der = x.c + 7 * size;
  k_spai_piece *pc = NULL;
  int64_t *poff = NULL;
  HY_MALLOC(pc, size);
  HY_MALLOC(poff, x.nrl + size + 1);
  int np = 0;
  int64_t po = 0;
  for (int q = 0; q < size; q++) {
    int64_t rows = q == rank ? x.hs[3 * q + 1] : x.hr[3 * q + 1];
    if (rows == 0) continue;
    k_spai_piece *p = &pc[np++];
    memset(p, 0, sizeof *p);
    p->rows = rows;
    if (q == rank) {
      p->row0 = x.hs[3 * q] - r0;
      p->t = t;
      p->t_row0 = x.hs[3 * q] - g0;
      continue;
    }
    p->row0 = x.hr[3 * q] - r0;
    p->off = poff + po;
    p->col = x.rcol + der[q];
    p->val = x.rval + der[q];
    poff[po] = 0;
    for (int64_t i = 0; i < rows; i++) poff[po + i + 1] = poff[po + i] + x.rlen[drr[q] + i];
    po += rows + 1;
  }
  HY_LOCAL(ko->rows_merge(&ctx->be, mloc, np, pc, out));
  int64_t *gh = NULL;
  HY_MALLOC(gh, x.nre + 1);
  for (int64_t e = 0; e < x.nre; e++) gh[e] = x.rcol[e];
  *ng = sort_unique(gh, x.nre);
  *ghost = gh;
  free(pc);
  free(poff);
  xch_free(&x);
  return HY_OK;
}

/* gx = the rows rows[0..nr) (global indices of other ranks' rows, sorted ascending) of the
 * distributed rows blocks b (each rank's block: its rows under pr), in request order, in host
 * memory: the requests to the owners, who gather them from their blocks (rows_gather).
 * Collective. */
int spai_dev_fetch(hy_ctx *ctx, const k_spai_ops *ko, const la_part *pr, void *b, int64_t nr,
                   const int64_t *rows, hy_csr *gx) {
  const int size = pr->size, rank = ctx->rank;
  const int64_t r0 = pr->start[rank];
  int64_t *sc = NULL, *rcn = NULL, nin = 0, tot = 0;
  int *c = NULL;
  HY_CALLOC(sc, 2 * size);
  rcn = sc + size;
  HY_MALLOC(c, 8 * size);
  int *cs = c, *ds = c + size, *cr = c + 2 * size, *dr = c + 3 * size, *ces = c + 4 * size,
      *des = c + 5 * size, *cer = c + 6 * size, *der = c + 7 * size;
  for (int64_t i = 0; i < nr; i++) sc[la_part_owner(pr, rows[i])]++;
  HY_MPI(MPI_Alltoall(sc, 1, MPI_INT64_T, rcn, 1, MPI_INT64_T, ctx->comm));
  HY_CALL(counts_int(size, sc, cs, ds, &tot));
  HY_CALL(counts_int(size, rcn, cr, dr, &nin));
  int64_t *in = NULL, *off = NULL, *lo = NULL, *li = NULL;
  int32_t *col = NULL;
  double *val = NULL;
  HY_MALLOC(in, nin + 1);
  HY_MPI(MPI_Alltoallv(rows, cs, ds, MPI_INT64_T, in, cr, dr, MPI_INT64_T, ctx->comm));
  for (int64_t i = 0; i < nin; i++) in[i] -= r0;   /* rows of this rank's block */
  HY_LOCAL(ko->rows_gather(&ctx->be, b, nin, in, &off, &col, &val));
  HY_MALLOC(lo, nin + 1);
  HY_MALLOC(li, nr + 1);
  for (int64_t i = 0; i < nin; i++) lo[i] = off[i + 1] - off[i];
  HY_MPI(MPI_Alltoallv(lo, cr, dr, MPI_INT64_T, li, cs, ds, MPI_INT64_T, ctx->comm));
  for (int q = 0; q < size; q++) {   /* entries: per rank, the sums of its rows' lengths */
    sc[q] = 0;
    rcn[q] = off[dr[q] + cr[q]] - off[dr[q]];
    for (int i = ds[q]; i < ds[q] + cs[q]; i++) sc[q] += li[i];
  }
  HY_CALL(counts_int(size, rcn, ces, des, &tot));
  HY_CALL(counts_int(size, sc, cer, der, &tot));
  la_csr_alloc(gx, nr, pr->n, tot);
  gx->rowptr[0] = 0;
  for (int64_t i = 0; i < nr; i++) gx->rowptr[i + 1] = gx->rowptr[i] + li[i];
  HY_MPI(MPI_Alltoallv(col, ces, des, MPI_INT32_T, gx->colind, cer, der, MPI_INT32_T, ctx->comm));
  HY_MPI(MPI_Alltoallv(val, ces, des, MPI_DOUBLE, gx->val, cer, der, MPI_DOUBLE, ctx->comm));
  free(sc); free(c); free(in); free(off); free(lo); free(li); free(col); free(val);
  return HY_OK;
}
