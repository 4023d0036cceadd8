/* fgmres.c - GMRES(m) with left preconditioning and flexible GMRES (FGMRES, Saad 1993) with
 * right preconditioning, on function pointers (krylov.h): one cycle of at most m iterations,
 * modified Gram-Schmidt with one reorthogonalisation, Givens rotations.  The small Hessenberg
 * problem is solved redundantly on every rank from globally reduced dots, so every rank takes
 * the same branches. */
#include "krylov/krylov.h"
#include "hybrid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const krylov_ops *o;
  int m;
  double **V, **Z;          /* basis (m + 1), flexible: preconditioned vectors (m) */
  double *w, *t;
  double *H, *cs, *sn, *gv; /* (m + 1) x m Hessenberg, rotations, rotated right-hand side */
} gm_ws;

#define HH(ws, i, j) (ws)->H[(i) + (size_t)(j) * (size_t)((ws)->m + 1)]

/* y = M x (identity: a copy).  Collective. */
static int gm_apply_m(const krylov_ops *o, double *x, double *y) {
  if (o->precond) return o->precond(o->ctx, x, y);
  return o->vec_copy(o->ctx, x, y);
}

/* The global 2-norm of v.  Collective. */
static int gm_norm(const krylov_ops *o, const double *v, double *nv) {
  const double *const a[1] = { v };
  double d = 0;
  HY_CALL(o->dots(o->ctx, 1, a, a, &d));
  *nv = sqrt(d);
  return HY_OK;
}

/* Allocate the workspace.  Local (vec_create may not be). */
static int gm_alloc(gm_ws *ws, const krylov_ops *o, int m, int flexible) {
  memset(ws, 0, sizeof *ws);
  ws->o = o;
  ws->m = m;
  HY_CALLOC(ws->V, (size_t)m + 1);
  HY_CALLOC(ws->Z, (size_t)m + 1);
  HY_CALLOC(ws->H, (size_t)(m + 1) * (size_t)m);
  HY_CALLOC(ws->cs, (size_t)m + 1);
  HY_CALLOC(ws->sn, (size_t)m + 1);
  HY_CALLOC(ws->gv, (size_t)m + 1);
  for (int j = 0; j <= m; j++) HY_CALL(o->vec_create(o->ctx, &ws->V[j]));
  for (int j = 0; j < m && flexible; j++) HY_CALL(o->vec_create(o->ctx, &ws->Z[j]));
  HY_CALL(o->vec_create(o->ctx, &ws->w));
  HY_CALL(o->vec_create(o->ctx, &ws->t));
  return HY_OK;
}

/* Free the workspace.  Local. */
static void gm_free(gm_ws *ws) {
  const krylov_ops *o = ws->o;
  for (int j = 0; j <= ws->m; j++) {
    if (ws->V && ws->V[j]) o->vec_free(o->ctx, ws->V[j]);
    if (ws->Z && ws->Z[j]) o->vec_free(o->ctx, ws->Z[j]);
  }
  if (ws->w) o->vec_free(o->ctx, ws->w);
  if (ws->t) o->vec_free(o->ctx, ws->t);
  free(ws->V); free(ws->Z); free(ws->H); free(ws->cs); free(ws->sn); free(ws->gv);
}

/* Column j of the Hessenberg matrix: w = A M v_j (flexible, M v_j kept in Z_j) or M A v_j,
 * orthogonalised twice against V_0..V_j, V_{j+1} = w / h; *hn = h.  Collective. */
static int gm_arnoldi(gm_ws *ws, int left, int j, double *hn) {
  const krylov_ops *o = ws->o;
  if (!left) {
    HY_CALL(gm_apply_m(o, ws->V[j], ws->Z[j]));
    HY_CALL(o->matvec(o->ctx, ws->Z[j], ws->w));
  } else {
    HY_CALL(o->matvec(o->ctx, ws->V[j], ws->t));
    HY_CALL(gm_apply_m(o, ws->t, ws->w));
  }
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i <= j; i++) {
      const double *const a[1] = { ws->w }, *const bv[1] = { ws->V[i] };
      double h = 0;
      HY_CALL(o->dots(o->ctx, 1, a, bv, &h));
      HH(ws, i, j) += h;
      HY_CALL(o->axpbypcz(o->ctx, -h, ws->V[i], 1, ws->w, 0, ws->w));
    }
  HY_CALL(gm_norm(o, ws->w, hn));
  HH(ws, j + 1, j) = *hn;
  if (*hn > 0 && isfinite(*hn)) HY_CALL(o->axpbypcz(o->ctx, 1 / *hn, ws->w, 0, ws->w, 0, ws->V[j + 1]));
  return HY_OK;
}

/* Apply the earlier rotations to column j and make the new one; 0 on breakdown (a zero or
 * non-finite diagonal).  Local (replicated values). */
static int gm_rotate(gm_ws *ws, int j) {
  for (int i = 0; i < j; i++) {
    double a = HH(ws, i, j), b = HH(ws, i + 1, j);
    HH(ws, i, j) = ws->cs[i] * a + ws->sn[i] * b;
    HH(ws, i + 1, j) = -ws->sn[i] * a + ws->cs[i] * b;
  }
  double a = HH(ws, j, j), b = HH(ws, j + 1, j), h = hypot(a, b);
  if (!(h > 0) || !isfinite(h)) return 0;
  ws->cs[j] = a / h;
  ws->sn[j] = b / h;
  HH(ws, j, j) = h;
  HH(ws, j + 1, j) = 0;
  ws->gv[j + 1] = -ws->sn[j] * ws->gv[j];
  ws->gv[j] = ws->cs[j] * ws->gv[j];
  return 1;
}

/* x += V y (left) or Z y (flexible) with y = H^-1 g, H the leading k x k triangle.
 * Collective (vector updates). */
static int gm_update(gm_ws *ws, int left, int k, double *x) {
  double *y;
  HY_MALLOC(y, (size_t)k + 1);
  for (int i = k - 1; i >= 0; i--) {
    double s = ws->gv[i];
    for (int l = i + 1; l < k; l++) s -= HH(ws, i, l) * y[l];
    y[i] = s / HH(ws, i, i);
  }
  for (int i = 0; i < k; i++)
    HY_CALL(ws->o->axpbypcz(ws->o->ctx, y[i], left ? ws->V[i] : ws->Z[i], 1, x, 0, x));
  free(y);
  return HY_OK;
}

/* The solver (see krylov.h).  Collective. */
int krylov_gmres(const krylov_ops *o, const krylov_gmres_params *par, const double *b,
                 double *x, krylov_result *res) {
  memset(res, 0, sizeof *res);
  res->status = KRYLOV_MAXIT;
  res->relres = 1;
  gm_ws ws;
  int m = par->m > 0 ? par->m : 1, left = par->left;
  HY_CALL(gm_alloc(&ws, o, m, !left));
  /* r = b - A x (x zero on entry: r = b) into w, then the preconditioned start (left) */
  if (par->x0_zero) {
    HY_CALL(o->vec_copy(o->ctx, b, ws.w));
  } else {
    HY_CALL(o->vec_copy(o->ctx, x, ws.t));
    HY_CALL(o->matvec(o->ctx, ws.t, ws.w));
    HY_CALL(o->axpbypcz(o->ctx, 1, b, -1, ws.w, 0, ws.w));
  }
  if (left) {
    HY_CALL(o->vec_copy(o->ctx, ws.w, ws.t));
    HY_CALL(gm_apply_m(o, ws.t, ws.w));
  }
  double beta = 0;
  int k = 0;
  HY_CALL(gm_norm(o, ws.w, &beta));
  if (beta > 0 && isfinite(beta)) {
    HY_CALL(o->axpbypcz(o->ctx, 1 / beta, ws.w, 0, ws.w, 0, ws.V[0]));
    ws.gv[0] = beta;
    for (int j = 0; j < m; j++) {
      double hn = 0;
      HY_CALL(gm_arnoldi(&ws, left, j, &hn));
      if (!gm_rotate(&ws, j)) {  /* breakdown or NaN: keep the first j columns */
        res->status = KRYLOV_BREAKDOWN;
        snprintf(res->breakdown, sizeof res->breakdown, "GMRES: zero or non-finite column %d", j);
        break;
      }
      k = j + 1;
      res->relres = fabs(ws.gv[j + 1]) / beta;
      if (res->relres <= par->tol || (!left && fabs(ws.gv[j + 1]) <= par->atol)) {
        res->status = KRYLOV_CONVERGED;
        break;
      }
      if (!(hn > 0) || !isfinite(hn)) break;
    }
    HY_CALL(gm_update(&ws, left, k, x));
  } else {
    res->status = beta == 0 ? KRYLOV_CONVERGED : KRYLOV_BREAKDOWN;
  }
  res->iterations = k;
  gm_free(&ws);
  return HY_OK;
}
