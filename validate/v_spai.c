/* v_spai.c - hybrid-validate spai: the spai workload's preconditioner and iteration count
 * against PETSc, and the paper's Table 5 (preconditioner comparison) for the same A and b.
 *
 *   hybrid-validate spai -A A.petsc -b b.mtx -M M.mtx [-iters N] [-slack S | -exact] [-tol 1e-7]
 *                        [-maxit 10000] [-only-m] [-- PETSc options]
 *
 * For each preconditioner: PETSc KSPBCGS with right preconditioning (A M y = b, x = M y; the
 * unpreconditioned residual, rtol = -tol, atol = 0, x0 = 0 as in the app), timing the setup
 * (PCSetUp) and the solve, and recomputing the true residual:
 *   M        our M applied by PCMAT (z = M r)          -- the check
 *   parasails hypre ParaSails (when PETSc has hypre; "n/a" otherwise)
 *   ilu0     PCILU, 0 levels (fails on zero pivots: reported, not fatal)
 *   jacobi   PCJACOBI
 *   none     PCNONE
 * Check (with -iters, the app's iteration count): |its(PETSc, M) - iters| <= max(-slack, 10%
 * of iters) (default slack 3) and PETSc converged iff the app did (-iters > 0 and < maxit);
 * -exact: the counts must be equal (pins where the app's BiCGSTAB stops: the same convergence
 * test, ||r_k|| <= tol ||b||, at the same iteration); without -iters: PETSc with M converges. */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *a_path, *b_path, *m_path;
  long long iters, maxit, slack;
  double tol;
  int only_m;
  int exact;            /* -exact: iterations equal, no slack */
} spai_vopts;

typedef struct {
  const char *name;
  int avail;            /* 0: n/a in this PETSc */
  int failed;           /* setup or solve raised an error (message kept) */
  char msg[160];
  double setup, solve;
  PetscInt its;
  KSPConvergedReason reason;
  double relres;        /* true ||b - A x|| / ||b|| */
} spai_vrow;

typedef struct {
  Mat A, M;
  Vec b, x, r;
} spai_vobjs;

/* One preconditioned BiCGSTAB solve with PETSc.  Local. */
static int spai_vsolve(const spai_vopts *o, spai_vobjs *s, const char *which, spai_vrow *row) {
  KSP ksp = NULL;
  PC pc;
  row->avail = 1;
  VALIDATE_PETSC(KSPCreate(PETSC_COMM_SELF, &ksp));
  int is_m = !strcmp(which, "M");
  VALIDATE_PETSC(KSPSetOperators(ksp, s->A, is_m ? s->M : s->A));
  VALIDATE_PETSC(KSPSetType(ksp, KSPBCGS));
  VALIDATE_PETSC(KSPSetPCSide(ksp, PC_RIGHT));
  VALIDATE_PETSC(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  VALIDATE_PETSC(KSPSetTolerances(ksp, o->tol, 0.0, 1e30, (PetscInt)o->maxit));
  VALIDATE_PETSC(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
  VALIDATE_PETSC(KSPGetPC(ksp, &pc));
  if (is_m) {
    VALIDATE_PETSC(PCSetType(pc, PCMAT));
  } else if (!strcmp(which, "parasails")) {
    PetscBool has = PETSC_FALSE;
    VALIDATE_PETSC(PetscHasExternalPackage("hypre", &has));
    if (!has) {
      row->avail = 0;
      VALIDATE_PETSC(KSPDestroy(&ksp));
      return HY_OK;
    }
    VALIDATE_PETSC(PCSetType(pc, PCHYPRE));
    VALIDATE_PETSC(PCHYPRESetType(pc, "parasails"));
  } else if (!strcmp(which, "ilu0")) {
    VALIDATE_PETSC(PCSetType(pc, PCILU));
    VALIDATE_PETSC(PCFactorSetLevels(pc, 0));
  } else if (!strcmp(which, "jacobi")) {
    VALIDATE_PETSC(PCSetType(pc, PCJACOBI));
  } else {
    VALIDATE_PETSC(PCSetType(pc, PCNONE));
  }
  VALIDATE_PETSC(KSPSetFromOptions(ksp));
  VALIDATE_PETSC(KSPSetErrorIfNotConverged(ksp, PETSC_FALSE));
  VALIDATE_PETSC(VecZeroEntries(s->x));
  double t0 = MPI_Wtime();
  PetscErrorCode ierr = KSPSetUp(ksp);
  if (!ierr) ierr = PCSetUp(pc);
  double t1 = MPI_Wtime();
  if (!ierr) ierr = KSPSolve(ksp, s->b, s->x);
  double t2 = MPI_Wtime();
  if (ierr) {
    /* a failing preconditioner (zero pivot in ILU(0), say) is a row of the table, not fatal */
    validate_petsc_fail(ierr, which, __FILE__, __LINE__);
    row->failed = 1;
    snprintf(row->msg, sizeof row->msg, "%.150s", hy_err_msg());
    hy_err_clear();
    KSPDestroy(&ksp);
    return HY_OK;
  }
  row->setup = t1 - t0;
  row->solve = t2 - t1;
  VALIDATE_PETSC(KSPGetIterationNumber(ksp, &row->its));
  VALIDATE_PETSC(KSPGetConvergedReason(ksp, &row->reason));
  double a_fro = 0, res = 0, berr = 0, bn = 0;
  VALIDATE_PETSC(VecNorm(s->b, NORM_2, &bn));
  HY_CALL(validate_residual(s->A, s->x, s->b, a_fro, &res, &berr));
  row->relres = bn > 0 ? res / bn : res;
  VALIDATE_PETSC(KSPDestroy(&ksp));
  return HY_OK;
}

/* Format one cell.  Local. */
static const char *cell(char *buf, size_t len, const spai_vrow *r, int what) {
  if (!r->avail) return "n/a";
  if (r->failed) return "error";
  switch (what) {
  case 0: snprintf(buf, len, "%.4f", r->setup); break;
  case 1: snprintf(buf, len, "%.4f", r->solve); break;
  case 2:
    if (r->reason > 0) snprintf(buf, len, "%d", (int)r->its);
    else snprintf(buf, len, ">%d", (int)r->its);
    break;
  default: snprintf(buf, len, "%.4f", r->setup + r->solve); break;
  }
  return buf;
}

/* Load, solve with every preconditioner, print the table and decide.  Local. */
static int spai_vrun(const spai_vopts *o, spai_vobjs *s, int *passed, char *why, size_t wlen) {
  int64_t m = 0, n = 0, mm = 0, mn = 0, nb = 0;
  HY_CALL(validate_load_mat(o->a_path, 0, &s->A, &m, &n));
  if (m != n || n == 0)
    return hy_err(HY_EINPUT, "%s: A is %lld x %lld; spai needs a square, non-empty matrix",
                  o->a_path, (long long)m, (long long)n);
  HY_CALL(validate_load_mat(o->m_path, 0, &s->M, &mm, &mn));
  if (mm != n || mn != n)
    return hy_err(HY_EINPUT, "%s: M is %lld x %lld but A (%s) is %lld x %lld", o->m_path,
                  (long long)mm, (long long)mn, o->a_path, (long long)n, (long long)n);
  HY_CALL(validate_load_vec(o->b_path, &s->b, &nb));
  if (nb != n)
    return hy_err(HY_EINPUT, "%s: b has %lld entries but A (%s) is %lld x %lld", o->b_path,
                  (long long)nb, o->a_path, (long long)n, (long long)n);
  VALIDATE_PETSC(VecDuplicate(s->b, &s->x));
  MatInfo ia, im;
  VALIDATE_PETSC(MatGetInfo(s->A, MAT_LOCAL, &ia));
  VALIDATE_PETSC(MatGetInfo(s->M, MAT_LOCAL, &im));
  printf("hybrid-validate spai\n  A  %s: %lld x %lld, nnz %.0f\n  M  %s: nnz %.0f (nnz(M)/nnz(A) "
         "= %.3f)\n  b  %s\n  KSPBCGS, right preconditioning, rtol %.1e, max %lld iterations\n",
         o->a_path, (long long)n, (long long)n, ia.nz_used, o->m_path, im.nz_used,
         im.nz_used / (ia.nz_used > 0 ? ia.nz_used : 1), o->b_path, o->tol, o->maxit);
  const char *names[] = { "M", "parasails", "ilu0", "jacobi", "none" };
  const char *titles[] = { "SPAI (ours, PCMAT)", "ParaSails", "ILU(0)", "Jacobi", "none" };
  spai_vrow rows[5];
  memset(rows, 0, sizeof rows);
  int nrow = o->only_m ? 1 : 5;
  for (int i = 0; i < nrow; i++) {
    rows[i].name = names[i];
    HY_CALL(spai_vsolve(o, s, names[i], &rows[i]));
  }
  /* the paper's Table 5 layout: preconditioners across, setup / solve / iterations / total down */
  printf("\nTable 5 layout (PETSc, seconds; '>N': not converged after N)\n%-12s", "");
  for (int i = 0; i < nrow; i++) printf(" %18s", titles[i]);
  const char *what[] = { "setup", "solve", "iterations", "total" };
  for (int w = 0; w < 4; w++) {
    printf("\n%-12s", what[w]);
    for (int i = 0; i < nrow; i++) {
      char buf[64];
      printf(" %18s", cell(buf, sizeof buf, &rows[i], w));
    }
  }
  printf("\n%-12s", "true resid.");
  for (int i = 0; i < nrow; i++) {
    if (rows[i].avail && !rows[i].failed) printf(" %18.3e", rows[i].relres);
    else printf(" %18s", rows[i].avail ? "error" : "n/a");
  }
  printf("\n");
  for (int i = 0; i < nrow; i++)
    if (rows[i].failed) printf("  %s: %s\n", titles[i], rows[i].msg);
  if (!rows[0].avail || rows[0].failed) {
    snprintf(why, wlen, "PETSc BiCGSTAB with our M failed: %s", rows[0].msg);
    *passed = 0;
    return HY_OK;
  }
  int pconv = rows[0].reason > 0;
  if (o->iters < 0) {
    *passed = pconv;
    snprintf(why, wlen, "PETSc BiCGSTAB with our M %s in %d iterations (true residual %.3e)",
             pconv ? "converged" : "did not converge", (int)rows[0].its, rows[0].relres);
    return HY_OK;
  }
  int ours_conv = o->iters < o->maxit;
  long long slack = o->slack;
  if (o->exact) slack = 0;
  else if (0.1 * o->iters > slack) slack = (long long)(0.1 * o->iters);
  long long d = (long long)rows[0].its - o->iters;
  if (d < 0) d = -d;
  *passed = (pconv == ours_conv) && (!pconv || d <= slack);
  snprintf(why, wlen, "iterations with our M: PETSc %d%s, hybrid %lld%s (|difference| %lld, "
           "allowed %lld)", (int)rows[0].its, pconv ? "" : " (not converged)", o->iters,
           ours_conv ? "" : " (not converged)", d, slack);
  return HY_OK;
}

/* The subcommand.  Local. */
int validate_spai(int argc, char **argv) {
  spai_vopts o = { .iters = -1, .maxit = 10000, .slack = 3, .tol = 1e-7 };
  const validate_opt opts[] = {
    { "A", VALIDATE_OPT_STR, &o.a_path, 1, "FILE", "the matrix (the run's [output] matrix)" },
    { "b", VALIDATE_OPT_STR, &o.b_path, 1, "FILE", "the right-hand side ([output] rhs)" },
    { "M", VALIDATE_OPT_STR, &o.m_path, 1, "FILE", "the preconditioner ([output] preconditioner)" },
    { "iters", VALIDATE_OPT_INT, &o.iters, 0, "N", "the app's BiCGSTAB iterations (check)" },
    { "slack", VALIDATE_OPT_INT, &o.slack, 0, "S", "allowed difference (max with 10%; default 3)" },
    { "tol", VALIDATE_OPT_REAL, &o.tol, 0, "T", "relative residual (default 1e-7, the app's)" },
    { "maxit", VALIDATE_OPT_INT, &o.maxit, 0, "N", "iteration limit (default 10000)" },
    { "only-m", VALIDATE_OPT_FLAG, &o.only_m, 0, NULL, "only our M (no comparison table)" },
    { "exact", VALIDATE_OPT_FLAG, &o.exact, 0, NULL, "-iters must equal PETSc's count (no slack)" },
    { NULL, 0, NULL, 0, NULL, NULL }
  };
  int rc = validate_args_parse(argc, argv, opts,
                               "spai -A FILE -b FILE -M FILE [-iters N] [-slack S | -exact] "
                               "[-tol T] [-maxit N] [-only-m]");
  if (rc != HY_OK) return rc;
  if (!(o.tol > 0 && o.tol < 1)) return hy_err(HY_EUSAGE, "spai: -tol %g is not in (0, 1)", o.tol);
  if (o.maxit < 1) return hy_err(HY_EUSAGE, "spai: -maxit %lld is not positive", o.maxit);
  spai_vobjs s;
  memset(&s, 0, sizeof s);
  int passed = 0;
  char why[400] = "";
  rc = spai_vrun(&o, &s, &passed, why, sizeof why);
  MatDestroy(&s.A);
  MatDestroy(&s.M);
  VecDestroy(&s.b);
  VecDestroy(&s.x);
  VecDestroy(&s.r);
  if (rc != HY_OK) return rc;
  return validate_verdict(passed, "%s", why);
}
