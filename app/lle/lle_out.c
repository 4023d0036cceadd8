/* lle_out.c - what the lle workload writes and measures: the embedding (CSV or .npy), a
 * scatter plot PNG through libpng coloured by the manifold parameter, and trustworthiness
 * (scikit-learn's sklearn.manifold.trustworthiness, over a seeded sample of query points). */
#include "lle.h"
#include "hybrid.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HYBRID_HAVE_PNG
#include <png.h>
#endif

/* 1 when path ends with ext.  Local. */
static int ends_with(const char *path, const char *ext) {
  size_t l = strlen(path), e = strlen(ext);
  return l >= e && !strcmp(path + l - e, ext);
}

/* Write the embedding (y column-major n x d) as CSV or .npy, atomically.  Local. */
int lle_write_embedding(const char *path, int64_t n, int d, const double *y) {
  char tmp[4096];
  FILE *f = NULL;
  HY_CALL(io_atomic_open(path, tmp, sizeof tmp, &f));
  int ok = 1;
  if (ends_with(path, ".npy")) {
    int64_t shape[2] = { n, d };
    ok = io_npy_write_header(f, "<f8", 2, shape);
    for (int64_t i = 0; ok && i < n; i++)
      for (int c = 0; ok && c < d; c++) {
        double v = y[(size_t)c * n + i];   /* little-endian host assumed (x86-64, aarch64) */
        ok = fwrite(&v, 8, 1, f) == 1;
      }
  } else {
    for (int c = 0; c < d; c++) fprintf(f, "%se%d", c ? "," : "", c + 1);
    fputc('\n', f);
    for (int64_t i = 0; ok && i < n; i++) {
      for (int c = 0; c < d; c++) fprintf(f, "%s%.17g", c ? "," : "", y[(size_t)c * n + i]);
      ok = fputc('\n', f) != EOF;
    }
  }
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  if (!ok) return hy_err(HY_ESYS, "%s: write failed", path);
  return HY_OK;
}

/* A viridis-like colour for u in [0, 1].  Local. */
static void colormap(double u, unsigned char rgb[3]) {
  static const double a[5][3] = { { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 } };
  if (!(u >= 0)) u = 0;
  if (u > 1) u = 1;
  double s = u * 4;
  int i = (int)s;
  if (i > 3) i = 3;
  double f = s - i;
  for (int c = 0; c < 3; c++) rgb[c] = (unsigned char)lround(a[i][c] * (1 - f) + a[i + 1][c] * f);
}

#ifdef HYBRID_HAVE_PNG
/* Write an RGB image with libpng to an open file.  Local. */
static int png_put(FILE *f, int w, int h, unsigned char *img) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  if (!png) return 0;
  png_infop info = png_create_info_struct(png);
  if (!info) { png_destroy_write_struct(&png, NULL); return 0; }
  if (setjmp(png_jmpbuf(png))) { png_destroy_write_struct(&png, &info); return 0; }
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int r = 0; r < h; r++) png_write_row(png, img + (size_t)r * w * 3);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 1;
}
#endif

/* Scatter plot of (e1, e2) coloured by t (or by point index when t is NaN).  Local. */
int lle_write_plot(const char *path, int64_t n, int d, const double *y, const double *t) {
#ifndef HYBRID_HAVE_PNG
  return hy_err(HY_EUSAGE, "output.plot = %s: this binary was built without libpng", path);
#else
  const int W = 800, H = 800, M = 20;
  unsigned char *img = malloc((size_t)W * H * 3);
  if (!img) return hy_err(HY_ESYS, "out of memory for the plot");
  memset(img, 255, (size_t)W * H * 3);
  const double *y0 = y, *y1 = d > 1 ? y + n : y;
  double mn[2] = { INFINITY, INFINITY }, mx[2] = { -INFINITY, -INFINITY }, tmin = INFINITY, tmax = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    if (y0[i] < mn[0]) mn[0] = y0[i];
    if (y0[i] > mx[0]) mx[0] = y0[i];
    if (y1[i] < mn[1]) mn[1] = y1[i];
    if (y1[i] > mx[1]) mx[1] = y1[i];
    double c = t && !isnan(t[i]) ? t[i] : (double)i;
    if (c < tmin) tmin = c;
    if (c > tmax) tmax = c;
  }
  double sx = mx[0] > mn[0] ? (W - 2 * M - 1) / (mx[0] - mn[0]) : 0;
  double sy = mx[1] > mn[1] ? (H - 2 * M - 1) / (mx[1] - mn[1]) : 0;
  int rad = n > 200000 ? 0 : 1;
  for (int64_t i = 0; i < n; i++) {
    int px = M + (int)((y0[i] - mn[0]) * sx), py = H - 1 - M - (int)((y1[i] - mn[1]) * sy);
    double c = t && !isnan(t[i]) ? t[i] : (double)i;
    unsigned char rgb[3];
    colormap(tmax > tmin ? (c - tmin) / (tmax - tmin) : 0.5, rgb);
    for (int dy = -rad; dy <= rad; dy++)
      for (int dx = -rad; dx <= rad; dx++) {
        int X = px + dx, Y = py + dy;
        if (X < 0 || Y < 0 || X >= W || Y >= H) continue;
        memcpy(img + ((size_t)Y * W + X) * 3, rgb, 3);
      }
  }
  char tmp[4096];
  FILE *f = NULL;
  int rc = io_atomic_open(path, tmp, sizeof tmp, &f);
  if (rc) { free(img); return rc; }
  int ok = png_put(f, W, H, img);
  free(img);
  HY_CALL(io_atomic_commit(path, tmp, f, ok));
  if (!ok) return hy_err(HY_ESYS, "%s: libpng failed to write the plot", path);
  return HY_OK;
#endif
}

/* Trustworthiness of the embedding y (column-major n x dd) with kt neighbours.  Local. */
int lle_trustworthiness(const lle_data *d, int dd, const double *y, int kt, int64_t nsample,
                        uint64_t seed, double *trust) {
  int64_t n = d->n, ns = n <= nsample ? n : nsample;
  if (kt >= n / 2) return hy_err(HY_EUSAGE, "trustworthiness needs n_neighbors < n / 2");
  double *dx = NULL, *de = NULL;
  int32_t *ie = NULL;
  HY_MALLOC(dx, n);
  HY_MALLOC(de, kt);
  HY_MALLOC(ie, kt);
  double sum = 0;
  for (int64_t s = 0; s < ns; s++) {
    int64_t i = ns == n ? s : (int64_t)(hy_rand_u01(seed, 0x7257, (uint64_t)s) * n);
    for (int j = 0; j < kt; j++) { de[j] = INFINITY; ie[j] = INT32_MAX; }
    for (int64_t j = 0; j < n; j++) {
      double sx = 0;
      for (int c = 0; c < d->dim; c++) { double t = d->x[j * d->dim + c] - d->x[i * d->dim + c]; sx += t * t; }
      dx[j] = sx;
      if (j == i) continue;
      double se = 0;
      for (int c = 0; c < dd; c++) { double t = y[(size_t)c * n + j] - y[(size_t)c * n + i]; se += t * t; }
      if (se > de[kt - 1] || (se == de[kt - 1] && j > ie[kt - 1])) continue;
      int p = kt - 1;
      while (p > 0 && (de[p - 1] > se || (de[p - 1] == se && ie[p - 1] > j))) { de[p] = de[p - 1]; ie[p] = ie[p - 1]; p--; }
      de[p] = se;
      ie[p] = (int32_t)j;
    }
    for (int q = 0; q < kt; q++) {
      int64_t j = ie[q], rank = 1;
      for (int64_t l = 0; l < n; l++)
        if (l != i && (dx[l] < dx[j] || (dx[l] == dx[j] && l < j))) rank++;
      if (rank > kt) sum += (double)(rank - kt);
    }
  }
  free(dx); free(de); free(ie);
  double scale = (double)n / (double)ns;
  *trust = 1.0 - sum * scale * (2.0 / ((double)n * kt * (2.0 * n - 3.0 * kt - 1.0)));
  return HY_OK;
}

/* output.embedding, plot, eigvecs, eigvals of a solved run.  Local (rank 0). */
int lle_write_outputs(const lle_opts *o, const lle_info *info) {
  int64_t n = info->data.n;
  int dd = o->dim;
  if (o->out_embedding[0]) HY_CALL(lle_write_embedding(o->out_embedding, n, dd, info->emb));
  if (o->out_transformed[0]) HY_CALL(lle_write_embedding(o->out_transformed, info->tdata.n, dd, info->temb));
  if (o->out_plot[0]) {
    int has_t = 0;
    for (int64_t i = 0; i < n && !has_t; i++) has_t = !isnan(info->data.t[i]);
    HY_CALL(lle_write_plot(o->out_plot, n, dd, info->emb, has_t ? info->data.t : NULL));
  }
  if (o->out_eigvecs[0]) {
    hy_dense dv = { n, o->nev, info->eig.vec };
    HY_CALL(io_mm_write_dense(o->out_eigvecs, &dv, "lle: eigenvectors of M, one per column, ascending eigenvalues"));
  }
  if (o->out_eigvals[0]) HY_CALL(io_mm_write_vec(o->out_eigvals, info->eig.val, o->nev, "lle: eigenvalues of M, ascending"));
  return HY_OK;
}
