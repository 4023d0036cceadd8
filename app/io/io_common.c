/* io_common.c - what the readers and writers share: the memory limit, frees, conversions,
 * dispatch by content or extension, the line reader, the atomic writer. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* sysconf(_SC_PHYS_PAGES), fileno, fsync, dup, getrandom */
#endif
#include "io/io_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IO_LR_START (1u << 20)      /* first line buffer: 1 MiB */
#define IO_LR_MAX ((size_t)1 << 30) /* longest data line accepted: 1 GiB */
#define IO_W_BUF (1u << 20)

/* a * b saturating at UINT64_MAX.  Local. */
uint64_t io_sat_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

/* a + b saturating at UINT64_MAX.  Local. */
uint64_t io_sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* HYBRID_IO_MEM_LIMIT (bytes) if set and valid, else 90% of physical memory.  Local. */
size_t io_mem_limit(void) {
  const char *s = getenv("HYBRID_IO_MEM_LIMIT");
  if (s && *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    while (*end && isspace((unsigned char)*end)) end++;
    if (errno == 0 && end != s && *end == '\0' && s[0] != '-')
      return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
  }
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return (size_t)1 << 32; /* unknown: 4 GiB */
  uint64_t phys = io_sat_mul((uint64_t)pages, (uint64_t)psize);
  uint64_t lim = phys / 10 * 9;
  return lim > SIZE_MAX ? SIZE_MAX : (size_t)lim;
}

/* Free a CSR matrix and zero it.  Local. */
void io_csr_free(hy_csr *a) {
  if (!a) return;
  free(a->rowptr);
  free(a->colind);
  free(a->val);
  memset(a, 0, sizeof *a);
}

/* Free a dense matrix and zero it.  Local. */
void io_dense_free(hy_dense *a) {
  if (!a) return;
  free(a->a);
  memset(a, 0, sizeof *a);
}

/* Nonzero when path ends with suffix, ignoring case.  Local. */
int io_has_suffix(const char *path, const char *suffix) {
  size_t lp = strlen(path), ls = strlen(suffix);
  return lp >= ls && strcasecmp(path + lp - ls, suffix) == 0;
}

/* Open an input file: what the user named wrongly (missing, a directory, a symlink loop, no
 * permission, name too long) -> HY_EINPUT; other failures (EMFILE, EIO, ...) -> HY_ESYS.
 * Local. */
int io_open_read(const char *path, FILE **fp) {
  *fp = fopen(path, "rb");
  if (!*fp) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR || e == ELOOP || e == EACCES || e == EISDIR || e == ENAMETOOLONG)
      return hy_err(HY_EINPUT, "%s: cannot open: %s", path, strerror(e));
    return hy_err(HY_ESYS, "%s: cannot open: %s", path, strerror(e));
  }
  struct stat st;
  if (fstat(fileno(*fp), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(*fp);
    *fp = NULL;
    return hy_err(HY_EINPUT, "%s: cannot open: is a directory, not a file", path);
  }
  return HY_OK;
}

/* ------------------------------------------------------------------ line reader */

/* Open a plain or gzip file for reading lines.  Local. */
int io_lr_open(io_lr *r, const char *path) {
  memset(r, 0, sizeof *r);
  r->path = path;
  FILE *fp;
  HY_CALL(io_open_read(path, &fp));
  unsigned char mag[2] = {0, 0};
  size_t got = fread(mag, 1, 2, fp);
  if (got < 2 && ferror(fp)) {
    int e = errno;
    fclose(fp);
    return hy_err(HY_ESYS, "%s: cannot read: %s", path, strerror(e));
  }
  if (got == 2 && mag[0] == 0x1f && mag[1] == 0x8b) {
    fclose(fp);
    r->gz = gzopen(path, "rb");
    if (!r->gz) return hy_err(HY_ESYS, "%s: cannot open gzip file: %s", path, strerror(errno));
    gzbuffer(r->gz, 1u << 18);
  } else {
    rewind(fp);
    r->fp = fp;
  }
  r->cap = IO_LR_START;
  r->buf = malloc(r->cap + 1);
  if (!r->buf) {
    io_lr_close(r);
    return hy_err(HY_ESYS, "out of memory allocating a line buffer for %s", path);
  }
  return HY_OK;
}

/* Read up to want bytes at dst; sets r->eof at the end; gzip damage is HY_EINPUT.  Local. */
static int io_lr_read(io_lr *r, char *dst, size_t want, size_t *got) {
  *got = 0;
  if (r->fp) {
    size_t n = fread(dst, 1, want, r->fp);
    if (n < want) {
      if (ferror(r->fp)) return hy_err(HY_ESYS, "%s: cannot read: %s", r->path, strerror(errno));
      r->eof = 1;
    }
    *got = n;
    return HY_OK;
  }
  if (want > (1u << 30)) want = 1u << 30;
  int n = 0, zerr = r->zerr;
  const char *zmsg = r->zmsg;
  if (zerr == Z_OK) {
    n = gzread(r->gz, dst, (unsigned)want);
    zmsg = gzerror(r->gz, &zerr);
    size_t pl = strlen(r->path);
    if (zmsg && strncmp(zmsg, r->path, pl) == 0 && zmsg[pl] == ':')
      zmsg += pl + (zmsg[pl + 1] == ' ' ? 2 : 1);
    if (n > 0 && zerr != Z_OK && zerr != Z_BUF_ERROR) {
      /* hand out the data first; report the damage where it ends */
      r->zerr = zerr;
      snprintf(r->zmsg, sizeof r->zmsg, "%s", zmsg ? zmsg : "unknown zlib error");
      *got = (size_t)n;
      return HY_OK;
    }
  }
  if (n < 0 || (zerr != Z_OK && zerr != Z_BUF_ERROR)) {
    if (zerr == Z_ERRNO) return hy_err(HY_ESYS, "%s: cannot read: %s", r->path, strerror(errno));
    return hy_err(HY_EINPUT, "%s:%lld: corrupt gzip data (%s)", r->path, r->line + 1,
                  zmsg ? zmsg : "unknown zlib error");
  }
  if (n == 0) {
    if (zerr == Z_BUF_ERROR)
      return hy_err(HY_EINPUT, "%s:%lld: gzip data truncated (%s)", r->path, r->line + 1,
                    zmsg ? zmsg : "unexpected end of file");
    r->eof = 1;
  }
  *got = (size_t)n;
  return HY_OK;
}

/* Next line without its end-of-line; *line = NULL at end of file.  Local. */
int io_lr_next(io_lr *r, char **line, size_t *len) {
  *line = NULL;
  *len = 0;
  for (;;) {
    if (r->end > r->beg) {
      char *s = r->buf + r->beg;
      char *nl = memchr(s, '\n', r->end - r->beg);
      if (nl || r->eof) {
        size_t n = nl ? (size_t)(nl - s) : r->end - r->beg;
        s[n] = '\0';
        r->beg += nl ? n + 1 : n;
        if (n > 0 && s[n - 1] == '\r') s[--n] = '\0';
        r->line++;
        *line = s;
        *len = n;
        return HY_OK;
      }
    } else if (r->eof) {
      return HY_OK;
    }
    /* need more data: compact, grow or start skipping a long comment, then read */
    if (r->beg > 0) {
      memmove(r->buf, r->buf + r->beg, r->end - r->beg);
      r->end -= r->beg;
      r->beg = 0;
    }
    if (r->end == r->cap) {
      if (r->buf[0] == '%') {
        r->end = 1; /* keep "%", drop the rest of this comment line */
        r->skipping = 1;
      } else {
        if (r->cap >= IO_LR_MAX)
          return hy_err(HY_EINPUT, "%s:%lld: line longer than %zu bytes", r->path, r->line + 1,
                        (size_t)IO_LR_MAX);
        char *nb = realloc(r->buf, 2 * r->cap + 1);
        if (!nb) return hy_err(HY_ESYS, "out of memory growing the line buffer for %s", r->path);
        r->buf = nb;
        r->cap *= 2;
      }
    }
    size_t got;
    HY_CALL(io_lr_read(r, r->buf + r->end, r->cap - r->end, &got));
    if (r->skipping && got > 0) {
      char *p = r->buf + r->end;
      char *nl = memchr(p, '\n', got);
      if (!nl) continue; /* all of it belongs to the skipped comment */
      size_t keep = got - (size_t)(nl - p);
      memmove(p, nl, keep);
      got = keep;
      r->skipping = 0;
    }
    r->end += got;
  }
}

/* Close the line reader.  Local. */
void io_lr_close(io_lr *r) {
  if (r->fp) fclose(r->fp);
  if (r->gz) gzclose(r->gz);
  free(r->buf);
  r->fp = NULL;
  r->gz = NULL;
  r->buf = NULL;
}

/* ------------------------------------------------------------------ atomic writing */

/* Ignore SIGXFSZ once, so that a file-size limit (ulimit -f) makes write() fail with EFBIG
 * (an error message, exit 5, the temporary file removed) instead of killing the process.
 * Local. */
static void io_ignore_sigxfsz(void) {
  static volatile sig_atomic_t done = 0;
  if (!done) {
    signal(SIGXFSZ, SIG_IGN);
    done = 1;
  }
}

/* 48 unpredictable bits as 8 characters of [A-Za-z0-9_-].  Local. */
static void io_tmp_suffix(char out[9]) {
  static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
  unsigned char r[8];
  if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)r;
    for (int i = 0; i < 8; i++, x = x * 6364136223846793005ull + 1442695040888963407ull) r[i] = (unsigned char)(x >> 56);
  }
  for (int i = 0; i < 8; i++) out[i] = al[r[i] & 63];
  out[8] = '\0';
}

/* Create PATH.tmp.XXXXXXXX (random) with O_CREAT | O_EXCL | O_NOFOLLOW: never an existing
 * file, never through a planted symlink.  Local. */
int io_tmp_create(const char *path, char *tmp, size_t tmplen, int *fd_out) {
  io_ignore_sigxfsz();
  *fd_out = -1;
  for (int k = 0; k < 100; k++) {
    char sfx[9];
    io_tmp_suffix(sfx);
    int n = snprintf(tmp, tmplen, "%s.tmp.%s", path, sfx);
    if (n < 0 || (size_t)n >= tmplen)
      return hy_err(HY_EUSAGE, "%s: path too long (%zu characters at most)", path, tmplen - 14);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *fd_out = fd;
      return HY_OK;
    }
    if (errno != EEXIST) return hy_err(HY_ESYS, "%s: cannot create %s: %s", path, tmp, strerror(errno));
  }
  return hy_err(HY_ESYS, "%s: cannot create a temporary file next to it: 100 names taken", path);
}

/* Open a fresh temporary file next to PATH for writing.  Local. */
int io_atomic_open(const char *path, char *tmp, size_t tmplen, FILE **fp_out) {
  *fp_out = NULL;
  int fd;
  HY_CALL(io_tmp_create(path, tmp, tmplen, &fd));
  FILE *fp = fdopen(fd, "wb");
  if (!fp) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return hy_err(HY_ESYS, "%s: cannot open %s: %s", path, tmp, strerror(e));
  }
  *fp_out = fp;
  return HY_OK;
}

/* Flush, sync, close and rename TMP to PATH when ok; else close and remove TMP.  Local. */
int io_atomic_commit(const char *path, const char *tmp, FILE *fp, int ok) {
  if (!ok) {
    int e = errno, werr = fp && ferror(fp);   /* a failed write: errno is still its reason */
    if (fp) fclose(fp);
    unlink(tmp);
    if (werr) return hy_err(HY_ESYS, "%s: cannot write %s: %s", path, tmp, strerror(e ? e : EIO));
    return HY_OK;
  }
  int e = 0;
  if (!fp) e = EBADF;
  if (!e && fflush(fp) != 0) e = errno;
  if (!e && ferror(fp)) e = EIO;
  if (!e && fsync(fileno(fp)) != 0 && errno != EINVAL && errno != EROFS) e = errno;
  if (fp && fclose(fp) != 0 && !e) e = errno;
  if (e) {
    remove(tmp);
    return hy_err(HY_ESYS, "%s: cannot write %s: %s", path, tmp, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    e = errno;
    remove(tmp);
    return hy_err(HY_ESYS, "%s: cannot rename %s to it: %s", path, tmp, strerror(e));
  }
  return HY_OK;
}

/* Open a buffered atomic writer, gzip when gz.  Local. */
int io_w_open(io_w *w, const char *path, int gz) {
  memset(w, 0, sizeof *w);
  w->path = path;
  HY_CALL(io_atomic_open(path, w->tmp, sizeof w->tmp, &w->fp));
  w->buf = malloc(IO_W_BUF);
  if (!w->buf) {
    io_atomic_commit(path, w->tmp, w->fp, 0);
    return hy_err(HY_ESYS, "out of memory allocating a write buffer for %s", path);
  }
  w->cap = IO_W_BUF;
  if (gz) {
    int fd = dup(fileno(w->fp));
    w->gz = fd >= 0 ? gzdopen(fd, "wb1") : NULL;
    if (!w->gz) {
      int e = errno;
      if (fd >= 0) close(fd);
      free(w->buf);
      io_atomic_commit(path, w->tmp, w->fp, 0);
      return hy_err(HY_ESYS, "%s: cannot start gzip stream: %s", path, strerror(e));
    }
    gzbuffer(w->gz, 1u << 18);
  }
  return HY_OK;
}

/* Write the buffer out.  Local. */
static int io_w_flush(io_w *w) {
  if (w->len == 0) return HY_OK;
  if (w->gz) {
    size_t off = 0;
    while (off < w->len) {
      unsigned chunk = (unsigned)(w->len - off > (1u << 30) ? (1u << 30) : w->len - off);
      int n = gzwrite(w->gz, w->buf + off, chunk);
      if (n <= 0) {
        int zerr;
        const char *m = gzerror(w->gz, &zerr);
        return hy_err(HY_ESYS, "%s: cannot write %s: %s", w->path, w->tmp,
                      zerr == Z_ERRNO ? strerror(errno) : m);
      }
      off += (size_t)n;
    }
  } else if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
    return hy_err(HY_ESYS, "%s: cannot write %s: %s", w->path, w->tmp, strerror(errno));
  }
  w->len = 0;
  return HY_OK;
}

/* Append n bytes to the writer.  Local. */
int io_w_put(io_w *w, const void *p, size_t n) {
  const char *s = p;
  while (n > 0) {
    if (w->len == w->cap) HY_CALL(io_w_flush(w));
    size_t k = w->cap - w->len < n ? w->cap - w->len : n;
    memcpy(w->buf + w->len, s, k);
    w->len += k;
    s += k;
    n -= k;
  }
  return HY_OK;
}

/* Finish: flush and commit when ok, else drop the temporary file.  Local. */
int io_w_close(io_w *w, int ok) {
  int rc = HY_OK;
  if (ok) rc = io_w_flush(w);
  if (w->gz) {
    int z = gzclose(w->gz);
    w->gz = NULL;
    if (rc == HY_OK && ok && z != Z_OK)
      rc = hy_err(HY_ESYS, "%s: cannot finish gzip stream in %s (zlib error %d)", w->path,
                  w->tmp, z);
  }
  int rc2 = io_atomic_commit(w->path, w->tmp, w->fp, ok && rc == HY_OK);
  w->fp = NULL;
  free(w->buf);
  w->buf = NULL;
  return rc != HY_OK ? rc : rc2;
}

/* ------------------------------------------------------------------ CSR helpers */

/* Sort col[0..n) with val alongside (quicksort + insertion sort).  Local. */
void io_sort_pairs(int32_t *col, double *val, int64_t n) {
  while (n > 16) {
    int64_t mid = (n - 1) / 2, last = n - 1;
    /* median of three moved to the lower middle (Hoare's scheme then ends with j < last) */
    int32_t a = col[0], b = col[mid], c = col[last];
    int64_t pi = (a < b) ? ((b < c) ? mid : (a < c ? last : 0)) : ((a < c) ? 0 : (b < c ? last : mid));
    if (pi != mid) {
      int32_t tc = col[pi]; col[pi] = col[mid]; col[mid] = tc;
      double tv = val[pi]; val[pi] = val[mid]; val[mid] = tv;
    }
    int32_t pivot = col[mid];
    int64_t i = 0, j = last;
    for (;;) {
      while (col[i] < pivot) i++;
      while (col[j] > pivot) j--;
      if (i >= j) break;
      int32_t tc = col[i]; col[i] = col[j]; col[j] = tc;
      double tv = val[i]; val[i] = val[j]; val[j] = tv;
      i++;
      j--;
    }
    /* [0, j] <= pivot <= [j+1, n): recurse on the smaller part */
    int64_t nl = j + 1;
    if (nl < n - nl) {
      io_sort_pairs(col, val, nl);
      col += nl;
      val += nl;
      n -= nl;
    } else {
      io_sort_pairs(col + nl, val + nl, n - nl);
      n = nl;
    }
  }
  for (int64_t i = 1; i < n; i++) {
    int32_t c = col[i];
    double v = val[i];
    int64_t k = i - 1;
    while (k >= 0 && col[k] > c) {
      col[k + 1] = col[k];
      val[k + 1] = val[k];
      k--;
    }
    col[k + 1] = c;
    val[k + 1] = v;
  }
}

/* Sort each row by column, sum duplicates, compact.  Local. */
void io_csr_sort_sum(hy_csr *a, int pattern) {
  int64_t w = 0, start = 0;
  for (int64_t i = 0; i < a->m; i++) {
    int64_t end = a->rowptr[i + 1];
    int64_t len = end - start;
    int sorted = 1;
    for (int64_t k = start + 1; k < end && sorted; k++)
      if (a->colind[k] <= a->colind[k - 1]) sorted = 0;
    if (!sorted) io_sort_pairs(a->colind + start, a->val + start, len);
    a->rowptr[i] = w;
    for (int64_t k = start; k < end; k++) {
      if (w > a->rowptr[i] && a->colind[w - 1] == a->colind[k]) {
        a->val[w - 1] = pattern ? 1.0 : a->val[w - 1] + a->val[k];
      } else {
        a->colind[w] = a->colind[k];
        a->val[w] = a->val[k];
        w++;
      }
    }
    start = end;
  }
  a->rowptr[a->m] = w;
  a->nnz = w;
}

/* Dense column-major copy of a CSR matrix, after checking m*n*8 against the limit.  Local. */
int io_csr_to_dense(const hy_csr *a, hy_dense *d) {
  memset(d, 0, sizeof *d);
  uint64_t bytes = io_sat_mul(io_sat_mul((uint64_t)a->m, (uint64_t)a->n), sizeof(double));
  if (a->m < 0 || a->n < 0 || bytes > io_mem_limit())
    return hy_err(HY_EINPUT, "a dense %lld x %lld matrix needs %llu bytes, more than the memory "
                  "limit of %zu bytes (HYBRID_IO_MEM_LIMIT)", (long long)a->m, (long long)a->n,
                  (unsigned long long)bytes, io_mem_limit());
  HY_CALLOC(d->a, (size_t)(a->m * a->n));
  d->m = a->m;
  d->n = a->n;
  for (int64_t i = 0; i < a->m; i++)
    for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
      d->a[i + (int64_t)a->colind[k] * a->m] += a->val[k];
  return HY_OK;
}

/* CSR copy of a dense matrix, dropping exact zeros.  Local. */
int io_dense_to_csr(const hy_dense *d, hy_csr *a) {
  memset(a, 0, sizeof *a);
  if (d->m < 0 || d->n < 0 || d->n > INT32_MAX)
    return hy_err(HY_EINPUT, "dense %lld x %lld matrix cannot be stored as CSR with 32-bit "
                  "column indices", (long long)d->m, (long long)d->n);
  int64_t m = d->m, n = d->n;
  la_csr_alloc_rows(a, m, n);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      if (d->a[i + j * m] != 0.0) a->rowptr[i + 1]++;
  for (int64_t i = 0; i < m; i++) a->rowptr[i + 1] += a->rowptr[i];
  la_csr_alloc_entries(a);
  /* rows in order, columns ascending: walk row by row through the column-major array */
  int64_t w = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double v = d->a[i + j * m];
      if (v != 0.0) {
        a->colind[w] = (int32_t)j;
        a->val[w] = v;
        w++;
      }
    }
  return HY_OK;
}

/* ------------------------------------------------------------------ dispatch */

/* First bytes of a file: the big-endian classid, and whether it starts with a NUL byte (a
 * binary file: no Matrix Market text, gzip or not, does).  Local. */
static int io_sniff(const char *path, uint32_t *id, int *binary) {
  FILE *fp;
  *id = 0;
  *binary = 0;
  HY_CALL(io_open_read(path, &fp));
  unsigned char h[4];
  size_t got = fread(h, 1, 4, fp);
  int bad = got < 4 && ferror(fp);
  int e = errno;
  fclose(fp);
  if (bad) return hy_err(HY_ESYS, "%s: cannot read: %s", path, strerror(e));
  if (got == 4) *id = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
  *binary = got > 0 && h[0] == 0;
  return HY_OK;
}

/* Kind of a file by its first bytes; a binary file that is neither PETSc classid counts as a
 * Mat, so that the PETSc reader reports its wrong classid.  Local. */
int io_file_kind(const char *path, int *kind) {
  uint32_t id;
  int binary;
  *kind = IO_KIND_MM;
  HY_CALL(io_sniff(path, &id, &binary));
  if (id == 0x507B1200u || id == 0x4E7B1200u)   /* 1211216 / 1211214 with the bytes swapped */
    return hy_err(HY_EINPUT, "%s: looks like a byte-swapped PETSc binary %s (little-endian classid %s); PETSc "
                  "binary files are big-endian (write them with PETSc's viewer, or swap the bytes)",
                  path, id == 0x507B1200u ? "Mat" : "Vec", id == 0x507B1200u ? "1211216" : "1211214");
  if (id == 1211214u) *kind = IO_KIND_PETSC_VEC;
  else if (id == 1211216u || binary) *kind = IO_KIND_PETSC_MAT;
  return HY_OK;
}

/* Read a matrix as CSR, PETSc binary or Matrix Market by content.  Local. */
int io_read_csr(const char *path, hy_csr *a) {
  int kind;
  memset(a, 0, sizeof *a);
  HY_CALL(io_file_kind(path, &kind));
  if (kind == IO_KIND_PETSC_VEC)
    return hy_err(HY_EINPUT, "%s: is a PETSc binary Vec (classid 1211214), expected a matrix", path);
  if (kind == IO_KIND_PETSC_MAT) HY_CALL(io_petsc_read_mat(path, a));
  else HY_CALL(io_mm_read_csr(path, a));
  return HY_OK;
}

/* Read a matrix as dense, PETSc binary or Matrix Market by content.  Local. */
int io_read_dense(const char *path, hy_dense *d) {
  int kind;
  memset(d, 0, sizeof *d);
  HY_CALL(io_file_kind(path, &kind));
  if (kind == IO_KIND_PETSC_VEC)
    return hy_err(HY_EINPUT, "%s: is a PETSc binary Vec (classid 1211214), expected a matrix", path);
  if (kind == IO_KIND_MM) {
    HY_CALL(io_mm_read_dense(path, d));
    return HY_OK;
  }
  hy_csr a;
  HY_CALL(io_petsc_read_mat(path, &a));
  int rc = io_csr_to_dense(&a, d);
  io_csr_free(&a);
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Read a vector, PETSc binary or Matrix Market by content.  Local. */
int io_read_vec(const char *path, double **x, int64_t *n) {
  uint32_t id;
  int binary;
  *x = NULL;
  *n = 0;
  HY_CALL(io_sniff(path, &id, &binary));
  if (id == 1211216u)
    return hy_err(HY_EINPUT, "%s: is a PETSc binary Mat (classid 1211216), expected a vector", path);
  if (id == 1211214u || binary) HY_CALL(io_petsc_read_vec(path, x, n));
  else HY_CALL(io_mm_read_vec(path, x, n));
  return HY_OK;
}

/* Nonzero when the extension asks for PETSc binary.  Local. */
static int io_is_petsc_name(const char *path) {
  return io_has_suffix(path, ".petsc") || io_has_suffix(path, ".bin") || io_has_suffix(path, ".dat");
}

/* Write a CSR matrix, format by extension.  Local. */
int io_write_csr(const char *path, const hy_csr *a, const char *comment) {
  if (io_is_petsc_name(path)) HY_CALL(io_petsc_write_mat(path, a));
  else HY_CALL(io_mm_write_csr(path, a, comment));
  return HY_OK;
}

/* Write a vector, format by extension.  Local. */
int io_write_vec(const char *path, const double *x, int64_t n, const char *comment) {
  if (io_is_petsc_name(path)) HY_CALL(io_petsc_write_vec(path, x, n));
  else HY_CALL(io_mm_write_vec(path, x, n, comment));
  return HY_OK;
}
