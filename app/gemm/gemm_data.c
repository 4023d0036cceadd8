/* gemm_data.c - stage load: the process grid, the inputs (random by global index, or files
 * read on rank 0 and broadcast), this rank's blocks of A, B and C0 rounded once to the
 * precision's input format, their host / pinned / device copies; gathering C; freeing. */
#include "gemm/gemm.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Value (i, j) of A (which 0), B (1) or C0 (2) as the run uses it.  Local. */
double gemm_entry(const gemm_t *g, int which, int64_t i, int64_t j) {
  const gemm_opts *o = g->o;
  double v;
  if (o->source == GEMM_FILE) {
    const hy_dense *d = which == 0 ? &g->fa : which == 1 ? &g->fb : &g->fc;
    v = d->a[i + j * d->m];
  } else {
    int64_t cols = which == 0 ? g->k : g->n;
    v = hy_rand_u01(o->seed, 0x6a + (uint64_t)which, (uint64_t)i * (uint64_t)cols + (uint64_t)j) - 0.5;
  }
  if (which < 2) return k_gemm_round(o->prec, v);
  return o->prec == K_GEMM_DOUBLE ? v : (double)(float)v;   /* C0 in C's format */
}

/* Broadcast n doubles from rank 0 in chunks below INT_MAX.  Collective. */
static int gemm_bcast_doubles(double *p, int64_t n, MPI_Comm comm) {
  const int64_t chunk = 1 << 26;
  for (int64_t o = 0; o < n; o += chunk) {
    int c = (int)(n - o < chunk ? n - o : chunk);
    HY_MPI(MPI_Bcast(p + o, c, MPI_DOUBLE, 0, comm));
  }
  return HY_OK;
}

/* Rank 0: read A, B (and C0) and check that their shapes fit together.  Local. */
static int gemm_read_files(gemm_t *g) {
  const gemm_opts *o = g->o;
  HY_CALL(io_read_dense(o->afile, &g->fa));
  HY_CALL(io_read_dense(o->bfile, &g->fb));
  if (g->fb.m != g->fa.n)
    return hy_err(HY_EINPUT, "%s: B is %lld x %lld, but A (%s) is %lld x %lld: B needs %lld rows "
                  "(the columns of A)", o->bfile, (long long)g->fb.m, (long long)g->fb.n, o->afile,
                  (long long)g->fa.m, (long long)g->fa.n, (long long)g->fa.n);
  if (o->beta != 0) {
    HY_CALL(io_read_dense(o->cfile, &g->fc));
    if (g->fc.m != g->fa.m || g->fc.n != g->fb.n)
      return hy_err(HY_EINPUT, "%s: C is %lld x %lld, but A B is %lld x %lld", o->cfile,
                    (long long)g->fc.m, (long long)g->fc.n, (long long)g->fa.m, (long long)g->fb.n);
  }
  return HY_OK;
}

/* source = file: rank 0 reads, every rank gets the sizes and the whole matrices.  Collective. */
static int gemm_load_files(gemm_t *g) {
  hy_ctx *ctx = g->ctx;
  int rc = ctx->rank == 0 ? gemm_read_files(g) : HY_OK;
  HY_CALL(hy_agree(ctx->comm, rc));
  int64_t dims[3] = { g->fa.m, g->fa.n, g->fb.n };
  HY_MPI(MPI_Bcast(dims, 3, MPI_INT64_T, 0, ctx->comm));
  g->m = dims[0];
  g->k = dims[1];
  g->n = dims[2];
  hy_dense *ds[3] = { &g->fa, &g->fb, &g->fc };
  int64_t rows[3] = { g->m, g->k, g->m }, cols[3] = { g->k, g->n, g->n };
  for (int w = 0; w < 3; w++) {
    if (w == 2 && g->o->beta == 0) break;
    if (ctx->rank != 0) {
      ds[w]->m = rows[w];
      ds[w]->n = cols[w];
      HY_MALLOC(ds[w]->a, (size_t)(rows[w] * cols[w]));
    }
    HY_CALL(gemm_bcast_doubles(ds[w]->a, rows[w] * cols[w], ctx->comm));
  }
  return HY_OK;
}

/* Fill one local block from matrix `which` (grid rows over P, columns over Q): host FP64 copy,
 * host copy in the storage format (pinned), device allocation.  Local (aborts on failure). */
static void gemm_block_fill(gemm_t *g, gemm_block *b, int which, int64_t rows, int64_t cols,
                            size_t ebytes) {
  int64_t nb = g->o->nb;
  b->rows = rows;
  b->cols = cols;
  b->ld = rows > 0 ? rows : 1;
  size_t cnt = (size_t)(b->ld * cols);
  HY_MALLOC(b->h, cnt);
  for (int64_t lj = 0; lj < cols; lj++) {
    int64_t gj = gemm_l2g(lj, nb, g->q, g->Q);
    for (int64_t li = 0; li < rows; li++)
      b->h[li + lj * b->ld] = gemm_entry(g, which, gemm_l2g(li, nb, g->p, g->P), gj);
  }
  HY_LOCAL(g->be->ops->alloc_pinned(g->be, &b->hs, cnt * ebytes + 8));
  if (which < 2) {
    HY_LOCAL(g->ko->pack(g->o->prec, (int64_t)cnt, b->h, b->hs));
  } else if (ebytes == 8) {
    memcpy(b->hs, b->h, cnt * 8);
  } else {
    float *f = b->hs;
    for (size_t i = 0; i < cnt; i++) f[i] = (float)b->h[i];
  }
  HY_LOCAL(g->be->ops->alloc(g->be, &b->d, cnt * ebytes + 8));
}

/* Stage load.  Collective. */
int gemm_load(gemm_t *g) {
  hy_ctx *ctx = g->ctx;
  const gemm_opts *o = g->o;
  int P = o->P, Q = o->Q;
  if (P == 0) hy_grid_auto(ctx->size, &P, &Q);
  HY_CALL(hy_grid_make(ctx->comm, P, Q, &g->grid));
  g->grid_made = 1;
  g->P = g->grid.P;
  g->Q = g->grid.Q;
  g->p = g->grid.p;
  g->q = g->grid.q;
  g->kern = o->kernel == K_GEMM_NAIVE ? g->ko->naive : o->kernel == K_GEMM_TILED ? g->ko->tiled
                                                                                 : g->ko->vendor;
  HY_CALL(hy_agree(ctx->comm, g->ko->ws_open(g->be, o->tile, &g->ws)));
  if (o->source == GEMM_FILE) {
    HY_CALL(gemm_load_files(g));
  } else {
    g->m = o->m;
    g->n = o->n;
    g->k = o->k;
  }
  g->ein = g->ko->in_bytes(o->prec);
  double mk = (double)g->m * g->k, kn = (double)g->k * g->n, mn = (double)g->m * g->n;
  HY_CALL(hy_mem_check(ctx, 8.0 * (mk + kn + mn) / ctx->size, (double)g->ein * (mk + kn + mn) / ctx->size,
                       "its blocks of A, B and C, at least", "gemm.m x k x n = %lld x %lld x %lld",
                       (long long)g->m, (long long)g->k, (long long)g->n));
  int64_t nb = o->nb;
  int64_t mloc = gemm_numroc(g->m, nb, g->p, g->P), nloc = gemm_numroc(g->n, nb, g->q, g->Q);
  /* A: rows over P, columns (k) over Q; B: rows (k) over P, columns over Q */
  gemm_block_fill(g, &g->A, 0, mloc, gemm_numroc(g->k, nb, g->q, g->Q), g->ein);
  gemm_block_fill(g, &g->B, 1, gemm_numroc(g->k, nb, g->p, g->P), nloc, g->ein);
  if (o->beta != 0) {
    gemm_block_fill(g, &g->C, 2, mloc, nloc, k_gemm_c_bytes(o->prec));
  } else {  /* C0 unused (beta = 0 ignores it): zeros */
    g->C.rows = mloc;
    g->C.cols = nloc;
    g->C.ld = mloc > 0 ? mloc : 1;
    size_t cnt = (size_t)(g->C.ld * nloc), cb = k_gemm_c_bytes(o->prec);
    HY_CALLOC(g->C.h, cnt);
    HY_LOCAL(g->be->ops->alloc_pinned(g->be, &g->C.hs, cnt * cb + 8));
    memset(g->C.hs, 0, cnt * cb);
    HY_LOCAL(g->be->ops->alloc(g->be, &g->C.d, cnt * cb + 8));
  }
  return HY_OK;
}

/* Gather the C-distributed local blocks into the whole matrix on rank 0.  Collective. */
int gemm_gather_c(gemm_t *g, const double *loc, double **out) {
  hy_ctx *ctx = g->ctx;
  int64_t nb = g->o->nb, m = g->m;
  *out = NULL;
  if (ctx->size == 1) {
    HY_MALLOC(*out, (size_t)(m * g->n));
    for (int64_t j = 0; j < g->n; j++)
      memcpy(*out + j * m, loc + j * g->C.ld, (size_t)m * sizeof(double));
    return HY_OK;
  }
  size_t cnt = (size_t)(g->C.rows * g->C.cols);
  double *pack = NULL;
  HY_MALLOC(pack, cnt + 1);
  for (int64_t j = 0; j < g->C.cols; j++)
    memcpy(pack + j * g->C.rows, loc + j * g->C.ld, (size_t)g->C.rows * sizeof(double));
  int *counts = NULL, *displs = NULL;
  double *all = NULL;
  if (ctx->rank == 0) {
    HY_MALLOC(counts, ctx->size);
    HY_MALLOC(displs, ctx->size);
    int64_t off = 0;
    for (int r = 0; r < ctx->size; r++) {
      int64_t c = gemm_numroc(m, nb, r / g->Q, g->P) * gemm_numroc(g->n, nb, r % g->Q, g->Q);
      if (c > 2147483647 || off > 2147483647)
        hy_fatal(HY_ESYS, "gathering C: %lld elements exceed MPI's int counts", (long long)(off + c));
      counts[r] = (int)c;
      displs[r] = (int)off;
      off += c;
    }
    HY_MALLOC(all, (size_t)off + 1);
    HY_MALLOC(*out, (size_t)(m * g->n));
  }
  HY_MPI(MPI_Gatherv(pack, (int)cnt, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, ctx->comm));
  if (ctx->rank == 0) {
    for (int r = 0; r < ctx->size; r++) {
      int pr = r / g->Q, qr = r % g->Q;
      int64_t rows = gemm_numroc(m, nb, pr, g->P), cols = gemm_numroc(g->n, nb, qr, g->Q);
      const double *src = all + displs[r];
      for (int64_t lj = 0; lj < cols; lj++) {
        int64_t gj = gemm_l2g(lj, nb, qr, g->Q);
        for (int64_t li = 0; li < rows; li++)
          (*out)[gemm_l2g(li, nb, pr, g->P) + gj * m] = src[li + lj * rows];
      }
    }
  }
  free(pack); free(counts); free(displs); free(all);
  return HY_OK;
}

/* Free one block.  Local. */
static void gemm_block_free(gemm_t *g, gemm_block *b) {
  free(b->h);
  if (b->hs) g->be->ops->free_pinned(g->be, b->hs);
  if (b->d) g->be->ops->free(g->be, b->d);
  memset(b, 0, sizeof *b);
}

/* Free the run.  Collective (the grid's communicators). */
void gemm_free(gemm_t *g) {
  gemm_block_free(g, &g->A);
  gemm_block_free(g, &g->B);
  gemm_block_free(g, &g->C);
  io_dense_free(&g->fa);
  io_dense_free(&g->fb);
  io_dense_free(&g->fc);
  if (g->ws) g->ko->ws_close(g->be, g->ws);
  g->ws = NULL;
  if (g->bc) hy_bcast_close(g->bc);
  g->bc = NULL;
  if (g->grid_made) hy_grid_free(&g->grid);
  g->grid_made = 0;
}
