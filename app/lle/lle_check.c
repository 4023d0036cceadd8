/* lle_check.c - stage "check" of lle (rank 0): the in-run check that decides PASSED/FAILED
 * (every eigenpair's residual ||M v - lambda v|| <= tol ||M||_1, all converged), after the
 * [debug] perturb hook; the sign convention, the embedding and its digest, and the quality
 * figure (trustworthiness). */
#include "lle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a 64 of bytes (the embedding digest, the same for any rank count).  Local. */
static uint64_t fnv64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ULL; }
  return h;
}

/* Perturbation hook, signs, verdict figure, embedding, trustworthiness.  Local (rank 0). */
int lle_check_result(hy_ctx *ctx, const lle_opts *o, lle_info *info) {
  lle_eig *e = &info->eig;
  int64_t n = info->data.n;
  int nev = o->nev, dd = o->dim;
  if (ctx->debug.perturb != 0) {   /* test hook: a wrong result for the check */
    lle_eig_perturb(e, n, ctx->debug.perturb, o->seed);
    if (info->w) HY_CALL(lle_eig_residuals_w(n, o->k, info->nbr, info->w, o->threads > 0 ? o->threads : ctx->threads, e));
    else lle_eig_residuals(&info->m, e);
    info->perturbed = 1;
  }
  /* sign convention: the largest-magnitude entry of each vector is positive */
  for (int j = 0; j < nev; j++) {
    double *v = e->vec + (size_t)j * n, best = 0;
    for (int64_t i = 0; i < n; i++) if (fabs(v[i]) > fabs(best)) best = v[i];
    if (best < 0) for (int64_t i = 0; i < n; i++) v[i] = -v[i];
  }
  double worst = 0;
  for (int j = 0; j < nev; j++) {
    double rel = e->res[j] / e->normm;
    if (rel > worst || isnan(rel)) worst = rel;
  }
  info->worst = worst;
  info->passed = worst <= o->tol && !isnan(worst) && (e->converged == nev);
  HY_MALLOC(info->emb, (size_t)n * dd);
  memcpy(info->emb, e->vec + (size_t)n, (size_t)n * dd * sizeof *info->emb);
  info->emb_digest = fnv64(0xcbf29ce484222325ULL, info->emb, (size_t)n * dd * sizeof *info->emb);
  if (info->tnbr) {   /* lle.transform: y_new = sum_j w_j y[nbr_j], as scikit-learn's transform */
    int64_t nt = info->tdata.n;
    HY_MALLOC(info->temb, (size_t)nt * dd);
    for (int c = 0; c < dd; c++)
      for (int64_t i = 0; i < nt; i++) {
        double s = 0;
        for (int j = 0; j < o->k; j++) s += info->tw[i * o->k + j] * info->emb[(size_t)c * n + info->tnbr[i * o->k + j]];
        info->temb[(size_t)c * nt + i] = s;
      }
    info->temb_digest = fnv64(0xcbf29ce484222325ULL, info->temb, (size_t)nt * dd * sizeof *info->temb);
  }
  /* quality: trustworthiness (costs sample x n distances) */
  if (o->trust_sample > 0 && n <= o->trust_max_n && (int64_t)o->trust_k < n / 2) {
    hy_phase_begin(ctx, "quality");
    HY_CALL(lle_trustworthiness(&info->data, dd, info->emb, o->trust_k, o->trust_sample, o->seed, &info->trust));
    hy_phase_end(ctx, "quality");
    info->have_trust = 1;
  }
  return HY_OK;
}

/* Free what the stages allocated (the scalars stay for the verdict).  Local. */
void lle_info_free(lle_info *info) {
  free(info->nbr); free(info->w); free(info->blk); free(info->emb);
  info->nbr = NULL; info->w = NULL; info->blk = NULL; info->emb = NULL;
  free(info->tnbr); free(info->tw); free(info->temb);
  info->tnbr = NULL; info->tw = NULL; info->temb = NULL;
  lle_data_free(&info->tdata);
  io_csr_free(&info->m);
  lle_eig_free(&info->eig);
  lle_data_free(&info->data);
}
