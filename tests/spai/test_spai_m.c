/* test_spai_m.c - M's hand-over entries of the spai kernel table (kernels/k_spai.h):
 *   test_spai_m host|cuda
 * On a 5-point problem (n = 400, every entry kept: J_k = A's column k): single_setup, the column
 * kernels (cols_index_batches where the backend has it, else cols_index), then single_rows (M to
 * the host) and single_mat (M as the solve's matrix on the backend): mat_get of the matrix is
 * single_rows' M bit for bit and the residuals are the same; mat_differs says -1 for the matrix
 * against itself and against mat_create of single_rows' arrays, and names the row for a copy with
 * one value's last bit flipped (row 17), one column index moved (row 203), one entry fewer in the
 * last row (and the rows after it shifted); single_mat's SpMV equals mat_create's bit for bit.
 * Exit 0 pass, 1 fail, 77 skip (cuda asked for, none here). */
#include "../common/test_backend.h"
#include "k_spai.h"
#include "hybrid.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 400
#define SIDE 20

static int fails;

/* Report a failed check.  Local. */
static void check(int ok, const char *what, long long got, long long want) {
  if (!ok && fails++ < 20) fprintf(stderr, "FAIL %s: got %lld, expected %lld\n", what, got, want);
}

/* The 5-point matrix of a SIDE x SIDE grid with unequal values (no ties).  Local. */
static int64_t grid(int64_t *rp, int32_t *ci, double *v) {
  int64_t nz = 0;
  rp[0] = 0;
  for (int i = 0; i < N; i++) {
    int x = i % SIDE, y = i / SIDE;
    int c[5], k = 0;
    if (y > 0) c[k++] = i - SIDE;
    if (x > 0) c[k++] = i - 1;
    c[k++] = i;
    if (x + 1 < SIDE) c[k++] = i + 1;
    if (y + 1 < SIDE) c[k++] = i + SIDE;
    for (int t = 0; t < k; t++) {
      ci[nz] = c[t];
      v[nz++] = c[t] == i ? 4.0 + 0.003 * i : -1.0 - 0.0007 * (i + 2 * c[t]);
    }
    rp[i + 1] = nz;
  }
  return nz;
}

/* mat_differs of the backend's matrix a against a matrix made by mat_create from (rp, ci, v).
 * Local. */
static int64_t differs_from(k_backend *be, const k_spai_ops *ko, void *a, const int64_t *rp,
                            const int32_t *ci, const double *v) {
  void *b = NULL;
  int64_t row = -2;
  HY_LOCAL(ko->mat_create(be, N, N, rp, ci, v, &b));
  HY_LOCAL(ko->mat_differs(be, a, b, &row));
  ko->mat_free(be, b);
  return row;
}

/* The columns of a single_setup state solved on the backend.  Local. */
static void solve_columns(k_backend *be, const k_spai_ops *ko, void *st) {
  k_spai_stats ks;
  memset(&ks, 0, sizeof ks);
  int64_t *ends = NULL, nb = 0;
  int32_t isize[N];
  if (ko->cols_index_batches) HY_LOCAL(ko->cols_index_batches(be, st, (int64_t)1 << 30, &ends, &nb));
  else HY_LOCAL(ko->cols_index(be, st, isize));
  for (int64_t b = 0, c = 0; c < N; b++) {
    int64_t e = ends ? ends[b] : N;
    HY_LOCAL(ko->cols_submat(be, st, c, e));
    HY_LOCAL(ko->cols_solve(be, st, c, e, &ks));
    c = e;
  }
  free(ends);
}

/* mat_get, mat_differs and the SpMV of single_mat's matrix against single_rows.  Local. */
static void check_mat(k_backend *be, const k_spai_ops *ko, void *mat, int64_t nnz,
                      const int64_t *rp, int32_t *ci, double *v, const double *res,
                      const double *res2) {
  int64_t *rp2 = NULL, row = -2;
  int32_t *ci2 = NULL;
  double *v2 = NULL;
  HY_LOCAL(ko->mat_get(be, mat, &rp2, &ci2, &v2));
  check(nnz == rp[N], "nnz of single_mat vs single_rows", nnz, rp[N]);
  check(!memcmp(rp2, rp, (N + 1) * sizeof *rp), "mat_get's offsets are single_rows'", 1, 0);
  check(!memcmp(ci2, ci, (size_t)nnz * sizeof *ci), "mat_get's columns are single_rows'", 1, 0);
  check(!memcmp(v2, v, (size_t)nnz * sizeof *v), "mat_get's values are single_rows' (bits)", 1, 0);
  check(!memcmp(res, res2, N * sizeof *res), "single_mat's residuals are single_rows'", 1, 0);
  HY_LOCAL(ko->mat_differs(be, mat, mat, &row));
  check(row == -1, "mat_differs of the matrix with itself", row, -1);
  row = differs_from(be, ko, mat, rp, ci, v);
  check(row == -1, "mat_differs against mat_create of the same rows", row, -1);
  /* one value's last bit (row 17), one column index (row 203), a shorter last row */
  int64_t e17 = rp[17] + 1, e203 = rp[203];
  uint64_t bits;
  memcpy(&bits, &v[e17], 8);
  bits ^= 1;
  double keep = v[e17];
  memcpy(&v[e17], &bits, 8);
  row = differs_from(be, ko, mat, rp, ci, v);
  check(row == 17, "mat_differs with a value's last bit flipped in row 17", row, 17);
  v[e17] = keep;
  int32_t kc = ci[e203];
  ci[e203] = kc > 0 ? kc - 1 : kc + 1;
  row = differs_from(be, ko, mat, rp, ci, v);
  check(row == 203, "mat_differs with a column index moved in row 203", row, 203);
  ci[e203] = kc;
  int64_t *rps = NULL;
  HY_MALLOC(rps, N + 1);
  memcpy(rps, rp, (N + 1) * sizeof *rp);
  rps[N] -= 1;
  row = differs_from(be, ko, mat, rps, ci, v);
  check(row == N - 1, "mat_differs with the last row one entry shorter", row, N - 1);
  free(rps);
  /* the SpMV of the two matrices (the same arrays on the device) */
  double *dx = NULL, *dy = NULL, x[N], y1[N], y2[N];
  for (int i = 0; i < N; i++) x[i] = 1.0 + 0.01 * (i % 13);
  HY_LOCAL(be->ops->alloc(be, (void **)&dx, N * sizeof(double)));
  HY_LOCAL(be->ops->alloc(be, (void **)&dy, N * sizeof(double)));
  HY_LOCAL(be->ops->h2d(be, dx, x, N * sizeof(double)));
  void *b = NULL;
  HY_LOCAL(ko->mat_create(be, N, N, rp, ci, v, &b));
  HY_LOCAL(ko->mat_spmv(be, mat, dx, dy));
  HY_LOCAL(be->ops->d2h(be, y1, dy, N * sizeof(double)));
  HY_LOCAL(ko->mat_spmv(be, b, dx, dy));
  HY_LOCAL(be->ops->d2h(be, y2, dy, N * sizeof(double)));
  HY_LOCAL(be->ops->sync(be));
  check(!memcmp(y1, y2, sizeof y1), "single_mat's SpMV is mat_create's (bits)", 1, 0);
  ko->mat_free(be, b);
  be->ops->free(be, dx);
  be->ops->free(be, dy);
  free(rp2); free(ci2); free(v2);
}

int main(int argc, char **argv) {
  k_backend be;
  int cuda = test_backend_open(argc, argv, &be);
  const k_spai_ops *ko = k_spai_ops_get(&be);
  if (!ko->single_setup || !ko->single_rows || !ko->single_mat || !ko->mat_get || !ko->mat_differs) {
    printf("FAIL: the %s backend lacks single_setup / single_rows / single_mat / mat_get / "
           "mat_differs\n", be.name);
    MPI_Finalize();
    return 1;
  }
  static int64_t rp[N + 1];
  static int32_t ci[5 * N];
  static double v[5 * N];
  grid(rp, ci, v);
  k_spai_single in = { .n = N, .rowptr = rp, .colind = ci, .val = v, .tau = 1.0, .cmax = NULL,
                       .max_col = 64, .small_rows = 64, .small_cols = 16, .medium_elems = 4096,
                       .block_threads = 128, .fuse_submat = 0, .warp_rows = 128 };
  void *st = NULL;
  int64_t *jptr = NULL;
  int fits = 0;
  HY_LOCAL(ko->single_setup(&be, &in, &st, &jptr, &fits));
  check(fits && st, "single_setup fits", fits, 1);
  if (fits && st) {
    solve_columns(&be, ko, st);
    int64_t *mrp = NULL, bad = -2, bad2 = -2, nnz = 0;
    int32_t *mci = NULL;
    double *mv = NULL, res[N], res2[N];
    HY_LOCAL(ko->single_rows(&be, st, &mrp, &mci, &mv, res, &bad, NULL));
    void *mat = NULL;
    HY_LOCAL(ko->single_mat(&be, st, &mat, &nnz, res2, &bad2, NULL));
    check(bad == -1 && bad2 == -1, "no non-finite column", bad2, -1);
    check_mat(&be, ko, mat, nnz, mrp, mci, mv, res, res2);
    ko->mat_free(&be, mat);
    free(mrp); free(mci); free(mv);
  }
  if (st) ko->cols_free(&be, st);
  free(jptr);
  k_backend_close(&be);
  printf("%s: M's hand-over (single_mat, mat_get, mat_differs) on the %s backend\n",
         fails ? "FAIL" : "PASS", cuda ? "cuda" : "host");
  MPI_Finalize();
  return fails ? 1 : 0;
}
