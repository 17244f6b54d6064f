// A static candidate tree given as paths of top-k ranks ("medusa choices", engine/DESIGN.md §2.2):
// [[0], [1], [0, 0], [0, 1], ...] — each path names a node by the rank of its token at each
// depth. Medusa takes the token at depth d from head d-1's ranking (independent of the
// parent); EAGLE's static tree takes it from the draft distribution at the parent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace draftbench {

struct ChoiceTree {
  // Node 0 is the root (the empty path); the others follow their paths' (length,
  // lexicographic) order, so every parent precedes its children.
  std::vector<int32_t> parent;  // [n_nodes]; parent[0] = -1
  std::vector<int32_t> depth;   // [n_nodes]; root 0
  std::vector<int32_t> rank;    // [n_nodes]; rank of the node's token among its candidates; root -1
  int32_t size() const { return static_cast<int32_t>(parent.size()); }
  int32_t max_depth() const;
  int32_t max_rank() const;  // -1 for a root-only tree
};

// Throws InputError naming `where` and the offending path: negative ranks, duplicate paths,
// a path whose prefix is not itself a path.
ChoiceTree choice_tree_from_paths(const std::vector<std::vector<int32_t>>& paths, const std::string& where);

// A JSON file holding the paths, either as a bare array or as {"choices": [...]} (other
// keys, such as "name" or "comment", are ignored).
ChoiceTree load_choice_tree(const std::string& path);

}  // namespace draftbench
