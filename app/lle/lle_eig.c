/* lle_eig.c - the sparse eigenproblem of LLE: M = (I - W)^T (I - W) assembled exactly
 * symmetric, and its d + 1 smallest eigenpairs in FP64.  Two sparse solvers: shift-invert
 * (below: Cholesky of M + tau I) and bsvd (further down: LU of B = I - W, M never formed; the
 * default: N = 300k, 4e9 LU flops against 2.7e10 for the Cholesky of M).
 *
 * Why shift-invert with a sparse Cholesky factorisation: the wanted eigenvalues are ~1e-10
 * (N = 2000) down to ~1e-12 (N = 20000) and below against a largest one near 5, so plain
 * Lanczos/Arnoldi on M needs ~ sqrt(5 / 1e-12) iterations and does not converge in practice.
 * With (M + tau I)^-1 the wanted eigenvalues become the largest, 1/(lambda + tau), separated
 * by ratios (lambda_j + tau) / (lambda_p + tau) well below 1.  M is positive semidefinite
 * (singular: the constant vector) so the small shift tau > 0 makes the Cholesky factorisation
 * (CHOLMOD, supernodal, fill-reducing ordering) well defined; tau starts at 1e-13 max(diag M)
 * and grows tenfold if CHOLMOD finds a non-positive pivot.  The iteration is block subspace
 * iteration with Rayleigh-Ritz on M itself (not on the shifted inverse), so eigenvalues and the
 * reported residuals ||M v - lambda v|| are those of M; a pair is converged when its residual
 * is <= tol * ||M||_1 (a backward-error criterion, as SLEPc's EPS_CONV_NORM). */
#include "lle.h"
#include "hybrid.h"
#include "runtime/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include <suitesparse/cholmod.h>
#include <suitesparse/umfpack.h>

/* OpenBLAS (when it is the BLAS behind CHOLMOD) defaults to one thread per core; on a 32-core
 * host the thread start-up and spinning cost more than the flops of small supernodes (N = 20k:
 * 1.5-3 s with 32 threads, 0.09 s with 4).  Set its thread count by problem size unless
 * OPENBLAS_NUM_THREADS is set (its value is returned then); looked up at run time, so no
 * link dependency.  Local. */
static int lle_blas_threads(int64_t n) {
  const char *env = getenv("OPENBLAS_NUM_THREADS");
  if (env && *env) return atoi(env);   /* the user's choice, reported */
  void *self = dlopen(NULL, RTLD_LAZY);
  if (!self) return -1;
  void (*set)(int) = NULL;
  *(void **)&set = dlsym(self, "openblas_set_num_threads");
  int nt = -1;
  if (set) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    nt = (int)(n / 5000);
    if (nt < 1) nt = 1;
    if (nt > 16) nt = 16;
    if (cores > 0 && nt > cores) nt = (int)cores;
    set(nt);
  }
  dlclose(self);
  return nt;
}

/* Threads for the column-parallel loops of bsvd (block solves, B^T B products): one per
 * core up to 8 (the block width), HYBRID_LLE_THREADS overrides.  Local. */
static int lle_threads(void) {
  const char *e = getenv("HYBRID_LLE_THREADS");
  long nt = e && *e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);
  if (nt < 1) nt = 1;
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
static void lle_parallel(int nt, int nc, void (*fn)(void *, int, int), void *arg) {
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

/* LAPACK (Fortran, hidden string lengths last) */
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info, size_t, size_t);
extern void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
                    const int *lda, const double *vl, const double *vu, const int *il,
                    const int *iu, const double *abstol, int *m, double *w, double *z,
                    const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork,
                    const int *liwork, int *info, size_t, size_t, size_t);
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
                    double *work, const int *lwork, int *info);
extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc, size_t, size_t);
extern void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
                    const double *tau, double *work, const int *lwork, int *info);

/* Free an eigen result.  Local. */
void lle_eig_free(lle_eig *e) {
  free(e->val);
  free(e->vec);
  free(e->res);
  memset(e, 0, sizeof *e);
}

/* Grow the CSR arrays of m to hold at least need entries.  Local. */
static int csr_reserve(hy_csr *m, int64_t need, int64_t *cap) {
  if (need <= *cap) return HY_OK;
  int64_t nc = *cap * 2 > need ? *cap * 2 : need;
  int32_t *ci = realloc(m->colind, (size_t)nc * sizeof *ci);
  if (!ci) return hy_err(HY_ESYS, "out of memory assembling M (%lld entries)", (long long)nc);
  m->colind = ci;
  double *v = realloc(m->val, (size_t)nc * sizeof *v);
  if (!v) return hy_err(HY_ESYS, "out of memory assembling M (%lld entries)", (long long)nc);
  m->val = v;
  *cap = nc;
  return HY_OK;
}

/* int32 ascending comparison for qsort.  Local. */
static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* M = I - W - W^T + W^T W.  Entry (i,j) = (delta_ij + S_ij) - (W_ij + W_ji) with
 * S_ij = sum over k ascending of W_ki W_kj, an evaluation order that is the same for (j,i),
 * so M is exactly symmetric.  Local. */
int lle_build_m(int64_t n, int k, const int32_t *nbr, const double *w, hy_csr *m) {
  memset(m, 0, sizeof *m);
  int rc = HY_OK;
  int64_t *tp = NULL;      /* W^T in CSR: for column i, the rows k with W_ki != 0 (ascending) */
  int32_t *ti = NULL;
  double *tv = NULL, *acc = NULL, *wr = NULL, *wc = NULL;
  int32_t *mark = NULL, *list = NULL;
  HY_CALLOC(tp, n + 1);
  for (int64_t r = 0; r < n * k; r++) tp[nbr[r] + 1]++;
  for (int64_t i = 0; i < n; i++) tp[i + 1] += tp[i];
  ti = malloc((size_t)(n * k) * sizeof *ti);
  tv = malloc((size_t)(n * k) * sizeof *tv);
  acc = calloc((size_t)n, sizeof *acc);
  wr = calloc((size_t)n, sizeof *wr);
  wc = calloc((size_t)n, sizeof *wc);
  mark = malloc((size_t)n * sizeof *mark);
  list = malloc((size_t)n * sizeof *list);
  m->rowptr = malloc((size_t)(n + 1) * sizeof *m->rowptr);
  if (!ti || !tv || !acc || !wr || !wc || !mark || !list || !m->rowptr)
    rc = hy_err(HY_ESYS, "out of memory assembling M (n = %lld)", (long long)n);
  int64_t cap = 0;
  if (rc == HY_OK) rc = csr_reserve(m, n * (int64_t)(k + 1) * 4, &cap);
  if (rc == HY_OK) {
    int64_t *fill = malloc((size_t)n * sizeof *fill);
    if (!fill) rc = hy_err(HY_ESYS, "out of memory assembling M");
    else {
      memcpy(fill, tp, (size_t)n * sizeof *fill);
      for (int64_t r = 0; r < n; r++)
        for (int j = 0; j < k; j++) {
          int32_t c = nbr[r * k + j];
          ti[fill[c]] = (int32_t)r;
          tv[fill[c]++] = w[r * k + j];
        }
      free(fill);
    }
  }
  for (int64_t i = 0; i < n; i++) mark[i] = -1;
  m->rowptr[0] = 0;
  int64_t nnz = 0;
  for (int64_t i = 0; rc == HY_OK && i < n; i++) {
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
    rc = csr_reserve(m, nnz + cnt, &cap);
    if (rc) break;
    for (int q = 0; q < cnt; q++) {
      int32_t j = list[q];
      double s = acc[j] + (j == i ? 1.0 : 0.0);
      m->colind[nnz] = j;
      m->val[nnz++] = s - (wr[j] + wc[j]);
    }
    m->rowptr[i + 1] = nnz;
  }
  free(tp); free(ti); free(tv); free(acc); free(wr); free(wc); free(mark); free(list);
  if (rc != HY_OK) { io_csr_free(m); return rc; }
  m->m = m->n = n;
  m->nnz = nnz;
  return HY_OK;
}

/* y = M x for nc columns (column-major, leading dimension n).  Local. */
static void csr_mm(const hy_csr *m, int nc, const double *x, double *y) {
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
static double csr_norm1(const hy_csr *m) {
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
  e->normm = csr_norm1(m);
  for (int j = 0; j < e->nev; j++) {
    if (!y) { e->res[j] = INFINITY; continue; }
    csr_mm(m, 1, e->vec + (size_t)j * n, y);
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
static int orthonormalise(int64_t n, int p, double *v) {
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
static int small_eig(int p, double *h, double *theta) {
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

/* Copy M's upper triangle into a CHOLMOD matrix (stype 1).  Local. */
static cholmod_sparse *to_cholmod(const hy_csr *m, cholmod_common *cc) {
  int64_t n = m->m, nnz = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++) nnz += m->colind[p] >= i;
  /* CSR of the lower triangle == CSC of the upper triangle; take row i's entries j <= i:
   * as column i of a CSC matrix they are the upper triangle entries (j, i), j <= i */
  cholmod_sparse *a = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, cc);
  if (!a) return NULL;
  SuiteSparse_long *ap = a->p, *ai = a->i;
  double *ax = a->x;
  int64_t q = 0;
  for (int64_t i = 0; i < n; i++) {
    ap[i] = q;
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++)
      if (m->colind[p] <= i) { ai[q] = m->colind[p]; ax[q++] = m->val[p]; }
  }
  ap[n] = q;
  return a;
}

/* Shift-invert subspace iteration (see the file comment).  Local. */
int lle_eig_shift_invert(const hy_csr *m, int nev, double tol, int maxit, uint64_t seed, lle_eig *e) {
  int64_t n = m->m;
  memset(e, 0, sizeof *e);
  int p = nev + (nev > 6 ? nev : 6);
  if (p > n) p = (int)n;
  if (n > INT32_MAX) return hy_err(HY_EUSAGE, "n = %lld exceeds the LAPACK 32-bit limit", (long long)n);
  cholmod_common cc;
  cholmod_l_start(&cc);
  cc.print = 0;
  cc.error_handler = NULL;
  cholmod_sparse *a = to_cholmod(m, &cc);
  cholmod_factor *L = NULL;
  cholmod_dense *b = NULL, *z = NULL;
  double *v = NULL, *mv = NULL, *h = NULL, *theta = NULL, *tmp = NULL;
  int rc = HY_OK;
  if (!a) rc = hy_err(HY_ESYS, "CHOLMOD could not allocate M (status %d)", cc.status);
  double t0 = MPI_Wtime();
  const char *ord = getenv("HYBRID_LLE_ORDERING");   /* experiments: amd | metis | nesdis */
  if (ord && *ord) {
    cc.nmethods = 1;
    cc.method[0].ordering = !strcmp(ord, "metis") ? CHOLMOD_METIS : !strcmp(ord, "nesdis") ? CHOLMOD_NESDIS : CHOLMOD_AMD;
  }
  const char *sn = getenv("HYBRID_LLE_SUPERNODAL");  /* experiments: 0 simplicial, 1 supernodal */
  if (sn && *sn) cc.supernodal = atoi(sn) ? CHOLMOD_SUPERNODAL : CHOLMOD_SIMPLICIAL;
  e->blas_threads = lle_blas_threads(n);
  if (rc == HY_OK) {
    L = cholmod_l_analyze(a, &cc);
    if (!L) rc = hy_err(HY_ESYS, "CHOLMOD analyze failed (status %d)", cc.status);
  }
  e->t_analyze = MPI_Wtime() - t0;
  double dmax = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t q = m->rowptr[i]; q < m->rowptr[i + 1]; q++)
      if (m->colind[q] == i && m->val[q] > dmax) dmax = m->val[q];
  double tau = 1e-13 * (dmax > 0 ? dmax : 1);
  while (rc == HY_OK) {
    double beta[2] = { tau, 0 };
    if (!cholmod_l_factorize_p(a, beta, NULL, 0, L, &cc) && cc.status < CHOLMOD_OK) {
      rc = hy_err(HY_ESYS, "CHOLMOD factorisation failed (status %d)", cc.status);
      break;
    }
    if (cc.status == CHOLMOD_NOT_POSDEF || L->minor < L->n) {
      tau *= 10;
      if (tau > 1e-6 * (dmax > 0 ? dmax : 1)) {
        rc = hy_err(HY_ENUMERIC, "M + tau I is not positive definite up to tau = %.3g "
                    "(M is not positive semidefinite: bad weights?)", tau / 10);
        break;
      }
      continue;
    }
    break;
  }
  e->shift = tau;
  e->t_factor = MPI_Wtime() - t0;
  e->lnz = cc.lnz;
  e->flops = cc.fl;
  e->ordering = L ? (int)L->ordering : -1;
  t0 = MPI_Wtime();
  e->nev = nev;
  if (rc == HY_OK) {
    b = cholmod_l_allocate_dense((size_t)n, (size_t)p, (size_t)n, CHOLMOD_REAL, &cc);
    v = malloc((size_t)n * p * sizeof *v);
    mv = malloc((size_t)n * p * sizeof *mv);
    tmp = malloc((size_t)n * p * sizeof *tmp);
    h = malloc((size_t)p * p * sizeof *h);
    theta = malloc((size_t)p * sizeof *theta);
    e->val = malloc((size_t)nev * sizeof *e->val);
    e->vec = malloc((size_t)n * nev * sizeof *e->vec);
    e->res = malloc((size_t)nev * sizeof *e->res);
    if (!b || !v || !mv || !tmp || !h || !theta || !e->val || !e->vec || !e->res)
      rc = hy_err(HY_ESYS, "out of memory for the eigensolver block (n = %lld, p = %d)", (long long)n, p);
  }
  if (rc == HY_OK) {
    /* start: the constant vector and seeded random vectors */
    for (int64_t i = 0; i < n; i++) v[i] = 1.0;
    for (int c = 1; c < p; c++)
      for (int64_t i = 0; i < n; i++) v[(size_t)c * n + i] = hy_rand_u01(seed, 0x1e16 + c, (uint64_t)i) - 0.5;
    rc = orthonormalise(n, p, v);
  }
  e->normm = csr_norm1(m);
  int it = 0;
  for (it = 1; rc == HY_OK && it <= maxit; it++) {
    memcpy(b->x, v, (size_t)n * p * sizeof *v);
    z = cholmod_l_solve(CHOLMOD_A, L, b, &cc);
    if (!z) { rc = hy_err(HY_ESYS, "CHOLMOD solve failed (status %d)", cc.status); break; }
    memcpy(v, z->x, (size_t)n * p * sizeof *v);
    cholmod_l_free_dense(&z, &cc);
    rc = orthonormalise(n, p, v);
    if (rc) break;
    /* Rayleigh-Ritz with M: H = V^T M V */
    csr_mm(m, p, v, mv);
    for (int i = 0; i < p; i++)
      for (int j = i; j < p; j++) {
        double s = 0;
        for (int64_t r = 0; r < n; r++) s += v[(size_t)i * n + r] * mv[(size_t)j * n + r];
        h[(size_t)j * p + i] = s;
      }
    for (int i = 0; i < p; i++)
      for (int j = 0; j < i; j++) h[(size_t)j * p + i] = h[(size_t)i * p + j];
    rc = small_eig(p, h, theta);
    if (rc) break;
    /* V <- V Y, MV <- MV Y */
    for (int pass = 0; pass < 2; pass++) {
      double *src = pass ? mv : v;
      for (int j = 0; j < p; j++) {
        double *dst = tmp + (size_t)j * n;
        memset(dst, 0, (size_t)n * sizeof *dst);
        for (int l = 0; l < p; l++) {
          double y = h[(size_t)j * p + l];
          const double *s = src + (size_t)l * n;
          for (int64_t r = 0; r < n; r++) dst[r] += y * s[r];
        }
      }
      memcpy(src, tmp, (size_t)n * p * sizeof *tmp);
    }
    int conv = 0;
    for (int j = 0; j < nev; j++) {
      double s = 0;
      for (int64_t r = 0; r < n; r++) {
        double d = mv[(size_t)j * n + r] - theta[j] * v[(size_t)j * n + r];
        s += d * d;
      }
      e->res[j] = sqrt(s);
      e->val[j] = theta[j];
      if (e->res[j] <= tol * e->normm) conv++;
      else break;
    }
    e->converged = conv;
    e->iters = it;
    if (conv == nev) break;
  }
  if (rc == HY_OK) {
    memcpy(e->vec, v, (size_t)n * nev * sizeof *v);
    lle_eig_residuals(m, e);
  }
  e->t_iter = MPI_Wtime() - t0;
  cholmod_l_free_dense(&b, &cc);
  cholmod_l_free_factor(&L, &cc);
  cholmod_l_free_sparse(&a, &cc);
  cholmod_l_finish(&cc);
  free(v); free(mv); free(h); free(theta); free(tmp);
  if (rc != HY_OK) lle_eig_free(e);
  return rc;
}

/* The nev smallest eigenpairs of M by LAPACK dsyevr on the dense matrix.  Local. */
int lle_eig_dense(const hy_csr *m, int nev, lle_eig *e) {
  int64_t n = m->m;
  memset(e, 0, sizeof *e);
  if ((double)n * n * 8 > (double)io_mem_limit() / 2 || n > 46000)
    return hy_err(HY_EUSAGE, "eigensolver = dense needs an n x n matrix: n = %lld is too large "
                  "(use eigensolver = shift-invert)", (long long)n);
  double t0 = MPI_Wtime();
  double *a = NULL;
  HY_CALLOC(a, (size_t)n * n);
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++) a[(size_t)m->colind[p] * n + i] = m->val[p];
  int nn = (int)n, il = 1, iu = nev, mfound = 0, info = 0, lwork = -1, liwork = -1, iq;
  double vl = 0, vu = 0, abstol = 0, q;
  int *isuppz = NULL;
  e->nev = nev;
  e->val = malloc((size_t)n * sizeof *e->val);
  e->vec = malloc((size_t)n * nev * sizeof *e->vec);
  e->res = malloc((size_t)nev * sizeof *e->res);
  isuppz = malloc((size_t)2 * nev * sizeof *isuppz);
  if (!e->val || !e->vec || !e->res || !isuppz) {
    free(a); free(isuppz); lle_eig_free(e);
    return hy_err(HY_ESYS, "out of memory for the dense eigensolver");
  }
  dsyevr_("V", "I", "U", &nn, a, &nn, &vl, &vu, &il, &iu, &abstol, &mfound, e->val, e->vec, &nn,
          isuppz, &q, &lwork, &iq, &liwork, &info, 1, 1, 1);
  lwork = (int)q + 1;
  liwork = iq;
  double *work = malloc((size_t)lwork * sizeof *work);
  int *iwork = malloc((size_t)liwork * sizeof *iwork);
  if (work && iwork)
    dsyevr_("V", "I", "U", &nn, a, &nn, &vl, &vu, &il, &iu, &abstol, &mfound, e->val, e->vec, &nn,
            isuppz, work, &lwork, iwork, &liwork, &info, 1, 1, 1);
  else info = -1000;
  free(work); free(iwork); free(isuppz); free(a);
  if (info || mfound != nev) {
    lle_eig_free(e);
    return hy_err(HY_ENUMERIC, "dsyevr failed (info %d, %d of %d eigenpairs)", info, mfound, nev);
  }
  e->iters = 1;
  e->converged = nev;
  e->t_factor = MPI_Wtime() - t0;
  lle_eig_residuals(m, e);
  return HY_OK;
}

/* ---------------------------------------------------------------------------------------
 * eigensolver = bsvd: the eigenvectors of M = B^T B, B = I - W, are the right singular
 * vectors of B, so M^-1 can be applied as B^-1 B^-T with a sparse LU of B (K + 1 nonzeros a
 * row) instead of a Cholesky factorisation of M (~K^2 a row, far more fill: N = 100k, 4.5e9
 * flops for M against ~1e8 for B); M itself is never assembled (applied as B^T (B x)).
 *
 * B is singular: its rows sum to 1 - sum_j W_ij = 0, so B e = 0 for the unit constant vector
 * e; its left null vector q (B^T q = 0) is not known in advance.  We do not shift B (the
 * singular vectors of B + sigma I are not those of B).  Instead factor the nonsingular
 * rank-one modification C = B + delta e_k e_k^T (one diagonal entry changed) and use the
 * exact identities, for x _|_ e (= range B^T) and y _|_ q (= range B):
 *   C^-T x = B^+T x + beta q   (beta = -(B^+T x)_k / q_k)        so  B^+T x = P_q C^-T x
 *   C^-1 y = B^+  y + alpha e  (alpha = -(B^+ y)_k / e_k)        so  B^+  y = P_e C^-1 y
 * (check: C^T (B^+T x + beta q) = x + delta e_k ((B^+T x)_k + beta q_k) = x, using
 * B^T B^+T x = x on range B^T and B^T q = 0; the same for C with B e = 0), with P_q, P_e
 * the orthogonal projectors away from q and e.  And C^T q = delta q_k e_k, so q is C^-T e_k
 * up to scale: one extra solve.  Hence M^+ x = P_e C^-1 P_q C^-T x exactly, the constant
 * eigenvector (lambda = 0, dropped by LLE) is deflated explicitly, and the iteration runs on
 * e^perp with the pseudo-inverse, i.e. shift-invert at sigma = 0 with no shift at all.
 * C is singular exactly when q_k = 0 and ill-conditioned when |q_k| << rms(q) (beta is
 * then large and cancels in P_q); k = argmax (W^T)^2 1 (a guess of argmax |q|, see
 * bmat_pick_k), moved once to the computed argmax |q_i| if |q_k| < 0.1 rms(q).  delta = 1
 * keeps C on the scale of B (unit diagonal).
 * Conditioning: cond(C) ~ sqrt(cond(M + tau I)), and Rayleigh-Ritz uses M = B^T B itself, so
 * the eigenvalues and the residuals ||M v - lambda v|| are those of M, as for shift-invert.
 * --------------------------------------------------------------------------------------- */

/* B = I - W as CSR with sorted columns, each row the diagonal and its k neighbours; as a CSC
 * array it is B^T, the matrix given to UMFPACK. */
typedef struct {
  int64_t n;
  int k1;                 /* entries a row: k + 1 */
  SuiteSparse_long *p, *i;
  double *x;
} lle_bmat;

/* Free B.  Local. */
static void bmat_free(lle_bmat *b) {
  free(b->p); free(b->i); free(b->x);
  memset(b, 0, sizeof *b);
}

/* B = I - W from the neighbour lists (sorted columns, exact -w values).  Local. */
static int bmat_build(int64_t n, int k, const int32_t *nbr, const double *w, lle_bmat *b) {
  memset(b, 0, sizeof *b);
  b->n = n;
  b->k1 = k + 1;
  int64_t nnz = n * (k + 1);
  b->p = malloc((size_t)(n + 1) * sizeof *b->p);
  b->i = malloc((size_t)nnz * sizeof *b->i);
  b->x = malloc((size_t)nnz * sizeof *b->x);
  if (!b->p || !b->i || !b->x) { bmat_free(b); return hy_err(HY_ESYS, "out of memory for B = I - W (n = %lld)", (long long)n); }
  for (int64_t r = 0; r < n; r++) {
    SuiteSparse_long *ci = b->i + r * (k + 1);
    double *cx = b->x + r * (k + 1);
    int cnt = 0;
    ci[cnt] = r; cx[cnt++] = 1.0;
    for (int j = 0; j < k; j++) {
      SuiteSparse_long c = nbr[r * k + j];
      double v = -w[r * k + j];
      int a = cnt++;             /* insertion sort by column; a neighbour is never r itself */
      while (a > 0 && ci[a - 1] > c) { ci[a] = ci[a - 1]; cx[a] = cx[a - 1]; a--; }
      ci[a] = c; cx[a] = v;
    }
    b->p[r] = r * (k + 1);
  }
  b->p[n] = nnz;
  return HY_OK;
}

/* Y = B^T B X for nc columns (leading dimension n); t: n scratch.  Local. */
static void bmat_btb(const lle_bmat *b, int nc, const double *x, double *y, double *t) {
  int64_t n = b->n;
  for (int c = 0; c < nc; c++) {
    const double *xc = x + (size_t)c * n;
    double *yc = y + (size_t)c * n;
    for (int64_t r = 0; r < n; r++) {
      double s = 0;
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) s += b->x[q] * xc[b->i[q]];
      t[r] = s;
    }
    memset(yc, 0, (size_t)n * sizeof *yc);
    for (int64_t r = 0; r < n; r++) {
      double tr = t[r];
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) yc[b->i[q]] += b->x[q] * tr;
    }
  }
}

/* Arguments of Y = B^T B X split by columns over threads. */
typedef struct {
  const lle_bmat *b;
  const double *x;
  double *y, *t;   /* t: n scratch per column */
} btb_job;

/* Columns [c0, c1) of Y = B^T B X.  Local. */
static void btb_part(void *arg, int c0, int c1) {
  const btb_job *j = arg;
  size_t n = (size_t)j->b->n;
  bmat_btb(j->b, c1 - c0, j->x + c0 * n, j->y + c0 * n, j->t + c0 * n);
}

/* Y = B^T B X for nc columns on nt threads; t: n x nc scratch.  Local. */
static void bmat_btb_par(const lle_bmat *b, int nt, int nc, const double *x, double *y, double *t) {
  btb_job j = { b, x, y, t };
  lle_parallel(nt, nc, btb_part, &j);
}

/* (index, value) of one contribution B_rj B_ri to M_ij, for bmat_btb_norm1. */
typedef struct { int64_t i; double v; } lle_pair;

/* lle_pair by index, then value (a total order: the same sums on every run).  Local. */
static int cmp_pair(const void *a, const void *b) {
  const lle_pair *x = a, *y = b;
  if (x->i != y->i) return (x->i > y->i) - (x->i < y->i);
  return (x->v > y->v) - (x->v < y->v);
}

/* ||B^T B||_1 exactly without storing M.  Summing every column of M costs a cache miss per
 * (row of B, column) pair (N = 100k: 0.6 s); instead the upper bounds
 * u_j = (|B|^T |B| 1)_j >= sum_i |M_ij| (two streaming sweeps) leave few columns that can
 * attain the maximum: the column of the largest u_j gives a lower bound L, and only the
 * columns with u_j > L are summed, up to 4096 at a time in one sweep over B that collects
 * their contributions B_rj B_r: (N = 300k: 1 column).  Local. */
static int bmat_btb_norm1(const lle_bmat *b, double *norm) {
  enum { CHUNK = 4096 };
  int64_t n = b->n;
  double *u = malloc((size_t)n * sizeof *u), *t = malloc((size_t)n * sizeof *t);
  int32_t *slot = malloc((size_t)n * sizeof *slot);
  int64_t *off = malloc((CHUNK + 1) * sizeof *off), *fill = malloc(CHUNK * sizeof *fill);
  int64_t *cand = malloc(CHUNK * sizeof *cand);
  lle_pair *pr = NULL;
  int rc = HY_OK;
  double best = 0;
  *norm = 0;
  if (!u || !t || !slot || !off || !fill || !cand) rc = hy_err(HY_ESYS, "out of memory for ||M||_1 (n = %lld)", (long long)n);
  int64_t jmax = 0;
  if (rc == HY_OK) {
    for (int64_t r = 0; r < n; r++) {
      double s = 0;
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) s += fabs(b->x[q]);
      t[r] = s;
    }
    memset(u, 0, (size_t)n * sizeof *u);
    for (int64_t r = 0; r < n; r++)
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) u[b->i[q]] += fabs(b->x[q]) * t[r];
    for (int64_t j = 0; j < n; j++) { slot[j] = -1; if (u[j] > u[jmax]) jmax = j; }
  }
  int64_t next = 0;   /* columns below next have been considered */
  int first = 1;
  while (rc == HY_OK) {
    /* this round's candidates: the column of max u first, then u_j > best */
    int nc = 0;
    if (first) cand[nc++] = jmax;
    else
      for (; next < n && nc < CHUNK; next++)
        if (next != jmax && u[next] > best * (1 + 1e-12)) cand[nc++] = next;
    if (nc == 0) break;
    for (int c = 0; c < nc; c++) { slot[cand[c]] = c; off[c + 1] = 0; }
    off[0] = 0;
    for (int64_t r = 0; r < n; r++)
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++)
        if (slot[b->i[q]] >= 0) off[slot[b->i[q]] + 1] += b->p[r + 1] - b->p[r];
    for (int c = 0; c < nc; c++) off[c + 1] += off[c];
    free(pr);
    pr = malloc((size_t)(off[nc] ? off[nc] : 1) * sizeof *pr);
    if (!pr) { rc = hy_err(HY_ESYS, "out of memory for ||M||_1 (%lld terms)", (long long)off[nc]); break; }
    for (int c = 0; c < nc; c++) fill[c] = off[c];
    for (int64_t r = 0; r < n; r++)
      for (int64_t q = b->p[r]; q < b->p[r + 1]; q++) {
        int32_t c = slot[b->i[q]];
        if (c < 0) continue;
        for (int64_t a = b->p[r]; a < b->p[r + 1]; a++) {
          pr[fill[c]].i = b->i[a];
          pr[fill[c]++].v = b->x[q] * b->x[a];
        }
      }
    for (int c = 0; c < nc; c++) {
      lle_pair *z = pr + off[c];
      int64_t m = off[c + 1] - off[c];
      qsort(z, (size_t)m, sizeof *z, cmp_pair);
      double s = 0;
      for (int64_t a = 0; a < m;) {
        double e = 0;
        int64_t i = z[a].i;
        for (; a < m && z[a].i == i; a++) e += z[a].v;
        s += fabs(e);
      }
      if (s > best) best = s;
      slot[cand[c]] = -1;
    }
    first = 0;
  }
  *norm = best;
  free(u); free(t); free(slot); free(off); free(fill); free(cand); free(pr);
  return rc;
}

/* Remove the component along the unit vector u (or along e = 1/sqrt(n) when u is NULL) from
 * the nc columns of v.  Local. */
static void project_out(int64_t n, int nc, double *v, const double *u) {
  for (int c = 0; c < nc; c++) {
    double *vc = v + (size_t)c * n, s = 0;
    if (u) {
      for (int64_t i = 0; i < n; i++) s += u[i] * vc[i];
      for (int64_t i = 0; i < n; i++) vc[i] -= s * u[i];
    } else {
      for (int64_t i = 0; i < n; i++) s += vc[i];
      s /= (double)n;
      for (int64_t i = 0; i < n; i++) vc[i] -= s;
    }
  }
}

/* A guess of argmax |q| for the left null vector q of B (q = W^T q): argmax of (W^T)^2 1.
 * q is strongly localised (Swiss roll N = 100k: 92% of its entries below 0.1 of its rms),
 * so an arbitrary k would often give a tiny q_k; two passes found an entry 2.3x the rms
 * where the middle index had 0.017x.  s, t: n scratch.  Local. */
static int64_t bmat_pick_k(const lle_bmat *b, double *s, double *t) {
  int64_t n = b->n, best = 0;
  for (int64_t i = 0; i < n; i++) s[i] = 1.0;
  for (int pass = 0; pass < 2; pass++) {
    memset(t, 0, (size_t)n * sizeof *t);
    for (int64_t r = 0; r < n; r++)
      for (int64_t a = b->p[r]; a < b->p[r + 1]; a++)
        if (b->i[a] != r) t[b->i[a]] -= b->x[a] * s[r];   /* W_rj = -B_rj off the diagonal */
    memcpy(s, t, (size_t)n * sizeof *s);
  }
  for (int64_t i = 1; i < n; i++) if (fabs(s[i]) > fabs(s[best])) best = i;
  return best;
}

/* UMFPACK LU of C^T = (B + delta e_k e_k^T)^T, and its factors extracted for solves with a
 * block of right-hand sides: P R C^T Q = L U (L unit lower triangular by rows, U upper
 * triangular by columns, diagonals last; R the row scaling; pivot row k is row pp[k], pivot
 * column l is column qq[l]).  UMFPACK's own solve takes one vector at a time and reads all of
 * L and U for each (N = 100k: 65 ms a vector); the block solves read them once for p vectors. */
typedef struct {
  void *sym, *num;
  double *cx;             /* C's values in B's pattern (B's with delta added at (k, k)) */
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  int64_t n;
  SuiteSparse_long *lp, *lj, *up, *ui, *pp, *qq;
  int32_t *lj32, *ui32;      /* lj, ui in 32 bits (n < 2^31): 12 bytes an entry per solve, not 16 */
  double *lx, *ux, *r, *z;   /* z: n x nr interleaved scratch */
  int nthreads;              /* threads of the block solves */
} lle_lu;

/* Free the factors.  Local. */
static void lu_free(lle_lu *f) {
  if (f->num) umfpack_dl_free_numeric(&f->num);
  if (f->sym) umfpack_dl_free_symbolic(&f->sym);
  free(f->cx); free(f->lp); free(f->lj); free(f->up); free(f->ui); free(f->pp); free(f->qq);
  free(f->lx); free(f->ux); free(f->r); free(f->z); free(f->lj32); free(f->ui32);
  f->lj32 = f->ui32 = NULL;
  f->cx = f->lx = f->ux = f->r = f->z = NULL;
  f->lp = f->lj = f->up = f->ui = f->pp = f->qq = NULL;
}

/* Copy L, U, P, Q, R out of the numeric object (then freed); scratch for nr vectors.  Local. */
static int lu_extract(lle_lu *f, int64_t n, int nr) {
  SuiteSparse_long lnz = 0, unz = 0, nrow = 0, ncol = 0, nzud = 0, recip = 0;
  if (umfpack_dl_get_lunz(&lnz, &unz, &nrow, &ncol, &nzud, f->num) != UMFPACK_OK)
    return hy_err(HY_ENUMERIC, "UMFPACK: cannot read the LU sizes of B");
  free(f->lp); free(f->lj); free(f->up); free(f->ui); free(f->pp); free(f->qq);   /* a retry */
  free(f->lx); free(f->ux); free(f->r); free(f->z); free(f->lj32); free(f->ui32);
  f->lj32 = f->ui32 = NULL;
  f->n = n;
  f->lp = malloc((size_t)(n + 1) * sizeof *f->lp);
  f->up = malloc((size_t)(n + 1) * sizeof *f->up);
  f->lj = malloc((size_t)(lnz ? lnz : 1) * sizeof *f->lj);
  f->ui = malloc((size_t)(unz ? unz : 1) * sizeof *f->ui);
  f->lx = malloc((size_t)(lnz ? lnz : 1) * sizeof *f->lx);
  f->ux = malloc((size_t)(unz ? unz : 1) * sizeof *f->ux);
  f->pp = malloc((size_t)n * sizeof *f->pp);
  f->qq = malloc((size_t)n * sizeof *f->qq);
  f->r = malloc((size_t)n * sizeof *f->r);
  f->z = malloc((size_t)n * nr * sizeof *f->z);
  if (!f->lp || !f->up || !f->lj || !f->ui || !f->lx || !f->ux || !f->pp || !f->qq || !f->r || !f->z)
    return hy_err(HY_ESYS, "out of memory for the LU factors of B (%.4g nonzeros)", (double)(lnz + unz));
  if (umfpack_dl_get_numeric(f->lp, f->lj, f->lx, f->up, f->ui, f->ux, f->pp, f->qq, NULL, &recip, f->r, f->num) != UMFPACK_OK)
    return hy_err(HY_ENUMERIC, "UMFPACK: cannot extract the LU factors of B");
  if (!recip) for (int64_t i = 0; i < n; i++) f->r[i] = 1.0 / f->r[i];
  for (int64_t j = 0; j < n; j++)   /* documented: diagonals last, U's nonzero (no singular warning) */
    if (f->lp[j + 1] <= f->lp[j] || f->lj[f->lp[j + 1] - 1] != j || f->up[j + 1] <= f->up[j] ||
        f->ui[f->up[j + 1] - 1] != j || f->ux[f->up[j + 1] - 1] == 0)
      return hy_err(HY_ENUMERIC, "UMFPACK: unexpected factor layout at pivot %lld", (long long)j);
  umfpack_dl_free_numeric(&f->num);
  f->lj32 = malloc((size_t)(lnz ? lnz : 1) * sizeof *f->lj32);
  f->ui32 = malloc((size_t)(unz ? unz : 1) * sizeof *f->ui32);
  if (!f->lj32 || !f->ui32) return hy_err(HY_ESYS, "out of memory for the LU factors of B (%.4g nonzeros)", (double)(lnz + unz));
  for (SuiteSparse_long a = 0; a < lnz; a++) f->lj32[a] = (int32_t)f->lj[a];
  for (SuiteSparse_long a = 0; a < unz; a++) f->ui32[a] = (int32_t)f->ui[a];
  free(f->lj); free(f->ui);
  f->lj = f->ui = NULL;
  return HY_OK;
}

/* X = (C^T)^-1 B (trans = 0) or C^-1 B (trans = 1) for nr columns (column-major, leading
 * dimension n; x must not be b).  Inlined with a constant nr by lu_solve.  Local. */
static inline __attribute__((always_inline)) void lu_solve_nr(const lle_lu *f, int trans, int nr, const double *b, double *x,
                                                              double *restrict z) {
  int64_t n = f->n;
  const SuiteSparse_long *lp = f->lp, *up = f->up;
  const int32_t *lj = f->lj32, *ui = f->ui32;
  const double *lx = f->lx, *ux = f->ux;
  if (!trans) {
    /* L U (Q^T x) = P R b */
    for (int64_t k = 0; k < n; k++) {
      SuiteSparse_long i = f->pp[k];
      for (int c = 0; c < nr; c++) z[k * nr + c] = f->r[i] * b[(size_t)c * n + i];
    }
    for (int64_t i = 0; i < n; i++) {
      double *zi = z + i * nr;
      for (SuiteSparse_long a = lp[i]; a < lp[i + 1] - 1; a++) {
        const double *zj = z + (int64_t)lj[a] * nr, l = lx[a];
        for (int c = 0; c < nr; c++) zi[c] -= l * zj[c];
      }
    }
    for (int64_t j = n - 1; j >= 0; j--) {
      double *zj = z + j * nr, d = 1.0 / ux[up[j + 1] - 1];
      for (int c = 0; c < nr; c++) zj[c] *= d;
      for (SuiteSparse_long a = up[j]; a < up[j + 1] - 1; a++) {
        double *zi = z + (int64_t)ui[a] * nr, u = ux[a];
        for (int c = 0; c < nr; c++) zi[c] -= u * zj[c];
      }
    }
    for (int64_t l = 0; l < n; l++) {
      SuiteSparse_long j = f->qq[l];
      for (int c = 0; c < nr; c++) x[(size_t)c * n + j] = z[l * nr + c];
    }
  } else {
    /* C = (C^T)^T = Q U^T L^T P R^-1: U^T L^T (P R^-1 x) = Q^T b */
    for (int64_t l = 0; l < n; l++) {
      SuiteSparse_long j = f->qq[l];
      for (int c = 0; c < nr; c++) z[l * nr + c] = b[(size_t)c * n + j];
    }
    for (int64_t j = 0; j < n; j++) {
      double *zj = z + j * nr;
      for (SuiteSparse_long a = up[j]; a < up[j + 1] - 1; a++) {
        const double *zi = z + (int64_t)ui[a] * nr, u = ux[a];
        for (int c = 0; c < nr; c++) zj[c] -= u * zi[c];
      }
      double d = 1.0 / ux[up[j + 1] - 1];
      for (int c = 0; c < nr; c++) zj[c] *= d;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
      const double *zi = z + i * nr;
      for (SuiteSparse_long a = lp[i]; a < lp[i + 1] - 1; a++) {
        double *zj = z + (int64_t)lj[a] * nr, l = lx[a];
        for (int c = 0; c < nr; c++) zj[c] -= l * zi[c];
      }
    }
    for (int64_t k = 0; k < n; k++) {
      SuiteSparse_long i = f->pp[k];
      for (int c = 0; c < nr; c++) x[(size_t)c * n + i] = f->r[i] * z[k * nr + c];
    }
  }
}

/* lu_solve_nr on nr columns with the widths in use compiled as constants; z: n x nr scratch.  Local. */
static void lu_solve_cols(const lle_lu *f, int trans, int nr, const double *b, double *x, double *z) {
  switch (nr) {
  case 1: lu_solve_nr(f, trans, 1, b, x, z); break;
  case 2: lu_solve_nr(f, trans, 2, b, x, z); break;
  case 4: lu_solve_nr(f, trans, 4, b, x, z); break;
  case 8: lu_solve_nr(f, trans, 8, b, x, z); break;
  default: lu_solve_nr(f, trans, nr, b, x, z); break;
  }
}

/* Arguments of one block solve split by columns over threads. */
typedef struct {
  const lle_lu *f;
  int trans;
  const double *b;
  double *x;
} lu_job;

/* Columns [c0, c1) of a block solve (each range its own slice of the scratch).  Local. */
static void lu_solve_part(void *arg, int c0, int c1) {
  const lu_job *j = arg;
  size_t n = (size_t)j->f->n;
  lu_solve_cols(j->f, j->trans, c1 - c0, j->b + c0 * n, j->x + c0 * n, j->f->z + c0 * n);
}

/* X = (C^T)^-1 B (trans = 0) or C^-1 B (trans = 1), nr columns: each thread streams the
 * factors for its columns (the solves are bound by memory traffic: L and U are read once per
 * thread, the columns of a thread interleaved in its scratch).  Local. */
static void lu_solve(lle_lu *f, int trans, int nr, const double *b, double *x) {
  lu_job j = { f, trans, b, x };
  int nt = f->nthreads;
  /* whole columns per thread in the widths compiled above: 8 -> 2 x 4 or 4 x 2 or 8 x 1 */
  if (nr == 8 && nt >= 2) nt = nt >= 8 ? 8 : nt >= 4 ? 4 : 2;
  lle_parallel(nt, nr, lu_solve_part, &j);
}

/* Residuals ||B^T B v - lambda v|| (normm already set), the products on nt threads.  Local. */
static int bmat_residuals(const lle_bmat *b, int nt, lle_eig *e) {
  int64_t n = b->n;
  double *y = malloc((size_t)n * e->nev * sizeof *y), *t = malloc((size_t)n * e->nev * sizeof *t);
  if (!y || !t) { free(y); free(t); return hy_err(HY_ESYS, "out of memory for residuals"); }
  bmat_btb_par(b, nt, e->nev, e->vec, y, t);
  for (int j = 0; j < e->nev; j++) {
    const double *v = e->vec + (size_t)j * n, *yj = y + (size_t)j * n;
    double s = 0;
    for (int64_t i = 0; i < n; i++) { double r = yj[i] - e->val[j] * v[i]; s += r * r; }
    e->res[j] = sqrt(s);
  }
  free(y); free(t);
  return HY_OK;
}

/* Residuals with M applied as B^T B from the neighbour lists and weights.  Local. */
int lle_eig_residuals_w(int64_t n, int k, const int32_t *nbr, const double *w, lle_eig *e) {
  lle_bmat b;
  HY_CALL(bmat_build(n, k, nbr, w, &b));
  int rc = bmat_residuals(&b, lle_threads(), e);
  bmat_free(&b);
  return rc;
}

/* [debug] perturb of every eigenvector (a wrong result for the in-run check).  Local. */
void lle_eig_perturb(lle_eig *e, int64_t n, double rel, uint64_t seed) {
  for (int j = 0; j < e->nev; j++)
    for (int64_t i = 0; i < n; i++)
      e->vec[(size_t)j * n + i] *= 1.0 + rel * (2.0 * hy_rand_u01(seed, 0xbad0 + j, (uint64_t)i) - 1.0);
}

/* The work of bsvd that needs B but not its LU, run beside the (sequential) symbolic
 * analysis and the factorisation. */
typedef struct {
  const lle_bmat *b;
  int p, rc;
  uint64_t seed;
  double *v, *e0, *y, *t;   /* v: n x p start block; e0: the unit constant vector; y, t: n scratch */
  double normm, lam0, res0;
  char msg[512];            /* the thread's error message (its own hy_err record), for the caller */
} bsvd_prep;

/* ||M||_1, pair 0 (the constant vector: lambda_0 = e^T M e = ||B e||^2, rounding level, and
 * its residual) and the seeded start block on e^perp (not yet orthonormal).  Local. */
static void *bsvd_prep_run(void *arg) {
  bsvd_prep *a = arg;
  int64_t n = a->b->n;
  a->rc = bmat_btb_norm1(a->b, &a->normm);
  if (a->rc) {
    snprintf(a->msg, sizeof a->msg, "%s", hy_err_msg());
    return NULL;
  }
  for (int64_t i = 0; i < n; i++) a->e0[i] = 1.0 / sqrt((double)n);
  bmat_btb(a->b, 1, a->e0, a->y, a->t);
  double lam0 = 0, res0 = 0;
  for (int64_t i = 0; i < n; i++) lam0 += a->e0[i] * a->y[i];
  for (int64_t i = 0; i < n; i++) { double r = a->y[i] - lam0 * a->e0[i]; res0 += r * r; }
  a->lam0 = lam0;
  a->res0 = sqrt(res0);
  for (int c = 0; c < a->p; c++)
    for (int64_t i = 0; i < n; i++) a->v[(size_t)c * n + i] = hy_rand_u01(a->seed, 0x1e16 + c + 1, (uint64_t)i) - 0.5;
  project_out(n, a->p, a->v, NULL);
  return NULL;
}

/* Subspace iteration with M^+ from an LU of B (see above).  Local. */
int lle_eig_bsvd(int64_t n, int k, const int32_t *nbr, const double *w, const char *ordering, int nev,
                 double tol, int maxit, uint64_t seed, lle_eig *e) {
  memset(e, 0, sizeof *e);
  if (n > INT32_MAX) return hy_err(HY_EUSAGE, "n = %lld exceeds the LAPACK 32-bit limit", (long long)n);
  if (nev < 1 || nev >= n) return hy_err(HY_EUSAGE, "%d eigenpairs of an n = %lld matrix", nev, (long long)n);
  int p = nev - 1 + (nev > 6 ? nev : 6);   /* block on e^perp; with e: nev + max(nev, 6) as shift-invert */
  if (p > n - 1) p = (int)(n - 1);
  lle_bmat b;
  lle_lu f;
  memset(&f, 0, sizeof f);
  double *v = NULL, *mv = NULL, *h = NULL, *theta = NULL, *tmp = NULL, *q = NULL, *y = NULL, *t = NULL;
  double t0 = MPI_Wtime();
  HY_CALL(bmat_build(n, k, nbr, w, &b));
  e->blas_threads = lle_blas_threads(n);
  umfpack_dl_defaults(f.control);
  f.control[UMFPACK_IRSTEP] = 0;      /* the outer iteration corrects; refinement costs 2 SpMVs */
  /* Ordering of B + B^T (UMFPACK's symmetric strategy, chosen by its pattern symmetry 0.86):
   * AMD by default.  Swiss roll, this machine (reference BLAS): N = 300k AMD 4.7e9 flops,
   * analysis 3.0 s, factorisation 9.5 s in all; METIS 4.0e9 flops but analysis 5.4 s, 11.3 s;
   * N = 1M: METIS 28% fewer flops (2.6e10 against 3.6e10) for 2.6x the analysis time, which
   * does not shrink with a faster BLAS.  A nested dissection of our own by BFS level sets
   * (with CAMD below 256-vertex parts) was tried: N = 200k, 3x AMD's flops (Cholesky of
   * B + B^T: 3.9e9 against 1.3e9).  lle.ordering (or HYBRID_LLE_ORDERING: amd | metis |
   * cholmod | best, experiments) chooses. */
  const char *ord = getenv("HYBRID_LLE_ORDERING");
  const char *ordname = ordering && *ordering ? ordering : "amd";
  if (ord && *ord) ordname = ord;
  f.control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_SYMMETRIC;
  f.nthreads = e->solve_threads = lle_threads();
  f.control[UMFPACK_ORDERING] = !strcmp(ordname, "amd") ? UMFPACK_ORDERING_AMD
                                : !strcmp(ordname, "cholmod") ? UMFPACK_ORDERING_CHOLMOD
                                : !strcmp(ordname, "best") ? UMFPACK_ORDERING_BEST : UMFPACK_ORDERING_METIS;
  int rc = HY_OK;
  q = malloc((size_t)n * sizeof *q);
  y = malloc((size_t)n * sizeof *y);
  t = malloc((size_t)n * sizeof *t);
  if (!q || !y || !t) rc = hy_err(HY_ESYS, "out of memory for the LU of B (n = %lld)", (long long)n);
  e->nev = nev;
  if (rc == HY_OK) {
    v = malloc((size_t)n * p * sizeof *v);
    mv = malloc((size_t)n * p * sizeof *mv);
    tmp = malloc((size_t)n * p * sizeof *tmp);
    h = malloc((size_t)p * p * sizeof *h);
    theta = malloc((size_t)p * sizeof *theta);
    e->val = malloc((size_t)nev * sizeof *e->val);
    e->vec = malloc((size_t)n * nev * sizeof *e->vec);
    e->res = malloc((size_t)nev * sizeof *e->res);
    if (!v || !mv || !tmp || !h || !theta || !e->val || !e->vec || !e->res)
      rc = hy_err(HY_ESYS, "out of memory for the eigensolver block (n = %lld, p = %d)", (long long)n, p);
  }
  /* ||M||_1, pair 0 and the start block on another thread during the analysis and the LU */
  bsvd_prep prep = { &b, p, HY_OK, seed, v, e->vec, mv, tmp, 0, 0, 0, "" };
  pthread_t prep_th;
  int prep_started = 0;
  if (rc == HY_OK) {
    prep_started = pthread_create(&prep_th, NULL, bsvd_prep_run, &prep) == 0;
    if (!prep_started) bsvd_prep_run(&prep);
  }
  const double delta = 1.0;
  int64_t kk = rc == HY_OK ? bmat_pick_k(&b, y, t) : 0;
  int64_t nnzb = b.p[n];
  if (rc == HY_OK) {
    f.cx = malloc((size_t)nnzb * sizeof *f.cx);
    if (!f.cx) rc = hy_err(HY_ESYS, "out of memory for the LU of B (n = %lld)", (long long)n);
  }
  if (rc == HY_OK) {
    SuiteSparse_long st = umfpack_dl_symbolic(n, n, b.p, b.i, b.x, &f.sym, f.control, f.info);
    if (st != UMFPACK_OK) rc = hy_err(HY_ENUMERIC, "UMFPACK symbolic analysis of B failed (status %ld)", (long)st);
  }
  /* Numeric->Memory at the size of AMD's estimate of nnz(L + U) (in 8-byte units): UMFPACK's
   * default first allocation is too small for this LU (N = 20k..1M: one costly reallocation
   * of everything and one garbage collection); the estimate is ~2x the peak it reaches. */
  if (rc == HY_OK && f.info[UMFPACK_SYMMETRIC_LUNZ] > 0)
    f.control[UMFPACK_ALLOC_INIT] = -f.info[UMFPACK_SYMMETRIC_LUNZ];
  e->t_analyze = MPI_Wtime() - t0;
  for (int attempt = 0; rc == HY_OK && attempt < 2; attempt++) {
    memcpy(f.cx, b.x, (size_t)nnzb * sizeof *f.cx);
    for (int64_t a = b.p[kk]; a < b.p[kk + 1]; a++) if (b.i[a] == kk) f.cx[a] += delta;
    double tn = MPI_Wtime();
    SuiteSparse_long st = umfpack_dl_numeric(b.p, b.i, f.cx, f.sym, &f.num, f.control, f.info);
    e->t_numeric += MPI_Wtime() - tn;
    if (st != UMFPACK_OK && st != UMFPACK_WARNING_singular_matrix) {
      rc = hy_err(st == UMFPACK_ERROR_out_of_memory ? HY_ESYS : HY_ENUMERIC, "UMFPACK LU of B failed (status %ld)", (long)st);
      break;
    }
    int64_t next = (kk + n / 3 + 1) % n;
    if (st == UMFPACK_OK) {
      tn = MPI_Wtime();
      rc = lu_extract(&f, n, p);
      e->t_extract += MPI_Wtime() - tn;
      if (rc) break;
      /* q = C^-T e_k: the left null vector of B, up to scale */
      memset(y, 0, (size_t)n * sizeof *y);
      y[kk] = 1.0;
      lu_solve(&f, 0, 1, y, q);
      double qn = 0, qmax = 0;
      for (int64_t i = 0; i < n; i++) {
        qn += q[i] * q[i];
        if (fabs(q[i]) > qmax) { qmax = fabs(q[i]); next = i; }
      }
      if (isfinite(qn) && qn > 0 && fabs(q[kk]) >= 0.1 * sqrt(qn / (double)n)) {
        qn = 1.0 / sqrt(qn);
        for (int64_t i = 0; i < n; i++) q[i] *= qn;
        break;
      }
      if (!isfinite(qn)) next = (kk + n / 3 + 1) % n;
    }
    if (attempt == 1) {
      rc = hy_err(HY_ENUMERIC, "B = I - W: B + e_k e_k^T singular or ill-conditioned for two k (last k = %lld): "
                  "W's rows are degenerate", (long long)kk);
      break;
    }
    if (f.num) umfpack_dl_free_numeric(&f.num);
    kk = next;
  }
  if (prep_started) pthread_join(prep_th, NULL);
  if (rc == HY_OK && prep.rc != HY_OK)
    rc = prep_started ? hy_err(prep.rc, "%s", prep.msg) : prep.rc;  /* run here: recorded here */
  e->t_factor = MPI_Wtime() - t0;
  e->lnz = f.info[UMFPACK_LNZ] + f.info[UMFPACK_UNZ];
  e->flops = f.info[UMFPACK_FLOPS];
  e->ordering = (int)f.info[UMFPACK_ORDERING_USED];
  e->shift = 0;
  snprintf(e->method, sizeof e->method, "UMFPACK LU of B + e_k e_k^T, ordering %s", ordname);
  t0 = MPI_Wtime();
  e->normm = prep.normm;
  double lam0 = prep.lam0, res0 = prep.res0;
  if (rc == HY_OK) rc = orthonormalise(n, p, v);
  for (int it = 1; rc == HY_OK && it <= maxit; it++) {
    /* V <- M^+ V = P_e C^-1 P_q C^-T V */
    double ts = MPI_Wtime();
    lu_solve(&f, 0, p, v, tmp);
    project_out(n, p, tmp, q);
    lu_solve(&f, 1, p, tmp, v);
    e->t_solve += MPI_Wtime() - ts;
    project_out(n, p, v, NULL);
    rc = orthonormalise(n, p, v);
    if (rc) break;
    /* Rayleigh-Ritz with M = B^T B: H = V^T M V */
    bmat_btb_par(&b, f.nthreads, p, v, mv, tmp);
    int nn = (int)n;
    double d1 = 1, d0 = 0;
    dgemm_("T", "N", &p, &p, &nn, &d1, v, &nn, mv, &nn, &d0, h, &p, 1, 1);
    for (int i = 0; i < p; i++)
      for (int j = 0; j < i; j++) {
        double s = 0.5 * (h[(size_t)j * p + i] + h[(size_t)i * p + j]);
        h[(size_t)j * p + i] = h[(size_t)i * p + j] = s;
      }
    rc = small_eig(p, h, theta);
    if (rc) break;
    double *sw;   /* V <- V Y, MV <- MV Y through tmp, by pointer swaps */
    dgemm_("N", "N", &nn, &p, &p, &d1, v, &nn, h, &p, &d0, tmp, &nn, 1, 1);
    sw = v; v = tmp; tmp = sw;
    dgemm_("N", "N", &nn, &p, &p, &d1, mv, &nn, h, &p, &d0, tmp, &nn, 1, 1);
    sw = mv; mv = tmp; tmp = sw;
    e->val[0] = lam0;
    e->res[0] = res0;
    int conv = res0 <= tol * e->normm;
    for (int j = 1; conv == j && j < nev; j++) {
      double s = 0;
      for (int64_t r = 0; r < n; r++) {
        double d = mv[(size_t)(j - 1) * n + r] - theta[j - 1] * v[(size_t)(j - 1) * n + r];
        s += d * d;
      }
      e->res[j] = sqrt(s);
      e->val[j] = theta[j - 1];
      if (e->res[j] <= tol * e->normm) conv++;
    }
    e->converged = conv;
    e->iters = it;
    if (conv == nev) break;
  }
  if (rc == HY_OK) {
    memcpy(e->vec + n, v, (size_t)n * (nev - 1) * sizeof *v);
    for (int j = 1; j < nev; j++) e->val[j] = theta[j - 1];
      rc = bmat_residuals(&b, f.nthreads, e);
  }
  e->t_iter = MPI_Wtime() - t0;
  lu_free(&f);
  bmat_free(&b);
  free(v); free(mv); free(h); free(theta); free(tmp); free(q); free(y); free(t);
  if (rc != HY_OK) lle_eig_free(e);
  return rc;
}
