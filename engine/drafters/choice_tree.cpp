#include "engine/drafters/choice_tree.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>

#include "engine/common/error.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_file.h"

namespace draftbench {
namespace {

std::string path_label(size_t index, const std::vector<int32_t>& path) { return fmt::format("path {} [{}]", index, fmt::join(path, ", ")); }

// Medusa's order (generate_medusa_buffers): shorter paths first, then lexicographic.
bool length_then_lexicographic(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

}  // namespace

int32_t ChoiceTree::max_depth() const { return depth.empty() ? 0 : *std::max_element(depth.begin(), depth.end()); }

int32_t ChoiceTree::max_rank() const { return rank.empty() ? -1 : *std::max_element(rank.begin(), rank.end()); }

ChoiceTree choice_tree_from_paths(const std::vector<std::vector<int32_t>>& paths, const std::string& where) {
  // Checks in file order, so a message names the path as the file lists it.
  std::map<std::vector<int32_t>, size_t> index_of;  // path -> its position in the file
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::vector<int32_t>& path = paths[i];
    if (path.empty()) throw InputError(where, path_label(i, path), "is empty (expected at least one rank; the root is implicit)");
    for (size_t d = 0; d < path.size(); ++d)
      if (path[d] < 0) throw InputError(where, path_label(i, path), fmt::format("rank {} at depth {} is negative (expected ranks >= 0)", path[d], d + 1));
    const auto [it, inserted] = index_of.emplace(path, i);
    if (!inserted) throw InputError(where, path_label(i, path), fmt::format("duplicate path (already path {})", it->second));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::vector<int32_t>& path = paths[i];
    if (path.size() < 2) continue;
    const std::vector<int32_t> prefix(path.begin(), path.end() - 1);
    if (!index_of.contains(prefix))
      throw InputError(where, path_label(i, path), fmt::format("its prefix [{}] is not a path (expected every prefix in the tree)", fmt::join(prefix, ", ")));
  }

  std::vector<std::vector<int32_t>> sorted = paths;
  std::sort(sorted.begin(), sorted.end(), length_then_lexicographic);
  // Node of each path: sorted position + 1 (node 0 is the root).
  std::map<std::vector<int32_t>, int32_t> node_of;
  for (size_t i = 0; i < sorted.size(); ++i) node_of.emplace(sorted[i], static_cast<int32_t>(i) + 1);

  ChoiceTree tree;
  tree.parent.assign(1, -1);
  tree.depth.assign(1, 0);
  tree.rank.assign(1, -1);
  for (const std::vector<int32_t>& path : sorted) {
    const int32_t parent = path.size() == 1 ? 0 : node_of.at(std::vector<int32_t>(path.begin(), path.end() - 1));
    tree.parent.push_back(parent);
    tree.depth.push_back(static_cast<int32_t>(path.size()));
    tree.rank.push_back(path.back());
  }
  return tree;
}

ChoiceTree load_choice_tree(const std::string& path) {
  const nlohmann::json doc = read_json_file(path, "the choice tree");
  const nlohmann::json* choices = &doc;
  if (doc.is_object()) {
    const auto it = doc.find("choices");
    if (it == doc.end()) throw InputError(path, "key 'choices'", "missing (expected {\"choices\": [[0], [1], [0, 0], ...]} or a bare array of paths)");
    choices = &*it;
  }
  if (!choices->is_array())
    throw InputError(path, doc.is_object() ? "key 'choices'" : "",
                     fmt::format("holds {} (expected an array of paths such as [[0], [1], [0, 0]])", printable_json(*choices)));

  std::vector<std::vector<int32_t>> paths;
  paths.reserve(choices->size());
  for (size_t i = 0; i < choices->size(); ++i) {
    const nlohmann::json& entry = (*choices)[i];
    if (!entry.is_array())
      throw InputError(path, fmt::format("path {}", i), fmt::format("holds {} (expected an array of ranks such as [0, 2])", printable_json(entry)));
    std::vector<int32_t>& ranks = paths.emplace_back();
    for (size_t d = 0; d < entry.size(); ++d) {
      const nlohmann::json& r = entry[d];
      // Unsigned, or signed within int32 (negative ranks are reported by choice_tree_from_paths).
      const bool fits = r.is_number_unsigned() ? r.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())
                                               : r.is_number_integer() && r.get<int64_t>() >= std::numeric_limits<int32_t>::min();
      if (!fits) throw InputError(path, fmt::format("path {} entry {}", i, d), fmt::format("holds {} (expected an integer rank >= 0)", printable_json(r)));
      ranks.push_back(static_cast<int32_t>(r.get<int64_t>()));
    }
  }
  return choice_tree_from_paths(paths, path);
}

}  // namespace draftbench
