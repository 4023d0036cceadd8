/* io.h - matrix and vector files: Matrix Market (plain or gzip) and PETSc binary.
 *
 * All functions here are local (no MPI): the caller decides which rank reads, and makes the
 * outcome collective with hy_agree().  Every malformed file yields HY_EINPUT with a message
 * naming the file and the line (Matrix Market) or byte offset (PETSc binary) and what was
 * wrong; I/O failures (cannot open, cannot write) yield HY_ESYS, except a missing input
 * file, which is HY_EINPUT.  Sizes read from a file are checked against io_mem_limit()
 * before anything is allocated.  Writers write to "PATH.tmp.XXXXXXXX" and rename, so that a failed
 * write never leaves a partial file at PATH. */
#ifndef HY_IO_H
#define HY_IO_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "la/la_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* hy_csr (compressed sparse rows) is the shared matrix type of app/la (la/la_csr.h). */

/* Dense matrix, column-major, leading dimension m. */
typedef struct {
  int64_t m, n;
  double *a;          /* m * n */
} hy_dense;

/* What a Matrix Market header says. */
typedef struct {
  int coordinate;     /* 1 coordinate, 0 array */
  int field;          /* IO_FIELD_REAL, IO_FIELD_INTEGER, IO_FIELD_PATTERN */
  int symmetry;       /* IO_SYM_GENERAL, IO_SYM_SYMMETRIC, IO_SYM_SKEW */
  int64_t m, n, nnz_stored;   /* nnz_stored: entries in the file (coordinate) or m*n (array) */
} io_mm_info;

enum { IO_FIELD_REAL = 0, IO_FIELD_INTEGER = 1, IO_FIELD_PATTERN = 2 };
enum { IO_SYM_GENERAL = 0, IO_SYM_SYMMETRIC = 1, IO_SYM_SKEW = 2 };

/* Bytes the readers may allocate for one object: the HYBRID_IO_MEM_LIMIT environment
 * variable (bytes) if set, else 90% of physical memory.  Local. */
size_t io_mem_limit(void);

/* Free the arrays of a matrix and zero it.  Local. */
void io_csr_free(hy_csr *a);
/* Sort col[0..n) by column index with val alongside in O(n log n) (quicksort, insertion sort
 * below 17; not stable: equal keys may swap their values).  Local. */
void io_sort_pairs(int32_t *col, double *val, int64_t n);
void io_dense_free(hy_dense *a);

/* Read only the header and size line of a Matrix Market file.  Local. */
int io_mm_info_read(const char *path, io_mm_info *info);

/* Read any Matrix Market matrix (coordinate or array; real, integer or pattern; general,
 * symmetric or skew-symmetric, expanded to both triangles; .gz or plain, detected by magic
 * bytes) as CSR.  Duplicate coordinate entries are summed; explicit zeros are kept for
 * coordinate files; exact zeros of array files are dropped.  Local. */
int io_mm_read_csr(const char *path, hy_csr *a);

/* Read any Matrix Market matrix as a dense column-major matrix (coordinate files are
 * densified after checking m*n*8 against io_mem_limit()).  Local. */
int io_mm_read_dense(const char *path, hy_dense *a);

/* Read a vector: a Matrix Market array of n x 1 (or 1 x n), or a coordinate n x 1.  Local. */
int io_mm_read_vec(const char *path, double **x, int64_t *n);

/* Write CSR as "coordinate real general", dense as "array real general", a vector as an
 * n x 1 array; full precision (%.17g).  ".gz" paths are written compressed.  Local. */
int io_mm_write_csr(const char *path, const hy_csr *a, const char *comment);
int io_mm_write_dense(const char *path, const hy_dense *a, const char *comment);
int io_mm_write_vec(const char *path, const double *x, int64_t n, const char *comment);

/* PETSc binary (big-endian, 32-bit indices): Mat (classid 1211216: classid, M, N, nz,
 * row lengths, column indices, values) and Vec (classid 1211214: classid, n, values), as
 * MatLoad / VecLoad read them.  Local. */
int io_petsc_read_mat(const char *path, hy_csr *a);
int io_petsc_write_mat(const char *path, const hy_csr *a);
int io_petsc_read_vec(const char *path, double **x, int64_t *n);
int io_petsc_write_vec(const char *path, const double *x, int64_t n);

/* Format by content (PETSc classid, "%%MatrixMarket", gzip magic): read a matrix as CSR,
 * as dense, or a vector.  Local. */
int io_read_csr(const char *path, hy_csr *a);
int io_read_dense(const char *path, hy_dense *a);
int io_read_vec(const char *path, double **x, int64_t *n);

/* What a file holds, judged by its first bytes: a PETSc binary Mat or Vec, else Matrix Market
 * (plain or gzip; anything else is left to the Matrix Market reader to reject). */
enum { IO_KIND_MM = 0, IO_KIND_PETSC_MAT = 1, IO_KIND_PETSC_VEC = 2 };

/* Tell the kind of PATH by content (hybrid --inspect uses it to pick io_read_csr or
 * io_read_vec); a binary file with an unknown classid counts as a Mat, so that reading it
 * reports the wrong classid.  Local. */
int io_file_kind(const char *path, int *kind);

/* Format by extension: ".petsc" / ".bin" / ".dat" -> PETSc binary, else Matrix Market
 * (".gz" compressed).  Local. */
int io_write_csr(const char *path, const hy_csr *a, const char *comment);
int io_write_vec(const char *path, const double *x, int64_t n, const char *comment);

/* Convert between CSR and dense (dense -> CSR drops exact zeros).  Local. */
int io_csr_to_dense(const hy_csr *a, hy_dense *d);
int io_dense_to_csr(const hy_dense *d, hy_csr *a);

/* .npy files (format 1.0-3.0): what a header says.  descr is the dtype string ("<f8", "<i4",
 * ...: byte order, kind f/i/u/b, element size); count = product of the shape; bytes = count *
 * elem; data_off = where the data starts. */
#define IO_NPY_MAXDIM 8
typedef struct {
  char descr[16];
  size_t elem;
  int fortran, ndim;
  int64_t shape[IO_NPY_MAXDIM];
  uint64_t count, bytes;
  long data_off;
} io_npy_info;

/* Read a .npy header strictly (a real dict parser: exactly descr / fortran_order / shape;
 * structured dtypes refused; shape products that overflow refused; the data must fill the
 * rest of the file exactly; noun names the elements in that message: "keys", "values").  The
 * caller checks dtype and rank.  HY_EINPUT on a malformed file.  Local. */
int io_npy_read_header(const char *path, const char *noun, io_npy_info *info);
/* Write a .npy 1.0 header of a C-order array of the given dtype and shape to f; nonzero when
 * written (on failure errno tells why and nothing is printed).  Local. */
int io_npy_write_header(FILE *f, const char *descr, int ndim, const int64_t *shape);

/* Create a temporary file PATH.tmp.XXXXXXXX (8 random characters) in PATH's folder with
 * O_CREAT | O_EXCL | O_NOFOLLOW (never an existing file, never through a symlink); *fd is open
 * for writing.  The first call ignores SIGXFSZ, so that a file-size limit is a write error
 * (EFBIG), not a kill.  Local. */
int io_tmp_create(const char *path, char *tmp, size_t tmplen, int *fd);
/* Open a temporary file next to PATH (io_tmp_create) / rename it over PATH (or remove it on
 * failure: with !ok and a write error on fp, an HY_ESYS naming PATH and errno is returned;
 * with !ok and no write error, HY_OK).  These are the atomic-write helpers every output file
 * of the project goes through.  Local. */
int io_atomic_open(const char *path, char *tmp, size_t tmplen, FILE **fp_out);
int io_atomic_commit(const char *path, const char *tmp, FILE *fp, int ok);

#ifdef __cplusplus
}
#endif
#endif
