// Draft sizing for token trees: which of a drafted tree's nodes are worth verifying on this
// machine.
//
// Each draft node v gets a value: the probability that verification accepts it,
//   value(v) = value(parent) * g(v),   value(root) = 1,
// where g(v) estimates P(v accepted | its parent accepted). g is a calibration table learnt
// online from what verification actually accepts: nodes fall into classes by who proposed
// them and how sure the proposer was (a model's probability for its token, binned; for a
// context lookup, the node's depth), and each class keeps decayed counts of tried and
// accepted nodes on top of a prior (for a lookup depth, the estimate of the depth above).
// A drafter's own probabilities are thus used for ranking and corrected for over- or
// under-confidence by the acceptance observed.
//
// The expected tokens of verifying a set S of nodes closed under parents is
// E(S) = 1 + sum_{v in S} value(v) (every accepted node counts, the bonus token is the 1).
// Values never grow down a path, so the best S of each size n is the n most valuable
// nodes (ties to the lower index, so parents come first). The sizer picks the n that
// maximises E / C(n), C(n) = forward(1 + n) + head(rows), rows about the accepted path
// plus one (each also sampled from at temperature > 0); n = 0 (the root alone) is an
// autoregressive step. Drafting time is not in
// C: it is spent before the choice (SizedDrafter weighs it when deciding to draft at all).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/decoding/cost_model.h"
#include "engine/decoding/drafter.h"

namespace draftbench {

class TreeSizer {
 public:
  // max_nodes: the most draft nodes (root excluded) ever kept.
  TreeSizer(const CostModel& cost, int32_t max_nodes);

  struct Choice {
    int32_t nodes = 0;           // draft nodes kept (root excluded)
    double expected_tokens = 1;  // E of the kept set
    double verify_seconds = 0;   // C of the kept set
    int32_t depth = 0;           // the kept tree's depth below the root
    double tokens_per_second() const { return expected_tokens / verify_seconds; }
  };
  // Picks the nodes of `draft` to verify; `keep` gets them in increasing index order, node 0
  // first. The draft must have no root copies (parent -1 beyond node 0).
  // `sampling`: temperature > 0, where each visited row also costs a distribution.
  Choice choose(const Draft& draft, bool sampling, std::vector<int32_t>& keep);
  // The cost of a root-only step: the rate without any draft is 1 / autoregressive_seconds().
  double autoregressive_seconds(bool sampling) const { return cost_.step(1, 1, sampling); }

  // After verifying `verified` (the kept tree, with its confidence and origin): `path` is the
  // accepted nodes, root first. Every node whose parent was accepted counts as tried.
  void observe(const Draft& verified, std::span<const int32_t> path);

  // g for a node of this origin, confidence (ignored for lookups) and depth (>= 1).
  double calibrated(uint8_t origin, float confidence, int32_t depth) const;

 private:
  static int32_t class_of(uint8_t origin, float confidence, int32_t depth);
  static double prior_of(int32_t cls);
  void values(const Draft& draft);  // value_ and depth_ of every node

  CostModel cost_;
  int32_t max_nodes_;
  std::vector<double> tried_, accepted_;  // decayed counts per class
  std::vector<double> value_;
  std::vector<int32_t> depth_, order_;
  std::vector<char> on_path_;
};

}  // namespace draftbench
