#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/top_k_block.h"
#include "kernels/cuda/top_k_cuda.h"

namespace draftbench::cuda {
namespace {

__global__ void top_k_kernel(TopKArgs args) {
  __shared__ TopKShared shared;
  top_k_block(DeviceBlock{}, args, shared);
}

}  // namespace

int top_k(const float* w, int64_t n_rows, int64_t n, int k, float* workspace_values, int32_t* workspace_ids, float* values, int32_t* ids) {
  if (n_rows == 0) return cudaSuccess;
  if (!top_k_supports(n, k)) return cudaErrorInvalidValue;
  int err = cudaSuccess;
  top_k_passes(w, n_rows, n, k, workspace_values, workspace_ids, values, ids, [&](const Launch& shape, const TopKArgs& args) {
    if (err == cudaSuccess) err = launch_kernel("top_k", shape, top_k_kernel, args);
  });
  return err;
}

}  // namespace draftbench::cuda
