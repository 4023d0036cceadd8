/* error.c - the recorded error, its trace, agreement over ranks and local fatal aborts. */
#include "hybrid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define HY_MSG_MAX 2048
#define HY_TRACE_MAX 1024

/* per thread: a helper thread (lle's bsvd) records its own error, which its caller takes over
 * explicitly after the join, instead of two threads writing one buffer */
static _Thread_local char err_msg[HY_MSG_MAX];
static _Thread_local char err_where[256];
static _Thread_local char err_trace[HY_TRACE_MAX];
static _Thread_local int err_code;

/* Record an error (first one wins).  Local. */
int hy_err_at(int code, const char *file, int line, const char *fmt, ...) {
  if (err_code == HY_OK) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    snprintf(err_where, sizeof err_where, "%s:%d", file, line);
    err_trace[0] = '\0';
    err_code = code;
  }
  return code;
}

/* Append a "from file:line" trace entry.  Local. */
void hy_err_trace(const char *file, int line) {
  size_t len = strlen(err_trace);
  if (len + 64 < sizeof err_trace)
    snprintf(err_trace + len, sizeof err_trace - len, "%s%s:%d", len ? " <- " : "", file, line);
}

/* The message, its origin.  Local. */
const char *hy_err_msg(void) { return err_msg; }
const char *hy_err_where(void) { return err_where; }

/* Forget the recorded error.  Local. */
void hy_err_clear(void) {
  err_msg[0] = err_where[0] = err_trace[0] = '\0';
  err_code = HY_OK;
}

/* Largest code over comm; the first failing rank's message ("(rank R on HOST) message") travels
 * to rank 0.  Collective. */
int hy_agree(MPI_Comm comm, int rc) {
  int rank, all = rc, first, mine;
  MPI_Comm_rank(comm, &rank);
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm);
  if (all == HY_OK) return HY_OK;
  int size;
  MPI_Comm_size(comm, &size);
  mine = rc != HY_OK ? rank : size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first != 0 && first < size) {
    /* carry the failing rank's message, origin and host to rank 0 */
    char buf[HY_MSG_MAX + 512];
    if (rank == first) {
      snprintf(buf, sizeof buf, "%s", err_msg);
      memcpy(buf + HY_MSG_MAX, err_where, 256);
      buf[HY_MSG_MAX + 255] = '\0';
      if (gethostname(buf + HY_MSG_MAX + 256, 255) != 0) strcpy(buf + HY_MSG_MAX + 256, "?");
      buf[HY_MSG_MAX + 511] = '\0';
      MPI_Send(buf, (int)sizeof buf, MPI_CHAR, 0, 9901, comm);
    } else if (rank == 0) {
      MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, first, 9901, comm, MPI_STATUS_IGNORE);
      buf[HY_MSG_MAX - 1] = '\0';
      buf[HY_MSG_MAX + 511] = '\0';
      hy_err_clear();
      snprintf(err_msg, sizeof err_msg, "(rank %d on %.200s) %.1800s", first, buf + HY_MSG_MAX + 256, buf);
      snprintf(err_where, sizeof err_where, "%.255s", buf + HY_MSG_MAX);
      err_code = all;
    }
  }
  if (err_code == HY_OK) {
    /* a rank that did not fail itself still needs a message for the record */
    snprintf(err_msg, sizeof err_msg, "rank %d failed", first < size ? first : 0);
    err_code = all;
  }
  return all;
}

/* run.exit_file (set once by main before the run); "" none */
static char exit_file[1024];

/* Set run.exit_file.  Local. */
void hy_exit_file_set(const char *path) { snprintf(exit_file, sizeof exit_file, "%s", path ? path : ""); }

/* Write code into run.exit_file unless another rank did first (best effort: the abort goes on
 * whatever happens here).  Local. */
static void exit_file_write(int code) {
  if (!exit_file[0]) return;
  int fd = open(exit_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char buf[16];
  int n = snprintf(buf, sizeof buf, "%d\n", code);
  ssize_t w = write(fd, buf, (size_t)n);
  (void)w;
  close(fd);
}

/* Print "hybrid: rank R on HOST: message (file:line)" and MPI_Abort.  Local. */
void hy_fatal_at(int code, const char *file, int line, const char *fmt, ...) {
  char msg[HY_MSG_MAX], host[256] = "?";
  int rank = -1, init = 0, fin = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  gethostname(host, sizeof host - 1);
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "hybrid: rank %d on %s: %s (%s:%d)\n", rank, host, msg, file, line);
  fflush(stderr);
  fflush(stdout);
  exit_file_write(code);
  /* give the launcher a moment to forward this rank's output: MPI_Abort tears the job down
   * at once, and a message still in the pipe to mpiexec can be lost (seen with MPICH) */
  struct timespec ts = { 0, 300000000 };
  nanosleep(&ts, NULL);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, code);
  exit(code);
}

/* Abort with the recorded error.  Local. */
void hy_abort_recorded(int code) {
  char where[256];
  snprintf(where, sizeof where, "%s", err_where[0] ? err_where : "?");
  char *colon = strrchr(where, ':');
  int line = 0;
  if (colon) { *colon = '\0'; line = atoi(colon + 1); }
  if (err_trace[0])
    hy_fatal_at(code, where, line, "%s [trace %s]", err_msg[0] ? err_msg : "error", err_trace);
  hy_fatal_at(code, where, line, "%s", err_msg[0] ? err_msg : "error");
}

/* the [debug] fail_alloc threshold of this rank (0: off); set once by main */
static size_t alloc_fail_bytes;

/* Set the [debug] fail_alloc threshold.  Local. */
void hy_alloc_fail_set(size_t bytes) { alloc_fail_bytes = bytes; }

/* 1 when [debug] fail_alloc refuses an allocation of bytes.  Local. */
int hy_alloc_refused(size_t bytes) { return alloc_fail_bytes && bytes >= alloc_fail_bytes; }

/* HY_MALLOC / HY_CALLOC: n * size bytes or the local fatal error naming what.  Local. */
void *hy_alloc_at(size_t n, size_t size, int zero, const char *what, const char *file, int line) {
  if (n == 0) return NULL;
  if (size && n > SIZE_MAX / size)
    hy_fatal_at(HY_ESYS, file, line, "out of memory allocating %zu x %zu bytes for %s (more than "
                "the address space)", n, size, what);
  size_t bytes = n * size;
  if (hy_alloc_refused(bytes))
    hy_fatal_at(HY_ESYS, file, line, "out of memory allocating %zu bytes for %s ([debug] fail_alloc = %zu)",
                bytes, what, alloc_fail_bytes);
  void *p = zero ? calloc(n, size) : malloc(bytes);
  if (!p) hy_fatal_at(HY_ESYS, file, line, "out of memory allocating %zu bytes for %s", bytes, what);
  return p;
}

/* Name of an exit code.  Local. */
const char *hy_code_name(int code) {
  switch (code) {
  case HY_OK: return "ok";
  case HY_EUSAGE: return "usage or configuration";
  case HY_EINPUT: return "input data";
  case HY_ENUMERIC: return "numerical failure";
  case HY_EVALID: return "validation failed";
  case HY_ESYS: return "system";
  default: return "unknown";
  }
}
