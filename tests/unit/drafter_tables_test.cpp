// The drafter registry and the axis table (engine/drafters/drafter_registry.h,
// axis_table.h): each entry is whole and consistent with the others, and the derived
// views (hybrids, axes a kind reads, defaults, range messages) are what the CLI, the specs
// and the sweeps rely on.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "engine/common/error.h"
#include "engine/drafters/axis_table.h"
#include "engine/drafters/drafter_registry.h"

using namespace draftbench;
using Catch::Matchers::Contains;

TEST_CASE("drafter registry: names are unique, hybrids follow their model kinds", "[registry]") {
  std::set<std::string> names;
  for (const DrafterKind& k : drafter_kinds()) {
    CHECK(names.insert(k.name).second);
    REQUIRE(k.make != nullptr);
    REQUIRE(k.reads != nullptr);
    CHECK((k.reads(DrafterOptions{}) & kEveryDrafter) != 0);
    const DrafterKind* model = find_drafter_kind(k.weights_of);
    REQUIRE(model != nullptr);
    if (k.with_lookup) {
      CHECK(std::string(k.name) == std::string(model->name) + "+ngram");
      CHECK(model->pairs_with_lookup);
      CHECK(k.estimate == model->estimate);
    }
    // A kind with weights of its own says how its drafter.json reads.
    if (k.write_random) CHECK_FALSE(k.config_keys.empty());
  }
  CHECK(known_drafters() == "autoregressive, medusa, eagle, redrafter, ngram, medusa+ngram, eagle+ngram, redrafter+ngram");
  CHECK(checkpoint_kinds() == "medusa, eagle, redrafter");
  CHECK(trainable_kinds() == "medusa, eagle, redrafter");
  CHECK(drafter_weights_kind("eagle+ngram") == "eagle");
}

TEST_CASE("axis table: names unique, defaults inside their ranges, sweep axes first", "[registry]") {
  std::set<std::string> names, labels, flags;
  bool past_axes = false;
  for (const Setting& s : settings()) {
    CHECK(names.insert(s.name).second);
    if (s.label) CHECK(labels.insert(s.label).second);
    if (s.cli_flag) CHECK(flags.insert(s.cli_flag).second);
    CHECK_FALSE((past_axes && s.sweep_axis));
    past_axes = past_axes || !s.sweep_axis;
    if (s.type == SettingType::integer || s.type == SettingType::number) {
      const nlohmann::json d = setting_default(s);
      CHECK_FALSE(range_problem(s, d.get<double>()).has_value());
      CHECK(s.lo <= s.hi);
    }
  }
  CHECK(setting_default(setting("tree")) == "shipped");
  CHECK(setting_default(setting("sizing")) == "auto");
  CHECK(is_sweep_axis("total_tokens"));
  CHECK_FALSE(is_sweep_axis("top_k_warp"));
}

TEST_CASE("axis table: one message for a value out of range", "[registry]") {
  CHECK(range_problem(setting("total_tokens"), 1) == "expected an integer in [2, 4096], got 1");
  CHECK(range_problem(setting("temperature"), -1) == "expected a number in [0, 100], got -1");
  DrafterOptions o;
  o.beam_width = 0;
  CHECK_THROWS_WITH(check_drafter_settings(o, kBeams, "drafter redrafter"),
                    Contains("drafter redrafter: option 'beam_width' (--beam-width): expected an integer in [1, 1024], got 0"));
}

TEST_CASE("axis table and registry: the axes each kind's points carry", "[registry]") {
  auto axes = [](const char* kind, bool static_tree = false) {
    DrafterOptions o;
    o.eagle_static_tree = static_tree;
    const uint32_t reads = find_drafter_kind(kind)->reads(o);
    std::string out;
    for (const Setting& s : settings())
      if (s.sweep_axis && (s.readers & reads)) {
        if (!out.empty()) out += ' ';
        out += s.name;
      }
    return out;
  };
  CHECK(axes("autoregressive") == "drafter temperature batch_size max_new_tokens seed");
  CHECK(axes("ngram") == "drafter temperature batch_size max_new_tokens seed");
  CHECK(axes("redrafter") == "drafter temperature batch_size beam_width beam_length tree_attention sizing distilled max_new_tokens seed");
  CHECK(axes("medusa+ngram") == "drafter temperature batch_size tree sizing distilled max_new_tokens seed");
  CHECK(axes("eagle") == "drafter temperature batch_size depth top_k total_tokens sizing distilled max_new_tokens seed");
  CHECK(axes("eagle", true) == "drafter temperature batch_size tree sizing distilled max_new_tokens seed");
}
