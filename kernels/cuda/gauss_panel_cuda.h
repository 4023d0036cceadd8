/* gauss_panel_cuda.h - the fused panel base block of the CUDA backend (gauss_panel_cuda.cu),
 * used by gauss_cuda.cu's recursive panel (gauss.panel = fused). */
#ifndef HY_GAUSS_PANEL_CUDA_H
#define HY_GAUSS_PANEL_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Most thread blocks (row chunks) of one fused base block. */
#define GAUSS_PB_GMAX 256
/* Bytes of the device scratch gauss_cuda_panel_base needs. */
#define GAUSS_PB_SCRATCH ((size_t)2 * GAUSS_PB_GMAX * 32 * 8 + (size_t)2 * GAUSS_PB_GMAX * 12 + 2 * 32 * 8)

/* LU with partial pivoting (largest magnitude, the lowest row on ties) of the m x bw block a
 * (ld lda, FP32 when sp, bw <= 32) in one cooperative launch on stream st, about `rows` rows a
 * thread block (0: 1024; more blocks where shared memory holds fewer): piv[j] = poff + the
 * 0-based row swapped with row j (device; rows in order, as LAPACK's getf2; an exact zero pivot
 * leaves its column unscaled).  *done = 0 when it does not fit (too many rows for the device's
 * shared memory, bw > 32): nothing was queued, the caller factors the block another way.
 * Local. */
int gauss_cuda_panel_base(cudaStream_t st, int sp, int64_t m, int bw, void *a, int64_t lda, int *piv,
                          int poff, void *scratch, int rows, int *done);

#endif
