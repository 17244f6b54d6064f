#include "engine/train/continuation_tree.h"

#include <algorithm>
#include <string>

#include "engine/common/error.h"
#include "engine/decoding/sampling.h"

namespace draftbench {
namespace {
// Rows per LM-head call when picking greedy tokens: bounds the logits buffer (rows x n_vocab).
constexpr int64_t kLogitRows = 32;
}  // namespace

void continuation_from_text(DistillSequence& seq, int64_t C, const Tokenizer& tokenizer) {
  const int64_t L = static_cast<int64_t>(seq.tokens.size());
  seq.continuation.assign(static_cast<size_t>(L * C), -1);
  for (int64_t t = 0; t < L; ++t) {
    if (!seq.trained[static_cast<size_t>(t)]) continue;
    for (int64_t j = 0; j < C && t + 1 + j < L; ++j) {
      const int32_t token = seq.tokens[static_cast<size_t>(t + 1 + j)];
      seq.continuation[static_cast<size_t>(t * C + j)] = token;
      if (tokenizer.is_stop(token)) break;
    }
  }
}

ContinuationTree::ContinuationTree(const Model& model, Transformer& transformer, int64_t continuation_length, int32_t chunk)
    : model_(model), transformer_(transformer), C_(continuation_length), chunk_(chunk) {
  DB_CHECK(C_ >= 1 && chunk_ >= 1);
  batch_.sequences.resize(1);
}

void ContinuationTree::forward_new_nodes(int32_t n_cached, std::vector<float>& hidden) {
  const int64_t E = model_.config().n_embd;
  const int32_t n_nodes = static_cast<int32_t>(tokens_.size());
  SequenceInput& in = batch_.sequences[0];
  hidden.resize(static_cast<size_t>(n_nodes - n_cached) * static_cast<size_t>(E));
  for (int32_t b = n_cached; b < n_nodes; b += chunk_) {
    const int32_t e = std::min(n_nodes, b + chunk_);
    in.seq = 0;
    in.tokens.assign(tokens_.begin(), tokens_.begin() + e);
    in.tree.assign(std::span(parents_).first(static_cast<size_t>(e)));
    in.n_cached = b;
    in.logit_rows.clear();
    in.hidden_rows.resize(static_cast<size_t>(e - b));
    for (int32_t i = b; i < e; ++i) in.hidden_rows[static_cast<size_t>(i - b)] = i;
    transformer_.forward(batch_, *cache_, result_);
    std::copy(result_.hidden.begin(), result_.hidden.end(), hidden.begin() + static_cast<int64_t>(b - n_cached) * E);
    rows_run_ += e - b;
  }
}

void ContinuationTree::argmax_rows(const float* hidden, int64_t n, std::vector<int32_t>& out) {
  const int64_t E = model_.config().n_embd, V = model_.config().n_vocab;
  out.resize(static_cast<size_t>(n));
  logits_.resize(static_cast<size_t>(std::min(n, kLogitRows) * V));
  for (int64_t b = 0; b < n; b += kLogitRows) {
    const int64_t m = std::min(kLogitRows, n - b);
    transformer_.logits_from_hidden(hidden + b * E, m, logits_.data());
    for (int64_t i = 0; i < m; ++i) out[static_cast<size_t>(b + i)] = argmax(std::span(logits_.data() + i * V, static_cast<size_t>(V)));
  }
}

void ContinuationTree::run(DistillSequence& seq, bool continue_greedily) {
  const int64_t E = model_.config().n_embd;
  const int32_t L = static_cast<int32_t>(seq.tokens.size());
  DB_CHECK(L >= 1 && seq.trained.size() == static_cast<size_t>(L));
  rows_run_ = 0;
  std::vector<int32_t> positions;  // trained positions, in order
  for (int32_t t = 0; t < L; ++t)
    if (seq.trained[static_cast<size_t>(t)]) positions.push_back(t);
  const int64_t n_trained = static_cast<int64_t>(positions.size());
  const int64_t max_nodes = L + (continue_greedily ? (C_ - 1) * n_trained : 0);
  if (L > model_.config().context_length)
    throw InputError(model_.path(), "context_length",
                     "a training sequence of " + std::to_string(L) + " tokens exceeds the model's " + std::to_string(model_.config().context_length));
  if (!cache_ || cache_->capacity() < max_nodes) cache_ = std::make_unique<KvCache>(model_.config(), 1, max_nodes);

  // Level 0: the sequence itself, a chain.
  tokens_.assign(seq.tokens.begin(), seq.tokens.end());
  parents_.resize(static_cast<size_t>(L));
  for (int32_t i = 0; i < L; ++i) parents_[static_cast<size_t>(i)] = i - 1;
  forward_new_nodes(0, seq.hidden);

  seq.continuation.assign(static_cast<size_t>(L) * static_cast<size_t>(C_), -1);
  auto cont = [&](int64_t k, int64_t j) -> int32_t& { return seq.continuation[static_cast<size_t>(positions[static_cast<size_t>(k)] * C_ + j)]; };
  const Tokenizer& tok = model_.tokenizer();
  if (!continue_greedily) return continuation_from_text(seq, C_, tok);

  // c_1 at every trained position, from the chain's hidden states.
  std::vector<float> trained_hidden(static_cast<size_t>(n_trained * E));
  for (int64_t k = 0; k < n_trained; ++k) std::copy_n(seq.hidden.begin() + positions[static_cast<size_t>(k)] * E, E, trained_hidden.begin() + k * E);
  std::vector<int32_t> next;
  argmax_rows(trained_hidden.data(), n_trained, next);
  std::vector<int32_t> branch_end(positions.begin(), positions.end());  // each branch's last node
  std::vector<int64_t> live;                                            // branches not stopped
  for (int64_t k = 0; k < n_trained; ++k) {
    cont(k, 0) = next[static_cast<size_t>(k)];
    if (!tok.is_stop(next[static_cast<size_t>(k)])) live.push_back(k);
  }
  // Level j: run c_j under every live branch, whose greedy token is c_{j+1}.
  std::vector<float> level_hidden;
  for (int64_t j = 1; j < C_ && !live.empty(); ++j) {
    const int32_t n_cached = static_cast<int32_t>(tokens_.size());
    for (int64_t k : live) {
      tokens_.push_back(cont(k, j - 1));
      parents_.push_back(branch_end[static_cast<size_t>(k)]);
      branch_end[static_cast<size_t>(k)] = static_cast<int32_t>(tokens_.size()) - 1;
    }
    forward_new_nodes(n_cached, level_hidden);
    argmax_rows(level_hidden.data(), static_cast<int64_t>(live.size()), next);
    std::vector<int64_t> still;
    for (size_t i = 0; i < live.size(); ++i) {
      cont(live[i], j) = next[i];
      if (!tok.is_stop(next[i])) still.push_back(live[i]);
    }
    live.swap(still);
  }
}

}  // namespace draftbench
