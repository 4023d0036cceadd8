/* conv_load.c - the conv workload's inputs: the filter (sharpen, box, gaussian, laplacian, or a
 * small Matrix Market / CSV file) and the image (generated from the seed, or a PNG read by
 * libpng: gray, gray+alpha, RGB, RGBA, palette, 1..16 bit, values scaled to [0, 1]). */
#include "conv.h"
#include "io/io.h"
#include "runtime/rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HYBRID_HAVE_PNG
#include <png.h>
#endif

/* Free an image.  Local. */
void conv_image_free(conv_image *img) {
  free(img->px);
  img->px = NULL;
}

/* Read a CSV kernel: rows of numbers separated by commas or blanks, '#' comments.  Local. */
static int conv_read_csv_kernel(const char *path, conv_filter *f) {
  FILE *fp = fopen(path, "r");
  if (!fp) return hy_err(HY_EINPUT, "%s: cannot open the kernel file: %s", path, strerror(errno));
  char line[8192];
  int rows = 0, cols = -1, ln = 0;
  double *w = f->w;
  while (fgets(line, sizeof line, fp)) {
    ln++;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == '\n' || *s == '\r' || !*s) continue;
    int n = 0;
    for (;;) {
      while (*s == ' ' || *s == '\t' || *s == ',') s++;
      if (*s == '\n' || *s == '\r' || !*s) break;
      char *end;
      double v = strtod(s, &end);
      if (end == s || !isfinite(v)) {
        fclose(fp);
        return hy_err(HY_EINPUT, "%s:%d: column %d is not a finite number", path, ln, n + 1);
      }
      if (rows >= K_CONV_KMAX || n >= K_CONV_KMAX) {
        fclose(fp);
        return hy_err(HY_EINPUT, "%s:%d: the kernel exceeds %d x %d", path, ln, K_CONV_KMAX, K_CONV_KMAX);
      }
      w[rows * K_CONV_KMAX + n++] = v;   /* stride KMAX until the size is known */
      s = end;
    }
    if (cols >= 0 && n != cols) {
      fclose(fp);
      return hy_err(HY_EINPUT, "%s:%d: %d values, the rows above have %d", path, ln, n, cols);
    }
    cols = n;
    rows++;
  }
  fclose(fp);
  if (rows == 0) return hy_err(HY_EINPUT, "%s: no kernel rows", path);
  if (rows != cols || rows % 2 == 0)
    return hy_err(HY_EINPUT, "%s: the kernel is %d x %d (allowed: square, odd size 1..%d)", path, rows, cols, K_CONV_KMAX);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < rows; j++) w[i * rows + j] = w[i * K_CONV_KMAX + j];
  f->ks = rows;
  return HY_OK;
}

/* Read the kernel file: Matrix Market by its banner, else CSV.  Local. */
static int conv_read_kernel(const char *path, conv_filter *f) {
  FILE *fp = fopen(path, "r");
  if (!fp) return hy_err(HY_EINPUT, "%s: cannot open the kernel file: %s", path, strerror(errno));
  char head[16] = "";
  size_t n = fread(head, 1, sizeof head - 1, fp);
  head[n] = 0;
  fclose(fp);
  if (strncmp(head, "%%MatrixMarket", 14)) return conv_read_csv_kernel(path, f);
  io_mm_info info;
  HY_CALL(io_mm_info_read(path, &info));
  if (info.m != info.n || info.m % 2 == 0 || info.m > K_CONV_KMAX)
    return hy_err(HY_EINPUT, "%s: the kernel is %lld x %lld (allowed: square, odd size 1..%d)", path,
                  (long long)info.m, (long long)info.n, K_CONV_KMAX);
  hy_dense d = { 0, 0, NULL };
  HY_CALL(io_mm_read_dense(path, &d));
  f->ks = (int)d.m;
  for (int i = 0; i < f->ks; i++)
    for (int j = 0; j < f->ks; j++) f->w[i * f->ks + j] = d.a[(size_t)j * d.m + i];
  io_dense_free(&d);
  return HY_OK;
}

/* The named kernels.  Local. */
static void conv_named_kernel(const conv_opts *o, conv_filter *f) {
  int ks = o->ksize, r = ks / 2;
  f->ks = ks;
  for (int e = 0; e < ks * ks; e++) f->w[e] = 0;
  if (o->kernel == CONV_K_SHARPEN || o->kernel == CONV_K_LAPLACIAN) {
    double arm = o->kernel == CONV_K_SHARPEN ? -1 : 1;
    for (int t = 0; t < ks; t++) {
      f->w[r * ks + t] = arm;
      f->w[t * ks + r] = arm;
    }
    f->w[r * ks + r] = o->kernel == CONV_K_SHARPEN ? 4.0 * r + 1 : -4.0 * r;
    snprintf(f->desc, sizeof f->desc, "%s %dx%d (centre %g, %g on the centre row and column)",
             o->kernel == CONV_K_SHARPEN ? "sharpen" : "laplacian", ks, ks, f->w[r * ks + r], arm);
    return;
  }
  double s = o->sigma > 0 ? o->sigma : 0.3 * ((ks - 1) * 0.5 - 1) + 0.8, sum = 0;
  for (int t = 0; t < ks; t++) {
    f->w1[t] = o->kernel == CONV_K_BOX ? 1.0 : exp(-(double)(t - r) * (t - r) / (2 * s * s));
    sum += f->w1[t];
  }
  for (int t = 0; t < ks; t++) f->w1[t] /= sum;
  for (int i = 0; i < ks; i++)
    for (int j = 0; j < ks; j++) f->w[i * ks + j] = f->w1[i] * f->w1[j];
  f->separable = 1;
  if (o->kernel == CONV_K_BOX) snprintf(f->desc, sizeof f->desc, "box %dx%d", ks, ks);
  else snprintf(f->desc, sizeof f->desc, "gaussian %dx%d, sigma %.4g", ks, ks, s);
}

/* Build the filter (a file is read here).  Local (rank 0; the result is broadcast). */
int conv_filter_build(const conv_opts *o, conv_filter *f) {
  memset(f, 0, sizeof *f);
  if (o->kernel == CONV_K_FILE) {
    HY_CALL(conv_read_kernel(o->kernel_file, f));
    const char *b = strrchr(o->kernel_file, '/');
    snprintf(f->desc, sizeof f->desc, "file %.100s %dx%d", b ? b + 1 : o->kernel_file, f->ks, f->ks);
  } else {
    conv_named_kernel(o, f);
  }
  f->r = f->ks / 2;
  for (int e = 0; e < f->ks * f->ks; e++) {
    f->sum += f->w[e];
    f->sum_abs += fabs(f->w[e]);
  }
  if (!(f->sum_abs > 0)) return hy_err(HY_EINPUT, "conv: the kernel is all zeros");
  return HY_OK;
}

/* A generated image: 8-bit levels k / 255 from the seed, per pixel and channel.  Local. */
static int conv_generate(const conv_opts *o, conv_image *img) {
  img->H = o->height;
  img->W = o->width;
  img->C = o->channels;
  img->fp64 = o->fp64;
  img->bit_depth = 8;
  size_t ne = (size_t)img->H * img->W * img->C;
  HY_MALLOC(img->px, ne * (o->fp64 ? 8 : 4));
  for (size_t e = 0; e < ne; e++) {
    double v = (double)(hy_rand_u64(o->seed, 0xC0C0, e) >> 56) / 255.0;
    if (o->fp64) ((double *)img->px)[e] = v;
    else ((float *)img->px)[e] = (float)v;
  }
  return HY_OK;
}

#ifdef HYBRID_HAVE_PNG
/* libpng error handler: keep the message, jump back.  Local. */
static void conv_png_error(png_structp png, png_const_charp msg) {
  char *buf = (char *)png_get_error_ptr(png);
  snprintf(buf, 256, "%s", msg);
  png_longjmp(png, 1);
}

/* Read the rows of an open PNG file into img.  Local. */
static int conv_png_rows(FILE *fp, const char *path, int fp64, conv_image *img) {
  char msg[256] = "";
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, msg, conv_png_error, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info) {
    png_destroy_read_struct(&png, &info, NULL);
    return hy_err(HY_ESYS, "%s: libpng could not start", path);
  }
  unsigned char *volatile raw = NULL;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    free(raw);
    return hy_err(HY_EINPUT, "%s: not a readable PNG: %s", path, msg);
  }
  png_init_io(png, fp);
  png_read_info(png, info);
  int ct = png_get_color_type(png, info), bd = png_get_bit_depth(png, info);
  if (ct == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (ct == PNG_COLOR_TYPE_GRAY && bd < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (bd == 16) png_set_swap(png);
  png_read_update_info(png, info);
  img->W = (int)png_get_image_width(png, info);
  img->H = (int)png_get_image_height(png, info);
  img->C = png_get_channels(png, info);
  img->bit_depth = png_get_bit_depth(png, info);
  img->fp64 = fp64;
  size_t rowb = png_get_rowbytes(png, info);
  if ((double)rowb * img->H > (double)io_mem_limit())
    png_error(png, "image too large for the memory limit");
  raw = malloc(rowb * (size_t)img->H);
  if (!raw) png_error(png, "out of memory for the image rows");
  png_bytep *rows = malloc(sizeof *rows * (size_t)img->H);
  if (!rows) png_error(png, "out of memory for the row pointers");
  for (int y = 0; y < img->H; y++) rows[y] = raw + rowb * (size_t)y;
  png_read_image(png, rows);
  free(rows);
  png_destroy_read_struct(&png, &info, NULL);
  size_t ne = (size_t)img->H * img->W * img->C;
  HY_MALLOC(img->px, ne * (fp64 ? 8 : 4));
  double scale = img->bit_depth == 16 ? 65535.0 : 255.0;
  for (size_t e = 0; e < ne; e++) {
    double v = (img->bit_depth == 16 ? ((const uint16_t *)raw)[e] : raw[e]) / scale;
    if (fp64) ((double *)img->px)[e] = v;
    else ((float *)img->px)[e] = (float)v;
  }
  free(raw);
  return HY_OK;
}
#endif

/* Read a PNG (see conv.h).  Local. */
int conv_png_read(const char *path, int fp64, conv_image *img) {
#ifndef HYBRID_HAVE_PNG
  return hy_err(HY_EUSAGE, "conv.file = %s: this binary was built without libpng", path);
#else
  FILE *fp = fopen(path, "rb");
  if (!fp) return hy_err(HY_EINPUT, "%s: cannot open the image: %s", path, strerror(errno));
  unsigned char sig[8];
  if (fread(sig, 1, 8, fp) != 8 || png_sig_cmp(sig, 0, 8)) {
    fclose(fp);
    return hy_err(HY_EINPUT, "%s: not a PNG file (the first 8 bytes are not the PNG signature)", path);
  }
  rewind(fp);
  int rc = conv_png_rows(fp, path, fp64, img);
  fclose(fp);
  if (rc == HY_OK && (img->C < 1 || img->C > K_CONV_CMAX))
    rc = hy_err(HY_EINPUT, "%s: %d channels (allowed 1..%d)", path, img->C, K_CONV_CMAX);
  return rc;
#endif
}

/* Rank 0 generates or reads the image; every rank learns its size.  Collective. */
int conv_load_image(hy_ctx *ctx, const conv_opts *o, conv_image *img) {
  memset(img, 0, sizeof *img);
  double px = (double)o->width * o->height * o->channels * (o->fp64 ? 8 : 4);
  if (o->generate)   /* the whole image on rank 0 and the tiles: 2 images over the ranks */
    HY_CALL(hy_mem_check(ctx, 2.0 * px / ctx->size, px / ctx->size, "the image on rank 0 and the tiles, at least",
                         "conv.width x height x channels = %d x %d x %d", o->width, o->height, o->channels));
  int rc = HY_OK;
  if (ctx->rank == 0) rc = o->generate ? conv_generate(o, img) : conv_png_read(o->file, o->fp64, img);
  HY_CALL(hy_agree(ctx->comm, rc));
  int hdr[5] = { img->H, img->W, img->C, img->bit_depth, img->fp64 };
  HY_MPI(MPI_Bcast(hdr, 5, MPI_INT, 0, ctx->comm));
  img->H = hdr[0];
  img->W = hdr[1];
  img->C = hdr[2];
  img->bit_depth = hdr[3];
  img->fp64 = hdr[4];
  return HY_OK;
}
