/* vec_cuda.cu - the vector operations of k_vec.h on a CUDA device: a grid-stride gather, the
 * fused update z = a x + b y + c z, and up to four dot products in one launch (optionally after
 * such an update in the same kernel) with a fixed-order reduction finished by the last block
 * (bitwise reproducible), the results in mapped pinned memory (one stream synchronisation, no
 * copy).  The reduction scratch lives in the k_vec handle (vec_scratch), never at file scope.
 * The scalar-block forms of the device loop (axpbypcz_s, dots_s, axpbypcz_dots_s, bcgs_step)
 * are the same kernels reading their scalars from, and writing their dots to, device memory,
 * with no synchronisation; a gate slot at 0 makes every block return at once; the last block
 * of a dots pass may run the next scalar step (one launch fewer).  A batch of queued work is
 * recorded once as a CUDA graph (rec_create) and replayed (rec_run); s_read reads the scalar
 * block through mapped pinned memory.
 * All work is queued on the backend's stream. */
#include "k_cuda.h"
#include "k_vec.h"
#include "k_vec_bcgs.h"

#include <cooperative_groups.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

namespace cg = cooperative_groups;

static_assert(K_BS_NSLOT <= K_VEC_READMAX, "the scalar block fits the s_read scratch");
static_assert(K_VEC_MAXDOTS <= K_VEC_READMAX, "the dots fit the result scratch");

#define DOT_BLOCKS 1024
#define DOT_THREADS 256
/* Entries per thread a dots pass aims at (fewer blocks: a short last-block sum and fewer
 * atomics on its counter; each thread's loads unrolled). */
#define DOT_PER_THREAD 4

/* The variants of the persistent kernel (pb_kernel: entries per lane loaded at once x blocks
 * per SM), and the grid slots of all (those, merged, and the solve formats'). */
#define PB_NVAR 6
#define PB_NGRID 59
/* The first grid slot of the slice products' kernels (pb_kernel_sell: 8 slots), and of the
 * products by diagonals (pb_kernel_dia: 6). */
#define PB_VAR_SELL 45
#define PB_VAR_DIA 53
/* The stride of a diagonal's values by diagonals (k_csr_view.dia_off): the rows rounded up to 32,
 * so that every diagonal starts 256-byte aligned. */
#define PK_DIA_LD(rows) ((int)(((rows) + 31) & ~(int64_t)31))
/* The first grid slot of the prefetching products' kernels (pb_kernel_pf: 16 slots). */
#define PB_VAR_PF 29

/* The reduction scratch of one k_vec: block partials, the last-block counter, the results in
 * mapped pinned host memory and their device alias. */
typedef struct {
  double *part;
  unsigned *count;
  double *out_host, *out_dev;
  int pb_grid[2][PB_NGRID];     /* bcgs_batch's grid without / with M per variant (pb_kernel's
                                 * index; 0: not yet chosen) */
  void *pack;                   /* bcgs_prepare's solve copy of A and M (NULL: none) */
  cudaAccessPolicyWindow win;   /* its L2 window for bcgs_batch (num_bytes 0: none) */
  size_t l2_prev;               /* the persisting set-aside before bcgs_prepare changed it */
  int l2_set;                   /* 1: bcgs_prepare set the stream's window (2: and the set-aside) */
} vec_scratch;

static __device__ __forceinline__ double vec_warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/* The block's sums of acc[0..np) (np <= LD): warp sums into red[warp][q], then thread q adds the
 * NW warps' in order and writes out[q * stride].  The one summation order of a block's partial
 * in kv_dots and in the persistent kernel. */
template <int NW, int LD>
static __device__ __forceinline__ void vec_block_sums(const double *acc, int np,
                                                      double (*red)[LD], double *out,
                                                      int64_t stride) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
#pragma unroll
  for (int q = 0; q < LD; q++)
    if (q < np) {
      double v = vec_warp_sum(acc[q]);
      if (lane == 0) red[w][q] = v;
    }
  __syncthreads();
  if (threadIdx.x < np) {
    double v = 0;
    for (int q = 0; q < NW; q++) v += red[q][threadIdx.x];
    out[threadIdx.x * stride] = v;
  }
}

static __global__ void kv_gather(int64_t n, const int32_t *__restrict__ idx,
                                 const double *__restrict__ x, double *__restrict__ buf) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    buf[i] = x[idx[i]];
}

static __global__ void kv_axpbypcz(int64_t n, double a, const double *__restrict__ x, double b,
                                   const double *y, double c, double *z) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double v = a * x[i] + b * y[i];
    if (c != 0.0) v += c * z[i];
    z[i] = v;
  }
}

/* z = sc[ia] x + sc[ib] y + sc[ic] z, nothing while sc[gate] == 0 (the device loop); then
 * (step >= 0) block 0's thread 0 runs the scalar step once its block has read the gate. */
static __global__ void kv_axpbypcz_s(int64_t n, double *sc, int ia, int ib, int ic, int gate,
                                     const double *__restrict__ x, const double *y, double *z,
                                     int step, double tol) {
  if (sc[gate] != 0) {
    double a = sc[ia], b = sc[ib], c = sc[ic];
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
      double v = a * x[i] + b * y[i];
      if (c != 0.0) v += c * z[i];
      z[i] = v;
    }
  }
  if (step >= 0 && blockIdx.x == 0) {
    __syncthreads();
    if (threadIdx.x == 0) k_bcgs_step(sc, step, tol);
  }
}

/* One scalar step of BiCGSTAB on the scalar block (one thread). */
static __global__ void kv_bcgs_step(double *sc, int step, double tol) {
  k_bcgs_step(sc, step, tol);
}

/* out[i] = sc[i] for i < n (out: mapped pinned host memory; one warp). */
static __global__ void kv_read(const double *sc, double *out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = sc[i];
}

/* The scalars of one dots pass read from device memory (the device loop): a = sc[ia], b =
 * sc[ib], c = sc[ic], nothing while sc[gate] == 0, and (step >= 0) the scalar step
 * k_bcgs_step(sc, step, tol) run by the last block once the dots are in sc; sc NULL: the
 * values passed. */
struct vec_scal {
  double *sc;
  int ia, ib, ic, gate, step;
  double tol;
};

/* The pairs of one dots pass (passed by value). */
struct vec_pairs {
  const double *x[K_VEC_MAXDOTS], *y[K_VEC_MAXDOTS];
};
/* Optionally (UPD) z = a x + b y + c z (c == 0: z not read), then up to four dot products of
 * the (updated) vectors, in one launch: per-block partials (each thread's grid-stride sum, warp
 * sums, warps in order) into part, and the last block to finish (device counter) sums the
 * partials in a fixed order (a warp per product), writes out (mapped pinned host memory) and
 * resets the counter.  The order depends only on n: bitwise reproducible. */
template <bool UPD>
static __global__ void kv_dots(int64_t n, double a, const double *x, double b, const double *y,
                               double c, double *z, int np, vec_pairs dp, double *part,
                               unsigned *count, double *out, vec_scal vs) {
  __shared__ double red[DOT_THREADS / 32][K_VEC_MAXDOTS];
  __shared__ bool last;
  if (vs.sc) {
    if (vs.sc[vs.gate] == 0) {         /* every block returns: the counter stays 0 */
      /* the step runs whatever the gate, as a separate bcgs_step would (stopped: RUNX = 0) */
      if (vs.step >= 0 && blockIdx.x == 0 && threadIdx.x == 0) k_bcgs_step(vs.sc, vs.step, vs.tol);
      return;
    }
    if (UPD) {
      a = vs.sc[vs.ia];
      b = vs.sc[vs.ib];
      c = vs.sc[vs.ic];
    }
  }
  double s[K_VEC_MAXDOTS] = { 0, 0, 0, 0 };
#pragma unroll 4
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double zi = 0;
    if (UPD) {
      zi = a * x[i] + b * y[i];
      if (c != 0.0) zi += c * z[i];
      z[i] = zi;
    }
#pragma unroll
    for (int p = 0; p < K_VEC_MAXDOTS; p++)
      if (p < np) {
        double xv = (UPD && dp.x[p] == z) ? zi : dp.x[p][i];
        double yv = (UPD && dp.y[p] == z) ? zi : dp.y[p][i];
        s[p] += xv * yv;
      }
  }
  vec_block_sums<DOT_THREADS / 32, K_VEC_MAXDOTS>(s, np, red, part + blockIdx.x * K_VEC_MAXDOTS, 1);
  if (threadIdx.x < np) __threadfence();
  __syncthreads();
  int lane = threadIdx.x & 31;
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  int p = threadIdx.x >> 5;
  if (p < np) {
    double v = 0;
    for (unsigned bl = lane; bl < gridDim.x; bl += 32) v += __ldcg(part + bl * K_VEC_MAXDOTS + p);
    v = vec_warp_sum(v);
    if (lane == 0) out[p] = v;
  }
  if (threadIdx.x == 0) *count = 0;
  if (vs.sc && vs.step >= 0) {
    __syncthreads();                       /* the dots are in sc (out = sc + slot) */
    if (threadIdx.x == 0) k_bcgs_step(vs.sc, vs.step, vs.tol);
  }
}

/* ------------------------------------------------------------------ persistent BiCGSTAB */
/* bcgs_batch: the device loop's iterations in one cooperative launch.  A grid of SMs x
 * occupancy blocks (PB_THREADS threads) runs the phases of an iteration one after the other,
 * a grid sync between two phases; the products are our CSR SpMV with the matrix's threads per
 * row (the rows of a group of T lanes summed as k_csr_spmv<T> sums them), the vector that a
 * product loads formed in its load where a phase can (p = r + beta (p - omega v) with M; s = r -
 * alpha v always) and the dots that consume a product's output summed in the same pass (per
 * thread, then per block in a fixed order into pb.part).  After a grid sync every block sums
 * the block partials itself (the same order in every block, so every block gets the same
 * values) and runs the scalar step (k_bcgs_step) on its own copy of the scalar block in shared
 * memory; block 0 writes that copy back at the end.  Vectors written inside the kernel are read
 * by plain loads (never the read-only path): the grid sync orders them. */
#define PB_THREADS 512
/* Blocks per SM the registers of the fused kernels must allow (40 per thread: 1536 threads per
 * SM); the persistent kernel's is a template parameter (k_bcgs_sys.blocks: 3, or 2 with 64
 * registers, 1024 threads per SM) */
#define PB_MINBLOCKS 3
/* partial slots: (rhat, v); (t, s), (t, t), (s, s); (rhat, r), (r, r); the merged kernel's:
 * (rhat, v), (r, r); the five of t and s; the batch end's (r, r) */
#define PB_NPART 8
#define PB_MAXBLOCKS (DOT_BLOCKS * K_VEC_MAXDOTS / PB_NPART)

/* A matrix of the kernel: row offsets, columns, values, log2 of its threads per row, and its
 * solve format (bcgs_prepare): FP32 values vf, 16-bit column offsets co (NULL: not made). */
struct pb_mat {
  const int32_t *rp, *ci;
  const double *va;
  int lt;
  const float *vf;
  const int16_t *co;
  const int32_t *sp;               /* the slices' starts (k_csr_view.sell; NULL: CSR order) */
  const int32_t *doff;             /* by diagonals (k_csr_view.dia_off; NULL: CSR): the offsets */
  int nd;                          /* ... and their count */
  int dl;                          /* ... and the stride of their values (rows rounded up to 32) */
};

/* The solve formats of a product's matrix (template FM, bits): PB_VF its values in FP32 (vf,
 * promoted exactly), PB_I16 its columns as row + 16-bit offset (co). */
#define PB_VF 1
#define PB_I16 2
/* The rows template argument of the products that prefetch (pb_spmv_pf) instead of holding R
 * rows at once. */
#define PB_PF 0
/* ... and of the products over slices of 32 rows (pb_spmv_sell), and by diagonals
 * (pb_spmv_dia). */
#define PB_SELL (-1)
#define PB_DIA (-2)
template <int FM>
static __device__ __forceinline__ double pb_val(const pb_mat &m, int e) {
  return (FM & PB_VF) ? (double)__ldg(m.vf + e) : __ldg(m.va + e);
}
template <int FM>
static __device__ __forceinline__ int pb_col(const pb_mat &m, int e, int row) {
  return (FM & PB_I16) ? row + (int)__ldg(m.co + e) : __ldg(m.ci + e);
}

/* The arguments of the persistent kernel (by value). */
struct pb_args {
  int n;                           /* rows (pb_prepare: < 2^31 - 2^24, 32-bit indices inside) */
  pb_mat a, m;
  double *r, *rh, *p, *p2, *v, *ph, *s, *sh, *t, *x;
  double *part;                    /* PB_NPART x gridDim.x block partials */
  double *sc;
  int niter;
  double tol;
  int split;                       /* 1: p and s updated in phases of their own (k_bcgs_sys) */
  int64_t *times;                  /* NULL or k_bcgs_sys.times (K_PH_SLOTS) */
};

/* Entry j of the vector a product loads: x[j] (NV 1), a x[j] + b y[j] (NV 2), and + c z[j]
 * when c != 0 (NV 3): the expression of kv_axpbypcz. */
template <int NV>
static __device__ __forceinline__ double pb_in(int j, double a, const double *x, double b,
                                               const double *y, double c, const double *z) {
  if (NV == 1) return x[j];
  double q = __fma_rn(a, x[j], __dmul_rn(b, y[j]));   /* (explicit: the same rounding in every */
  if (NV == 3 && c != 0.0) q = __fma_rn(c, z[j], q);   /* kernel and unrolled loop) */
  return q;
}

/* The loaded vector of a product as pb_in<NV>(j, ...) (NV 1: x itself); own(row): what the row's
 * owner does before the product's output is written: NV > 1: w[row] = q[row] when w (w is not a
 * loaded vector), returns q[row] (NV 1: 0). */
template <int NV>
struct pb_ld {
  static const int nv = NV;
  double a, b, c;
  const double *x, *y, *z;
  double *w;
  __device__ __forceinline__ double operator()(int j) const { return pb_in<NV>(j, a, x, b, y, c, z); }
  __device__ __forceinline__ double own(int row) const {
    if (NV == 1) return 0;
    double e = pb_in<NV>(row, a, x, b, y, c, z);
    if (w) w[row] = e;
    return e;
  }
};

/* The merged iteration's first product (kv_bcgs_persist_m): p = r + beta (pold - omega v) with
 * r = s - omega t formed in the load (the previous iteration's r, kv_dots<true>'s and
 * kv_axpbypcz's expressions); own(row): the previous iteration's x = alpha ph + omega_x sh + x
 * (when ux; ph read before the product overwrites it), r and p written, p returned. */
struct pb_ld_rp {
  static const int nv = 4;
  double one, nom, nbo, beta, al, omx;
  const double *s, *t, *v, *pold, *ph, *sh;
  double *x, *r, *pnew;
  bool ux;
  __device__ __forceinline__ double rj(int j) const {
    return __fma_rn(one, s[j], __dmul_rn(nom, t[j]));
  }
  __device__ __forceinline__ double pj(int j, double r) const {
    double q = __fma_rn(one, r, __dmul_rn(nbo, v[j]));
    if (beta != 0.0) q = __fma_rn(beta, pold[j], q);
    return q;
  }
  __device__ __forceinline__ double operator()(int j) const { return pj(j, rj(j)); }
  __device__ __forceinline__ double own(int row) const {
    if (ux) {
      double u = al * ph[row] + omx * sh[row];
      if (one != 0.0) u += one * x[row];
      x[row] = u;
    }
    double rr = rj(row), q = pj(row, rr);
    r[row] = rr;
    pnew[row] = q;
    return q;
  }
};

/* The row owner's part of a product (pb_spmv_ld): ld.own(row), out[row] = sum and the dots of
 * ND (pb_spmv_ld's comment). */
template <int ND, class LD>
static __device__ __forceinline__ void pb_row_out(const LD &ld, int row, double sum, double *out,
                                                  const double *d, const double *d2, double *acc) {
  double e = ld.own(row);
  out[row] = sum;
  if (ND == 1 || ND == 2) acc[0] = __fma_rn(d[row], sum, acc[0]);
  if (ND == 2) acc[1] = __fma_rn(d2[row], d2[row], acc[1]);
  if (ND == 3 || ND == 5) {
    if (LD::nv == 1) e = d[row];
    acc[0] = __fma_rn(sum, e, acc[0]);
    acc[1] = __fma_rn(sum, sum, acc[1]);
    acc[2] = __fma_rn(e, e, acc[2]);
  }
  if (ND == 5) {
    acc[3] = __fma_rn(d2[row], e, acc[3]);
    acc[4] = __fma_rn(d2[row], sum, acc[4]);
  }
}

/* pb_spmv_ld with R rows of a lane group in flight (k_bcgs_sys.rows): the offsets of rows g + k,
 * g + k + ng, .. g + k + (R - 1) ng loaded together, then U entries of each per lane at once, so
 * that one chain of trips to memory (offsets, entries, loaded vector) serves R grid-stride
 * rounds; every row's sum in pb_spmv_ld's order (the same U), the rows' outputs and dots in
 * its order: the same values bit for bit. */
template <int ND, int U, int FM, int R, class LD>
static __device__ void pb_spmv_rows(int n, const pb_mat &mt, const LD &ld, double *out,
                                    const double *d, const double *d2, double *acc) {
  const int T = 1 << mt.lt;
  int gt = blockIdx.x * blockDim.x + threadIdx.x;
  int ng = (gridDim.x * blockDim.x) >> mt.lt;
  int lane = threadIdx.x & (T - 1);
  int g = gt >> mt.lt, g0 = (gt - (threadIdx.x & 31)) >> mt.lt;
  for (int k = 0; g0 + k < n; k += R * ng) {
    int e0[R], e1[R];
    double sum[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
      int row = g + k + r * ng;
      e0[r] = row < n ? __ldg(mt.rp + row) + lane : 0;
      e1[r] = row < n ? __ldg(mt.rp + row + 1) : 0;
      sum[r] = 0;
    }
    for (int o = 0;; o += U * T) {
      bool any = false;
#pragma unroll
      for (int r = 0; r < R; r++) any = any || e0[r] + o < e1[r];
      if (!any) break;
      int cu[R][U];
      double vu[R][U], qu[R][U];
#pragma unroll
      for (int r = 0; r < R; r++)
#pragma unroll
        for (int u = 0; u < U; u++) {
          int e = e0[r] + o + u * T;
          bool in = e < e1[r];
          cu[r][u] = in ? pb_col<FM>(mt, e, g + k + r * ng) : 0;
          vu[r][u] = in ? pb_val<FM>(mt, e) : 0.0;
        }
#pragma unroll
      for (int r = 0; r < R; r++)
#pragma unroll
        for (int u = 0; u < U; u++) qu[r][u] = e0[r] + o + u * T < e1[r] ? ld(cu[r][u]) : 0.0;
#pragma unroll
      for (int r = 0; r < R; r++)
#pragma unroll
        for (int u = 0; u < U; u++)
          if (e0[r] + o + u * T < e1[r]) sum[r] = __fma_rn(vu[r][u], qu[r][u], sum[r]);
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
      double sm = sum[r];
      for (int q = T >> 1; q > 0; q >>= 1) sm += __shfl_xor_sync(0xffffffffu, sm, q);
      int row = g + k + r * ng;
      if (lane == 0 && row < n) pb_row_out<ND>(ld, row, sm, out, d, d2, acc);
    }
  }
}

/* A matrix value as stored in format FM (FP32 with PB_VF, else FP64), promoted by pb_vd
 * exactly as pb_val promotes it. */
template <int FM> struct pb_vt { typedef double t; };
template <> struct pb_vt<PB_VF> { typedef float t; };
template <> struct pb_vt<PB_VF | PB_I16> { typedef float t; };
template <int FM>
static __device__ __forceinline__ typename pb_vt<FM>::t pb_raw(const pb_mat &m, int e) {
  if (FM & PB_VF) return __ldg(m.vf + e);
  return __ldg(m.va + e);
}

/* The columns of row row's entries e, e + T, .. e + (U - 1) T below e1 into cu (0 past e1). */
template <int U, int FM>
static __device__ __forceinline__ void pb_cols(const pb_mat &mt, int T, int e, int e1, int row,
                                               int *cu) {
#pragma unroll
  for (int u = 0; u < U; u++) cu[u] = e + u * T < e1 ? pb_col<FM>(mt, e + u * T, row) : 0;
}

/* pb_spmv_ld with the next loads in flight (k_bcgs_sys.prefetch): a lane group's rows g, g + ng,
 * .. (its grid-stride rounds) run as chunks of U entries per lane (the row's next U T entries,
 * or the next row's first). The columns run one chunk ahead: while a chunk's values and
 * loaded-vector entries are on their way, so are the next chunk's columns and, when the next
 * chunk starts a row, the offsets of the row after it. That is one trip to memory per chunk
 * (cfd2's size at 4 lanes and U = 8: one chunk per row) instead of pb_spmv_ld's three per round
 * (offsets, then entries, then vector). Every lane's sum in pb_spmv_ld's order (entries e0 +
 * lane, + T, .. by fma; the chunk's size does not change it), then the same shuffles, the rows'
 * outputs and dots in its order: bit for bit. */
template <int ND, int U0, int FM, class LD>
static __device__ void pb_spmv_pf(int n, const pb_mat &mt, const LD &ld, double *out,
                                  const double *d, const double *d2, double *acc) {
  /* (a product whose loaded vector is formed from 2 or 3 vectors takes 4 entries a chunk at
   * unroll 8: 16 or 24 gathers in flight already; the same sums) */
  constexpr int U = U0 > 4 && LD::nv >= 2 ? 4 : U0;
  typedef typename pb_vt<FM>::t vt;
  const int T = 1 << mt.lt;
  int gt = blockIdx.x * blockDim.x + threadIdx.x;
  int ng = (gridDim.x * blockDim.x) >> mt.lt;
  int lane = threadIdx.x & (T - 1);
  int g = gt >> mt.lt, g0 = (gt - (threadIdx.x & 31)) >> mt.lt;
  /* the current chunk (row cr, this lane's entries from ce below ce1, their columns cu) and the
   * next row's offsets (nr: nb0 + lane, nb1) */
  int cr = g, ce = cr < n ? __ldg(mt.rp + cr) + lane : 0, ce1 = cr < n ? __ldg(mt.rp + cr + 1) : 0;
  int nr = g + ng;
  int nb0 = nr < n ? __ldg(mt.rp + nr) + lane : 0, nb1 = nr < n ? __ldg(mt.rp + nr + 1) : 0;
  int cu[U];
  pb_cols<U, FM>(mt, T, ce, ce1, cr, cu);
  for (int k = 0; g0 + k < n; k += ng) {   /* warp-uniform: the shuffles below */
    double sum = 0;
    int row = cr;
    for (;;) {                             /* the chunks of row cr (one where U T covers it) */
      vt vu[U];
      double qu[U];
#pragma unroll
      for (int u = 0; u < U; u++) {
        bool in = ce + u * T < ce1;
        vu[u] = in ? pb_raw<FM>(mt, ce + u * T) : (vt)0;
        qu[u] = in ? ld(cu[u]) : 0.0;
      }
      bool more = ce + U * T < ce1;
      int fe = more ? ce + U * T : nb0, fe1 = more ? ce1 : nb1, fr = more ? cr : nr;
      pb_cols<U, FM>(mt, T, fe, fe1, fr, cu);   /* (cu's old columns are in flight in qu) */
      if (!more) {                         /* the offsets of the row after the next */
        nr += ng;
        nb0 = nr < n ? __ldg(mt.rp + nr) + lane : 0;
        nb1 = nr < n ? __ldg(mt.rp + nr + 1) : 0;
      }
#pragma unroll
      for (int u = 0; u < U; u++)
        if (ce + u * T < ce1) sum = __fma_rn((double)vu[u], qu[u], sum);
      ce = fe;
      ce1 = fe1;
      cr = fr;
      if (!more) break;
    }
    for (int q = T >> 1; q > 0; q >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, q);
    if (lane == 0 && row < n) pb_row_out<ND>(ld, row, sum, out, d, d2, acc);
  }
}

/* pb_spmv_ld at one thread a row over the slices of 32 rows (k_csr_view.sell): thread gt takes
 * rows gt, gt + G, .. (G the grid's threads, a multiple of 32, so a warp's rows are one slice),
 * entry j of all 32 rows of a warp at consecutive addresses (one or two lines a load instead of
 * eight or more for CSR's 8 rows x 4 lanes), their columns' vector entries mostly consecutive too;
 * U entries of the row loaded at once.  The row's sum in CSR order by fma, as pb_spmv_ld with 1
 * thread per row sums it, and the rows' outputs and dots in its order: bit for bit
 * solver.persistent_tpr = 1 at the same grid. */
template <int ND, int U, int FM, class LD>
static __device__ void pb_spmv_sell(int n, const pb_mat &mt, const LD &ld, double *out,
                                    const double *d, const double *d2, double *acc) {
  typedef typename pb_vt<FM>::t vt;
  int ng = gridDim.x * blockDim.x;
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n; row += ng) {
    int len = __ldg(mt.rp + row + 1) - __ldg(mt.rp + row);
    int base = __ldg(mt.sp + (row >> 5)) + (row & 31);
    double sum = 0;
    for (int j = 0; j < len; j += U) {
      int cu[U];
      vt vu[U];
      double qu[U];
#pragma unroll
      for (int u = 0; u < U; u++) {
        bool in = j + u < len;
        int e = base + 32 * (j + u);
        cu[u] = in ? pb_col<FM>(mt, e, row) : 0;
        vu[u] = in ? pb_raw<FM>(mt, e) : (vt)0;
      }
#pragma unroll
      for (int u = 0; u < U; u++) qu[u] = j + u < len ? ld(cu[u]) : 0.0;
#pragma unroll
      for (int u = 0; u < U; u++)
        if (j + u < len) sum = __fma_rn((double)vu[u], qu[u], sum);
    }
    pb_row_out<ND>(ld, row, sum, out, d, d2, acc);
  }
}

/* pb_spmv_ld at one thread a row over the matrix by diagonals (k_csr_view.dia_off): thread gt
 * takes rows gt, gt + G, .. (G the grid's threads); C diagonals at once: their values (val[d dl +
 * row], dl = n rounded up to 32: a warp's 32 rows side by side, 256 aligned bytes) and the loaded vector's entries at row + offset
 * (consecutive too) together, so that a chunk is one trip to memory with no column to wait for
 * (the offsets in shared memory, loaded once a block at the product's start: read from global
 * memory a chunk, they cost ~1 us a product on the H200); a column outside [0, n) is skipped.
 * The row's sum by fma over its diagonals in ascending order, the padded zeros adding 0 (for
 * finite entries of the loaded vector), so the CSR order of 1 thread a row for rows with
 * ascending columns, and the rows' outputs and dots in its order: bit for bit
 * solver.persistent_tpr = 1 at the same grid.  C (the kernel's unroll argument): pb_kernel_dia's
 * PB_DIA_C2 at 2 blocks per SM (64 registers), PB_DIA_C3 at 3 (40). */
template <int ND, int C, int FM, class LD>
static __device__ void pb_spmv_dia(int n, const pb_mat &mt, const LD &ld, double *out,
                                   const double *d, const double *d2, double *acc) {
  typedef typename pb_vt<FM>::t vt;
  /* a loaded vector formed from NV > 1 vectors: fewer diagonals a chunk, so that all of their
   * raw entries are in flight before any is formed (registers: C values + NV C entries) */
  constexpr int CC = LD::nv == 1 ? C : C >= 9 ? 4 : 2;
  __shared__ int so[K_DIA_MAX];            /* the offsets, loaded once a block */
  __syncthreads();                         /* (the previous product's readers are done) */
  if ((int)threadIdx.x < mt.nd) so[threadIdx.x] = __ldg(mt.doff + threadIdx.x);
  __syncthreads();
  int ng = gridDim.x * blockDim.x, nd = mt.nd;
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n; row += ng) {
    double sum = 0;
    for (int d0 = 0; d0 < nd; d0 += CC) {
      vt vu[CC];
      double qu[CC];
      if constexpr (LD::nv == 1) {
#pragma unroll
        for (int u = 0; u < CC; u++) {
          int c = d0 + u < nd ? row + so[d0 + u] : -1;
          bool in = (unsigned)c < (unsigned)n;
          vu[u] = in ? pb_raw<FM>(mt, (d0 + u) * mt.dl + row) : (vt)0;
          qu[u] = in ? ld(c) : 0.0;
        }
      } else {                             /* pb_ld<2 or 3>: raw entries first, then pb_in */
        double xu[CC], yu[CC], zu[CC];
        bool zc = LD::nv == 3 && ld.c != 0.0;
#pragma unroll
        for (int u = 0; u < CC; u++) {
          int c = d0 + u < nd ? row + so[d0 + u] : -1;
          bool in = (unsigned)c < (unsigned)n;
          vu[u] = in ? pb_raw<FM>(mt, (d0 + u) * mt.dl + row) : (vt)0;
          xu[u] = in ? ld.x[c] : 0.0;
          yu[u] = in ? ld.y[c] : 0.0;
          zu[u] = in && zc ? ld.z[c] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < CC; u++) {
          double q = __fma_rn(ld.a, xu[u], __dmul_rn(ld.b, yu[u]));   /* pb_in's expression */
          if (zc) q = __fma_rn(ld.c, zu[u], q);
          qu[u] = q;
        }
      }
      /* (every lane adds: the skipped columns' zeros add 0, so no per-entry branch keeps the
       * loads behind each product) */
#pragma unroll
      for (int u = 0; u < CC; u++) sum = __fma_rn((double)vu[u], qu[u], sum);
    }
    pb_row_out<ND>(ld, row, sum, out, d, d2, acc);
  }
}

/* out = mat q, q = ld(j) formed in the load (pb_ld / pb_ld_rp), the row's owner calling ld.own
 * first.  ND 1: acc[0] += d[row] out[row]; ND 2: and acc[1] += d2[row]^2; ND 3: with e = q[row]
 * (nv > 1) or d[row], acc += (out e, out out, e e); ND 5: and acc[3..4] += (d2[row] e, d2[row]
 * out).  U entries of a lane loaded at once (1, 4, 8).  Rows go to groups of T = 2^lt lanes,
 * grid-stride; the loop is warp-uniform so that every lane takes part in the shuffles. */
template <int ND, int U, int FM = 0, int R = 1, class LD>
static __device__ void pb_spmv_ld(int n, const pb_mat &mt, const LD &ld, double *out,
                                  const double *d, const double *d2, double *acc) {
  if constexpr (R > 1) {
    pb_spmv_rows<ND, U, FM, R>(n, mt, ld, out, d, d2, acc);
    return;
  } else if constexpr (R == PB_PF) {
    pb_spmv_pf<ND, U, FM>(n, mt, ld, out, d, d2, acc);
    return;
  } else if constexpr (R == PB_SELL) {
    pb_spmv_sell<ND, U, FM>(n, mt, ld, out, d, d2, acc);
    return;
  } else if constexpr (R == PB_DIA) {
    pb_spmv_dia<ND, U, FM>(n, mt, ld, out, d, d2, acc);
    return;
  }
  const int T = 1 << mt.lt;
  int gt = blockIdx.x * blockDim.x + threadIdx.x;
  int ng = (gridDim.x * blockDim.x) >> mt.lt;
  int lane = threadIdx.x & (T - 1);
  int g = gt >> mt.lt, g0 = (gt - (threadIdx.x & 31)) >> mt.lt;
  for (int k = 0; g0 + k < n; k += ng) {
    int row = g + k;
    double sum = 0;
    if (row < n) {
      int e1 = __ldg(mt.rp + row + 1);
      if (U == 1) {
        for (int e = __ldg(mt.rp + row) + lane; e < e1; e += T)
          sum = __fma_rn(pb_val<FM>(mt, e), ld(pb_col<FM>(mt, e, row)), sum);
      } else {
        /* U entries of the lane loaded at once, then their products added in the order of the
         * loop above (the same sum, fewer dependent round trips to memory) */
        for (int e = __ldg(mt.rp + row) + lane; e < e1; e += U * T) {
          int cu[U];
          double vu[U], qu[U];
#pragma unroll
          for (int u = 0; u < U; u++) {
            bool in = e + u * T < e1;
            cu[u] = in ? pb_col<FM>(mt, e + u * T, row) : 0;
            vu[u] = in ? pb_val<FM>(mt, e + u * T) : 0.0;
          }
#pragma unroll
          for (int u = 0; u < U; u++)
            qu[u] = e + u * T < e1 ? ld(cu[u]) : 0.0;
#pragma unroll
          for (int u = 0; u < U; u++)
            if (e + u * T < e1) sum = __fma_rn(vu[u], qu[u], sum);
        }
      }
    }
    for (int o = T >> 1; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0 && row < n) pb_row_out<ND>(ld, row, sum, out, d, d2, acc);
  }
}

/* pb_spmv_ld with q = pb_in<NV>(j, a, x, b, y, c, z) (w: pb_ld's); FM: the matrix's format. */
template <int NV, int ND, int U, int FM = 0, int R = 1>
static __device__ __forceinline__ void pb_spmv(int n, const pb_mat &mt, double a, const double *x,
                                               double b, const double *y, double c,
                                               const double *z, double *w, double *out,
                                               const double *d, double *acc) {
  pb_ld<NV> ld = { a, b, c, x, y, z, w };
  pb_spmv_ld<ND, U, FM, R>(n, mt, ld, out, d, NULL, acc);
}

/* w = pb_in<NV>(...) elementwise, grid-stride (w may be the vector z: each entry read before it
 * is written). */
template <int NV>
static __device__ void pb_upd(int n, double a, const double *x, double b, const double *y,
                              double c, const double *z, double *w) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    w[i] = pb_in<NV>(i, a, x, b, y, c, z);
}

/* The block's sums of acc[0..np) (warp sums, warps in order) into part[(slot + q) G + block].
 * The caller's grid sync follows. */
template <int LD>
static __device__ void pb_partial(double *part, int slot, int np, const double *acc,
                                  double (*red)[LD]) {
  vec_block_sums<PB_THREADS / 32, LD>(acc, np, red, part + slot * gridDim.x + blockIdx.x,
                                      gridDim.x);
}

/* After the grid sync: dst[q] = the sum of slot + q's block partials for q < np in a fixed order
 * (warp q, lane l adding blocks l, l + 32, .. in turn, then the warp's sum), the same in every
 * block (a block sync follows).  A lane's partials (at most PB_MAXBLOCKS / 32) are all loaded
 * before they are added, so that the reduction is one trip to L2, not one per few blocks. */
static __device__ void pb_sum_slots(const double *part, int slot, int np, double *dst) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (w < np) {
    const double *pp = part + (slot + w) * gridDim.x;
    double q[PB_MAXBLOCKS / 32];
#pragma unroll
    for (int i = 0; i < PB_MAXBLOCKS / 32; i++)
      q[i] = lane + 32u * i < gridDim.x ? __ldcg(pp + lane + 32 * i) : 0.0;
    double v = 0;
#pragma unroll
    for (int i = 0; i < PB_MAXBLOCKS / 32; i++)
      if (lane + 32u * i < gridDim.x) v += q[i];
    v = vec_warp_sum(v);
    if (lane == 0) dst[w] = v;
  }
  __syncthreads();
}

/* After the grid sync: dst[q] = the sum of the np partials' slots in a fixed order (warp q,
 * lanes strided over the blocks), the same in every block; then thread 0 runs the scalar step
 * on the block's copy ssc.  Returns whether the iteration still runs (ssc[K_BS_RUN]). */
static __device__ bool pb_reduce_step(const double *part, int slot, int np, double *dst,
                                      double *ssc, int step, double tol) {
  pb_sum_slots(part, slot, np, dst);
  if (threadIdx.x == 0) k_bcgs_step(ssc, step, tol);
  __syncthreads();
  return ssc[K_BS_RUN] != 0;
}

/* x = alpha ph + omega_x sh + x (when ssc[K_BS_RUNX]) and (when ssc[K_BS_RUN]) r = s - omega t
 * with acc += ((rhat, r), (r, r)): elementwise, grid-stride, kv_dots<true>'s expressions. */
static __device__ void pb_xr(const pb_args &g, const double *ssc, double *acc) {
  double al = ssc[K_BS_ALPHA], om = ssc[K_BS_OMEGA_X], one = ssc[K_BS_ONE];
  double a = ssc[K_BS_ONE], b = ssc[K_BS_NEG_OMEGA], c = ssc[K_BS_ZERO];
  bool ux = ssc[K_BS_RUNX] != 0, ur = ssc[K_BS_RUN] != 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < g.n; i += gridDim.x * blockDim.x) {
    if (ux) {
      double v = al * g.ph[i] + om * g.sh[i];
      if (one != 0.0) v += one * g.x[i];
      g.x[i] = v;
    }
    if (ur) {
      double zi = a * g.s[i] + b * g.t[i];
      if (c != 0.0) zi += c * g.r[i];
      g.r[i] = zi;
      acc[0] += g.rh[i] * zi;
      acc[1] += zi * zi;
    }
  }
}

/* Phase timing (g.times): block 0's thread 0 adds the clock ticks and the global-timer ns since
 * its last mark to phase ph's accumulators in pt (shared; pt[2 K_PH_N], pt[2 K_PH_N + 1]: the
 * last mark's clock and time); a mark follows a grid sync (or a reduction), so a phase's time
 * is the slowest block's with the sync.  Nothing without g.times. */
static __device__ __forceinline__ long long pb_gtime() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
static __device__ __forceinline__ void pb_mark(const long long *times, long long *pt, int ph) {
  if (times && blockIdx.x == 0 && threadIdx.x == 0) {
    long long c = clock64(), t = pb_gtime();
    if (ph >= 0) {
      pt[ph] += c - pt[2 * K_PH_N];
      pt[K_PH_N + ph] += t - pt[2 * K_PH_N + 1];
    }
    pt[2 * K_PH_N] = c;
    pt[2 * K_PH_N + 1] = t;
  }
}

/* A persistent kernel's start: the scalar block into the block's copy ssc, the phase timing
 * zeroed (g.times), its first mark. */
static __device__ void pb_begin(const pb_args &g, double *ssc, long long *pt) {
  if (threadIdx.x < K_BS_NSLOT) ssc[threadIdx.x] = __ldcg(g.sc + threadIdx.x);
  if (g.times && threadIdx.x < 2 * K_PH_N + 3) pt[threadIdx.x] = 0;
  __syncthreads();
  pb_mark((const long long *)g.times, pt, -1);
}

/* A persistent kernel block's shared memory: its copy of the scalar block, the warp sums of up
 * to LD partials, the phase timing (ticks, ns, last mark, iterations). */
template <int LD>
struct pb_smem {
  double ssc[K_BS_NSLOT];
  double red[PB_THREADS / 32][LD];
  long long pt[2 * K_PH_N + 3];
};

/* The prologue of both persistent kernels: the block's shared memory (one per kernel that calls
 * it), then pb_begin on it. */
template <int LD>
static __device__ __forceinline__ pb_smem<LD> &pb_prologue(const pb_args &g) {
  __shared__ pb_smem<LD> sm;
  pb_begin(g, sm.ssc, sm.pt);
  return sm;
}

/* An iteration's first scalar step (thread 0, on ssc); whether the iteration runs (counted for
 * the phase timing). */
static __device__ bool pb_iteration(const pb_args &g, double *ssc, long long *pt, int step) {
  if (threadIdx.x == 0) k_bcgs_step(ssc, step, g.tol);
  __syncthreads();
  if (ssc[K_BS_RUN] == 0) return false;
  if (g.times && blockIdx.x == 0 && threadIdx.x == 0) pt[2 * K_PH_N + 2] += 1;
  return true;
}

/* A persistent kernel's end: block 0 writes its scalars back and adds its phase timing. */
static __device__ void pb_end(const pb_args &g, const double *ssc, const long long *pt) {
  long long *tm = (long long *)g.times;
  if (blockIdx.x == 0 && threadIdx.x < K_BS_NSLOT) g.sc[threadIdx.x] = ssc[threadIdx.x];
  if (tm && blockIdx.x == 0 && threadIdx.x < 2 * K_PH_N + 1)
    tm[threadIdx.x] += pt[threadIdx.x < 2 * K_PH_N ? threadIdx.x : 2 * K_PH_N + 2];
}

/* The persistent kernel: up to g.niter iterations (PC: with the matrix M), stopping after the
 * one that stops; every block takes the same branches (its scalars are the same).  U: the
 * products' entries loaded per lane at once (pb_spmv); MB: the blocks of PB_THREADS per SM its
 * registers must allow (3: 40 registers, 2: 64). */
template <bool PC, int U, int MB, int F, int R = 1>
static __global__ void __launch_bounds__(PB_THREADS, MB) kv_bcgs_persist(pb_args g) {
  const int FA = F & PB_I16;               /* A's format: the offsets only */
  pb_smem<3> &sm = pb_prologue<3>(g);
  double *ssc = sm.ssc, (*red)[3] = sm.red;
  long long *pt = sm.pt, *tm = (long long *)g.times;
  cg::grid_group grid = cg::this_grid();
  for (int k = 0; k < g.niter; k++) {
    if (!pb_iteration(g, ssc, pt, K_BSTEP_BETA)) break;
    double acc[3] = { 0, 0, 0 };
    double *ph = g.p;
    if (PC) {                              /* ph = M p, p formed in the load (two buffers) */
      int it = (int)ssc[K_BS_IT];
      double *pold = it & 1 ? g.p : g.p2, *pnew = it & 1 ? g.p2 : g.p;
      ph = g.ph;
      if (g.split) {                       /* p first, then the plain product: same values */
        pb_upd<3>(g.n, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_BETA_OMEGA], g.v, ssc[K_BS_BETA], pold,
                  pnew);
        grid.sync();
        pb_mark(tm, pt, K_PH_P);
        pb_spmv<1, 0, U, F, R>(g.n, g.m, 0, pnew, 0, NULL, 0, NULL, NULL, ph, NULL, acc);
      } else {
        pb_spmv<3, 0, U, F, R>(g.n, g.m, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_BETA_OMEGA], g.v,
                         ssc[K_BS_BETA], pold, pnew, ph, NULL, acc);
      }
    } else {                               /* p = r + beta (p - omega v) */
      pb_upd<3>(g.n, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_BETA_OMEGA], g.v, ssc[K_BS_BETA], g.p, g.p);
    }
    grid.sync();
    pb_mark(tm, pt, PC ? K_PH_MP : K_PH_P);
    pb_spmv<1, 1, U, FA, R>(g.n, g.a, 0, ph, 0, NULL, 0, NULL, NULL, g.v, g.rh, acc);
    pb_partial(g.part, 0, 1, acc, red);
    grid.sync();
    pb_mark(tm, pt, K_PH_AP);
    bool run = pb_reduce_step(g.part, 0, 1, ssc + K_BS_RV, ssc, K_BSTEP_ALPHA, g.tol);
    pb_mark(tm, pt, K_PH_ALPHA);
    if (!run) break;
    acc[0] = 0;
    if (g.split) {                         /* s = r - alpha v first */
      pb_upd<2>(g.n, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_ALPHA], g.v, 0, NULL, g.s);
      grid.sync();
      pb_mark(tm, pt, K_PH_S);
    }
    if (PC) {                              /* sh = M s, s = r - alpha v formed in the load */
      if (g.split)
        pb_spmv<1, 0, U, F, R>(g.n, g.m, 0, g.s, 0, NULL, 0, NULL, NULL, g.sh, NULL, acc);
      else
        pb_spmv<2, 0, U, F, R>(g.n, g.m, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_ALPHA], g.v, 0, NULL, g.s,
                         g.sh, NULL, acc);
      grid.sync();
      pb_mark(tm, pt, K_PH_MS);
      pb_spmv<1, 3, U, FA, R>(g.n, g.a, 0, g.sh, 0, NULL, 0, NULL, NULL, g.t, g.s, acc);
    } else if (g.split) {                  /* t = A s */
      pb_spmv<1, 3, U, FA, R>(g.n, g.a, 0, g.s, 0, NULL, 0, NULL, NULL, g.t, g.s, acc);
    } else {                               /* t = A s, s formed in the load */
      pb_spmv<2, 3, U, FA, R>(g.n, g.a, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_ALPHA], g.v, 0, NULL, g.s, g.t,
                       NULL, acc);
    }
    pb_partial(g.part, 1, 3, acc, red);
    grid.sync();
    pb_mark(tm, pt, K_PH_AS);
    pb_reduce_step(g.part, 1, 3, ssc + K_BS_TS, ssc, K_BSTEP_OMEGA, g.tol);
    pb_mark(tm, pt, K_PH_OMEGA);
    if (ssc[K_BS_RUN] == 0 && ssc[K_BS_RUNX] == 0) break;
    acc[0] = acc[1] = 0;
    pb_xr(g, ssc, acc);
    if (ssc[K_BS_RUN] == 0) break;         /* converged on ||s||: x updated, done */
    pb_partial(g.part, 4, 2, acc, red);
    grid.sync();
    pb_mark(tm, pt, K_PH_XR);
    pb_reduce_step(g.part, 4, 2, ssc + K_BS_RHO_NEW, ssc, K_BSTEP_RHO, g.tol);
    pb_mark(tm, pt, K_PH_RHO);
  }
  pb_end(g, ssc, pt);
}

/* The merged iteration's first phase without M (kv_bcgs_persist_m): the previous iteration's x
 * and r, then p = r + beta (p - omega v) in place, elementwise (pb_ld_rp's expressions). */
static __device__ void pb_xrp(int n, const pb_ld_rp &ld) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    ld.own(i);
}

/* The batch end of the merged kernel: x = alpha ph + omega_x sh + x (when RUNX) and r = s -
 * omega t with acc[0] += (r, r) (when RUN), elementwise. */
static __device__ void pb_xr_m(const pb_args &g, const double *ssc, double *acc) {
  double al = ssc[K_BS_ALPHA], om = ssc[K_BS_OMEGA_X], one = ssc[K_BS_ONE];
  double nom = ssc[K_BS_NEG_OMEGA];
  bool ux = ssc[K_BS_RUNX] != 0, ur = ssc[K_BS_RUN] != 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < g.n; i += gridDim.x * blockDim.x) {
    if (ux) {
      double v = al * g.ph[i] + om * g.sh[i];
      if (one != 0.0) v += one * g.x[i];
      g.x[i] = v;
    }
    if (ur) {
      double zi = one * g.s[i] + nom * g.t[i];
      g.r[i] = zi;
      acc[0] += zi * zi;
    }
  }
}

/* The merged iteration's pending-update loader (ssc: the block's scalars; it: the iteration). */
static __device__ pb_ld_rp pb_rp(const pb_args &g, const double *ssc, const double *pold,
                                 double *pnew) {
  pb_ld_rp ld = { ssc[K_BS_ONE], ssc[K_BS_NEG_OMEGA], ssc[K_BS_NEG_BETA_OMEGA], ssc[K_BS_BETA],
                  ssc[K_BS_ALPHA], ssc[K_BS_OMEGA_X], g.s, g.t, g.v, pold, g.ph, g.sh, g.x,
                  g.r, pnew, ssc[K_BS_RUNX] != 0 };
  return ld;
}

/* The persistent kernel of the merged iteration (krylov_params.merged; k_vec_bcgs.h's *_M
 * steps): per iteration (PC) ph = M p with p formed in the load from the previous iteration's
 * s, t (r = s - omega t) and v, that iteration's x, r and p written by the rows' owners; v = A
 * ph with (rhat, v) and (r, r); alpha with the previous residual's test; sh = M s (s formed);
 * t = A sh with (t, s), (t, t), (s, s), (rhat, s), (rhat, t); omega, rho and beta: 4 grid syncs
 * (without M: x, r and p elementwise, t = A s with s formed: 3).  At the batch's end the pending
 * x and r with (r, r) and its test (one sync), so that a read sees the classic state. */
template <bool PC, int U, int MB>
static __global__ void __launch_bounds__(PB_THREADS, MB) kv_bcgs_persist_m(pb_args g) {
  pb_smem<5> &sm = pb_prologue<5>(g);
  double *ssc = sm.ssc, (*red)[5] = sm.red;
  long long *pt = sm.pt, *tm = (long long *)g.times;
  cg::grid_group grid = cg::this_grid();
  for (int k = 0; k < g.niter; k++) {
    if (!pb_iteration(g, ssc, pt, K_BSTEP_BETA_M)) break;
    bool pend = ssc[K_BS_PEND] != 0;
    double acc[5] = { 0, 0, 0, 0, 0 };
    double *ph = g.p;
    if (PC) {
      int it = (int)ssc[K_BS_IT];
      double *pold = it & 1 ? g.p : g.p2, *pnew = it & 1 ? g.p2 : g.p;
      ph = g.ph;
      if (pend)
        pb_spmv_ld<0, U>(g.n, g.m, pb_rp(g, ssc, pold, pnew), ph, NULL, NULL, acc);
      else
        pb_spmv<3, 0, U>(g.n, g.m, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_BETA_OMEGA], g.v,
                         ssc[K_BS_BETA], pold, pnew, ph, NULL, acc);
    } else if (pend) {
      pb_xrp(g.n, pb_rp(g, ssc, g.p, g.p));
    } else {
      pb_upd<3>(g.n, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_BETA_OMEGA], g.v, ssc[K_BS_BETA], g.p, g.p);
    }
    grid.sync();
    pb_mark(tm, pt, PC ? K_PH_MP : K_PH_P);
    pb_ld<1> lph = { 0, 0, 0, ph, NULL, NULL, NULL };
    if (pend) pb_spmv_ld<2, U>(g.n, g.a, lph, g.v, g.rh, g.r, acc);
    else pb_spmv_ld<1, U>(g.n, g.a, lph, g.v, g.rh, NULL, acc);
    pb_partial(g.part, 0, pend ? 2 : 1, acc, red);
    grid.sync();
    pb_mark(tm, pt, K_PH_AP);
    if (pend) pb_sum_slots(g.part, 1, 1, ssc + K_BS_RR);
    bool run = pb_reduce_step(g.part, 0, 1, ssc + K_BS_RV, ssc, K_BSTEP_ALPHA_M, g.tol);
    pb_mark(tm, pt, K_PH_ALPHA);
    if (!run) break;
    acc[0] = acc[1] = 0;
    pb_ld<2> ls = { ssc[K_BS_ONE], ssc[K_BS_NEG_ALPHA], 0, g.r, g.v, NULL, g.s };
    if (PC) {                              /* sh = M s, s = r - alpha v formed in the load */
      pb_spmv_ld<0, U>(g.n, g.m, ls, g.sh, NULL, NULL, acc);
      grid.sync();
      pb_mark(tm, pt, K_PH_MS);
      pb_ld<1> lsh = { 0, 0, 0, g.sh, NULL, NULL, NULL };
      pb_spmv_ld<5, U>(g.n, g.a, lsh, g.t, g.s, g.rh, acc);
    } else {                               /* t = A s, s formed in the load */
      pb_spmv_ld<5, U>(g.n, g.a, ls, g.t, NULL, g.rh, acc);
    }
    pb_partial(g.part, 2, 5, acc, red);
    grid.sync();
    pb_mark(tm, pt, K_PH_AS);
    pb_reduce_step(g.part, 2, 5, ssc + K_BS_TS, ssc, K_BSTEP_OMEGA_M, g.tol);
    pb_mark(tm, pt, K_PH_OMEGA);
    if (ssc[K_BS_RUN] == 0) break;         /* broke down, or converged halfway (x to come) */
  }
  if (ssc[K_BS_PEND] != 0) {               /* the last iteration's x and r, (r, r)'s test */
    double acc[5] = { 0, 0, 0, 0, 0 };
    bool ur = ssc[K_BS_RUN] != 0;
    pb_xr_m(g, ssc, acc);
    if (ur) {
      pb_partial(g.part, 7, 1, acc, red);
      grid.sync();
      pb_sum_slots(g.part, 7, 1, ssc + K_BS_RR);
    }
    if (threadIdx.x == 0) {
      k_bcgs_step(ssc, K_BSTEP_RCHECK, g.tol);
      ssc[K_BS_PEND] = 0;
    }
    __syncthreads();
    pb_mark(tm, pt, K_PH_XR);
  }
  pb_end(g, ssc, pt);
}

/* log2 of a power of 2 up to 32 (threads per row), -1 otherwise.  Local. */
static int pb_log2(int t) {
  for (int l = 0; l <= 5; l++)
    if (t == 1 << l) return l;
  return -1;
}

/* The fused kernels of bcgs_fused: phase PH (1..5) of the persistent kernel's iteration as a
 * kernel of its own, launched on the same grid, so that the block partials and their sums are
 * the persistent kernel's bit for bit.  Each block copies the scalar block to shared memory;
 * the last block to finish (device counter) sums the partials, runs the scalar step on its
 * copy and writes the copy back.  1: K_BSTEP_BETA (every block on its copy, the last block's
 * written back), then ph = M p with p formed in the load (PC), or p's update; 2: v = A ph,
 * (rhat, v), K_BSTEP_ALPHA; 3: sh = M s with s formed in the load (PC), or t = A s with s formed
 * in the load, (t, s), (t, t), (s, s), K_BSTEP_OMEGA; 4 (PC): t = A sh and those dots,
 * K_BSTEP_OMEGA; 5: x and r with (rhat, r), (r, r), K_BSTEP_RHO, then RUNX cleared (a later
 * iteration's phase 5, gated off, must not update x again).  A gate off (RUN, or RUN and RUNX
 * for 5) makes every block return at once. */
template <int PH, bool PC>
static __global__ void __launch_bounds__(PB_THREADS, PB_MINBLOCKS) kv_bcgs_phase(pb_args g,
                                                                                 unsigned *count) {
  __shared__ double ssc[K_BS_NSLOT];
  __shared__ double red[PB_THREADS / 32][3];
  __shared__ bool last;
  if (threadIdx.x < K_BS_NSLOT) ssc[threadIdx.x] = __ldcg(g.sc + threadIdx.x);
  __syncthreads();
  if (PH == 5 ? ssc[K_BS_RUN] == 0 && ssc[K_BS_RUNX] == 0 : ssc[K_BS_RUN] == 0) return;
  double acc[3] = { 0, 0, 0 };
  int np = 0, slot = 0, step = -1, dst = 0;
  if (PH == 1) {
    if (threadIdx.x == 0) k_bcgs_step(ssc, K_BSTEP_BETA, g.tol);
    __syncthreads();
    if (ssc[K_BS_RUN] != 0 && PC) {
      int it = (int)ssc[K_BS_IT];
      double *pold = it & 1 ? g.p : g.p2, *pnew = it & 1 ? g.p2 : g.p;
      pb_spmv<3, 0, 1>(g.n, g.m, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_BETA_OMEGA], g.v, ssc[K_BS_BETA],
                    pold, pnew, g.ph, NULL, acc);
    } else if (ssc[K_BS_RUN] != 0) {
      double a = ssc[K_BS_ONE], b = ssc[K_BS_NEG_BETA_OMEGA], c = ssc[K_BS_BETA];
      for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < g.n;
           i += (int64_t)gridDim.x * blockDim.x)
        g.p[i] = pb_in<3>(i, a, g.r, b, g.v, c, g.p);
    }
  } else if (PH == 2) {
    pb_spmv<1, 1, 1>(g.n, g.a, 0, PC ? g.ph : g.p, 0, NULL, 0, NULL, NULL, g.v, g.rh, acc);
    np = 1, slot = 0, step = K_BSTEP_ALPHA, dst = K_BS_RV;
  } else if (PH == 3 && PC) {
    pb_spmv<2, 0, 1>(g.n, g.m, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_ALPHA], g.v, 0, NULL, g.s, g.sh,
                  NULL, acc);
    return;                                /* no dots, no step */
  } else if (PH == 3 || PH == 4) {
    if (PH == 3)
      pb_spmv<2, 3, 1>(g.n, g.a, ssc[K_BS_ONE], g.r, ssc[K_BS_NEG_ALPHA], g.v, 0, NULL, g.s, g.t,
                    NULL, acc);
    else
      pb_spmv<1, 3, 1>(g.n, g.a, 0, g.sh, 0, NULL, 0, NULL, NULL, g.t, g.s, acc);
    np = 3, slot = 1, step = K_BSTEP_OMEGA, dst = K_BS_TS;
  } else {
    pb_xr(g, ssc, acc);
    np = ssc[K_BS_RUN] != 0 ? 2 : 0, slot = 4, step = K_BSTEP_RHO, dst = K_BS_RHO_NEW;
  }
  if (np) pb_partial(g.part, slot, np, acc, red);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (np) pb_reduce_step(g.part, slot, np, ssc + dst, ssc, step, g.tol);
  else if (step >= 0 && threadIdx.x == 0) k_bcgs_step(ssc, step, g.tol);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (PH == 5) ssc[K_BS_RUNX] = 0;
    *count = 0;
  }
  __syncthreads();
  if (threadIdx.x < K_BS_NSLOT) g.sc[threadIdx.x] = ssc[threadIdx.x];
}

/* The persistent kernel of a variant: unroll 1 / 4 / 8 (k_bcgs_sys.unroll) x blocks per SM
 * 3 / 2 (k_bcgs_sys.blocks), with M (pc) or without, classic or merged, in solve format fmt
 * (PB_VF: M's values in FP32, PB_I16: 16-bit column offsets; classic only, with M at 3 blocks
 * per SM); *var its index (PB_NGRID of them); NULL for values it does not have.  Local. */
typedef void (*pb_kern)(pb_args);
/* The prefetching products' kernels (pb_spmv_pf): with M unroll 4 / 8 x blocks 3 / 2 x the 4
 * formats, without M x 2 (32-bit, 16-bit offsets).  Local. */
#define PB_PF_M(U, B) { kv_bcgs_persist<true, U, B, 0, PB_PF>, kv_bcgs_persist<true, U, B, 1, PB_PF>, \
                        kv_bcgs_persist<true, U, B, 2, PB_PF>, kv_bcgs_persist<true, U, B, 3, PB_PF> }
#define PB_PF_N(U, B) { kv_bcgs_persist<false, U, B, 0, PB_PF>, kv_bcgs_persist<false, U, B, 2, PB_PF> }
static pb_kern pb_kernel_pf(bool pc, bool merged, int fmt, int unroll, int blocks, int *var) {
  static const pb_kern with_m[2][2][4] = { { PB_PF_M(4, 3), PB_PF_M(4, 2) },
                                           { PB_PF_M(8, 3), PB_PF_M(8, 2) } };
  static const pb_kern no_m[2][2][2] = { { PB_PF_N(4, 3), PB_PF_N(4, 2) },
                                         { PB_PF_N(8, 3), PB_PF_N(8, 2) } };
  int u = unroll == 4 ? 0 : unroll == 8 ? 1 : -1;
  int b = blocks == 0 || blocks == 3 ? 0 : blocks == 2 ? 1 : -1;
  if (!pc) fmt &= PB_I16;
  if (merged || u < 0 || b < 0 || fmt < 0 || fmt > 3) return NULL;
  *var = PB_VAR_PF + (pc ? 8 * u + 4 * b + fmt : 4 * u + 2 * b + (fmt >> 1));
  return pc ? with_m[u][b][fmt] : no_m[u][b][fmt >> 1];
}
#undef PB_PF_M
#undef PB_PF_N

/* The slice products' kernels (pb_spmv_sell, 4 entries of a row at once whatever the unroll):
 * with M blocks 3 / 2 x the 4 formats, without M x 2.  Local. */
static pb_kern pb_kernel_sell(bool pc, bool merged, int fmt, int unroll, int blocks, int *var) {
  static const pb_kern with_m[2][4] = {
    { kv_bcgs_persist<true, 4, 3, 0, PB_SELL>, kv_bcgs_persist<true, 4, 3, 1, PB_SELL>,
      kv_bcgs_persist<true, 4, 3, 2, PB_SELL>, kv_bcgs_persist<true, 4, 3, 3, PB_SELL> },
    { kv_bcgs_persist<true, 4, 2, 0, PB_SELL>, kv_bcgs_persist<true, 4, 2, 1, PB_SELL>,
      kv_bcgs_persist<true, 4, 2, 2, PB_SELL>, kv_bcgs_persist<true, 4, 2, 3, PB_SELL> } };
  static const pb_kern no_m[2][2] = {
    { kv_bcgs_persist<false, 4, 3, 0, PB_SELL>, kv_bcgs_persist<false, 4, 3, 2, PB_SELL> },
    { kv_bcgs_persist<false, 4, 2, 0, PB_SELL>, kv_bcgs_persist<false, 4, 2, 2, PB_SELL> } };
  int b = blocks == 0 || blocks == 3 ? 0 : blocks == 2 ? 1 : -1;
  if (!pc) fmt &= PB_I16;
  (void)unroll;                            /* (always 4 entries of a row at once) */
  if (merged || b < 0 || fmt < 0 || fmt > 3) return NULL;
  *var = PB_VAR_SELL + (pc ? 4 * b + fmt : 2 * b + (fmt >> 1));
  return pc ? with_m[b][fmt] : no_m[b][fmt >> 1];
}

/* The products by diagonals' kernels (pb_spmv_dia, PB_DIA_C2 / PB_DIA_C3 diagonals at once at 2 /
 * 3 blocks per SM): with M blocks 3 / 2 x M's values FP64 / FP32, without M x 2.  Local. */
#define PB_DIA_C2 9
#define PB_DIA_C3 4
static pb_kern pb_kernel_dia(bool pc, bool merged, int fmt, int blocks, int *var) {
  static const pb_kern with_m[2][2] = {
    { kv_bcgs_persist<true, PB_DIA_C3, 3, 0, PB_DIA>, kv_bcgs_persist<true, PB_DIA_C3, 3, PB_VF, PB_DIA> },
    { kv_bcgs_persist<true, PB_DIA_C2, 2, 0, PB_DIA>, kv_bcgs_persist<true, PB_DIA_C2, 2, PB_VF, PB_DIA> } };
  static const pb_kern no_m[2] = { kv_bcgs_persist<false, PB_DIA_C3, 3, 0, PB_DIA>,
                                   kv_bcgs_persist<false, PB_DIA_C2, 2, 0, PB_DIA> };
  int b = blocks == 0 || blocks == 3 ? 0 : blocks == 2 ? 1 : -1;
  if (!pc) fmt = 0;
  if (merged || b < 0 || (fmt & ~PB_VF)) return NULL;
  *var = PB_VAR_DIA + (pc ? 2 * b + (fmt ? 1 : 0) : 4 + b);
  return pc ? with_m[b][fmt ? 1 : 0] : no_m[b];
}

static pb_kern pb_kernel(bool pc, bool merged, int fmt, int unroll, int blocks, int rows, int *var) {
  static const pb_kern with_m[2 * PB_NVAR] = {
    kv_bcgs_persist<true, 1, 3, 0>, kv_bcgs_persist<true, 4, 3, 0>, kv_bcgs_persist<true, 8, 3, 0>,
    kv_bcgs_persist<true, 1, 2, 0>, kv_bcgs_persist<true, 4, 2, 0>, kv_bcgs_persist<true, 8, 2, 0>,
    kv_bcgs_persist_m<true, 1, 3>, kv_bcgs_persist_m<true, 4, 3>, kv_bcgs_persist_m<true, 8, 3>,
    kv_bcgs_persist_m<true, 1, 2>, kv_bcgs_persist_m<true, 4, 2>, kv_bcgs_persist_m<true, 8, 2> };
  static const pb_kern no_m[2 * PB_NVAR] = {
    kv_bcgs_persist<false, 1, 3, 0>, kv_bcgs_persist<false, 4, 3, 0>,
    kv_bcgs_persist<false, 8, 3, 0>, kv_bcgs_persist<false, 1, 2, 0>,
    kv_bcgs_persist<false, 4, 2, 0>, kv_bcgs_persist<false, 8, 2, 0>,
    kv_bcgs_persist_m<false, 1, 3>, kv_bcgs_persist_m<false, 4, 3>,
    kv_bcgs_persist_m<false, 8, 3>, kv_bcgs_persist_m<false, 1, 2>,
    kv_bcgs_persist_m<false, 4, 2>, kv_bcgs_persist_m<false, 8, 2> };
  /* the solve formats: with M (fmt 1..3) x unroll at 3 blocks; without M 16-bit offsets x the 6 */
  static const pb_kern with_m_f[3][3] = {
    { kv_bcgs_persist<true, 1, 3, 1>, kv_bcgs_persist<true, 4, 3, 1>, kv_bcgs_persist<true, 8, 3, 1> },
    { kv_bcgs_persist<true, 1, 3, 2>, kv_bcgs_persist<true, 4, 3, 2>, kv_bcgs_persist<true, 8, 3, 2> },
    { kv_bcgs_persist<true, 1, 3, 3>, kv_bcgs_persist<true, 4, 3, 3>, kv_bcgs_persist<true, 8, 3, 3> } };
  static const pb_kern no_m_f[PB_NVAR] = {
    kv_bcgs_persist<false, 1, 3, 2>, kv_bcgs_persist<false, 4, 3, 2>,
    kv_bcgs_persist<false, 8, 3, 2>, kv_bcgs_persist<false, 1, 2, 2>,
    kv_bcgs_persist<false, 4, 2, 2>, kv_bcgs_persist<false, 8, 2, 2> };
  /* 2 rows of a lane group in flight (unroll 4 or 8, 2 blocks): with M the 4 formats, without
   * M 2 */
  static const pb_kern with_m_r2[2][4] = {
    { kv_bcgs_persist<true, 4, 2, 0, 2>, kv_bcgs_persist<true, 4, 2, 1, 2>,
      kv_bcgs_persist<true, 4, 2, 2, 2>, kv_bcgs_persist<true, 4, 2, 3, 2> },
    { kv_bcgs_persist<true, 8, 2, 0, 2>, kv_bcgs_persist<true, 8, 2, 1, 2>,
      kv_bcgs_persist<true, 8, 2, 2, 2>, kv_bcgs_persist<true, 8, 2, 3, 2> } };
  static const pb_kern no_m_r2[2][2] = {
    { kv_bcgs_persist<false, 4, 2, 0, 2>, kv_bcgs_persist<false, 4, 2, 2, 2> },
    { kv_bcgs_persist<false, 8, 2, 0, 2>, kv_bcgs_persist<false, 8, 2, 2, 2> } };
  int u = unroll <= 1 ? 0 : unroll == 4 ? 1 : unroll == 8 ? 2 : -1;
  int b = blocks == 0 || blocks == 3 ? 0 : blocks == 2 ? 1 : -1;
  if (!pc) fmt &= PB_I16;
  if (rows > 1) {
    if (rows != 2 || merged || u < 1 || b != 1 || fmt < 0 || fmt > 3) return NULL;
    *var = 2 * PB_NVAR + 9 + 4 * (u - 1) + (pc ? fmt : fmt >> 1);
    return pc ? with_m_r2[u - 1][fmt] : no_m_r2[u - 1][fmt >> 1];
  }
  if (u < 0 || b < 0 || fmt < 0 || fmt > 3 || (fmt && (merged || (pc && b != 0)))) return NULL;
  if (fmt) {
    *var = 2 * PB_NVAR + (pc ? 3 * (fmt - 1) + u : 3 * b + u);
    return pc ? with_m_f[fmt - 1][u] : no_m_f[3 * b + u];
  }
  *var = (merged ? PB_NVAR : 0) + 3 * b + u;
  return pc ? with_m[*var] : no_m[*var];
}

/* The arguments, the kernel and the grid of bcgs_batch / bcgs_fused (the grid: the SMs times
 * the blocks of the variant's persistent kernel that fit on one, at most PB_MAXBLOCKS, chosen
 * once per k_vec and variant; bcgs_fused takes the first variant's).  Local. */
static int pb_prepare(k_vec *v, const k_bcgs_sys *sys, double *sc, int niter, double tol,
                      bool fused, pb_args *g, pb_kern *kern, int *grid) {
  vec_scratch *s = (vec_scratch *)v->impl;
  bool pc = sys->m.val != NULL;
  if (sys->n > INT32_MAX - (1 << 24))
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch on %lld rows (at most 2^31 - 2^24)",
                  (long long)sys->n);
  g->n = (int)sys->n;
  bool sell = sys->a.sell != NULL, dia = sys->a.dia_off != NULL;
  g->a = pb_mat{ sys->a.rp32, sys->a.colind, sys->a.val, sell || dia ? 0 : pb_log2(sys->a.tpr),
                 NULL, sys->a.col16, sys->a.sell, sys->a.dia_off, sys->a.ndiag, PK_DIA_LD(sys->n) };
  g->m = pb_mat{ sys->m.rp32, sys->m.colind, sys->m.val,
                 pc && !sell && !dia ? pb_log2(sys->m.tpr) : 0, sys->m.valf, sys->m.col16,
                 sys->m.sell, sys->m.dia_off, sys->m.ndiag, PK_DIA_LD(sys->n) };
  if (sell && (fused || sys->split || sys->merged || sys->prefetch || sys->rows > 1 ||
               (pc && !sys->m.sell)))
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch's slices of rows: the classic persistent "
                  "kernel, no split, prefetch or rows 2, both matrices in slices");
  if (dia && (fused || sell || sys->split || sys->merged || sys->prefetch || sys->rows > 1 ||
              sys->a.col16 || (pc && !sys->m.dia_off)))
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch by diagonals: the classic persistent kernel, "
                  "no split, prefetch, rows 2 or slices, both matrices by diagonals");
  int fmt = (pc && sys->m.valf ? PB_VF : 0) | (sys->a.col16 ? PB_I16 : 0);
  if (sys->a.valf || (pc && (sys->m.col16 != NULL) != (sys->a.col16 != NULL)) ||
      (fmt && (fused || sys->split)))
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch's solve format: FP32 values of M only, 16-bit "
                  "offsets in both matrices, the classic persistent kernel without split");
  if (!g->a.rp || g->a.lt < 0 || g->m.lt < 0 || (pc && !g->m.rp))
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch needs CUDA CSR views (threads per row %d / %d)",
                  sys->a.tpr, sys->m.tpr);
  g->r = sys->r; g->rh = sys->rh; g->p = sys->p; g->p2 = sys->p2; g->v = sys->v;
  g->ph = sys->ph; g->s = sys->s; g->sh = sys->sh; g->t = sys->t; g->x = sys->x;
  g->part = s->part;
  g->sc = sc;
  g->niter = niter;
  g->tol = tol;
  g->split = sys->split;
  g->times = fused ? NULL : sys->times;
  int var = 0;
  if (sys->merged && (fused || sys->split))
    return hy_err(HY_ESYS, "vec cuda: the merged iteration runs in bcgs_batch without split");
  if (sys->prefetch && !fused && sys->rows > 1)
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch: prefetch with rows %d (1 only)", sys->rows);
  *kern = dia ? pb_kernel_dia(pc, sys->merged != 0, fmt, sys->blocks, &var)
          : sell ? pb_kernel_sell(pc, sys->merged != 0, fmt, sys->unroll, sys->blocks, &var)
          : sys->prefetch && !fused
          ? pb_kernel_pf(pc, sys->merged != 0, fmt, sys->unroll, sys->blocks, &var)
          : pb_kernel(pc, sys->merged != 0, fmt, fused ? 1 : sys->unroll, fused ? 3 : sys->blocks,
                      fused ? 1 : sys->rows, &var);
  if (!*kern)
    return hy_err(HY_ESYS, "vec cuda: bcgs_batch unroll %d, blocks %d per SM, rows %d, prefetch "
                  "%d (1, 4, 8; 2, 3; the solve format %d: classic, with M 3 blocks; rows 2: "
                  "classic, unroll 4 or 8, 2 blocks; prefetch: classic, unroll 4 or 8)",
                  sys->unroll, sys->blocks, sys->rows, sys->prefetch, fmt);
  int *gr = &s->pb_grid[pc ? 1 : 0][var];
  if (*gr == 0) {
    int dev = 0, coop = 0, per_sm = 0;
    HY_CUDA(cudaGetDevice(&dev));
    HY_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) return hy_err(HY_ESYS, "vec cuda: the device has no cooperative launch");
    HY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, *kern, PB_THREADS, 0));
    int b = per_sm * v->be->sm_count;
    *gr = b > PB_MAXBLOCKS ? PB_MAXBLOCKS : b < 1 ? 1 : b;
  }
  *grid = *gr;
  return HY_OK;
}

/* bcgs_batch: one cooperative launch of the variant's kv_bcgs_persist on the backend's stream.
 * Local. */
static int c_bcgs_batch(k_vec *v, const k_bcgs_sys *sys, double *sc, int niter, double tol) {
  pb_args g;
  pb_kern kern = NULL;
  int grid = 0;
  HY_CALL(pb_prepare(v, sys, sc, niter, tol, false, &g, &kern, &grid));
  void *args[] = { &g };
  vec_scratch *s = (vec_scratch *)v->impl;
  cudaStream_t st = k_cuda_st(v->be)->stream;
  if (s->win.num_bytes == 0) {
    HY_CUDA(cudaLaunchCooperativeKernel((const void *)kern, dim3(grid), dim3(PB_THREADS), args, 0,
                                        st));
    return HY_OK;
  }
  /* bcgs_prepare's L2 window on the launch itself (cooperative, and the persisting window) */
  cudaLaunchAttribute at[2];
  memset(at, 0, sizeof at);
  at[0].id = cudaLaunchAttributeCooperative;
  at[0].val.cooperative = 1;
  at[1].id = cudaLaunchAttributeAccessPolicyWindow;
  at[1].val.accessPolicyWindow = s->win;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(PB_THREADS);
  cfg.stream = st;
  cfg.attrs = at;
  cfg.numAttrs = 2;
  HY_CUDA(cudaLaunchKernelExC(&cfg, (const void *)kern, args));
  return HY_OK;
}

/* bcgs_fused: niter iterations of the fused kernels (5 per iteration with M, 4 without),
 * queued on the backend's stream (recordable as a graph).  Local. */
static int c_bcgs_fused(k_vec *v, const k_bcgs_sys *sys, double *sc, int niter, double tol) {
  vec_scratch *s = (vec_scratch *)v->impl;
  pb_args g;
  pb_kern kern = NULL;
  int grid = 0;
  HY_CALL(pb_prepare(v, sys, sc, niter, tol, true, &g, &kern, &grid));
  cudaStream_t st = k_cuda_st(v->be)->stream;
  unsigned *cnt = s->count;
  for (int k = 0; k < niter; k++) {
    if (sys->m.val) {
      kv_bcgs_phase<1, true><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<2, true><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<3, true><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<4, true><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<5, true><<<grid, PB_THREADS, 0, st>>>(g, cnt);
    } else {
      kv_bcgs_phase<1, false><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<2, false><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<3, false><<<grid, PB_THREADS, 0, st>>>(g, cnt);
      kv_bcgs_phase<5, false><<<grid, PB_THREADS, 0, st>>>(g, cnt);
    }
    HY_CUDA_LAUNCH();
  }
  return HY_OK;
}

/* ------------------------------------------------------------------ the solve copy */
/* The largest |column - row| of a CSR matrix into *mx (a warp's maximum, one atomic). */
static __global__ void kv_max_offset(int rows, const int32_t *__restrict__ rp,
                                     const int32_t *__restrict__ ci, unsigned *mx) {
  unsigned m = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
    for (int e = rp[i]; e < rp[i + 1]; e++) {
      int d = ci[e] - i;
      unsigned a = (unsigned)(d < 0 ? -d : d);
      m = a > m ? a : m;
    }
  m = __reduce_max_sync(0xffffffffu, m);
  if ((threadIdx.x & 31) == 0 && m) atomicMax(mx, m);
}

/* o[e] = ci[e] - row as 16 bits (every offset fits). */
static __global__ void kv_col16(int rows, const int32_t *__restrict__ rp,
                                const int32_t *__restrict__ ci, int16_t *o) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
    for (int e = rp[i]; e < rp[i + 1]; e++) o[e] = (int16_t)(ci[e] - i);
}

/* o[e] = va[e] rounded to FP32. */
static __global__ void kv_val32(int64_t nnz, const double *__restrict__ va, float *o) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x)
    o[e] = (float)va[e];
}

/* The bytes of a part of the solve copy, rounded up to 256.  Local. */
static size_t pk_round(size_t b) { return (b + 255) & ~(size_t)255; }

/* The largest |column - row| of view m (rows rows).  Local. */
static int pk_max_offset(k_vec *v, const k_csr_view *m, unsigned *d_mx, int64_t *out) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  unsigned h = 0;
  HY_CUDA(cudaMemsetAsync(d_mx, 0, sizeof *d_mx, st));
  int blocks = (int)((m->rows + 255) / 256);
  blocks = blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks;
  kv_max_offset<<<blocks, 256, 0, st>>>((int)m->rows, m->rp32, m->colind, d_mx);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(&h, d_mx, sizeof h, cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaStreamSynchronize(st));
  *out = h;
  return HY_OK;
}

/* One matrix into the solve copy at base: columns (16-bit offsets or a 32-bit copy) then values
 * (FP32 or an FP64 copy); the view pointed at them.  Local. */
static int pk_fill(k_vec *v, k_csr_view *m, int64_t nnz, bool i16, bool f32, char *base,
                   size_t colb) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  int rb = (int)((m->rows + 255) / 256);
  rb = rb < 1 ? 1 : rb > 4096 ? 4096 : rb;
  int eb = (int)((nnz + 255) / 256);
  eb = eb < 1 ? 1 : eb > 8192 ? 8192 : eb;
  if (i16) {
    kv_col16<<<rb, 256, 0, st>>>((int)m->rows, m->rp32, m->colind, (int16_t *)base);
    HY_CUDA_LAUNCH();
    m->col16 = (const int16_t *)base;
  } else {
    HY_CUDA(cudaMemcpyAsync(base, m->colind, (size_t)nnz * 4, cudaMemcpyDeviceToDevice, st));
    m->colind = (const int32_t *)base;
  }
  char *vb = base + colb;
  if (f32) {
    kv_val32<<<eb, 256, 0, st>>>(nnz, m->val, (float *)vb);
    HY_CUDA_LAUNCH();
    m->valf = (const float *)vb;
  } else {
    HY_CUDA(cudaMemcpyAsync(vb, m->val, (size_t)nnz * 8, cudaMemcpyDeviceToDevice, st));
    m->val = (const double *)vb;
  }
  return HY_OK;
}

/* w[s] = the longest row of slice s (rows 32 s .. 32 s + 31).  */
static __global__ void kv_sell_width(int rows, const int32_t *__restrict__ rp, int32_t *w) {
  int ns = (rows + 31) >> 5;
  for (int sl = blockIdx.x * blockDim.x + threadIdx.x; sl < ns; sl += gridDim.x * blockDim.x) {
    int mx = 0;
    for (int r = 32 * sl; r < rows && r < 32 * sl + 32; r++) {
      int l = rp[r + 1] - rp[r];
      mx = l > mx ? l : mx;
    }
    w[sl] = mx;
  }
}

/* Row i's entries to their places in the slices (sp: the slices' starts): columns as 16-bit
 * offsets (i16) or 32-bit, values as FP32 (VT float) or FP64, in the row's order. */
template <typename VT>
static __global__ void kv_sell_fill(int rows, const int32_t *__restrict__ rp,
                                    const int32_t *__restrict__ ci, const double *__restrict__ va,
                                    const int32_t *__restrict__ sp, bool i16, void *oc, VT *ov) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x) {
    int b = sp[i >> 5] + (i & 31);
    for (int e = rp[i], j = 0; e < rp[i + 1]; e++, j++) {
      if (i16) ((int16_t *)oc)[b + 32 * j] = (int16_t)(ci[e] - i);
      else ((int32_t *)oc)[b + 32 * j] = ci[e];
      ov[b + 32 * j] = (VT)va[e];
    }
  }
}

/* The starts of view m's slices of 32 rows on the host (*out: ns + 1 of them, malloc'd; the
 * last the padded entries' count).  Local. */
static int pk_sell_starts(k_vec *v, const k_csr_view *m, int32_t **out, int64_t *ns) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  int rows = (int)m->rows;
  int64_t n = (rows + 31) / 32;
  int32_t *dw = NULL, *hw = (int32_t *)malloc((size_t)(n + 1) * sizeof *hw);
  if (!hw) return hy_err(HY_ESYS, "out of memory");
  cudaError_t ce = cudaMalloc((void **)&dw, (size_t)(n > 0 ? n : 1) * sizeof *dw);
  if (ce == cudaSuccess && n > 0) {
    int b = (int)((n + 255) / 256);
    kv_sell_width<<<b < 4096 ? b : 4096, 256, 0, st>>>(rows, m->rp32, dw);
    ce = cudaGetLastError();
    if (ce == cudaSuccess) ce = cudaMemcpyAsync(hw, dw, (size_t)n * sizeof *dw, cudaMemcpyDeviceToHost, st);
    if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
  }
  if (dw) cudaFree(dw);
  if (ce != cudaSuccess) {
    free(hw);
    HY_CUDA(ce);
  }
  int64_t acc = 0;                         /* exclusive scan of 32 x the widths */
  for (int64_t k = 0; k < n; k++) {
    int64_t w = hw[k];
    hw[k] = (int32_t)acc;
    acc += 32 * w;
    if (acc > INT32_MAX - (1 << 24)) {
      free(hw);
      return hy_err(HY_ESYS, "vec cuda: the slices of rows hold more than 2^31 - 2^24 entries");
    }
  }
  hw[n] = (int32_t)acc;
  *out = hw;
  *ns = n;
  return HY_OK;
}

/* One matrix into the solve copy in slices of 32 rows (sp: the starts on the device): columns
 * at base, values at base + colb; the view pointed at them.  Local. */
static int pk_fill_sell(k_vec *v, k_csr_view *m, const int32_t *sp, bool i16, bool f32, char *base,
                        size_t colb) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  int rb = (int)((m->rows + 255) / 256);
  rb = rb < 1 ? 1 : rb > 4096 ? 4096 : rb;
  char *vb = base + colb;
  if (f32)
    kv_sell_fill<float><<<rb, 256, 0, st>>>((int)m->rows, m->rp32, m->colind, m->val, sp, i16, base,
                                            (float *)vb);
  else
    kv_sell_fill<double><<<rb, 256, 0, st>>>((int)m->rows, m->rp32, m->colind, m->val, sp, i16,
                                             base, (double *)vb);
  HY_CUDA_LAUNCH();
  if (i16) m->col16 = (const int16_t *)base;
  else m->colind = (const int32_t *)base;
  if (f32) m->valf = (const float *)vb;
  else m->val = (const double *)vb;
  m->sell = sp;
  return HY_OK;
}

/* The diagonals of a CSR matrix of rows x rows: the first entry with offset o = column - row
 * marks seen[o + rows - 1] and adds o to list (its first K_DIA_MAX; *cnt counts them all); a
 * column outside [0, rows) or a row whose columns do not ascend sets *bad. */
static __global__ void kv_dia_mark(int rows, const int32_t *__restrict__ rp,
                                   const int32_t *__restrict__ ci, int *seen, int32_t *list,
                                   unsigned *cnt, unsigned *bad) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
    for (int e = rp[i], prev = -1; e < rp[i + 1]; e++) {
      int c = ci[e];
      if (c < 0 || c >= rows || c <= prev) {
        atomicOr(bad, 1u);
        return;
      }
      prev = c;
      int o = c - i;
      if (seen[o + rows - 1] == 0 && atomicExch(&seen[o + rows - 1], 1) == 0) {
        unsigned k = atomicAdd(cnt, 1u);
        if (k < K_DIA_MAX) list[k] = o;
      }
    }
}

/* seen[off[d] + rows - 1] = d: the diagonal of each offset. */
static __global__ void kv_dia_map(int nd, const int32_t *__restrict__ off, int rows, int *seen) {
  if ((int)threadIdx.x < nd) seen[off[threadIdx.x] + rows - 1] = threadIdx.x;
}

/* Row i's entries to their diagonals (seen: kv_dia_map's), out[d dl + i] (zeroed before). */
template <typename VT>
static __global__ void kv_dia_fill(int rows, int dl, const int32_t *__restrict__ rp,
                                   const int32_t *__restrict__ ci, const double *__restrict__ va,
                                   const int *__restrict__ seen, VT *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
    for (int e = rp[i]; e < rp[i + 1]; e++)
      out[(size_t)seen[ci[e] - i + rows - 1] * dl + i] = (VT)va[e];
}

/* The scratch of the diagonals' count: seen (2 rows - 1 of them), the list, the counters. */
typedef struct {
  int *seen;
  int32_t *list;
  unsigned *cnt;
} pk_dia_tmp;

static int pk_int_cmp(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

/* The diagonals of view m (nnz entries) into off[0..*nd), ascending; *nd 0 with why where it
 * cannot be stored by them (more than K_DIA_MAX, past K_DIA_FILL, columns not ascending).
 * Local. */
static int pk_dia_count(k_vec *v, const k_csr_view *m, int64_t nnz, pk_dia_tmp *t, int32_t *off,
                        int *nd, double *fill, const char *name, char *why, size_t wl) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  int rows = (int)m->rows;
  unsigned h[2] = { 0, 0 };
  *nd = 0;
  *fill = 0;
  HY_CUDA(cudaMemsetAsync(t->seen, 0, (size_t)(2 * rows) * sizeof(int), st));
  HY_CUDA(cudaMemsetAsync(t->cnt, 0, 2 * sizeof(unsigned), st));
  int rb = (int)((rows + 255) / 256);
  rb = rb < 1 ? 1 : rb > 4096 ? 4096 : rb;
  kv_dia_mark<<<rb, 256, 0, st>>>(rows, m->rp32, m->colind, t->seen, t->list, t->cnt, t->cnt + 1);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaMemcpyAsync(h, t->cnt, sizeof h, cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaMemcpyAsync(off, t->list, K_DIA_MAX * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaStreamSynchronize(st));
  double fl = nnz > 0 ? (double)h[0] * (double)rows / (double)nnz : 0;
  if (h[1])
    snprintf(why, wl, "%s has a row whose columns do not ascend", name);
  else if (h[0] > K_DIA_MAX)
    snprintf(why, wl, "%s has %u diagonals (at most %d)", name, h[0], K_DIA_MAX);
  else if (nnz == 0 || fl > K_DIA_FILL || (double)h[0] * PK_DIA_LD(rows) > INT32_MAX - (1 << 24))
    snprintf(why, wl, "%s's %u diagonals hold %.2f x its entries (at most %.1f)", name, h[0], fl,
             K_DIA_FILL);
  else {
    qsort(off, h[0], sizeof *off, pk_int_cmp);
    *nd = (int)h[0];
  }
  *fill = fl;
  return HY_OK;
}

/* View m by its nd diagonals into the solve copy: the offsets at ob (device), the values at vb
 * (FP32 with f32, else FP64; zeroed, then each entry in its place); the view pointed at them.
 * Local. */
static int pk_dia_fill(k_vec *v, k_csr_view *m, const int32_t *hoff, int nd, pk_dia_tmp *t,
                       bool f32, char *vb, int32_t *ob) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  int rows = (int)m->rows;
  HY_CUDA(cudaMemcpyAsync(ob, hoff, (size_t)nd * sizeof *ob, cudaMemcpyHostToDevice, st));
  HY_CUDA(cudaMemsetAsync(vb, 0, (size_t)nd * PK_DIA_LD(rows) * (f32 ? 4 : 8), st));
  kv_dia_map<<<1, K_DIA_MAX, 0, st>>>(nd, ob, rows, t->seen);
  HY_CUDA_LAUNCH();
  int rb = (int)((rows + 255) / 256);
  rb = rb < 1 ? 1 : rb > 4096 ? 4096 : rb;
  int dl = PK_DIA_LD(rows);
  if (f32) kv_dia_fill<float><<<rb, 256, 0, st>>>(rows, dl, m->rp32, m->colind, m->val, t->seen, (float *)vb);
  else kv_dia_fill<double><<<rb, 256, 0, st>>>(rows, dl, m->rp32, m->colind, m->val, t->seen, (double *)vb);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaStreamSynchronize(st));      /* (hoff is the caller's stack) */
  if (f32) m->valf = (const float *)vb;
  else m->val = (const double *)vb;
  m->colind = NULL;
  m->col16 = NULL;
  m->dia_off = ob;
  m->ndiag = nd;
  return HY_OK;
}

/* A and M (pc) by diagonals where both can be (f->dia_why else): the solve copy [A's values |
 * M's values (FP32 with f32) | A's offsets | M's offsets] in s->pack, the views pointed at it;
 * *made, and the bytes of A's and M's parts (for the L2 window).  Local. */
static int pk_dia(k_vec *v, k_bcgs_sys *sys, k_bcgs_fmt *f, int64_t na, int64_t nm, bool f32,
                  bool *made, size_t *pa, size_t *pm) {
  vec_scratch *s = (vec_scratch *)v->impl;
  k_csr_view *a = &sys->a, *m = &sys->m;
  bool pc = m->val != NULL;
  int32_t oa[K_DIA_MAX], om[K_DIA_MAX];
  int nda = 0, ndm = 0;
  double fa = 0, fm = 0;
  pk_dia_tmp t = { NULL, NULL, NULL };
  *made = false;
  /* (kv_dia_mark's seen[] takes an offset + rows - 1 in an int: up to 2 rows - 2) */
  if (a->rows > (1 << 30)) {
    snprintf(f->dia_why, sizeof f->dia_why, "A has %lld rows (by diagonals at most 2^30 a rank)",
             (long long)a->rows);
    return HY_OK;
  }
  size_t sb = pk_round((size_t)(2 * a->rows) * sizeof(int));
  /* ([debug] fail_alloc refuses these as the device would: the fallback tested) */
  cudaError_t ce = hy_alloc_refused(sb + 512) ? cudaErrorMemoryAllocation
                                              : cudaMalloc((void **)&t.seen, sb + 512);
  if (ce == cudaErrorMemoryAllocation) {   /* no room to count them: CSR, a line says why */
    (void)cudaGetLastError();
    snprintf(f->dia_why, sizeof f->dia_why, "no device memory for the count of the diagonals "
             "(%.1f MB)", (double)(sb + 512) / 1e6);
    return HY_OK;
  }
  if (ce != cudaSuccess) HY_CUDA(ce);
  t.list = (int32_t *)((char *)t.seen + sb);
  t.cnt = (unsigned *)((char *)t.list + 256);
  int rc = pk_dia_count(v, a, na, &t, oa, &nda, &fa, "A", f->dia_why, sizeof f->dia_why);
  if (rc == HY_OK && nda && pc)
    rc = pk_dia_count(v, m, nm, &t, om, &ndm, &fm, "M", f->dia_why, sizeof f->dia_why);
  f->dia_a = nda;
  f->dia_m = ndm;
  f->dia_fill = fa > fm ? fa : fm;
  if (rc == HY_OK && nda && (ndm || !pc)) {
    *pa = pk_round((size_t)nda * PK_DIA_LD(a->rows) * 8);
    *pm = pc ? pk_round((size_t)ndm * PK_DIA_LD(m->rows) * (f32 ? 4 : 8)) : 0;
    size_t ob = pk_round(K_DIA_MAX * sizeof(int32_t));
    size_t need = *pa + *pm + 2 * ob;
    ce = hy_alloc_refused(need) ? cudaErrorMemoryAllocation : cudaMalloc(&s->pack, need);
    if (ce == cudaErrorMemoryAllocation) {   /* CSR (its copy may fit), a line says why */
      (void)cudaGetLastError();
      s->pack = NULL;
      size_t fr = 0, tot = 0;
      if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) (void)cudaGetLastError();
      snprintf(f->dia_why, sizeof f->dia_why, "no device memory for the copy by diagonals "
               "(%.1f MB; %.1f MB free)", (double)need / 1e6, (double)fr / 1e6);
    } else if (ce != cudaSuccess) {
      s->pack = NULL;
      rc = hy_err(HY_ESYS, "vec cuda: the matrices by diagonals: %s", cudaGetErrorString(ce));
    } else {
      char *base = (char *)s->pack;
      k_csr_view a0 = *a, m0 = *m;            /* (the CSR views, back on a failure) */
      rc = pk_dia_fill(v, a, oa, nda, &t, false, base, (int32_t *)(base + *pa + *pm));
      if (rc == HY_OK && pc)
        rc = pk_dia_fill(v, m, om, ndm, &t, f32, base + *pa, (int32_t *)(base + *pa + *pm + ob));
      if (rc != HY_OK) {
        *a = a0;
        *m = m0;
        cudaFree(s->pack);
        s->pack = NULL;
      }
      *made = rc == HY_OK;
    }
  }
  cudaFree(t.seen);
  return rc;
}

/* The persisting L2 set-aside and the window over [base, base + bytes) for the stream and
 * bcgs_batch's launches (hit ratio: set-aside / window); stream: no set-aside, every line of the
 * window streaming (evict-first).  f->l2_mb > 0 caps the window at that many MB, < 0 at the
 * set-aside the device gave (its first bytes only, hit ratio 1).  Local. */
static int pk_l2(k_vec *v, char *base, size_t bytes, bool stream, k_bcgs_fmt *f) {
  vec_scratch *s = (vec_scratch *)v->impl;
  int dev = 0, maxp = 0, maxw = 0;
  HY_CUDA(cudaGetDevice(&dev));
  HY_CUDA(cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, dev));
  HY_CUDA(cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxAccessPolicyWindowSize, dev));
  if ((!stream && maxp <= 0) || maxw <= 0 || bytes == 0) return HY_OK;   /* no window */
  size_t wb = bytes < (size_t)maxw ? bytes : (size_t)maxw, got = 0;
  if (f->l2_mb > 0 && (double)wb > f->l2_mb * 1e6) wb = (size_t)(f->l2_mb * 1e6);
  if (!stream) {
    HY_CUDA(cudaDeviceGetLimit(&s->l2_prev, cudaLimitPersistingL2CacheSize));
    /* refused (e.g. under MPS, where only the daemon's environment sets it): no window */
    if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, wb < (size_t)maxp ? wb : (size_t)maxp)
        != cudaSuccess) {
      (void)cudaGetLastError();
      return HY_OK;
    }
    HY_CUDA(cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize));
    if (got == 0) return HY_OK;
    if (f->l2_mb < 0 && got < wb) wb = got;   /* the part that fits: hit ratio 1 */
  }
  s->l2_set = stream ? 1 : 2;
  s->win.base_ptr = base;
  s->win.num_bytes = wb;
  s->win.hitRatio = stream || got >= wb ? 1.0f : (float)((double)got / (double)wb);
  s->win.hitProp = stream ? cudaAccessPropertyStreaming : cudaAccessPropertyPersisting;
  s->win.missProp = cudaAccessPropertyStreaming;
  cudaStreamAttrValue sa;
  memset(&sa, 0, sizeof sa);
  sa.accessPolicyWindow = s->win;
  HY_CUDA(cudaStreamSetAttribute(k_cuda_st(v->be)->stream, cudaStreamAttributeAccessPolicyWindow, &sa));
  f->l2_window = (double)wb;
  f->l2_setaside = (double)got;
  f->l2_hit = s->win.hitRatio;
  return HY_OK;
}

/* solver.l2_window = auto by diagonals (k_bcgs_fmt.l2_auto): the window over both matrices
 * (f->l2 = K_L2_ALL) where their bytes are at most 1.5 x the largest set-aside and 10 vectors
 * of rows entries fit in the rest of the L2 (H200, session 19: cfd2's size 50.8 MB of matrices,
 * 9.4 MB of vectors: 50.0 against 53.9 us; 921,600 2D, 37 MB and 74 MB of vectors: 71.3 against
 * 68.1; 10.6M 3D, 1190 MB: 1411 against 1160), and M's values not FP32 (f32; cfd2's size, 38.1
 * MB: 40.08 against 37.45 us, 39.27 against 37.72 in another call), else f->l2_why.  Local. */
static void pk_l2_auto(k_bcgs_fmt *f, size_t part, int64_t rows, bool f32) {
  int dev = 0, l2b = 0, maxp = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2b, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    l2b = maxp = 0;
  }
  double vecs = 10.0 * 8.0 * (double)rows;
  if (f32)
    snprintf(f->l2_why, sizeof f->l2_why, "M's values are FP32 (the window slowed it there)");
  else if (maxp <= 0)
    snprintf(f->l2_why, sizeof f->l2_why, "the device has no persisting L2");
  else if ((double)part > 1.5 * maxp)
    snprintf(f->l2_why, sizeof f->l2_why, "the matrices' %.1f MB > 1.5 x the %.1f MB set-aside",
             (double)part / 1e6, (double)maxp / 1e6);
  else if (vecs > (double)(l2b - maxp))
    snprintf(f->l2_why, sizeof f->l2_why, "10 vectors' %.1f MB > the %.1f MB of L2 beside the "
             "set-aside", vecs / 1e6, (double)(l2b - maxp) / 1e6);
  else
    f->l2 = K_L2_ALL;
}

/* The window over the solve copy's part f->l2: A's pa bytes at base, M's pm after them (pc);
 * all: both.  Local. */
static int pk_l2_parts(k_vec *v, k_bcgs_fmt *f, char *base, size_t pa, size_t pm, bool pc) {
  if (f->l2 == K_L2_A) return pk_l2(v, base, pa, false, f);
  if (f->l2 == K_L2_M && pc) return pk_l2(v, base + pa, pm, false, f);
  if (f->l2 == K_L2_ALL || f->l2 == K_L2_STREAM)
    return pk_l2(v, base, pa + (pc ? pm : 0), f->l2 == K_L2_STREAM, f);
  return HY_OK;
}

/* bcgs_release: the window off, the persisting lines reset, the set-aside back, the copy freed.
 * Local. */
static int c_bcgs_release(k_vec *v) {
  vec_scratch *s = (vec_scratch *)v->impl;
  if (!s) return HY_OK;
  if (s->l2_set) {
    cudaStreamAttrValue sa;
    memset(&sa, 0, sizeof sa);
    sa.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
    sa.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
    HY_CUDA(cudaStreamSetAttribute(k_cuda_st(v->be)->stream, cudaStreamAttributeAccessPolicyWindow, &sa));
    HY_CUDA(cudaStreamSynchronize(k_cuda_st(v->be)->stream));
    if (s->l2_set == 2) {
      HY_CUDA(cudaCtxResetPersistingL2Cache());
      HY_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, s->l2_prev));
    }
    s->l2_set = 0;
  }
  memset(&s->win, 0, sizeof s->win);
  if (s->pack) {
    HY_CUDA(cudaStreamSynchronize(k_cuda_st(v->be)->stream));
    HY_CUDA(cudaFree(s->pack));
    s->pack = NULL;
  }
  return HY_OK;
}

/* bcgs_prepare (k_vec.h): the solve copy [A columns | A values | M columns | M values] in one
 * allocation, in the format f asks for, and the L2 window over its part f->l2.  Local. */
static int c_bcgs_prepare(k_vec *v, k_bcgs_sys *sys, k_bcgs_fmt *f) {
  vec_scratch *s = (vec_scratch *)v->impl;
  k_csr_view *a = &sys->a, *m = &sys->m;
  HY_CALL(c_bcgs_release(v));
  bool pc = m->val != NULL;
  bool ask = f->index16 || (pc && f->m_single);
  f->why[0] = 0;
  bool sell = f->sell && !f->fused && !sys->split && !sys->merged && !sys->prefetch &&
              sys->rows <= 1;
  bool dia = f->dia && !f->fused && !sys->split && !sys->merged && !sys->prefetch &&
             sys->rows <= 1 && !sell;
  f->sell_used = f->dia_used = f->dia_a = f->dia_m = 0;
  f->dia_fill = 0;
  f->dia_why[0] = 0;
  f->l2_why[0] = 0;
  if (f->dia && !dia)
    snprintf(f->dia_why, sizeof f->dia_why, "the classic persistent kernel only (not fused, split, "
             "merged, prefetch, rows 2 or slices)");
  if (ask && (f->fused || sys->split || sys->merged ||
              (pc && sys->blocks == 2 && sys->rows != 2 && !sys->prefetch && !sell))) {
    snprintf(f->why, sizeof f->why, "%s", f->fused ? "the fused kernels run FP64 values and 32-bit columns"
             : sys->split ? "not with solver.persistent_split"
             : sys->merged ? "not with solver.merge_reductions"
             : "with M only at 3 blocks per SM, or with solver.persistent_rows = 2 or "
               "persistent_prefetch");
    ask = false;
  }
  f->index16_used = 0;
  f->max_offset = 0;
  f->l2_window = f->l2_setaside = f->l2_hit = 0;
  if (!a->rp32 || (pc && !m->rp32))
    return hy_err(HY_ESYS, "vec cuda: bcgs_prepare needs CUDA CSR views");
  int32_t na = 0, nm = 0;
  cudaStream_t st = k_cuda_st(v->be)->stream;
  HY_CUDA(cudaMemcpyAsync(&na, a->rp32 + a->rows, sizeof na, cudaMemcpyDeviceToHost, st));
  if (pc) HY_CUDA(cudaMemcpyAsync(&nm, m->rp32 + m->rows, sizeof nm, cudaMemcpyDeviceToHost, st));
  HY_CUDA(cudaStreamSynchronize(st));
  if (dia) {                               /* by diagonals where both fit: no columns */
    bool f32 = pc && f->m_single, made = false;
    size_t pa = 0, pm = 0;
    HY_CALL(pk_dia(v, sys, f, na, nm, f32, &made, &pa, &pm));
    if (made) {
      char *base = (char *)s->pack;
      f->dia_used = 1;
      f->m_single_used = f32;
      f->why[0] = 0;
      if (f->l2_auto && f->l2 == K_L2_NONE) pk_l2_auto(f, pa + pm, a->rows, f32);
      HY_CALL(pk_l2_parts(v, f, base, pa, pm, pc));
      HY_CUDA(cudaStreamSynchronize(st));
      return HY_OK;
    }
  }
  bool i16 = false;
  if (ask && f->index16) {
    int64_t ma = 0, mm = 0;
    HY_CUDA(cudaMalloc((void **)&s->pack, 256));
    int rc = pk_max_offset(v, a, (unsigned *)s->pack, &ma);
    if (rc == HY_OK && pc) rc = pk_max_offset(v, m, (unsigned *)s->pack, &mm);
    HY_CUDA(cudaFree(s->pack));
    s->pack = NULL;
    HY_CALL(rc);
    f->max_offset = ma > mm ? ma : mm;
    i16 = f->index16_used = f->max_offset <= 32767;
  }
  bool f32 = ask && pc && f->m_single;
  f->m_single_used = f32;
  if (!i16 && !f32 && !sell && f->l2 == K_L2_NONE) return HY_OK;   /* nothing to change */
  /* in slices: the padded entries and the slices' starts (sa, sm: host, then after the rest) */
  int32_t *hsa = NULL, *hsm = NULL;
  int64_t nsa = 0, nsm = 0;
  if (sell) {
    HY_CALL(pk_sell_starts(v, a, &hsa, &nsa));
    if (pc) {
      int rc = pk_sell_starts(v, m, &hsm, &nsm);
      if (rc != HY_OK) free(hsa);
      HY_CALL(rc);
    }
    na = hsa[nsa];
    if (pc) nm = hsm[nsm];
  }
  size_t ca = pk_round((size_t)na * (i16 ? 2 : 4)), va = pk_round((size_t)na * 8);
  size_t cm = pk_round((size_t)nm * (i16 ? 2 : 4)), vm = pk_round((size_t)nm * (f32 ? 4 : 8));
  size_t mats = ca + va + (pc ? cm + vm : 0);
  size_t spa = sell ? pk_round((size_t)(nsa + 1) * 4) : 0;
  size_t spm = sell && pc ? pk_round((size_t)(nsm + 1) * 4) : 0;
  size_t total = mats + spa + spm;
  cudaError_t ce = cudaMalloc(&s->pack, total);
  if (ce == cudaSuccess && sell) {          /* (on the stream, done before the host copies go) */
    char *sb = (char *)s->pack + mats;
    ce = cudaMemcpyAsync(sb, hsa, (size_t)(nsa + 1) * 4, cudaMemcpyHostToDevice, st);
    if (ce == cudaSuccess && pc)
      ce = cudaMemcpyAsync(sb + spa, hsm, (size_t)(nsm + 1) * 4, cudaMemcpyHostToDevice, st);
    cudaError_t se = cudaStreamSynchronize(st);
    if (ce == cudaSuccess) ce = se;
  }
  free(hsa);
  free(hsm);
  HY_CUDA(ce);
  char *base = (char *)s->pack;
  if (sell) {
    const int32_t *sa = (const int32_t *)(base + mats), *sm = (const int32_t *)(base + mats + spa);
    HY_CALL(pk_fill_sell(v, a, sa, i16, false, base, ca));
    if (pc) HY_CALL(pk_fill_sell(v, m, sm, i16, f32, base + ca + va, cm));
    f->sell_used = 1;
  } else {
    HY_CALL(pk_fill(v, a, na, i16, false, base, ca));
    if (pc) HY_CALL(pk_fill(v, m, nm, i16, f32, base + ca + va, cm));
  }
  HY_CALL(pk_l2_parts(v, f, base, ca + va, cm + vm, pc));   /* (the matrices, not the starts) */
  HY_CUDA(cudaStreamSynchronize(st));
  return HY_OK;
}

/* Free whatever part of the scratch exists.  Local. */
static int c_close(k_vec *v) {
  vec_scratch *s = (vec_scratch *)v->impl;
  if (!s) return HY_OK;
  c_bcgs_release(v);
  if (s->part) cudaFree(s->part);
  if (s->count) cudaFree(s->count);
  if (s->out_host) cudaFreeHost(s->out_host);
  free(s);
  v->impl = NULL;
  return HY_OK;
}

/* Allocate the reduction scratch (the counter zeroed).  Local. */
static int c_open(k_vec *v) {
  k_cuda_state *st = k_cuda_st(v->be);
  vec_scratch *s = (vec_scratch *)calloc(1, sizeof *s);
  if (!s) return hy_err(HY_ESYS, "out of memory");
  v->impl = s;
  HY_CUDA(cudaMalloc((void **)&s->count, sizeof(unsigned)));
  HY_CUDA(cudaMemsetAsync(s->count, 0, sizeof(unsigned), st->stream));
  HY_CUDA(cudaHostAlloc((void **)&s->out_host, K_VEC_READMAX * sizeof(double), cudaHostAllocMapped));
  HY_CUDA(cudaHostGetDevicePointer((void **)&s->out_dev, s->out_host, 0));
  HY_CUDA(cudaMalloc((void **)&s->part, DOT_BLOCKS * K_VEC_MAXDOTS * sizeof(double)));
  return HY_OK;
}

/* buf[i] = x[idx[i]].  Local. */
static int c_gather(k_vec *v, int64_t n, const int32_t *idx, const double *x, double *buf) {
  if (n <= 0) return HY_OK;
  int blocks = (int)((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  kv_gather<<<blocks, 256, 0, k_cuda_st(v->be)->stream>>>(n, idx, x, buf);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* z = a x + b y + c z.  Local. */
static int c_axpbypcz(k_vec *v, int64_t n, double a, const double *x, double b, const double *y,
                      double c, double *z) {
  if (n <= 0) return HY_OK;
  int blocks = (int)((n + 255) / 256);
  int cap = v->be->sm_count * 8;
  if (blocks > cap) blocks = cap;
  kv_axpbypcz<<<blocks, 256, 0, k_cuda_st(v->be)->stream>>>(n, a, x, b, y, c, z);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* The dots of np pairs (after z = a x + b y + c z when upd): one launch, one stream
 * synchronisation, results read from pinned memory.  Local. */
static int dots_launch(k_vec *v, int64_t n, bool upd, double a, const double *x, double b,
                       const double *y, double c, double *z, int np, const double *const *dx,
                       const double *const *dy, double *dout, vec_scal vs) {
  k_cuda_state *st = k_cuda_st(v->be);
  vec_scratch *s = (vec_scratch *)v->impl;
  if (np < 1 || np > K_VEC_MAXDOTS)
    return hy_err(HY_ESYS, "vec cuda: %d dot products in one pass (1..%d)", np, K_VEC_MAXDOTS);
  int64_t per_block = (int64_t)DOT_THREADS * DOT_PER_THREAD;
  int blocks = (int)((n + per_block - 1) / per_block);
  if (blocks > DOT_BLOCKS) blocks = DOT_BLOCKS;
  if (blocks < 1) blocks = 1;
  vec_pairs dp;
  for (int p = 0; p < K_VEC_MAXDOTS; p++) {
    dp.x[p] = dx[p < np ? p : 0];
    dp.y[p] = dy[p < np ? p : 0];
  }
  if (upd)
    kv_dots<true><<<blocks, DOT_THREADS, 0, st->stream>>>(n, a, x, b, y, c, z, np, dp, s->part,
                                                          s->count, dout, vs);
  else
    kv_dots<false><<<blocks, DOT_THREADS, 0, st->stream>>>(n, 0, NULL, 0, NULL, 0, NULL, np, dp,
                                                           s->part, s->count, dout, vs);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* dots_launch into the mapped pinned results, one stream synchronisation, read on the host.
 * Local. */
static int dots_pass(k_vec *v, int64_t n, bool upd, double a, const double *x, double b,
                     const double *y, double c, double *z, int np, const double *const *dx,
                     const double *const *dy, double *out) {
  vec_scratch *s = (vec_scratch *)v->impl;
  vec_scal none = { NULL, 0, 0, 0, 0, -1, 0 };
  int rc = dots_launch(v, n, upd, a, x, b, y, c, z, np, dx, dy, s->out_dev, none);
  if (rc != HY_OK) return rc;
  HY_CUDA(cudaStreamSynchronize(k_cuda_st(v->be)->stream));
  for (int p = 0; p < np; p++) out[p] = ((volatile double *)s->out_host)[p];
  return HY_OK;
}

/* Local dots of up to four pairs.  Local. */
static int c_dots(k_vec *v, int64_t n, int np, const double *const *x, const double *const *y,
                  double *out) {
  return dots_pass(v, n, false, 0, NULL, 0, NULL, 0, NULL, np, x, y, out);
}

/* z = a x + b y + c z and the local dots of the updated vectors in the same kernel.  Local. */
static int c_axpbypcz_dots(k_vec *v, int64_t n, double a, const double *x, double b,
                           const double *y, double c, double *z, int np, const double *const *dx,
                           const double *const *dy, double *out) {
  return dots_pass(v, n, true, a, x, b, y, c, z, np, dx, dy, out);
}

/* The scalar-block forms (k_vec.h), queued on the stream with no synchronisation.  Local. */
static int c_axpbypcz_s(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                        const double *x, const double *y, double *z, int step, double tol) {
  int blocks = (int)((n + 255) / 256);
  int cap = v->be->sm_count * 8;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;              /* n = 0: the step still runs */
  kv_axpbypcz_s<<<blocks, 256, 0, k_cuda_st(v->be)->stream>>>(n, sc, ia, ib, ic, gate, x, y, z,
                                                                step, tol);
  HY_CUDA_LAUNCH();
  return HY_OK;
}
static int c_dots_s(k_vec *v, int64_t n, int np, const double *const *x, const double *const *y,
                    double *sc, int slot, int gate, int step, double tol) {
  vec_scal vs = { sc, 0, 0, 0, gate, step, tol };
  return dots_launch(v, n, false, 0, NULL, 0, NULL, 0, NULL, np, x, y, sc + slot, vs);
}
static int c_axpbypcz_dots_s(k_vec *v, int64_t n, double *sc, int ia, int ib, int ic, int gate,
                             const double *x, const double *y, double *z, int np,
                             const double *const *dx, const double *const *dy, int slot, int step,
                             double tol) {
  vec_scal vs = { sc, ia, ib, ic, gate, step, tol };
  return dots_launch(v, n, true, 0, x, 0, y, 0, z, np, dx, dy, sc + slot, vs);
}
static int c_bcgs_step(k_vec *v, double *sc, int step, double tol) {
  kv_bcgs_step<<<1, 1, 0, k_cuda_st(v->be)->stream>>>(sc, step, tol);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* h = sc[0..n) once the queued work is done: one kernel into the mapped pinned scratch, one
 * stream synchronisation (no copy call).  Local. */
static int c_s_read(k_vec *v, const double *sc, double *h, int n) {
  vec_scratch *s = (vec_scratch *)v->impl;
  if (n < 0 || n > K_VEC_READMAX)
    return hy_err(HY_ESYS, "vec cuda: %d slots read at once (0..%d)", n, K_VEC_READMAX);
  cudaStream_t st = k_cuda_st(v->be)->stream;
  kv_read<<<1, 32, 0, st>>>(sc, s->out_dev, n);
  HY_CUDA_LAUNCH();
  HY_CUDA(cudaStreamSynchronize(st));
  for (int i = 0; i < n; i++) h[i] = ((volatile double *)s->out_host)[i];
  return HY_OK;
}

/* Record what fn(arg) queues on the backend's stream as a CUDA graph (captured, not run;
 * relaxed mode: the library calls inside may allocate), instantiated once.  Local. */
static int c_rec_create(k_vec *v, int (*fn)(void *arg), void *arg, void **rec) {
  cudaStream_t st = k_cuda_st(v->be)->stream;
  *rec = NULL;
  HY_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
  int rc = fn(arg);
  cudaGraph_t g = NULL;
  cudaError_t ce = cudaStreamEndCapture(st, &g);
  if (rc == HY_OK && ce != cudaSuccess)
    rc = hy_err(HY_ESYS, "CUDA: recording the device loop as a graph failed: %s (%s)",
                cudaGetErrorString(ce), cudaGetErrorName(ce));
  cudaGraphExec_t ge = NULL;
  if (rc == HY_OK) {
    ce = cudaGraphInstantiate(&ge, g, 0);
    if (ce != cudaSuccess)
      rc = hy_err(HY_ESYS, "CUDA: cudaGraphInstantiate failed: %s (%s)", cudaGetErrorString(ce),
                  cudaGetErrorName(ce));
  }
  if (g) cudaGraphDestroy(g);
  if (rc == HY_OK) *rec = (void *)ge;
  return rc;
}
/* One launch of the recorded graph on the stream.  Local. */
static int c_rec_run(k_vec *v, void *rec) {
  HY_CUDA(cudaGraphLaunch((cudaGraphExec_t)rec, k_cuda_st(v->be)->stream));
  return HY_OK;
}
static int c_rec_free(k_vec *v, void *rec) {
  (void)v;
  if (rec) HY_CUDA(cudaGraphExecDestroy((cudaGraphExec_t)rec));
  return HY_OK;
}

/* (the fields in declaration order, named: C++ takes designators in that order) */
extern "C" const k_vec_ops k_vec_cuda_ops = {
  .open = c_open,
  .close = c_close,
  .gather = c_gather,
  .axpbypcz = c_axpbypcz,
  .dots = c_dots,
  .axpbypcz_dots = c_axpbypcz_dots,
  .axpbypcz_s = c_axpbypcz_s,
  .dots_s = c_dots_s,
  .axpbypcz_dots_s = c_axpbypcz_dots_s,
  .bcgs_step = c_bcgs_step,
  .s_read = c_s_read,
  .rec_create = c_rec_create,
  .rec_run = c_rec_run,
  .rec_free = c_rec_free,
  .bcgs_batch = c_bcgs_batch,
  .bcgs_fused = c_bcgs_fused,
  .bcgs_prepare = c_bcgs_prepare,
  .bcgs_release = c_bcgs_release,
};
