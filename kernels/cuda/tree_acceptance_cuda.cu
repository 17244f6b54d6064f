#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/tree_acceptance_block.h"
#include "kernels/cuda/tree_acceptance_cuda.h"
#include "kernels/cuda/tree_acceptance_q_block.h"

namespace draftbench::cuda {
namespace {

__global__ void greedy_acceptance_kernel(GreedyAcceptanceArgs args) {
  __shared__ GreedyAcceptanceShared shared;
  greedy_acceptance_block(DeviceBlock{}, args, shared);
}

__global__ void one_hot_acceptance_kernel(OneHotAcceptanceArgs args) {
  __shared__ OneHotAcceptanceShared shared;
  one_hot_acceptance_block(DeviceBlock{}, args, shared);
}

__global__ void q_acceptance_kernel(QAcceptanceArgs args) {
  __shared__ QAcceptanceShared shared;
  q_acceptance_block(DeviceBlock{}, args, shared);
}

// The sampling walks' arguments: a vocabulary the block programs index, T > 0, and the list
// workspace when a filter is on.
bool sampling_args_valid(int64_t n_vocab, const TargetSampling& sampling, const uint64_t* order) {
  return tree_acceptance_supports(n_vocab) && sampling.temperature > 0.0f && (order || !TargetFilter{sampling.top_k, sampling.top_p}.on());
}

}  // namespace

int verify_greedy(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees, int64_t n_vocab,
                  int32_t* path, int32_t* path_length, int32_t* next_token) {
  if (!tree_acceptance_supports(n_vocab)) return cudaErrorInvalidValue;
  if (n_trees == 0) return cudaSuccess;
  return launch_kernel("verify_greedy", tree_acceptance_launch(n_trees), greedy_acceptance_kernel,
                       GreedyAcceptanceArgs{TreeBatch{logits, parents, tokens, node_offsets, n_vocab}, AcceptanceOut{path, path_length, next_token}});
}

int verify_sampling_one_hot(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees, int64_t n_vocab,
                            const TargetSampling& sampling, const RngKey* keys, float* weights, uint64_t* order, int32_t* path, int32_t* path_length,
                            int32_t* next_token) {
  if (!sampling_args_valid(n_vocab, sampling, order)) return cudaErrorInvalidValue;
  if (n_trees == 0) return cudaSuccess;
  return launch_kernel("verify_sampling_one_hot", tree_acceptance_launch(n_trees), one_hot_acceptance_kernel,
                       OneHotAcceptanceArgs{TreeBatch{logits, parents, tokens, node_offsets, n_vocab}, 1.0f / sampling.temperature,
                                            TargetFilter{sampling.top_k, sampling.top_p}, keys, weights, order, AcceptanceOut{path, path_length, next_token}});
}

int verify_sampling_with_q(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees, int64_t n_vocab,
                           const TargetSampling& sampling, const SampledDraftQ& q, const RngKey* keys, float* weights, uint64_t* order, double* residual,
                           double* q_by_token, int32_t* path, int32_t* path_length, int32_t* next_token) {
  const bool beams_valid = q.n_beams == 0 || (q.n_beams > 0 && q.beam_length >= 1 && q.beam_nodes && !q.without_replacement);
  if (!beams_valid || !sampling_args_valid(n_vocab, sampling, order)) return cudaErrorInvalidValue;
  if (n_trees == 0) return cudaSuccess;
  return launch_kernel(
      "verify_sampling_with_q", tree_acceptance_launch(n_trees), q_acceptance_kernel,
      QAcceptanceArgs{TreeBatch{logits, parents, tokens, node_offsets, n_vocab}, 1.0f / sampling.temperature, TargetFilter{sampling.top_k, sampling.top_p},
                      DraftQ{q.tokens, q.probs, q.offsets, q.without_replacement, q.beam_nodes, q.n_beams, q.beam_length}, keys, weights, order, residual,
                      q_by_token, AcceptanceOut{path, path_length, next_token}});
}

}  // namespace draftbench::cuda
