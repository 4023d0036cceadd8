/* comm_host.c - the transport table of the host backend: no device collectives (the MPI
 * transport works on host memory directly), strided copies in C. */
#include <string.h>

#include "hybrid.h"
#include "k_comm.h"

/* No device collectives: 0 bytes.  Local. */
static size_t h_id_bytes(k_backend *be) { return 0; }
/* Not available.  Local. */
static int h_id(k_backend *be, void *id) {
  return hy_err(HY_ESYS, "device collectives: not available on the host backend");
}
/* Not available.  Local. */
static int h_init(k_backend *be, const void *id, int nranks, int rank, void **comm) {
  *comm = NULL;
  return hy_err(HY_ESYS, "device collectives: not available on the host backend");
}
/* Nothing to free.  Local. */
static int h_free(k_backend *be, void *comm, int abort) { return HY_OK; }
/* Not available.  Local. */
static int h_bcast(k_backend *be, void *comm, void *buf, size_t bytes, int root) {
  return hy_err(HY_ESYS, "device collectives: not available on the host backend");
}
/* Column by column memcpy of an m x n block (lda -> ldb).  Local. */
static int h_copy(k_backend *be, size_t esz, int64_t m, int64_t n, const void *a, int64_t lda,
                  void *b, int64_t ldb) {
  if (m <= 0 || n <= 0) return HY_OK;
  if (lda == m && ldb == m) {
    memmove(b, a, (size_t)(m * n) * esz);
    return HY_OK;
  }
  for (int64_t j = 0; j < n; j++)
    memmove((char *)b + (size_t)(j * ldb) * esz, (const char *)a + (size_t)(j * lda) * esz,
            (size_t)m * esz);
  return HY_OK;
}
/* Device (host memory) to host.  Local. */
static int h_d2h(k_backend *be, size_t esz, int64_t m, int64_t n, const void *a, int64_t lda,
                 void *h, int64_t ldh) {
  return h_copy(be, esz, m, n, a, lda, h, ldh);
}
/* Host to device (host memory).  Local. */
static int h_h2d(k_backend *be, size_t esz, int64_t m, int64_t n, const void *h, int64_t ldh,
                 void *a, int64_t lda) {
  return h_copy(be, esz, m, n, h, ldh, a, lda);
}
/* Nothing is queued on the host.  Local. */
static int h_sync_all(k_backend *be) { return HY_OK; }

const k_comm_ops k_comm_host_ops = {
  .no_coll = "host backend",
  .coll_name = NULL,
  .mpi_path = "host memory",
  .coll_id_bytes = h_id_bytes,
  .coll_id = h_id,
  .coll_init = h_init,
  .coll_free = h_free,
  .coll_bcast = h_bcast,
  .coll_sendrecv = NULL,
  .copy_2d = h_copy,
  .d2h_2d = h_d2h,
  .h2d_2d = h_h2d,
  .sync_all = h_sync_all,
};
