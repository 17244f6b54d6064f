#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/quant_matvec_block.h"
#include "kernels/cuda/quant_matvec_cuda.h"

namespace draftbench::cuda {
namespace {

template <class Dot>
__global__ void quant_matvec_kernel(QuantMatvecArgs args) {
  __shared__ QuantMatvecShared<Dot> shared;
  quant_matvec_block<Dot>(DeviceBlock{}, args, shared);
}

template <class Dot>
int launch(const char* range, const QuantMatvecArgs& args, int64_t n) {
  if (n % Dot::kValues != 0) return cudaErrorInvalidValue;
  if (args.n_rows == 0) return cudaSuccess;
  const int64_t blocks = (args.n_rows + kQuantRowsPerBlock - 1) / kQuantRowsPerBlock;
  if (blocks > 0x7fffffff) return cudaErrorInvalidValue;  // grid x limit
  nvtxRangePushA(range);
  quant_matvec_kernel<Dot><<<static_cast<unsigned>(blocks), dim3(kWarpLanes, kQuantRowsPerBlock)>>>(args);
  const cudaError_t err = cudaGetLastError();
  nvtxRangePop();
  return static_cast<int>(err);
}

}  // namespace

bool quant_matvec_supports(GgmlType type) { return device_quant_matvec_supports(type); }

int quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  QuantMatvecArgs args{w, w_stride, n_rows, xq, 0, y};
  switch (type) {
    case GgmlType::Q8_0: args.n_blocks = n / Q8_0Dot::kValues; return launch<Q8_0Dot>("quant_matvec Q8_0", args, n);
    case GgmlType::Q5_0: args.n_blocks = n / Q5_0Dot::kValues; return launch<Q5_0Dot>("quant_matvec Q5_0", args, n);
    case GgmlType::Q4_K: args.n_blocks = n / Q4_KDot::kValues; return launch<Q4_KDot>("quant_matvec Q4_K", args, n);
    case GgmlType::Q6_K: args.n_blocks = n / Q6_KDot::kValues; return launch<Q6_KDot>("quant_matvec Q6_K", args, n);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace draftbench::cuda
