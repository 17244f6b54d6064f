// The acceptance walk over a batch of drafted token trees (engine/DESIGN.md §5), one block per
// tree: the block programs shared by the CUDA kernels and the CPU emulation. References:
// verify_greedy and verify_sampling_one_hot (engine/decoding/verify.h), whose tree
// convention this follows — node 0 is the root, nodes > 0 with parent -1 are root copies
// standing for node 0 (their children count as the root's), parents precede children.
//
// Greedy: exactly verify_greedy's path and next token. Nodes are visited in node order; a
// node is accepted when its parent is and its token is the argmax at the parent, and the
// deepest accepted node (strictly deeper: ties go to the first in node order) ends the path.
// The argmax at a node (sampling_block.h's partials and tree: the first index of the
// maximum) is computed only when an accepted node first needs it, as the host does, not for
// every node in parallel: a tree's logits are hundreds of rows of up to 262k values, of
// which the walk reads the accepted path's (typically 2-6); a grid over every node would
// spread a small batch over more SMs but read all of them, and the walk that follows is one
// block per tree either way. Per-node state lives in shared memory, hence
// kGreedyAcceptanceMaxNodes.
//
// Sampling with one-hot proposals: at the current node the softmax weights
// w = softmax_weight(logit, max, 1 / T) go to a workspace row (sampling_block.h's softmax
// partials: the host's bits); the children are tried in node order, child j with
// uniform({seed, request, step, node}, 1 + j), accepted when u * (residual mass) < p(x);
// a rejected token's weight is zeroed; with no acceptance the next token is the inverse-CDF
// draw of uniform(.., 0) over the residual. Every rule of the host is kept: the last token
// of the support is accepted outright, tokens of probability 0 are skipped, a small
// residual is re-summed (verify.cpp's refreshed_mass).
//   With top-k / top-p (tree_acceptance_filter_block.h): the host's filtered list, best
// first, and the host's arithmetic over it, so its decisions exactly.
//   Without: p(x) is the weight itself, the draw walks ids in order, and the masses are sums
// in another order than the host's (strided partials and a tree, and for the draw per-thread
// chunks; a residual is re-summed below 1e-6 of the node's mass). The decisions are the
// host's in exact arithmetic; in units of the node's total mass both sides are within
// n * 2^-53 of exact (3e-11 at 262k tokens, at worst), so a decision can differ only where
// its uniform falls that close to its threshold (the tests allow 1e-9, count such cases and
// require them rare; the GPU runs this very arithmetic, so it equals the emulation bit for
// bit).
//
// The walk for drafts sampled from q (tree_acceptance_q_block.h) shares this file's frame:
// walk_from_root, node_weights and first_child_taken.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/sampling_block.h"
#include "kernels/cuda/tree_acceptance_filter_block.h"
#include "kernels/sampling/counter_rng.h"

namespace draftbench::cuda {

inline constexpr unsigned kTreeAcceptanceThreads = kSamplingThreads;  // the argmax and softmax partials' shape
inline constexpr int32_t kGreedyAcceptanceMaxNodes = 1024;            // per-node state in shared memory

// Both walks: one block per tree.
inline Launch tree_acceptance_launch(int64_t n_trees) { return {n_trees, 1, Dim3{kTreeAcceptanceThreads}}; }

inline bool tree_acceptance_supports(int64_t n_vocab) { return n_vocab >= 1 && n_vocab <= INT32_MAX; }

// A batch of trees, CSR-packed: tree b is rows node_offsets[b] .. node_offsets[b + 1] of
// parents, tokens and logits, and its parents and outputs use its own node ids (0 = its root).
struct TreeBatch {
  const float* logits;          // [total nodes][n_vocab]; row v: the target's prediction at node v
  const int32_t* parents;       // [total nodes]
  const int32_t* tokens;        // [total nodes]
  const int32_t* node_offsets;  // [n_trees + 1]
  int64_t n_vocab;
};

struct AcceptanceOut {
  int32_t* path;         // [total nodes]; tree b's accepted nodes from node_offsets[b], root first
  int32_t* path_length;  // [n_trees]; nodes on the path, root included; 0: a tree the walk does not take
  int32_t* next_token;   // [n_trees]; the bonus or correction token (-1 with path_length 0)
};

struct GreedyAcceptanceArgs {
  TreeBatch trees;
  AcceptanceOut out;
};

struct OneHotAcceptanceArgs {
  TreeBatch trees;
  float inv_t;          // 1.0f / temperature, as target_distribution computes it
  TargetFilter filter;  // top-k / top-p
  const RngKey* keys;   // [n_trees]: seed, request and step (node is set per node)
  float* weights;       // [n_trees][n_vocab] workspace: the current node's (residual) weights
  uint64_t* order;      // [n_trees][n_vocab] workspace: the filtered list's keys (null will do unfiltered)
  AcceptanceOut out;
};

// Greedy per-node state, as verify.cpp's: rejected, accepted with the argmax not yet
// needed, or (>= 0) accepted with that argmax.
inline constexpr int32_t kNodeRejected = -2;
inline constexpr int32_t kNodeAcceptedArgmaxUnknown = -1;

struct GreedyAcceptanceShared {
  ArgmaxShared argmax;
  int32_t state[kGreedyAcceptanceMaxNodes];
  int32_t depth[kGreedyAcceptanceMaxNodes];  // of accepted nodes
};

struct OneHotAcceptanceShared {
  ArgmaxShared argmax;                         // the maximum logit at the current node (softmax_partial reads value[0])
  SoftmaxShared softmax;                       // the weights' sum, then re-sums of the residual
  FilterShared filter;                         // the filtered list (its best-64 lists: 33 of these 42 KB); its counts serve both walks
  double chunk_mass[kTreeAcceptanceThreads];   // the draw: each thread's contiguous chunk of ids
  int32_t chunk_last[kTreeAcceptanceThreads];  //   its last id of positive weight, -1 if none
  int32_t draw_chunk;                          //   the chunk holding the threshold, -1 if none
  double draw_below, draw_threshold;           //   the mass before that chunk; u * total
};

// Tree `index` of a batch, in its own node ids.
struct BatchTree {
  int32_t first, n;  // its rows in the batch: first .. first + n
  const int32_t* parents;
  const int32_t* tokens;
  const float* logits;
};

DB_HOST_DEVICE inline BatchTree batch_tree(const TreeBatch& b, int64_t index) {
  const int32_t first = b.node_offsets[index];
  return {first, b.node_offsets[index + 1] - first, b.parents + first, b.tokens + first, b.logits + first * b.n_vocab};
}

// The outputs of a tree the walk does not take (path_length 0, next_token -1).
template <class Block>
DB_HOST_DEVICE void mark_not_taken(const Block& block, const AcceptanceOut& out, int64_t tree) {
  block.each_thread([&](Dim3 t) {
    if (t.x == 0) out.path_length[tree] = 0, out.next_token[tree] = -1;
  });
}

// A root copy (parent -1 beyond node 0) stands for node 0.
DB_HOST_DEVICE inline int32_t canonical_node(const int32_t* parents, int32_t node) { return parents[node] < 0 ? 0 : node; }

DB_HOST_DEVICE inline bool is_child_of(const int32_t* parents, int32_t v, int32_t node) {
  return parents[v] >= 0 && canonical_node(parents, parents[v]) == node;
}

// The first index of the maximum of row[0 .. n) into sh.index[0] (and the value into
// sh.value[0]), by sampling_block.h's argmax partials and tree; ends with a barrier.
template <class Block>
DB_HOST_DEVICE void row_argmax(const Block& block, const float* row, int64_t n, ArgmaxShared& sh) {
  const ArgmaxArgs args{row, n, nullptr};
  block.each_thread([&](Dim3 t) { argmax_partial(args, 0, t.x, sh); });
  block.sync();
  fold_tree(block, kSamplingThreads, [&](unsigned t, unsigned half) { argmax_fold(t, half, sh); });
}

template <class Block>
DB_HOST_DEVICE void greedy_acceptance_block(const Block& block, const GreedyAcceptanceArgs& a, GreedyAcceptanceShared& sh) {
  const int64_t tree = block.index().x;
  const BatchTree bt = batch_tree(a.trees, tree);  // plain names below: lambdas capture them (C++17 device code)
  const int32_t first = bt.first, n = bt.n, *parents = bt.parents, *tokens = bt.tokens;
  const float* logits = bt.logits;
  const int64_t n_vocab = a.trees.n_vocab;
  if (n < 1 || n > kGreedyAcceptanceMaxNodes) return mark_not_taken(block, a.out, tree);
  block.each_thread([&](Dim3 t) {
    for (int32_t v = static_cast<int32_t>(t.x); v < n; v += kTreeAcceptanceThreads) sh.state[v] = kNodeRejected;
    if (t.x == 0) sh.state[0] = kNodeAcceptedArgmaxUnknown, sh.depth[0] = 0;
  });
  block.sync();
  // The argmax at an accepted node, computed on first use. Every thread reads the state
  // written before the last barrier, so the branch is block-uniform.
  const auto argmax_at = [&](int32_t node) {
    if (sh.state[node] == kNodeAcceptedArgmaxUnknown) {
      row_argmax(block, logits + node * n_vocab, n_vocab, sh.argmax);
      block.each_thread([&](Dim3 t) {
        if (t.x == 0) sh.state[node] = static_cast<int32_t>(sh.argmax.index[0]);
      });
      block.sync();
    }
    return sh.state[node];
  };
  int32_t deepest = 0, deepest_depth = 0;
  for (int32_t v = 1; v < n; ++v) {
    if (parents[v] < 0) continue;  // a root copy: node 0, accepted already
    const int32_t parent = canonical_node(parents, parents[v]);
    if (sh.state[parent] == kNodeRejected || tokens[v] != argmax_at(parent)) continue;
    const int32_t depth = sh.depth[parent] + 1;
    block.each_thread([&](Dim3 t) {
      if (t.x == 0) sh.state[v] = kNodeAcceptedArgmaxUnknown, sh.depth[v] = depth;
    });
    block.sync();
    if (depth > deepest_depth) deepest = v, deepest_depth = depth;  // strict: ties keep the first in node order
  }
  const int32_t next_token = argmax_at(deepest);
  block.each_thread([&](Dim3 t) {
    if (t.x != 0) return;
    int32_t* path = a.out.path + first;
    for (int32_t k = deepest_depth, v = deepest; k >= 0; --k) {
      path[k] = v;
      if (k > 0) v = canonical_node(parents, parents[v]);
    }
    a.out.path_length[tree] = deepest_depth + 1;
    a.out.next_token[tree] = next_token;
  });
}

// The first id in id order whose running weight passes u * total, into *token; ids of
// weight 0 are never chosen, and a threshold past the total (u within rounding of 1) takes
// the last id of positive weight, as draw / draw_residual do. Each thread sums a contiguous
// chunk of ids, thread 0 finds the chunk holding the threshold (256 additions), and that
// chunk's thread walks it.
template <class Block>
DB_HOST_DEVICE void draw_from_weights(const Block& block, const float* w, int64_t n, double u, OneHotAcceptanceShared& sh, int32_t* token) {
  const int64_t chunk = (n + kTreeAcceptanceThreads - 1) / kTreeAcceptanceThreads;
  block.each_thread([&](Dim3 t) {
    double mass = 0.0;
    int32_t last = -1;
    for (int64_t i = t.x * chunk; i < n && i < (t.x + 1) * chunk; ++i)
      if (w[i] > 0.0f) mass += w[i], last = static_cast<int32_t>(i);
    sh.chunk_mass[t.x] = mass;
    sh.chunk_last[t.x] = last;
  });
  block.sync();
  block.each_thread([&](Dim3 t) {
    if (t.x != 0) return;
    double total = 0.0;
    for (unsigned c = 0; c < kTreeAcceptanceThreads; ++c) total += sh.chunk_mass[c];
    const double threshold = u * total;
    double below = 0.0;
    int32_t last = -1;
    sh.draw_chunk = -1;
    for (unsigned c = 0; c < kTreeAcceptanceThreads && sh.draw_chunk < 0; ++c) {
      if (threshold < below + sh.chunk_mass[c]) sh.draw_chunk = static_cast<int32_t>(c);
      else below += sh.chunk_mass[c];
      if (sh.chunk_last[c] >= 0) last = sh.chunk_last[c];
    }
    sh.draw_below = below;
    sh.draw_threshold = threshold;
    if (sh.draw_chunk < 0) *token = last;
  });
  block.sync();
  block.each_thread([&](Dim3 t) {
    if (static_cast<int32_t>(t.x) != sh.draw_chunk) return;
    double running = sh.draw_below;
    int32_t last = -1;
    for (int64_t i = t.x * chunk; i < n && i < (t.x + 1) * chunk; ++i) {
      if (w[i] <= 0.0f) continue;
      running += w[i];
      last = static_cast<int32_t>(i);
      if (sh.draw_threshold < running) break;
    }
    *token = last;  // past the chunk's end only by rounding: its last id of positive weight
  });
}

// The unfiltered residual: the node's weights row, p(x) = w[x], masses in the kernel's order.
// Block-wide: every thread runs the children's loop.
template <class Block>
struct WeightRowResidual {
  const Block& block;
  float* w;
  int64_t n;
  double node_mass, mass;
  int32_t support;
  OneHotAcceptanceShared& sh;

  DB_HOST_DEVICE double prob(int32_t token) const { return w[token]; }
  DB_HOST_DEVICE void reject(int32_t token, double weight) {
    block.sync();  // every thread has read w[token] before it is zeroed
    block.each_thread([&](Dim3 t) {
      if (t.x == 0) w[token] = 0.0f;
    });
    block.sync();
    mass = mass - weight > 0.0 ? mass - weight : 0.0;
    if (mass < kResidualRefreshMass * node_mass) mass = weights_at_least(block, w, n, kSmallestWeightBits, sh.filter, sh.softmax).mass;
    --support;
  }
};

// The draws below `node` as the host indexes them without beams: its children in node
// order, child j on uniform stream 1 + j whether or not it is tried. take(v, stream) says
// whether the walk stops at v; returns that child, or -1.
template <class Take>
DB_HOST_DEVICE int32_t first_child_taken(const int32_t* parents, int32_t n, int32_t node, Take&& take) {
  uint64_t draws = 0;
  for (int32_t v = node + 1; v < n; ++v)
    if (is_child_of(parents, v, node) && take(v, 1 + draws++)) return v;
  return -1;
}

// The one-hot rule over the children: the first accepted, or -1 with every child tried
// rejected in the residual.
template <class Residual>
DB_HOST_DEVICE int32_t first_accepted_child(const int32_t* parents, const int32_t* tokens, int32_t n, int32_t node, const RngKey& key, Residual& residual) {
  return first_child_taken(parents, n, node, [&](int32_t v, uint64_t stream) {
    const double p = residual.prob(tokens[v]);
    if (p <= 0.0) return false;  // outside the support, or a rejected sibling's token
    // The last token of the support is accepted outright: its residual probability is 1.
    if (residual.support == 1 || uniform(key, stream) * residual.mass < p) return true;
    residual.reject(tokens[v], p);
    return false;
  });
}

// The softmax weights of a node's row into w (the host's bits); returns their sum in the
// kernel's order.
template <class Block>
DB_HOST_DEVICE double node_weights(const Block& block, const float* row, int64_t n_vocab, float inv_t, float* w, ArgmaxShared& argmax, SoftmaxShared& softmax) {
  row_argmax(block, row, n_vocab, argmax);
  const SoftmaxArgs weights{row, &argmax.value[0], inv_t, n_vocab, w, nullptr};
  block.each_thread([&](Dim3 t) { softmax_partial(weights, 0, t.x, softmax); });
  block.sync();
  fold_tree(block, kTreeAcceptanceThreads, [&](unsigned t, unsigned half) { softmax.partial[t] += softmax.partial[t + half]; });
  const double node_mass = softmax.partial[0];
  block.sync();
  return node_mass;
}

// step(node, key) returns (block-uniformly) the child accepted at `node`, -1 once it has
// written the next token, or kWalkFailed for a tree the walk does not take.
inline constexpr int32_t kWalkFailed = -2;

// A sampling walk's frame for tree `tree`: from the root, a step per node, the path written
// as it grows.
template <class Block, class Step>
DB_HOST_DEVICE void walk_from_root(const Block& block, const AcceptanceOut& out, int64_t tree, int32_t first, int32_t n, RngKey key, Step&& step) {
  if (n < 1) return mark_not_taken(block, out, tree);
  int32_t* path = out.path + first;
  int32_t path_length = 1;
  block.each_thread([&](Dim3 t) {
    if (t.x == 0) path[0] = 0;
  });
  for (int32_t node = 0;;) {
    key.node = static_cast<uint64_t>(node);
    const int32_t accepted = step(node, key);
    if (accepted == kWalkFailed) return mark_not_taken(block, out, tree);
    if (accepted < 0) {
      block.each_thread([&](Dim3 t) {
        if (t.x == 0) out.path_length[tree] = path_length;
      });
      return;
    }
    block.each_thread([&](Dim3 t) {
      if (t.x == 0) path[path_length] = accepted;
    });
    ++path_length;
    node = accepted;
  }
}

template <class Block>
DB_HOST_DEVICE void one_hot_acceptance_block(const Block& block, const OneHotAcceptanceArgs& a, OneHotAcceptanceShared& sh) {
  const int64_t tree = block.index().x;
  const BatchTree bt = batch_tree(a.trees, tree);  // plain names below: lambdas capture them (C++17 device code)
  const int32_t n = bt.n, *parents = bt.parents, *tokens = bt.tokens;
  const float* logits = bt.logits;
  const int64_t n_vocab = a.trees.n_vocab;
  float* w = a.weights + tree * n_vocab;
  uint64_t* order = a.filter.on() ? a.order + tree * n_vocab : nullptr;
  int32_t* next_token = a.out.next_token + tree;
  walk_from_root(block, a.out, tree, bt.first, n, a.keys[tree], [&](int32_t node, const RngKey& key) {
    const double node_mass = node_weights(block, logits + node * n_vocab, n_vocab, a.inv_t, w, sh.argmax, sh.softmax);
    int32_t accepted;
    if (a.filter.on()) {
      const int64_t len = filtered_list(block, w, n_vocab, node_mass, a.filter, order, sh.filter, sh.softmax);
      accepted = static_cast<int32_t>(from_thread_0(block, sh.filter.result, [&] {
        ListResidual residual(order, len, w);
        const int32_t child = first_accepted_child(parents, tokens, n, node, key, residual);
        if (child < 0) *next_token = residual.draw(uniform(key, 0));
        return static_cast<int64_t>(child);
      }));
    } else {
      const int64_t support = weights_at_least(block, w, n_vocab, kSmallestWeightBits, sh.filter, sh.softmax).count;
      WeightRowResidual<Block> residual{block, w, n_vocab, node_mass, node_mass, static_cast<int32_t>(support), sh};
      accepted = first_accepted_child(parents, tokens, n, node, key, residual);
      if (accepted < 0) draw_from_weights(block, w, n_vocab, uniform(key, 0), sh, next_token);
    }
    return accepted;
  });
}

}  // namespace draftbench::cuda
