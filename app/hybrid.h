/* hybrid.h - what every part of the executable shares: exit codes, the error-check
 * macros (HY_CALL / HY_MPI / HY_CUDA-style), and the run context.
 *
 * Error discipline (DESIGN.md):
 *  - every fallible function returns an int code (HY_OK = 0 or one of the exit codes below);
 *  - hy_err() records the first message with file:line; HY_CALL() adds a trace line and
 *    passes the code up the stack;
 *  - errors that all ranks agree on are returned normally on every rank (hy_agree() makes a
 *    local code collective); main prints one message on rank 0 and every rank exits with it;
 *  - an error on one rank only that cannot be agreed on goes to hy_fatal(), which prints
 *    "hybrid: rank R on HOST: message (file:line)" and calls MPI_Abort. */
#ifndef HYBRID_H
#define HYBRID_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* exit codes, documented in README.md and hybrid --help */
enum {
  HY_OK = 0,
  HY_EUSAGE = 1,   /* usage or configuration */
  HY_EINPUT = 2,   /* input data (malformed or unreadable file contents) */
  HY_ENUMERIC = 3, /* numerical failure (singular matrix, breakdown) */
  HY_EVALID = 4,   /* validation failed (check did not pass) */
  HY_ESYS = 5      /* system: MPI, CUDA, memory, I/O */
};

/* Record an error: the first message wins (later ones are kept as trace lines).
 * Returns code, so that `return hy_err(HY_EINPUT, __FILE__, __LINE__, "...")` works.  Local. */
int hy_err_at(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define hy_err(code, ...) hy_err_at((code), __FILE__, __LINE__, __VA_ARGS__)

/* Append a trace line "  from file:line" to the current error.  Local. */
void hy_err_trace(const char *file, int line);
/* The recorded message ("" when none) and its origin "file:line".  Local. */
const char *hy_err_msg(void);
const char *hy_err_where(void);
/* Forget the recorded error (after it was reported or handled).  Local. */
void hy_err_clear(void);

/* Call a hybrid function; on error add file:line and return its code. */
#define HY_CALL(expr)                                   \
  do {                                                  \
    int hy_rc_ = (expr);                                \
    if (hy_rc_ != HY_OK) {                              \
      hy_err_trace(__FILE__, __LINE__);                 \
      return hy_rc_;                                    \
    }                                                   \
  } while (0)

/* Call MPI; on error record the MPI error string and return HY_ESYS. */
#define HY_MPI(expr)                                                        \
  do {                                                                      \
    int hy_mrc_ = (expr);                                                   \
    if (hy_mrc_ != MPI_SUCCESS) {                                           \
      char hy_mb_[MPI_MAX_ERROR_STRING];                                    \
      int hy_ml_ = 0;                                                       \
      MPI_Error_string(hy_mrc_, hy_mb_, &hy_ml_);                           \
      return hy_err(HY_ESYS, "MPI call %s failed: %s", #expr, hy_mb_);      \
    }                                                                       \
  } while (0)

/* Allocate n elements of type for ptr; on failure record HY_ESYS and return it. */
#define HY_MALLOC(ptr, n)                                                         \
  do {                                                                            \
    size_t hy_n_ = (size_t)(n);                                                   \
    (ptr) = hy_n_ ? malloc(hy_n_ * sizeof(*(ptr))) : NULL;                        \
    if (hy_n_ && !(ptr))                                                          \
      return hy_err(HY_ESYS, "out of memory allocating %zu bytes for %s",         \
                    hy_n_ * sizeof(*(ptr)), #ptr);                                \
  } while (0)
#define HY_CALLOC(ptr, n)                                                         \
  do {                                                                            \
    size_t hy_n_ = (size_t)(n);                                                   \
    (ptr) = hy_n_ ? calloc(hy_n_, sizeof(*(ptr))) : NULL;                         \
    if (hy_n_ && !(ptr))                                                          \
      return hy_err(HY_ESYS, "out of memory allocating %zu bytes for %s",         \
                    hy_n_ * sizeof(*(ptr)), #ptr);                                \
  } while (0)

/* Make a local code collective: every rank gets the largest code of any rank on comm, and
 * the message of the lowest rank that failed is carried to rank 0 of comm so that it can
 * print it.  Collective on comm. */
int hy_agree(MPI_Comm comm, int rc);

/* A local fatal error: print "hybrid: rank R on HOST: message (file:line)" to stderr and
 * MPI_Abort(MPI_COMM_WORLD, code).  Never returns.  Local. */
void hy_fatal_at(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
#define hy_fatal(code, ...) hy_fatal_at((code), __FILE__, __LINE__, __VA_ARGS__)

/* Abort with the recorded error (after a local failure that cannot be agreed on).  Local. */
void hy_abort_recorded(int code) __attribute__((noreturn));

/* Name of an exit code ("ok", "usage", "input", ...).  Local. */
const char *hy_code_name(int code);

#ifdef __cplusplus
}
#endif
#endif
