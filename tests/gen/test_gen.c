/* test_gen.c - the matrix generators (app/gen) against facts computed here, not by the generator:
 *   test_gen
 * For every generator, several grid sides and peclet 0 / 1.3: nnz equal to the stencil's count
 * sum over its offsets o of prod_d (side - |o_d|) (the offsets listed here); columns strictly
 * increasing with the diagonal present; off-diagonals < 0 and the diagonal > 0; every row weakly
 * diagonally dominant, interior rows (all stencil points inside) with row sum 0 (1e-13 of the
 * diagonal) and boundary rows strictly dominant; symmetric exactly for poisson* and for any
 * generator at peclet 0, nonsymmetric for convdiff* at peclet > 0; rows generated in 2 and 3
 * pieces (how ranks generate them) bit for bit those generated at once; the names of
 * gen_choices round-trip and an unknown name is HY_EUSAGE; gen_grid's rounding; rows by hand (convdiff2d13's
 * centre and corner rows on a 5^2 grid, convdiff2d's centre row on 3^2, peclet 1).
 * Exit 0 pass, 1 fail. */
#include "gen/gen.h"
#include "hybrid.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      if (fails++ < 30) { fprintf(stderr, "FAIL: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
    }                                                                      \
  } while (0)

/* The stencil of a generator as the test knows it: is offset (dx, dy, dz) in it?  Local. */
static int in_stencil(const char *name, int dx, int dy, int dz) {
  int a = abs(dx) + abs(dy) + abs(dz);
  if (a == 0) return 1;
  if (!strcmp(name, "convdiff3d27")) return abs(dx) <= 1 && abs(dy) <= 1 && abs(dz) <= 1;
  if (!strcmp(name, "convdiff2d13")) return dz == 0 && a <= 2;
  return a == 1;
}

/* Dimension of a generator as the test knows it.  Local. */
static int dim_of(const char *name) { return strchr(name, '2') && !strstr(name, "3d") ? 2 : 3; }

/* Expected nnz on a side^dim grid: sum over the stencil's offsets of prod_d (side - |o_d|),
 * and the number of offsets.  Local. */
static int64_t expect_nnz(const char *name, int64_t side, int *points) {
  int dim = dim_of(name), z = dim == 3 ? 2 : 0;
  int64_t nnz = 0;
  *points = 0;
  for (int dz = -z; dz <= z; dz++)
    for (int dy = -2; dy <= 2; dy++)
      for (int dx = -2; dx <= 2; dx++) {
        if (!in_stencil(name, dx, dy, dz)) continue;
        ++*points;
        int64_t c = (side - abs(dx)) * (side - abs(dy)) * (dim == 3 ? side - abs(dz) : 1);
        if (c > 0) nnz += c;
      }
  return nnz;
}

/* Value of A(i, j) (0 when absent).  Local. */
static double entry(const hy_csr *a, int64_t i, int64_t j) {
  for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
    if (a->colind[k] == j) return a->val[k];
  return 0.0;
}

/* Structure, signs, dominance and symmetry of the whole matrix of one generator.  Local. */
static void check_matrix(const char *name, gen_kind kind, int64_t side, double pe) {
  int64_t s, n;
  int dim, points;
  gen_grid(kind, dim_of(name) == 2 ? side * side : side * side * side, &s, &dim, &n);
  CHECK(s == side && dim == dim_of(name), "%s: grid of %lld rows gave side %lld, dim %d", name,
        (long long)n, (long long)s, dim);
  hy_csr a;
  HY_LOCAL(gen_rows(kind, side, dim, pe, 0, n, &a));
  int64_t want = expect_nnz(name, side, &points);
  CHECK(gen_stencil_points(kind) == points, "%s: %d stencil points, the test counts %d", name,
        gen_stencil_points(kind), points);
  CHECK(a.nnz == want && a.rowptr[n] == want, "%s side %lld: nnz %lld, expected %lld", name,
        (long long)side, (long long)a.nnz, (long long)want);
  int asym = 0;
  for (int64_t i = 0; i < n; i++) {
    double d = 0, off = 0, sum = 0;
    int64_t len = a.rowptr[i + 1] - a.rowptr[i];
    for (int64_t k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
      int64_t j = a.colind[k];
      if (k > a.rowptr[i]) CHECK(a.colind[k - 1] < j, "%s: row %lld columns not increasing", name, (long long)i);
      if (j == i) d = a.val[k];
      else {
        CHECK(a.val[k] < 0, "%s: A(%lld, %lld) = %g is not negative", name, (long long)i, (long long)j, a.val[k]);
        off += fabs(a.val[k]);
      }
      sum += a.val[k];
      if (entry(&a, j, i) != a.val[k]) asym = 1;
    }
    CHECK(d > 0, "%s: row %lld has diagonal %g", name, (long long)i, d);
    CHECK(d >= off * (1 - 1e-14), "%s: row %lld not diagonally dominant (%g < %g)", name, (long long)i, d, off);
    if (len == points)
      CHECK(fabs(sum) <= 1e-13 * d, "%s: interior row %lld sums to %g", name, (long long)i, sum);
    else
      CHECK(sum > 1e-9 * d, "%s: boundary row %lld (%lld entries) sums to %g, not > 0", name, (long long)i, (long long)len, sum);
  }
  int sym_expected = !strncmp(name, "poisson", 7) || pe == 0;
  CHECK(asym == !sym_expected, "%s side %lld peclet %g: %s, expected %s", name, (long long)side, pe,
        asym ? "nonsymmetric" : "symmetric", sym_expected ? "symmetric" : "nonsymmetric");
  /* rows in pieces, as 2 and 3 ranks generate them, bit for bit the whole */
  for (int p = 2; p <= 3; p++) {
    int64_t at = 0;
    for (int q = 0; q < p; q++) {
      int64_t r0 = n * q / p, r1 = n * (q + 1) / p;
      hy_csr b;
      HY_LOCAL(gen_rows(kind, side, dim, pe, r0, r1, &b));
      int64_t len = b.nnz;
      CHECK(b.m == r1 - r0 && a.rowptr[r1] - a.rowptr[r0] == len, "%s: piece %d/%d has %lld entries", name, q, p, (long long)len);
      if (a.rowptr[r1] - a.rowptr[r0] == len)
        CHECK(!memcmp(b.colind, a.colind + at, len * sizeof *b.colind) && !memcmp(b.val, a.val + at, len * sizeof *b.val),
              "%s: piece %d of %d differs from the whole", name, q, p);
      at += len;
      io_csr_free(&b);
    }
  }
  io_csr_free(&a);
}

/* One row against the values written out by hand.  Local. */
static void check_row(const char *name, int64_t side, int64_t r, int cnt, const int32_t *col,
                      const double *val) {
  gen_kind kind;
  HY_LOCAL(gen_kind_from_name(name, &kind));
  hy_csr a;
  HY_LOCAL(gen_rows(kind, side, 2, 1.0, r, r + 1, &a));
  CHECK(a.nnz == cnt, "%s row %lld: %lld entries, by hand %d", name, (long long)r, (long long)a.nnz, cnt);
  for (int k = 0; k < cnt && k < a.nnz; k++)
    CHECK(a.colind[k] == col[k] && fabs(a.val[k] - val[k]) <= 1e-15,
          "%s row %lld entry %d: (%d, %.17g), by hand (%d, %g)", name, (long long)r, k, a.colind[k],
          a.val[k], col[k], val[k]);
  io_csr_free(&a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char names[256];
  snprintf(names, sizeof names, "%s", gen_choices);
  int kinds = 0;
  for (char *t = strtok(names, "|"); t; t = strtok(NULL, "|")) {
    gen_kind kind;
    int rc = gen_kind_from_name(t, &kind);
    CHECK(rc == HY_OK, "gen_kind_from_name('%s') = %d", t, rc);
    if (rc != HY_OK) continue;
    kinds++;
    int64_t sides3[] = { 2, 3, 5, 7 }, sides2[] = { 2, 3, 4, 5, 9, 16 };
    int two = dim_of(t) == 2;
    for (int i = 0; i < (two ? 6 : 4); i++)
      for (int p = 0; p < 2; p++) check_matrix(t, kind, two ? sides2[i] : sides3[i], p ? 1.3 : 0.0);
  }
  CHECK(kinds == 6, "gen_choices names %d generators, expected 6", kinds);
  /* gen_grid rounds down to side^d, at least 2: 118758 rows -> 344^2 (imagesensor's analogue),
   * 123440 -> 49^3 (cfd2's), 1000 -> 10^3, 999 -> 9^3, 3 -> 2^2 */
  static const struct { const char *g; int64_t rows, side, n; } gr[] = {
    { "convdiff2d13", 118758, 344, 118336 }, { "convdiff3d27", 123440, 49, 117649 },
    { "poisson3d", 1000, 10, 1000 }, { "convdiff3d", 999, 9, 729 }, { "poisson2d", 3, 2, 4 } };
  for (int i = 0; i < 5; i++) {
    gen_kind g;
    int64_t sd, nn;
    int dd;
    HY_LOCAL(gen_kind_from_name(gr[i].g, &g));
    gen_grid(g, gr[i].rows, &sd, &dd, &nn);
    CHECK(sd == gr[i].side && nn == gr[i].n, "gen_grid(%s, %lld): side %lld, n %lld; expected %lld, %lld", gr[i].g,
          (long long)gr[i].rows, (long long)sd, (long long)nn, (long long)gr[i].side, (long long)gr[i].n);
  }
  gen_kind k;
  CHECK(gen_kind_from_name("convdiff2d9", &k) == HY_EUSAGE, "an unknown generator is not HY_EUSAGE");
  /* convdiff2d13 on 5^2, peclet 1 (velocity (1, -0.7): upwind at dx = -1 adds 1, at dy = +1
   * adds 0.7): diagonal 4 * 1 + 4 * 1/2 + 4 * 1/4 + 1 + 0.7 = 8.7 in every row */
  static const int32_t c13[] = { 2, 6, 7, 8, 10, 11, 12, 13, 14, 16, 17, 18, 22 };
  static const double v13[] = { -0.25, -0.5, -1, -0.5, -0.25, -2, 8.7, -1, -0.25, -0.5, -1.7, -0.5, -0.25 };
  check_row("convdiff2d13", 5, 12, 13, c13, v13);
  static const int32_t c13c[] = { 0, 1, 2, 5, 6, 10 };
  static const double v13c[] = { 8.7, -1, -0.25, -1.7, -0.5, -0.25 };
  check_row("convdiff2d13", 5, 0, 6, c13c, v13c);
  static const int32_t c5[] = { 1, 3, 4, 5, 7 };
  static const double v5[] = { -1, -2, 5.7, -1, -1.7 };
  check_row("convdiff2d", 3, 4, 5, c5, v5);
  printf("%s: %d failed check(s)\n", fails ? "FAILED" : "PASSED", fails);
  MPI_Finalize();
  return fails ? 1 : 0;
}
