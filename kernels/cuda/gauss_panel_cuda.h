/* gauss_panel_cuda.h - the fused panel base block of the CUDA backend (gauss_panel_cuda.cu),
 * used by gauss_cuda.cu's recursive panel (gauss.panel = fused). */
#ifndef HY_GAUSS_PANEL_CUDA_H
#define HY_GAUSS_PANEL_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Most thread blocks (row chunks) of one fused base block. */
#define GAUSS_PB_GMAX 256
/* gauss.panel_sync: how the base block's thread blocks learn a column's candidates (flags: each
 * candidate's key its own flag, polled; grid: a grid barrier per column). */
enum { GAUSS_PB_SYNC_FLAGS = 0, GAUSS_PB_SYNC_GRID = 1 };
/* Which kernel factors a fused base block (kind; K_GAUSS_AUX_PBKIND, gauss.panel_kernel):
 * REGISTERS the register kernel (a row a thread in registers) where it fits - flags, the default
 * rows and threads, at most one block of 512 rows a multiprocessor - else the shared-memory
 * kernel (a chunk of rows a block in shared memory); AUTO the same up to GAUSS_PB_AUTO_GMAX
 * blocks; SHARED always the shared-memory kernel. */
enum { GAUSS_PB_AUTO = 0, GAUSS_PB_SHARED = 1, GAUSS_PB_REGISTERS = 2 };
/* GAUSS_PB_AUTO's most register blocks (H200, session 17, 0b6a71e: at n = 65536 the first
 * panels' 128 register blocks took the trailing GEMM beside them from 50.4 to 49.2 TFLOP/s,
 * panels no shorter in all; up to 32768 rows they are 0.81-0.86x of the shared kernel's). */
#define GAUSS_PB_AUTO_GMAX 64
/* The device scratch gauss_cuda_panel_base needs: first the flags' part (for each of the 32
 * columns of a block: G keys (8 bytes each), G row indices, row j, G candidate rows; every byte
 * 0xff before the first launch, as each launch leaves them: GAUSS_PB_FLAGS_BYTES in all), then
 * the grid barrier's (the same for two columns). */
#define GAUSS_PB_PART(sets) ((size_t)(sets) * GAUSS_PB_GMAX * 12 + (size_t)(sets) * 32 * 8 + \
                             (size_t)(sets) * GAUSS_PB_GMAX * 32 * 8)
#define GAUSS_PB_FLAGS_BYTES GAUSS_PB_PART(32)
#define GAUSS_PB_SCRATCH (GAUSS_PB_FLAGS_BYTES + GAUSS_PB_PART(2))

/* LU with partial pivoting (largest magnitude, the lowest row on ties) of the m x bw block a
 * (ld lda, FP32 when sp, bw <= 32) in one cooperative launch on stream st, about `rows` rows a
 * thread block (0: 1024; more blocks where shared memory holds fewer): piv[j] = poff + the
 * 0-based row swapped with row j (device; rows in order, as LAPACK's getf2; an exact zero pivot
 * leaves its column unscaled).  *done = 0 when it does not fit (too many rows for the device's
 * shared memory, bw > 32): nothing was queued, the caller factors the block another way.
 * sync: GAUSS_PB_SYNC_*; threads: a thread block's threads of the shared-memory kernel, 512 or
 * (any other value) 1024; kind: GAUSS_PB_*.  Launches on the same scratch must not
 * run at once.  Local. */
int gauss_cuda_panel_base(cudaStream_t st, int sp, int64_t m, int bw, void *a, int64_t lda, int *piv,
                          int poff, void *scratch, int rows, int sync, int threads, int kind, int *done);

/* A test hook (test_gauss_trsm_gpu --panel): the shared-memory kernel's clocks, GAUSS_PB_CLK_SLOTS
 * long longs a block for the first and the last thread block of the last FP64 flags launch at
 * 1024 threads while on (what = 1 on, 2 copy them into out, 0 off); the slots' marks:
 * gauss_panel_cuda.cu's PB_CLK_*.  Returns 0, 1 when the device says no.  Local. */
#define GAUSS_PB_CLK_SLOTS 192
#ifdef __cplusplus
extern "C"
#endif
int gauss_cuda_pb_clk(int what, long long *out);

#endif
