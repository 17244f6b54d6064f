#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/rms_norm_block.h"
#include "kernels/cuda/rms_norm_cuda.h"

namespace draftbench::cuda {
namespace {

__global__ void rms_norm_kernel(RmsNormArgs args) {
  __shared__ RmsNormShared shared;
  rms_norm_block(DeviceBlock{}, args, shared);
}

}  // namespace

int rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) {
  if (n_rows == 0) return cudaSuccess;
  return launch_kernel("rms_norm", rms_norm_launch(n_rows), rms_norm_kernel, RmsNormArgs{x, weight, out, n, eps});
}

}  // namespace draftbench::cuda
