#include "engine/model/model_aliases.h"

#include "engine/common/table_names.h"

namespace draftbench {
namespace {

// The first row is the default model (default_model_alias).
constexpr ModelAlias kAliases[] = {
    {"gemma3-270m", "models/gemma-3-270m-q4_k_m.gguf", "scripts/setup.sh", "models/drafters"},
    {"qwen2.5-coder-1.5b", "models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "scripts/setup.sh --model qwen2.5-coder-1.5b",
     "models/drafters/qwen2.5-coder-1.5b"},
};

}  // namespace

std::span<const ModelAlias> model_aliases() { return kAliases; }

const ModelAlias& default_model_alias() { return kAliases[0]; }

const ModelAlias* find_model_alias(std::string_view name) {
  for (const ModelAlias& a : kAliases)
    if (a.name == name) return &a;
  return nullptr;
}

std::string model_alias_names() { return table_names(kAliases, &ModelAlias::name); }

}  // namespace draftbench
