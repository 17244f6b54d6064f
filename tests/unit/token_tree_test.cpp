#include <catch2/catch.hpp>

#include "engine/model/token_tree.h"

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
