#include <cublas_v2.h>
#include <nvtx3/nvToolsExt.h>

#include <climits>

#include "kernels/cuda/gemm_cublas.h"

namespace draftbench::cuda {
namespace {

cudaDataType_t cuda_data_type(GgmlType type) {
  switch (type) {
    case GgmlType::F16: return CUDA_R_16F;
    case GgmlType::BF16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

}  // namespace

CublasGemm::CublasGemm() {
  init_status_ = static_cast<int>(cublasCreate(&handle_));
  // Said explicitly because it is the contract: the default math mode never lets
  // CUBLAS_COMPUTE_32F use TF32 (that takes CUBLAS_TF32_TENSOR_OP_MATH), so F32 stays f32.
  if (init_status_ == CUBLAS_STATUS_SUCCESS) init_status_ = static_cast<int>(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
}

CublasGemm::~CublasGemm() {
  if (handle_) cublasDestroy(handle_);
}

bool CublasGemm::supports(GgmlType type) { return type == GgmlType::F32 || type == GgmlType::F16 || type == GgmlType::BF16; }

int CublasGemm::matmul(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) const {
  if (init_status_ != CUBLAS_STATUS_SUCCESS) return init_status_;
  if (!supports(type) || n_out > INT_MAX || n_in > INT_MAX || n_x > INT_MAX || n_out < 0 || n_in < 0 || n_x < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n_out == 0 || n_x == 0) return CUBLAS_STATUS_SUCCESS;
  // cuBLAS is column-major. Row-major y [n_x][n_out] is column-major y^T (n_out x n_x),
  // and y^T = W x^T: row-major W [n_out][n_in] read column-major is W^T (n_in x n_out),
  // hence op(A) = T with lda = n_in; row-major x is column-major x^T (n_in x n_x), op(B) = N.
  const cudaDataType_t t = cuda_data_type(type);
  const float alpha = 1.0f, beta = 0.0f;
  nvtxRangePushA("gemm_cublas");
  const cublasStatus_t status =
      cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n_out), static_cast<int>(n_x), static_cast<int>(n_in), &alpha, w, t,
                   static_cast<int>(n_in), x, t, static_cast<int>(n_in), &beta, y, CUDA_R_32F, static_cast<int>(n_out), CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT);
  nvtxRangePop();
  return static_cast<int>(status);
}

}  // namespace draftbench::cuda
