/* lle_out.c - what the lle workload writes and measures: the embedding (CSV or .npy; plots are
 * drawn from it by jobs/hyplot.py, with axes and a colour bar), and trustworthiness
 * (scikit-learn's sklearn.manifold.trustworthiness, over a seeded sample of query points). */
#include "lle.h"
#include "hybrid.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* output.embedding, eigvecs, eigvals of a solved run.  Local (rank 0). */
int lle_write_outputs(const lle_opts *o, const lle_info *info) {
  int64_t n = info->data.n;
  int dd = o->dim;
  if (o->out_embedding[0]) HY_CALL(lle_write_embedding(o->out_embedding, n, dd, info->emb));
  if (o->out_transformed[0]) HY_CALL(lle_write_embedding(o->out_transformed, info->tdata.n, dd, info->temb));
  if (o->out_eigvecs[0]) {
    hy_dense dv = { n, o->nev, info->eig.vec };
    HY_CALL(io_mm_write_dense(o->out_eigvecs, &dv, "lle: eigenvectors of M, one per column, ascending eigenvalues"));
  }
  if (o->out_eigvals[0]) HY_CALL(io_mm_write_vec(o->out_eigvals, info->eig.val, o->nev, "lle: eigenvalues of M, ascending"));
  return HY_OK;
}
