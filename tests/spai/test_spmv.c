/* test_spmv.c - the SpMV entries of the spai kernel table (kernels/k_spai.h) against a long
 * double reference written here, never against another backend:
 *   test_spmv host|cuda
 * On CSR matrices with rows of 0..70 entries (empty rows, a row longer than 32, a diagonal-only
 * matrix, a 27-point-like band, more columns than rows as with halo ghosts): mat_spmv (host: the C
 * loop; CUDA: cuSPARSE) and, where the table has it, mat_spmv_own with its own choice of threads
 * per row and with each of 1, 2, 4, .. 32, every y_i within 8 ulps of sum_j |a_ij x_j| of the
 * long double value; mat_spmv_own twice gives the same y bit for bit (fixed summation order).
 * Exit 0 pass, 1 fail, 77 skip (cuda asked for, none here). */
#include "../common/test_backend.h"
#include "k_spai.h"
#include "hybrid.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

/* Report a failed comparison.  Local. */
static void bad(const char *what, const char *mat, int64_t row, double got, long double want) {
  if (fails++ < 20)
    fprintf(stderr, "FAIL %s (%s, row %lld): got %.17g, reference %.17Lg\n", what, mat,
            (long long)row, got, want);
}

/* Deterministic values in [-1, 1).  Local. */
static double val(uint64_t i, uint64_t s) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (s * 0xD1B54A32D192ED03ull);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
  return (double)(x >> 11) / 4503599627370496.0 - 1.0;
}

/* A test matrix: rows x cols CSR, kind 0: random row lengths 0..70 (sorted distinct columns),
 * 1: the diagonal only, 2: a band of 27 entries per row (fewer at the edges).  Local. */
static void make(int kind, int64_t rows, int64_t cols, int64_t **rp, int32_t **ci, double **va) {
  int64_t cap = rows * 71 + 1, nz = 0;
  HY_MALLOC(*rp, rows + 1);
  HY_MALLOC(*ci, cap);
  HY_MALLOC(*va, cap);
  (*rp)[0] = 0;
  for (int64_t i = 0; i < rows; i++) {
    if (kind == 1) {
      (*ci)[nz] = (int32_t)i;
      (*va)[nz++] = 2 + val(i, 1);
    } else if (kind == 2) {
      for (int64_t j = i - 13; j <= i + 13; j++)
        if (j >= 0 && j < cols) { (*ci)[nz] = (int32_t)j; (*va)[nz++] = val(nz, 2); }
    } else {
      int len = (int)((val(i, 3) + 1) * 35.5);        /* 0..70 */
      if (i % 17 == 0) len = 0;                        /* empty rows */
      int64_t step = cols / (len + 1) > 0 ? cols / (len + 1) : 1, j = (int64_t)((val(i, 4) + 1) * step / 2);
      for (int k = 0; k < len && j < cols; k++, j += step) { (*ci)[nz] = (int32_t)j; (*va)[nz++] = val(nz, 5); }
    }
    (*rp)[i + 1] = nz;
  }
}

/* y of one product on the backend (x: cols entries on the host).  Local. */
static void product(k_backend *be, const k_spai_ops *ko, void *mat, int tpr, const double *dx,
                    double *dy, double *y, int64_t rows) {
  HY_LOCAL(be->ops->memset0(be, dy, (size_t)(rows + 1) * sizeof(double)));
  if (tpr < 0) HY_LOCAL(ko->mat_spmv(be, mat, dx, dy));
  else HY_LOCAL(ko->mat_spmv_own(be, mat, tpr, dx, dy));
  if (rows) HY_LOCAL(be->ops->d2h(be, y, dy, (size_t)rows * sizeof(double)));
  HY_LOCAL(be->ops->sync(be));
}

/* Every variant on one matrix against the long double reference.  Local. */
static void check_matrix(k_backend *be, const k_spai_ops *ko, const char *name, int kind,
                         int64_t rows, int64_t cols) {
  int64_t *rp;
  int32_t *ci;
  double *va, *x, *y, *y2;
  make(kind, rows, cols, &rp, &ci, &va);
  HY_MALLOC(x, cols + 1); HY_MALLOC(y, rows + 1); HY_MALLOC(y2, rows + 1);
  for (int64_t j = 0; j < cols; j++) x[j] = val(j, 6) * (1 + (j % 7));
  long double *ref;
  double *mag;
  HY_MALLOC(ref, rows + 1); HY_MALLOC(mag, rows + 1);
  for (int64_t i = 0; i < rows; i++) {
    long double s = 0, m = 0;
    for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
      s += (long double)va[e] * x[ci[e]];
      m += fabsl((long double)va[e] * x[ci[e]]);
    }
    ref[i] = s;
    mag[i] = (double)m;
  }
  void *mat = NULL;
  double *dx = NULL, *dy = NULL;
  HY_LOCAL(ko->mat_create(be, rows, cols, rp, ci, va, &mat));
  HY_LOCAL(be->ops->alloc(be, (void **)&dx, (size_t)(cols + 1) * sizeof(double)));
  HY_LOCAL(be->ops->alloc(be, (void **)&dy, (size_t)(rows + 1) * sizeof(double)));
  HY_LOCAL(be->ops->h2d(be, dx, x, (size_t)cols * sizeof(double)));
  /* -1: mat_spmv; 0: ours, its choice; 1..32: ours with that many threads per row */
  const int tprs[] = { -1, 0, 1, 2, 4, 8, 16, 32 };
  for (size_t k = 0; k < sizeof tprs / sizeof tprs[0]; k++) {
    if (tprs[k] >= 0 && !ko->mat_spmv_own) break;
    char what[64];
    snprintf(what, sizeof what, tprs[k] < 0 ? "mat_spmv" : "mat_spmv_own, %d threads per row", tprs[k]);
    product(be, ko, mat, tprs[k], dx, dy, y, rows);
    for (int64_t i = 0; i < rows; i++)
      if (!(fabsl(y[i] - ref[i]) <= 8 * 2.220446049250313e-16 * mag[i])) { bad(what, name, i, y[i], ref[i]); break; }
    if (tprs[k] >= 0) {
      product(be, ko, mat, tprs[k], dx, dy, y2, rows);
      if (rows && memcmp(y, y2, (size_t)rows * sizeof *y)) bad("mat_spmv_own not reproducible", name, 0, y2[0], y[0]);
    }
  }
  HY_LOCAL(ko->mat_free(be, mat));
  be->ops->free(be, dx);
  be->ops->free(be, dy);
  free(rp); free(ci); free(va); free(x); free(y); free(y2); free(ref); free(mag);
}

int main(int argc, char **argv) {
  k_backend be;
  int cuda = test_backend_open(argc, argv, &be);
  const k_spai_ops *ko = k_spai_ops_get(&be);
  check_matrix(&be, ko, "random rows 0..70, ghosts", 0, 5003, 6100);
  check_matrix(&be, ko, "diagonal", 1, 4097, 4097);
  check_matrix(&be, ko, "band of 27", 2, 20000, 20000);
  check_matrix(&be, ko, "one row", 0, 1, 300);
  k_backend_close(&be);
  printf("%s: spai SpMV on the %s backend (%s), 4 matrices\n", fails ? "FAIL" : "PASS",
         cuda ? "cuda" : "host", ko->mat_spmv_own ? "library and ours, threads per row 1..32"
                                                  : "its mat_spmv");
  MPI_Finalize();
  return fails ? 1 : 0;
}
