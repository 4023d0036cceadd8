/* lle_eig.c - the sparse eigenproblem of LLE: M = (I - W)^T (I - W) assembled exactly
 * symmetric, and its d + 1 smallest eigenpairs in FP64.
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
#include <unistd.h>
#include <suitesparse/cholmod.h>

/* OpenBLAS (when it is the BLAS behind CHOLMOD) defaults to one thread per core; on a 32-core
 * host the thread start-up and spinning cost more than the flops of small supernodes (N = 20k:
 * 1.5-3 s with 32 threads, 0.09 s with 4).  Set its thread count by problem size unless
 * OPENBLAS_NUM_THREADS is set; looked up at run time, so no link dependency.  Local. */
static int lle_blas_threads(int64_t n) {
  if (getenv("OPENBLAS_NUM_THREADS")) return -1;
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
