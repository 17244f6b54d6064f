#include "kernels/cuda/launch.cuh"
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
  return launch_kernel("argmax", sampling_launch(n_rows), argmax_kernel, ArgmaxArgs{x, n, out});
}

int softmax_exp(const float* logits, const float* max_logit, int64_t n_rows, int64_t n, float inv_t, float* w, double* sum) {
  if (n_rows == 0) return cudaSuccess;
  return launch_kernel("softmax_exp", sampling_launch(n_rows), softmax_exp_kernel, SoftmaxArgs{logits, max_logit, inv_t, n, w, sum});
}

}  // namespace draftbench::cuda
