/* vec_host.c - the vector operations of k_vec.h on the host (plain C loops, no scratch).
 * Dot products sum blocks of VEC_CHUNK terms in order, then the block sums in order; the fused
 * update + dots keeps that order, so it gives the separate calls' values bit for bit. */
#include "k_vec.h"
#include "hybrid.h"
#include "k_vec_bcgs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VEC_CHUNK 1024

/* bcgs_prepare's solve copy on the host: M's values in FP32, A's and M's 16-bit column offsets
 * (what was asked and fits; the FP64 values and 32-bit columns stay the matrices' own). */
typedef struct {
  float *mf;
  int16_t *a16, *m16;
} h_prep;

/* Nothing to allocate on the host (v->impl: bcgs_prepare's copy).  Local. */
static int h_open(k_vec *v) {
  v->impl = NULL;
  return HY_OK;
}
/* bcgs_release: free the solve copy.  Local. */
static int h_bcgs_release(k_vec *v) {
  h_prep *p = v->impl;
  if (!p) return HY_OK;
  free(p->mf);
  free(p->a16);
  free(p->m16);
  free(p);
  v->impl = NULL;
  return HY_OK;
}
/* Close: the solve copy freed.  Local. */
static int h_close(k_vec *v) { return h_bcgs_release(v); }

/* buf[i] = x[idx[i]].  Local. */
static int h_gather(k_vec *v, int64_t n, const int32_t *idx, const double *x, double *buf) {
  (void)v;
  for (int64_t i = 0; i < n; i++) buf[i] = x[idx[i]];
  return HY_OK;
}

/* z[i0..i1) = a x + b y + c z (c == 0: z not read).  Local. */
static void h_upd_range(int64_t i0, int64_t i1, double a, const double *x, double b,
                        const double *y, double c, double *z) {
  if (c == 0) {
    for (int64_t i = i0; i < i1; i++) z[i] = a * x[i] + b * y[i];
  } else {
    for (int64_t i = i0; i < i1; i++) z[i] = a * x[i] + b * y[i] + c * z[i];
  }
}

/* z = a x + b y + c z.  Local. */
static int h_axpbypcz(k_vec *v, int64_t n, double a, const double *x, double b, const double *y,
                      double c, double *z) {
  (void)v;
  h_upd_range(0, n, a, x, b, y, c, z);
  return HY_OK;
}

/* Local dots of up to K_VEC_MAXDOTS pairs, by chunks in order.  Local. */
static int h_dots(k_vec *v, int64_t n, int npair, const double *const *x,
                  const double *const *y, double *out) {
  (void)v;
  if (npair < 1 || npair > K_VEC_MAXDOTS)
    return hy_err(HY_ESYS, "vec host: %d dot products in one pass (1..%d)", npair, K_VEC_MAXDOTS);
  for (int p = 0; p < npair; p++) {
    double s = 0;
    for (int64_t i = 0; i < n; i += VEC_CHUNK) {
      double b = 0;
      int64_t e = i + VEC_CHUNK < n ? i + VEC_CHUNK : n;
      for (int64_t j = i; j < e; j++) b += x[p][j] * y[p][j];
      s += b;
    }
    out[p] = s;
  }
  return HY_OK;
}

/* z = a x + b y + c z and the dots of the updated vectors, one pass by chunks (a chunk of z is
 * updated, then its terms summed while in cache), every sum in h_dots' order.  Local. */
static int h_axpbypcz_dots(k_vec *v, int64_t n, double a, const double *x, double b,
                           const double *y, double c, double *z, int npair,
                           const double *const *dx, const double *const *dy, double *out) {
  (void)v;
  if (npair < 1 || npair > K_VEC_MAXDOTS)
    return hy_err(HY_ESYS, "vec host: %d dot products in one pass (1..%d)", npair, K_VEC_MAXDOTS);
  double s[K_VEC_MAXDOTS] = { 0 };
  for (int64_t i = 0; i < n; i += VEC_CHUNK) {
    int64_t e = i + VEC_CHUNK < n ? i + VEC_CHUNK : n;
    h_upd_range(i, e, a, x, b, y, c, z);
    for (int p = 0; p < npair; p++) {
      double bs = 0;
      for (int64_t j = i; j < e; j++) bs += dx[p][j] * dy[p][j];
      s[p] += bs;
    }
  }
  for (int p = 0; p < npair; p++) out[p] = s[p];
  return HY_OK;
}

/* The scalar-block forms (k_vec.h): the same loops, the scalars read from sc, nothing while
 * sc[gate] == 0.  They let the device loop of BiCGSTAB run (and be tested) on the host; the
 * results are those of the host loop bit for bit.  Local. */
static int h_axpbypcz_s(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                        const double *x, const double *y, double *z, int step, double tol) {
  if (step >= 0) k_bcgs_step(sc, step, tol);
  if (sc[gate] == 0) return HY_OK;
  return h_axpbypcz(v, n, sc[ia], x, sc[ib], y, sc[ic], z);
}
static int h_dots_s(k_vec *v, int64_t n, int npair, const double *const *x,
                    const double *const *y, double *sc, int slot, int gate, int step, double tol) {
  int rc = sc[gate] == 0 ? HY_OK : h_dots(v, n, npair, x, y, sc + slot);
  if (rc == HY_OK && step >= 0) k_bcgs_step(sc, step, tol);   /* whatever the gate */
  return rc;
}
static int h_axpbypcz_dots_s(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                             const double *x, const double *y, double *z, int npair,
                             const double *const *dx, const double *const *dy, int slot, int step,
                             double tol) {
  int rc = sc[gate] == 0 ? HY_OK
                         : h_axpbypcz_dots(v, n, sc[ia], x, sc[ib], y, sc[ic], z, npair, dx, dy,
                                           sc + slot);
  if (rc == HY_OK && step >= 0) k_bcgs_step(sc, step, tol);   /* whatever the gate */
  return rc;
}
static int h_bcgs_step(k_vec *v, double *sc, int step, double tol) {
  (void)v;
  k_bcgs_step(sc, step, tol);
  return HY_OK;
}
static int h_s_read(k_vec *v, const double *sc, double *h, int n) {
  (void)v;
  if (n < 0 || n > K_VEC_READMAX)
    return hy_err(HY_ESYS, "vec host: %d slots read at once (0..%d)", n, K_VEC_READMAX);
  memcpy(h, sc, (size_t)n * sizeof *h);
  return HY_OK;
}

/* A recorded batch on the host: the function that queues it and its argument, called again
 * at each run (the host runs work as it is queued, so recording runs nothing).  Local. */
typedef struct {
  int (*fn)(void *arg);
  void *arg;
} h_rec;
static int h_rec_create(k_vec *v, int (*fn)(void *arg), void *arg, void **rec) {
  (void)v;
  h_rec *r = malloc(sizeof *r);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  r->fn = fn;
  r->arg = arg;
  *rec = r;
  return HY_OK;
}
static int h_rec_run(k_vec *v, void *rec) {
  (void)v;
  h_rec *r = rec;
  return r->fn(r->arg);
}
static int h_rec_free(k_vec *v, void *rec) {
  (void)v;
  free(rec);
  return HY_OK;
}

/* One of the loaded vectors of a bcgs_batch product, entry j: x[j] (nv 1), a x[j] + b y[j]
 * (nv 2), and + c z[j] when c != 0 (nv 3): the expression of h_upd_range.  Local. */
static double h_in(int nv, int64_t j, double a, const double *x, double b, const double *y,
                   double c, const double *z) {
  if (nv == 1) return x[j];
  if (nv == 3 && c != 0) return a * x[j] + b * y[j] + c * z[j];
  return a * x[j] + b * y[j];
}

/* Entry e of row i of m in its solve format: the value (FP32 promoted when valf) and the column
 * (i + the 16-bit offset when col16).  Local. */
static inline double h_val(const k_csr_view *m, int64_t e) {
  return m->valf ? (double)m->valf[e] : m->val[e];
}
static inline int64_t h_col(const k_csr_view *m, int64_t i, int64_t e) {
  return m->col16 ? i + m->col16[e] : m->colind[e];
}

/* The largest |column - row| of m.  Local. */
static int64_t h_max_offset(const k_csr_view *m) {
  int64_t mx = 0;
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t e = m->rp64[i]; e < m->rp64[i + 1]; e++) {
      int64_t d = m->colind[e] > i ? m->colind[e] - i : i - m->colind[e];
      if (d > mx) mx = d;
    }
  return mx;
}

/* m's columns as 16-bit offsets column - row (every one fits).  Local. */
static int h_col16(const k_csr_view *m, int16_t **out) {
  int64_t nnz = m->rp64[m->rows];
  int16_t *o = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *o);
  if (!o) return hy_err(HY_ESYS, "out of memory (%lld 16-bit column offsets)", (long long)nnz);
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t e = m->rp64[i]; e < m->rp64[i + 1]; e++) o[e] = (int16_t)(m->colind[e] - i);
  *out = o;
  return HY_OK;
}

/* bcgs_prepare on the host: M's values rounded to FP32 (f->m_single), 16-bit column offsets of
 * A and M where all fit (f->index16), for every variant (the C phases); no L2 window.  Local. */
static int h_bcgs_prepare(k_vec *v, k_bcgs_sys *sys, k_bcgs_fmt *f) {
  k_csr_view *a = &sys->a, *m = &sys->m;
  HY_CALL(h_bcgs_release(v));
  f->why[0] = 0;
  h_prep *p = calloc(1, sizeof *p);
  if (!p) return hy_err(HY_ESYS, "out of memory");
  v->impl = p;
  f->index16_used = f->m_single_used = 0;
  f->max_offset = 0;
  f->l2_window = f->l2_setaside = f->l2_hit = 0;
  int pc = m->val != NULL;
  if (f->m_single && pc) {
    int64_t nnz = m->rp64[m->rows];
    p->mf = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *p->mf);
    if (!p->mf) return hy_err(HY_ESYS, "out of memory (%lld FP32 values of M)", (long long)nnz);
    for (int64_t e = 0; e < nnz; e++) p->mf[e] = (float)m->val[e];
    m->valf = p->mf;
    f->m_single_used = 1;
  }
  if (f->index16) {
    int64_t ma = h_max_offset(a), mm = pc ? h_max_offset(m) : 0;
    f->max_offset = ma > mm ? ma : mm;
    if (f->max_offset <= 32767) {
      HY_CALL(h_col16(a, &p->a16));
      a->col16 = p->a16;
      if (pc) {
        HY_CALL(h_col16(m, &p->m16));
        m->col16 = p->m16;
      }
      f->index16_used = 1;
    }
  }
  return HY_OK;
}

/* out = m q with q = h_in(...) formed as it is loaded (row entries in order, as the host's
 * mat_spmv; m in its solve format); w (not NULL) gets q itself (w must not be one of the loaded
 * vectors).  Local. */
static void h_spmv_in(const k_csr_view *m, int nv, double a, const double *x, double b,
                      const double *y, double c, const double *z, double *w, double *out) {
  for (int64_t i = 0; i < m->rows; i++) {
    double s = 0;
    for (int64_t e = m->rp64[i]; e < m->rp64[i + 1]; e++)
      s += h_val(m, e) * h_in(nv, h_col(m, i, e), a, x, b, y, c, z);
    out[i] = s;
    if (w) w[i] = h_in(nv, i, a, x, b, y, c, z);
  }
}

/* Phase timing of h_bcgs_batch (sys->times): the ns since the last mark added to phase ph (in
 * both the ticks and the ns slots: the host's clock is ns); *last: the last mark.  Local. */
static void h_mark(int64_t *times, int ph, int64_t *last) {
  if (!times) return;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  if (ph >= 0) {
    times[ph] += now - *last;
    times[K_PH_N + ph] += now - *last;
  }
  *last = now;
}

/* The first half of a bcgs_batch iteration (after its K_BSTEP_BETA): p (with M: p formed in the
 * load of ph = M p, written into the other p buffer), v = A ph and (rhat, v) into sc.  Local. */
static void h_batch_v(k_vec *v, const k_bcgs_sys *y, double *sc, int64_t *last) {
  int64_t n = y->n;
  double *ph = y->p;
  if (y->m.val) {
    int it = (int)sc[K_BS_IT];
    double *pold = it & 1 ? y->p : y->p2, *pnew = it & 1 ? y->p2 : y->p;
    ph = y->ph;
    if (y->split) {
      memcpy(pnew, pold, (size_t)n * sizeof *pnew);   /* pnew = r + beta (pold - omega v) */
      h_upd_range(0, n, sc[K_BS_ONE], y->r, sc[K_BS_NEG_BETA_OMEGA], y->v, sc[K_BS_BETA], pnew);
      h_mark(y->times, K_PH_P, last);
      h_spmv_in(&y->m, 1, 0, pnew, 0, NULL, 0, NULL, NULL, ph);
    } else {
      h_spmv_in(&y->m, 3, sc[K_BS_ONE], y->r, sc[K_BS_NEG_BETA_OMEGA], y->v, sc[K_BS_BETA],
                pold, pnew, ph);
    }
    h_mark(y->times, K_PH_MP, last);
  } else {
    h_upd_range(0, n, sc[K_BS_ONE], y->r, sc[K_BS_NEG_BETA_OMEGA], y->v, sc[K_BS_BETA], y->p);
    h_mark(y->times, K_PH_P, last);
  }
  h_spmv_in(&y->a, 1, 0, ph, 0, NULL, 0, NULL, NULL, y->v);
  const double *xa[1] = { y->rh }, *ya[1] = { y->v };
  h_dots(v, n, 1, xa, ya, sc + K_BS_RV);
  h_mark(y->times, K_PH_AP, last);
}

/* The second half's products (after K_BSTEP_ALPHA): s = r - alpha v formed in the load of the
 * next product (and stored; split: first), sh = M s, t = A sh (or A s).  Local. */
static void h_batch_t(const k_bcgs_sys *y, double *sc, int64_t *last) {
  int pc = y->m.val != NULL;
  if (y->split) {
    h_upd_range(0, y->n, sc[K_BS_ONE], y->r, sc[K_BS_NEG_ALPHA], y->v, 0, y->s);
    h_mark(y->times, K_PH_S, last);
    if (pc) {
      h_spmv_in(&y->m, 1, 0, y->s, 0, NULL, 0, NULL, NULL, y->sh);
      h_mark(y->times, K_PH_MS, last);
    }
    h_spmv_in(&y->a, 1, 0, pc ? y->sh : y->s, 0, NULL, 0, NULL, NULL, y->t);
  } else if (pc) {
    h_spmv_in(&y->m, 2, sc[K_BS_ONE], y->r, sc[K_BS_NEG_ALPHA], y->v, 0, NULL, y->s, y->sh);
    h_mark(y->times, K_PH_MS, last);
    h_spmv_in(&y->a, 1, 0, y->sh, 0, NULL, 0, NULL, NULL, y->t);
  } else {
    h_spmv_in(&y->a, 2, sc[K_BS_ONE], y->r, sc[K_BS_NEG_ALPHA], y->v, 0, NULL, y->s, y->t);
  }
}

/* The merged iteration's pending updates (k_vec_bcgs.h K_BS_PEND): x = alpha ph + omega_x sh + x
 * (when K_BS_RUNX) and r = s - omega t (when K_BS_RUN), then (r, r) into sc (when K_BS_RUN).
 * Local. */
static void h_pending_xr(k_vec *v, const k_bcgs_sys *y, double *sc) {
  int64_t n = y->n;
  if (sc[K_BS_RUNX] != 0)
    h_upd_range(0, n, sc[K_BS_ALPHA], y->ph, sc[K_BS_OMEGA_X], y->sh, sc[K_BS_ONE], y->x);
  if (sc[K_BS_RUN] == 0) return;
  h_upd_range(0, n, sc[K_BS_ONE], y->s, sc[K_BS_NEG_OMEGA], y->t, sc[K_BS_ZERO], y->r);
  const double *xr[1] = { y->r };
  h_dots(v, n, 1, xr, xr, sc + K_BS_RR);
}

/* bcgs_batch's merged iteration (sys->merged) on the host: the phases of the CUDA kernel in C:
 * the previous iteration's x and r (and (r, r)) before p, (rhat, v) and the previous residual's
 * test, the five dots of t and s with omega, rho and beta; at the batch's end the pending
 * updates and their test.  The host loop's merged values (bicgstab.c) bit for bit.  Local. */
static int h_bcgs_batch_m(k_vec *v, const k_bcgs_sys *y, double *sc, int niter, double tol) {
  int64_t n = y->n, last = 0;
  h_mark(y->times, -1, &last);
  for (int k = 0; k < niter; k++) {
    k_bcgs_step(sc, K_BSTEP_BETA_M, tol);
    if (sc[K_BS_RUN] == 0) break;
    if (y->times) y->times[2 * K_PH_N] += 1;
    if (sc[K_BS_PEND] != 0) h_pending_xr(v, y, sc);
    h_mark(y->times, K_PH_XR, &last);
    h_batch_v(v, y, sc, &last);
    k_bcgs_step(sc, K_BSTEP_ALPHA_M, tol);
    h_mark(y->times, K_PH_ALPHA, &last);
    if (sc[K_BS_RUN] == 0) break;
    h_batch_t(y, sc, &last);
    const double *xa[5] = { y->t, y->t, y->s, y->rh, y->rh }, *ya[5] = { y->s, y->t, y->s, y->s, y->t };
    h_dots(v, n, 3, xa, ya, sc + K_BS_TS);
    h_dots(v, n, 2, xa + 3, ya + 3, sc + K_BS_RS);
    h_mark(y->times, K_PH_AS, &last);
    k_bcgs_step(sc, K_BSTEP_OMEGA_M, tol);
    h_mark(y->times, K_PH_OMEGA, &last);
    if (sc[K_BS_RUN] == 0) break;
  }
  if (sc[K_BS_PEND] != 0) {
    h_pending_xr(v, y, sc);
    k_bcgs_step(sc, K_BSTEP_RCHECK, tol);
    sc[K_BS_PEND] = 0;
    h_mark(y->times, K_PH_XR, &last);
  }
  return HY_OK;
}

/* bcgs_batch on the host: the phases of the CUDA persistent kernel in C, one after the other
 * (the products with p and s formed in their loads, p in two buffers), every value as the host
 * loop's; with sys->times the ns of each phase added there (k_vec.h).  Local. */
static int h_bcgs_batch(k_vec *v, const k_bcgs_sys *y, double *sc, int niter, double tol) {
  int64_t n = y->n, last = 0;
  if (y->merged) return h_bcgs_batch_m(v, y, sc, niter, tol);
  h_mark(y->times, -1, &last);
  for (int k = 0; k < niter; k++) {
    k_bcgs_step(sc, K_BSTEP_BETA, tol);
    if (sc[K_BS_RUN] == 0) break;
    if (y->times) y->times[2 * K_PH_N] += 1;
    h_batch_v(v, y, sc, &last);
    k_bcgs_step(sc, K_BSTEP_ALPHA, tol);
    h_mark(y->times, K_PH_ALPHA, &last);
    if (sc[K_BS_RUN] == 0) break;
    h_batch_t(y, sc, &last);
    const double *xa3[3] = { y->t, y->t, y->s }, *ya3[3] = { y->s, y->t, y->s };
    h_dots(v, n, 3, xa3, ya3, sc + K_BS_TS);
    h_mark(y->times, K_PH_AS, &last);
    k_bcgs_step(sc, K_BSTEP_OMEGA, tol);
    h_mark(y->times, K_PH_OMEGA, &last);
    if (sc[K_BS_RUNX] != 0)
      h_upd_range(0, n, sc[K_BS_ALPHA], y->ph, sc[K_BS_OMEGA_X], y->sh, sc[K_BS_ONE], y->x);
    if (sc[K_BS_RUN] == 0) break;
    const double *xa2[2] = { y->rh, y->r }, *ya2[2] = { y->r, y->r };
    h_axpbypcz_dots(v, n, sc[K_BS_ONE], y->s, sc[K_BS_NEG_OMEGA], y->t, sc[K_BS_ZERO], y->r, 2,
                    xa2, ya2, sc + K_BS_RHO_NEW);
    h_mark(y->times, K_PH_XR, &last);
    k_bcgs_step(sc, K_BSTEP_RHO, tol);
    h_mark(y->times, K_PH_RHO, &last);
  }
  return HY_OK;
}

const k_vec_ops k_vec_host_ops = {
  .open = h_open,
  .close = h_close,
  .gather = h_gather,
  .axpbypcz = h_axpbypcz,
  .dots = h_dots,
  .axpbypcz_dots = h_axpbypcz_dots,
  .axpbypcz_s = h_axpbypcz_s,
  .dots_s = h_dots_s,
  .axpbypcz_dots_s = h_axpbypcz_dots_s,
  .bcgs_step = h_bcgs_step,
  .s_read = h_s_read,
  .rec_create = h_rec_create,
  .rec_run = h_rec_run,
  .rec_free = h_rec_free,
  .bcgs_batch = h_bcgs_batch,
  .bcgs_fused = h_bcgs_batch,
  .bcgs_prepare = h_bcgs_prepare,
  .bcgs_release = h_bcgs_release,
};
