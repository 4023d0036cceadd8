/* conv.c - workload "conv" (seed 002: image convolution): a PNG or generated image filtered
 * `passes` times by a ksize x ksize kernel on a 2D Cartesian grid of ranks, each rank owning a
 * tile, a halo of ksize/2 rows and columns exchanged every pass (the interior computed while
 * it travels), the image gathered, checked against a host double reference, written.
 * The key table, the typed options and the staged driver: load -> build -> solve -> check ->
 * report. */
#include "conv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cfg_key conv_keys[] = {
  { "conv", "image", CFG_ENUM, "generate", 0, 0, "generate|file", "the image: generated (seeded, width x height x channels) or a PNG file" },
  { "conv", "file", CFG_STR, "", 0, 0, NULL, "image = file: the PNG (gray, gray+alpha, RGB, RGBA, palette; 8 or 16 bit)" },
  { "conv", "width", CFG_INT, "512", 1, 1 << 20, NULL, "image = generate: columns" },
  { "conv", "height", CFG_INT, "384", 1, 1 << 20, NULL, "image = generate: rows" },
  { "conv", "channels", CFG_INT, "4", 1, 4, NULL, "image = generate: channels (1 gray .. 4 RGBA)" },
  { "conv", "precision", CFG_ENUM, "float", 0, 0, "float|double", "element type of the image and the arithmetic (the seed: float)" },
  { "conv", "kernel", CFG_ENUM, "sharpen", 0, 0, "sharpen|box|gaussian|laplacian|file",
    "the filter: sharpen (centre 4r+1, -1 on the centre row and column), box, gaussian, laplacian (centre -4r, 1 on the centre row and column), file" },
  { "conv", "kernel_file", CFG_STR, "", 0, 0, NULL, "kernel = file: a square odd Matrix Market array/coordinate matrix or a CSV of rows" },
  { "conv", "ksize", CFG_INT, "3", 1, K_CONV_KMAX, NULL, "kernel size (odd, 1..63; kernel = file: taken from the file)" },
  { "conv", "sigma", CFG_REAL, "0", 0, 1e6, NULL, "gaussian: standard deviation in pixels; 0: 0.3 ((ksize - 1) / 2 - 1) + 0.8 (OpenCV's rule)" },
  { "conv", "boundary", CFG_ENUM, "renormalise", 0, 0, "renormalise|zero|clamp|reflect",
    "taps outside the image: renormalise (the seed: skipped, the sum divided by the weight of the taps inside), zero, clamp (edge pixel), reflect (d c b a | a b c d)" },
  { "conv", "passes", CFG_INT, "1", 1, 100000, NULL, "apply the filter this many times (a halo exchange per pass)" },
  { "conv", "halo", CFG_ENUM, "auto", 0, 0, "auto|nccl|mpi",
    "halo transport: auto (NCCL point-to-point between device buffers when every rank drives its own GPU, else MPI through pinned host memory), nccl (that or a config error), mpi" },
  { "conv", "grid", CFG_GRID, "auto", 0, 0, NULL, "process grid PxQ (P rows of tiles, Q columns; P * Q = ranks); auto: the smallest tile perimeter" },
  { "conv", "algorithm", CFG_ENUM, "tiled", 0, 0, "naive|tiled|separable|fft|vendor",
    "naive (the seed: one thread per pixel, all channels), tiled (shared-memory tile with halo), separable (two 1D passes: box, gaussian), fft (cuFFT), vendor (cuDNN; host: the naive C loop)" },
  { "conv", "compare", CFG_STR, "auto", 0, 0, NULL,
    "variants also run and timed in the same run (comma list of the algorithm names, none, or auto: the vendor variant where the backend has a vendor library)" },
  { "conv", "check_samples", CFG_INT, "4096", 0, 1e9, NULL, "pixels compared with the double reference (0: all); all pixels when the reference is cheap" },
  { "conv", "check_budget", CFG_REAL, "2e8", 1e3, 1e13, NULL, "multiply-adds the reference may spend (the sample shrinks to fit, at least 64 pixels + corners)" },
  { "output", "image", CFG_STR, "", 0, 0, NULL, "conv: write the result as PNG (the input's bit depth, values clamped to [0, 1])" },
  { "output", "npy", CFG_STR, "", 0, 0, NULL, "conv: write the result as .npy (H x W x C, float32 or float64)" },
  { "output", "source", CFG_STR, "", 0, 0, NULL, "conv: write the input image as .npy (for hybrid-validate conv)" },
  { "output", "kernel", CFG_STR, "", 0, 0, NULL, "conv: write the filter as a Matrix Market array (for hybrid-validate conv)" },
  CFG_END
};

const char *const conv_variant_names[K_CONV_NVAR] = { "naive", "tiled", "separable", "fft", "vendor" };
static const char *const conv_kernel_names[] = { "sharpen", "box", "gaussian", "laplacian", "file" };

/* Index of a variant name, -1 if none.  Local. */
static int conv_variant_index(const char *s, size_t n) {
  for (int v = 0; v < K_CONV_NVAR; v++)
    if (strlen(conv_variant_names[v]) == n && !strncmp(conv_variant_names[v], s, n)) return v;
  return -1;
}

/* The typed options from the configuration (the only cfg_* calls of the workload).  Local. */
int conv_opts_from_cfg(const hy_cfg *c, conv_opts *o) {
  memset(o, 0, sizeof *o);
  o->generate = cfg_is(c, "conv.image", "generate");
  snprintf(o->file, sizeof o->file, "%s", cfg_str(c, "conv.file"));
  o->width = (int)cfg_int(c, "conv.width");
  o->height = (int)cfg_int(c, "conv.height");
  o->channels = (int)cfg_int(c, "conv.channels");
  o->fp64 = cfg_is(c, "conv.precision", "double");
  o->kernel = cfg_enum(c, "conv.kernel");
  snprintf(o->kernel_file, sizeof o->kernel_file, "%s", cfg_str(c, "conv.kernel_file"));
  o->ksize = (int)cfg_int(c, "conv.ksize");
  o->sigma = cfg_real(c, "conv.sigma");
  o->boundary = cfg_enum(c, "conv.boundary");
  o->passes = (int)cfg_int(c, "conv.passes");
  cfg_grid(c, "conv.grid", &o->P, &o->Q);
  o->halo = cfg_enum(c, "conv.halo");   /* 0 auto, 1 nccl, 2 mpi: as HY_BCAST_* */
  o->algorithm = cfg_enum(c, "conv.algorithm");
  o->check_samples = cfg_int(c, "conv.check_samples");
  o->check_budget = cfg_real(c, "conv.check_budget");
  o->seed = (uint64_t)cfg_int(c, "run.seed");
  snprintf(o->out_png, sizeof o->out_png, "%s", cfg_str(c, "output.image"));
  snprintf(o->out_npy, sizeof o->out_npy, "%s", cfg_str(c, "output.npy"));
  snprintf(o->out_input, sizeof o->out_input, "%s", cfg_str(c, "output.source"));
  snprintf(o->out_kernel, sizeof o->out_kernel, "%s", cfg_str(c, "output.kernel"));
  const char *s = cfg_str(c, "conv.compare");
  if (!strcmp(s, "auto")) { o->compare_auto = 1; return HY_OK; }
  if (!strcmp(s, "none") || !s[0]) return HY_OK;
  while (*s) {
    size_t n = strcspn(s, ",");
    int v = conv_variant_index(s, n);
    if (v < 0)
      return cfg_err(c, "conv.compare", "= '%s': '%.*s' is not a variant (allowed: a comma list of "
                     "naive, tiled, separable, fft, vendor; none; auto)", cfg_str(c, "conv.compare"), (int)n, s);
    if (v != o->algorithm) o->compare[v] = 1;
    s += n + (s[n] == ',');
  }
  return HY_OK;
}

/* Cross-key rules.  Local (rank 0). */
static int conv_check_cfg(hy_cfg *c) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  conv_opts o;
  HY_CALL(conv_opts_from_cfg(c, &o));
  if (!o.generate && !o.file[0]) return cfg_err(c, "conv.file", "is required when conv.image = file");
  if (o.kernel == CONV_K_FILE && !o.kernel_file[0])
    return cfg_err(c, "conv.kernel_file", "is required when conv.kernel = file");
  if (o.kernel != CONV_K_FILE && o.ksize % 2 == 0)
    return cfg_err(c, "conv.ksize", "= %d is even (allowed: an odd size 1..%d)", o.ksize, K_CONV_KMAX);
  if (o.kernel == CONV_K_LAPLACIAN && o.ksize < 3)
    return cfg_err(c, "conv.ksize", "= %d: kernel laplacian needs ksize >= 3", o.ksize);
  if (o.P > 0 && o.P * o.Q != size)
    return cfg_err(c, "conv.grid", "= %dx%d needs %d ranks, but the run has %d (allowed: PxQ with P * Q = %d, or auto)",
                   o.P, o.Q, o.P * o.Q, size, size);
  if (o.algorithm == K_CONV_SEPARABLE && o.kernel != CONV_K_BOX && o.kernel != CONV_K_GAUSSIAN)
    return cfg_err(c, "conv.algorithm", "= separable needs a separable kernel (allowed: kernel = box or gaussian; "
                   "here kernel = %s)", conv_kernel_names[o.kernel]);
  if (o.compare[K_CONV_SEPARABLE] && o.kernel != CONV_K_BOX && o.kernel != CONV_K_GAUSSIAN)
    return cfg_err(c, "conv.compare", "names separable, which needs kernel = box or gaussian (here %s)",
                   conv_kernel_names[o.kernel]);
  return HY_OK;
}

/* Run the algorithm and the compared variants: solve, gather, check each.  Collective. */
static int conv_variants(hy_ctx *ctx, const conv_opts *o, const conv_grid *gr, const conv_filter *f,
                         const conv_image *img, const void *tile, void *otile, conv_image *res,
                         conv_info *info) {
  const k_conv_ops *ops = k_conv_ops_get(&ctx->be);
  int list[K_CONV_NVAR + 1], n = 0;
  list[n++] = o->algorithm;
  for (int v = 0; v < K_CONV_NVAR; v++)
    if (v != o->algorithm && (o->compare[v] || (o->compare_auto && v == K_CONV_VENDOR && ops->vendor_name)))
      list[n++] = v;
  int m = 0;
  for (int k = 0; k < n; k++) {
    conv_run *run = &info->runs[m];
    hy_phase_begin(ctx, "solve");
    int src = conv_solve(ctx, o, gr, f, list[k], tile, otile, run);
    hy_phase_end(ctx, "solve");
    if (src != HY_OK && k > 0 && !o->compare[list[k]]) {
      /* compare = auto: the vendor library refused this tile (every rank agreed): say so, go on */
      hy_printf0(ctx, "conv: %s (compare = auto) not run: %s\n", ops->vendor_name, hy_err_msg());
      hy_metric_str(ctx, "vendor_skipped", hy_err_msg());
      hy_err_clear();
      continue;
    }
    HY_CALL(src);
    hy_phase_begin(ctx, "check");
    HY_CALL(conv_gather(ctx, gr, otile, res));
    int rc = HY_OK;
    if (ctx->rank == 0) {
      if (m == 0 && ctx->debug.perturb != 0) {   /* [debug] perturb: the result, before its check */
        size_t ne = (size_t)res->H * res->W * res->C;
        for (size_t e = 0; e < ne; e++) {
          if (res->fp64) ((double *)res->px)[e] *= 1 + ctx->debug.perturb;
          else ((float *)res->px)[e] *= (float)(1 + ctx->debug.perturb);
        }
      }
      rc = conv_check(o, f, img, res, run, info->samples_desc, sizeof info->samples_desc);
      if (rc == HY_OK && m == 0 && o->out_png[0]) rc = conv_write_png(o->out_png, res);
      if (rc == HY_OK && m == 0 && o->out_npy[0]) rc = conv_write_npy(o->out_npy, res);
    }
    HY_CALL(hy_agree(ctx->comm, rc));
    HY_MPI(MPI_Bcast(run, (int)sizeof *run, MPI_BYTE, 0, ctx->comm));
    hy_phase_end(ctx, "check");
    m++;
  }
  info->nruns = m;
  return HY_OK;
}

/* The workload.  Collective. */
static int conv_main(hy_ctx *ctx) {
  conv_opts o;
  HY_CALL(conv_opts_from_cfg(ctx->cfg, &o));
  conv_filter f;
  conv_image img = { 0 }, res = { 0 };
  conv_grid gr;
  memset(&gr, 0, sizeof gr);
  conv_info info;
  memset(&info, 0, sizeof info);
  const k_conv_ops *ops = k_conv_ops_get(&ctx->be);
  if (!ops->v[o.algorithm].run)
    return hy_err(HY_EUSAGE, "conv.algorithm = %s is not available on the %s backend (this build has no %s "
                  "library for it)", conv_variant_names[o.algorithm], ops->name,
                  o.algorithm == K_CONV_FFT ? "FFT" : "vendor");
  for (int v = 0; v < K_CONV_NVAR; v++)
    if (o.compare[v] && !ops->v[v].run)
      return hy_err(HY_EUSAGE, "conv.compare names %s, which the %s backend does not have", conv_variant_names[v], ops->name);

  /* load: the filter (rank 0 reads a file, every rank gets it), the image on rank 0 */
  hy_phase_begin(ctx, "load");
  int rc = ctx->rank == 0 ? conv_filter_build(&o, &f) : HY_OK;
  HY_CALL(hy_agree(ctx->comm, rc));
  HY_MPI(MPI_Bcast(&f, (int)sizeof f, MPI_BYTE, 0, ctx->comm));
  HY_CALL(conv_load_image(ctx, &o, &img));
  hy_phase_end(ctx, "load");

  /* build: the grid and the tiles, the image scattered */
  hy_phase_begin(ctx, "build");
  HY_CALL(conv_grid_build(ctx, &o, &f, img.H, img.W, img.C, &gr));
  size_t tbytes = (size_t)gr.g.th * gr.g.tw * img.C * (o.fp64 ? 8 : 4);
  unsigned char *tile = NULL, *otile = NULL;
  HY_MALLOC(tile, tbytes);
  HY_MALLOC(otile, tbytes);
  memset(otile, 0, tbytes);   /* touched here once: its first-touch page faults were inside the first variant's device time */
  HY_CALL(conv_scatter(ctx, &gr, &img, tile));
  res = img;
  res.px = NULL;
  if (ctx->rank == 0) HY_MALLOC(res.px, (size_t)img.H * img.W * img.C * (o.fp64 ? 8 : 4));
  rc = HY_OK;
  if (ctx->rank == 0 && o.out_input[0]) rc = conv_write_npy(o.out_input, &img);
  if (rc == HY_OK && ctx->rank == 0 && o.out_kernel[0]) rc = conv_write_kernel(o.out_kernel, &f);
  HY_CALL(hy_agree(ctx->comm, rc));
  hy_phase_end(ctx, "build");
  info = (conv_info){ .o = &o, .f = &f, .grid = &gr, .H = img.H, .W = img.W, .C = img.C,
                      .backend = ctx->be.name, .vendor_name = ops->vendor_name,
                      .perturb = ctx->debug.perturb };
  conv_report_setup(ctx, &info);

  /* solve + check: the algorithm, then the compared variants */
  HY_CALL(conv_variants(ctx, &o, &gr, &f, &img, tile, otile, &res, &info));

  free(tile);
  free(otile);
  conv_image_free(&res);
  conv_image_free(&img);
  conv_grid_free(&gr);
  return conv_report(ctx, &info);
}

static const char conv_default[] =
  "; embedded default: a generated 512 x 384 RGBA image, the seed's sharpen, tiled\n"
  "[run]\nworkload = conv\n"
  "[conv]\nimage = generate\nkernel = sharpen\nksize = 3\n";

const hy_workload conv_workload = {
  "conv", "image convolution (seed 002): 2D tiles over a Cartesian grid, halo exchange, naive/tiled/separable/fft/vendor",
  conv_keys, conv_check_cfg, conv_main, conv_default,
};
