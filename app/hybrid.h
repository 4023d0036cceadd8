/* hybrid.h - what every part of the executable shares: exit codes, the error-check
 * macros (HY_CALL / HY_MPI / HY_CUDA-style), and the run context.
 *
 * The error rule (DESIGN.md, "The shape of a workload"), one idiom, checkable by grep:
 *  - every fallible function returns an int code (HY_OK = 0 or one of the exit codes below);
 *    hy_err() records the first message with file:line;
 *  - HY_CALL(expr) passes a code up the stack.  Use it for codes that every rank holds alike:
 *    collective functions (stage boundaries, hy_agree, reductions) and rank-0-only work whose
 *    result is agreed right after (config checks, file parsing before a broadcast);
 *  - HY_LOCAL(expr) is for local work inside a stage (a kernel call, a copy, a file on one
 *    rank): a failure there never returns into code that goes on to a collective; it ends the
 *    job through hy_abort_recorded(): "hybrid: rank R on HOST: message (file:line)" and
 *    MPI_Abort with the code;
 *  - HY_MALLOC / HY_CALLOC: an allocation failure is local, so it aborts the same way;
 *  - numerical trouble is carried by reduced values themselves (a NaN/Inf in a dot product is
 *    seen by every rank at once) and turned into a code that every rank returns;
 *  - hy_agree() makes a local code collective at a stage boundary. */
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

/* Inside a stage: call a local fallible function; on error add file:line and end the job
 * (hy_abort_recorded: rank, host, message, file:line, MPI_Abort with the code). */
#define HY_LOCAL(expr)                                  \
  do {                                                  \
    int hy_lrc_ = (expr);                               \
    if (hy_lrc_ != HY_OK) {                             \
      hy_err_trace(__FILE__, __LINE__);                 \
      hy_abort_recorded(hy_lrc_);                       \
    }                                                   \
  } while (0)

/* Allocate n elements of type for ptr; an allocation failure is local: it ends the job with
 * "out of memory allocating B bytes for ptr" (rank, host, file:line), never returns.  An
 * element count whose byte size overflows size_t is such a failure too. */
#define HY_MALLOC(ptr, n) ((ptr) = hy_alloc_at((size_t)(n), sizeof(*(ptr)), 0, #ptr, __FILE__, __LINE__))
#define HY_CALLOC(ptr, n) ((ptr) = hy_alloc_at((size_t)(n), sizeof(*(ptr)), 1, #ptr, __FILE__, __LINE__))

/* n * size bytes (zeroed when zero), NULL for n == 0; on failure (or a [debug] fail_alloc
 * refusal) the local fatal error above, naming what and the bytes.  Local. */
void *hy_alloc_at(size_t n, size_t size, int zero, const char *what, const char *file, int line);

/* [debug] fail_alloc on this rank: every allocation of at least bytes (HY_MALLOC / HY_CALLOC
 * and the backend's alloc entries, see rt_backend_open) fails as if memory were exhausted;
 * 0 turns it off.  hy_alloc_refused(b) is 1 when an allocation of b bytes is to fail.  Local. */
void hy_alloc_fail_set(size_t bytes);
int hy_alloc_refused(size_t bytes);

/* Make a local code collective: every rank gets the largest code of any rank on comm, and
 * the message of the lowest rank that failed is carried to rank 0 of comm so that it can
 * print it, as "(rank R on HOST) message".  Collective on comm. */
int hy_agree(MPI_Comm comm, int rc);

/* A local fatal error: print "hybrid: rank R on HOST: message (file:line)" to stderr and
 * MPI_Abort(MPI_COMM_WORLD, code).  Never returns.  Local. */
void hy_fatal_at(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
#define hy_fatal(code, ...) hy_fatal_at((code), __FILE__, __LINE__, __VA_ARGS__)

/* run.exit_file: where hy_fatal_at writes its code (first rank wins: O_CREAT | O_EXCL) before
 * MPI_Abort, for job scripts whose launcher reports its own code (srun: 137); "" none.  Local. */
void hy_exit_file_set(const char *path);

/* Abort with the recorded error (after a local failure that cannot be agreed on).  Local. */
void hy_abort_recorded(int code) __attribute__((noreturn));

/* Name of an exit code ("ok", "usage", "input", ...).  Local. */
const char *hy_code_name(int code);

#ifdef __cplusplus
}
#endif
#endif
