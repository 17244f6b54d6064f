#include <catch2/catch.hpp>

#include <functional>
#include <random>

#include "kernels/attention/token_tree.h"

using namespace draftbench;

TEST_CASE("DFS intervals answer ancestor queries exactly", "[tree]") {
  // 0 -> {1, 4}, 1 -> {2, 3}, 4 -> {5}, 5 -> {6}; node 7 is a second root.
  const std::vector<int32_t> parents = {-1, 0, 1, 1, 0, 4, 5, -1};
  const TokenTree t = TokenTree::from_parents(parents);
  REQUIRE(t.depth == std::vector<int32_t>{0, 1, 2, 2, 1, 2, 3, 0});
  for (int32_t a = 0; a < t.size(); ++a)
    for (int32_t b = 0; b < t.size(); ++b) {
      bool is_anc = false;
      for (int32_t v = b; v >= 0; v = t.parent[v]) is_anc |= v == a;
      INFO(a << " ancestor of " << b);
      REQUIRE(t.is_ancestor_or_self(a, b) == is_anc);
    }
  REQUIRE(t.path_to(6) == std::vector<int32_t>{0, 4, 5, 6});
}

TEST_CASE("chains and invalid parents", "[tree]") {
  const TokenTree c = TokenTree::chain(5);
  REQUIRE(c.depth == std::vector<int32_t>{0, 1, 2, 3, 4});
  REQUIRE(c.is_ancestor_or_self(0, 4));
  REQUIRE_FALSE(c.is_ancestor_or_self(4, 0));
  const std::vector<int32_t> bad = {-1, 2, 0};
  REQUIRE_THROWS_WITH(TokenTree::from_parents(bad), Catch::Contains("node 1 has parent 2"));
}

TEST_CASE("in-place assignment numbers random forests as a recursive preorder does, reusing storage", "[tree]") {
  // The reference: explicit child lists in index order, recursive preorder.
  auto reference = [](const std::vector<int32_t>& parents, std::vector<int32_t>& start, std::vector<int32_t>& end) {
    const auto n = static_cast<int32_t>(parents.size());
    std::vector<std::vector<int32_t>> children(static_cast<size_t>(n) + 1);
    for (int32_t i = 0; i < n; ++i) children[static_cast<size_t>(parents[i] + 1)].push_back(i);
    start.assign(static_cast<size_t>(n), -1);
    end.assign(static_cast<size_t>(n), -1);
    int32_t clock = 0;
    std::function<void(int32_t)> visit = [&](int32_t v) {
      start[static_cast<size_t>(v)] = clock++;
      for (int32_t c : children[static_cast<size_t>(v) + 1]) visit(c);
      end[static_cast<size_t>(v)] = clock - 1;
    };
    for (int32_t r : children[0]) visit(r);
  };
  std::mt19937 rng(5);
  TokenTree t;
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 80);
    std::vector<int32_t> parents(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) parents[static_cast<size_t>(i)] = i == 0 || rng() % 9 == 0 ? -1 : static_cast<int32_t>(rng() % static_cast<uint32_t>(i));
    t.assign(parents);  // the same object every trial, larger and smaller
    std::vector<int32_t> start, end;
    reference(parents, start, end);
    REQUIRE(t.dfs_start == start);
    REQUIRE(t.dfs_end == end);
    REQUIRE(t.parent == parents);
    const TokenTree fresh = TokenTree::from_parents(parents);
    REQUIRE(fresh.depth == t.depth);
  }
  t.assign_chain(6);
  const TokenTree c = TokenTree::from_parents(std::vector<int32_t>{-1, 0, 1, 2, 3, 4});
  REQUIRE(t.dfs_start == c.dfs_start);
  REQUIRE(t.dfs_end == c.dfs_end);
  REQUIRE(t.depth == c.depth);
}
