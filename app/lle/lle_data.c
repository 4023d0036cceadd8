/* lle_data.c - the lle workload's points: numpy's legacy MT19937 RandomState (written here
 * from the published algorithm of Matsumoto and Nishimura), scikit-learn's Swiss roll and
 * S-curve generators reproduced value for value, the random orthonormal lift into D
 * dimensions, and the CSV / .npy point readers. */
#include "lle.h"
#include "hybrid.h"
#include "runtime/rng.h"
#include "io/io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_N 624
#define MT_M 397

/* Seed as numpy's mt19937_seed (= init_genrand).  Local. */
void lle_mt_seed(lle_mt *r, uint32_t seed) {
  r->mt[0] = seed;
  for (int i = 1; i < MT_N; i++)
    r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
  r->pos = MT_N;
  r->has_gauss = 0;
  r->gauss = 0;
}

/* Regenerate the 624 words of state.  Local. */
static void mt_twist(lle_mt *r) {
  static const uint32_t mag[2] = { 0u, 0x9908b0dfu };
  int k;
  for (k = 0; k < MT_N - MT_M; k++) {
    uint32_t y = (r->mt[k] & 0x80000000u) | (r->mt[k + 1] & 0x7fffffffu);
    r->mt[k] = r->mt[k + MT_M] ^ (y >> 1) ^ mag[y & 1u];
  }
  for (; k < MT_N - 1; k++) {
    uint32_t y = (r->mt[k] & 0x80000000u) | (r->mt[k + 1] & 0x7fffffffu);
    r->mt[k] = r->mt[k + (MT_M - MT_N)] ^ (y >> 1) ^ mag[y & 1u];
  }
  uint32_t y = (r->mt[MT_N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
  r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag[y & 1u];
  r->pos = 0;
}

/* Next tempered 32-bit output.  Local. */
uint32_t lle_mt_u32(lle_mt *r) {
  if (r->pos >= MT_N) mt_twist(r);
  uint32_t y = r->mt[r->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

/* numpy's legacy double in [0, 1) with 53 random bits.  Local. */
double lle_mt_double(lle_mt *r) {
  uint32_t a = lle_mt_u32(r) >> 5, b = lle_mt_u32(r) >> 6;
  return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

/* numpy's legacy_gauss: polar Box-Muller keeping the second value for the next call.  Local. */
double lle_mt_gauss(lle_mt *r) {
  if (r->has_gauss) {
    r->has_gauss = 0;
    double g = r->gauss;
    r->gauss = 0;
    return g;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * lle_mt_double(r) - 1.0;
    x2 = 2.0 * lle_mt_double(r) - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = sqrt(-2.0 * log(r2) / r2);
  r->gauss = f * x1;
  r->has_gauss = 1;
  return f * x2;
}

/* Free the arrays.  Local. */
void lle_data_free(lle_data *d) {
  free(d->x);
  free(d->t);
  memset(d, 0, sizeof *d);
}

/* Allocate n x dim points and n colours.  Local. */
static int data_alloc(lle_data *d, int64_t n, int dim) {
  memset(d, 0, sizeof *d);
  d->n = n;
  d->dim = dim;
  HY_MALLOC(d->x, (size_t)n * (size_t)dim);
  HY_MALLOC(d->t, n);
  return HY_OK;
}

/* Add noise * standard_normal(size=(3, n)) to the rows (coordinates) of the points, in
 * numpy's C order: all n values of coordinate 0, then 1, then 2.  numpy draws them even for
 * noise = 0; they are the generator's last draws and x + 0 * g == x bit for bit for every
 * finite g where no coordinate is -0 (the Swiss rolls: t cos t, t sin t != 0, y >= +0), so
 * those skip them at noise = 0 (N = 1M: 3M Gaussians, half the data phase); the S-curve can
 * have -0 (sign(t) (cos t - 1) at cos t = 1) and keeps them.  Local. */
static void add_noise(lle_data *d, lle_mt *r, double noise) {
  for (int c = 0; c < 3; c++)
    for (int64_t i = 0; i < d->n; i++) d->x[i * 3 + c] += noise * lle_mt_gauss(r);
}

/* The Swiss roll's x = t cos t and z = t sin t from the positions t (y drawn already).  Local. */
static void roll_xz(lle_data *d, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double t = d->t[i];
    d->x[i * 3 + 0] = t * cos(t);
    d->x[i * 3 + 2] = t * sin(t);
  }
}

/* sklearn.datasets.make_swiss_roll(n, noise=noise, random_state=seed, hole=False).  Local. */
int lle_gen_swissroll(lle_data *d, int64_t n, double noise, uint32_t seed) {
  HY_CALL(data_alloc(d, n, 3));
  lle_mt r;
  lle_mt_seed(&r, seed);
  for (int64_t i = 0; i < n; i++) d->t[i] = 1.5 * M_PI * (1 + 2 * lle_mt_double(&r));
  for (int64_t i = 0; i < n; i++) d->x[i * 3 + 1] = 21 * lle_mt_double(&r);
  roll_xz(d, n);
  if (noise != 0) add_noise(d, &r, noise);   /* values unchanged by noise = 0: add_noise */
  return HY_OK;
}

/* sklearn.datasets.make_swiss_roll(n, noise=noise, random_state=seed, hole=True): each point
 * in one of the 8 outer cells of a 3 x 3 grid over (t, y) in [1.5 pi, 4.5 pi) x [0, 21)
 * (choice(8, n): legacy randint(0, 8), one masked 32-bit draw each), then uniform offsets
 * (pi, 7) inside the cell, noise as for hole = False.  Local. */
int lle_gen_swissroll_hole(lle_data *d, int64_t n, double noise, uint32_t seed) {
  HY_CALL(data_alloc(d, n, 3));
  lle_mt r;
  lle_mt_seed(&r, seed);
  double ct[8], cy[8];
  for (int i = 0, c = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      if (i == 1 && j == 1) continue;   /* np.delete(corners, 4, axis=0): the middle cell */
      ct[c] = M_PI * (1.5 + i);
      cy[c++] = j * 7.0;
    }
  int32_t *ci = NULL;
  HY_MALLOC(ci, n);
  for (int64_t i = 0; i < n; i++) ci[i] = (int32_t)(lle_mt_u32(&r) & 7u);
  for (int64_t i = 0; i < n; i++) d->t[i] = ct[ci[i]] + lle_mt_double(&r) * M_PI;
  for (int64_t i = 0; i < n; i++) d->x[i * 3 + 1] = cy[ci[i]] + lle_mt_double(&r) * 7;
  free(ci);
  roll_xz(d, n);
  if (noise != 0) add_noise(d, &r, noise);   /* values unchanged by noise = 0: add_noise */
  return HY_OK;
}

/* sklearn.datasets.make_s_curve(n, noise=noise, random_state=seed).  Local. */
int lle_gen_scurve(lle_data *d, int64_t n, double noise, uint32_t seed) {
  HY_CALL(data_alloc(d, n, 3));
  lle_mt r;
  lle_mt_seed(&r, seed);
  for (int64_t i = 0; i < n; i++) d->t[i] = 3 * M_PI * (lle_mt_double(&r) - 0.5);
  for (int64_t i = 0; i < n; i++) d->x[i * 3 + 1] = 2.0 * lle_mt_double(&r);
  for (int64_t i = 0; i < n; i++) {
    double t = d->t[i];
    double sg = t > 0 ? 1.0 : (t < 0 ? -1.0 : 0.0);
    d->x[i * 3 + 0] = sin(t);
    d->x[i * 3 + 2] = sg * (cos(t) - 1);
  }
  add_noise(d, &r, noise);
  return HY_OK;
}

/* Map the points into D dimensions through Q (D x dim, orthonormal columns) built from
 * counter-based Gaussian numbers by twice-repeated Gram-Schmidt: distances are kept, so the
 * neighbour graph is that of the original points (up to rounding).  Local. */
int lle_lift(lle_data *d, int D, uint64_t seed) {
  int p = d->dim;
  if (D == p) return HY_OK;
  if (D < p) return hy_err(HY_EUSAGE, "ambient_dim %d is below the data dimension %d", D, p);
  double *q = NULL, *y = NULL;
  HY_MALLOC(q, (size_t)D * p);
  for (int j = 0; j < p; j++)
    for (int i = 0; i < D; i++) {
      uint64_t idx = (uint64_t)j * D + i;
      double u1 = hy_rand_u01(seed, 0x11f7, idx), u2 = hy_rand_u01(seed, 0x22f7, idx);
      q[(size_t)j * D + i] = sqrt(-2.0 * log(1.0 - u1)) * cos(2 * M_PI * u2);
    }
  for (int pass = 0; pass < 2; pass++)
    for (int j = 0; j < p; j++) {
      double *qj = q + (size_t)j * D;
      for (int l = 0; l < j; l++) {
        double *ql = q + (size_t)l * D, s = 0;
        for (int i = 0; i < D; i++) s += ql[i] * qj[i];
        for (int i = 0; i < D; i++) qj[i] -= s * ql[i];
      }
      double s = 0;
      for (int i = 0; i < D; i++) s += qj[i] * qj[i];
      s = sqrt(s);
      for (int i = 0; i < D; i++) qj[i] /= s;
    }
  y = malloc((size_t)d->n * D * sizeof *y);
  if (!y) {
    free(q);
    return hy_err(HY_ESYS, "out of memory lifting %lld points to %d dimensions", (long long)d->n, D);
  }
  for (int64_t k = 0; k < d->n; k++)
    for (int i = 0; i < D; i++) {
      double s = 0;
      for (int j = 0; j < p; j++) s += d->x[k * p + j] * q[(size_t)j * D + i];
      y[k * D + i] = s;
    }
  free(q);
  free(d->x);
  d->x = y;
  d->dim = D;
  return HY_OK;
}

/* Split columns out of "a,b,c" / "a b c"; return count (at most max) or -1 on a bad number
 * (col set to the bad column, 1-based).  Local. */
static int csv_parse(char *s, double *v, int max, int *col, int *nonnum) {
  int c = 0;
  *nonnum = 0;
  char *p = s;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (!*p) break;
    char *end = NULL;
    errno = 0;
    double x = strtod(p, &end);
    if (end == p) {
      *nonnum = 1;
      *col = c + 1;
      return -1;
    }
    if (c < max) v[c] = x;
    c++;
    p = end;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p == ',' || *p == ';') p++;
    else if (*p) {
      *nonnum = 1;
      *col = c;
      return -1;
    }
  }
  return c;
}

/* Read a CSV file of points.  Local. */
static int read_csv(const char *path, int color_last, lle_data *d) {
  FILE *f = fopen(path, "r");
  if (!f) return hy_err(HY_EINPUT, "%s: cannot open the point file: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  int64_t lineno = 0, nrow = 0, rowcap = 0;
  int ncol = -1, rc = HY_OK;
  double *vals = NULL, tmp[4096];
  while (getline(&line, &cap, f) >= 0) {
    lineno++;
    char *s = line;
    while (isspace((unsigned char)*s)) s++;
    if (!*s || *s == '#') continue;
    int col = 0, nonnum = 0;
    int c = csv_parse(s, tmp, 4096, &col, &nonnum);
    if (c < 0) {
      /* a header line: only the first line, and only when its first field is not a number
       * (a malformed first data row such as "1,,3" is an error, not a header) */
      if (nrow == 0 && ncol == -1 && col == 1) { ncol = -2; continue; }
      rc = hy_err(HY_EINPUT, "%s:%lld: column %d is not a number", path, (long long)lineno, col);
      break;
    }
    if (c > 4096) { rc = hy_err(HY_EINPUT, "%s:%lld: %d columns (at most 4096 allowed)", path, (long long)lineno, c); break; }
    if (ncol < 0) ncol = c;
    else if (c != ncol) {
      rc = hy_err(HY_EINPUT, "%s:%lld: %d columns, the first data row has %d", path, (long long)lineno, c, ncol);
      break;
    }
    for (int j = 0; j < c; j++)
      if (!isfinite(tmp[j])) {
        rc = hy_err(HY_EINPUT, "%s:%lld: column %d is %g (points must be finite)", path,
                    (long long)lineno, j + 1, tmp[j]);
        break;
      }
    if (rc) break;
    if (nrow == rowcap) {
      rowcap = rowcap ? 2 * rowcap : 1024;
      double *nv = realloc(vals, (size_t)rowcap * c * sizeof *nv);
      if (!nv) { rc = hy_err(HY_ESYS, "out of memory reading %s", path); break; }
      vals = nv;
    }
    memcpy(vals + (size_t)nrow * c, tmp, (size_t)c * sizeof *tmp);
    nrow++;
  }
  free(line);
  fclose(f);
  int dim = ncol - (color_last ? 1 : 0);
  if (rc == HY_OK && (nrow == 0 || dim < 1))
    rc = hy_err(HY_EINPUT, "%s: no data rows with at least %d column(s)", path, color_last ? 2 : 1);
  if (rc == HY_OK) rc = data_alloc(d, nrow, dim);
  if (rc == HY_OK)
    for (int64_t i = 0; i < nrow; i++) {
      memcpy(d->x + i * dim, vals + i * ncol, (size_t)dim * sizeof(double));
      d->t[i] = color_last ? vals[i * ncol + dim] : NAN;
    }
  free(vals);
  return rc;
}

/* Read a .npy file (float32 / float64, little-endian, 1-D or 2-D, C or Fortran order) through
 * the shared strict header reader of app/io.  Local. */
static int read_npy(const char *path, int color_last, lle_data *d) {
  io_npy_info h;
  HY_CALL(io_npy_read_header(path, "values", &h));
  int f8 = !strcmp(h.descr, "<f8"), f4 = !strcmp(h.descr, "<f4"), fortran = h.fortran;
  if (!(f8 || f4) || h.ndim < 1 || h.ndim > 2 || h.count == 0)
    return hy_err(HY_EINPUT, "%s: .npy must hold a non-empty 2-D little-endian float32 or float64 array "
                  "(it holds dtype '%s', %d dimension(s), %llu elements)", path, h.descr, h.ndim, (unsigned long long)h.count);
  long long r = h.shape[0], c = h.ndim == 2 ? h.shape[1] : 1;
  int dim = (int)(c > INT32_MAX ? -1 : c - (color_last ? 1 : 0));
  if (dim < 1) return hy_err(HY_EINPUT, "%s: %lld column(s), no coordinates", path, c);
  size_t cnt = (size_t)h.count, es = h.elem;
  if (cnt > io_mem_limit() / 8) return hy_err(HY_EINPUT, "%s: %lld x %lld array exceeds the memory limit", path, r, c);
  FILE *f = fopen(path, "rb");
  if (!f) return hy_err(HY_EINPUT, "%s: cannot open the point file: %s", path, strerror(errno));
  unsigned char *buf = malloc(cnt * es);
  if (!buf) { fclose(f); return hy_err(HY_ESYS, "out of memory reading %s", path); }
  int rc = HY_OK;
  if (fseek(f, h.data_off, SEEK_SET) != 0 || fread(buf, es, cnt, f) != cnt)
    rc = hy_err(HY_EINPUT, "%s: truncated data (%lld x %lld expected)", path, r, c);
  fclose(f);
  if (rc == HY_OK) rc = data_alloc(d, r, dim);
  for (long long i = 0; rc == HY_OK && i < r; i++)
    for (long long j = 0; j < c; j++) {
      size_t at = fortran ? (size_t)j * r + i : (size_t)i * c + j;
      double v;
      if (f8) memcpy(&v, buf + at * 8, 8);
      else { float fv; memcpy(&fv, buf + at * 4, 4); v = fv; }
      if (!isfinite(v)) {
        rc = hy_err(HY_EINPUT, "%s: row %lld column %lld is %g (points must be finite)", path, i + 1, j + 1, v);
        break;
      }
      if (j < dim) d->x[i * dim + j] = v;
      else d->t[i] = v;
    }
  if (rc == HY_OK && !color_last)
    for (long long i = 0; i < r; i++) d->t[i] = NAN;
  free(buf);
  if (rc != HY_OK) lle_data_free(d);
  return rc;
}

/* Points whose largest |coordinate| lies outside [2^-250, 2^250] are scaled by a power of two
 * (exact) so that it is in [1, 2): squared distances would otherwise overflow to inf or
 * underflow to 0 and the neighbour graph would become index order.  The neighbours, the
 * weights and so the embedding do not depend on the scale.  Local. */
static void lle_points_rescale(lle_data *d) {
  double mx = 0;
  size_t tot = (size_t)d->n * d->dim;
  for (size_t i = 0; i < tot; i++) mx = fmax(mx, fabs(d->x[i]));
  if (mx == 0 || (mx <= 0x1p250 && mx >= 0x1p-250)) return;
  int e;
  frexp(mx, &e);
  for (size_t i = 0; i < tot; i++) d->x[i] = ldexp(d->x[i], 1 - e);
}

/* Read points by extension: .npy, else CSV; rescaled by a power of two when extreme.  Local. */
int lle_read_points(const char *path, int color_last, lle_data *d) {
  size_t l = strlen(path);
  memset(d, 0, sizeof *d);
  int rc = l >= 4 && !strcmp(path + l - 4, ".npy") ? read_npy(path, color_last, d) : read_csv(path, color_last, d);
  if (rc == HY_OK) lle_points_rescale(d);
  return rc;
}
