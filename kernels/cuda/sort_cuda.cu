/* sort_cuda.cu - the sort kernels on a CUDA device.
 *  - local = merge: the seed's bottom-up merge sort.  merge_path_from = 0: the seed's kernel
 *    at every level, one level per launch, one merge per thread (seed_level_kernel, with its
 *    final merge for sizes that are not powers of two and ties taken from the left run so that
 *    it is stable, ping-ponging between two buffers instead of the seed's per-thread
 *    temporary).  Otherwise the levels below run width merge_tile run inside each tile in
 *    shared memory, then each global level from that width on is tiled (part_kernel: every
 *    tile's start on its pair's merge path, all tiles at once; a level kernel: a block's tile
 *    of outputs merged from shared memory, loads and stores coalesced); global levels below
 *    merge_path_from (when it exceeds the tile) stay the seed's.  Tiles of 2048
 *    (block_sort_kernel: the seed's one merge per thread below run width merge_path_from,
 *    merge path from it on, 8 outputs per thread; tile_level_kernel) or of 4096 / 8192
 *    / 16384 (bt_sort_kernel: 16 keys per thread sorted in registers, merge path above;
 *    bt_level_kernel: 16 outputs per thread, 16-byte stores; part_warp_kernel: a warp per
 *    tile's search), chosen by the cu_tiling table;
 *  - local = radix: CUB DeviceRadixSort (SortKeys / SortPairs with the int64 index, stable,
 *    -0.0 and +0.0 equal as in `<`);
 *  - merge of the received runs: pairwise rounds of merge-path merges;
 *  - the sample sort's device parts: the samples gathered (pick) and the blocks cut at the
 *    splitters by binary search in the (key, index) order (cuts), so the keys stay on the
 *    device for the exchange;
 *  - the vendor's sorts timed on a copy of the same keys: CUB DeviceRadixSort::SortKeys and
 *    DeviceMergeSort::StableSortKeys (and StableSortPairs with the index, for payload = index).
 * Same function as kernels/host/sort_host.c (stable, the order of `<`): the GPU tests compare
 * the two.  Kernel times are cudaEvent-timed on the backend's stream. */
#include "k_cuda.h"
#include "k_sort.h"

#include <stdlib.h>
#include <string.h>

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#define SORT_THREADS 256
#define MP_ITEMS 8          /* outputs per thread of a merge-path level */

/* Events around a span of work on the stream. */
typedef struct {
  cudaEvent_t a, b;
} sort_timer;

/* Create and record the start.  Local. */
static int st_begin(sort_timer *t, cudaStream_t s) {
  HY_CUDA(cudaEventCreate(&t->a));
  HY_CUDA(cudaEventCreate(&t->b));
  HY_CUDA(cudaEventRecord(t->a, s));
  return HY_OK;
}

/* Record the end, wait, add the seconds to *sec.  Local. */
static int st_end(sort_timer *t, cudaStream_t s, double *sec) {
  HY_CUDA(cudaEventRecord(t->b, s));
  HY_CUDA(cudaEventSynchronize(t->b));
  float ms = 0;
  HY_CUDA(cudaEventElapsedTime(&ms, t->a, t->b));
  *sec += 1e-3 * ms;
  cudaEventDestroy(t->a);
  cudaEventDestroy(t->b);
  return HY_OK;
}

/* Blocks of SORT_THREADS for n threads.  Local. */
static unsigned st_blocks(int64_t n) { return (unsigned)((n + SORT_THREADS - 1) / SORT_THREADS); }

/* The seed's level: thread g merges [l, m) and [m, r) with l = 2 w g from src to dst, a tie
 * from the left run.  Global kernel. */
template <typename T>
__global__ void seed_level_kernel(const T *__restrict__ sk, const int64_t *__restrict__ si, T *__restrict__ dk,
                                  int64_t *__restrict__ di, int64_t n, int64_t w) {
  int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t l = g * 2 * w;
  if (l >= n) return;
  int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;
  int64_t i = l, j = m, k = l;
  while (i < m && j < r) {
    bool b = sk[j] < sk[i];
    int64_t s = b ? j++ : i++;
    dk[k] = sk[s];
    if (di) di[k] = si[s];
    k++;
  }
  for (; i < m; i++, k++) { dk[k] = sk[i]; if (di) di[k] = si[i]; }
  for (; j < r; j++, k++) { dk[k] = sk[j]; if (di) di[k] = si[j]; }
}

/* Outputs p0..p1-1 (offsets from l) of the stable merge of [l, m) and [m, r): the start on
 * the merge path by binary search, then a sequential merge.  Device. */
template <typename T>
__device__ __forceinline__ void mp_chunk(const T *__restrict__ sk, const int64_t *__restrict__ si, T *__restrict__ dk,
                                         int64_t *__restrict__ di, int64_t l, int64_t m, int64_t r, int64_t p0, int64_t p1) {
  const T *a = sk + l, *b = sk + m;
  int64_t na = m - l, nb = r - m;
  int64_t lo = p0 > nb ? p0 - nb : 0, hi = p0 < na ? p0 : na;
  while (lo < hi) {
    int64_t mid = (lo + hi) >> 1;
    if (!(b[p0 - 1 - mid] < a[mid])) lo = mid + 1;
    else hi = mid;
  }
  int64_t i = lo, j = p0 - lo;
  for (int64_t k = p0; k < p1; k++) {
    bool fromb = i >= na || (j < nb && b[j] < a[i]);
    int64_t s = fromb ? m + j++ : l + i++;
    dk[l + k] = sk[s];
    if (di) di[l + k] = si[s];
  }
}

#define MP_TILE (SORT_THREADS * MP_ITEMS)   /* outputs per block of a tiled merge-path level */

/* Elements of a (na) taken among the first diag outputs of the stable merge of a and b (nb):
 * the merge path's crossing of diagonal diag, by binary search.  Device. */
template <typename T>
__device__ __forceinline__ int64_t mp_search(const T *a, int64_t na, const T *b, int64_t nb, int64_t diag) {
  int64_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
  while (lo < hi) {
    int64_t mid = (lo + hi) >> 1;
    if (!(b[diag - 1 - mid] < a[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Shared-memory position of element i of a tile: one pad word after every 32, so that the
 * threads' MP_ITEMS-strided accesses (8 t + q) fall into distinct banks. */
__device__ __forceinline__ int sp(int i) { return i + (i >> 5); }
#define MP_TILE_SP (MP_TILE + MP_TILE / 32)   /* padded tile length */

/* mp_search on two runs of a padded shared tile: a at a0 (na), b at b0 (nb).  Device. */
template <typename T>
__device__ __forceinline__ int mp_search_sp(const T *buf, int a0, int na, int b0, int nb, int diag) {
  int lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (!(buf[sp(b0 + diag - 1 - mid)] < buf[sp(a0 + mid)])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A tiled merge-path level of width w (2 w a multiple of MP_TILE): block g writes outputs
 * [g MP_TILE, (g + 1) MP_TILE) of its pair; where the tile starts and ends on the merge path
 * comes from part (part_kernel; the pair's end: all of its left run), the block loads those
 * pieces of both runs into shared memory (coalesced, padded), every thread merges its
 * MP_ITEMS outputs there into registers, they go back to shared memory, the tile is stored
 * coalesced.  Global kernel. */
template <typename T>
__global__ void tile_level_kernel(const T *__restrict__ sk, const int64_t *__restrict__ si, T *__restrict__ dk,
                                  int64_t *__restrict__ di, int64_t n, int64_t w, const int64_t *__restrict__ part) {
  __shared__ T ks[MP_TILE_SP];
  __shared__ int64_t xs[MP_TILE_SP];
  __shared__ int64_t bnd[2];
  int64_t p0 = (int64_t)blockIdx.x * MP_TILE;
  if (p0 >= n) return;
  int64_t l = p0 / (2 * w) * (2 * w);
  int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;
  int64_t p1 = p0 + MP_TILE < r ? p0 + MP_TILE : r;
  if (threadIdx.x < 2) bnd[threadIdx.x] = threadIdx.x && p1 == r ? m - l : part[blockIdx.x + threadIdx.x];
  __syncthreads();
  int64_t a0 = bnd[0], b0 = (p0 - l) - a0;
  int la = (int)(bnd[1] - a0), tot = (int)(p1 - p0), lb = tot - la;
  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    int64_t src = t < la ? l + a0 + t : m + b0 + (t - la);
    ks[sp(t)] = sk[src];
    if (si) xs[sp(t)] = si[src];
  }
  __syncthreads();
  T rk[MP_ITEMS];
  int64_t rx[MP_ITEMS];
  int d0 = threadIdx.x * MP_ITEMS, cnt = 0;
  if (d0 < tot) {
    int i = mp_search_sp(ks, 0, la, la, lb, d0), j = d0 - i;
    cnt = tot - d0 < MP_ITEMS ? tot - d0 : MP_ITEMS;
#pragma unroll
    for (int q = 0; q < MP_ITEMS; q++) {
      if (q < cnt) {
        bool fromb = i >= la || (j < lb && ks[sp(la + j)] < ks[sp(i)]);
        int s = sp(fromb ? la + j++ : i++);
        rk[q] = ks[s];
        rx[q] = si ? xs[s] : 0;
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < MP_ITEMS; q++)
    if (q < cnt) {
      ks[sp(d0 + q)] = rk[q];
      if (si) xs[sp(d0 + q)] = rx[q];
    }
  __syncthreads();
  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    dk[p0 + t] = ks[sp(t)];
    if (di) di[p0 + t] = xs[sp(t)];
  }
}

/* Where every tile (of `tile` outputs) of a level of width w (2 w a multiple of tile) starts on
 * its pair's merge path (elements of the left run among the outputs before it), one thread
 * per tile: the searches of all tiles run at once instead of two per merging block.  Global
 * kernel. */
template <typename T>
__global__ void part_kernel(const T *__restrict__ sk, int64_t n, int64_t w, int64_t tiles, int tile,
                            int64_t *__restrict__ part) {
  int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= tiles) return;
  int64_t p0 = g * tile, l = p0 / (2 * w) * (2 * w);
  int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;
  part[g] = mp_search(sk + l, m - l, sk + m, r - m, p0 - l);
}

#define PART_WARPS 4   /* warps per block of part_warp_kernel */

/* part_kernel's searches with a warp per tile: every round the 32 lanes test 32 evenly spaced
 * points of [lo, hi) at once, a ballot counts those where the merge path's predicate still
 * holds (it holds on a prefix), and the interval shrinks 33-fold instead of 2-fold: about 6
 * rounds of dependent global loads for runs of 2^25 instead of 25.  Global kernel. */
template <typename T>
__global__ void part_warp_kernel(const T *__restrict__ sk, int64_t n, int64_t w, int64_t tiles, int tile,
                                 int64_t *__restrict__ part) {
  const int64_t g = (int64_t)blockIdx.x * PART_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (g >= tiles) return;   /* the whole warp */
  const int64_t p0 = g * tile, l = p0 / (2 * w) * (2 * w);
  const int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;
  const T *a = sk + l, *b = sk + m;
  const int64_t na = m - l, nb = r - m, diag = p0 - l;
  int64_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
  while (hi - lo > 32) {
    int64_t span = hi - lo, mid = lo + span * (lane + 1) / 33;
    int c = __popc(__ballot_sync(0xffffffffu, !(b[diag - 1 - mid] < a[mid])));
    int64_t nlo = c > 0 ? lo + span * c / 33 + 1 : lo;
    hi = c < 32 ? lo + span * (c + 1) / 33 : hi;
    lo = nlo;
  }
  int64_t mid = lo + lane;
  int c = __popc(__ballot_sync(0xffffffffu, mid < hi && !(b[diag - 1 - mid] < a[mid])));
  if (lane == 0) part[g] = lo + c;
}

/* The levels of run width 1 .. MP_TILE / 2 of one MP_TILE-tile in shared memory (the tiles are
 * unions of pairs at every such level, so this is those levels of the whole array): loaded
 * coalesced, each level from one padded shared buffer into the other -- below run width
 * `from` the seed's merge (thread g merges pairs g, g + blockDim, ..., ties from the left
 * run), from it on by merge path (thread t writes outputs 8 t .. 8 t + 7 of its pair after a
 * binary search) -- and stored coalesced into (dkeys, didx), which may be (keys, idx): every
 * block reads its tile before it writes it.  Global kernel (dynamic shared memory: 2 MP_TILE_SP
 * keys, and 2 MP_TILE_SP indices when idx). */
template <typename T>
__global__ void block_sort_kernel(const T *keys, const int64_t *idx, T *dkeys, int64_t *didx, int64_t n, int64_t from) {
  extern __shared__ __align__(16) unsigned char sort_sm[];
  T *k0 = (T *)sort_sm, *k1 = k0 + MP_TILE_SP;
  int64_t *x0 = idx ? (int64_t *)(k1 + MP_TILE_SP) : NULL, *x1 = idx ? x0 + MP_TILE_SP : NULL;
  const int64_t base = (int64_t)blockIdx.x * MP_TILE;
  const int cnt = n - base < MP_TILE ? (int)(n - base) : MP_TILE;
  for (int t = threadIdx.x; t < cnt; t += blockDim.x) {
    k0[sp(t)] = keys[base + t];
    if (idx) x0[sp(t)] = idx[base + t];
  }
  __syncthreads();
  for (int w = 1; w < cnt; w *= 2) {
    if (w < from) {
      for (int g = threadIdx.x; 2 * w * g < cnt; g += blockDim.x) {
        int l = 2 * w * g, m = l + w < cnt ? l + w : cnt, r = l + 2 * w < cnt ? l + 2 * w : cnt;
        int i = l, j = m, k = l;
        while (i < m && j < r) {
          int q = sp(k0[sp(j)] < k0[sp(i)] ? j++ : i++);
          k1[sp(k)] = k0[q];
          if (idx) x1[sp(k)] = x0[q];
          k++;
        }
        for (; i < m; i++, k++) { k1[sp(k)] = k0[sp(i)]; if (idx) x1[sp(k)] = x0[sp(i)]; }
        for (; j < r; j++, k++) { k1[sp(k)] = k0[sp(j)]; if (idx) x1[sp(k)] = x0[sp(j)]; }
      }
    } else {
      int d0 = threadIdx.x * MP_ITEMS;
      if (d0 < cnt) {
        int l = d0 / (2 * w) * (2 * w), m = l + w < cnt ? l + w : cnt, r = l + 2 * w < cnt ? l + 2 * w : cnt;
        int na = m - l, nb = r - m, i = mp_search_sp(k0, l, na, m, nb, d0 - l), j = d0 - l - i;
        int e = d0 + MP_ITEMS < r ? d0 + MP_ITEMS : r;
        for (int k = d0; k < e; k++) {
          bool fromb = i >= na || (j < nb && k0[sp(m + j)] < k0[sp(l + i)]);
          int q = sp(fromb ? m + j++ : l + i++);
          k1[sp(k)] = k0[q];
          if (idx) x1[sp(k)] = x0[q];
        }
      }
    }
    __syncthreads();
    T *tk = k0; k0 = k1; k1 = tk;
    int64_t *tx = x0; x0 = x1; x1 = tx;
  }
  for (int t = threadIdx.x; t < cnt; t += blockDim.x) {
    dkeys[base + t] = k0[sp(t)];
    if (idx) didx[base + t] = x0[sp(t)];
  }
}

/* ---- tiles of 4096 / 8192 keys (merge_tile): TH threads x BT_ITEMS keys ------------------
 * The tile sort: every thread's 16 keys sorted in its registers (a stable odd-even
 * transposition network: the levels of run width 1 .. 8 are each thread's own, as in the
 * seed), then the levels of width 16 .. TILE / 2 by merge path in one padded shared buffer
 * (each thread: a binary search, 16 outputs merged into registers, written back between two
 * barriers).  A global level: a block's TILE outputs, its pieces of both runs loaded coalesced
 * into shared memory, 16 outputs per thread merged there, stored coalesced in 16-byte vectors.
 * A partial tile (the array's end) is padded in shared memory with the type's largest value
 * after its real keys: every merge being stable, the padding stays behind every real key (a
 * real key equal to it is earlier), so every thread has 16 outputs and none is a special case;
 * only the cnt real ones are stored. */
#define BT_ITEMS 16

/* The largest value of T: the padding of a partial tile.  Device. */
template <typename T> __device__ __forceinline__ T bt_top();
template <> __device__ __forceinline__ int32_t bt_top<int32_t>() { return 0x7fffffff; }
template <> __device__ __forceinline__ long long bt_top<long long>() { return 0x7fffffffffffffffLL; }
template <> __device__ __forceinline__ float bt_top<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double bt_top<double>() { return __longlong_as_double(0x7ff0000000000000LL); }

/* Bytes of dynamic shared memory of a tile kernel: the padded tile's keys, then (pairs) its
 * indices.  Host and device. */
template <typename T, bool P>
__host__ __device__ constexpr size_t bt_smem(int tile) { return (size_t)(tile + tile / 32) * (sizeof(T) + (P ? 8 : 0)); }

/* Sort IT keys (and their indices) in registers, stably: IT rounds of an odd-even
 * transposition network, a pair swapped only when strictly out of order.  Device. */
template <typename T, bool P, int IT>
__device__ __forceinline__ void bt_reg_sort(T (&k)[IT], int64_t (&x)[IT]) {
#pragma unroll
  for (int r = 0; r < IT; r++) {
#pragma unroll
    for (int i = r & 1; i + 1 < IT; i += 2) {
      bool sw = k[i + 1] < k[i];
      T a = k[i], b = k[i + 1];
      k[i] = sw ? b : a;
      k[i + 1] = sw ? a : b;
      if (P) {
        int64_t c = x[i], d = x[i + 1];
        x[i] = sw ? d : c;
        x[i + 1] = sw ? c : d;
      }
    }
  }
}

/* IT outputs of the stable merge of the padded shared runs [a, ea) and [b, eb), from a and b
 * on, into registers (a tie from the left run); the caller guarantees IT outputs remain.
 * Device. */
template <typename T, bool P, int IT>
__device__ __forceinline__ void bt_merge(const T *ks, const int64_t *xs, int a, int ea, int b, int eb, T (&k)[IT],
                                         int64_t (&x)[IT]) {
  int a1 = a < ea ? a : ea - 1, b1 = b < eb ? b : eb - 1;   /* in range even for an empty run */
  T ka = ks[sp(a1 > 0 ? a1 : 0)], kb = ks[sp(b1 > 0 ? b1 : 0)];
#pragma unroll
  for (int q = 0; q < IT; q++) {
    bool fromb = b < eb && (a >= ea || kb < ka);
    k[q] = fromb ? kb : ka;
    if (P) x[q] = xs[sp(fromb ? b : a)];
    if (fromb) {
      if (++b < eb) kb = ks[sp(b)];
    } else {
      if (++a < ea) ka = ks[sp(a)];
    }
  }
}

/* Thread t's IT registers to tile positions IT t .. IT t + IT - 1.  Device. */
template <typename T, bool P, int IT>
__device__ __forceinline__ void bt_put(T *ks, int64_t *xs, const T (&k)[IT], const int64_t (&x)[IT]) {
  int d0 = threadIdx.x * IT;
#pragma unroll
  for (int q = 0; q < IT; q++) {
    ks[sp(d0 + q)] = k[q];
    if (P) xs[sp(d0 + q)] = x[q];
  }
}

/* Thread t's IT registers from tile positions IT t .. IT t + IT - 1.  Device. */
template <typename T, bool P, int IT>
__device__ __forceinline__ void bt_get(const T *ks, const int64_t *xs, T (&k)[IT], int64_t (&x)[IT]) {
  int d0 = threadIdx.x * IT;
#pragma unroll
  for (int q = 0; q < IT; q++) {
    k[q] = ks[sp(d0 + q)];
    x[q] = P ? xs[sp(d0 + q)] : 0;
  }
}

/* Store the first cnt elements of a padded shared tile (keys or indices) to dk + base, coalesced:
 * whole 16-byte vectors when the tile is full and the destination aligned.  Device. */
template <typename T, int TH, int TILE>
__device__ __forceinline__ void bt_store_one(const T *ks, T *dk, int64_t base, int cnt) {
  enum { V = 16 / sizeof(T) };
  T *d = dk + base;
  if (cnt == TILE && ((uintptr_t)d & 15) == 0) {
    for (int v = threadIdx.x; v < TILE / V; v += TH) {
      union { uint4 u; T e[V]; } w;
#pragma unroll
      for (int c = 0; c < V; c++) w.e[c] = ks[sp(v * V + c)];
      reinterpret_cast<uint4 *>(d)[v] = w.u;
    }
  } else {
    for (int t = threadIdx.x; t < cnt; t += TH) d[t] = ks[sp(t)];
  }
}

/* The tile sort of block g: keys [g TILE, (g + 1) TILE) (fewer at the end) sorted (registers,
 * then merge path in shared memory) and stored into (dkeys, didx), which may be (keys, idx):
 * the block reads its tile before it writes it.  Global kernel (dynamic shared memory
 * bt_smem<T, P>(TILE)). */
template <typename T, bool P, int TH>
__global__ void __launch_bounds__(TH) bt_sort_kernel(const T *keys, const int64_t *idx, T *dkeys, int64_t *didx, int64_t n) {
  enum { IT = BT_ITEMS, TILE = TH * BT_ITEMS, TSP = TILE + TILE / 32 };
  extern __shared__ __align__(16) unsigned char sort_sm[];
  T *ks = (T *)sort_sm;
  int64_t *xs = (int64_t *)(sort_sm + (size_t)TSP * sizeof(T));
  const int64_t base = (int64_t)blockIdx.x * TILE;
  const int cnt = n - base < TILE ? (int)(n - base) : TILE;
  for (int t = threadIdx.x; t < TILE; t += TH) {
    ks[sp(t)] = t < cnt ? keys[base + t] : bt_top<T>();
    if (P) xs[sp(t)] = t < cnt ? idx[base + t] : 0;
  }
  __syncthreads();
  T k[IT];
  int64_t x[IT];
  bt_get<T, P, IT>(ks, xs, k, x);
  bt_reg_sort<T, P, IT>(k, x);
  const int d0 = threadIdx.x * IT;
  for (int w = IT; w < TILE; w *= 2) {
    __syncthreads();
    bt_put<T, P, IT>(ks, xs, k, x);
    __syncthreads();
    int l = d0 & ~(2 * w - 1), m = l + w;
    int i = mp_search_sp(ks, l, w, m, w, d0 - l);
    bt_merge<T, P, IT>(ks, xs, l + i, m, m + (d0 - l - i), m + w, k, x);
  }
  __syncthreads();
  bt_put<T, P, IT>(ks, xs, k, x);
  __syncthreads();
  bt_store_one<T, TH, TILE>(ks, dkeys, base, cnt);
  if (P) bt_store_one<int64_t, TH, TILE>(xs, didx, base, cnt);
}

/* A global level of width w (2 w a multiple of TILE): block g writes outputs [g TILE,
 * (g + 1) TILE) of its pair; where the tile starts and ends on the merge path comes from
 * part (part_kernel; the pair's end: all of its left run).  Its piece of the left run, then
 * of the right run, then (the array's last tile) the padding go into shared memory
 * coalesced, every thread merges its 16 outputs there into registers, they go back to shared
 * memory, the tile is stored coalesced.  Global kernel (dynamic shared memory
 * bt_smem<T, P>(TILE)). */
template <typename T, bool P, int TH>
__global__ void __launch_bounds__(TH) bt_level_kernel(const T *__restrict__ sk, const int64_t *__restrict__ si,
                                                      T *__restrict__ dk, int64_t *__restrict__ di, int64_t n, int64_t w,
                                                      const int64_t *__restrict__ part) {
  enum { IT = BT_ITEMS, TILE = TH * BT_ITEMS, TSP = TILE + TILE / 32 };
  extern __shared__ __align__(16) unsigned char sort_sm[];
  __shared__ int64_t bnd[2];
  T *ks = (T *)sort_sm;
  int64_t *xs = (int64_t *)(sort_sm + (size_t)TSP * sizeof(T));
  const int64_t p0 = (int64_t)blockIdx.x * TILE;
  const int64_t l = p0 / (2 * w) * (2 * w);
  const int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;
  const int64_t p1 = p0 + TILE < r ? p0 + TILE : r;
  if (threadIdx.x < 2) bnd[threadIdx.x] = threadIdx.x && p1 == r ? m - l : part[blockIdx.x + threadIdx.x];
  __syncthreads();
  const int64_t ga = l + bnd[0], gb = m + (p0 - l) - bnd[0];
  const int la = (int)(bnd[1] - bnd[0]), tot = (int)(p1 - p0);
  for (int t = threadIdx.x; t < TILE; t += TH) {
    int64_t src = t < la ? ga + t : gb + (t - la);
    ks[sp(t)] = t < tot ? sk[src] : bt_top<T>();
    if (P) xs[sp(t)] = t < tot ? si[src] : 0;
  }
  __syncthreads();
  T k[IT];
  int64_t x[IT];
  const int d0 = threadIdx.x * IT;
  int i = mp_search_sp(ks, 0, la, la, TILE - la, d0);
  bt_merge<T, P, IT>(ks, xs, i, la, la + (d0 - i), TILE, k, x);
  __syncthreads();
  bt_put<T, P, IT>(ks, xs, k, x);
  __syncthreads();
  bt_store_one<T, TH, TILE>(ks, dk, p0, tot);
  if (P) bt_store_one<int64_t, TH, TILE>(xs, di, p0, tot);
}

/* One merge-path merge of [l, m) and [m, r), threads over the outputs.  Global kernel. */
template <typename T>
__global__ void path_pair_kernel(const T *__restrict__ sk, const int64_t *__restrict__ si, T *__restrict__ dk,
                                 int64_t *__restrict__ di, int64_t l, int64_t m, int64_t r) {
  int64_t p = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * MP_ITEMS;
  if (p >= r - l) return;
  int64_t e = p + MP_ITEMS < r - l ? p + MP_ITEMS : r - l;
  mp_chunk(sk, si, dk, di, l, m, r, p, e);
}

/* Scratch for ping-pong: n keys (and indices), stream-ordered.  Local. */
template <typename T>
static int cu_scratch(cudaStream_t s, int64_t n, bool idx, T **tk, int64_t **ti) {
  *tk = NULL;
  *ti = NULL;
  HY_CUDA(cudaMallocAsync((void **)tk, (size_t)n * sizeof(T) + 8, s));
  if (idx) HY_CUDA(cudaMallocAsync((void **)ti, (size_t)n * 8 + 8, s));
  return HY_OK;
}

/* Copy the result back into the caller's buffers when it ended in the scratch.  Local. */
template <typename T>
static int cu_settle(cudaStream_t s, int64_t n, T *keys, int64_t *idx, T *cur, int64_t *curi) {
  if (cur == keys) return HY_OK;
  HY_CUDA(cudaMemcpyAsync(keys, cur, (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice, s));
  if (idx) HY_CUDA(cudaMemcpyAsync(idx, curi, (size_t)n * 8, cudaMemcpyDeviceToDevice, s));
  return HY_OK;
}

/* The kernels of one tile size (merge_tile) for keys T, with or without indices: the tile
 * sort (levels below run width tile, in shared memory) and a tiled global level, behind
 * launch wrappers; smem: their dynamic shared memory. */
template <typename T>
struct cu_tiling {
  int tile;
  size_t smem;
  bool warp_part;   /* the partitions by part_warp_kernel (else part_kernel) */
  void (*sort)(cudaStream_t s, unsigned grid, size_t smem, const T *k, const int64_t *x, T *dk, int64_t *dx, int64_t n,
               int64_t from);
  void (*level)(cudaStream_t s, unsigned grid, size_t smem, const T *k, const int64_t *x, T *dk, int64_t *dx, int64_t n,
                int64_t w, const int64_t *part);
};

/* Launch wrappers: the 2048-key tiles (block_sort_kernel, tile_level_kernel) and the 4096 /
 * 8192 / 16384-key tiles (bt_sort_kernel, bt_level_kernel).  The 2048 tile sort.  Local. */
template <typename T>
static void t2_sort(cudaStream_t s, unsigned g, size_t sm, const T *k, const int64_t *x, T *dk, int64_t *dx, int64_t n,
                    int64_t from) {
  block_sort_kernel<T><<<g, SORT_THREADS, sm, s>>>(k, x, dk, dx, n, from);
}

/* The 2048 global level.  Local. */
template <typename T>
static void t2_level(cudaStream_t s, unsigned g, size_t, const T *k, const int64_t *x, T *dk, int64_t *dx, int64_t n,
                     int64_t w, const int64_t *part) {
  tile_level_kernel<T><<<g, SORT_THREADS, 0, s>>>(k, x, dk, dx, n, w, part);
}

/* The 16-per-thread tile sort.  Local. */
template <typename T, bool P, int TH>
static void bt_sort(cudaStream_t s, unsigned g, size_t sm, const T *k, const int64_t *x, T *dk, int64_t *dx, int64_t n,
                    int64_t) {
  bt_sort_kernel<T, P, TH><<<g, TH, sm, s>>>(k, x, dk, dx, n);
}

/* The 16-per-thread global level.  Local. */
template <typename T, bool P, int TH>
static void bt_level(cudaStream_t s, unsigned g, size_t sm, const T *k, const int64_t *x, T *dk, int64_t *dx, int64_t n,
                     int64_t w, const int64_t *part) {
  bt_level_kernel<T, P, TH><<<g, TH, sm, s>>>(k, x, dk, dx, n, w, part);
}

/* The 16-per-thread tiling of TH threads, its kernels allowed their shared memory.  Local. */
template <typename T, bool P, int TH>
static int bt_tiling(cu_tiling<T> *c) {
  c->tile = TH * BT_ITEMS;
  c->smem = bt_smem<T, P>(c->tile);
  c->warp_part = true;
  c->sort = bt_sort<T, P, TH>;
  c->level = bt_level<T, P, TH>;
  HY_CUDA(cudaFuncSetAttribute(bt_sort_kernel<T, P, TH>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem));
  HY_CUDA(cudaFuncSetAttribute(bt_level_kernel<T, P, TH>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem));
  return HY_OK;
}

/* The tiling of merge_tile keys (2048, 4096, 8192 or 16384; k_sort_merge_tile: 8192 for
 * 16384 with 8-byte keys and indices), pairs or keys only.  Local. */
template <typename T>
static int cu_tiling_get(int tile, bool pairs, cu_tiling<T> *c) {
  if (tile == 16384) {
    if constexpr (sizeof(T) == 4) return pairs ? bt_tiling<T, true, 1024>(c) : bt_tiling<T, false, 1024>(c);
    else if (!pairs) return bt_tiling<T, false, 1024>(c);
    return hy_err(HY_EUSAGE, "sort: merge_tile = 16384 with 8-byte keys and indices (k_sort_merge_tile: 8192)");
  }
  if (tile == 4096) return pairs ? bt_tiling<T, true, 256>(c) : bt_tiling<T, false, 256>(c);
  if (tile == 8192) return pairs ? bt_tiling<T, true, 512>(c) : bt_tiling<T, false, 512>(c);
  if (tile != MP_TILE) return hy_err(HY_EUSAGE, "sort: merge_tile = %d: allowed 2048, 4096, 8192 or 16384", tile);
  c->tile = MP_TILE;
  c->smem = (size_t)2 * MP_TILE_SP * (sizeof(T) + (pairs ? 8 : 0));
  c->warp_part = false;
  c->sort = t2_sort<T>;
  c->level = t2_level<T>;
  HY_CUDA(cudaFuncSetAttribute(block_sort_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem));
  return HY_OK;
}

/* The levels from run width w on (w = 1 or the tile; below from: the seed's kernel; from it
 * on: c's tiled merge path, with the partitions computed first into part), ping-pong
 * between (sk, si) and (dk, di); on return (*sk, *si) hold the sorted keys.  Local. */
template <typename T>
static int cu_levels(cudaStream_t s, int64_t w, int64_t from, int64_t n, T **sk, int64_t **si, T **dk,
                     int64_t **di, int64_t *part, const cu_tiling<T> *c) {
  int64_t tiles = c ? (n + c->tile - 1) / c->tile : 0;
  for (; w < n; w *= 2) {
    if (c && w >= from && (2 * w) % c->tile == 0) {
      if (c->warp_part)
        part_warp_kernel<T><<<(unsigned)((tiles + PART_WARPS - 1) / PART_WARPS), 32 * PART_WARPS, 0, s>>>(*sk, n, w, tiles, c->tile, part);
      else
        part_kernel<T><<<st_blocks(tiles), SORT_THREADS, 0, s>>>(*sk, n, w, tiles, c->tile, part);
      HY_CUDA_LAUNCH();
      c->level(s, (unsigned)tiles, c->smem, *sk, *si, *dk, *di, n, w, part);
    } else {
      int64_t threads = (n + 2 * w - 1) / (2 * w);
      seed_level_kernel<T><<<st_blocks(threads), SORT_THREADS, 0, s>>>(*sk, *si, *dk, *di, n, w);
    }
    HY_CUDA_LAUNCH();
    T *x = *sk; *sk = *dk; *dk = x;
    int64_t *y = *si; *si = *di; *di = y;
  }
  return HY_OK;
}

/* Warm-up of the kernels a merge sort with this tiling and from launches, on a small zeroed
 * scratch before the timed region: a kernel's first launch loads its module (CUDA's lazy
 * loading), which would otherwise fall between the timer's events.  Local. */
template <typename T>
static int cu_merge_warm(cudaStream_t s, bool pairs, int64_t from, const cu_tiling<T> *c) {
  const int64_t n2 = 2 * (int64_t)c->tile;
  char *w = NULL;
  size_t kb = (size_t)2 * n2 * sizeof(T), xb = pairs ? (size_t)2 * n2 * 8 : 0;
  HY_CUDA(cudaMallocAsync((void **)&w, kb + xb + 16 + 16, s));
  HY_CUDA(cudaMemsetAsync(w, 0, kb + xb + 32, s));
  T *k = (T *)w;
  int64_t *x = pairs ? (int64_t *)(w + kb) : NULL, *part = (int64_t *)(w + kb + xb);
  c->sort(s, 1, c->smem, k, x, k, x, n2, from);
  part_kernel<T><<<1, SORT_THREADS, 0, s>>>(k, n2, c->tile, 2, c->tile, part);
  part_warp_kernel<T><<<1, 32 * PART_WARPS, 0, s>>>(k, n2, c->tile, 2, c->tile, part);
  c->level(s, 2, c->smem, k, x, k + n2, x ? x + n2 : NULL, n2, c->tile, part);
  if (from > c->tile) seed_level_kernel<T><<<1, SORT_THREADS, 0, s>>>(k, x, k + n2, x ? x + n2 : NULL, n2, c->tile);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaFreeAsync(w, s));
  return HY_OK;
}

/* Bottom-up merge sort.  from = 0: the seed's kernel at every level, in global memory.  Else the
 * levels below run width merge_tile inside each tile in shared memory (the tiling's sort:
 * 2048: the seed's merge below from, merge path from it on; 4096 / 8192: 16 keys per thread in
 * registers, merge path above), written in place or, when the number of global levels is
 * odd, into the scratch, so that the last global level (cu_levels) ends in the caller's
 * buffers (no copy back).  Every level is the same stable merge: the same result for any
 * from and tile.  Local. */
template <typename T>
static int cu_merge_sort(k_backend *be, const k_sort_args *a, T *keys, int64_t *idx, int64_t n, double *kernel_s) {
  cudaStream_t s = k_cuda_cur(be);
  T *tk;
  int64_t *ti, *part = NULL;
  int64_t from = a->merge_path_from;
  if (from > 0 && from < MP_ITEMS) from = MP_ITEMS;
  cu_tiling<T> c;
  if (from > 0) HY_CALL(cu_tiling_get<T>(k_sort_merge_tile(a->merge_tile, a->type, idx != NULL), idx != NULL, &c));
  HY_CALL(cu_scratch(s, n, idx != NULL, &tk, &ti));
  int64_t tiles = from > 0 ? (n + c.tile - 1) / c.tile : 0;
  int odd = 0;
  for (int64_t w = from > 0 ? c.tile : 1; w < n; w *= 2) odd ^= 1;
  if (from > 0) {
    HY_CUDA(cudaMallocAsync((void **)&part, (size_t)tiles * 8 + 8, s));
    HY_CALL(cu_merge_warm<T>(s, idx != NULL, from, &c));
  }
  sort_timer t;
  HY_CALL(st_begin(&t, s));
  T *sk = keys, *dk = tk;
  int64_t *si = idx, *di = idx ? ti : NULL;
  if (from > 0 && n > 1) {
    if (odd) { sk = tk; dk = keys; si = idx ? ti : NULL; di = idx; }
    c.sort(s, (unsigned)tiles, c.smem, keys, idx, sk, si, n, from);
    HY_CUDA_LAUNCH();
  }
  HY_CALL(cu_levels<T>(s, from > 0 ? c.tile : 1, from, n, &sk, &si, &dk, &di, part, from > 0 ? &c : NULL));
  HY_CALL(cu_settle(s, n, keys, idx, sk, si));
  HY_CALL(st_end(&t, s, kernel_s));
  if (part) HY_CUDA(cudaFreeAsync(part, s));
  HY_CUDA(cudaFreeAsync(tk, s));
  if (ti) HY_CUDA(cudaFreeAsync(ti, s));
  return HY_OK;
}

/* CUB DeviceRadixSort on keys (and the index), double-buffered.  Local. */
template <typename T>
static int cu_radix_sort(k_backend *be, T *keys, int64_t *idx, int64_t n, double *kernel_s) {
  cudaStream_t s = k_cuda_cur(be);
  T *tk;
  int64_t *ti;
  HY_CALL(cu_scratch(s, n, idx != NULL, &tk, &ti));
  cub::DoubleBuffer<T> dk(keys, tk);
  cub::DoubleBuffer<int64_t> dv(idx, ti);
  size_t bytes = 0;
  void *tmp = NULL;
  if (idx) HY_CUDA(cub::DeviceRadixSort::SortPairs(NULL, bytes, dk, dv, n, 0, (int)(8 * sizeof(T)), s));
  else HY_CUDA(cub::DeviceRadixSort::SortKeys(NULL, bytes, dk, n, 0, (int)(8 * sizeof(T)), s));
  HY_CUDA(cudaMallocAsync(&tmp, bytes + 8, s));
  sort_timer t;
  HY_CALL(st_begin(&t, s));
  if (idx) HY_CUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dv, n, 0, (int)(8 * sizeof(T)), s));
  else HY_CUDA(cub::DeviceRadixSort::SortKeys(tmp, bytes, dk, n, 0, (int)(8 * sizeof(T)), s));
  HY_CALL(cu_settle(s, n, keys, idx, dk.Current(), idx ? dv.Current() : NULL));
  HY_CALL(st_end(&t, s, kernel_s));
  HY_CUDA(cudaFreeAsync(tmp, s));
  HY_CUDA(cudaFreeAsync(tk, s));
  if (ti) HY_CUDA(cudaFreeAsync(ti, s));
  return HY_OK;
}

/* Pairwise rounds of merge-path merges of the runs.  Local. */
template <typename T>
static int cu_merge_runs(k_backend *be, T *keys, int64_t *idx, int64_t n, int nruns, const int64_t *off0, double *kernel_s) {
  cudaStream_t s = k_cuda_cur(be);
  T *tk;
  int64_t *ti;
  HY_CALL(cu_scratch(s, n, idx != NULL, &tk, &ti));
  int64_t *off = (int64_t *)malloc((size_t)(nruns + 1) * sizeof *off);
  if (!off) return hy_err(HY_ESYS, "out of memory");
  memcpy(off, off0, (size_t)(nruns + 1) * sizeof *off);
  sort_timer t;
  HY_CALL(st_begin(&t, s));
  T *sk = keys, *dk = tk;
  int64_t *si = idx, *di = idx ? ti : NULL;
  while (nruns > 1) {
    int out = 0;
    for (int r = 0; r < nruns; r += 2) {
      int64_t l = off[r], m = off[r + 1], e = r + 2 <= nruns ? off[r + 2] : m;
      if (e > l) {
        path_pair_kernel<T><<<st_blocks((e - l + MP_ITEMS - 1) / MP_ITEMS), SORT_THREADS, 0, s>>>(sk, si, dk, di, l, m, e);
        HY_CUDA_LAUNCH();
      }
      off[out++] = l;
    }
    off[out] = n;
    nruns = out;
    T *x = sk; sk = dk; dk = x;
    int64_t *y = si; si = di; di = y;
  }
  free(off);
  HY_CALL(cu_settle(s, n, keys, idx, sk, si));
  HY_CALL(st_end(&t, s, kernel_s));
  HY_CUDA(cudaFreeAsync(tk, s));
  if (ti) HY_CUDA(cudaFreeAsync(ti, s));
  return HY_OK;
}

/* Count i with k[i + 1] < k[i] into *bad.  Global kernel. */
template <typename T>
__global__ void inversions_kernel(const T *__restrict__ k, int64_t n, unsigned long long *bad) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n && k[i + 1] < k[i]) atomicAdd(bad, 1ULL);
}

/* Whether n device keys are sorted.  Local. */
template <typename T>
static int cu_is_sorted(cudaStream_t s, const T *k, int64_t n, int *ok) {
  unsigned long long *d = NULL, h = 0;
  HY_CUDA(cudaMallocAsync((void **)&d, sizeof *d, s));
  HY_CUDA(cudaMemsetAsync(d, 0, sizeof *d, s));
  inversions_kernel<T><<<st_blocks(n), SORT_THREADS, 0, s>>>(k, n, d);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaFreeAsync(d, s));
  HY_CUDA(cudaStreamSynchronize(s));
  *ok = h == 0;
  return HY_OK;
}

/* Elements at pos[j] gathered into hk/hi (device scratch).  Global kernel. */
template <typename T>
__global__ void pick_kernel(const T *__restrict__ k, const int64_t *__restrict__ idx, const int64_t *__restrict__ pos,
                            int cnt, T *__restrict__ ok, int64_t *__restrict__ oi) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cnt) return;
  ok[j] = k[pos[j]];
  oi[j] = idx ? idx[pos[j]] : pos[j];
}

/* Thread s: the lower bound of splitter (sk[s], si[s]) in the (key, index) order.  Global kernel. */
template <typename T>
__global__ void cuts_kernel(const T *__restrict__ k, const int64_t *__restrict__ idx, int64_t n,
                            const T *__restrict__ sk, const int64_t *__restrict__ si, int ns, int64_t *__restrict__ cut) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= ns) return;
  T b = sk[s];
  int64_t bi = si[s], lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    T a = k[mid];
    bool below = a < b || (!(b < a) && idx && idx[mid] < bi);
    if (below) lo = mid + 1;
    else hi = mid;
  }
  cut[s] = lo;
}

/* pick: positions up, a gather kernel, the elements down.  Local. */
template <typename T>
static int cu_pick(k_backend *be, const T *keys, const int64_t *idx, const int64_t *pos, int cnt, T *hk, int64_t *hi) {
  cudaStream_t s = k_cuda_cur(be);
  if (cnt <= 0) return HY_OK;
  char *w = NULL;
  size_t pb = (size_t)cnt * 8, kb = (size_t)cnt * sizeof(T);
  HY_CUDA(cudaMallocAsync((void **)&w, 2 * pb + kb + 8, s));
  int64_t *dpos = (int64_t *)w, *dix = (int64_t *)(w + pb);
  T *dk = (T *)(w + 2 * pb);
  HY_CUDA(cudaMemcpyAsync(dpos, pos, pb, cudaMemcpyHostToDevice, s));
  pick_kernel<T><<<st_blocks(cnt), SORT_THREADS, 0, s>>>(keys, idx, dpos, cnt, dk, dix);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(hk, dk, kb, cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaMemcpyAsync(hi, dix, pb, cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaFreeAsync(w, s));
  HY_CUDA(cudaStreamSynchronize(s));
  return HY_OK;
}

/* cuts: splitters up, one thread per splitter, the positions down.  Local. */
template <typename T>
static int cu_cuts(k_backend *be, const T *keys, const int64_t *idx, int64_t n, const T *sk, const int64_t *si, int ns, int64_t *cut) {
  cudaStream_t s = k_cuda_cur(be);
  if (ns <= 0) return HY_OK;
  char *w = NULL;
  size_t pb = (size_t)ns * 8, kb = (size_t)ns * sizeof(T);
  HY_CUDA(cudaMallocAsync((void **)&w, 2 * pb + kb + 8, s));
  int64_t *dsi = (int64_t *)w, *dcut = (int64_t *)(w + pb);
  T *dsk = (T *)(w + 2 * pb);
  HY_CUDA(cudaMemcpyAsync(dsi, si, pb, cudaMemcpyHostToDevice, s));
  HY_CUDA(cudaMemcpyAsync(dsk, sk, kb, cudaMemcpyHostToDevice, s));
  cuts_kernel<T><<<st_blocks(ns), SORT_THREADS, 0, s>>>(keys, idx, n, dsk, dsi, ns, dcut);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(cut, dcut, pb, cudaMemcpyDeviceToHost, s));
  HY_CUDA(cudaFreeAsync(w, s));
  HY_CUDA(cudaStreamSynchronize(s));
  return HY_OK;
}

/* Less-than for CUB's merge sort. */
struct sort_less {
  template <typename T>
  __device__ bool operator()(const T &a, const T &b) const { return a < b; }
};

/* i into x[i], i < n.  Global kernel. */
__global__ void iota_kernel(int64_t *x, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = i;
}

/* The vendor's sort on a copy of the keys, timed: mode 1 radix (SortKeys), 0 merge
 * (StableSortKeys), 2 merge of pairs (StableSortPairs, the int64 index 0 .. n - 1 as the
 * items, as our payload = index).  Local. */
template <typename T>
static int cu_vendor(k_backend *be, int mode, const T *keys, int64_t n, double *kernel_s, int *ok) {
  cudaStream_t s = k_cuda_cur(be);
  T *a = NULL, *b = NULL;
  int64_t *x = NULL;
  void *tmp = NULL;
  size_t bytes = 0;
  HY_CUDA(cudaMallocAsync((void **)&a, (size_t)n * sizeof(T) + 8, s));
  HY_CUDA(cudaMallocAsync((void **)&b, (size_t)n * sizeof(T) + 8, s));
  HY_CUDA(cudaMemcpyAsync(a, keys, (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice, s));
  if (mode == 2) {
    HY_CUDA(cudaMallocAsync((void **)&x, (size_t)n * 8 + 8, s));
    iota_kernel<<<st_blocks(n), SORT_THREADS, 0, s>>>(x, n);
    HY_CUDA_LAUNCH();
  }
  cub::DoubleBuffer<T> db(a, b);
  if (mode == 1) HY_CUDA(cub::DeviceRadixSort::SortKeys(NULL, bytes, db, n, 0, (int)(8 * sizeof(T)), s));
  else if (mode == 2) HY_CUDA(cub::DeviceMergeSort::StableSortPairs(NULL, bytes, a, x, n, sort_less(), s));
  else HY_CUDA(cub::DeviceMergeSort::StableSortKeys(NULL, bytes, a, n, sort_less(), s));
  HY_CUDA(cudaMallocAsync(&tmp, bytes + 8, s));
  *kernel_s = 0;
  sort_timer t;
  HY_CALL(st_begin(&t, s));
  if (mode == 1) HY_CUDA(cub::DeviceRadixSort::SortKeys(tmp, bytes, db, n, 0, (int)(8 * sizeof(T)), s));
  else if (mode == 2) HY_CUDA(cub::DeviceMergeSort::StableSortPairs(tmp, bytes, a, x, n, sort_less(), s));
  else HY_CUDA(cub::DeviceMergeSort::StableSortKeys(tmp, bytes, a, n, sort_less(), s));
  HY_CALL(st_end(&t, s, kernel_s));
  HY_CALL(cu_is_sorted(s, mode == 1 ? db.Current() : a, n, ok));
  HY_CUDA(cudaFreeAsync(tmp, s));
  HY_CUDA(cudaFreeAsync(a, s));
  HY_CUDA(cudaFreeAsync(b, s));
  if (x) HY_CUDA(cudaFreeAsync(x, s));
  HY_CUDA(cudaStreamSynchronize(s));
  return HY_OK;
}

/* Dispatch on the key type: F is called with the typed pointer.  */
#define SORT_BY_TYPE(t, CALL)                                  \
  switch (t) {                                                 \
  case K_SORT_I32: { typedef int32_t T; return CALL; }         \
  case K_SORT_I64: { typedef long long T; return CALL; }       \
  case K_SORT_F32: { typedef float T; return CALL; }           \
  default: { typedef double T; return CALL; }                  \
  }

/* The table's entries.  Local. */
static int cs_merge(k_backend *be, const k_sort_args *a, void *keys, int64_t *idx, int64_t n, double *kernel_s) {
  *kernel_s = 0;
  SORT_BY_TYPE(a->type, cu_merge_sort<T>(be, a, (T *)keys, idx, n, kernel_s))
}
static int cs_radix(k_backend *be, const k_sort_args *a, void *keys, int64_t *idx, int64_t n, double *kernel_s) {
  *kernel_s = 0;
  SORT_BY_TYPE(a->type, cu_radix_sort<T>(be, (T *)keys, idx, n, kernel_s))
}
static int cs_merge_runs(k_backend *be, k_sort_type t, void *keys, int64_t *idx, int64_t n, int nruns,
                         const int64_t *off, double *kernel_s) {
  *kernel_s = 0;
  if (nruns <= 1 || n == 0) return HY_OK;
  SORT_BY_TYPE(t, cu_merge_runs<T>(be, (T *)keys, idx, n, nruns, off, kernel_s))
}
static int cs_pick(k_backend *be, k_sort_type t, const void *keys, const int64_t *idx, const int64_t *pos, int cnt,
                   void *hk, int64_t *hi) {
  SORT_BY_TYPE(t, cu_pick<T>(be, (const T *)keys, idx, pos, cnt, (T *)hk, hi))
}
static int cs_cuts(k_backend *be, k_sort_type t, const void *keys, const int64_t *idx, int64_t n, const void *sk,
                   const int64_t *si, int ns, int64_t *cut) {
  SORT_BY_TYPE(t, cu_cuts<T>(be, (const T *)keys, idx, n, (const T *)sk, si, ns, cut))
}
static int cs_vendor_radix(k_backend *be, k_sort_type t, const void *keys, int64_t n, double *kernel_s, int *ok) {
  SORT_BY_TYPE(t, cu_vendor<T>(be, 1, (const T *)keys, n, kernel_s, ok))
}
static int cs_vendor_merge(k_backend *be, k_sort_type t, const void *keys, int64_t n, double *kernel_s, int *ok) {
  SORT_BY_TYPE(t, cu_vendor<T>(be, 0, (const T *)keys, n, kernel_s, ok))
}
static int cs_vendor_merge_pairs(k_backend *be, k_sort_type t, const void *keys, int64_t n, double *kernel_s, int *ok) {
  SORT_BY_TYPE(t, cu_vendor<T>(be, 2, (const T *)keys, n, kernel_s, ok))
}

/* Filled by index name (designated array initialisers are C only; the order of the enum). */
static k_sort_ops cs_make_ops(void) {
  k_sort_ops o;
  memset(&o, 0, sizeof o);
  o.name = "cuda";
  o.local[K_SORT_LOCAL_MERGE] = cs_merge;
  o.local[K_SORT_LOCAL_RADIX] = cs_radix;
  o.local[K_SORT_LOCAL_QSORT] = NULL;
  o.merge_runs = cs_merge_runs;
  o.pick = cs_pick;
  o.cuts = cs_cuts;
  o.vendor_radix = cs_vendor_radix;
  o.vendor_merge = cs_vendor_merge;
  o.vendor_merge_pairs = cs_vendor_merge_pairs;
  o.floor_rate = 4.25e12;   /* the H200's measured device copy rate (bytes/s) */
  return o;
}

extern "C" const k_sort_ops k_sort_cuda_ops = cs_make_ops();
