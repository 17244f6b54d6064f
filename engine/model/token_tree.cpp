#include "engine/model/token_tree.h"

#include <stdexcept>
#include <string>

namespace draftbench {

TokenTree TokenTree::chain(int32_t n) {
  std::vector<int32_t> parents(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) parents[i] = i - 1;
  return from_parents(parents);
}

TokenTree TokenTree::from_parents(std::span<const int32_t> parents) {
  TokenTree t;
  const auto n = static_cast<int32_t>(parents.size());
  t.parent.assign(parents.begin(), parents.end());
  t.depth.assign(n, 0);
  std::vector<int32_t> n_children(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t p = parents[i];
    if (p < -1 || p >= i) throw std::invalid_argument("token tree: node " + std::to_string(i) + " has parent " + std::to_string(p) + " (parents must precede children)");
    t.depth[i] = p < 0 ? 0 : t.depth[p] + 1;
    ++n_children[p + 1];
  }
  // Children lists in index order (CSR, slot 0 = the virtual root above all roots).
  std::vector<int32_t> first(n + 2, 0);
  for (int32_t i = 0; i <= n; ++i) first[i + 1] = first[i] + n_children[i];
  std::vector<int32_t> children(n), fill(first.begin(), first.end() - 1);
  for (int32_t i = 0; i < n; ++i) children[fill[parents[i] + 1]++] = i;

  t.dfs_start.assign(n, 0);
  t.dfs_end.assign(n, 0);
  int32_t clock = 0;
  std::vector<std::pair<int32_t, int32_t>> stack;  // (node + 1, next child cursor)
  stack.emplace_back(0, first[0]);
  while (!stack.empty()) {
    const int32_t v = stack.back().first;
    if (int32_t& cursor = stack.back().second; cursor < first[v + 1]) {
      const int32_t c = children[cursor++];  // before emplace_back invalidates `cursor`
      t.dfs_start[c] = clock++;
      stack.emplace_back(c + 1, first[c + 1]);
    } else {
      if (v > 0) t.dfs_end[v - 1] = clock - 1;
      stack.pop_back();
    }
  }
  return t;
}

std::vector<int32_t> TokenTree::path_to(int32_t node) const {
  std::vector<int32_t> path;
  for (int32_t v = node; v >= 0; v = parent[v]) path.push_back(v);
  return {path.rbegin(), path.rend()};
}

}  // namespace draftbench
