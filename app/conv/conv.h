/* conv.h - the conv workload's internal interface (seed 002: image convolution): typed options,
 * the image and the filter (load), the 2D decomposition over a Cartesian grid of ranks
 * (build), the passes with halo exchange (solve), the host double reference (check), the
 * outputs and the report. */
#ifndef HY_CONV_H
#define HY_CONV_H

#include <stdint.h>
#include "workload.h"
#include "k_conv.h"
#include "comm/comm.h"

enum { CONV_BND_RENORM = 0, CONV_BND_ZERO, CONV_BND_CLAMP, CONV_BND_REFLECT };
enum { CONV_K_SHARPEN = 0, CONV_K_BOX, CONV_K_GAUSSIAN, CONV_K_LAPLACIAN, CONV_K_FILE };

/* Every key of [conv] and the conv outputs, read once by conv_opts_from_cfg. */
typedef struct {
  int generate;              /* image = generate (else file) */
  char file[1024];           /* image = file: the PNG */
  int width, height, channels;
  int fp64;                  /* precision = double */
  int kernel;                /* CONV_K_* */
  char kernel_file[1024];
  int ksize;
  double sigma;
  int boundary;              /* CONV_BND_* */
  int passes;
  int P, Q;                  /* grid, 0 0 = auto */
  int halo;                  /* conv.halo: HY_BCAST_AUTO / _DEVICE (nccl) / _MPI */
  int algorithm;             /* K_CONV_* */
  int compare[K_CONV_NVAR];  /* variants also timed in the same run */
  int compare_auto;          /* compare = auto: the vendor library's variant where there is one */
  int64_t check_samples;     /* sampled pixels of the check (0: all) */
  double check_budget;       /* taps of the reference before the sample shrinks */
  uint64_t seed;
  char out_png[1024], out_npy[1024], out_input[1024], out_kernel[1024];
} conv_opts;

/* The image: H x W x C interleaved, float or double (rank 0 holds the whole one). */
typedef struct {
  int H, W, C;
  int fp64;
  int bit_depth;             /* of the PNG it came from (8 for generated images) */
  void *px;                  /* H * W * C elements */
} conv_image;

/* The filter: ks x ks weights (row-major double), the 1D factor when separable. */
typedef struct {
  int ks, r;
  double w[K_CONV_KMAX * K_CONV_KMAX];
  double w1[K_CONV_KMAX];
  int separable;
  double sum, sum_abs;
  char desc[160];
} conv_filter;

/* The decomposition: grid, this rank's coordinates and tile. */
typedef struct {
  MPI_Comm cart;
  int P, Q, pr, pc;
  int nbr[4];                /* ranks of the N, S, W, E neighbours, MPI_PROC_NULL at the edge */
  k_conv_geom g;             /* this rank's tile */
  hy_grid hg;                /* the same grid as app/comm's (rank = pr * Q + pc) */
  hy_bcast *xc;              /* its transport (conv.halo): NCCL point-to-point or MPI */
  char xdesc[600];           /* which, and why, for the log */
} conv_grid;

/* Times and results of one variant's passes. */
typedef struct {
  int variant;
  double device_s;           /* submission to completion, transfers and halo included (max over ranks) */
  double kernel_s;           /* the filter kernels alone (max over ranks) */
  double halo_s;             /* halo exchange (max over ranks) */
  double max_err;            /* check: max |out - ref| / (|K|^N |x| + tiny) over the sample */
  int64_t checked;           /* pixels compared */
  double ulp_bound;          /* tolerance */
  int passed;
} conv_run;

/* What the report prints. */
typedef struct {
  const conv_opts *o;
  const conv_filter *f;
  const conv_grid *grid;
  int H, W, C;
  const char *backend, *vendor_name;
  int nruns;
  conv_run runs[K_CONV_NVAR + 1];   /* [0] the algorithm, then the compared variants */
  double load_s;
  double perturb;
  char samples_desc[96];
} conv_info;

extern const char *const conv_variant_names[K_CONV_NVAR];

/* conv.c */
int conv_opts_from_cfg(const hy_cfg *c, conv_opts *o);

/* conv_load.c: rank 0 reads or generates the image; every rank builds the filter.  The
 * image load is collective (the outcome is agreed). */
int conv_load_image(hy_ctx *ctx, const conv_opts *o, conv_image *img);
int conv_filter_build(const conv_opts *o, conv_filter *f);   /* local; HY_EUSAGE / HY_EINPUT */
void conv_image_free(conv_image *img);
/* Read a PNG (gray, gray+alpha, RGB, RGBA, palette; 1..16 bit) into [0, 1] values.  Local. */
int conv_png_read(const char *path, int fp64, conv_image *img);

/* conv_grid.c: the Cartesian grid and tiles; checks that every tile holds at least r rows and
 * columns and that the inside weight is never 0.  Collective. */
int conv_grid_build(hy_ctx *ctx, const conv_opts *o, const conv_filter *f, int H, int W, int C,
                    conv_grid *gr);
void conv_grid_free(conv_grid *gr);
/* Rank 0's image to every rank's tile (tile: th x tw x C) / the tiles back into rank 0's
 * image.  Collective. */
int conv_scatter(hy_ctx *ctx, const conv_grid *gr, const conv_image *img, void *tile);
int conv_gather(hy_ctx *ctx, const conv_grid *gr, const void *tile, conv_image *img);
/* Tile of rank with coordinates (pr, pc): rows/cols start and count.  Local. */
void conv_tile_of(const conv_grid *gr, int H, int W, int pr, int pc, int *y0, int *th, int *x0, int *tw);

/* conv_halo.c: one pass's halo (north/south rows, then west/east columns of full padded
 * height, image edges by the boundary rule); the transport is chosen by table.  Collective
 * over the grid. */
typedef struct conv_halo conv_halo;
int conv_halo_create(k_backend *be, const conv_grid *gr, int boundary, conv_halo **h);
void conv_halo_free(conv_halo *h);
/* Start the north/south exchange (pack, post) / finish it and do west/east.  Collective. */
int conv_halo_begin(conv_halo *h, const k_conv_ops *ops, k_conv_plan *p);
int conv_halo_end(conv_halo *h, const k_conv_ops *ops, k_conv_plan *p, double *halo_s);

/* conv_solve.c: `passes` passes of variant v on this rank's tile (input: tile), result in
 * out_tile.  Collective over the grid. */
int conv_solve(hy_ctx *ctx, const conv_opts *o, const conv_grid *gr, const conv_filter *f, int v,
               const void *tile, void *out_tile, conv_run *run);

/* conv_check.c: rank 0 compares the result with a double reference of the sampled pixels.
 * Local (rank 0). */
int conv_check(const conv_opts *o, const conv_filter *f, const conv_image *in,
               const conv_image *out, conv_run *run, char *desc, size_t desclen);

/* conv_out.c: PNG / .npy of an image, the kernel as Matrix Market.  Local (rank 0). */
int conv_write_png(const char *path, const conv_image *img);
int conv_write_npy(const char *path, const conv_image *img);
int conv_write_kernel(const char *path, const conv_filter *f);

/* conv_report.c: every line, metric and the verdict.  Collective (rank 0 prints). */
void conv_report_setup(hy_ctx *ctx, const conv_info *in);
int conv_report(hy_ctx *ctx, const conv_info *in);

#endif
