/* lle_eig_cuda.cu - lle.eigensolver = gpu-chol on a CUDA device: shift-invert subspace
 * iteration on e^perp (e the constant vector) with a sparse Cholesky factor of
 * P (M + tau I) P^T made on the device by cuSOLVER's low-level csrchol (cusolverSp_LOWLEVEL_
 * PREVIEW.h; deprecated in favour of cuDSS, which is not available here), the fill-reducing
 * order P from cuSOLVER's host METIS nested dissection (or symamd).  Every block operation is
 * on the device in FP64: one csrchol solve per column, the projection away from e (GEMV +
 * GER), Householder QR (geqrf + orgqr), M V by cuSPARSE SpMM (CSR_ALG1, deterministic),
 * H = V^T M V by GEMM, its eigen-decomposition by syevd, V <- V Y, MV <- MV Y and the
 * residual norms by cuBLAS.  The block stays in the permuted order until it is copied back.
 * Nothing here is kept between calls (the call's state lives in an eig_dev on its stack). */
#include "k_cuda.h"
#include "k_lle.h"

#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the csrchol API is deprecated in favour of cuDSS (not available here): no warnings for it */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Wall seconds (monotonic).  Local. */
static double eig_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The call's state: handles, the permuted matrix, the factor, the block and scratch. */
typedef struct {
  cudaStream_t st;
  cublasHandle_t cb;
  cusolverDnHandle_t dn;
  cusparseHandle_t sp;
  cusolverSpHandle_t csp;
  cusparseMatDescr_t descr;
  csrcholInfo_t chol;
  int n, nnz, p;
  int *perm;                     /* host: new row i is old row perm[i] */
  int *rp, *ci, *diag;           /* device: P M P^T (CSR), the diagonal's positions */
  double *val_m, *val_s;         /* device: P M P^T and P (M + tau I) P^T values */
  void *buf;
  double *v, *t, *mv, *r;        /* device: n x p blocks */
  double *h, *w, *qtau, *work, *ones, *colsum;
  int lwork, *devinfo;
} eig_dev;

/* Free what the call allocated (NULL-safe).  Local. */
static void eig_free(eig_dev *d) {
  if (d->chol) cusolverSpDestroyCsrcholInfo(d->chol);
  if (d->descr) cusparseDestroyMatDescr(d->descr);
  if (d->csp) cusolverSpDestroy(d->csp);
  void *dev[] = { d->rp, d->ci, d->diag, d->val_m, d->val_s, d->buf, d->v, d->t, d->mv, d->r,
                  d->h, d->w, d->qtau, d->work, d->ones, d->colsum, d->devinfo };
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  free(d->perm);
}

/* The fill-reducing order on the host (job->perm when given, else cuSOLVER's METIS nested
 * dissection or symamd of M's pattern), P M P^T permuted here (row i = M's row perm[i], its
 * columns renumbered and sorted: deterministic), the diagonal's positions; all of it copied
 * to the device.  Local. */
static int eig_order(const k_lle_eig_job *job, eig_dev *d) {
  int n = d->n, nnz = d->nnz;
  int *rp = (int *)malloc((size_t)(n + 1) * sizeof(int)), *ci = (int *)malloc((size_t)nnz * sizeof(int));
  int *iperm = (int *)malloc((size_t)n * sizeof(int)), *dg = (int *)malloc((size_t)n * sizeof(int));
  double *val = (double *)malloc((size_t)nnz * sizeof(double));
  d->perm = (int *)malloc((size_t)n * sizeof(int));
  if (!rp || !ci || !iperm || !dg || !val || !d->perm) {
    free(rp); free(ci); free(iperm); free(dg); free(val);
    return hy_err(HY_ESYS, "out of memory for the ordering of M (n = %d, nnz = %d)", n, nnz);
  }
  int rc = HY_OK;
  if (job->perm) memcpy(d->perm, job->perm, (size_t)n * sizeof(int));
  else {
    for (int i = 0; i <= n; i++) rp[i] = (int)job->rowptr[i];
    memcpy(ci, job->colind, (size_t)nnz * sizeof(int));
    cusolverStatus_t s = job->ordering == K_LLE_ORD_SYMAMD
                             ? cusolverSpXcsrsymamdHost(d->csp, n, nnz, d->descr, rp, ci, d->perm)
                             : cusolverSpXcsrmetisndHost(d->csp, n, nnz, d->descr, rp, ci, NULL, d->perm);
    if (s != CUSOLVER_STATUS_SUCCESS) rc = hy_err(HY_ESYS, "cuSOLVER host ordering of M failed: status %d", (int)s);
  }
  for (int i = 0; i < n; i++) iperm[d->perm[i]] = i;
  rp[0] = 0;
  for (int i = 0; rc == HY_OK && i < n; i++) {   /* row i of P M P^T, insertion-sorted by column */
    int64_t r = d->perm[i], q0 = rp[i], len = job->rowptr[r + 1] - job->rowptr[r];
    for (int64_t t = 0; t < len; t++) {
      int c = iperm[job->colind[job->rowptr[r] + t]];
      double v = job->val[job->rowptr[r] + t];
      int64_t q = q0 + t;
      while (q > q0 && ci[q - 1] > c) { ci[q] = ci[q - 1]; val[q] = val[q - 1]; q--; }
      ci[q] = c;
      val[q] = v;
    }
    rp[i + 1] = (int)(q0 + len);
    dg[i] = -1;
    for (int64_t q = q0; q < q0 + len; q++)
      if (ci[q] == i) dg[i] = (int)q;
    if (dg[i] < 0) rc = hy_err(HY_EINPUT, "M has no stored diagonal entry in row %d", d->perm[i]);
  }
  cudaError_t ce = cudaSuccess;
  if (rc == HY_OK) ce = cudaMalloc((void **)&d->rp, (size_t)(n + 1) * sizeof(int));
  if (rc == HY_OK && ce == cudaSuccess) ce = cudaMalloc((void **)&d->ci, (size_t)nnz * sizeof(int));
  if (rc == HY_OK && ce == cudaSuccess) ce = cudaMalloc((void **)&d->val_m, (size_t)nnz * sizeof(double));
  if (rc == HY_OK && ce == cudaSuccess) ce = cudaMalloc((void **)&d->diag, (size_t)n * sizeof(int));
  if (rc == HY_OK && ce == cudaSuccess) {
    ce = cudaMemcpy(d->rp, rp, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    if (ce == cudaSuccess) ce = cudaMemcpy(d->ci, ci, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice);
    if (ce == cudaSuccess) ce = cudaMemcpy(d->val_m, val, (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice);
    if (ce == cudaSuccess) ce = cudaMemcpy(d->diag, dg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice);
    if (ce != cudaSuccess) rc = hy_err(HY_ESYS, "CUDA: copying P M P^T to the device failed: %s", cudaGetErrorString(ce));
  }
  free(rp); free(ci); free(iperm); free(dg); free(val);
  return rc;
}

/* s = m, then s[diag[i]] += tau.  One thread per entry, then per row. */
__global__ void eig_shift(const double *__restrict__ m, double *__restrict__ s, int nnz) {
  int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j < nnz) s[j] = m[j];
}
__global__ void eig_add_diag(double *__restrict__ s, const int *__restrict__ diag, int n, double tau) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[diag[i]] += tau;
}
/* x[i] = a.  One thread per entry. */
__global__ void eig_fill(double *__restrict__ x, int64_t n, double a) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a;
}
/* h = (h + h^T) / 2 for the p x p matrix.  One thread. */
__global__ void eig_symmetrise(double *h, int p) {
  for (int i = 0; i < p; i++)
    for (int j = 0; j < i; j++) {
      double a = 0.5 * (h[(size_t)j * p + i] + h[(size_t)i * p + j]);
      h[(size_t)j * p + i] = h[(size_t)i * p + j] = a;
    }
}

/* Device arrays and handles of the call.  Local. */
static int eig_alloc(k_backend *be, eig_dev *d) {
  k_cuda_state *cs = k_cuda_st(be);
  d->st = cs->stream; d->cb = cs->cublas; d->dn = cs->cusolver; d->sp = cs->cusparse;
  HY_CUSOLVER(cusolverSpCreate(&d->csp));
  HY_CUSOLVER(cusolverSpSetStream(d->csp, d->st));
  HY_CUSPARSE(cusparseCreateMatDescr(&d->descr));
  HY_CUSPARSE(cusparseSetMatType(d->descr, CUSPARSE_MATRIX_TYPE_GENERAL));
  HY_CUSPARSE(cusparseSetMatIndexBase(d->descr, CUSPARSE_INDEX_BASE_ZERO));
  size_t n = (size_t)d->n, np = n * (size_t)d->p, p = (size_t)d->p;
  HY_CUDA(cudaMalloc((void **)&d->v, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->t, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->mv, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->r, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->h, p * p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->w, p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->qtau, p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->colsum, p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->ones, n * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&d->devinfo, sizeof(int)));
  eig_fill<<<(unsigned)((n + 255) / 256), 256, 0, d->st>>>(d->ones, (int64_t)n, 1.0);
  HY_CUDA_LAUNCH();
  return HY_OK;
}

/* y = A x for the p columns of x (leading dimension n), one thread per (row, column), the row's
 * entries summed in order (deterministic).  Global kernel. */
__global__ void eig_csr_mm(const int *__restrict__ rp, const int *__restrict__ ci, const double *__restrict__ val, int n,
                           int p, const double *__restrict__ x, double *__restrict__ y) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (int64_t)n * p) return;
  int64_t i = t % n, c = t / n;
  const double *xc = x + c * n;
  double s = 0;
  for (int q = rp[i]; q < rp[i + 1]; q++) s += val[q] * xc[ci[q]];
  y[c * n + i] = s;
}
/* Row sums and absolute row sums of the CSR matrix.  One thread per row. */
__global__ void eig_row_sums(const int *__restrict__ rp, const double *__restrict__ val, int n, double *__restrict__ s,
                             double *__restrict__ a) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = 0, y = 0;
  for (int q = rp[i]; q < rp[i + 1]; q++) { x += val[q]; y += fabs(val[q]); }
  s[i] = x;
  a[i] = y;
}

/* ||M||_1 (M symmetric: the largest absolute row sum) and pair 0, e^T M e and
 * ||M e - lam0 e|| for e = 1/sqrt(n) (M e = row sums / sqrt(n)), from the device's M.  Local. */
static int eig_norms(k_lle_eig_job *job, eig_dev *d) {
  int n = d->n;
  double *hs = (double *)malloc(2 * (size_t)n * sizeof(double));
  if (!hs) return hy_err(HY_ESYS, "out of memory for M's row sums (n = %d)", n);
  eig_row_sums<<<(unsigned)((n + 127) / 128), 128, 0, d->st>>>(d->rp, d->val_m, n, d->r, d->r + n);
  cudaError_t ce = cudaGetLastError();
  if (ce == cudaSuccess) ce = cudaMemcpyAsync(hs, d->r, 2 * (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, d->st);
  if (ce == cudaSuccess) ce = cudaStreamSynchronize(d->st);
  if (ce != cudaSuccess) { free(hs); return hy_err(HY_ESYS, "CUDA: M's row sums failed: %s", cudaGetErrorString(ce)); }
  double e0 = 1.0 / sqrt((double)n), lam0 = 0, res0 = 0, nm = 0;
  for (int i = 0; i < n; i++) { lam0 += e0 * (hs[i] * e0); if (hs[n + i] > nm) nm = hs[n + i]; }
  for (int i = 0; i < n; i++) { double r = hs[i] * e0 - lam0 * e0; res0 += r * r; }
  free(hs);
  job->normm = nm; job->lam0 = lam0; job->res0 = sqrt(res0);
  return HY_OK;
}

/* Analysis, then the factorisation of P (M + tau I) P^T, tau from tau0 tenfold while a
 * pivot is zero or a test solve of the ones vector is not finite.  Local. */
static int eig_factor(k_lle_eig_job *job, eig_dev *d) {
  int n = d->n, nnz = d->nnz;
  double t0 = eig_now();
  HY_CUDA(cudaMalloc((void **)&d->val_s, (size_t)nnz * sizeof(double)));
  HY_CUSOLVER(cusolverSpCreateCsrcholInfo(&d->chol));
  HY_CUSOLVER(cusolverSpXcsrcholAnalysis(d->csp, n, nnz, d->descr, d->rp, d->ci, d->chol));
  HY_CUDA(cudaStreamSynchronize(d->st));
  job->t_analyze = eig_now() - t0;
  t0 = eig_now();
  double tau = job->tau0;
  for (;;) {
    eig_shift<<<(unsigned)((nnz + 255) / 256), 256, 0, d->st>>>(d->val_m, d->val_s, nnz);
    HY_CUDA_LAUNCH();
    eig_add_diag<<<(unsigned)((n + 255) / 256), 256, 0, d->st>>>(d->val_s, d->diag, n, tau);
    HY_CUDA_LAUNCH();
    if (!d->buf) {
      size_t internal = 0, ws = 0;
      HY_CUSOLVER(cusolverSpDcsrcholBufferInfo(d->csp, n, nnz, d->descr, d->val_s, d->rp, d->ci, d->chol, &internal, &ws));
      HY_CUDA(cudaMalloc(&d->buf, ws > 0 ? ws : 1));
      job->factor_bytes = (double)internal;
    }
    HY_CUSOLVER(cusolverSpDcsrcholFactor(d->csp, n, nnz, d->descr, d->val_s, d->rp, d->ci, d->chol, d->buf));
    int pos = -1;
    HY_CUSOLVER(cusolverSpDcsrcholZeroPivot(d->csp, d->chol, 0.0, &pos));
    double nrm = 0;
    if (pos < 0) {
      HY_CUSOLVER(cusolverSpDcsrcholSolve(d->csp, n, d->ones, d->t, d->chol, d->buf));
      HY_CUBLAS(cublasDnrm2(d->cb, n, d->t, 1, &nrm));
    }
    if (pos < 0 && isfinite(nrm)) break;
    tau *= 10;
    if (tau > job->tau_max)
      return hy_err(HY_ENUMERIC, "P (M + tau I) P^T is not positive definite up to tau = %.3g (csrchol: zero "
                    "pivot at %d, test solve %s): M is not positive semidefinite, bad weights?", tau / 10, pos,
                    isfinite(nrm) ? "finite" : "not finite");
  }
  HY_CUDA(cudaStreamSynchronize(d->st));
  job->shift = tau;
  job->t_factor = eig_now() - t0;
  return HY_OK;
}

/* Workspaces of QR / syevd and the SpMM descriptors.  Local. */
static int eig_iter_setup(eig_dev *d) {
  int n = d->n, p = d->p, l1 = 0, l2 = 0, l3 = 0;
  HY_CUSOLVER(cusolverDnDgeqrf_bufferSize(d->dn, n, p, d->v, n, &l1));
  HY_CUSOLVER(cusolverDnDorgqr_bufferSize(d->dn, n, p, p, d->v, n, d->qtau, &l2));
  HY_CUSOLVER(cusolverDnDsyevd_bufferSize(d->dn, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, p, d->h, p, d->w, &l3));
  d->lwork = l1 > l2 ? l1 : l2;
  if (l3 > d->lwork) d->lwork = l3;
  HY_CUDA(cudaMalloc((void **)&d->work, (size_t)(d->lwork > 0 ? d->lwork : 1) * sizeof(double)));
  return HY_OK;
}

/* x <- x - e (e^T x) for the n x p block (e the unit constant vector): GEMV + GER.  Local. */
static int eig_project(eig_dev *d, double *x) {
  double one = 1, zero = 0, minv = -1.0 / d->n;
  HY_CUBLAS(cublasDgemv(d->cb, CUBLAS_OP_T, d->n, d->p, &one, x, d->n, d->ones, 1, &zero, d->colsum, 1));
  HY_CUBLAS(cublasDger(d->cb, d->n, d->p, &minv, d->ones, 1, d->colsum, 1, x, d->n));
  return HY_OK;
}

/* The block v orthonormalised in place (Householder QR: geqrf + orgqr).  Local. */
static int eig_orth(eig_dev *d) {
  HY_CUSOLVER(cusolverDnDgeqrf(d->dn, d->n, d->p, d->v, d->n, d->qtau, d->work, d->lwork, d->devinfo));
  HY_CUSOLVER(cusolverDnDorgqr(d->dn, d->n, d->p, d->p, d->v, d->n, d->qtau, d->work, d->lwork, d->devinfo));
  return HY_OK;
}

/* Rayleigh-Ritz with M: MV = M V, H = V^T MV, H = Y diag(theta) Y^T, V <- V Y, MV <- MV Y;
 * theta and the residual norms ||MV_j - theta_j V_j|| to the host.  Local. */
static int eig_rr(eig_dev *d, double *theta, double *res) {
  int n = d->n, p = d->p;
  double one = 1, zero = 0, *sw;
  eig_csr_mm<<<(unsigned)(((int64_t)n * p + 255) / 256), 256, 0, d->st>>>(d->rp, d->ci, d->val_m, n, p, d->v, d->mv);
  HY_CUDA_LAUNCH();
  HY_CUBLAS(cublasDgemm(d->cb, CUBLAS_OP_T, CUBLAS_OP_N, p, p, n, &one, d->v, n, d->mv, n, &zero, d->h, p));
  eig_symmetrise<<<1, 1, 0, d->st>>>(d->h, p);
  HY_CUDA_LAUNCH();
  HY_CUSOLVER(cusolverDnDsyevd(d->dn, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, p, d->h, p, d->w, d->work,
                               d->lwork, d->devinfo));
  int info = 0;
  HY_CUDA(cudaMemcpyAsync(&info, d->devinfo, sizeof info, cudaMemcpyDeviceToHost, d->st));
  HY_CUDA(cudaMemcpyAsync(theta, d->w, (size_t)p * sizeof(double), cudaMemcpyDeviceToHost, d->st));
  HY_CUBLAS(cublasDgemm(d->cb, CUBLAS_OP_N, CUBLAS_OP_N, n, p, p, &one, d->v, n, d->h, p, &zero, d->t, n));
  sw = d->v; d->v = d->t; d->t = sw;
  HY_CUBLAS(cublasDgemm(d->cb, CUBLAS_OP_N, CUBLAS_OP_N, n, p, p, &one, d->mv, n, d->h, p, &zero, d->t, n));
  sw = d->mv; d->mv = d->t; d->t = sw;
  HY_CUDA(cudaStreamSynchronize(d->st));
  if (info != 0) return hy_err(HY_ENUMERIC, "syevd of the %d x %d Rayleigh-Ritz matrix failed (info %d)", p, p, info);
  HY_CUDA(cudaMemcpyAsync(d->r, d->mv, (size_t)n * p * sizeof(double), cudaMemcpyDeviceToDevice, d->st));
  for (int j = 0; j < p; j++) {
    double a = -theta[j];
    HY_CUBLAS(cublasDaxpy(d->cb, n, &a, d->v + (size_t)j * n, 1, d->r + (size_t)j * n, 1));
    HY_CUBLAS(cublasDnrm2(d->cb, n, d->r + (size_t)j * n, 1, &res[j]));
  }
  return HY_OK;
}

/* The iteration from the start block to convergence (or maxit); the Ritz vectors back in
 * the original order.  Local. */
static int eig_iterate(k_lle_eig_job *job, eig_dev *d) {
  int n = d->n, p = d->p;
  size_t np = (size_t)n * p;
  double *hv = (double *)malloc(np * sizeof(double));
  if (!hv) return hy_err(HY_ESYS, "out of memory for the eigen block (n = %d, p = %d)", n, p);
  for (int c = 0; c < p; c++)
    for (int i = 0; i < n; i++) hv[(size_t)c * n + i] = job->v[(size_t)c * n + d->perm[i]];
  cudaError_t ce = cudaMemcpy(d->v, hv, np * sizeof(double), cudaMemcpyHostToDevice);
  if (ce != cudaSuccess) { free(hv); return hy_err(HY_ESYS, "CUDA: copying the start block failed: %s", cudaGetErrorString(ce)); }
  int rc = eig_iter_setup(d);
  if (rc == HY_OK) rc = eig_orth(d);
  for (int it = 1; rc == HY_OK && it <= job->maxit; it++) {
    double t0 = eig_now();
    for (int c = 0; c < p; c++) {
      cusolverStatus_t s = cusolverSpDcsrcholSolve(d->csp, n, d->v + (size_t)c * n, d->t + (size_t)c * n, d->chol, d->buf);
      if (s != CUSOLVER_STATUS_SUCCESS) { rc = hy_err(HY_ESYS, "cuSOLVER: csrcholSolve failed: status %d", (int)s); break; }
    }
    if (rc == HY_OK && cudaStreamSynchronize(d->st) != cudaSuccess) rc = hy_err(HY_ESYS, "CUDA: the block solves failed");
    job->t_solve += eig_now() - t0;
    t0 = eig_now();
    if (rc == HY_OK) rc = eig_project(d, d->t);
    double *sw = d->v; d->v = d->t; d->t = sw;
    if (rc == HY_OK) rc = eig_orth(d);
    if (rc == HY_OK) rc = eig_rr(d, job->theta, job->res);
    job->t_rr += eig_now() - t0;
    if (rc != HY_OK) break;
    int conv = 0;
    while (conv < job->nconv && job->res[conv] <= job->tol * job->normm) conv++;
    job->converged = conv;
    job->iters = it;
    if (job->progress && job->nconv > 0)
      job->progress(job->progress_arg, job->res[conv < job->nconv ? conv : job->nconv - 1], job->tol * job->normm);
    if (conv == job->nconv) break;
  }
  if (rc == HY_OK) {
    ce = cudaMemcpy(hv, d->v, np * sizeof(double), cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess) rc = hy_err(HY_ESYS, "CUDA: copying the Ritz vectors back failed: %s", cudaGetErrorString(ce));
    for (int c = 0; rc == HY_OK && c < p; c++)
      for (int i = 0; i < n; i++) job->v[(size_t)c * n + d->perm[i]] = hv[(size_t)c * n + i];
  }
  free(hv);
  return rc;
}

/* The k_lle_eig_ops entry (see k_lle.h).  Local. */
static int cuda_eig_si(k_backend *be, k_lle_eig_job *job) {
  if (job->n > INT32_MAX - 1 || job->nnz > INT32_MAX)
    return hy_err(HY_EUSAGE, "gpu-chol: n = %lld, nnz(M) = %lld exceed csrchol's 32-bit indices", (long long)job->n,
                  (long long)job->nnz);
  eig_dev d;
  memset(&d, 0, sizeof d);
  d.n = (int)job->n; d.nnz = (int)job->nnz; d.p = job->p;
  job->iters = job->converged = 0;
  job->t_order = job->t_analyze = job->t_factor = job->t_solve = job->t_rr = 0;
  int rc = eig_alloc(be, &d);
  double t0 = eig_now();
  if (rc == HY_OK) rc = eig_order(job, &d);
  job->t_order = eig_now() - t0;
  job->nnz = d.nnz;
  if (rc == HY_OK) rc = eig_norms(job, &d);
  if (rc == HY_OK) rc = eig_factor(job, &d);
  if (rc == HY_OK) rc = eig_iterate(job, &d);
  cudaStreamSynchronize(d.st);
  eig_free(&d);
  return rc;
}

extern "C" int k_lle_chol_top_cuda(k_backend *be, k_lle_chol_top *job);   /* lle_chol_cuda.cu */
extern "C" int k_lle_chol_top_solve_cuda(k_backend *be, k_lle_chol_top_solve *sj);
extern "C" void k_lle_chol_top_release_cuda(void *state);
extern "C" int k_lle_chol_top_open_cuda(k_backend *be, k_lle_chol_top *job);
extern "C" int k_lle_bsub_open_cuda(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **w);   /* lle_bsub_cuda.cu */
extern "C" int k_lle_bsub_rr_cuda(k_lle_bsub *w, const double *v, double *h);
extern "C" int k_lle_bsub_rotate_cuda(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res,
                                      double *v);
extern "C" void k_lle_bsub_close_cuda(k_lle_bsub *w, double *bytes);
extern "C" double *k_lle_bsub_host_block_cuda(k_lle_bsub *w);
extern "C" int k_lle_bsub_orth_cuda(k_lle_bsub *w, double *v);
extern "C" int k_lle_bsub_resid_cuda(k_lle_bsub *w, const double *x, int nc, const double *val, double *res);

/* The table, filled by field name (C++ before C++20 has no designated initialisers). */
static k_lle_eig_ops make_lle_eig_cuda_ops(void) {
  k_lle_eig_ops o = {};
  o.name = "cuda";
  o.eig_si = cuda_eig_si;
  o.chol_top = k_lle_chol_top_cuda;
  o.chol_top_solve = k_lle_chol_top_solve_cuda;
  o.chol_top_release = k_lle_chol_top_release_cuda;
  o.chol_top_open = k_lle_chol_top_open_cuda;
  o.bsub_device = 1;
  o.bsub_open = k_lle_bsub_open_cuda;
  o.bsub_rr = k_lle_bsub_rr_cuda;
  o.bsub_rotate = k_lle_bsub_rotate_cuda;
  o.bsub_close = k_lle_bsub_close_cuda;
  o.bsub_host_block = k_lle_bsub_host_block_cuda;
  o.bsub_orth = k_lle_bsub_orth_cuda;
  o.bsub_resid = k_lle_bsub_resid_cuda;
  return o;
}
extern "C" const k_lle_eig_ops k_lle_eig_cuda_ops = make_lle_eig_cuda_ops();
