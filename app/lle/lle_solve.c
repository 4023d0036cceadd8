/* lle_solve.c - stages "assemble" and "eigen" of lle (rank 0): M = (I - W)^T (I - W) where the
 * chosen eigensolver or output.matrix needs it, then the nev smallest eigenpairs through the
 * eigensolver table (lle_eig.h), the solver's fallback taking over where it stalls. */
#include "lle.h"
#include "lle_eig.h"
#include "k_lle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU seconds of this process (the phase table is wall time; on a shared machine the two
 * differ).  Local. */
static double lle_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run solver s; where it stalls (no convergence in stall_iters iterations while maxit allows
 * more) or meets HY_ENUMERIC, its fallback runs with the full maxit (M assembled for it if
 * needed) and the reason goes to info->fallback_msg.  Local. */
static int lle_eig_with_fallback(const lle_eigsolver *s, lle_eig_in *in, lle_info *info) {
  lle_eig_in first = *in;
  if (s->fallback && first.maxit > s->stall_iters) first.maxit = s->stall_iters;
  info->solver = s;
  snprintf(info->solver_label, sizeof info->solver_label, "%s%s", s->name, info->solver_note);
  int rc = s->solve(&first, &info->eig);
  int stalled = rc == HY_OK && info->eig.converged < in->nev && in->maxit > first.maxit;
  if (!s->fallback || !(stalled || rc == HY_ENUMERIC)) return rc;
  if (stalled)
    snprintf(info->fallback_msg, sizeof info->fallback_msg,
             "lle: %s: %d of %d eigenpairs after %d iterations (%s): falling back to %s\n", s->name,
             info->eig.converged, in->nev, first.maxit, s->stall_why, s->fallback);
  else
    snprintf(info->fallback_msg, sizeof info->fallback_msg, "lle: %s: %s: falling back to %s\n", s->name,
             hy_err_msg(), s->fallback);
  hy_err_clear();
  lle_eig_free(&info->eig);
  const lle_eigsolver *fb = lle_eigsolver_find(s->fallback);
  if (fb->needs_m && !info->m.nnz) HY_CALL(lle_build_m(in->n, in->k, in->nbr, in->w, &info->m));
  in->m = &info->m;
  info->solver = fb;
  snprintf(info->solver_label, sizeof info->solver_label, "%s (fallback)", fb->name);
  return fb->solve(in, &info->eig);
}

/* The solver's name: lle.eigensolver, auto resolved (see lle_solve).  Local. */
static const char *lle_solver_name(const lle_opts *o, int64_t n) {
  return strcmp(o->eigensolver, "auto") ? o->eigensolver : n >= o->auto_cnd_n ? "chol-nd" : "bsvd";
}

int lle_eig_ranks(const hy_ctx *ctx, const lle_opts *o, int64_t n) {
  if (ctx->size < 2 || o->eig_ranks == 1) return 1;
  int ok = !strcmp(lle_solver_name(o, n), "chol-nd") && o->method == LLE_STANDARD && o->cnd_own && o->cnd_solve_cols == 0;
  return ok ? ctx->size : 1;
}

/* M where needed, output.matrix, the eigenpairs.  Local (rank 0; with lle_eig_ranks > 1
 * collective with the other ranks' call, which only does their part of chol-nd). */
int lle_solve(hy_ctx *ctx, const lle_opts *o, lle_info *info) {
  int64_t n = info->data.n;
  const char *name = o->eigensolver;
  /* auto: chol-nd from lle.auto_cnd_n points (default 20000), bsvd below: on the H200's 16
   * cores chol-nd with the own tree-parallel factor won at every size measured (eigen N = 20k
   * 0.155 s vs 0.174, 100k 0.64 vs 1.19, 1M 5.9 vs 13-15); gpu-chol lost on the H200
   * (N = 20k 1.0 s vs 0.28 s, 1M 23.6 s vs 15.4 s: cuSOLVER csrchol's analysis and one-column
   * solves).  By n alone, so the same at any rank count. */
  name = lle_solver_name(o, n);
  info->auto_choice = strcmp(o->eigensolver, "auto") ? NULL : name;
  const lle_eigsolver *s = lle_eigsolver_find(name);
  if (!s) return hy_err(HY_EUSAGE, "lle.eigensolver = %s: no such solver", o->eigensolver);
  if (s->needs_w && !info->w) {   /* ltsa, hessian: M from blocks, no W = I - B */
    snprintf(info->solver_note, sizeof info->solver_note, " (%s needs method = standard)", s->name);
    s = lle_eigsolver_find(s->fallback);
  }
  int worker = ctx->rank != 0;   /* lle_eig_ranks > 1: the other ranks' part of chol-nd */
  double cpu0 = lle_cpu();
  if (!worker && (s->needs_m || o->out_matrix[0])) {   /* bsvd never needs M itself */
    hy_phase_begin(ctx, "assemble");
    if (info->w) HY_CALL(lle_build_m(n, o->k, info->nbr, info->w, &info->m));
    else if (o->method != LLE_MODIFIED) HY_CALL(lle_build_m_blocks(n, o->k, info->nbr, info->blk, &info->m));
    else {   /* modified: the block covers the neighbours and the point itself, last */
      int32_t *idx = NULL;
      HY_MALLOC(idx, (size_t)n * (o->k + 1));
      for (int64_t i = 0; i < n; i++) {
        memcpy(idx + i * (o->k + 1), info->nbr + i * o->k, (size_t)o->k * sizeof *idx);
        idx[i * (o->k + 1) + o->k] = (int32_t)i;
      }
      HY_CALL(lle_build_m_blocks(n, o->k + 1, idx, info->blk, &info->m));
      free(idx);
    }
    hy_phase_end(ctx, "assemble");
    info->m_first = 1;
  }
  info->cpu_assemble = lle_cpu() - cpu0;
  /* spread over the ranks the others wait in the solve: a write failure reported after it */
  int wrc = !worker && o->out_matrix[0] ? io_write_csr(o->out_matrix, &info->m, "lle: M = (I - W)^T (I - W)") : HY_OK;
  if (wrc != HY_OK && lle_eig_ranks(ctx, o, n) <= 1) return wrc;
  lle_eig_in in = {
    .n = n, .k = o->k, .nbr = info->nbr, .w = info->w, .m = &info->m, .nev = o->nev, .tol = o->tol,
    .maxit = o->maxit, .seed = o->seed, .ordering = o->ordering, .chol_ordering = o->chol_ordering,
    .chol_supernodal = o->chol_supernodal, .threads = o->threads > 0 ? o->threads : ctx->threads,
    .threads_auto = o->threads <= 0,
    .gpu_ordering = o->gpu_ordering, .be = &ctx->be,
    .blas_threads = ctx->blas_threads_want,
    .x = info->data.x, .xdim = info->data.dim, .nd_leaf = o->nd_leaf,
    .solve_cols = o->cnd_solve_cols, .cnd_blas_threads = o->cnd_blas_threads, .cnd_own = o->cnd_own,
    .cnd_check = o->cnd_check, .cnd_tiles = o->cnd_tiles, .cnd_sym = o->cnd_sym,
    .cnd_solve_tiles = o->cnd_solve_tiles,
    .cnd_below = o->cnd_below, .cnd_solve_top = o->cnd_solve_top, .cnd_top_copy = o->cnd_top_copy, .cnd_top_asm = o->cnd_top_asm, .cnd_top_open = o->cnd_top_open, .cnd_top_warm = o->cnd_top_warm, .cnd_cut = o->cnd_cut,
    .pool_spin_us = lle_pool_spin_us(o->pool_spin_us, n), .iter_columns = o->iter_columns, .iter_open_beside = o->iter_open_beside,
    .cnd_small = o->cnd_small, .cnd_below_gemm = o->cnd_below_gemm,
    .iter_engine = k_lle_eig_ops_get(&ctx->be)->bsub_open &&
                   (o->iter_block == 1 || (o->iter_block < 0 && k_lle_eig_ops_get(&ctx->be)->bsub_device &&
                                          n >= o->auto_device_n)),
    .cnd_device = o->cnd_device > 0 || (o->cnd_device < 0 && k_lle_eig_ops_get(&ctx->be)->chol_top && n >= o->auto_device_n),
  };
  in.eig_ranks = lle_eig_ranks(ctx, o, n);
  in.comm = ctx->comm;
  in.cnd_spread = o->eig_spread;
  in.iter_rows = o->iter_block == 2;
  if (worker) {
    hy_phase_begin(ctx, "eigen");
    hy_debug_point(ctx, "eigen");
    int rc = lle_cnd_worker(&in);
    hy_phase_end(ctx, "eigen");
    info->cpu_eigen = lle_cpu() - cpu0;
    return rc;
  }
  cpu0 = lle_cpu();
  hy_phase_begin(ctx, "eigen");
  hy_debug_point(ctx, "eigen");
  hy_progress pg;
  hy_progress_begin(&pg, ctx, "lle eigen (log10 of the residual, toward tol)", 1);
  in.prog = &pg;
  int rc = lle_eig_with_fallback(s, &in, info);
  hy_progress_end(&pg);
  hy_phase_end(ctx, "eigen");
  info->cpu_eigen = lle_cpu() - cpu0;
  return rc == HY_OK ? wrc : rc;
}
