/* v_gemm.c - hybrid-validate gemm: a gemm run's C against PETSc's MatMatMult on MATSEQDENSE.
 *
 * Reads A (m x k), B (k x n), C (m x n) and, with -beta != 0, C0 (m x n) as the run wrote them
 * (output.a / b / c / c0: the inputs as used, rounded to the run's precision), computes
 * R = alpha A B + beta C0 with PETSc (MatMatMult, MatScale, MatAXPY) and the bound of every
 * element, W = ((k + 4) u + (2 k + 8) eps_64) (|alpha| |A| |B| + |beta| |C0|) (|A| |B| by a second
 * MatMatMult; u = 2^-53 for -prec double, 2^-24 for float, tf32, bf16, fp16: FP32 accumulation).
 * Passes when max_ij |C - R| / W <= -tol (1); prints ||C - R||_F / ||R||_F too. */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *a, *b, *c, *c0, *prec;
  double alpha, beta, tol;
} gemm_vopts;

typedef struct {
  Mat A, B, C, C0, R, Aa, Ba, W;
} gemm_vobjs;

/* Replace every entry of dense M by its absolute value.  Local. */
static int gv_abs(Mat M) {
  PetscScalar *p;
  PetscInt m, n, lda;
  VALIDATE_PETSC(MatGetSize(M, &m, &n));
  VALIDATE_PETSC(MatDenseGetLDA(M, &lda));
  VALIDATE_PETSC(MatDenseGetArray(M, &p));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < m; i++) p[i + j * lda] = PetscAbsScalar(p[i + j * lda]);
  VALIDATE_PETSC(MatDenseRestoreArray(M, &p));
  return HY_OK;
}

/* Load the matrices and check their shapes.  Local. */
static int gv_load(const gemm_vopts *o, gemm_vobjs *s, int64_t *m, int64_t *n, int64_t *k) {
  int64_t am, ak, bk, bn, cm, cn;
  HY_CALL(validate_load_mat(o->a, 1, &s->A, &am, &ak));
  HY_CALL(validate_load_mat(o->b, 1, &s->B, &bk, &bn));
  HY_CALL(validate_load_mat(o->c, 1, &s->C, &cm, &cn));
  if (bk != ak)
    return hy_err(HY_EINPUT, "%s: B is %lld x %lld, but A (%s) is %lld x %lld: B needs %lld rows",
                  o->b, (long long)bk, (long long)bn, o->a, (long long)am, (long long)ak, (long long)ak);
  if (cm != am || cn != bn)
    return hy_err(HY_EINPUT, "%s: C is %lld x %lld, but A B is %lld x %lld", o->c, (long long)cm,
                  (long long)cn, (long long)am, (long long)bn);
  if (o->beta != 0) {
    int64_t zm, zn;
    if (!o->c0) return hy_err(HY_EUSAGE, "gemm: -beta %g needs -C0 FILE (the C that beta scaled)", o->beta);
    HY_CALL(validate_load_mat(o->c0, 1, &s->C0, &zm, &zn));
    if (zm != am || zn != bn)
      return hy_err(HY_EINPUT, "%s: C0 is %lld x %lld, but A B is %lld x %lld", o->c0,
                    (long long)zm, (long long)zn, (long long)am, (long long)bn);
  }
  *m = am;
  *n = bn;
  *k = ak;
  return HY_OK;
}

/* R = alpha A B + beta C0 and W = |alpha| |A| |B| + |beta| |C0| (unscaled).  Local. */
static int gv_reference(const gemm_vopts *o, gemm_vobjs *s) {
  VALIDATE_PETSC(MatMatMult(s->A, s->B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &s->R));
  VALIDATE_PETSC(MatScale(s->R, o->alpha));
  VALIDATE_PETSC(MatDuplicate(s->A, MAT_COPY_VALUES, &s->Aa));
  VALIDATE_PETSC(MatDuplicate(s->B, MAT_COPY_VALUES, &s->Ba));
  HY_CALL(gv_abs(s->Aa));
  HY_CALL(gv_abs(s->Ba));
  VALIDATE_PETSC(MatMatMult(s->Aa, s->Ba, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &s->W));
  VALIDATE_PETSC(MatScale(s->W, fabs(o->alpha)));
  if (o->beta != 0) {
    VALIDATE_PETSC(MatAXPY(s->R, o->beta, s->C0, SAME_NONZERO_PATTERN));
    Mat Za;
    VALIDATE_PETSC(MatDuplicate(s->C0, MAT_COPY_VALUES, &Za));
    HY_CALL(gv_abs(Za));
    VALIDATE_PETSC(MatAXPY(s->W, fabs(o->beta), Za, SAME_NONZERO_PATTERN));
    VALIDATE_PETSC(MatDestroy(&Za));
  }
  return HY_OK;
}

/* Largest |C - R| / (scale W) and ||C - R||_F / ||R||_F.  Local. */
static int gv_compare(gemm_vobjs *s, double scale, double *worst, double *rel) {
  const PetscScalar *c, *r, *w;
  PetscInt m, n, lc, lr, lw;
  VALIDATE_PETSC(MatGetSize(s->C, &m, &n));
  VALIDATE_PETSC(MatDenseGetLDA(s->C, &lc));
  VALIDATE_PETSC(MatDenseGetLDA(s->R, &lr));
  VALIDATE_PETSC(MatDenseGetLDA(s->W, &lw));
  VALIDATE_PETSC(MatDenseGetArrayRead(s->C, &c));
  VALIDATE_PETSC(MatDenseGetArrayRead(s->R, &r));
  VALIDATE_PETSC(MatDenseGetArrayRead(s->W, &w));
  double mx = 0, d2 = 0, r2 = 0;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < m; i++) {
      double d = fabs((double)c[i + j * lc] - (double)r[i + j * lr]), b = scale * (double)w[i + j * lw];
      double q = b > 0 || isnan(d) ? d / b : (d == 0 ? 0 : INFINITY);
      if (!(q <= mx)) mx = q;
      d2 += d * d;
      r2 += (double)r[i + j * lr] * (double)r[i + j * lr];
    }
  VALIDATE_PETSC(MatDenseRestoreArrayRead(s->C, &c));
  VALIDATE_PETSC(MatDenseRestoreArrayRead(s->R, &r));
  VALIDATE_PETSC(MatDenseRestoreArrayRead(s->W, &w));
  *worst = mx;
  *rel = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
  return HY_OK;
}

/* The check on objects owned by the caller.  Local. */
static int gv_run(const gemm_vopts *o, gemm_vobjs *s) {
  static const char *const precs[] = { "float", "double", "tf32", "bf16", "fp16" };
  int known = 0;
  for (int i = 0; i < 5; i++) known |= !strcmp(o->prec, precs[i]);
  if (!known)
    return hy_err(HY_EUSAGE, "gemm: -prec %s; allowed: float, double, tf32, bf16, fp16", o->prec);
  if (!(o->tol >= 0)) return hy_err(HY_EUSAGE, "gemm: -tol %g must be >= 0", o->tol);
  int64_t m = 0, n = 0, k = 0;
  HY_CALL(gv_load(o, s, &m, &n, &k));
  HY_CALL(gv_reference(o, s));
  double u = !strcmp(o->prec, "double") ? 0x1.0p-53 : 0x1.0p-24;
  double scale = (k + 4) * u + (2 * k + 8) * 0x1.0p-53, worst = NAN, rel = NAN;
  HY_CALL(gv_compare(s, scale, &worst, &rel));
  printf("hybrid-validate gemm\n");
  printf("  A  %s: %lld x %lld; B  %s: %lld x %lld; C  %s (MATSEQDENSE)\n", o->a, (long long)m,
         (long long)k, o->b, (long long)k, (long long)n, o->c);
  printf("  reference: PETSc MatMatMult, R = %g A B%s\n", o->alpha, o->beta != 0 ? " + beta C0" : "");
  printf("  ||C - R||_F / ||R||_F                 = %.6e\n", rel);
  printf("  max |C - R| / bound (%s, u = %.3g)   = %.6e (tol %g)\n", o->prec, u, worst, o->tol);
  fflush(stdout);
  int ok = worst <= o->tol;
  return validate_verdict(ok, "gemm: max |C - R| / bound = %.3e %s %g (%s vs PETSc MatMatMult, %s)",
                          worst, ok ? "<=" : (isnan(worst) ? "is NaN, not <=" : ">"), o->tol, o->c,
                          o->prec);
}

/* hybrid-validate gemm -A FILE -B FILE -C FILE [-C0 FILE] [-alpha a] [-beta b] [-prec P]
 * [-tol T].  Local. */
int validate_gemm(int argc, char **argv) {
  gemm_vopts o = { NULL, NULL, NULL, NULL, "float", 1.0, 0.0, 1.0 };
  const validate_opt opts[] = {
      {"A", VALIDATE_OPT_STR, &o.a, 1, "FILE", "A as the run used it (output.a)"},
      {"B", VALIDATE_OPT_STR, &o.b, 1, "FILE", "B as the run used it (output.b)"},
      {"C", VALIDATE_OPT_STR, &o.c, 1, "FILE", "the run's result C (output.c)"},
      {"C0", VALIDATE_OPT_STR, &o.c0, 0, "FILE", "beta != 0: the C that beta scaled (output.c0)"},
      {"alpha", VALIDATE_OPT_REAL, &o.alpha, 0, "a", "gemm.alpha (1)"},
      {"beta", VALIDATE_OPT_REAL, &o.beta, 0, "b", "gemm.beta (0)"},
      {"prec", VALIDATE_OPT_STR, &o.prec, 0, "P", "gemm.precision: float|double|tf32|bf16|fp16 (float)"},
      {"tol", VALIDATE_OPT_REAL, &o.tol, 0, "T", "pass when max |C - R| / bound <= T (1)"},
      {NULL, 0, NULL, 0, NULL, NULL}};
  int rc = validate_args_parse(argc, argv, opts,
                               "-A FILE -B FILE -C FILE [-C0 FILE] [-alpha a] [-beta b] [-prec P] [-tol T]");
  if (rc != HY_OK) return rc;
  gemm_vobjs s;
  memset(&s, 0, sizeof s);
  rc = gv_run(&o, &s);
  Mat *all[] = { &s.A, &s.B, &s.C, &s.C0, &s.R, &s.Aa, &s.Ba, &s.W };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) MatDestroy(all[i]);
  return rc;
}
