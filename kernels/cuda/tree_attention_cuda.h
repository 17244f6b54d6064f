// CUDA tree attention with the DFS-interval ancestor test: every head of every tree node
// attends to its committed context (sliding window included) and its ancestors-or-self;
// the body is kernels/cuda/tree_attention_block.h, which the CPU emulation runs too.
// Reference: tree_attention_head (kernels/attention/tree_attention.h), one head of one
// node per call there; cache layout and slot numbering are the same.
#pragma once

#include <cstdint>

#include "kernels/attention/tree_attention.h"

namespace draftbench::cuda {

// Device pointers (q, caches, out, and the tree's three arrays); default stream.
// q and out: node i, head h at + i * q_stride (out_stride) + h * head_dim.
// Returns the CUDA error code of the launch (0 = success; cudaErrorInvalidValue for a
// head_dim over 256, heads not a multiple of kv heads, or too many nodes for the grid).
int tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache, int64_t kv_stride,
                   int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride);

}  // namespace draftbench::cuda
