// Short names for the models draftbench knows how to install (scripts/setup.sh), so that
// `--model qwen2.5-coder-1.5b` or `model: qwen2.5-coder-1.5b` in a spec needs no path.
// One row per model; the CLI and the spec loader resolve names through it.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace draftbench {

struct ModelAlias {
  std::string_view name;      // what the user types
  std::string_view path;      // the file, relative to the checkout
  std::string_view setup;     // the command that writes it
  std::string_view drafters;  // its shipped drafters' folder, relative to the checkout (one folder per kind)
};

std::span<const ModelAlias> model_aliases();
// The model used when none is named: Gemma 3 270M, which scripts/setup.sh always installs.
const ModelAlias& default_model_alias();
// The row named `name`, or nullptr.
const ModelAlias* find_model_alias(std::string_view name);
// "gemma3-270m, qwen2.5-coder-1.5b"
std::string model_alias_names();

}  // namespace draftbench
