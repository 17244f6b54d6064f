#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <climits>
#include <cstring>

#include "kernels/cuda/gemm_cublas.h"

namespace draftbench::cuda {
namespace {

constexpr size_t kWorkspaceBytes = size_t{4} << 20;

cudaDataType_t cuda_data_type(GgmlType type) {
  switch (type) {
    case GgmlType::F16: return CUDA_R_16F;
    case GgmlType::BF16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// One product's descriptors, destroyed with it. cuBLAS is column-major: row-major y
// [n_x][n_out] is column-major y^T (n_out x n_x), and y^T = W x^T: row-major W
// [n_out][n_in] read column-major is W^T (n_in x n_out), hence op(A) = T with ld n_in;
// row-major x is column-major x^T (n_in x n_x), op(B) = N.
struct Product {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;

  Product(GgmlType type, int64_t n_out, int64_t n_in, int64_t n_x) {
    const cudaDataType_t t = cuda_data_type(type);
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    auto step = [this](cublasStatus_t s) {
      if (status == CUBLAS_STATUS_SUCCESS) status = s;
    };
    step(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    if (status == CUBLAS_STATUS_SUCCESS) {
      step(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
      step(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
    }
    step(cublasLtMatrixLayoutCreate(&a, t, static_cast<uint64_t>(n_in), static_cast<uint64_t>(n_out), n_in));
    step(cublasLtMatrixLayoutCreate(&b, t, static_cast<uint64_t>(n_in), static_cast<uint64_t>(n_x), n_in));
    step(cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, static_cast<uint64_t>(n_out), static_cast<uint64_t>(n_x), n_out));
  }
  ~Product() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
  Product(const Product&) = delete;
  Product& operator=(const Product&) = delete;
};

// The heuristic's first algorithm for kPinnedRows rows, without split-K.
cublasStatus_t choose_algorithm(cublasLtHandle_t handle, GgmlType type, int64_t n_out, int64_t n_in, cublasLtMatmulAlgo_t& algo) {
  Product reference(type, n_out, n_in, CublasGemm::kPinnedRows);
  if (reference.status != CUBLAS_STATUS_SUCCESS) return reference.status;
  cublasLtMatmulPreference_t preference = nullptr;
  cublasStatus_t status = cublasLtMatmulPreferenceCreate(&preference);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  const uint64_t workspace = kWorkspaceBytes;
  const uint32_t no_reduction = CUBLASLT_REDUCTION_SCHEME_NONE;
  status = cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &no_reduction, sizeof no_reduction);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(handle, reference.op, reference.a, reference.b, reference.c, reference.c, preference, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  if (found < 1) return CUBLAS_STATUS_NOT_SUPPORTED;
  algo = result.algo;
  // Said on the algorithm itself, not only asked of the heuristic: one K pass per element.
  const int32_t one_split = 1;
  return cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &one_split, sizeof one_split);
}

}  // namespace

struct PreparedProduct {
  Product product;
  cublasLtMatmulAlgo_t algo;
  PreparedProduct(GgmlType type, int64_t n_out, int64_t n_in, int64_t n_x) : product(type, n_out, n_in, n_x) {}
};

CublasGemm::CublasGemm() {
  init_status_ = static_cast<int>(cublasLtCreate(&handle_));
  if (init_status_ == CUBLAS_STATUS_SUCCESS && cudaMalloc(&workspace_, kWorkspaceBytes) != cudaSuccess) init_status_ = CUBLAS_STATUS_ALLOC_FAILED;
}

CublasGemm::~CublasGemm() {
  prepared_.clear();  // their descriptors before the handle
  if (workspace_) cudaFree(workspace_);
  if (handle_) cublasLtDestroy(handle_);
}

const PreparedProduct* CublasGemm::prepared(GgmlType type, int64_t n_out, int64_t n_in, int64_t n_x, int& status) {
  const auto key = std::make_tuple(type, n_out, n_in, n_x);
  if (auto it = prepared_.find(key); it != prepared_.end()) return it->second.get();
  auto p = std::make_unique<PreparedProduct>(type, n_out, n_in, n_x);
  if ((status = p->product.status) != CUBLAS_STATUS_SUCCESS) return nullptr;
  static_assert(sizeof(Algorithm) == sizeof(cublasLtMatmulAlgo_t));
  if (auto it = pinned_.find(std::make_tuple(type, n_out, n_in)); it != pinned_.end()) {
    std::memcpy(&p->algo, it->second.data(), sizeof p->algo);
  } else {
    if ((status = choose_algorithm(handle_, type, n_out, n_in, p->algo)) != CUBLAS_STATUS_SUCCESS) return nullptr;
    Algorithm bytes;
    std::memcpy(bytes.data(), &p->algo, sizeof p->algo);
    pinned_.emplace(std::make_tuple(type, n_out, n_in), bytes);
  }
  // The pinned tile shape must also take this n_x; if not, fail rather than let cuBLAS
  // choose another algorithm silently.
  cublasLtMatmulHeuristicResult_t check{};
  const Product& d = p->product;
  if ((status = cublasLtMatmulAlgoCheck(handle_, d.op, d.a, d.b, d.c, d.c, &p->algo, &check)) != CUBLAS_STATUS_SUCCESS) return nullptr;
  if (check.workspaceSize > kWorkspaceBytes) {
    status = CUBLAS_STATUS_NOT_SUPPORTED;
    return nullptr;
  }
  return prepared_.emplace(key, std::move(p)).first->second.get();
}

int CublasGemm::matmul(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) {
  if (init_status_ != CUBLAS_STATUS_SUCCESS) return init_status_;
  if (!supports(type) || n_out > INT_MAX || n_in > INT_MAX || n_x > INT_MAX || n_out < 0 || n_in < 0 || n_x < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (n_out == 0 || n_x == 0) return CUBLAS_STATUS_SUCCESS;
  int status = CUBLAS_STATUS_SUCCESS;
  const PreparedProduct* p = prepared(type, n_out, n_in, n_x, status);
  if (!p) return status;
  const Product& d = p->product;
  const float alpha = 1.0f, beta = 0.0f;
  nvtxRangePushA("gemm_cublaslt");
  status = cublasLtMatmul(handle_, d.op, &alpha, w, d.a, x, d.b, &beta, y, d.c, y, d.c, &p->algo, workspace_, kWorkspaceBytes, nullptr);
  nvtxRangePop();
  return status;
}

}  // namespace draftbench::cuda
