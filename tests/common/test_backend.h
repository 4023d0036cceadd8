/* test_backend.h - the start-up block the kernel-table tests share (tests/spai/test_spai_m.c,
 * test_spmv.c, test_vec.c): MPI_Init, the backend named by the first argument ("cuda", else the
 * host), and the skip without a device.  Header only (one static function). */
#ifndef HY_TEST_BACKEND_H
#define HY_TEST_BACKEND_H

#include "kernels.h"
#include "hybrid.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI_Init, then *be opened as argv[1] says: "cuda" the CUDA backend (device 0), anything else
 * or nothing the host backend; returns 1 for CUDA, 0 for the host.  With "cuda" and no CUDA
 * device it prints "SKIP: no CUDA device" and ends the process with 77 (ctest's
 * SKIP_RETURN_CODE); a backend that does not open ends the job (HY_LOCAL).  Local. */
static inline int test_backend_open(int argc, char **argv, k_backend *be) {
  MPI_Init(&argc, &argv);
  int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda && k_cuda_device_count() < 1) {
    printf("SKIP: no CUDA device\n");
    MPI_Finalize();
    exit(77);
  }
  memset(be, 0, sizeof *be);
  HY_LOCAL(k_backend_open(be, cuda ? K_CUDA : K_HOST, 0));
  return cuda;
}

#endif
