/* sysinfo.c - what the record and header say about the machine and the build: the threads a
 * rank may use (CPU affinity, Slurm, OpenMP), the BLAS library and its thread count, the
 * compiler. */
#define _GNU_SOURCE
#include "runtime/runtime.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A positive integer environment variable, else 0.  Local. */
static int env_pos(const char *name) {
  const char *v = getenv(name);
  if (!v || !*v) return 0;
  char *end;
  long x = strtol(v, &end, 10);
  return (*end == '\0' && x > 0 && x < 1 << 20) ? (int)x : 0;
}

/* Threads one rank may use, and where the figure came from (why): OMP_NUM_THREADS, else
 * SLURM_CPUS_PER_TASK, else the CPUs of the process's affinity mask (sched_getaffinity),
 * shared among the node_size ranks of the node when the mask is the whole machine (an
 * unbound mpiexec), at least 1.  Local. */
int rt_threads_choose(int node_size, const char **why) {
  int n = env_pos("OMP_NUM_THREADS");
  if (n) {
    *why = "OMP_NUM_THREADS";
    return n;
  }
  n = env_pos("SLURM_CPUS_PER_TASK");
  if (n) {
    *why = "SLURM_CPUS_PER_TASK";
    return n;
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    n = CPU_COUNT(&set);
    *why = "affinity";
  } else {
    n = online > 0 ? (int)online : 1;
    *why = "online CPUs";
  }
  if (node_size > 1 && online > 0 && n >= online) {   /* every rank sees every core: share them */
    n /= node_size;
    *why = "affinity / ranks per node";
  }
  return n > 0 ? n : 1;
}

/* The shared object that provides dgemm_ (the BLAS actually linked), its name in out, and
 * OpenBLAS's own configuration when it is OpenBLAS.  Local. */
void rt_blas_library(char *out, size_t n) {
  void *self = dlopen(NULL, RTLD_LAZY);
  void *sym = self ? dlsym(self, "dgemm_") : NULL;
  Dl_info di;
  const char *path = "unknown";
  if (sym && dladdr(sym, &di) && di.dli_fname) path = di.dli_fname;
  char *(*cfg)(void) = NULL;
  if (self) *(void **)&cfg = dlsym(self, "openblas_get_config");
  char real[4096];
  if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  if (cfg)
    snprintf(out, n, "OpenBLAS %s (%s)", cfg(), real);
  else if (self && dlsym(self, "mkl_get_max_threads"))
    snprintf(out, n, "Intel MKL (%s)", real);
  else if (self && dlsym(self, "bli_info_get_version_str"))
    snprintf(out, n, "BLIS (%s)", real);
  else
    snprintf(out, n, "%s (%s)", strstr(real, "/blas/") || strstr(real, "libblas.so") ?
             "reference BLAS" : "BLAS", real);
  if (self) dlclose(self);
}

/* Set the BLAS library's threads to nt where it has threads (OpenBLAS, MKL, BLIS) and return
 * the count it then uses; 1 for a single-threaded BLAS (the reference BLAS).  A thread count
 * the user set for the BLAS itself (OPENBLAS_NUM_THREADS, MKL_NUM_THREADS) is kept.  Local. */
int rt_blas_threads_set(int nt) {
  void *self = dlopen(NULL, RTLD_LAZY);
  if (!self) return 1;
  int got = 1;
  void (*set)(int) = NULL;
  int (*get)(void) = NULL;
  *(void **)&set = dlsym(self, "openblas_set_num_threads");
  *(void **)&get = dlsym(self, "openblas_get_num_threads");
  const char *own = "OPENBLAS_NUM_THREADS";
  if (!set) {
    *(void **)&set = dlsym(self, "MKL_Set_Num_Threads");
    *(void **)&get = dlsym(self, "MKL_Get_Max_Threads");
    own = "MKL_NUM_THREADS";
  }
  if (!set) {
    *(void **)&set = dlsym(self, "bli_thread_set_num_threads");
    *(void **)&get = NULL;
    own = "BLIS_NUM_THREADS";
  }
  if (set) {
    if (!env_pos(own)) set(nt);
    got = get ? get() : env_pos(own) ? env_pos(own) : nt;
  }
  dlclose(self);
  return got;
}

/* The C compiler and version this binary was built with.  Local. */
const char *rt_compiler(void) {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__INTEL_LLVM_COMPILER)
  return "icx " __VERSION__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown C compiler";
#endif
}
