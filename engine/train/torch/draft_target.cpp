#include "engine/train/torch/draft_target.h"

#include "engine/common/error.h"
#include "engine/model/token_embedding.h"
#include "kernels/quant/dequantize.h"

namespace draftbench {

DraftTarget::DraftTarget(const Model& model, std::vector<int32_t> draft_vocab) : model_(model), draft_vocab_(std::move(draft_vocab)) {
  index_.assign(static_cast<size_t>(model_.config().n_vocab), -1);
  for (size_t i = 0; i < draft_vocab_.size(); ++i) {
    const int32_t id = draft_vocab_[i];
    DB_CHECK(id >= 0 && id < model_.config().n_vocab && index_[static_cast<size_t>(id)] < 0);
    index_[static_cast<size_t>(id)] = static_cast<int32_t>(i);
  }
}

TargetRows DraftTarget::rows() const {
  const WeightMatrix& out = model_.weights().output;
  const int64_t H = n_embd(), Vd = static_cast<int64_t>(draft_vocab_.size());
  DB_CHECK(out.n_in == H);
  TargetRows r{H, Vd, std::vector<float>(static_cast<size_t>(Vd * H)), model_.config().final_logit_softcap};
  for (int64_t i = 0; i < Vd; ++i)
    dequantize_row(out.type, out.data + static_cast<size_t>(draft_vocab_[static_cast<size_t>(i)]) * out.row_bytes(), r.rows.data() + i * H, H);
  return r;
}

EagleLayerSpec DraftTarget::eagle_layer() const {
  const ModelConfig& c = model_.config();
  DB_CHECK(c.qk_norm == c.post_norms);  // both Gemma-only, as eagle.cpp assumes
  EagleLayerSpec s;
  s.gemma = c.post_norms;
  s.n_heads = c.n_heads;
  s.n_kv_heads = c.n_kv_heads;
  s.head_dim = c.head_dim;
  s.n_ff = c.n_ff;
  s.rope_base = c.rope_base;  // written to drafter.json's rope_base: the target's global base (no sliding window)
  s.rms_eps = c.rms_eps;
  s.rope_neox = c.rope_style == RopeStyle::neox;
  return s;
}

void DraftTarget::embed(std::span<const int32_t> tokens, float* out) const {
  const int64_t H = n_embd();
  for (size_t i = 0; i < tokens.size(); ++i) {
    float* row = out + static_cast<int64_t>(i) * H;
    if (tokens[i] < 0) {
      std::fill_n(row, H, 0.0f);
      continue;
    }
    DB_CHECK(tokens[i] < model_.config().n_vocab);
    embed_tokens(model_.config(), model_.weights(), tokens.subspan(i, 1), row);
  }
}

void DraftTarget::to_backend(PositionBatch& in, bool step_inputs, BackendBatch& out) const {
  const int64_t B = in.size, T = in.steps, H = n_embd();
  out.size = B;
  out.steps = T;
  out.hidden.swap(in.hidden);
  out.targets.resize(static_cast<size_t>(B * T));
  for (size_t i = 0; i < out.targets.size(); ++i) out.targets[i] = draft_index(in.labels[i]);
  out.input_embeddings.clear();
  if (step_inputs) {
    std::vector<int32_t> tokens(static_cast<size_t>(B * T));
    for (int64_t r = 0; r < B; ++r)
      for (int64_t i = 0; i < T; ++i)
        tokens[static_cast<size_t>(r * T + i)] = i == 0 ? in.root[static_cast<size_t>(r)] : in.labels[static_cast<size_t>(r * T + i - 1)];
    out.input_embeddings.resize(static_cast<size_t>(B * T * H));
    embed(tokens, out.input_embeddings.data());
  }
  out.target_features.clear();
  out.previous_embeddings.clear();
  out.trained.clear();
  out.lengths.clear();
}

void DraftTarget::to_backend(SequenceBatch& in, bool previous_tokens, BackendBatch& out) const {
  const int64_t n = in.pairs();
  out.size = n;
  out.steps = 1;
  out.hidden.swap(in.features);
  out.input_embeddings.resize(static_cast<size_t>(n * n_embd()));
  embed(in.next_tokens, out.input_embeddings.data());
  out.previous_embeddings.clear();
  if (previous_tokens) {
    out.previous_embeddings.resize(static_cast<size_t>(n * n_embd()));
    embed(in.tokens, out.previous_embeddings.data());
  }
  out.target_features.swap(in.target_features);
  out.trained.swap(in.trained);
  out.lengths.swap(in.lengths);
  out.targets.clear();
}

}  // namespace draftbench
