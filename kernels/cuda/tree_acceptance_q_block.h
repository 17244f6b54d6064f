// The acceptance walk for drafts sampled from q, one block per tree: verify_sampling_with_q
// (engine/decoding/verify.h), SpecInfer's multi-round rule, as a block program for the CUDA
// kernel and the CPU emulation. Its decisions are the host's exactly, with or without top-k /
// top-p, with and without replacement: every probability and mass the rule compares is a
// double the host builds by a sequential chain of additions (the list's normaliser, p's
// mass, the residual's updates, q's mass, the draw's running sum), so the block computes the
// node's weights and the filtered list in parallel (tree_acceptance_block.h,
// tree_acceptance_filter_block.h, the host's bits and list) and then thread 0 runs verify.cpp's
// operations in verify.cpp's order over that list. Without a filter the list is the whole
// vocabulary in id order, as target_distribution's is: thread 0 then makes a few passes over
// n_vocab entries per visited node (the normaliser, p's mass, the residual's draw), the price
// of the host's order of additions where the one-hot walk accepts near-threshold exceptions.
//
// The host's scratch, per tree: q_by_token (dense q, zero elsewhere; zeroed here once per
// tree, restored after each node) and the list's probabilities, then the residual, by list
// position (`residual`). The host's slot_by_token is the position of a token in the list:
// its id without a filter; with one, a binary search of its order key (the list is sorted
// best first), so tokens outside the list have no slot, as the host's do.
//
// Exactness rests on the weights and the list being the host's bits (node_weights,
// filtered_list, both tested so) and on no contraction of a * b + c on either side
// (-ffp-contract=off, --fmad=false). The re-sum of a residual whose mass fell below 1e-6
// (verify.cpp's refreshed_mass) is run where the host runs it, though a decision that it
// changes needs a uniform within about 1e-16 of its threshold, so the tests show it runs,
// not that it decides.
//
// The draws below a node are its children in node order, or with packed sampled beams
// (SampledDrafts::beams) the next node of every beam through it, in beam order, as the
// host's index_beams_as_draws lists them: a child several beams drew is tried once per beam.
// Where the host's DB_CHECKs would fire (a q entry of negative or NaN probability or an id
// outside the vocabulary, a token listed twice with positive probability, q of zero mass
// below a node with draws, a draft token that q_i gives probability 0, beams that are not
// paths from the root, beams drawn without replacement) the tree is not taken: path_length
// 0, next_token -1.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/tree_acceptance_block.h"
#include "kernels/cuda/tree_acceptance_filter_block.h"
#include "kernels/sampling/counter_rng.h"

namespace draftbench::cuda {

// Node v's q (row r = node_offsets[tree] + v of the batch) is entries offsets[r] ..
// offsets[r + 1) of tokens and probs (proportional; renormalised by the rule).
// With beams, tree b's are beam_nodes[b][n_beams][beam_length] in its own node ids.
struct DraftQ {
  const int32_t* tokens;
  const double* probs;
  const int32_t* offsets;  // [total nodes + 1]
  bool without_replacement;
  const int32_t* beam_nodes = nullptr;
  int32_t n_beams = 0;  // 0: the draws are the children in node order
  int32_t beam_length = 0;
};

// One tree's packed sampled beams (engine/decoding/verify.h's BeamPaths): node(b, j) holds
// beam b's j-th token, j = 0 its root (node 0 or a root copy). n_beams 0: none.
struct TreeBeams {
  const int32_t* nodes;
  int32_t n_beams, length;
  DB_HOST_DEVICE int32_t node(int32_t b, int32_t j) const { return nodes[static_cast<int64_t>(b) * length + j]; }
};

// verify.cpp's check_beams: each beam starts at the root or a root copy, and each later
// node is a draft whose parent is (canonically) the beam's node before it.
DB_HOST_DEVICE inline bool beams_valid(const TreeBeams& beams, const int32_t* parents, int32_t n) {
  if (beams.n_beams < 1 || beams.length < 1) return false;
  for (int32_t b = 0; b < beams.n_beams; ++b) {
    const int32_t root = beams.node(b, 0);
    if (root < 0 || root >= n || canonical_node(parents, root) != 0) return false;
    for (int32_t j = 1; j < beams.length; ++j) {
      const int32_t v = beams.node(b, j);
      if (v <= 0 || v >= n || !is_child_of(parents, v, canonical_node(parents, beams.node(b, j - 1)))) return false;
    }
  }
  return true;
}

// first_child_taken over the draws below `node`: its children in node order, or with beams
// the next node of each beam through it in beam order (a beam passes a node once).
template <class Take>
DB_HOST_DEVICE int32_t first_draw_taken(const int32_t* parents, int32_t n, const TreeBeams& beams, int32_t node, Take&& take) {
  if (beams.n_beams == 0) return first_child_taken(parents, n, node, take);
  uint64_t draws = 0;
  for (int32_t b = 0; b < beams.n_beams; ++b)
    for (int32_t j = 0; j + 1 < beams.length; ++j)
      if (canonical_node(parents, beams.node(b, j)) == node) {
        if (take(beams.node(b, j + 1), 1 + draws++)) return beams.node(b, j + 1);
        break;
      }
  return -1;
}

struct QAcceptanceArgs {
  TreeBatch trees;
  float inv_t;
  TargetFilter filter;
  DraftQ q;
  const RngKey* keys;  // [n_trees]: seed, request and step (node is set per node)
  float* weights;      // [n_trees][n_vocab] workspace: the current node's weights
  uint64_t* order;     // [n_trees][n_vocab] workspace: the filtered list's keys (null will do unfiltered)
  double* residual;    // [n_trees][n_vocab] workspace: the list's probabilities by position, then the residual
  double* q_by_token;  // [n_trees][n_vocab] workspace: the current node's q
  AcceptanceOut out;
};

struct QAcceptanceShared {
  ArgmaxShared argmax;
  SoftmaxShared softmax;
  FilterShared filter;
};

// verify.cpp's state at one node: its `target.dist` (by list position), q_by_token and the
// masses. Thread 0's alone.
struct QNodeWalk {
  const uint64_t* order;  // the filtered list best first; null: ids in order
  int64_t len;
  const float* w;
  double* p;
  double* q_by_token;
  const int32_t* q_tokens;
  const double* q_probs;
  int32_t q_begin, q_end;
  int64_t n_vocab;
  double q_mass = 0.0, p_mass = 0.0;
  int32_t n_support = 0;

  DB_HOST_DEVICE int32_t token_at(int64_t i) const { return order ? key_id(order[i]) : static_cast<int32_t>(i); }
  DB_HOST_DEVICE int64_t slot_of(int32_t token) const {
    if (!order) return token;
    const uint64_t key = order_key(w[token], token);
    int64_t lo = 0, hi = len;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (order[mid] > key) lo = mid + 1;
      else hi = mid;
    }
    return lo < len && order[lo] == key ? lo : -1;
  }
  DB_HOST_DEVICE double target_prob_of(int32_t token) const {
    const int64_t slot = slot_of(token);
    return slot >= 0 ? p[slot] : 0.0;
  }

  // target_distribution's probabilities: weight / total, total the list's positive weights
  // added in order.
  DB_HOST_DEVICE void load_target() {
    double total = 0.0;
    for (int64_t i = 0; i < len; ++i)
      if (w[token_at(i)] > 0.0f) total += w[token_at(i)];
    for (int64_t i = 0; i < len; ++i) {
      const float weight = w[token_at(i)];
      p[i] = weight > 0.0f ? static_cast<double>(weight) / total : 0.0;
    }
  }
  // f(e) for q's entries of positive probability, in q's order: as the host's
  // positive_entries, an entry of probability 0 takes no part, even for a token listed again.
  template <class F>
  DB_HOST_DEVICE void each_positive_entry(F&& f) const {
    for (int32_t e = q_begin; e < q_end; ++e)
      if (q_probs[e] != 0.0) f(e);
  }
  // load_q, then locate_marked_tokens' mass and support; false where the host's checks fail.
  DB_HOST_DEVICE bool load_q() {
    for (int32_t e = q_begin; e < q_end; ++e) {
      const int32_t token = q_tokens[e];
      if (!(q_probs[e] >= 0.0) || token < 0 || token >= n_vocab) return false;
      if (q_probs[e] == 0.0) continue;
      if (q_by_token[token] != 0.0) return false;
      q_by_token[token] = q_probs[e];
      q_mass += q_probs[e];
    }
    for (int64_t i = 0; i < len; ++i) p_mass += p[i], n_support += p[i] > 0.0;
    return q_mass > 0.0;
  }
  DB_HOST_DEVICE void unload_q() {
    for (int32_t e = q_begin; e < q_end; ++e)
      if (q_tokens[e] >= 0 && q_tokens[e] < n_vocab) q_by_token[q_tokens[e]] = 0.0;
  }
  // p <- max(p - q, 0) at p's unnormalised scale, over q's entries in q's order.
  DB_HOST_DEVICE void subtract_q() {
    const double q_scale = p_mass / q_mass;
    each_positive_entry([&](int32_t e) {
      const int64_t slot = slot_of(q_tokens[e]);
      if (slot < 0 || p[slot] <= 0.0) return;
      const double residual = p[slot];
      double reduced = residual - q_scale * q_by_token[q_tokens[e]];
      if (reduced < 0.0) reduced = 0.0;
      p_mass -= residual - reduced;
      n_support -= reduced <= 0.0;
      p[slot] = reduced;
    });
  }
  DB_HOST_DEVICE void refresh_p_mass() {
    if (p_mass >= kResidualRefreshMass) return;
    p_mass = 0.0;
    for (int64_t i = 0; i < len; ++i) p_mass += p[i];
  }
  // q_i+1: q with the rejected token removed, its mass re-added.
  DB_HOST_DEVICE void remove_from_q(int32_t token) {
    q_by_token[token] = 0.0;
    q_mass = 0.0;
    each_positive_entry([&](int32_t e) { q_mass += q_by_token[q_tokens[e]]; });
  }
  DB_HOST_DEVICE int32_t draw(double u, bool residual_changed) const {
    return draw_in_list_order(
        len, u, residual_changed, [&](int64_t i) { return p[i]; }, [&](int64_t i) { return token_at(i); });
  }
};

// verify_sampling_with_q at one node over its list: the accepted child, or -1 with the next
// token in *next_token, or kWalkFailed.
DB_HOST_DEVICE inline int32_t q_rule_at(QNodeWalk& walk, const int32_t* parents, const int32_t* tokens, int32_t n, const TreeBeams& beams, int32_t node,
                                        const RngKey& key, bool without_replacement, int32_t* next_token) {
  walk.load_target();
  if (first_draw_taken(parents, n, beams, node, [](int32_t, uint64_t) { return true; }) < 0) {
    *next_token = walk.draw(uniform(key, 0), false);
    return -1;
  }
  if (!walk.load_q()) return kWalkFailed;
  bool failed = false;
  const int32_t accepted = first_draw_taken(parents, n, beams, node, [&](int32_t v, uint64_t stream) {
    const int32_t x = tokens[v];
    const double qx = walk.q_by_token[x];
    if (!(qx > 0.0)) return failed = true;  // not a draw from q_i
    const double px = walk.target_prob_of(x);
    // u < (px / p_mass) / (qx / q_mass), without dividing.
    if (uniform(key, stream) * qx * walk.p_mass < px * walk.q_mass) return true;
    walk.subtract_q();
    if (walk.n_support == 0) return true;  // p_i == q_i up to rounding: a rejection of probability 0
    walk.refresh_p_mass();
    if (without_replacement) walk.remove_from_q(x);
    return false;
  });
  walk.unload_q();
  if (failed) return kWalkFailed;
  if (accepted < 0) *next_token = walk.draw(uniform(key, 0), true);  // some draw was rejected
  return accepted;
}

// BatchTree's fields stay in `bt`, which the lambdas capture whole.
template <class Block>
DB_HOST_DEVICE void q_acceptance_block(const Block& block, const QAcceptanceArgs& a, QAcceptanceShared& sh) {
  const int64_t tree = block.index().x, n_vocab = a.trees.n_vocab, row = tree * n_vocab;  // row: this tree's in the workspaces
  const BatchTree bt = batch_tree(a.trees, tree);
  const TreeBeams beams{a.q.n_beams > 0 ? a.q.beam_nodes + tree * a.q.n_beams * a.q.beam_length : nullptr, a.q.n_beams, a.q.beam_length};
  // Every thread reads the same beams to the same verdict (independent beams are independent draws: with replacement).
  if (bt.n >= 1 && beams.n_beams > 0 && (a.q.without_replacement || !beams_valid(beams, bt.parents, bt.n))) return mark_not_taken(block, a.out, tree);
  block.each_thread([&](Dim3 t) {
    for (int64_t i = t.x; i < n_vocab; i += kTreeAcceptanceThreads) a.q_by_token[row + i] = 0.0;
  });
  block.sync();
  walk_from_root(block, a.out, tree, bt.first, bt.n, a.keys[tree], [&](int32_t node, const RngKey& key) {
    float* w = a.weights + row;
    uint64_t* order = a.filter.on() ? a.order + row : nullptr;
    const double node_mass = node_weights(block, bt.logits + node * n_vocab, n_vocab, a.inv_t, w, sh.argmax, sh.softmax);
    const int64_t len = order ? filtered_list(block, w, n_vocab, node_mass, a.filter, order, sh.filter, sh.softmax) : n_vocab;
    return static_cast<int32_t>(from_thread_0(block, sh.filter.result, [&] {
      const int32_t* q_rows = a.q.offsets + bt.first;
      QNodeWalk walk{order, len, w, a.residual + row, a.q_by_token + row, a.q.tokens, a.q.probs, q_rows[node], q_rows[node + 1], n_vocab};
      return static_cast<int64_t>(q_rule_at(walk, bt.parents, bt.tokens, bt.n, beams, node, key, a.q.without_replacement, a.out.next_token + tree));
    }));
  });
}

}  // namespace draftbench::cuda
