/* comm_cuda.cu - the transport table of the CUDA backend: NCCL device-to-device collectives
 * (when the build has NCCL) and strided copies by cudaMemcpy2DAsync, all on the backend's
 * current stream (k_cuda_cur). */
#include "k_cuda.h"
#include "k_comm.h"
#ifdef HYBRID_HAVE_NCCL
#include <nccl.h>
#endif

#include <stdlib.h>
#include <string.h>

#ifdef HYBRID_HAVE_NCCL
/* NCCL's last error message (NCCL >= 2.13), or "". */
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= 21300
#define HY_NCCL_LAST() ncclGetLastError(NULL)
#else
#define HY_NCCL_LAST() ""
#endif
/* Check an NCCL call: record the call, NCCL's error string and the last NCCL message. */
#define HY_NCCL(expr)                                                                   \
  do {                                                                                  \
    ncclResult_t hy_nr_ = (expr);                                                       \
    if (hy_nr_ != ncclSuccess)                                                          \
      return hy_err(HY_ESYS, "NCCL: %s failed: %s (%s)", #expr, ncclGetErrorString(hy_nr_), \
                    HY_NCCL_LAST());                                                    \
  } while (0)

/* NVLink multicast (NVLS) stays off unless the environment asks for it (NCCL reads its
 * environment at its first call).  Local. */
static void nccl_env(void) { setenv("NCCL_NVLS_ENABLE", "0", 0); }

/* Bytes of an NCCL unique id.  Local. */
static size_t c_id_bytes(k_backend *be) { return sizeof(ncclUniqueId); }

/* ncclGetUniqueId into id.  Local. */
static int c_id(k_backend *be, void *id) {
  ncclUniqueId u;
  nccl_env();
  HY_NCCL(ncclGetUniqueId(&u));
  memcpy(id, &u, sizeof u);
  return HY_OK;
}

/* ncclCommInitRank on this backend's device.  Collective over the nranks ranks of id. */
static int c_init(k_backend *be, const void *id, int nranks, int rank, void **comm) {
  ncclUniqueId u;
  ncclComm_t c = NULL;
  memcpy(&u, id, sizeof u);
  *comm = NULL;
  nccl_env();
  HY_CUDA(cudaSetDevice(be->device));
  HY_NCCL(ncclCommInitRank(&c, nranks, u, rank));
  *comm = (void *)c;
  return HY_OK;
}

/* Wait for this device's queued work, then destroy the communicator (every rank of it does);
 * abort: ncclCommAbort, local, never waits for the other ranks.  Local. */
static int c_free(k_backend *be, void *comm, int abort) {
  if (!comm) return HY_OK;
  if (abort) {
    HY_NCCL(ncclCommAbort((ncclComm_t)comm));
    return HY_OK;
  }
  HY_CUDA(cudaDeviceSynchronize());
  HY_NCCL(ncclCommDestroy((ncclComm_t)comm));
  return HY_OK;
}

/* ncclBroadcast in place (bytes as ncclUint8) on the current stream.  Local (queues a
 * collective every rank of comm queues too). */
static int c_bcast(k_backend *be, void *comm, void *buf, size_t bytes, int root) {
  if (bytes == 0) return HY_OK;
  HY_NCCL(ncclBroadcast(buf, buf, bytes, ncclUint8, root, (ncclComm_t)comm, k_cuda_cur(be)));
  return HY_OK;
}

/* The messages as one NCCL group on the current stream.  Local (queues point-to-point work
 * that the peers queue too). */
static int c_sendrecv(k_backend *be, void *comm, int nmsg, const k_comm_msg *msg) {
  if (nmsg <= 0) return HY_OK;
  cudaStream_t s = k_cuda_cur(be);
  HY_NCCL(ncclGroupStart());
  for (int i = 0; i < nmsg; i++) {
    ncclResult_t r = msg[i].send
        ? ncclSend(msg[i].buf, msg[i].bytes, ncclUint8, msg[i].peer, (ncclComm_t)comm, s)
        : ncclRecv(msg[i].buf, msg[i].bytes, ncclUint8, msg[i].peer, (ncclComm_t)comm, s);
    if (r != ncclSuccess) {
      ncclGroupEnd();
      return hy_err(HY_ESYS, "NCCL: %s of %zu bytes with rank %d failed: %s (%s)",
                    msg[i].send ? "ncclSend" : "ncclRecv", msg[i].bytes, msg[i].peer,
                    ncclGetErrorString(r), HY_NCCL_LAST());
    }
  }
  HY_NCCL(ncclGroupEnd());
  return HY_OK;
}
#define C_SENDRECV c_sendrecv
#define C_NO_COLL NULL
#define C_COLL_NAME "nccl"
#else
/* This build has no NCCL: no device collectives (the transport is host-staged MPI).  Local. */
static size_t c_id_bytes(k_backend *be) { return 0; }
/* Not available without NCCL.  Local. */
static int c_id(k_backend *be, void *id) {
  return hy_err(HY_ESYS, "device collectives: this build has no NCCL (configure with -DHYBRID_NCCL=ON)");
}
/* Not available without NCCL.  Local. */
static int c_init(k_backend *be, const void *id, int nranks, int rank, void **comm) {
  *comm = NULL;
  return hy_err(HY_ESYS, "device collectives: this build has no NCCL (configure with -DHYBRID_NCCL=ON)");
}
/* Nothing to free.  Local. */
static int c_free(k_backend *be, void *comm, int abort) { return HY_OK; }
/* Not available without NCCL.  Local. */
static int c_bcast(k_backend *be, void *comm, void *buf, size_t bytes, int root) {
  return hy_err(HY_ESYS, "device collectives: this build has no NCCL (configure with -DHYBRID_NCCL=ON)");
}
#define C_SENDRECV NULL
#define C_NO_COLL "this build has no NCCL (HYBRID_NCCL)"
#define C_COLL_NAME NULL
#endif

/* Device to device 2D copy on the current stream (asynchronous).  Local. */
static int c_copy(k_backend *be, size_t esz, int64_t m, int64_t n, const void *a, int64_t lda,
                  void *b, int64_t ldb) {
  if (m <= 0 || n <= 0) return HY_OK;
  HY_CUDA(cudaMemcpy2DAsync(b, (size_t)ldb * esz, a, (size_t)lda * esz, (size_t)m * esz,
                            (size_t)n, cudaMemcpyDeviceToDevice, k_cuda_cur(be)));
  return HY_OK;
}

/* Device -> host 2D copy, complete on return.  Local. */
static int c_d2h(k_backend *be, size_t esz, int64_t m, int64_t n, const void *a, int64_t lda,
                 void *h, int64_t ldh) {
  if (m <= 0 || n <= 0) return HY_OK;
  cudaStream_t s = k_cuda_cur(be);
  HY_CUDA(cudaMemcpy2DAsync(h, (size_t)ldh * esz, a, (size_t)lda * esz, (size_t)m * esz,
                            (size_t)n, cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaStreamSynchronize(s));
  return HY_OK;
}

/* Host -> device 2D copy, complete on return (the host buffer is free again).  Local. */
static int c_h2d(k_backend *be, size_t esz, int64_t m, int64_t n, const void *h, int64_t ldh,
                 void *a, int64_t lda) {
  if (m <= 0 || n <= 0) return HY_OK;
  cudaStream_t s = k_cuda_cur(be);
  HY_CUDA(cudaMemcpy2DAsync(a, (size_t)lda * esz, h, (size_t)ldh * esz, (size_t)m * esz,
                            (size_t)n, cudaMemcpyHostToDevice, s));
  HY_CUDA(cudaStreamSynchronize(s));
  return HY_OK;
}

/* Wait for all work on this device.  Local. */
static int c_sync_all(k_backend *be) {
  HY_CUDA(cudaDeviceSynchronize());
  return HY_OK;
}

extern "C" const k_comm_ops k_comm_cuda_ops = {
  C_NO_COLL, C_COLL_NAME, "host-staged",
  c_id_bytes, c_id, c_init, c_free, c_bcast, C_SENDRECV,
  c_copy, c_d2h, c_h2d, c_sync_all,
};
