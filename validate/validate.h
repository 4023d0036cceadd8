/* validate.h - hybrid-validate: the PETSc/SLEPc reference checker.
 *
 * A separate executable (built with PETSc's own compiler, Debian: mpicc.openmpi, against PETSc/SLEPc, never with
 * the app's MPICH) that reads the same files as the app through app/io and recomputes a
 * result with PETSc or SLEPc.  One subcommand per check:
 *
 *     hybrid-validate SUBCOMMAND [options] [-- PETSc options]
 *
 * Exit codes are the app's (app/hybrid.h): 0 passed, 1 usage, 2 input data, 3 numerical
 * failure (e.g. the reference solver itself failed), 4 check failed, 5 system.  The last line
 * on stdout is "PASSED: ..." or "FAILED: ...".
 *
 * Adding a subcommand NAME: write validate/v_NAME.c defining
 *     int validate_NAME(int argc, char **argv)
 * (argv[0] is the subcommand name; return an HY_* code, or VALIDATE_HELP after printing
 * help) and add one line X(NAME, "one-line summary") to VALIDATE_SUBCOMMANDS below.
 * validate/CMakeLists.txt compiles every .c file of validate/, so no CMake edit is needed. */
#ifndef VALIDATE_H
#define VALIDATE_H

#include "hybrid.h"
#include "io/io.h"

#include <petscksp.h>

/* ---------------------------------------------------------------- the subcommand table */
#define VALIDATE_SUBCOMMANDS(X)                                                            \
  X(solve, "solve A x = b with a PETSc direct solver (LU) and compare with a given x")     \
  X(lle, "smallest eigenpairs of the LLE matrix M by SLEPc (Krylov-Schur, sinvert) vs a run's") \
  X(spai, "BiCGSTAB with the run's SPAI M (PCMAT) vs its iterations; Table 5: ParaSails, ILU(0), Jacobi, none") \
  X(sort, "a sort run's output vs PETSc's PetscSortInt/PetscParallelSortInt/PetscSortInt64/PetscSortReal of its input") \
  X(conv, "a conv run's output vs N PETSc MatMults of the sparse convolution matrix (boundary rule in the weights)") \
  X(gemm, "a gemm run's C vs PETSc's MatMatMult of its A and B on MATSEQDENSE (+ beta C0), elementwise bound")


/* subcommand entry points: int validate_NAME(int argc, char **argv) */
#define VALIDATE_DECLARE_(name, help) int validate_##name(int argc, char **argv);
VALIDATE_SUBCOMMANDS(VALIDATE_DECLARE_)
#undef VALIDATE_DECLARE_

/* returned by a subcommand (and validate_args_parse) after printing its help: exit 0 */
#define VALIDATE_HELP (-1)

/* ---------------------------------------------------------------- options of a subcommand */
enum { VALIDATE_OPT_STR, VALIDATE_OPT_REAL, VALIDATE_OPT_INT, VALIDATE_OPT_FLAG };

/* One option "-name": STR -> const char **, REAL -> double *, INT -> long long *, FLAG ->
 * int * (set to 1).  required: must be given.  arg: the value's name in the usage text. */
typedef struct {
  const char *name;   /* without the leading '-' */
  int kind;
  void *dest;
  int required;
  const char *arg;
  const char *help;
} validate_opt;

/* Parse argv[1..argc-1] of subcommand argv[0] against opts (terminated by {NULL}); defaults
 * are whatever *dest holds.  -h / -help / --help prints the usage (synopsis + opts) and
 * returns VALIDATE_HELP; an unknown option, a missing or malformed value or a missing
 * required option returns HY_EUSAGE with a message.  Local. */
int validate_args_parse(int argc, char **argv, const validate_opt *opts, const char *synopsis);

/* ---------------------------------------------------------------- PETSc calls */
/* Turn a PETSc error code into an HY_* code with the PETSc message recorded by hy_err
 * (memory -> HY_ESYS, zero pivot / floating point / not converged -> HY_ENUMERIC, file
 * format -> HY_EINPUT, else HY_ESYS).  Local. */
int validate_petsc_fail(PetscErrorCode ierr, const char *expr, const char *file, int line);

/* Call PETSc from a function returning an HY_* code. */
#define VALIDATE_PETSC(expr)                                                    \
  do {                                                                          \
    PetscErrorCode vp_ierr_ = (expr);                                           \
    if (vp_ierr_) return validate_petsc_fail(vp_ierr_, #expr, __FILE__, __LINE__); \
  } while (0)

/* Install the error handler that records PETSc's first message (and where it arose) for
 * validate_petsc_fail instead of printing PETSc's traceback.  Local. */
PetscErrorCode validate_petsc_errors_init(void);

/* ---------------------------------------------------------------- files -> PETSc objects */
/* Convert to a sequential PETSc matrix / vector (PETSC_COMM_SELF): CSR -> MATSEQAIJ,
 * dense -> MATSEQDENSE.  Local. */
int validate_csr_to_mat(const hy_csr *a, Mat *A);
int validate_dense_to_mat(const hy_dense *a, Mat *A);
int validate_array_to_vec(const double *x, int64_t n, Vec *v);

/* Read a matrix file (Matrix Market plain/gz or PETSc binary, by content) through app/io as
 * MATSEQDENSE (dense != 0) or MATSEQAIJ; *m, *n get its size (may be NULL).  Local. */
int validate_load_mat(const char *path, int dense, Mat *A, int64_t *m, int64_t *n);
/* Read a vector file through app/io as a sequential Vec of length *n.  Local. */
int validate_load_vec(const char *path, Vec *v, int64_t *n);

/* Whether path starts with the .npy magic (\x93NUMPY); 0 for a file that cannot be read.  Local. */
int validate_is_npy(const char *path);
/* A .npy file through app/io's strict header reader (io_npy_read_header: exactly descr /
 * fortran_order / shape, the data filling the rest of the file), C order and ndim dimensions
 * required, the dtype one of descrs (NULL-terminated; *which gets its index); *data (freed by
 * the caller) the h->bytes of data as stored; noun names the elements in messages.  Local. */
int validate_read_npy(const char *path, const char *noun, int ndim, const char *const *descrs, io_npy_info *h,
                      int *which, void **data);

/* Frobenius norm of A (any type).  Local. */
int validate_mat_norm_fro(Mat A, double *nrm);

/* ||A x - b||_2, and the normwise backward error ||A x - b|| / (||A||_F ||x|| + ||b||).
 * Local. */
int validate_residual(Mat A, Vec x, Vec b, double a_fro, double *res, double *berr);

/* ---------------------------------------------------------------- verdict */
/* Print "PASSED: ..." (passed != 0) or "FAILED: ..." as the last line; returns HY_OK or
 * HY_EVALID.  Local. */
int validate_verdict(int passed, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
