/* lle_chol_cuda.cu - chol-nd's top supernodes on the device (lle.cnd_top = device; the CUDA
 * table's k_lle_eig_ops.chol_top, see k_lle_chol_top in kernels/k_lle.h): after the host's
 * threads have factored the subtrees below the cut and assembled the top supernodes (with the
 * updates from below, or without them and the below supernodes' tails packed), the tails go up
 * in one copy and the top blocks one by one (on a copy stream, the device working on the
 * earlier ones meanwhile); or (k_lle_chol_top.eptr, lle.cnd_top_assembly = device) the host
 * built only the top columns' entry lists: they go up (a few bytes a nonzero of M against
 * the dense blocks' 575 MB at N = 1M), the blocks are zeroed on the device and cc_assemble
 * adds the entries, a thread a column in the host's order (the same blocks bit for bit).
 * Then on the backend's stream, top supernode i (ascending) gets the
 * updates from the tails (cc_below: a block per column, its pairs in order from the column's
 * list built here, a thread a row),
 * then from its top updaters d (ascending) as one cuBLAS DGEMM L_d(rows from p1, :)
 * L_d([p1, p2), :)^T into a scratch block and a scatter kernel (each entry of s written by one
 * thread, the lower part only), then cuSOLVER's dpotrf of its diagonal block and cuBLAS's
 * dtrsm of the rows below; each factored block comes back into L's values as soon as it is
 * done.  The same operations in the same order on every run (no atomics): the factor does
 * not depend on the host's thread count.  With job->keep the device state (the factored top,
 * the tails) lives on for the solves' top part (cc_top_solve) until chol_top_release. */
#include "k_cuda.h"
#include "k_lle.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wall seconds (monotonic).  Local. */
static double cc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The copies up through pinned memory (k_lle_chol_top.stage, lle.cnd_top_copy = pinned): two
 * buffers of CC_STAGE_BYTES, one filled by the pool's threads (a memcpy each, contiguous byte
 * ranges) while the other one's DMA runs; without them (stage off, or no pinned memory) the
 * copies go from the pageable host arrays as before (the driver's own staging, one thread). */
enum { CC_STAGE_BYTES = 32 << 20 };
typedef struct {
  char *pin[2];
  cudaEvent_t ev[2];
  int used[2], b;
  k_lle_pool *pool;
  int nt;
} cc_stage;

/* One staging memcpy: dst[i] = src[i] over the byte range of a thread. */
typedef struct {
  char *dst;
  const char *src;
} cc_mcpy;

/* Bytes [i0, i1) of a staging memcpy.  Local. */
static void cc_mcpy_part(void *arg, int64_t i0, int64_t i1) {
  const cc_mcpy *m = (const cc_mcpy *)arg;
  memcpy(m->dst + i0, m->src + i0, (size_t)(i1 - i0));
}

/* Open the staging where the job asks for it (a failure leaves it off: the pageable path).  Local. */
static void cc_stage_open(cc_stage *st, const k_lle_chol_top *job) {
  memset(st, 0, sizeof *st);
  if (!job->stage || !job->pool) return;
  for (int b = 0; b < 2; b++)
    if (cudaMallocHost((void **)&st->pin[b], CC_STAGE_BYTES) != cudaSuccess ||
        cudaEventCreateWithFlags(&st->ev[b], cudaEventDisableTiming) != cudaSuccess) {
      for (int c = 0; c <= b; c++) {
        if (st->pin[c]) cudaFreeHost(st->pin[c]);
        if (st->ev[c]) cudaEventDestroy(st->ev[c]);
      }
      cudaGetLastError();
      memset(st, 0, sizeof *st);
      return;
    }
  st->pool = job->pool;
  st->nt = job->pool_threads > 0 ? job->pool_threads : 1;
}

/* bytes from the host's src to the device's dst on stream s: through the staging buffers
 * (the call returns once src has been read; the DMA may still run), else one pageable copy.
 * Local. */
static cudaError_t cc_stage_up(cc_stage *st, void *dst, const void *src, size_t bytes, cudaStream_t s) {
  if (!st->pin[0]) return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s);
  const char *p = (const char *)src;
  char *q = (char *)dst;
  cudaError_t ce = cudaSuccess;
  while (bytes > 0 && ce == cudaSuccess) {
    size_t len = bytes < (size_t)CC_STAGE_BYTES ? bytes : (size_t)CC_STAGE_BYTES;
    int b = st->b;
    if (st->used[b]) ce = cudaEventSynchronize(st->ev[b]);   /* its last DMA done */
    if (ce != cudaSuccess) break;
    cc_mcpy m = { st->pin[b], p };
    k_lle_pool_for(st->pool, len >= ((size_t)1 << 20) ? st->nt : 1, (int64_t)len, cc_mcpy_part, &m);
    ce = cudaMemcpyAsync(q, st->pin[b], len, cudaMemcpyHostToDevice, s);
    if (ce == cudaSuccess) ce = cudaEventRecord(st->ev[b], s);
    st->used[b] = 1;
    st->b ^= 1;
    p += len; q += len; bytes -= len;
  }
  return ce;
}

/* Close the staging (its DMAs waited for).  Local. */
static void cc_stage_close(cc_stage *st) {
  for (int b = 0; b < 2; b++) {
    if (st->ev[b]) { cudaEventSynchronize(st->ev[b]); cudaEventDestroy(st->ev[b]); }
    if (st->pin[b]) cudaFreeHost(st->pin[b]);
  }
  memset(st, 0, sizeof *st);
}

/* HY_OK, or HY_ESYS recorded with the CUDA error of what.  Local. */
static int cc_ok(cudaError_t ce, const char *what) {
  return ce == cudaSuccess ? HY_OK : hy_err(HY_ESYS, "CUDA: %s failed: %s (%s)", what, cudaGetErrorString(ce),
                                            cudaGetErrorName(ce));
}

/* blk(r, col) -= c(ii, jj) for r = rmap[ii] >= col = rmap[jj] (c: m x ncol, leading
 * dimension m): one thread an entry of c. */
__global__ void cc_scatter(double *blk, int64_t lda, const double *c, int m, int ncol, const int32_t *rmap) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (int64_t)m * ncol) return;
  int ii = (int)(e % m), jj = (int)(e / m);
  int r = rmap[ii], col = rmap[jj];
  if (r >= col) blk[r + (int64_t)col * lda] -= c[e];
}

/* A pair of a top supernode with a tail from below (k_lle_chol_top's below lists), for cc_below. */
typedef struct {
  int64_t toff, roff;     /* the tail at dtail + toff (ld rows, k columns); its local rows at drmap2 + roff */
  int ld, k, j0, ncol, mu;   /* the pair's first row in the tail, its columns, its rows */
  int gemm;               /* 1: by a DGEMM and cc_scatter in cc_node (cc_gemm_pair), not in cc_below */
  int64_t yoff;           /* the solves: the tail's supernode's columns at this row of X_tail */
} cc_pair;

/* A top column's pairs (cc_tails' column lists): the pair (of its supernode's, in order) and
 * the column's position among the pair's columns. */
typedef struct {
  int32_t q, lo;
} cc_cpair;

/* blk(:, c) -= the updates from below of top column c = blockIdx.x: for each pair in order
 * whose columns hold c (the column's list cl[0 .. ncl), the host's: no search here), its rows
 * from c's down, one thread a row (dot products over the tail's columns, k ascending): each
 * entry written by one thread, in the pairs' order. */
__global__ void cc_below(double *blk, int64_t lda, const cc_pair *pairs, const int64_t *clp, const cc_cpair *cl,
                         const double *tails, const int32_t *rmap) {
  int c = blockIdx.x;
  for (int64_t e = clp[c]; e < clp[c + 1]; e++) {
    cc_cpair cq = cl[e];
    cc_pair p = pairs[cq.q];
    if (p.gemm) continue;   /* (the same for the whole block) */
    const int32_t *rm = rmap + p.roff;
    int lo = cq.lo;
    const double *t = tails + p.toff;
    int b = p.j0 + lo;
    for (int ar = lo + (int)threadIdx.x; ar < p.mu; ar += blockDim.x) {
      int a = p.j0 + ar;
      double acc = 0;
      for (int k = 0; k < p.k; k++) acc = __fma_rn(t[a + (int64_t)k * p.ld], t[b + (int64_t)k * p.ld], acc);
      blk[rm[ar] + (int64_t)c * lda] -= acc;
    }
    __syncthreads();   /* the next pair may write the same entries from other threads (the H200 mid run's wrong factor) */
  }
}

/* The top's assembly on the device (k_lle_chol_top.eptr): top column g = one thread, its
 * entries in order added into its column of the zeroed blocks (cbase[g]: the column's start
 * in dx); each entry written by one thread, in the host's order. */
__global__ void cc_assemble(double *dx, const int64_t *cbase, const int64_t *eptr, const int32_t *erow,
                            const double *eval, int64_t ncols) {
  int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= ncols) return;
  double *bc = dx + cbase[g];
  for (int64_t e = eptr[g]; e < eptr[g + 1]; e++) bc[erow[e]] += eval[e];
}

/* The call's device state (freed by cc_free). */
typedef struct {
  cudaStream_t cp;                     /* the copies' stream */
  cudaEvent_t *up, *done, t0, tails;   /* block i uploaded / factored; the start; the tails up */
  cudaEvent_t *b0, *b1, a0, a1;        /* block i's updates from below; the assembly (both timed) */
  cudaEvent_t tl0;                     /* the tails' DMA's start (timed to d->tails) */
  int nev;
  double *dtail;                       /* the tails from below, packed (tail t at toff[t]) */
  cc_pair *dpairs;
  int32_t *drmap2;
  const int64_t *toff;                 /* host: the job's */
  double *dx, *dc, *dwork;             /* the top blocks (packed), the update scratch, dpotrf's */
  int32_t *drmap;
  int *dinfo;
  int64_t *off;                        /* host: block i at dx + off[i] */
  /* the solves (kept): X at the top columns and the tails' columns, scratch, the backward gathers */
  double *dxt, *dxy, *dcs, *dtb;
  int xcap;
  int32_t *dg;
  int64_t *goff;                       /* host: top i's gather list at dg + goff[i] */
  cc_stage stg;                        /* the copies up's staging (cc_top only) */
  int64_t *dcb, *dep;                  /* the assembly on the device: columns' starts, entry lists */
  int32_t *der;
  double *dev;
  int64_t *dclp, *clp;                 /* the top columns' pair lists (cc_tails): starts on the device, host */
  cc_cpair *dcl;
  int64_t *gcol;                       /* host: top i's first column among the top's columns */
  int lwork;                           /* dpotrf's workspace (cc_alloc's) */
  cc_pair *hp;                         /* host: the pairs from below (cc_node's DGEMMs) */
  int64_t ngemm;                       /* of them, by DGEMM */
  void *reg;                           /* the tails' host buffer page-locked by cc_open (k_lle_chol_top.reg), or NULL */
} cc_dev;

/* Whether a pair from below (k columns of its tail) goes through a DGEMM (k >= job->gemm_k;
 * gemm_k 0: never): at N = 1M the 1289 pairs with k >= 64 hold 98.7% of the 2.1e10 FMAs of
 * 12082 pairs.  Local. */
static int cc_gemm_pair(const k_lle_chol_top *job, int64_t k) {
  return job->gemm_k > 0 && k >= job->gemm_k;
}

/* Free the call's state (NULL-safe).  Local. */
static void cc_free(cc_dev *d) {
  cc_stage_close(&d->stg);
  if (d->cp) cudaStreamSynchronize(d->cp);   /* no DMA from the locked tails left */
  if (d->reg) cudaHostUnregister(d->reg);
  for (int i = 0; i < d->nev; i++) {
    if (d->up) cudaEventDestroy(d->up[i]);
    if (d->done) cudaEventDestroy(d->done[i]);
    if (d->b0) cudaEventDestroy(d->b0[i]);
    if (d->b1) cudaEventDestroy(d->b1[i]);
  }
  if (d->a0) cudaEventDestroy(d->a0);
  if (d->tl0) cudaEventDestroy(d->tl0);
  if (d->a1) cudaEventDestroy(d->a1);
  if (d->t0) cudaEventDestroy(d->t0);
  if (d->tails) cudaEventDestroy(d->tails);
  if (d->cp) cudaStreamDestroy(d->cp);
  void *dev[] = { d->dx, d->dc, d->dwork, d->drmap, d->dinfo, d->dtail, d->dpairs, d->drmap2, d->dxt, d->dxy, d->dcs,
                  d->dtb, d->dg, d->dcb, d->dep, d->der, d->dev, d->dclp, d->dcl };
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  free(d->up); free(d->done); free(d->b0); free(d->b1); free(d->off); free(d->goff); free(d->clp); free(d->gcol); free(d->hp);
}

/* The tails' device buffer (their copy up: cc_tails_up), the pairs and their local rows, the
 * top columns' pair lists (the copies up on the copy stream, waited for: the host lists are
 * freed here).  Local. */
static int cc_tails(const k_lle_chol_top *job, cc_dev *d) {
  const k_lle_super *L = job->L;
  int64_t nt = job->ntail, np = job->buptr[job->ntop], nr = job->brptr[np];
  cc_pair *hp = (cc_pair *)malloc((size_t)(np > 0 ? np : 1) * sizeof(cc_pair));
  if (!hp) return hy_err(HY_ESYS, "out of memory for %lld pairs", (long long)np);
  d->toff = job->toff;
  for (int64_t u = 0; u < np; u++) {
    int64_t t = job->bud[u], s = job->tail_sn[t];
    int64_t ld = L->pi[s + 1] - L->pi[s] - job->tail_q[t];
    hp[u] = cc_pair{ d->toff[t], job->brptr[u], (int)ld, (int)(L->super[s + 1] - L->super[s]),
                     job->bup1[u] - job->tail_q[t], job->bup2[u] - job->bup1[u],
                     (int)(L->pi[s + 1] - L->pi[s] - job->bup1[u]), 0, 0 };
    hp[u].gemm = cc_gemm_pair(job, hp[u].k);
    d->ngemm += hp[u].gemm;
  }
  int64_t *yo = (int64_t *)malloc((size_t)(nt + 1) * sizeof(int64_t));   /* X_tail's rows (k_lle_chol_top_solve's yoff) */
  if (!yo) { free(hp); return hy_err(HY_ESYS, "out of memory for %lld tails", (long long)nt); }
  yo[0] = 0;
  for (int64_t t = 0; t < nt; t++) yo[t + 1] = yo[t] + L->super[job->tail_sn[t] + 1] - L->super[job->tail_sn[t]];
  for (int64_t u = 0; u < np; u++) hp[u].yoff = yo[job->bud[u]];
  free(yo);
  /* each top column's pairs in order with its position among their columns (the kernels'
   * lists: cc_below and cc_fwd_below take them instead of searching every pair of the supernode) */
  int ntop = job->ntop;
  d->gcol = (int64_t *)malloc((size_t)(ntop + 1) * sizeof(int64_t));
  if (!d->gcol) { free(hp); return hy_err(HY_ESYS, "out of memory for %d top supernodes", ntop); }
  d->gcol[0] = 0;
  for (int i = 0; i < ntop; i++) d->gcol[i + 1] = d->gcol[i] + L->super[job->top[i] + 1] - L->super[job->top[i]];
  int64_t ncols = d->gcol[ntop], ne = 0;
  d->clp = (int64_t *)calloc((size_t)ncols + 1, sizeof(int64_t));
  if (!d->clp) { free(hp); return hy_err(HY_ESYS, "out of memory for %lld top columns", (long long)ncols); }
  for (int i = 0; i < ntop; i++)
    for (int64_t u = job->buptr[i]; u < job->buptr[i + 1]; u++)
      for (int32_t k = 0; k < hp[u].ncol; k++) d->clp[d->gcol[i] + job->brmap[job->brptr[u] + k] + 1]++;
  for (int64_t g = 0; g < ncols; g++) d->clp[g + 1] += d->clp[g];
  ne = d->clp[ncols];
  cc_cpair *cl = (cc_cpair *)malloc((size_t)(ne > 0 ? ne : 1) * sizeof(cc_cpair));
  int64_t *at = (int64_t *)malloc((size_t)(ncols > 0 ? ncols : 1) * sizeof(int64_t));
  if (!cl || !at) { free(cl); free(at); free(hp); return hy_err(HY_ESYS, "out of memory for %lld column pairs", (long long)ne); }
  memcpy(at, d->clp, (size_t)ncols * sizeof(int64_t));
  for (int i = 0; i < ntop; i++)   /* pairs ascending: each column's list in the pairs' order */
    for (int64_t u = job->buptr[i]; u < job->buptr[i + 1]; u++)
      for (int32_t k = 0; k < hp[u].ncol; k++) {
        int64_t g = d->gcol[i] + job->brmap[job->brptr[u] + k];
        cl[at[g]++] = cc_cpair{ (int32_t)(u - job->buptr[i]), k };
      }
  free(at);
  cudaError_t ce = cudaMalloc((void **)&d->dtail, (size_t)(d->toff[nt] > 0 ? d->toff[nt] : 1) * sizeof(double));
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->dclp, (size_t)(ncols + 1) * sizeof(int64_t));
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->dcl, (size_t)(ne > 0 ? ne : 1) * sizeof(cc_cpair));
  if (ce == cudaSuccess) ce = cudaMemcpyAsync(d->dclp, d->clp, (size_t)(ncols + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, d->cp);
  if (ce == cudaSuccess && ne > 0) ce = cudaMemcpyAsync(d->dcl, cl, (size_t)ne * sizeof(cc_cpair), cudaMemcpyHostToDevice, d->cp);
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->dpairs, (size_t)(np > 0 ? np : 1) * sizeof(cc_pair));
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->drmap2, (size_t)(nr > 0 ? nr : 1) * sizeof(int32_t));
  if (ce == cudaSuccess && np > 0) ce = cudaMemcpyAsync(d->dpairs, hp, (size_t)np * sizeof(cc_pair), cudaMemcpyHostToDevice, d->cp);
  if (ce == cudaSuccess && nr > 0) ce = cudaMemcpyAsync(d->drmap2, job->brmap, (size_t)nr * sizeof(int32_t), cudaMemcpyHostToDevice, d->cp);
  if (ce == cudaSuccess) ce = cudaEventCreate(&d->tails);
  if (ce == cudaSuccess) ce = cudaEventCreate(&d->tl0);
  cudaError_t cs = cudaStreamSynchronize(d->cp);   /* hp and cl read */
  free(cl);
  d->hp = hp;
  return cc_ok(ce == cudaSuccess ? cs : ce, "the top's lists from below up");
}

/* The tails from below up (packed by the host's subtree phase, job->tailx) on the copy stream,
 * before the blocks: one DMA from the page-locked buffer (cc_open's), else through the staging
 * or pageable; the event d->tails after it.  Local. */
static int cc_tails_up(const k_lle_chol_top *job, cc_dev *d) {
  size_t bytes = (size_t)d->toff[job->ntail] * sizeof(double);
  cudaError_t ce = cudaEventRecord(d->tl0, d->cp);
  if (ce == cudaSuccess && bytes > 0)
    ce = d->reg == (const void *)job->tailx ? cudaMemcpyAsync(d->dtail, job->tailx, bytes, cudaMemcpyHostToDevice, d->cp)
                                            : cc_stage_up(&d->stg, d->dtail, job->tailx, bytes, d->cp);
  if (ce == cudaSuccess) ce = cudaEventRecord(d->tails, d->cp);
  return cc_ok(ce, "the tails from below up");
}

/* Sizes: the blocks' offsets, the largest update block, dpotrf's workspace; the device
 * buffers, the copy stream and the events.  Local. */
static int cc_alloc(k_backend *be, const k_lle_chol_top *job, cc_dev *d, int *lwork) {
  const k_lle_super *L = job->L;
  int ntop = job->ntop;
  d->off = (int64_t *)malloc((size_t)(ntop + 1) * sizeof(int64_t));
  d->up = (cudaEvent_t *)calloc((size_t)ntop, sizeof(cudaEvent_t));
  d->done = (cudaEvent_t *)calloc((size_t)ntop, sizeof(cudaEvent_t));
  d->b0 = (cudaEvent_t *)calloc((size_t)ntop, sizeof(cudaEvent_t));
  d->b1 = (cudaEvent_t *)calloc((size_t)ntop, sizeof(cudaEvent_t));
  if (!d->off || !d->up || !d->done || !d->b0 || !d->b1) return hy_err(HY_ESYS, "out of memory for %d top supernodes", ntop);
  int64_t cmax = 1;
  int lw = 1;
  d->off[0] = 0;
  for (int i = 0; i < ntop; i++) {
    int64_t s = job->top[i], lda = L->pi[s + 1] - L->pi[s], nc = L->super[s + 1] - L->super[s];
    d->off[i + 1] = d->off[i] + lda * nc;
    for (int64_t u = job->uptr[i]; u < job->uptr[i + 1]; u++) {
      int64_t dd = job->top[job->ud[u]], m = L->pi[dd + 1] - L->pi[dd] - job->up1[u];
      if (m * (job->up2[u] - job->up1[u]) > cmax) cmax = m * (job->up2[u] - job->up1[u]);
    }
  }
  for (int64_t u = 0; job->ntail && u < job->buptr[ntop]; u++) {   /* and the DGEMM pairs from below */
    int64_t s = job->tail_sn[job->bud[u]], k = L->super[s + 1] - L->super[s];
    int64_t mu = L->pi[s + 1] - L->pi[s] - job->bup1[u], nc = job->bup2[u] - job->bup1[u];
    if (cc_gemm_pair(job, k) && mu * nc > cmax) cmax = mu * nc;
  }
  int64_t nr = job->rptr[job->uptr[ntop]];
  HY_CUDA(cudaMalloc((void **)&d->dx, (size_t)(d->off[ntop] > 0 ? d->off[ntop] : 1) * sizeof(double)));
  for (int i = 0; i < ntop; i++) {   /* dpotrf's workspace: the largest of the top's */
    int64_t s = job->top[i];
    int w = 0;
    HY_CUSOLVER(cusolverDnDpotrf_bufferSize(k_cuda_st(be)->cusolver, CUBLAS_FILL_MODE_LOWER,
                                            (int)(L->super[s + 1] - L->super[s]), d->dx + d->off[i],
                                            (int)(L->pi[s + 1] - L->pi[s]), &w));
    if (w > lw) lw = w;
  }
  *lwork = lw;
  HY_CUDA(cudaMalloc((void **)&d->dc, (size_t)cmax * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->dwork, (size_t)lw * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->drmap, (size_t)(nr > 0 ? nr : 1) * sizeof(int32_t)));
  HY_CUDA(cudaMalloc((void **)&d->dinfo, (size_t)ntop * sizeof(int)));
  HY_CUDA(cudaStreamCreateWithFlags(&d->cp, cudaStreamNonBlocking));
  HY_CUDA(cudaEventCreate(&d->t0));
  HY_CUDA(cudaEventCreate(&d->a0));
  HY_CUDA(cudaEventCreate(&d->a1));
  for (; d->nev < ntop; d->nev++) {   /* all four made before nev counts the slot (cc_free destroys them) */
    HY_CUDA(cudaEventCreate(&d->up[d->nev]));
    HY_CUDA(cudaEventCreate(&d->done[d->nev]));
    HY_CUDA(cudaEventCreate(&d->b0[d->nev]));
    HY_CUDA(cudaEventCreate(&d->b1[d->nev]));
  }
  if (nr > 0) HY_CUDA(cudaMemcpyAsync(d->drmap, job->rmap, (size_t)nr * sizeof(int32_t), cudaMemcpyHostToDevice, d->cp));
  return job->ntail ? cc_tails(job, d) : HY_OK;
}

/* The blocks zeroed and assembled on the stream from the job's entry lists (uploaded through
 * the staging where it is open, on the stream); their buffers freed by cc_asm_free once the
 * stream is done.  Local. */
static int cc_asm(k_backend *be, const k_lle_chol_top *job, cc_dev *d) {
  k_cuda_state *cs = k_cuda_st(be);
  const k_lle_super *L = job->L;
  int64_t nc = job->ncols, ne = job->eptr[nc];
  int64_t *cb = (int64_t *)malloc((size_t)(nc > 0 ? nc : 1) * sizeof(int64_t));
  if (!cb) return hy_err(HY_ESYS, "out of memory for %lld top columns", (long long)nc);
  for (int i = 0, g = 0; i < job->ntop; i++) {
    int64_t s = job->top[i], lda = L->pi[s + 1] - L->pi[s];
    for (int64_t c = 0; c < L->super[s + 1] - L->super[s]; c++) cb[g++] = d->off[i] + c * lda;
  }
  cudaError_t ce = cudaMalloc((void **)&d->dcb, (size_t)(nc > 0 ? nc : 1) * sizeof(int64_t));
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->dep, (size_t)(nc + 1) * sizeof(int64_t));
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->der, (size_t)(ne > 0 ? ne : 1) * sizeof(int32_t));
  if (ce == cudaSuccess) ce = cudaMalloc((void **)&d->dev, (size_t)(ne > 0 ? ne : 1) * sizeof(double));
  if (ce == cudaSuccess) ce = cudaMemsetAsync(d->dx, 0, (size_t)d->off[job->ntop] * sizeof(double), cs->stream);
  if (ce == cudaSuccess && nc > 0) ce = cudaMemcpyAsync(d->dcb, cb, (size_t)nc * sizeof(int64_t), cudaMemcpyHostToDevice, cs->stream);
  if (ce == cudaSuccess) ce = cc_stage_up(&d->stg, d->dep, job->eptr, (size_t)(nc + 1) * sizeof(int64_t), cs->stream);
  if (ce == cudaSuccess && ne > 0) ce = cc_stage_up(&d->stg, d->der, job->erow, (size_t)ne * sizeof(int32_t), cs->stream);
  if (ce == cudaSuccess && ne > 0) ce = cc_stage_up(&d->stg, d->dev, job->eval, (size_t)ne * sizeof(double), cs->stream);
  free(cb);   /* a pageable copy up returns once its source is read */
  HY_CALL(cc_ok(ce, "the top's entry lists up"));
  HY_CUDA(cudaEventRecord(d->a0, cs->stream));
  if (nc > 0) {
    cc_assemble<<<(unsigned)((nc + 127) / 128), 128, 0, cs->stream>>>(d->dx, d->dcb, d->dep, d->der, d->dev, nc);
    HY_CUDA_LAUNCH();
  }
  HY_CUDA(cudaEventRecord(d->a1, cs->stream));
  return HY_OK;
}

/* The entry lists' device buffers freed (the stream done with them).  Local. */
static void cc_asm_free(cc_dev *d) {
  void *dev[] = { d->dcb, d->dep, d->der, d->dev };
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  d->dcb = d->dep = NULL; d->der = NULL; d->dev = NULL;
}

/* The handles and stream that cc_node's work goes on: the backend's, or the warm-up's own
 * (cc_warm, on the open's thread). */
typedef struct {
  cublasHandle_t cublas;
  cusolverDnHandle_t cusolver;
  cudaStream_t stream;
  int dry;   /* 1: the warm-up (no events, no wait for the tails) */
} cc_on;

/* Top supernode i on cs's stream: its updates from below (cc_below, then the DGEMM pairs), from
 * the top updaters, dpotrf, dtrsm.  Local. */
static int cc_node(const cc_on *cs, const k_lle_chol_top *job, cc_dev *d, int i, int lwork) {
  const k_lle_super *L = job->L;
  int64_t s = job->top[i];
  int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]);
  double *blk = d->dx + d->off[i];
  const double one = 1, zero = 0;
  if (job->ntail && job->buptr[i + 1] > job->buptr[i]) {   /* the updates from below first */
    if (!cs->dry) HY_CUDA(cudaStreamWaitEvent(cs->stream, d->tails, 0));
    if (!cs->dry) HY_CUDA(cudaEventRecord(d->b0[i], cs->stream));
    cc_below<<<(unsigned)nc, 128, 0, cs->stream>>>(blk, lda, d->dpairs + job->buptr[i], d->dclp + d->gcol[i], d->dcl,
                                                   d->dtail, d->drmap2);
    HY_CUDA_LAUNCH();
    for (int64_t u = job->buptr[i]; u < job->buptr[i + 1]; u++) {   /* then the large pairs, in order */
      const cc_pair &p = d->hp[u];
      if (!p.gemm) continue;
      const double *t = d->dtail + p.toff + p.j0;
      HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_N, CUBLAS_OP_T, p.mu, p.ncol, p.k, &one, t, p.ld, t, p.ld, &zero, d->dc, p.mu));
      int64_t ne = (int64_t)p.mu * p.ncol;
      cc_scatter<<<(unsigned)((ne + 255) / 256), 256, 0, cs->stream>>>(blk, lda, d->dc, p.mu, p.ncol, d->drmap2 + p.roff);
      HY_CUDA_LAUNCH();
    }
  } else if (!cs->dry) HY_CUDA(cudaEventRecord(d->b0[i], cs->stream));
  if (!cs->dry) HY_CUDA(cudaEventRecord(d->b1[i], cs->stream));
  for (int64_t u = job->uptr[i]; u < job->uptr[i + 1]; u++) {
    int j = job->ud[u];
    int64_t dd = job->top[j];
    int ldd = (int)(L->pi[dd + 1] - L->pi[dd]), kd = (int)(L->super[dd + 1] - L->super[dd]);
    int p1 = job->up1[u], m = ldd - p1, ncol = job->up2[u] - p1;
    if (m <= 0 || ncol <= 0) continue;
    const double *ld = d->dx + d->off[j] + p1;
    HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_N, CUBLAS_OP_T, m, ncol, kd, &one, ld, ldd, ld, ldd, &zero, d->dc, m));
    int64_t ne = (int64_t)m * ncol;
    cc_scatter<<<(unsigned)((ne + 255) / 256), 256, 0, cs->stream>>>(blk, lda, d->dc, m, ncol, d->drmap + job->rptr[u]);
    HY_CUDA_LAUNCH();
  }
  HY_CUSOLVER(cusolverDnDpotrf(cs->cusolver, CUBLAS_FILL_MODE_LOWER, nc, blk, lda, d->dwork, lwork, d->dinfo + i));
  if (lda > nc)
    HY_CUBLAS(cublasDtrsm(cs->cublas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT,
                          lda - nc, nc, &one, blk, lda, blk + nc, lda));
  return HY_OK;
}

/* The first non-positive pivot from the dpotrf infos (job->minor), HY_ENUMERIC; HY_OK.  Local. */
static int cc_pivots(const k_lle_chol_top *job, cc_dev *d, k_lle_chol_top *out) {
  int *info = (int *)malloc((size_t)job->ntop * sizeof(int));
  if (!info) return hy_err(HY_ESYS, "out of memory for %d infos", job->ntop);
  cudaError_t ce = cudaMemcpy(info, d->dinfo, (size_t)job->ntop * sizeof(int), cudaMemcpyDeviceToHost);
  int rc = HY_OK;
  for (int i = 0; i < job->ntop && ce == cudaSuccess && rc == HY_OK; i++) {
    if (info[i] < 0) rc = hy_err(HY_ESYS, "cuSOLVER dpotrf: argument %d wrong (top supernode %d)", -info[i], i);
    else if (info[i] > 0) {
      out->minor = job->L->super[job->top[i]] + info[i] - 1;
      rc = HY_ENUMERIC;
    }
  }
  free(info);
  HY_CUDA(ce);
  return rc;
}

/* The set-up of a call's state: the staging, the buffers, events and lists (no values).  Local. */
static int cc_setup(k_backend *be, const k_lle_chol_top *job, cc_dev *d) {
  cc_stage_open(&d->stg, job);
  return cc_alloc(be, job, d, &d->lwork);
}

/* blk(c, c) = 1 for c < nc (the warm-up's unit blocks). */
__global__ void cc_unit(double *blk, int64_t lda, int nc) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < nc) blk[c + (int64_t)c * lda] = 1;
}

/* The warm-up (k_lle_chol_top.warm), launched on w's stream: the top's blocks zeroed with a unit
 * diagonal, the tails zeroed, and every top supernode's work (cc_node) on them, the same calls
 * on the same shapes as the factor's, so that cuBLAS's and cuSOLVER's kernels are loaded (from
 * the libraries' files in a machine's first run, and once in every process: the top's own
 * work 0.141-0.165 s in a first run, 0.049-0.056 s in later ones, 0.027 s after the warm-up,
 * H200 N = 1M) before the top needs them.  Nothing it writes is read by the factor (the
 * blocks and tails are overwritten, the scratch written with beta 0, the infos rewritten).
 * Local. */
static int cc_warm_launch(const cc_on *w, const k_lle_chol_top *job, cc_dev *d) {
  const k_lle_super *L = job->L;
  HY_CUDA(cudaMemsetAsync(d->dx, 0, (size_t)d->off[job->ntop] * sizeof(double), w->stream));
  if (job->ntail && d->dtail) HY_CUDA(cudaMemsetAsync(d->dtail, 0, (size_t)d->toff[job->ntail] * sizeof(double), w->stream));
  for (int i = 0; i < job->ntop; i++) {
    int64_t s = job->top[i];
    int nc = (int)(L->super[s + 1] - L->super[s]);
    if (nc <= 0) continue;
    cc_unit<<<(unsigned)((nc + 255) / 256), 256, 0, w->stream>>>(d->dx + d->off[i], L->pi[s + 1] - L->pi[s], nc);
    HY_CUDA_LAUNCH();
  }
  for (int i = 0; i < job->ntop; i++) HY_CALL(cc_node(w, job, d, i, d->lwork));
  return HY_OK;
}

/* The warm-up's handles and stream (made on the open's thread, the backend's left to it).  Local. */
static int cc_warm_open(k_backend *be, cc_on *w) {
  memset(w, 0, sizeof *w);
  w->dry = 1;
  cublasMath_t mm;
  HY_CUDA(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking));
  HY_CUBLAS(cublasCreate(&w->cublas));
  HY_CUBLAS(cublasSetStream(w->cublas, w->stream));
  HY_CUBLAS(cublasGetMathMode(k_cuda_st(be)->cublas, &mm));   /* the same kernels' choice as the backend's */
  HY_CUBLAS(cublasSetMathMode(w->cublas, mm));
  HY_CUSOLVER(cusolverDnCreate(&w->cusolver));
  HY_CUSOLVER(cusolverDnSetStream(w->cusolver, w->stream));
  return HY_OK;
}

/* The warm-up's handles and stream freed (its work waited for: HY_OK, or the error).  Local. */
static int cc_warm_close(cc_on *w) {
  cudaError_t ce = w->stream ? cudaStreamSynchronize(w->stream) : cudaSuccess;
  if (w->cusolver) cusolverDnDestroy(w->cusolver);
  if (w->cublas) cublasDestroy(w->cublas);
  if (w->stream) cudaStreamDestroy(w->stream);
  memset(w, 0, sizeof *w);
  return cc_ok(ce, "the top's warm-up");
}

/* The k_lle_eig_ops entry chol_top_open (see k_lle_chol_top.opened): the set-up on the
 * caller's thread (this rank's device made current there), with job->reg the tails' buffer
 * page-locked (while the warm-up, job->warm, runs on the device); job->opened the state, or
 * NULL with the error recorded.  Local. */
static int cc_open(k_backend *be, k_lle_chol_top *job) {
  job->opened = NULL;
  cc_dev *dp = (cc_dev *)calloc(1, sizeof *dp);
  if (!dp) return hy_err(HY_ESYS, "out of memory for the top's state");
  double t0 = cc_now();
  int rc = cc_ok(cudaSetDevice(be->device), "cudaSetDevice");
  if (rc == HY_OK) rc = cc_setup(be, job, dp);
  cc_on w;
  memset(&w, 0, sizeof w);
  job->t_warm = 0;
  double tw = cc_now();
  if (rc == HY_OK && job->warm) {   /* launched, then the lock below while it runs */
    rc = cc_warm_open(be, &w);
    if (rc == HY_OK) rc = cc_warm_launch(&w, job, dp);
  }
  size_t bytes = job->ntail && job->toff ? (size_t)job->toff[job->ntail] * sizeof(double) : 0;
  if (rc == HY_OK && job->reg && bytes > 0) {   /* where it cannot (a limit), the staging */
    if (cudaHostRegister((void *)job->tailx, bytes, cudaHostRegisterDefault) == cudaSuccess) dp->reg = (void *)job->tailx;
    else cudaGetLastError();
  }
  if (job->warm) {
    int wc = cc_warm_close(&w);
    if (rc == HY_OK) rc = wc;
    job->t_warm = rc == HY_OK ? cc_now() - tw : 0;   /* with the lock it overlaps */
  }
  job->t_open = cc_now() - t0;
  if (rc != HY_OK) { cc_free(dp); free(dp); return rc; }
  job->opened = dp;
  return HY_OK;
}

/* The k_lle_eig_ops entry (see k_lle_chol_top).  Local. */
static int cc_top(k_backend *be, k_lle_chol_top *job) {
  k_cuda_state *cs = k_cuda_st(be);
  const k_lle_super *L = job->L;
  cc_dev *dp = (cc_dev *)job->opened;   /* opened ahead (cc_open), taken over here */
  job->opened = NULL;
  double t0 = cc_now();
  int rc = HY_OK;
  if (!dp) {
    dp = (cc_dev *)calloc(1, sizeof *dp);
    if (!dp) return hy_err(HY_ESYS, "out of memory for the top's state");
    rc = cc_setup(be, job, dp);
  }
  cc_dev &d = *dp;
  int lwork = d.lwork;
  job->t_alloc = cc_now() - t0;   /* before the tails' copy up */
  if (rc == HY_OK && job->ntail) rc = cc_tails_up(job, &d);
  job->reg_used = d.reg != NULL && d.reg == (const void *)job->tailx;
  double ta = cc_now();
  job->t_up_tails = ta - t0 - job->t_alloc;
  if (rc == HY_OK) rc = cc_ok(cudaEventRecord(d.t0, cs->stream), "cudaEventRecord");
  int on_dev = job->eptr != NULL;   /* the blocks assembled here from the entry lists, not copied up */
  const cc_on on = { cs->cublas, cs->cusolver, cs->stream, 0 };
  if (rc == HY_OK && on_dev) rc = cc_asm(be, job, &d);
  job->t_up_lists = cc_now() - ta;
  for (int i = 0; i < job->ntop && rc == HY_OK; i++) {   /* up: block i (the device works on the earlier ones) */
    int64_t s = job->top[i];
    size_t bytes = (size_t)(d.off[i + 1] - d.off[i]) * sizeof(double);
    cudaError_t ce = on_dev ? cudaSuccess : cc_stage_up(&d.stg, d.dx + d.off[i], job->x + L->px[s], bytes, d.cp);
    if (ce == cudaSuccess && !on_dev) ce = cudaEventRecord(d.up[i], d.cp);
    if (ce == cudaSuccess && !on_dev) ce = cudaStreamWaitEvent(cs->stream, d.up[i], 0);
    if (ce != cudaSuccess) rc = hy_err(HY_ESYS, "CUDA: top block %d up: %s", i, cudaGetErrorString(ce));
    if (rc == HY_OK) rc = cc_node(&on, job, &d, i, lwork);
    if (rc == HY_OK) rc = cc_ok(cudaEventRecord(d.done[i], cs->stream), "cudaEventRecord");
  }
  double t1 = cc_now();
  for (int i = 0; i < job->ntop && rc == HY_OK && (job->back || !job->keep); i++) {   /* back: block i once factored */
    int64_t s = job->top[i];
    size_t bytes = (size_t)(d.off[i + 1] - d.off[i]) * sizeof(double);
    cudaError_t ce = cudaStreamWaitEvent(d.cp, d.done[i], 0);
    if (ce == cudaSuccess) ce = cudaMemcpyAsync(job->x + L->px[s], d.dx + d.off[i], bytes, cudaMemcpyDeviceToHost, d.cp);
    if (ce != cudaSuccess) rc = hy_err(HY_ESYS, "CUDA: top block %d back: %s", i, cudaGetErrorString(ce));
  }
  if (rc == HY_OK) rc = cc_ok(cudaStreamSynchronize(d.cp), "cudaStreamSynchronize");
  if (rc == HY_OK) rc = cc_ok(cudaStreamSynchronize(cs->stream), "cudaStreamSynchronize");
  if (rc == HY_OK) cc_asm_free(&d);   /* else cc_free below (the stream may still hold them) */
  cc_stage_close(&d.stg);   /* after the syncs: cudaFreeHost may wait for the device */
  float ms = 0;
  if (rc == HY_OK && job->ntop > 0) rc = cc_ok(cudaEventElapsedTime(&ms, d.t0, d.done[job->ntop - 1]), "cudaEventElapsedTime");
  job->t_dev_asm = job->t_dev_below = job->t_dev_own = 0;
  for (int i = 0; i < job->ntop && rc == HY_OK; i++) {   /* of it: the updates from below, the top's own, the assembly */
    float mb = 0, mo = 0;
    rc = cc_ok(cudaEventElapsedTime(&mb, d.b0[i], d.b1[i]), "cudaEventElapsedTime");
    if (rc == HY_OK) rc = cc_ok(cudaEventElapsedTime(&mo, d.b1[i], d.done[i]), "cudaEventElapsedTime");
    job->t_dev_below += 1e-3 * mb;
    job->t_dev_own += 1e-3 * mo;
  }
  job->t_dev_tails = 0;
  if (rc == HY_OK && job->ntail) {   /* the tails' DMA (on the copy stream) */
    float mt = 0;
    rc = cc_ok(cudaEventElapsedTime(&mt, d.tl0, d.tails), "cudaEventElapsedTime");
    job->t_dev_tails = 1e-3 * mt;
  }
  if (rc == HY_OK && on_dev) {
    float ma = 0;
    rc = cc_ok(cudaEventElapsedTime(&ma, d.a0, d.a1), "cudaEventElapsedTime");
    job->t_dev_asm = 1e-3 * ma;
  }
  if (rc == HY_OK) rc = cc_pivots(job, &d, job);
  job->bytes = d.off ? ((job->back || !job->keep) + !on_dev) * (double)d.off[job->ntop] * sizeof(double) : 0;
  if (on_dev)
    job->bytes += (double)job->ncols * 2 * sizeof(int64_t) + (double)job->eptr[job->ncols] * (sizeof(int32_t) + sizeof(double));
  if (d.toff) job->bytes += (double)d.toff[job->ntail] * sizeof(double);
  job->t_up = t1 - t0;
  job->ngemm = d.ngemm;
  job->t_dev = 1e-3 * ms;
  job->t_down = cc_now() - t1;
  job->state = NULL;
  if (rc == HY_OK && job->keep) job->state = dp;   /* kept for the solves (chol_top_release) */
  else { cc_free(dp); free(dp); }
  return rc;
}

/* ---- the solves' top part on the kept factor (k_lle_chol_top_solve) ---- */

/* Forward, the updates from the tails into X_i's row r = blockIdx.x: the pairs in order whose
 * columns hold r (its column list, as cc_below), X_i(r, c) -= L_d(its row, :) X_d(:, c), one
 * thread a column c. */
__global__ void cc_fwd_below(double *xs, int64_t ldx, const cc_pair *pairs, const int64_t *clp, const cc_cpair *cl,
                             const double *tails, const double *xy, int64_t ldy, int nrhs) {
  int r = blockIdx.x;
  for (int64_t e = clp[r]; e < clp[r + 1]; e++) {
    cc_cpair cq = cl[e];
    cc_pair p = pairs[cq.q];
    int lo = cq.lo;
    const double *t = tails + p.toff;
    int a = p.j0 + lo;
    for (int c = threadIdx.x; c < nrhs; c += blockDim.x) {
      double acc = 0;
      for (int k = 0; k < p.k; k++) acc = __fma_rn(t[a + (int64_t)k * p.ld], xy[p.yoff + k + (int64_t)c * ldy], acc);
      xs[r + (int64_t)c * ldx] -= acc;
    }
  }
}

/* xs(rm[jj], c) -= cb(jj, c) for jj < m (cb: m x nrhs). */
__global__ void cc_sub_rows(double *xs, int64_t ldx, const double *cb, int m, int nrhs, const int32_t *rm) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (int64_t)m * nrhs) return;
  int jj = (int)(e % m), c = (int)(e / m);
  xs[rm[jj] + (int64_t)c * ldx] -= cb[e];
}

/* tb(r, c) = xt(g[r], c) for r < m (tb: m x nrhs). */
__global__ void cc_gather_rows(double *tb, const double *xt, int64_t ldx, const int32_t *g, int m, int nrhs) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (int64_t)m * nrhs) return;
  int r = (int)(e % m), c = (int)(e / m);
  tb[e] = xt[g[r] + (int64_t)c * ldx];
}

/* The solves' buffers for nrhs columns and (once) the backward gather lists: the rows of top i
 * below its columns as rows of X_top.  Local. */
static int cc_solve_prep(const k_lle_chol_top_solve *sj, cc_dev *d) {
  const k_lle_chol_top *job = sj->job;
  const k_lle_super *L = job->L;
  int ntop = job->ntop, p = sj->nrhs;
  int64_t nt = sj->xoff[ntop], ny = job->ntail ? sj->yoff[job->ntail] : 0, cmax = 1, mmax = 1;
  for (int i = 0; i < ntop; i++) {
    int64_t s = job->top[i], m2 = L->pi[s + 1] - L->pi[s] - (L->super[s + 1] - L->super[s]);
    if (m2 > mmax) mmax = m2;
    for (int64_t u = job->uptr[i]; u < job->uptr[i + 1]; u++)
      if (job->up2[u] - job->up1[u] > cmax) cmax = job->up2[u] - job->up1[u];
  }
  if (p > d->xcap) {
    if (d->dxt) { cudaFree(d->dxt); cudaFree(d->dxy); cudaFree(d->dcs); cudaFree(d->dtb); d->dxt = NULL; }
    HY_CUDA(cudaMalloc((void **)&d->dxt, (size_t)(nt * p + 1) * sizeof(double)));
    HY_CUDA(cudaMalloc((void **)&d->dxy, (size_t)(ny * p + 1) * sizeof(double)));
    HY_CUDA(cudaMalloc((void **)&d->dcs, (size_t)(cmax * p + 1) * sizeof(double)));
    HY_CUDA(cudaMalloc((void **)&d->dtb, (size_t)(mmax * p + 1) * sizeof(double)));
    d->xcap = p;
  }
  if (d->goff) return HY_OK;
  d->goff = (int64_t *)malloc((size_t)(ntop + 1) * sizeof(int64_t));
  int32_t *pos = (int32_t *)malloc((size_t)L->n * sizeof(int32_t));
  if (!d->goff || !pos) { free(pos); return hy_err(HY_ESYS, "out of memory for the solves' gathers"); }
  d->goff[0] = 0;
  for (int i = 0; i < ntop; i++) {
    int64_t s = job->top[i];
    for (int64_t j = L->super[s]; j < L->super[s + 1]; j++) pos[j] = (int32_t)(sj->xoff[i] + j - L->super[s]);
    d->goff[i + 1] = d->goff[i] + L->pi[s + 1] - L->pi[s] - (L->super[s + 1] - L->super[s]);
  }
  int32_t *g = (int32_t *)malloc((size_t)(d->goff[ntop] + 1) * sizeof(int32_t));
  if (!g) { free(pos); return hy_err(HY_ESYS, "out of memory for the solves' gathers"); }
  for (int i = 0; i < ntop; i++) {   /* every row below a top supernode's columns is a top column */
    int64_t s = job->top[i], nc = L->super[s + 1] - L->super[s];
    for (int64_t r = L->pi[s] + nc; r < L->pi[s + 1]; r++) g[d->goff[i] + r - L->pi[s] - nc] = pos[L->s[r]];
  }
  free(pos);
  cudaError_t ce = cudaMalloc((void **)&d->dg, (size_t)(d->goff[ntop] + 1) * sizeof(int32_t));
  if (ce == cudaSuccess) ce = cudaMemcpy(d->dg, g, (size_t)(d->goff[ntop] + 1) * sizeof(int32_t), cudaMemcpyHostToDevice);
  free(g);
  return cc_ok(ce, "the solves' gather lists up");
}

/* Forward of top i on the stream: the tails' updates, the top updaters', L_ii^-1.  Local. */
static int cc_fwd_node(k_backend *be, const k_lle_chol_top_solve *sj, cc_dev *d, int i) {
  k_cuda_state *cs = k_cuda_st(be);
  const k_lle_chol_top *job = sj->job;
  const k_lle_super *L = job->L;
  int64_t s = job->top[i], nt = sj->xoff[job->ntop], ny = job->ntail ? sj->yoff[job->ntail] : 0;
  int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]), p = sj->nrhs;
  double *xs = d->dxt + sj->xoff[i];
  const double one = 1, zero = 0;
  if (job->ntail && job->buptr[i + 1] > job->buptr[i]) {
    cc_fwd_below<<<(unsigned)nc, 32, 0, cs->stream>>>(xs, nt, d->dpairs + job->buptr[i], d->dclp + d->gcol[i], d->dcl,
                                                       d->dtail, d->dxy, ny, p);
    HY_CUDA_LAUNCH();
  }
  for (int64_t u = job->uptr[i]; u < job->uptr[i + 1]; u++) {
    int j = job->ud[u];
    int64_t dd = job->top[j];
    int ldd = (int)(L->pi[dd + 1] - L->pi[dd]), kd = (int)(L->super[dd + 1] - L->super[dd]);
    int p1 = job->up1[u], ncol = job->up2[u] - p1;
    if (ncol <= 0) continue;
    HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_N, CUBLAS_OP_N, ncol, p, kd, &one, d->dx + d->off[j] + p1, ldd,
                          d->dxt + sj->xoff[j], (int)nt, &zero, d->dcs, ncol));
    int64_t ne = (int64_t)ncol * p;
    cc_sub_rows<<<(unsigned)((ne + 255) / 256), 256, 0, cs->stream>>>(xs, nt, d->dcs, ncol, p, d->drmap + job->rptr[u]);
    HY_CUDA_LAUNCH();
  }
  HY_CUBLAS(cublasDtrsm(cs->cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nc, p,
                        &one, d->dx + d->off[i], lda, xs, (int)nt));
  return HY_OK;
}

/* Backward of top i on the stream: X_i -= L_21^T X(its rows below), L_ii^-T.  Local. */
static int cc_bwd_node(k_backend *be, const k_lle_chol_top_solve *sj, cc_dev *d, int i) {
  k_cuda_state *cs = k_cuda_st(be);
  const k_lle_chol_top *job = sj->job;
  const k_lle_super *L = job->L;
  int64_t s = job->top[i], nt = sj->xoff[job->ntop];
  int lda = (int)(L->pi[s + 1] - L->pi[s]), nc = (int)(L->super[s + 1] - L->super[s]), p = sj->nrhs, m2 = lda - nc;
  double *xs = d->dxt + sj->xoff[i];
  const double one = 1, mone = -1;
  if (m2 > 0) {
    int64_t ne = (int64_t)m2 * p;
    cc_gather_rows<<<(unsigned)((ne + 255) / 256), 256, 0, cs->stream>>>(d->dtb, d->dxt, nt, d->dg + d->goff[i], m2, p);
    HY_CUDA_LAUNCH();
    HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_T, CUBLAS_OP_N, nc, p, m2, &mone, d->dx + d->off[i] + nc, lda, d->dtb, m2,
                          &one, xs, (int)nt));
  }
  HY_CUBLAS(cublasDtrsm(cs->cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, nc, p,
                        &one, d->dx + d->off[i], lda, xs, (int)nt));
  return HY_OK;
}

/* The k_lle_eig_ops entry chol_top_solve (see k_lle_chol_top_solve).  Local. */
static int cc_top_solve(k_backend *be, k_lle_chol_top_solve *sj) {
  k_cuda_state *cs = k_cuda_st(be);
  const k_lle_chol_top *job = sj->job;
  cc_dev *d = (cc_dev *)job->state;
  if (!d) return hy_err(HY_ESYS, "chol-nd: the top's solve without its kept factor");
  int ntop = job->ntop, p = sj->nrhs;
  int64_t nt = sj->xoff[ntop], ny = job->ntail ? sj->yoff[job->ntail] : 0;
  HY_CALL(cc_solve_prep(sj, d));
  HY_CUDA(cudaMemcpyAsync(d->dxt, sj->xtop, (size_t)nt * p * sizeof(double), cudaMemcpyHostToDevice, cs->stream));
  if (ny > 0) HY_CUDA(cudaMemcpyAsync(d->dxy, sj->xtail, (size_t)ny * p * sizeof(double), cudaMemcpyHostToDevice, cs->stream));
  for (int i = 0; i < ntop; i++) HY_CALL(cc_fwd_node(be, sj, d, i));
  for (int i = ntop - 1; i >= 0; i--) HY_CALL(cc_bwd_node(be, sj, d, i));
  HY_CUDA(cudaMemcpyAsync(sj->xtop, d->dxt, (size_t)nt * p * sizeof(double), cudaMemcpyDeviceToHost, cs->stream));
  HY_CUDA(cudaStreamSynchronize(cs->stream));
  sj->bytes = (double)(2 * nt + ny) * p * sizeof(double);
  return HY_OK;
}

/* The k_lle_eig_ops entry chol_top_release: the kept factor freed.  Local. */
static void cc_top_release(void *state) {
  cc_dev *d = (cc_dev *)state;
  if (!d) return;
  cc_free(d);
  free(d);
}

/* The entries for the CUDA eigen-solve table (lle_eig_cuda.cu).  Local. */
extern "C" int k_lle_chol_top_cuda(k_backend *be, k_lle_chol_top *job) { return cc_top(be, job); }
extern "C" int k_lle_chol_top_open_cuda(k_backend *be, k_lle_chol_top *job) { return cc_open(be, job); }
extern "C" int k_lle_chol_top_solve_cuda(k_backend *be, k_lle_chol_top_solve *sj) { return cc_top_solve(be, sj); }
extern "C" void k_lle_chol_top_release_cuda(void *state) { cc_top_release(state); }
