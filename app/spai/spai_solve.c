/* spai_solve.c - the distributed BiCGSTAB of the spai workload: A and M by row blocks on the
 * rank's backend, halo exchange of only the vector entries each rank needs (plan built once,
 * staged through pinned host buffers), dot products by one all-reduce per group.  The Krylov
 * method itself (app/krylov) sees only the function pointers set up here. */
#include "spai/spai.h"
#include "krylov/krylov.h"
#include "k_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  hy_ctx *ctx;
  k_backend *be;
  const k_spai_ops *ko;
  k_vec vec;                   /* the shared vector operations (and their reduction scratch) */
  hy_progress *pg;             /* iterations progress */
  int64_t nloc, cap;
  void *amat, *mmat;
  spai_halo ha, hm;
  int32_t *d_sidx_a, *d_sidx_m;
  double *d_sbuf, *h_sbuf, *h_rbuf;
  int64_t sbuf_n, rbuf_n;
  MPI_Request *req;
  MPI_Status *sts;
  int64_t matvecs;
} solve_ctx;

/* Fill x's ghost entries for plan h.  Collective over neighbours. */
static int halo_exchange(solve_ctx *s, const spai_halo *h, const int32_t *d_sidx, double *x) {
  k_backend *be = s->be;
  if (h->nsend + h->nrecv == 0) return HY_OK;
  HY_CALL(s->vec.ops->gather(&s->vec, h->nsidx, d_sidx, x, s->d_sbuf));
  HY_CALL(be->ops->d2h(be, s->h_sbuf, s->d_sbuf, h->nsidx * sizeof(double)));
  int nr = 0;
  for (int i = 0; i < h->nrecv; i++)
    HY_MPI(MPI_Irecv(s->h_rbuf + h->recv_off[i], (int)(h->recv_off[i + 1] - h->recv_off[i]),
                     MPI_DOUBLE, h->recv_rank[i], 77, s->ctx->comm, &s->req[nr++]));
  for (int i = 0; i < h->nsend; i++)
    HY_MPI(MPI_Isend(s->h_sbuf + h->send_off[i], (int)(h->send_off[i + 1] - h->send_off[i]),
                     MPI_DOUBLE, h->send_rank[i], 77, s->ctx->comm, &s->req[nr++]));
  HY_MPI(MPI_Waitall(nr, s->req, s->sts));
  HY_CALL(be->ops->h2d(be, x + s->nloc, s->h_rbuf, h->nghost * sizeof(double)));
  return HY_OK;
}

static int v_create(void *c, double **v) {
  solve_ctx *s = c;
  HY_CALL(s->be->ops->alloc(s->be, (void **)v, (size_t)s->cap * sizeof(double)));
  return s->be->ops->memset0(s->be, *v, (size_t)s->cap * sizeof(double));
}
static int v_free(void *c, double *v) {
  solve_ctx *s = c;
  return s->be->ops->free(s->be, v);
}
static int v_copy(void *c, const double *src, double *dst) {
  solve_ctx *s = c;
  return s->be->ops->d2d(s->be, dst, src, (size_t)s->nloc * sizeof(double));
}
static int v_matvec(void *c, double *x, double *y) {
  solve_ctx *s = c;
  HY_CALL(halo_exchange(s, &s->ha, s->d_sidx_a, x));
  s->matvecs++;
  return s->ko->mat_spmv(s->be, s->amat, x, y);
}
static int v_precond(void *c, double *x, double *y) {
  solve_ctx *s = c;
  HY_CALL(halo_exchange(s, &s->hm, s->d_sidx_m, x));
  return s->ko->mat_spmv(s->be, s->mmat, x, y);
}
static int v_axpbypcz(void *c, double a, const double *x, double b, const double *y, double cc,
                      double *z) {
  solve_ctx *s = c;
  return s->vec.ops->axpbypcz(&s->vec, s->nloc, a, x, b, y, cc, z);
}
static int v_dots(void *c, int np, const double *const *x, const double *const *y, double *out) {
  solve_ctx *s = c;
  double loc[4];
  HY_CALL(s->vec.ops->dots(&s->vec, s->nloc, np, x, y, loc));
  HY_MPI(MPI_Allreduce(loc, out, np, MPI_DOUBLE, MPI_SUM, s->ctx->comm));
  return HY_OK;
}
/* z = a x + b y + c z and the global dots of the updated vectors in one pass (the backend's
 * fused op), one all-reduce.  Collective. */
static int v_axpbypcz_dots(void *c, double a, const double *x, double b, const double *y,
                           double cc, double *z, int np, const double *const *dx,
                           const double *const *dy, double *out) {
  solve_ctx *s = c;
  double loc[4];
  HY_CALL(s->vec.ops->axpbypcz_dots(&s->vec, s->nloc, a, x, b, y, cc, z, np, dx, dy, loc));
  HY_MPI(MPI_Allreduce(loc, out, np, MPI_DOUBLE, MPI_SUM, s->ctx->comm));
  return HY_OK;
}

/* Progress of the iterations.  Local (rank 0 prints). */
static void v_monitor(void *c, int it, double relres) {
  solve_ctx *s = c;
  (void)relres;
  if (s->pg) hy_progress_update(s->pg, it);
}

/* Bytes a CSR SpMV must move at least: values, column indices, row offsets, x and y.  Local. */
static double spmv_bytes(const hy_csr *a) {
  return (double)a->nnz * 12.0 + (double)(a->m + 1) * 4.0 + 16.0 * (double)a->m;
}

/* Upload a renumbered matrix and its halo indices.  Local. */
static int upload(solve_ctx *s, const hy_csr *a, const spai_halo *h, void **mat, int32_t **d_sidx) {
  k_backend *be = s->be;
  HY_CALL(s->ko->mat_create(be, a->m, a->n, a->rowptr, a->colind, a->val, mat));
  *d_sidx = NULL;
  if (h->nsidx) {
    HY_CALL(be->ops->alloc(be, (void **)d_sidx, h->nsidx * sizeof(int32_t)));
    HY_CALL(be->ops->h2d(be, *d_sidx, h->sidx, h->nsidx * sizeof(int32_t)));
  }
  return HY_OK;
}

/* The solve.  Collective. */
int spai_solve(hy_ctx *ctx, const spai_part *pr, hy_csr *a, hy_csr *m, const double *b,
               double *x, const spai_solve_opts *opt, spai_solve_info *info) {
  memset(info, 0, sizeof *info);
  solve_ctx s;
  memset(&s, 0, sizeof s);
  s.ctx = ctx;
  s.be = &ctx->be;
  s.ko = k_spai_ops_get(s.be);
  k_backend *be = s.be;
  HY_LOCAL(k_vec_open(be, &s.vec));
  hy_phase_begin(ctx, "solve setup");
  HY_CALL(spai_halo_build(ctx->comm, pr, ctx->rank, a, &s.ha));
  if (opt->use_m) HY_CALL(spai_halo_build(ctx->comm, pr, ctx->rank, m, &s.hm));
  s.nloc = s.ha.nloc;
  int64_t gmax = s.ha.nghost > s.hm.nghost ? s.ha.nghost : s.hm.nghost;
  s.cap = s.nloc + gmax + 1;
  s.sbuf_n = (s.ha.nsidx > s.hm.nsidx ? s.ha.nsidx : s.hm.nsidx) + 1;
  s.rbuf_n = gmax + 1;
  int rc = upload(&s, a, &s.ha, &s.amat, &s.d_sidx_a);
  if (rc == HY_OK && opt->use_m) rc = upload(&s, m, &s.hm, &s.mmat, &s.d_sidx_m);
  if (rc == HY_OK) rc = be->ops->alloc_pinned(be, (void **)&s.h_sbuf, s.sbuf_n * sizeof(double));
  if (rc == HY_OK) rc = be->ops->alloc_pinned(be, (void **)&s.h_rbuf, s.rbuf_n * sizeof(double));
  if (rc == HY_OK) rc = be->ops->alloc(be, (void **)&s.d_sbuf, s.sbuf_n * sizeof(double));
  s.req = malloc(sizeof(MPI_Request) * (size_t)(ctx->size * 2 + 2));
  s.sts = malloc(sizeof(MPI_Status) * (size_t)(ctx->size * 2 + 2));
  if ((!s.req || !s.sts) && rc == HY_OK) rc = hy_err(HY_ESYS, "out of memory");
  double *db = NULL, *dx = NULL;
  if (rc == HY_OK) rc = v_create(&s, &db);
  if (rc == HY_OK) rc = v_create(&s, &dx);
  if (rc == HY_OK) rc = be->ops->h2d(be, db, b, s.nloc * sizeof(double));
  if (rc == HY_OK) rc = be->ops->h2d(be, dx, x, s.nloc * sizeof(double));
  hy_phase_end(ctx, "solve setup");
  HY_CALL(hy_agree(ctx->comm, rc));

  /* vectors read or written per iteration: 20, or 19 when the update of r and its dots share
   * a pass (r is not read back) */
  double nvec = s.vec.ops->axpbypcz_dots ? 19.0 : 20.0;
  double bytes = 2 * spmv_bytes(a) + (opt->use_m ? 2 * spmv_bytes(m) : 16.0 * s.nloc) +
                 nvec * 8.0 * (double)s.nloc;
  HY_MPI(MPI_Allreduce(&bytes, &info->bytes_per_iter, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));

  krylov_ops ko = { &s, s.nloc, v_create, v_free, v_copy, v_matvec, opt->use_m ? v_precond : NULL,
                    v_axpbypcz, v_dots, v_monitor,
                    s.vec.ops->axpbypcz_dots ? v_axpbypcz_dots : NULL };
  krylov_params par = { opt->tol, opt->max_iter };
  krylov_result kr;
  hy_progress pg;
  hy_progress_begin(&pg, ctx, "bicgstab iterations", opt->max_iter);
  s.pg = &pg;
  MPI_Barrier(ctx->comm);
  hy_phase_begin(ctx, "bicgstab");
  double t0 = hy_wtime();
  rc = krylov_bicgstab(&ko, &par, db, dx, &kr);
  if (rc == HY_OK) rc = be->ops->sync(be);
  double t = hy_wtime() - t0;
  hy_phase_end(ctx, "bicgstab");
  s.pg = NULL;
  hy_progress_end(&pg);
  HY_CALL(hy_agree(ctx->comm, rc));
  HY_MPI(MPI_Allreduce(&t, &info->seconds, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  info->status = kr.status;
  info->iterations = kr.iterations;
  info->relres = kr.relres;
  snprintf(info->breakdown, sizeof info->breakdown, "%s", kr.breakdown);

  /* true residual ||b - A x|| / ||b|| */
  hy_phase_begin(ctx, "true residual");
  double *dr = NULL, *dt = NULL;
  rc = v_create(&s, &dr);
  if (rc == HY_OK) rc = v_create(&s, &dt);
  if (rc == HY_OK) rc = v_copy(&s, dx, dt);
  if (rc == HY_OK) rc = v_matvec(&s, dt, dr);
  if (rc == HY_OK) rc = v_axpbypcz(&s, 1.0, db, -1.0, dr, 0.0, dr);
  double nn[2] = { 0, 0 };
  if (rc == HY_OK) {
    const double *xa[2] = { dr, db }, *ya[2] = { dr, db };
    rc = v_dots(&s, 2, xa, ya, nn);
  }
  if (rc == HY_OK) rc = be->ops->d2h(be, x, dx, s.nloc * sizeof(double));
  hy_phase_end(ctx, "true residual");
  HY_CALL(hy_agree(ctx->comm, rc));
  /* the backend library's SpMV alone (cuSPARSE on CUDA), for the floor comparison */
  for (int w = 0; w < 2 && rc == HY_OK; w++) {
    void *mat = w == 0 ? s.amat : s.mmat;
    if (!mat) continue;
    const int reps = 20;
    rc = s.ko->mat_spmv(be, mat, dt, dr);
    if (rc == HY_OK) rc = be->ops->sync(be);
    double t1 = hy_wtime();
    for (int r = 0; r < reps && rc == HY_OK; r++) rc = s.ko->mat_spmv(be, mat, dt, dr);
    if (rc == HY_OK) rc = be->ops->sync(be);
    double ts = (hy_wtime() - t1) / reps, tm = 0;
    double by = spmv_bytes(w == 0 ? a : m), bm = 0;
    HY_MPI(MPI_Allreduce(&ts, &tm, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
    HY_MPI(MPI_Allreduce(&by, &bm, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
    if (w == 0) { info->spmv_a_s = tm; info->spmv_a_bytes = bm; }
    else { info->spmv_m_s = tm; info->spmv_m_bytes = bm; }
  }
  HY_CALL(hy_agree(ctx->comm, rc));
  info->true_relres = sqrt(nn[0]) / (nn[1] > 0 ? sqrt(nn[1]) : 1.0);

  v_free(&s, dr); v_free(&s, dt); v_free(&s, db); v_free(&s, dx);
  s.ko->mat_free(be, s.amat);
  if (s.mmat) s.ko->mat_free(be, s.mmat);
  be->ops->free(be, s.d_sidx_a);
  be->ops->free(be, s.d_sidx_m);
  be->ops->free(be, s.d_sbuf);
  k_vec_close(&s.vec);
  be->ops->free_pinned(be, s.h_sbuf);
  be->ops->free_pinned(be, s.h_rbuf);
  free(s.req);
  free(s.sts);
  spai_halo_free(&s.ha);
  spai_halo_free(&s.hm);
  return HY_OK;
}
