/* test_vec.c - the shared vector operations (kernels/k_vec.h) of a backend against references
 * written here (long double loops), never against another backend:
 *   test_vec host|cuda
 * For n in a set of sizes around the host's 1024-term blocks: gather (exact), axpbypcz with
 * c = 0 and c != 0 (within 2 ulps of the long double value), dots of 1..4 pairs (within
 * 1e-13 of sum |x_i y_i|), the fused axpbypcz_dots (equal to axpbypcz then dots: bit for bit
 * on the host, within 1e-13 on CUDA; a product may name z), 5 pairs refused, and the
 * scalar-block forms of the device loop against the plain ones (and gated off: no write), the
 * dots passes with BiCGSTAB's scalar step fused against the pass then the step, s_read, and a
 * recorded batch (CUDA: a graph) run twice against the same work queued twice.  Exit 0 pass,
 * 1 fail, 77 skip (cuda asked for, none here). */
#include "../common/test_backend.h"
#include "k_vec.h"
#include "hybrid.h"
#include "k_vec_bcgs.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

/* Report a failed comparison.  Local. */
static void bad(const char *what, int64_t n, double got, long double want) {
  if (fails++ < 20) fprintf(stderr, "FAIL %s (n = %lld): got %.17g, reference %.17Lg\n", what, (long long)n, got, want);
}

/* Deterministic values in [-1, 1).  Local. */
static double val(uint64_t i, uint64_t s) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (s * 0xD1B54A32D192ED03ull);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
  return (double)(x >> 11) / 4503599627370496.0 - 1.0;
}

/* Device copies of host arrays.  Local. */
static double *up(k_backend *be, const double *h, int64_t n) {
  double *d = NULL;
  HY_LOCAL(be->ops->alloc(be, (void **)&d, (size_t)(n + 1) * sizeof *d));
  if (n) HY_LOCAL(be->ops->h2d(be, d, h, (size_t)n * sizeof *d));
  return d;
}
static void down(k_backend *be, double *h, const double *d, int64_t n) {
  if (n) HY_LOCAL(be->ops->d2h(be, h, d, (size_t)n * sizeof *h));
}

/* All checks at one n.  Local. */
static void check_n(k_backend *be, k_vec *v, int64_t n, int host) {
  double *x, *y, *z, *w, *r;
  int32_t *idx;
  HY_MALLOC(x, n + 1); HY_MALLOC(y, n + 1); HY_MALLOC(z, n + 1); HY_MALLOC(w, n + 1); HY_MALLOC(r, n + 1);
  HY_MALLOC(idx, n + 1);
  for (int64_t i = 0; i < n; i++) {
    x[i] = val(i, 1); y[i] = val(i, 2); z[i] = val(i, 3);
    idx[i] = (int32_t)((i * 7919) % n);
  }
  double *dx = up(be, x, n), *dy = up(be, y, n), *dz = up(be, z, n), *dw = up(be, z, n);
  int32_t *didx = NULL;
  HY_LOCAL(be->ops->alloc(be, (void **)&didx, (size_t)(n + 1) * sizeof *didx));
  if (n) HY_LOCAL(be->ops->h2d(be, didx, idx, (size_t)n * sizeof *idx));
  /* gather */
  HY_LOCAL(v->ops->gather(v, n, didx, dx, dw));
  down(be, r, dw, n);
  for (int64_t i = 0; i < n; i++)
    if (r[i] != x[idx[i]]) { bad("gather", n, r[i], x[idx[i]]); break; }
  /* axpbypcz, c = 0 (z not read: NaN there must not matter) and c != 0 */
  const double a = 0.75, b = -1.25, c = 0.5;
  for (int pass = 0; pass < 2; pass++) {
    double cc = pass ? c : 0.0;
    for (int64_t i = 0; i < n; i++) w[i] = pass ? z[i] : NAN;
    double *dt = up(be, w, n);
    HY_LOCAL(v->ops->axpbypcz(v, n, a, dx, b, dy, cc, dt));
    down(be, r, dt, n);
    for (int64_t i = 0; i < n; i++) {
      long double ref = (long double)a * x[i] + (long double)b * y[i] + (pass ? (long double)cc * z[i] : 0);
      if (!(fabsl(r[i] - ref) <= 2 * 2.3e-16L * (fabsl(ref) + 1e-300L) + 1e-300L) &&
          !(fabsl(r[i] - ref) <= 4e-16L * (fabs(a * x[i]) + fabs(b * y[i]) + fabs(cc * z[i])))) {
        bad(pass ? "axpbypcz (c != 0)" : "axpbypcz (c = 0)", n, r[i], ref);
        break;
      }
    }
    be->ops->free(be, dt);
  }
  /* dots of 1..4 pairs */
  const double *px[4] = { dx, dy, dx, dz }, *py[4] = { dy, dy, dz, dz };
  const double *hx[4] = { x, y, x, z }, *hy[4] = { y, y, z, z };
  for (int np = 1; np <= 4; np++) {
    double out[4];
    HY_LOCAL(v->ops->dots(v, n, np, px, py, out));
    for (int p = 0; p < np; p++) {
      long double s = 0, sa = 0;
      for (int64_t i = 0; i < n; i++) { s += (long double)hx[p][i] * hy[p][i]; sa += fabsl((long double)hx[p][i] * hy[p][i]); }
      if (!(fabsl(out[p] - s) <= 1e-13L * sa + 1e-300L)) bad("dots", n, out[p], s);
    }
  }
  /* fused: z = a x + b y + c z, then (z, z), (x, z) against the separate calls */
  if (v->ops->axpbypcz_dots) {
    double *d1 = up(be, z, n), *d2 = up(be, z, n), f[2], g[2];
    const double *fx[2] = { d1, dx }, *fy[2] = { d1, d1 }, *gx[2] = { d2, dx }, *gy[2] = { d2, d2 };
    HY_LOCAL(v->ops->axpbypcz_dots(v, n, a, dx, b, dy, c, d1, 2, fx, fy, f));
    HY_LOCAL(v->ops->axpbypcz(v, n, a, dx, b, dy, c, d2));
    HY_LOCAL(v->ops->dots(v, n, 2, gx, gy, g));
    for (int p = 0; p < 2; p++) {
      int ok = host ? f[p] == g[p] : fabs(f[p] - g[p]) <= 1e-13 * (fabs(g[p]) + 1);
      if (!ok) bad("axpbypcz_dots vs axpbypcz + dots", n, f[p], g[p]);
    }
    be->ops->free(be, d1);
    be->ops->free(be, d2);
  }
  double out[5];
  const double *p5[5] = { dx, dx, dx, dx, dx };
  if (v->ops->dots(v, n, 5, p5, p5, out) == HY_OK) bad("5 pairs accepted", n, 5, 4);
  hy_err_clear();
  be->ops->free(be, dx); be->ops->free(be, dy); be->ops->free(be, dz); be->ops->free(be, dw);
  be->ops->free(be, didx);
  free(x); free(y); free(z); free(w); free(r); free(idx);
}

/* The scalar-block forms (axpbypcz_s, dots_s, axpbypcz_dots_s) against the plain ones with
 * the same scalars: equal (bit for bit on the host, within 1e-13 on CUDA), and nothing written
 * (z and the result slots untouched) while the gate slot is 0.  Local. */
static void check_scalar_forms(k_backend *be, k_vec *v, int64_t n, int host) {
  if (!v->ops->bcgs_step) return;
  double *x, *y, *z, *r1, *r2, h[16], hs[16];
  HY_MALLOC(x, n + 1); HY_MALLOC(y, n + 1); HY_MALLOC(z, n + 1); HY_MALLOC(r1, n + 1); HY_MALLOC(r2, n + 1);
  for (int64_t i = 0; i < n; i++) { x[i] = val(i, 4); y[i] = val(i, 5); z[i] = val(i, 6); }
  const double a = -0.625, b = 1.5, c = 0.25;
  for (int k = 0; k < 16; k++) h[k] = 12345.0 + k;
  h[0] = 1; h[1] = 0; h[2] = a; h[3] = b; h[4] = c; h[5] = 0;   /* gates 0 (on) and 1 (off) */
  double *dx = up(be, x, n), *dy = up(be, y, n), *sc = up(be, h, 16);
  for (int gate = 0; gate < 2; gate++)
    for (int pass = 0; pass < 2; pass++) {          /* pass 0: c = 0 (slot 5), 1: c != 0 */
      double *d1 = up(be, z, n), *d2 = up(be, z, n), *e1 = up(be, z, n), *e2 = up(be, z, n);
      double cc = pass ? c : 0, f[4], g[4];
      HY_LOCAL(v->ops->axpbypcz_s(v, n, sc, 2, 3, pass ? 4 : 5, gate, dx, dy, d1, -1, 0));
      HY_LOCAL(v->ops->axpbypcz(v, n, a, dx, b, dy, cc, d2));
      const double *px[4] = { dx, dy, d1, dx }, *py[4] = { dy, d1, d1, dx };
      HY_LOCAL(v->ops->dots_s(v, n, 4, px, py, sc, 8, gate, -1, 0));
      HY_LOCAL(v->ops->dots(v, n, 4, px, py, g));
      const double *fx[2] = { e1, dx }, *fy[2] = { e1, e1 }, *gx[2] = { e2, dx }, *gy[2] = { e2, e2 };
      HY_LOCAL(v->ops->axpbypcz_dots_s(v, n, sc, 2, 3, pass ? 4 : 5, gate, dx, dy, e1, 2, fx, fy, 12,
                                       -1, 0));
      HY_LOCAL(v->ops->axpbypcz_dots(v, n, a, dx, b, dy, cc, e2, 2, gx, gy, f));
      down(be, hs, sc, 16);
      down(be, r1, d1, n);
      down(be, r2, gate ? d1 : d2, n);
      for (int64_t i = 0; i < n; i++) {
        double want = gate ? z[i] : r2[i];
        int ok = host || gate ? r1[i] == want : fabs(r1[i] - want) <= 1e-15 * (fabs(want) + 1);
        if (!ok) { bad(gate ? "axpbypcz_s gated off wrote z" : "axpbypcz_s vs axpbypcz", n, r1[i], want); break; }
      }
      for (int p = 0; p < 6; p++) {
        double got = hs[8 + p], want = gate ? 12345.0 + 8 + p : p < 4 ? g[p] : f[p - 4];
        int ok = host || gate ? got == want : fabs(got - want) <= 1e-13 * (fabs(want) + 1);
        if (!ok) bad(gate ? "scalar-block dots gated off wrote a slot" : "scalar-block dots vs plain", n, got, want);
      }
      if (hs[2] != a || hs[3] != b || hs[4] != c || hs[0] != 1 || hs[1] != 0) bad("scalar slots changed", n, hs[2], a);
      for (int k = 8; k < 14; k++) h[k] = 12345.0 + k;    /* reset the result slots */
      HY_LOCAL(be->ops->h2d(be, sc, h, 16 * sizeof *h));
      be->ops->free(be, d1); be->ops->free(be, d2); be->ops->free(be, e1); be->ops->free(be, e2);
    }
  be->ops->free(be, dx); be->ops->free(be, dy); be->ops->free(be, sc);
  free(x); free(y); free(z); free(r1); free(r2);
}

/* A BiCGSTAB scalar block mid-solve (iteration 3 running), tol as given.  Local. */
static void bcgs_block(double *h) {
  memset(h, 0, K_BS_NSLOT * sizeof *h);
  h[K_BS_RUN] = h[K_BS_ONE] = 1;
  h[K_BS_BNORM] = 2;
  h[K_BS_RHO] = 0.7; h[K_BS_RHO_OLD] = 0.3; h[K_BS_ALPHA] = 0.9; h[K_BS_OMEGA] = 0.4;
  h[K_BS_NEG_OMEGA] = -0.4;
  h[K_BS_IT] = 3;
}

/* Compare two scalar blocks slot by slot (bit for bit on the host, 1e-15 on CUDA).  Local. */
static void same_block(const char *what, int64_t n, const double *a, const double *b, int host) {
  for (int k = 0; k < K_BS_NSLOT; k++) {
    int ok = host ? a[k] == b[k] || (isnan(a[k]) && isnan(b[k]))
                  : fabs(a[k] - b[k]) <= 1e-15 * (fabs(b[k]) + 1) || (isnan(a[k]) && isnan(b[k]));
    if (!ok) { bad(what, n, a[k], b[k]); return; }
  }
}

/* The dots passes with their scalar step in the same launch (step >= 0) against the pass
 * without (-1) followed by bcgs_step: the same block after each (alpha after (rhat, v),
 * omega after (t, s), (t, t), (s, s), rho after the update of r with (rhat, r), (r, r)), for a
 * tolerance that stops nothing, one that stops at once (converged), and a zero vector (a
 * breakdown); s_read gives the block's values exactly.  Local. */
static void check_fused_steps(k_backend *be, k_vec *v, int64_t n, int host) {
  if (!v->ops->bcgs_step || n == 0) return;
  double *x, *y, h[K_BS_NSLOT], h1[K_BS_NSLOT], h2[K_BS_NSLOT], h3[K_BS_NSLOT];
  HY_MALLOC(x, n); HY_MALLOC(y, n);
  for (int64_t i = 0; i < n; i++) { x[i] = val(i, 7); y[i] = val(i, 8); }
  const double tols[3] = { 1e-300, 1e300, 1e-300 };
  for (int sc = 0; sc < 3; sc++) {
    if (sc == 2) memset(y, 0, (size_t)n * sizeof *y);
    double *dx = up(be, x, n), *dy = up(be, y, n), *dz1 = up(be, x, n), *dz2 = up(be, x, n);
    bcgs_block(h);
    double *s1 = up(be, h, K_BS_NSLOT), *s2 = up(be, h, K_BS_NSLOT);
    const double *p1x[1] = { dx }, *p1y[1] = { dy };
    HY_LOCAL(v->ops->dots_s(v, n, 1, p1x, p1y, s1, K_BS_RV, K_BS_RUN, K_BSTEP_ALPHA, tols[sc]));
    HY_LOCAL(v->ops->dots_s(v, n, 1, p1x, p1y, s2, K_BS_RV, K_BS_RUN, -1, 0));
    HY_LOCAL(v->ops->bcgs_step(v, s2, K_BSTEP_ALPHA, tols[sc]));
    down(be, h1, s1, K_BS_NSLOT); down(be, h2, s2, K_BS_NSLOT);
    same_block("dots_s + alpha step fused vs separate", n, h1, h2, host);
    const double *p3x[3] = { dx, dx, dy }, *p3y[3] = { dy, dx, dy };
    HY_LOCAL(v->ops->dots_s(v, n, 3, p3x, p3y, s1, K_BS_TS, K_BS_RUN, K_BSTEP_OMEGA, tols[sc]));
    HY_LOCAL(v->ops->dots_s(v, n, 3, p3x, p3y, s2, K_BS_TS, K_BS_RUN, -1, 0));
    HY_LOCAL(v->ops->bcgs_step(v, s2, K_BSTEP_OMEGA, tols[sc]));
    down(be, h1, s1, K_BS_NSLOT); down(be, h2, s2, K_BS_NSLOT);
    same_block("dots_s + omega step fused vs separate", n, h1, h2, host);
    const double *q1[2] = { dx, dz1 }, *q2[2] = { dx, dz2 }, *r1[2] = { dz1, dz1 }, *r2[2] = { dz2, dz2 };
    HY_LOCAL(v->ops->axpbypcz_dots_s(v, n, s1, K_BS_ONE, K_BS_NEG_OMEGA, K_BS_ZERO, K_BS_RUN, dx, dy,
                                     dz1, 2, q1, r1, K_BS_RHO_NEW, K_BSTEP_RHO, tols[sc]));
    HY_LOCAL(v->ops->axpbypcz_dots_s(v, n, s2, K_BS_ONE, K_BS_NEG_OMEGA, K_BS_ZERO, K_BS_RUN, dx, dy,
                                     dz2, 2, q2, r2, K_BS_RHO_NEW, -1, 0));
    HY_LOCAL(v->ops->bcgs_step(v, s2, K_BSTEP_RHO, tols[sc]));
    down(be, h1, s1, K_BS_NSLOT); down(be, h2, s2, K_BS_NSLOT);
    same_block("axpbypcz_dots_s + rho step fused vs separate", n, h1, h2, host);
    int want_status = sc == 0 ? 0 : sc == 1 ? 1 : 2;
    if (h1[K_BS_STATUS] != want_status) bad("status after the three steps", n, h1[K_BS_STATUS], want_status);
    HY_LOCAL(v->ops->s_read(v, s1, h3, K_BS_NSLOT));
    /* the update of p with the step that starts an iteration (rho's test; scenario 2: rho = 0,
     * a breakdown) against the step then the update: the same block, and without a breakdown
     * the same p */
    double *sp1 = up(be, h, K_BS_NSLOT), *sp2 = up(be, h, K_BS_NSLOT), hp[K_BS_NSLOT];
    if (sc == 2) {
      memcpy(hp, h, sizeof hp);
      hp[K_BS_RHO] = 0;
      HY_LOCAL(be->ops->h2d(be, sp1, hp, sizeof hp));
      HY_LOCAL(be->ops->h2d(be, sp2, hp, sizeof hp));
    }
    HY_LOCAL(v->ops->axpbypcz_s(v, n, sp1, K_BS_ONE, K_BS_NEG_OMEGA, K_BS_ALPHA, K_BS_RUN, dx, dy,
                                dz1, K_BSTEP_BETA, tols[sc]));
    HY_LOCAL(v->ops->bcgs_step(v, sp2, K_BSTEP_BETA, tols[sc]));
    HY_LOCAL(v->ops->axpbypcz_s(v, n, sp2, K_BS_ONE, K_BS_NEG_OMEGA, K_BS_ALPHA, K_BS_RUN, dx, dy,
                                dz2, -1, 0));
    double g1[K_BS_NSLOT], g2[K_BS_NSLOT];
    down(be, g1, sp1, K_BS_NSLOT); down(be, g2, sp2, K_BS_NSLOT);
    same_block("axpbypcz_s + start step fused vs separate", n, g1, g2, host);
    if ((g1[K_BS_STATUS] == 2) != (sc == 2) || g1[K_BS_IT] != 4)
      bad("start step: status / iteration", n, g1[K_BS_STATUS], sc == 2 ? 2 : 0);
    if (sc < 2) {
      double *p1, *p2;
      HY_MALLOC(p1, n); HY_MALLOC(p2, n);
      down(be, p1, dz1, n); down(be, p2, dz2, n);
      for (int64_t i = 0; i < n; i++)
        if (!(host ? p1[i] == p2[i] : fabs(p1[i] - p2[i]) <= 1e-15 * (fabs(p2[i]) + 1))) {
          bad("p of the fused start step vs separate", n, p1[i], p2[i]);
          break;
        }
      free(p1); free(p2);
    }
    be->ops->free(be, sp1); be->ops->free(be, sp2);
    for (int k = 0; k < K_BS_NSLOT; k++)
      if (!(h3[k] == h1[k] || (isnan(h3[k]) && isnan(h1[k])))) { bad("s_read vs d2h", n, h3[k], h1[k]); break; }
    be->ops->free(be, dx); be->ops->free(be, dy); be->ops->free(be, dz1); be->ops->free(be, dz2);
    be->ops->free(be, s1); be->ops->free(be, s2);
  }
  free(x); free(y);
}

/* The work a recorded batch queues: z = x + 0.5 y + z, then sc[4] = (z, z).  Local. */
typedef struct {
  k_vec *v;
  int64_t n;
  double *sc, *x, *y, *z;
} rec_arg;
static int rec_fn(void *p) {
  rec_arg *a = p;
  HY_CALL(a->v->ops->axpbypcz_s(a->v, a->n, a->sc, 0, 1, 0, 0, a->x, a->y, a->z, -1, 0));
  const double *dz[1] = { a->z };
  return a->v->ops->dots_s(a->v, a->n, 1, dz, dz, a->sc, 4, 0, -1, 0);
}

/* rec_create records without running (z unchanged), each rec_run runs the batch once: after
 * two runs z and (z, z) equal the same operations queued twice directly (bit for bit on the
 * host, 1e-15 / 1e-13 on CUDA).  Local. */
static void check_record(k_backend *be, k_vec *v, int64_t n, int host) {
  if (!v->ops->rec_create || n == 0) return;
  double *x, *y, *z, *r1, *r2, h[8] = { 1, 0.5, 0, 0, -1, 0, 0, 0 }, g1[8], g2[8];
  HY_MALLOC(x, n); HY_MALLOC(y, n); HY_MALLOC(z, n); HY_MALLOC(r1, n); HY_MALLOC(r2, n);
  for (int64_t i = 0; i < n; i++) { x[i] = val(i, 9); y[i] = val(i, 10); z[i] = val(i, 11); }
  double *dx = up(be, x, n), *dy = up(be, y, n), *z1 = up(be, z, n), *z2 = up(be, z, n);
  double *s1 = up(be, h, 8), *s2 = up(be, h, 8);
  rec_arg a1 = { v, n, s1, dx, dy, z1 }, a2 = { v, n, s2, dx, dy, z2 };
  void *rec = NULL;
  HY_LOCAL(v->ops->rec_create(v, rec_fn, &a1, &rec));
  HY_LOCAL(be->ops->sync(be));
  down(be, r1, z1, n);
  down(be, g1, s1, 8);
  for (int64_t i = 0; i < n; i++)
    if (r1[i] != z[i]) { bad("rec_create ran the work", n, r1[i], z[i]); break; }
  if (g1[4] != -1) bad("rec_create wrote the dot", n, g1[4], -1);
  for (int k = 0; k < 2; k++) {
    HY_LOCAL(v->ops->rec_run(v, rec));
    HY_LOCAL(rec_fn(&a2));
  }
  down(be, r1, z1, n); down(be, r2, z2, n);
  down(be, g1, s1, 8); down(be, g2, s2, 8);
  for (int64_t i = 0; i < n; i++) {
    int ok = host ? r1[i] == r2[i] : fabs(r1[i] - r2[i]) <= 1e-15 * (fabs(r2[i]) + 1);
    if (!ok) { bad("z after 2 runs of the batch vs queued twice", n, r1[i], r2[i]); break; }
  }
  if (!(host ? g1[4] == g2[4] : fabs(g1[4] - g2[4]) <= 1e-13 * fabs(g2[4])))
    bad("(z, z) of the batch vs queued", n, g1[4], g2[4]);
  HY_LOCAL(v->ops->rec_free(v, rec));
  be->ops->free(be, dx); be->ops->free(be, dy); be->ops->free(be, z1); be->ops->free(be, z2);
  be->ops->free(be, s1); be->ops->free(be, s2);
  free(x); free(y); free(z); free(r1); free(r2);
}

int main(int argc, char **argv) {
  k_backend be;
  int cuda = test_backend_open(argc, argv, &be);
  k_vec v;
  HY_LOCAL(k_vec_open(&be, &v));
  const int64_t sizes[] = { 0, 1, 2, 31, 1023, 1024, 1025, 4097, 70001 };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    check_n(&be, &v, sizes[i], !cuda);
    check_scalar_forms(&be, &v, sizes[i], !cuda);
    check_fused_steps(&be, &v, sizes[i], !cuda);
    check_record(&be, &v, sizes[i], !cuda);
  }
  k_vec_close(&v);
  k_backend_close(&be);
  printf("%s: k_vec on the %s backend, %zu sizes\n", fails ? "FAIL" : "PASS", cuda ? "cuda" : "host",
         sizeof sizes / sizeof sizes[0]);
  MPI_Finalize();
  return fails ? 1 : 0;
}
