/* petsc.c - PETSc binary Mat (AIJ, and the dense format MatView writes with nz = -1) and Vec:
 * big-endian, 32-bit indices, as MatLoad / VecLoad read them.  A ".info" companion file is
 * ignored; data after the first object (another object in the same file) is not read. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* fileno */
#endif
#include "io/io_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PETSC_MAT_ID 1211216
#define PETSC_VEC_ID 1211214
#define PETSC_DENSE_NZ (-1)

/* A PETSc binary file open for reading. */
typedef struct {
  const char *path;
  FILE *fp;
  long long off;   /* bytes consumed so far */
  long long size;  /* file size, -1 when not a regular file */
} pr_file;

/* Big-endian int32 at p.  Local. */
static int32_t pr_be32(const unsigned char *p) {
  return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

/* Big-endian double at p.  Local. */
static double pr_be64(const unsigned char *p) {
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u = u << 8 | p[i];
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* Store v big-endian at p.  Local. */
static void pr_put32(unsigned char *p, int32_t v) {
  uint32_t u = (uint32_t)v;
  p[0] = (unsigned char)(u >> 24);
  p[1] = (unsigned char)(u >> 16);
  p[2] = (unsigned char)(u >> 8);
  p[3] = (unsigned char)u;
}

/* Store d big-endian at p.  Local. */
static void pr_put64(unsigned char *p, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  for (int i = 7; i >= 0; i--) {
    p[i] = (unsigned char)u;
    u >>= 8;
  }
}

/* Open a PETSc binary file and learn its size.  Local. */
static int pr_open(pr_file *r, const char *path) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->size = -1;
  HY_CALL(io_open_read(path, &r->fp));
  struct stat st;
  if (fstat(fileno(r->fp), &st) == 0 && S_ISREG(st.st_mode)) r->size = (long long)st.st_size;
  return HY_OK;
}

/* Error: the data ended at byte offset at, inside what (bytes from..to).  Local. */
static int pr_truncated(pr_file *r, long long at, const char *what, long long from, long long to) {
  return hy_err(HY_EINPUT, "%s: truncated at byte offset %lld: the file ends inside the %s "
                "(bytes %lld..%lld)", r->path, at, what, from, to);
}

/* Read n bytes at dst (what and the section [from, to) name it in messages).  Local. */
static int pr_read(pr_file *r, void *dst, size_t n, const char *what, long long from, long long to) {
  size_t got = fread(dst, 1, n, r->fp);
  if (got < n) {
    if (ferror(r->fp)) return hy_err(HY_ESYS, "%s: cannot read: %s", r->path, strerror(errno));
    return pr_truncated(r, r->off + (long long)got, what, from, to);
  }
  r->off += (long long)n;
  return HY_OK;
}

/* Error unless the file holds bytes up to end; names the section where it stops.  Local. */
static int pr_need(pr_file *r, const long long *bounds, const char *const *names, int nsec) {
  if (r->size < 0 || r->size >= bounds[nsec]) return HY_OK;
  for (int s = 0; s < nsec; s++)
    if (r->size < bounds[s + 1])
      return pr_truncated(r, r->size, names[s], bounds[s], bounds[s + 1]);
  return HY_OK;
}

/* Read the 4-int header of a Mat or the 2-int header of a Vec and check the classid.  Local. */
static int pr_header(pr_file *r, int32_t *h, int count, int32_t want, const char *kind) {
  unsigned char b[16];
  size_t got = fread(b, 1, (size_t)count * 4, r->fp);
  if (ferror(r->fp)) return hy_err(HY_ESYS, "%s: cannot read: %s", r->path, strerror(errno));
  if (got >= 4 && pr_be32(b) != want)
    return hy_err(HY_EINPUT, "%s: byte offset 0: wrong classid %d (expected %d for a PETSc "
                  "binary %s)", r->path, pr_be32(b), want, kind);
  if (got < (size_t)count * 4) return pr_truncated(r, (long long)got, "header", 0, count * 4);
  for (int i = 0; i < count; i++) h[i] = pr_be32(b + 4 * i);
  r->off = count * 4;
  return HY_OK;
}

/* Error: memory for the object beyond the limit.  Local. */
static int pr_too_big(pr_file *r, const char *what, uint64_t bytes) {
  return hy_err(HY_EINPUT, "%s: byte offset 4: the header (%s) needs %s%llu bytes, more than the "
                "memory limit of %zu bytes (HYBRID_IO_MEM_LIMIT)", r->path, what,
                bytes == UINT64_MAX ? "more than " : "", (unsigned long long)bytes, io_mem_limit());
}

/* Convert n big-endian doubles in place and check they are finite (section starts at base). */
/* Local. */
static int pr_values(pr_file *r, double *v, int64_t n, long long base) {
  unsigned char *b = (unsigned char *)v;
  for (int64_t k = 0; k < n; k++) {
    double d = pr_be64(b + 8 * k);
    if (!isfinite(d))
      return hy_err(HY_EINPUT, "%s: byte offset %lld: value %lld is %s", r->path, base + 8 * k,
                    (long long)k, isnan(d) ? "NaN" : "infinite");
    v[k] = d;
  }
  return HY_OK;
}

/* Read the dense-format body (M*N values row by row) into CSR, dropping zeros.  Local. */
static int pr_read_dense_body(pr_file *r, int64_t m, int64_t n, hy_csr *a) {
  uint64_t total = (uint64_t)m * (uint64_t)n;
  char what[96];
  snprintf(what, sizeof what, "%lld x %lld dense", (long long)m, (long long)n);
  uint64_t bytes = io_sat_add(io_sat_mul(total, 12), io_sat_mul((uint64_t)m + 1, 8));
  if (bytes > io_mem_limit()) return pr_too_big(r, what, bytes);
  long long bounds[2] = {16, 16 + (long long)total * 8};
  const char *names[1] = {"dense values"};
  HY_CALL(pr_need(r, bounds, names, 1));
  la_csr_alloc(a, m, n, (int64_t)total);   /* read in place, then compacted; nnz set below */
  HY_CALL(pr_read(r, a->val, total * 8, "dense values", bounds[0], bounds[1]));
  HY_CALL(pr_values(r, a->val, (int64_t)total, bounds[0]));
  int64_t w = 0;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      double v = a->val[i * n + j];
      if (v != 0.0) {
        a->colind[w] = (int32_t)j;
        a->val[w++] = v;
      }
    }
    a->rowptr[i + 1] = w;
  }
  a->nnz = w;
  return HY_OK;
}

/* Read the body of an AIJ Mat (row lengths, column indices, values).  Local. */
static int pr_read_aij_body(pr_file *r, int64_t m, int64_t n, int64_t nz, hy_csr *a) {
  char what[128];
  snprintf(what, sizeof what, "%lld x %lld, nz %lld", (long long)m, (long long)n, (long long)nz);
  uint64_t bytes = io_sat_add(io_sat_mul((uint64_t)nz, 12), io_sat_mul((uint64_t)m + 1, 8));
  if (bytes > io_mem_limit()) return pr_too_big(r, what, bytes);
  long long bounds[4] = {16, 16 + 4 * (long long)m, 16 + 4 * (long long)m + 4 * (long long)nz,
                         16 + 4 * (long long)m + 12 * (long long)nz};
  const char *names[3] = {"row lengths", "column indices", "values"};
  HY_CALL(pr_need(r, bounds, names, 3));
  la_csr_alloc_rows(a, m, n);
  /* row lengths, in chunks */
  unsigned char chunk[1 << 16];
  int64_t done = 0;
  while (done < m) {
    int64_t cnt = m - done < (int64_t)(sizeof chunk / 4) ? m - done : (int64_t)(sizeof chunk / 4);
    HY_CALL(pr_read(r, chunk, (size_t)cnt * 4, "row lengths", bounds[0], bounds[1]));
    for (int64_t k = 0; k < cnt; k++) {
      int32_t len = pr_be32(chunk + 4 * k);
      if (len < 0)
        return hy_err(HY_EINPUT, "%s: byte offset %lld: row %lld has negative length %d", r->path,
                      bounds[0] + 4 * (done + k), (long long)(done + k), len);
      a->rowptr[done + k + 1] = a->rowptr[done + k] + len;
    }
    done += cnt;
  }
  if (a->rowptr[m] != nz)
    return hy_err(HY_EINPUT, "%s: byte offset %lld: the row lengths (bytes %lld..%lld) sum to %lld, "
                  "but the header says nz = %lld (byte 12)", r->path, bounds[1], bounds[0],
                  bounds[1], (long long)a->rowptr[m], (long long)nz);
  la_csr_alloc_entries(a);
  HY_CALL(pr_read(r, a->colind, (size_t)nz * 4, "column indices", bounds[1], bounds[2]));
  unsigned char *cb = (unsigned char *)a->colind;
  for (int64_t k = 0; k < nz; k++) {
    int32_t c = pr_be32(cb + 4 * k);
    if (c < 0 || c >= n)
      return hy_err(HY_EINPUT, "%s: byte offset %lld: column index %d out of range 0..%lld",
                    r->path, bounds[1] + 4 * k, c, (long long)n - 1);
    a->colind[k] = c;
  }
  HY_CALL(pr_read(r, a->val, (size_t)nz * 8, "values", bounds[2], bounds[3]));
  HY_CALL(pr_values(r, a->val, nz, bounds[2]));
  io_csr_sort_sum(a, 0);
  return HY_OK;
}

/* Read a PETSc binary Mat as CSR.  Local. */
int io_petsc_read_mat(const char *path, hy_csr *a) {
  pr_file r;
  memset(a, 0, sizeof *a);
  HY_CALL(pr_open(&r, path));
  int32_t h[4] = {0, 0, 0, 0};
  int rc = pr_header(&r, h, 4, PETSC_MAT_ID, "Mat");
  if (rc == HY_OK) {
    if (h[1] < 0 || h[2] < 0)
      rc = hy_err(HY_EINPUT, "%s: byte offset %d: negative size %s = %d", path, h[1] < 0 ? 4 : 8,
                  h[1] < 0 ? "M" : "N", h[1] < 0 ? h[1] : h[2]);
    else if (h[3] < 0 && h[3] != PETSC_DENSE_NZ)
      rc = hy_err(HY_EINPUT, "%s: byte offset 12: negative nz = %d", path, h[3]);
    else if (h[3] == PETSC_DENSE_NZ)
      rc = pr_read_dense_body(&r, h[1], h[2], a);
    else
      rc = pr_read_aij_body(&r, h[1], h[2], h[3], a);
  }
  fclose(r.fp);
  if (rc != HY_OK) {
    io_csr_free(a);
    hy_err_trace(__FILE__, __LINE__);
  }
  return rc;
}

/* Read a PETSc binary Vec.  Local. */
int io_petsc_read_vec(const char *path, double **x, int64_t *n) {
  pr_file r;
  *x = NULL;
  *n = 0;
  HY_CALL(pr_open(&r, path));
  int32_t h[2] = {0, 0};
  int rc = pr_header(&r, h, 2, PETSC_VEC_ID, "Vec");
  double *v = NULL;
  if (rc == HY_OK && h[1] < 0) rc = hy_err(HY_EINPUT, "%s: byte offset 4: negative size n = %d", path, h[1]);
  if (rc == HY_OK) {
    uint64_t bytes = (uint64_t)h[1] * 8;
    char what[64];
    snprintf(what, sizeof what, "Vec of %d", h[1]);
    long long bounds[2] = {8, 8 + 8 * (long long)h[1]};
    const char *names[1] = {"values"};
    if (bytes > io_mem_limit()) rc = pr_too_big(&r, what, bytes);
    if (rc == HY_OK) rc = pr_need(&r, bounds, names, 1);
    if (rc == HY_OK && h[1] > 0 && !(v = malloc(bytes)))
      rc = hy_err(HY_ESYS, "%s: out of memory for %d values", path, h[1]);
    if (rc == HY_OK) rc = pr_read(&r, v, bytes, "values", bounds[0], bounds[1]);
    if (rc == HY_OK) rc = pr_values(&r, v, h[1], bounds[0]);
  }
  fclose(r.fp);
  if (rc != HY_OK) {
    free(v);
    hy_err_trace(__FILE__, __LINE__);
    return rc;
  }
  *x = v;
  *n = h[1];
  return HY_OK;
}

/* Write n int32 big-endian.  Local. */
static int pw_ints(io_w *w, const int32_t *v, int64_t n) {
  unsigned char b[1 << 15];
  for (int64_t k = 0; k < n;) {
    int64_t c = 0;
    for (; c < (int64_t)(sizeof b / 4) && k < n; c++, k++) pr_put32(b + 4 * c, v[k]);
    HY_CALL(io_w_put(w, b, (size_t)c * 4));
  }
  return HY_OK;
}

/* Write n doubles big-endian.  Local. */
static int pw_doubles(io_w *w, const double *v, int64_t n) {
  unsigned char b[1 << 15];
  for (int64_t k = 0; k < n;) {
    int64_t c = 0;
    for (; c < (int64_t)(sizeof b / 8) && k < n; c++, k++) pr_put64(b + 8 * c, v[k]);
    HY_CALL(io_w_put(w, b, (size_t)c * 8));
  }
  return HY_OK;
}

/* Write CSR as a PETSc binary AIJ Mat.  Local. */
int io_petsc_write_mat(const char *path, const hy_csr *a) {
  if (a->m > INT32_MAX || a->n > INT32_MAX || a->nnz > INT32_MAX || a->m < 0 || a->n < 0)
    return hy_err(HY_EINPUT, "%s: a %lld x %lld matrix with %lld nonzeros does not fit the 32-bit "
                  "PETSc binary format", path, (long long)a->m, (long long)a->n, (long long)a->nnz);
  io_w w;
  HY_CALL(io_w_open(&w, path, 0));
  int32_t h[4] = {PETSC_MAT_ID, (int32_t)a->m, (int32_t)a->n, (int32_t)a->nnz};
  int rc = pw_ints(&w, h, 4);
  int32_t lens[4096];
  for (int64_t i = 0; i < a->m && rc == HY_OK;) {
    int64_t c = 0;
    for (; c < 4096 && i < a->m; c++, i++) lens[c] = (int32_t)(a->rowptr[i + 1] - a->rowptr[i]);
    rc = pw_ints(&w, lens, c);
  }
  if (rc == HY_OK) rc = pw_ints(&w, a->colind, a->nnz);
  if (rc == HY_OK) rc = pw_doubles(&w, a->val, a->nnz);
  int rc2 = io_w_close(&w, rc == HY_OK);
  if (rc == HY_OK) rc = rc2;
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Write a PETSc binary Vec.  Local. */
int io_petsc_write_vec(const char *path, const double *x, int64_t n) {
  if (n < 0 || n > INT32_MAX)
    return hy_err(HY_EINPUT, "%s: a vector of %lld entries does not fit the 32-bit PETSc binary "
                  "format", path, (long long)n);
  io_w w;
  HY_CALL(io_w_open(&w, path, 0));
  int32_t h[2] = {PETSC_VEC_ID, (int32_t)n};
  int rc = pw_ints(&w, h, 2);
  if (rc == HY_OK) rc = pw_doubles(&w, x, n);
  int rc2 = io_w_close(&w, rc == HY_OK);
  if (rc == HY_OK) rc = rc2;
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}
