// ReDrafter and Medusa: drafters that learn per position from (h_t, labels), both reading
// their output through the target's LM-head rows.
//
// Initialisation. Medusa's reference zero-initialises each residual W, so a head starts as
// the identity and predicts what the base LM head predicts; both drafters here start that
// way: residual W = 0 and b = 0 (Medusa keeps PyTorch's default bias init: harmless either
// way, zero keeps the start exactly the identity), and ReDrafter's input_proj = [I | 0] so
// that x = h until the RNN state has learnt something to add. The RNN's own matrices keep
// PyTorch's default Linear init (they must not start at zero, or no gradient reaches them
// through s). torch::manual_seed (set by the trainer) makes the init reproducible.
#include <fmt/format.h>

#include "engine/train/torch/drafter_nets.h"

namespace draftbench {
namespace {

namespace F = torch::nn::functional;
constexpr int64_t kIgnoredLabel = -100;  // torch's cross_entropy default

torch::nn::Linear identity_start_block(torch::nn::Module& owner, const std::string& name, int64_t dim) {
  auto block = owner.register_module(name, torch::nn::Linear(torch::nn::LinearOptions(dim, dim).bias(true)));
  torch::NoGradGuard no_grad;
  block->weight.zero_();
  block->bias.zero_();
  return block;
}

// Cross-entropy of rows [N][Vd] against draft indices (`targets`, -1 = ignored), rows grouped
// into n_steps steps by `step_of_row`. Returns the sum over steps of each step's mean (the
// references' unweighted sum of per-step losses) and fills one tally per step.
torch::Tensor stepwise_cross_entropy(const torch::Tensor& logits, const std::vector<int32_t>& targets, const std::vector<int64_t>& step_of_row, int64_t n_steps,
                                     std::vector<StepTally>& tallies) {
  tallies.assign(static_cast<size_t>(n_steps), StepTally{});
  const int64_t n = logits.size(0);
  TORCH_CHECK(static_cast<int64_t>(targets.size()) == n && static_cast<int64_t>(step_of_row.size()) == n);
  std::vector<int64_t> count(static_cast<size_t>(n_steps), 0);
  for (int64_t r = 0; r < n; ++r)
    if (targets[static_cast<size_t>(r)] >= 0) ++count[static_cast<size_t>(step_of_row[static_cast<size_t>(r)])];
  torch::Tensor target = torch::empty({n}, torch::kInt64), weight = torch::zeros({n}, torch::kFloat32);
  int64_t* t = target.data_ptr<int64_t>();
  float* w = weight.data_ptr<float>();
  for (int64_t r = 0; r < n; ++r) {
    const int32_t label = targets[static_cast<size_t>(r)];
    t[r] = label >= 0 ? label : kIgnoredLabel;
    if (label >= 0) w[r] = 1.0f / static_cast<float>(count[static_cast<size_t>(step_of_row[static_cast<size_t>(r)])]);
  }
  const torch::Tensor per_row = F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(torch::kNone).ignore_index(kIgnoredLabel));
  {
    torch::NoGradGuard no_grad;
    // The label's rank: how many logits beat it (one pass, cheaper than a top-k).
    const torch::Tensor label_logit = logits.gather(1, target.clamp_min(0).unsqueeze(1));
    const torch::Tensor rank = logits.gt(label_logit).sum(1);
    const torch::Tensor top1 = rank.eq(0).to(torch::kInt64).contiguous(), top3 = rank.lt(3).to(torch::kInt64).contiguous(),
                        top5 = rank.lt(5).to(torch::kInt64).contiguous();
    const torch::Tensor losses = per_row.to(torch::kFloat64).contiguous();
    const double* l = losses.data_ptr<double>();
    const int64_t *h1 = top1.data_ptr<int64_t>(), *h3 = top3.data_ptr<int64_t>(), *h5 = top5.data_ptr<int64_t>();
    for (int64_t r = 0; r < n; ++r) {
      if (targets[static_cast<size_t>(r)] < 0) continue;
      StepTally& tally = tallies[static_cast<size_t>(step_of_row[static_cast<size_t>(r)])];
      tally.loss_sum += l[r];
      ++tally.count;
      tally.top1 += h1[r];
      tally.top3 += h3[r];
      tally.top5 += h5[r];
    }
  }
  return (per_row * weight).sum();
}

}  // namespace

// --- ReDrafter -----------------------------------------------------------------------------

RedrafterNet::RedrafterNet(const DraftOutputLayer& output, int64_t steps, int64_t layers) : output_(output), steps_(steps) {
  const int64_t H = output.n_embd();
  rnn_w_ = register_module("rnn_w", torch::nn::Linear(torch::nn::LinearOptions(H, H).bias(false)));
  rnn_u_ = register_module("rnn_u", torch::nn::Linear(torch::nn::LinearOptions(H, H).bias(true)));
  input_proj_ = register_module("input_proj", torch::nn::Linear(torch::nn::LinearOptions(2 * H, H).bias(true)));
  {
    torch::NoGradGuard no_grad;
    input_proj_->weight.zero_();
    input_proj_->weight.narrow(1, 0, H).copy_(torch::eye(H));  // x = [h, s] -> h
    input_proj_->bias.zero_();
  }
  for (int64_t i = 0; i < layers; ++i) blocks_.push_back(identity_start_block(*this, fmt::format("block{}", i), H));
}

torch::Tensor RedrafterNet::step_logits(const torch::Tensor& hidden, const torch::Tensor& input_embeddings) {
  const int64_t B = hidden.size(0), T = input_embeddings.size(1), H = hidden.size(1);
  torch::Tensor state = torch::zeros({B, H}, torch::kFloat32);
  std::vector<torch::Tensor> inputs;
  for (int64_t i = 0; i < T; ++i) {
    // s_t = SiLU(rnn_w e_t + rnn_u s_{t-1} + b), s_0 = 0 (redrafter.cpp advance_state)
    state = torch::silu(rnn_w_->forward(input_embeddings.select(1, i)) + rnn_u_->forward(state));
    inputs.push_back(torch::cat({hidden, state}, 1));  // [h, s_t], the engine's order
  }
  torch::Tensor x = input_proj_->forward(torch::stack(inputs, 1));  // [B][T][H]
  for (auto& block : blocks_) x = residual_block(block, x);
  return output_.draft_logits(x);
}

namespace {
std::pair<torch::Tensor, torch::Tensor> position_inputs(const BackendBatch& b, int64_t H, int64_t T) {
  TORCH_CHECK(static_cast<int64_t>(b.hidden.size()) == b.size * H && static_cast<int64_t>(b.input_embeddings.size()) == b.size * T * H);
  return {float_tensor(b.hidden, {b.size, H}), float_tensor(b.input_embeddings, {b.size, T, H})};
}
}  // namespace

NetOutcome RedrafterNet::loss(const BackendBatch& b, bool) {
  const int64_t B = b.size, T = steps_;
  TORCH_CHECK(b.steps == T);
  const auto [hidden, embeddings] = position_inputs(b, output_.n_embd(), T);
  std::vector<int64_t> step_of_row(static_cast<size_t>(B * T));
  for (int64_t r = 0; r < B * T; ++r) step_of_row[static_cast<size_t>(r)] = r % T;
  const torch::Tensor logits = step_logits(hidden, embeddings).view({B * T, -1});
  NetOutcome out;
  out.loss = stepwise_cross_entropy(logits, b.targets, step_of_row, T, out.steps);
  return out;
}

ForwardOutput RedrafterNet::forward_output(const BackendBatch& b) {
  const auto [hidden, embeddings] = position_inputs(b, output_.n_embd(), b.steps);
  return ForwardOutput{values_of(step_logits(hidden, embeddings)), {}};
}

nlohmann::json RedrafterNet::config() const {
  return nlohmann::json{
      {"exit_dim", output_.n_embd()}, {"num_draft_layers", static_cast<int64_t>(blocks_.size())}, {"rnn", true}, {"initial_state", "zero"}, {"head", "target"}};
}

std::vector<NamedFloats> RedrafterNet::weights() const {
  std::vector<NamedFloats> out{named("rnn_w.weight", rnn_w_->weight), named("rnn_u.weight", rnn_u_->weight), named("rnn_u.bias", rnn_u_->bias),
                               named("input_proj.weight", input_proj_->weight), named("input_proj.bias", input_proj_->bias)};
  for (size_t i = 0; i < blocks_.size(); ++i) {
    out.push_back(named(fmt::format("lm_head.{}.linear.weight", i), blocks_[i]->weight));
    out.push_back(named(fmt::format("lm_head.{}.linear.bias", i), blocks_[i]->bias));
  }
  return out;
}

// --- Medusa --------------------------------------------------------------------------------

MedusaNet::MedusaNet(const DraftOutputLayer& output, int64_t heads, int64_t layers) : output_(output) {
  for (int64_t k = 0; k < heads; ++k) {
    heads_.emplace_back();
    for (int64_t l = 0; l < layers; ++l) heads_.back().push_back(identity_start_block(*this, fmt::format("head{}_block{}", k, l), output.n_embd()));
  }
}

torch::Tensor MedusaNet::head_logits(const torch::Tensor& hidden) {
  std::vector<torch::Tensor> xs;
  for (auto& blocks : heads_) {
    torch::Tensor x = hidden;
    for (auto& block : blocks) x = residual_block(block, x);
    xs.push_back(x);
  }
  return output_.draft_logits(torch::stack(xs, 0));
}

NetOutcome MedusaNet::loss(const BackendBatch& b, bool) {
  const int64_t B = b.size, K = n_steps(), H = output_.n_embd();
  TORCH_CHECK(b.steps == K && static_cast<int64_t>(b.hidden.size()) == B * H);
  // Row k * B + r: head k at position r, whose target is step k's (token t + k + 2).
  std::vector<int32_t> targets(static_cast<size_t>(K * B));
  std::vector<int64_t> step_of_row(static_cast<size_t>(K * B));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < B; ++r) {
      targets[static_cast<size_t>(k * B + r)] = b.targets[static_cast<size_t>(r * K + k)];
      step_of_row[static_cast<size_t>(k * B + r)] = k;
    }
  const torch::Tensor logits = head_logits(float_tensor(b.hidden, {B, H})).view({K * B, -1});
  NetOutcome out;
  out.loss = stepwise_cross_entropy(logits, targets, step_of_row, K, out.steps);
  return out;
}

ForwardOutput MedusaNet::forward_output(const BackendBatch& b) {
  return ForwardOutput{values_of(head_logits(float_tensor(b.hidden, {b.size, output_.n_embd()}))), {}};
}

nlohmann::json MedusaNet::config() const {
  return nlohmann::json{{"num_heads", n_steps()}, {"num_layers", heads_.empty() ? 0 : static_cast<int64_t>(heads_[0].size())}, {"head", "target"}};
}

std::vector<NamedFloats> MedusaNet::weights() const {
  std::vector<NamedFloats> out;
  for (size_t k = 0; k < heads_.size(); ++k)
    for (size_t l = 0; l < heads_[k].size(); ++l) {
      out.push_back(named(fmt::format("{}.{}.linear.weight", k, l), heads_[k][l]->weight));
      out.push_back(named(fmt::format("{}.{}.linear.bias", k, l), heads_[k][l]->bias));
    }
  return out;
}

}  // namespace draftbench
