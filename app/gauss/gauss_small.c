/* gauss_small.c - the blocked algorithm's small-n path (gauss.small): at one rank, in FP64, the
 * backend's whole-matrix LU (k_gauss_ops getrf_small: on a GPU one launch per narrow panel, or
 * with gauss.small = coop one cooperative kernel; no host synchronisation until the end) and its
 * solve (getrs_small: the row order and both triangular solves in one launch) instead of the
 * blocked LU, whose vendor panel factorization is latency bound at this size.  The same contract as gauss_blocked_alg:
 * LAPACK's partial pivoting, HPL's check.  Timed as the vendor's reference is: A and b are placed
 * on the device before the timer (small_prepare, the table's prepare entry), the timed run is
 * the LU, its info read back, the solve and x downloaded (README, "Small n"). */
#include "gauss/gauss.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  double *a;                /* device, n x n, ld n: the factors */
  int *piv;                 /* device, K_GAUSS_SMALL_INTS(n): pivots, row order, results (getrf_small) */
  double *x;                /* device, n: the solve's vector */
  double *hx;               /* pinned host, n: x downloaded (NULL without small_prepare) */
  int ready;                /* small_prepare ran: a holds A, x holds b */
  double t_lu;              /* seconds of getrf_small (host clock, it synchronises) */
} small_fact;

/* The backend's kind of small-n LU for gauss.small (coop: the cooperative kernel).  Local. */
static int small_kind(const gauss_t *g) {
  return g->o->small == GAUSS_SMALL_COOP ? K_GAUSS_SMALL_COOP : K_GAUSS_SMALL_STEPS;
}

/* Bytes of the factors, of the pivot buffer and of a vector.  Local. */
static size_t small_abytes(const gauss_t *g) { return (size_t)(g->n * g->n) * sizeof(double); }
static size_t small_pbytes(const gauss_t *g) { return (size_t)K_GAUSS_SMALL_INTS(g->n) * sizeof(int); }
static size_t small_xbytes(const gauss_t *g) { return (size_t)g->n * sizeof(double); }

/* A run's device buffers (parked ones when the previous run left them).  Local. */
static small_fact *small_new(gauss_t *g) {
  small_fact *f;
  HY_CALLOC(f, 1);
  f->a = gauss_dalloc_parked(g, small_abytes(g));
  f->piv = gauss_dalloc_parked(g, small_pbytes(g));
  f->x = gauss_dalloc_parked(g, small_xbytes(g));
  return f;
}

/* Park the device buffers for the next run, free the rest.  Local. */
static void small_release(gauss_t *g, void *fact) {
  small_fact *f = fact;
  if (!f) return;
  gauss_dpark(g, f->a, small_abytes(g));
  gauss_dpark(g, f->piv, small_pbytes(g));
  gauss_dpark(g, f->x, small_xbytes(g));
  if (f->hx) g->be->ops->free_pinned(g->be, f->hx);
  free(f);
}

/* Before the timer: A copied into the factor's buffer and b uploaded into the solve's vector
 * (cuSOLVER's reference gets both as untimed copies too), a pinned buffer for x; waits for
 * the copies.  Collective (one rank). */
static int small_prepare(gauss_t *g, void **out) {
  k_backend *be = g->be;
  small_fact *f = small_new(g);
  HY_LOCAL(be->ops->d2d(be, f->a, g->a0, small_abytes(g)));
  HY_LOCAL(be->ops->h2d(be, f->x, g->b, small_xbytes(g)));
  HY_LOCAL(be->ops->alloc_pinned(be, (void **)&f->hx, small_xbytes(g)));
  HY_LOCAL(be->ops->sync(be));
  f->ready = 1;
  *out = f;
  return HY_OK;
}

/* LU of the FP64 original by getrf_small (on small_prepare's copy, else a copy made here); a
 * zero or tiny pivot ends the run as the blocked LU's does.  Collective (one rank). */
static int small_factor(gauss_t *g, int sp, int keep, void **out) {
  k_backend *be = g->be;
  int64_t n = g->n;
  (void)sp;   /* gauss_small_pick takes this path for precision = double only */
  (void)keep;
  small_fact *f = *out ? *out : small_new(g);
  if (!f->ready) HY_LOCAL(be->ops->d2d(be, f->a, g->a0, small_abytes(g)));
  hy_debug_point(g->ctx, "factor");
  int info = 0;
  double minpiv = 0;
  int64_t mi = 0;
  double t0 = hy_wtime();
  HY_LOCAL(g->ko->getrf_small(be, small_kind(g), n, f->a, n, f->piv, &info, &minpiv, &mi));
  f->t_lu = hy_wtime() - t0;
  int rc = HY_OK;
  if (info > 0) rc = gauss_singular(g, "the LU pivot |u_kk|", info - 1, minpiv);
  else if (minpiv <= gauss_tiny(g, 0)) rc = gauss_singular(g, "the LU pivot |u_kk|", mi, minpiv);
  if (rc != HY_OK) {
    small_release(g, f);
    *out = NULL;
    return rc;
  }
  *out = f;
  return HY_OK;
}

/* Add a run's times (seconds: getrf_small, the solve) to g->small_tm.  Local. */
static void small_times_add(gauss_t *g, double t_lu, double t_solve) {
  gauss_small_times *tm = &g->small_tm;
  double *d = tm->runs == 0 ? tm->first : tm->sum;
  d[GAUSS_SM_LU] += t_lu;
  d[GAUSS_SM_SOLVE] += t_solve;
  tm->runs++;
}

/* x = A^-1 rhs (rhs NULL: g->b, already on the device after small_prepare) by getrs_small;
 * rhs and x on the host.  Collective (one rank). */
static int small_solve(gauss_t *g, void *fact, const double *rhs, double *x) {
  small_fact *f = fact;
  k_backend *be = g->be;
  size_t xb = small_xbytes(g);
  double t0 = hy_wtime();
  if (rhs || !f->ready) HY_LOCAL(be->ops->h2d(be, f->x, rhs ? rhs : g->b, xb));
  f->ready = 0;   /* x is overwritten: a second solve uploads its right-hand side */
  HY_LOCAL(g->ko->getrs_small(be, small_kind(g), g->n, f->a, g->n, f->piv, f->x));
  /* through pinned memory: one DMA, no staging */
  HY_LOCAL(be->ops->d2h(be, f->hx ? f->hx : x, f->x, xb));
  HY_LOCAL(be->ops->sync(be));
  if (f->hx) memcpy(x, f->hx, xb);
  small_times_add(g, f->t_lu, hy_wtime() - t0);
  return HY_OK;
}

/* (the name of the blocked algorithm: the same lines, records and T/V code) */
const gauss_alg gauss_small_alg = { "blocked", small_factor, small_solve, small_release, small_prepare };

/* gauss.small: the reason the small-n path cannot run this system, or NULL.  Local. */
static const char *small_obstacle(const gauss_t *g) {
  const gauss_opts *o = g->o;
  if (g->alg != GAUSS_BLOCKED) return "algorithm = blocked";
  if (g->ctx->size != 1) return "one rank";
  if (g->prec != GAUSS_DOUBLE) return "precision = double";
  if (o->nb != 0) return "gauss.nb = 0 (auto)";
  if (o->panel != GAUSS_PANEL_VENDOR && o->panel != GAUSS_PANEL_AUTO) return "gauss.panel = auto or vendor";
  if (o->profile) return "gauss.profile = false";
  if (o->trace) return "gauss.trace = false";
  if (!g->ko->getrf_small || g->n > g->ko->small_nmax) return "a backend with the small-n LU for this n";
  return NULL;
}

/* Take the small-n path (info->alg = &gauss_small_alg) when gauss.small = on or coop, or auto
 * and n <= the backend's small_auto; on / coop where it cannot run is a configuration error
 * (exit 1).
 * Local (every rank decides the same). */
int gauss_small_pick(gauss_t *g, gauss_info *info) {
  int mode = g->o->small;
  if (mode == GAUSS_SMALL_OFF) return HY_OK;
  const char *why = small_obstacle(g);
  if (why && mode != GAUSS_SMALL_AUTO)
    return hy_err(HY_EUSAGE, "gauss.small = %s: the small-n LU needs %s (this run: algorithm %s, "
                  "%d rank(s), precision %s, nb %lld, n = %lld; the backend's small-n LU takes "
                  "n <= %lld); allowed: auto|on|off|coop", mode == GAUSS_SMALL_COOP ? "coop" : "on", why, g->o->alg == GAUSS_BLOCKED ? "blocked" : "rows",
                  g->ctx->size, g->prec == GAUSS_DOUBLE ? "double" : "single/mixed", (long long)g->o->nb,
                  (long long)g->n, (long long)g->ko->small_nmax);
  if (why || (mode == GAUSS_SMALL_AUTO && g->n > g->ko->small_auto)) return HY_OK;
  info->alg = &gauss_small_alg;
  return HY_OK;
}
