/* k_host.c - the host backend's core operations: memory is host memory, copies are memcpy,
 * kernels are plain C loops (BLAS/LAPACK where workloads need dense algebra). */
#include "kernels.h"
#include "hybrid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int h_alloc(k_backend *be, void **p, size_t bytes) {
  *p = NULL;
  if (bytes == 0) return HY_OK;
  /* 64-byte alignment for vector loops */
  size_t rounded = (bytes + 63) / 64 * 64;
  *p = aligned_alloc(64, rounded);
  if (!*p) return hy_err(HY_ESYS, "host backend: out of memory allocating %zu bytes", bytes);
  return HY_OK;
}
static int h_free(k_backend *be, void *p) { free(p); return HY_OK; }
static int h_copy(k_backend *be, void *dst, const void *src, size_t bytes) {
  if (bytes) memmove(dst, src, bytes);
  return HY_OK;
}
static int h_memset0(k_backend *be, void *p, size_t bytes) {
  if (bytes) memset(p, 0, bytes);
  return HY_OK;
}
static int h_sync(k_backend *be) { return HY_OK; }

static int h_daxpy(k_backend *be, int64_t n, double a, const double *x, double *y) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
  return HY_OK;
}

static int h_ddot(k_backend *be, int64_t n, const double *x, const double *y, double *result) {
  /* pairwise blocks of 1024 for accuracy comparable to the device's tree reduction */
  double s = 0;
  for (int64_t i = 0; i < n; i += 1024) {
    double b = 0;
    int64_t e = i + 1024 < n ? i + 1024 : n;
    for (int64_t j = i; j < e; j++) b += x[j] * y[j];
    s += b;
  }
  *result = s;
  return HY_OK;
}

static const k_ops host_ops = {
  .alloc = h_alloc, .free = h_free, .alloc_managed = h_alloc, .alloc_pinned = h_alloc,
  .free_pinned = h_free, .h2d = h_copy, .d2h = h_copy, .d2d = h_copy, .memset0 = h_memset0,
  .sync = h_sync, .daxpy = h_daxpy, .ddot = h_ddot,
  .mem_info = NULL,   /* device memory is host memory: hy_mem_check's host figure covers it */
  .pool_stats = NULL, /* malloc / free: no pool */
};

/* CPU model name from /proc/cpuinfo.  Local. */
static void cpu_model(char *buf, size_t len) {
  snprintf(buf, len, "CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c++;
        while (*c == ' ') c++;
        c[strcspn(c, "\n")] = '\0';
        snprintf(buf, len, "%s", c);
      }
      break;
    }
  }
  fclose(f);
}

/* Open the host backend.  Local. */
int k_host_open(k_backend *be) {
  be->kind = K_HOST;
  be->name = "host";
  be->device = -1;
  be->gpu = 0;
  be->vendor_blas = "BLAS";
  be->vendor_solver = "LAPACK";
  be->vendor_sparse = "host";
  be->ops = &host_ops;
  cpu_model(be->device_name, sizeof be->device_name);
  return HY_OK;
}

int k_host_close(k_backend *be) { return HY_OK; }
