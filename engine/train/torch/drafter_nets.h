// The three drafters as libtorch modules, each computing exactly what its engine drafter
// computes (engine/drafters/redrafter/, medusa/, eagle/), so the
// exported weights mean the same thing to the engine as to the trainer; the parity tests
// (tests/train/parity_test.cpp) hold the two side by side. Inside libdraftbench_torch.so
// only (torch_backend.h says why).
//
// The target is frozen and outside the graph: its embeddings arrive precomputed in the
// batch, and the output layer is the target's LM head restricted to the draft vocabulary
// (DraftOutputLayer), a constant [n_draft_vocab][n_embd] tensor.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/train/torch/torch_backend.h"

namespace draftbench {

class DraftOutputLayer {
 public:
  // bf16: the rows are kept in bf16, and the products take bf16 inputs and give f32.
  DraftOutputLayer(const TargetRows& target, bool bf16);
  int64_t n_embd() const { return rows_.size(1); }
  // A drafter's logits: no soft-capping, as the engine's draft heads (draft_head.cpp, eagle.cpp).
  torch::Tensor draft_logits(const torch::Tensor& x) const;
  // The target's own logits over the draft vocabulary, its final soft-capping included.
  torch::Tensor target_logits(const torch::Tensor& hidden) const;

 private:
  torch::Tensor rows_;  // [n_draft_vocab][n_embd], f32 or bf16
  float softcap_;
};

struct NetOutcome {
  torch::Tensor loss;
  std::vector<StepTally> steps;
  std::map<std::string, double> extra_sums;
};

class DrafterNet : public torch::nn::Module {
 public:
  virtual int64_t n_steps() const = 0;
  virtual NetOutcome loss(const BackendBatch& batch, bool training) = 0;
  virtual ForwardOutput forward_output(const BackendBatch& batch) = 0;
  virtual nlohmann::json config() const = 0;
  virtual std::vector<NamedFloats> weights() const = 0;
};

// ReDrafter (redrafter.h): exit_dim = n_embd with input_proj [H][2H], num_draft_layers
// residual blocks, the target's LM-head rows; rnn, s_0 = 0.
class RedrafterNet final : public DrafterNet {
 public:
  RedrafterNet(const DraftOutputLayer& output, int64_t steps, int64_t layers);
  int64_t n_steps() const override { return steps_; }
  // hidden [B][H], input_embeddings [B][T][H] -> logits [B][T][Vd]
  torch::Tensor step_logits(const torch::Tensor& hidden, const torch::Tensor& input_embeddings);
  NetOutcome loss(const BackendBatch& batch, bool training) override;
  ForwardOutput forward_output(const BackendBatch& batch) override;
  nlohmann::json config() const override;
  std::vector<NamedFloats> weights() const override;

 private:
  const DraftOutputLayer& output_;
  int64_t steps_;
  torch::nn::Linear rnn_w_{nullptr}, rnn_u_{nullptr}, input_proj_{nullptr};
  std::vector<torch::nn::Linear> blocks_;
};

// Medusa (medusa.h), the "version 2" layout: K heads of residual blocks over h, each read
// through the target's LM-head rows.
class MedusaNet final : public DrafterNet {
 public:
  MedusaNet(const DraftOutputLayer& output, int64_t heads, int64_t layers);
  int64_t n_steps() const override { return static_cast<int64_t>(heads_.size()); }
  // hidden [B][H] -> logits [K][B][Vd]
  torch::Tensor head_logits(const torch::Tensor& hidden);
  NetOutcome loss(const BackendBatch& batch, bool training) override;
  ForwardOutput forward_output(const BackendBatch& batch) override;
  nlohmann::json config() const override;
  std::vector<NamedFloats> weights() const override;

 private:
  const DraftOutputLayer& output_;
  std::vector<std::vector<torch::nn::Linear>> heads_;  // [K][layers]
};

// EAGLE (eagle.h): fc([embed(x_{i+1}), f_i]) then one decoder layer of the target's block
// type without its input norm, causal over each sequence, positions from 0 (the engine's
// draft KV cache starts at 0), one global attention with the target's global RoPE base.
class EagleNet final : public DrafterNet {
 public:
  EagleNet(const DraftOutputLayer& output, const EagleLayerSpec& spec, double noise);
  int64_t n_steps() const override { return 1; }
  // features f_i [n][H], token embeddings of x_{i+1} [n][H] (and, with the copy input, of
  // x_i; else undefined), sequences end to end -> f_{i+1} [n][H]
  torch::Tensor predict(const torch::Tensor& features, const torch::Tensor& token_embeddings, const torch::Tensor& previous_embeddings,
                        const std::vector<int64_t>& lengths);
  NetOutcome loss(const BackendBatch& batch, bool training) override;
  ForwardOutput forward_output(const BackendBatch& batch) override;
  nlohmann::json config() const override;
  std::vector<NamedFloats> weights() const override;

  static constexpr double kFeatureWeight = 1.0, kDistributionWeight = 0.1;  // EAGLE-1's v_w, p_w

 private:
  torch::Tensor rope(const torch::Tensor& x, int64_t length) const;  // x [L][heads][head_dim]
  torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight) const;
  torch::Tensor previous_of(const BackendBatch& batch) const;  // embed(x_i) [n][H] with the copy input, else undefined

  const DraftOutputLayer& output_;
  EagleLayerSpec spec_;
  float attention_scale_;
  double noise_;
  torch::nn::Linear fc_{nullptr}, q_{nullptr}, k_{nullptr}, v_{nullptr}, o_{nullptr}, gate_{nullptr}, up_{nullptr}, down_{nullptr};
  torch::Tensor q_norm_, k_norm_, post_attn_norm_, ffn_norm_, post_ffn_norm_;
  mutable torch::Tensor cos_, sin_;  // [positions][head_dim / 2], computed as kernels/ops/rope.cpp does
};

// --- helpers the nets share ---------------------------------------------------------------

// A copy of `values` as a float tensor of `shape`.
torch::Tensor float_tensor(const std::vector<float>& values, std::vector<int64_t> shape);
// A tensor's values, row-major.
std::vector<float> values_of(const torch::Tensor& t);
// A tensor's values with its engine name, for export.
NamedFloats named(const std::string& name, const torch::Tensor& t);
// x + SiLU(W x + b): the residual block of ReDrafter's and Medusa's heads (draft_head.cpp).
inline torch::Tensor residual_block(torch::nn::Linear& block, const torch::Tensor& x) { return x + torch::silu(block->forward(x)); }

}  // namespace draftbench
