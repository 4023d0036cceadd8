/* krylov.h - hypre-style Krylov solvers (BiCGSTAB, GMRES / FGMRES) that see only function pointers: it never knows the
 * matrix format, the preconditioner or where the vectors live (host or device).  Vectors are
 * opaque double pointers made by vec_create; every reduction is global (the dots function
 * returns all-reduced values), so every rank takes the same branches and breakdowns are
 * detected identically on every rank. */
#ifndef HY_KRYLOV_H
#define HY_KRYLOV_H

#include <stdint.h>

/* BiCGSTAB's vectors as krylov_ops.s_batch sees them (without a preconditioner ph == p and
 * sh == s; p2: a second p, see s_batch). */
typedef struct {
  double *r, *rh, *p, *v, *ph, *s, *sh, *t, *p2;
} krylov_bcgs_vecs;

typedef struct {
  void *ctx;
  int64_t n;   /* local length */
  int (*vec_create)(void *ctx, double **v);            /* zeroed */
  int (*vec_free)(void *ctx, double *v);
  int (*vec_copy)(void *ctx, const double *src, double *dst);
  int (*matvec)(void *ctx, double *x, double *y);      /* y = A x (x may get ghost values) */
  int (*precond)(void *ctx, double *x, double *y);     /* y = M x; NULL: identity */
  /* z = a x + b y + c z (c == 0: z not read) */
  int (*axpbypcz)(void *ctx, double a, const double *x, double b, const double *y, double c,
                  double *z);
  /* out[p] = global (x[p], y[p]) for p < npair (<= 4), one reduction */
  int (*dots)(void *ctx, int npair, const double *const *x, const double *const *y, double *out);
  /* called with the relative residual estimate before the first iteration (it = 0) and after
   * every iteration (may be NULL) */
  void (*monitor)(void *ctx, int it, double relres);
  /* Optional (NULL: axpbypcz, then dots): z = a x + b y + c z, then out[p] = global
   * (dx[p], dy[p]) for p < npair (<= 4) of the updated vectors, in one pass over the data and
   * one reduction; the same values as the two separate calls. */
  int (*axpbypcz_dots)(void *ctx, double a, const double *x, double b, const double *y, double c,
                       double *z, int npair, const double *const *dx, const double *const *dy,
                       double *out);
  /* Optional device loop of BiCGSTAB (all or none; NULL: the host loop), for a single rank:
   * the scalars live in a block sc of K_BS_NSLOT doubles where the vectors live (slots of
   * kernels/k_vec_bcgs.h) and the operations below read and write them there, so nothing
   * waits for the host between checks.  s_create: a zeroed block (freed by vec_free); s_put /
   * s_get: copy n slots from / to the host (s_get waits for the queued work); s_axpbypcz,
   * s_dots (local = global dots: one rank), s_axpbypcz_dots: as k_vec.h's *_s forms (with the
   * scalar step that follows the dots in the same launch, step < 0: none); s_step: one scalar
   * step (k_bcgs_step).  Optional among them (NULL: every iteration queued anew): s_record
   * records what fn(arg) queues as one batch without running it, s_replay queues the batch
   * again, s_unrecord frees it (k_vec.h's rec_create / rec_run / rec_free: a CUDA graph). */
  int (*s_create)(void *ctx, double **sc);
  int (*s_put)(void *ctx, double *sc, const double *h, int n);
  int (*s_get)(void *ctx, const double *sc, double *h, int n);
  int (*s_axpbypcz)(void *ctx, double *sc, int ia, int ib, int ic, int gate,
                    const double *x, const double *y, double *z, int step, double tol);
  int (*s_dots)(void *ctx, int npair, const double *const *x, const double *const *y,
                double *sc, int slot, int gate, int step, double tol);
  int (*s_axpbypcz_dots)(void *ctx, double *sc, int ia, int ib, int ic, int gate,
                         const double *x, const double *y, double *z, int npair,
                         const double *const *dx, const double *const *dy, int slot, int step,
                         double tol);
  int (*s_step)(void *ctx, double *sc, int step, double tol);
  int (*s_record)(void *ctx, int (*fn)(void *arg), void *arg, void **rec);
  int (*s_replay)(void *ctx, void *rec);
  int (*s_unrecord)(void *ctx, void *rec);
  /* Optional, with the device loop (NULL: the iterations queued as above): up to n iterations
   * of the device loop as one operation of the ops (k_vec.h's bcgs_batch: on CUDA one launch of
   * a persistent kernel; or bcgs_fused: five fused kernels per iteration, which s_record can
   * record), the same steps and results on sc as n queued iterations; x the iterate, w the
   * solver's vectors (w->p2 allocated for it: with a preconditioner it holds every other
   * iteration's p). */
  int (*s_batch)(void *ctx, double *sc, int n, double tol, double *x, const krylov_bcgs_vecs *w);
} krylov_ops;

/* BiCGSTAB's work vectors (zeroed) and, for the device loop, its scalar block, made before a
 * solve by krylov_bicgstab_ws_create so that the solve itself allocates nothing (PETSc's
 * KSPSetUp; CUDA: cudaMalloc / cudaFree synchronise the device). */
typedef struct {
  krylov_bcgs_vecs w;
  double *sc;       /* the device loop's scalar block (s_create), NULL without it */
  int nv;           /* vectors made */
} krylov_bcgs_ws;

typedef struct krylov_params krylov_params;
struct krylov_params {
  double tol;       /* relative residual ||r|| / ||b|| */
  int max_iter;
  int device_loop;  /* 1: BiCGSTAB's device loop when the ops have it (s_step != NULL) */
  int check_every;  /* device loop: read the convergence flag every check_every iterations;
                     * the result is the first converged iteration's whatever the value (with
                     * s_record: check_every iterations recorded once and replayed) */
  int merged;       /* 1: rho = (rhat, s) - omega (rhat, t) from the omega pass's dots (5 of
                     * them) instead of (rhat, r) after r's update, (r, r) alone there: the
                     * persistent kernel's merged iteration (the device loop only with s_batch);
                     * a non-finite rho ends the iteration before x's update */
  krylov_bcgs_ws *ws;  /* NULL: krylov_bicgstab makes and frees its work vectors; else these
                        * (made by krylov_bicgstab_ws_create for the same ops and params, used by
                        * one solve) */
};

typedef enum { KRYLOV_CONVERGED = 0, KRYLOV_MAXIT = 1, KRYLOV_BREAKDOWN = 2 } krylov_status;

typedef struct {
  krylov_status status;
  int iterations;
  double relres;          /* recursive residual estimate at the end */
  char breakdown[128];    /* what broke down ("rho = 0 at iteration 12") */
} krylov_result;

/* Make / free the work vectors of one krylov_bicgstab on ops o with params par (par->ws not
 * read).  Collective (through ops). */
int krylov_bicgstab_ws_create(const krylov_ops *o, const krylov_params *par, krylov_bcgs_ws *ws);
int krylov_bicgstab_ws_free(const krylov_ops *o, krylov_bcgs_ws *ws);

/* Right-preconditioned BiCGSTAB for A x = b (A M y = b, x = M y) from the initial x.  Returns
 * HY_OK with res->status set (converged / max_iter / breakdown), or an error code of a failing
 * operation.  Collective (through ops). */
int krylov_bicgstab(const krylov_ops *ops, const krylov_params *par, const double *b, double *x,
                    krylov_result *res);

/* Parameters of krylov_gmres (app/krylov/fgmres.c). */
typedef struct {
  int m;            /* at most m iterations (one cycle, no restart) */
  double tol;       /* stop when the tracked residual 2-norm has fallen by tol */
  double atol;      /* flexible: also stop when it is <= atol (0: never) */
  int left;         /* 1: left preconditioning, GMRES on M A x = M b (tracks the preconditioned
                     * residual); 0: flexible GMRES, right preconditioning with the vectors
                     * M v_j kept (tracks the true residual; M need not be a fixed operator) */
  int x0_zero;      /* 1: x is zero on entry (the caller zeroed it): r = b, no first matvec */
} krylov_gmres_params;

/* GMRES(m) / FGMRES(m) for A x = b (modified Gram-Schmidt with one reorthogonalisation,
 * Givens rotations): res->iterations, res->relres (the reduction of the tracked residual),
 * res->status (converged: tol or atol reached; breakdown: a zero or non-finite norm, the first
 * columns kept; else max_iter).  Uses vec_create, vec_free, vec_copy, matvec, precond (NULL:
 * identity), axpbypcz, dots.  Collective (through ops). */
int krylov_gmres(const krylov_ops *ops, const krylov_gmres_params *par, const double *b,
                 double *x, krylov_result *res);

#endif
