// Typed reads from a parsed YAML/JSON document that fail with the file, the line and the
// key path ("sweep.beam_width[2]") — the vocabulary the spec loader is written in.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

class SpecReader {
 public:
  explicit SpecReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  // Throws InputError(file, "line L key PATH", problem); the line is left out when the
  // node has no position (a key that is missing altogether).
  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& problem) const;

  // Bounds a document before anything walks it: nesting at most kMaxSpecDepth deep, and at
  // most kMaxSpecNodes nodes when aliases are expanded (a "billion laughs" alias bomb is a
  // few lines that expand to 10^9 nodes). Fails naming the line where the bound was passed.
  static constexpr int kMaxSpecDepth = 64;
  static constexpr int64_t kMaxSpecNodes = 1000000;
  void check_bounds(const YAML::Node& doc) const;

  void require_map(const YAML::Node& node, const std::string& path) const;
  // Every key of `node` is one of `allowed`; else "unknown key 'x' (expected one of: ...)".
  void only_keys(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed) const;

  std::string text(const YAML::Node& node, const std::string& path) const;  // a non-empty scalar
  int64_t integer(const YAML::Node& node, const std::string& path, int64_t min, int64_t max) const;
  double number(const YAML::Node& node, const std::string& path, double min, double max) const;
  bool boolean(const YAML::Node& node, const std::string& path) const;
  // A scalar or a sequence of scalars, as a list of non-empty strings.
  std::vector<std::string> text_list(const YAML::Node& node, const std::string& path) const;

 private:
  std::string file_;
};

// The document as JSON (for the report): numbers and booleans that were not quoted become
// JSON numbers and booleans, everything else strings.
nlohmann::json yaml_to_json(const YAML::Node& node);

}  // namespace draftbench
