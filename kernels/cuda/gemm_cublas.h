// y = x W^T on the GPU through cuBLAS, for float weight matrices in the engine's layout
// (W: n_out rows of n_in values, as kernels/matmul/matmul.h; x: n_x rows of n_in; y: n_x
// rows of n_out, f32). W and x share one element type, F32, F16 or BF16 (cuBLAS multiplies
// like with like; convert activations to the weight's type first), and accumulation is
// always f32 (CUBLAS_COMPUTE_32F, no TF32).
//
// Unlike the CPU products this is not batch-invariant: cuBLAS picks its algorithm (tile
// shape, split-K) by problem size, so a row's result may change with n_x.
#pragma once

#include <cstdint>

#include "kernels/quant/ggml_type.h"

struct cublasContext;  // cublasHandle_t is cublasContext*; the header stays free of cuBLAS

namespace draftbench::cuda {

// Owns one cuBLAS handle (bound to the current device and the default stream).
class CublasGemm {
 public:
  CublasGemm();
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // cuBLAS status of creating the handle (0 = success); matmul fails while it is not 0.
  int init_status() const { return init_status_; }

  // Whether matmul takes this element type.
  static bool supports(GgmlType type);

  // Device pointers, rows packed. Returns the cuBLAS status (0 = success;
  // CUBLAS_STATUS_INVALID_VALUE for another type or dimensions over INT_MAX).
  int matmul(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) const;

 private:
  cublasContext* handle_ = nullptr;
  int init_status_ = 0;
};

}  // namespace draftbench::cuda
