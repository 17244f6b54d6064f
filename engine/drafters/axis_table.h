// The axis table: one entry per setting a point of an experiment can vary or a drafter
// reads (beam width, temperature, the n-gram suffix lengths, ...). Each entry holds the
// setting's type, range and default, the drafters that read it, its command-line flag, its
// spec key and its report label. The spec loader, `generate`'s options, the sweep grid,
// the runner, the dry-run labels and the drafters' own checks all derive from it, so a
// setting has one range and one error message.
//
// A new sweep axis is one entry here (in expansion order) plus the code that uses its
// value; a drafter kind says which groups of settings it reads (drafter_registry.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "engine/decoding/decoder.h"
#include "engine/drafters/make_drafter.h"

namespace draftbench {

// Groups of settings; a drafter kind reads a set of them (DrafterKind::reads).
enum SettingGroup : uint32_t {
  kEveryDrafter = 1u << 0,  // decoding itself: temperature, batch size, length, seed
  kWithWeights = 1u << 1,   // sizing, distilled
  kBeams = 1u << 2,         // ReDrafter's beam search
  kChoiceTree = 1u << 3,    // a static tree of top-k ranks (Medusa, EAGLE static)
  kDynamicTree = 1u << 4,   // EAGLE-2's expansion
  kLookup = 1u << 5,        // the n-gram lookup
};

enum class SettingType { text, integer, number, boolean, path };

// Everything one decoding point runs with. Each field's initializer is its setting's
// default (the drafter's in DrafterOptions, decoding's in DecodeOptions).
struct PointSettings {
  PointSettings() { drafter.sizing = DrafterOptions::kUserSizing; }
  DrafterOptions drafter;
  DecodeOptions decode;
  int batch_size = 1;
  bool distilled = true;  // the weights trained on distilled labels, else the ground-truth ones
};

// Where a setting lives in PointSettings; monostate: in the spec alone (`drafter`).
using SettingField = std::variant<std::monostate, int*, bool*, float*, uint64_t*, std::string*>;

struct Setting {
  const char* name;  // the spec key (sweep.<name>, or drafters.<d>.<name>) and the results' params key
  SettingType type;
  double lo, hi;         // integer and number settings: the accepted range, inclusive
  uint32_t readers;      // SettingGroup bits: which drafters read it
  bool sweep_axis;       // listed under `sweep:`; else set per drafter in a spec, or on the command line only
  bool spec_key;         // a non-axis setting a spec's `drafters.<d>` entry may hold
  const char* cli_flag;  // `generate`'s option; null: none
  const char* label;     // the dry-run and progress label; null: not shown
  // The word for the empty value: a text or path setting's "" ("shipped"), an integer's 0 ("auto").
  const char* empty_as;
  const char* help;  // `generate --help`
  SettingField (*field)(PointSettings&);
  std::span<const std::string_view> choices = {};  // text settings: the accepted values; empty: any
};

// Every setting, the sweep axes first in the order points are expanded (outermost first).
std::span<const Setting> settings();
// Null for an unknown name.
const Setting* find_setting(std::string_view name);
// A setting the code names; DB_CHECK that it exists.
const Setting& setting(std::string_view name);
// "drafter, temperature, ...": the sweep axes in order.
std::string sweep_axis_names();
bool is_sweep_axis(std::string_view name);

// The default as JSON: the field's initializer in a default PointSettings.
nlohmann::json setting_default(const Setting& s);
// "auto or fixed": a text setting's choices as an error message lists them.
std::string choices_text(const Setting& s);
// Stores a checked value (as the spec loader produced it) into its field.
void apply_setting(const Setting& s, const nlohmann::json& value, PointSettings& point);

// The one message for a number outside a setting's range (or [lo, hi] where a caller
// narrows it): "expected an integer in [1, 64], got 0"; nothing when it is inside.
std::optional<std::string> range_problem(const Setting& s, double value);
std::optional<std::string> range_problem(const Setting& s, double value, double lo, double hi);
// How a drafter names a setting in its errors: "option 'ngram_max' (--ngram-max)".
std::string option_name(const Setting& s);
// Throws InputError(where, option_name(s), problem) when `value` is outside [lo, hi]
// (the setting's own range by default); `note` follows the problem.
void check_setting(const Setting& s, double value, std::string_view where);
void check_setting(const Setting& s, double value, std::string_view where, double lo, double hi, std::string_view note = "");
// check_setting for every integer setting of `groups` in `options`: a drafter's own check.
void check_drafter_settings(const DrafterOptions& options, uint32_t groups, std::string_view where);

}  // namespace draftbench
