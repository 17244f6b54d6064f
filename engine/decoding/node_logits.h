// The target's LM head at the nodes of the trees a decoding step verifies, computed from the
// nodes' final-norm hidden states in as few passes over the head as the walk allows.
//
// Which rows, from measurements (kernels/bench/README.md, "The LM head by rows"; AMD EPYC Zen 4,
// 2 threads): a pass over Gemma 3 270M's head (262,144 x 640 Q8_0, 178 MB) takes about 5.2 ms
// for one row, 6.1 for two, 7.1 for three, 8.8 for four, and past that the products are
// compute-bound at about 1.6 ms a row (64 rows: 103 ms). Verification reads only the accepted
// path: greedy its argmaxes, exact sampling its rows (siblings are judged by their parent's
// row). So computing every node of a 60-node EAGLE tree (~100 ms) would cost more than the
// step's forward, while one pass per visited node costs 5 ms each. A step therefore computes,
// in one pass for all its trees, each root and the `lookahead` nodes of the path the drafter
// ranked first below it (the first child at every level: every shipped drafter orders
// siblings best first), and a node verification asks for beyond those is computed on demand
// together with its own first-child path. Rows are bit-identical whichever pass computes them
// (batch-invariant kernels), so the choice changes time only, never a token.
//
// How deep: a node at depth j of the first-child path is worth a row when the walk is likely
// to reach it, p^j >= 0.3, where p is the share of the chances verification had so far to
// follow a first child (a path node with children) that it took, and 0.3 is what a row added
// to a pass costs against a pass of its own, as decoding measured them: 8 MT-Bench-style
// prompts, --chat, 64 tokens, 2 threads, every node's path fixed at 0, 1 and 2 nodes deep,
// two interleaved rounds; the verify phase grew 1.1-2.6 ms (median 1.5) for the first row
// added, and the accept phase shrank by about p x 4-6 ms. The shipped EAGLE, ReDrafter and
// Medusa have p = 0.29-0.32 at temperature 0 (0.09-0.16 at 1; on 24 such prompts), right at
// the break-even: lookahead 0 and 1 gave the same verify + accept time within 0.8 ms (EAGLE
// 75.8 / 77.6 ms against 75.9 / 77.7, ReDrafter 35.2 / 35.2 against 35.1 / 35.4, Medusa 28.5 /
// 28.0 against 29.3 / 27.9), 2 was 0.5-3.6 ms worse; this rule reads 0 or 1 for them, as
// their paths go. The n-gram drafter's chains are mostly accepted whole (p near 1): in two
// more rounds, a pass per accepted token gave verify + accept 20.4 / 19.9 ms a step (123 /
// 126 tokens/s), lookahead 1 15.2 / 15.0, and this rule (at 2-10 by each prompt's end) 14.3 /
// 14.0 (167 / 173 tokens/s).
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
  NodeLogits(ForwardPass& target, int64_t n_vocab, int64_t n_embd, std::optional<int32_t> fixed_lookahead = std::nullopt);
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
  double chances_ = 0, followed_ = 0;  // path nodes with a first child; of those, followed to it
  HeadOutput output_ = HeadOutput::argmax;
  std::vector<Tree> trees_;
  std::vector<TreeView> views_;
  // Per node of every tree of the step, trees in order:
  std::vector<int32_t> first_child_;     // the lowest-numbered child (root copies' children count as node 0's), -1 if none
  std::vector<int32_t> argmax_;          // -1 until known
  std::vector<const float*> row_;        // null until computed; points into blocks_
  // Logit rows of this step, a block per pass; blocks are reused from step to step and never
  // resized while their rows are handed out, so every row stays put until begin_step.
  std::vector<std::vector<float>> blocks_;
  size_t blocks_used_ = 0;
  std::vector<NodeRef> pending_;      // the nodes of the pass being assembled
  std::vector<float> pass_hidden_;    // [pending][n_embd]
  std::vector<int32_t> pass_ids_;     // [pending]
  int64_t passes_ = 0, rows_computed_ = 0;
};

}  // namespace draftbench
