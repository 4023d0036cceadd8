/* spai_setup.c - the build stage of spai (HybridSPAI's three stages): the pattern
 * (spai_pattern.c), the columns balanced over ranks by estimated cost, index sets / submatrices /
 * QR + triangular solve on the rank's backend, assembly of M by rows, and the figures.
 * spai_build reads as the stage list; each stage is one function on the build state.  Local
 * failures inside the stage (a kernel, an allocation) end the job (HY_LOCAL); the non-finite
 * column check is agreed at the stage boundary. */
#include "spai/spai.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void csr_clear(hy_csr *a) { io_csr_free(a); }

/* Advise transparent huge pages for the 2 MiB-aligned interior of a block of at least 32 MiB
 * that a device copy will fill (a fault per 2 MiB instead of per 4 KiB: at 10.6M rows the
 * residuals' 85 MB took 60 ms to the host in fresh 4 KiB pages).  Advice only.  Local. */
static void advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes < ((size_t)32 << 20)) return;
  uintptr_t a = ((uintptr_t)p + ((uintptr_t)2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1);
  uintptr_t e = ((uintptr_t)p + bytes) & ~(((uintptr_t)2 << 20) - 1);
  if (e > a) madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/* The k-th smallest of v[0..n) (quickselect; v is reordered so that v[0..k) <= v[k]).  Local. */
static double select_kth(double *v, int64_t n, int64_t k) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double piv = v[lo + (hi - lo) / 2];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < piv) i++;
      while (v[j] > piv) j--;
      if (i <= j) {
        double t = v[i]; v[i] = v[j]; v[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return v[k];
  }
  return v[k];
}

/* as = D^-1/2 A D^-1/2 (local rows), D = |diag(A)| (1 where a_gg = 0); *sinv = D^-1/2 for every
 * global index (gathered: n doubles per rank).  Collective. */
static int scale_matrix(MPI_Comm comm, const la_part *pr, int rank, const hy_csr *a, hy_csr *as,
                        double **sinv) {
  int size = pr->size;
  int64_t r0 = pr->start[rank], n = pr->n;
  double *s = NULL;
  HY_MALLOC(s, n + 1);
  for (int64_t i = 0; i < a->m; i++) {
    double d = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (a->colind[e] == r0 + i) d = fabs(a->val[e]);
    s[r0 + i] = d > 0 ? 1.0 / sqrt(d) : 1.0;
  }
  if (size > 1) {
    int *cnt = NULL, *dsp = NULL;
    HY_MALLOC(cnt, size);
    HY_MALLOC(dsp, size);
    for (int q = 0; q < size; q++) {
      cnt[q] = (int)(pr->start[q + 1] - pr->start[q]);
      dsp[q] = (int)pr->start[q];
    }
    HY_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, s, cnt, dsp, MPI_DOUBLE, comm));
    free(cnt);
    free(dsp);
  }
  la_csr_alloc(as, a->m, a->n, a->nnz);
  as->rowptr[0] = a->rowptr[0];
  for (int64_t i = 0; i < a->m; i++) {
    as->rowptr[i + 1] = a->rowptr[i + 1];
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      as->colind[e] = a->colind[e];
      as->val[e] = s[r0 + i] * a->val[e] * s[a->colind[e]];
    }
  }
  *sinv = s;
  return HY_OK;
}

/* Jacobi as a matrix.  Local. */
int spai_jacobi(const la_part *pr, int rank, const hy_csr *a, hy_csr *m) {
  int64_t r0 = pr->start[rank];
  la_csr_alloc(m, a->m, a->n, a->m);
  for (int64_t i = 0; i < a->m; i++) {
    double d = 0;
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (a->colind[e] == r0 + i) d = a->val[e];
    m->rowptr[i] = i;
    m->colind[i] = (int32_t)(r0 + i);
    m->val[i] = d != 0 ? 1.0 / d : 1.0;
  }
  m->rowptr[a->m] = a->m;
  return HY_OK;
}

/* out = a copy of the partition p.  Local. */
static int part_copy(const la_part *p, la_part *out) {
  out->size = p->size;
  out->n = p->n;
  HY_MALLOC(out->start, p->size + 1);
  memcpy(out->start, p->start, (size_t)(p->size + 1) * sizeof *out->start);
  return HY_OK;
}

/* The build state: the pattern's results, the columns of this rank, the backend state. */
typedef struct {
  hy_ctx *ctx;
  const la_part *pr;
  const hy_csr *a;             /* A, or as (scale) */
  const spai_setup_opts *opt;
  const k_spai_ops *ko;
  hy_csr as;                   /* scale: D^-1/2 A D^-1/2 */
  double *sinv;                /* scale: |a_gg|^-1/2 (1 where a_gg = 0) for every global g */
  double *cmax;                /* threshold = column: max_i |a_ij| for every global j */
  spai_pattern_st ps;          /* pattern: J sets (ps.pt), B (ps.bt), or the device state */
  la_part pc;                  /* column partition of the least-squares problems */
  int64_t c0, ncol;            /* my columns [c0, c0 + ncol) */
  hy_csr jc;                   /* J sets of my columns under pc (values: M's after the solve) */
  hy_csr bx;                   /* the rows of B my columns need (local ones, then fetched ones) */
  int32_t *jloc, *kglob;       /* J entries as rows of bx; global index of each column */
  int64_t *iub;                /* bounds of |I_k| (offsets) */
  int32_t *isize;              /* |I_k| */
  k_spai_stats ks;
  double *res;                 /* column residuals */
  unsigned char *filtered;     /* column k lost entries to the filter */
  int64_t dropped;             /* filter */
  double split[6];             /* spai_setup_info.split, this rank's */
} build_st;

/* scale and column thresholds: as = D^-1/2 A D^-1/2, cmax.  Collective. */
static int build_prepare(build_st *b) {
  const la_part *pr = b->pr;
  if (b->opt->scale) {
    HY_CALL(scale_matrix(b->ctx->comm, pr, b->ctx->rank, b->a, &b->as, &b->sinv));
    b->a = &b->as;
  }
  if (b->opt->colthr) {
    const hy_csr *a = b->a;
    HY_CALLOC(b->cmax, pr->n + 1);
    for (int64_t e = 0; e < a->nnz; e++)
      if (fabs(a->val[e]) > b->cmax[a->colind[e]]) b->cmax[a->colind[e]] = fabs(a->val[e]);
    if (pr->size > 1)
      HY_MPI(MPI_Allreduce(MPI_IN_PLACE, b->cmax, (int)pr->n, MPI_DOUBLE, MPI_MAX, b->ctx->comm));
  }
  return HY_OK;
}

/* Columns balanced by cost |I| |J|^2 (|I| estimated), and the J sets of my columns under that
 * partition (fetched unless the balance kept the row partition).  Collective. */
static int build_balance(build_st *b) {
  const la_part *pr = b->pr;
  const hy_csr *a = b->a, *pt = &b->ps.pt;
  int rank = b->ctx->rank, size = pr->size;
  int64_t r0 = pr->start[rank];
  if (size == 1) {
    HY_CALL(la_part_even(&b->pc, 1, pr->n));
  } else {
    double avg_len = a->m ? (double)a->nnz / a->m : 1;
    double *w = NULL;
    HY_MALLOC(w, pt->m + 1);
    for (int64_t k = 0; k < pt->m; k++) {
      double ilen = 0, jl = (double)(pt->rowptr[k + 1] - pt->rowptr[k]);
      for (int64_t e = pt->rowptr[k]; e < pt->rowptr[k + 1]; e++) {
        int64_t j = pt->colind[e] - r0;
        ilen += (j >= 0 && j < a->m) ? (double)(a->rowptr[j + 1] - a->rowptr[j]) : avg_len;
      }
      w[k] = ilen * jl * jl + 1.0;
    }
    HY_CALL(la_part_weighted(b->ctx->comm, pr, rank, w, &b->pc));
    free(w);
  }
  b->c0 = b->pc.start[rank];
  b->ncol = b->pc.start[rank + 1] - b->c0;
  int same = 1;
  for (int q = 0; q <= size; q++) same &= b->pc.start[q] == pr->start[q];
  if (same) {
    b->jc = b->ps.pt;   /* the balance kept the row partition: no data moves */
    memset(&b->ps.pt, 0, sizeof b->ps.pt);
    return HY_OK;
  }
  int64_t *want = NULL;
  HY_MALLOC(want, b->ncol + 1);
  for (int64_t k = 0; k < b->ncol; k++) want[k] = b->c0 + k;
  HY_CALL(la_fetch_rows(b->ctx->comm, pr, &b->ps.pt, b->ncol, want, &b->jc));
  free(want);
  csr_clear(&b->ps.pt);
  return HY_OK;
}

/* P ranks: B's local rows stay where they are (global row g is row g - r0); the rows of other
 * ranks that J entries name (distinct, sorted through a marker over their index range) are
 * fetched and appended after them (rows mloc.. of bx); jloc = J entries as rows of bx.
 * Collective. */
static int build_brows_fetch(build_st *b) {
  const la_part *pr = b->pr;
  int rank = b->ctx->rank;
  const hy_csr *bt = &b->ps.bt;
  int64_t nj = b->jc.nnz, r0 = pr->start[rank], r1 = pr->start[rank + 1], mloc = r1 - r0;
  HY_MALLOC(b->jloc, nj + 1);
  int64_t u = 0, jmin = pr->n, jmax = -1;
  for (int64_t e = 0; e < nj; e++) {
    int64_t g = b->jc.colind[e];
    if (g >= r0 && g < r1) continue;
    if (g < jmin) jmin = g;
    if (g > jmax) jmax = g;
  }
  int64_t range = jmax >= jmin ? jmax - jmin + 1 : 0;
  int32_t *mark = NULL;
  int64_t *jl = NULL;
  HY_CALLOC(mark, range + 1);
  for (int64_t e = 0; e < nj; e++) {
    int64_t g = b->jc.colind[e];
    if (g < r0 || g >= r1) mark[g - jmin] = 1;
  }
  for (int64_t t = 0; t < range; t++) u += mark[t];
  HY_MALLOC(jl, u + 1);
  u = 0;
  for (int64_t t = 0; t < range; t++)
    if (mark[t]) {
      mark[t] = (int32_t)u;  /* now: position in jl */
      jl[u++] = jmin + t;
    }
  hy_csr gx;
  HY_CALL(la_fetch_rows(b->ctx->comm, pr, bt, u, jl, &gx));
  hy_csr *bx = &b->bx;
  *bx = *bt;
  memset(&b->ps.bt, 0, sizeof b->ps.bt);
  spai_append_rows(bx, &gx);   /* bx->m was mloc */
  csr_clear(&gx);
  for (int64_t e = 0; e < nj; e++) {
    int64_t g = b->jc.colind[e];
    b->jloc[e] = (g >= r0 && g < r1) ? (int32_t)(g - r0) : (int32_t)(mloc + mark[g - jmin]);
  }
  free(jl);
  free(mark);
  return HY_OK;
}

/* The rows of B my columns need, the |I| bounds and the cost imbalance.  Collective. */
static int build_columns_input(build_st *b, spai_setup_info *info) {
  if (b->ps.dev) {
    /* B, J and the |I| bounds are in the backend's state; P ranks: the columns are the rows'
     * (no balance), the cost estimated by |J|^3 per column (|I| ~ |J| for a stencil) */
    info->cost_imbalance = 1;
    if (b->pr->size > 1) {
      double mycost = 0, cmx = 0, csum = 0;
      for (int64_t k = 0; k < b->ncol; k++) {
        double jn = (double)(b->ps.djptr[k + 1] - b->ps.djptr[k]);
        mycost += jn * jn * jn;
      }
      HY_MPI(MPI_Allreduce(&mycost, &cmx, 1, MPI_DOUBLE, MPI_MAX, b->ctx->comm));
      HY_MPI(MPI_Allreduce(&mycost, &csum, 1, MPI_DOUBLE, MPI_SUM, b->ctx->comm));
      info->cost_imbalance = csum > 0 ? cmx / (csum / b->pr->size) : 1;
    }
    return HY_OK;
  }
  int size = b->pr->size;
  if (size == 1) {
    /* B's rows are all here, numbered by their global index: no fetch, no renumbering; the J
     * entries are B's row numbers (jloc is jc's column index array, not a copy) */
    b->bx = b->ps.bt;
    memset(&b->ps.bt, 0, sizeof b->ps.bt);
    b->jloc = b->jc.colind;
  } else {
    HY_CALL(build_brows_fetch(b));
  }
  HY_MALLOC(b->kglob, b->ncol + 1);
  HY_MALLOC(b->iub, b->ncol + 1);
  b->iub[0] = 0;
  double mycost = 0;
  for (int64_t k = 0; k < b->ncol; k++) {
    b->kglob[k] = (int32_t)(b->c0 + k);
    int64_t s = 0;
    for (int64_t e = b->jc.rowptr[k]; e < b->jc.rowptr[k + 1]; e++)
      s += b->bx.rowptr[b->jloc[e] + 1] - b->bx.rowptr[b->jloc[e]];
    b->iub[k + 1] = b->iub[k] + s;
    double jn = (double)(b->jc.rowptr[k + 1] - b->jc.rowptr[k]);
    mycost += (double)s * jn * jn;
  }
  info->cost_imbalance = 1;
  if (size > 1) {
    double cmx = 0, csum = 0;
    HY_MPI(MPI_Allreduce(&mycost, &cmx, 1, MPI_DOUBLE, MPI_MAX, b->ctx->comm));
    HY_MPI(MPI_Allreduce(&mycost, &csum, 1, MPI_DOUBLE, MPI_SUM, b->ctx->comm));
    info->cost_imbalance = csum > 0 ? cmx / (csum / size) : 1;
  }
  return HY_OK;
}

/* The end of the batch of columns from c: at most cap columns whose submatrices (|I| |J| 8
 * bytes each, |I| from cols_index) fit in opt->workspace bytes (at least one column).  Local. */
static int64_t build_batch_end(const build_st *b, int64_t c, int64_t cap) {
  const int64_t *jp = b->ps.dev ? b->ps.djptr : b->jc.rowptr;   /* J offsets of my columns */
  int64_t e = c, bytes = 0;
  while (e < b->ncol && e - c < cap) {
    int64_t nb = (int64_t)b->isize[e] * (jp[e + 1] - jp[e]) * 8;
    if (e > c && bytes + nb > b->opt->workspace) break;
    bytes += nb;
    e++;
  }
  return e;
}

/* Index sets, then submatrices and QR + solve by chunks of at most opt->workspace bytes, on the
 * backend (the longest stage: the [debug] point "spai_setup" is here).  Local (every failure
 * inside ends the job). */
static void build_solve_columns(build_st *b) {
  hy_ctx *ctx = b->ctx;
  k_backend *be = &ctx->be;
  const spai_setup_opts *opt = b->opt;
  k_spai_cols d = { .ncols = b->ncol, .kglob = b->kglob, .jptr = b->jc.rowptr, .jloc = b->jloc,
                    .nb = b->bx.m, .bptr = b->bx.rowptr, .bcol = b->bx.colind,
                    .bval = b->bx.val, .iub = b->iub, .small_rows = opt->small_rows,
                    .small_cols = opt->small_cols, .medium_elems = opt->medium_elems,
                    .block_threads = opt->block_threads, .fuse_submat = opt->fuse_submat,
                    .warp_rows = opt->warp_rows };
  hy_phase_begin(ctx, "spai index sets");
  if (!b->ps.dev) HY_LOCAL(b->ko->cols_setup(be, &d, &b->ps.st));
  int64_t *ends = NULL, nbatch = 0;   /* the batches: the backend's, or cut here by |I| |J| */
  if (b->ko->cols_index_batches)
    HY_LOCAL(b->ko->cols_index_batches(be, b->ps.st, opt->workspace, &ends, &nbatch));
  else {
    HY_MALLOC(b->isize, b->ncol + 1);
    HY_LOCAL(b->ko->cols_index(be, b->ps.st, b->isize));
  }
  hy_phase_end(ctx, "spai index sets");
  memset(&b->ks, 0, sizeof b->ks);
  /* progress of the columns (rank 0's; a line once the setup runs longer than [run] progress
   * seconds): on the host the chunks are also bounded to 1/32 of the columns so that it
   * advances; a GPU takes the whole workspace per chunk (fewer launches) */
  int64_t cap = ctx->be.gpu ? b->ncol : (b->ncol / 32 > 4096 ? b->ncol / 32 : 4096);
  hy_progress pg;
  hy_progress_begin(&pg, ctx, "spai setup (columns)", (double)b->ncol);
  for (int64_t c = 0, t = 0; c < b->ncol; t++) {
    int64_t e = ends ? ends[t] : build_batch_end(b, c, cap);
    hy_debug_point(ctx, "spai_setup");
    hy_phase_begin(ctx, "spai submatrices");
    HY_LOCAL(b->ko->cols_submat(be, b->ps.st, c, e));
    hy_phase_end(ctx, "spai submatrices");
    hy_phase_begin(ctx, "spai qr+solve");
    HY_LOCAL(b->ko->cols_solve(be, b->ps.st, c, e, &b->ks));
    hy_phase_end(ctx, "spai qr+solve");
    c = e;
    hy_progress_update(&pg, (double)c);
  }
  hy_progress_end(&pg);
  free(ends);
  if (b->ncol == 0) hy_debug_point(ctx, "spai_setup");
}

/* The smallest of my columns with a non-finite value or residual (-1 none), and with a filter
 * the entries below filter * the column's largest dropped (the diagonal kept).  Local. */
static int64_t build_filter(build_st *b) {
  hy_csr *jc = &b->jc;
  int64_t bad = -1, c0 = b->c0;
  for (int64_t k = 0; k < b->ncol && bad < 0; k++) {
    int nonfinite = !isfinite(b->res[k]);
    for (int64_t e = jc->rowptr[k]; e < jc->rowptr[k + 1]; e++) nonfinite |= !isfinite(jc->val[e]);
    if (nonfinite) bad = c0 + k;
  }
  if (b->opt->filter <= 0) return bad;
  HY_CALLOC(b->filtered, b->ncol + 1);
  int64_t nz = 0;
  for (int64_t k = 0; k < b->ncol; k++) {
    double mx = 0;
    for (int64_t e = jc->rowptr[k]; e < jc->rowptr[k + 1]; e++)
      if (fabs(jc->val[e]) > mx) mx = fabs(jc->val[e]);
    int64_t s = jc->rowptr[k];
    jc->rowptr[k] = nz;
    for (int64_t e = s; e < jc->rowptr[k + 1]; e++) {
      if (fabs(jc->val[e]) < b->opt->filter * mx && jc->colind[e] != c0 + k) {
        b->dropped++;
        b->filtered[k] = 1;
        continue;
      }
      jc->colind[nz] = jc->colind[e];
      jc->val[nz++] = jc->val[e];
    }
  }
  jc->rowptr[b->ncol] = nz;
  jc->nnz = nz;
  return bad;
}

/* M's local rows under pr from this rank's rows of its column block t (rows g0 .. g0 + t->m - 1
 * of M, global columns increasing in each row): each slice of rows goes to the rank that owns
 * it (a header of first row / rows / entries, the row lengths, the columns and values, all
 * contiguous in t), and a row's pieces are concatenated in rank order (rank q's columns come
 * before q + 1's: the row sorted, the order of la_transpose, so the same M bit for bit).
 * Collective. */
int spai_rows_exchange(MPI_Comm comm, const la_part *pr, int rank, const hy_csr *t, int64_t g0,
                       hy_csr *m) {
  const int size = pr->size;
  const int64_t g1 = g0 + t->m, r0 = pr->start[rank], mloc = pr->start[rank + 1] - r0;
  int64_t *hs = NULL, *hr = NULL, *len = NULL, *rlen = NULL;
  int *cl = NULL, *dl = NULL, *ce = NULL, *de = NULL, *rcl = NULL, *rdl = NULL, *rce = NULL,
      *rde = NULL;
  HY_MALLOC(hs, 3 * size);
  HY_MALLOC(hr, 3 * size);
  HY_MALLOC(cl, 8 * size);
  dl = cl + size; ce = dl + size; de = ce + size; rcl = de + size; rdl = rcl + size;
  rce = rdl + size; rde = rce + size;
  for (int q = 0; q < size; q++) {
    int64_t lo = pr->start[q] > g0 ? pr->start[q] : g0;
    int64_t hi = pr->start[q + 1] < g1 ? pr->start[q + 1] : g1;
    if (hi < lo) hi = lo;
    hs[3 * q] = lo;
    hs[3 * q + 1] = hi - lo;
    hs[3 * q + 2] = hi > lo ? t->rowptr[hi - g0] - t->rowptr[lo - g0] : 0;
    if (t->rowptr[t->m] > INT32_MAX)
      return hy_err(HY_ESYS, "spai assembly: %lld entries of M on one rank exceed MPI's int "
                    "counts (use more ranks)", (long long)t->rowptr[t->m]);
    cl[q] = (int)(hi - lo);
    dl[q] = (int)(hi > lo ? lo - g0 : 0);
    ce[q] = (int)hs[3 * q + 2];
    de[q] = (int)(hi > lo ? t->rowptr[lo - g0] : 0);
  }
  HY_MPI(MPI_Alltoall(hs, 3, MPI_INT64_T, hr, 3, MPI_INT64_T, comm));
  /* this rank's own slice stays out of MPI: the merge reads it from t */
  cl[rank] = ce[rank] = 0;
  int64_t nrl = 0, nrecv = 0, nre = 0;
  for (int q = 0; q < size; q++) {
    int other = q != rank;
    rcl[q] = other ? (int)hr[3 * q + 1] : 0;
    rdl[q] = (int)nrl;
    rce[q] = other ? (int)hr[3 * q + 2] : 0;
    rde[q] = (int)nrecv;
    nrl += rcl[q];
    nrecv += rce[q];
    nre += hr[3 * q + 2];
  }
  if (nre > INT32_MAX)
    return hy_err(HY_ESYS, "spai assembly: %lld entries of M's rows on one rank exceed MPI's int "
                  "counts (use more ranks)", (long long)nre);
  HY_MALLOC(len, t->m + 1);
  for (int64_t i = 0; i < t->m; i++) len[i] = t->rowptr[i + 1] - t->rowptr[i];
  HY_MALLOC(rlen, nrl + 1);
  HY_MPI(MPI_Alltoallv(len, cl, dl, MPI_INT64_T, rlen, rcl, rdl, MPI_INT64_T, comm));
  la_csr_alloc(m, mloc, pr->n, nre);
  int32_t *rcol = NULL;
  double *rval = NULL;
  HY_MALLOC(rcol, nrecv + 1);
  HY_MALLOC(rval, nrecv + 1);
  HY_MPI(MPI_Alltoallv(t->colind, ce, de, MPI_INT32_T, rcol, rce, rde, MPI_INT32_T, comm));
  HY_MPI(MPI_Alltoallv(t->val, ce, de, MPI_DOUBLE, rval, rce, rde, MPI_DOUBLE, comm));
  for (int q = 0; q < size; q++)
    for (int64_t i = 0; i < hr[3 * q + 1]; i++)
      m->rowptr[hr[3 * q] - r0 + i + 1] += q == rank ? len[hr[3 * q] - g0 + i] : rlen[rdl[q] + i];
  for (int64_t i = 0; i < mloc; i++) m->rowptr[i + 1] += m->rowptr[i];
  int64_t *pos = NULL;
  HY_MALLOC(pos, mloc + 1);
  memcpy(pos, m->rowptr, (size_t)(mloc + 1) * sizeof *pos);
  for (int q = 0; q < size; q++) {   /* rank order: the row's pieces in increasing column */
    /* a run of the slice's rows whose pieces follow each other in M (no other rank's piece
     * between them) is one copy: its source is contiguous too (t's rows, or the received) */
    int64_t e = rde[q], ns = hr[3 * q + 1], row0 = hr[3 * q] - r0, tr0 = hr[3 * q] - g0;
    for (int64_t i = 0; i < ns;) {
      const int32_t *sc = q == rank ? t->colind + t->rowptr[tr0 + i] : rcol + e;
      const double *sv = q == rank ? t->val + t->rowptr[tr0 + i] : rval + e;
      int64_t dst = pos[row0 + i], cnt = 0;
      do {
        int64_t l = q == rank ? len[tr0 + i] : rlen[rdl[q] + i];
        pos[row0 + i] += l;
        cnt += l;
        i++;
      } while (i < ns && pos[row0 + i - 1] == pos[row0 + i]);
      memcpy(m->colind + dst, sc, (size_t)cnt * sizeof *sc);
      memcpy(m->val + dst, sv, (size_t)cnt * sizeof *sv);
      if (q != rank) e += cnt;
    }
  }
  free(pos); free(rcol); free(rval); free(len); free(rlen); free(hs); free(hr); free(cl);
  return HY_OK;
}

/* P ranks, dist pattern, a backend with dist_rows: M's rows of the columns transposed by the
 * backend (rows g0 .. g1 - 1: the range of the J sets' global indices), exchanged to their
 * owners (spai_rows_exchange); *bad: the smallest non-finite column (global, -1 none).
 * Collective. */
static int assemble_dist_rows(build_st *b, hy_csr *m, int64_t *bad) {
  hy_ctx *ctx = b->ctx;
  const hy_csr *jc = &b->jc;
  int64_t g0 = b->pr->n, g1 = 0, lb = -1;
  for (int64_t e = 0; e < jc->nnz; e++) {
    if (jc->colind[e] < g0) g0 = jc->colind[e];
    if (jc->colind[e] >= g1) g1 = (int64_t)jc->colind[e] + 1;
  }
  if (g1 < g0) g1 = g0 = 0;
  hy_csr t;
  memset(&t, 0, sizeof t);
  t.m = g1 - g0;
  t.n = b->pr->n;
  HY_LOCAL(b->ko->dist_rows(&ctx->be, b->ps.st, jc->colind, g0, g1, b->c0, &t.rowptr, &t.colind,
                            &t.val, b->res, &lb, b->split + 3));
  t.nnz = t.rowptr[t.m];
  *bad = lb >= 0 ? b->c0 + lb : -1;
  double t0 = hy_wtime();
  HY_CALL(spai_rows_exchange(ctx->comm, b->pr, ctx->rank, &t, g0, m));
  io_csr_free(&t);
  b->split[5] = hy_wtime() - t0;
  return HY_OK;
}

/* P ranks, the device setup's rows (spai.dist_exchange = device; no filter, no scale): M's rows
 * of the columns transposed on the backend (rows g0 .. g1 - 1, the range its J sets name, found
 * there: the J sets' global indices need not come to the host), each slice to its owner and
 * merged there (spai_dev_exchange), renumbered for the halo and made the solve's matrix there
 * (rows_mat), with the halo plan of its ghost columns (la_halo_plan): nothing of M on the host.
 * *bad as assemble_dist_rows.  Collective. */
static int assemble_dist_dev(build_st *b, spai_m *mm, int64_t *bad) {
  hy_ctx *ctx = b->ctx;
  const int64_t r0 = b->pr->start[ctx->rank];
  int64_t g0 = 0, g1 = 0, lb = -1, ng = 0, *gh = NULL;
  void *t = NULL, *ml = NULL;
  HY_LOCAL(b->ko->dist_rows_dev(&ctx->be, b->ps.st, b->jc.colind, b->c0, &t, &g0, &g1, b->res,
                                &lb, b->split + 3));
  *bad = lb >= 0 ? b->c0 + lb : -1;
  double t0 = hy_wtime();
  HY_CALL(spai_dev_exchange(ctx, b->ko, b->pr, t, g0, g1, &ml, &gh, &ng));
  HY_LOCAL(b->ko->rows_free(&ctx->be, t));
  if (mm->rows + ng > INT32_MAX)
    hy_fatal(HY_ESYS, "spai: M's %lld local rows and %lld ghost columns exceed 32-bit indices (use "
             "more ranks)", (long long)mm->rows, (long long)ng);
  HY_LOCAL(b->ko->rows_mat(&ctx->be, ml, r0, mm->rows, ng, gh, &mm->dev, &mm->nnz));
  HY_CALL(la_halo_plan(ctx->comm, b->pr, ctx->rank, ng, gh, &mm->halo));
  mm->halo_ready = 1;
  mm->ghost = gh;
  mm->ng = ng;
  mm->r0 = r0;
  mm->made_on_device = 1;
  b->split[5] = hy_wtime() - t0;
  return HY_OK;
}

/* M's rows: by the backend's transpose of the columns (device pattern, no filter; one rank
 * without scale: made into the solve's matrix where the columns are, single_mat, nothing of M
 * to the host), or the columns' values to the host, the filter, the finiteness check (agreed),
 * M = D^-1/2 Mhat D^-1/2 with scale, and the distributed transpose to rows under pr.
 * Collective. */
static int build_assemble(build_st *b, spai_m *mm) {
  hy_ctx *ctx = b->ctx;
  k_backend *be = &ctx->be;
  hy_csr *m = &mm->h;
  HY_MALLOC(b->res, b->ncol + 1);
  advise_huge(b->res, (size_t)(b->ncol + 1) * sizeof *b->res);
  int64_t bad = -1;
  int rows_dev = b->ps.dev && b->pr->size == 1;   /* single_setup: M's rows by the backend */
  int rows_mat = rows_dev && b->ko->single_mat && !b->sinv;   /* and kept there as a matrix */
  int rows_dist = b->ps.dev && b->pr->size > 1 && b->ko->dist_rows && b->opt->filter <= 0;
  int rows_ddev = rows_dist && b->ps.dist_dev && !b->sinv;   /* and kept there (rows_mat) */
  double *sp = b->split + 3, t0 = hy_wtime();     /* device, to the host, host */
  memset(mm, 0, sizeof *mm);
  mm->rows = b->pr->start[ctx->rank + 1] - b->pr->start[ctx->rank];
  mm->cols = b->pr->n;
  if (rows_ddev) {
    HY_CALL(assemble_dist_dev(b, mm, &bad));
  } else if (rows_dist) {
    HY_CALL(assemble_dist_rows(b, m, &bad));
  } else if (rows_mat) {
    HY_LOCAL(b->ko->single_mat(be, b->ps.st, &mm->dev, &mm->nnz, b->res, &bad, sp));
    mm->made_on_device = 1;
  } else if (rows_dev) {
    memset(m, 0, sizeof *m);
    HY_LOCAL(b->ko->single_rows(be, b->ps.st, &m->rowptr, &m->colind, &m->val, b->res, &bad, sp));
    m->m = m->n = b->pr->n;
    m->nnz = m->rowptr[b->pr->n];
  } else {
    HY_LOCAL(b->ko->cols_result(be, b->ps.st, b->jc.val, b->res));
    sp[1] = hy_wtime() - t0;
    bad = build_filter(b);
  }
  b->ko->cols_free(be, b->ps.st);
  b->ps.st = NULL;
  /* bad: the smallest column with a non-finite value or residual */
  int rc = bad >= 0 ? hy_err(HY_ENUMERIC, "SPAI column %lld has a non-finite value", (long long)bad) : HY_OK;
  HY_CALL(hy_agree(ctx->comm, rc));
  if (!mm->dev) mm->nnz = m->nnz;
  if (rows_ddev) return HY_OK;
  if (rows_dev || rows_dist) {
    int64_t r0 = b->pr->start[ctx->rank];
    double t1 = hy_wtime();
    if (b->sinv)  /* M = D^-1/2 Mhat D^-1/2, the column path's products (row, then column) */
      for (int64_t i = 0; i < m->m; i++)
        for (int64_t e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
          m->val[e] *= b->sinv[r0 + i] * b->sinv[m->colind[e]];
    sp[2] = rows_dev ? hy_wtime() - t0 - sp[0] - sp[1] : sp[2] + hy_wtime() - t1;
    return HY_OK;
  }
  if (b->sinv)  /* M = D^-1/2 Mhat D^-1/2 */
    for (int64_t k = 0; k < b->ncol; k++)
      for (int64_t e = b->jc.rowptr[k]; e < b->jc.rowptr[k + 1]; e++)
        b->jc.val[e] *= b->sinv[b->jc.colind[e]] * b->sinv[b->c0 + k];
  HY_CALL(la_transpose(ctx->comm, &b->pc, &b->jc, b->pr, m));
  mm->nnz = m->nnz;
  sp[2] = hy_wtime() - t0 - sp[1];
  return HY_OK;
}

/* The host copy of a rows_mat matrix back to global columns (local l -> r0 + l, nloc + t ->
 * ghost[t]), each row sorted by them.  Local. */
static void m_global_cols(spai_m *m) {
  hy_csr *h = &m->h;
  for (int64_t e = 0; e < h->nnz; e++) {
    int64_t c = h->colind[e];
    h->colind[e] = (int32_t)(c < m->rows ? m->r0 + c : m->ghost[c - m->rows]);
  }
  for (int64_t i = 0; i < h->m; i++)
    io_sort_pairs(h->colind + h->rowptr[i], h->val + h->rowptr[i], h->rowptr[i + 1] - h->rowptr[i]);
}

/* M on the host too (see spai.h).  Collective. */
int spai_m_host(hy_ctx *ctx, spai_m *m, const char *why) {
  int need = m->dev && !m->h.rowptr, any = 0;
  double t0 = hy_wtime(), t = 0, tmax = 0;
  if (need) {
    const k_spai_ops *ko = k_spai_ops_get(&ctx->be);
    memset(&m->h, 0, sizeof m->h);
    HY_LOCAL(ko->mat_get(&ctx->be, m->dev, &m->h.rowptr, &m->h.colind, &m->h.val));
    m->h.m = m->rows;
    m->h.n = m->cols;
    m->h.nnz = m->nnz;
    if (m->ghost || m->halo_ready) m_global_cols(m);
    t = hy_wtime() - t0;
  }
  HY_MPI(MPI_Allreduce(&need, &any, 1, MPI_INT, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  m->down_s += tmax;
  if (any || (m->dev && m->down_why[0])) {   /* copied now, or used by one more thing */
    size_t l = strlen(m->down_why);
    snprintf(m->down_why + l, sizeof m->down_why - l, "%s%s", l ? ", " : "", why);
  }
  return HY_OK;
}

/* Free both copies of M.  Local. */
void spai_m_free(hy_ctx *ctx, spai_m *m) {
  io_csr_free(&m->h);
  free(m->ghost);
  la_halo_free(&m->halo);
  if (m->dev) k_spai_ops_get(&ctx->be)->mat_free(&ctx->be, m->dev);
  memset(m, 0, sizeof *m);
}

/* nnz(M), the kernel statistics, ||AM - I||_F and the min / median / max column residual
 * (gathered on rank 0), from what spai_build left in info (after the timed setup: nothing of M
 * needs them).  Collective. */
int spai_setup_figures(hy_ctx *ctx, spai_setup_info *info) {
  MPI_Comm comm = ctx->comm;
  int rank = ctx->rank, size = info->pc.size;
  const k_spai_stats *ks = &info->loc_ks;
  const int64_t ncol = info->pc.start[rank + 1] - info->pc.start[rank];
  long long loc[7] = { info->loc_nnz, ks->rank_deficient, ks->ncols_small, ks->ncols_medium,
                       ks->ncols_large, info->loc_dropped, ks->ncols_warp }, glob[7];
  HY_MPI(MPI_Allreduce(loc, glob, 7, MPI_LONG_LONG, MPI_SUM, comm));
  info->nnz_m = glob[0];
  info->rank_deficient = glob[1];
  info->ncols_small = glob[2];
  info->ncols_medium = glob[3];
  info->ncols_large = glob[4];
  info->dropped_filter = glob[5];
  info->ncols_warp = glob[6];
  long long mx[2] = { ks->max_i, ks->max_j }, gmx[2];
  HY_MPI(MPI_Allreduce(mx, gmx, 2, MPI_LONG_LONG, MPI_MAX, comm));
  info->max_i = gmx[0];
  info->max_j = gmx[1];
  double ss = 0, sst = 0;
  for (int64_t k = 0; k < ncol; k++) ss += info->res[k] * info->res[k];
  HY_MPI(MPI_Allreduce(&ss, &sst, 1, MPI_DOUBLE, MPI_SUM, comm));
  info->frob = sqrt(sst);
  int *cnt = NULL, *dsp = NULL;
  double *allr = NULL;
  int64_t nn = info->pc.n;
  if (rank == 0) {
    HY_MALLOC(cnt, size);
    HY_MALLOC(dsp, size);
    HY_MALLOC(allr, nn + 1);
    for (int q = 0; q < size; q++) {
      cnt[q] = (int)(info->pc.start[q + 1] - info->pc.start[q]);
      dsp[q] = (int)info->pc.start[q];
    }
  }
  if (size == 1)   /* (a copy: quickselect reorders it) */
    memcpy(allr, info->res, (size_t)nn * sizeof *allr);
  else
    HY_MPI(MPI_Gatherv(info->res, (int)ncol, MPI_DOUBLE, allr, cnt, dsp, MPI_DOUBLE, 0, comm));
  double meds[3] = { 0, 0, 0 };
  if (rank == 0 && nn > 0) {
    meds[0] = meds[2] = allr[0];
    for (int64_t i = 1; i < nn; i++) {
      if (allr[i] < meds[0]) meds[0] = allr[i];
      if (allr[i] > meds[2]) meds[2] = allr[i];
    }
    double hi = select_kth(allr, nn, nn / 2);
    meds[1] = nn % 2 ? hi : 0.5 * (hi + select_kth(allr, nn / 2, nn / 2 - 1));
  }
  HY_MPI(MPI_Bcast(meds, 3, MPI_DOUBLE, 0, comm));
  info->res_min = meds[0];
  info->res_med = meds[1];
  info->res_max = meds[2];
  free(cnt); free(dsp); free(allr);
  return HY_OK;
}

/* Free the build state (info keeps pc and res).  Local. */
static void build_free(build_st *b, spai_setup_info *info) {
  if (b->ps.shared) b->bx.colind = NULL;   /* freed with jc's */
  if (b->pr->size > 1) free(b->jloc);
  csr_clear(&b->jc);
  csr_clear(&b->bx);
  csr_clear(&b->ps.pt);
  csr_clear(&b->ps.bt);
  csr_clear(&b->as);
  free(b->ps.djptr);
  free(b->kglob); free(b->iub); free(b->isize); free(b->cmax);
  info->pc = b->pc;
  info->res = b->res;
  info->filtered = b->filtered;
  info->sinv = b->sinv;
}

/* The whole setup: prepare -> pattern -> distribute -> columns -> assembly (the figures after
 * it: spai_setup_figures).  Collective. */
int spai_build(hy_ctx *ctx, const la_part *pr, const hy_csr *a, const spai_setup_opts *opt,
               spai_m *m, spai_setup_info *info) {
  memset(info, 0, sizeof *info);
  build_st b;
  memset(&b, 0, sizeof b);
  b.ctx = ctx;
  b.pr = pr;
  b.a = a;
  b.opt = opt;
  b.ko = k_spai_ops_get(&ctx->be);
  hy_phase_begin(ctx, "spai pattern");
  HY_CALL(build_prepare(&b));
  b.ps = (spai_pattern_st){ .ctx = ctx, .pr = pr, .a = b.a, .opt = opt, .ko = b.ko, .cmax = b.cmax };
  HY_CALL(spai_pattern_build(&b.ps, &info->pattern));
  info->device_setup = b.ps.dev;
  hy_phase_end(ctx, "spai pattern");
  hy_phase_begin(ctx, "spai distribute");
  if (b.ps.dev && pr->size == 1) {
    HY_CALL(la_part_even(&b.pc, 1, pr->n));
    b.ncol = pr->n;
  } else if (b.ps.dev) {   /* dist: the columns stay with the rows, J sets in ps.pt */
    HY_CALL(part_copy(pr, &b.pc));
    b.c0 = pr->start[ctx->rank];
    b.ncol = pr->start[ctx->rank + 1] - b.c0;
    b.jc = b.ps.pt;
    memset(&b.ps.pt, 0, sizeof b.ps.pt);
  } else {
    HY_CALL(build_balance(&b));
  }
  HY_CALL(build_columns_input(&b, info));
  hy_phase_end(ctx, "spai distribute");
  build_solve_columns(&b);
  hy_phase_begin(ctx, "spai assembly");
  HY_CALL(build_assemble(&b, m));
  hy_phase_end(ctx, "spai assembly");
  /* the device rows' split line: B's and M's rows both made on the backend */
  info->dist_dev = b.ps.dev && b.ps.dist_dev && m->made_on_device && pr->size > 1;
  memcpy(b.split, b.ps.split, sizeof b.ps.split);
  HY_MPI(MPI_Allreduce(b.split, info->split, 6, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Allreduce(b.ps.bsplit, info->bsplit, 4, MPI_DOUBLE, MPI_MAX, ctx->comm));
  info->loc_ks = b.ks;
  info->loc_dropped = b.dropped;
  info->loc_nnz = m->nnz;
  build_free(&b, info);
  return HY_OK;
}

/* Free what spai_build left in info.  Local. */
void spai_setup_info_free(spai_setup_info *info) {
  la_part_free(&info->pc);
  free(info->res);
  free(info->filtered);
  free(info->sinv);
  info->res = NULL;
  info->filtered = NULL;
  info->sinv = NULL;
}

