/* v_conv.c - hybrid-validate conv: a conv run's result against PETSc.  The filter with its
 * boundary rule becomes a sparse matrix A (MATSEQAIJ, one row per pixel and channel: the taps
 * that map inside the image under zero / clamp / reflect, duplicates added; renormalise: the
 * inside taps divided by their weight, summed tap by tap here, not from prefix sums); the input
 * image x goes through N MatMults, |A| through N MatMults of |x| bounds the rounding, and the
 * run's output must agree: max |y - out| / max (|A|^N |x|) within 2 N (ks^2 + 2) u of the
 * output's precision.  Files: the run's [output] source and npy (.npy, H x W x C, <f4 / <f8)
 * and [output] kernel (Matrix Market). */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int H, W, C, f8;
  double *v;
} vc_image;

/* Read an H x W x C C-order .npy of <f4 or <f8 (app/io's strict reader) as doubles.  Local. */
static int vc_read_npy(const char *path, vc_image *im) {
  static const char *const descr[] = { "<f4", "<f8", NULL };
  io_npy_info h;
  void *raw = NULL;
  HY_CALL(validate_read_npy(path, "values", 3, descr, &h, &im->f8, &raw));
  if (h.shape[0] < 1 || h.shape[1] < 1 || h.shape[2] < 1 || h.shape[0] > INT32_MAX || h.shape[1] > INT32_MAX ||
      h.shape[2] > INT32_MAX) {
    free(raw);
    return hy_err(HY_EINPUT, "%s: .npy shape (%lld, %lld, %lld) is not an H x W x C image", path,
                  (long long)h.shape[0], (long long)h.shape[1], (long long)h.shape[2]);
  }
  im->H = (int)h.shape[0];
  im->W = (int)h.shape[1];
  im->C = (int)h.shape[2];
  size_t n = (size_t)h.count;
  im->v = malloc(n * sizeof *im->v + 8);
  if (!im->v) {
    free(raw);
    return hy_err(HY_ESYS, "out of memory for %zu values", n);
  }
  for (size_t e = 0; e < n; e++) im->v[e] = im->f8 ? ((double *)raw)[e] : ((float *)raw)[e];
  free(raw);
  return HY_OK;
}

/* Coordinate t under the boundary rule (0 zero/renormalise, 1 clamp, 2 reflect); -1 outside.  Local. */
static int vc_map(int t, int n, int rule) {
  if (t >= 0 && t < n) return t;
  if (rule == 1) return t < 0 ? 0 : n - 1;
  if (rule == 2) return t < 0 ? -t - 1 : 2 * n - 1 - t;
  return -1;
}

/* The convolution matrix (abs: |w| and |1 / inside weight|).  Local. */
static int vc_build(const vc_image *im, const hy_dense *k, int rule, int renorm, int abs_w, Mat *A) {
  int H = im->H, W = im->W, C = im->C, ks = (int)k->m, r = ks / 2;
  PetscInt n = (PetscInt)H * W * C;
  VALIDATE_PETSC(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, ks * ks, NULL, A));
  VALIDATE_PETSC(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double inside = 0;
      for (int i = 0; i < ks; i++)
        for (int j = 0; j < ks; j++)
          if (y + i - r >= 0 && y + i - r < H && x + j - r >= 0 && x + j - r < W) inside += k->a[(size_t)j * ks + i];
      if (renorm && fabs(inside) == 0)
        return hy_err(HY_ENUMERIC, "the inside weight of pixel (%d, %d) is 0 (renormalise)", y, x);
      double scale = renorm ? 1.0 / inside : 1.0;
      for (int i = 0; i < ks; i++) {
        int yy = vc_map(y + i - r, H, rule);
        if (yy < 0) continue;
        for (int j = 0; j < ks; j++) {
          int xx = vc_map(x + j - r, W, rule);
          if (xx < 0) continue;
          double w = k->a[(size_t)j * ks + i] * scale;
          if (abs_w) w = fabs(w);
          for (int c = 0; c < C; c++) {
            PetscInt row = ((PetscInt)y * W + x) * C + c, col = ((PetscInt)yy * W + xx) * C + c;
            PetscScalar v = w;
            VALIDATE_PETSC(MatSetValues(*A, 1, &row, 1, &col, &v, ADD_VALUES));
          }
        }
      }
    }
  VALIDATE_PETSC(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  VALIDATE_PETSC(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  return HY_OK;
}

/* y = A^passes x (x overwritten).  Local. */
static int vc_apply(Mat A, Vec x, Vec t, long long passes) {
  for (long long p = 0; p < passes; p++) {
    VALIDATE_PETSC(MatMult(A, x, t));
    VALIDATE_PETSC(VecCopy(t, x));
  }
  return HY_OK;
}

/* hybrid-validate conv -input FILE -kernel FILE -output FILE -boundary B -passes N.  Local. */
int validate_conv(int argc, char **argv) {
  const char *ip = NULL, *kp = NULL, *op = NULL, *bnd = "renormalise";
  long long passes = 1;
  double tol = 0;
  const validate_opt opts[] = {
      {"input", VALIDATE_OPT_STR, &ip, 1, "FILE", "the run's input image ([output] source, .npy)"},
      {"kernel", VALIDATE_OPT_STR, &kp, 1, "FILE", "the run's filter ([output] kernel, Matrix Market)"},
      {"output", VALIDATE_OPT_STR, &op, 1, "FILE", "the run's result ([output] npy)"},
      {"boundary", VALIDATE_OPT_STR, &bnd, 0, "RULE", "renormalise (default) | zero | clamp | reflect"},
      {"passes", VALIDATE_OPT_INT, &passes, 0, "N", "filter applications (default 1)"},
      {"tol", VALIDATE_OPT_REAL, &tol, 0, "T", "tolerance (default 2 N (ks^2 + 2) u of the output's precision)"},
      {NULL, 0, NULL, 0, NULL, NULL}};
  int rc = validate_args_parse(argc, argv, opts, "-input FILE -kernel FILE -output FILE [-boundary RULE] [-passes N]");
  if (rc != HY_OK) return rc;
  static const char *rules[] = { "renormalise", "zero", "clamp", "reflect" };
  int b = -1;
  for (int i = 0; i < 4; i++) if (!strcmp(bnd, rules[i])) b = i;
  if (b < 0) return hy_err(HY_EUSAGE, "-boundary %s (allowed: renormalise, zero, clamp, reflect)", bnd);
  if (passes < 1) return hy_err(HY_EUSAGE, "-passes %lld (allowed: >= 1)", passes);
  vc_image in = { 0, 0, 0, 0, NULL }, out = { 0, 0, 0, 0, NULL };
  hy_dense k = { 0, 0, NULL };
  rc = vc_read_npy(ip, &in);
  if (rc == HY_OK) rc = vc_read_npy(op, &out);
  if (rc == HY_OK) rc = io_mm_read_dense(kp, &k);
  if (rc == HY_OK && (in.H != out.H || in.W != out.W || in.C != out.C))
    rc = hy_err(HY_EINPUT, "%s is %d x %d x %d but %s is %d x %d x %d", op, out.H, out.W, out.C, ip, in.H, in.W, in.C);
  if (rc == HY_OK && (k.m != k.n || k.m % 2 == 0))
    rc = hy_err(HY_EINPUT, "%s: the kernel is %lld x %lld (allowed: square, odd)", kp, (long long)k.m, (long long)k.n);
  Mat A = NULL, Aa = NULL;
  Vec x = NULL, xa = NULL, t = NULL;
  if (rc == HY_OK) rc = vc_build(&in, &k, b <= 1 ? 0 : b - 1, b == 0, 0, &A);
  if (rc == HY_OK) rc = vc_build(&in, &k, b <= 1 ? 0 : b - 1, b == 0, 1, &Aa);
  size_t n = (size_t)in.H * in.W * in.C;
  double err = 0, scale = 0;
  if (rc == HY_OK) {
    rc = validate_array_to_vec(in.v, (int64_t)n, &x);
    for (size_t e = 0; rc == HY_OK && e < n; e++) in.v[e] = fabs(in.v[e]);
    if (rc == HY_OK) rc = validate_array_to_vec(in.v, (int64_t)n, &xa);
    if (rc == HY_OK) VALIDATE_PETSC(VecDuplicate(x, &t));
    if (rc == HY_OK) rc = vc_apply(A, x, t, passes);
    if (rc == HY_OK) rc = vc_apply(Aa, xa, t, passes);
  }
  if (rc == HY_OK) {
    const PetscScalar *y, *ya;
    VALIDATE_PETSC(VecGetArrayRead(x, &y));
    VALIDATE_PETSC(VecGetArrayRead(xa, &ya));
    for (size_t e = 0; e < n; e++) {
      double d = fabs(y[e] - out.v[e]);
      if (!(d <= err)) err = d;
      if (ya[e] > scale) scale = ya[e];
    }
    VALIDATE_PETSC(VecRestoreArrayRead(x, &y));
    VALIDATE_PETSC(VecRestoreArrayRead(xa, &ya));
    double rel = scale > 0 ? err / scale : err;
    double u = out.f8 ? 0x1p-53 : 0x1p-24;
    if (tol <= 0) tol = 2.0 * passes * ((double)k.m * k.m + 2) * u;
    PetscInt nnz = 0;
    MatInfo info;
    VALIDATE_PETSC(MatGetInfo(A, MAT_LOCAL, &info));
    nnz = (PetscInt)info.nz_used;
    printf("hybrid-validate conv\n  input  %s: %d x %d x %d\n  kernel %s: %lld x %lld, boundary %s, %lld pass(es)\n"
           "  output %s (%s)\n  PETSc: MATSEQAIJ %zu x %zu, %lld nonzeros, %lld MatMult(s)\n"
           "  max difference / max (|A|^N |x|) %.3e (tolerance %.3e); max relative difference %.3e\n",
           ip, in.H, in.W, in.C, kp, (long long)k.m, (long long)k.n, bnd, passes, op, out.f8 ? "double" : "float",
           n, n, (long long)nnz, passes, rel, tol, rel);
    rc = validate_verdict(rel <= tol, "conv %d x %d x %d, %s, %lld pass(es): PETSc MatMult agrees to %.3e (<= %.3e)",
                          in.H, in.W, in.C, bnd, passes, rel, tol);
  }
  if (A) MatDestroy(&A);
  if (Aa) MatDestroy(&Aa);
  if (x) VecDestroy(&x);
  if (xa) VecDestroy(&xa);
  if (t) VecDestroy(&t);
  free(in.v);
  free(out.v);
  io_dense_free(&k);
  return rc;
}
