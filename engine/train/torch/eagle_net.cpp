// EAGLE's draft model in libtorch, mirroring the engine's 1-layer Transformer as eagle.cpp
// configures it (draft_config): the target's block type, sizes, RMS epsilon, activation and
// RoPE style; one global attention (no sliding window) with the target's global RoPE base
// and scale 1/sqrt(head_dim); no input norm; no final norm; no logit soft-capping.
//
// Initialisation: PyTorch's default Linear init (EAGLE's Model is a plain nn.Module with
// nn.Linear fc and a LlamaDecoderLayer built the same way) and norm weights 1 (the engine's
// norm weights are direct multipliers, Gemma's "+1" included).
#include <fmt/format.h>

#include <cmath>

#include "engine/train/torch/drafter_nets.h"

namespace draftbench {
namespace {
namespace F = torch::nn::functional;

torch::nn::Linear linear(torch::nn::Module& owner, const char* name, int64_t in, int64_t out, bool bias) {
  return owner.register_module(name, torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias)));
}
}  // namespace

EagleNet::EagleNet(const DraftOutputLayer& output, const EagleLayerSpec& spec, double noise) : output_(output), spec_(spec), noise_(noise) {
  TORCH_CHECK(spec.n_heads > 0 && spec.n_kv_heads > 0 && spec.n_heads % spec.n_kv_heads == 0 && spec.head_dim % 2 == 0 && spec.n_ff > 0);
  attention_scale_ = 1.0f / std::sqrt(static_cast<float>(spec.head_dim));
  const int64_t H = output.n_embd(), QD = spec.n_heads * spec.head_dim, KD = spec.n_kv_heads * spec.head_dim;
  fc_ = linear(*this, "fc", (spec.previous_token ? 3 : 2) * H, H, true);
  q_ = linear(*this, "q_proj", H, QD, false);
  k_ = linear(*this, "k_proj", H, KD, false);
  v_ = linear(*this, "v_proj", H, KD, false);
  o_ = linear(*this, "o_proj", QD, H, false);
  gate_ = linear(*this, "gate_proj", H, spec.n_ff, false);
  up_ = linear(*this, "up_proj", H, spec.n_ff, false);
  down_ = linear(*this, "down_proj", spec.n_ff, H, false);
  ffn_norm_ = register_parameter("ffn_norm", torch::ones({H}));
  if (spec.gemma) {
    q_norm_ = register_parameter("q_norm", torch::ones({spec.head_dim}));
    k_norm_ = register_parameter("k_norm", torch::ones({spec.head_dim}));
    post_attn_norm_ = register_parameter("post_attn_norm", torch::ones({H}));
    post_ffn_norm_ = register_parameter("post_ffn_norm", torch::ones({H}));
  }
}

torch::Tensor EagleNet::rms_norm(const torch::Tensor& x, const torch::Tensor& weight) const {
  return x * torch::rsqrt(x.pow(2).mean(-1, true) + spec_.rms_eps) * weight;
}

torch::Tensor EagleNet::rope(const torch::Tensor& x, int64_t length) const {
  const int64_t half = spec_.head_dim / 2;
  if (!cos_.defined() || cos_.size(0) < length) {
    // The angles exactly as kernels/ops/rope.cpp computes them (float running product).
    const int64_t n = std::max<int64_t>(length, 256);
    cos_ = torch::empty({n, half}, torch::kFloat32);
    sin_ = torch::empty({n, half}, torch::kFloat32);
    float *c = cos_.data_ptr<float>(), *s = sin_.data_ptr<float>();
    const float theta_scale = std::pow(spec_.rope_base, -2.0f / static_cast<float>(spec_.head_dim));
    for (int64_t p = 0; p < n; ++p) {
      float theta = static_cast<float>(p);
      for (int64_t j = 0; j < half; ++j) {
        c[p * half + j] = std::cos(theta);
        s[p * half + j] = std::sin(theta);
        theta *= theta_scale;
      }
    }
  }
  const torch::Tensor c = cos_.narrow(0, 0, length).unsqueeze(1), s = sin_.narrow(0, 0, length).unsqueeze(1);  // [L][1][half]
  if (spec_.rope_neox) {                                                                                       // pairs (j, j + half)
    const torch::Tensor a = x.narrow(-1, 0, half), b = x.narrow(-1, half, half);
    return torch::cat({a * c - b * s, a * s + b * c}, -1);
  }
  const torch::Tensor pairs = x.view({x.size(0), x.size(1), half, 2});  // pairs (2j, 2j + 1)
  const torch::Tensor a = pairs.select(-1, 0), b = pairs.select(-1, 1);
  return torch::stack({a * c - b * s, a * s + b * c}, -1).view(x.sizes());
}

torch::Tensor EagleNet::predict(const torch::Tensor& features, const torch::Tensor& token_embeddings, const torch::Tensor& previous_embeddings,
                                const std::vector<int64_t>& lengths) {
  const int64_t n = features.size(0), group = spec_.n_heads / spec_.n_kv_heads;
  // Embedding first, then the feature, then (the copy input) the pair's own token.
  torch::Tensor x =
      fc_->forward(spec_.previous_token ? torch::cat({token_embeddings, features, previous_embeddings}, 1) : torch::cat({token_embeddings, features}, 1));
  // Attention reads x directly: EAGLE's layer 0 has no input norm.
  torch::Tensor q = q_->forward(x).view({n, spec_.n_heads, spec_.head_dim});
  torch::Tensor k = k_->forward(x).view({n, spec_.n_kv_heads, spec_.head_dim});
  const torch::Tensor v = v_->forward(x).view({n, spec_.n_kv_heads, spec_.head_dim});
  if (spec_.gemma) {
    q = rms_norm(q, q_norm_);
    k = rms_norm(k, k_norm_);
  }
  std::vector<torch::Tensor> outputs;
  int64_t offset = 0;
  for (int64_t L : lengths) {
    if (L == 0) continue;
    // Positions restart at 0 per sequence: the engine's draft cache starts empty.
    const torch::Tensor qs = rope(q.narrow(0, offset, L), L).permute({1, 0, 2});  // [heads][L][d]
    const torch::Tensor ks = rope(k.narrow(0, offset, L), L).permute({1, 0, 2}).repeat_interleave(group, 0);
    const torch::Tensor vs = v.narrow(0, offset, L).permute({1, 0, 2}).repeat_interleave(group, 0);
    const torch::Tensor causal = torch::ones({L, L}, torch::kBool).triu(1);
    const torch::Tensor scores = torch::matmul(qs, ks.transpose(1, 2)).mul(attention_scale_).masked_fill(causal, -INFINITY);
    outputs.push_back(torch::matmul(torch::softmax(scores, -1), vs).permute({1, 0, 2}).reshape({L, spec_.n_heads * spec_.head_dim}));
    offset += L;
  }
  TORCH_CHECK(offset == n, "EAGLE batch: lengths do not cover the rows");
  torch::Tensor attn = o_->forward(torch::cat(outputs, 0));
  if (spec_.gemma) attn = rms_norm(attn, post_attn_norm_);
  x = x + attn;
  const torch::Tensor xn = rms_norm(x, ffn_norm_);
  const torch::Tensor gate = gate_->forward(xn), up = up_->forward(xn);
  const torch::Tensor act = spec_.gemma ? F::gelu(gate, F::GELUFuncOptions().approximate("tanh")) * up : torch::silu(gate) * up;
  torch::Tensor down = down_->forward(act);
  if (spec_.gemma) down = rms_norm(down, post_ffn_norm_);
  return x + down;  // no final norm
}

NetOutcome EagleNet::loss(const BackendBatch& b, bool training) {
  const int64_t n = b.size, H = output_.n_embd();
  TORCH_CHECK(static_cast<int64_t>(b.hidden.size()) == n * H && static_cast<int64_t>(b.input_embeddings.size()) == n * H &&
              static_cast<int64_t>(b.target_features.size()) == n * H && static_cast<int64_t>(b.trained.size()) == n);
  TORCH_CHECK(!spec_.previous_token || static_cast<int64_t>(b.previous_embeddings.size()) == n * H);
  torch::Tensor features = float_tensor(b.hidden, {n, H});
  const torch::Tensor targets = float_tensor(b.target_features, {n, H});
  if (training && noise_ > 0) {
    // EAGLE-1's AddUniformNoise: (U(0,1) - 0.5) * std * 512 / sequence length, on the inputs only.
    std::vector<float> scale;
    for (int64_t L : b.lengths) scale.insert(scale.end(), static_cast<size_t>(L), static_cast<float>(noise_ * 512.0 / static_cast<double>(L + 1)));
    features = features + (torch::rand({n, H}) - 0.5) * float_tensor(scale, {n, 1});
  }
  const torch::Tensor predicted = predict(features, float_tensor(b.input_embeddings, {n, H}), previous_of(b), b.lengths);

  std::vector<int64_t> trained_rows;
  for (int64_t i = 0; i < n; ++i)
    if (b.trained[static_cast<size_t>(i)]) trained_rows.push_back(i);
  NetOutcome out;
  out.steps.assign(1, StepTally{});
  if (trained_rows.empty()) {
    out.loss = predicted.sum() * 0.0;
    return out;
  }
  const torch::Tensor rows = torch::tensor(trained_rows, torch::kInt64);
  const torch::Tensor pred = predicted.index_select(0, rows), want = targets.index_select(0, rows);
  const torch::Tensor feature_loss = F::smooth_l1_loss(pred, want, F::SmoothL1LossFuncOptions().reduction(torch::kNone)).mean(1);
  const torch::Tensor student = output_.draft_logits(pred);
  torch::Tensor teacher;
  {
    torch::NoGradGuard no_grad;
    teacher = output_.target_logits(want);
  }
  const torch::Tensor distribution_loss = -(torch::softmax(teacher, -1) * torch::log_softmax(student, -1)).sum(1);
  const torch::Tensor per_row = kFeatureWeight * feature_loss + kDistributionWeight * distribution_loss;
  out.loss = per_row.mean();
  {
    torch::NoGradGuard no_grad;
    StepTally& t = out.steps[0];
    t.loss_sum = per_row.sum().item<double>();
    t.count = static_cast<int64_t>(trained_rows.size());
    // Accuracy against the target's argmax inside the draft vocabulary.
    const torch::Tensor best = teacher.argmax(1);
    const torch::Tensor top = std::get<1>(student.topk(std::min<int64_t>(5, student.size(1)), 1));
    const torch::Tensor hit = top.eq(best.unsqueeze(1));
    t.top1 = hit.select(1, 0).sum().item<int64_t>();
    t.top3 = hit.narrow(1, 0, std::min<int64_t>(3, hit.size(1))).any(1).sum().item<int64_t>();
    t.top5 = hit.any(1).sum().item<int64_t>();
    out.extra_sums["feature_loss"] = feature_loss.sum().item<double>();
    out.extra_sums["distribution_loss"] = distribution_loss.sum().item<double>();
  }
  return out;
}

ForwardOutput EagleNet::forward_output(const BackendBatch& b) {
  const int64_t n = b.size, H = output_.n_embd();
  const torch::Tensor predicted = predict(float_tensor(b.hidden, {n, H}), float_tensor(b.input_embeddings, {n, H}), previous_of(b), b.lengths);
  return ForwardOutput{values_of(output_.draft_logits(predicted)), values_of(predicted)};
}

nlohmann::json EagleNet::config() const {
  return nlohmann::json{{"n_embd", output_.n_embd()}, {"n_ff", spec_.n_ff},
                        {"n_heads", spec_.n_heads},   {"n_kv_heads", spec_.n_kv_heads},
                        {"head_dim", spec_.head_dim}, {"rope_base", spec_.rope_base},
                        {"rms_eps", spec_.rms_eps},   {"fc_bias", true},
                        {"final_norm", false},        {"previous_token", spec_.previous_token}};
}

torch::Tensor EagleNet::previous_of(const BackendBatch& b) const {
  return spec_.previous_token ? float_tensor(b.previous_embeddings, {b.size, output_.n_embd()}) : torch::Tensor();
}

std::vector<NamedFloats> EagleNet::weights() const {
  const std::string L = "layers.0.";
  std::vector<NamedFloats> out{named("fc.weight", fc_->weight),
                               named("fc.bias", fc_->bias),
                               named(L + "self_attn.q_proj.weight", q_->weight),
                               named(L + "self_attn.k_proj.weight", k_->weight),
                               named(L + "self_attn.v_proj.weight", v_->weight),
                               named(L + "self_attn.o_proj.weight", o_->weight),
                               named(L + "mlp.gate_proj.weight", gate_->weight),
                               named(L + "mlp.up_proj.weight", up_->weight),
                               named(L + "mlp.down_proj.weight", down_->weight)};
  if (spec_.gemma) {  // eagle.cpp's Gemma names; post_attention_layernorm is the post-attention norm
    out.push_back(named(L + "self_attn.q_norm.weight", q_norm_));
    out.push_back(named(L + "self_attn.k_norm.weight", k_norm_));
    out.push_back(named(L + "post_attention_layernorm.weight", post_attn_norm_));
    out.push_back(named(L + "pre_feedforward_layernorm.weight", ffn_norm_));
    out.push_back(named(L + "post_feedforward_layernorm.weight", post_ffn_norm_));
  } else {  // Llama: post_attention_layernorm is the pre-MLP norm
    out.push_back(named(L + "post_attention_layernorm.weight", ffn_norm_));
  }
  return out;
}

}  // namespace draftbench
