/* lle_eig_common.c - what the lle eigensolvers share: M = (I - W)^T (I - W) assembled exactly
 * symmetric (for shift-invert, dense and output.matrix), its products, norm and residuals, the
 * dense LAPACK helpers of the subspace iterations (QR, Rayleigh-Ritz), the column-parallel
 * threads, and the eigensolver table (each solver in its own file: lle_eig_bsvd.c,
 * lle_eig_si.c, lle_eig_dense.c). */
#include "lle_eig.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

/* OpenBLAS (when it is the BLAS behind CHOLMOD) defaults to one thread per core; on a 32-core
 * host the thread start-up and spinning cost more than the flops of small supernodes (N = 20k:
 * 1.5-3 s with 32 threads, 0.09 s with 4).  Set its thread count by problem size, at most cap
 * (the rank's threads, ctx->threads), unless OPENBLAS_NUM_THREADS is set (its value is returned
 * then); looked up at run time, so no link dependency; 1 for a single-threaded BLAS.  Local. */
int lle_blas_threads(int64_t n, int cap) {
  const char *env = getenv("OPENBLAS_NUM_THREADS");
  if (env && *env) return atoi(env);   /* the user's choice, reported */
  void *self = dlopen(NULL, RTLD_LAZY);
  if (!self) return 1;
  void (*set)(int) = NULL;
  *(void **)&set = dlsym(self, "openblas_set_num_threads");
  int nt = 1;
  if (set) {
    nt = (int)(n / 5000);
    if (nt < 1) nt = 1;
    if (nt > 16) nt = 16;
    if (cap > 0 && nt > cap) nt = cap;
    set(nt);
  }
  dlclose(self);
  return nt;
}

/* OpenBLAS's thread count set to nt, unless OPENBLAS_NUM_THREADS is set (the user's choice)
 * or the BLAS is not OpenBLAS.  Local. */
void lle_blas_set(int nt) {
  const char *env = getenv("OPENBLAS_NUM_THREADS");
  if ((env && *env) || nt < 1) return;
  void *self = dlopen(NULL, RTLD_LAZY);
  if (!self) return;
  void (*set)(int) = NULL;
  *(void **)&set = dlsym(self, "openblas_set_num_threads");
  if (set) set(nt);
  dlclose(self);
}

/* Threads for the column-parallel loops of bsvd (block solves, B^T B products): want
 * (lle.threads, or the rank's threads ctx->threads when the key is 0: lle_solve passes it);
 * at least 1, at most 8 (the block width).  Local. */
int lle_threads(int want) {
  long nt = want > 0 ? want : 1;
  if (nt > 8) nt = 8;
  return (int)nt;
}

/* One thread's share of lle_parallel. */
typedef struct {
  void (*fn)(void *arg, int c0, int c1);
  void *arg;
  int c0, c1;
} lle_task;

/* pthread entry: run one task.  Local. */
static void *lle_task_run(void *p) {
  lle_task *t = p;
  t->fn(t->arg, t->c0, t->c1);
  return NULL;
}

/* Run fn(arg, c0, c1) over the columns [0, nc) split into at most nt contiguous ranges, one
 * thread each (the caller's thread takes the first; a thread that cannot start runs inline).
 * The ranges write disjoint memory.  Local. */
void lle_parallel(int nt, int nc, void (*fn)(void *, int, int), void *arg) {
  enum { MAXT = 8 };
  if (nt > nc) nt = nc;
  if (nt > MAXT) nt = MAXT;
  if (nt <= 1) { fn(arg, 0, nc); return; }
  lle_task task[MAXT];
  pthread_t th[MAXT];
  int started[MAXT] = { 0 };
  for (int t = 0; t < nt; t++) {
    task[t].fn = fn; task[t].arg = arg;
    task[t].c0 = nc * t / nt; task[t].c1 = nc * (t + 1) / nt;
  }
  for (int t = 1; t < nt; t++) started[t] = pthread_create(&th[t], NULL, lle_task_run, &task[t]) == 0;
  fn(arg, task[0].c0, task[0].c1);
  for (int t = 1; t < nt; t++) {
    if (started[t]) pthread_join(th[t], NULL);
    else fn(arg, task[t].c0, task[t].c1);
  }
}

/* lle_parallel_on's job: fn over int ranges. */
typedef struct {
  void (*fn)(void *arg, int c0, int c1);
  void *arg;
} lle_on_job;

/* One range of lle_parallel_on.  Local. */
static void lle_on_part(void *arg, int64_t c0, int64_t c1) {
  const lle_on_job *j = arg;
  j->fn(j->arg, (int)c0, (int)c1);
}

/* lle_parallel on the pool's threads: the same ranges (nc t / nt .. nc (t + 1) / nt, at most
 * 8 of them) without a thread start; a NULL pool runs them as lle_parallel.  Local. */
void lle_parallel_on(k_lle_pool *pool, int nt, int nc, void (*fn)(void *, int, int), void *arg) {
  if (!pool) { lle_parallel(nt, nc, fn, arg); return; }
  if (nt > 8) nt = 8;
  if (nt > k_lle_pool_size(pool)) nt = k_lle_pool_size(pool);
  lle_on_job j = { fn, arg };
  k_lle_pool_for(pool, nt, nc, lle_on_part, &j);
}

/* LAPACK (Fortran, hidden string lengths last); dsyevr_ and dgemm_ in lle_eig.h */
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info, size_t, size_t);
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
                    double *work, const int *lwork, int *info);
extern void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
                    const double *tau, double *work, const int *lwork, int *info);

/* Free an eigen result.  Local. */
void lle_eig_free(lle_eig *e) {
  free(e->val);
  free(e->vec);
  free(e->res);
  memset(e, 0, sizeof *e);
}

/* Grow the CSR arrays of m to hold at least need entries; out of memory is the local fatal
 * error (a stage's local work: it never returns into the caller's collectives).  Local. */
static void csr_reserve(hy_csr *m, int64_t need, int64_t *cap) {
  if (need <= *cap) return;
  int64_t nc = *cap * 2 > need ? *cap * 2 : need;
  int32_t *ci = realloc(m->colind, (size_t)nc * sizeof *ci);
  if (!ci) hy_fatal(HY_ESYS, "out of memory assembling M (%lld entries, %lld bytes of column indices)", (long long)nc,
                    (long long)(nc * (int64_t)sizeof *ci));
  m->colind = ci;
  double *v = realloc(m->val, (size_t)nc * sizeof *v);
  if (!v) hy_fatal(HY_ESYS, "out of memory assembling M (%lld entries, %lld bytes of values)", (long long)nc,
                   (long long)(nc * (int64_t)sizeof *v));
  m->val = v;
  *cap = nc;
}

/* int32 ascending comparison for qsort.  Local. */
static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* M = I - W - W^T + W^T W.  Entry (i,j) = (delta_ij + S_ij) - (W_ij + W_ji) with
 * S_ij = sum over k ascending of W_ki W_kj, an evaluation order that is the same for (j,i),
 * so M is exactly symmetric.  Its work arrays by HY_MALLOC / HY_CALLOC and M's by
 * la_csr_alloc: out of memory is the local fatal error (rank, host, bytes, file:line), never
 * a return into the caller's stage (the old plain mallocs went on to write mark[] after a
 * failed allocation).  Local. */
int lle_build_m(int64_t n, int k, const int32_t *nbr, const double *w, hy_csr *m) {
  memset(m, 0, sizeof *m);
  int64_t *tp = NULL, *fill = NULL;   /* W^T in CSR: for column i, the rows k with W_ki != 0 (ascending) */
  int32_t *ti = NULL;
  double *tv = NULL, *acc = NULL, *wr = NULL, *wc = NULL;
  int32_t *mark = NULL, *list = NULL;
  HY_CALLOC(tp, n + 1);
  for (int64_t r = 0; r < n * k; r++) tp[nbr[r] + 1]++;
  for (int64_t i = 0; i < n; i++) tp[i + 1] += tp[i];
  HY_MALLOC(ti, n * k); HY_MALLOC(tv, n * k);
  HY_CALLOC(acc, n); HY_CALLOC(wr, n); HY_CALLOC(wc, n);
  HY_MALLOC(mark, n); HY_MALLOC(list, n); HY_MALLOC(fill, n);
  int64_t cap = n * (int64_t)(k + 1) * 4;
  la_csr_alloc(m, n, n, cap);   /* room, grown by csr_reserve; nnz set below */
  memcpy(fill, tp, (size_t)n * sizeof *fill);
  for (int64_t r = 0; r < n; r++)
    for (int j = 0; j < k; j++) {
      int32_t c = nbr[r * k + j];
      ti[fill[c]] = (int32_t)r;
      tv[fill[c]++] = w[r * k + j];
    }
  free(fill);
  for (int64_t i = 0; i < n; i++) mark[i] = -1;
  m->rowptr[0] = 0;
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++) {
    int cnt = 0;
#define TOUCH(j)                                                     \
  do {                                                               \
    if (mark[j] != (int32_t)i) {                                     \
      mark[j] = (int32_t)i;                                          \
      acc[j] = 0; wr[j] = 0; wc[j] = 0;                              \
      list[cnt++] = (j);                                             \
    }                                                                \
  } while (0)
    TOUCH((int32_t)i);
    for (int j = 0; j < k; j++) { int32_t c = nbr[i * k + j]; TOUCH(c); wr[c] = w[i * k + j]; }
    for (int64_t p = tp[i]; p < tp[i + 1]; p++) {
      int32_t r = ti[p];
      double wri = tv[p];
      TOUCH(r);
      wc[r] = wri;
      for (int j = 0; j < k; j++) {
        int32_t c = nbr[(int64_t)r * k + j];
        TOUCH(c);
        acc[c] += wri * w[(int64_t)r * k + j];
      }
    }
#undef TOUCH
    if (cnt > 64) qsort(list, (size_t)cnt, sizeof *list, cmp_i32);
    else
      for (int a = 1; a < cnt; a++) {   /* short rows: insertion sort */
        int32_t v = list[a];
        int b = a - 1;
        while (b >= 0 && list[b] > v) { list[b + 1] = list[b]; b--; }
        list[b + 1] = v;
      }
    csr_reserve(m, nnz + cnt, &cap);
    for (int q = 0; q < cnt; q++) {
      int32_t j = list[q];
      double s = acc[j] + (j == i ? 1.0 : 0.0);
      m->colind[nnz] = j;
      m->val[nnz++] = s - (wr[j] + wc[j]);
    }
    m->rowptr[i + 1] = nnz;
  }
  free(tp); free(ti); free(tv); free(acc); free(wr); free(wc); free(mark); free(list);
  m->m = m->n = n;
  m->nnz = nnz;
  return HY_OK;
}

/* y = M x for nc columns (column-major, leading dimension n).  Local. */
void lle_csr_mm(const hy_csr *m, int nc, const double *x, double *y) {
  int64_t n = m->m;
  for (int c = 0; c < nc; c++) {
    const double *xc = x + (size_t)c * n;
    double *yc = y + (size_t)c * n;
    for (int64_t i = 0; i < n; i++) {
      double s = 0;
      for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++) s += m->val[p] * xc[m->colind[p]];
      yc[i] = s;
    }
  }
}

/* ||M||_1 (= ||M||_inf, M symmetric).  Local. */
double lle_csr_norm1(const hy_csr *m) {
  double best = 0;
  for (int64_t i = 0; i < m->m; i++) {
    double s = 0;
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++) s += fabs(m->val[p]);
    if (s > best) best = s;
  }
  return best;
}

/* Residuals and ||M||_1.  Local. */
void lle_eig_residuals(const hy_csr *m, lle_eig *e) {
  int64_t n = m->m;
  double *y = malloc((size_t)n * sizeof *y);
  e->normm = lle_csr_norm1(m);
  for (int j = 0; j < e->nev; j++) {
    if (!y) { e->res[j] = INFINITY; continue; }
    lle_csr_mm(m, 1, e->vec + (size_t)j * n, y);
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
      double r = y[i] - e->val[j] * e->vec[(size_t)j * n + i];
      s += r * r;
    }
    e->res[j] = sqrt(s);
  }
  free(y);
}

/* Orthonormalise the n x p block v in place (Householder QR, LAPACK).  Local. */
int lle_orthonormalise(int64_t n, int p, double *v) {
  int nn = (int)n, info = 0, lwork = -1;
  double q, *tau = NULL, *work = NULL;
  dgeqrf_(&nn, &p, v, &nn, tau, &q, &lwork, &info);
  lwork = (int)q + 1;
  int lw2 = -1;
  dorgqr_(&nn, &p, &p, v, &nn, tau, &q, &lw2, &info);
  if ((int)q + 1 > lwork) lwork = (int)q + 1;
  HY_MALLOC(tau, p);
  work = malloc((size_t)lwork * sizeof *work);
  if (!work) { free(tau); return hy_err(HY_ESYS, "out of memory (QR workspace)"); }
  dgeqrf_(&nn, &p, v, &nn, tau, work, &lwork, &info);
  if (info == 0) dorgqr_(&nn, &p, &p, v, &nn, tau, work, &lwork, &info);
  free(tau);
  free(work);
  if (info) return hy_err(HY_ENUMERIC, "QR of the subspace block failed (LAPACK info %d)", info);
  return HY_OK;
}

/* Symmetric eigen-decomposition of the p x p matrix h (overwritten by the vectors).  Local. */
int lle_small_eig(int p, double *h, double *theta) {
  int info = 0, lwork = -1;
  double q;
  dsyev_("V", "U", &p, h, &p, theta, &q, &lwork, &info, 1, 1);
  lwork = (int)q + 1;
  double *work = NULL;
  HY_MALLOC(work, lwork);
  dsyev_("V", "U", &p, h, &p, theta, work, &lwork, &info, 1, 1);
  free(work);
  if (info) return hy_err(HY_ENUMERIC, "dsyev of the %d x %d Rayleigh quotient failed (info %d)", p, p, info);
  return HY_OK;
}

/* The solvers by name (lle.eigensolver).  Local. */
const lle_eigsolver *lle_eigsolver_find(const char *name) {
  static const lle_eigsolver *const all[] = { &lle_eig_bsvd_solver, &lle_eig_si_solver, &lle_eig_dense_solver,
                                                &lle_eig_gpu_solver, &lle_eig_cnd_solver };
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (!strcmp(all[i]->name, name)) return all[i];
  return NULL;
}

/* M from the local blocks (LTSA, Hessian, modified): row r gathers the blocks of the points
 * whose index list holds r (in ascending point order, an incidence list built once), so every
 * entry is summed over the points in ascending order from 0, and (r, c), (c, r) add the same
 * numbers in the same order: M exactly symmetric, the same for any rank count.  O(n kb^2)
 * work, O(n kb) memory beside M.  Local. */
int lle_build_m_blocks(int64_t n, int kb, const int32_t *idx, const double *blk, hy_csr *m) {
  memset(m, 0, sizeof *m);
  if (n < 1 || n > INT32_MAX || kb < 1 || kb > 65)
    return hy_err(HY_EUSAGE, "M from blocks: n = %lld, block side %d out of range", (long long)n, kb);
  int64_t kk = (int64_t)kb * kb, ne = n * kb;
  int64_t *ip = NULL;          /* incidences of row r: ip[r] .. ip[r+1]-1 in ii (point * kb + a) */
  int64_t *ii = NULL, *fill = NULL;
  HY_CALLOC(ip, n + 1);
  for (int64_t e = 0; e < ne; e++) ip[idx[e] + 1]++;
  for (int64_t r = 0; r < n; r++) ip[r + 1] += ip[r];
  HY_MALLOC(ii, ne);
  HY_MALLOC(fill, n);
  for (int64_t r = 0; r < n; r++) fill[r] = ip[r];
  for (int64_t e = 0; e < ne; e++) ii[fill[idx[e]]++] = e;   /* e ascending: points in order */
  free(fill);
  double *acc = NULL;
  int32_t *mark = NULL, *list = NULL;
  HY_MALLOC(acc, n);
  HY_MALLOC(mark, n);
  HY_MALLOC(list, n);
  for (int64_t r = 0; r < n; r++) mark[r] = -1;
  int64_t cap = ne * 4 > 16 ? ne * 4 : 16, nnz = 0;
  la_csr_alloc(m, n, n, cap);   /* room, grown below; nnz set below */
  m->rowptr[0] = 0;
  for (int64_t r = 0; r < n; r++) {
    int cnt = 0;
    for (int64_t q = ip[r]; q < ip[r + 1]; q++) {
      int64_t i = ii[q] / kb, a = ii[q] % kb;
      const double *row = blk + i * kk + a * kb;
      for (int b = 0; b < kb; b++) {
        int32_t c = idx[i * kb + b];
        if (mark[c] != (int32_t)r) { mark[c] = (int32_t)r; acc[c] = 0; list[cnt++] = c; }
        acc[c] += row[b];
      }
    }
    qsort(list, (size_t)cnt, sizeof *list, cmp_i32);
    if (nnz + cnt > cap) {
      while (nnz + cnt > cap) cap *= 2;
      int32_t *ci = realloc(m->colind, (size_t)cap * sizeof *ci);
      double *cv = ci ? realloc(m->val, (size_t)cap * sizeof *cv) : NULL;
      if (!ci || !cv) hy_fatal(HY_ESYS, "out of memory assembling M (%lld entries)", (long long)cap);
      m->colind = ci;
      m->val = cv;
    }
    for (int q = 0; q < cnt; q++) { m->colind[nnz] = list[q]; m->val[nnz++] = acc[list[q]]; }
    m->rowptr[r + 1] = nnz;
  }
  free(ip); free(ii); free(acc); free(mark); free(list);
  m->m = m->n = n;
  m->nnz = nnz;
  return HY_OK;
}
