#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "kernels/cuda/tree_attention_block.h"
#include "kernels/cuda/tree_attention_cuda.h"

namespace draftbench::cuda {
namespace {

__global__ void tree_attention_kernel(TreeAttentionArgs args) {
  __shared__ TreeAttentionShared shared;
  tree_attention_block(DeviceBlock{}, args, shared);
}

}  // namespace

int tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache,
                   int64_t kv_stride, int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride) {
  if (shape.head_dim <= 0 || shape.head_dim > kTreeAttentionMaxHeadDim || shape.n_kv_heads <= 0 || shape.n_heads % shape.n_kv_heads != 0)
    return cudaErrorInvalidValue;
  if (tree.n_nodes > 65535) return cudaErrorInvalidValue;  // grid y limit
  if (tree.n_nodes == 0 || shape.n_heads == 0) return cudaSuccess;
  const TreeAttentionArgs args{shape, q, q_stride, k_cache, v_cache, kv_stride, n_committed, tree, out, out_stride};
  nvtxRangePushA("tree_attention");
  tree_attention_kernel<<<dim3(static_cast<unsigned>(shape.n_heads), static_cast<unsigned>(tree.n_nodes)), kTreeAttentionThreads>>>(args);
  const cudaError_t err = cudaGetLastError();
  nvtxRangePop();
  return static_cast<int>(err);
}

}  // namespace draftbench::cuda
