/* npy.c - the one .npy header reader and writer of the project (lle points, sort keys, conv
 * images, embeddings, neighbour lists).  The reader parses the header dict properly: exactly
 * the keys descr / fortran_order / shape, each once, quoted strings, True/False, a tuple of
 * non-negative integers; a structured dtype (a list) is refused; the element count and the
 * byte size are checked for overflow and against what the file holds. */
#include "io/io_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Skip blanks.  Local. */
static const char *npy_ws(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* A quoted string 'xxx' or "xxx" into out (cap bytes); NULL when malformed.  Local. */
static const char *npy_str(const char *p, char *out, size_t cap) {
  if (*p != '\'' && *p != '"') return NULL;
  char q = *p++;
  size_t l = 0;
  while (*p && *p != q) {
    if (*p == '\\' || l + 1 >= cap) return NULL;
    out[l++] = *p++;
  }
  if (*p != q) return NULL;
  out[l] = '\0';
  return p + 1;
}

/* The shape tuple "(a, b, ...)" into info; an error text or NULL.  Local. */
static const char *npy_shape(const char *p, io_npy_info *info, const char **end) {
  if (*p != '(') return "shape is not a tuple";
  p = npy_ws(p + 1);
  info->ndim = 0;
  while (*p != ')') {
    if (!isdigit((unsigned char)*p)) return "shape holds something other than a non-negative integer";
    uint64_t v = 0;
    while (isdigit((unsigned char)*p)) {
      if (v > (UINT64_C(1) << 62) / 10) return "shape overflows (a dimension of 2^62 or more)";
      v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (info->ndim == IO_NPY_MAXDIM) return "shape has more than 8 dimensions";
    info->shape[info->ndim++] = (int64_t)v;
    p = npy_ws(p);
    if (*p == ',') p = npy_ws(p + 1);
    else if (*p != ')') return "shape is malformed";
    else if (info->ndim == 1) return "shape (N) is malformed (a 1-tuple is written (N,))";
  }
  *end = p + 1;
  return NULL;
}

/* One value of the dict for key k (0 descr, 1 fortran_order, 2 shape).  Local. */
static int npy_value(const char *path, int k, const char **pp, io_npy_info *info) {
  const char *p = *pp, *msg = NULL;
  if (k == 0) {
    if (*p == '[') return hy_err(HY_EINPUT, "%s: .npy structured dtype (a list of fields) is not supported", path);
    p = npy_str(p, info->descr, sizeof info->descr);
    if (!p) return hy_err(HY_EINPUT, "%s: .npy header: descr is not a simple dtype string", path);
    const char *d = info->descr;
    if (strlen(d) < 3 || !strchr("<>|=", d[0]) || !strchr("fiub", d[1]))
      return hy_err(HY_EINPUT, "%s: .npy dtype '%s' is not a plain numeric dtype", path, d);
    char *e = NULL;
    long sz = strtol(d + 2, &e, 10);
    if (*e || sz < 1 || sz > 16) return hy_err(HY_EINPUT, "%s: .npy dtype '%s' is not a plain numeric dtype", path, d);
    info->elem = (size_t)sz;
  } else if (k == 1) {
    if (!strncmp(p, "False", 5)) info->fortran = 0, p += 5;
    else if (!strncmp(p, "True", 4)) info->fortran = 1, p += 4;
    else return hy_err(HY_EINPUT, "%s: .npy header: fortran_order is neither True nor False", path);
  } else if ((msg = npy_shape(p, info, &p)) != NULL) {
    return hy_err(HY_EINPUT, "%s: .npy %s", path, msg);
  }
  *pp = p;
  return HY_OK;
}

/* Parse the header dict h (NUL-terminated, without its newline).  Local. */
static int npy_dict(const char *path, const char *h, io_npy_info *info) {
  static const char *keys[3] = { "descr", "fortran_order", "shape" };
  int have[3] = { 0, 0, 0 };
  const char *p = npy_ws(h);
  if (*p++ != '{') return hy_err(HY_EINPUT, "%s: .npy header is not a dict", path);
  for (;;) {
    p = npy_ws(p);
    if (*p == '}') break;
    char key[32];
    p = npy_str(p, key, sizeof key);
    if (!p) return hy_err(HY_EINPUT, "%s: .npy header: malformed key", path);
    p = npy_ws(p);
    if (*p++ != ':') return hy_err(HY_EINPUT, "%s: .npy header: ':' expected after '%s'", path, key);
    p = npy_ws(p);
    int k = -1;
    for (int i = 0; i < 3; i++) if (!strcmp(key, keys[i])) k = i;
    if (k < 0) return hy_err(HY_EINPUT, "%s: .npy header: unknown key '%s' (allowed: descr, fortran_order, shape)", path, key);
    if (have[k]++) return hy_err(HY_EINPUT, "%s: .npy header: key '%s' given twice", path, key);
    HY_CALL(npy_value(path, k, &p, info));
    p = npy_ws(p);
    if (*p == ',') p++;
    else if (*p != '}') return hy_err(HY_EINPUT, "%s: .npy header: ',' or '}' expected", path);
  }
  p = npy_ws(p + 1);
  if (*p) return hy_err(HY_EINPUT, "%s: .npy header: text after the dict", path);
  for (int k = 0; k < 3; k++)
    if (!have[k]) return hy_err(HY_EINPUT, "%s: .npy header lacks '%s'", path, keys[k]);
  return HY_OK;
}

/* Element count and bytes of the shape (saturating), refusing a count that overflows.  Local. */
static int npy_count(const char *path, io_npy_info *info) {
  uint64_t cnt = 1;
  for (int i = 0; i < info->ndim; i++) cnt = io_sat_mul(cnt, (uint64_t)info->shape[i]);
  if (cnt == UINT64_MAX)
    return hy_err(HY_EINPUT, "%s: .npy shape: the product of the dimensions overflows 64 bits", path);
  info->count = cnt;
  info->bytes = io_sat_mul(cnt, info->elem);   /* saturated: then it cannot match the file */
  return HY_OK;
}

/* Read the magic, version and header length; the header text into *h.  Local. */
static int npy_preamble(const char *path, FILE *f, char **h, size_t *hl, long *start) {
  unsigned char pre[12];
  size_t got = fread(pre, 1, 12, f);
  if (got < 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
    return hy_err(HY_EINPUT, "%s: not a .npy file (no \\x93NUMPY magic)", path);
  int major = pre[6];
  if (major < 1 || major > 3)
    return hy_err(HY_EINPUT, "%s: .npy format version %d.%d is not known (1.0, 2.0, 3.0)", path, major, pre[7]);
  if (major > 1 && got < 12) return hy_err(HY_EINPUT, "%s: .npy header is truncated", path);
  *hl = major == 1 ? (size_t)pre[8] | (size_t)pre[9] << 8
                   : (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  *start = major == 1 ? 10 : 12;
  if (*hl > 65536 || *hl < 2) return hy_err(HY_EINPUT, "%s: .npy header length %zu is implausible", path, *hl);
  *h = malloc(*hl + 1);
  if (!*h) return hy_err(HY_ESYS, "out of memory reading the header of %s", path);
  if (fseek(f, *start, SEEK_SET) != 0 || fread(*h, 1, *hl, f) != *hl) return hy_err(HY_EINPUT, "%s: .npy header is truncated", path);
  if ((*h)[*hl - 1] != '\n') return hy_err(HY_EINPUT, "%s: .npy header does not end in a newline", path);
  (*h)[*hl - 1] = '\0';
  return HY_OK;
}

/* Read and check a .npy header; the data must fill the rest of the file exactly.  Local. */
int io_npy_read_header(const char *path, const char *noun, io_npy_info *info) {
  memset(info, 0, sizeof *info);
  FILE *f;
  HY_CALL(io_open_read(path, &f));
  char *h = NULL;
  size_t hl = 0;
  long start = 0;
  int rc = npy_preamble(path, f, &h, &hl, &start);
  struct stat st;
  if (rc == HY_OK && fstat(fileno(f), &st) != 0) rc = hy_err(HY_ESYS, "%s: cannot stat: %s", path, strerror(errno));
  fclose(f);
  if (rc == HY_OK) rc = npy_dict(path, h, info);
  free(h);
  if (rc == HY_OK) rc = npy_count(path, info);
  if (rc != HY_OK) return rc;
  uint64_t have = (uint64_t)st.st_size - (uint64_t)(start + (long)hl);
  if (have != info->bytes)
    return hy_err(HY_EINPUT, "%s: the header says %llu %s (%llu bytes of data) but the file holds %llu bytes after the header",
                  path, (unsigned long long)info->count, noun, (unsigned long long)info->bytes, (unsigned long long)have);
  info->data_off = start + (long)hl;
  return HY_OK;
}

/* Write a version 1.0 header for a C-order array; nonzero when written.  Local. */
int io_npy_write_header(FILE *f, const char *descr, int ndim, const int64_t *shape) {
  char hdr[400];
  int hl = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < ndim; i++)
    hl += snprintf(hdr + hl, sizeof hdr - (size_t)hl, "%lld%s", (long long)shape[i], ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
  hl += snprintf(hdr + hl, sizeof hdr - (size_t)hl, "), }");
  int pad = (64 - (10 + hl + 1) % 64) % 64;
  unsigned len = (unsigned)(hl + pad + 1);
  unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8) };
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)hl, f) == (size_t)hl;
  for (int i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  return ok;
}
