#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/tree_attention_block.h"
#include "kernels/cuda/tree_attention_cuda.h"

namespace draftbench::cuda {
namespace {

__global__ void tree_attention_kernel(TreeAttentionArgs args) {
  __shared__ TreeAttentionShared shared;
  tree_attention_block(DeviceBlock{}, args, shared);
}

}  // namespace

int tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache, int64_t kv_stride,
                   int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride) {
  if (!tree_attention_supports(shape)) return cudaErrorInvalidValue;
  if (tree.n_nodes == 0 || shape.n_heads == 0) return cudaSuccess;
  const TreeAttentionArgs args{shape, q, q_stride, k_cache, v_cache, kv_stride, n_committed, tree, out, out_stride};
  return launch_kernel("tree_attention", tree_attention_launch(shape, tree.n_nodes), tree_attention_kernel, args);
}

}  // namespace draftbench::cuda
