/* lle_eig_rows.c - the subspace iteration's block work by rows (lle.iter_block = rows; chol-nd):
 * the block V (n x p, B's order) split by rows over the ranks that share chol-nd's solves
 * (lle.eig_ranks), each rank its rows' part of every step, so that rank 0 no longer does the
 * projection, the QR, M V, H = V^T M V, V Y, M V Y and the residuals alone:
 *
 *   rows        fixed blocks of LLE_ROWS_RB rows; rank r owns blocks [nb r / P, nb (r + 1) / P)
 *   reductions  (the column sums, the Gram matrices, H, the residuals) one partial a block,
 *               each summed over its rows in order by one thread, all partials to every rank
 *               (MPI_Allgatherv) and added in block order there: the same bits on every rank,
 *               at any rank count and any thread count
 *   QR          shifted Cholesky QR, then two plain ones (CholeskyQR3, Fukaya et al. 2020:
 *               orthonormal to rounding for cond(V) up to ~1/eps), the p x p Cholesky on every
 *               rank (the same bits), V R^-1 by rows
 *   M V         B^T (B V): V all-gathered, T = B V by the rank's rows of B, T all-gathered,
 *               M V by its rows of B^T (made here: the rows' entries in B's row order)
 *   H           its p x p eigen-decomposition on rank 0 (LAPACK), broadcast
 *
 * Every step is collective over the ranks (rank 0 first tells the others the step through
 * the caller's call: chol-nd's serve loop); a numerical failure (a non-positive pivot of the
 * Gram matrix, a NaN) is seen on every rank at once (their reduced values are the same).
 * Own loops throughout (no BLAS): at one rank this is the same arithmetic, so one rank and P
 * ranks give the same embedding bit for bit. */
#include "lle_eig.h"
#include "lle_eig_rows.h"
#include "hybrid.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lle_rows {
  MPI_Comm comm;
  int rank, size;
  int64_t n, lo, hi, m;        /* the rows, this rank's [lo, hi), m = hi - lo */
  int p, nt;                   /* the block's columns, threads a rank */
  k_lle_pool *pool;
  const lle_bmat *b;
  int64_t *btp, *bti;          /* this rank's rows of B^T (CSR: row i - lo, columns = B's rows) */
  double *btx;
  int64_t nb, b0, b1;          /* blocks in all, this rank's [b0, b1) */
  int *cnt, *dsp;              /* size: rows (Gatherv / Scatterv / Allgatherv) */
  int *pcnt, *pdsp;            /* size: the partials' doubles a rank (a block's m_part each) */
  int *bcnt, *bdsp;            /* size: a block of nc columns a rank (its rows x nc, packed) */
  double *pk;                  /* n x p: blocks packed rank after rank (one message a step) */
  double *v, *mv, *tmp;        /* m x p, leading dimension m: this rank's rows */
  double *vf, *tf;             /* n x p: V and T = B V all-gathered */
  double *part, *all;          /* the rank's partials, every block's */
  double *h, *theta;           /* p x p Ritz vectors, p values (the last rr's, on every rank) */
  lle_rows_call call;          /* rank 0: tells the others the next step (NULL: none) */
  void *call_arg;
  double t_eig, bytes;         /* rank 0: the p x p eigen-decomposition's seconds; the bytes moved */
};

/* Tell the other ranks the step (rank 0, where there are some).  Local. */
static int rows_tell(lle_rows *r, int step, int ncols) {
  if (r->rank != 0 || !r->call) return HY_OK;
  return r->call(r->call_arg, step + LLE_ROWS_STEPS * ncols);
}

/* A step's job on a range of this rank's blocks. */
typedef struct {
  lle_rows *r;
  int nc, op;
  const double *x;   /* input n x nc (full) or m x nc (rows) */
  double *y;
  const double *c;   /* p x p (rotate, trsm) or values */
} rows_job;

enum { RJ_COLSUM, RJ_GRAM, RJ_TRSM, RJ_SUBMEAN, RJ_BV, RJ_BTT, RJ_H, RJ_ROT_V, RJ_ROT_MV, RJ_RES };

/* The rows [i0, i1) (local) of block q.  Local. */
static void rows_block(const lle_rows *r, int64_t q, int64_t *i0, int64_t *i1) {
  int64_t a = q * LLE_ROWS_RB, z = a + LLE_ROWS_RB < r->n ? a + LLE_ROWS_RB : r->n;
  *i0 = a - r->lo;
  *i1 = z - r->lo;
}

/* Blocks [q0, q1) of this rank (relative to b0) of job j.  Local. */
static void rows_part(void *arg, int q0, int q1) {
  rows_job *j = arg;
  lle_rows *r = j->r;
  int64_t m = r->m;
  int p = r->p, nc = j->nc;
  for (int q = q0; q < q1; q++) {
    int64_t i0, i1;
    rows_block(r, r->b0 + q, &i0, &i1);
    switch (j->op) {
    case RJ_COLSUM: {   /* the block's column sums of v */
      double *s = r->part + (size_t)q * nc;
      for (int c = 0; c < nc; c++) {
        double a = 0;
        const double *vc = r->v + (size_t)c * m;
        for (int64_t i = i0; i < i1; i++) a += vc[i];
        s[c] = a;
      }
      break;
    }
    case RJ_SUBMEAN:   /* v -= the column means c */
      for (int c = 0; c < nc; c++) {
        double *vc = r->v + (size_t)c * m, mu = j->c[c];
        for (int64_t i = i0; i < i1; i++) vc[i] -= mu;
      }
      break;
    case RJ_GRAM: {   /* the block's upper triangle of x^T x, column by column */
      double *g = r->part + (size_t)q * nc * (nc + 1) / 2;
      int at = 0;
      for (int b = 0; b < nc; b++)
        for (int a = 0; a <= b; a++) {
          const double *xa = j->x + (size_t)a * m, *xb = j->x + (size_t)b * m;
          double s = 0;
          for (int64_t i = i0; i < i1; i++) s += xa[i] * xb[i];
          g[at++] = s;
        }
      break;
    }
    case RJ_TRSM:   /* each row x <- x R^-1 (R upper, p x p, column-major in c) */
      for (int64_t i = i0; i < i1; i++)
        for (int c = 0; c < nc; c++) {
          double s = r->v[(size_t)c * m + i];
          for (int k = 0; k < c; k++) s -= r->v[(size_t)k * m + i] * j->c[(size_t)c * nc + k];
          r->v[(size_t)c * m + i] = s / j->c[(size_t)c * nc + c];
        }
      break;
    case RJ_BV:    /* y (m x nc) = B's rows x (full, row-interleaved: row j's nc values at j nc) */
    case RJ_BTT: {   /* y (m x nc) = B^T's rows x (the same layout) */
      const int64_t *ap = j->op == RJ_BV ? r->b->p + r->lo : r->btp, *ai = j->op == RJ_BV ? r->b->i : r->bti;
      const double *ax = j->op == RJ_BV ? r->b->x : r->btx;
      double acc[LLE_ROWS_PMAX];
      for (int64_t i = i0; i < i1; i++) {   /* each column's sum over the row's entries in order */
        for (int c = 0; c < nc; c++) acc[c] = 0;
        for (int64_t a = ap[i]; a < ap[i + 1]; a++) {
          const double w = ax[a], *xr = j->x + (size_t)ai[a] * nc;
          for (int c = 0; c < nc; c++) acc[c] += w * xr[c];
        }
        for (int c = 0; c < nc; c++) j->y[(size_t)c * m + i] = acc[c];
      }
      break;
    }
    case RJ_H: {   /* the block's p x p v^T mv (all entries: H is symmetrised after) */
      double *hb = r->part + (size_t)q * p * p;
      for (int b = 0; b < p; b++)
        for (int a = 0; a < p; a++) {
          const double *va = r->v + (size_t)a * m, *mb = r->mv + (size_t)b * m;
          double s = 0;
          for (int64_t i = i0; i < i1; i++) s += va[i] * mb[i];
          hb[(size_t)b * p + a] = s;
        }
      break;
    }
    case RJ_ROT_V:   /* tmp = x h (x: v or mv, m x p) */
    case RJ_ROT_MV:
      for (int c = 0; c < p; c++) {
        double *yc = r->tmp + (size_t)c * m;
        for (int64_t i = i0; i < i1; i++) {
          double s = 0;
          for (int k = 0; k < p; k++) s += j->x[(size_t)k * m + i] * j->c[(size_t)c * p + k];
          yc[i] = s;
        }
      }
      break;
    case RJ_RES: {   /* the block's sum (y - lambda x)^2 a column (x, y: m x nc; c: lambda) */
      double *s = r->part + (size_t)q * nc;
      for (int c = 0; c < nc; c++) {
        const double *xc = j->x + (size_t)c * m, *yc = j->y + (size_t)c * m;
        double a = 0;
        for (int64_t i = i0; i < i1; i++) { double d = yc[i] - j->c[c] * xc[i]; a += d * d; }
        s[c] = a;
      }
      break;
    }
    }
  }
}

/* Job j over this rank's blocks on its threads.  Local. */
static void rows_run(lle_rows *r, rows_job *j) {
  int nq = (int)(r->b1 - r->b0);
  if (nq > 0) lle_parallel_on(r->pool, r->nt, nq, rows_part, j);
}

/* Every block's k partials (r->part, this rank's) to every rank and their sum in block order
 * into out (k).  Collective. */
static int rows_reduce(lle_rows *r, int k, double *out) {
  for (int q = 0; q < r->size; q++) {
    int64_t q0 = r->nb * q / r->size, q1 = r->nb * (q + 1) / r->size;
    r->pcnt[q] = (int)((q1 - q0) * k);
    r->pdsp[q] = (int)(q0 * k);
  }
  HY_MPI(MPI_Allgatherv(r->part, r->pcnt[r->rank], MPI_DOUBLE, r->all, r->pcnt, r->pdsp, MPI_DOUBLE, r->comm));
  r->bytes += 8.0 * (double)r->nb * k * (r->size - 1);
  for (int c = 0; c < k; c++) {
    double s = 0;
    for (int64_t q = 0; q < r->nb; q++) s += r->all[(size_t)q * k + c];
    out[c] = s;
  }
  return HY_OK;
}

/* The ranks' counts and offsets of nc-column blocks packed rank after rank (rank q's m_q x nc
 * block, leading dimension m_q, at lo_q nc).  Local. */
static void rows_counts(lle_rows *r, int nc) {
  for (int q = 0; q < r->size; q++) {
    r->bcnt[q] = r->cnt[q] * nc;
    r->bdsp[q] = r->dsp[q] * nc;
  }
}

/* The packed blocks (r->pk) to / from the n x nc column-major y (back = 1: y from pk).  Local. */
static void rows_unpack(lle_rows *r, int nc, double *y, int back) {
  for (int q = 0; q < r->size; q++)
    for (int c = 0; c < nc; c++) {
      double *pq = r->pk + (size_t)r->dsp[q] * nc + (size_t)c * r->cnt[q], *yc = y + (size_t)c * r->n + r->dsp[q];
      if (back) memcpy(yc, pq, (size_t)r->cnt[q] * sizeof *yc);
      else memcpy(pq, yc, (size_t)r->cnt[q] * sizeof *yc);
    }
}

/* x (m x nc, this rank's rows) to every rank as the full n x nc y, row-interleaved (row j's nc
 * values at j nc: one cache line an entry of B for the products), in one message.  Collective. */
static int rows_allgather(lle_rows *r, int nc, const double *x, double *y) {
  rows_counts(r, nc);
  HY_MPI(MPI_Allgatherv(x, (int)(r->m * nc), MPI_DOUBLE, r->pk, r->bcnt, r->bdsp, MPI_DOUBLE, r->comm));
  for (int q = 0; q < r->size; q++) {
    const double *pq = r->pk + (size_t)r->dsp[q] * nc;
    double *yq = y + (size_t)r->dsp[q] * nc;
    for (int64_t i = 0; i < r->cnt[q]; i++)
      for (int c = 0; c < nc; c++) yq[(size_t)i * nc + c] = pq[(size_t)c * r->cnt[q] + i];
  }
  r->bytes += 8.0 * (double)(r->n - r->m) * nc;
  return HY_OK;
}

int lle_rows_open(MPI_Comm comm, const lle_bmat *b, int p, int nt, k_lle_pool *pool, lle_rows_call call, void *arg,
                  lle_rows **rp) {
  lle_rows *r = NULL;
  HY_CALLOC(r, 1);
  *rp = r;
  r->comm = comm;
  MPI_Comm_rank(comm, &r->rank);
  MPI_Comm_size(comm, &r->size);
  r->call = call;
  r->call_arg = arg;
  if ((double)b->n * p > INT_MAX)   /* (before the others are told: rank 0's error alone, the serve ends as usual) */
    return hy_err(HY_EUSAGE, "lle.iter_block = rows: the block's n x p = %lld x %d values exceed one MPI count "
                  "(2^31 - 1; lle.iter_block = driver)", (long long)b->n, p);
  HY_CALL(rows_tell(r, LLE_ROWS_OPEN, p));
  int64_t n = b->n;
  r->n = n;
  r->p = p;
  r->nt = nt > 0 ? nt : 1;
  r->pool = pool;
  r->b = b;
  r->nb = (n + LLE_ROWS_RB - 1) / LLE_ROWS_RB;
  r->b0 = r->nb * r->rank / r->size;
  r->b1 = r->nb * (r->rank + 1) / r->size;
  r->lo = r->b0 * LLE_ROWS_RB < n ? r->b0 * LLE_ROWS_RB : n;
  r->hi = r->b1 * LLE_ROWS_RB < n ? r->b1 * LLE_ROWS_RB : n;
  r->m = r->hi - r->lo;
  HY_MALLOC(r->cnt, r->size); HY_MALLOC(r->dsp, r->size); HY_MALLOC(r->pcnt, r->size); HY_MALLOC(r->pdsp, r->size);
  HY_MALLOC(r->bcnt, r->size); HY_MALLOC(r->bdsp, r->size);
  for (int q = 0; q < r->size; q++) {
    int64_t q0 = r->nb * q / r->size, q1 = r->nb * (q + 1) / r->size;
    int64_t lo = q0 * LLE_ROWS_RB < n ? q0 * LLE_ROWS_RB : n, hi = q1 * LLE_ROWS_RB < n ? q1 * LLE_ROWS_RB : n;
    r->cnt[q] = (int)(hi - lo);
    r->dsp[q] = (int)lo;
  }
  size_t mp = (size_t)r->m * p + 1, np = (size_t)n * p, kmax = (size_t)p * p;
  HY_MALLOC(r->v, mp); HY_MALLOC(r->mv, mp); HY_MALLOC(r->tmp, mp);
  HY_MALLOC(r->vf, np); HY_MALLOC(r->tf, np); HY_MALLOC(r->pk, np);
  HY_MALLOC(r->part, (size_t)(r->b1 - r->b0) * kmax + 1); HY_MALLOC(r->all, (size_t)r->nb * kmax);
  HY_MALLOC(r->h, kmax + p);
  r->theta = r->h + kmax;
  /* this rank's rows of B^T: B's entries in its columns [lo, hi), in B's row order */
  HY_CALLOC(r->btp, r->m + 1);
  int64_t nnz = b->p[n];
  for (int64_t a = 0; a < nnz; a++)
    if (b->i[a] >= r->lo && b->i[a] < r->hi) r->btp[b->i[a] - r->lo + 1]++;
  for (int64_t i = 0; i < r->m; i++) r->btp[i + 1] += r->btp[i];
  HY_MALLOC(r->bti, r->btp[r->m] + 1); HY_MALLOC(r->btx, r->btp[r->m] + 1);
  int64_t *at = NULL;
  HY_MALLOC(at, r->m + 1);
  memcpy(at, r->btp, (size_t)r->m * sizeof *at);
  for (int64_t j = 0; j < n; j++)
    for (int64_t a = b->p[j]; a < b->p[j + 1]; a++) {
      int64_t c = b->i[a];
      if (c < r->lo || c >= r->hi) continue;
      int64_t t = at[c - r->lo]++;
      r->bti[t] = j;
      r->btx[t] = b->x[a];
    }
  free(at);
  return HY_OK;
}

/* Rank 0's n x nc x to the ranks' rows in r->v (one message).  Collective. */
static int rows_scatter_into(lle_rows *r, const double *x, int nc) {
  rows_counts(r, nc);
  if (r->rank == 0) rows_unpack(r, nc, (double *)x, 0);
  HY_MPI(MPI_Scatterv(r->pk, r->bcnt, r->bdsp, MPI_DOUBLE, r->v, (int)(r->m * nc), MPI_DOUBLE, 0, r->comm));
  if (r->size > 1) r->bytes += 8.0 * (double)(r->n - r->cnt[0]) * nc;
  return HY_OK;
}

int lle_rows_scatter(lle_rows *r, const double *x, int nc) {
  HY_CALL(rows_tell(r, LLE_ROWS_SCATTER, nc));
  return rows_scatter_into(r, x, nc);
}

int lle_rows_gather(lle_rows *r, double *x, int nc) {
  HY_CALL(rows_tell(r, LLE_ROWS_GATHER, nc));
  rows_counts(r, nc);
  HY_MPI(MPI_Gatherv(r->v, (int)(r->m * nc), MPI_DOUBLE, r->pk, r->bcnt, r->bdsp, MPI_DOUBLE, 0, r->comm));
  if (r->rank == 0) rows_unpack(r, nc, x, 1);
  if (r->size > 1) r->bytes += 8.0 * (double)(r->n - r->cnt[0]) * nc;
  return HY_OK;
}

/* The p x p Cholesky factor R (upper, column-major) of the packed upper triangle g plus shift
 * on the diagonal: HY_OK, or HY_ENUMERIC for a non-positive or non-finite pivot.  Local. */
static int rows_chol(int p, const double *g, double shift, double *rr) {
  memset(rr, 0, (size_t)p * p * sizeof *rr);
  for (int b = 0, at = 0; b < p; b++)
    for (int a = 0; a <= b; a++) rr[(size_t)b * p + a] = g[at++] + (a == b ? shift : 0);
  for (int c = 0; c < p; c++) {
    for (int k = 0; k < c; k++) {   /* R(k, c) = (G(k, c) - sum_{i<k} R(i, k) R(i, c)) / R(k, k) */
      double s = rr[(size_t)c * p + k];
      for (int i = 0; i < k; i++) s -= rr[(size_t)k * p + i] * rr[(size_t)c * p + i];
      rr[(size_t)c * p + k] = s / rr[(size_t)k * p + k];
    }
    double d = rr[(size_t)c * p + c];
    for (int i = 0; i < c; i++) d -= rr[(size_t)c * p + i] * rr[(size_t)c * p + i];
    if (!(d > 0) || !isfinite(d)) return HY_ENUMERIC;
    rr[(size_t)c * p + c] = sqrt(d);
  }
  return HY_OK;
}

int lle_rows_orth(lle_rows *r) {
  HY_CALL(rows_tell(r, LLE_ROWS_ORTH, r->p));
  int p = r->p;
  double mu[LLE_ROWS_PMAX], g[LLE_ROWS_PMAX * (LLE_ROWS_PMAX + 1) / 2], rr[LLE_ROWS_PMAX * LLE_ROWS_PMAX];
  /* away from e: the column means */
  rows_job j = { .r = r, .nc = p, .op = RJ_COLSUM };
  rows_run(r, &j);
  HY_CALL(rows_reduce(r, p, mu));
  for (int c = 0; c < p; c++) mu[c] /= (double)r->n;
  j = (rows_job){ .r = r, .nc = p, .op = RJ_SUBMEAN, .c = mu };
  rows_run(r, &j);
  /* CholeskyQR3: the first with the shift 11 (n p + p (p + 1)) u ||V||_F^2 */
  int k = p * (p + 1) / 2, rc = HY_OK;
  for (int pass = 0; pass < 3 && rc == HY_OK; pass++) {
    j = (rows_job){ .r = r, .nc = p, .op = RJ_GRAM, .x = r->v };
    rows_run(r, &j);
    HY_CALL(rows_reduce(r, k, g));
    double shift = 0;
    if (pass == 0) {
      double fro = 0;
      for (int b = 0, at = 0; b < p; b++, at++) { at += b; fro += g[at]; }
      shift = 11.0 * ((double)r->n * p + (double)p * (p + 1)) * ldexp(1.0, -53) * fro;
    }
    rc = rows_chol(p, g, shift, rr);
    if (rc != HY_OK) break;
    j = (rows_job){ .r = r, .nc = p, .op = RJ_TRSM, .c = rr };
    rows_run(r, &j);
  }
  if (rc != HY_OK) return hy_err(HY_ENUMERIC, "Cholesky QR of the subspace block (by rows): a non-positive pivot of its "
                                 "%d x %d Gram matrix", p, p);
  return HY_OK;
}

/* y (m x nc) = B^T B x for x (m x nc, this rank's rows).  Collective. */
static int rows_btb(lle_rows *r, int nc, const double *x, double *y) {
  HY_CALL(rows_allgather(r, nc, x, r->vf));
  rows_job j = { .r = r, .nc = nc, .op = RJ_BV, .x = r->vf, .y = r->tmp };
  rows_run(r, &j);
  HY_CALL(rows_allgather(r, nc, r->tmp, r->tf));
  j = (rows_job){ .r = r, .nc = nc, .op = RJ_BTT, .x = r->tf, .y = y };
  rows_run(r, &j);
  return HY_OK;
}

int lle_rows_rr(lle_rows *r, double **h, double **theta) {
  HY_CALL(rows_tell(r, LLE_ROWS_RR, r->p));
  int p = r->p;
  HY_CALL(rows_btb(r, p, r->v, r->mv));
  rows_job j = { .r = r, .nc = p, .op = RJ_H };
  rows_run(r, &j);
  HY_CALL(rows_reduce(r, p * p, r->h));
  int rc = HY_OK;
  if (r->rank == 0) {   /* symmetrised as the driver's, its eigen-decomposition here alone (LAPACK) */
    double t0 = MPI_Wtime();
    for (int a = 0; a < p; a++)
      for (int b = 0; b < a; b++) {
        double s = 0.5 * (r->h[(size_t)b * p + a] + r->h[(size_t)a * p + b]);
        r->h[(size_t)b * p + a] = r->h[(size_t)a * p + b] = s;
      }
    rc = lle_small_eig(p, r->h, r->theta);
    if (rc != HY_OK) { hy_err_clear(); for (int c = 0; c < p; c++) r->theta[c] = NAN; }
    r->t_eig += MPI_Wtime() - t0;
  }
  HY_MPI(MPI_Bcast(r->h, p * p + p, MPI_DOUBLE, 0, r->comm));   /* h and theta (one array) */
  for (int c = 0; c < p; c++)
    if (!isfinite(r->theta[c])) return hy_err(HY_ENUMERIC, "dsyev of the %d x %d Rayleigh quotient failed (by rows)", p, p);
  if (h) *h = r->h;
  if (theta) *theta = r->theta;
  return HY_OK;
}

int lle_rows_rotate(lle_rows *r, int nres, double *res) {
  HY_CALL(rows_tell(r, LLE_ROWS_ROTATE, nres));
  int p = r->p;
  double *sw;
  rows_job j = { .r = r, .nc = p, .op = RJ_ROT_V, .x = r->v, .c = r->h };
  rows_run(r, &j);
  sw = r->v; r->v = r->tmp; r->tmp = sw;
  j = (rows_job){ .r = r, .nc = p, .op = RJ_ROT_MV, .x = r->mv, .c = r->h };
  rows_run(r, &j);
  sw = r->mv; r->mv = r->tmp; r->tmp = sw;
  double s[LLE_ROWS_PMAX];
  j = (rows_job){ .r = r, .nc = nres, .op = RJ_RES, .x = r->v, .y = r->mv, .c = r->theta };
  rows_run(r, &j);
  HY_CALL(rows_reduce(r, nres, s));
  for (int c = 0; c < nres; c++) if (res) res[c] = sqrt(s[c]);
  return HY_OK;
}

int lle_rows_residuals(lle_rows *r, const double *x, int nc, const double *val, double *res) {
  HY_CALL(rows_tell(r, LLE_ROWS_RESID, nc));
  double lam[LLE_ROWS_PMAX], s[LLE_ROWS_PMAX];
  if (r->rank == 0) memcpy(lam, val, (size_t)nc * sizeof *lam);
  HY_MPI(MPI_Bcast(lam, nc, MPI_DOUBLE, 0, r->comm));
  HY_CALL(rows_scatter_into(r, x, nc));
  HY_CALL(rows_btb(r, nc, r->v, r->mv));
  rows_job j = { .r = r, .nc = nc, .op = RJ_RES, .x = r->v, .y = r->mv, .c = lam };
  rows_run(r, &j);
  HY_CALL(rows_reduce(r, nc, s));
  for (int c = 0; c < nc; c++) if (res) res[c] = sqrt(s[c]);
  return HY_OK;
}

int lle_rows_step(lle_rows *r, int code) {
  int step = code % LLE_ROWS_STEPS, nc = code / LLE_ROWS_STEPS;
  switch (step) {
  case LLE_ROWS_SCATTER: return lle_rows_scatter(r, NULL, nc);
  case LLE_ROWS_GATHER: return lle_rows_gather(r, NULL, nc);
  case LLE_ROWS_ORTH: return lle_rows_orth(r);
  case LLE_ROWS_RR: return lle_rows_rr(r, NULL, NULL);
  case LLE_ROWS_ROTATE: return lle_rows_rotate(r, nc, NULL);
  case LLE_ROWS_RESID: return lle_rows_residuals(r, NULL, nc, NULL, NULL);
  default: return hy_err(HY_ESYS, "chol-nd by rows: step %d unknown", step);
  }
}

void lle_rows_figures(const lle_rows *r, double *t_eig, double *bytes) {
  if (t_eig) *t_eig = r ? r->t_eig : 0;
  if (bytes) *bytes = r ? r->bytes : 0;
}

void lle_rows_free(lle_rows *r) {
  if (!r) return;
  free(r->cnt); free(r->dsp); free(r->pcnt); free(r->pdsp);
  free(r->v); free(r->mv); free(r->tmp); free(r->vf); free(r->tf); free(r->part); free(r->all);
  free(r->h); free(r->btp); free(r->bcnt); free(r->bdsp); free(r->pk); free(r->bti); free(r->btx);
  free(r);
}
