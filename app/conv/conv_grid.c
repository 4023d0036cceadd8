/* conv_grid.c - the 2D decomposition of the conv workload: a P x Q Cartesian grid of ranks
 * (MPI_Cart_create), tile (pr, pc) owning rows and columns split as evenly as possible (the
 * first H % P rows of tiles one row taller), the image scattered from rank 0 and gathered back
 * a row type at a time (no count above 2^31). */
#include "conv.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Start and length of part i of n split into p parts.  Local. */
static void split(int n, int p, int i, int *start, int *len) {
  int b = n / p, e = n % p;
  *start = i * b + (i < e ? i : e);
  *len = b + (i < e);
}

/* Tile of grid position (pr, pc).  Local. */
void conv_tile_of(const conv_grid *gr, int H, int W, int pr, int pc, int *y0, int *th, int *x0, int *tw) {
  split(H, gr->P, pr, y0, th);
  split(W, gr->Q, pc, x0, tw);
}

/* The grid P x Q = size with the smallest tile perimeter for an H x W image (ties: fewer
 * process rows).  Local. */
static void conv_grid_auto(int size, int H, int W, int *P, int *Q) {
  double best = INFINITY;
  for (int p = 1; p <= size; p++) {
    if (size % p) continue;
    double per = ceil((double)H / p) + ceil((double)W / (size / p));
    if (per < best) { best = per; *P = p; *Q = size / p; }
  }
}

/* The inside weight is 0 somewhere (boundary renormalise): the first such pixel.  Local. */
static int conv_weight_zero(const conv_filter *f, int H, int W, int *zy, int *zx) {
  double P[(K_CONV_KMAX + 1) * (K_CONV_KMAX + 1)];
  k_conv_prefix(f->w, f->ks, P);
  /* the weight depends on the rows / columns cut by each edge: the first and last r + 1
   * positions of each axis cover every case */
  int ny = 0, nx = 0, ys[4 * K_CONV_KMAX + 4], xs[4 * K_CONV_KMAX + 4];
  for (int y = 0; y < H; y++)
    if (y <= f->r || y >= H - 1 - f->r) ys[ny++] = y;
    else if (ys[ny - 1] != f->r + 1) ys[ny++] = f->r + 1;
  for (int x = 0; x < W; x++)
    if (x <= f->r || x >= W - 1 - f->r) xs[nx++] = x;
    else if (xs[nx - 1] != f->r + 1) xs[nx++] = f->r + 1;
  double tiny = 1e-12 * f->sum_abs;
  for (int a = 0; a < ny; a++)
    for (int b = 0; b < nx; b++)
      if (fabs(k_conv_inside_weight(P, f->ks, f->r, H, W, ys[a], xs[b])) <= tiny) {
        *zy = ys[a];
        *zx = xs[b];
        return 1;
      }
  return 0;
}

/* The halo transport of the grid (app/comm: NCCL point-to-point when every rank drives its own
 * device, else MPI; [debug] host_coll: the device path with MPI underneath) and its log line.
 * Collective. */
static int conv_grid_transport(hy_ctx *ctx, const conv_opts *o, conv_grid *gr) {
  HY_CALL(hy_grid_make(gr->cart, gr->P, gr->Q, &gr->hg));
  HY_CALL(hy_bcast_open(&gr->hg, &ctx->be, o->halo, "conv.halo", ctx->debug.host_coll, &gr->xc));
  hy_bcast_describe(gr->xc, gr->xdesc, sizeof gr->xdesc);
  return HY_OK;
}

/* The grid, this rank's tile and the checks on them.  Collective. */
int conv_grid_build(hy_ctx *ctx, const conv_opts *o, const conv_filter *f, int H, int W, int C,
                    conv_grid *gr) {
  memset(gr, 0, sizeof *gr);
  gr->P = o->P;
  gr->Q = o->Q;
  if (gr->P == 0) conv_grid_auto(ctx->size, H, W, &gr->P, &gr->Q);
  int r = f->r, zy = 0, zx = 0;
  if (H / gr->P < r || W / gr->Q < r)
    return hy_err(HY_EUSAGE, "conv: a %d x %d image on a %dx%d grid gives tiles of %d x %d pixels, smaller than "
                  "the halo ksize / 2 = %d (allowed: tiles of at least %d x %d: fewer ranks, conv.grid, or a "
                  "smaller ksize)", H, W, gr->P, gr->Q, H / gr->P, W / gr->Q, r, r, r);
  if (o->boundary == CONV_BND_RENORM && conv_weight_zero(f, H, W, &zy, &zx))
    return hy_err(HY_EUSAGE, "conv: kernel %s with boundary renormalise: the weight of the taps inside the image "
                  "is 0 at pixel (row %d, column %d) (the sum is divided by it; allowed there: boundary = zero, "
                  "clamp or reflect)", f->desc, zy, zx);
  int dims[2] = { gr->P, gr->Q }, periods[2] = { 0, 0 }, coords[2];
  HY_MPI(MPI_Cart_create(ctx->comm, 2, dims, periods, 0, &gr->cart));
  int me;
  HY_MPI(MPI_Comm_rank(gr->cart, &me));
  HY_MPI(MPI_Cart_coords(gr->cart, me, 2, coords));
  gr->pr = coords[0];
  gr->pc = coords[1];
  HY_MPI(MPI_Cart_shift(gr->cart, 0, 1, &gr->nbr[K_CONV_NORTH], &gr->nbr[K_CONV_SOUTH]));
  HY_MPI(MPI_Cart_shift(gr->cart, 1, 1, &gr->nbr[K_CONV_WEST], &gr->nbr[K_CONV_EAST]));
  k_conv_geom *g = &gr->g;
  conv_tile_of(gr, H, W, gr->pr, gr->pc, &g->gy, &g->th, &g->gx, &g->tw);
  g->C = C;
  g->r = r;
  g->ks = f->ks;
  g->H = H;
  g->W = W;
  g->fp64 = o->fp64;
  g->renorm = o->boundary == CONV_BND_RENORM;
  return conv_grid_transport(ctx, o, gr);
}

/* Free the grid's transport and communicators.  Collective (the transport's close). */
void conv_grid_free(conv_grid *gr) {
  if (gr->xc) hy_bcast_close(gr->xc);
  gr->xc = NULL;
  if (gr->hg.row != MPI_COMM_NULL && gr->hg.row) hy_grid_free(&gr->hg);
  if (gr->cart != MPI_COMM_NULL && gr->cart) MPI_Comm_free(&gr->cart);
}

/* Copy tile rows between an image and a packed tile (to_tile: image -> tile).  Local. */
static void conv_copy_tile(const conv_image *img, int y0, int th, int x0, int tw, void *tile, int to_tile) {
  size_t es = img->fp64 ? 8 : 4, row = (size_t)tw * img->C * es;
  for (int y = 0; y < th; y++) {
    char *im = (char *)img->px + (((size_t)(y0 + y) * img->W + x0) * img->C) * es;
    char *t = (char *)tile + (size_t)y * row;
    if (to_tile) memcpy(t, im, row);
    else memcpy(im, t, row);
  }
}

/* Rank of grid position (pr, pc) in ctx->comm.  Collective-free (local). */
static int conv_rank_of(const conv_grid *gr, int pr, int pc) {
  int c[2] = { pr, pc }, rk = 0;
  MPI_Cart_rank(gr->cart, c, &rk);
  return rk;
}

/* Scatter rank 0's image to the tiles (one row datatype per tile).  Collective. */
int conv_scatter(hy_ctx *ctx, const conv_grid *gr, const conv_image *img, void *tile) {
  size_t es = img->fp64 ? 8 : 4;
  const k_conv_geom *g = &gr->g;
  if (ctx->rank == 0) {
    for (int pr = 0; pr < gr->P; pr++)
      for (int pc = 0; pc < gr->Q; pc++) {
        int y0, th, x0, tw, dst = conv_rank_of(gr, pr, pc);
        conv_tile_of(gr, img->H, img->W, pr, pc, &y0, &th, &x0, &tw);
        if (dst == 0) { conv_copy_tile(img, y0, th, x0, tw, tile, 1); continue; }
        void *buf = NULL;
        HY_MALLOC(buf, (size_t)th * tw * img->C * es);
        conv_copy_tile(img, y0, th, x0, tw, buf, 1);
        MPI_Datatype row;
        HY_MPI(MPI_Type_contiguous((int)((size_t)tw * img->C * es), MPI_BYTE, &row));
        HY_MPI(MPI_Type_commit(&row));
        HY_MPI(MPI_Send(buf, th, row, dst, 71, gr->cart));
        MPI_Type_free(&row);
        free(buf);
      }
  } else {
    MPI_Datatype row;
    HY_MPI(MPI_Type_contiguous((int)((size_t)g->tw * g->C * es), MPI_BYTE, &row));
    HY_MPI(MPI_Type_commit(&row));
    HY_MPI(MPI_Recv(tile, g->th, row, 0, 71, gr->cart, MPI_STATUS_IGNORE));
    MPI_Type_free(&row);
  }
  return HY_OK;
}

/* Gather the tiles into rank 0's image.  Collective. */
int conv_gather(hy_ctx *ctx, const conv_grid *gr, const void *tile, conv_image *img) {
  size_t es = img->fp64 ? 8 : 4;
  const k_conv_geom *g = &gr->g;
  if (ctx->rank == 0) {
    for (int pr = 0; pr < gr->P; pr++)
      for (int pc = 0; pc < gr->Q; pc++) {
        int y0, th, x0, tw, src = conv_rank_of(gr, pr, pc);
        conv_tile_of(gr, img->H, img->W, pr, pc, &y0, &th, &x0, &tw);
        if (src == 0) { conv_copy_tile(img, y0, th, x0, tw, (void *)tile, 0); continue; }
        void *buf = NULL;
        HY_MALLOC(buf, (size_t)th * tw * img->C * es);
        MPI_Datatype row;
        HY_MPI(MPI_Type_contiguous((int)((size_t)tw * img->C * es), MPI_BYTE, &row));
        HY_MPI(MPI_Type_commit(&row));
        HY_MPI(MPI_Recv(buf, th, row, src, 72, gr->cart, MPI_STATUS_IGNORE));
        MPI_Type_free(&row);
        conv_copy_tile(img, y0, th, x0, tw, buf, 0);
        free(buf);
      }
  } else {
    MPI_Datatype row;
    HY_MPI(MPI_Type_contiguous((int)((size_t)g->tw * g->C * es), MPI_BYTE, &row));
    HY_MPI(MPI_Type_commit(&row));
    HY_MPI(MPI_Send(tile, g->th, row, 0, 72, gr->cart));
    MPI_Type_free(&row);
  }
  return HY_OK;
}
