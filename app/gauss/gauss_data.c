/* gauss_data.c - gauss's data: the options turned into the run state, the inputs (generated,
 * or files read on rank 0 and broadcast), the original matrix in FP64 on the device (this
 * rank's part of its distribution) and ||A||_inf, the [output] files; the load stage and the
 * clean-up. */
#include "gauss/gauss.h"
#include "io/io.h"
#include "runtime/rng.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* malloc or a local fatal error (rank and place printed, MPI_Abort).  Local. */
void *gauss_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) hy_fatal(HY_ESYS, "out of memory allocating %zu bytes", bytes);
  return p;
}

/* Backend allocation or a local fatal error.  Local. */
void *gauss_dalloc(gauss_t *g, size_t bytes) {
  void *p = NULL;
  HY_LOCAL(g->be->ops->alloc(g->be, &p, bytes ? bytes : 8));
  return p;
}

/* A parked buffer of exactly bytes, else a new one.  Local. */
void *gauss_dalloc_parked(gauss_t *g, size_t bytes) {
  bytes = bytes ? bytes : 8;
  for (int i = 0; i < 4; i++)
    if (g->park[i] && g->park_bytes[i] == bytes) {
      void *p = g->park[i];
      g->park[i] = NULL;
      return p;
    }
  return gauss_dalloc(g, bytes);
}

/* Park p for the next run (small buffers, a free slot), else free it.  Local. */
void gauss_dpark(gauss_t *g, void *p, size_t bytes) {
  if (!p) return;
  bytes = bytes ? bytes : 8;
  for (int i = 0; i < 4 && bytes <= GAUSS_PARK_MAX; i++)
    if (!g->park[i]) {
      g->park[i] = p;
      g->park_bytes[i] = bytes;
      return;
    }
  g->be->ops->free(g->be, p);
}

/* Entry (i, j) of the original matrix.  Local. */
double gauss_entry(const gauss_t *g, int64_t i, int64_t j) {
  if (g->mtype == GAUSS_FILE || g->mtype == GAUSS_ILLCOND) return g->fileA[i + j * g->n];
  if (g->mtype == GAUSS_HPLMXP && i == j) return g->diag ? g->diag[i] : 0;
  double v = hy_rand_u01(g->seed, 1, (uint64_t)i * (uint64_t)g->n + (uint64_t)j) - 0.5;
  if (g->mtype == GAUSS_DIAGDOM && i == j) v += (double)g->n;
  return v;
}

/* Smallest acceptable pivot: eps * ||A||_inf; the FP32 factors of precision = mixed only need
 * to precondition the refinement (GMRES-IR reaches kappa ~ 1 / u_32^2, the FP64 fallback
 * catches the rest): eps_32^2 * ||A||_inf there.  Local. */
double gauss_tiny(const gauss_t *g, int sp) {
  double eps = sp ? FLT_EPSILON : DBL_EPSILON;
  if (sp && g->prec == GAUSS_MIXED) eps = (double)FLT_EPSILON * FLT_EPSILON;
  double na = g->normA > 0 ? g->normA : 1;
  return eps * na;
}

/* The agreed numerical failure.  Local. */
int gauss_singular(const gauss_t *g, const char *what, int64_t col, double piv) {
  return hy_err(HY_ENUMERIC, "matrix is %s singular at column %lld (0-based): %s = %.3e <= %.3e "
                "(%s * ||A||_inf)%s", piv == 0 ? "exactly" : "numerically", (long long)col, what,
                fabs(piv), gauss_tiny(g, g->fact_sp),
                !g->fact_sp ? "eps" : g->prec == GAUSS_MIXED ? "eps_32^2" : "eps_32",
                g->alg == GAUSS_NAIVE ? "; naive elimination does not pivot: use algorithm = "
                "stepwise or blocked" : "");
}

/* Broadcast a long double array from root in chunks below INT_MAX.  Collective. */
static int gauss_bcast_big(double *p, int64_t n, MPI_Comm comm) {
  const int64_t chunk = 1 << 26;
  for (int64_t o = 0; o < n; o += chunk) {
    int c = (int)(n - o < chunk ? n - o : chunk);
    HY_MPI(MPI_Bcast(p + o, c, MPI_DOUBLE, 0, comm));
  }
  return HY_OK;
}

/* Read matrix / rhs files on rank 0 and broadcast them; build b.  Collective. */
static int gauss_inputs(gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  hy_cfg *c = ctx->cfg;
  int rc = HY_OK;
  int64_t n = g->n;
  if (g->mtype == GAUSS_FILE) {
    hy_dense d = { 0 };
    if (ctx->rank == 0) {
      const char *path = g->o->file;
      rc = io_read_dense(path, &d);
      if (rc == HY_OK && d.m != d.n)
        rc = hy_err(HY_EINPUT, "%s: matrix is %lld x %lld, gauss needs a square matrix", path,
                    (long long)d.m, (long long)d.n);
      if (rc == HY_OK && d.n == 0) rc = hy_err(HY_EINPUT, "%s: matrix is 0 x 0 (an empty system); gauss needs n >= 1", path);
      if (rc == HY_OK && g->o->n_given && d.n != g->n) {
        char w[1100];
        rc = hy_err(HY_EUSAGE, "%s: key 'gauss.n' = %lld, but %s holds a %lld x %lld matrix (leave "
                    "n out with matrix = file)", cfg_where(c, "gauss.n", w, sizeof w), (long long)g->n,
                    path, (long long)d.m, (long long)d.n);
      }
      n = d.n;
    }
    HY_CALL(hy_agree(ctx->comm, rc));
    HY_MPI(MPI_Bcast(&n, 1, MPI_INT64_T, 0, ctx->comm));
    g->n = n;
    if (ctx->rank == 0) g->fileA = d.a;
    else g->fileA = gauss_xmalloc((size_t)(n * n) * sizeof(double));
    HY_CALL(gauss_bcast_big(g->fileA, n * n, ctx->comm));
  } else if (g->mtype == GAUSS_ILLCOND) {
    HY_CALL(gauss_illcond_make(g, g->o->cond));
  }
  g->b = gauss_xmalloc((size_t)n * sizeof(double));
  if (g->o->rhs == GAUSS_RHS_FILE) {
    if (ctx->rank == 0) {
      double *v = NULL;
      int64_t m = 0;
      const char *path = g->o->rhs_file;
      rc = io_read_vec(path, &v, &m);
      if (rc == HY_OK && m != n)
        rc = hy_err(HY_EINPUT, "%s: vector has %lld entries, the matrix has order %lld", path,
                    (long long)m, (long long)n);
      if (rc == HY_OK) memcpy(g->b, v, (size_t)n * sizeof(double));
      free(v);
    }
    HY_CALL(hy_agree(ctx->comm, rc));
    HY_CALL(gauss_bcast_big(g->b, n, ctx->comm));
  } else if (g->o->rhs == GAUSS_RHS_ONES) {
    for (int64_t i = 0; i < n; i++) g->b[i] = 1;
  } else {
    for (int64_t i = 0; i < n; i++) g->b[i] = hy_rand_u01(g->seed, 2, (uint64_t)i) - 0.5;
  }
  g->normb = 0;
  for (int64_t i = 0; i < n; i++)
    if (fabs(g->b[i]) > g->normb || isnan(g->b[i])) g->normb = fabs(g->b[i]);
  return HY_OK;
}

/* matrix = hplmxp (HPL-MxP's generator: uniform off the diagonal, each diagonal entry the sum
 * of the magnitudes of its row's others): gauss_a0_make generates the diagonal as 0 (g->diag
 * NULL), its all-reduced row sums are g->diag, and this writes the diagonal entries this rank
 * holds into a0, one copy per run of consecutive local diagonal entries (column stride
 * ld + 1).  Local. */
static int gauss_hplmxp_diag_put(gauss_t *g) {
  int64_t n = g->n, ld = g->a0_m > 0 ? g->a0_m : 1, run0 = -1, li0 = 0, lj0 = 0, len = 0;
  for (int64_t i = 0; i <= n; i++) {
    int mine = i < n && (int)((i / g->a0_mb) % g->a0_P) == g->a0_p && (int)((i / g->a0_nb) % g->a0_Q) == g->a0_q;
    int64_t li = mine ? gauss_numroc(i, g->a0_mb, g->a0_p, g->a0_P) : -1;
    int64_t lj = mine ? gauss_numroc(i, g->a0_nb, g->a0_q, g->a0_Q) : -1;
    if (len > 0 && (!mine || li != li0 + len || lj != lj0 + len)) {
      HY_LOCAL(g->ko->h2d_2d(g->be, 0, 1, len, g->diag + run0, 1, g->a0 + li0 + lj0 * ld, ld + 1));
      len = 0;
    }
    if (!mine) continue;
    if (len == 0) { run0 = i; li0 = li; lj0 = lj; }
    len++;
  }
  HY_LOCAL(g->be->ops->sync(g->be));
  return HY_OK;
}

/* One thread's share of a column chunk of gauss_a0_make: local rows i0 .. i1 of columns
 * j0 .. j0+w into h (ld), their magnitudes added to rows[] in column order. */
typedef struct {
  const gauss_t *g;
  const int64_t *gi;
  double *rows, *h;
  int64_t ld, j0, w, i0, i1;
} gauss_fill_part;

/* Fill one share (a thread's body).  Local. */
static void *gauss_fill_run(void *arg) {
  gauss_fill_part *p = arg;
  const gauss_t *g = p->g;
  for (int64_t j = 0; j < p->w; j++) {
    int64_t gj = gauss_l2g(p->j0 + j, g->a0_nb, g->a0_q, g->a0_Q);
    for (int64_t i = p->i0; i < p->i1; i++) {
      double v = gauss_entry(g, p->gi[i], gj);
      p->h[i + j * p->ld] = v;
      p->rows[p->gi[i]] += fabs(v);
    }
  }
  return NULL;
}

/* Generate this rank's part of the original matrix in FP64 on the device and ||A||_inf
 * (matrix = hplmxp: the diagonal too, gauss_hplmxp_diag_put).  Collective. */
static int gauss_a0_make(gauss_t *g) {
  hy_ctx *ctx = g->ctx;
  int64_t n = g->n;
  g->a0_m = gauss_numroc(n, g->a0_mb, g->a0_p, g->a0_P);
  g->a0_n = gauss_numroc(n, g->a0_nb, g->a0_q, g->a0_Q);
  int64_t ld = g->a0_m > 0 ? g->a0_m : 1;
  g->a0 = gauss_dalloc(g, (size_t)(ld * (g->a0_n > 0 ? g->a0_n : 1)) * sizeof(double));
  double *rows = calloc((size_t)n, sizeof(double));
  if (!rows) hy_fatal(HY_ESYS, "out of memory (row sums, n = %lld)", (long long)n);
  int64_t cc = g->a0_n < 256 ? (g->a0_n > 0 ? g->a0_n : 1) : 256;
  /* two chunk buffers, page-locked where the backend has it: the threads fill chunk c + 1
   * while this thread copies chunk c to the device (H200, 12-02 06:32: n = 98304 spent 17.6 s
   * generating, the pageable copies of 77 GB one after the other with the filling) */
  size_t hbytes = (size_t)(ld * cc) * sizeof(double);
  double *hb[2] = { NULL, NULL };
  int pinned = g->be->ops->alloc_pinned && g->be->ops->free_pinned &&
               g->be->ops->alloc_pinned(g->be, (void **)&hb[0], hbytes) == HY_OK;
  if (pinned && g->be->ops->alloc_pinned(g->be, (void **)&hb[1], hbytes) != HY_OK) {
    g->be->ops->free_pinned(g->be, hb[0]);
    pinned = 0;
  }
  if (!pinned) {
    hy_err_clear();
    hb[0] = gauss_xmalloc(hbytes);
    hb[1] = gauss_xmalloc(hbytes);
  }
  int64_t *gi = gauss_xmalloc((size_t)ld * sizeof(int64_t));
  for (int64_t i = 0; i < g->a0_m; i++) gi[i] = gauss_l2g(i, g->a0_mb, g->a0_p, g->a0_P);
  /* the rows split among the rank's threads: each row's sum by one thread in column order
   * (the same figures for any thread count; chunk c + 1 is filled after chunk c's threads
   * were joined) */
  int nt = ctx->threads > 1 ? ctx->threads : 1;
  if (nt > 64) nt = 64;
  if (nt > g->a0_m / 512) nt = g->a0_m / 512 > 1 ? (int)(g->a0_m / 512) : 1;
  gauss_fill_part part[64];
  pthread_t th[64];
  int started[64] = { 0 };
  /* fill chunk j0 into buffer b: start the threads (cp: this thread copies meanwhile, so every
   * share gets a thread; else share 0 is this thread's); gauss_fill_join waits for them */
#define GAUSS_FILL_START(j0_, b_, cp_)                                                                \
  do {                                                                                                \
    int64_t w_ = g->a0_n - (j0_) < cc ? g->a0_n - (j0_) : cc;                                         \
    for (int t = 0; t < nt; t++) {                                                                    \
      part[t] = (gauss_fill_part){ g, gi, rows, hb[b_], ld, (j0_), w_, g->a0_m * t / nt, g->a0_m * (t + 1) / nt }; \
      started[t] = (t > 0 || (cp_)) && pthread_create(&th[t], NULL, gauss_fill_run, &part[t]) == 0;   \
    }                                                                                                 \
  } while (0)
#define GAUSS_FILL_JOIN()                                                                             \
  do {                                                                                                \
    for (int t = 0; t < nt; t++) {                                                                    \
      if (started[t]) pthread_join(th[t], NULL);                                                      \
      else gauss_fill_run(&part[t]);   /* no thread: this one does it */                              \
      started[t] = 0;                                                                                 \
    }                                                                                                 \
  } while (0)
  if (g->a0_n > 0) {
    GAUSS_FILL_START(0, 0, 0);
    GAUSS_FILL_JOIN();
  }
  for (int64_t j0 = 0, c = 0; j0 < g->a0_n; j0 += cc, c++) {
    int64_t w = g->a0_n - j0 < cc ? g->a0_n - j0 : cc;
    int more = j0 + cc < g->a0_n;
    if (more) GAUSS_FILL_START(j0 + cc, (int)((c + 1) & 1), 1);
    HY_LOCAL(g->ko->h2d_2d(g->be, 0, g->a0_m, w, hb[c & 1], ld, g->a0 + j0 * ld, ld));
    if (more) GAUSS_FILL_JOIN();
  }
#undef GAUSS_FILL_START
#undef GAUSS_FILL_JOIN
  HY_LOCAL(g->be->ops->sync(g->be));
  for (int b = 0; b < 2; b++) {
    if (pinned) g->be->ops->free_pinned(g->be, hb[b]);
    else free(hb[b]);
  }
  free(gi);
  if (ctx->size > 1) HY_MPI(MPI_Allreduce(MPI_IN_PLACE, rows, (int)n, MPI_DOUBLE, MPI_SUM, ctx->comm));
  if (g->mtype == GAUSS_HPLMXP) {
    /* the diagonal was generated as 0: the row sums are the diagonal itself */
    g->diag = rows;
    HY_CALL(gauss_hplmxp_diag_put(g));
    for (int64_t i = 0; i < n; i++) rows[i] *= 2;   /* |a_ii| + the rest, exactly */
  }
  g->normA = 0;
  for (int64_t i = 0; i < n; i++)
    if (rows[i] > g->normA || isnan(rows[i])) g->normA = rows[i];
  if (g->mtype == GAUSS_HPLMXP)
    for (int64_t i = 0; i < n; i++) rows[i] /= 2;
  else
    free(rows);
  return HY_OK;
}

/* Write A, b and x as asked in [output] (rank 0; A is regenerated or the file's).  Collective
 * (agreed outcome). */
int gauss_outputs(gauss_t *g, const double *x) {
  hy_ctx *ctx = g->ctx;
  int rc = HY_OK;
  if (ctx->rank == 0) {
    const char *pa = g->o->out_matrix, *pb = g->o->out_rhs, *px = g->o->out_solution;
    char comment[256];
    snprintf(comment, sizeof comment, "hybrid gauss: n = %lld, matrix %s, seed %llu",
             (long long)g->n, g->o->matrix_name, (unsigned long long)g->seed);
    if (pa[0]) {
      hy_dense d = { g->n, g->n, NULL };
      d.a = malloc((size_t)(g->n * g->n) * sizeof(double));
      if (!d.a) rc = hy_err(HY_ESYS, "out of memory writing %s", pa);
      for (int64_t j = 0; rc == HY_OK && j < g->n; j++)
        for (int64_t i = 0; i < g->n; i++) d.a[i + j * g->n] = gauss_entry(g, i, j);
      const char *ext = strrchr(pa, '.');
      int petsc = ext && (!strcasecmp(ext, ".petsc") || !strcasecmp(ext, ".bin") || !strcasecmp(ext, ".dat"));
      if (rc == HY_OK && petsc) {
        hy_csr s = { 0 };
        rc = io_dense_to_csr(&d, &s);
        if (rc == HY_OK) rc = io_write_csr(pa, &s, comment);
        io_csr_free(&s);
      } else if (rc == HY_OK) {
        rc = io_mm_write_dense(pa, &d, comment);
      }
      free(d.a);
      if (rc == HY_OK) printf("wrote matrix %s\n", pa);
    }
    if (rc == HY_OK && pb[0]) {
      rc = io_write_vec(pb, g->b, g->n, comment);
      if (rc == HY_OK) printf("wrote rhs %s\n", pb);
    }
    if (rc == HY_OK && px[0]) {
      rc = io_write_vec(px, x, g->n, comment);
      if (rc == HY_OK) printf("wrote solution %s\n", px);
    }
  }
  return hy_agree(ctx->comm, rc);
}



/* The run state from the options: sizes, distribution, algorithm.  Local. */
static void gauss_setup(gauss_t *g, hy_ctx *ctx, const gauss_opts *o, gauss_info *info) {
  g->ctx = ctx;
  g->o = o;
  g->be = &ctx->be;
  g->ko = k_gauss_ops_get(g->be);
  g->n = o->n;
  g->alg = o->alg;
  g->prec = o->prec;
  g->managed = o->managed;
  g->mtype = o->mtype;
  g->seed = o->seed;
  g->nb = o->nb ? o->nb : g->ko->nb_auto(g->n, o->prec != GAUSS_DOUBLE);
  /* gauss.panel = auto: the backend's panel for the factors' precision from its n, else vendor */
  g->panel = o->panel != GAUSS_PANEL_AUTO ? o->panel
             : g->n < g->ko->panel_auto_nmin ? GAUSS_PANEL_VENDOR
             : o->prec == GAUSS_DOUBLE ? g->ko->panel_auto : g->ko->panel_auto_sp;
  /* gauss.panel_vendor_rows = -1: the backend's bound for panel = auto, else none */
  g->vendor_rows = o->panel_vendor_rows >= 0 ? o->panel_vendor_rows
                                             : (o->panel == GAUSS_PANEL_AUTO ? g->ko->panel_auto_rows : 0);
  /* gauss.panel_vendor_short = -1: with panel = auto (not resolved to the vendor's) the backend's
   * bound, at most n / 2 (the second half's panels at most: the first half's run hidden behind the
   * trailing update) */
  g->vendor_short = 0;
  if (o->panel_vendor_short >= 0)
    g->vendor_short = o->panel_vendor_short;
  else if (o->panel == GAUSS_PANEL_AUTO && g->panel != GAUSS_PANEL_VENDOR)
    g->vendor_short = g->ko->panel_auto_short < g->n / 2 ? g->ko->panel_auto_short : g->n / 2;
  if (g->alg == GAUSS_BLOCKED) {
    g->P = o->P;
    g->Q = o->Q;
    if (g->P == 0) hy_grid_auto(ctx->size, &g->P, &g->Q);
    g->a0_mb = g->a0_nb = g->nb;
    g->a0_P = g->P;
    g->a0_Q = g->Q;
    g->a0_p = ctx->rank / g->Q;
    g->a0_q = ctx->rank % g->Q;
  } else {
    g->P = ctx->size;
    g->Q = 1;
    g->a0_mb = 1;
    g->a0_nb = g->n;
    g->a0_P = ctx->size;
    g->a0_Q = 1;
    g->a0_p = ctx->rank;
    g->a0_q = 0;
  }
  info->alg = g->alg == GAUSS_NAIVE ? &gauss_rows_naive
              : g->alg == GAUSS_STEPWISE ? &gauss_rows_stepwise : &gauss_blocked_alg;
}

/* The load stage (see gauss.h).  Collective. */
/* Refuse, before anything is allocated, an order whose memory per rank (this rank's block of A
 * and a few n-vectors on the host; the block in the factorisation's precision on the device: a
 * lower bound) exceeds what a rank has (hy_mem_check): exit 5 with both figures.  Collective. */
static int gauss_mem_check(const gauss_t *g) {
  double n = (double)g->n, blk = n * n / g->ctx->size;
  return hy_mem_check(g->ctx, 8.0 * blk + 64.0 * n, (g->prec == GAUSS_DOUBLE ? 8.0 : 4.0) * blk,
                      "A's block n^2/ranks and n-vectors, at least", "gauss.n = %lld", (long long)g->n);
}

int gauss_load(gauss_t *g, hy_ctx *ctx, const gauss_opts *o, gauss_info *info) {
  gauss_setup(g, ctx, o, info);
  HY_CALL(gauss_small_pick(g, info));
  if (g->mtype != GAUSS_FILE) HY_CALL(gauss_mem_check(g));
  HY_CALL(gauss_inputs(g));
  gauss_report_setup(g, info);
  if (g->alg == GAUSS_BLOCKED) HY_CALL(gauss_blocked_comm_setup(g));
  hy_phase_begin(ctx, "generate");
  HY_CALL(gauss_a0_make(g));
  hy_phase_end(ctx, "generate");
  gauss_report_norms(g);
  return HY_OK;
}

/* Free the run state.  Collective (the transport). */
void gauss_free(gauss_t *g) {
  gauss_blocked_comm_free(g);
  free(g->b);
  free(g->fileA);
  free(g->diag);
  if (g->be) {
    if (g->a0) g->be->ops->free(g->be, g->a0);
    if (g->mv_dx) g->be->ops->free(g->be, g->mv_dx);
    if (g->mv_dy) g->be->ops->free(g->be, g->mv_dy);
    for (int i = 0; i < 4; i++)
      if (g->park[i]) g->be->ops->free(g->be, g->park[i]);
  }
  memset(g, 0, sizeof *g);
}
