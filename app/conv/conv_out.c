/* conv_out.c - what the conv workload writes (rank 0, every file atomically: a temporary name,
 * then a rename): the image as PNG (the input's bit depth, values clamped to [0, 1] and
 * rounded) or .npy (H x W x C, float32 / float64), the filter as a Matrix Market array. */
#include "conv.h"
#include "io/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HYBRID_HAVE_PNG
#include <png.h>
#endif

/* Element e of an image as a double.  Local. */
static double conv_px(const conv_image *img, size_t e) {
  return img->fp64 ? ((const double *)img->px)[e] : ((const float *)img->px)[e];
}

/* Write an H x W x C .npy.  Local. */
int conv_write_npy(const char *path, const conv_image *img) {
  char tmp[4096];
  FILE *f = NULL;
  HY_CALL(io_atomic_open(path, tmp, sizeof tmp, &f));
  int64_t shape[3] = { img->H, img->W, img->C };
  int ok = io_npy_write_header(f, img->fp64 ? "<f8" : "<f4", 3, shape);
  size_t ne = (size_t)img->H * img->W * img->C;   /* little-endian host assumed (x86-64, aarch64) */
  ok = ok && fwrite(img->px, img->fp64 ? 8 : 4, ne, f) == ne;
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  if (!ok) return hy_err(HY_ESYS, "%s: write failed", path);
  return HY_OK;
}

#ifdef HYBRID_HAVE_PNG
/* The rows of img through libpng into an open file.  Local. */
static int conv_png_put(FILE *fp, const conv_image *img, unsigned char *rowbuf) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  if (!png) return 0;
  png_infop info = png_create_info_struct(png);
  if (!info) { png_destroy_write_struct(&png, NULL); return 0; }
  if (setjmp(png_jmpbuf(png))) { png_destroy_write_struct(&png, &info); return 0; }
  static const int types[5] = { 0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGBA };
  int bd = img->bit_depth == 16 ? 16 : 8;
  png_init_io(png, fp);
  png_set_IHDR(png, info, (png_uint_32)img->W, (png_uint_32)img->H, bd, types[img->C], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (bd == 16) png_set_swap(png);
  double mx = bd == 16 ? 65535.0 : 255.0;
  size_t n = (size_t)img->W * img->C;
  for (int y = 0; y < img->H; y++) {
    for (size_t e = 0; e < n; e++) {
      double v = conv_px(img, (size_t)y * n + e);
      v = !(v > 0) ? 0 : v > 1 ? 1 : v;
      long q = lround(v * mx);
      if (bd == 16) ((uint16_t *)rowbuf)[e] = (uint16_t)q;
      else rowbuf[e] = (unsigned char)q;
    }
    png_write_row(png, rowbuf);
  }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 1;
}
#endif

/* Write the image as PNG.  Local. */
int conv_write_png(const char *path, const conv_image *img) {
#ifndef HYBRID_HAVE_PNG
  return hy_err(HY_EUSAGE, "output.image = %s: this binary was built without libpng", path);
#else
  unsigned char *row = NULL;
  HY_MALLOC(row, (size_t)img->W * img->C * 2);
  char tmp[4096];
  FILE *f = NULL;
  int rc = io_atomic_open(path, tmp, sizeof tmp, &f);
  if (rc) { free(row); return rc; }
  int ok = conv_png_put(f, img, row);
  free(row);
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  if (!ok) return hy_err(HY_ESYS, "%s: libpng failed to write the image", path);
  return HY_OK;
#endif
}

/* Write the filter as a ks x ks Matrix Market array.  Local. */
int conv_write_kernel(const char *path, const conv_filter *f) {
  hy_dense d = { f->ks, f->ks, NULL };
  HY_MALLOC(d.a, (size_t)f->ks * f->ks);
  for (int i = 0; i < f->ks; i++)
    for (int j = 0; j < f->ks; j++) d.a[(size_t)j * f->ks + i] = f->w[i * f->ks + j];
  int rc = io_mm_write_dense(path, &d, f->desc);
  free(d.a);
  return rc;
}
