#include "engine/model/transformer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "engine/common/error.h"
#include "engine/model/mapped_file.h"
#include "engine/model/token_embedding.h"
#include "engine/model/transformer_layer.h"
#include "kernels/attention/tree_attention_tiled.h"
#include "kernels/matmul/matmul_argmax.h"
#include "kernels/matmul/weight_repack.h"
#include "kernels/ops/activations.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/rms_norm.h"
#include "kernels/ops/rope.h"

namespace draftbench {

Transformer::Transformer(const ModelConfig& config, const ModelWeights& weights, ThreadPool& pool, HeadLayout head)
    : c_(config), w_(weights), pool_(pool), layers_(weights.layers), head_(weights.output) {
  if (head == HeadLayout::kFastest && head_layout_bytes(head_) > 0) {
    head_buffer_ = HugePageBuffer(head_layout_bytes(head_));
    head_ = to_head_layout(head_, head_buffer_.data());
    // Only the embedding lookup reads the file's copy now (tied heads), a row at a time.
    if (w_.in_mapped_file) release_mapped_pages({w_.output.data, head_buffer_.size()});
  }
  const auto each_matrix = [&](auto f) {
    for (LayerWeights& L : layers_)
      for (WeightMatrix* m : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) f(*m);
  };
  size_t total = 0;
  each_matrix([&](const WeightMatrix& m) { total += repacked_bytes(m); });
  repacked_ = HugePageBuffer(total);
  size_t offset = 0;
  each_matrix([&](WeightMatrix& m) {
    const size_t bytes = repacked_bytes(m);
    if (bytes == 0) return;
    const WeightMatrix file = m;
    m = repack(m, repacked_.data() + offset);
    offset += bytes;
    // The file's copy is not read again here: without this, those pages stay ours too (+42 MB on Gemma 3 270M).
    if (w_.in_mapped_file) release_mapped_pages({file.data, bytes});
  });
}

void Transformer::ensure_buffers(int64_t n, size_t score_floats) {
  if (n > capacity_rows_) {
    capacity_rows_ = n;
    a_.each(c_, [n](std::vector<float>& b, int64_t width) { b.resize(static_cast<size_t>(n * width)); });
  }
  if (score_floats > scores_.size()) scores_.resize(score_floats);
}

std::span<uint8_t> Transformer::scratch(const WeightMatrix& w, int64_t n_x) {
  const size_t need = matmul_scratch_bytes(w, n_x, pool_.size());
  if (quant_scratch_.size() < need) quant_scratch_.resize(need);
  return quant_scratch_;
}

// run_transformer_layer's ops on the CPU: the kernels of kernels/ over host buffers, for the
// rows of one forward.
class Transformer::LayerOps {
 public:
  struct Product {
    const WeightMatrix& w;
    float* y;
  };
  LayerOps(Transformer& t, const std::vector<ForwardRow>& rows, KvCache& cache) : t_(t), c_(t.c_), rows_(rows), cache_(cache) {}

  const LayerWeights& layer(int64_t il) const { return t_.layers_[static_cast<size_t>(il)]; }
  static const float* vector(const float* v) { return v; }
  Activations<float*> activations() const {
    auto& a = t_.a_;
    return {a.x.data(), a.xn.data(), a.q.data(), a.k.data(), a.v.data(), a.attn.data(), a.proj.data(), a.gate.data(), a.up.data(), a.act.data()};
  }
  void rms_norm(const float* x, const float* w, float* out, int64_t rows, int64_t n) const { draftbench::rms_norm(x, w, out, rows, n, c_.rms_eps); }
  void matmul(const float* x, int64_t n, std::initializer_list<Product> products) {
    for (const Product& p : products) draftbench::matmul(p.w, x, n, p.y, t_.pool_, t_.scratch(p.w, n));
  }
  static void add_row_bias(const float* bias, float* y, int64_t rows, int64_t n) { draftbench::add_row_bias(bias, y, rows, n); }
  static void add(const float* y, float* x, int64_t n) { add_to(y, x, n); }
  void gated_activation(int64_t n) {
    auto& a = t_.a_;
    if (c_.activation == MlpActivation::geglu_tanh) geglu_tanh(a.gate.data(), a.up.data(), a.act.data(), n);
    else swiglu(a.gate.data(), a.up.data(), a.act.data(), n);
  }

  // With the angles compute_rope_angles made for this forward: the local layers' own where
  // they have a base of their own.
  void rope(int64_t il, int64_t n) {
    const int64_t QD = c_.q_dim(), KD = c_.kv_dim(), HD = c_.head_dim;
    const bool local_angles = c_.is_local_layer(il) && t_.separate_local_angles();
    auto apply = c_.rope_style == RopeStyle::neox ? rope_neox_apply : rope_norm_apply;
    for (int64_t r = 0; r < n; ++r) {
      const size_t at = static_cast<size_t>(((local_angles ? n : 0) + r) * (HD / 2));
      const float *cos = t_.rope_cos_.data() + at, *sin = t_.rope_sin_.data() + at;
      apply(t_.a_.q.data() + r * QD, static_cast<int>(c_.n_heads), static_cast<int>(HD), cos, sin);
      apply(t_.a_.k.data() + r * KD, static_cast<int>(c_.n_kv_heads), static_cast<int>(HD), cos, sin);
    }
  }

  // One tree_attention call per sequence over all its new nodes and heads, rows being
  // contiguous per sequence and in node order; the kernel splits the (node, head) queries
  // over the pool.
  void attend(int64_t il, int64_t n) {
    auto& a = t_.a_;
    const int64_t QD = c_.q_dim(), KD = c_.kv_dim();
    for (int64_t r = 0; r < n; ++r) {
      const int64_t slot = cache_.committed(rows_[r].seq) + rows_[r].node;
      std::memcpy(cache_.keys(rows_[r].seq, il) + slot * KD, a.k.data() + r * KD, static_cast<size_t>(KD) * sizeof(float));
      std::memcpy(cache_.values(rows_[r].seq, il) + slot * KD, a.v.data() + r * KD, static_cast<size_t>(KD) * sizeof(float));
    }
    const AttentionShape shape{static_cast<int>(c_.n_heads), static_cast<int>(c_.n_kv_heads), static_cast<int>(c_.head_dim), c_.attention_scale,
                               c_.is_local_layer(il) ? c_.sliding_window : 0};
    for (int64_t r0 = 0; r0 < n;) {
      const SequenceInput& in = *rows_[r0].input;
      const TreeAttentionJob job{shape,
                                 in.tree.view(),
                                 in.n_cached,
                                 a.q.data() + r0 * QD,
                                 cache_.keys(in.seq, il),
                                 cache_.values(in.seq, il),
                                 KD,
                                 cache_.committed(in.seq),
                                 a.attn.data() + r0 * QD};
      tree_attention(job, t_.scores_, t_.pool_);
      r0 += in.tree.size() - in.n_cached;
    }
  }

 private:
  Transformer& t_;
  const ModelConfig& c_;
  const std::vector<ForwardRow>& rows_;
  KvCache& cache_;
};

void Transformer::forward(const ForwardBatch& batch, KvCache& cache, ForwardResult& result) {
  DB_CHECK(!cache.on_device());
  std::vector<ForwardRow>& rows = rows_;
  list_forward_rows(batch, cache, c_, rows);
  size_t score_floats = 0;
  for (const SequenceInput& s : batch.sequences)
    if (s.n_cached < s.tree.size()) {
      const AttentionShape heads{static_cast<int>(c_.n_heads), static_cast<int>(c_.n_kv_heads), static_cast<int>(c_.head_dim)};
      score_floats = std::max(score_floats, tree_attention_scratch_floats(heads, cache.committed(s.seq), s.tree.size(), s.n_cached, pool_.size()));
    }
  const int64_t n = static_cast<int64_t>(rows.size());
  ensure_buffers(std::max<int64_t>(n, 1), score_floats);
  const int64_t E = c_.n_embd;

  if (!batch.input_embeddings.empty()) {
    DB_CHECK(static_cast<int64_t>(batch.input_embeddings.size()) == n * E);
    std::memcpy(a_.x.data(), batch.input_embeddings.data(), static_cast<size_t>(n * E) * sizeof(float));
  } else {
    for (int64_t r = 0; r < n; ++r) {
      const int32_t tok = rows[r].input->tokens[rows[r].node];
      embed_tokens(c_, w_, std::span<const int32_t>(&tok, 1), a_.x.data() + r * E);
    }
  }

  compute_rope_angles(rows);
  LayerOps ops(*this, rows, cache);
  for (int64_t il = 0; il < c_.n_layers; ++il) run_transformer_layer(ops, c_, il, n);

  // Final norm only for the rows someone asked for.
  std::vector<float>& picked = picked_;
  auto gather = [&](std::vector<int32_t> SequenceInput::*member) {
    std::vector<int64_t>& wanted = wanted_;
    wanted_rows(batch, member, wanted);
    const int64_t count = static_cast<int64_t>(wanted.size());
    picked.resize(static_cast<size_t>(count * E));
    for (int64_t i = 0; i < count; ++i) std::memcpy(picked.data() + i * E, a_.x.data() + wanted[i] * E, static_cast<size_t>(E) * sizeof(float));
    if (w_.output_norm) rms_norm(picked.data(), w_.output_norm, picked.data(), count, E, c_.rms_eps);
    return count;
  };

  result.hidden_width = E;
  gather(&SequenceInput::hidden_rows);
  result.hidden = picked;

  const int64_t n_logit_rows = gather(&SequenceInput::logit_rows);
  const bool subset = !batch.vocab_subset.empty();
  result.logit_width = subset ? static_cast<int64_t>(batch.vocab_subset.size()) : c_.n_vocab;
  result.logits.resize(static_cast<size_t>(n_logit_rows * result.logit_width));
  if (n_logit_rows > 0) {
    if (subset) {
      // A draft vocabulary comes back step after step: its rows are copied once (picked_rows.h).
      if (!subset_rows_.holds(batch.vocab_subset)) subset_rows_.pick(head_, batch.vocab_subset);
      if (!subset_rows_.empty()) subset_rows_.matmul(picked.data(), n_logit_rows, result.logits.data(), pool_);
      else matmul_rows(head_, batch.vocab_subset, picked.data(), n_logit_rows, result.logits.data(), pool_, scratch(head_, n_logit_rows));
      soft_cap_logits(c_, result.logits.data(), n_logit_rows * result.logit_width);
    } else {
      logits_from_hidden(picked.data(), n_logit_rows, result.logits.data());
    }
  }
}

void Transformer::compute_rope_angles(const std::vector<ForwardRow>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size()), half = c_.head_dim / 2;
  const int sets = separate_local_angles() ? 2 : 1;
  rope_cos_.resize(static_cast<size_t>(sets * n * half));
  rope_sin_.resize(rope_cos_.size());
  for (int local = 0; local < sets; ++local)
    for (int64_t r = 0; r < n; ++r) {
      const size_t at = static_cast<size_t>((local * n + r) * half);
      rope_angles(rows[r].pos, static_cast<int>(c_.head_dim), local ? c_.rope_base_local : c_.rope_base, rope_cos_.data() + at, rope_sin_.data() + at);
    }
}

void Transformer::logits_from_hidden(const float* hidden, int64_t n, float* logits) {
  matmul(head_, hidden, n, logits, pool_, scratch(head_, n));
  soft_cap_logits(c_, logits, n * c_.n_vocab);
}

void Transformer::argmax_from_hidden(const float* hidden, int64_t n, int32_t* ids) {
  const size_t need = matmul_argmax_scratch_bytes(head_, n, pool_.size());
  if (quant_scratch_.size() < need) quant_scratch_.resize(need);
  matmul_argmax(head_, hidden, n, c_.final_logit_softcap, ids, pool_, quant_scratch_);
}

}  // namespace draftbench
