/* v_sort.c - hybrid-validate sort: the input keys of a sort run sorted by PETSc (PetscSortInt
 * and PetscParallelSortInt for int32, PetscSortInt64 for int64, PetscSortReal for float and
 * double) against the run's output, element by element; with the run's index payload also
 * that it is a permutation moving every key bit for bit (out[i] == in[idx[i]]) and that equal
 * keys keep their input order (stability).  Files: 1-D .npy (<i4 <i8 <f4 <f8, as hybrid
 * writes them) or a PETSc binary Vec / Matrix Market vector (read as double keys). */
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VS_I32 = 0, VS_I64 = 1, VS_F32 = 2, VS_F64 = 3 };

typedef struct {
  int type;
  int64_t n;
  void *a;
} vs_array;

/* A 1-D .npy of keys (<i4 <i8 <f4 <f8: app/io's strict reader), or a vector file (PETSc binary /
 * Matrix Market) as double keys.  Local. */
static int vs_read(const char *path, vs_array *v) {
  static const char *const descr[] = { "<i4", "<i8", "<f4", "<f8", NULL };
  if (validate_is_npy(path)) {
    io_npy_info h;
    HY_CALL(validate_read_npy(path, "keys", 1, descr, &h, &v->type, &v->a));
    v->n = h.shape[0];
    return HY_OK;
  }
  double *x = NULL;
  HY_CALL(io_read_vec(path, &x, &v->n));
  v->type = VS_F64;
  v->a = x;
  return HY_OK;
}

/* Key i as double (exact for float; int types compared through int64 below).  Local. */
static double vs_real(const vs_array *v, int64_t i) {
  return v->type == VS_F32 ? (double)((const float *)v->a)[i] : ((const double *)v->a)[i];
}
static int64_t vs_int(const vs_array *v, int64_t i) {
  return v->type == VS_I32 ? (int64_t)((const int32_t *)v->a)[i] : (int64_t)((const int64_t *)v->a)[i];
}

/* Sort a copy of in with PETSc and count the positions where out differs; *first the first.
 * For int32 also PetscParallelSortInt (over PETSC_COMM_SELF) must agree.  Local. */
static int vs_petsc_compare(const vs_array *in, const vs_array *out, int64_t *bad, int64_t *first, const char **how) {
  int64_t n = in->n;
  *bad = 0;
  *first = -1;
  if (in->type == VS_I32 || in->type == VS_I64) {
    PetscInt64 *r = malloc((size_t)n * sizeof *r + 8);
    PetscInt *pi = NULL, *po = NULL;
    if (!r) return hy_err(HY_ESYS, "out of memory");
    for (int64_t i = 0; i < n; i++) r[i] = vs_int(in, i);
    VALIDATE_PETSC(PetscSortInt64((PetscInt)n, r));
    *how = "PetscSortInt64";
    if (in->type == VS_I32) {
      PetscLayout map;
      pi = malloc((size_t)n * sizeof *pi + 8);
      po = malloc((size_t)n * sizeof *po + 8);
      if (!pi || !po) return hy_err(HY_ESYS, "out of memory");
      for (int64_t i = 0; i < n; i++) pi[i] = (PetscInt)vs_int(in, i);
      VALIDATE_PETSC(PetscLayoutCreateFromSizes(PETSC_COMM_SELF, (PetscInt)n, (PetscInt)n, 1, &map));
      VALIDATE_PETSC(PetscParallelSortInt(map, map, pi, po));
      VALIDATE_PETSC(PetscLayoutDestroy(&map));
      VALIDATE_PETSC(PetscSortInt((PetscInt)n, pi));
      *how = "PetscSortInt + PetscParallelSortInt";
    }
    for (int64_t i = 0; i < n; i++) {
      int64_t o = vs_int(out, i);
      int diff = o != r[i] || (pi && (o != pi[i] || o != po[i]));
      if (diff && (*bad)++ == 0) *first = i;
    }
    free(r);
    free(pi);
    free(po);
    return HY_OK;
  }
  PetscReal *r = malloc((size_t)n * sizeof *r + 8);
  if (!r) return hy_err(HY_ESYS, "out of memory");
  for (int64_t i = 0; i < n; i++) r[i] = vs_real(in, i);
  VALIDATE_PETSC(PetscSortReal((PetscInt)n, r));
  *how = "PetscSortReal";
  for (int64_t i = 0; i < n; i++)
    if (!(vs_real(out, i) == r[i]) && (*bad)++ == 0) *first = i;
  free(r);
  return HY_OK;
}

/* The index payload: a permutation, out[i] bit for bit in[idx[i]], equal keys in increasing
 * index.  Counts of each fault.  Local. */
static int vs_index(const vs_array *in, const vs_array *out, const vs_array *ix, int64_t *notperm, int64_t *moved, int64_t *unstable) {
  int64_t n = in->n;
  const int64_t *p = ix->a;
  size_t kb = (in->type == VS_I32 || in->type == VS_F32) ? 4 : 8;
  unsigned char *seen = calloc((size_t)n + 1, 1);
  if (!seen) return hy_err(HY_ESYS, "out of memory");
  *notperm = *moved = *unstable = 0;
  for (int64_t i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]]) { (*notperm)++; continue; }
    seen[p[i]] = 1;
    if (memcmp((const char *)out->a + i * kb, (const char *)in->a + p[i] * kb, kb)) (*moved)++;
    if (i > 0) {
      int eq = (in->type == VS_I32 || in->type == VS_I64) ? vs_int(out, i) == vs_int(out, i - 1) : vs_real(out, i) == vs_real(out, i - 1);
      if (eq && p[i] <= p[i - 1]) (*unstable)++;
    }
  }
  free(seen);
  return HY_OK;
}

/* hybrid-validate sort -input FILE -output FILE [-index FILE].  Local. */
int validate_sort(int argc, char **argv) {
  static const char *tn[] = { "int32", "int64", "float", "double" };
  const char *ip = NULL, *op = NULL, *xp = NULL;
  const validate_opt opts[] = {
      {"input", VALIDATE_OPT_STR, &ip, 1, "FILE", "the run's input keys ([output] sort_input: .npy, or a vector file)"},
      {"output", VALIDATE_OPT_STR, &op, 1, "FILE", "the run's sorted keys ([output] sort_keys)"},
      {"index", VALIDATE_OPT_STR, &xp, 0, "FILE", "the run's index payload ([output] sort_index, int64 .npy)"},
      {NULL, 0, NULL, 0, NULL, NULL}};
  int rc = validate_args_parse(argc, argv, opts, "-input FILE -output FILE [-index FILE]");
  if (rc != HY_OK) return rc;
  vs_array in = { 0, 0, NULL }, out = { 0, 0, NULL }, ix = { 0, 0, NULL };
  rc = vs_read(ip, &in);
  if (rc == HY_OK) rc = vs_read(op, &out);
  if (rc == HY_OK && xp) rc = vs_read(xp, &ix);
  if (rc == HY_OK && (out.type != in.type || out.n != in.n))
    rc = hy_err(HY_EINPUT, "%s holds %lld %s keys but %s holds %lld %s keys", op, (long long)out.n, tn[out.type], ip,
                (long long)in.n, tn[in.type]);
  if (rc == HY_OK && xp && (ix.type != VS_I64 || ix.n != in.n))
    rc = hy_err(HY_EINPUT, "%s: the index must be %lld int64 values (holds %lld %s)", xp, (long long)in.n, (long long)ix.n, tn[ix.type]);
  int64_t bad = 0, first = -1, np_ = 0, mv = 0, un = 0;
  const char *how = "";
  if (rc == HY_OK) rc = vs_petsc_compare(&in, &out, &bad, &first, &how);
  if (rc == HY_OK && xp) rc = vs_index(&in, &out, &ix, &np_, &mv, &un);
  if (rc == HY_OK) {
    printf("hybrid-validate sort\n  input  %s: %lld %s keys\n  output %s\n", ip, (long long)in.n, tn[in.type], op);
    printf("  reference: %s: %lld position(s) differ%s\n", how, (long long)bad, bad ? "" : " (none)");
    if (bad) printf("  first difference at %lld\n", (long long)first);
    if (xp) printf("  index %s: %lld not a permutation, %lld key(s) not in[idx], %lld tie(s) out of input order\n", xp,
                   (long long)np_, (long long)mv, (long long)un);
    int ok = bad == 0 && np_ == 0 && mv == 0 && un == 0;
    rc = validate_verdict(ok, "sort of %lld %s keys: %lld difference(s) from %s%s", (long long)in.n, tn[in.type],
                          (long long)bad, how, xp ? (np_ + mv + un ? ", index payload WRONG" : ", index payload a stable permutation") : "");
  }
  free(in.a);
  free(out.a);
  free(ix.a);
  return rc;
}
