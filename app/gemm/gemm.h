/* gemm.h - what the gemm workload's files share: the typed options, the run state (grid,
 * local blocks), the stages (data, summa, check, report) and the broadcast transports.
 *
 * C = alpha A B + beta C0 with A m x k, B k x n, C m x n on a P x Q process grid, 2D
 * block-cyclic with square blocks nb (rank = p * Q + q): A's rows and C's rows over process
 * rows by nb, A's columns over process columns; B's rows over process rows, B's and C's columns
 * over process columns.  Every local block is column-major. */
#ifndef HY_GEMM_H
#define HY_GEMM_H

#include "workload.h"
#include "k_gemm.h"
#include "io/io.h"
#include "comm/comm.h"

enum { GEMM_RANDOM = 0, GEMM_FILE = 1 };

/* Every key, read once by gemm_opts_from_cfg (app/gemm/gemm.c). */
typedef struct {
  int64_t m, n, k, nb;
  int P, Q;                 /* 0, 0: auto */
  int prec;                 /* K_GEMM_* */
  int kernel;               /* K_GEMM_NAIVE / TILED / VENDOR */
  int tile;
  int source;               /* GEMM_RANDOM / GEMM_FILE */
  char afile[1024], bfile[1024], cfile[1024];
  double alpha, beta;
  uint64_t seed;
  int bcast;                /* HY_BCAST_AUTO / DEVICE / MPI (app/comm) */
  int64_t panel;            /* width of a SUMMA step's local update (a multiple of nb) */
  int whole_k;              /* 1x1 grid: one local GEMM over all of k (else steps of panel) */
  double threshold;         /* pass when both check ratios are <= threshold */
  double full_max;          /* also the full host-BLAS comparison when m n k <= full_max */
  int compare;              /* time every kernel variant alone (the seed's table columns) */
  int reps;                 /* compare / vendor figure: runs timed after a warm-up */
  char out_a[1024], out_b[1024], out_c[1024], out_c0[1024];
} gemm_opts;

/* Number of indices of 0..n-1 that process p of P owns under block size nb (ScaLAPACK
 * numroc).  Local. */
static inline int64_t gemm_numroc(int64_t n, int64_t nb, int p, int P) {
  int64_t nblk = n / nb, full = nblk / P, extra = nblk % P;
  int64_t c = full * nb;
  if (p < extra) c += nb;
  else if (p == extra) c += n % nb;
  return c;
}
/* Global index of local index l of process p.  Local. */
static inline int64_t gemm_l2g(int64_t l, int64_t nb, int p, int P) {
  return ((l / nb) * P + p) * nb + l % nb;
}

/* One matrix's local block (column-major, ld = max(1, rows)). */
typedef struct {
  int64_t rows, cols, ld;
  double *h;                /* host FP64 copy of the values used (rounded inputs / C0 / result) */
  void *hs;                 /* host copy in the storage format (pinned; uploaded from) */
  void *d;                  /* device copy (input format for A, B; C's format for C) */
} gemm_block;

/* The run. */
typedef struct {
  hy_ctx *ctx;
  const gemm_opts *o;
  k_backend *be;
  const k_gemm_ops *ko;
  k_gemm_fn kern;           /* the chosen variant */
  k_gemm_ws *ws;
  hy_grid grid;             /* the process grid (app/comm) */
  int grid_made;
  int P, Q, p, q;           /* copies of grid's */
  hy_bcast *bc;             /* the panel broadcasts' transport */
  int64_t m, n, k;          /* global sizes (from the files when source = file) */
  hy_dense fa, fb, fc;      /* source = file: the whole matrices, every rank */
  gemm_block A, B, C;
  size_t ein;               /* bytes of one input element on this backend */
} gemm_t;

/* Figures of the run, filled by the stages, printed by gemm_report. */
typedef struct {
  int64_t steps;            /* SUMMA steps (local GEMM calls) */
  const char *bcast;        /* transport name ("nccl", "emulated", "mpi") */
  int bcast_dev;            /* 1: device collectives */
  const char *bcast_path, *bcast_why;   /* MPI: how it reaches the data, why not device */
  double t_upload, t_summa, t_download;   /* max over ranks, seconds */
  double t_device;          /* upload + summa + download (max over ranks) */
  double t_kernel;          /* kernel time (max over ranks) */
  double t_bcast_wait;      /* host time in the next panels' broadcasts (max over ranks) */
  double freivalds;         /* ||C r - (alpha A (B r) + beta C0 r)|| ratio (max of 2 vectors) */
  double full;              /* full comparison ratio, or -1 when not done */
  double cnorm;             /* ||C||_F */
  int passed;
  double k_sec[K_GEMM_NKERNELS];  /* compare / vendor figure: kernel seconds alone, < 0 none */
} gemm_info;

/* ---- stages ---- */
/* Grid, communicators, local sizes, inputs (random by global index or files read on rank 0
 * and broadcast), rounded once; host and device copies.  Collective. */
int gemm_load(gemm_t *g);
/* C = alpha A B + beta C by SUMMA (panels of A along process rows, of B down process columns,
 * the next panel's broadcast posted before the current local GEMM); times into info.
 * Collective. */
int gemm_summa(gemm_t *g, gemm_info *info);
/* Freivalds' test with 2 random vectors in FP64, and at small sizes the full product on rank 0
 * against host BLAS; debug.perturb applied before.  Collective. */
int gemm_check(gemm_t *g, gemm_info *info);
/* Write A, B, C (output.a / b / c) from rank 0.  Collective. */
int gemm_write(gemm_t *g);
/* Time the variants alone (compare) and the vendor's figure (device backends).  Collective. */
int gemm_compare(gemm_t *g, gemm_info *info);
/* Every printed line, metric and the verdict.  Collective (reductions done); returns HY_OK or
 * HY_EVALID. */
int gemm_report(gemm_t *g, const gemm_info *info);
/* Free everything of the run.  Collective (the transport and the grid). */
void gemm_free(gemm_t *g);

/* Value (i, j) of the A / B / C0 used: rounded input (A, B), C0 as given (which = 0, 1, 2). */
double gemm_entry(const gemm_t *g, int which, int64_t i, int64_t j);
/* Gather a C-distributed local block (host FP64) into the whole m x n matrix on rank 0 (out:
 * allocated there, NULL elsewhere).  Collective. */
int gemm_gather_c(gemm_t *g, const double *loc, double **out);

#endif
