/* emu_small_dev.cpp - the device functions both small-n LU kernels share
 * (kernels/cuda/gauss_small_dev.cuh) run on the host under emu.h (one warp of 32 threads, the
 * warp shuffles through a barrier) against sequential references: gs_best_shfl (the largest
 * |x| over a thread's rows j <= i < m and its warp, NaN taken as +inf, the smallest row on
 * ties, no row: -1 / INT_MAX), gs_pivot_record (dpiv, the smallest |u_jj| and its first
 * column, the first zero pivot) and gs_rotate (one column's rotation; W of them: the identity).
 * Random cases with many ties, zeros, NaNs and empty ranges.  Prints each failed check and
 * "PASSED: K of K checks passed" or "FAILED: ...". */
#include "emu.h"
#include <climits>
#include <random>

#define __device__
#define __forceinline__ inline
/* a warp's butterfly exchange: every lane writes, waits, reads lane ^ o, waits (emu.h's way) */
template <typename V> V __shfl_xor_sync(unsigned, V v, int o) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  emu_block &b = emu_b();
  b.wbuf[w * 32 + lane] = (double)v;
  b.wbar[w]->arrive_and_wait();
  double r = b.wbuf[w * 32 + (lane ^ o)];
  b.wbar[w]->arrive_and_wait();
  return (V)r;
}
#include "gauss_small_dev.cuh"

static int nchecks, nfailed;

static void check(bool ok, const char *what, int cs) {
  nchecks++;
  if (!ok) {
    nfailed++;
    printf("FAILED: %s (case %d)\n", what, cs);
  }
}

/* One warp, R = 2 rows a lane (rows lane + 32 r), W = 4 columns: the best over j <= i < m by
 * gs_best_shfl on every lane against a scan in row order. */
static void case_best(std::mt19937 &rng, int cs) {
  constexpr int R = 2, W = 4, NT = 32;
  const int rows = R * NT;
  std::vector<double> col(rows);
  int kind = rng() % 5;   /* 0: few values (ties), 1: spread, 2: NaNs, 3: zeros, 4: all +-1 */
  for (int i = 0; i < rows; i++) {
    int u = (int)(rng() % 8);
    double x = kind == 0 ? (double)u - 4.0 : std::ldexp((double)(rng() % 1000) - 500.0, -(int)(rng() % 8));
    if (kind == 4) x = (u & 1) ? 1.0 : -1.0;
    if (kind == 2 && rng() % 16 == 0) x = NAN;
    if (kind == 3 && rng() % 3 == 0) x = (rng() % 2) ? 0.0 : -0.0;
    col[i] = x;
  }
  int j = (int)(rng() % rows), m = (int)(rng() % (rows + 1));
  double rv = -1.0;
  int ri = INT_MAX;
  for (int i = j; i < m; i++) {
    double a = std::fabs(col[i]);
    if (std::isnan(a)) a = INFINITY;
    if (a > rv) { rv = a; ri = i; }
  }
  std::vector<double> bv(NT);
  std::vector<int> bi(NT);
  emu_launch(1, NT, 0, [&] {
    const int t = threadIdx.x;
    double v[R][W];
    for (int r = 0; r < R; r++)
      for (int c = 0; c < W; c++) v[r][c] = c == 0 ? col[t + r * NT] : 1e300;
    double b = -1.0;
    int i = 0x7fffffff;
    gs_best_shfl<R, W, NT>(v, t, j, m, b, i);
    bv[t] = b;
    bi[t] = i;
  });
  bool ok = true;
  for (int t = 0; t < NT; t++) ok = ok && bi[t] == ri && (bv[t] == rv || (std::isnan(bv[t]) && std::isnan(rv)));
  check(ok, "gs_best_shfl: every lane the first row of the largest magnitude", cs);
}

/* A sequence of pivots through gs_pivot_record on thread 0 (thread 1 must write nothing). */
static void case_record(std::mt19937 &rng, int cs) {
  const int kk = (int)(rng() % 50), w = 1 + (int)(rng() % 12);
  std::vector<double> piv(w);
  std::vector<int> p(w);
  for (int j = 0; j < w; j++) {
    piv[j] = (rng() % 5 == 0) ? 0.0 : (double)((int)(rng() % 7) - 3) * 0.5;
    p[j] = j + (int)(rng() % 20);
  }
  double rmin = INFINITY;
  int ridx = 0, rinfo = 0;
  for (int j = 0; j < w; j++) {
    if (std::fabs(piv[j]) < rmin) { rmin = std::fabs(piv[j]); ridx = kk + j; }
    if (piv[j] == 0.0 && rinfo == 0) rinfo = kk + j + 1;
  }
  std::vector<int> dpiv(kk + w, -7);
  double pmin[2];
  int pidx[2], pinfo[2];
  emu_launch(1, 32, 0, [&] {
    const int t = threadIdx.x;
    if (t > 1) return;
    double mn = INFINITY;
    int mi = 0, inf = 0;
    for (int j = 0; j < w; j++) gs_pivot_record(t, dpiv.data(), kk, j, p[j], piv[j], mn, mi, inf);
    pmin[t] = mn;
    pidx[t] = mi;
    pinfo[t] = inf;
  });
  bool ok = pmin[0] == rmin && pidx[0] == ridx && pinfo[0] == rinfo;
  for (int j = 0; j < w; j++) ok = ok && dpiv[kk + j] == kk + p[j];
  for (int j = 0; j < kk; j++) ok = ok && dpiv[j] == -7;
  ok = ok && pmin[1] == INFINITY && pidx[1] == 0 && pinfo[1] == 0;
  check(ok, "gs_pivot_record: dpiv, the smallest |u_jj| (first column), the first zero pivot", cs);
}

/* gs_rotate once and W times. */
static void case_rotate(int cs) {
  constexpr int R = 3, W = 8;
  double v[R][W], v0[R][W];
  for (int r = 0; r < R; r++)
    for (int c = 0; c < W; c++) v[r][c] = v0[r][c] = 100 * r + c;
  gs_rotate<R, W>(v);
  bool ok = true;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < W; c++) ok = ok && v[r][c] == v0[r][(c + 1) % W];
  for (int k = 1; k < W; k++) gs_rotate<R, W>(v);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < W; c++) ok = ok && v[r][c] == v0[r][c];
  check(ok, "gs_rotate: by one column, W rotations the identity", cs);
}

int main() {
  std::mt19937 rng(20261202);
  for (int cs = 0; cs < 400; cs++) case_best(rng, cs);
  for (int cs = 0; cs < 200; cs++) case_record(rng, cs);
  case_rotate(0);
  if (nfailed) printf("FAILED: %d of %d checks failed\n", nfailed, nchecks);
  else printf("PASSED: %d of %d checks passed\n", nchecks, nchecks);
  return nfailed ? 1 : 0;
}
