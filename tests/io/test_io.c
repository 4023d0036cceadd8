/* test_io.c - unit tests of app/io (Matrix Market and PETSc binary readers and writers).
 *
 *   test_io roundtrip [SEED] [TMPDIR]      random round trips, fixed-content expansions, errors
 *   test_io real DIR [TMPDIR]              the matrices of ../shared/matrices (exit 77 = skipped)
 *   test_io gen OUTDIR                     write the generated malformed files (PETSc, gzip)
 *   test_io bad CASES BADDIR GENDIR        run every case of the manifest through io_read_*
 *   test_io perf NNZ TMPDIR                time writing and reading a large random matrix
 *
 * Exit 0 when every check passed, 1 otherwise, 77 when skipped. */
#include "hybrid.h"
#include "io/io.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static int fails, checks;

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    checks++;                                                                 \
    if (!(cond)) {                                                            \
      fails++;                                                                \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                    \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, " [last error: %s]\n", hy_err_msg());                   \
    }                                                                         \
  } while (0)

static uint64_t rng_state;

/* xorshift64* random 64-bit number.  Local. */
static uint64_t io_rand(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

/* Random integer in [0, n).  Local. */
static int64_t io_randint(int64_t n) { return n > 0 ? (int64_t)(io_rand() % (uint64_t)n) : 0; }

/* Random double with a wide exponent range, sometimes an exact zero or integer.  Local. */
static double io_randval(void) {
  int kind = (int)io_randint(10);
  if (kind == 0) return 0.0;
  if (kind == 1) return (double)(io_randint(2001) - 1000);
  double mant = (double)(io_rand() >> 11) / 9007199254740992.0 - 0.5;
  return ldexp(mant, (int)io_randint(200) - 100);
}

/* Random valid CSR (sorted unique columns).  Local. */
static void io_rand_csr(hy_csr *a, int64_t m, int64_t n, double density) {
  memset(a, 0, sizeof *a);
  a->m = m;
  a->n = n;
  a->rowptr = calloc((size_t)m + 1, sizeof *a->rowptr);
  size_t cap = (size_t)(m * n) + 1;
  a->colind = malloc(cap * sizeof *a->colind);
  a->val = malloc(cap * sizeof *a->val);
  int64_t w = 0;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++)
      if ((double)io_randint(1000000) < density * 1e6) {
        a->colind[w] = (int32_t)j;
        a->val[w++] = io_randval();
      }
    a->rowptr[i + 1] = w;
  }
  a->nnz = w;
}

/* Nonzero when two CSR matrices are identical (bitwise values).  Local. */
static int io_csr_same(const hy_csr *a, const hy_csr *b) {
  if (a->m != b->m || a->n != b->n || a->nnz != b->nnz) return 0;
  for (int64_t i = 0; i <= a->m; i++)
    if (a->rowptr[i] != b->rowptr[i]) return 0;
  for (int64_t k = 0; k < a->nnz; k++)
    if (a->colind[k] != b->colind[k] || memcmp(&a->val[k], &b->val[k], sizeof(double)) != 0)
      return 0;
  return 1;
}

/* Nonzero when CSR a equals the dense row-major list want (m x n).  Local. */
static int io_csr_equals(const hy_csr *a, int64_t m, int64_t n, const double *want, int64_t nnz) {
  if (a->m != m || a->n != n || a->nnz != nnz) return 0;
  hy_dense d;
  if (io_csr_to_dense(a, &d) != HY_OK) return 0;
  int ok = 1;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      if (d.a[i + j * m] != want[i * n + j]) ok = 0;
  io_dense_free(&d);
  for (int64_t i = 0; i < m; i++)
    for (int64_t k = a->rowptr[i] + 1; k < a->rowptr[i + 1]; k++)
      if (a->colind[k] <= a->colind[k - 1]) ok = 0;
  return ok;
}

/* Write text to a file.  Local. */
static void io_put_file(const char *path, const void *data, size_t n) {
  FILE *fp = fopen(path, "wb");
  if (!fp || fwrite(data, 1, n, fp) != n) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    fails++;
  }
  if (fp) fclose(fp);
}

/* Write a string to a file.  Local. */
static void io_put_text(const char *path, const char *text) { io_put_file(path, text, strlen(text)); }

/* Write text gzip-compressed.  Local. */
static void io_put_gz(const char *path, const char *text) {
  gzFile gz = gzopen(path, "wb");
  if (!gz || gzwrite(gz, text, (unsigned)strlen(text)) != (int)strlen(text)) fails++;
  if (gz) gzclose(gz);
}

/* Read a whole file (for byte-level manipulation).  Local. */
static unsigned char *io_slurp(const char *path, size_t *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long sz = ftell(fp);
  rewind(fp);
  unsigned char *b = malloc((size_t)sz + 1);
  *n = fread(b, 1, (size_t)sz, fp);
  fclose(fp);
  return b;
}

/* Count files in dir whose name contains ".tmp.".  Local. */
static int io_count_tmp(const char *dir) {
  DIR *d = opendir(dir);
  int c = 0;
  if (!d) return -1;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".tmp.")) c++;
  closedir(d);
  return c;
}

/* Join dir and name into buf.  Local. */
static const char *io_join(char *buf, size_t len, const char *dir, const char *name) {
  snprintf(buf, len, "%s/%s", dir, name);
  return buf;
}

/* ------------------------------------------------------------------ round trips */

/* Random CSR matrices through MM plain, MM gzip and PETSc binary.  Local. */
static void io_test_csr_roundtrips(const char *tmp) {
  char p[3][4096];
  io_join(p[0], sizeof p[0], tmp, "rt_csr.mtx");
  io_join(p[1], sizeof p[1], tmp, "rt_csr.mtx.gz");
  io_join(p[2], sizeof p[2], tmp, "rt_csr.petsc");
  for (int t = 0; t < 30; t++) {
    hy_csr a, b;
    int64_t m = t == 0 ? 0 : 1 + io_randint(70), n = t == 1 ? 0 : 1 + io_randint(70);
    io_rand_csr(&a, m, n, (double)io_randint(100) / 200.0);
    for (int f = 0; f < 3; f++) {
      hy_err_clear();
      int rc = io_write_csr(p[f], &a, f == 0 ? "random test matrix\nsecond comment line" : NULL);
      CHECK(rc == HY_OK, "write %s (trial %d) rc %d", p[f], t, rc);
      rc = io_read_csr(p[f], &b);
      CHECK(rc == HY_OK, "read %s (trial %d) rc %d", p[f], t, rc);
      if (rc == HY_OK) {
        CHECK(io_csr_same(&a, &b), "round trip through %s differs (trial %d, %lld x %lld nnz %lld)",
              p[f], t, (long long)m, (long long)n, (long long)a.nnz);
        io_csr_free(&b);
      }
    }
    int kind = -1;
    io_file_kind(p[2], &kind);
    CHECK(kind == IO_KIND_PETSC_MAT, "%s kind %d", p[2], kind);
    io_file_kind(p[1], &kind);
    CHECK(kind == IO_KIND_MM, "%s kind %d", p[1], kind);
    io_csr_free(&a);
  }
}

/* Random dense matrices through MM arrays (plain and gzip) and PETSc binary.  Local. */
static void io_test_dense_roundtrips(const char *tmp) {
  char p[3][4096];
  io_join(p[0], sizeof p[0], tmp, "rt_dense.mtx");
  io_join(p[1], sizeof p[1], tmp, "rt_dense.mtx.gz");
  io_join(p[2], sizeof p[2], tmp, "rt_dense.bin");
  for (int t = 0; t < 20; t++) {
    hy_dense d = {1 + io_randint(40), 1 + io_randint(40), NULL}, e;
    d.a = malloc((size_t)(d.m * d.n) * sizeof(double));
    for (int64_t k = 0; k < d.m * d.n; k++) d.a[k] = io_randint(3) ? io_randval() : 0.0;
    for (int f = 0; f < 2; f++) {
      hy_err_clear();
      int rc = io_mm_write_dense(p[f], &d, "dense");
      CHECK(rc == HY_OK, "write dense %s rc %d", p[f], rc);
      rc = io_read_dense(p[f], &e);
      CHECK(rc == HY_OK && e.m == d.m && e.n == d.n &&
                memcmp(e.a, d.a, (size_t)(d.m * d.n) * sizeof(double)) == 0,
            "dense round trip through %s (trial %d)", p[f], t);
      io_dense_free(&e);
      /* an array read as CSR drops exact zeros, like io_dense_to_csr */
      hy_csr a, b;
      io_dense_to_csr(&d, &a);
      rc = io_read_csr(p[f], &b);
      CHECK(rc == HY_OK && io_csr_same(&a, &b), "array %s read as CSR (trial %d)", p[f], t);
      io_csr_free(&a);
      io_csr_free(&b);
    }
    hy_csr a;
    io_dense_to_csr(&d, &a);
    int rc = io_write_csr(p[2], &a, NULL);
    CHECK(rc == HY_OK, "write %s", p[2]);
    rc = io_read_dense(p[2], &e);
    CHECK(rc == HY_OK && e.m == d.m && e.n == d.n &&
              memcmp(e.a, d.a, (size_t)(d.m * d.n) * sizeof(double)) == 0,
          "dense through PETSc %s (trial %d)", p[2], t);
    io_dense_free(&e);
    io_csr_free(&a);
    io_dense_free(&d);
  }
}

/* Random vectors through MM plain, gzip and PETSc Vec.  Local. */
static void io_test_vec_roundtrips(const char *tmp) {
  char p[3][4096];
  io_join(p[0], sizeof p[0], tmp, "rt_vec.mtx");
  io_join(p[1], sizeof p[1], tmp, "rt_vec.mtx.gz");
  io_join(p[2], sizeof p[2], tmp, "rt_vec.dat");
  for (int t = 0; t < 20; t++) {
    int64_t n = t == 0 ? 0 : 1 + io_randint(500), m;
    double *x = malloc((size_t)(n + 1) * sizeof *x), *y = NULL;
    for (int64_t k = 0; k < n; k++) x[k] = io_randval();
    for (int f = 0; f < 3; f++) {
      hy_err_clear();
      int rc = io_write_vec(p[f], x, n, "a vector");
      CHECK(rc == HY_OK, "write vec %s rc %d", p[f], rc);
      rc = io_read_vec(p[f], &y, &m);
      CHECK(rc == HY_OK && m == n && (n == 0 || memcmp(x, y, (size_t)n * sizeof *x) == 0),
            "vector round trip through %s (trial %d, n %lld, got %lld)", p[f], t, (long long)n,
            (long long)m);
      free(y);
    }
    int kind = -1;
    io_file_kind(p[2], &kind);
    CHECK(kind == IO_KIND_PETSC_VEC, "%s kind %d", p[2], kind);
    free(x);
  }
}

/* One fixed-content Matrix Market file read as CSR and compared.  Local. */
static void io_expect(const char *tmp, const char *name, const char *text, int gz, int64_t m,
                      int64_t n, int64_t nnz, const double *want) {
  char path[4096];
  io_join(path, sizeof path, tmp, name);
  if (gz) io_put_gz(path, text);
  else io_put_text(path, text);
  hy_csr a;
  hy_err_clear();
  int rc = io_read_csr(path, &a);
  CHECK(rc == HY_OK, "read %s rc %d", name, rc);
  if (rc != HY_OK) return;
  CHECK(io_csr_equals(&a, m, n, want, nnz), "%s: got %lld x %lld nnz %lld, want %lld x %lld nnz %lld",
        name, (long long)a.m, (long long)a.n, (long long)a.nnz, (long long)m, (long long)n,
        (long long)nnz);
  io_csr_free(&a);
}

/* Symmetric, skew, pattern, integer, arrays, comments and odd spacing.  Local. */
static void io_test_expansions(const char *tmp) {
  const double sym[9] = {2, -1, 0, -1, 0, -1, 0, -1, 2};
  const char *symtext = "%%MatrixMarket matrix coordinate real symmetric\n% lower triangle\n"
                        "3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n";
  io_expect(tmp, "sym.mtx", symtext, 0, 3, 3, 6, sym);
  io_expect(tmp, "sym.mtx.gz", symtext, 1, 3, 3, 6, sym);
  io_expect(tmp, "sym_gz_named_plain.mtx", symtext, 1, 3, 3, 6, sym); /* gzip without .gz */
  const double skew[9] = {0, -1.5, 2, 1.5, 0, 0, -2, 0, 0};
  io_expect(tmp, "skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n"
            "2 1 1.5\n3 1 -2\n", 0, 3, 3, 4, skew);
  const double skew0[4] = {0, -1, 1, 0};
  io_expect(tmp, "skew_zero_diag.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
            "2 2 2\n1 1 0\n2 1 1\n", 0, 2, 2, 3, skew0); /* explicit zero diagonal kept */
  const double pat[9] = {1, 1, 0, 1, 0, 0, 0, 0, 1};
  io_expect(tmp, "pattern.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n"
            "1 1\n2 1\n3 3\n", 0, 3, 3, 4, pat);
  io_expect(tmp, "pattern_value.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n"
            "1 1 5\n2 1 7\n1 2\n3 3 1\n", 0, 3, 3, 4, pat);
  const double intg[6] = {0, 0, 8, -4, 0, 0};
  io_expect(tmp, "integer_dups.mtx", "%%MatrixMarket matrix coordinate integer general\n2 3 3\n"
            "1 3 7\n2 1 -4\n1 3 1\n", 0, 2, 3, 2, intg);
  const double unsorted[9] = {0, 5, 1, 3, 0, 0, 0, 0, 9};
  io_expect(tmp, "unsorted_dups.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 6\n"
            "3 3 4\n1 3 1\n1 2 2\n2 1 3\n3 3 5\n1 2 3\n", 0, 3, 3, 4, unsorted);
  const double asym[9] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
  io_expect(tmp, "array_sym.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n"
            "5\n6\n", 0, 3, 3, 9, asym);
  const double askew[9] = {0, -1, -2, 1, 0, -3, 2, 3, 0};
  io_expect(tmp, "array_skew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n"
            "3\n", 0, 3, 3, 6, askew);
  const double aint[6] = {1, 0, 3, 2, -7, 0}; /* 2 x 3, column-major 1 2 0 -7 3 0 */
  io_expect(tmp, "array_int.mtx", "%%MatrixMarket matrix array integer general\n2 3\n1\n2\n0\n-7\n"
            "3\n0\n", 0, 2, 3, 4, aint);
  /* upper-case banner words, CRLF, tabs, blank lines, comments between entries, and a comment
   * line of 3 MB (longer than the reader's first buffer) */
  size_t big = 3u << 20;
  char *text = malloc(big + 512);
  strcpy(text, "%%MatrixMarket MATRIX Coordinate Real General\r\n% c\r\n\r\n%");
  size_t len = strlen(text);
  memset(text + len, 'x', big);
  strcpy(text + len + big, "\n  2 2 2  \n\n1\t1  1.0\r\n% mid\n2 2 2e0\n\n");
  const double cm[4] = {1, 0, 0, 2};
  io_expect(tmp, "comments.mtx", text, 0, 2, 2, 2, cm);
  io_expect(tmp, "comments.mtx.gz", text, 1, 2, 2, 2, cm);
  free(text);
  /* a data line of 3 MB is accepted too (the buffer grows) */
  char *longline = malloc(big + 256);
  strcpy(longline, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 ");
  len = strlen(longline);
  memset(longline + len, '0', big);
  strcpy(longline + len + big, "1.5\n");
  const double ll[1] = {1.5};
  io_expect(tmp, "longline.mtx", longline, 0, 1, 1, 1, ll);
  free(longline);
  /* no trailing newline, size zero */
  io_expect(tmp, "no_newline.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.5",
            0, 1, 1, 1, ll);
  io_expect(tmp, "empty_matrix.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0,
            0, 0, 0, ll);

  /* header only */
  char path[4096];
  io_mm_info info;
  io_join(path, sizeof path, tmp, "sym.mtx.gz");
  int rc = io_mm_info_read(path, &info);
  CHECK(rc == HY_OK && info.coordinate == 1 && info.field == IO_FIELD_REAL &&
            info.symmetry == IO_SYM_SYMMETRIC && info.m == 3 && info.n == 3 && info.nnz_stored == 4,
        "io_mm_info_read %s", path);
  io_join(path, sizeof path, tmp, "array_int.mtx");
  rc = io_mm_info_read(path, &info);
  CHECK(rc == HY_OK && info.coordinate == 0 && info.field == IO_FIELD_INTEGER && info.m == 2 &&
            info.n == 3 && info.nnz_stored == 6, "io_mm_info_read %s", path);

  /* vectors: coordinate n x 1 and array 1 x n */
  double *x = NULL;
  int64_t n = 0;
  io_join(path, sizeof path, tmp, "vec_coord.mtx");
  io_put_text(path, "%%MatrixMarket matrix coordinate real general\n4 1 2\n4 1 2.5\n2 1 -1\n");
  rc = io_read_vec(path, &x, &n);
  CHECK(rc == HY_OK && n == 4 && x[0] == 0 && x[1] == -1 && x[2] == 0 && x[3] == 2.5, "%s", path);
  free(x);
  io_join(path, sizeof path, tmp, "vec_row.mtx");
  io_put_text(path, "%%MatrixMarket matrix array real general\n1 3\n1\n2\n3\n");
  rc = io_read_vec(path, &x, &n);
  CHECK(rc == HY_OK && n == 3 && x[0] == 1 && x[1] == 2 && x[2] == 3, "%s", path);
  free(x);
  io_join(path, sizeof path, tmp, "not_vec.mtx");
  io_put_text(path, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  hy_err_clear();
  rc = io_read_vec(path, &x, &n);
  CHECK(rc == HY_EINPUT && strstr(hy_err_msg(), "not a vector"), "%s rc %d", path, rc);
}

/* PETSc dense-format Mat (nz = -1) and a Mat followed by a Vec in one file.  Local. */
static void io_test_petsc_extras(const char *tmp) {
  unsigned char b[64];
  size_t k = 0;
  int32_t h[4] = {1211216, 2, 2, -1};
  for (int i = 0; i < 4; i++)
    for (int s = 3; s >= 0; s--) b[k++] = (unsigned char)((uint32_t)h[i] >> (8 * s));
  double v[4] = {1, 0, 0, -2.5}; /* row-major */
  for (int i = 0; i < 4; i++) {
    uint64_t u;
    memcpy(&u, &v[i], 8);
    for (int s = 7; s >= 0; s--) b[k++] = (unsigned char)(u >> (8 * s));
  }
  char path[4096];
  io_join(path, sizeof path, tmp, "dense_format.petsc");
  io_put_file(path, b, k);
  hy_csr a;
  hy_err_clear();
  int rc = io_read_csr(path, &a);
  const double want[4] = {1, 0, 0, -2.5};
  CHECK(rc == HY_OK && io_csr_equals(&a, 2, 2, want, 2), "PETSc dense format %s", path);
  io_csr_free(&a);
  /* Mat then Vec in one file: the Mat reads, the rest is ignored */
  hy_csr c;
  io_rand_csr(&c, 5, 4, 0.5);
  io_join(path, sizeof path, tmp, "mat_then_vec.petsc");
  io_petsc_write_mat(path, &c);
  size_t n;
  unsigned char *mat = io_slurp(path, &n);
  unsigned char *both = malloc(n + 16);
  memcpy(both, mat, n);
  memcpy(both + n, (unsigned char[]){0, 0x12, 0x7b, 0x4e, 0, 0, 0, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 16);
  io_put_file(path, both, n + 16);
  rc = io_read_csr(path, &a);
  CHECK(rc == HY_OK && io_csr_same(&a, &c), "Mat followed by a Vec %s", path);
  io_csr_free(&a);
  io_csr_free(&c);
  free(mat);
  free(both);
}

/* Errors that the malformed corpus does not cover: writes, memory limit, kinds.  Local. */
static void io_test_errors(const char *tmp) {
  char path[4096];
  hy_csr a;
  io_rand_csr(&a, 10, 10, 0.5);
  /* unwritable: a folder that does not exist -> HY_ESYS, and no temporary file anywhere */
  io_join(path, sizeof path, tmp, "no_such_dir/out.mtx");
  hy_err_clear();
  int rc = io_write_csr(path, &a, NULL);
  CHECK(rc == HY_ESYS && strstr(hy_err_msg(), "cannot create"), "write into a missing folder rc %d", rc);
  io_join(path, sizeof path, tmp, "no_such_dir/out.petsc");
  hy_err_clear();
  rc = io_write_csr(path, &a, NULL);
  CHECK(rc == HY_ESYS, "PETSc write into a missing folder rc %d", rc);
  /* non-finite values are refused by the MM writer and leave nothing behind */
  io_join(path, sizeof path, tmp, "nan_out.mtx");
  remove(path);
  if (a.nnz > 0) {
    double keep = a.val[0];
    a.val[0] = NAN;
    hy_err_clear();
    rc = io_write_csr(path, &a, NULL);
    CHECK(rc == HY_EINPUT, "writing NaN rc %d", rc);
    struct stat st;
    CHECK(stat(path, &st) != 0, "a failed write left %s", path);
    a.val[0] = keep;
  }
  CHECK(io_count_tmp(tmp) == 0, "temporary files left in %s", tmp);
  /* the memory limit comes from HYBRID_IO_MEM_LIMIT and is checked before allocating */
  io_join(path, sizeof path, tmp, "limit.mtx");
  io_write_csr(path, &a, NULL);
  setenv("HYBRID_IO_MEM_LIMIT", "1000", 1);
  CHECK(io_mem_limit() == 1000, "io_mem_limit with HYBRID_IO_MEM_LIMIT=1000 gives %zu", io_mem_limit());
  hy_err_clear();
  hy_csr b;
  rc = io_read_csr(path, &b);
  CHECK(rc == HY_EINPUT && strstr(hy_err_msg(), "memory limit"), "memory limit rc %d", rc);
  io_join(path, sizeof path, tmp, "limit.petsc");
  unsetenv("HYBRID_IO_MEM_LIMIT");
  io_write_csr(path, &a, NULL);
  setenv("HYBRID_IO_MEM_LIMIT", "100", 1);
  hy_err_clear();
  rc = io_read_csr(path, &b);
  CHECK(rc == HY_EINPUT && strstr(hy_err_msg(), "memory limit"), "PETSc memory limit rc %d", rc);
  unsetenv("HYBRID_IO_MEM_LIMIT");
  CHECK(io_mem_limit() > ((size_t)1 << 26), "default memory limit %zu is implausible", io_mem_limit());
  /* a missing input file is an input error, a folder a system error */
  hy_err_clear();
  io_join(path, sizeof path, tmp, "does_not_exist.mtx");
  rc = io_read_csr(path, &b);
  CHECK(rc == HY_EINPUT && strstr(hy_err_msg(), "cannot open") && strstr(hy_err_msg(), path),
        "missing file rc %d", rc);
  hy_err_clear();
  rc = io_read_csr(tmp, &b);
  CHECK(rc != HY_OK, "reading a folder succeeded");
  /* a Vec where a matrix is expected and the other way round */
  io_join(path, sizeof path, tmp, "kind.petsc");
  double x[3] = {1, 2, 3};
  io_write_vec(path, x, 3, NULL);
  hy_err_clear();
  rc = io_read_csr(path, &b);
  CHECK(rc == HY_EINPUT && strstr(hy_err_msg(), "expected a matrix"), "Vec read as matrix rc %d", rc);
  io_write_csr(path, &a, NULL);
  double *y;
  int64_t n;
  hy_err_clear();
  rc = io_read_vec(path, &y, &n);
  CHECK(rc == HY_EINPUT && strstr(hy_err_msg(), "expected a vector"), "Mat read as vector rc %d", rc);
  /* overwriting an existing file works (rename over it) */
  io_join(path, sizeof path, tmp, "limit.mtx");
  rc = io_write_csr(path, &a, "again");
  CHECK(rc == HY_OK, "overwrite %s", path);
  CHECK(io_count_tmp(tmp) == 0, "temporary files left in %s", tmp);
  io_csr_free(&a);
  hy_err_clear();
}

/* Random byte damage (flips, truncation, inserted junk) to valid files must give HY_OK or
 * HY_EINPUT with the path in the message, never a crash.  Local. */
static void io_test_fuzz(const char *tmp) {
  char src[3][4096], path[4096];
  hy_csr a;
  io_rand_csr(&a, 12, 9, 0.3);
  io_join(src[0], sizeof src[0], tmp, "fuzz_src.mtx");
  io_join(src[1], sizeof src[1], tmp, "fuzz_src.petsc");
  io_join(src[2], sizeof src[2], tmp, "fuzz_src.mtx.gz");
  for (int f = 0; f < 3; f++) io_write_csr(src[f], &a, "fuzz");
  io_csr_free(&a);
  io_join(path, sizeof path, tmp, "fuzz.bin");
  for (int f = 0; f < 3; f++) {
    size_t n;
    unsigned char *orig = io_slurp(src[f], &n);
    if (!orig) {
      fails++;
      continue;
    }
    unsigned char *b = malloc(n + 64);
    for (int t = 0; t < 400; t++) {
      memcpy(b, orig, n);
      size_t len = n;
      int what = (int)io_randint(4);
      if (what == 0) len = (size_t)io_randint((int64_t)n);
      int flips = 1 + (int)io_randint(4);
      for (int k = 0; k < flips && what != 0; k++) {
        size_t at = (size_t)io_randint((int64_t)len);
        if (what == 1) b[at] ^= (unsigned char)(1u << io_randint(8));
        else if (what == 2) b[at] = (unsigned char)io_randint(256);
        else b[at] = "0123456789 -+.eE\n%xX"[io_randint(21)];
      }
      io_put_file(path, b, len);
      hy_err_clear();
      hy_csr c;
      double *x = NULL;
      int64_t m;
      int rc = io_read_csr(path, &c);
      if (rc == HY_OK) io_csr_free(&c);
      CHECK(rc == HY_OK || (rc == HY_EINPUT && strstr(hy_err_msg(), path)),
            "damaged %s (trial %d) gave rc %d", src[f], t, rc);
      hy_err_clear();
      rc = io_read_vec(path, &x, &m);
      free(x);
      CHECK(rc == HY_OK || (rc == HY_EINPUT && strstr(hy_err_msg(), path)),
            "damaged %s read as a vector (trial %d) gave rc %d", src[f], t, rc);
    }
    free(b);
    free(orig);
  }
  hy_err_clear();
}

/* ------------------------------------------------------------------ real matrices */

/* Nonzero when a CSR matrix equals its transpose (pattern and values).  Local. */
static int io_is_symmetric(const hy_csr *a) {
  if (a->m != a->n) return 0;
  for (int64_t i = 0; i < a->m; i++)
    for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
      int64_t j = a->colind[k], lo = a->rowptr[j], hi = a->rowptr[j + 1] - 1, hit = -1;
      while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        if (a->colind[mid] == i) { hit = mid; break; }
        if (a->colind[mid] < i) lo = mid + 1;
        else hi = mid - 1;
      }
      if (hit < 0 || a->val[hit] != a->val[k]) return 0;
    }
  return 1;
}

/* Read the shared SuiteSparse matrices and check sizes and structure.  Local. */
static int io_test_real(const char *dir, const char *tmp) {
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("SKIP: matrix folder %s is absent; real-matrix tests skipped\n", dir);
    return 77;
  }
  static const struct { const char *file; int64_t n, nnz; int sym; } mats[] = {
      {"494_bus.mtx", 494, 1666, 1},    {"bcsstk13.mtx", 2003, 83883, 1},
      {"sherman5.mtx", 3312, 20793, 0}, {"orsirr_1.mtx", 1030, 6858, 0},
      {"watt_2.mtx", 1856, 11550, 0},   {"cryg2500.mtx", 2500, 12349, 0},
      {"rajat19.mtx", 1157, 5399, 0},   {"e05r0100.mtx.gz", 236, 5856, 0},
  };
  int found = 0;
  for (size_t t = 0; t < sizeof mats / sizeof mats[0]; t++) {
    char path[4096], out[4096];
    io_join(path, sizeof path, dir, mats[t].file);
    if (stat(path, &st) != 0) {
      printf("skip %s: not present\n", path);
      continue;
    }
    found++;
    hy_csr a, b;
    hy_err_clear();
    clock_t c0 = clock();
    int rc = io_read_csr(path, &a);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    CHECK(rc == HY_OK, "read %s rc %d", path, rc);
    if (rc != HY_OK) continue;
    printf("%-16s %lld x %lld nnz %lld (%.3f s)\n", mats[t].file, (long long)a.m, (long long)a.n,
           (long long)a.nnz, secs);
    CHECK(a.m == mats[t].n && a.n == mats[t].n && a.nnz == mats[t].nnz,
          "%s: %lld x %lld nnz %lld, expected n %lld nnz %lld", path, (long long)a.m,
          (long long)a.n, (long long)a.nnz, (long long)mats[t].n, (long long)mats[t].nnz);
    int sorted = 1;
    for (int64_t i = 0; i < a.m; i++)
      for (int64_t k = a.rowptr[i] + 1; k < a.rowptr[i + 1]; k++)
        if (a.colind[k] <= a.colind[k - 1]) sorted = 0;
    CHECK(sorted, "%s: columns not sorted", path);
    if (mats[t].sym) CHECK(io_is_symmetric(&a), "%s is not symmetric after expansion", path);
    /* through PETSc binary and gzip Matrix Market and back */
    const char *ext[2] = {".petsc", ".mtx.gz"};
    for (int e = 0; e < 2; e++) {
      snprintf(out, sizeof out, "%s/real_%zu%s", tmp, t, ext[e]);
      rc = io_write_csr(out, &a, mats[t].file);
      CHECK(rc == HY_OK, "write %s", out);
      rc = io_read_csr(out, &b);
      CHECK(rc == HY_OK && io_csr_same(&a, &b), "%s through %s", mats[t].file, out);
      if (rc == HY_OK) io_csr_free(&b);
      remove(out);
    }
    io_csr_free(&a);
  }
  if (!found) {
    printf("SKIP: no known matrix in %s\n", dir);
    return 77;
  }
  return fails ? 1 : 0;
}

/* ------------------------------------------------------------------ generated bad files */

/* Append big-endian int32 values to a byte buffer.  Local. */
static size_t io_be32s(unsigned char *b, size_t k, const int32_t *v, int n) {
  for (int i = 0; i < n; i++)
    for (int s = 3; s >= 0; s--) b[k++] = (unsigned char)((uint32_t)v[i] >> (8 * s));
  return k;
}

/* Append big-endian doubles to a byte buffer.  Local. */
static size_t io_be64s(unsigned char *b, size_t k, const double *v, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &v[i], 8);
    for (int s = 7; s >= 0; s--) b[k++] = (unsigned char)(u >> (8 * s));
  }
  return k;
}

/* Write a generated file atomically (so that concurrent generators do not race).  Local. */
static int io_gen_put(const char *dir, const char *name, const void *data, size_t n) {
  char path[4096], tmp[4200];
  FILE *fp;
  io_join(path, sizeof path, dir, name);
  if (io_atomic_open(path, tmp, sizeof tmp, &fp) != HY_OK) return 1;
  int ok = fwrite(data, 1, n, fp) == n;
  return io_atomic_commit(path, tmp, fp, ok) != HY_OK || !ok;
}

/* A 3 x 3 AIJ Mat with nz 4 (rows 2,1,1), with hooks to break it.  Local. */
static size_t io_gen_mat(unsigned char *b, int32_t classid, int32_t m, int32_t n, int32_t nz,
                         const int32_t *lens, const int32_t *cols, const double *vals) {
  int32_t h[4] = {classid, m, n, nz};
  size_t k = io_be32s(b, 0, h, 4);
  k = io_be32s(b, k, lens, 3);
  k = io_be32s(b, k, cols, 4);
  return io_be64s(b, k, vals, 4);
}

/* Write the malformed PETSc binary and gzip files into dir.  Local. */
static int io_gen(const char *dir) {
  mkdir(dir, 0777);
  unsigned char b[256];
  int bad = 0;
  const int32_t lens[3] = {2, 1, 1}, cols[4] = {0, 2, 1, 2}, badcol[4] = {0, 3, 1, 2};
  const int32_t badlens[3] = {2, 2, 1};
  const double vals[4] = {1, 2, 3, 4}, nanv[4] = {1, NAN, 3, 4}, infv[4] = {1, 2, INFINITY, 4};
  size_t k = io_gen_mat(b, 1211216, 3, 3, 4, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_ok.petsc", b, k);
  k = io_gen_mat(b, 1211217, 3, 3, 4, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_classid.petsc", b, k);
  k = io_gen_mat(b, 1211216, 3, 3, 4, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_header_trunc.petsc", b, 10);
  bad |= io_gen_put(dir, "petsc_rowlen_trunc.petsc", b, 16 + 6);
  bad |= io_gen_put(dir, "petsc_cols_trunc.petsc", b, 16 + 12 + 8);
  bad |= io_gen_put(dir, "petsc_values_trunc.petsc", b, k - 12);
  k = io_gen_mat(b, 1211216, 3, 3, 4, badlens, cols, vals);
  bad |= io_gen_put(dir, "petsc_rowsum.petsc", b, k);
  k = io_gen_mat(b, 1211216, 3, 3, 4, lens, badcol, vals);
  bad |= io_gen_put(dir, "petsc_col_range.petsc", b, k);
  k = io_gen_mat(b, 1211216, 3, 3, 4, lens, cols, nanv);
  bad |= io_gen_put(dir, "petsc_nan.petsc", b, k);
  k = io_gen_mat(b, 1211216, 3, 3, 4, lens, cols, infv);
  bad |= io_gen_put(dir, "petsc_inf.petsc", b, k);
  k = io_gen_mat(b, 1211216, -3, 3, 4, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_negative.petsc", b, k);
  k = io_gen_mat(b, 1211216, 3, 3, -7, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_negative_nz.petsc", b, k);
  k = io_gen_mat(b, 1211216, 2000000000, 2000000000, 2000000000, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_huge_m.petsc", b, k);
  int32_t vh[2] = {1211214, 5};
  double vv[5] = {1, 2, 3, 4, 5};
  k = io_be32s(b, 0, vh, 2);
  k = io_be64s(b, k, vv, 5);
  bad |= io_gen_put(dir, "petsc_vec_ok.petsc", b, k);
  bad |= io_gen_put(dir, "petsc_vec_trunc.petsc", b, k - 20);
  vv[3] = NAN;
  k = io_be64s(b, io_be32s(b, 0, vh, 2), vv, 5);
  bad |= io_gen_put(dir, "petsc_vec_nan.petsc", b, k);
  vh[1] = -5;
  k = io_be32s(b, 0, vh, 2);
  bad |= io_gen_put(dir, "petsc_vec_negative.petsc", b, k);
  /* a little-endian (byte-swapped) Mat; a 0 x 0 Mat; a symbolic link to itself */
  k = io_gen_mat(b, 1211216, 3, 3, 4, lens, cols, vals);
  for (size_t q = 0; q + 4 <= 16 + 12 + 16; q += 4) {
    unsigned char t0 = b[q], t1 = b[q + 1];
    b[q] = b[q + 3], b[q + 1] = b[q + 2], b[q + 2] = t1, b[q + 3] = t0;
  }
  bad |= io_gen_put(dir, "petsc_le.petsc", b, k);
  k = io_gen_mat(b, 1211216, 0, 0, 0, lens, cols, vals);
  bad |= io_gen_put(dir, "petsc_empty.petsc", b, 16);
  char lp[4096];
  io_join(lp, sizeof lp, dir, "loop.mtx");
  remove(lp);
  bad |= symlink("loop.mtx", lp) != 0;

  /* gzip: truncated stream, damaged header (compression method), damaged CRC trailer */
  char text[8192];
  int len = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n40 40 40\n");
  for (int i = 1; i <= 40; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%d %d %d.25\n", i, 41 - i, i);
  char path[4096];
  io_join(path, sizeof path, dir, "gz_source.tmp.gz");
  io_put_gz(path, text);
  size_t n;
  unsigned char *gz = io_slurp(path, &n);
  remove(path);
  if (!gz || n < 40) return 1;
  bad |= io_gen_put(dir, "gz_ok.mtx.gz", gz, n);
  bad |= io_gen_put(dir, "gz_truncated.mtx.gz", gz, n / 2);
  gz[2] = 7; /* compression method must be 8 (deflate) */
  bad |= io_gen_put(dir, "gz_corrupt.mtx.gz", gz, n);
  gz[2] = 8;
  gz[n - 8] ^= 0xff; /* CRC-32 of the data */
  bad |= io_gen_put(dir, "gz_crc.mtx.gz", gz, n);
  free(gz);
  if (bad) fprintf(stderr, "test_io gen: could not write every file into %s\n", dir);
  return bad;
}

/* ------------------------------------------------------------------ the malformed corpus */

/* Run every case of the manifest through io_read_csr / io_read_vec.  Local. */
static int io_test_bad(const char *cases, const char *baddir, const char *gendir) {
  if (io_gen(gendir)) return 1;
  FILE *fp = fopen(cases, "r");
  if (!fp) {
    fprintf(stderr, "cannot open %s: %s\n", cases, strerror(errno));
    return 1;
  }
  char line[1024];
  int ncase = 0, nbad = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    char name[128], file[512], mem[64];
    int code, off = 0;
    if (line[0] == '#' || line[strspn(line, " \t")] == '\0') continue;
    if (sscanf(line, "%127s %d %511s %63s %n", name, &code, file, mem, &off) < 4 || off == 0) {
      fprintf(stderr, "FAIL %s: bad manifest line '%s'\n", cases, line);
      fails++;
      continue;
    }
    const char *frag = line + off;
    char path[4096];
    if (strncmp(file, "@gen/", 5) == 0) io_join(path, sizeof path, gendir, file + 5);
    else io_join(path, sizeof path, baddir, file);
    if (strcmp(mem, "-") != 0) setenv("HYBRID_IO_MEM_LIMIT", mem, 1);
    hy_err_clear();
    int kind = IO_KIND_MM, rc = io_file_kind(path, &kind);
    char got[256] = "";
    if (rc == HY_OK && kind == IO_KIND_PETSC_VEC) {
      double *x;
      int64_t n;
      rc = io_read_vec(path, &x, &n);
      if (rc == HY_OK) snprintf(got, sizeof got, "vector n = %lld", (long long)n);
      if (rc == HY_OK) free(x);
    } else if (rc == HY_OK) {
      hy_csr a;
      rc = io_read_csr(path, &a);
      if (rc == HY_OK) snprintf(got, sizeof got, "matrix %lld x %lld, nnz = %lld", (long long)a.m,
                                (long long)a.n, (long long)a.nnz);
      if (rc == HY_OK) io_csr_free(&a);
    }
    unsetenv("HYBRID_IO_MEM_LIMIT");
    const char *msg = rc == HY_OK ? got : hy_err_msg();
    int ok = rc == code && strstr(msg, frag) != NULL && (rc == HY_OK || strstr(msg, path) != NULL);
    ncase++;
    if (code != 0) nbad++;
    checks++;
    if (!ok) {
      fails++;
      fprintf(stderr, "FAIL %-22s exit %d (want %d), message '%s' (want '%s' and the path)\n",
              name, rc, code, msg, frag);
    } else {
      printf("ok   %-22s %d  %s\n", name, rc, msg);
    }
  }
  fclose(fp);
  CHECK(nbad >= 25, "the manifest has %d malformed cases, want at least 25", nbad);
  printf("%d cases (%d malformed)\n", ncase, nbad);
  return fails ? 1 : 0;
}

/* ------------------------------------------------------------------ timing */

/* Write and read a large random matrix, printing the times.  Local. */
static int io_perf(int64_t nnz, const char *tmp) {
  hy_csr a = {0}, b;
  int64_t n = nnz / 20 > 1 ? nnz / 20 : 1;
  a.m = a.n = n;
  a.nnz = nnz;
  a.rowptr = malloc((size_t)(n + 1) * sizeof *a.rowptr);
  a.colind = malloc((size_t)nnz * sizeof *a.colind);
  a.val = malloc((size_t)nnz * sizeof *a.val);
  for (int64_t i = 0, w = 0; i <= n; i++) {
    a.rowptr[i] = w;
    if (i == n) break;
    for (int k = 0; k < 20; k++, w++) {
      a.colind[w] = (int32_t)((i + k * (n / 20 + 1)) % n);
      a.val[w] = io_randval();
    }
  }
  const char *ext[3] = {"perf.mtx", "perf.mtx.gz", "perf.petsc"};
  for (int e = 0; e < 3; e++) {
    char path[4096];
    io_join(path, sizeof path, tmp, ext[e]);
    struct timespec t0, t1, t2;
    hy_err_clear();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = io_write_csr(path, &a, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rc |= io_read_csr(path, &b);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    printf("%-12s nnz %lld: write %.2f s, read %.2f s, rc %d, nnz read %lld %s\n", ext[e],
           (long long)nnz, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec), rc,
           (long long)b.nnz, hy_err_msg());
    if (rc == HY_OK) io_csr_free(&b);
    remove(path);
  }
  io_csr_free(&a);
  return 0;
}

/* Make (or reuse) the scratch folder.  Local. */
static const char *io_scratch(const char *given, char *buf, size_t len) {
  if (given) {
    mkdir(given, 0777);
    return given;
  }
  snprintf(buf, len, "/tmp/test_io.XXXXXX");
  return mkdtemp(buf);
}

/* Dispatch the sub-commands.  Local. */
int main(int argc, char **argv) {
  char buf[256];
  if (argc < 2) {
    fprintf(stderr, "usage: test_io roundtrip [SEED] [TMPDIR] | real DIR [TMPDIR] | gen OUTDIR | "
            "bad CASES BADDIR GENDIR | perf NNZ TMPDIR\n");
    return 1;
  }
  if (strcmp(argv[1], "roundtrip") == 0) {
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)time(NULL);
    if (seed == 0) seed = (uint64_t)time(NULL);
    rng_state = seed * 0x9E3779B97F4A7C15ull | 1;
    printf("test_io roundtrip: seed %llu (rerun with: test_io roundtrip %llu)\n",
           (unsigned long long)seed, (unsigned long long)seed);
    const char *tmp = io_scratch(argc > 3 ? argv[3] : NULL, buf, sizeof buf);
    if (!tmp) return 1;
    io_test_csr_roundtrips(tmp);
    io_test_dense_roundtrips(tmp);
    io_test_vec_roundtrips(tmp);
    io_test_expansions(tmp);
    io_test_petsc_extras(tmp);
    io_test_errors(tmp);
    io_test_fuzz(tmp);
    printf("%d checks, %d failed\n", checks, fails);
    return fails ? 1 : 0;
  }
  if (strcmp(argv[1], "real") == 0 && argc > 2) {
    const char *tmp = io_scratch(argc > 3 ? argv[3] : NULL, buf, sizeof buf);
    if (!tmp) return 1;
    int rc = io_test_real(argv[2], tmp);
    printf("%d checks, %d failed\n", checks, fails);
    return rc;
  }
  if (strcmp(argv[1], "gen") == 0 && argc > 2) return io_gen(argv[2]);
  if (strcmp(argv[1], "bad") == 0 && argc > 4) return io_test_bad(argv[2], argv[3], argv[4]);
  if (strcmp(argv[1], "perf") == 0 && argc > 3) {
    rng_state = 12345;
    return io_perf(strtoll(argv[2], NULL, 10), argv[3]);
  }
  fprintf(stderr, "test_io: unknown or incomplete command '%s'\n", argv[1]);
  return 1;
}
