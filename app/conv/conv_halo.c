/* conv_halo.c - one pass's halo of the conv workload: the north/south rows of the owned
 * columns first (started before the interior is computed), then the west/east columns of the
 * full padded height (so the corners arrive through the side neighbours); sides at the image's
 * edge are filled by the boundary rule instead.  The transport is an entry of a table
 * (conv_halo.h): MPI through pinned host memory, or the device one (NCCL point-to-point on
 * device buffers, queued on the halo stream) when the grid's app/comm transport is. */
#include "conv.h"
#include "conv_halo.h"

#include <stdlib.h>

struct conv_halo {
  const conv_grid *gr;
  k_backend *be;
  const conv_transport *tr;
  int rule;                  /* K_CONV_FILL_* at the image's edges */
  int ns_bytes, we_bytes;    /* bytes of one side's message */
  void *send[4], *recv[4];   /* per side: pinned host (MPI) or device buffers (device) */
  conv_xfer x;
};

/* Buffers and the transport for the grid's tile (*out is set first, also on failure).  Local. */
int conv_halo_create(k_backend *be, const conv_grid *gr, int boundary, conv_halo **out) {
  conv_halo *h = NULL;
  HY_CALLOC(h, 1);
  *out = h;   /* on a failure below the caller frees it (conv_halo_free) */
  h->gr = gr;
  h->be = be;
  h->tr = hy_bcast_is_device(gr->xc) ? &conv_transport_dev : &conv_transport_mpi;
  h->rule = boundary == CONV_BND_CLAMP ? K_CONV_FILL_CLAMP
          : boundary == CONV_BND_REFLECT ? K_CONV_FILL_REFLECT : K_CONV_FILL_ZERO;
  const k_conv_geom *g = &gr->g;
  size_t es = g->fp64 ? 8 : 4;
  size_t ns = (size_t)g->r * g->tw * g->C * es, we = (size_t)(g->th + 2 * g->r) * g->r * g->C * es;
  if (ns > (size_t)1 << 30 || we > (size_t)1 << 30)
    return hy_err(HY_EUSAGE, "conv: a halo message of %zu bytes is too large (at most 1 GiB)", ns > we ? ns : we);
  h->ns_bytes = (int)ns;
  h->we_bytes = (int)we;
  size_t mx = ns > we ? ns : we;
  for (int s = 0; s < 4 && g->r > 0; s++) {
    if (h->tr->device) {
      HY_CALL(be->ops->alloc(be, &h->send[s], mx));
      HY_CALL(be->ops->alloc(be, &h->recv[s], mx));
    } else {
      HY_CALL(be->ops->alloc_pinned(be, &h->send[s], mx));
      HY_CALL(be->ops->alloc_pinned(be, &h->recv[s], mx));
    }
  }
  return HY_OK;
}

/* Free the buffers.  Local. */
void conv_halo_free(conv_halo *h) {
  if (!h) return;
  int (*fr)(k_backend *, void *) = h->tr && h->tr->device ? h->be->ops->free : h->be->ops->free_pinned;
  for (int s = 0; s < 4; s++) {
    if (h->send[s]) fr(h->be, h->send[s]);
    if (h->recv[s]) fr(h->be, h->recv[s]);
  }
  free(h);
}

/* Pack the owned rows / columns that side s's neighbour needs (ns: north/south rows of the
 * owned columns; else west/east columns of every padded row).  Local. */
static k_conv_rect conv_edge_rect(const k_conv_geom *g, int s, int inside) {
  int r = g->r;
  k_conv_rect rc;
  if (s == K_CONV_NORTH || s == K_CONV_SOUTH) {
    rc.x0 = 0;
    rc.x1 = g->tw;
    if (s == K_CONV_NORTH) { rc.y0 = inside ? 0 : -r; rc.y1 = rc.y0 + r; }
    else { rc.y0 = inside ? g->th - r : g->th; rc.y1 = rc.y0 + r; }
  } else {
    rc.y0 = -r;
    rc.y1 = g->th + r;
    if (s == K_CONV_WEST) { rc.x0 = inside ? 0 : -r; rc.x1 = rc.x0 + r; }
    else { rc.x0 = inside ? g->tw - r : g->tw; rc.x1 = rc.x0 + r; }
  }
  return rc;
}

/* Pack and start one axis (0: north/south, 1: west/east).  Collective over the grid. */
static int conv_axis_start(conv_halo *h, const k_conv_ops *ops, k_conv_plan *p, int axis) {
  const conv_grid *gr = h->gr;
  int s0 = axis ? K_CONV_WEST : K_CONV_NORTH, s1 = s0 + 1, dev = h->tr->device;
  if (dev) HY_LOCAL(ops->halo_select(p, 1));   /* the messages queue on the halo stream */
  for (int s = s0; s <= s1; s++)
    if (gr->nbr[s] != MPI_PROC_NULL) {
      k_conv_rect rc = conv_edge_rect(&gr->g, s, 1);
      HY_LOCAL(dev ? ops->pack_dev(p, &rc, h->send[s]) : ops->pack(p, &rc, h->send[s]));
    }
  void *send[2] = { h->send[s0], h->send[s1] }, *recv[2] = { h->recv[s0], h->recv[s1] };
  int rc = h->tr->start(&h->x, gr, axis, send, recv, axis ? h->we_bytes : h->ns_bytes);
  if (dev) HY_LOCAL(ops->halo_select(p, 0));
  return rc;
}

/* Finish one axis: wait, unpack, fill the image's edges.  Collective over the grid. */
static int conv_axis_end(conv_halo *h, const k_conv_ops *ops, k_conv_plan *p, int axis) {
  const conv_grid *gr = h->gr;
  int s0 = axis ? K_CONV_WEST : K_CONV_NORTH;
  HY_CALL(h->tr->wait(&h->x));
  for (int s = s0; s <= s0 + 1; s++) {
    if (gr->nbr[s] != MPI_PROC_NULL) {
      k_conv_rect rc = conv_edge_rect(&gr->g, s, 0);
      HY_LOCAL(h->tr->device ? ops->unpack_dev(p, &rc, h->recv[s]) : ops->unpack(p, &rc, h->recv[s]));
    } else {
      HY_LOCAL(ops->fill(p, s, h->rule));
    }
  }
  return HY_OK;
}

/* Start the north/south exchange.  Collective over the grid. */
int conv_halo_begin(conv_halo *h, const k_conv_ops *ops, k_conv_plan *p) {
  if (h->gr->g.r == 0) return HY_OK;
  return conv_axis_start(h, ops, p, 0);
}

/* Finish north/south, then west/east.  Collective over the grid. */
int conv_halo_end(conv_halo *h, const k_conv_ops *ops, k_conv_plan *p, double *halo_s) {
  if (h->gr->g.r == 0) return HY_OK;
  double t0 = hy_wtime();
  HY_CALL(conv_axis_end(h, ops, p, 0));
  HY_CALL(conv_axis_start(h, ops, p, 1));
  HY_CALL(conv_axis_end(h, ops, p, 1));
  *halo_s += hy_wtime() - t0;
  return HY_OK;
}
