/* emu_gauss.cpp - the CUDA backend's gauss panel kernels run on the host under emu.h, against
 * sequential references (tests/gauss/kernel_emu.py rewrites their source into swap.inc and
 * panel.inc): swap_blk_k (a base block's row swaps on the panel's other columns) against the
 * swaps done in order, panel_base_k (the fused base block, several thread blocks and the grid
 * barrier; and panel_reg_k, the register kernel) against an unblocked getf2: the same pivots, the factors to 1e-12 (FP64) / 1e-4
 * (FP32, the products may round differently), ties included; nopiv_top_k + nopiv_rows_k (the
 * no-pivot base block) against getf2 without pivots.  Prints one line per check and
 * "PASSED: K of K checks passed" or "FAILED: ...". */
#include "emu.h"
#include <algorithm>
#include <random>

#define __global__
#define __device__
#define __launch_bounds__(...)
#define __forceinline__
#define __noinline__
#include "swap.inc"
/* OS threads: at most 2 blocks of EMU_T for the panel, one block of EMU_SWAP_T for the swaps
 * (the machine's other work must not stall behind hundreds of threads on barriers) */
#define EMU_T 64
#define EMU_SWAP_T 64
#define PB_SPIN() std::this_thread::yield()
/* gauss_panel_cuda.h's (the clocks' slots a block: here only the buffer the kernel writes) */
#define GAUSS_PB_CLK_SLOTS 192
#include "panel.inc"
#include "nopiv.inc"
#define EMU_PLAN_T 64
#include "plan.inc"

/* swap_blk_k on a random M x N panel, base block at column c0 of width n. */
static int check_swap(std::mt19937 &rng) {
  int64_t M = 1 + rng() % 300, N = 1 + rng() % 200, lda = M + rng() % 5;
  int64_t c0 = rng() % std::min<int64_t>(M, N);
  int64_t n = 1 + rng() % std::min<int64_t>(N - c0, EMU_SWAP_T / 2);
  int d = (int)std::min<int64_t>(M - c0, n);
  std::vector<int> piv(M, 0);
  for (int64_t i = c0; i < c0 + d; i++) piv[i] = (rng() % 10 == 0) ? (int)i : (int)(i + rng() % (M - i));
  std::vector<double> a(lda * N), ref;
  for (auto &x : a) x = (double)(rng() % 100000);
  ref = a;
  int64_t r0 = c0 + n, nr = N - r0 > 0 ? N - r0 : 0;
  for (int64_t j = 0; j < N; j++)
    if (j < c0 || j >= r0)
      for (int64_t i = c0; i < c0 + d; i++) std::swap(ref[i + j * lda], ref[piv[i] + j * lda]);
  if (c0 + nr <= 0) return 0;
  /* blocks of EMU_SWAP_T threads (the GPU's C_SWB_THREADS = 256: the same code, ct = the
   * threads / 2 d columns a block), one at a time: they are independent */
  int ct = EMU_SWAP_T / (2 * d);
  int nbk = (int)((c0 + nr + ct - 1) / ct);
  for (int b = 0; b < nbk; b++)
    emu_launch(1, EMU_SWAP_T, 0, [&] {
      swap_blk_k<double>(a.data(), lda, c0, r0, nr, (int)c0, d, piv.data(), M, ct);
    }, b);
  int bad = a != ref;
  fflush(stdout);
  printf("swap_blk_k M=%ld N=%ld c0=%ld n=%ld: %s\n", (long)M, (long)N, (long)c0, (long)n, bad ? "DIFFERS from the swaps in order" : "as the swaps in order");
  return bad;
}

/* The flags' scratch (gauss.panel_sync = flags), kept from launch to launch as on the GPU: every
 * key PB_NONE at the first launch, and each launch must leave them so (checked after each).
 * PB_GS slots a column (the GPU's GAUSS_PB_GMAX; 4: a stride above G). */
#define PB_GS 4
static std::vector<double> fl_key(32 * PB_GS);
static std::vector<int> fl_idx(32 * PB_GS);
static std::vector<double> fl_rowj(32 * 32), fl_crow(32 * PB_GS * 32);
static bool fl_init;

/* panel_base_k on a random m x bw block in G <= 2 (flags: 3) thread blocks of EMU_T threads (the GPU's 1024 or 512:
 * the same code; grid (FL false): warp 0 picks the winner, warp 1 reads row j; flags: warp 0
 * publishes, polls and reads, G = 1 from shared memory alone). */
/* mode: 0 random values, 1 ties (small integers), 2 random with the NaN whose bits are all ones
 * (what the flags' scratch reads as "not written yet") in the last column of column 0's pivot row
 * and of row 0, so that both rows a block publishes for column 0 carry it: a kernel that wrote
 * it as it is would poll it forever. */
/* reg: panel_reg_k (flags; one row a thread: blocks of EMU_T rows) instead of panel_base_k. */
template <typename T, bool FL> static int check_panel(std::mt19937 &rng, int mode, bool reg = false) {
  int ties = mode == 1;
  int m = 1 + rng() % 150, bw = (mode == 2 ? 2 : 1) + rng() % (mode == 2 ? 31 : 32), G = 1 + rng() % (FL ? 3 : 2);
  if (mode == 2 && m < 2 * G + 2) m = 2 * G + 2;
  if (G > m) G = m;
  int64_t lda = m + rng() % 3;
  std::vector<T> a(lda * bw), ref;
  for (auto &x : a) x = ties ? (T)((int)(rng() % 7) - 3) : (T)((double)(rng() % 2000001) / 1e6 - 1.0);
  if (mode == 2) {
    int p0 = 0;
    for (int i = 1; i < m; i++)
      if (std::fabs((double)a[i]) > std::fabs((double)a[p0])) p0 = i;
    T ones;
    std::memset(&ones, 0xff, sizeof ones);
    a[p0 + (bw - 1) * lda] = ones;
    a[0 + (bw - 1) * lda] = ones;
  }
  ref = a;
  std::vector<int> rp(bw, -1);
  int nj = m < bw ? m : bw;
  for (int j = 0; j < nj; j++) {   /* getf2: the first row of the largest magnitude */
    int p = j;
    double bv = -1;
    for (int i = j; i < m; i++) {
      double v = std::fabs((double)ref[i + j * lda]);
      if (v > bv) { bv = v; p = i; }
    }
    rp[j] = p;
    if (p != j) for (int c = 0; c < bw; c++) std::swap(ref[j + c * lda], ref[p + c * lda]);
    T pv = ref[j + j * lda];
    for (int i = j + 1; i < m; i++) {
      T l = ref[i + j * lda];
      if (pv != (T)0) l = l / pv;
      ref[i + j * lda] = l;
      for (int c = j + 1; c < bw; c++) ref[i + c * lda] -= l * ref[j + c * lda];
    }
  }
  int rpb = reg ? EMU_T : (m + G - 1) / G;
  G = (m + rpb - 1) / rpb;
  int poff = 7;
  std::vector<int> piv(bw, -1), cidx(2 * G);
  std::vector<T> crow(2 * G * 32), rowj(2 * 32);
  std::vector<double> cval(2 * G);
  if (FL && !fl_init) {
    std::memset(fl_key.data(), 0xff, fl_key.size() * sizeof(double));
    std::memset(fl_idx.data(), 0xff, fl_idx.size() * sizeof(int));
    std::memset(fl_rowj.data(), 0xff, fl_rowj.size() * sizeof(double));
    std::memset(fl_crow.data(), 0xff, fl_crow.size() * sizeof(double));
    fl_init = true;
  }
  /* FP64 flags, odd m: the CLK instantiation (every clock reads 0 here; its factors are checked) */
  bool clk = FL && !reg && sizeof(T) == 8 && (m & 1);
  std::vector<long long> clkbuf(2 * PB_CLK_SLOTS, -1);
  emu_launch(G, EMU_T, reg ? 0 : (size_t)(rpb + 1) * bw * sizeof(T), [&] {
    if (reg)
      panel_reg_k<T, PR_THREADS>(a.data(), lda, m, bw, rpb, piv.data(), poff, (T *)fl_crow.data(), fl_key.data(),
                                 fl_idx.data(), (T *)fl_rowj.data(), PB_GS);
    else if (FL && clk)   /* the clocks' instantiation (test_gauss_trsm_gpu --panel): the same factors */
      panel_base_k<T, FL, PB_THREADS, true>(a.data(), lda, m, bw, rpb, piv.data(), poff, (T *)fl_crow.data(),
                                            fl_key.data(), fl_idx.data(), (T *)fl_rowj.data(), PB_GS, clkbuf.data());
    else if (FL)
      panel_base_k<T, FL, PB_THREADS>(a.data(), lda, m, bw, rpb, piv.data(), poff, (T *)fl_crow.data(), fl_key.data(),
                          fl_idx.data(), (T *)fl_rowj.data(), PB_GS, nullptr);
    else
      panel_base_k<T, FL, PB_THREADS>(a.data(), lda, m, bw, rpb, piv.data(), poff, crow.data(), cval.data(), cidx.data(),
                          rowj.data(), G, nullptr);
  });
  int left = 0;   /* flags: slots (keys, indices, rows) not set back to all ones */
  if (FL) {
    const unsigned char *parts[4] = { (const unsigned char *)fl_key.data(), (const unsigned char *)fl_idx.data(),
                                      (const unsigned char *)fl_rowj.data(), (const unsigned char *)fl_crow.data() };
    size_t bytes[4] = { fl_key.size() * sizeof(double), fl_idx.size() * sizeof(int), fl_rowj.size() * sizeof(double),
                        fl_crow.size() * sizeof(double) };
    for (int q = 0; q < 4; q++)
      for (size_t k = 0; k < bytes[q]; k++) left += parts[q][k] != 0xff;
  }
  int bad = 0;
  for (int j = 0; j < nj; j++) bad |= piv[j] != rp[j] + poff;
  double mx = 0;
  int nanx = 0;   /* a NaN where the reference has a number, or a number where it has a NaN */
  for (int64_t k = 0; k < lda * bw; k++)
    if (k % lda < m) {
      nanx += std::isnan((double)a[k]) != std::isnan((double)ref[k]);
      mx = std::fmax(mx, std::fabs((double)a[k] - (double)ref[k]) / (1 + std::fabs((double)ref[k])));
    }
  bad |= !(mx < (sizeof(T) == 8 ? 1e-12 : 1e-4)) || left || nanx;
  if (clk) bad |= clkbuf[0] != 0;   /* block 0's start mark written */
  printf("%s%s %s %s m=%d bw=%d blocks=%d%s: pivots %s, factors within %.1e%s%s\n", reg ? "panel_reg_k" : "panel_base_k",
         clk ? " (clocks)" : "",
         sizeof(T) == 8 ? "FP64" : "FP32", FL ? "flags" : "grid", m, bw, G, mode == 1 ? " (ties)" : mode == 2 ? " (all-ones NaN)" : "",
         bad ? "or factors DIFFER" : "as getf2", mx, left ? ", SLOTS LEFT SET" : "", nanx ? ", NaN WHERE THE REFERENCE HAS NONE" : "");
  return bad;
}

/* The no-pivot base block (gauss.pivoting = none: nopiv_top_k on one thread block, then
 * nopiv_rows_k on G <= 2 blocks of EMU_T threads, the GPU's 256 / 128: the same code, the rows
 * strided by the launch) on a random m x bw block at row offset off of its panel, rows above
 * the top square m > bw or not, against getf2 without pivots: identity pivots off + j, the
 * factors to 1e-12 (FP64) / 1e-4 (FP32). */
template <typename T> static int check_nopiv(std::mt19937 &rng) {
  int bw = 1 + rng() % K_GAUSS_NOPIV_MAX, m = (rng() % 5 == 0) ? 1 + rng() % bw : bw + rng() % 200;
  int G = 1 + rng() % 2, off = (int)(rng() % 50);
  int64_t lda = m + rng() % 3;
  std::vector<T> a(lda * bw), ref;
  for (auto &x : a) x = (T)((double)(rng() % 2000001) / 1e6 - 1.0);
  for (int j = 0; j < bw && j < m; j++) a[j + j * lda] += (T)(j % 2 ? 3 : -3);
  ref = a;
  int d = m < bw ? m : bw;
  for (int j = 0; j < d; j++) {
    T pv = ref[j + j * lda];
    for (int i = j + 1; i < m; i++) {
      T l = ref[i + j * lda];
      if (pv != (T)0) l = l / pv;
      ref[i + j * lda] = l;
      for (int c = j + 1; c < bw; c++) ref[i + c * lda] -= l * ref[j + c * lda];
    }
  }
  std::vector<int> rp(bw, -1);
  emu_launch(1, EMU_T, 0, [&] { nopiv_top_k<T>(a.data(), lda, d, bw, rp.data(), off); });
  if (m > bw) emu_launch(G, EMU_T, 0, [&] { nopiv_rows_k<T>(a.data(), lda, (int64_t)m, bw); });
  int bad = 0;
  for (int j = 0; j < d; j++) bad |= rp[j] != off + j;
  double mx = 0;
  for (int64_t k = 0; k < lda * bw; k++)
    if (k % lda < m) mx = std::fmax(mx, std::fabs((double)a[k] - (double)ref[k]) / (1 + std::fabs((double)ref[k])));
  bad |= !(mx < (sizeof(T) == 8 ? 1e-12 : 1e-4));
  printf("nopiv base %s m=%d bw=%d blocks=%d: pivots %s, factors within %.1e\n", sizeof(T) == 8 ? "FP64" : "FP32",
         m, bw, G, bad ? "or factors DIFFER" : "the identity, as getf2 without pivots", mx);
  return bad;
}

/* swap_plan_k (one block of EMU_PLAN_T threads: 2 nswap <= C_PLAN_SLOTS EMU_PLAN_T, the GPU's
 * 1024: the same code) and swap_apply_k (blocks of EMU_SWAP_T threads and ct columns, one at a
 * time) on a random m x ncols block: pivots >= i, some equal to i, some repeating rows moved
 * before (chains), some outside [i, m) (taken as i), against the swaps in order (exactly); the
 * plan's slots by row and its read order by source row. */
static int check_plan(std::mt19937 &rng) {
  int nswap = 1 + (int)(rng() % (C_PLAN_SLOTS * EMU_PLAN_T / 2));
  int64_t m = nswap + (rng() % 4 == 0 ? 0 : (int64_t)(rng() % 400));
  int64_t ncols = 1 + rng() % 40, lda = m + rng() % 3;
  int ct = 1 + (int)(rng() % 3), cap = 2 * nswap;
  std::vector<int> piv(nswap);
  for (int i = 0; i < nswap; i++) {
    int r = (int)(rng() % 10);
    piv[i] = r == 0 ? i : r == 1 && i > 0 ? piv[rng() % i] : r == 2 ? (int)(m + rng() % 5) : (int)(i + rng() % (m - i));
  }
  std::vector<double> a(lda * ncols), ref;
  for (auto &x : a) x = (double)(rng() % 100000);
  ref = a;
  for (int i = 0; i < nswap; i++) {
    int p = piv[i] < i || piv[i] >= m ? i : piv[i];
    for (int64_t j = 0; j < ncols; j++) std::swap(ref[i + j * lda], ref[p + j * lda]);
  }
  std::vector<int> plan(K_GAUSS_PLAN_INTS(nswap), -7);
  emu_launch(1, EMU_PLAN_T, (size_t)nswap * 4 * sizeof(int), [&] { swap_plan_k(nswap, m, piv.data(), plan.data()); });
  int nbk = (int)((ncols + ct - 1) / ct);
  for (int b = 0; b < nbk; b++)
    emu_launch(1, EMU_SWAP_T, (size_t)cap * ct * sizeof(double), [&] {
      swap_apply_k<double>(a.data(), lda, ncols, cap, ct, plan.data());
    }, b);
  int bad = a != ref, order = 1, prev = -1, prevs = -1;
  for (int v = 0; v < cap; v++) {
    int d = plan[v];
    if (d >= 0 && d <= prev) order = 0;
    if (d >= 0) prev = d;
    if (d < 0 && v + 1 < cap && plan[v + 1] >= 0) order = 0;   /* unused slots last */
    int r = plan[2 * cap + v];
    if (r < 0 || r >= cap) { order = 0; continue; }
    if (plan[r] >= 0) {
      if (plan[cap + r] <= prevs) order = 0;
      prevs = plan[cap + r];
    }
  }
  bad |= !order;
  printf("swap_plan_k + swap_apply_k nswap=%d m=%ld ncols=%ld ct=%d: %s, plan %s\n", nswap, (long)m, (long)ncols, ct,
         a != ref ? "DIFFERS from the swaps in order" : "as the swaps in order", order ? "by row, reads by source row" : "NOT ORDERED");
  return bad;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 8;
  std::mt19937 rng(11);
  int bad = 0, n = 0;
  for (int k = 0; k < 3 * reps; k++, n++) bad += check_swap(rng);
  /* modes (check_panel): ties at k % 4 = 2, 3, the all-ones NaN at k % 8 = 5, 4 (flags: a float and a double run
   * a pass) */
  auto mode = [](int k) { return k % 8 == 4 || k % 8 == 5 ? 2 : (k % 4 == 2 || k % 4 == 3 ? 1 : 0); };
  for (int k = 0; k < reps; k++, n++) bad += (k & 1) ? check_panel<float, false>(rng, mode(k)) : check_panel<double, false>(rng, mode(k));
  for (int k = 0; k < 2 * reps; k++, n++) bad += (k & 1) ? check_panel<float, true>(rng, mode(k)) : check_panel<double, true>(rng, mode(k));
  for (int k = 0; k < 2 * reps; k++, n++)
    bad += (k & 1) ? check_panel<float, true>(rng, mode(k), true) : check_panel<double, true>(rng, mode(k), true);
  for (int k = 0; k < reps; k++, n++) bad += (k & 1) ? check_nopiv<float>(rng) : check_nopiv<double>(rng);
  for (int k = 0; k < 2 * reps; k++, n++) bad += check_plan(rng);
  if (bad) printf("FAILED: %d of %d checks\n", bad, n);
  else printf("PASSED: %d of %d checks passed\n", n, n);
  return bad != 0;
}
