/* bcast_mpi.c - the MPI transport: device data staged through pinned host buffers (the host
 * backend: the same copies in host memory), MPI_Bcast / MPI_Alltoallv, complete on return. */
#include <stdlib.h>

#include "comm/bcast_impl.h"
#include "hybrid.h"

/* 2D broadcast through the host.  Collective over the ranks of dir. */
static int mpi_bcast_2d(hy_bcast *b, int dir, size_t esz, int64_t m, int64_t n, void *a,
                        int64_t lda, int root) {
  size_t bytes = (size_t)(m * n) * esz;
  int me = hy_bcast_me(b, dir);
  HY_CALL(hy_bcast_hgrow(b, &b->hstage[dir], &b->hbytes[dir], bytes));
  unsigned char *h = b->hstage[dir];
  if (me == root) HY_CALL(b->kc->d2h_2d(b->be, esz, m, n, a, lda, h, m));
  HY_CALL(hy_bcast_mpi_bytes(hy_bcast_comm(b, dir), h, bytes, root));
  if (me != root) HY_CALL(b->kc->h2d_2d(b->be, esz, m, n, h, m, a, lda));
  return HY_OK;
}

/* The largest of 8, 4, 2, 1 that divides every count and displacement.  Local. */
static int mpi_unit(int N, int me, const int64_t *cnt, const int64_t *sdsp, const int64_t *rdsp) {
  int64_t all = 0;
  for (int r = 0; r < N; r++) all |= cnt[me * N + r] | cnt[r * N + me] | sdsp[r] | rdsp[r];
  return all % 8 == 0 ? 8 : all % 4 == 0 ? 4 : all % 2 == 0 ? 2 : 1;
}

/* One MPI_Alltoallv through pinned memory: my blocks for the others packed by destination,
 * the received ones by source.  Collective over the ranks of dir. */
static int mpi_exchange(hy_bcast *b, int dir, const int64_t *cnt, const void *sbuf,
                        const int64_t *sdsp, void *rbuf, const int64_t *rdsp) {
  int N = hy_bcast_size(b, dir), me = hy_bcast_me(b, dir);
  int u = mpi_unit(N, me, cnt, sdsp, rdsp);
  int *ic;
  HY_MALLOC(ic, 4 * (size_t)N);
  int *sc = ic, *so = ic + N, *rc = ic + 2 * N, *ro = ic + 3 * N;
  int64_t st = 0, rt = 0;
  for (int r = 0; r < N; r++) {
    int64_t s = r == me ? 0 : cnt[me * N + r], v = r == me ? 0 : cnt[r * N + me];
    if (st / u > 2147483647LL || (st + s) / u > 2147483647LL || (rt + v) / u > 2147483647LL)
      hy_fatal(HY_EUSAGE, "exchange of %lld bytes exceeds the 32-bit MPI counts", (long long)(st + s));
    sc[r] = (int)(s / u); so[r] = (int)(st / u);
    rc[r] = (int)(v / u); ro[r] = (int)(rt / u);
    st += s;
    rt += v;
  }
  HY_CALL(hy_bcast_hgrow(b, &b->hstage[dir], &b->hbytes[dir], (size_t)(st + rt)));
  unsigned char *hs = b->hstage[dir], *hr = hs + st;
  for (int r = 0; r < N; r++)
    if (r != me && cnt[me * N + r] > 0)
      HY_CALL(b->kc->d2h_2d(b->be, 1, cnt[me * N + r], 1, (const char *)sbuf + sdsp[r], cnt[me * N + r],
                            hs + (size_t)so[r] * u, cnt[me * N + r]));
  MPI_Datatype t;
  HY_MPI(MPI_Type_contiguous(u, MPI_BYTE, &t));
  HY_MPI(MPI_Type_commit(&t));
  int mrc = MPI_Alltoallv(hs, sc, so, t, hr, rc, ro, t, hy_bcast_comm(b, dir));
  MPI_Type_free(&t);
  if (mrc != MPI_SUCCESS) {
    free(ic);
    return hy_err(HY_ESYS, "MPI_Alltoallv of the exchange failed");
  }
  for (int r = 0; r < N; r++)
    if (r != me && cnt[r * N + me] > 0)
      HY_CALL(b->kc->h2d_2d(b->be, 1, cnt[r * N + me], 1, hr + (size_t)ro[r] * u, cnt[r * N + me],
                            (char *)rbuf + rdsp[r], cnt[r * N + me]));
  free(ic);
  return HY_OK;
}

/* Point-to-point through pinned memory: the sends copied out into one staging buffer, the
 * receives into the same buffer after them, MPI between the copies.  Collective between the
 * peers. */
static int mpi_sendrecv(hy_bcast *b, int dir, int nmsg, const hy_msg *msg) {
  size_t tot = 0;
  for (int i = 0; i < nmsg; i++) tot += msg[i].bytes;
  HY_CALL(hy_bcast_hgrow(b, &b->hstage[dir], &b->hbytes[dir], tot));
  hy_msg *hm;
  HY_MALLOC(hm, (size_t)nmsg);
  size_t o = 0;
  for (int i = 0; i < nmsg; i++) {
    hm[i] = msg[i];
    hm[i].buf = b->hstage[dir] + o;
    o += msg[i].bytes;
    if (msg[i].send && msg[i].bytes)
      HY_CALL(b->kc->d2h_2d(b->be, 1, (int64_t)msg[i].bytes, 1, msg[i].buf, (int64_t)msg[i].bytes,
                            hm[i].buf, (int64_t)msg[i].bytes));
  }
  int rc = hy_bcast_p2p_mpi(hy_bcast_comm(b, dir), nmsg, hm);
  for (int i = 0; i < nmsg && rc == HY_OK; i++)
    if (!msg[i].send && msg[i].bytes)
      rc = b->kc->h2d_2d(b->be, 1, (int64_t)msg[i].bytes, 1, hm[i].buf, (int64_t)msg[i].bytes,
                         msg[i].buf, (int64_t)msg[i].bytes);
  free(hm);
  return rc;
}

const hy_bcast_transport hy_bcast_mpi_transport = {
  .name = "mpi",
  .bcast_2d = mpi_bcast_2d,
  .exchange = mpi_exchange,
  .sendrecv = mpi_sendrecv,
};
