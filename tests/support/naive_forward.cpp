// naive_forward_logits (tiny_llama.h): the Llama / Qwen 2 forward pass written as plainly
// as possible, in double, over the HF tensors. Nothing here is shared with the engine.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tests/support/tiny_llama.h"

namespace draftbench::test {
namespace {

using Rows = std::vector<std::vector<double>>;  // [position][width]

struct Weights {
  const TinyLlama& m;
  const NamedTensor* find(const std::string& name) const {
    for (const NamedTensor& t : m.tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  const std::vector<float>& operator()(const std::string& name) const {
    if (const NamedTensor* t = find(name)) return t->values;
    throw std::out_of_range("naive_forward: no tensor " + name);
  }
  bool has(const std::string& name) const { return find(name) != nullptr; }
};

std::vector<double> rms_norm(const std::vector<double>& x, const std::vector<float>& w, double eps) {
  double ss = 0;
  for (double v : x) ss += v * v;
  const double scale = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + eps);
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * scale * w[i];
  return y;
}

// y = W x (+ b), W [n_out][n_in] row-major as HF stores it.
std::vector<double> linear(const std::vector<float>& w, const std::vector<double>& x, const std::vector<float>* bias = nullptr) {
  const size_t n_in = x.size(), n_out = w.size() / n_in;
  std::vector<double> y(n_out);
  for (size_t o = 0; o < n_out; ++o) {
    double s = bias ? (*bias)[o] : 0.0;
    for (size_t i = 0; i < n_in; ++i) s += static_cast<double>(w[o * n_in + i]) * x[i];
    y[o] = s;
  }
  return y;
}

// Rotate-half RoPE on each head of x: pairs (j, j + d/2).
void rope(std::vector<double>& x, int64_t heads, int64_t d, int64_t pos, double theta) {
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t j = 0; j < d / 2; ++j) {
      const double angle = static_cast<double>(pos) * std::pow(theta, -2.0 * static_cast<double>(j) / static_cast<double>(d));
      double& a = x[static_cast<size_t>(h * d + j)];
      double& b = x[static_cast<size_t>(h * d + j + d / 2)];
      const double a0 = a, b0 = b;
      a = a0 * std::cos(angle) - b0 * std::sin(angle);
      b = a0 * std::sin(angle) + b0 * std::cos(angle);
    }
}

}  // namespace

std::vector<double> naive_forward_logits(const TinyLlama& model, const std::vector<int32_t>& tokens) {
  const TinyLlamaShape& s = model.shape;
  const Weights W{model};
  const int64_t n = static_cast<int64_t>(tokens.size()), H = s.hidden, D = s.head_dim, group = s.heads / s.kv_heads;
  Rows x(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    const auto& e = W("model.embed_tokens.weight");
    x[t].assign(e.begin() + tokens[t] * H, e.begin() + (tokens[t] + 1) * H);
  }
  for (int64_t il = 0; il < s.layers; ++il) {
    const std::string p = "model.layers." + std::to_string(il) + ".";
    const auto bias = [&](const char* name) { return W.has(p + name) ? &W(p + name) : nullptr; };
    Rows q(x.size()), k(x.size()), v(x.size());
    for (int64_t t = 0; t < n; ++t) {
      const std::vector<double> h = rms_norm(x[t], W(p + "input_layernorm.weight"), s.rms_eps);
      q[t] = linear(W(p + "self_attn.q_proj.weight"), h, bias("self_attn.q_proj.bias"));
      k[t] = linear(W(p + "self_attn.k_proj.weight"), h, bias("self_attn.k_proj.bias"));
      v[t] = linear(W(p + "self_attn.v_proj.weight"), h, bias("self_attn.v_proj.bias"));
      rope(q[t], s.heads, D, t, s.rope_theta);
      rope(k[t], s.kv_heads, D, t, s.rope_theta);
    }
    for (int64_t t = 0; t < n; ++t) {
      std::vector<double> attn(static_cast<size_t>(s.heads * D), 0.0);
      for (int64_t h = 0; h < s.heads; ++h) {
        const int64_t kv = h / group;
        std::vector<double> score(static_cast<size_t>(t + 1));
        double top = -INFINITY, sum = 0;
        for (int64_t u = 0; u <= t; ++u) {
          double dot = 0;
          for (int64_t i = 0; i < D; ++i) dot += q[t][h * D + i] * k[u][kv * D + i];
          score[u] = dot / std::sqrt(static_cast<double>(D));
          top = std::max(top, score[u]);
        }
        for (double& sc : score) sum += (sc = std::exp(sc - top));
        for (int64_t u = 0; u <= t; ++u)
          for (int64_t i = 0; i < D; ++i) attn[h * D + i] += score[u] / sum * v[u][kv * D + i];
      }
      const std::vector<double> o = linear(W(p + "self_attn.o_proj.weight"), attn);
      for (int64_t i = 0; i < H; ++i) x[t][i] += o[i];
      const std::vector<double> h = rms_norm(x[t], W(p + "post_attention_layernorm.weight"), s.rms_eps);
      const std::vector<double> gate = linear(W(p + "mlp.gate_proj.weight"), h), up = linear(W(p + "mlp.up_proj.weight"), h);
      std::vector<double> act(gate.size());
      for (size_t i = 0; i < act.size(); ++i) act[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
      const std::vector<double> down = linear(W(p + "mlp.down_proj.weight"), act);
      for (int64_t i = 0; i < H; ++i) x[t][i] += down[i];
    }
  }
  const auto& head = W(s.tied_embeddings ? "model.embed_tokens.weight" : "lm_head.weight");
  std::vector<double> logits;
  for (int64_t t = 0; t < n; ++t) {
    const std::vector<double> y = linear(head, rms_norm(x[t], W("model.norm.weight"), s.rms_eps));
    logits.insert(logits.end(), y.begin(), y.end());
  }
  return logits;
}

}  // namespace draftbench::test
