/* la_dist.c - partitions, distributed transpose, remote row fetch, halo plans, gathers (app/la: shared numerics). */
#include "la/la_dist.h"
#include "hybrid.h"
#include "io/io.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Even split by rows.  Local. */
int la_part_even(la_part *p, int size, int64_t n) {
  p->size = size;
  p->n = n;
  HY_MALLOC(p->start, size + 1);
  for (int r = 0; r <= size; r++) p->start[r] = n * r / size;
  return HY_OK;
}

void la_part_free(la_part *p) {
  free(p->start);
  p->start = NULL;
}

/* Owner of row g by binary search.  Local. */
int la_part_owner(const la_part *p, int64_t g) {
  int lo = 0, hi = p->size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (p->start[mid] <= g) lo = mid;
    else hi = mid - 1;
  }
  /* skip empty ranks that share the start */
  while (lo < p->size - 1 && p->start[lo + 1] <= g) lo++;
  return lo;
}

/* Weighted contiguous split.  Collective. */
int la_part_weighted(MPI_Comm comm, const la_part *cur, int rank, const double *w,
                       la_part *out) {
  int size = cur->size;
  int64_t r0 = cur->start[rank], r1 = cur->start[rank + 1];
  double mine = 0, before = 0, total = 0;
  for (int64_t i = 0; i < r1 - r0; i++) mine += w[i];
  HY_MPI(MPI_Exscan(&mine, &before, 1, MPI_DOUBLE, MPI_SUM, comm));
  if (rank == 0) before = 0;
  HY_MPI(MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm));
  int64_t *cand = NULL;
  HY_MALLOC(cand, size + 1);
  for (int q = 0; q <= size; q++) cand[q] = cur->n;
  double acc = before;
  for (int64_t i = 0; i < r1 - r0; i++) {
    double mid = acc + 0.5 * w[i];
    int q = total > 0 ? (int)(size * mid / total) : (int)((r0 + i) * size / (cur->n ? cur->n : 1));
    if (q >= size) q = size - 1;
    if (q < 0) q = 0;
    /* the first row whose target is >= q starts rank q (and all empty ranks before it) */
    for (int t = q; t >= 0 && cand[t] > r0 + i; t--) cand[t] = r0 + i;
    acc += w[i];
  }
  out->size = size;
  out->n = cur->n;
  HY_MALLOC(out->start, size + 1);
  HY_MPI(MPI_Allreduce(cand, out->start, size + 1, MPI_INT64_T, MPI_MIN, comm));
  free(cand);
  out->start[0] = 0;
  out->start[size] = cur->n;
  for (int q = size - 1; q >= 0; q--)
    if (out->start[q] > out->start[q + 1]) out->start[q] = out->start[q + 1];
  return HY_OK;
}

/* Exchange counts and build displacements.  Collective. */
static int exchange_counts(MPI_Comm comm, int size, const int *scnt, int *rcnt, int *sdsp,
                           int *rdsp, int64_t *rtotal) {
  HY_MPI(MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm));
  int64_t s = 0, r = 0;
  for (int q = 0; q < size; q++) {
    sdsp[q] = (int)s;
    rdsp[q] = (int)r;
    s += scnt[q];
    r += rcnt[q];
  }
  if (s > INT_MAX || r > INT_MAX)
    return hy_err(HY_ESYS, "a rank exchanges more than 2^31 entries in one step (use more ranks)");
  *rtotal = r;
  return HY_OK;
}

/* out = rows [o0, o1) of the transpose of loc (whose rows are global rows r0..), when this rank
 * owns every entry: one counting sort, no MPI, columns sorted.  Local. */
int la_transpose_local(const hy_csr *loc, int64_t r0, int64_t o0, int64_t o1, hy_csr *out) {
  int64_t m = o1 - o0, nnz = loc->nnz;
  memset(out, 0, sizeof *out);
  out->m = m;
  out->n = loc->m;
  out->nnz = nnz;
  HY_CALLOC(out->rowptr, m + 2);
  HY_MALLOC(out->colind, nnz + 1);
  HY_MALLOC(out->val, nnz + 1);
  int64_t *cnt = out->rowptr + 1;  /* cnt[j - o0]: then the fill position of row j */
  for (int64_t e = 0; e < nnz; e++) {
    int64_t j = loc->colind[e] - o0;
    if (j < 0 || j >= m) return hy_err(HY_ESYS, "la_transpose: column %d outside [%lld, %lld)",
                                       loc->colind[e], (long long)o0, (long long)o1);
    cnt[j]++;
  }
  /* exclusive prefix in rowptr[1..m]: rowptr[j + 1] = start of row j while filling */
  int64_t acc = 0;
  for (int64_t j = 0; j < m; j++) {
    int64_t c = cnt[j];
    cnt[j] = acc;
    acc += c;
  }
  for (int64_t i = 0; i < loc->m; i++)
    for (int64_t e = loc->rowptr[i]; e < loc->rowptr[i + 1]; e++) {
      int64_t at = cnt[loc->colind[e] - o0]++;
      out->colind[at] = (int32_t)(r0 + i);
      out->val[at] = loc->val[e];
    }
  out->rowptr[0] = 0;  /* after the fill, rowptr[j + 1] = end of row j */
  return HY_OK;
}

/* Distributed transpose.  Collective. */
int la_transpose(MPI_Comm comm, const la_part *pin, const hy_csr *loc, const la_part *pout,
                   hy_csr *out) {
  int size = pin->size, rank;
  HY_MPI(MPI_Comm_rank(comm, &rank));
  if (size == 1) return la_transpose_local(loc, pin->start[0], pout->start[0], pout->start[1], out);
  int64_t r0 = pin->start[rank];
  int *scnt = calloc(size, sizeof(int)), *rcnt = calloc(size, sizeof(int));
  int *sdsp = calloc(size, sizeof(int)), *rdsp = calloc(size, sizeof(int));
  if (!scnt || !rcnt || !sdsp || !rdsp) return hy_err(HY_ESYS, "out of memory");
  int *dest = NULL;
  HY_MALLOC(dest, loc->nnz);
  /* entries that stay on this rank bypass MPI (scnt[rank] stays 0); dest caches owners */
  int64_t o0 = pout->start[rank], o1 = pout->start[rank + 1], nself = 0;
  for (int64_t e = 0; e < loc->nnz; e++) {
    int32_t j = loc->colind[e];
    if (j >= o0 && j < o1) {
      dest[e] = rank;
      nself++;
    } else {
      dest[e] = la_part_owner(pout, j);
      scnt[dest[e]]++;
    }
  }
  int64_t nrecv = 0;
  HY_CALL(exchange_counts(comm, size, scnt, rcnt, sdsp, rdsp, &nrecv));
  int64_t *srow = NULL, *rrow = NULL;
  int32_t *scol = NULL, *rcol = NULL;
  double *sval = NULL, *rval = NULL;
  int64_t nsend = loc->nnz - nself;
  HY_MALLOC(srow, nsend + 1);
  HY_MALLOC(scol, nsend + 1);
  HY_MALLOC(sval, nsend + 1);
  HY_MALLOC(rrow, nrecv + 1);
  HY_MALLOC(rcol, nrecv + 1);
  HY_MALLOC(rval, nrecv + 1);
  int *fill = calloc(size, sizeof(int));
  if (!fill) return hy_err(HY_ESYS, "out of memory");
  for (int64_t i = 0; i < loc->m; i++)
    for (int64_t e = loc->rowptr[i]; e < loc->rowptr[i + 1]; e++) {
      int q = dest[e];
      if (q == rank) continue;
      int64_t at = sdsp[q] + fill[q]++;
      srow[at] = loc->colind[e];       /* the transposed row */
      scol[at] = (int32_t)(r0 + i);    /* the transposed column */
      sval[at] = loc->val[e];
    }
  free(fill);
  HY_MPI(MPI_Alltoallv(srow, scnt, sdsp, MPI_INT64_T, rrow, rcnt, rdsp, MPI_INT64_T, comm));
  HY_MPI(MPI_Alltoallv(scol, scnt, sdsp, MPI_INT32_T, rcol, rcnt, rdsp, MPI_INT32_T, comm));
  HY_MPI(MPI_Alltoallv(sval, scnt, sdsp, MPI_DOUBLE, rval, rcnt, rdsp, MPI_DOUBLE, comm));
  free(srow); free(scol); free(sval);
  /* stable counting sort by row: sources in rank order (this rank's own entries in its turn),
   * each source in increasing column */
  int64_t m = o1 - o0, ntot = nrecv + nself;
  la_csr_alloc(out, m, pin->n, ntot);
  for (int64_t e = 0; e < nrecv; e++) out->rowptr[rrow[e] - o0 + 1]++;
  for (int64_t e = 0; e < loc->nnz; e++)
    if (dest[e] == rank) out->rowptr[loc->colind[e] - o0 + 1]++;
  for (int64_t i = 0; i < m; i++) out->rowptr[i + 1] += out->rowptr[i];
  int64_t *pos = NULL;
  HY_MALLOC(pos, m + 1);
  memcpy(pos, out->rowptr, (m + 1) * sizeof *pos);
  for (int q = 0; q < size; q++) {
    if (q == rank) {
      for (int64_t i = 0; i < loc->m; i++)
        for (int64_t e = loc->rowptr[i]; e < loc->rowptr[i + 1]; e++) {
          if (dest[e] != rank) continue;
          int64_t at = pos[loc->colind[e] - o0]++;
          out->colind[at] = (int32_t)(r0 + i);
          out->val[at] = loc->val[e];
        }
      continue;
    }
    for (int64_t e = rdsp[q]; e < rdsp[q] + rcnt[q]; e++) {
      int64_t at = pos[rrow[e] - o0]++;
      out->colind[at] = rcol[e];
      out->val[at] = rval[e];
    }
  }
  free(pos);
  free(dest);
  free(scnt); free(rcnt); free(sdsp); free(rdsp);
  free(rrow); free(rcol); free(rval);
  return HY_OK;
}

/* out[i] = the value of global index rows[i] in the distributed vector loc (local part under
 * p: loc[g - p->start[owner]] on the owner); this rank's own indices read here, the others
 * fetched by one request / answer exchange.  Collective. */
int la_fetch_values(MPI_Comm comm, const la_part *p, const double *loc, int64_t nr,
                    const int64_t *rows, double *out) {
  int size = p->size, rank;
  HY_MPI(MPI_Comm_rank(comm, &rank));
  int64_t r0 = p->start[rank], r1 = p->start[rank + 1];
  int *cnt = NULL, *own = NULL;
  HY_CALLOC(cnt, 5 * size);
  int *rcnt = cnt + size, *sdsp = rcnt + size, *rdsp = sdsp + size, *fill = rdsp + size;
  HY_MALLOC(own, nr + 1);
  for (int64_t i = 0; i < nr; i++) {
    own[i] = rows[i] >= r0 && rows[i] < r1 ? -1 : la_part_owner(p, rows[i]);
    if (own[i] >= 0) cnt[own[i]]++;
  }
  int64_t nin = 0;
  HY_CALL(exchange_counts(comm, size, cnt, rcnt, sdsp, rdsp, &nin));
  int64_t nout = 0, *req = NULL, *in = NULL, *slot = NULL;
  for (int q = 0; q < size; q++) nout += cnt[q];
  double *ans = NULL, *got = NULL;
  HY_MALLOC(req, nout + 1);
  HY_MALLOC(slot, nr + 1);
  HY_MALLOC(in, nin + 1);
  HY_MALLOC(ans, nin + 1);
  HY_MALLOC(got, nout + 1);
  for (int64_t i = 0; i < nr; i++) {
    if (own[i] < 0) continue;
    slot[i] = sdsp[own[i]] + fill[own[i]]++;
    req[slot[i]] = rows[i];
  }
  HY_MPI(MPI_Alltoallv(req, cnt, sdsp, MPI_INT64_T, in, rcnt, rdsp, MPI_INT64_T, comm));
  for (int64_t i = 0; i < nin; i++) {
    if (in[i] < r0 || in[i] >= r1)
      return hy_err(HY_ESYS, "la_fetch_values: index %lld not owned", (long long)in[i]);
    ans[i] = loc[in[i] - r0];
  }
  HY_MPI(MPI_Alltoallv(ans, rcnt, rdsp, MPI_DOUBLE, got, cnt, sdsp, MPI_DOUBLE, comm));
  for (int64_t i = 0; i < nr; i++) out[i] = own[i] < 0 ? loc[rows[i] - r0] : got[slot[i]];
  free(cnt); free(own); free(req); free(in); free(slot); free(ans); free(got);
  return HY_OK;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Fetch remote (or local) rows by global index.  Collective. */
int la_fetch_rows(MPI_Comm comm, const la_part *p, const hy_csr *loc, int64_t nr,
                    const int64_t *rows, hy_csr *out) {
  int size = p->size, rank;
  HY_MPI(MPI_Comm_rank(comm, &rank));
  int64_t r0 = p->start[rank];
  int *scnt = calloc(size, sizeof(int)), *rcnt = calloc(size, sizeof(int));
  int *sdsp = calloc(size, sizeof(int)), *rdsp = calloc(size, sizeof(int));
  int *fill = calloc(size, sizeof(int));
  if (!scnt || !rcnt || !sdsp || !rdsp || !fill) return hy_err(HY_ESYS, "out of memory");
  int *own = NULL;
  int64_t *req = NULL, *slot = NULL;
  HY_MALLOC(own, nr);
  HY_MALLOC(req, nr);
  HY_MALLOC(slot, nr);
  /* requests for this rank's own rows bypass MPI (own = -1) */
  int64_t r1 = p->start[rank + 1];
  for (int64_t i = 0; i < nr; i++) {
    if (rows[i] >= r0 && rows[i] < r1) {
      own[i] = -1;
      continue;
    }
    own[i] = la_part_owner(p, rows[i]);
    scnt[own[i]]++;
  }
  int64_t nin = 0;
  HY_CALL(exchange_counts(comm, size, scnt, rcnt, sdsp, rdsp, &nin));
  for (int64_t i = 0; i < nr; i++) {
    if (own[i] < 0) {
      slot[i] = -1;
      continue;
    }
    int64_t at = sdsp[own[i]] + fill[own[i]]++;
    req[at] = rows[i];
    slot[i] = at;  /* request i travels at position at; its answer comes back there */
  }
  free(own);
  int64_t *in = NULL, *len_out = NULL, *len_in = NULL;
  HY_MALLOC(in, nin + 1);
  HY_MALLOC(len_out, nin + 1);
  HY_MALLOC(len_in, nr + 1);
  HY_MPI(MPI_Alltoallv(req, scnt, sdsp, MPI_INT64_T, in, rcnt, rdsp, MPI_INT64_T, comm));
  for (int64_t i = 0; i < nin; i++) {
    int64_t l = in[i] - r0;
    if (l < 0 || l >= loc->m) return hy_err(HY_ESYS, "la_fetch_rows: row %lld not owned",
                                            (long long)in[i]);
    len_out[i] = loc->rowptr[l + 1] - loc->rowptr[l];
  }
  HY_MPI(MPI_Alltoallv(len_out, rcnt, rdsp, MPI_INT64_T, len_in, scnt, sdsp, MPI_INT64_T, comm));
  /* entries: owners send, per requester, the rows in the order asked */
  int *ecs = calloc(size, sizeof(int)), *ecr = calloc(size, sizeof(int));
  int *eds = calloc(size, sizeof(int)), *edr = calloc(size, sizeof(int));
  if (!ecs || !ecr || !eds || !edr) return hy_err(HY_ESYS, "out of memory");
  int64_t tot_s = 0, tot_r = 0;
  for (int q = 0; q < size; q++) {
    int64_t s = 0, r = 0;
    for (int i = rdsp[q]; i < rdsp[q] + rcnt[q]; i++) s += len_out[i];
    for (int i = sdsp[q]; i < sdsp[q] + scnt[q]; i++) r += len_in[i];
    if (s > INT_MAX || r > INT_MAX || tot_s + s > INT_MAX || tot_r + r > INT_MAX)
      return hy_err(HY_ESYS, "row fetch larger than 2^31 entries on one rank (use more ranks)");
    ecs[q] = (int)s; eds[q] = (int)tot_s; tot_s += s;
    ecr[q] = (int)r; edr[q] = (int)tot_r; tot_r += r;
  }
  int32_t *sc = NULL, *rc = NULL;
  double *sv = NULL, *rv = NULL;
  HY_MALLOC(sc, tot_s + 1);
  HY_MALLOC(sv, tot_s + 1);
  HY_MALLOC(rc, tot_r + 1);
  HY_MALLOC(rv, tot_r + 1);
  int64_t at = 0;
  for (int64_t i = 0; i < nin; i++) {
    int64_t l = in[i] - r0, b = loc->rowptr[l];
    memcpy(sc + at, loc->colind + b, len_out[i] * sizeof *sc);
    memcpy(sv + at, loc->val + b, len_out[i] * sizeof *sv);
    at += len_out[i];
  }
  HY_MPI(MPI_Alltoallv(sc, ecs, eds, MPI_INT32_T, rc, ecr, edr, MPI_INT32_T, comm));
  HY_MPI(MPI_Alltoallv(sv, ecs, eds, MPI_DOUBLE, rv, ecr, edr, MPI_DOUBLE, comm));
  free(sc); free(sv); free(in); free(len_out);
  /* offsets of each answer in the receive buffer (answers arrive in slot order) */
  int64_t *aoff = NULL, nsl = 0;
  HY_MALLOC(aoff, nr + 1);
  aoff[0] = 0;
  for (int q = 0; q < size; q++) nsl += scnt[q];
  for (int64_t t = 0; t < nsl; t++) aoff[t + 1] = aoff[t] + len_in[t];
  int64_t tot = tot_r;
  for (int64_t i = 0; i < nr; i++)
    if (slot[i] < 0) tot += loc->rowptr[rows[i] - r0 + 1] - loc->rowptr[rows[i] - r0];
  la_csr_alloc(out, nr, loc->n, tot);
  out->rowptr[0] = 0;
  for (int64_t i = 0; i < nr; i++) {
    int64_t t = slot[i], l;
    const int32_t *sc_ = NULL;
    const double *sv_ = NULL;
    if (t < 0) {
      int64_t li = rows[i] - r0;
      l = loc->rowptr[li + 1] - loc->rowptr[li];
      sc_ = loc->colind + loc->rowptr[li];
      sv_ = loc->val + loc->rowptr[li];
    } else {
      l = len_in[t];
      sc_ = rc + aoff[t];
      sv_ = rv + aoff[t];
    }
    memcpy(out->colind + out->rowptr[i], sc_, l * sizeof *sc_);
    memcpy(out->val + out->rowptr[i], sv_, l * sizeof *sv_);
    out->rowptr[i + 1] = out->rowptr[i] + l;
  }
  free(aoff); free(rc); free(rv); free(len_in); free(req); free(slot);
  free(scnt); free(rcnt); free(sdsp); free(rdsp); free(fill);
  free(ecs); free(ecr); free(eds); free(edr);
  return HY_OK;
}

/* Halo plan and local renumbering.  Collective. */
int la_halo_build(MPI_Comm comm, const la_part *p, int rank, hy_csr *loc, la_halo *h) {
  memset(h, 0, sizeof *h);
  int64_t r0 = p->start[rank], r1 = p->start[rank + 1];
  h->nloc = r1 - r0;
  int64_t ng = 0;
  int64_t *gh = NULL;
  HY_MALLOC(gh, loc->nnz + 1);
  for (int64_t e = 0; e < loc->nnz; e++)
    if (loc->colind[e] < r0 || loc->colind[e] >= r1) gh[ng++] = loc->colind[e];
  qsort(gh, ng, sizeof *gh, cmp_i64);
  int64_t u = 0;
  for (int64_t i = 0; i < ng; i++)
    if (u == 0 || gh[i] != gh[u - 1]) gh[u++] = gh[i];
  ng = u;
  h->nghost = ng;
  if (h->nloc + ng > INT32_MAX) return hy_err(HY_ESYS, "local matrix too large for 32-bit indices");
  /* renumber */
  for (int64_t e = 0; e < loc->nnz; e++) {
    int64_t g = loc->colind[e];
    if (g >= r0 && g < r1) {
      loc->colind[e] = (int32_t)(g - r0);
    } else {
      int64_t lo = 0, hi = ng - 1;
      while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (gh[mid] < g) lo = mid + 1;
        else hi = mid;
      }
      loc->colind[e] = (int32_t)(h->nloc + lo);
    }
  }
  for (int64_t i = 0; i < loc->m; i++)
    io_sort_pairs(loc->colind + loc->rowptr[i], loc->val + loc->rowptr[i],
                    loc->rowptr[i + 1] - loc->rowptr[i]);
  loc->n = h->nloc + ng;
  int rc = la_halo_plan(comm, p, rank, ng, gh, h);
  free(gh);
  return rc;
}

/* The plan's exchange for the sorted distinct ghosts gh[0..ng) (h->nloc, h->nghost set here).
 * Collective. */
int la_halo_plan(MPI_Comm comm, const la_part *p, int rank, int64_t ng, const int64_t *gh,
                 la_halo *h) {
  memset(h, 0, sizeof *h);
  int size = p->size;
  int64_t r0 = p->start[rank];
  h->nloc = p->start[rank + 1] - r0;
  h->nghost = ng;
  /* who sends what */
  int *scnt = calloc(size, sizeof(int)), *rcnt = calloc(size, sizeof(int));
  int *sdsp = calloc(size, sizeof(int)), *rdsp = calloc(size, sizeof(int));
  if (!scnt || !rcnt || !sdsp || !rdsp) return hy_err(HY_ESYS, "out of memory");
  for (int64_t i = 0; i < ng; i++) scnt[la_part_owner(p, gh[i])]++;
  int64_t nin = 0;
  HY_CALL(exchange_counts(comm, size, scnt, rcnt, sdsp, rdsp, &nin));
  int64_t *want = NULL;
  HY_MALLOC(want, nin);
  HY_MPI(MPI_Alltoallv(gh, scnt, sdsp, MPI_INT64_T, want, rcnt, rdsp, MPI_INT64_T, comm));
  for (int q = 0; q < size; q++) {
    if (rcnt[q]) h->nsend++;
    if (scnt[q]) h->nrecv++;
  }
  HY_MALLOC(h->send_rank, h->nsend + 1);
  HY_MALLOC(h->recv_rank, h->nrecv + 1);
  HY_MALLOC(h->send_off, h->nsend + 1);
  HY_MALLOC(h->recv_off, h->nrecv + 1);
  HY_MALLOC(h->sidx, nin + 1);
  h->nsidx = nin;
  int a = 0, b = 0;
  h->send_off[0] = h->recv_off[0] = 0;
  for (int q = 0; q < size; q++) {
    if (rcnt[q]) {
      h->send_rank[a] = q;
      h->send_off[a + 1] = h->send_off[a] + rcnt[q];
      a++;
    }
    if (scnt[q]) {
      h->recv_rank[b] = q;
      h->recv_off[b + 1] = h->recv_off[b] + scnt[q];
      b++;
    }
  }
  for (int64_t i = 0; i < nin; i++) h->sidx[i] = (int32_t)(want[i] - r0);
  free(want);
  free(scnt); free(rcnt); free(sdsp); free(rdsp);
  return HY_OK;
}

void la_halo_free(la_halo *h) {
  free(h->send_rank); free(h->recv_rank); free(h->send_off); free(h->recv_off); free(h->sidx);
  memset(h, 0, sizeof *h);
}

/* Gather the distributed matrix to rank 0.  Collective. */
int la_gather_csr(MPI_Comm comm, const la_part *p, const hy_csr *loc, hy_csr *all) {
  int size = p->size, rank;
  HY_MPI(MPI_Comm_rank(comm, &rank));
  memset(all, 0, sizeof *all);
  int64_t *lens = NULL;
  HY_MALLOC(lens, loc->m + 1);
  for (int64_t i = 0; i < loc->m; i++) lens[i] = loc->rowptr[i + 1] - loc->rowptr[i];
  int *rc = NULL, *rd = NULL, *ec = NULL, *ed = NULL;
  int nzl = (int)loc->nnz;
  if (loc->nnz > INT_MAX) return hy_err(HY_ESYS, "gather: more than 2^31 entries on a rank");
  if (rank == 0) {
    HY_MALLOC(rc, size); HY_MALLOC(rd, size); HY_MALLOC(ec, size); HY_MALLOC(ed, size);
    for (int q = 0; q < size; q++) {
      rc[q] = (int)(p->start[q + 1] - p->start[q]);
      rd[q] = (int)p->start[q];
    }
  }
  HY_MPI(MPI_Gather(&nzl, 1, MPI_INT, ec, 1, MPI_INT, 0, comm));
  int64_t tot = 0;
  if (rank == 0) {
    for (int q = 0; q < size; q++) {
      if (tot > INT_MAX) return hy_err(HY_ESYS, "gather: matrix over 2^31 entries");
      ed[q] = (int)tot;
      tot += ec[q];
    }
    la_csr_alloc(all, p->n, loc->n, tot);
  }
  HY_MPI(MPI_Gatherv(lens, (int)loc->m, MPI_INT64_T, rank == 0 ? all->rowptr + 1 : NULL, rc, rd,
                     MPI_INT64_T, 0, comm));
  HY_MPI(MPI_Gatherv(loc->colind, nzl, MPI_INT32_T, all->colind, ec, ed, MPI_INT32_T, 0, comm));
  HY_MPI(MPI_Gatherv(loc->val, nzl, MPI_DOUBLE, all->val, ec, ed, MPI_DOUBLE, 0, comm));
  if (rank == 0) {
    all->rowptr[0] = 0;
    for (int64_t i = 0; i < p->n; i++) all->rowptr[i + 1] += all->rowptr[i];
  }
  free(lens); free(rc); free(rd); free(ec); free(ed);
  return HY_OK;
}
