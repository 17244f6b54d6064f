// Tree attention with the DFS-interval test against a dense-mask reference (the only
// place an N x N mask exists), and the property decoding relies on: a node's output is
// bit-identical to the same tokens laid out as a plain chain.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "kernels/attention/token_tree.h"
#include "kernels/attention/dense_mask_attention.h"
#include "kernels/attention/tree_attention.h"
#include "kernels/attention/tree_attention_tiled.h"
#include "kernels/runtime/cpu_features.h"
#include "kernels/runtime/thread_pool.h"

using namespace draftbench;

namespace {

struct Case {
  AttentionShape shape;
  int64_t committed;
  TokenTree tree;
  std::vector<float> k, v, q;  // k/v: [committed + n][kv_dim]; q: [n][n_heads * head_dim]
};

Case random_case(std::mt19937& rng, int n_heads, int n_kv, int head_dim, int64_t committed, int n_nodes, int64_t window) {
  Case c;
  c.shape = AttentionShape{n_heads, n_kv, head_dim, 1.0f / std::sqrt(static_cast<float>(head_dim)), window};
  c.committed = committed;
  std::vector<int32_t> parents(n_nodes);
  for (int i = 0; i < n_nodes; ++i) parents[i] = i == 0 ? -1 : std::uniform_int_distribution<int>(0, i - 1)(rng);
  c.tree = TokenTree::from_parents(parents);
  std::normal_distribution<float> d(0.0f, 1.0f);
  auto fill = [&](std::vector<float>& x, size_t n) {
    x.resize(n);
    for (auto& e : x) e = d(rng);
  };
  fill(c.k, static_cast<size_t>((committed + n_nodes) * n_kv * head_dim));
  fill(c.v, c.k.size());
  fill(c.q, static_cast<size_t>(n_nodes * n_heads * head_dim));
  return c;
}

// Dense reference: explicit mask over all slots, double precision.
std::vector<double> dense_reference(const Case& c, int node, int head) {
  const int64_t n_slots = c.committed + c.tree.size();
  const int hd = c.shape.head_dim, kv_dim = c.shape.n_kv_heads * hd;
  const int kvh = head / (c.shape.n_heads / c.shape.n_kv_heads);
  const int64_t q_pos = c.committed + c.tree.depth[node];
  std::vector<char> mask(n_slots, 0);
  for (int64_t s = 0; s < n_slots; ++s) {
    const bool committed = s < c.committed;
    const int64_t pos = committed ? s : c.committed + c.tree.depth[s - c.committed];
    bool visible = committed || c.tree.is_ancestor_or_self(static_cast<int32_t>(s - c.committed), node);
    if (c.shape.window > 0 && q_pos - pos >= c.shape.window) visible = false;
    mask[s] = visible;
  }
  std::vector<double> scores(n_slots, -INFINITY);
  double mx = -INFINITY;
  const float* q = c.q.data() + (node * c.shape.n_heads + head) * hd;
  for (int64_t s = 0; s < n_slots; ++s) {
    if (!mask[s]) continue;
    double dot = 0;
    for (int i = 0; i < hd; ++i) dot += static_cast<double>(q[i]) * c.k[s * kv_dim + kvh * hd + i];
    scores[s] = dot * c.shape.scale;
    mx = std::max(mx, scores[s]);
  }
  double sum = 0;
  for (auto& s : scores) sum += (s = std::exp(s - mx));
  std::vector<double> out(hd, 0.0);
  for (int64_t s = 0; s < n_slots; ++s)
    for (int i = 0; i < hd; ++i) out[i] += scores[s] / sum * c.v[s * kv_dim + kvh * hd + i];
  return out;
}

}  // namespace

TEST_CASE("tree attention matches a dense-mask reference", "[attention]") {
  std::mt19937 rng(7);
  struct Shape {
    int heads, kv, dim;
    int64_t committed;
    int nodes;
    int64_t window;
  };
  for (const Shape& s :
       {Shape{4, 1, 32, 0, 1, 0}, Shape{4, 1, 32, 9, 13, 0}, Shape{8, 2, 16, 40, 25, 16}, Shape{2, 2, 20, 3, 7, 4}, Shape{4, 4, 16, 100, 64, 0}}) {
    Case c = random_case(rng, s.heads, s.kv, s.dim, s.committed, s.nodes, s.window);
    std::vector<float> scores(c.committed + c.tree.size()), out(s.dim);
    const TreeView view = c.tree.view();
    for (int node = 0; node < c.tree.size(); ++node)
      for (int h = 0; h < s.heads; ++h) {
        tree_attention_head(c.shape, h, c.q.data() + (node * s.heads + h) * s.dim, c.k.data(), c.v.data(), s.kv * s.dim, c.committed, view, node, scores.data(),
                            out.data());
        const auto ref = dense_reference(c, node, h);
        for (int i = 0; i < s.dim; ++i) REQUIRE(std::fabs(out[i] - ref[i]) < 1e-5 * (1.0 + std::fabs(ref[i])));
      }
  }
}

TEST_CASE("a tree node's attention is bit-identical to its path run as a chain", "[attention]") {
  std::mt19937 rng(11);
  Case c = random_case(rng, 4, 1, 32, 20, 30, 24);
  const int hd = 32, kv_dim = 32;
  std::vector<float> scores(64), tree_out(hd), chain_out(hd);
  const TreeView view = c.tree.view();
  for (int node = 0; node < c.tree.size(); ++node) {
    const auto path = c.tree.path_to(node);
    // The chain layout: committed slots, then the path's K/V in order.
    std::vector<float> k(c.k.begin(), c.k.begin() + c.committed * kv_dim), v(c.v.begin(), c.v.begin() + c.committed * kv_dim);
    for (int32_t p : path) {
      k.insert(k.end(), c.k.begin() + (c.committed + p) * kv_dim, c.k.begin() + (c.committed + p + 1) * kv_dim);
      v.insert(v.end(), c.v.begin() + (c.committed + p) * kv_dim, c.v.begin() + (c.committed + p + 1) * kv_dim);
    }
    const TokenTree chain = TokenTree::chain(static_cast<int32_t>(path.size()));
    const TreeView chain_view = chain.view();
    for (int h = 0; h < 4; ++h) {
      const float* q = c.q.data() + (node * 4 + h) * hd;
      tree_attention_head(c.shape, h, q, c.k.data(), c.v.data(), kv_dim, c.committed, view, node, scores.data(), tree_out.data());
      tree_attention_head(c.shape, h, q, k.data(), v.data(), kv_dim, c.committed, chain_view, chain.size() - 1, scores.data(), chain_out.data());
      REQUIRE(std::memcmp(tree_out.data(), chain_out.data(), hd * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("the dense-mask kernel is bit-identical to the DFS-interval kernel", "[attention]") {
  std::mt19937 rng(13);
  struct Shape {
    int heads, kv, dim;
    int64_t committed;
    int nodes;
    int64_t window;
  };
  for (const Shape& s : {Shape{4, 1, 32, 0, 1, 0}, Shape{4, 1, 40, 17, 33, 0}, Shape{8, 2, 16, 40, 25, 16}, Shape{2, 2, 20, 3, 7, 4},
                         Shape{4, 4, 256, 130, 64, 64}, Shape{1, 1, 8, 1, 200, 3}}) {
    Case c = random_case(rng, s.heads, s.kv, s.dim, s.committed, s.nodes, s.window);
    const TreeView view = c.tree.view();
    const DenseTreeMask mask = build_dense_tree_mask(view, c.committed, s.window);
    REQUIRE(mask.bytes() == sizeof(float) * static_cast<size_t>(s.nodes) * static_cast<size_t>(s.committed + s.nodes));
    std::vector<float> scores(c.committed + c.tree.size()), tree_out(s.dim), dense_out(s.dim);
    for (int node = 0; node < c.tree.size(); ++node)
      for (int h = 0; h < s.heads; ++h) {
        const float* q = c.q.data() + (node * s.heads + h) * s.dim;
        tree_attention_head(c.shape, h, q, c.k.data(), c.v.data(), s.kv * s.dim, c.committed, view, node, scores.data(), tree_out.data());
        dense_mask_attention_head(c.shape, h, q, c.k.data(), c.v.data(), s.kv * s.dim, mask, node, scores.data(), dense_out.data());
        REQUIRE(std::memcmp(tree_out.data(), dense_out.data(), s.dim * sizeof(float)) == 0);
      }
  }
}

TEST_CASE("tiled tree attention is bit-identical to tree_attention_head for every node and head", "[attention]") {
  std::mt19937 rng(17);
  struct Shape {
    int heads, kv, dim;
    int64_t committed;
    int nodes;
    int64_t window;
    int first_node;
  };
  // GQA and MHA, odd head dims, empty and long contexts, windows shorter than the tree,
  // incremental trees (first_node > 0), a single node (autoregressive decoding).
  for (const Shape& s : {Shape{4, 1, 32, 0, 1, 0, 0}, Shape{4, 1, 256, 300, 1, 0, 0}, Shape{4, 1, 40, 17, 33, 0, 0}, Shape{8, 2, 16, 40, 25, 16, 0},
                         Shape{2, 2, 20, 3, 7, 4, 2}, Shape{4, 4, 128, 130, 64, 64, 10}, Shape{1, 1, 8, 1, 200, 3, 0}, Shape{6, 3, 24, 531, 19, 512, 5}}) {
    Case c = random_case(rng, s.heads, s.kv, s.dim, s.committed, s.nodes, s.window);
    const TreeView view = c.tree.view();
    const int n_q = s.nodes - s.first_node;
    const float* q = c.q.data() + static_cast<size_t>(s.first_node) * s.heads * s.dim;
    std::vector<float> expected(static_cast<size_t>(n_q) * s.heads * s.dim), scores(c.committed + s.nodes);
    for (int node = s.first_node; node < s.nodes; ++node)
      for (int h = 0; h < s.heads; ++h)
        tree_attention_head(c.shape, h, c.q.data() + (node * s.heads + h) * s.dim, c.k.data(), c.v.data(), s.kv * s.dim, c.committed, view, node, scores.data(),
                            expected.data() + ((node - s.first_node) * s.heads + h) * s.dim);
    // Scratch starts as NaN: a read of a slot the kernel did not write poisons the output.
    // Enough for every pool size below and for the direct calls over all queries at once.
    size_t scratch_floats = static_cast<size_t>(n_q) * s.heads * (c.committed + s.nodes);
    for (int threads : {1, 2, 3})
      scratch_floats = std::max(scratch_floats, tree_attention_scratch_floats(c.shape, c.committed, s.nodes, s.first_node, threads));
    std::vector<float> scratch(scratch_floats, std::nanf(""));
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      std::vector<float> got(expected.size(), -1.0f);
      const TreeAttentionJob job{c.shape, view, s.first_node, q, c.k.data(), c.v.data(), s.kv * s.dim, c.committed, got.data()};
      tree_attention(job, scratch, pool);
      CAPTURE(s.heads, s.kv, s.dim, s.committed, s.nodes, s.window, s.first_node, threads);
      REQUIRE(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);
    }
    // Both instruction-set builds directly, over uneven query ranges.
    const int64_t total = static_cast<int64_t>(n_q) * s.heads;
    for (auto body : {&tree_attention_tiled_generic, &tree_attention_tiled_avx2}) {
      if (body == &tree_attention_tiled_avx2 && !cpu_features().avx2) continue;
      std::vector<float> got(expected.size(), -1.0f);
      const TreeAttentionJob job{c.shape, view, s.first_node, q, c.k.data(), c.v.data(), s.kv * s.dim, c.committed, got.data()};
      const int64_t cut = total / 3;
      body(job, 0, cut, scratch.data());
      body(job, cut, total, scratch.data());
      REQUIRE(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);
    }
  }
}
