#include "engine/decoding/node_logits.h"

#include <algorithm>

#include "engine/common/error.h"

namespace draftbench {

namespace {

// Before any path is seen: p = 0.25, worth eight chances, so that lookahead stays 0 until the
// paths say otherwise and a few lucky first steps do not make it overshoot.
constexpr double kPriorFollowed = 2.0, kPriorChances = 8.0;
constexpr int32_t kMaxLookahead = 16;

}  // namespace

NodeLogits::NodeLogits(ForwardPass& target, int64_t n_vocab, int64_t n_embd, std::optional<int32_t> fixed_lookahead, double row_cost_in_passes)
    : target_(target), n_vocab_(n_vocab), n_embd_(n_embd), fixed_lookahead_(fixed_lookahead), row_cost_in_passes_(row_cost_in_passes) {
  DB_CHECK(n_vocab >= 1 && n_embd >= 1 && fixed_lookahead.value_or(0) >= 0 && row_cost_in_passes > 0);
}

int32_t NodeLogits::lookahead() const {
  if (fixed_lookahead_) return *fixed_lookahead_;
  const double p = (followed_ + kPriorFollowed) / (chances_ + kPriorChances);
  int32_t depth = 0;
  for (double reach = p; reach >= row_cost_in_passes_ && depth < kMaxLookahead; reach *= p) ++depth;
  return depth;
}

void NodeLogits::observe_path(int t, std::span<const int32_t> path) {
  for (size_t k = 0; k < path.size(); ++k) {
    const int32_t first = first_child_[static_cast<size_t>(at(t, path[k]))];
    if (first < 0) continue;
    chances_ += 1;
    followed_ += k + 1 < path.size() && path[k + 1] == first ? 1 : 0;
  }
}

void NodeLogits::begin_step(HeadOutput output) {
  output_ = output;
  trees_.clear();
  views_.clear();
  first_child_.clear();
  argmax_.clear();
  row_.clear();
  blocks_used_ = 0;
}

int NodeLogits::add_tree(const float* hidden, const TokenTree& tree) {
  DB_CHECK(hidden != nullptr && tree.size() >= 1);
  const int t = static_cast<int>(trees_.size());
  const auto first = static_cast<int64_t>(first_child_.size());
  const int32_t n = tree.size();
  trees_.push_back(Tree{hidden, first});
  views_.emplace_back(*this, t);
  first_child_.resize(static_cast<size_t>(first + n), -1);
  argmax_.resize(first_child_.size(), -1);
  row_.resize(first_child_.size(), nullptr);
  // Highest node first, so each parent ends with its lowest-numbered child. A root copy
  // (parent -1 beyond node 0) stands for node 0: its children are node 0's (verify.h).
  for (int32_t v = n - 1; v >= 1; --v) {
    const int32_t parent = tree.parent[v];
    if (parent < 0) continue;
    const int32_t canonical = tree.parent[parent] < 0 ? 0 : parent;
    first_child_[static_cast<size_t>(first + canonical)] = v;
  }
  return t;
}

void NodeLogits::compute_predicted_paths() {
  pending_.clear();
  for (int t = 0; t < static_cast<int>(trees_.size()); ++t) add_path(t, 0, output_);
  run_pass(output_);
}

void NodeLogits::add_path(int t, int32_t node, HeadOutput output) {
  const int32_t deepest = lookahead();
  for (int32_t v = node, depth = 0; v >= 0 && depth <= deepest; v = first_child_[static_cast<size_t>(at(t, v))], ++depth) {
    const auto i = static_cast<size_t>(at(t, v));
    const bool known = output == HeadOutput::argmax ? argmax_[i] >= 0 : row_[i] != nullptr;
    if (!known) pending_.push_back(NodeRef{t, v});
  }
}

std::span<const float> NodeLogits::row(int t, int32_t node) {
  const auto i = static_cast<size_t>(at(t, node));
  if (row_[i] == nullptr) {
    pending_.clear();
    add_path(t, node, HeadOutput::logits);
    run_pass(HeadOutput::logits);
  }
  return {row_[i], static_cast<size_t>(n_vocab_)};
}

int32_t NodeLogits::argmax(int t, int32_t node) {
  const auto i = static_cast<size_t>(at(t, node));
  if (argmax_[i] >= 0) return argmax_[i];
  // A step that reads rows finds argmaxes in them; one that reads argmaxes never makes rows.
  if (row_[i] != nullptr || output_ == HeadOutput::logits) {
    argmax_[i] = draftbench::argmax(row(t, node));
  } else {
    pending_.clear();
    add_path(t, node, HeadOutput::argmax);
    run_pass(HeadOutput::argmax);
  }
  return argmax_[i];
}

void NodeLogits::run_pass(HeadOutput output) {
  const auto k = static_cast<int64_t>(pending_.size());
  if (k == 0) return;
  pass_hidden_.resize(static_cast<size_t>(k * n_embd_));
  for (int64_t j = 0; j < k; ++j) {
    const Tree& tree = trees_[static_cast<size_t>(pending_[j].t)];
    std::copy_n(tree.hidden + static_cast<int64_t>(pending_[j].node) * n_embd_, n_embd_, pass_hidden_.data() + j * n_embd_);
  }
  if (output == HeadOutput::argmax) {
    pass_ids_.resize(static_cast<size_t>(k));
    target_.argmax_from_hidden(pass_hidden_.data(), k, pass_ids_.data());
    for (int64_t j = 0; j < k; ++j) argmax_[static_cast<size_t>(at(pending_[j].t, pending_[j].node))] = pass_ids_[j];
  } else {
    float* rows = acquire_rows(k);
    target_.logits_from_hidden(pass_hidden_.data(), k, rows);
    for (int64_t j = 0; j < k; ++j) row_[static_cast<size_t>(at(pending_[j].t, pending_[j].node))] = rows + j * n_vocab_;
  }
  ++passes_;
  rows_computed_ += k;
}

float* NodeLogits::acquire_rows(int64_t n_rows) {
  if (blocks_used_ == blocks_.size()) blocks_.emplace_back();
  std::vector<float>& block = blocks_[blocks_used_++];  // not handed out yet this step: free to resize
  const auto floats = static_cast<size_t>(n_rows * n_vocab_);
  if (block.size() < floats) block.resize(floats);
  return block.data();
}

}  // namespace draftbench
