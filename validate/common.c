/* common.c - what the subcommands of hybrid-validate share: option parsing, PETSc error
 * capture, conversion of app/io matrices and vectors to PETSc objects, norms, the verdict. */
#include "validate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- options */

/* Print the usage of a subcommand: synopsis and one line per option.  Local. */
static void args_usage(FILE *fp, const char *cmd, const validate_opt *opts, const char *synopsis) {
  fprintf(fp, "usage: hybrid-validate %s %s [-- PETSc options]\n", cmd, synopsis);
  for (const validate_opt *o = opts; o->name; o++) {
    char lhs[64];
    snprintf(lhs, sizeof lhs, "-%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(fp, "  %-16s %s%s\n", lhs, o->help, o->required ? " (required)" : "");
  }
}

/* Parse the options of a subcommand into the destinations of opts.  Local. */
int validate_args_parse(int argc, char **argv, const validate_opt *opts, const char *synopsis) {
  const char *cmd = argv[0];
  int nopt = 0;
  while (opts[nopt].name) nopt++;
  int given[64] = {0};
  if (nopt > 64) return hy_err(HY_ESYS, "validate_args_parse: more than 64 options");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "-help") || !strcmp(a, "--help")) {
      args_usage(stdout, cmd, opts, synopsis);
      return VALIDATE_HELP;
    }
    if (a[0] != '-') {
      args_usage(stderr, cmd, opts, synopsis);
      return hy_err(HY_EUSAGE, "%s: unexpected argument '%s' (options start with '-')", cmd, a);
    }
    int k = 0;
    while (k < nopt && strcmp(a + 1, opts[k].name)) k++;
    if (k == nopt) {
      args_usage(stderr, cmd, opts, synopsis);
      return hy_err(HY_EUSAGE, "%s: unknown option '%s'", cmd, a);
    }
    const validate_opt *o = &opts[k];
    if (given[k]) return hy_err(HY_EUSAGE, "%s: option '%s' given twice", cmd, a);
    given[k] = 1;
    if (o->kind == VALIDATE_OPT_FLAG) {
      *(int *)o->dest = 1;
      continue;
    }
    if (i + 1 >= argc)
      return hy_err(HY_EUSAGE, "%s: option '%s' needs a value (%s)", cmd, a,
                    o->arg ? o->arg : "value");
    const char *v = argv[++i];
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case VALIDATE_OPT_STR:
      if (!v[0]) return hy_err(HY_EUSAGE, "%s: option '%s' needs a non-empty value", cmd, a);
      *(const char **)o->dest = v;
      break;
    case VALIDATE_OPT_REAL: {
      double d = strtod(v, &end);
      if (end == v || *end || errno || !isfinite(d))
        return hy_err(HY_EUSAGE, "%s: option '%s': '%s' is not a finite real number", cmd, a, v);
      *(double *)o->dest = d;
      break;
    }
    case VALIDATE_OPT_INT: {
      long long n = strtoll(v, &end, 10);
      if (end == v || *end || errno)
        return hy_err(HY_EUSAGE, "%s: option '%s': '%s' is not an integer", cmd, a, v);
      *(long long *)o->dest = n;
      break;
    }
    default:
      return hy_err(HY_ESYS, "%s: option '%s' has an unknown kind %d", cmd, a, o->kind);
    }
  }
  for (int k = 0; k < nopt; k++)
    if (opts[k].required && !given[k]) {
      args_usage(stderr, cmd, opts, synopsis);
      return hy_err(HY_EUSAGE, "%s: option '-%s' is required", cmd, opts[k].name);
    }
  return HY_OK;
}

/* ---------------------------------------------------------------- PETSc errors */

static char petsc_msg[1024];
static char petsc_where[512];
static int petsc_have;

/* Error handler: remember the first (initial) error's message and origin; print nothing.
 * Local. */
static PetscErrorCode petsc_record(MPI_Comm comm, int line, const char *fun, const char *file,
                                   PetscErrorCode n, PetscErrorType p, const char *mess,
                                   void *ctx) {
  (void)comm;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL || !petsc_have) {
    const char *text = NULL;
    if (!mess || !mess[0]) PetscErrorMessage(n, &text, NULL);
    snprintf(petsc_msg, sizeof petsc_msg, "%s", mess && mess[0] ? mess : (text ? text : "error"));
    snprintf(petsc_where, sizeof petsc_where, "%s() at %s:%d", fun ? fun : "?", file ? file : "?",
             line);
    petsc_have = 1;
  }
  return n;
}

/* Install the recording error handler.  Local. */
PetscErrorCode validate_petsc_errors_init(void) {
  return PetscPushErrorHandler(petsc_record, NULL);
}

/* Map a PETSc error code to an HY_* code and record the message.  Local. */
int validate_petsc_fail(PetscErrorCode ierr, const char *expr, const char *file, int line) {
  int code;
  switch ((int)ierr) {
  case PETSC_ERR_MAT_LU_ZRPVT:
  case PETSC_ERR_MAT_CH_ZRPVT:
  case PETSC_ERR_FP:
  case PETSC_ERR_NOT_CONVERGED:
  case PETSC_ERR_CONV_FAILED:
    code = HY_ENUMERIC;
    break;
  case PETSC_ERR_FILE_UNEXPECTED:
  case PETSC_ERR_FILE_READ:
  case PETSC_ERR_FILE_OPEN:
    code = HY_EINPUT;
    break;
  default:
    code = HY_ESYS;
  }
  const char *text = NULL;
  if (!petsc_have) PetscErrorMessage(ierr, &text, NULL);
  const char *hint = "";
  if (ierr == PETSC_ERR_MAT_LU_ZRPVT || ierr == PETSC_ERR_MAT_CH_ZRPVT)
    hint = " (a zero pivot: is the matrix singular?)";
  if (petsc_have)
    hy_err_at(code, file, line, "PETSc error %d in %s: %s%s [%s]", (int)ierr, expr, petsc_msg,
              hint, petsc_where);
  else
    hy_err_at(code, file, line, "PETSc error %d in %s: %s", (int)ierr, expr,
              text ? text : "error");
  petsc_have = 0;
  return code;
}

/* ---------------------------------------------------------------- conversions */

/* CSR -> MATSEQAIJ with exact preallocation.  Local. */
int validate_csr_to_mat(const hy_csr *a, Mat *A) {
  if (a->m > PETSC_MAX_INT || a->n > PETSC_MAX_INT || a->nnz > PETSC_MAX_INT)
    return hy_err(HY_EINPUT, "matrix %lld x %lld with %lld entries exceeds PETSc's 32-bit indices",
                  (long long)a->m, (long long)a->n, (long long)a->nnz);
  PetscInt m = (PetscInt)a->m, n = (PetscInt)a->n;
  PetscInt *nnz = NULL, *cols = NULL, maxrow = 0;
  VALIDATE_PETSC(PetscMalloc1(m + 1, &nnz));
  for (PetscInt i = 0; i < m; i++) {
    nnz[i] = (PetscInt)(a->rowptr[i + 1] - a->rowptr[i]);
    if (nnz[i] > maxrow) maxrow = nnz[i];
  }
  VALIDATE_PETSC(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 0, nnz, A));
  VALIDATE_PETSC(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  VALIDATE_PETSC(PetscMalloc1(maxrow + 1, &cols));
  for (PetscInt i = 0; i < m; i++) {
    int64_t beg = a->rowptr[i];
    for (PetscInt k = 0; k < nnz[i]; k++) cols[k] = (PetscInt)a->colind[beg + k];
    VALIDATE_PETSC(MatSetValues(*A, 1, &i, nnz[i], cols, a->val + beg, INSERT_VALUES));
  }
  VALIDATE_PETSC(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  VALIDATE_PETSC(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  VALIDATE_PETSC(PetscFree(cols));
  VALIDATE_PETSC(PetscFree(nnz));
  return HY_OK;
}

/* Dense column-major -> MATSEQDENSE (same layout, lda = m).  Local. */
int validate_dense_to_mat(const hy_dense *a, Mat *A) {
  if (a->m > PETSC_MAX_INT || a->n > PETSC_MAX_INT)
    return hy_err(HY_EINPUT, "matrix %lld x %lld exceeds PETSc's 32-bit indices",
                  (long long)a->m, (long long)a->n);
  PetscScalar *p = NULL;
  PetscInt lda = 0;
  VALIDATE_PETSC(MatCreateSeqDense(PETSC_COMM_SELF, (PetscInt)a->m, (PetscInt)a->n, NULL, A));
  VALIDATE_PETSC(MatDenseGetLDA(*A, &lda));
  VALIDATE_PETSC(MatDenseGetArrayWrite(*A, &p));
  for (int64_t j = 0; j < a->n; j++)
    memcpy(p + j * (int64_t)lda, a->a + j * a->m, (size_t)a->m * sizeof(double));
  VALIDATE_PETSC(MatDenseRestoreArrayWrite(*A, &p));
  VALIDATE_PETSC(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  VALIDATE_PETSC(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  return HY_OK;
}

/* double array -> sequential Vec (copied).  Local. */
int validate_array_to_vec(const double *x, int64_t n, Vec *v) {
  if (n > PETSC_MAX_INT)
    return hy_err(HY_EINPUT, "vector of %lld entries exceeds PETSc's 32-bit indices", (long long)n);
  PetscScalar *p = NULL;
  VALIDATE_PETSC(VecCreateSeq(PETSC_COMM_SELF, (PetscInt)n, v));
  VALIDATE_PETSC(VecGetArrayWrite(*v, &p));
  if (n) memcpy(p, x, (size_t)n * sizeof(double));
  VALIDATE_PETSC(VecRestoreArrayWrite(*v, &p));
  return HY_OK;
}

/* Read a matrix file through app/io and convert it.  Local. */
int validate_load_mat(const char *path, int dense, Mat *A, int64_t *m, int64_t *n) {
  int rc;
  if (dense) {
    hy_dense d = {0};
    HY_CALL(io_read_dense(path, &d));
    rc = validate_dense_to_mat(&d, A);
    if (m) *m = d.m;
    if (n) *n = d.n;
    io_dense_free(&d);
  } else {
    hy_csr c = {0};
    HY_CALL(io_read_csr(path, &c));
    rc = validate_csr_to_mat(&c, A);
    if (m) *m = c.m;
    if (n) *n = c.n;
    io_csr_free(&c);
  }
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  return rc;
}

/* Read a vector file through app/io and convert it.  Local. */
int validate_load_vec(const char *path, Vec *v, int64_t *n) {
  double *x = NULL;
  int64_t len = 0;
  HY_CALL(io_read_vec(path, &x, &len));
  int rc = validate_array_to_vec(x, len, v);
  free(x);
  if (rc != HY_OK) hy_err_trace(__FILE__, __LINE__);
  *n = len;
  return rc;
}

/* ---------------------------------------------------------------- .npy files */

/* Whether the file starts with the .npy magic.  Local. */
int validate_is_npy(const char *path) {
  unsigned char pre[6];
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  int is = fread(pre, 1, 6, f) == 6 && !memcmp(pre, "\x93NUMPY", 6);
  fclose(f);
  return is;
}

/* Header by app/io's strict reader, then dtype, order and rank; the data read whole.  Local. */
int validate_read_npy(const char *path, const char *noun, int ndim, const char *const *descrs, io_npy_info *h,
                      int *which, void **data) {
  *data = NULL;
  HY_CALL(io_npy_read_header(path, noun, h));
  char allowed[64] = "";
  *which = -1;
  for (int i = 0; descrs[i]; i++) {
    if (!strcmp(h->descr, descrs[i])) *which = i;
    snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? " " : "", descrs[i]);
  }
  if (*which < 0) return hy_err(HY_EINPUT, "%s: .npy dtype '%s' is not allowed; allowed: %s", path, h->descr, allowed);
  if (h->fortran) return hy_err(HY_EINPUT, "%s: .npy fortran_order is True; only C order is read", path);
  if (h->ndim != ndim) return hy_err(HY_EINPUT, "%s: .npy has %d dimension(s); a %d-dimensional array is needed", path, h->ndim, ndim);
  FILE *f = fopen(path, "rb");
  if (!f) return hy_err(HY_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  void *a = malloc((size_t)h->bytes + 8);
  if (!a) {
    fclose(f);
    return hy_err(HY_ESYS, "out of memory for %llu %s of %s", (unsigned long long)h->count, noun, path);
  }
  int ok = fseek(f, h->data_off, SEEK_SET) == 0 && fread(a, 1, (size_t)h->bytes, f) == (size_t)h->bytes;
  fclose(f);
  if (!ok) {
    free(a);
    return hy_err(HY_EINPUT, "%s: the .npy data could not be read (%llu bytes)", path, (unsigned long long)h->bytes);
  }
  *data = a;
  return HY_OK;
}

/* ---------------------------------------------------------------- norms */

/* Frobenius norm of A.  Local. */
int validate_mat_norm_fro(Mat A, double *nrm) {
  PetscReal r = 0;
  VALIDATE_PETSC(MatNorm(A, NORM_FROBENIUS, &r));
  *nrm = (double)r;
  return HY_OK;
}

/* Residual norm and normwise backward error of x for A x = b.  Local. */
int validate_residual(Mat A, Vec x, Vec b, double a_fro, double *res, double *berr) {
  Vec r = NULL;
  PetscReal rn = 0, xn = 0, bn = 0;
  VALIDATE_PETSC(VecDuplicate(b, &r));
  VALIDATE_PETSC(MatMult(A, x, r));
  VALIDATE_PETSC(VecAXPY(r, -1.0, b));
  VALIDATE_PETSC(VecNorm(r, NORM_2, &rn));
  VALIDATE_PETSC(VecNorm(x, NORM_2, &xn));
  VALIDATE_PETSC(VecNorm(b, NORM_2, &bn));
  VALIDATE_PETSC(VecDestroy(&r));
  *res = (double)rn;
  double den = a_fro * (double)xn + (double)bn;
  *berr = den > 0 ? (double)rn / den : (rn > 0 ? INFINITY : 0.0);
  return HY_OK;
}

/* ---------------------------------------------------------------- verdict */

/* Print the last line PASSED / FAILED.  Local. */
int validate_verdict(int passed, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(passed ? "PASSED: " : "FAILED: ", stdout);
  vfprintf(stdout, fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
  fflush(stdout);
  return passed ? HY_OK : HY_EVALID;
}
