#include "kernels/attention/token_tree.h"

#include <stdexcept>
#include <string>

namespace draftbench {

TokenTree TokenTree::chain(int32_t n) {
  TokenTree t;
  t.assign_chain(n);
  return t;
}

TokenTree TokenTree::from_parents(std::span<const int32_t> parents) {
  TokenTree t;
  t.assign(parents);
  return t;
}

void TokenTree::assign_chain(int32_t n) {
  parent.resize(static_cast<size_t>(n));
  depth.resize(static_cast<size_t>(n));
  dfs_start.resize(static_cast<size_t>(n));
  dfs_end.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    parent[i] = i - 1;
    depth[i] = dfs_start[i] = i;
    dfs_end[i] = n - 1;
  }
}

// Preorder with children in index order, without building child lists: parents precede
// children, so subtree sizes accumulate in one backward pass, and a forward pass gives each
// node the entry time its parent's cursor holds, then advances that cursor past the node's
// subtree.
void TokenTree::assign(std::span<const int32_t> parents) {
  const auto n = static_cast<int32_t>(parents.size());
  parent.assign(parents.begin(), parents.end());
  depth.resize(static_cast<size_t>(n));
  dfs_start.resize(static_cast<size_t>(n));
  dfs_end.resize(static_cast<size_t>(n));
  cursor.resize(static_cast<size_t>(n) + 1);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t p = parents[i];
    if (p < -1 || p >= i)
      throw std::invalid_argument("token tree: node " + std::to_string(i) + " has parent " + std::to_string(p) + " (parents must precede children)");
    depth[i] = p < 0 ? 0 : depth[p] + 1;
  }
  std::vector<int32_t>& size = dfs_end;  // subtree sizes first, end times after
  std::fill(size.begin(), size.end(), 1);
  for (int32_t i = n - 1; i > 0; --i)
    if (parents[i] >= 0) size[parents[i]] += size[i];
  cursor[0] = 0;  // slot 0: the virtual root above every root
  for (int32_t i = 0; i < n; ++i) {
    int32_t& next = cursor[parents[i] + 1];
    dfs_start[i] = next;
    next += size[i];
    cursor[i + 1] = dfs_start[i] + 1;
    dfs_end[i] = dfs_start[i] + size[i] - 1;
  }
}

std::vector<int32_t> TokenTree::path_to(int32_t node) const {
  std::vector<int32_t> path;
  for (int32_t v = node; v >= 0; v = parent[v]) path.push_back(v);
  return {path.rbegin(), path.rend()};
}

}  // namespace draftbench
