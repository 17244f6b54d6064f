// The speculative decoding loop (method.md §1) for a batch of sequences, shared by every
// drafter and by the autoregressive baseline:
//
//   prefill all prompts -> first root per sequence
//   repeat: draft a tree per active sequence -> one forward over all trees
//           -> verify (longest acceptable path + next token) -> commit the path's K/V
//           -> record the step
//
// Sequences finish independently (stop token or length) and stop costing compute.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/decoding/sampling.h"
#include "engine/drafters/drafter.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"

namespace draftbench {

struct DecodeOptions {
  int max_new_tokens = 128;
  SamplingParams sampling;  // temperature 0 = greedy verification; > 0 = exact one-hot sampling rule
  uint64_t seed = 0;
  bool ignore_eos = false;
};

// One verification step of one sequence.
struct StepRecord {
  int32_t drafted = 0;   // draft nodes proposed (root excluded)
  int32_t verified = 0;  // tree nodes run through the target (root included)
  int32_t accepted = 0;  // draft tokens accepted (the bonus token not counted)
  double draft_seconds = 0, verify_seconds = 0, accept_seconds = 0;
};

struct SequenceResult {
  std::vector<int32_t> tokens;  // generated ids (a stop token, if hit, included)
  int64_t prompt_tokens = 0;
  std::vector<StepRecord> steps;
  double prefill_seconds = 0, total_seconds = 0;
  bool stopped_on_eos = false;
  // Tokens committed per target call (prefill included), bonus included; autoregressive = 1.
  double tokens_per_step() const;
};

class Decoder {
 public:
  Decoder(const Model& model, Transformer& transformer, Drafter& drafter);

  // One result per prompt. The cache is sized here: prompt + max_new_tokens + the largest
  // tree, per sequence; a configuration that does not fit fails before decoding starts.
  std::vector<SequenceResult> generate(std::span<const std::vector<int32_t>> prompts, const DecodeOptions& options,
                                       int32_t max_tree_nodes);

 private:
  const Model& model_;
  Transformer& transformer_;
  Drafter& drafter_;
};

}  // namespace draftbench
