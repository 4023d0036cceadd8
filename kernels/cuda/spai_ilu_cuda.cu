/* spai_ilu_cuda.cu - ILU(0) on a CUDA device (k_spai_ops.ilu_*): cusparseDcsrilu02 (analysis
 * with level scheduling, then the factorisation in place in A's pattern; zero pivots found by
 * cusparseXcsrilu02_zeroPivot), and the two triangular solves by the generic cusparseSpSV (L
 * unit lower, U upper non-unit, analysed once).  csrilu02 is deprecated in CUDA 12/13 but is
 * the library's ILU(0) (the paper's CSRILU), so its deprecation warnings are silenced here. */
#define DISABLE_CUSPARSE_DEPRECATED
#include "k_cuda.h"
#include "k_spai.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

typedef struct {
  int n, nnz;
  int32_t *rowptr, *colind;
  double *val, *tmp;            /* the factors (in place); L^-1 x */
  cusparseSpMatDescr_t l, u;
  cusparseSpSVDescr_t sl, su;
  void *buf_l, *buf_u;
} c_ilu;

/* Free the factors and descriptors.  Local. */
int k_spai_cuda_ilu_free(k_backend *be, void *ilu) {
  c_ilu *f = (c_ilu *)ilu;
  if (!f) return HY_OK;
  if (f->sl) cusparseSpSV_destroyDescr(f->sl);
  if (f->su) cusparseSpSV_destroyDescr(f->su);
  if (f->l) cusparseDestroySpMat(f->l);
  if (f->u) cusparseDestroySpMat(f->u);
  void *p[] = { f->rowptr, f->colind, f->val, f->tmp, f->buf_l, f->buf_u };
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) be->ops->free(be, p[i]);
  free(f);
  return HY_OK;
}

/* csrilu02 in place on f's arrays.  Local. */
static int ilu_factor(k_backend *be, c_ilu *f) {
  k_cuda_state *st = k_cuda_st(be);
  cusparseMatDescr_t d;
  csrilu02Info_t info;
  HY_CUSPARSE(cusparseCreateMatDescr(&d));
  cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO);
  cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL);
  HY_CUSPARSE(cusparseCreateCsrilu02Info(&info));
  int bytes = 0, pos = -1;
  void *buf = NULL;
  int rc = HY_OK;
  cusparseStatus_t s = cusparseDcsrilu02_bufferSize(st->cusparse, f->n, f->nnz, d, f->val, f->rowptr,
                                                    f->colind, info, &bytes);
  if (s == CUSPARSE_STATUS_SUCCESS) rc = be->ops->alloc(be, &buf, bytes > 0 ? (size_t)bytes : 8);
  if (s == CUSPARSE_STATUS_SUCCESS && rc == HY_OK)
    s = cusparseDcsrilu02_analysis(st->cusparse, f->n, f->nnz, d, f->val, f->rowptr, f->colind, info,
                                   CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf);
  if (s == CUSPARSE_STATUS_SUCCESS && rc == HY_OK &&
      cusparseXcsrilu02_zeroPivot(st->cusparse, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT)
    rc = hy_err(HY_ENUMERIC, "ILU(0): row %d has no diagonal entry (zero pivot)", pos);
  if (s == CUSPARSE_STATUS_SUCCESS && rc == HY_OK)
    s = cusparseDcsrilu02(st->cusparse, f->n, f->nnz, d, f->val, f->rowptr, f->colind, info,
                          CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf);
  if (s == CUSPARSE_STATUS_SUCCESS && rc == HY_OK &&
      cusparseXcsrilu02_zeroPivot(st->cusparse, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT)
    rc = hy_err(HY_ENUMERIC, "ILU(0): zero pivot at row %d", pos);
  if (s != CUSPARSE_STATUS_SUCCESS && rc == HY_OK)
    rc = hy_err(HY_ESYS, "cuSPARSE: csrilu02 failed: %s", cusparseGetErrorString(s));
  cudaStreamSynchronize(st->stream);
  be->ops->free(be, buf);
  cusparseDestroyCsrilu02Info(info);
  cusparseDestroyMatDescr(d);
  return rc;
}

/* One triangle's descriptor and SpSV analysis (x, y: any device vectors of n).  Local. */
static int ilu_triangle(k_backend *be, c_ilu *f, int lower, cusparseSpMatDescr_t *m,
                        cusparseSpSVDescr_t *sv, void **buf) {
  k_cuda_state *st = k_cuda_st(be);
  HY_CUSPARSE(cusparseCreateCsr(m, f->n, f->n, f->nnz, f->rowptr, f->colind, f->val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                CUDA_R_64F));
  cusparseFillMode_t fill = lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t diag = lower ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
  HY_CUSPARSE(cusparseSpMatSetAttribute(*m, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
  HY_CUSPARSE(cusparseSpMatSetAttribute(*m, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
  HY_CUSPARSE(cusparseSpSV_createDescr(sv));
  cusparseDnVecDescr_t vx, vy;
  HY_CUSPARSE(cusparseCreateDnVec(&vx, f->n, f->tmp, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateDnVec(&vy, f->n, f->tmp, CUDA_R_64F));
  double one = 1;
  size_t bytes = 0;
  HY_CUSPARSE(cusparseSpSV_bufferSize(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, *m, vx, vy,
                                      CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, *sv, &bytes));
  HY_CALL(be->ops->alloc(be, buf, bytes ? bytes : 8));
  HY_CUSPARSE(cusparseSpSV_analysis(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, *m, vx, vy,
                                    CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, *sv, *buf));
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  return HY_OK;
}

/* The factors of the n x n CSR (sorted columns) on the device.  Local. */
int k_spai_cuda_ilu_create(k_backend *be, int64_t n, const int64_t *rowptr, const int32_t *colind,
                           const double *val, void **ilu) {
  int64_t nnz = rowptr[n];
  if (nnz > INT_MAX || n > INT_MAX)
    return hy_err(HY_ESYS, "ILU(0) cuda: %lld entries exceed 32-bit indices", (long long)nnz);
  c_ilu *f = (c_ilu *)calloc(1, sizeof *f);
  if (!f) hy_fatal(HY_ESYS, "out of memory");
  *ilu = f;
  f->n = (int)n;
  f->nnz = (int)nnz;
  std::vector<int32_t> rp((size_t)n + 1);
  for (int64_t i = 0; i <= n; i++) rp[i] = (int32_t)rowptr[i];
  HY_CALL(be->ops->alloc(be, (void **)&f->rowptr, (size_t)(n + 1) * sizeof(int32_t)));
  HY_CALL(be->ops->alloc(be, (void **)&f->colind, (size_t)(nnz + 1) * sizeof(int32_t)));
  HY_CALL(be->ops->alloc(be, (void **)&f->val, (size_t)(nnz + 1) * sizeof(double)));
  HY_CALL(be->ops->alloc(be, (void **)&f->tmp, (size_t)(n + 1) * sizeof(double)));
  HY_CALL(be->ops->h2d(be, f->rowptr, rp.data(), (size_t)(n + 1) * sizeof(int32_t)));
  if (nnz) {
    HY_CALL(be->ops->h2d(be, f->colind, colind, (size_t)nnz * sizeof(int32_t)));
    HY_CALL(be->ops->h2d(be, f->val, val, (size_t)nnz * sizeof(double)));
  }
  if (n == 0) return HY_OK;
  HY_CALL(ilu_factor(be, f));
  HY_CALL(ilu_triangle(be, f, 1, &f->l, &f->sl, &f->buf_l));
  HY_CALL(ilu_triangle(be, f, 0, &f->u, &f->su, &f->buf_u));
  return HY_OK;
}

/* y = U^-1 L^-1 x: two SpSV solves on the stream.  Local. */
int k_spai_cuda_ilu_apply(k_backend *be, void *ilu, const double *x, double *y) {
  k_cuda_state *st = k_cuda_st(be);
  c_ilu *f = (c_ilu *)ilu;
  if (f->n == 0) return HY_OK;
  cusparseDnVecDescr_t vx, vt, vy;
  HY_CUSPARSE(cusparseCreateDnVec(&vx, f->n, (void *)x, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateDnVec(&vt, f->n, f->tmp, CUDA_R_64F));
  HY_CUSPARSE(cusparseCreateDnVec(&vy, f->n, y, CUDA_R_64F));
  double one = 1;
  cusparseStatus_t s = cusparseSpSV_solve(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, f->l,
                                          vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, f->sl);
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = cusparseSpSV_solve(st->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, f->u, vt, vy,
                           CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, f->su);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vt);
  cusparseDestroyDnVec(vy);
  HY_CUSPARSE(s);
  return HY_OK;
}
