/* sort_host.c - the sort kernels on the host: the seed's bottom-up merge sort in C (its
 * final merge included for sizes that are not powers of two, ties taken from the left run so
 * that it is stable), an LSD radix sort (8-bit digits over the keys mapped to unsigned
 * integers in the order of `<`, passes whose digit is the same for every key skipped), qsort
 * of (key, position) pairs, and the pairwise merge of sorted runs.  The serial CPU baseline
 * of the seed's tables; same function as kernels/cuda/sort_cuda.cu. */
#include "k_sort.h"
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wall clock seconds.  Local. */
static double hs_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Keys mapped to unsigned integers whose order is the keys' `<` (-0.0 as +0.0).  Local. */
static inline uint32_t map_i32(int32_t x) { return (uint32_t)x ^ 0x80000000u; }
static inline uint64_t map_i64(int64_t x) { return (uint64_t)x ^ 0x8000000000000000ull; }
static inline uint32_t map_f32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if (u == 0x80000000u) u = 0;
  return (u & 0x80000000u) ? ~u : u ^ 0x80000000u;
}
static inline uint64_t map_f64(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  if (u == 0x8000000000000000ull) u = 0;
  return (u & 0x8000000000000000ull) ? ~u : u ^ 0x8000000000000000ull;
}

/* Per key type T (suffix S, mapped key type U and map function MAP): the merge of two runs,
 * the bottom-up merge sort, the radix sort, the qsort of pairs and the merge of runs. */
#define HS_DEFINE(T, S, U, MAP)                                                                  \
  /* Merge src[l, m) and src[m, r) into dst[l, r), a tie from the left run.  Local. */           \
  static void merge2_##S(const T *sk, const int64_t *si, T *dk, int64_t *di, int64_t l,          \
                         int64_t m, int64_t r) {                                                 \
    int64_t i = l, j = m, k = l;                                                                 \
    while (i < m && j < r) {                                                                     \
      if (sk[j] < sk[i]) { dk[k] = sk[j]; if (di) di[k] = si[j]; k++; j++; }                     \
      else { dk[k] = sk[i]; if (di) di[k] = si[i]; k++; i++; }                                   \
    }                                                                                            \
    for (; i < m; i++, k++) { dk[k] = sk[i]; if (di) di[k] = si[i]; }                            \
    for (; j < r; j++, k++) { dk[k] = sk[j]; if (di) di[k] = si[j]; }                            \
  }                                                                                              \
  /* The ping-pong ended in the scratch (sk, si): the run back into keys / idx.  Local. */       \
  static void back_##S(T *keys, int64_t *idx, const T *sk, const int64_t *si, int64_t n) {       \
    if (sk == keys) return;                                                                      \
    memcpy(keys, sk, (size_t)n * sizeof(T));                                                     \
    if (idx) memcpy(idx, si, (size_t)n * sizeof(int64_t));                                       \
  }                                                                                              \
  /* Bottom-up merge sort: every level merges pairs of runs of width w into runs of 2w,        \
   * ping-ponging between keys and a scratch array, until one run (w >= n).  Local. */           \
  static void msort_##S(T *keys, int64_t *idx, int64_t n, T *tk, int64_t *ti) {                  \
    T *sk = keys, *dk = tk;                                                                      \
    int64_t *si = idx, *di = idx ? ti : NULL;                                                    \
    for (int64_t w = 1; w < n; w *= 2) {                                                         \
      for (int64_t l = 0; l < n; l += 2 * w) {                                                   \
        int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;                    \
        merge2_##S(sk, si, dk, di, l, m, r);                                                     \
      }                                                                                          \
      T *t = sk; sk = dk; dk = t;                                                                \
      int64_t *u = si; si = di; di = u;                                                          \
    }                                                                                            \
    back_##S(keys, idx, sk, si, n);                                                              \
  }                                                                                              \
  /* LSD radix sort on 8-bit digits of MAP(key).  Local. */                                      \
  static void rsort_##S(T *keys, int64_t *idx, int64_t n, T *tk, int64_t *ti) {                  \
    T *sk = keys, *dk = tk;                                                                      \
    int64_t *si = idx, *di = idx ? ti : NULL;                                                    \
    int64_t cnt[256];                                                                            \
    for (int sh = 0; sh < (int)(8 * sizeof(U)); sh += 8) {                                       \
      memset(cnt, 0, sizeof cnt);                                                                \
      for (int64_t i = 0; i < n; i++) cnt[(MAP(sk[i]) >> sh) & 255]++;                           \
      int same = 0;                                                                              \
      for (int d = 0; d < 256; d++) if (cnt[d] == n) same = 1;                                   \
      if (same) continue;                                                                        \
      int64_t s = 0;                                                                             \
      for (int d = 0; d < 256; d++) { int64_t c = cnt[d]; cnt[d] = s; s += c; }                  \
      for (int64_t i = 0; i < n; i++) {                                                          \
        int64_t p = cnt[(MAP(sk[i]) >> sh) & 255]++;                                             \
        dk[p] = sk[i];                                                                           \
        if (di) di[p] = si[i];                                                                   \
      }                                                                                          \
      T *t = sk; sk = dk; dk = t;                                                                \
      int64_t *u = si; si = di; di = u;                                                          \
    }                                                                                            \
    back_##S(keys, idx, sk, si, n);                                                              \
  }                                                                                              \
  typedef struct { T k; int64_t p; } pair_##S;                                                   \
  /* qsort order of (key, position).  Local. */                                                  \
  static int cmp_##S(const void *a, const void *b) {                                             \
    const pair_##S *x = a, *y = b;                                                               \
    if (x->k < y->k) return -1;                                                                  \
    if (y->k < x->k) return 1;                                                                   \
    return (x->p > y->p) - (x->p < y->p);                                                        \
  }                                                                                              \
  /* qsort of (key, position) pairs, then keys and idx permuted alike.  Local. */                \
  static void qsort_##S(T *keys, int64_t *idx, int64_t n, int64_t *ti) {                         \
    pair_##S *pr = NULL;                                                                         \
    HY_MALLOC(pr, n);                                                                            \
    for (int64_t i = 0; i < n; i++) { pr[i].k = keys[i]; pr[i].p = i; }                          \
    qsort(pr, (size_t)n, sizeof *pr, cmp_##S);                                                   \
    if (idx) {                                                                                   \
      for (int64_t i = 0; i < n; i++) ti[i] = idx[pr[i].p];                                      \
      memcpy(idx, ti, (size_t)n * sizeof(int64_t));                                             \
    }                                                                                            \
    for (int64_t i = 0; i < n; i++) keys[i] = pr[i].k;                                           \
    free(pr);                                                                                    \
  }                                                                                              \
  /* Pairwise rounds of merges of runs off[r]..off[r+1] until one run.  Local. */                \
  static void mruns_##S(T *keys, int64_t *idx, int nruns, const int64_t *off0, T *tk,            \
                        int64_t *ti) {                                                           \
    int64_t *off = NULL;                                                                         \
    HY_MALLOC(off, nruns + 1);                                                                   \
    memcpy(off, off0, (size_t)(nruns + 1) * sizeof *off);                                        \
    int64_t n = off[nruns];                                                                      \
    T *sk = keys, *dk = tk;                                                                      \
    int64_t *si = idx, *di = idx ? ti : NULL;                                                    \
    while (nruns > 1) {                                                                          \
      int out = 0;                                                                               \
      for (int r = 0; r < nruns; r += 2) {                                                       \
        int64_t l = off[r], m = off[r + 1], e = r + 2 <= nruns ? off[r + 2] : m;                 \
        merge2_##S(sk, si, dk, di, l, m, e);                                                     \
        off[out++] = l;                                                                          \
      }                                                                                          \
      off[out] = n;                                                                              \
      nruns = out;                                                                               \
      T *t = sk; sk = dk; dk = t;                                                                \
      int64_t *u = si; si = di; di = u;                                                          \
    }                                                                                            \
    back_##S(keys, idx, sk, si, n);                                                              \
    free(off);                                                                                   \
  }

HS_DEFINE(int32_t, i32, uint32_t, map_i32)
HS_DEFINE(int64_t, i64, uint64_t, map_i64)
HS_DEFINE(float, f32, uint32_t, map_f32)
HS_DEFINE(double, f64, uint64_t, map_f64)

/* Scratch arrays of n keys and (with idx) n indices.  Local (aborts on out of memory). */
static void hs_scratch(k_sort_type t, int64_t n, int with_idx, void **tk, int64_t **ti) {
  unsigned char *k = NULL;
  int64_t *i = NULL;
  HY_MALLOC(k, (size_t)n * k_sort_key_bytes(t));
  if (with_idx) HY_MALLOC(i, n);
  *tk = k;
  *ti = i;
}

/* The merge sort (radix = 0) or the radix sort of keys (and idx) through n-key scratch arrays,
 * the sort alone timed into *kernel_s.  Local. */
static int hs_scratch_sort(const k_sort_args *a, int radix, void *keys, int64_t *idx, int64_t n, double *kernel_s) {
  void *tk;
  int64_t *ti;
  hs_scratch(a->type, n, idx != NULL, &tk, &ti);
  double t0 = hs_now();
  switch (a->type) {
  case K_SORT_I32: (radix ? rsort_i32 : msort_i32)(keys, idx, n, tk, ti); break;
  case K_SORT_I64: (radix ? rsort_i64 : msort_i64)(keys, idx, n, tk, ti); break;
  case K_SORT_F32: (radix ? rsort_f32 : msort_f32)(keys, idx, n, tk, ti); break;
  case K_SORT_F64: (radix ? rsort_f64 : msort_f64)(keys, idx, n, tk, ti); break;
  }
  *kernel_s = hs_now() - t0;
  free(tk);
  free(ti);
  return HY_OK;
}

/* local = merge: the seed's bottom-up merge sort (one thread: merge_path_from and merge_tile
 * change nothing on the host).  Local. */
static int hs_merge(k_backend *be, const k_sort_args *a, void *keys, int64_t *idx, int64_t n,
                    double *kernel_s) {
  return hs_scratch_sort(a, 0, keys, idx, n, kernel_s);
}

/* local = radix: LSD radix sort.  Local. */
static int hs_radix(k_backend *be, const k_sort_args *a, void *keys, int64_t *idx, int64_t n,
                    double *kernel_s) {
  return hs_scratch_sort(a, 1, keys, idx, n, kernel_s);
}

/* local = qsort: libc qsort of (key, position) pairs.  Local. */
static int hs_qsort(k_backend *be, const k_sort_args *a, void *keys, int64_t *idx, int64_t n,
                    double *kernel_s) {
  int64_t *ti = NULL;
  if (idx) HY_MALLOC(ti, n);
  double t0 = hs_now();
  switch (a->type) {
  case K_SORT_I32: qsort_i32(keys, idx, n, ti); break;
  case K_SORT_I64: qsort_i64(keys, idx, n, ti); break;
  case K_SORT_F32: qsort_f32(keys, idx, n, ti); break;
  case K_SORT_F64: qsort_f64(keys, idx, n, ti); break;
  }
  *kernel_s = hs_now() - t0;
  free(ti);
  return HY_OK;
}

/* Merge of the received runs.  Local. */
static int hs_merge_runs(k_backend *be, k_sort_type t, void *keys, int64_t *idx, int64_t n,
                         int nruns, const int64_t *off, double *kernel_s) {
  *kernel_s = 0;
  if (nruns <= 1 || n == 0) return HY_OK;
  void *tk;
  int64_t *ti;
  hs_scratch(t, n, idx != NULL, &tk, &ti);
  double t0 = hs_now();
  switch (t) {
  case K_SORT_I32: mruns_i32(keys, idx, nruns, off, tk, ti); break;
  case K_SORT_I64: mruns_i64(keys, idx, nruns, off, tk, ti); break;
  case K_SORT_F32: mruns_f32(keys, idx, nruns, off, tk, ti); break;
  case K_SORT_F64: mruns_f64(keys, idx, nruns, off, tk, ti); break;
  }
  *kernel_s = hs_now() - t0;
  free(tk);
  free(ti);
  return HY_OK;
}

/* Key i of a as int64 (integer types) or double (real types), for the comparisons below.  Local. */
static void hs_key(k_sort_type t, const void *a, int64_t i, int64_t *ki, double *kd) {
  *ki = 0;
  *kd = 0;
  switch (t) {
  case K_SORT_I32: *ki = ((const int32_t *)a)[i]; break;
  case K_SORT_I64: *ki = ((const int64_t *)a)[i]; break;
  case K_SORT_F32: *kd = ((const float *)a)[i]; break;
  case K_SORT_F64: *kd = ((const double *)a)[i]; break;
  }
}

/* The elements at pos to the host arrays.  Local. */
static int hs_pick(k_backend *be, k_sort_type t, const void *keys, const int64_t *idx, const int64_t *pos,
                   int cnt, void *hk, int64_t *hi) {
  size_t kb = k_sort_key_bytes(t);
  for (int j = 0; j < cnt; j++) {
    memcpy((char *)hk + (size_t)j * kb, (const char *)keys + (size_t)pos[j] * kb, kb);
    hi[j] = idx ? idx[pos[j]] : pos[j];
  }
  return HY_OK;
}

/* Lower bounds of the splitters in the (key, index) order by binary search.  Local. */
static int hs_cuts(k_backend *be, k_sort_type t, const void *keys, const int64_t *idx, int64_t n,
                   const void *sk, const int64_t *si, int ns, int64_t *cut) {
  for (int s = 0; s < ns; s++) {
    int64_t bi;
    double bd;
    hs_key(t, sk, s, &bi, &bd);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2, ai;
      double ad;
      hs_key(t, keys, mid, &ai, &ad);
      int below = ai != bi ? ai < bi : ad < bd ? 1 : bd < ad ? 0 : (idx && idx[mid] < si[s]);
      if (below) lo = mid + 1;
      else hi = mid;
    }
    cut[s] = lo;
  }
  return HY_OK;
}

const k_sort_ops k_sort_host_ops = {
  .name = "host",
  .local = {
    [K_SORT_LOCAL_MERGE] = hs_merge,
    [K_SORT_LOCAL_RADIX] = hs_radix,
    [K_SORT_LOCAL_QSORT] = hs_qsort,
  },
  .merge_runs = hs_merge_runs,
  .pick = hs_pick,
  .cuts = hs_cuts,
  .vendor_radix = NULL,
  .vendor_merge = NULL,
  .vendor_merge_pairs = NULL,
  .floor_rate = 0,
};
