/* v_solve.c - hybrid-validate solve: solve A x = b with a PETSc direct solver and compare a
 * given x with it.  KSPPREONLY + PCLU: on MATSEQAIJ with the first pivoting sparse LU this
 * PETSc has (UMFPACK, MUMPS, SuperLU; PETSc's own LU, which does not pivot, last), on
 * MATSEQDENSE (-dense) LAPACK getrf with partial pivoting.  "-- -pc_factor_mat_solver_type X"
 * overrides the choice.
 *
 * Decision: the reference x_p is trusted only when its normwise backward error
 * ||A x_p - b|| / (||A||_F ||x_p|| + ||b||) is at most -berr and its relative residual
 * ||A x_p - b|| / ||b|| at most -rres (else exit 3: A is singular or too ill-conditioned for
 * the check to mean anything).  With -x the check passes when ||x - x_p|| / ||x_p|| <= -tol
 * (exit 4 otherwise); without -x it passes when the reference solve is trusted. */
#include "validate.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

typedef struct {
  const char *a_path, *b_path, *x_path;
  double tol, berr_max, rres_max;
  int dense;
} solve_opts;

typedef struct {
  Mat A;
  Vec b, x, xp;
  KSP ksp;
} solve_objs;

/* Run the reference solve and the comparison on objects owned by the caller.  Local. */
static int solve_run(const solve_opts *o, solve_objs *s) {
  int64_t m = 0, n = 0, nb = 0, nx = 0;
  HY_CALL(validate_load_mat(o->a_path, o->dense, &s->A, &m, &n));
  if (m != n)
    return hy_err(HY_EINPUT, "%s: A is %lld x %lld; solve needs a square matrix", o->a_path,
                  (long long)m, (long long)n);
  if (n == 0) return hy_err(HY_EINPUT, "%s: A is empty (0 x 0)", o->a_path);
  HY_CALL(validate_load_vec(o->b_path, &s->b, &nb));
  if (nb != n)
    return hy_err(HY_EINPUT, "%s: b has %lld entries but A (%s) is %lld x %lld", o->b_path,
                  (long long)nb, o->a_path, (long long)n, (long long)n);
  if (o->x_path) {
    HY_CALL(validate_load_vec(o->x_path, &s->x, &nx));
    if (nx != n)
      return hy_err(HY_EINPUT, "%s: x has %lld entries but A (%s) is %lld x %lld", o->x_path,
                    (long long)nx, o->a_path, (long long)n, (long long)n);
  }

  double berr_max = !isnan(o->berr_max) ? o->berr_max : 1000.0 * (double)n * DBL_EPSILON;
  MatInfo info;
  VALIDATE_PETSC(MatGetInfo(s->A, MAT_LOCAL, &info));
  printf("hybrid-validate solve\n");
  printf("  A  %s: %lld x %lld, %.0f stored entries (%s)\n", o->a_path, (long long)n,
         (long long)n, info.nz_used, o->dense ? "MATSEQDENSE" : "MATSEQAIJ");
  printf("  b  %s\n", o->b_path);
  if (o->x_path) printf("  x  %s\n", o->x_path);

  /* reference: KSPPREONLY + PCLU; options after "--" may change it */
  PC pc;
  VALIDATE_PETSC(KSPCreate(PETSC_COMM_SELF, &s->ksp));
  VALIDATE_PETSC(KSPSetOperators(s->ksp, s->A, s->A));
  VALIDATE_PETSC(KSPSetType(s->ksp, KSPPREONLY));
  VALIDATE_PETSC(KSPGetPC(s->ksp, &pc));
  VALIDATE_PETSC(PCSetType(pc, PCLU));
  if (!o->dense) {
    /* the first pivoting sparse LU available; PETSc's own (no pivoting) as the last resort */
    static const char *const pref[] = {MATSOLVERUMFPACK, MATSOLVERMUMPS, MATSOLVERSUPERLU,
                                       MATSOLVERPETSC};
    for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
      PetscBool avail = PETSC_FALSE;
      VALIDATE_PETSC(MatGetFactorAvailable(s->A, pref[i], MAT_FACTOR_LU, &avail));
      if (avail) {
        VALIDATE_PETSC(PCFactorSetMatSolverType(pc, pref[i]));
        break;
      }
    }
  }
  VALIDATE_PETSC(KSPSetFromOptions(s->ksp));
  VALIDATE_PETSC(VecDuplicate(s->b, &s->xp));
  VALIDATE_PETSC(KSPSetUp(s->ksp));
  VALIDATE_PETSC(KSPSolve(s->ksp, s->b, s->xp));
  KSPConvergedReason reason;
  VALIDATE_PETSC(KSPGetConvergedReason(s->ksp, &reason));
  if (reason < 0) {
    PCFailedReason pcr = PC_NOERROR;
    VALIDATE_PETSC(PCGetFailedReason(pc, &pcr));
    return hy_err(HY_ENUMERIC, "%s: the PETSc LU solve failed: %s (%s); is A singular?",
                  o->a_path, KSPConvergedReasons[reason], PCFailedReasons[pcr]);
  }
  MatSolverType stype = NULL;
  VALIDATE_PETSC(PCFactorGetMatSolverType(pc, &stype));

  double a_fro, res_p, berr_p, b_n;
  PetscReal xp_n, b_nr;
  HY_CALL(validate_mat_norm_fro(s->A, &a_fro));
  HY_CALL(validate_residual(s->A, s->xp, s->b, a_fro, &res_p, &berr_p));
  VALIDATE_PETSC(VecNorm(s->xp, NORM_2, &xp_n));
  VALIDATE_PETSC(VecNorm(s->b, NORM_2, &b_nr));
  b_n = (double)b_nr;
  double rres_p = b_n > 0 ? res_p / b_n : res_p;
  printf("  reference: PETSc KSPPREONLY + PCLU (solver %s)\n", stype ? stype : "?");
  printf("  ||A||_F                              = %.6e\n", a_fro);
  printf("  ||b||_2                              = %.6e\n", b_n);
  printf("  ||x_petsc||_2                        = %.6e\n", (double)xp_n);
  printf("  ||A x_petsc - b|| / ||b||            = %.6e (limit -rres %.1e)\n", rres_p, o->rres_max);
  printf("  backward error of x_petsc            = %.6e (limit -berr %.1e)\n", berr_p,
         berr_max);
  if (!isfinite((double)xp_n))
    return hy_err(HY_ENUMERIC, "%s: the PETSc LU solution has non-finite entries (||x_petsc|| = "
                  "%g): A is singular", o->a_path, (double)xp_n);
  if (!(berr_p <= berr_max))
    return hy_err(HY_ENUMERIC, "%s: the PETSc LU solution has backward error %.3e > %.3e "
                  "(-berr): A is singular or too ill-conditioned for a reference solve",
                  o->a_path, berr_p, berr_max);
  if (!(rres_p <= o->rres_max))
    return hy_err(HY_ENUMERIC, "%s: the PETSc LU solution has relative residual %.3e > %.3e "
                  "(-rres): A is singular or too ill-conditioned for a reference solve",
                  o->a_path, rres_p, o->rres_max);

  if (!o->x_path)
    return validate_verdict(1, "PETSc LU solve of %s, backward error %.3e <= %.3e (no -x given)",
                            o->a_path, berr_p, berr_max);

  /* the given x against the reference */
  double res_x, berr_x;
  PetscReal x_n, d_n;
  HY_CALL(validate_residual(s->A, s->x, s->b, a_fro, &res_x, &berr_x));
  VALIDATE_PETSC(VecNorm(s->x, NORM_2, &x_n));
  Vec d;
  VALIDATE_PETSC(VecDuplicate(s->x, &d));
  VALIDATE_PETSC(VecWAXPY(d, -1.0, s->xp, s->x));
  VALIDATE_PETSC(VecNorm(d, NORM_2, &d_n));
  VALIDATE_PETSC(VecDestroy(&d));
  double rel = xp_n > 0 ? (double)d_n / (double)xp_n : (double)d_n;
  printf("  ||x||_2 (given)                      = %.6e\n", (double)x_n);
  printf("  ||A x - b|| / ||b|| (given x)        = %.6e\n", b_n > 0 ? res_x / b_n : res_x);
  printf("  backward error of x (given)          = %.6e\n", berr_x);
  printf("  ||x - x_petsc|| / ||x_petsc||        = %.6e (tol %.1e)\n", rel, o->tol);
  fflush(stdout);
  int ok = rel <= o->tol; /* false for NaN */
  return validate_verdict(ok, "||x - x_petsc|| / ||x_petsc|| = %.3e %s tol %.3e (%s vs PETSc LU)",
                          rel, ok ? "<=" : (isnan(rel) ? "is NaN, not <=" : ">"), o->tol,
                          o->x_path);
}

/* hybrid-validate solve -A FILE -b FILE [-x FILE] [-tol T] [-berr E] [-rres R] [-dense].
 * Local. */
int validate_solve(int argc, char **argv) {
  solve_opts o = {NULL, NULL, NULL, 1e-8, NAN, 1e-6, 0};
  const validate_opt opts[] = {
      {"A", VALIDATE_OPT_STR, &o.a_path, 1, "FILE",
       "matrix A (Matrix Market, .gz, or PETSc binary)"},
      {"b", VALIDATE_OPT_STR, &o.b_path, 1, "FILE", "right-hand side b (vector file)"},
      {"x", VALIDATE_OPT_STR, &o.x_path, 0, "FILE", "solution to check against PETSc's"},
      {"tol", VALIDATE_OPT_REAL, &o.tol, 0, "T",
       "pass when ||x - x_petsc||/||x_petsc|| <= T (1e-8)"},
      {"berr", VALIDATE_OPT_REAL, &o.berr_max, 0, "E",
       "largest backward error of PETSc's solution to trust it (1000 n eps)"},
      {"rres", VALIDATE_OPT_REAL, &o.rres_max, 0, "R",
       "largest ||A x_petsc - b||/||b|| to trust PETSc's solution (1e-6)"},
      {"dense", VALIDATE_OPT_FLAG, &o.dense, 0, NULL, "MATSEQDENSE + LAPACK LU instead of AIJ LU"},
      {NULL, 0, NULL, 0, NULL, NULL}};
  int rc = validate_args_parse(argc, argv, opts,
                               "-A FILE -b FILE [-x FILE] [-tol T] [-berr E] [-rres R] [-dense]");
  if (rc != HY_OK) return rc;
  if (!(o.tol >= 0)) return hy_err(HY_EUSAGE, "solve: -tol %g must be >= 0", o.tol);
  /* -berr not given (NaN): 1000 n eps, set once n is known */
  if (!isnan(o.berr_max) && !(o.berr_max > 0))
    return hy_err(HY_EUSAGE, "solve: -berr %g must be > 0", o.berr_max);
  if (!(o.rres_max > 0)) return hy_err(HY_EUSAGE, "solve: -rres %g must be > 0", o.rres_max);

  solve_objs s = {0};
  rc = solve_run(&o, &s);
  KSPDestroy(&s.ksp);
  VecDestroy(&s.xp);
  VecDestroy(&s.x);
  VecDestroy(&s.b);
  MatDestroy(&s.A);
  return rc;
}
