// CUDA acceptance walks over a batch of drafted trees, one block per tree; the bodies are
// kernels/cuda/tree_acceptance_block.h, which the CPU emulation runs too. References:
// verify_greedy and verify_sampling_one_hot (engine/decoding/verify.h).
//
// Device pointers; default stream; each returns the launch's CUDA error code (0 = success;
// cudaErrorInvalidValue unless tree_acceptance_supports(n_vocab)). The batch is CSR-packed:
// tree b is rows node_offsets[b] .. node_offsets[b + 1] of logits [rows][n_vocab], parents
// and tokens, its parents in its own node ids (node 0 its root, -1 for the root and root
// copies). Per tree, path (from node_offsets[b]) receives the accepted nodes, root first,
// path_length[b] their number, next_token[b] the bonus or correction token.
#pragma once

#include <cstdint>

#include "kernels/sampling/counter_rng.h"

namespace draftbench::cuda {

// verify_greedy's path and next token exactly. A tree of more than
// kGreedyAcceptanceMaxNodes (1024) nodes gets path_length 0 and next_token -1.
int verify_greedy(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees,
                  int64_t n_vocab, int32_t* path, int32_t* path_length, int32_t* next_token);

// verify_sampling_one_hot at `temperature` (> 0) without top-k / top-p filtering, with the
// uniforms of keys[b] (seed, request, step; the node is set per node): its decisions, but
// for a uniform within rounding (1e-9 of the node's mass) of its threshold. `weights` is a
// workspace of [n_trees][n_vocab] floats.
int verify_sampling_one_hot(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets,
                            int64_t n_trees, int64_t n_vocab, float temperature, const RngKey* keys, float* weights, int32_t* path,
                            int32_t* path_length, int32_t* next_token);

}  // namespace draftbench::cuda
