// CUDA acceptance walks over a batch of drafted trees, one block per tree; the bodies are
// kernels/cuda/tree_acceptance_block.h and tree_acceptance_q_block.h, which the CPU emulation
// runs too. References: verify_greedy, verify_sampling_one_hot and verify_sampling_with_q
// (engine/decoding/verify.h).
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
int verify_greedy(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees, int64_t n_vocab,
                  int32_t* path, int32_t* path_length, int32_t* next_token);

// The target distribution's parameters, as draftbench::SamplingParams (engine/decoding/
// sampling.h): temperature > 0; top_k <= 0 and top_p >= 1 are off.
struct TargetSampling {
  float temperature = 1.0f;
  int top_k = 0;
  float top_p = 1.0f;
};

// verify_sampling_one_hot with SamplingParams{temperature, top_k, top_p} and the uniforms
// of keys[b] (seed, request, step; the node is set per node). With top-k or top-p on, its
// decisions exactly (any k; the filtered list in the host's order and arithmetic); with
// both off, its decisions but for a uniform within rounding (1e-9 of the node's mass) of
// its threshold. Workspaces: `weights` [n_trees][n_vocab] floats, and with a filter on
// `order` [n_trees][n_vocab] (may be null with both off).
int verify_sampling_one_hot(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees, int64_t n_vocab,
                            const TargetSampling& sampling, const RngKey* keys, float* weights, uint64_t* order, int32_t* path, int32_t* path_length,
                            int32_t* next_token);

// The drafts of verify_sampling_with_q, CSR-packed over the batch's rows: the q of row r
// (tree b's node v at r = node_offsets[b] + v) is entries offsets[r] .. offsets[r + 1) of
// tokens and probs (target ids, each once; probabilities proportional).
struct SampledDraftQ {
  const int32_t* tokens;
  const double* probs;
  const int32_t* offsets;  // [total nodes + 1]
  bool without_replacement = false;
  // Packed sampled beams (SampledDrafts::beams), the same number and length in every tree:
  // tree b's are beam_nodes[b][n_beams][beam_length], in its own node ids (BeamPaths'
  // layout). n_beams 0: the draws below a node are its children in node order. Beams are
  // independent draws: with without_replacement the call returns cudaErrorInvalidValue.
  const int32_t* beam_nodes = nullptr;
  int32_t n_beams = 0;
  int32_t beam_length = 0;
};

// verify_sampling_with_q with SamplingParams{temperature, top_k, top_p}, drafts.q,
// drafts.sampling and drafts.beams as `q`, and the uniforms of keys[b]: its decisions exactly,
// with or without top-k / top-p (thread 0 runs the host's arithmetic over the target's list;
// without a filter that list is the whole vocabulary, a few sequential passes over it per
// visited node). A tree whose q or beams the host would reject (DB_CHECK) gets path_length 0 and
// next_token -1. Workspaces [n_trees][n_vocab]: `weights` floats, `residual` and `q_by_token`
// doubles, and with a filter on `order` (may be null with both off).
int verify_sampling_with_q(const float* logits, const int32_t* parents, const int32_t* tokens, const int32_t* node_offsets, int64_t n_trees, int64_t n_vocab,
                           const TargetSampling& sampling, const SampledDraftQ& q, const RngKey* keys, float* weights, uint64_t* order, double* residual,
                           double* q_by_token, int32_t* path, int32_t* path_length, int32_t* next_token);

}  // namespace draftbench::cuda
