// EAGLE drafting: the draft layer's KV cache along each sequence, and the draft trees
// (EAGLE-2 dynamic, EAGLE-1 static). Reference: `cnets1.py::Model.topK_genrate`.
//
// Draft positions. Pair i = (f_i, x_{i+1}) sits at draft position i, so after the pairs of
// committed positions 0..C-1 (the last one holding the root x_P = x_C), a tree node at
// draft depth d >= 1 (d = 1: the root's children) stands for the pair (predicted f, token)
// at position C - 1 + d. The scratch tree therefore has the depth-1 nodes as its roots
// (scratch depth 0, position C + 0) and every node attends to the committed pairs plus its
// own ancestors, as in the reference's tree mask.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/common/error.h"
#include "engine/decoding/cost_model.h"
#include "engine/drafters/draft_head.h"
#include "engine/drafters/eagle/eagle.h"
#include "engine/model/model.h"
#include "engine/model/token_embedding.h"

namespace draftbench {

EagleDrafter::EagleDrafter(Parts parts, const Model& target, ThreadPool& pool)
    : parts_(std::move(parts)), target_(target), pool_(pool), transformer_(parts_.config, parts_.weights, pool, HeadLayout::kFile) {
  DB_CHECK(!parts_.draft_vocab.empty() && parts_.fc.n_out == parts_.config.n_embd && parts_.fc.n_in == (parts_.previous_token ? 3 : 2) * parts_.config.n_embd);
  const auto& v = parts_.draft_vocab;
  bool whole = static_cast<int64_t>(v.size()) == parts_.config.n_vocab;
  for (size_t i = 0; whole && i < v.size(); ++i) whole = v[i] == static_cast<int32_t>(i);
  if (!whole) batch_.vocab_subset = v;  // else one dense matmul over the LM head
  batch_.sequences.resize(1);
  vocab_by_id_ = indices_by_id(v);
}

int32_t EagleDrafter::max_tree_nodes() const { return parts_.static_tree ? parts_.static_tree->size() : parts_.total_tokens; }

int64_t EagleDrafter::max_scratch_nodes() const {
  if (parts_.static_tree) return parts_.static_tree->size();
  return static_cast<int64_t>(parts_.depth) * parts_.top_k;
}

void EagleDrafter::reset(int n_sequences) {
  DB_CHECK(n_sequences >= 1);
  sequences_.resize(static_cast<size_t>(n_sequences));
  for (SequenceState& s : sequences_) {
    s.tokens.clear();
    s.features.clear();
    s.previous = -1;
  }
  if (!cache_ || cache_->n_sequences() != n_sequences) {
    // Start small and grow on demand: the target's full context would cost
    // capacity * kv_dim * 8 bytes per sequence up front.
    cache_.reset();
    cache_.emplace(parts_.config, n_sequences, std::min<int64_t>(parts_.config.context_length, 256) + max_scratch_nodes());
  }
  for (int s = 0; s < n_sequences; ++s) cache_->truncate(s, 0);
}

void EagleDrafter::ensure_cache_capacity(int64_t needed) {
  if (needed <= cache_->capacity()) return;
  // Amortised doubling; committed K/V are copied, scratch is dead between steps.
  KvCache grown(parts_.config, cache_->n_sequences(), std::max(needed, 2 * cache_->capacity()));
  const size_t row = static_cast<size_t>(cache_->kv_dim()) * sizeof(float);
  for (int s = 0; s < cache_->n_sequences(); ++s) {
    const int64_t committed = cache_->committed(s);
    std::memcpy(grown.keys(s, 0), cache_->keys(s, 0), static_cast<size_t>(committed) * row);
    std::memcpy(grown.values(s, 0), cache_->values(s, 0), static_cast<size_t>(committed) * row);
    grown.commit_prefix(s, committed);
  }
  cache_.reset();
  cache_.emplace(std::move(grown));
}

void EagleDrafter::begin(int seq, std::span<const int32_t> prompt, std::span<const float> prompt_hidden) {
  const int64_t E = parts_.config.n_embd;
  DB_CHECK(seq >= 0 && seq < static_cast<int>(sequences_.size()) && !prompt.empty());
  DB_CHECK(static_cast<int64_t>(prompt_hidden.size()) == static_cast<int64_t>(prompt.size()) * E);
  cache_->truncate(seq, 0);
  SequenceState& s = sequences_[static_cast<size_t>(seq)];
  // (f_i, x_{i+1}) for i < P-1; propose adds (f_{P-1}, x_P = the root).
  s.tokens.assign(prompt.begin() + 1, prompt.end());
  s.features.assign(prompt_hidden.begin(), prompt_hidden.end() - E);
  s.previous = prompt[0];
}

void EagleDrafter::accept(int seq, const AcceptedPath& path) {
  const int64_t E = parts_.config.n_embd;
  SequenceState& s = sequences_[static_cast<size_t>(seq)];
  const size_t n = path.tokens.size();
  DB_CHECK(n >= 1 && path.hidden.size() == n * static_cast<size_t>(E));
  // The root's pair is in the draft cache already; the accepted drafts' pairs carry the
  // target's true features. The next propose adds (f at the path's end, next root).
  for (size_t k = 0; k + 1 < n; ++k) {
    s.tokens.push_back(path.tokens[k + 1]);
    s.features.insert(s.features.end(), path.hidden.begin() + static_cast<std::ptrdiff_t>(k * E),
                      path.hidden.begin() + static_cast<std::ptrdiff_t>((k + 1) * E));
  }
}

void EagleDrafter::fc_inputs(std::span<const int32_t> tokens, std::span<const int32_t> previous, const float* const* features, int64_t n) {
  const int64_t E = parts_.config.n_embd, width = parts_.fc.n_in;
  DB_CHECK(!parts_.previous_token || static_cast<int64_t>(previous.size()) >= n);
  fc_in_.resize(static_cast<size_t>(n * width));
  fc_out_.resize(static_cast<size_t>(n * E));
  for (int64_t i = 0; i < n; ++i) {
    float* row = fc_in_.data() + i * width;
    embed_tokens(target_.config(), target_.weights(), tokens.subspan(static_cast<size_t>(i), 1), row);  // embedding first
    std::memcpy(row + E, features[i], static_cast<size_t>(E) * sizeof(float));
    if (!parts_.previous_token) continue;
    const int32_t p = previous[static_cast<size_t>(i)];
    // No token before the first one (a propose without begin): zeros, as the trainer embeds -1.
    // In a chain, row i's own token is the one row i - 1 read: its embedding is already there.
    if (p < 0) std::fill_n(row + 2 * E, E, 0.0f);
    else if (i > 0 && tokens[static_cast<size_t>(i - 1)] == p) std::memcpy(row + 2 * E, row - width, static_cast<size_t>(E) * sizeof(float));
    else embed_tokens(target_.config(), target_.weights(), previous.subspan(static_cast<size_t>(i), 1), row + 2 * E);
  }
  linear(parts_.fc, parts_.fc_bias, fc_in_.data(), n, fc_out_.data(), pool_, fc_scratch_);
}

void EagleDrafter::run_pending(int seq) {
  const int64_t E = parts_.config.n_embd;
  SequenceState& s = sequences_[static_cast<size_t>(seq)];
  const auto n = static_cast<int32_t>(s.tokens.size());
  DB_CHECK(n >= 1);
  ensure_cache_capacity(cache_->committed(seq) + n + max_scratch_nodes());  // the pairs, then the tree on top
  feature_ptrs_.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) feature_ptrs_[static_cast<size_t>(i)] = s.features.data() + i * E;
  previous_tokens_.clear();
  if (parts_.previous_token) {  // pair k's own token: the one pair k - 1 reads
    previous_tokens_.push_back(s.previous);
    previous_tokens_.insert(previous_tokens_.end(), s.tokens.begin(), s.tokens.end() - 1);
  }
  fc_inputs(s.tokens, previous_tokens_, feature_ptrs_.data(), n);

  SequenceInput& in = batch_.sequences[0];
  in.seq = seq;
  in.tokens = s.tokens;
  in.tree.assign_chain(n);
  in.n_cached = 0;
  in.logit_rows.assign(1, n - 1);
  in.hidden_rows.assign(1, n - 1);
  batch_.input_embeddings = fc_out_;
  transformer_.forward(batch_, *cache_, result_);
  work_.emplace_back(n, 1);
  cache_->commit_prefix(seq, n);
  s.previous = s.tokens.back();  // the root: the depth-1 nodes' own token (feed)
  s.tokens.clear();
  s.features.clear();

  root_logp_.assign(result_.logits.begin(), result_.logits.end());
  log_softmax(root_logp_);
  root_feature_.assign(result_.hidden.begin(), result_.hidden.end());
  scratch_parents_.clear();
  scratch_tokens_.clear();
  scratch_features_.clear();
}

void EagleDrafter::feed(int seq, std::span<const int32_t> candidates) {
  const int64_t E = parts_.config.n_embd;
  const auto n = static_cast<int32_t>(candidates.size());
  const auto n_cached = static_cast<int32_t>(scratch_parents_.size());
  feed_tokens_.resize(static_cast<size_t>(n));
  previous_tokens_.clear();
  feature_ptrs_.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    Candidate& c = candidates_[static_cast<size_t>(candidates[static_cast<size_t>(i)])];
    const int32_t parent_slot = c.parent < 0 ? -1 : candidates_[static_cast<size_t>(c.parent)].scratch;
    DB_CHECK(c.parent < 0 || parent_slot >= 0);  // parents are fed before their children
    c.scratch = n_cached + i;
    scratch_parents_.push_back(parent_slot);
    scratch_tokens_.push_back(c.token);
    feed_tokens_[static_cast<size_t>(i)] = c.token;
    if (parts_.previous_token)  // a node's own token is its parent's (the root's children: the root)
      previous_tokens_.push_back(c.parent < 0 ? sequences_[static_cast<size_t>(seq)].previous : candidates_[static_cast<size_t>(c.parent)].token);
    // A child's feature is its parent's predicted one (the root's children: the last pair's).
    feature_ptrs_[static_cast<size_t>(i)] = parent_slot < 0 ? root_feature_.data() : scratch_features_.data() + parent_slot * E;
  }
  fc_inputs(feed_tokens_, previous_tokens_, feature_ptrs_.data(), n);

  SequenceInput& in = batch_.sequences[0];
  in.seq = seq;
  in.tokens = scratch_tokens_;
  in.tree.assign(scratch_parents_);
  in.n_cached = n_cached;
  in.logit_rows.resize(static_cast<size_t>(n));
  std::iota(in.logit_rows.begin(), in.logit_rows.end(), n_cached);
  in.hidden_rows = in.logit_rows;
  batch_.input_embeddings = fc_out_;
  transformer_.forward(batch_, *cache_, result_);
  work_.emplace_back(n, n);

  scratch_features_.insert(scratch_features_.end(), result_.hidden.begin(), result_.hidden.end());
  rows_logp_.assign(result_.logits.begin(), result_.logits.end());
  const auto width = static_cast<size_t>(result_.logit_width);
  for (int32_t i = 0; i < n; ++i) log_softmax(std::span<float>(rows_logp_).subspan(static_cast<size_t>(i) * width, width));
}

void EagleDrafter::push_root(const DraftContext& ctx) {
  SequenceState& s = sequences_[static_cast<size_t>(ctx.seq)];
  DB_CHECK(static_cast<int64_t>(ctx.hidden.size()) == parts_.config.n_embd);
  s.tokens.push_back(ctx.root);
  s.features.insert(s.features.end(), ctx.hidden.begin(), ctx.hidden.end());
}

double EagleDrafter::draft_seconds(const CostModel& cost) const {
  const double layer_share = 1.0 / static_cast<double>(target_.config().n_layers);
  const double vocab_share = static_cast<double>(parts_.draft_vocab.size()) / static_cast<double>(target_.config().n_vocab);
  double seconds = 0;
  for (const auto& [tokens, rows] : work_) seconds += cost.forward_share(tokens, layer_share) + cost.head_share(rows, vocab_share);
  return seconds;
}

std::string EagleDrafter::cost_variant() const { return parts_.vocab_capped ? fmt::format("draft_vocab={}", parts_.draft_vocab.size()) : std::string(); }

DraftWork EagleDrafter::draft_work() const {
  DraftWork w{static_cast<int32_t>(work_.size()), 0, 0};
  for (const auto& [tokens, rows] : work_) w.tokens += tokens, w.rows += rows;
  return w;
}

// Run with the next propose; while sizing keeps skipping (back-off), only the latest
// kMaxCatchUp pairs are kept: catching up costs a layer pass per pair, and the draft layer
// reads what it missed through the target's features of the pairs it keeps.
void EagleDrafter::skip(const DraftContext& ctx) {
  push_root(ctx);
  SequenceState& s = sequences_[static_cast<size_t>(ctx.seq)];
  const auto excess = static_cast<std::ptrdiff_t>(s.tokens.size()) - kMaxCatchUp;
  if (excess <= 0) return;
  s.previous = s.tokens[static_cast<size_t>(excess - 1)];
  s.tokens.erase(s.tokens.begin(), s.tokens.begin() + excess);
  s.features.erase(s.features.begin(), s.features.begin() + excess * parts_.config.n_embd);
}

void EagleDrafter::propose(const DraftContext& ctx, Draft& out) {
  out.reset_to_root(ctx.root);
  out.confidence.assign(1, 1.0f);
  work_.clear();
  push_root(ctx);
  run_pending(ctx.seq);
  if (ctx.sampling() && parts_.coupled) coupled_chain(ctx, out);
  else if (parts_.static_tree) static_tree(ctx.seq, *parts_.static_tree, out);
  else dynamic_tree(ctx.seq, out);
}

void EagleDrafter::coupled_chain(const DraftContext& ctx, Draft& out) {
  const auto& vocab = parts_.draft_vocab;
  const auto width = static_cast<size_t>(vocab.size());
  const int levels = 1 + (depth_limit_ > 0 ? std::min(parts_.depth, depth_limit_ - 1) : parts_.depth);
  candidates_.clear();
  std::span<const float> logp(root_logp_.data(), width);
  for (int32_t depth = 1, node = 0;; ++depth) {
    RngKey key = ctx.first_draw;
    key.step += static_cast<uint64_t>(depth - 1);
    const double u = uniform(key);
    const CoupledPick pick = coupled_pick(logp, vocab, vocab_by_id_, ctx.params, u, coupled_scratch_);
    const int32_t token = vocab[static_cast<size_t>(pick.index)];
    node = out.tree.add(node, token);
    out.confidence.push_back(pick.confidence(u));
    candidates_.push_back(Candidate{token, depth == 1 ? -1 : static_cast<int32_t>(candidates_.size()) - 1, -1});
    if (depth == levels) return;
    frontier_.assign(1, static_cast<int32_t>(candidates_.size()) - 1);
    feed(ctx.seq, frontier_);
    logp = std::span<const float>(rows_logp_.data(), width);
  }
}

void EagleDrafter::dynamic_tree(int seq, Draft& out) {
  const auto& vocab = parts_.draft_vocab;
  const int64_t width = static_cast<int64_t>(vocab.size());
  const int top_k = width_limit_ > 0 ? std::min(parts_.top_k, width_limit_) : parts_.top_k;
  candidates_.clear();
  scores_.clear();
  // Depth 1: the root's top_k, scored by log-prob.
  top_k_indices(root_logp_, top_k, top_);
  frontier_.clear();
  for (int32_t i : top_) {
    frontier_.push_back(static_cast<int32_t>(candidates_.size()));
    candidates_.push_back(Candidate{vocab[static_cast<size_t>(i)], -1, -1});
    scores_.push_back(root_logp_[static_cast<size_t>(i)]);
  }
  // Each round feeds the frontier in one forward; every frontier node proposes top_k
  // children (cumulative log-prob); the best top_k of those are the next frontier.
  // Levels below the root: depth + 1 (each round adds one), or the sizer's limit.
  const int rounds = depth_limit_ > 0 ? std::min(parts_.depth, depth_limit_ - 1) : parts_.depth;
  for (int round = 0; round < rounds; ++round) {
    feed(seq, frontier_);
    const auto first_child = static_cast<int32_t>(candidates_.size());
    for (size_t j = 0; j < frontier_.size(); ++j) {
      const std::span<const float> logp(rows_logp_.data() + static_cast<int64_t>(j) * width, static_cast<size_t>(width));
      const float parent_score = scores_[static_cast<size_t>(frontier_[j])];
      top_k_indices(logp, top_k, top_);
      for (int32_t i : top_) {
        candidates_.push_back(Candidate{vocab[static_cast<size_t>(i)], frontier_[j], -1});
        scores_.push_back(parent_score + logp[static_cast<size_t>(i)]);
      }
    }
    if (round + 1 == rounds) break;
    // Ties go to the earlier-created candidate (top_k_indices prefers the lower index).
    top_k_indices(std::span<const float>(scores_).subspan(static_cast<size_t>(first_child)), top_k, top_);
    frontier_.clear();
    for (int32_t i : top_) frontier_.push_back(first_child + i);
  }
  // Rerank: the best total_tokens - 1 by cumulative log-prob. A child's score never
  // exceeds its parent's and ties go to the earlier (parent) index, so the selection is
  // closed under parents; index order is parents-first.
  top_k_indices(scores_, parts_.total_tokens - 1, selected_);
  std::sort(selected_.begin(), selected_.end());
  tree_node_.assign(candidates_.size(), -1);
  for (int32_t c : selected_) {
    const Candidate& cand = candidates_[static_cast<size_t>(c)];
    const int32_t parent = cand.parent < 0 ? 0 : tree_node_[static_cast<size_t>(cand.parent)];
    DB_CHECK(parent >= 0);
    tree_node_[static_cast<size_t>(c)] = out.tree.add(parent, cand.token);
    const float parent_score = cand.parent < 0 ? 0.0f : scores_[static_cast<size_t>(cand.parent)];
    out.confidence.push_back(std::exp(scores_[static_cast<size_t>(c)] - parent_score));
  }
}

void EagleDrafter::static_tree(int seq, const ChoiceTree& tree, Draft& out) {
  // Candidate v - 1 = choice-tree node v (node 0 is the root) = draft tree node v. Level by
  // level: a node's token is the rank-th of the draft distribution at its parent, so the
  // nodes of a level that have children are fed in one forward to rank their children.
  const auto& vocab = parts_.draft_vocab;
  const int64_t width = static_cast<int64_t>(vocab.size());
  const int32_t n = tree.size();
  candidates_.assign(static_cast<size_t>(n - 1), Candidate{-1, -1, -1});
  selected_.assign(static_cast<size_t>(n), 0);  // 1 = the node has children
  for (int32_t v = 1; v < n; ++v) selected_[static_cast<size_t>(tree.parent[static_cast<size_t>(v)])] = 1;
  tree_node_.assign(static_cast<size_t>(n), -1);  // node -> its row in rows_logp_ (last feed)

  for (int32_t v = 1; v < n;) {
    const int32_t level_begin = v, depth = tree.depth[static_cast<size_t>(v)];
    for (; v < n && tree.depth[static_cast<size_t>(v)] == depth; ++v) {  // choice trees order paths by length first
      const int32_t parent = tree.parent[static_cast<size_t>(v)], rank = tree.rank[static_cast<size_t>(v)];
      const float* logp = parent == 0 ? root_logp_.data() : rows_logp_.data() + tree_node_[static_cast<size_t>(parent)] * width;
      DB_CHECK(parent == 0 || tree_node_[static_cast<size_t>(parent)] >= 0);
      top_k_indices(std::span<const float>(logp, static_cast<size_t>(width)), rank + 1, top_);
      const int32_t token = vocab[static_cast<size_t>(top_[static_cast<size_t>(rank)])];  // rank < width: checked at load
      candidates_[static_cast<size_t>(v - 1)] = Candidate{token, parent == 0 ? -1 : parent - 1, -1};
      out.tree.add(parent, token);
      out.confidence.push_back(std::exp(logp[top_[static_cast<size_t>(rank)]]));
    }
    frontier_.clear();
    for (int32_t u = level_begin; u < v; ++u)
      if (selected_[static_cast<size_t>(u)]) {
        tree_node_[static_cast<size_t>(u)] = static_cast<int32_t>(frontier_.size());
        frontier_.push_back(u - 1);
      }
    if (!frontier_.empty()) feed(seq, frontier_);
  }
}

}  // namespace draftbench
