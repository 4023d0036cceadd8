/* lle_bsub_cuda.cu - the block work of bsvd's / chol-nd's subspace iteration on the device
 * (lle.iter_block = backend; k_lle_bsub in kernels/k_lle.h): B = I - W goes up once (its
 * 64-bit indices made 32-bit there) and B^T is made from it by cuSPARSE csr2csc (ALG1); per
 * iteration the block V comes up from the host's solves, the constant vector is projected
 * out (GEMV + GER), V is orthonormalised by cuSOLVER geqrf + orgqr, MV = B^T (B V) by two
 * cuSPARSE SpMM (CSR_ALG1, deterministic), H = V^T MV by cuBLAS GEMM goes down; after the
 * host's p x p eigen-decomposition V <- V Y and MV <- MV Y by GEMM, the leading residual norms
 * by AXPY + NRM2, and V goes down for the next solves.  The start block's QR (bsub_orth) and the
 * final residuals (bsub_resid: the eigenvectors up, two SpMM, AXPY + NRM2) run here too.  Deterministic (no atomics).  The
 * state lives from open to close (one solve). */
#include "k_cuda.h"
#include "k_lle.h"

#include <stdlib.h>
#include <string.h>

/* The engine's state. */
struct k_lle_bsub {
  k_backend *be;
  int64_t n;
  int p, nnz;
  int *bp, *bi, *tp, *ti;               /* B and B^T, CSR, 32-bit indices */
  double *bx, *tx;
  double *v, *mv, *t, *tmp;             /* n x p blocks */
  double *ones, *s, *h, *y, *tau, *work;
  int lwork, *info;
  void *spbuf;
  cusparseSpMatDescr_t B, BT;
  cusparseDnMatDescr_t dv, dt, dmv;
  double bytes;
  double *hv;                           /* pinned host n x p block for V (bsub_host_block), or NULL */
};

/* Copy n 64-bit indices into 32-bit ones. */
__global__ void bs_narrow(const int64_t *a, int *b, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = (int)a[i];
}

/* Free the state (NULL-safe).  Local. */
static void bs_free(k_lle_bsub *w) {
  if (!w) return;
  if (w->hv) cudaFreeHost(w->hv);
  if (w->B) cusparseDestroySpMat(w->B);
  if (w->BT) cusparseDestroySpMat(w->BT);
  if (w->dv) cusparseDestroyDnMat(w->dv);
  if (w->dt) cusparseDestroyDnMat(w->dt);
  if (w->dmv) cusparseDestroyDnMat(w->dmv);
  void *dev[] = { w->bp, w->bi, w->tp, w->ti, w->bx, w->tx, w->v, w->mv, w->t, w->tmp, w->ones, w->s, w->h,
                  w->y, w->tau, w->work, w->info, w->spbuf };
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  free(w);
}

/* B up (indices narrowed on the device) and B^T made there.  Local. */
static int bs_upload_b(k_lle_bsub *w, const k_lle_bsub_in *in, cudaStream_t stream, cusparseHandle_t sp) {
  int64_t n = in->n, nnz = w->nnz;
  int64_t *wide = NULL;
  HY_CUDA(cudaMalloc((void **)&w->bp, (size_t)(n + 1) * sizeof(int)));
  HY_CUDA(cudaMalloc((void **)&w->bi, (size_t)nnz * sizeof(int)));
  HY_CUDA(cudaMalloc((void **)&w->bx, (size_t)nnz * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->tp, (size_t)(n + 1) * sizeof(int)));
  HY_CUDA(cudaMalloc((void **)&w->ti, (size_t)nnz * sizeof(int)));
  HY_CUDA(cudaMalloc((void **)&w->tx, (size_t)nnz * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&wide, (size_t)(nnz > n + 1 ? nnz : n + 1) * sizeof(int64_t)));
  cudaError_t ce = cudaMemcpyAsync(wide, in->bp, (size_t)(n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, stream);
  if (ce == cudaSuccess) {
    bs_narrow<<<(unsigned)((n + 256) / 256), 256, 0, stream>>>(wide, w->bp, n + 1);
    ce = cudaGetLastError();
  }
  if (ce == cudaSuccess) ce = cudaMemcpyAsync(wide, in->bi, (size_t)nnz * sizeof(int64_t), cudaMemcpyHostToDevice, stream);
  if (ce == cudaSuccess) {
    bs_narrow<<<(unsigned)((nnz + 255) / 256), 256, 0, stream>>>(wide, w->bi, nnz);
    ce = cudaGetLastError();
  }
  if (ce == cudaSuccess) ce = cudaMemcpyAsync(w->bx, in->bx, (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice, stream);
  if (ce == cudaSuccess) ce = cudaStreamSynchronize(stream);
  cudaFree(wide);
  HY_CUDA(ce);
  w->bytes += (double)(n + 1 + nnz) * 8 + (double)nnz * 8;
  size_t bytes = 0;
  void *buf = NULL;
  HY_CUSPARSE(cusparseCsr2cscEx2_bufferSize(sp, (int)n, (int)n, (int)nnz, w->bx, w->bp, w->bi, w->tx, w->tp,
                                            w->ti, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                            CUSPARSE_CSR2CSC_ALG1, &bytes));
  HY_CUDA(cudaMalloc(&buf, bytes > 0 ? bytes : 1));
  cusparseStatus_t st = cusparseCsr2cscEx2(sp, (int)n, (int)n, (int)nnz, w->bx, w->bp, w->bi, w->tx, w->tp,
                                           w->ti, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                           CUSPARSE_CSR2CSC_ALG1, buf);
  ce = cudaStreamSynchronize(stream);
  cudaFree(buf);
  HY_CUSPARSE(st);
  HY_CUDA(ce);
  return HY_OK;
}

/* The blocks, the descriptors, the workspaces.  Local. */
static int bs_alloc(k_lle_bsub *w, cudaStream_t stream, cusparseHandle_t sp, cusolverDnHandle_t so) {
  int64_t n = w->n;
  int p = w->p;
  size_t np = (size_t)n * p;
  HY_CUDA(cudaMalloc((void **)&w->v, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->mv, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->t, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->tmp, np * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->ones, (size_t)n * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->s, (size_t)p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->h, (size_t)p * p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->y, (size_t)p * p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->tau, (size_t)p * sizeof(double)));
  HY_CUDA(cudaMalloc((void **)&w->info, sizeof(int)));
  double *one = (double *)malloc((size_t)n * sizeof(double));
  if (!one) return hy_err(HY_ESYS, "out of memory for %lld ones", (long long)n);
  for (int64_t i = 0; i < n; i++) one[i] = 1.0;
  cudaError_t ce = cudaMemcpyAsync(w->ones, one, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, stream);
  if (ce == cudaSuccess) ce = cudaStreamSynchronize(stream);
  free(one);
  HY_CUDA(ce);
  int l1 = 0, l2 = 0;
  HY_CUSOLVER(cusolverDnDgeqrf_bufferSize(so, (int)n, p, w->v, (int)n, &l1));
  HY_CUSOLVER(cusolverDnDorgqr_bufferSize(so, (int)n, p, p, w->v, (int)n, w->tau, &l2));
  w->lwork = l1 > l2 ? l1 : l2;
  HY_CUDA(cudaMalloc((void **)&w->work, (size_t)(w->lwork > 0 ? w->lwork : 1) * sizeof(double)));
  HY_CUSPARSE(cusparseCreateCsr(&w->B, n, n, w->nnz, w->bp, w->bi, w->bx, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateCsr(&w->BT, n, n, w->nnz, w->tp, w->ti, w->tx, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateDnMat(&w->dv, n, p, n, w->v, CUDA_R_64F, CUSPARSE_ORDER_COL));
  HY_CUSPARSE(cusparseCreateDnMat(&w->dt, n, p, n, w->t, CUDA_R_64F, CUSPARSE_ORDER_COL));
  HY_CUSPARSE(cusparseCreateDnMat(&w->dmv, n, p, n, w->mv, CUDA_R_64F, CUSPARSE_ORDER_COL));
  const double one1 = 1, zero = 0;
  size_t b1 = 0, b2 = 0;
  HY_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      &one1, w->B, w->dv, &zero, w->dt, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, &b1));
  HY_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      &one1, w->BT, w->dt, &zero, w->dmv, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, &b2));
  HY_CUDA(cudaMalloc(&w->spbuf, (b1 > b2 ? b1 : b2) > 0 ? (b1 > b2 ? b1 : b2) : 1));
  return HY_OK;
}

/* An early engine's warm-up (lle.iter_open = beside): one rr and rotate's calls on zero blocks,
 * on the opening thread's stream and handles, so that the modules of their kernels are loaded
 * (CUDA loads a kernel's module at its first launch) while the factorisation runs, not in the
 * first iteration.  Nothing it leaves is read (the iteration overwrites the blocks); a failure
 * is ignored (cleared): the iteration then pays those first calls as before.  Local. */
static void bs_warm(k_lle_bsub *w, cudaStream_t stream, cusparseHandle_t sp, cusolverDnHandle_t so) {
  cublasHandle_t cb = NULL;
  if (cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS || cublasSetStream(cb, stream) != CUBLAS_STATUS_SUCCESS) {
    if (cb) cublasDestroy(cb);
    cudaGetLastError();
    return;
  }
  int64_t n = w->n;
  int p = w->p, nn = (int)n;
  size_t np = (size_t)n * p * sizeof(double);
  const double one = 1, zero = 0, mr = -1.0 / (double)n;
  double res = 0;
  cudaMemsetAsync(w->v, 0, np, stream);
  cudaMemsetAsync(w->mv, 0, np, stream);
  cudaMemsetAsync(w->y, 0, (size_t)p * p * sizeof(double), stream);
  cublasDgemv(cb, CUBLAS_OP_T, nn, p, &one, w->v, nn, w->ones, 1, &zero, w->s, 1);
  cublasDger(cb, nn, p, &mr, w->ones, 1, w->s, 1, w->v, nn);
  cusolverDnDgeqrf(so, nn, p, w->v, nn, w->tau, w->work, w->lwork, w->info);
  cusolverDnDorgqr(so, nn, p, p, w->v, nn, w->tau, w->work, w->lwork, w->info);
  cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w->B, w->dv, &zero, w->dt,
               CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, w->spbuf);
  cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w->BT, w->dt, &zero, w->dmv,
               CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, w->spbuf);
  cublasDgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, p, p, nn, &one, w->v, nn, w->mv, nn, &zero, w->h, p);
  cublasDgemm(cb, CUBLAS_OP_N, CUBLAS_OP_N, nn, p, p, &one, w->v, nn, w->y, p, &zero, w->tmp, nn);
  cublasDaxpy(cb, nn, &mr, w->v, 1, w->tmp, 1);
  cublasDnrm2(cb, nn, w->tmp, 1, &res);
  cudaStreamSynchronize(stream);
  cublasDestroy(cb);
  cudaGetLastError();
}

/* The k_lle_eig_ops entry bsub_open.  Local. */
static int bs_open(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **wp) {
  *wp = NULL;
  if (in->n * in->k1 > 2147483647LL || in->n < 1 || in->p < 1)
    return hy_err(HY_EUSAGE, "lle.iter_block = backend: B with n = %lld, %d a row exceeds the 32-bit indices",
                  (long long)in->n, in->k1);
  k_lle_bsub *w = (k_lle_bsub *)calloc(1, sizeof *w);
  if (!w) return hy_err(HY_ESYS, "out of memory for the iteration's engine");
  w->be = be;
  w->n = in->n;
  w->p = in->p;
  w->nnz = (int)in->bp[in->n];
  /* early (opened beside other device work, lle.iter_open = beside): the set-up on a stream
   * and cuSPARSE / cuSOLVER handles of its own, none of the backend's shared ones touched */
  k_cuda_state *cs = k_cuda_st(be);
  cudaStream_t stream = cs->stream;
  cusparseHandle_t sp = cs->cusparse;
  cusolverDnHandle_t so = cs->cusolver;
  int own = in->early, rc = HY_OK;
  if (own) {   /* (a thread of its own: the rank's device made current on it first) */
    stream = NULL; sp = NULL; so = NULL;
    if (cudaSetDevice(be->device) != cudaSuccess || cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess || cusparseCreate(&sp) != CUSPARSE_STATUS_SUCCESS ||
        cusparseSetStream(sp, stream) != CUSPARSE_STATUS_SUCCESS || cusolverDnCreate(&so) != CUSOLVER_STATUS_SUCCESS ||
        cusolverDnSetStream(so, stream) != CUSOLVER_STATUS_SUCCESS)
      rc = hy_err(HY_ESYS, "CUDA: the iteration engine's own stream and handles (lle.iter_open = beside)");
  }
  if (rc == HY_OK) rc = bs_upload_b(w, in, stream, sp);
  if (rc == HY_OK) rc = bs_alloc(w, stream, sp, so);
  if (rc == HY_OK && own) bs_warm(w, stream, sp, so);
  if (own) {
    if (stream) cudaStreamSynchronize(stream);
    if (so) cusolverDnDestroy(so);
    if (sp) cusparseDestroy(sp);
    if (stream) cudaStreamDestroy(stream);
  }
  if (rc != HY_OK) { bs_free(w); return rc; }
  if (cudaMallocHost((void **)&w->hv, (size_t)in->n * in->p * sizeof(double)) != cudaSuccess) {
    w->hv = NULL;   /* pageable copies then */
    cudaGetLastError();
  }
  *wp = w;
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_rr: V up, projected, orthonormalised; MV = B^T B V; H down.  Local. */
static int bs_rr(k_lle_bsub *w, const double *v, double *h) {
  k_cuda_state *cs = k_cuda_st(w->be);
  int64_t n = w->n;
  int p = w->p, nn = (int)n, info = 0;
  const double one = 1, zero = 0, mr = -1.0 / (double)n;
  HY_CUDA(cudaMemcpyAsync(w->v, v, (size_t)n * p * sizeof(double), cudaMemcpyHostToDevice, cs->stream));
  HY_CUBLAS(cublasDgemv(cs->cublas, CUBLAS_OP_T, nn, p, &one, w->v, nn, w->ones, 1, &zero, w->s, 1));
  HY_CUBLAS(cublasDger(cs->cublas, nn, p, &mr, w->ones, 1, w->s, 1, w->v, nn));
  HY_CUSOLVER(cusolverDnDgeqrf(cs->cusolver, nn, p, w->v, nn, w->tau, w->work, w->lwork, w->info));
  HY_CUDA(cudaMemcpyAsync(&info, w->info, sizeof(int), cudaMemcpyDeviceToHost, cs->stream));
  HY_CUSOLVER(cusolverDnDorgqr(cs->cusolver, nn, p, p, w->v, nn, w->tau, w->work, w->lwork, w->info));
  HY_CUSPARSE(cusparseSpMM(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                           w->B, w->dv, &zero, w->dt, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, w->spbuf));
  HY_CUSPARSE(cusparseSpMM(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                           w->BT, w->dt, &zero, w->dmv, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, w->spbuf));
  HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_T, CUBLAS_OP_N, p, p, nn, &one, w->v, nn, w->mv, nn, &zero, w->h, p));
  int info2 = 0;
  HY_CUDA(cudaMemcpyAsync(&info2, w->info, sizeof(int), cudaMemcpyDeviceToHost, cs->stream));
  HY_CUDA(cudaMemcpyAsync(h, w->h, (size_t)p * p * sizeof(double), cudaMemcpyDeviceToHost, cs->stream));
  HY_CUDA(cudaStreamSynchronize(cs->stream));
  w->bytes += (double)n * p * 8 + (double)p * p * 8;
  if (info || info2) return hy_err(HY_ENUMERIC, "QR of the subspace block failed (cuSOLVER info %d / %d)", info, info2);
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_rotate: V <- V Y, MV <- MV Y, the leading residuals, V down.  Local. */
static int bs_rotate(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res, double *v) {
  k_cuda_state *cs = k_cuda_st(w->be);
  int64_t n = w->n;
  int p = w->p, nn = (int)n;
  size_t np = (size_t)n * p * sizeof(double);
  const double one = 1, zero = 0;
  HY_CUDA(cudaMemcpyAsync(w->y, y, (size_t)p * p * sizeof(double), cudaMemcpyHostToDevice, cs->stream));
  HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_N, CUBLAS_OP_N, nn, p, p, &one, w->v, nn, w->y, p, &zero, w->tmp, nn));
  HY_CUDA(cudaMemcpyAsync(w->v, w->tmp, np, cudaMemcpyDeviceToDevice, cs->stream));
  HY_CUBLAS(cublasDgemm(cs->cublas, CUBLAS_OP_N, CUBLAS_OP_N, nn, p, p, &one, w->mv, nn, w->y, p, &zero, w->tmp, nn));
  HY_CUDA(cudaMemcpyAsync(w->mv, w->tmp, np, cudaMemcpyDeviceToDevice, cs->stream));
  for (int j = 0; j < nres && j < p; j++) {   /* r_j = MV_j - theta_j V_j in tmp's column j, its norm */
    double *r = w->tmp + (size_t)j * n, mt = -theta[j];
    HY_CUDA(cudaMemcpyAsync(r, w->mv + (size_t)j * n, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, cs->stream));
    HY_CUBLAS(cublasDaxpy(cs->cublas, nn, &mt, w->v + (size_t)j * n, 1, r, 1));
    HY_CUBLAS(cublasDnrm2(cs->cublas, nn, r, 1, &res[j]));
  }
  HY_CUDA(cudaMemcpyAsync(v, w->v, np, cudaMemcpyDeviceToHost, cs->stream));
  HY_CUDA(cudaStreamSynchronize(cs->stream));
  w->bytes += (double)np + (double)p * p * 8;
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_orth: v up, cuSOLVER geqrf + orgqr, v down.  Local. */
static int bs_orth(k_lle_bsub *w, double *v) {
  k_cuda_state *cs = k_cuda_st(w->be);
  int64_t n = w->n;
  int p = w->p, nn = (int)n, info = 0, info2 = 0;
  size_t np = (size_t)n * p * sizeof(double);
  HY_CUDA(cudaMemcpyAsync(w->v, v, np, cudaMemcpyHostToDevice, cs->stream));
  HY_CUSOLVER(cusolverDnDgeqrf(cs->cusolver, nn, p, w->v, nn, w->tau, w->work, w->lwork, w->info));
  HY_CUDA(cudaMemcpyAsync(&info, w->info, sizeof(int), cudaMemcpyDeviceToHost, cs->stream));
  HY_CUSOLVER(cusolverDnDorgqr(cs->cusolver, nn, p, p, w->v, nn, w->tau, w->work, w->lwork, w->info));
  HY_CUDA(cudaMemcpyAsync(&info2, w->info, sizeof(int), cudaMemcpyDeviceToHost, cs->stream));
  HY_CUDA(cudaMemcpyAsync(v, w->v, np, cudaMemcpyDeviceToHost, cs->stream));
  HY_CUDA(cudaStreamSynchronize(cs->stream));
  w->bytes += 2.0 * (double)np;
  if (info || info2) return hy_err(HY_ENUMERIC, "QR of the start block failed (cuSOLVER info %d / %d)", info, info2);
  return HY_OK;
}

/* The k_lle_eig_ops entry bsub_resid: x up into tmp, T = B x and Y = B^T T by cuSPARSE SpMM
 * (into t and mv), Y_j -= val_j x_j (AXPY), ||Y_j|| (NRM2).  Local. */
static int bs_resid(k_lle_bsub *w, const double *x, int nc, const double *val, double *res) {
  k_cuda_state *cs = k_cuda_st(w->be);
  int64_t n = w->n;
  int nn = (int)n;
  if (nc > w->p || nc < 1) return hy_err(HY_ESYS, "the engine's residuals: %d columns, its blocks %d", nc, w->p);
  const double one = 1, zero = 0;
  cusparseDnMatDescr_t dx = NULL, dt = NULL, dy = NULL;
  void *buf = NULL;
  size_t b1 = 0, b2 = 0;
  int rc = HY_OK;
  HY_CUDA(cudaMemcpyAsync(w->tmp, x, (size_t)n * nc * sizeof(double), cudaMemcpyHostToDevice, cs->stream));
  if (cusparseCreateDnMat(&dx, n, nc, n, w->tmp, CUDA_R_64F, CUSPARSE_ORDER_COL) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateDnMat(&dt, n, nc, n, w->t, CUDA_R_64F, CUSPARSE_ORDER_COL) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateDnMat(&dy, n, nc, n, w->mv, CUDA_R_64F, CUSPARSE_ORDER_COL) != CUSPARSE_STATUS_SUCCESS ||
      cusparseSpMM_bufferSize(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w->B,
                              dx, &zero, dt, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, &b1) != CUSPARSE_STATUS_SUCCESS ||
      cusparseSpMM_bufferSize(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w->BT,
                              dt, &zero, dy, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, &b2) != CUSPARSE_STATUS_SUCCESS)
    rc = hy_err(HY_ESYS, "cuSPARSE: the final residuals' descriptors");
  if (rc == HY_OK && cudaMalloc(&buf, (b1 > b2 ? b1 : b2) + 1) != cudaSuccess)
    rc = hy_err(HY_ESYS, "CUDA: the final residuals' SpMM buffer");
  if (rc == HY_OK &&
      (cusparseSpMM(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w->B, dx, &zero,
                    dt, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, buf) != CUSPARSE_STATUS_SUCCESS ||
       cusparseSpMM(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w->BT, dt, &zero,
                    dy, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, buf) != CUSPARSE_STATUS_SUCCESS))
    rc = hy_err(HY_ESYS, "cuSPARSE: the final residuals' SpMM");
  for (int j = 0; j < nc && rc == HY_OK; j++) {
    double mt = -val[j];
    if (cublasDaxpy(cs->cublas, nn, &mt, w->tmp + (size_t)j * n, 1, w->mv + (size_t)j * n, 1) != CUBLAS_STATUS_SUCCESS ||
        cublasDnrm2(cs->cublas, nn, w->mv + (size_t)j * n, 1, &res[j]) != CUBLAS_STATUS_SUCCESS)
      rc = hy_err(HY_ESYS, "cuBLAS: the final residual %d", j);
  }
  cudaError_t ce = cudaStreamSynchronize(cs->stream);
  if (rc == HY_OK && ce != cudaSuccess) rc = hy_err(HY_ESYS, "CUDA: the final residuals: %s", cudaGetErrorString(ce));
  if (dx) cusparseDestroyDnMat(dx);
  if (dt) cusparseDestroyDnMat(dt);
  if (dy) cusparseDestroyDnMat(dy);
  if (buf) cudaFree(buf);
  w->bytes += (double)n * nc * sizeof(double);
  return rc;
}

/* The k_lle_eig_ops entry bsub_close: the bytes moved, the state freed.  Local. */
static void bs_close(k_lle_bsub *w, double *bytes) {
  if (bytes) *bytes = w ? w->bytes : 0;
  bs_free(w);
}

/* The k_lle_eig_ops entry bsub_host_block: the pinned V block, or NULL.  Local. */
static double *bs_host_block(k_lle_bsub *w) { return w ? w->hv : NULL; }

/* The entries for the CUDA eigen-solve table (lle_eig_cuda.cu).  Local. */
extern "C" double *k_lle_bsub_host_block_cuda(k_lle_bsub *w) { return bs_host_block(w); }
extern "C" int k_lle_bsub_open_cuda(k_backend *be, const k_lle_bsub_in *in, k_lle_bsub **w) { return bs_open(be, in, w); }
extern "C" int k_lle_bsub_rr_cuda(k_lle_bsub *w, const double *v, double *h) { return bs_rr(w, v, h); }
extern "C" int k_lle_bsub_rotate_cuda(k_lle_bsub *w, const double *y, const double *theta, int nres, double *res,
                                      double *v) {
  return bs_rotate(w, y, theta, nres, res, v);
}
extern "C" void k_lle_bsub_close_cuda(k_lle_bsub *w, double *bytes) { bs_close(w, bytes); }
extern "C" int k_lle_bsub_orth_cuda(k_lle_bsub *w, double *v) { return bs_orth(w, v); }
extern "C" int k_lle_bsub_resid_cuda(k_lle_bsub *w, const double *x, int nc, const double *val, double *res) {
  return bs_resid(w, x, nc, val, res);
}
