// y = x W^T on the GPU through cuBLASLt, for float weight matrices in the engine's layout
// (W: n_out rows of n_in values, as kernels/matmul/matmul.h; x: n_x rows of n_in; y: n_x
// rows of n_out, f32). W and x share one element type, F32, F16 or BF16 (cuBLAS multiplies
// like with like; convert activations to the weight's type first), and accumulation is
// always f32 (CUBLAS_COMPUTE_32F, no TF32).
//
// Batch-invariant, as the CPU products are, which lossless speculative decoding needs (a
// tree's verification rows must equal the one-token steps of plain decoding): left to
// itself cuBLAS picks an algorithm (tile shape, split-K) by problem size, so a row's
// result would change with n_x. Here each weight shape gets one algorithm, chosen once
// for kPinnedRows rows with split-K off, and every call of that shape runs it whatever
// n_x is: every output element is then one thread's K loop in one fixed order. The
// descriptors of each (shape, n_x) are built and checked against the pinned algorithm once,
// so a decode step's products do no host-side set-up.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include "kernels/quant/ggml_type.h"

struct cublasLtContext;  // cublasLtHandle_t is cublasLtContext*; the header stays free of cuBLAS

namespace draftbench::cuda {

struct PreparedProduct;  // one (shape, n_x)'s descriptors and checked algorithm (gemm_cublas.cu)

// Owns one cuBLASLt handle (bound to the current device; default stream) and its workspace.
class CublasGemm {
 public:
  static constexpr int64_t kPinnedRows = 64;  // the row count an algorithm is chosen for

  CublasGemm();
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // cuBLAS status of creating the handle and workspace (0 = success); matmul fails while it is not 0.
  int init_status() const { return init_status_; }

  // Whether matmul takes this element type.
  static bool supports(GgmlType type) { return type == GgmlType::F32 || type == GgmlType::F16 || type == GgmlType::BF16; }

  // Device pointers, rows packed. Returns the cuBLAS status (0 = success;
  // CUBLAS_STATUS_INVALID_VALUE for another type or dimensions over INT_MAX;
  // CUBLAS_STATUS_NOT_SUPPORTED when no algorithm without split-K exists for the shape).
  int matmul(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y);

 private:
  using Algorithm = std::array<uint64_t, 8>;  // cublasLtMatmulAlgo_t's opaque bytes
  // The product for this shape and row count, prepared on first use; null with `status` set
  // when it cannot be.
  const PreparedProduct* prepared(GgmlType type, int64_t n_out, int64_t n_in, int64_t n_x, int& status);

  cublasLtContext* handle_ = nullptr;
  void* workspace_ = nullptr;
  int init_status_ = 0;
  std::map<std::tuple<GgmlType, int64_t, int64_t>, Algorithm> pinned_;                                    // by (type, n_out, n_in)
  std::map<std::tuple<GgmlType, int64_t, int64_t, int64_t>, std::unique_ptr<PreparedProduct>> prepared_;  // by (type, n_out, n_in, n_x)
};

}  // namespace draftbench::cuda
