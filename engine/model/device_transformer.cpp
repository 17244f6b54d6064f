#include "engine/model/device_transformer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "engine/common/error.h"
#include "engine/model/token_embedding.h"
#include "engine/model/transformer_layer.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/sampling/softmax.h"

namespace draftbench {

using cuda::DeviceBuffer;

DeviceTransformer::DeviceTransformer(const ModelConfig& config, const ModelWeights& weights, cuda::DeviceKernels& device)
    : c_(config), w_(weights), device_(device) {
  for (int64_t il = 0; il < c_.n_layers; ++il) {
    const LayerWeights& L = w_.layers[static_cast<size_t>(il)];
    Layer d;
    d.attn_norm = upload_vector(L.attn_norm, c_.n_embd);
    d.q_norm = upload_vector(L.q_norm, c_.head_dim);
    d.k_norm = upload_vector(L.k_norm, c_.head_dim);
    d.bq = upload_vector(L.bq, c_.q_dim());
    d.bk = upload_vector(L.bk, c_.kv_dim());
    d.bv = upload_vector(L.bv, c_.kv_dim());
    d.post_attn_norm = upload_vector(L.post_attn_norm, c_.n_embd);
    d.ffn_norm = upload_vector(L.ffn_norm, c_.n_embd);
    d.post_ffn_norm = upload_vector(L.post_ffn_norm, c_.n_embd);
    d.wq = upload_matrix(L.wq, "attn_q", il);
    d.wk = upload_matrix(L.wk, "attn_k", il);
    d.wv = upload_matrix(L.wv, "attn_v", il);
    d.wo = upload_matrix(L.wo, "attn_output", il);
    d.w_gate = upload_matrix(L.w_gate, "ffn_gate", il);
    d.w_up = upload_matrix(L.w_up, "ffn_up", il);
    d.w_down = upload_matrix(L.w_down, "ffn_down", il);
    layers_.push_back(std::move(d));
  }
  output_ = upload_matrix(w_.output, "output", -1);
  output_norm_ = upload_vector(w_.output_norm, c_.n_embd);
}

DeviceTransformer::DeviceTransformer(const ModelConfig& config, const ModelWeights& weights, std::unique_ptr<cuda::DeviceKernels> device)
    : DeviceTransformer(config, weights, *device) {
  owned_device_ = std::move(device);  // declared before the buffers, so released after them
}

DeviceTransformer::Matrix DeviceTransformer::upload_matrix(const WeightMatrix& w, const char* name, int64_t layer) {
  if (!cuda::device_quant_matvec_supports(w.type) && !cuda::device_gemm_supports(w.type))
    throw InputError(layer >= 0 ? fmt::format("blk.{}.{}", layer, name) : std::string(name), "type",
                     fmt::format("{} has no device product (Q8_0, Q5_0, Q4_K, Q6_K, F32, F16 or BF16 expected)", ggml_type_name(w.type)));
  const size_t bytes = w.row_bytes() * static_cast<size_t>(w.n_out);
  Matrix m{w, DeviceBuffer(device_, bytes)};
  m.shape.data = nullptr;
  device_.upload(m.data.get(), w.data, bytes);
  return m;
}

DeviceBuffer DeviceTransformer::upload_vector(const float* v, int64_t n) {
  if (!v) return {};
  DeviceBuffer b(device_, static_cast<size_t>(n) * sizeof(float));
  device_.upload(b.get(), v, b.bytes());
  return b;
}

void DeviceTransformer::ensure_buffers(int64_t n) {
  if (n <= capacity_rows_) return;
  capacity_rows_ = n;
  a_.each(c_, [&](DeviceBuffer& b, int64_t width) { b = DeviceBuffer(device_, static_cast<size_t>(n * width) * sizeof(float)); });
  positions_ = DeviceBuffer(device_, static_cast<size_t>(n) * sizeof(int64_t));
}

// Quantised weights: each activation row quantised on the device, then one launch for all
// rows, each result formed from its own row alone. Float weights: the rows rounded to the
// weight's type, then one cuBLASLt product with its pinned algorithm. Products that read
// the same rows (q, k, v; gate, up) share that preparation when their types ask for the same.
void DeviceTransformer::matmul(const float* x, int64_t n_x, std::initializer_list<Product> products) {
  // The type x's rows stand in, in quantised_ (Q8_0 or Q8_K blocks) and in rounded_ (F16 or BF16).
  std::optional<GgmlType> quantised_as, rounded_as;
  for (const Product& p : products) {
    const GgmlType type = p.w.shape.type;
    const int64_t n_in = p.w.shape.n_in, n_out = p.w.shape.n_out;
    if (cuda::device_quant_matvec_supports(type)) {
      if (quantised_as != activation_type_for(type)) {
        quantised_.reserve(device_, activation_row_bytes(type, n_in) * static_cast<size_t>(n_x));
        device_.quantize_rows(type, x, n_in, n_x, n_in, quantised_.get());
        quantised_as = activation_type_for(type);
      }
      device_.quant_matvec(type, p.w.data.get<uint8_t>(), p.w.shape.row_bytes(), n_out, quantised_.get(), n_x, n_in, p.y);
      continue;
    }
    const void* in = x;
    if (type != GgmlType::F32) {
      if (rounded_as != type) {
        rounded_.reserve(device_, static_cast<size_t>(n_x * n_in) * sizeof(uint16_t));
        device_.elementwise(type == GgmlType::F16 ? cuda::ElementwiseOp::kToHalf : cuda::ElementwiseOp::kToBf16, x, rounded_.get(), n_x * n_in);
        rounded_as = type;
      }
      in = rounded_.get();
    }
    device_.gemm(type, p.w.data.get(), n_out, n_in, in, n_x, p.y);
  }
}

// run_transformer_layer's ops on the device: DeviceKernels launches over device buffers,
// for the sequences of one forward.
class DeviceTransformer::LayerOps {
 public:
  using Product = DeviceTransformer::Product;
  LayerOps(DeviceTransformer& t, const ForwardBatch& batch, KvCache& cache) : t_(t), c_(t.c_), d_(t.device_), batch_(batch), cache_(cache) {}

  const Layer& layer(int64_t il) const { return t_.layers_[static_cast<size_t>(il)]; }
  static const float* vector(const DeviceBuffer& v) { return v.get<float>(); }
  Activations<float*> activations() const {
    auto& a = t_.a_;
    return {a.x.get<float>(),    a.xn.get<float>(),   a.q.get<float>(),    a.k.get<float>(),  a.v.get<float>(),
            a.attn.get<float>(), a.proj.get<float>(), a.gate.get<float>(), a.up.get<float>(), a.act.get<float>()};
  }
  void rms_norm(const float* x, const float* w, float* out, int64_t rows, int64_t n) { d_.rms_norm(x, w, out, rows, n, c_.rms_eps); }
  void matmul(const float* x, int64_t n, std::initializer_list<Product> products) { t_.matmul(x, n, products); }
  void add_row_bias(const float* bias, float* y, int64_t rows, int64_t n) { d_.add_row_bias(bias, y, rows, n); }
  void add(const float* y, float* x, int64_t n) { d_.elementwise(cuda::ElementwiseOp::kAdd, y, x, n); }
  void gated_activation(int64_t n) {
    auto& a = t_.a_;
    d_.gated_activation(c_.activation == MlpActivation::geglu_tanh ? cuda::GateFunction::kGeluTanh : cuda::GateFunction::kSilu, a.gate.get<float>(),
                        a.up.get<float>(), a.act.get<float>(), n);
  }
  void rope(int64_t il, int64_t n) {
    const cuda::RopePairing pairing = c_.rope_style == RopeStyle::neox ? cuda::RopePairing::kNeox : cuda::RopePairing::kNorm;
    const float base = c_.is_local_layer(il) ? c_.rope_base_local : c_.rope_base;
    const int64_t* positions = t_.positions_.get<int64_t>();
    const int HD = static_cast<int>(c_.head_dim);
    d_.rope(pairing, t_.a_.q.get<float>(), n, c_.q_dim(), positions, static_cast<int>(c_.n_heads), HD, base);
    d_.rope(pairing, t_.a_.k.get<float>(), n, c_.kv_dim(), positions, static_cast<int>(c_.n_kv_heads), HD, base);
  }
  // A sequence's rows are its tree's nodes in order, so their K/V fill consecutive slots.
  void attend(int64_t il, int64_t) {
    const int64_t QD = c_.q_dim(), KD = c_.kv_dim();
    const AttentionShape shape{static_cast<int>(c_.n_heads), static_cast<int>(c_.n_kv_heads), static_cast<int>(c_.head_dim), c_.attention_scale,
                               c_.is_local_layer(il) ? c_.sliding_window : 0};
    const float *q = t_.a_.q.get<float>(), *k = t_.a_.k.get<float>(), *v = t_.a_.v.get<float>();
    int64_t r0 = 0;
    for (size_t i = 0; i < batch_.sequences.size(); ++i) {
      const SequenceInput& s = batch_.sequences[i];
      const int32_t m = s.tree.size();
      if (m == 0) continue;
      const int64_t committed = cache_.committed(s.seq);
      const size_t bytes = static_cast<size_t>(m * KD) * sizeof(float);
      d_.copy(cache_.keys(s.seq, il) + committed * KD, k + r0 * KD, bytes);
      d_.copy(cache_.values(s.seq, il) + committed * KD, v + r0 * KD, bytes);
      const int32_t* tree = t_.trees_.get<int32_t>() + t_.tree_offsets_[i];
      const TreeView view{m, tree, tree + m, tree + 2 * m};
      d_.tree_attention(shape, q + r0 * QD, QD, cache_.keys(s.seq, il), cache_.values(s.seq, il), KD, committed, view, t_.a_.attn.get<float>() + r0 * QD, QD);
      r0 += m;
    }
  }

 private:
  DeviceTransformer& t_;
  const ModelConfig& c_;
  cuda::DeviceKernels& d_;
  const ForwardBatch& batch_;
  KvCache& cache_;
};

// The layer-0 input, the positions and the trees' arrays: everything per forward that
// starts on the host.
void DeviceTransformer::upload_rows(const ForwardBatch& batch, const std::vector<ForwardRow>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size()), E = c_.n_embd;
  if (!batch.input_embeddings.empty()) {
    DB_CHECK(static_cast<int64_t>(batch.input_embeddings.size()) == n * E);
    device_.upload(a_.x.get(), batch.input_embeddings.data(), static_cast<size_t>(n * E) * sizeof(float));
  } else {
    host_rows_.resize(static_cast<size_t>(n * E));
    for (int64_t r = 0; r < n; ++r) {
      const int32_t tok = rows[r].input->tokens[rows[r].node];
      embed_tokens(c_, w_, std::span<const int32_t>(&tok, 1), host_rows_.data() + r * E);
    }
    device_.upload(a_.x.get(), host_rows_.data(), host_rows_.size() * sizeof(float));
  }
  std::vector<int64_t>& positions = host_positions_;
  positions.resize(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) positions[r] = rows[r].pos;
  device_.upload(positions_.get(), positions.data(), positions.size() * sizeof(int64_t));

  std::vector<int32_t>& trees = host_trees_;
  trees.clear();
  tree_offsets_.clear();
  for (const SequenceInput& s : batch.sequences) {
    tree_offsets_.push_back(static_cast<int64_t>(trees.size()));
    trees.insert(trees.end(), s.tree.dfs_start.begin(), s.tree.dfs_start.end());
    trees.insert(trees.end(), s.tree.dfs_end.begin(), s.tree.dfs_end.end());
    trees.insert(trees.end(), s.tree.depth.begin(), s.tree.depth.end());
  }
  trees_.reserve(device_, std::max<size_t>(trees.size(), 1) * sizeof(int32_t));
  device_.upload(trees_.get(), trees.data(), trees.size() * sizeof(int32_t));
}

void DeviceTransformer::forward(const ForwardBatch& batch, KvCache& cache, ForwardResult& result) {
  DB_CHECK(cache.on_device());
  for (const SequenceInput& s : batch.sequences)
    if (s.n_cached != 0) throw InputError("forward", fmt::format("sequence {}", s.seq), "incremental trees (n_cached > 0) run on the CPU transformer only");
  list_forward_rows(batch, cache, c_, rows_);
  const int64_t n = static_cast<int64_t>(rows_.size()), E = c_.n_embd;
  ensure_buffers(std::max<int64_t>(n, 1));
  upload_rows(batch, rows_);
  LayerOps ops(*this, batch, cache);
  for (int64_t il = 0; il < c_.n_layers; ++il) run_transformer_layer(ops, c_, il, n);

  // The wanted rows, final-normed, gathered into picked_.
  auto gather = [&](std::vector<int32_t> SequenceInput::*member) {
    std::vector<int64_t>& wanted = wanted_;
    wanted_rows(batch, member, wanted);
    const int64_t count = static_cast<int64_t>(wanted.size());
    picked_.reserve(device_, static_cast<size_t>(std::max<int64_t>(count, 1) * E) * sizeof(float));
    wanted_rows_.reserve(device_, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(int64_t));
    device_.upload(wanted_rows_.get(), wanted.data(), static_cast<size_t>(count) * sizeof(int64_t));
    device_.gather_rows(a_.x.get<float>(), E, wanted_rows_.get<int64_t>(), count, picked_.get<float>());
    if (output_norm_.get()) device_.rms_norm(picked_.get<float>(), output_norm_.get<float>(), picked_.get<float>(), count, E, c_.rms_eps);
    return count;
  };
  result.hidden_width = E;
  const int64_t n_hidden = gather(&SequenceInput::hidden_rows);
  result.hidden.resize(static_cast<size_t>(n_hidden * E));
  device_.download(result.hidden.data(), picked_.get(), result.hidden.size() * sizeof(float));

  const int64_t n_logit_rows = gather(&SequenceInput::logit_rows);
  const bool subset = !batch.vocab_subset.empty();
  result.logit_width = subset ? static_cast<int64_t>(batch.vocab_subset.size()) : c_.n_vocab;
  result.logits.resize(static_cast<size_t>(n_logit_rows * result.logit_width));
  if (n_logit_rows == 0) return;
  if (!subset) return logits_of_picked(n_logit_rows, result.logits.data());
  // A vocabulary subset is picked from full rows: the LM head is one product either way,
  // and the device has no gathered-rows product.
  host_rows_.resize(static_cast<size_t>(n_logit_rows * c_.n_vocab));
  logits_of_picked(n_logit_rows, host_rows_.data());
  for (int64_t r = 0; r < n_logit_rows; ++r)
    for (size_t k = 0; k < batch.vocab_subset.size(); ++k)
      result.logits[static_cast<size_t>(r * result.logit_width) + k] = host_rows_[static_cast<size_t>(r * c_.n_vocab + batch.vocab_subset[k])];
}

// LM head over the first n rows of picked_, into host logits.
void DeviceTransformer::logits_of_picked(int64_t n, float* logits) {
  logits_.reserve(device_, static_cast<size_t>(n * c_.n_vocab) * sizeof(float));
  matmul(picked_.get<float>(), n, {{output_, logits_.get<float>()}});
  device_.download(logits, logits_.get(), static_cast<size_t>(n * c_.n_vocab) * sizeof(float));
  soft_cap_logits(c_, logits, n * c_.n_vocab);
}

void DeviceTransformer::logits_from_hidden(const float* hidden, int64_t n, float* logits) {
  if (n == 0) return;
  picked_.reserve(device_, static_cast<size_t>(n * c_.n_embd) * sizeof(float));
  device_.upload(picked_.get(), hidden, static_cast<size_t>(n * c_.n_embd) * sizeof(float));
  logits_of_picked(n, logits);
}

void DeviceTransformer::argmax_from_hidden(const float* hidden, int64_t n, int32_t* ids) {
  host_rows_.resize(static_cast<size_t>(n * c_.n_vocab));
  logits_from_hidden(hidden, n, host_rows_.data());
  for (int64_t r = 0; r < n; ++r) ids[r] = static_cast<int32_t>(argmax(host_rows_.data() + r * c_.n_vocab, c_.n_vocab));
}

}  // namespace draftbench
