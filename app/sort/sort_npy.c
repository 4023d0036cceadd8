/* sort_npy.c - 1-D .npy files of keys: a strict reader of the header (magic, version, the
 * header dict with exactly descr / fortran_order / shape, dtype one of <i4 <i8 <f4 <f8,
 * C order, a 1-D shape without overflow, the data size equal to what is left of the file)
 * and a writer that gathers every rank's block in rank order into one file, atomically. */
#include "sort.h"
#include "io/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Read and check the header of a 1-D .npy of keys (the shared strict reader of app/io, then
 * dtype, order and rank).  Local. */
int sort_npy_header(const char *path, k_sort_type *t, int64_t *n, long *data_off) {
  static const char *descr[] = { "<i4", "<i8", "<f4", "<f8" };
  io_npy_info h;
  FILE *f = fopen(path, "rb");
  if (!f) return hy_err(HY_EINPUT, "%s: cannot open the key file: %s", path, strerror(errno));
  fclose(f);
  HY_CALL(io_npy_read_header(path, "keys", &h));
  int d = -1;
  for (int i = 0; i < 4; i++) if (!strcmp(h.descr, descr[i])) d = i;
  if (d < 0)
    return hy_err(HY_EINPUT, "%s: .npy dtype '%s' is not allowed; allowed: <i4 (int32), <i8 (int64), <f4 (float), <f8 (double), little-endian", path, h.descr);
  if (h.fortran) return hy_err(HY_EINPUT, "%s: .npy fortran_order is True; only C order (False) is read", path);
  if (h.ndim == 0) return hy_err(HY_EINPUT, "%s: .npy shape () is a scalar, not a 1-D array", path);
  if (h.ndim > 1) return hy_err(HY_EINPUT, "%s: .npy shape has more than one dimension (a 1-D array of keys is needed)", path);
  if (h.count == 0) return hy_err(HY_EINPUT, "%s: the .npy array is empty (shape (0,))", path);
  *t = (k_sort_type)d;
  *n = h.shape[0];
  *data_off = h.data_off;
  return HY_OK;
}

/* Rank 0's part of the writer: header, its block, the other ranks' blocks as they arrive
 * (received even after a write error, so that no sender waits).  Local + point-to-point. */
static int npy_write_root(hy_ctx *ctx, const char *path, FILE *f, const char *descr, size_t elem,
                          const void *a, int64_t n, int64_t total, const int64_t *counts) {
  int ok = io_npy_write_header(f, descr, 1, &total) && fwrite(a, elem, (size_t)n, f) == (size_t)n;
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
  return ok ? HY_OK : hy_err(HY_ESYS, "%s: write failed: %s", path, strerror(errno));
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
