/* v_lle.c - hybrid-validate lle: the smallest eigenpairs of the LLE matrix M = (I-W)^T (I-W)
 * that a `hybrid` lle run wrote ([output] matrix / eigvecs / eigvals), recomputed by SLEPc:
 * Krylov-Schur with spectral transformation shift-and-invert (ST sinvert, sparse LU of
 * M - sigma I; sigma = -shift, slightly below 0 because M itself is singular: the constant
 * vector), the nev eigenvalues nearest the target, EPS_HEP.
 *
 * Checks: every eigenvalue j >= 1 agrees to -tol relative (the first one, ~0, to -tol times
 * lambda_1 absolutely); the largest principal angle between the two eigenvector sets is below
 * -angle, bounded from above by asin ||(I - Q Q^T) V||_F (Q: SLEPc's vectors orthonormalised,
 * V: the run's).  Exit 4 when a check fails, 3 when SLEPc does not converge. */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slepceps.h>

typedef struct {
  const char *m_path, *vec_path, *val_path;
  double tol, angle, shift, epstol;
  long long nev;
} lle_opts;

/* Orthonormalise the n x p column-major block in place (modified Gram-Schmidt, twice).
 * Local. */
static void lle_mgs(int64_t n, int p, double *q) {
  for (int pass = 0; pass < 2; pass++)
    for (int j = 0; j < p; j++) {
      double *qj = q + (size_t)j * n;
      for (int l = 0; l < j; l++) {
        const double *ql = q + (size_t)l * n;
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += ql[i] * qj[i];
        for (int64_t i = 0; i < n; i++) qj[i] -= s * ql[i];
      }
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += qj[i] * qj[i];
      s = sqrt(s);
      for (int64_t i = 0; i < n; i++) qj[i] /= s > 0 ? s : 1;
    }
}

/* sin of the largest principal angle between span(a) and span(b) (both n x p orthonormal),
 * bounded above by ||(I - a a^T) b||_F.  Local. */
static double lle_sin_angle(int64_t n, int p, const double *a, const double *b) {
  double *r = malloc((size_t)n * sizeof *r), f2 = 0;
  if (!r) return NAN;
  for (int j = 0; j < p; j++) {
    const double *bj = b + (size_t)j * n;
    memcpy(r, bj, (size_t)n * sizeof *r);
    for (int l = 0; l < p; l++) {
      const double *al = a + (size_t)l * n;
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += al[i] * bj[i];
      for (int64_t i = 0; i < n; i++) r[i] -= s * al[i];
    }
    for (int64_t i = 0; i < n; i++) f2 += r[i] * r[i];
  }
  free(r);
  return sqrt(f2);
}

/* SLEPc on M and the comparison.  Local. */
static int lle_check(const lle_opts *o, Mat *M, EPS *eps, double **qs, hy_dense *v, double **lam) {
  int64_t m = 0, n = 0, nl = 0;
  HY_CALL(validate_load_mat(o->m_path, 0, M, &m, &n));
  if (m != n || n < 2) return hy_err(HY_EINPUT, "%s: M is %lld x %lld; a square matrix is needed", o->m_path, (long long)m, (long long)n);
  HY_CALL(io_read_dense(o->vec_path, v));
  HY_CALL(io_read_vec(o->val_path, lam, &nl));
  if (v->m != n) return hy_err(HY_EINPUT, "%s: %lld rows but M (%s) is %lld x %lld", o->vec_path, (long long)v->m, o->m_path, (long long)n, (long long)n);
  int nev = (int)(o->nev > 0 ? o->nev : v->n);
  if (nev > v->n || nev > nl || nev < 2)
    return hy_err(HY_EINPUT, "%s / %s: %lld vectors and %lld values; -nev %d needs that many (>= 2)",
                  o->vec_path, o->val_path, (long long)v->n, (long long)nl, nev);
  printf("hybrid-validate lle\n  M  %s: %lld x %lld\n  eigenvectors %s (%d used), eigenvalues %s\n",
         o->m_path, (long long)n, (long long)n, o->vec_path, nev, o->val_path);

  ST st;
  KSP ksp;
  PC pc;
  VALIDATE_PETSC(EPSCreate(PETSC_COMM_SELF, eps));
  VALIDATE_PETSC(EPSSetOperators(*eps, *M, NULL));
  VALIDATE_PETSC(EPSSetProblemType(*eps, EPS_HEP));
  VALIDATE_PETSC(EPSSetType(*eps, EPSKRYLOVSCHUR));
  VALIDATE_PETSC(EPSSetDimensions(*eps, nev, PETSC_DEFAULT, PETSC_DEFAULT));
  VALIDATE_PETSC(EPSSetWhichEigenpairs(*eps, EPS_TARGET_MAGNITUDE));
  VALIDATE_PETSC(EPSSetTarget(*eps, -o->shift));
  VALIDATE_PETSC(EPSSetTolerances(*eps, o->epstol, 1000));
  VALIDATE_PETSC(EPSSetConvergenceTest(*eps, EPS_CONV_NORM));
  VALIDATE_PETSC(EPSGetST(*eps, &st));
  VALIDATE_PETSC(STSetType(st, STSINVERT));
  VALIDATE_PETSC(STGetKSP(st, &ksp));
  VALIDATE_PETSC(KSPSetType(ksp, KSPPREONLY));
  VALIDATE_PETSC(KSPGetPC(ksp, &pc));
  VALIDATE_PETSC(PCSetType(pc, PCLU));
  static const char *const pref[] = { MATSOLVERUMFPACK, MATSOLVERMUMPS, MATSOLVERSUPERLU, MATSOLVERPETSC };
  for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
    PetscBool avail = PETSC_FALSE;
    VALIDATE_PETSC(MatGetFactorAvailable(*M, pref[i], MAT_FACTOR_LU, &avail));
    if (avail) { VALIDATE_PETSC(PCFactorSetMatSolverType(pc, pref[i])); break; }
  }
  VALIDATE_PETSC(EPSSetFromOptions(*eps));
  VALIDATE_PETSC(EPSSolve(*eps));
  PetscInt nconv = 0, its = 0;
  VALIDATE_PETSC(EPSGetConverged(*eps, &nconv));
  VALIDATE_PETSC(EPSGetIterationNumber(*eps, &its));
  MatSolverType stype = NULL;
  VALIDATE_PETSC(PCFactorGetMatSolverType(pc, &stype));
  printf("  reference: SLEPc Krylov-Schur, ST sinvert at target %.3g (LU: %s), tol %.1e (EPS_CONV_NORM): "
         "%d converged in %d iteration(s)\n", -o->shift, stype ? stype : "?", o->epstol, (int)nconv, (int)its);
  if (nconv < nev) return hy_err(HY_ENUMERIC, "SLEPc converged %d of %d eigenpairs", (int)nconv, nev);

  *qs = malloc((size_t)n * nev * sizeof **qs);
  if (!*qs) return hy_err(HY_ESYS, "out of memory");
  double *ls = malloc((size_t)nev * sizeof *ls);
  if (!ls) return hy_err(HY_ESYS, "out of memory");
  Vec xr;
  VALIDATE_PETSC(MatCreateVecs(*M, &xr, NULL));
  for (int j = 0; j < nev; j++) {
    PetscScalar kr;
    VALIDATE_PETSC(EPSGetEigenpair(*eps, j, &kr, NULL, xr, NULL));
    ls[j] = (double)PetscRealPart(kr);
    const PetscScalar *xa;
    VALIDATE_PETSC(VecGetArrayRead(xr, &xa));
    for (int64_t i = 0; i < n; i++) (*qs)[(size_t)j * n + i] = (double)PetscRealPart(xa[i]);
    VALIDATE_PETSC(VecRestoreArrayRead(xr, &xa));
  }
  VALIDATE_PETSC(VecDestroy(&xr));
  /* SLEPc orders by distance to the target: ascending here (all >= 0 > target) */
  int worst_j = -1;
  double worst = 0;
  printf("  %3s %24s %24s %12s\n", "j", "lambda (run)", "lambda (SLEPc)", "difference");
  for (int j = 0; j < nev; j++) {
    double d = fabs((*lam)[j] - ls[j]);
    double rel = j == 0 ? d / fabs(ls[1]) : d / fabs(ls[j]);
    printf("  %3d %24.16e %24.16e %12.3e%s\n", j, (*lam)[j], ls[j], rel, j == 0 ? " (absolute / lambda_1)" : " (relative)");
    if (!(rel <= worst)) { worst = rel; worst_j = j; }
  }
  free(ls);
  lle_mgs(n, nev, *qs);
  double *vv = malloc((size_t)n * nev * sizeof *vv);
  if (!vv) return hy_err(HY_ESYS, "out of memory");
  memcpy(vv, v->a, (size_t)n * nev * sizeof *vv);
  lle_mgs(n, nev, vv);
  double sf = lle_sin_angle(n, nev, *qs, vv);
  double ang = sf >= 1 ? 1.5707963267948966 : asin(sf);
  /* the embedding vectors alone (1..nev-1) */
  double sf2 = lle_sin_angle(n, nev - 1, *qs + n, vv + n);
  free(vv);
  printf("  largest principal angle between the eigenvector sets <= asin ||(I - Q Q^T) V||_F = %.3e rad "
         "(embedding vectors 1..%d alone: %.3e)\n", ang, nev - 1, sf2 >= 1 ? 1.5707963267948966 : asin(sf2));
  fflush(stdout);
  int ok = worst <= o->tol && ang <= o->angle;
  return validate_verdict(ok, "lle: eigenvalues agree to %.3e (j = %d) %s %.1e, subspace angle %.3e rad %s %.1e (vs SLEPc sinvert)",
                          worst, worst_j, worst <= o->tol ? "<=" : ">", o->tol, ang, ang <= o->angle ? "<=" : ">", o->angle);
}

/* hybrid-validate lle -M FILE -vecs FILE -vals FILE [-nev N] [-tol T] [-angle A] [-shift S].
 * Local. */
int validate_lle(int argc, char **argv) {
  lle_opts o = { NULL, NULL, NULL, 1e-6, 1e-6, 1e-10, 1e-13, 0 };
  const validate_opt opts[] = {
      {"M", VALIDATE_OPT_STR, &o.m_path, 1, "FILE", "M = (I-W)^T (I-W) written by hybrid ([output] matrix)"},
      {"vecs", VALIDATE_OPT_STR, &o.vec_path, 1, "FILE", "the run's eigenvectors, n x (d+1) ([output] eigvecs)"},
      {"vals", VALIDATE_OPT_STR, &o.val_path, 1, "FILE", "the run's eigenvalues ([output] eigvals)"},
      {"nev", VALIDATE_OPT_INT, &o.nev, 0, "N", "eigenpairs to compare (default: all columns given)"},
      {"tol", VALIDATE_OPT_REAL, &o.tol, 0, "T", "largest relative eigenvalue difference (1e-6)"},
      {"angle", VALIDATE_OPT_REAL, &o.angle, 0, "A", "largest principal angle in radians (1e-6)"},
      {"shift", VALIDATE_OPT_REAL, &o.shift, 0, "S", "SLEPc's target is -S (1e-10; M is singular at 0)"},
      {"epstol", VALIDATE_OPT_REAL, &o.epstol, 0, "E", "SLEPc's tolerance, relative to ||M|| (1e-13)"},
      {NULL, 0, NULL, 0, NULL, NULL}};
  int rc = validate_args_parse(argc, argv, opts, "-M FILE -vecs FILE -vals FILE [-nev N] [-tol T] [-angle A] [-shift S] [-epstol E]");
  if (rc != HY_OK) return rc;
  if (!(o.tol >= 0) || !(o.angle >= 0)) return hy_err(HY_EUSAGE, "lle: -tol and -angle must be >= 0");
  if (!(o.shift >= 0)) return hy_err(HY_EUSAGE, "lle: -shift %g must be >= 0", o.shift);
  Mat M = NULL;
  EPS eps = NULL;
  double *qs = NULL, *lam = NULL;
  hy_dense v = { 0, 0, NULL };
  rc = lle_check(&o, &M, &eps, &qs, &v, &lam);
  EPSDestroy(&eps);
  MatDestroy(&M);
  free(qs);
  free(lam);
  io_dense_free(&v);
  return rc;
}
