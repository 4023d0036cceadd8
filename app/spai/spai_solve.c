/* spai_solve.c - the distributed BiCGSTAB of the spai workload: A and M by row blocks on the
 * rank's backend, halo exchange of only the vector entries each rank needs (plan built once,
 * staged through pinned host buffers), dot products by one all-reduce per group.  The Krylov
 * method itself (app/krylov) sees only the function pointers set up here; the vector
 * operations are the shared ones of kernels/k_vec.h.
 *
 * The error rule inside the solve: a local failure (a kernel, a copy, an allocation) ends the
 * job at once (HY_LOCAL), so no rank ever waits in an all-reduce for one that left; numerical
 * trouble travels in the all-reduced dots themselves (a NaN or Inf is seen by every rank and
 * ends the iteration as a breakdown everywhere, PETSc's KSPCheckDot idea). */
#include "spai/spai.h"
#include "krylov/krylov.h"
#include "k_vec.h"
#include "k_vec_bcgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  hy_ctx *ctx;
  k_backend *be;
  const k_spai_ops *ko;
  k_vec vec;                   /* the shared vector operations (and their reduction scratch) */
  hy_progress *pg;             /* progress toward tol */
  double log_tol;              /* -log10(tol): the progress scale */
  int monitor;                 /* print ||r|| / ||b|| every iteration */
  int64_t nloc, cap;
  void *amat, *mmat;
  int mmat_lent;               /* mmat is M's device matrix from the setup (not freed here) */
  void *ilu;                   /* ILU(0) factors of the diagonal block (ilu0) */
  hy_csr blk;                  /* that block (local columns < nloc, sorted) */
  la_halo ha, hm;
  int32_t *d_sidx_a, *d_sidx_m;
  double *d_sbuf, *h_sbuf, *h_rbuf;
  int64_t sbuf_n, rbuf_n;
  MPI_Request *req;
  MPI_Status *sts;
  int own;                     /* 1: the SpMVs by the table's mat_spmv_own */
  k_csr_view va, vm;           /* A and M as the backend's arrays (solver.device_kernel) */
  int batch;                   /* 1: bcgs_batch (persistent), 2: bcgs_fused, 0: the queued ops */
  int split;                   /* solver.persistent_split */
  int unroll, blocks, rows;    /* solver.persistent_unroll / persistent_blocks / persistent_rows */
  int prefetch;                /* solver.persistent_prefetch */
  int merged;                  /* solver.merge_reductions */
  int64_t *d_times;            /* solver.phase_times: bcgs_batch's phase timing (K_PH_SLOTS) */
} solve_ctx;

/* y = mat x by the SpMV chosen at setup (ours or the backend library's).  Local. */
static int mat_mul(solve_ctx *s, void *mat, const double *x, double *y) {
  if (s->own) return s->ko->mat_spmv_own(s->be, mat, 0, x, y);
  return s->ko->mat_spmv(s->be, mat, x, y);
}

/* Fill x's ghost entries for plan h.  Collective over neighbours. */
static int halo_exchange(solve_ctx *s, const la_halo *h, const int32_t *d_sidx, double *x) {
  k_backend *be = s->be;
  if (h->nsend + h->nrecv == 0) return HY_OK;
  HY_LOCAL(s->vec.ops->gather(&s->vec, h->nsidx, d_sidx, x, s->d_sbuf));
  HY_LOCAL(be->ops->d2h(be, s->h_sbuf, s->d_sbuf, h->nsidx * sizeof(double)));
  int nr = 0;
  for (int i = 0; i < h->nrecv; i++)
    HY_MPI(MPI_Irecv(s->h_rbuf + h->recv_off[i], (int)(h->recv_off[i + 1] - h->recv_off[i]),
                     MPI_DOUBLE, h->recv_rank[i], 77, s->ctx->comm, &s->req[nr++]));
  for (int i = 0; i < h->nsend; i++)
    HY_MPI(MPI_Isend(s->h_sbuf + h->send_off[i], (int)(h->send_off[i + 1] - h->send_off[i]),
                     MPI_DOUBLE, h->send_rank[i], 77, s->ctx->comm, &s->req[nr++]));
  HY_MPI(MPI_Waitall(nr, s->req, s->sts));
  HY_LOCAL(be->ops->h2d(be, x + s->nloc, s->h_rbuf, h->nghost * sizeof(double)));
  return HY_OK;
}

/* The krylov_ops of the solver (local work through HY_LOCAL; MPI through HY_MPI). */
static int v_create(void *c, double **v) {
  solve_ctx *s = c;
  HY_LOCAL(s->be->ops->alloc(s->be, (void **)v, (size_t)s->cap * sizeof(double)));
  HY_LOCAL(s->be->ops->memset0(s->be, *v, (size_t)s->cap * sizeof(double)));
  return HY_OK;
}
static int v_free(void *c, double *v) {
  solve_ctx *s = c;
  return s->be->ops->free(s->be, v);
}
static int v_copy(void *c, const double *src, double *dst) {
  solve_ctx *s = c;
  HY_LOCAL(s->be->ops->d2d(s->be, dst, src, (size_t)s->nloc * sizeof(double)));
  return HY_OK;
}
static int v_matvec(void *c, double *x, double *y) {
  solve_ctx *s = c;
  HY_CALL(halo_exchange(s, &s->ha, s->d_sidx_a, x));
  HY_LOCAL(mat_mul(s, s->amat, x, y));
  return HY_OK;
}
static int v_precond(void *c, double *x, double *y) {
  solve_ctx *s = c;
  HY_CALL(halo_exchange(s, &s->hm, s->d_sidx_m, x));
  HY_LOCAL(mat_mul(s, s->mmat, x, y));
  return HY_OK;
}
static int v_ilu(void *c, double *x, double *y) {
  solve_ctx *s = c;
  HY_LOCAL(s->ko->ilu_apply(s->be, s->ilu, x, y));
  return HY_OK;
}
static int v_axpbypcz(void *c, double a, const double *x, double b, const double *y, double cc,
                      double *z) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->axpbypcz(&s->vec, s->nloc, a, x, b, y, cc, z));
  return HY_OK;
}
static int v_dots(void *c, int np, const double *const *x, const double *const *y, double *out) {
  solve_ctx *s = c;
  double loc[K_VEC_MAXDOTS];
  HY_LOCAL(s->vec.ops->dots(&s->vec, s->nloc, np, x, y, loc));
  HY_MPI(MPI_Allreduce(loc, out, np, MPI_DOUBLE, MPI_SUM, s->ctx->comm));
  return HY_OK;
}
/* z = a x + b y + c z and the global dots of the updated vectors in one pass (the backend's
 * fused op), one all-reduce.  Collective. */
static int v_axpbypcz_dots(void *c, double a, const double *x, double b, const double *y,
                           double cc, double *z, int np, const double *const *dx,
                           const double *const *dy, double *out) {
  solve_ctx *s = c;
  double loc[K_VEC_MAXDOTS];
  HY_LOCAL(s->vec.ops->axpbypcz_dots(&s->vec, s->nloc, a, x, b, y, cc, z, np, dx, dy, loc));
  HY_MPI(MPI_Allreduce(loc, out, np, MPI_DOUBLE, MPI_SUM, s->ctx->comm));
  return HY_OK;
}

/* The device loop's ops (one rank: local dots are the global ones), k_vec's *_s forms.
 * Local. */
static int v_s_create(void *c, double **sc) {
  solve_ctx *s = c;
  HY_LOCAL(s->be->ops->alloc(s->be, (void **)sc, K_BS_NSLOT * sizeof(double)));
  HY_LOCAL(s->be->ops->memset0(s->be, *sc, K_BS_NSLOT * sizeof(double)));
  return HY_OK;
}
static int v_s_put(void *c, double *sc, const double *h, int n) {
  solve_ctx *s = c;
  HY_LOCAL(s->be->ops->h2d(s->be, sc, h, (size_t)n * sizeof(double)));
  return HY_OK;
}
static int v_s_get(void *c, const double *sc, double *h, int n) {
  solve_ctx *s = c;
  if (s->vec.ops->s_read)
    HY_LOCAL(s->vec.ops->s_read(&s->vec, sc, h, n));
  else
    HY_LOCAL(s->be->ops->d2h(s->be, h, sc, (size_t)n * sizeof(double)));
  return HY_OK;
}
static int v_s_axpbypcz(void *c, double *sc, int ia, int ib, int ic, int gate,
                        const double *x, const double *y, double *z, int step, double tol) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->axpbypcz_s(&s->vec, s->nloc, sc, ia, ib, ic, gate, x, y, z, step, tol));
  return HY_OK;
}
static int v_s_dots(void *c, int np, const double *const *x, const double *const *y, double *sc,
                    int slot, int gate, int step, double tol) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->dots_s(&s->vec, s->nloc, np, x, y, sc, slot, gate, step, tol));
  return HY_OK;
}
static int v_s_axpbypcz_dots(void *c, double *sc, int ia, int ib, int ic, int gate,
                             const double *x, const double *y, double *z, int np,
                             const double *const *dx, const double *const *dy, int slot,
                             int step, double tol) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->axpbypcz_dots_s(&s->vec, s->nloc, sc, ia, ib, ic, gate, x, y, z, np, dx,
                                       dy, slot, step, tol));
  return HY_OK;
}
static int v_s_step(void *c, double *sc, int step, double tol) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->bcgs_step(&s->vec, sc, step, tol));
  return HY_OK;
}
/* Record / replay / free a batch of device-loop iterations (k_vec's rec_*: a CUDA graph). */
static int v_s_record(void *c, int (*fn)(void *arg), void *arg, void **rec) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->rec_create(&s->vec, fn, arg, rec));
  return HY_OK;
}
static int v_s_replay(void *c, void *rec) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->rec_run(&s->vec, rec));
  return HY_OK;
}
static int v_s_unrecord(void *c, void *rec) {
  solve_ctx *s = c;
  HY_LOCAL(s->vec.ops->rec_free(&s->vec, rec));
  return HY_OK;
}

/* Up to n device-loop iterations as one bcgs_batch (persistent) or bcgs_fused of the vector
 * table on A and M's arrays.  Local. */
static int v_s_batch(void *c, double *sc, int n, double tol, double *x, const krylov_bcgs_vecs *w) {
  solve_ctx *s = c;
  k_bcgs_sys sys = { .n = s->nloc, .a = s->va, .m = s->vm, .r = w->r, .rh = w->rh, .p = w->p,
                     .p2 = w->p2, .v = w->v, .ph = w->ph, .s = w->s, .sh = w->sh, .t = w->t,
                     .x = x, .split = s->split, .unroll = s->unroll, .blocks = s->blocks,
                     .rows = s->rows, .prefetch = s->prefetch,
                     .times = s->batch == 1 ? s->d_times : NULL, .merged = s->merged };
  if (s->batch == 1) HY_LOCAL(s->vec.ops->bcgs_batch(&s->vec, &sys, sc, n, tol));
  else HY_LOCAL(s->vec.ops->bcgs_fused(&s->vec, &sys, sc, n, tol));
  return HY_OK;
}

/* solver.device_kernel: whether the device loop runs as the backend's bcgs_batch (persistent,
 * or auto, the default, on a GPU backend up to SPAI_PERSIST_AUTO_N rows: 1) or bcgs_fused
 * (fused: 2), with the matrices' views; 0: the queued ops (graph), and info->batch_why says why
 * where persistent or fused was asked for, or where auto took the graph on a GPU backend
 * (info->batch_auto).  Local (the same on every rank). */
static int solve_batch_kind(solve_ctx *s, const spai_solve_opts *opt, spai_solve_info *info) {
  int k = opt->device_kernel;
  info->batch_auto = k == 0;
  int want = k == 2 ? 1 : k == 3 ? 2 : k == 0 && s->be->gpu ? 1 : 0;
  if (!want) return 0;
  const char *why = !(want == 1 ? s->vec.ops->bcgs_batch : s->vec.ops->bcgs_fused) ||
                    !s->ko->mat_view ? "the backend does not offer it"
                    : opt->ilu ? "solver.precond = ilu0 (triangular solves)"
                    : s->be->gpu && !s->own ? "solver.spmv = library (it runs our SpMV)" : NULL;
  if (why) {
    snprintf(info->batch_why, sizeof info->batch_why, "%s", why);
    return 0;
  }
  HY_LOCAL(s->ko->mat_view(s->be, s->amat, &s->va));
  memset(&s->vm, 0, sizeof s->vm);
  if (s->mmat) HY_LOCAL(s->ko->mat_view(s->be, s->mmat, &s->vm));
  if (opt->persistent_tpr > 0 && s->be->gpu) {   /* solver.persistent_tpr (host: its C loop) */
    s->va.tpr = opt->persistent_tpr;
    if (s->mmat) s->vm.tpr = opt->persistent_tpr;
  }
  if (opt->persistent_sell && s->be->gpu && want == 1) {   /* slices: one thread a row */
    s->va.tpr = 1;
    if (s->mmat) s->vm.tpr = 1;
  }
  info->tpr_a = s->va.tpr;
  info->tpr_m = s->mmat ? s->vm.tpr : 0;
  return want;
}

/* Fill the device-loop entries of ko when solver.device_loop asks for it (true, or auto on a
 * GPU backend without the per-iteration monitor), the run has one rank and the backend's vector
 * table has the scalar-block forms; info->device_loop says whether it did, info->batch whether
 * the iterations run as bcgs_batch / bcgs_fused, info->device_graph whether they are recorded.
 * Local (the same on every rank). */
static void solve_device_loop(solve_ctx *s, const spai_solve_opts *opt, krylov_ops *ko,
                              spai_solve_info *info) {
  int want = opt->device_loop == 1 || (opt->device_loop == 2 && s->be->gpu && !opt->monitor);
  info->device_loop = want && s->ctx->size == 1 && s->vec.ops->bcgs_step;
  if (!info->device_loop) return;
  info->batch = s->batch = solve_batch_kind(s, opt, info);
  if (opt->merge_reductions && s->batch != 1) {   /* merged: the persistent kernel or no loop */
    info->device_loop = info->batch = s->batch = 0;
    info->merged_loop_off = 1;
    return;
  }
  if (s->batch) ko->s_batch = v_s_batch;
  s->split = s->batch == 1 && opt->persistent_split && !opt->merge_reductions;
  info->persistent_split = s->split;
  /* persistent_unroll / persistent_blocks auto (0): 8 at 2 blocks above SPAI_PERSIST_AUTO_N rows,
   * else 1 at 3 */
  s->unroll = opt->persistent_unroll ? opt->persistent_unroll
              : s->nloc > SPAI_PERSIST_AUTO_N ? 8 : 1;
  s->blocks = opt->persistent_blocks ? opt->persistent_blocks : spai_persist_blocks_auto(s->unroll);
  info->unroll = s->unroll;
  info->blocks = s->blocks;
  s->rows = opt->persistent_rows;
  s->prefetch = s->batch == 1 && opt->persistent_prefetch;
  if (s->batch == 1 && opt->phase_times) {
    HY_LOCAL(s->be->ops->alloc(s->be, (void **)&s->d_times, K_PH_SLOTS * sizeof(int64_t)));
    HY_LOCAL(s->be->ops->memset0(s->be, s->d_times, K_PH_SLOTS * sizeof(int64_t)));
  }
  ko->s_create = v_s_create;
  ko->s_put = v_s_put;
  ko->s_get = v_s_get;
  ko->s_axpbypcz = v_s_axpbypcz;
  ko->s_dots = v_s_dots;
  ko->s_axpbypcz_dots = v_s_axpbypcz_dots;
  ko->s_step = v_s_step;
  if (opt->device_graph && s->vec.ops->rec_create && s->batch != 1) {
    ko->s_record = v_s_record;
    ko->s_replay = v_s_replay;
    ko->s_unrecord = v_s_unrecord;
    info->device_graph = 1;
  }
}

/* solver.precond_precision / index16 / l2_window: the solve copy of A and M in that format (and
 * the L2 window over it) by the vector table's bcgs_prepare for the device loop's bcgs_batch /
 * bcgs_fused, made before the timer (info->fmt_s); info->fmt_why says why not where asked.
 * Local (one rank). */
static void solve_format(solve_ctx *s, const spai_solve_opts *opt, spai_solve_info *info) {
  k_bcgs_fmt *f = &info->fmt;
  memset(f, 0, sizeof *f);
  f->m_single = opt->precond_single && opt->use_m;
  f->index16 = opt->index16 == 1 || (opt->index16 == 2 && s->be->gpu);
  /* auto: none here; bcgs_prepare makes it all where A and M are by diagonals and fit (k_vec.h) */
  f->l2 = s->be->gpu && opt->l2_window != SPAI_L2_AUTO ? opt->l2_window : K_L2_NONE;
  f->l2_auto = s->be->gpu && opt->l2_window == SPAI_L2_AUTO;
  f->l2_mb = opt->l2_window_mb;
  f->sell = s->be->gpu && opt->persistent_sell && s->batch == 1;
  /* by diagonals (persistent_dia true, or auto): the classic persistent kernel only */
  f->dia = s->be->gpu && opt->persistent_dia && s->batch == 1 && !s->split && !s->merged &&
           !s->prefetch && s->rows <= 1 && !f->sell;
  info->fmt_asked = f->m_single || opt->index16 == 1 || f->l2 || (f->index16 && s->batch) ||
                    f->sell || f->dia;
  if (!info->fmt_asked) return;
  const char *why = !s->batch ? "it needs the device loop at one rank as solver.device_kernel = "
                                "persistent (or fused, for l2_window)"
                    : !s->vec.ops->bcgs_prepare ? "the backend does not offer it" : NULL;
  if (why) {
    snprintf(info->fmt_why, sizeof info->fmt_why, "%s", why);
    return;
  }
  f->fused = s->batch == 2;
  k_bcgs_sys sys = { .n = s->nloc, .a = s->va, .m = s->vm, .split = s->split,
                     .unroll = s->unroll, .blocks = s->blocks, .merged = s->merged,
                     .rows = s->rows, .prefetch = s->prefetch };
  double t0 = hy_wtime();
  HY_LOCAL(s->vec.ops->bcgs_prepare(&s->vec, &sys, f));
  info->fmt_s = hy_wtime() - t0;
  s->va = sys.a;
  s->vm = sys.m;
  info->fmt_made = 1;
  snprintf(info->fmt_why, sizeof info->fmt_why, "%s", f->why);
  if (f->dia_used) {                       /* one thread a row; blocks auto: 2 a SM */
    info->tpr_a = s->va.tpr = 1;
    if (s->mmat) info->tpr_m = s->vm.tpr = 1;
    if (!opt->persistent_blocks) info->blocks = s->blocks = SPAI_DIA_BLOCKS;
  }
}

/* Every iteration: the monitor line (solver.monitor, PETSc's -ksp_monitor: k and the
 * recursive ||r|| / ||b||) and the progress toward tol on a log scale.  Local (rank 0 prints). */
static void v_monitor(void *c, int it, double relres) {
  solve_ctx *s = c;
  if (s->monitor) hy_printf0(s->ctx, "%5d KSP relative residual %.12e\n", it, relres);
  if (s->pg && relres > 0 && isfinite(relres)) {
    double done = -log10(relres);
    hy_progress_update(s->pg, done < 0 ? 0 : done > s->log_tol ? s->log_tol : done);
  }
}

/* Bytes a CSR SpMV of rows x cols with nnz entries must move at least: values, column indices,
 * row offsets, x and y.  Local. */
static double spmv_bytes_n(int64_t nnz, int64_t rows) {
  return (double)nnz * 12.0 + (double)(rows + 1) * 4.0 + 16.0 * (double)rows;
}
static double spmv_bytes(const hy_csr *a) { return spmv_bytes_n(a->nnz, a->m); }

/* Upload a halo plan's send indices.  Local. */
static void upload_sidx(solve_ctx *s, const la_halo *h, int32_t **d_sidx) {
  k_backend *be = s->be;
  *d_sidx = NULL;
  if (h->nsidx) {
    HY_LOCAL(be->ops->alloc(be, (void **)d_sidx, h->nsidx * sizeof(int32_t)));
    HY_LOCAL(be->ops->h2d(be, *d_sidx, h->sidx, h->nsidx * sizeof(int32_t)));
  }
}

/* Upload a renumbered matrix and its halo indices.  Local. */
static void upload(solve_ctx *s, const hy_csr *a, const la_halo *h, void **mat, int32_t **d_sidx) {
  HY_LOCAL(s->ko->mat_create(s->be, a->m, a->n, a->rowptr, a->colind, a->val, mat));
  upload_sidx(s, h, d_sidx);
}

/* The diagonal block of the renumbered local A (columns < nloc, sorted), factored by the
 * backend's ILU(0); a zero pivot on any rank is agreed (exit 3 everywhere).  Collective. */
static int solve_ilu(solve_ctx *s, const hy_csr *a, spai_solve_info *info) {
  hy_ctx *ctx = s->ctx;
  hy_csr *b = &s->blk;
  int64_t n = s->nloc;
  la_csr_alloc(b, n, n, a->nnz);   /* room; nnz set below */
  int64_t nz = 0;
  b->rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
      if (a->colind[e] < n) {
        b->colind[nz] = a->colind[e];
        b->val[nz++] = a->val[e];
      }
    io_sort_pairs(b->colind + b->rowptr[i], b->val + b->rowptr[i], nz - b->rowptr[i]);
    b->rowptr[i + 1] = nz;
  }
  b->nnz = nz;
  if (!s->ko->ilu_create)
    return hy_err(HY_EUSAGE, "solver.precond = ilu0: the %s backend has no ILU(0)", s->be->name);
  double t0 = hy_wtime();
  int rc = s->ko->ilu_create(s->be, n, b->rowptr, b->colind, b->val, &s->ilu);
  if (rc == HY_OK) rc = s->be->ops->sync(s->be);
  double t = hy_wtime() - t0;
  HY_CALL(hy_agree(ctx->comm, rc));
  long long lnz = nz, gnz = 0;
  HY_MPI(MPI_Allreduce(&t, &info->ilu_s, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_MPI(MPI_Allreduce(&lnz, &gnz, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm));
  info->ilu_nnz = gnz;
  return HY_OK;
}

/* Halo plans (A's columns, and M's, renumbered to local), the matrices and the staging buffers
 * on the backend, b and x uploaded.  Collective. */
static int solve_setup(solve_ctx *s, const la_part *pr, hy_csr *a, spai_m *m, const double *b,
                       const double *x, const spai_solve_opts *opt, double **db, double **dx,
                       spai_solve_info *info) {
  hy_ctx *ctx = s->ctx;
  k_backend *be = s->be;
  hy_phase_begin(ctx, "solve setup");
  HY_CALL(la_halo_build(ctx->comm, pr, ctx->rank, a, &s->ha));
  /* M's device matrix from the setup (one rank: no halo, no upload; P ranks: the setup's halo
   * plan of its ghost columns, taken over here) or its host rows */
  if (opt->use_m && !m->dev) HY_CALL(la_halo_build(ctx->comm, pr, ctx->rank, &m->h, &s->hm));
  if (opt->use_m && m->dev && m->halo_ready) {
    s->hm = m->halo;
    memset(&m->halo, 0, sizeof m->halo);
    m->halo_ready = 0;
  }
  s->nloc = s->ha.nloc;
  int64_t gmax = s->ha.nghost > s->hm.nghost ? s->ha.nghost : s->hm.nghost;
  s->cap = s->nloc + gmax + 1;
  s->sbuf_n = (s->ha.nsidx > s->hm.nsidx ? s->ha.nsidx : s->hm.nsidx) + 1;
  s->rbuf_n = gmax + 1;
  HY_LOCAL(k_vec_open(be, &s->vec));
  upload(s, a, &s->ha, &s->amat, &s->d_sidx_a);
  if (opt->use_m && m->dev) {
    s->mmat = m->dev;
    s->mmat_lent = 1;
    upload_sidx(s, &s->hm, &s->d_sidx_m);
  } else if (opt->use_m) {
    upload(s, &m->h, &s->hm, &s->mmat, &s->d_sidx_m);
  }
  HY_LOCAL(be->ops->alloc_pinned(be, (void **)&s->h_sbuf, s->sbuf_n * sizeof(double)));
  HY_LOCAL(be->ops->alloc_pinned(be, (void **)&s->h_rbuf, s->rbuf_n * sizeof(double)));
  HY_LOCAL(be->ops->alloc(be, (void **)&s->d_sbuf, s->sbuf_n * sizeof(double)));
  HY_MALLOC(s->req, ctx->size * 2 + 2);
  HY_MALLOC(s->sts, ctx->size * 2 + 2);
  v_create(s, db);
  v_create(s, dx);
  HY_LOCAL(be->ops->h2d(be, *db, b, s->nloc * sizeof(double)));
  HY_LOCAL(be->ops->h2d(be, *dx, x, s->nloc * sizeof(double)));
  if (opt->ilu) HY_CALL(solve_ilu(s, a, info));
  hy_phase_end(ctx, "solve setup");
  return HY_OK;
}

/* The persistent kernel's phase timing (solver.phase_times) into info; the buffer freed.
 * Local (one rank). */
static void solve_phase_times(solve_ctx *s, spai_solve_info *info) {
  int64_t h[K_PH_SLOTS];
  HY_LOCAL(s->be->ops->d2h(s->be, h, s->d_times, sizeof h));
  for (int i = 0; i < K_PH_N; i++) {
    info->phase_ticks[i] = (double)h[i];
    info->phase_ns[i] = (double)h[K_PH_N + i];
  }
  info->phase_iters = h[2 * K_PH_N];
  info->phase_timed = 1;
  s->be->ops->free(s->be, s->d_times);
  s->d_times = NULL;
}

/* BiCGSTAB from x (the progress toward tol, the monitor), timed on the slowest rank.
 * Collective. */
static int solve_iterate(solve_ctx *s, const spai_solve_opts *opt, double *db, double *dx,
                         spai_solve_info *info, int quiet) {
  hy_ctx *ctx = s->ctx;
  krylov_ops ko = { .ctx = s, .n = s->nloc, .vec_create = v_create, .vec_free = v_free,
                    .vec_copy = v_copy, .matvec = v_matvec,
                    .precond = opt->use_m ? v_precond : opt->ilu ? v_ilu : NULL,
                    .axpbypcz = v_axpbypcz,
                    .dots = v_dots, .monitor = v_monitor,
                    .axpbypcz_dots = s->vec.ops->axpbypcz_dots ? v_axpbypcz_dots : NULL };
  solve_device_loop(s, opt, &ko, info);
  krylov_params par = { .tol = opt->tol, .max_iter = opt->max_iter,
                        .device_loop = info->device_loop, .check_every = opt->check_every,
                        .merged = opt->merge_reductions };
  s->merged = opt->merge_reductions;
  solve_format(s, opt, info);
  krylov_result kr;
  krylov_bcgs_ws ws;             /* the work vectors made before the timer (PETSc's KSPSetUp) */
  double ta = hy_wtime();
  HY_CALL(krylov_bicgstab_ws_create(&ko, &par, &ws));
  HY_LOCAL(s->be->ops->sync(s->be));
  info->ws_s = hy_wtime() - ta;
  par.ws = &ws;
  hy_progress pg;
  s->log_tol = -log10(opt->tol);
  s->monitor = opt->monitor && !quiet;
  if (!quiet) {
    hy_progress_begin(&pg, ctx, "bicgstab (log10 of the residual, toward tol)", s->log_tol);
    s->pg = &pg;
  }
  HY_MPI(MPI_Barrier(ctx->comm));
  if (!quiet) hy_phase_begin(ctx, "bicgstab");
  double t0 = hy_wtime();
  HY_CALL(krylov_bicgstab(&ko, &par, db, dx, &kr));
  HY_LOCAL(s->be->ops->sync(s->be));
  double t = hy_wtime() - t0;
  if (!quiet) {
    hy_phase_end(ctx, "bicgstab");
    s->pg = NULL;
    hy_progress_end(&pg);
  }
  HY_MPI(MPI_Allreduce(&t, &info->seconds, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_CALL(krylov_bicgstab_ws_free(&ko, &ws));
  if (info->fmt_made) HY_LOCAL(s->vec.ops->bcgs_release(&s->vec));
  if (s->d_times) solve_phase_times(s, info);
  info->status = kr.status;
  info->iterations = kr.iterations;
  info->relres = kr.relres;
  snprintf(info->breakdown, sizeof info->breakdown, "%s", kr.breakdown);
  return HY_OK;
}

/* ||b - A x|| / ||b|| recomputed (x first perturbed by [debug] perturb: x_i *= 1 + p (-1)^i of
 * the global index), x back to the host.  Collective. */
static int solve_true_residual(solve_ctx *s, const la_part *pr, const spai_solve_opts *opt,
                               double *db, double *dx, double *x, double **dt, double **dr,
                               spai_solve_info *info) {
  hy_ctx *ctx = s->ctx;
  k_backend *be = s->be;
  hy_phase_begin(ctx, "true residual");
  if (opt->perturb != 0) {
    HY_LOCAL(be->ops->d2h(be, x, dx, s->nloc * sizeof(double)));
    int64_t r0 = pr->start[ctx->rank];
    for (int64_t i = 0; i < s->nloc; i++) x[i] *= 1.0 + (((r0 + i) & 1) ? -opt->perturb : opt->perturb);
    HY_LOCAL(be->ops->h2d(be, dx, x, s->nloc * sizeof(double)));
  }
  v_create(s, dr);
  v_create(s, dt);
  v_copy(s, dx, *dt);
  HY_CALL(v_matvec(s, *dt, *dr));
  v_axpbypcz(s, 1.0, db, -1.0, *dr, 0.0, *dr);
  double nn[2] = { 0, 0 };
  const double *xa[2] = { *dr, db }, *ya[2] = { *dr, db };
  HY_CALL(v_dots(s, 2, xa, ya, nn));
  HY_LOCAL(be->ops->d2h(be, x, dx, s->nloc * sizeof(double)));
  hy_phase_end(ctx, "true residual");
  info->true_relres = sqrt(nn[0]) / (nn[1] > 0 ? sqrt(nn[1]) : 1.0);
  return HY_OK;
}

/* Seconds of one y = mat x, the mean of 20 after a first one: the library's SpMV (tpr < 0) or
 * ours with tpr threads per row (0: its choice).  Local. */
static double spmv_time(solve_ctx *s, void *mat, int tpr, double *dt, double *dr) {
  k_backend *be = s->be;
  const int reps = 20;
  double t1 = 0;
  for (int r = -1; r < reps; r++) {
    if (r == 0) {
      HY_LOCAL(be->ops->sync(be));
      t1 = hy_wtime();
    }
    if (tpr < 0) HY_LOCAL(s->ko->mat_spmv(be, mat, dt, dr));
    else HY_LOCAL(s->ko->mat_spmv_own(be, mat, tpr, dt, dr));
  }
  HY_LOCAL(be->ops->sync(be));
  return (hy_wtime() - t1) / reps;
}

/* The SpMVs alone, for the floor comparison: the backend library's (cuSPARSE on CUDA) and, where
 * the table has one, ours (its own choice, and for A every threads-per-row count), 20 products
 * each of A and of M, slowest rank.  Collective. */
static int solve_spmv_alone(solve_ctx *s, const hy_csr *a, const spai_m *m, double *dt,
                            double *dr, spai_solve_info *info) {
  int own = s->ko->mat_spmv_own != NULL;
  for (int w = 0; w < 2; w++) {
    void *mat = w == 0 ? s->amat : s->mmat;
    if (!mat) continue;
    /* library, ours, then (A) ours with 1, 2, .. 32 threads per row */
    double t[8] = { 0 }, tm[8] = { 0 };
    int nt = w == 0 && own ? 8 : own ? 2 : 1;
    for (int k = 0; k < nt; k++) t[k] = spmv_time(s, mat, k == 0 ? -1 : k == 1 ? 0 : 1 << (k - 2), dt, dr);
    double by = w == 0 ? spmv_bytes(a) : spmv_bytes_n(m->nnz, m->rows), bm = 0;
    HY_MPI(MPI_Allreduce(t, tm, 8, MPI_DOUBLE, MPI_MAX, s->ctx->comm));
    HY_MPI(MPI_Allreduce(&by, &bm, 1, MPI_DOUBLE, MPI_MAX, s->ctx->comm));
    if (w == 0) {
      info->spmv_a_s = tm[0];
      info->own_a_s = tm[1];
      info->spmv_a_bytes = bm;
      for (int k = 0; k < 6; k++) info->own_tpr_a_s[k] = tm[2 + k];
    } else {
      info->spmv_m_s = tm[0];
      info->own_m_s = tm[1];
      info->spmv_m_bytes = bm;
    }
  }
  return HY_OK;
}

/* Release the solver's device data.  Local. */
static void solve_free(solve_ctx *s, double **vecs, int nv) {
  k_backend *be = s->be;
  for (int i = 0; i < nv; i++)
    if (vecs[i]) v_free(s, vecs[i]);
  s->ko->mat_free(be, s->amat);
  if (s->mmat && !s->mmat_lent) s->ko->mat_free(be, s->mmat);
  if (s->ilu) s->ko->ilu_free(be, s->ilu);
  io_csr_free(&s->blk);
  be->ops->free(be, s->d_sidx_a);
  be->ops->free(be, s->d_sidx_m);
  be->ops->free(be, s->d_sbuf);
  be->ops->free_pinned(be, s->h_sbuf);
  be->ops->free_pinned(be, s->h_rbuf);
  k_vec_close(&s->vec);
  free(s->req);
  free(s->sts);
  la_halo_free(&s->ha);
  la_halo_free(&s->hm);
}

/* The bytes per iteration in the solve format that info's run used (info->bytes_fmt; 0 without
 * one): the FP64 / 32-bit count less the columns' and M's values' bytes saved.  Local. */
static void solve_bytes_fmt(const solve_ctx *s, const spai_solve_opts *opt, const hy_csr *a,
                            const spai_m *m, spai_solve_info *info) {
  if (!info->fmt_made) return;
  if (info->fmt.dia_used) {                /* by diagonals: every stored value, no columns */
    double n = (double)s->nloc, vm = s->vm.valf ? 4.0 : 8.0;
    info->bytes_fmt = info->bytes_per_iter - 2 * (12.0 * (double)a->nnz + 4.0 * (n + 1)) +
                      2 * 8.0 * info->fmt.dia_a * n;
    if (opt->use_m)
      info->bytes_fmt += -2 * (12.0 * (double)m->nnz + 4.0 * (n + 1)) + 2 * vm * info->fmt.dia_m * n;
    return;
  }
  double cb = info->fmt.index16_used ? 2.0 : 4.0;
  double vm = s->vm.valf ? 4.0 : 8.0;
  info->bytes_fmt = info->bytes_per_iter - 2 * (4.0 - cb) * (double)a->nnz -
                    (opt->use_m ? 2 * ((4.0 - cb) + (8.0 - vm)) * (double)m->nnz : 0.0);
}

const char spai_variant_tokens[] = "i32|i16|double|single|l2auto|l2none|l2a|l2m|l2all|l2stream|l2fit|"
                                   "l2whole|pf|nopf|sell|nosell|dia|nodia|u1|u4|u8|b2|b3|t1|t2|t4|t8|t16|t32|tauto|"
                                   "times|persistent|fused|graph|c<N> (check_every N, 1..9999999)|"
                                   "l2mb<N> (l2_window_mb N, 1..99999)";

/* solver.variants (spai.h).  Local. */
const char *spai_variant_apply(const char *spec, size_t len, spai_solve_opts *o, char *err) {
  size_t i = 0;
  int ntok = 0;
  while (i < len) {
    while (i < len && (spec[i] == ' ' || spec[i] == '\t')) i++;
    size_t j = i;
    while (j < len && spec[j] != '+' && spec[j] != ' ' && spec[j] != '\t') j++;
    char t[16];
    size_t tl = j - i;
    if (tl == 0 || tl >= sizeof t) {
      snprintf(err, 320, "an empty or overlong token; allowed tokens (joined by '+'): %s",
               spai_variant_tokens);
      return err;
    }
    memcpy(t, spec + i, tl);
    t[tl] = 0;
    ntok++;
    if (!strcmp(t, "i32")) o->index16 = 0;
    else if (!strcmp(t, "i16")) o->index16 = 1;
    else if (!strcmp(t, "double")) o->precond_single = 0;
    else if (!strcmp(t, "single")) o->precond_single = 1;
    else if (!strcmp(t, "l2auto")) o->l2_window = SPAI_L2_AUTO;
    else if (!strcmp(t, "l2none")) o->l2_window = K_L2_NONE;
    else if (!strcmp(t, "l2a")) o->l2_window = K_L2_A;
    else if (!strcmp(t, "l2m")) o->l2_window = K_L2_M;
    else if (!strcmp(t, "l2all")) o->l2_window = K_L2_ALL;
    else if (!strcmp(t, "l2stream")) o->l2_window = K_L2_STREAM;
    else if (!strcmp(t, "l2fit")) o->l2_window_mb = -1;
    else if (!strcmp(t, "l2whole")) o->l2_window_mb = 0;
    else if (!strcmp(t, "sell")) o->persistent_sell = 1;
    else if (!strcmp(t, "nosell")) o->persistent_sell = 0;
    else if (!strcmp(t, "dia")) o->persistent_dia = 1;
    else if (!strcmp(t, "nodia")) o->persistent_dia = 0;
    else if (!strcmp(t, "pf")) o->persistent_prefetch = 1;
    else if (!strcmp(t, "nopf")) o->persistent_prefetch = 0;
    else if (!strcmp(t, "u1") || !strcmp(t, "u4") || !strcmp(t, "u8")) {
      o->persistent_unroll = t[1] - '0';
      o->persistent_blocks = 0;            /* as auto: resolved at the solve */
    } else if (!strcmp(t, "b2") || !strcmp(t, "b3")) o->persistent_blocks = t[1] - '0';
    else if (!strcmp(t, "times")) o->phase_times = 1;
    else if (!strcmp(t, "t1") || !strcmp(t, "t2") || !strcmp(t, "t4") || !strcmp(t, "t8") ||
             !strcmp(t, "t16") || !strcmp(t, "t32") || !strcmp(t, "tauto"))
      o->persistent_tpr = t[1] == 'a' ? 0 : (int)strtol(t + 1, NULL, 10);
    else if (!strcmp(t, "persistent")) o->device_kernel = 2;
    else if (!strcmp(t, "fused")) o->device_kernel = 3;
    else if (!strcmp(t, "graph")) o->device_kernel = 1;
    else if (t[0] == 'c' && t[1] >= '1' && t[1] <= '9' && strspn(t + 1, "0123456789") == tl - 1 &&
             tl <= 8)
      o->check_every = (int)strtol(t + 1, NULL, 10);
    else if (!strncmp(t, "l2mb", 4) && t[4] >= '1' && t[4] <= '9' &&
             strspn(t + 4, "0123456789") == tl - 4 && tl <= 9)
      o->l2_window_mb = (double)strtol(t + 4, NULL, 10);
    else {
      snprintf(err, 320, "unknown token '%s'; allowed (joined by '+'): %s", t,
               spai_variant_tokens);
      return err;
    }
    while (j < len && (spec[j] == ' ' || spec[j] == '\t')) j++;
    if (j < len && spec[j] != '+') {
      snprintf(err, 320, "tokens must be joined by '+' (allowed: %s)", spai_variant_tokens);
      return err;
    }
    i = j + 1;
  }
  if (!ntok) {
    snprintf(err, 320, "empty; allowed tokens (joined by '+'): %s", spai_variant_tokens);
    return err;
  }
  if (o->persistent_prefetch && (o->persistent_unroll <= 1 || o->persistent_rows == 2 ||
                                 o->merge_reductions))
    return "pf needs unroll 4 or 8 (u4 / u8), persistent_rows = 1 and merge_reductions = false";
  if (o->persistent_sell && (o->persistent_prefetch || o->persistent_rows == 2 ||
                             o->merge_reductions || o->persistent_split))
    return "sell: not with pf, persistent_rows = 2, merge_reductions or persistent_split";
  if (o->persistent_dia == 1 && (o->persistent_prefetch || o->persistent_rows == 2 ||
                                 o->merge_reductions || o->persistent_split || o->persistent_sell))
    return "dia: not with pf, sell, persistent_rows = 2, merge_reductions or persistent_split";
  int blocks = o->persistent_blocks ? o->persistent_blocks
                                    : spai_persist_blocks_auto(o->persistent_unroll);
  if (o->persistent_rows == 2 && (o->persistent_unroll <= 1 || blocks == 3))
    return "persistent_rows = 2 needs unroll 4 or 8 at 2 blocks (u4+b2 / u8)";
  return NULL;
}

/* solver.variants_base before the variant (spai.h).  Local. */
const char *spai_variant_with_base(const char *base, const char *spec, size_t len,
                                   spai_solve_opts *o, char *err) {
  char buf[2100];                     /* (two values of at most 1023 characters) */
  size_t bl = base ? strlen(base) : 0;
  if (bl + len + 2 > sizeof buf) {
    snprintf(err, 320, "the variant and solver.variants_base together are too long");
    return err;
  }
  if (bl) memcpy(buf, base, bl);
  if (bl) buf[bl++] = '+';
  memcpy(buf + bl, spec, len);
  return spai_variant_apply(buf, bl + len, o, err);
}

/* The bytes per iteration, us per iteration and ratio text of a run.  Local. */
static int variant_text(char *buf, size_t len, const spai_solve_info *v) {
  double per = v->iterations ? v->seconds / v->iterations : 0, fl = v->bytes_per_iter / 4.25e12;
  int n = snprintf(buf, len, "%d iterations, %.2f us per iteration, ratio %.2f", v->iterations,
                   per * 1e6, fl > 0 ? per / fl : 0);
  if (v->bytes_fmt > 0)
    n += snprintf(buf + n, len - (size_t)n, " (format %.1f MB: ratio %.2f)", v->bytes_fmt / 1e6,
                  per / (v->bytes_fmt / 4.25e12));
  if (v->fmt_made && v->fmt.l2 != K_L2_NONE)
    n += snprintf(buf + n, len - (size_t)n, ", L2 window %.1f MB hit %.2f", v->fmt.l2_window / 1e6,
                  v->fmt.l2_hit);
  if (v->fmt_why[0]) n += snprintf(buf + n, len - (size_t)n, ", format not made: %s", v->fmt_why);
  if (v->phase_timed && v->phase_iters > 0) {
    static const char *nm[K_PH_N] = { "p", "M p", "A ph", "alpha", "s", "M s", "A s", "omega",
                                      "x r", "rho" };
    double ticks = 0, ns = 0;
    for (int i = 0; i < K_PH_N; i++) {
      ticks += v->phase_ticks[i];
      ns += v->phase_ns[i];
    }
    double pi = ns / 1e3 / (double)v->phase_iters;
    n += snprintf(buf + n, len - (size_t)n, "; phases (us):");
    for (int i = 0; i < K_PH_N; i++)
      if (v->phase_ticks[i] > 0)
        n += snprintf(buf + n, len - (size_t)n, " %s %.2f", nm[i], v->phase_ticks[i] / ticks * pi);
  }
  return n;
}

/* solver.variants: the solve again from x = 0 for each variant of the list (one rank, the device
 * loop), twice each, the faster kept; a line each with its figures beside the run's (info) and
 * its x against the run's (x0: the run's x on the host).  Local (one rank). */
static int solve_variants(solve_ctx *s, const spai_solve_opts *opt, const hy_csr *a,
                          const spai_m *m, double *db, double *dx, const double *x0,
                          const spai_solve_info *info) {
  hy_ctx *ctx = s->ctx;
  if (ctx->size > 1 || !info->device_loop) {
    hy_printf0(ctx, "bicgstab variants (solver.variants): not run: %s\n", ctx->size > 1
               ? "one rank only" : "the run's solve is not the device loop");
    return HY_OK;
  }
  char line[1024];
  variant_text(line, sizeof line, info);
  const char *base = opt->variants_base ? opt->variants_base : "";
  hy_printf0(ctx, "bicgstab variants (solver.variants, the faster of 2 runs each, ratio against "
             "the FP64 / 32-bit floor%s%s): the run's: %s\n", base[0] ? "; each after " : "", base,
             line);
  double *xv = NULL;
  HY_MALLOC(xv, s->nloc + 1);
  double xmax = 0;
  for (int64_t i = 0; i < s->nloc; i++) xmax = fmax(xmax, fabs(x0[i]));
  const char *lists[2] = { opt->variants ? opt->variants : "",
                           opt->variants_more ? opt->variants_more : "" };
  for (int li = 0; li < 2; li++)
  for (const char *v = lists[li]; *v;) {
    const char *e = strchr(v, ',');
    size_t len = e ? (size_t)(e - v) : strlen(v);
    spai_solve_opts vo = *opt;
    char err[320];
    const char *bad = spai_variant_with_base(opt->variants_base, v, len, &vo, err);
    if (bad) {   /* (the configuration check has refused these already) */
      free(xv);
      return hy_err(HY_EUSAGE, "solver.variants: variant '%.*s': %s", (int)len, v, bad);
    }
    spai_solve_info best;
    memset(&best, 0, sizeof best);
    for (int rep = 0; rep < 2; rep++) {
      spai_solve_info vi;
      memset(&vi, 0, sizeof vi);
      vi.bytes_per_iter = info->bytes_per_iter;
      HY_LOCAL(s->be->ops->memset0(s->be, dx, (size_t)s->nloc * sizeof(double)));
      HY_CALL(solve_iterate(s, &vo, db, dx, &vi, 1));
      solve_bytes_fmt(s, &vo, a, m, &vi);
      double pv = vi.iterations ? vi.seconds / vi.iterations : 0;
      double pb = best.iterations ? best.seconds / best.iterations : 0;
      if (rep == 0 || pv < pb) best = vi;
    }
    HY_LOCAL(s->be->ops->d2h(s->be, xv, dx, (size_t)s->nloc * sizeof(double)));
    double dmax = 0;
    for (int64_t i = 0; i < s->nloc; i++) dmax = fmax(dmax, fabs(xv[i] - x0[i]));
    variant_text(line, sizeof line, &best);
    char xs[96];
    if (dmax == 0) snprintf(xs, sizeof xs, "x bit for bit the run's");
    else snprintf(xs, sizeof xs, "x within %.2e of max |x| of the run's", xmax > 0 ? dmax / xmax : dmax);
    const char *nm = v;                    /* the name without the blanks around it */
    size_t nl = len;
    while (nl && (*nm == ' ' || *nm == '\t')) nm++, nl--;
    while (nl && (nm[nl - 1] == ' ' || nm[nl - 1] == '\t')) nl--;
    hy_printf0(ctx, "bicgstab variant %.*s: %s; %s%s\n", (int)nl, nm, line, xs,
               best.status == info->status ? "" : " (another status than the run's)");
    v += len + (e ? 1 : 0);
  }
  free(xv);
  return HY_OK;
}

/* The solve: setup -> iterate -> true residual -> SpMV alone.  Collective. */
int spai_solve(hy_ctx *ctx, const la_part *pr, hy_csr *a, spai_m *m, const double *b,
               double *x, const spai_solve_opts *opt, spai_solve_info *info) {
  memset(info, 0, sizeof *info);
  solve_ctx s;
  memset(&s, 0, sizeof s);
  s.ctx = ctx;
  s.be = &ctx->be;
  s.ko = k_spai_ops_get(s.be);
  s.own = opt->spmv_own && s.ko->mat_spmv_own;
  info->spmv_own = s.own;
  double *db = NULL, *dx = NULL, *dr = NULL, *dt = NULL;
  HY_CALL(solve_setup(&s, pr, a, m, b, x, opt, &db, &dx, info));
  /* vectors read or written per iteration: 20, or 19 when the update of r and its dots share
   * a pass (r is not read back) */
  double nvec = s.vec.ops->axpbypcz_dots ? 19.0 : 20.0;
  /* (no preconditioner: BiCGSTAB takes phat = p, shat = s, no copies) */
  double bytes = 2 * spmv_bytes(a) + (opt->use_m ? 2 * spmv_bytes_n(m->nnz, m->rows) :
                                       opt->ilu ? 2 * spmv_bytes(&s.blk) : 0.0) +
                 nvec * 8.0 * (double)s.nloc;
  HY_MPI(MPI_Allreduce(&bytes, &info->bytes_per_iter, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
  HY_CALL(solve_iterate(&s, opt, db, dx, info, 0));
  solve_bytes_fmt(&s, opt, a, m, info);
  HY_CALL(solve_true_residual(&s, pr, opt, db, dx, x, &dt, &dr, info));
  if ((opt->variants && opt->variants[0]) || (opt->variants_more && opt->variants_more[0]))
    HY_CALL(solve_variants(&s, opt, a, m, db, dx, x, info));
  HY_CALL(solve_spmv_alone(&s, a, m, dt, dr, info));
  double *vecs[] = { dr, dt, db, dx };
  solve_free(&s, vecs, 4);
  return HY_OK;
}
