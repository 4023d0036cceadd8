/* k_comm.h - what a transport (app/comm/) needs from a backend: device-to-device collectives
 * and strided block copies, one table per backend.
 *
 * Blocks are m x n column-major arrays of esz-byte elements with a leading dimension (in
 * elements).  Pointers are "device" pointers of the backend (host memory on the host backend)
 * unless named h*.  Work is queued on the backend's current stream (on CUDA: the main stream,
 * or the gauss lookahead side stream while it is selected).  Every function is local to the
 * calling rank (the collectives: every rank of the communicator must queue the same calls in
 * the same order) and returns HY_OK or an error code recorded with hy_err(). */
#ifndef HY_K_COMM_H
#define HY_K_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message of a grouped point-to-point exchange (coll_sendrecv): bytes of device memory at
 * buf sent to (send = 1) or received from (send = 0) rank peer of the communicator. */
typedef struct {
  int peer;
  int send;
  void *buf;
  size_t bytes;
} k_comm_msg;

typedef struct {
  /* NULL when this backend has device collectives ("nccl"), else why not, for the log
   * ("host backend", "this build has no NCCL (HYBRID_NCCL)"). */
  const char *no_coll;
  /* Name of the device collectives ("nccl"), NULL when none. */
  const char *coll_name;
  /* How the MPI transport reaches the data: "host-staged" (device memory through pinned host
   * buffers) or "host memory" (the host backend). */
  const char *mpi_path;
  /* Bytes of a communicator id (0: no device collectives). */
  size_t (*coll_id_bytes)(k_backend *be);
  /* Create a new communicator id in id (coll_id_bytes bytes); one rank does, the others get it
   * from that rank. */
  int (*coll_id)(k_backend *be, void *id);
  /* Join communicator id as rank of nranks on this backend's device (every one of those ranks
   * calls it; it returns when all have joined); *comm: an opaque handle. */
  int (*coll_init)(k_backend *be, const void *id, int nranks, int rank, void **comm);
  /* Destroy a communicator after the queued work that uses it (every rank of it does), or
   * (abort = 1) drop it at once, locally (after a failed set-up on some of its ranks). */
  int (*coll_free)(k_backend *be, void *comm, int abort);
  /* Broadcast bytes of device memory buf from rank root of comm into buf on every rank,
   * queued on the current stream (asynchronous). */
  int (*coll_bcast)(k_backend *be, void *comm, void *buf, size_t bytes, int root);
  /* The nmsg sends and receives of msg as one group, queued on the current stream
   * (asynchronous; NCCL: ncclGroupStart, ncclSend / ncclRecv, ncclGroupEnd).  Every peer
   * queues the matching messages; at most one send and one receive per peer.  NULL when the
   * backend has no device collectives. */
  int (*coll_sendrecv)(k_backend *be, void *comm, int nmsg, const k_comm_msg *msg);
  /* b = a, device to device (lda -> ldb), queued on the current stream. */
  int (*copy_2d)(k_backend *be, size_t esz, int64_t m, int64_t n, const void *a, int64_t lda,
                 void *b, int64_t ldb);
  /* Device block a (lda) to host h (ldh) / host h to device a; both return when the copy is
   * done (the host buffer may be used / reused at once). */
  int (*d2h_2d)(k_backend *be, size_t esz, int64_t m, int64_t n, const void *a, int64_t lda,
                void *h, int64_t ldh);
  int (*h2d_2d)(k_backend *be, size_t esz, int64_t m, int64_t n, const void *h, int64_t ldh,
                void *a, int64_t lda);
  /* Wait for everything queued on every stream of this backend. */
  int (*sync_all)(k_backend *be);
} k_comm_ops;

/* The table of this backend.  Local. */
const k_comm_ops *k_comm_ops_get(const k_backend *be);

extern const k_comm_ops k_comm_host_ops;
extern const k_comm_ops k_comm_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif
