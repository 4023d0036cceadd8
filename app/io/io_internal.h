/* io_internal.h - helpers shared by the files of app/io only (not part of the io.h contract):
 * saturating size arithmetic, opening input files, a buffered line reader over plain or gzip
 * files, and a buffered atomic writer (plain or gzip). */
#ifndef HY_IO_INTERNAL_H
#define HY_IO_INTERNAL_H

#include "hybrid.h"
#include "io/io.h"

#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

/* a * b and a + b, saturating at UINT64_MAX instead of wrapping.  Local. */
uint64_t io_sat_mul(uint64_t a, uint64_t b);
uint64_t io_sat_add(uint64_t a, uint64_t b);

/* Open an input file for binary reading: a missing file is HY_EINPUT ("cannot open"),
 * any other failure HY_ESYS.  Local. */
int io_open_read(const char *path, FILE **fp);

/* Line reader over a plain or gzip file (detected by the magic bytes 1f 8b). */
typedef struct {
  const char *path;
  FILE *fp;
  gzFile gz;
  char *buf;
  size_t cap, beg, end;
  int eof, skipping;
  long long line;   /* number of the line last returned (1-based) */
  int zerr;         /* a zlib error seen after data that is still to be handed out */
  char zmsg[160];
} io_lr;

/* Open PATH for line reading.  Local. */
int io_lr_open(io_lr *r, const char *path);
/* Next line, NUL-terminated without its end of line (*line = NULL at end of file); very long
 * comment lines ('%') are cut to "%".  Local. */
int io_lr_next(io_lr *r, char **line, size_t *len);
/* Close the reader.  Local. */
void io_lr_close(io_lr *r);

/* Buffered atomic writer (PATH.tmp.XXXXXXXX renamed to PATH on success), plain or gzip. */
typedef struct {
  const char *path;
  char tmp[4096];
  FILE *fp;
  gzFile gz;
  char *buf;
  size_t len, cap;
} io_w;

/* Open PATH for writing; gz != 0 writes gzip.  Local. */
int io_w_open(io_w *w, const char *path, int gz);
/* Append n bytes.  Local. */
int io_w_put(io_w *w, const void *p, size_t n);
/* Flush and rename into place when ok, else remove the temporary file; returns the first
 * error (HY_OK when !ok and the cleanup worked).  Local. */
int io_w_close(io_w *w, int ok);

/* Nonzero when PATH ends with SUFFIX (case-insensitive).  Local. */
int io_has_suffix(const char *path, const char *suffix);

/* Sort each row of a CSR (colind, val in rowptr ranges) by column and sum duplicates in
 * place, compacting the arrays; a->nnz and a->rowptr are updated.  pattern != 0 keeps 1.0
 * for summed duplicates.  Local. */
void io_csr_sort_sum(hy_csr *a, int pattern);

#endif
