#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/linear_silu_block.h"
#include "kernels/cuda/linear_silu_cuda.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench::cuda {
namespace {

template <class Dot>
__global__ void linear_silu_kernel(LinearSiluBlockArgs args) {
  __shared__ LinearSiluShared<Dot> shared;
  linear_silu_block<Dot>(DeviceBlock{}, args, shared);
}

}  // namespace

int linear_silu(GgmlType type, const DeviceLinearTerm* terms, int n_terms, int64_t n_out, int64_t n_x, const float* bias, const float* residual, float* y) {
  if (n_terms < 1 || n_terms > static_cast<int>(kMaxLinearTerms)) return cudaErrorInvalidValue;
  int err = cudaErrorInvalidValue;  // for a type without a product
  visit_row_dot(type, [&](auto dot) {
    using Dot = decltype(dot);
    LinearSiluBlockArgs args{};
    for (int k = 0; k < n_terms; ++k) {
      const DeviceLinearTerm& t = terms[k];
      if (t.n_in <= 0 || t.n_in % Dot::kValues != 0) return;
      args.terms[k] =
          QuantMatvecArgs{t.w, t.w_stride, n_out, static_cast<const uint8_t*>(t.xq), activation_row_bytes(type, t.n_in), n_x, t.n_in / Dot::kValues, nullptr};
    }
    if (n_out == 0 || n_x == 0) {
      err = cudaSuccess;
      return;
    }
    args.n_terms = n_terms;
    args.bias = bias;
    args.residual = residual;
    args.y = y;
    err = launch_kernel("linear_silu", linear_silu_launch(n_out, n_x), linear_silu_kernel<Dot>, args);
  });
  return err;
}

}  // namespace draftbench::cuda
