#include "engine/drafters/axis_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/common/error.h"

namespace draftbench {

namespace {

using T = SettingType;
constexpr std::string_view kSizings[] = {"auto", "fixed"};
constexpr std::string_view kDraftWeights[] = {"q8_0", "file"};
constexpr double kMaxSeed = 9007199254740992.0;  // 2^53: seeds stay exact in JSON and YAML

// The sweep axes come first, in expansion order (outermost first); then the settings a
// spec sets per drafter or the command line alone.
constexpr Setting kSettings[] = {
    {"drafter", T::text, 0, 0, kEveryDrafter, true, false, nullptr, nullptr, nullptr, "", [](PointSettings&) { return SettingField{}; }},
    {"temperature", T::number, 0, 100, kEveryDrafter, true, false, "--temperature", "T", nullptr, "0 = greedy (so is anything below 1e-4)",
     [](PointSettings& p) { return SettingField{&p.decode.sampling.temperature}; }},
    {"batch_size", T::integer, 1, 4096, kEveryDrafter, true, false, "--batch-size", "bs", nullptr,
     "Prompts decoded together (one target forward per step for the batch)", [](PointSettings& p) { return SettingField{&p.batch_size}; }},
    {"beam_width", T::integer, 1, 1024, kBeams, true, false, "--beam-width", "bw", nullptr, "ReDrafter beams",
     [](PointSettings& p) { return SettingField{&p.drafter.beam_width}; }},
    {"beam_length", T::integer, 1, 64, kBeams, true, false, "--beam-length", "bl", nullptr, "ReDrafter tokens per beam, root included",
     [](PointSettings& p) { return SettingField{&p.drafter.beam_length}; }},
    {"tree_attention", T::boolean, 0, 0, kBeams, true, false, "--tree-attention", "tree_attn", nullptr,
     "ReDrafter dynamic tree attention: on, or off (every beam its own chain)", [](PointSettings& p) { return SettingField{&p.drafter.tree_attention}; }},
    {"tree", T::path, 0, 0, kChoiceTree, true, false, "--tree", "tree", "shipped", "Medusa (or EAGLE static) tree: JSON paths of top-k ranks",
     [](PointSettings& p) { return SettingField{&p.drafter.tree_file}; }},
    {"depth", T::integer, 1, 64, kDynamicTree, true, false, "--depth", "depth", nullptr, "EAGLE-2 expansion depth",
     [](PointSettings& p) { return SettingField{&p.drafter.depth}; }},
    {"top_k", T::integer, 1, 1024, kDynamicTree, true, false, "--top-k", "top_k", nullptr,
     "EAGLE-2 candidates per expansion (draft top-k; the target filter is --sampling-top-k)", [](PointSettings& p) { return SettingField{&p.drafter.top_k}; }},
    // The root and at least one draft token.
    {"total_tokens", T::integer, 2, 4096, kDynamicTree, true, false, "--total-tokens", "total", nullptr, "EAGLE-2 tree size verified per step, root included",
     [](PointSettings& p) { return SettingField{&p.drafter.total_tokens}; }},
    {"sizing", T::text, 0, 0, kWithWeights, true, false, "--sizing", "sizing", nullptr,
     "Drafters with weights: auto (verify, each step, the part of the draft that pays on this machine; the sizes above bound the draft) "
     "or fixed (exactly those sizes)",
     [](PointSettings& p) { return SettingField{&p.drafter.sizing}; }, kSizings},
    {"distilled", T::boolean, 0, 0, kWithWeights, true, false, nullptr, "distilled", nullptr, "", [](PointSettings& p) { return SettingField{&p.distilled}; }},
    {"max_new_tokens", T::integer, 1, 1 << 20, kEveryDrafter, true, false, "--max-new-tokens", nullptr, nullptr, "Tokens to generate per prompt",
     [](PointSettings& p) { return SettingField{&p.decode.max_new_tokens}; }},
    {"seed", T::integer, 0, kMaxSeed, kEveryDrafter, true, false, "--seed", nullptr, nullptr, "Random seed",
     [](PointSettings& p) { return SettingField{&p.decode.seed}; }},
    // Not swept.
    // 0 = auto (DrafterOptions::draft_vocab).
    {"draft_vocab", T::integer, 0, 1 << 24, kDynamicTree, false, true, "--draft-vocab", nullptr, "auto",
     "EAGLE: draft only from the N most frequent tokens of the drafter's vocabulary, stop tokens kept; fewer make each draft pass cheaper "
     "(auto: 8192 with auto sizing, all of them with fixed)",
     [](PointSettings& p) { return SettingField{&p.drafter.draft_vocab}; }},
    {"top_k_warp", T::integer, 0, 1 << 20, kBeams, false, true, "--top-k-warp", nullptr, nullptr,
     "ReDrafter: keep the top-k draft logits per step (0 = off; reference 50)", [](PointSettings& p) { return SettingField{&p.drafter.top_k_warp}; }},
    {"eagle_static_tree", T::boolean, 0, 0, kDynamicTree, false, true, "--eagle-static-tree", nullptr, nullptr,
     "EAGLE: the static tree of --tree instead of the dynamic one", [](PointSettings& p) { return SettingField{&p.drafter.eagle_static_tree}; }},
    {"draft_weights", T::text, 0, 0, kDynamicTree, false, true, "--draft-weights", nullptr, nullptr,
     "EAGLE: its layer's weights requantised to q8_0 once (faster drafts) or multiplied as the file stores them",
     [](PointSettings& p) { return SettingField{&p.drafter.draft_weights}; }, kDraftWeights},
    {"coupled_drafts", T::boolean, 0, 0, kWithWeights, false, true, "--coupled-drafts", nullptr, nullptr,
     "At temperature > 0 with auto sizing: draft the tokens the target's draws would give if its distribution were the drafter's (on), "
     "or the drafter's likeliest tokens (off); both exact",
     [](PointSettings& p) { return SettingField{&p.drafter.coupled_drafts}; }},
    {"ngram_min", T::integer, 1, 64, kLookup, false, false, "--ngram-min", nullptr, nullptr, "n-gram: shortest context suffix matched",
     [](PointSettings& p) { return SettingField{&p.drafter.ngram_min}; }},
    {"ngram_max", T::integer, 1, 64, kLookup, false, false, "--ngram-max", nullptr, nullptr, "n-gram: longest context suffix matched (tried first)",
     [](PointSettings& p) { return SettingField{&p.drafter.ngram_max}; }},
    // 0 = auto: sized to the machine each step (sized_drafter.h).
    {"draft_tokens", T::integer, 0, 1024, kLookup, false, false, "--draft-tokens", nullptr, "auto",
     "n-gram: tokens proposed per step beyond the root; auto sizes each step to this machine's measured costs",
     [](PointSettings& p) { return SettingField{&p.drafter.draft_tokens}; }},
    {"ngram_branches", T::integer, 1, 64, kLookup, false, false, "--ngram-branches", nullptr, nullptr, "n-gram: distinct continuations merged into the tree",
     [](PointSettings& p) { return SettingField{&p.drafter.ngram_branches}; }},
};

std::string number_text(const Setting& s, double v) { return s.type == T::integer ? fmt::format("{}", static_cast<int64_t>(v)) : fmt::format("{}", v); }

}  // namespace

std::span<const Setting> settings() { return kSettings; }

const Setting* find_setting(std::string_view name) {
  for (const Setting& s : kSettings)
    if (name == s.name) return &s;
  return nullptr;
}

const Setting& setting(std::string_view name) {
  const Setting* s = find_setting(name);
  DB_CHECK(s != nullptr);
  return *s;
}

std::string sweep_axis_names() {
  std::string names;
  for (const Setting& s : kSettings)
    if (s.sweep_axis) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

bool is_sweep_axis(std::string_view name) {
  const Setting* s = find_setting(name);
  return s && s->sweep_axis;
}

nlohmann::json setting_default(const Setting& s) {
  PointSettings defaults;
  const SettingField f = s.field(defaults);
  if (auto* p = std::get_if<int*>(&f)) return **p;
  if (auto* p = std::get_if<bool*>(&f)) return **p;
  if (auto* p = std::get_if<float*>(&f)) return static_cast<double>(**p);
  if (auto* p = std::get_if<uint64_t*>(&f)) return **p;
  if (auto* p = std::get_if<std::string*>(&f)) return (*p)->empty() && s.empty_as ? std::string(s.empty_as) : **p;
  return nullptr;
}

std::string choices_text(const Setting& s) {
  std::string text;
  for (size_t i = 0; i < s.choices.size(); ++i) text += (i == 0 ? "" : i + 1 == s.choices.size() ? " or " : ", ") + std::string(s.choices[i]);
  return text;
}

void apply_setting(const Setting& s, const nlohmann::json& value, PointSettings& point) {
  const SettingField f = s.field(point);
  if (auto* p = std::get_if<int*>(&f)) **p = value.get<int>();
  else if (auto* p = std::get_if<bool*>(&f)) **p = value.get<bool>();
  else if (auto* p = std::get_if<float*>(&f)) **p = static_cast<float>(value.get<double>());
  else if (auto* p = std::get_if<uint64_t*>(&f)) **p = value.get<uint64_t>();
  else if (auto* p = std::get_if<std::string*>(&f)) {
    const std::string text = value.get<std::string>();
    **p = s.empty_as && text == s.empty_as ? std::string() : text;
  }
}

std::optional<std::string> range_problem(const Setting& s, double value) { return range_problem(s, value, s.lo, s.hi); }

std::optional<std::string> range_problem(const Setting& s, double value, double lo, double hi) {
  DB_CHECK(s.type == T::integer || s.type == T::number);
  if (value >= lo && value <= hi) return std::nullopt;
  return fmt::format("expected {} in [{}, {}], got {}", s.type == T::integer ? "an integer" : "a number", number_text(s, lo), number_text(s, hi),
                     std::isfinite(value) ? number_text(s, value) : fmt::format("{}", value));
}

std::string option_name(const Setting& s) { return s.cli_flag ? fmt::format("option '{}' ({})", s.name, s.cli_flag) : fmt::format("option '{}'", s.name); }

void check_setting(const Setting& s, double value, std::string_view where) { check_setting(s, value, where, s.lo, s.hi); }

void check_setting(const Setting& s, double value, std::string_view where, double lo, double hi, std::string_view note) {
  if (const std::optional<std::string> problem = range_problem(s, value, lo, hi))
    throw InputError(where, option_name(s), note.empty() ? *problem : fmt::format("{} ({})", *problem, note));
}

void check_drafter_settings(const DrafterOptions& options, uint32_t groups, std::string_view where) {
  PointSettings point;
  point.drafter = options;
  for (const Setting& s : kSettings) {
    const SettingField f = s.field(point);
    if ((s.readers & groups) && s.type == T::integer && std::holds_alternative<int*>(f)) check_setting(s, *std::get<int*>(f), where);
  }
}

}  // namespace draftbench
