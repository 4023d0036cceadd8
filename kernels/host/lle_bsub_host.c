/* lle_bsub_host.c - the host backend's engine for the subspace iteration's block work
 * (k_lle_bsub, lle.iter_block = backend; auto keeps the driver's threaded loop on the host):
 * the same steps as the CUDA engine, sequential, in C + LAPACK: the projection of the constant
 * vector, dgeqrf + dorgqr, MV = B^T (B V) by rows of B's CSR, H = V^T MV and V Y, MV Y by
 * dgemm, the residual norms; the start block's QR and the final residuals.  It exercises the driver's engine loop on machines without a GPU.
 * No file-scope state. */
#include "k_lle.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
                   const int *ldc, size_t, size_t);
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work, const int *lwork,
                    int *info);
extern void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau, double *work,
                    const int *lwork, int *info);

/* The engine's state: B (the caller's arrays), the blocks. */
struct k_lle_bsub {
  k_lle_bsub_in b;
  double *v, *mv, *t, *tau, *work;
  double *hb;             /* the host block offered for V (bsub_host_block: the driver's swap tested here) */
  int lwork;
  double bytes;
};

/* The k_lle_eig_ops entry bsub_open.  Local. */
static int hb_open(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **wp) {
  (void)be;
  k_lle_bsub *w = NULL;
  HY_CALLOC(w, 1);
  w->b = *in;
  size_t np = (size_t)in->n * in->p;
  HY_MALLOC(w->v, np); HY_MALLOC(w->mv, np); HY_MALLOC(w->t, np); HY_MALLOC(w->tau, in->p); HY_MALLOC(w->hb, np);
  int nn = (int)in->n, p = in->p, lw = -1, info = 0;
  double q1 = 0, q2 = 0;
  dgeqrf_(&nn, &p, w->v, &nn, w->tau, &q1, &lw, &info);
  dorgqr_(&nn, &p, &p, w->v, &nn, w->tau, &q2, &lw, &info);
  w->lwork = (int)(q1 > q2 ? q1 : q2) + 1;
  HY_MALLOC(w->work, w->lwork);
  *wp = w;
  return HY_OK;
}

/* y = B^T (B x) for one column x, t = B x, by rows of B's CSR.  Local. */
static void hb_btb(const k_lle_bsub_in *b, const double *x, double *t, double *y) {
  for (int64_t r = 0; r < b->n; r++) {
    double s = 0;
    for (int64_t q = b->bp[r]; q < b->bp[r + 1]; q++) s += b->bx[q] * x[b->bi[q]];
    t[r] = s;
  }
  memset(y, 0, (size_t)b->n * sizeof *y);
  for (int64_t r = 0; r < b->n; r++)
    for (int64_t q = b->bp[r]; q < b->bp[r + 1]; q++) y[b->bi[q]] += b->bx[q] * t[r];
}

/* The k_lle_eig_ops entry bsub_rr.  Local. */
static int hb_rr(k_lle_bsub *w, const double *v, double *h) {
  const k_lle_bsub_in *b = &w->b;
  int64_t n = b->n;
  int p = b->p, nn = (int)n, info = 0;
  memcpy(w->v, v, (size_t)n * p * sizeof *v);
  for (int c = 0; c < p; c++) {   /* V - e e^T V */
    double *vc = w->v + (size_t)c * n, s = 0;
    for (int64_t i = 0; i < n; i++) s += vc[i];
    s /= (double)n;
    for (int64_t i = 0; i < n; i++) vc[i] -= s;
  }
  dgeqrf_(&nn, &p, w->v, &nn, w->tau, w->work, &w->lwork, &info);
  if (info == 0) dorgqr_(&nn, &p, &p, w->v, &nn, w->tau, w->work, &w->lwork, &info);
  if (info) return hy_err(HY_ENUMERIC, "QR of the subspace block failed (LAPACK info %d)", info);
  for (int c = 0; c < p; c++)   /* T = B V, MV = B^T T */
    hb_btb(b, w->v + (size_t)c * n, w->t + (size_t)c * n, w->mv + (size_t)c * n);
  const double one = 1, zero = 0;
  dgemm_("T", "N", &p, &p, &nn, &one, w->v, &nn, w->mv, &nn, &zero, h, &p, 1, 1);
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_rotate.  Local. */
static int hb_rotate(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res, double *v) {
  int64_t n = w->b.n;
  int p = w->b.p, nn = (int)n;
  size_t np = (size_t)n * p;
  const double one = 1, zero = 0;
  dgemm_("N", "N", &nn, &p, &p, &one, w->v, &nn, y, &p, &zero, w->t, &nn, 1, 1);
  memcpy(w->v, w->t, np * sizeof *w->t);
  dgemm_("N", "N", &nn, &p, &p, &one, w->mv, &nn, y, &p, &zero, w->t, &nn, 1, 1);
  memcpy(w->mv, w->t, np * sizeof *w->t);
  for (int j = 0; j < nres && j < p; j++) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
      double d = w->mv[(size_t)j * n + i] - theta[j] * w->v[(size_t)j * n + i];
      s += d * d;
    }
    res[j] = sqrt(s);
  }
  memcpy(v, w->v, np * sizeof *v);
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_orth: v's Householder QR in place (dgeqrf + dorgqr).  Local. */
static int hb_orth(k_lle_bsub *w, double *v) {
  int nn = (int)w->b.n, p = w->b.p, info = 0;
  dgeqrf_(&nn, &p, v, &nn, w->tau, w->work, &w->lwork, &info);
  if (info == 0) dorgqr_(&nn, &p, &p, v, &nn, w->tau, w->work, &w->lwork, &info);
  if (info) return hy_err(HY_ENUMERIC, "QR of the start block failed (LAPACK info %d)", info);
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_resid: ||B^T (B x_j) - val_j x_j|| by rows of B's CSR.  Local. */
static int hb_resid(k_lle_bsub *w, const double *x, int nc, const double *val, double *res) {
  const k_lle_bsub_in *b = &w->b;
  int64_t n = b->n;
  if (nc > b->p) return hy_err(HY_ESYS, "the engine's residuals: %d columns, its blocks %d", nc, b->p);
  for (int c = 0; c < nc; c++) {
    const double *xc = x + (size_t)c * n;
    double *mc = w->mv + (size_t)c * n, s = 0;
    hb_btb(b, xc, w->t + (size_t)c * n, mc);
    for (int64_t i = 0; i < n; i++) { double d = mc[i] - val[c] * xc[i]; s += d * d; }
    res[c] = sqrt(s);
  }
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_close.  Local. */
static void hb_close(k_lle_bsub *w, double *bytes) {
  if (bytes) *bytes = w ? w->bytes : 0;
  if (!w) return;
  free(w->v); free(w->mv); free(w->t); free(w->tau); free(w->work); free(w->hb);
  free(w);
}

/* The entries for the host eigen-solve table (lle_eig_host.c).  Local. */
double *k_lle_bsub_host_block_host(k_lle_bsub *w) { return w ? w->hb : NULL; }
int k_lle_bsub_open_host(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **w) { return hb_open(be, in, w); }
int k_lle_bsub_rr_host(k_lle_bsub *w, const double *v, double *h) { return hb_rr(w, v, h); }
int k_lle_bsub_rotate_host(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res, double *v) {
  return hb_rotate(w, y, theta, nres, res, v);
}
void k_lle_bsub_close_host(k_lle_bsub *w, double *bytes) { hb_close(w, bytes); }
int k_lle_bsub_orth_host(k_lle_bsub *w, double *v) { return hb_orth(w, v); }
int k_lle_bsub_resid_host(k_lle_bsub *w, const double *x, int nc, const double *val, double *res) {
  return hb_resid(w, x, nc, val, res);
}
