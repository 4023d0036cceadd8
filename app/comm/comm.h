/* comm.h - a 2D process grid and the broadcasts along its process rows and columns, shared by
 * the dense workloads (gauss's blocked LU: L panels along rows, U block rows down columns, row
 * swaps down columns; gemm's SUMMA: A panels along rows, B panels down columns).
 *
 * Shape (HPL's src/comm: HPL_bcast.c + HPL_1ring.c): one dispatcher (app/comm/bcast.c) and one
 * file per transport:
 *   bcast_mpi.c   MPI, the data staged through pinned host buffers (device memory), or used in
 *                 place (host backend); synchronous
 *   bcast_dev.c   device collectives on device buffers (NCCL through the backend's k_comm table,
 *                 kernels/k_comm.h; the exchange by grouped ncclSend / ncclRecv), queued on the backend's current stream (asynchronous:
 *                 ordered with the kernels queued there, so a broadcast can overlap a GEMM queued
 *                 on another stream); on the host backend, as a test hook ([debug] host_coll = 1),
 *                 the same code with MPI underneath, so CI runs this path without a GPU
 * The caller never tests which transport it has: every call goes through the functions below.
 *
 * Arguments are "local" (this rank's own value, may differ between ranks) or "global" (the
 * same value on every rank of the group the call is collective over).  Every function returns
 * HY_OK or an error code recorded with hy_err().  Error rule (app/hybrid.h): the broadcasts
 * and the exchange are local work inside a stage - wrap them in HY_LOCAL (a failure on one
 * rank aborts the job); hy_grid_make / hy_bcast_open return a code every rank of comm holds
 * (HY_CALL). */
#ifndef HY_COMM_H
#define HY_COMM_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ the process grid */
/* P x Q ranks of comm, row-major: rank = p * Q + q. */
typedef struct {
  MPI_Comm comm;        /* the whole grid (not owned: the caller's communicator) */
  int P, Q;             /* process rows, process columns */
  int p, q;             /* this rank's process row and column */
  MPI_Comm row;         /* the Q ranks of process row p; rank in it = q */
  MPI_Comm col;         /* the P ranks of process column q; rank in it = p */
} hy_grid;

/* The directions of a broadcast: along this rank's process row (among the Q ranks with the
 * same p; roots and ranks are process columns q) or down its process column (among the P ranks
 * with the same q; roots and ranks are process rows p). */
enum { HY_ROW = 0, HY_COL = 1 };

/* The most square grid P x Q = size with P <= Q (1 x size for a prime).  Local. */
void hy_grid_auto(int size, int *P, int *Q);

/* Make the grid: P, Q (global; P * Q = size of comm, else HY_EUSAGE) over comm (global),
 * splitting it into row and column communicators.  Collective over comm. */
int hy_grid_make(MPI_Comm comm, int P, int Q, hy_grid *g);

/* Free the row and column communicators (g->comm stays).  Collective over g->comm. */
void hy_grid_free(hy_grid *g);

/* ------------------------------------------------------------------ broadcasts */
typedef struct hy_bcast hy_bcast;

/* What hy_bcast_open is asked for (global). */
enum { HY_BCAST_AUTO = 0,     /* device collectives when usable, else MPI */
       HY_BCAST_DEVICE = 1,   /* device collectives, else an error (HY_EUSAGE) */
       HY_BCAST_MPI = 2 };    /* MPI */

/* Open the transport of grid g for backend be (local: this rank's backend): want (global, one
 * of HY_BCAST_*); key (global): the configuration key that asked, for the messages ("KEY =
 * nccl: device collectives are not available here: WHY (allowed here: auto or mpi)", "KEY =
 * mpi"); emulate (global; [debug] host_coll): on a backend without device collectives
 * run the device transport with MPI underneath (a test hook).  Device collectives are usable
 * when the backend has them (k_comm_ops.no_coll == NULL), every rank drives its own device
 * (host + PCI bus id + ordinal differ between the ranks) and the communicators of every
 * process row and column (of more than one rank) are set up and warmed up (a small and an
 * 8 MiB broadcast each, outside any timed part).  A set-up failure is agreed on: auto falls
 * back to MPI (the failure's message in hy_bcast_note), want = device returns the error.  On
 * return every rank has the same transport.  Collective over g->comm. */
int hy_bcast_open(const hy_grid *g, k_backend *be, int want, const char *key, int emulate,
                  hy_bcast **out);

/* Close it: free the staging buffers and the device communicators (after the queued work).
 * Collective over the grid (every rank closes). */
void hy_bcast_close(hy_bcast *b);

/* Name of the transport: "nccl" (or the backend's name for its device collectives),
 * "emulated" (device transport, MPI underneath) or "mpi".  Local (the same on every rank). */
const char *hy_bcast_name(const hy_bcast *b);
/* 1 when the transport is the device one (nccl or emulated), else 0.  Local. */
int hy_bcast_is_device(const hy_bcast *b);
/* MPI transport: how it reaches the data ("host-staged" or "host memory") and why the device
 * transport was not taken ("gauss.bcast = mpi"-style reasons: "host backend", "ranks share a
 * device (NCCL needs one device per rank)", ...); "" for the device transport.  Local. */
const char *hy_bcast_path(const hy_bcast *b);
const char *hy_bcast_why(const hy_bcast *b);
/* The message of a device set-up failure that auto fell back from, else "".  Local. */
const char *hy_bcast_note(const hy_bcast *b);
/* The transport in one phrase for a workload's log line, into buf (n bytes): "nccl (device to
 * device)", "emulated ([debug] host_coll test hook: the device path, MPI on the host)" or
 * "mpi (host-staged): WHY", each followed by "; NOTE" when auto fell back.  Local. */
void hy_bcast_describe(const hy_bcast *b, char *buf, size_t n);

/* Make the staging buffers of direction dir at least dev_bytes (device transport: packing of
 * blocks with lda > m) and host_bytes (MPI transport: pinned host), so that the broadcasts of
 * a loop never allocate (a buffer grown later waits for the device first).  Local (sizes
 * local). */
int hy_bcast_reserve(hy_bcast *b, int dir, size_t dev_bytes, size_t host_bytes);

/* Broadcast an m x n column-major block of esz-byte elements (m, n, esz global over the
 * ranks of direction dir) from the rank root (global: a process column for HY_ROW, a process
 * row for HY_COL) of this rank's process row (HY_ROW) or column (HY_COL).  a, lda (local): on
 * root the source, elsewhere the destination; each rank its own leading dimension (>= m).
 * Device transport: queued on the backend's current stream, asynchronous (a may not be reused
 * until later work on that stream); MPI transport: complete on return.  A direction with one
 * rank does nothing.  Collective over the ranks of dir (every one calls it, same order). */
int hy_bcast_2d(hy_bcast *b, int dir, size_t esz, int64_t m, int64_t n, void *a, int64_t lda,
                int root);

/* Personalised exchange among the ranks of direction dir (size N = Q for HY_ROW, P for
 * HY_COL): cnt (global, N x N) cnt[s * N + r] = bytes rank s sends to rank r, the same table on
 * every rank (entries s == r are ignored: a rank's own data stays put).  sbuf + sdsp[r]
 * (local, device): the cnt[me * N + r] bytes for rank r; rbuf + rdsp[s] (local, device): where
 * the cnt[s * N + me] bytes from rank s go.  Send and receive regions must not overlap.
 * Device transport: one group of point-to-point messages (ncclSend / ncclRecv, device to
 * device, nothing staged) queued on the current stream; MPI: one MPI_Alltoallv through pinned
 * memory, complete on return.  Collective over the ranks of dir. */
int hy_bcast_exchange(hy_bcast *b, int dir, const int64_t *cnt, const void *sbuf,
                      const int64_t *sdsp, void *rbuf, const int64_t *rdsp);

/* One message of hy_bcast_sendrecv: bytes of device memory at buf sent to (send = 1) or
 * received from (send = 0) the rank peer of the direction (a process column for HY_ROW, a
 * process row for HY_COL). */
typedef struct {
  int peer;
  int send;
  void *buf;
  size_t bytes;
} hy_msg;

/* Point-to-point among the ranks of direction dir: the nmsg messages of msg (local), at most
 * one send and one receive per peer, every peer posting the matching ones.  Device transport:
 * one group (ncclSend / ncclRecv) queued on the backend's current stream, asynchronous (the
 * buffers may not be reused until later work on that stream); MPI transport: staged through
 * pinned host memory (used in place on the host backend), complete on return.  Collective
 * between the peers. */
int hy_bcast_sendrecv(hy_bcast *b, int dir, int nmsg, const hy_msg *msg);

#ifdef __cplusplus
}
#endif
#endif
