/* sort_npy.c - 1-D .npy files of keys: a strict reader of the header (magic, version, the
 * header dict with exactly descr / fortran_order / shape, dtype one of <i4 <i8 <f4 <f8,
 * C order, a 1-D shape without overflow, the data size equal to what is left of the file)
 * and a writer that gathers every rank's block in rank order into one file, atomically. */
#include "sort.h"
#include "io/io.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Skip spaces.  Local. */
static const char *npy_ws(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* Parse a quoted word 'xxx' into out.  NULL when malformed.  Local. */
static const char *npy_word(const char *p, char *out, size_t cap) {
  if (*p != '\'' && *p != '"') return NULL;
  char q = *p++;
  size_t l = 0;
  while (*p && *p != q) {
    if (l + 1 >= cap) return NULL;
    out[l++] = *p++;
  }
  if (*p != q) return NULL;
  out[l] = '\0';
  return p + 1;
}

/* Parse the shape tuple of a 1-D array "(N,)" into *n.  An error message on failure.  Local. */
static const char *npy_shape(const char *p, int64_t *n, const char **end) {
  if (*p != '(') return "shape is not a tuple";
  p = npy_ws(p + 1);
  if (*p == ')') return "shape () is a scalar, not a 1-D array";
  if (!isdigit((unsigned char)*p)) return "shape holds something other than a non-negative integer";
  uint64_t v = 0;
  while (isdigit((unsigned char)*p)) {
    if (v > (UINT64_C(1) << 62) / 10) return "shape overflows (more than 2^62 elements)";
    v = v * 10 + (uint64_t)(*p++ - '0');
  }
  p = npy_ws(p);
  if (*p == ')') return "shape (N) is malformed (a 1-tuple is written (N,))";
  if (*p != ',') return "shape is malformed";
  p = npy_ws(p + 1);
  if (*p != ')') return "shape has more than one dimension (a 1-D array of keys is needed)";
  *n = (int64_t)v;
  *end = p + 1;
  return NULL;
}

/* Parse the header dict h (NUL-terminated, without the trailing newline).  Local. */
static int npy_dict(const char *path, const char *h, k_sort_type *t, int64_t *n) {
  static const char *descr[] = { "<i4", "<i8", "<f4", "<f8" };
  int have[3] = { 0, 0, 0 };
  const char *p = npy_ws(h);
  if (*p++ != '{') return hy_err(HY_EINPUT, "%s: .npy header is not a dict", path);
  for (;;) {
    p = npy_ws(p);
    if (*p == '}') break;
    char key[32], val[32];
    p = npy_word(p, key, sizeof key);
    if (!p) return hy_err(HY_EINPUT, "%s: .npy header: malformed key", path);
    p = npy_ws(p);
    if (*p++ != ':') return hy_err(HY_EINPUT, "%s: .npy header: ':' expected after '%s'", path, key);
    p = npy_ws(p);
    int k = !strcmp(key, "descr") ? 0 : !strcmp(key, "fortran_order") ? 1 : !strcmp(key, "shape") ? 2 : -1;
    if (k < 0) return hy_err(HY_EINPUT, "%s: .npy header: unknown key '%s' (allowed: descr, fortran_order, shape)", path, key);
    if (have[k]++) return hy_err(HY_EINPUT, "%s: .npy header: key '%s' given twice", path, key);
    if (k == 0) {
      p = npy_word(p, val, sizeof val);
      if (!p) return hy_err(HY_EINPUT, "%s: .npy header: descr is not a simple dtype string", path);
      int d = -1;
      for (int i = 0; i < 4; i++) if (!strcmp(val, descr[i])) d = i;
      if (d < 0)
        return hy_err(HY_EINPUT, "%s: .npy dtype '%s' is not allowed; allowed: <i4 (int32), <i8 (int64), <f4 (float), <f8 (double), little-endian", path, val);
      *t = (k_sort_type)d;
    } else if (k == 1) {
      if (!strncmp(p, "False", 5)) p += 5;
      else if (!strncmp(p, "True", 4)) return hy_err(HY_EINPUT, "%s: .npy fortran_order is True; only C order (False) is read", path);
      else return hy_err(HY_EINPUT, "%s: .npy header: fortran_order is neither True nor False", path);
    } else {
      const char *msg = npy_shape(p, n, &p);
      if (msg) return hy_err(HY_EINPUT, "%s: .npy %s", path, msg);
    }
    p = npy_ws(p);
    if (*p == ',') p++;
    else if (*p != '}') return hy_err(HY_EINPUT, "%s: .npy header: ',' or '}' expected", path);
  }
  p = npy_ws(p + 1);
  if (*p) return hy_err(HY_EINPUT, "%s: .npy header: text after the dict", path);
  for (int k = 0; k < 3; k++)
    if (!have[k]) return hy_err(HY_EINPUT, "%s: .npy header lacks '%s'", path, k == 0 ? "descr" : k == 1 ? "fortran_order" : "shape");
  return HY_OK;
}

/* Read and check the header of a 1-D .npy of keys.  Local. */
int sort_npy_header(const char *path, k_sort_type *t, int64_t *n, long *data_off) {
  FILE *f = fopen(path, "rb");
  if (!f) return hy_err(HY_EINPUT, "%s: cannot open the key file: %s", path, strerror(errno));
  unsigned char pre[12];
  size_t got = fread(pre, 1, 12, f);
  if (got < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return hy_err(HY_EINPUT, "%s: not a .npy file (no \\x93NUMPY magic)", path);
  }
  int major = pre[6];
  if (major < 1 || major > 3) {
    fclose(f);
    return hy_err(HY_EINPUT, "%s: .npy format version %d.%d is not known (1.0, 2.0, 3.0)", path, major, pre[7]);
  }
  size_t hl = major == 1 ? (size_t)pre[8] | (size_t)pre[9] << 8
                         : (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  long start = major == 1 ? 10 : 12;
  char *h = NULL;
  if (hl > 65536 || hl < 2) {
    fclose(f);
    return hy_err(HY_EINPUT, "%s: .npy header length %zu is implausible", path, hl);
  }
  HY_MALLOC(h, hl + 1);
  int rc = HY_OK;
  if (fseek(f, start, SEEK_SET) != 0 || fread(h, 1, hl, f) != hl) rc = hy_err(HY_EINPUT, "%s: .npy header is truncated", path);
  struct stat st;
  if (rc == HY_OK && fstat(fileno(f), &st) != 0) rc = hy_err(HY_ESYS, "%s: cannot stat: %s", path, strerror(errno));
  fclose(f);
  if (rc == HY_OK && h[hl - 1] != '\n') rc = hy_err(HY_EINPUT, "%s: .npy header does not end in a newline", path);
  if (rc == HY_OK) {
    h[hl - 1] = '\0';
    rc = npy_dict(path, h, t, n);
  }
  free(h);
  if (rc != HY_OK) return rc;
  if (*n == 0) return hy_err(HY_EINPUT, "%s: the .npy array is empty (shape (0,))", path);
  uint64_t want = (uint64_t)*n * k_sort_key_bytes(*t), have = (uint64_t)st.st_size - (uint64_t)(start + (long)hl);
  if (have != want)
    return hy_err(HY_EINPUT, "%s: the header says %lld keys (%llu bytes of data) but the file holds %llu bytes after the header",
                  path, (long long)*n, (unsigned long long)want, (unsigned long long)have);
  *data_off = start + (long)hl;
  return HY_OK;
}

/* Rank 0's part of the writer: header, its block, the other ranks' blocks as they arrive
 * (received even after a write error, so that no sender waits).  Local + point-to-point. */
static int npy_write_root(hy_ctx *ctx, const char *path, FILE *f, const char *descr, size_t elem,
                          const void *a, int64_t n, int64_t total, const int64_t *counts) {
  char hdr[160];
  int hl = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }", descr, (long long)total);
  int pad = (64 - (10 + hl + 1) % 64) % 64;
  unsigned len = (unsigned)(hl + pad + 1);
  unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8) };
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)hl, f) == (size_t)hl;
  for (int i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF && fwrite(a, elem, (size_t)n, f) == (size_t)n;
  const size_t chunk = (size_t)1 << 26;
  unsigned char *buf = NULL;
  HY_MALLOC(buf, chunk);
  for (int r = 1; r < ctx->size; r++) {
    size_t bytes = (size_t)counts[r] * elem;
    for (size_t o = 0; o < bytes; o += chunk) {
      int m = (int)(bytes - o < chunk ? bytes - o : chunk);
      HY_MPI(MPI_Recv(buf, m, MPI_BYTE, r, 77, ctx->comm, MPI_STATUS_IGNORE));
      ok = ok && fwrite(buf, 1, (size_t)m, f) == (size_t)m;
    }
  }
  free(buf);
  return ok ? HY_OK : hy_err(HY_ESYS, "%s: write failed", path);
}

/* Write every rank's block in rank order as one .npy.  Collective. */
int sort_npy_write(hy_ctx *ctx, const char *path, const char *descr, size_t elem, const void *a, int64_t n) {
  int64_t *counts = NULL;
  HY_MALLOC(counts, ctx->size);
  HY_MPI(MPI_Allgather(&n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, ctx->comm));
  int64_t total = 0;
  for (int r = 0; r < ctx->size; r++) total += counts[r];
  char tmp[4096];
  FILE *f = NULL;
  int rc = ctx->rank == 0 ? io_atomic_open(path, tmp, sizeof tmp, &f) : HY_OK;
  rc = hy_agree(ctx->comm, rc);
  if (rc != HY_OK) {
    free(counts);
    return rc;
  }
  if (ctx->rank == 0) {
    rc = npy_write_root(ctx, path, f, descr, elem, a, n, total, counts);
    int crc = io_atomic_commit(path, tmp, f, rc == HY_OK);
    if (rc == HY_OK) rc = crc;
  } else {
    const size_t chunk = (size_t)1 << 26;
    size_t bytes = (size_t)n * elem;
    for (size_t o = 0; o < bytes; o += chunk)
      HY_MPI(MPI_Send((const unsigned char *)a + o, (int)(bytes - o < chunk ? bytes - o : chunk), MPI_BYTE, 0, 77, ctx->comm));
  }
  free(counts);
  HY_CALL(hy_agree(ctx->comm, rc));
  return HY_OK;
}
