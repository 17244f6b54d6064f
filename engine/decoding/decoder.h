// The speculative decoding loop (engine/DESIGN.md §1) for a batch of sequences, shared by every
// drafter and by the autoregressive baseline:
//
//   prefill  all prompts -> first root per sequence -> drafter.begin
//   repeat:
//     draft   a tree per active sequence
//     verify  one forward over all trees (and the LM-head rows verification will read)
//     accept  per sequence: the longest acceptable path + next token (the verification
//             rule) -> commit the path's K/V -> drafter.accept; then record the step
//
// generate() is these stages in this order (decoder.cpp, DecodeRun).
//
// Sequences finish independently (stop token or length) and stop costing compute.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/decoding/cost_model.h"
#include "engine/decoding/drafter.h"
#include "engine/decoding/sampling.h"
#include "engine/model/forward_pass.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model.h"

namespace draftbench {

// How drafts are verified at temperature > 0 (temperature 0 is always greedy, lossless).
enum class VerificationRule {
  exact,            // coupled (verify_sampling_coupled): autoregressive sampling's tokens with the same seed
  redrafter_lossy,  // the ReDrafter reference rule (per-beam u < p/q, longest): LOSSY, needs beams and q
  typical_lossy,    // Medusa's typical acceptance (epsilon, delta): LOSSY
};
const char* verification_rule_name(VerificationRule rule);
bool is_lossy(VerificationRule rule);

// One verification step of one sequence, as DecodeOptions::on_step reports it.
struct StepTrace {
  int sequence;                       // index in the batch
  int step;                           // 0 = the sequence's first verification
  const Draft& draft;                 // node 0 is the root
  std::span<const int32_t> accepted;  // accepted nodes, root first
  int32_t next;                       // the next root
};

struct DecodeOptions {
  int max_new_tokens = 128;
  SamplingParams sampling;  // temperature 0 = greedy verification
  VerificationRule rule = VerificationRule::exact;
  float typical_epsilon = 0.09f, typical_delta = 0.3f;  // typical_lossy only
  uint64_t seed = 0;
  // Sequence s draws its randomness as request first_request + s: a caller that splits a
  // prompt list into batches passes each batch's offset, so samples never depend on batching.
  uint64_t first_request = 0;
  bool ignore_eos = false;
  // First-child nodes below each root, and below a node verification asks for beyond them,
  // computed in the same LM-head pass (engine/decoding/node_logits.h); unset: chosen step by
  // step from the paths accepted so far. Only time depends on it, never a token.
  std::optional<int32_t> head_lookahead;
  // This machine's costs, when the caller has them: the LM-head rows a step computes at once
  // are weighed with them (node_logits.h). Only time depends on it, never a token.
  std::shared_ptr<const CostModel> cost;
  // Called with (sequence, token) as each token is emitted, for streaming; may be empty.
  std::function<void(int, int32_t)> on_token;
  // Called after each step's verification of each sequence, for tracing drafters; may be empty.
  std::function<void(const StepTrace&)> on_step;
};

// One verification step of one sequence.
struct StepRecord {
  int32_t drafted = 0;      // draft nodes proposed (root excluded)
  int32_t verified = 0;     // tree nodes run through the target (root included; packed)
  int32_t beam_tokens = 0;  // tokens of the beams before packing (= verified for non-beam drafters)
  int32_t accepted = 0;     // draft tokens accepted (the bonus token not counted)
  // draft and accept: this sequence's own; verify and step: the batch's shared forward and
  // the whole step's wall time (so other = step - the batch's draft + verify + accept).
  double draft_seconds = 0, verify_seconds = 0, accept_seconds = 0, step_seconds = 0;
};

struct SequenceResult {
  std::vector<int32_t> tokens;  // generated ids (a stop token, if hit, included)
  int64_t prompt_tokens = 0;
  std::vector<StepRecord> steps;
  double prefill_seconds = 0;  // time to first token: the batch's prefill and first sample
  double total_seconds = 0;    // from the start of the prefill to this sequence's last token
  bool stopped_on_eos = false;
  // Tokens committed per target call (prefill included), bonus included; autoregressive = 1.
  double tokens_per_step() const;
  // Generated tokens per second of this sequence's wall time, prefill included.
  double tokens_per_second() const;
};

class Decoder {
 public:
  Decoder(const Model& model, ForwardPass& target, Drafter& drafter);

  // One result per prompt. The cache is sized here: prompt + max_new_tokens + the
  // drafter's largest tree, per sequence; a configuration that does not fit the model's
  // context fails before decoding starts.
  std::vector<SequenceResult> generate(std::span<const std::vector<int32_t>> prompts, const DecodeOptions& options);

  // Bytes of KV cache generate() would allocate for these prompt lengths (memory planning).
  static size_t kv_bytes(const ModelConfig& config, std::span<const int64_t> prompt_lengths, int max_new_tokens, int32_t max_tree_nodes);

 private:
  const Model& model_;
  ForwardPass& target_;
  Drafter& drafter_;
};

}  // namespace draftbench
