#include "engine/model/model_weights.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"

namespace draftbench {
namespace {

std::string shape_str(const std::vector<int64_t>& ne) {
  std::string s = "[";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

const GgufTensor& expect(const GgufFile& f, const std::string& name, std::vector<int64_t> ne) {
  const GgufTensor& t = f.tensor(name);
  if (t.ne != ne) throw InputError(f.path(), "tensor '" + name + "'", fmt::format("shape {} (expected {})", shape_str(t.ne), shape_str(ne)));
  return t;
}

WeightMatrix matrix(const GgufFile& f, const std::string& name, int64_t n_in, int64_t n_out) {
  const GgufTensor& t = expect(f, name, {n_in, n_out});
  return WeightMatrix{t.type, n_in, n_out, t.data};
}

const float* vec(const GgufFile& f, const std::string& name, int64_t n, const char* what = "norm") {
  const GgufTensor& t = expect(f, name, {n});
  if (t.type != GgmlType::F32)
    throw InputError(f.path(), "tensor '" + name + "'", fmt::format("type {} (expected F32 for a {} vector)", ggml_type_name(t.type), what));
  if (reinterpret_cast<uintptr_t>(t.data) % alignof(float) != 0) throw InputError(f.path(), "tensor '" + name + "'", "data is not 4-byte aligned");
  return reinterpret_cast<const float*>(t.data);
}

}  // namespace

ModelWeights model_weights_from_gguf(const GgufFile& f, const ModelConfig& c) {
  ModelWeights w;
  w.in_mapped_file = f.is_mapped();
  w.token_embd = matrix(f, "token_embd.weight", c.n_embd, c.n_vocab);
  w.output = f.find_tensor("output.weight") ? matrix(f, "output.weight", c.n_embd, c.n_vocab) : w.token_embd;
  w.output_norm = vec(f, "output_norm.weight", c.n_embd);
  for (int64_t il = 0; il < c.n_layers; ++il) {
    const std::string p = fmt::format("blk.{}.", il);
    LayerWeights l;
    l.attn_norm = vec(f, p + "attn_norm.weight", c.n_embd);
    l.wq = matrix(f, p + "attn_q.weight", c.n_embd, c.q_dim());
    l.wk = matrix(f, p + "attn_k.weight", c.n_embd, c.kv_dim());
    l.wv = matrix(f, p + "attn_v.weight", c.n_embd, c.kv_dim());
    l.wo = matrix(f, p + "attn_output.weight", c.q_dim(), c.n_embd);
    if (c.qkv_bias) {
      l.bq = vec(f, p + "attn_q.bias", c.q_dim(), "bias");
      l.bk = vec(f, p + "attn_k.bias", c.kv_dim(), "bias");
      l.bv = vec(f, p + "attn_v.bias", c.kv_dim(), "bias");
    }
    l.ffn_norm = vec(f, p + "ffn_norm.weight", c.n_embd);
    l.w_gate = matrix(f, p + "ffn_gate.weight", c.n_embd, c.n_ff);
    l.w_up = matrix(f, p + "ffn_up.weight", c.n_embd, c.n_ff);
    l.w_down = matrix(f, p + "ffn_down.weight", c.n_ff, c.n_embd);
    if (c.qk_norm) {
      l.q_norm = vec(f, p + "attn_q_norm.weight", c.head_dim);
      l.k_norm = vec(f, p + "attn_k_norm.weight", c.head_dim);
    }
    if (c.post_norms) {
      l.post_attn_norm = vec(f, p + "post_attention_norm.weight", c.n_embd);
      l.post_ffn_norm = vec(f, p + "post_ffw_norm.weight", c.n_embd);
    }
    w.layers.push_back(l);
  }
  return w;
}

}  // namespace draftbench
