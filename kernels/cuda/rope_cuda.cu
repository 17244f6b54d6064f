#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/rope_cuda.h"
#include "kernels/cuda/rope_thread.h"

namespace draftbench::cuda {
namespace {

__global__ void rope_kernel(RopeArgs args) { rope_thread(args, Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z}); }

int launch_rope(const char* range, RopePairing pairing, float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim,
                float base) {
  if (n_tokens == 0 || n_heads == 0 || head_dim < 2) return cudaSuccess;
  const RopeArgs args{x, token_stride, positions, n_heads, head_dim, rope_theta_scale(base, head_dim), pairing};
  return launch_kernel(range, rope_launch(n_tokens, n_heads, head_dim), rope_kernel, args);
}

}  // namespace

int rope_neox(float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base) {
  return launch_rope("rope_neox", RopePairing::kNeox, x, n_tokens, token_stride, positions, n_heads, head_dim, base);
}

int rope_norm(float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base) {
  return launch_rope("rope_norm", RopePairing::kNorm, x, n_tokens, token_stride, positions, n_heads, head_dim, base);
}

}  // namespace draftbench::cuda
