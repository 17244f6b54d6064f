#include "experiments/spec/spec_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "engine/common/error.h"
#include "engine/common/input_checks.h"

namespace draftbench {

namespace {

// A quoted YAML scalar carries the non-specific tag "!": "8" is text, 8 is a number.
bool quoted(const YAML::Node& node) { return node.Tag() == "!"; }

bool parse_int(const std::string& s, int64_t& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

bool parse_double(const std::string& s, double& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end && std::isfinite(out);
}

bool parse_bool(const std::string& s, bool& out) {
  if (s == "true" || s == "True" || s == "TRUE" || s == "on" || s == "yes") return out = true, true;
  if (s == "false" || s == "False" || s == "FALSE" || s == "off" || s == "no") return out = false, true;
  return false;
}

std::string shown(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return fmt::format("'{}'", printable(node.Scalar(), 60));
}

}  // namespace

void SpecReader::fail(const YAML::Node& node, const std::string& path, const std::string& problem) const {
  const YAML::Mark mark = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
  // An empty path is the document itself: "spec.yaml: line 1: ..." without a key.
  const std::string key = path.empty() ? "" : fmt::format("key {}", printable(path, 200));
  const std::string what = mark.is_null() ? key : fmt::format("line {}{}{}", mark.line + 1, key.empty() ? "" : " ", key);
  throw InputError(file_, what, problem);
}

void SpecReader::check_bounds(const YAML::Node& doc) const {
  int64_t budget = kMaxSpecNodes;
  // Depth-first with an explicit stack, so the walk itself cannot overflow the C++ stack.
  std::vector<std::pair<YAML::Node, int>> stack{{doc, 0}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (--budget < 0)
      fail(node, "", fmt::format("expands to more than {} nodes (aliases repeated within aliases?; expected a spec of ordinary size)", kMaxSpecNodes));
    if (depth > kMaxSpecDepth) fail(node, "", fmt::format("nested more than {} levels deep (expected a spec nested a few levels)", kMaxSpecDepth));
    if (node.IsSequence())
      for (const auto& item : node) stack.emplace_back(item, depth + 1);
    else if (node.IsMap())
      for (const auto& kv : node) {
        stack.emplace_back(kv.first, depth + 1);
        stack.emplace_back(kv.second, depth + 1);
      }
  }
}

void SpecReader::require_map(const YAML::Node& node, const std::string& path) const {
  if (!node.IsMap()) fail(node, path, fmt::format("expected a mapping of keys to values, got {}", shown(node)));
  // yaml-cpp keeps both of a repeated key: lookups would see the first, iteration (and the
  // report's copy of the spec) the last.
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second)
      fail(kv.first, path.empty() ? key : path + "." + key, fmt::format("key '{}' appears twice (expected each key once)", printable(key, 60)));
  }
}

void SpecReader::only_keys(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed) const {
  require_map(node, path);
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    fail(kv.first, path.empty() ? key : path + "." + key, fmt::format("unknown key '{}' (expected one of: {})", printable(key, 60), fmt::join(allowed, ", ")));
  }
}

std::string SpecReader::text(const YAML::Node& node, const std::string& path) const {
  if (!node.IsScalar() || node.Scalar().empty()) fail(node, path, fmt::format("expected a non-empty string, got {}", shown(node)));
  return node.Scalar();
}

int64_t SpecReader::integer(const YAML::Node& node, const std::string& path, int64_t min, int64_t max) const {
  int64_t v = 0;
  if (!node.IsScalar() || quoted(node) || !parse_int(node.Scalar(), v)) fail(node, path, fmt::format("expected an integer, got {}", shown(node)));
  if (v < min || v > max) fail(node, path, fmt::format("expected an integer in [{}, {}], got {}", min, max, v));
  return v;
}

double SpecReader::number(const YAML::Node& node, const std::string& path, double min, double max) const {
  double v = 0;
  if (!node.IsScalar() || quoted(node) || !parse_double(node.Scalar(), v)) fail(node, path, fmt::format("expected a number, got {}", shown(node)));
  if (v < min || v > max) fail(node, path, fmt::format("expected a number in [{}, {}], got {}", min, max, v));
  // The engine computes in float, where these are subnormal: in a spec they are a typo, not a
  // setting (the command line's --temperature takes them as greedy, as documented there).
  if (v != 0 && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min()))
    fail(node, path,
         fmt::format("expected 0 or a number of magnitude at least {:g} (smaller ones are subnormal floats), got {:g}",
                     static_cast<double>(std::numeric_limits<float>::min()), v));
  return v;
}

bool SpecReader::boolean(const YAML::Node& node, const std::string& path) const {
  bool v = false;
  if (!node.IsScalar() || quoted(node) || !parse_bool(node.Scalar(), v)) fail(node, path, fmt::format("expected true or false, got {}", shown(node)));
  return v;
}

std::vector<std::string> SpecReader::text_list(const YAML::Node& node, const std::string& path) const {
  if (node.IsScalar()) return {text(node, path)};
  if (!node.IsSequence() || node.size() == 0) fail(node, path, fmt::format("expected a string or a non-empty list of strings, got {}", shown(node)));
  std::vector<std::string> out;
  for (size_t i = 0; i < node.size(); ++i) out.push_back(text(node[i], fmt::format("{}[{}]", path, i)));
  return out;
}

nlohmann::json yaml_to_json(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(yaml_to_json(item));
    return out;
  }
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) out[kv.first.Scalar()] = yaml_to_json(kv.second);
    return out;
  }
  const std::string& s = node.Scalar();
  if (quoted(node)) return s;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  if (parse_int(s, i)) return i;
  if (parse_double(s, d)) return d;
  if (parse_bool(s, b)) return b;
  return s;
}

}  // namespace draftbench
