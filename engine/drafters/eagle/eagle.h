// The EAGLE-style drafter (engine/DESIGN.md §2.3):
// EAGLE-1 weights drafting an EAGLE-2 dynamic tree (or an EAGLE-1 static choice tree).
//
// Model: input_i = fc([embed(x_{i+1}), f_i]) (embedding first; fc [H][2H] + bias), where
// f_i is the target's final-norm hidden state at position i and embed is the target's own
// input embedding; one decoder layer of the target's block type without its input norm;
// no final norm (unless `final_norm`); logits = the target's LM head over the draft
// vocabulary. The layer runs through a second Transformer with its own KV cache; draft
// position i holds the pair (f_i, x_{i+1}).
//
// The copy input (drafter.json "previous_token": true; `train --previous-token`): fc also
// reads embed(x_i), the pair's own token, after the feature (fc [H][3H]). Published EAGLE
// cannot copy from its context in one layer: the key of pair j carries x_{j+1}, the token
// it reads, so a query for "what follows token x" lands on the pair before the one whose
// feature predicts the answer. With x_i in every key, pair j+1 carries x_{j+1}: one
// attention head finds the current token earlier in the context and reads what followed it
// (an induction head), which echoing and code-editing replies are full of.
//
// Weights (tensor names as the reference's, both layouts):
//   fc.weight [H, 2H], fc.bias [H] (unless config "bias"/"fc_bias" is false),
//   layers.0.self_attn.{q,k,v,o}_proj.weight, layers.0.mlp.{gate,up,down}_proj.weight,
//   layers.0.post_attention_layernorm.weight, optional embed_tokens.weight (shape-checked,
//   ignored: the target's embedding is used), optional norm.weight (final_norm).
//   Gemma 3 targets (native layout only) add layers.0.self_attn.{q,k}_norm.weight,
//   layers.0.{pre,post}_feedforward_layernorm.weight; their norm weights are direct
//   multipliers (the +1 already included, as in the target GGUF).
//   - reference config.json (LlamaForCausalLM fields; Llama targets only): HF tensors,
//     so RoPE pairs are rotate_half (RopeStyle::neox);
//   - draftbench's drafter.json: n_embd, n_ff, n_heads, n_kv_heads, head_dim, rope_base,
//     rms_eps, fc_bias, final_norm, previous_token (optional, false: fc [H][2H]), optional
//     I32 `draft_vocab`; RoPE style = the target's
//     (q/k rows laid out as the target's own q/k are).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/decoding/drafter.h"
#include "engine/drafters/choice_tree.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/kv_cache.h"
#include "engine/model/transformer.h"

namespace draftbench {

// Writes untrained weights in draftbench's format (see RandomDrafterSpec).
void write_random_eagle(const RandomDrafterSpec& spec, const Model& target, const std::string& dir);

std::unique_ptr<Drafter> make_eagle_drafter(DrafterCheckpoint& checkpoint, const DrafterOptions& options, const Model& target, ThreadPool& pool);

// The drafter itself (built by make_eagle_drafter; declared here for tests and for
// eagle_tree.cpp). Not copyable or movable: its Transformer refers to its own members.
class EagleDrafter final : public Drafter {
 public:
  struct Parts {           // everything make_eagle_drafter loads
    ModelConfig config;    // the draft layer as a 1-layer model
    ModelWeights weights;  // one layer, pointing into the checkpoint; token_embd/output = the target's
    WeightMatrix fc;       // [n_embd][2 n_embd], or [n_embd][3 n_embd] with the copy input
    const float* fc_bias = nullptr;
    bool previous_token = false;  // the copy input (above)
    std::vector<int32_t> draft_vocab;
    bool vocab_capped = false;              // DrafterOptions::draft_vocab left some of the checkpoint's out
    std::optional<ChoiceTree> static_tree;  // EAGLE-1 static tree instead of EAGLE-2's
    int depth = 5, top_k = 10, total_tokens = 60;
    // At temperature > 0, draft the chain of coupled picks (coupled_chain) instead of the
    // tree: what automatic sizing drafts unless DrafterOptions::coupled_drafts is off; fixed
    // sizes keep the paper's trees.
    bool coupled = false;
  };
  EagleDrafter(Parts parts, const Model& target, ThreadPool& pool);
  EagleDrafter(const EagleDrafter&) = delete;
  EagleDrafter& operator=(const EagleDrafter&) = delete;

  std::string name() const override { return "eagle"; }
  int32_t max_tree_nodes() const override;
  bool wants_prompt_hidden() const override { return true; }
  void reset(int n_sequences) override;
  void begin(int seq, std::span<const int32_t> prompt, std::span<const float> prompt_hidden) override;
  void propose(const DraftContext& ctx, Draft& out) override;
  void skip(const DraftContext& ctx) override;
  void limit_draft(int32_t depth, int32_t width) override {
    depth_limit_ = depth;
    width_limit_ = width;
  }
  void accept(int seq, const AcceptedPath& path) override;
  // Each forward of the draft layer (one of the target's layers, in the target's terms) and
  // its rows over the draft vocabulary.
  double draft_seconds(const CostModel& cost) const override;
  DraftWork draft_work() const override;
  std::string cost_variant() const override;

  const ModelConfig& draft_config() const { return parts_.config; }
  // After propose: the draft log-probabilities over the draft vocabulary at the root and the
  // feature predicted there (the trainer's parity tests compare them with libtorch's).
  std::span<const float> root_log_probs() const { return root_logp_; }
  std::span<const float> root_feature() const { return root_feature_; }
  // After propose: the draft log-probabilities of the last level fed ([nodes][n_draft_vocab];
  // with depth 1, the root's children in the root's top-k order).
  std::span<const float> last_level_log_probs() const { return rows_logp_; }

 private:
  // Pairs (x_{i+1}, f_i) not yet in the draft's KV cache.
  static constexpr std::ptrdiff_t kMaxCatchUp = 8;  // pending pairs kept across skipped steps
  struct SequenceState {
    std::vector<int32_t> tokens;
    std::vector<float> features;  // [n][n_embd]
    int32_t previous = -1;        // the token before tokens[0]: x_i of the first pending pair, or the root once committed
  };
  // A node of the candidate pool (EAGLE-2: top_k + depth * top_k^2 of them).
  struct Candidate {
    int32_t token;
    int32_t parent;   // candidate index; -1 = a child of the root
    int32_t scratch;  // the node's slot in the draft's scratch tree once fed, else -1
  };

  void ensure_cache_capacity(int64_t needed);
  // fc([embed(token_i), feature_i]) for n rows into fc_out_; with the copy input
  // fc([embed(token_i), feature_i, embed(previous_i)]).
  void fc_inputs(std::span<const int32_t> tokens, std::span<const int32_t> previous, const float* const* features, int64_t n);
  // Runs the pending pairs as a chain, commits them; root draft log-probs and predicted
  // feature into root_logp_ / root_feature_.
  void run_pending(int seq);
  // Feeds candidates as new scratch-tree nodes (their parents already fed) in one forward
  // and leaves each one's draft log-probs in rows_logp_ [n][n_draft_vocab].
  void feed(int seq, std::span<const int32_t> candidates);
  void dynamic_tree(int seq, Draft& out);
  // Queues (root, hidden that chose it) for the draft cache: what propose and skip share.
  void push_root(const DraftContext& ctx);
  void static_tree(int seq, const ChoiceTree& tree, Draft& out);
  // At temperature > 0: at each depth the token the target's draw would give if its
  // distribution were the draft's (coupled_pick with that depth's uniform), each fed to
  // rank the next; depth + 1 levels, or the sizer's limit. The target's draws use the same
  // uniforms (verify_sampling_coupled), so a draft close to the target's distribution is
  // accepted far more often than its likeliest tokens would be.
  void coupled_chain(const DraftContext& ctx, Draft& out);
  int64_t max_scratch_nodes() const;

  Parts parts_;
  const Model& target_;
  ThreadPool& pool_;
  Transformer transformer_;
  std::optional<KvCache> cache_;
  std::vector<SequenceState> sequences_;

  // Scratch, kept across steps so a warmed-up drafter does not allocate.
  ForwardBatch batch_;
  ForwardResult result_;
  std::vector<float> fc_in_, fc_out_, root_logp_, root_feature_, rows_logp_, scratch_features_, scores_;
  std::vector<const float*> feature_ptrs_;
  std::vector<uint8_t> fc_scratch_;
  std::vector<int32_t> top_, frontier_, selected_, tree_node_, scratch_parents_, scratch_tokens_, feed_tokens_, previous_tokens_;
  std::vector<Candidate> candidates_;
  std::vector<int32_t> vocab_by_id_;  // indices of parts_.draft_vocab in increasing token id
  CoupledScratch coupled_scratch_;
  int32_t depth_limit_ = 0, width_limit_ = 0;      // limit_draft's hints; 0 = none
  std::vector<std::pair<int32_t, int32_t>> work_;  // the last propose's forwards: (tokens, logit rows)
};

}  // namespace draftbench
