/* emu.h - a CPU emulator for CUDA kernels written in this tree's style (tests/gauss/kernel_emu.py):
 * every CUDA thread of a launch is one std::thread (so keep launches to ~128 threads in all: the
 * threads wait on barriers and a big grid stalls a small machine); __syncthreads is a barrier per thread block,
 * a cooperative grid sync one barrier over the grid (a kernel that polls global memory yields in its
 * spin: PB_SPIN), __shfl_down_sync and __reduce_max_sync /
 * __reduce_min_sync go through a buffer and a barrier per warp; the kernels' __shared__ arrays become per-block arenas (emu_sh / emu_dyn,
 * put in by kernel_emu.py's rewrite of the source).  Slow (a thread per CUDA thread) but exact
 * about what each thread computes and when it waits: for checking a kernel's logic against a
 * sequential reference on a machine without a GPU. */
#ifndef HY_EMU_H
#define HY_EMU_H
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

struct emu_dim { int x, y, z; };
inline thread_local emu_dim threadIdx, blockIdx;
inline emu_dim blockDim, gridDim;

/* One thread block's barrier, warp buffers and shared arenas. */
struct emu_block {
  std::unique_ptr<std::barrier<>> bar;
  std::vector<std::unique_ptr<std::barrier<>>> wbar;
  std::vector<double> wbuf;
  std::map<int, std::vector<char>> sh;
  std::vector<char> dyn;
  std::mutex mu;
};
inline std::vector<std::unique_ptr<emu_block>> emu_blocks;
inline std::unique_ptr<std::barrier<>> emu_gbar;
inline int emu_off;   /* blockIdx.x of emu_blocks[0] */

inline emu_block &emu_b() { return *emu_blocks[blockIdx.x - emu_off]; }
inline void __syncthreads() { emu_b().bar->arrive_and_wait(); }
inline void *emu_dyn() { return emu_b().dyn.data(); }
inline void *emu_sh(int id, size_t bytes) {
  std::lock_guard<std::mutex> l(emu_b().mu);
  auto &v = emu_b().sh[id];
  if (v.size() < bytes) v.resize(bytes);
  return v.data();
}
struct emu_grid { void sync() { emu_gbar->arrive_and_wait(); } };
/* A memory fence (the threads are OS threads: a sequentially consistent fence), the warp's
 * barrier (every lane of the warp must call it, as the kernels here do). */
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __syncwarp() { emu_b().wbar[threadIdx.x >> 5]->arrive_and_wait(); }
template <typename V> V __shfl_down_sync(unsigned, V v, int o) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  emu_block &b = emu_b();
  b.wbuf[w * 32 + lane] = (double)v;
  b.wbar[w]->arrive_and_wait();
  double r = lane + o < 32 ? b.wbuf[w * 32 + lane + o] : (double)v;
  b.wbar[w]->arrive_and_wait();
  return (V)r;
}

/* The warp's max / min of an unsigned (every lane gets it), through the warp buffer. */
inline unsigned emu_wred(unsigned v, int mx) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  emu_block &b = emu_b();
  b.wbuf[w * 32 + lane] = (double)v;
  b.wbar[w]->arrive_and_wait();
  unsigned r = (unsigned)b.wbuf[w * 32];
  for (int k = 1; k < 32; k++) {
    unsigned x = (unsigned)b.wbuf[w * 32 + k];
    if (mx ? x > r : x < r) r = x;
  }
  b.wbar[w]->arrive_and_wait();
  return r;
}
inline unsigned __reduce_max_sync(unsigned, unsigned v) { return emu_wred(v, 1); }
inline unsigned __reduce_min_sync(unsigned, unsigned v) { return emu_wred(v, 0); }
inline long long __double_as_longlong(double x) {
  long long r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}
inline double __longlong_as_double(long long x) {
  double r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}
inline unsigned __float_as_uint(float x) {
  unsigned r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}
inline float __uint_as_float(unsigned x) {
  float r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}
using std::isnan;

/* Run body on blocks off .. off + G - 1 of a grid of G + off blocks (all of it: off = 0) of T
 * threads each (T a multiple of 32), dyn bytes of dynamic shared memory per block, every thread
 * at once (the grid barrier needs them all; a kernel without one can be run a block at a time). */
inline void emu_launch(int G, int T, size_t dyn, const std::function<void()> &body, int off = 0) {
  blockDim = {T, 1, 1};
  gridDim = {G + off, 1, 1};
  emu_off = off;
  emu_blocks.clear();
  for (int b = 0; b < G; b++) {
    auto bs = std::make_unique<emu_block>();
    bs->bar = std::make_unique<std::barrier<>>(T);
    for (int w = 0; w < T / 32; w++) bs->wbar.push_back(std::make_unique<std::barrier<>>(32));
    bs->wbuf.resize((size_t)T);
    bs->dyn.resize(dyn + 64);
    emu_blocks.push_back(std::move(bs));
  }
  emu_gbar = std::make_unique<std::barrier<>>(G * T);
  std::vector<std::thread> th;
  for (int b = 0; b < G; b++)
    for (int t = 0; t < T; t++)
      th.emplace_back([&body, b, t, off] { threadIdx = {t, 0, 0}; blockIdx = {b + off, 0, 0}; body(); });
  for (auto &x : th) x.join();
}
#endif
