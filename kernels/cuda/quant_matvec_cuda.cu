#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/quant_matvec_block.h"
#include "kernels/cuda/quant_matvec_cuda.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench::cuda {
namespace {

template <class Dot>
__global__ void quant_matvec_kernel(QuantMatvecArgs args) {
  __shared__ QuantMatvecShared<Dot> shared;
  quant_matvec_block<Dot>(DeviceBlock{}, args, shared);
}

}  // namespace

int quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n_x, int64_t n, float* y) {
  int err = cudaErrorInvalidValue;  // for a type without a product
  visit_quant_dot(type, [&](auto dot) {
    using Dot = decltype(dot);
    if (n % Dot::kValues != 0) return;
    if (n_rows == 0 || n_x == 0) {
      err = cudaSuccess;
      return;
    }
    const QuantMatvecArgs args{w, w_stride, n_rows, static_cast<const uint8_t*>(xq), activation_row_bytes(type, n), n_x, n / Dot::kValues, y};
    err = launch_kernel(Dot::kRange, quant_matvec_launch(n_rows, n_x), quant_matvec_kernel<Dot>, args);
  });
  return err;
}

}  // namespace draftbench::cuda
