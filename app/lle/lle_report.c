/* lle_report.c - everything lle prints (rank 0), its figures for the results record and the
 * verdict, from the lle_info the stages filled; numerics stay testable without stdout. */
#include "lle.h"
#include "lle_eig.h"

#include <math.h>
#include <stdio.h>

/* The data line.  Call on every rank. */
void lle_report_data(hy_ctx *ctx, const lle_opts *o, const lle_info *info) {
  if (o->method == LLE_STANDARD)
    hy_printf0(ctx, "lle: %s, n = %lld points in %d dimensions, k = %d, d = %d, reg = %g\n",
               o->dataset_name, (long long)info->data.n, info->data.dim, o->k, o->dim, o->reg);
  else
    hy_printf0(ctx, "lle: %s, n = %lld points in %d dimensions, k = %d, d = %d, method %s%s\n",
               o->dataset_name, (long long)info->data.n, info->data.dim, o->k, o->dim, o->method_name,
               o->method == LLE_HESSIAN ? " (hessian_tol as scikit-learn's)" : "");
  hy_metric_str(ctx, "method", o->method_name);
}

/* The neighbour search and graph lines and metrics; the stage-only figures.  Call on every
 * rank. */
void lle_report_build(hy_ctx *ctx, const lle_opts *o, const lle_info *info) {
  int64_t n = info->data.n;
  static const char *const local_name[] = { "weights", "ltsa blocks", "hessian blocks", "modified blocks" };
  const char *local = local_name[o->method];
  int kd = info->knn_used == LLE_KNN_KDTREE || info->grid_host;
  const char *qn = info->grid_host ? "grid queries" : "kd-tree queries";
  char how[96] = "";
  if (kd || info->weights_host)
    snprintf(how, sizeof how, "; %s%s on %d host thread(s) a rank", kd ? qn : "weights",
             kd && info->weights_host ? " and weights" : "", info->host_threads);
  hy_printf0(ctx, "lle: neighbours by %s (%s), %s on %s, %d rank(s) with query blocks%s\n",
             info->knn_name, info->knn_how, local, info->weights_host ? "host" : ctx->be.name, ctx->size, how);
  hy_metric_str(ctx, "weights_on", info->weights_host ? "host" : ctx->be.name);
  hy_printf0(ctx, "lle: knn graph digest %016llx, %lld zero-distance neighbour(s) (duplicates), "
             "%lld point(s) with a %s\n", (unsigned long long)info->graph_digest,
             (long long)info->ndup, (long long)info->nbad,
             o->method == LLE_STANDARD ? "singular local Gram matrix" : "local eigen-decomposition not converged");
  if (info->knn_redo >= 0) {
    hy_printf0(ctx, "lle: knn FP32 filter: %lld of %lld queries redone by the FP64 kernel (ties or duplicates "
               "beyond the filter's list, or data beyond FP32's range)\n", (long long)info->knn_redo, (long long)n);
    hy_metric_int(ctx, "knn_fp64_redone", info->knn_redo);
  }
  hy_metric_str(ctx, "knn", info->knn_metric);
  hy_metric_int(ctx, "duplicate_neighbours", info->ndup);
  hy_metric_int(ctx, "singular_gram", info->nbad);
  if (o->stage == LLE_STAGE_ALL) return;
  double tk = info->t_knn;
  hy_printf0(ctx, "lle: stage %s: knn %.6f s (%.3g queries/s), weights %.6f s, knn+weights %.6f s "
             "(slowest rank)\n", o->stage_name, tk, n / (tk > 0 ? tk : 1e-30), info->t_weights, tk + info->t_weights);
  hy_metric_num(ctx, "knn_seconds", tk);
  hy_metric_num(ctx, "weights_seconds", info->t_weights);
}

/* bsvd's lines: the LU and its parts.  Local (rank 0). */
/* The iteration's block work line (lle.iter_block = backend).  Local (rank 0). */
static void lle_report_iter_engine(const hy_ctx *ctx, const lle_eig *e) {
  if (e->iter_engine)
    hy_printf0(ctx, "lle: iteration block work (projection, QR, B^T B V, Rayleigh-Ritz, residuals) on the %s "
               "backend's engine: %.3f s of the iterations, %.1f MB moved%s; parts: the first QR and copies %.3f, "
               "projection / QR / M V / H %.3f, the p x p eigen %.4f, rotations and residual norms %.3f, the final "
               "residuals %.3f s\n", ctx->be.name, e->t_iter - e->t_solve,
               e->iter_bytes * 1e-6, e->iter_opened_beside ? "; the engine opened beside the factorisation" : "",
               e->t_ie[0], e->t_ie[1], e->t_ie[2], e->t_ie[3], e->t_ie[4]);
}

void lle_report_eig_lu(const hy_ctx *ctx, const char *label, const lle_eig *e) {
  hy_printf0(ctx, "lle: eigensolver %s (%s): factorisation %.3f s (analysis %.3f s; nnz(L+U) %.4g, "
             "%.4g flops, BLAS threads %d), %d iteration(s) %.3f s, ||M||_1 = %.4g\n",
             label, e->method, e->t_factor, e->t_analyze, e->lnz, e->flops, e->blas_threads, e->iters,
             e->t_iter, e->normm);
  hy_printf0(ctx, "lle: bsvd parts: B and symbolic analysis %.3f s, numeric LU %.3f s, factor extraction %.3f s, "
             "block solves %.3f s of the iterations (%d threads)\n", e->t_analyze, e->t_numeric,
             e->t_extract, e->t_solve, e->solve_threads);
  lle_report_iter_engine(ctx, e);
}

/* chol-nd's lines: the Cholesky factorisation and the phase split.  Local (rank 0). */
/* chol-nd over the ranks: the seconds only rank 0 works (the top's factor, the solves' top,
 * the iteration's block work and the p x p eigenproblems; with lle.iter_block = rows the
 * block work's steps by rows are every rank's, the rest of the iteration rank 0's).  Local. */
static double lle_eig_iter_alone(const lle_eig *e) {
  return e->t_iter - e->t_solve - (e->iter_rows ? e->t_rows : 0);
}
static double lle_eig_rank0_alone(const lle_eig *e) {
  return e->dist_r0[LLE_DP_TOP] + e->dist_r0[LLE_DP_STOP] + lle_eig_iter_alone(e);
}

void lle_report_eig_cnd(const hy_ctx *ctx, const char *label, const lle_eig *e) {
  hy_printf0(ctx, "lle: eigensolver %s (%s): shift %.3g, factorisation %.3f s (order and analysis %.3f s; nnz(L) %.4g, "
             "%.4g flops, BLAS threads %d), %d iteration(s) %.3f s, ||M||_1 = %.4g\n",
             label, e->method, e->shift, e->t_factor, e->t_analyze, e->lnz, e->flops, e->blas_threads, e->iters,
             e->t_iter, e->normm);
  hy_printf0(ctx, "lle: chol-nd parts: nested-dissection order %.3f s, symbolic analysis %.3f s, numeric Cholesky %.3f s "
             "(%.3g Gflop/s), block solves %.3f s of the iterations (the rest of them: QR, Rayleigh-Ritz, residuals %.3f s); "
             "order threads %d, numeric factor BLAS threads %d\n",
             e->t_order, e->t_analyze - e->t_order, e->t_numeric, e->t_numeric > 0 ? e->flops / e->t_numeric * 1e-9 : 0.0,
             e->t_solve, e->t_iter - e->t_solve, e->order_threads, e->factor_blas_threads);
  static const char *sym_how[] = { "by cholmod_analyze", "by steps (cholmod_analyze's, its transposes on the threads)",
                                    "by steps, the supernodal pattern over the tree on the threads" };   /* (tests match them) */
  const double *sp = e->sym_parts;
  if (e->sym_kind == 2 && sp[7] > 0)
    hy_printf0(ctx, "lle: chol-nd symbolic analysis %s: %.3f s (transposes %.3f, etree and counts: the order's subtrees "
               "on the threads %.3f, the top %.3f, weighted postorder %.3f, permuted copies %.3f, supernodal pattern %.3f s)\n",
               sym_how[2], e->t_analyze - e->t_order, sp[0], sp[1], sp[2], sp[4], sp[5], sp[6]);
  else if (e->sym_kind)
    hy_printf0(ctx, "lle: chol-nd symbolic analysis %s: %.3f s (transposes %.3f, etree %.3f, postorder %.3f, counts %.3f, "
               "weighted postorder %.3f, permuted copies %.3f, supernodal pattern %.3f s)\n", sym_how[e->sym_kind],
               e->t_analyze - e->t_order, sp[0], sp[1], sp[2], sp[3], sp[4], sp[5], sp[6]);
  else
    hy_printf0(ctx, "lle: chol-nd symbolic analysis %s: %.3f s\n", sym_how[0], e->t_analyze - e->t_order);
  hy_printf0(ctx, "lle: chol-nd order parts: B and the block %.3f s, renumbering and preparation %.3f s, breadth-first "
             "levels %.3f s, subtrees %.3f s, rest %.3f s, A permuted %.3f s, thread pool start %.4f s\n", e->t_setup,
             e->order_parts[0], e->order_parts[1], e->order_parts[2], e->order_parts[3], e->t_permute, e->t_pool);
  hy_printf0(ctx, "lle: chol-nd order split: renumbering and preparation = Morton sort %.3f + renumbered copies %.3f + work "
             "arrays %.3f + transpose and reach %.3f s; breadth-first levels: the first %.3f s, the second %.3f s\n",
             e->order_parts[4], e->order_parts[5], e->order_parts[6], e->order_parts[7], e->order_parts[8], e->order_parts[9]);
  hy_printf0(ctx, "lle: chol-nd memory: factor %.4g GB (values and row indices), matrices %.4g GB (A, A by rows, B), "
             "blocks and maps %.4g GB; %.4g GB in all\n", e->mem_factor * 1e-9, e->mem_matrix * 1e-9, e->mem_block * 1e-9,
             (e->mem_factor + e->mem_matrix + e->mem_block) * 1e-9);
  if (e->cnd_own)
    hy_printf0(ctx, "lle: chol-nd factor: own tree-parallel supernodal: %d subtree(s) on %d thread(s) %.3f s, "
               "%d top supernode(s) (%.1f%% of the flops) %.3f s, dpotrf / dtrsm %s; the solves' top triangular solves %s\n",
               e->cnd_nsub, e->cnd_threads, e->t_sub, e->cnd_ntop, 100 * e->cnd_top_frac, e->t_top,
               e->cnd_top_used ? "of the top on the device" : e->cnd_tiles ? "by tiles on the threads" : "by BLAS calls",
               e->cnd_solve_tiles ? "tiled over the threads" : "one dtrsm each");
  char opened[200] = "", warmed[64] = "";
  if (e->t_warm > 0) snprintf(warmed, sizeof warmed, ", its kernels warmed there in %.3f s", e->t_warm);
  if (e->cnd_own && e->cnd_top_used && e->t_open > 0)
    snprintf(opened, sizeof opened, "; its engine opened beside the subtrees in %.3f s%s (the top waited %.4f s for it)",
             e->t_open, warmed, e->t_open_wait);
  char upparts[160] = "";
  if (e->cnd_own && e->cnd_top_used)
    snprintf(upparts, sizeof upparts, ", tails %.4f%s, entry lists %.4f, the rest (launches) %.4f", e->t_up_tails,
             e->top_reg_used ? " from their page-locked buffer" : "", e->t_up_lists,
             e->t_up - e->t_alloc - e->t_up_tails - e->t_up_lists);
  char own[64] = "";
  if (e->cnd_own && e->cnd_top_used && e->cnd_below) snprintf(own, sizeof own, ", the top's own %.4f", e->t_dev_own);
  char gemm[96] = "";
  if (e->cnd_own && e->cnd_top_used && e->cnd_below)
    snprintf(gemm, sizeof gemm, " (%lld pairs by DGEMM; the tails' DMA %.4f s)", (long long)e->cnd_ngemm, e->t_dev_tails);
  if (e->cnd_own && e->cnd_top_used)
    hy_printf0(ctx, "lle: chol-nd top on the device: %s on the threads %.3f s, "
               "%.1f MB moved (both ways), copies up %.3f s (set-up %.3f%s), device work %.3f s (assembly %.4f, updates from below %.4f%s), "
               "copies back %.3f s%s; updates from below %s%s%s%s\n",
               e->cnd_top_asm ? "entry lists (the blocks assembled on the device)"
               : e->cnd_below ? "assembly" : "assembly and updates from below",
               e->t_below, e->top_bytes * 1e-6, e->t_up, e->t_alloc, upparts, e->t_dev, e->t_dev_asm, e->t_dev_below, own, e->t_down, opened,
               e->cnd_below ? "on the device" : "on the threads", gemm,
               e->cnd_solve_top ? "; the solves' top part on the device (the factored top kept there)" : "",
               e->cnd_top_copy ? "; copies up through pinned buffers" : "");
  lle_report_iter_engine(ctx, e);
  if (e->iter_rows)
    hy_printf0(ctx, "lle: iteration block work by rows (lle.iter_block = rows: projection, CholeskyQR3, B^T B V, H = V^T M V, "
               "V Y, M V Y, residuals; the block to rank 0 for each solve) over %d rank(s): %.3f s of the iterations, "
               "%.1f MB moved; rank 0's p x p eigenproblems %.4f s\n", e->iter_rows, e->t_rows, e->rows_bytes * 1e-6,
               e->t_rows_eig);
  if (e->dist_ranks > 1) {
    const double *m = e->dist_max, *r = e->dist_r0;
    hy_printf0(ctx, "lle: chol-nd over %d ranks (lle.eig_ranks, eig_top = %s): %d to %d subtree(s) a rank (the most loaded %.1f%% of their "
               "flops); per phase the slowest rank (rank 0): order %.3f (%.3f) s, symbolic analysis %.3f (%.3f) s, subtrees' "
               "factor %.3f (%.3f) s, tails to rank 0 %.3f (%.3f) s %.1f MB, solves' subtrees %.3f (%.3f) s, solves' "
               "exchanges %.3f (%.3f) s %.1f MB, eigen-solve %.3f (%.3f) s\n",
               e->dist_ranks, e->dist_spread ? "spread" : "rank0", e->dist_nsub_min, e->dist_nsub_max, 100 * e->dist_wmax, m[LLE_DP_ORDER], r[LLE_DP_ORDER],
               m[LLE_DP_SYM], r[LLE_DP_SYM], m[LLE_DP_SUB], r[LLE_DP_SUB], m[LLE_DP_TAILS], r[LLE_DP_TAILS],
               e->dist_bytes_f * 1e-6, m[LLE_DP_SSUB], r[LLE_DP_SSUB], m[LLE_DP_SCOMM], r[LLE_DP_SCOMM],
               e->dist_bytes_s * 1e-6, m[LLE_DP_TOTAL], r[LLE_DP_TOTAL]);
    hy_printf0(ctx, "lle: chol-nd rank 0 alone: top factor %.3f s, solves' top %.3f s, QR / Rayleigh-Ritz / residuals %.3f s; "
               "%.3f s in all, %.1f%% of its eigen-solve%s\n", r[LLE_DP_TOP], r[LLE_DP_STOP], lle_eig_iter_alone(e),
               lle_eig_rank0_alone(e), r[LLE_DP_TOTAL] > 0 ? 100 * lle_eig_rank0_alone(e) / r[LLE_DP_TOTAL] : 0.0,
               e->iter_rows > 1 ? " (the block work by rows over the ranks not in it: their eigenproblems and the rest of the "
                                  "iteration's loop only)" : "");
  }
  if (e->factor_checked)
    hy_printf0(ctx, "lle: chol-nd factor check: ||P (M + tau I) P^T z - L L^T z|| / ||P (M + tau I) P^T z|| = %.3e\n",
               e->factor_check);
  if (e->factor_checked && e->sym_diff >= 0)
    hy_printf0(ctx, "lle: chol-nd symbolic check: the analysis by %s and cholmod_analyze's %s (field %d)\n",
               e->sym_kind == 2 ? "tree (the supernodal pattern on the threads)" : "steps", e->sym_diff ? "DIFFER" : "are the same",
               e->sym_diff);
  if (e->factor_checked && e->solve_check >= 0)
    hy_printf0(ctx, "lle: chol-nd solve check: max_i |L L^T x - b|_i / (|L| |L^T| |x| + |b|)_i = %.3e\n", e->solve_check);
}

/* shift-invert's and dense's line: the shift and the factorisation.  Local (rank 0). */
void lle_report_eig_chol(const hy_ctx *ctx, const char *label, const lle_eig *e) {
  hy_printf0(ctx, "lle: eigensolver %s: shift %.3g, factorisation %.3f s (analysis %.3f s; nnz(L) %.4g, "
             "%.4g flops, ordering %d, BLAS threads %d), %d iteration(s) %.3f s, ||M||_1 = %.4g\n",
             label, e->shift, e->t_factor, e->t_analyze, e->lnz, e->flops,
             e->ordering, e->blas_threads, e->iters, e->t_iter, e->normm);
}

/* gpu-chol's lines: the factorisation on the device and the phase split.  Local (rank 0). */
void lle_report_eig_gpu(const hy_ctx *ctx, const char *label, const lle_eig *e) {
  hy_printf0(ctx, "lle: eigensolver %s (%s): shift %.3g, factorisation %.3f s (ordering and analysis %.3f s; "
             "factor storage %.4g MB), %d iteration(s) %.3f s, ||M||_1 = %.4g\n",
             label, e->method, e->shift, e->t_factor, e->t_analyze, e->factor_bytes / 1e6, e->iters, e->t_iter,
             e->normm);
  hy_printf0(ctx, "lle: gpu-chol parts: ordering %.3f s, M formed %.3f s, analysis %.3f s, factor %.3f s, "
             "solves %.3f s, Rayleigh-Ritz %.3f s\n", e->t_order, e->t_form, e->t_analyze - e->t_order - e->t_form,
             e->t_numeric, e->t_solve, e->t_rr);
}

/* M, the fallback, the solver's lines, the eigenpairs table and metrics, the embedding
 * digest.  Local (rank 0). */
void lle_report_solve(hy_ctx *ctx, const lle_opts *o, const lle_info *info) {
  const lle_eig *e = &info->eig;
  int64_t n = info->data.n;
  if (info->m_first)
    hy_printf0(ctx, "lle: M = %s: %lld x %lld, %lld nonzeros\n",
               o->method == LLE_STANDARD ? "(I - W)^T (I - W)" : "sum of the local blocks", (long long)n, (long long)n,
               (long long)info->m.nnz);
  if (info->auto_choice)   /* which solver auto took, and why: users see what ran */
    hy_printf0(ctx, "lle: eigensolver = auto: %s (n = %lld %s lle.auto_cnd_n = %lld)\n", info->auto_choice, (long long)n,
               n >= o->auto_cnd_n ? ">=" : "<", (long long)o->auto_cnd_n);
  if (info->fallback_msg[0]) hy_printf0(ctx, "%s", info->fallback_msg);
  if (info->perturbed)
    hy_printf0(ctx, "lle: [debug] perturb = %g: eigenvectors perturbed after the solve, residuals recomputed\n",
               ctx->debug.perturb);
  info->solver->report(ctx, info->solver_label, e);
  hy_metric_str(ctx, "eigensolver", info->solver->name);   /* the one whose eigenpairs these are (auto resolved, fallback taken) */
  hy_printf0(ctx, "lle: CPU time of this process: assemble %.3f s, eigen %.3f s\n", info->cpu_assemble, info->cpu_eigen);
  hy_metric_num(ctx, "eigen_cpu_seconds", info->cpu_eigen);
  hy_printf0(ctx, "  %3s %24s %12s %12s\n", "j", "eigenvalue", "residual", "res/||M||");
  char buf[2048];
  int pos = snprintf(buf, sizeof buf, "[");
  for (int j = 0; j < o->nev; j++) {
    hy_printf0(ctx, "  %3d %24.16e %12.3e %12.3e%s\n", j, e->val[j], e->res[j], e->res[j] / e->normm,
               j == 0 ? "  (constant vector, dropped)" : "");
    pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s{\"lambda\": %.17g, \"residual\": %.6g}", j ? ", " : "",
                    e->val[j], e->res[j]);
  }
  snprintf(buf + pos, sizeof buf - (size_t)pos, "]");
  hy_metric_json(ctx, "eigenpairs", buf);
  hy_metric_int(ctx, "eigen_iterations", e->iters);
  hy_metric_num(ctx, "eigen_shift", e->shift);
  hy_metric_num(ctx, "normM", e->normm);
  if (info->m.nnz) hy_metric_int(ctx, "nnz_M", info->m.nnz);
  hy_metric_num(ctx, "eigen_factor_seconds", e->t_factor);
  hy_metric_num(ctx, "eigen_iter_seconds", e->t_iter);
  if (e->factor_checked) hy_metric_num(ctx, "cnd_factor_check", e->factor_check);
  if (e->factor_checked && e->solve_check >= 0) hy_metric_num(ctx, "cnd_solve_check", e->solve_check);
  if (e->factor_checked && e->sym_diff >= 0) hy_metric_num(ctx, "cnd_symbolic_diff", e->sym_diff);
  if (e->mem_factor > 0) {   /* chol-nd */
    hy_metric_num(ctx, "cnd_memory_bytes", e->mem_factor + e->mem_matrix + e->mem_block);
    hy_metric_num(ctx, "cnd_symbolic_seconds", e->t_analyze - e->t_order);
    hy_metric_int(ctx, "eig_ranks", e->dist_ranks > 1 ? e->dist_ranks : 1);
  }
  if (e->iter_rows) {   /* lle.iter_block = rows */
    hy_metric_int(ctx, "iter_rows_ranks", e->iter_rows);
    hy_metric_num(ctx, "iter_rows_seconds", e->t_rows);
  }
  if (e->dist_ranks > 1) {
    hy_metric_num(ctx, "eig_rank0_alone_seconds", lle_eig_rank0_alone(e));
    hy_metric_num(ctx, "eig_subtrees_max_seconds", e->dist_max[LLE_DP_SUB]);
    hy_metric_num(ctx, "eig_solves_subtrees_max_seconds", e->dist_max[LLE_DP_SSUB]);
  }
  double rerr = 0;   /* scikit-learn's reconstruction_error_: the sum of the d kept eigenvalues */
  for (int j = 1; j < o->nev; j++) rerr += e->val[j];
  hy_printf0(ctx, "lle: reconstruction error %.6e (sum of the %d kept eigenvalues, scikit-learn's reconstruction_error_)\n",
             rerr, o->dim);
  hy_metric_num(ctx, "reconstruction_error", rerr);
  hy_printf0(ctx, "lle: embedding digest %016llx\n", (unsigned long long)info->emb_digest);
  if (o->method == LLE_MODIFIED) hy_printf0(ctx, "lle: modified: eta = %.6e (median of the local eigenvalue ratios)\n", info->eta);
  if (info->temb) {
    hy_printf0(ctx, "lle: transform: %lld new point(s) embedded (barycentric weights on their %d nearest training "
               "points, reg %g; %lld with a singular local Gram matrix), digest %016llx\n", (long long)info->tdata.n,
               o->k, o->reg, (long long)info->tbad, (unsigned long long)info->temb_digest);
    hy_metric_int(ctx, "transformed_points", info->tdata.n);
  }
}

/* The trustworthiness line and metric.  Local (rank 0). */
void lle_report_trust(hy_ctx *ctx, const lle_opts *o, const lle_info *info) {
  if (!info->have_trust) return;
  hy_printf0(ctx, "lle: trustworthiness %.6f (n_neighbors = %d, %s)\n", info->trust, o->trust_k,
             info->data.n <= o->trust_sample ? "all points" : "seeded sample of query points");
  hy_metric_num(ctx, "trustworthiness", info->trust);
}

/* The record's validation and the last line.  Collective. */
int lle_report_verdict(hy_ctx *ctx, const lle_opts *o, const lle_info *info) {
  if (o->stage != LLE_STAGE_ALL) {
    hy_validation(ctx, "stage only (no eigenproblem)", 0, 0, 1);
    hy_verdict(ctx, "lle: stage %s only, %d rank(s)", o->stage_name, ctx->size);
    return HY_OK;
  }
  int passed = info->passed;
  double worst = info->worst;
  HY_MPI(MPI_Bcast(&passed, 1, MPI_INT, 0, ctx->comm));
  HY_MPI(MPI_Bcast(&worst, 1, MPI_DOUBLE, 0, ctx->comm));
  hy_validation(ctx, "max eigen-residual / ||M||_1", worst, o->tol, passed);
  if (!passed) {
    hy_verdict(ctx, "lle: eigenpairs not converged: max ||M v - lambda v|| / ||M||_1 = %.3e > %.1e", worst, o->tol);
    return HY_EVALID;
  }
  hy_verdict(ctx, "lle: %d eigenpairs converged, max ||M v - lambda v|| / ||M||_1 = %.3e <= %.1e", o->nev, worst, o->tol);
  return HY_OK;
}
