/* workloads.c - the registry of workloads (name -> keys, checks, driver). */
#include "workload.h"

#include <string.h>

extern const hy_workload spai_workload;
extern const hy_workload selftest_workload;
extern const hy_workload gauss_workload;
extern const hy_workload lle_workload;
extern const hy_workload sort_workload;
extern const hy_workload conv_workload;
extern const hy_workload gemm_workload;

/* Every workload of the executable.  The first one's embedded configuration runs when hybrid is
 * given no configuration file (make run). */
const hy_workload *const hy_workloads[] = {
  &spai_workload,
  &selftest_workload,
  &gauss_workload,
  &lle_workload,
  &sort_workload,
  &conv_workload,
  &gemm_workload,
  NULL
};

/* The workload named name, or NULL.  Local. */
const hy_workload *hy_workload_find(const char *name) {
  for (int i = 0; hy_workloads[i]; i++)
    if (!strcmp(hy_workloads[i]->name, name)) return hy_workloads[i];
  return NULL;
}
