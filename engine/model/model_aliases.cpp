#include "engine/model/model_aliases.h"

namespace draftbench {
namespace {

constexpr ModelAlias kAliases[] = {
    {"gemma3-270m", "models/gemma-3-270m-q4_k_m.gguf", "scripts/setup.sh", "models/drafters"},
    {"qwen2.5-coder-1.5b", "models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "scripts/setup.sh --model qwen2.5-coder-1.5b",
     "models/drafters/qwen2.5-coder-1.5b"},
};

}  // namespace

std::span<const ModelAlias> model_aliases() { return kAliases; }

const ModelAlias* find_model_alias(std::string_view name) {
  for (const ModelAlias& a : kAliases)
    if (a.name == name) return &a;
  return nullptr;
}

std::string model_alias_names() {
  std::string names;
  for (const ModelAlias& a : kAliases) names += (names.empty() ? "" : ", ") + std::string(a.name);
  return names;
}

}  // namespace draftbench
