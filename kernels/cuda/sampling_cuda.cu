#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "kernels/cuda/sampling_block.h"
#include "kernels/cuda/sampling_cuda.h"

namespace draftbench::cuda {
namespace {

__global__ void argmax_kernel(ArgmaxArgs args) {
  __shared__ ArgmaxShared shared;
  argmax_block(DeviceBlock{}, args, shared);
}

__global__ void softmax_exp_kernel(SoftmaxArgs args) {
  __shared__ SoftmaxShared shared;
  softmax_block(DeviceBlock{}, args, shared);
}

}  // namespace

int argmax(const float* x, int64_t n_rows, int64_t n, int64_t* out) {
  if (n_rows == 0 || n == 0) return cudaSuccess;
  nvtxRangePushA("argmax");
  argmax_kernel<<<static_cast<unsigned>(n_rows), kSamplingThreads>>>(ArgmaxArgs{x, n, out});
  const cudaError_t err = cudaGetLastError();
  nvtxRangePop();
  return static_cast<int>(err);
}

int softmax_exp(const float* logits, const float* max_logit, int64_t n_rows, int64_t n, float inv_t, float* w, double* sum) {
  if (n_rows == 0) return cudaSuccess;
  nvtxRangePushA("softmax_exp");
  softmax_exp_kernel<<<static_cast<unsigned>(n_rows), kSamplingThreads>>>(SoftmaxArgs{logits, max_logit, inv_t, n, w, sum});
  const cudaError_t err = cudaGetLastError();
  nvtxRangePop();
  return static_cast<int>(err);
}

}  // namespace draftbench::cuda
