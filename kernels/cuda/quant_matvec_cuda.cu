#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/quant_matvec_block.h"
#include "kernels/cuda/quant_matvec_cuda.h"

namespace draftbench::cuda {
namespace {

template <class Dot>
__global__ void quant_matvec_kernel(QuantMatvecArgs args) {
  __shared__ QuantMatvecShared<Dot> shared;
  quant_matvec_block<Dot>(DeviceBlock{}, args, shared);
}

}  // namespace

bool quant_matvec_supports(GgmlType type) {
  return visit_quant_dot(type, [](auto) {});
}

int quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  int err = cudaErrorInvalidValue;  // for a type without a product
  visit_quant_dot(type, [&](auto dot) {
    using Dot = decltype(dot);
    if (n % Dot::kValues != 0) return;
    if (n_rows == 0) {
      err = cudaSuccess;
      return;
    }
    err = launch_kernel(Dot::kRange, quant_matvec_launch(n_rows), quant_matvec_kernel<Dot>, QuantMatvecArgs{w, w_stride, n_rows, xq, n / Dot::kValues, y});
  });
  return err;
}

}  // namespace draftbench::cuda
