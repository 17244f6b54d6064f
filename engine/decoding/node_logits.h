// The target's LM head at the nodes of the trees a decoding step verifies, computed from the
// nodes' final-norm hidden states in as few passes over the head as the walk allows.
//
// Which rows: a pass over a small model's LM head costs little more for a few rows than for
// one, and past a few rows it becomes compute-bound, each row adding its own share
// (kernels/bench/README.md, "The LM head by rows", has the figures). Verification reads only
// the accepted path: greedy its argmaxes, exact sampling its rows (siblings are judged by
// their parent's row). So computing every node of a large tree would cost more than the
// step's forward, and one pass per visited node repeats the weight stream. A step computes,
// in one pass for all its trees, each root and the `lookahead` nodes of the path the drafter
// ranked first below it (the first child at every level: every shipped drafter orders
// siblings best first), and a node verification asks for beyond those is computed on demand
// together with its own first-child path. Rows are bit-identical whichever pass computes them
// (batch-invariant kernels), so the choice changes time only, never a token.
//
// How deep: a node at depth j of the first-child path is worth a row when the walk is likely
// to reach it, p^j >= c, where p is the share of the chances verification had so far to
// follow a first child (a path node with children) that it took, and c is what a row added
// to a pass costs against a pass of its own: from the machine's cost model
// (CostModel::head_row_in_passes) when the decoder has one, else 0.3, the file layout's
// figure on a 2-thread CPU (kernels/bench/README.md, "The LM head by rows", records the
// decoding runs that set it and how the shipped drafters fare).
//
// Greedy verification reads argmaxes only: with HeadOutput::argmax the passes run the fused
// LM-head argmax (ForwardPass::argmax_from_hidden) and no logit row is written.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/decoding/verify.h"
#include "engine/model/forward_pass.h"
#include "kernels/attention/token_tree.h"

namespace draftbench {

// What verification will read at a node.
enum class HeadOutput {
  argmax,  // greedy: the first index of the largest logit
  logits,  // sampling rules: the whole row
};

class NodeLogits {
 public:
  // fixed_lookahead: first-child nodes below a root (or an on-demand node) computed in its
  // pass; unset: chosen from the paths observed, as above.
  NodeLogits(ForwardPass& target, int64_t n_vocab, int64_t n_embd, std::optional<int32_t> fixed_lookahead = std::nullopt,
             double row_cost_in_passes = kDefaultRowCostInPasses);
  static constexpr double kDefaultRowCostInPasses = 0.3;
  NodeLogits(const NodeLogits&) = delete;  // the tree views point back at it
  NodeLogits& operator=(const NodeLogits&) = delete;

  // Starts a step; forgets the previous step's trees and rows.
  void begin_step(HeadOutput output);
  // Adds a tree to verify: hidden [tree.size()][n_embd] final-norm states in node order, not
  // owned, which must stay unchanged until the next begin_step. Returns the tree's index.
  int add_tree(const float* hidden, const TokenTree& tree);
  // One pass over the head for every tree's root and first-child path.
  void compute_predicted_paths();
  // Tree t's logits for verification; valid until the next begin_step.
  const LazyLogits& tree(int t) const { return views_[static_cast<size_t>(t)]; }
  // The path verification accepted in tree t (canonical nodes, root first): what the next
  // steps' lookahead learns from.
  void observe_path(int t, std::span<const int32_t> path);
  // First-child nodes a pass takes below the node it is for, as of now.
  int32_t lookahead() const;

  int64_t n_vocab() const { return n_vocab_; }
  // Passes over the head and rows they computed since construction (tests, tuning).
  int64_t passes() const { return passes_; }
  int64_t rows_computed() const { return rows_computed_; }

 private:
  class TreeView final : public LazyLogits {
   public:
    TreeView(NodeLogits& owner, int t) : owner_(&owner), t_(t) {}
    std::span<const float> row(int32_t node) const override { return owner_->row(t_, node); }
    int32_t argmax(int32_t node) const override { return owner_->argmax(t_, node); }

   private:
    NodeLogits* owner_;
    int t_;
  };
  struct Tree {
    const float* hidden;
    int64_t first;  // its nodes' offset in the per-node arrays
  };
  struct NodeRef {
    int t;
    int32_t node;
  };

  std::span<const float> row(int t, int32_t node);
  int32_t argmax(int t, int32_t node);
  // Appends `node` and up to lookahead() first-child nodes below it that `output` lacks.
  void add_path(int t, int32_t node, HeadOutput output);
  // One pass over the head for pending_, producing `output`.
  void run_pass(HeadOutput output);
  float* acquire_rows(int64_t n_rows);
  int64_t at(int t, int32_t node) const { return trees_[static_cast<size_t>(t)].first + node; }

  ForwardPass& target_;
  int64_t n_vocab_, n_embd_;
  std::optional<int32_t> fixed_lookahead_;
  double row_cost_in_passes_;
  double chances_ = 0, followed_ = 0;  // path nodes with a first child; of those, followed to it
  HeadOutput output_ = HeadOutput::argmax;
  std::vector<Tree> trees_;
  std::vector<TreeView> views_;
  // Per node of every tree of the step, trees in order:
  std::vector<int32_t> first_child_;  // the lowest-numbered child (root copies' children count as node 0's), -1 if none
  std::vector<int32_t> argmax_;       // -1 until known
  std::vector<const float*> row_;     // null until computed; points into blocks_
  // Logit rows of this step, a block per pass; blocks are reused from step to step and never
  // resized while their rows are handed out, so every row stays put until begin_step.
  std::vector<std::vector<float>> blocks_;
  size_t blocks_used_ = 0;
  std::vector<NodeRef> pending_;    // the nodes of the pass being assembled
  std::vector<float> pass_hidden_;  // [pending][n_embd]
  std::vector<int32_t> pass_ids_;   // [pending]
  int64_t passes_ = 0, rows_computed_ = 0;
};

}  // namespace draftbench
