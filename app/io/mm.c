/* mm.c - Matrix Market reading (coordinate and array; real, integer, pattern; general,
 * symmetric, skew-symmetric; plain or gzip) and writing (%.17g, atomic, .gz compressed). */
#include "io/io_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A Matrix Market file open for reading, positioned after the size line. */
typedef struct {
  io_lr lr;
  io_mm_info info;
  int64_t stored; /* entries the file holds after the size line */
} mm_file;

/* Skip blanks (not the end of the string).  Local. */
static char *mm_ws(char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') p++;
  return p;
}

/* Length of the token at p (up to a blank or the end).  Local. */
static int mm_toklen(const char *p) {
  int n = 0;
  while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\r' && p[n] != '\v' && p[n] != '\f') n++;
  return n;
}

/* Nonzero when the line holds nothing but blanks.  Local. */
static int mm_blank(char *line) { return *mm_ws(line) == '\0'; }

/* Copy the next blank-separated token (lower case) into out.  Local. */
static char *mm_word(char *p, char *out, size_t outlen) {
  p = mm_ws(p);
  size_t n = 0;
  while (*p && !isspace((unsigned char)*p)) {
    if (n + 1 < outlen) out[n++] = (char)tolower((unsigned char)*p);
    p++;
  }
  out[n] = '\0';
  return p;
}

/* Parse a signed decimal integer at *pp without recording errors: 0 ok, 1 missing, 2 not an
 * integer, 3 too large.  Local. */
static int mm_parse_int(char **pp, int64_t *out) {
  char *p = mm_ws(*pp);
  if (*p == '\0') return 1;
  int neg = 0;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  if (!isdigit((unsigned char)*p)) return 2;
  uint64_t v = 0;
  while (isdigit((unsigned char)*p)) {
    unsigned d = (unsigned)(*p - '0');
    if (v > ((uint64_t)INT64_MAX - d) / 10) return 3;
    v = v * 10 + d;
    p++;
  }
  if (*p && !isspace((unsigned char)*p)) return 2;
  *out = neg ? -(int64_t)v : (int64_t)v;
  *pp = p;
  return 0;
}

/* Parse a signed decimal integer token at *pp (what names it in messages).  Local. */
static int mm_int(mm_file *f, char **pp, const char *what, int64_t *out) {
  char *s = mm_ws(*pp);
  int tl = mm_toklen(s) > 40 ? 40 : mm_toklen(s);
  switch (mm_parse_int(pp, out)) {
  case 0: return HY_OK;
  case 1: return hy_err(HY_EINPUT, "%s:%lld: missing %s", f->lr.path, f->lr.line, what);
  case 3: return hy_err(HY_EINPUT, "%s:%lld: %s '%.*s' is too large", f->lr.path, f->lr.line,
                        what, tl, s);
  default: return hy_err(HY_EINPUT, "%s:%lld: %s '%.*s' is not an integer", f->lr.path,
                         f->lr.line, what, tl, s);
  }
}

/* Parse a 1-based index in 1..hi and return it 0-based.  Local. */
static int mm_index(mm_file *f, char **pp, int64_t hi, const char *what, int32_t *out) {
  int64_t v;
  HY_CALL(mm_int(f, pp, what, &v));
  if (v < 1 || v > hi)
    return hy_err(HY_EINPUT, "%s:%lld: %s %lld out of range 1..%lld", f->lr.path, f->lr.line,
                  what, (long long)v, (long long)hi);
  *out = (int32_t)(v - 1);
  return HY_OK;
}

/* Parse a value of the file's field (real or integer), finite.  Local. */
static int mm_value(mm_file *f, char **pp, double *out) {
  char *p = mm_ws(*pp), *e;
  const char *path = f->lr.path;
  long long ln = f->lr.line;
  if (*p == '\0') return hy_err(HY_EINPUT, "%s:%lld: missing value", path, ln);
  int tl = mm_toklen(p) > 40 ? 40 : mm_toklen(p);
  if (f->info.field == IO_FIELD_INTEGER) {
    errno = 0;
    long long v = strtoll(p, &e, 10);
    if (e == p || (*e && !isspace((unsigned char)*e)))
      return hy_err(HY_EINPUT, "%s:%lld: value '%.*s' is not an integer (the field is integer)",
                    path, ln, tl, p);
    if (errno == ERANGE)
      return hy_err(HY_EINPUT, "%s:%lld: integer value '%.*s' is out of range", path, ln, tl, p);
    *out = (double)v;
  } else {
    errno = 0;
    double v = strtod(p, &e);
    if (e == p || (*e && !isspace((unsigned char)*e)))
      return hy_err(HY_EINPUT, "%s:%lld: non-numeric value '%.*s'", path, ln, tl, p);
    if (isnan(v)) return hy_err(HY_EINPUT, "%s:%lld: value is NaN ('%.*s')", path, ln, tl, p);
    if (isinf(v)) {
      if (errno == ERANGE)
        return hy_err(HY_EINPUT, "%s:%lld: value '%.*s' is out of range for a double", path, ln,
                      tl, p);
      return hy_err(HY_EINPUT, "%s:%lld: value is infinite ('%.*s')", path, ln, tl, p);
    }
    *out = v;
  }
  *pp = e;
  return HY_OK;
}

/* Error unless only blanks remain on the line.  Local. */
static int mm_eol(mm_file *f, char *p, const char *after) {
  p = mm_ws(p);
  if (*p)
    return hy_err(HY_EINPUT, "%s:%lld: unexpected text '%.40s' after the %s", f->lr.path,
                  f->lr.line, p, after);
  return HY_OK;
}

/* Next line that is neither blank nor a comment (*line = NULL at end of file).  Local. */
static int mm_data_line(mm_file *f, char **line) {
  size_t len;
  for (;;) {
    HY_CALL(io_lr_next(&f->lr, line, &len));
    if (!*line) return HY_OK;
    if (strlen(*line) != len)
      return hy_err(HY_EINPUT, "%s:%lld: line contains a NUL byte (binary data?)", f->lr.path,
                    f->lr.line);
    if ((*line)[0] != '%' && !mm_blank(*line)) return HY_OK;
  }
}

/* The banner's words after "%%MatrixMarket" (object, format, field, symmetry) into in; an
 * error names line 1 of path.  Local. */
static int mm_banner(const char *path, char *line, io_mm_info *in) {
  int rc;
  char obj[32], fmt[32], field[32], sym[32], extra[32];
  char *p = line + 14;
  p = mm_word(p, obj, sizeof obj);
  p = mm_word(p, fmt, sizeof fmt);
  p = mm_word(p, field, sizeof field);
  p = mm_word(p, sym, sizeof sym);
  mm_word(p, extra, sizeof extra);
  if (strcmp(obj, "matrix") != 0) {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: object '%s' is not supported (only 'matrix')",
                path, obj);
    return rc;
  }
  if (strcmp(fmt, "coordinate") == 0) in->coordinate = 1;
  else if (strcmp(fmt, "array") == 0) in->coordinate = 0;
  else {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: unknown format '%s' (expected coordinate or array)",
                path, fmt);
    return rc;
  }
  if (strcmp(field, "real") == 0 || strcmp(field, "double") == 0) in->field = IO_FIELD_REAL;
  else if (strcmp(field, "integer") == 0) in->field = IO_FIELD_INTEGER;
  else if (strcmp(field, "pattern") == 0) in->field = IO_FIELD_PATTERN;
  else if (strcmp(field, "complex") == 0) {
    rc = hy_err(HY_EINPUT, "%s:1: field 'complex' is not supported (only real, integer and "
                "pattern matrices)", path);
    return rc;
  } else {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: unknown field '%s' (expected real, integer or "
                "pattern)", path, field);
    return rc;
  }
  if (strcmp(sym, "general") == 0) in->symmetry = IO_SYM_GENERAL;
  else if (strcmp(sym, "symmetric") == 0) in->symmetry = IO_SYM_SYMMETRIC;
  else if (strcmp(sym, "skew-symmetric") == 0) in->symmetry = IO_SYM_SKEW;
  else if (strcmp(sym, "hermitian") == 0) {
    rc = hy_err(HY_EINPUT, "%s:1: symmetry 'hermitian' is not supported (only general, "
                "symmetric and skew-symmetric)", path);
    return rc;
  } else {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: unknown symmetry '%s' (expected general, symmetric "
                "or skew-symmetric)", path, sym);
    return rc;
  }
  if (extra[0]) {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: unexpected word '%s' after the symmetry", path,
                extra);
    return rc;
  }
  if (!in->coordinate && in->field == IO_FIELD_PATTERN) {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: field 'pattern' is only allowed with the "
                "coordinate format", path);
    return rc;
  }
  if (in->symmetry == IO_SYM_SKEW && in->field == IO_FIELD_PATTERN) {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner: a pattern matrix cannot be skew-symmetric", path);
    return rc;
  }

  return HY_OK;
}

/* Open a Matrix Market file and read its banner and size line.  Local. */
static int mm_open(const char *path, mm_file *f) {
  memset(f, 0, sizeof *f);
  HY_CALL(io_lr_open(&f->lr, path));
  char *line;
  size_t len;
  int rc = io_lr_next(&f->lr, &line, &len);
  if (rc != HY_OK) goto fail;
  if (!line) {
    rc = hy_err(HY_EINPUT, "%s:1: empty file (expected a %%%%MatrixMarket banner)", path);
    goto fail;
  }
  if (strncasecmp(line, "%%MatrixMarket", 14) != 0 || (line[14] && !isspace((unsigned char)line[14]))) {
    rc = hy_err(HY_EINPUT, "%s:1: bad banner '%.60s': expected '%%%%MatrixMarket matrix "
                "coordinate|array real|integer|pattern general|symmetric|skew-symmetric'", path,
                line);
    goto fail;
  }
  io_mm_info *in = &f->info;
  if ((rc = mm_banner(path, line, in)) != HY_OK) goto fail;

  /* size line */
  rc = mm_data_line(f, &line);
  if (rc != HY_OK) goto fail;
  if (!line) {
    rc = hy_err(HY_EINPUT, "%s:%lld: missing size line (end of file after the header)", path,
                f->lr.line);
    goto fail;
  }
  int64_t m, n, nz = 0;
  char *p = line;
  const char *want = in->coordinate ? "'rows columns entries'" : "'rows columns'";
  if (mm_parse_int(&p, &m) != 0 || mm_parse_int(&p, &n) != 0 ||
      (in->coordinate && mm_parse_int(&p, &nz) != 0) || *mm_ws(p) != '\0') {
    rc = hy_err(HY_EINPUT, "%s:%lld: bad size line '%.60s': expected %s as non-negative integers",
                path, f->lr.line, line, want);
    goto fail;
  }
  if (m < 0 || n < 0 || nz < 0) {
    rc = hy_err(HY_EINPUT, "%s:%lld: negative size in the size line '%.60s'", path, f->lr.line,
                line);
    goto fail;
  }
  if (in->symmetry != IO_SYM_GENERAL && m != n) {
    rc = hy_err(HY_EINPUT, "%s:%lld: a %s matrix must be square, the size line says %lld x %lld",
                path, f->lr.line, in->symmetry == IO_SYM_SKEW ? "skew-symmetric" : "symmetric",
                (long long)m, (long long)n);
    goto fail;
  }
  uint64_t mn = io_sat_mul((uint64_t)m, (uint64_t)n);
  if (!in->coordinate && mn > (uint64_t)INT64_MAX) {
    rc = hy_err(HY_EINPUT, "%s:%lld: array of %lld x %lld needs more than the memory limit of %zu "
                "bytes (HYBRID_IO_MEM_LIMIT)", path, f->lr.line, (long long)m, (long long)n,
                io_mem_limit());
    goto fail;
  }
  in->m = m;
  in->n = n;
  in->nnz_stored = in->coordinate ? nz : (int64_t)mn;
  if (in->coordinate) f->stored = nz;
  else if (in->symmetry == IO_SYM_SYMMETRIC) f->stored = (int64_t)(io_sat_mul((uint64_t)n, (uint64_t)n + 1) / 2);
  else if (in->symmetry == IO_SYM_SKEW) f->stored = n > 0 ? (int64_t)(io_sat_mul((uint64_t)n, (uint64_t)n - 1) / 2) : 0;
  else f->stored = (int64_t)mn;
  return HY_OK;
fail:
  io_lr_close(&f->lr);
  return rc;
}

/* Read the header and size line only.  Local. */
int io_mm_info_read(const char *path, io_mm_info *info) {
  mm_file f;
  memset(info, 0, sizeof *info);
  HY_CALL(mm_open(path, &f));
  *info = f.info;
  io_lr_close(&f.lr);
  return HY_OK;
}

/* Error: memory needed beyond the limit.  Local. */
static int mm_too_big(mm_file *f, const char *what, uint64_t bytes) {
  return hy_err(HY_EINPUT, "%s: the size line (%lld x %lld, %lld entries) needs %s%llu bytes for "
                "%s, more than the memory limit of %zu bytes (HYBRID_IO_MEM_LIMIT)", f->lr.path,
                (long long)f->info.m, (long long)f->info.n, (long long)f->info.nnz_stored,
                bytes == UINT64_MAX ? "more than " : "", (unsigned long long)bytes, what,
                io_mem_limit());
}

/* Error unless the dimensions fit 32-bit indices.  Local. */
static int mm_dims32(mm_file *f) {
  if (f->info.m > INT32_MAX || f->info.n > INT32_MAX)
    return hy_err(HY_EINPUT, "%s: %lld x %lld matrix exceeds the 32-bit index limit of %d rows "
                  "and columns", f->lr.path, (long long)f->info.m, (long long)f->info.n, INT32_MAX);
  return HY_OK;
}

/* Error: the file ended before all declared entries.  Local. */
static int mm_truncated(mm_file *f, int64_t k) {
  return hy_err(HY_EINPUT, "%s:%lld: unexpected end of file: the size line declares %lld entries, "
                "found %lld (truncated file?)", f->lr.path, f->lr.line, (long long)f->stored,
                (long long)k);
}

/* Error: a data line beyond the declared entries.  Local. */
static int mm_too_many(mm_file *f) {
  return hy_err(HY_EINPUT, "%s:%lld: more entries than the size line declares (%lld)", f->lr.path,
                f->lr.line, (long long)f->stored);
}

/* A symmetric / skew-symmetric file stores one triangle only: an entry on the other side of
 * the diagonal than an earlier one is refused (else both would be summed), naming both lines.
 * side_line: first line of an entry below / above.  Local. */
static int mm_one_side(mm_file *f, int32_t i, int32_t j, long long side_line[2]) {
  if (f->info.symmetry == IO_SYM_GENERAL || i == j) return HY_OK;
  long long *first = i > j ? &side_line[0] : &side_line[1];
  if (!*first) *first = f->lr.line;
  if (!side_line[0] || !side_line[1]) return HY_OK;
  return hy_err(HY_EINPUT, "%s:%lld: %s matrix stores entry (%d,%d) %s the diagonal, but line %lld stored "
                "one %s it: the format stores one triangle only (the entries would be summed)",
                f->lr.path, f->lr.line, f->info.symmetry == IO_SYM_SKEW ? "skew-symmetric" : "symmetric",
                i + 1, j + 1, i > j ? "below" : "above", i > j ? side_line[1] : side_line[0],
                i > j ? "above" : "below");
}

/* Read the entries of an open coordinate file into CSR (sorted, duplicates summed).  Local. */
static int mm_read_coord(mm_file *f, hy_csr *a) {
  const io_mm_info *in = &f->info;
  int64_t m = in->m, n = in->n, nz = f->stored;
  uint64_t ne = in->symmetry == IO_SYM_GENERAL ? (uint64_t)nz : io_sat_mul((uint64_t)nz, 2);
  /* triplets (row, column, value) + CSR (rowptr, colind, value) */
  uint64_t bytes = io_sat_add(io_sat_mul(ne, 2 * sizeof(int32_t) + 2 * sizeof(double) + sizeof(int32_t)),
                              io_sat_mul((uint64_t)m + 1, sizeof(int64_t)));
  if (bytes > io_mem_limit()) return mm_too_big(f, "reading as CSR", bytes);
  HY_CALL(mm_dims32(f));

  int rc = HY_OK;
  int32_t *ti = NULL, *tj = NULL;
  double *tv = NULL;
  memset(a, 0, sizeof *a);
  if (ne) {
    ti = malloc(ne * sizeof *ti);
    tj = malloc(ne * sizeof *tj);
    tv = malloc(ne * sizeof *tv);
    if (!ti || !tj || !tv) {
      rc = hy_err(HY_ESYS, "%s: out of memory allocating %llu entries", f->lr.path,
                  (unsigned long long)ne);
      goto done;
    }
  }
  int64_t k = 0, e = 0;
  char *line;
  int pattern = in->field == IO_FIELD_PATTERN;
  long long side_line[2] = { 0, 0 };   /* first line of an entry below / above the diagonal */
  for (;;) {
    if ((rc = mm_data_line(f, &line)) != HY_OK) goto done;
    if (!line) break;
    if (k == nz) {
      rc = mm_too_many(f);
      goto done;
    }
    char *p = line;
    int32_t i, j;
    double v = 1.0;
    if ((rc = mm_index(f, &p, m, "row index", &i)) != HY_OK) goto done;
    if ((rc = mm_index(f, &p, n, "column index", &j)) != HY_OK) goto done;
    if (pattern) {
      /* a value column in a pattern file is tolerated (and ignored) */
      char *q = mm_ws(p);
      if (*q) {
        char *end;
        (void)strtod(q, &end);
        if (end == q || (*end && !isspace((unsigned char)*end))) {
          rc = hy_err(HY_EINPUT, "%s:%lld: unexpected text '%.40s' after the indices of a pattern "
                      "entry", f->lr.path, f->lr.line, q);
          goto done;
        }
        p = end;
      }
    } else if ((rc = mm_value(f, &p, &v)) != HY_OK) {
      goto done;
    }
    if ((rc = mm_eol(f, p, "entry")) != HY_OK) goto done;
    if (in->symmetry == IO_SYM_SKEW && i == j && v != 0.0) {
      rc = hy_err(HY_EINPUT, "%s:%lld: skew-symmetric matrix has a nonzero diagonal entry "
                  "(%d,%d) = %.17g", f->lr.path, f->lr.line, i + 1, j + 1, v);
      goto done;
    }
    if ((rc = mm_one_side(f, i, j, side_line)) != HY_OK) goto done;
    ti[e] = i;
    tj[e] = j;
    tv[e] = v;
    e++;
    if (in->symmetry != IO_SYM_GENERAL && i != j) {
      ti[e] = j;
      tj[e] = i;
      tv[e] = in->symmetry == IO_SYM_SKEW ? -v : v;
      e++;
    }
    k++;
  }
  if (k < nz) {
    rc = mm_truncated(f, k);
    goto done;
  }

  /* counting sort by row, then sort each row and sum duplicates */
  la_csr_alloc(a, m, n, e);   /* nnz set by io_csr_sort_sum (duplicates summed) */
  for (int64_t t = 0; t < e; t++) a->rowptr[ti[t] + 1]++;
  for (int64_t r = 0; r < m; r++) a->rowptr[r + 1] += a->rowptr[r];
  for (int64_t t = 0; t < e; t++) {
    int64_t pos = a->rowptr[ti[t]]++;
    a->colind[pos] = tj[t];
    a->val[pos] = tv[t];
  }
  for (int64_t r = m; r > 0; r--) a->rowptr[r] = a->rowptr[r - 1];
  a->rowptr[0] = 0;
  free(ti);
  free(tj);
  free(tv);
  ti = tj = NULL;
  tv = NULL;
  io_csr_sort_sum(a, pattern);
  if (a->nnz < e && a->nnz > 0) {
    int32_t *c2 = realloc(a->colind, (size_t)a->nnz * sizeof *c2);
    if (c2) a->colind = c2;
    double *v2 = realloc(a->val, (size_t)a->nnz * sizeof *v2);
    if (v2) a->val = v2;
  }
done:
  free(ti);
  free(tj);
  free(tv);
  if (rc != HY_OK) io_csr_free(a);
  return rc;
}

/* Read the values of an open array file into a dense column-major matrix.  Local. */
static int mm_read_array(mm_file *f, hy_dense *d) {
  const io_mm_info *in = &f->info;
  int64_t m = in->m, n = in->n;
  uint64_t bytes = io_sat_mul(io_sat_mul((uint64_t)m, (uint64_t)n), sizeof(double));
  if (bytes > io_mem_limit()) return mm_too_big(f, "the dense array", bytes);
  memset(d, 0, sizeof *d);
  HY_CALLOC(d->a, (size_t)(m * n));
  d->m = m;
  d->n = n;
  int rc = HY_OK;
  int64_t k = 0, i = 0, j = 0, total = f->stored;
  int sym = in->symmetry;
  if (sym == IO_SYM_SYMMETRIC) i = 0;
  if (sym == IO_SYM_SKEW) i = 1;
  char *line;
  for (;;) {
    if ((rc = mm_data_line(f, &line)) != HY_OK) goto done;
    if (!line) break;
    if (k == total) {
      rc = mm_too_many(f);
      goto done;
    }
    char *p = line;
    double v;
    if ((rc = mm_value(f, &p, &v)) != HY_OK) goto done;
    if ((rc = mm_eol(f, p, "value")) != HY_OK) goto done;
    /* skip columns with no stored entries (the last column of a skew-symmetric matrix) */
    while (i >= m) {
      j++;
      i = sym == IO_SYM_GENERAL ? 0 : (sym == IO_SYM_SYMMETRIC ? j : j + 1);
    }
    d->a[i + j * m] = v;
    if (sym == IO_SYM_SYMMETRIC) d->a[j + i * m] = v;
    if (sym == IO_SYM_SKEW) d->a[j + i * m] = -v;
    i++;
    k++;
  }
  if (k < total) rc = mm_truncated(f, k);
done:
  if (rc != HY_OK) io_dense_free(d);
  return rc;
}

/* Read any Matrix Market matrix as CSR.  Local. */
int io_mm_read_csr(const char *path, hy_csr *a) {
  mm_file f;
  memset(a, 0, sizeof *a);
  HY_CALL(mm_open(path, &f));
  int rc;
  if (f.info.coordinate) {
    rc = mm_read_coord(&f, a);
  } else {
    hy_dense d;
    rc = mm_dims32(&f);
    if (rc == HY_OK) rc = mm_read_array(&f, &d);
    if (rc == HY_OK) {
      rc = io_dense_to_csr(&d, a);
      io_dense_free(&d);
    }
  }
  io_lr_close(&f.lr);
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Read any Matrix Market matrix as dense.  Local. */
int io_mm_read_dense(const char *path, hy_dense *d) {
  mm_file f;
  memset(d, 0, sizeof *d);
  HY_CALL(mm_open(path, &f));
  int rc;
  uint64_t bytes = io_sat_mul(io_sat_mul((uint64_t)f.info.m, (uint64_t)f.info.n), sizeof(double));
  if (bytes > io_mem_limit()) {
    rc = mm_too_big(&f, "the dense matrix", bytes);
  } else if (f.info.coordinate) {
    hy_csr a;
    rc = mm_read_coord(&f, &a);
    if (rc == HY_OK) {
      rc = io_csr_to_dense(&a, d);
      io_csr_free(&a);
    }
  } else {
    rc = mm_read_array(&f, d);
  }
  io_lr_close(&f.lr);
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Read a vector (n x 1 or 1 x n, array or coordinate).  Local. */
int io_mm_read_vec(const char *path, double **x, int64_t *n) {
  io_mm_info info;
  *x = NULL;
  *n = 0;
  HY_CALL(io_mm_info_read(path, &info));
  if (info.m != 1 && info.n != 1)
    return hy_err(HY_EINPUT, "%s: a %lld x %lld matrix is not a vector (expected n x 1 or 1 x n)",
                  path, (long long)info.m, (long long)info.n);
  hy_dense d;
  HY_CALL(io_mm_read_dense(path, &d));
  *x = d.a;
  *n = d.m * d.n;
  if (*n == 0) {
    free(d.a);
    *x = NULL;
  }
  return HY_OK;
}

/* ------------------------------------------------------------------ writing */

/* Write the comment, one "% " line per line of text.  Local. */
static int mm_put_comment(io_w *w, const char *comment) {
  if (!comment || !*comment) return HY_OK;
  const char *s = comment;
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    HY_CALL(io_w_put(w, "% ", 2));
    HY_CALL(io_w_put(w, s, len));
    HY_CALL(io_w_put(w, "\n", 1));
    s += len + (nl ? 1 : 0);
  }
  return HY_OK;
}

/* Append a formatted line (short: entries and headers).  Local. */
static int mm_putf(io_w *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int mm_putf(io_w *w, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf) return hy_err(HY_ESYS, "%s: formatting failed", w->path);
  return io_w_put(w, buf, (size_t)n);
}

/* Decimal digits of v (>= 0) at p; returns the count.  Local. */
static int mm_utoa(char *p, unsigned long long v) {
  char t[24];
  int n = 0;
  do {
    t[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (int k = 0; k < n; k++) p[k] = t[n - 1 - k];
  return n;
}

/* Append the entry line "i j v" (1-based indices, %.17g).  Local. */
static int mm_put_entry(io_w *w, long long i, long long j, double v) {
  char buf[96];
  int n = mm_utoa(buf, (unsigned long long)i);
  buf[n++] = ' ';
  n += mm_utoa(buf + n, (unsigned long long)j);
  buf[n++] = ' ';
  n += snprintf(buf + n, sizeof buf - (size_t)n, "%.17g\n", v);
  return io_w_put(w, buf, (size_t)n);
}

/* Error unless every value is finite (NaN/Inf cannot be read back).  Local. */
static int mm_check_finite(const char *path, const double *v, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    if (!isfinite(v[k]))
      return hy_err(HY_EINPUT, "%s: refusing to write a non-finite value (%g) at position %lld",
                    path, v[k], (long long)k);
  return HY_OK;
}

/* Write CSR as coordinate real general.  Local. */
int io_mm_write_csr(const char *path, const hy_csr *a, const char *comment) {
  io_w w;
  HY_CALL(mm_check_finite(path, a->val, a->nnz));
  HY_CALL(io_w_open(&w, path, io_has_suffix(path, ".gz")));
  int rc = io_w_put(&w, "%%MatrixMarket matrix coordinate real general\n", 46);
  if (rc == HY_OK) rc = mm_put_comment(&w, comment);
  if (rc == HY_OK) rc = mm_putf(&w, "%lld %lld %lld\n", (long long)a->m, (long long)a->n, (long long)a->nnz);
  for (int64_t i = 0; i < a->m && rc == HY_OK; i++)
    for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1] && rc == HY_OK; k++)
      rc = mm_put_entry(&w, (long long)i + 1, (long long)a->colind[k] + 1, a->val[k]);
  int rc2 = io_w_close(&w, rc == HY_OK);
  if (rc == HY_OK) rc = rc2;
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Write a dense matrix as array real general.  Local. */
int io_mm_write_dense(const char *path, const hy_dense *a, const char *comment) {
  io_w w;
  HY_CALL(mm_check_finite(path, a->a, a->m * a->n));
  HY_CALL(io_w_open(&w, path, io_has_suffix(path, ".gz")));
  int rc = io_w_put(&w, "%%MatrixMarket matrix array real general\n", 41);
  if (rc == HY_OK) rc = mm_put_comment(&w, comment);
  if (rc == HY_OK) rc = mm_putf(&w, "%lld %lld\n", (long long)a->m, (long long)a->n);
  int64_t total = a->m * a->n;
  for (int64_t k = 0; k < total && rc == HY_OK; k++) rc = mm_putf(&w, "%.17g\n", a->a[k]);
  int rc2 = io_w_close(&w, rc == HY_OK);
  if (rc == HY_OK) rc = rc2;
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Write a vector as an n x 1 array.  Local. */
int io_mm_write_vec(const char *path, const double *x, int64_t n, const char *comment) {
  hy_dense d = {n, 1, (double *)x};
  HY_CALL(io_mm_write_dense(path, &d, comment));
  return HY_OK;
}
