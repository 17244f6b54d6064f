// Sweep expansion: the grid, zip groups, exclusions, parameters reduced to what each
// drafter reads, the autoregressive baselines, and --only / --shard selection.
#include <catch2/catch.hpp>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>

#include "engine/common/error.h"
#include "engine/model/model_aliases.h"
#include "experiments/runner/sweep_runner.h"
#include "experiments/spec/experiment_spec.h"
#include "experiments/spec/sweep_grid.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;

namespace {
ExperimentSpec spec_from(const test::TempDir& dir, const std::string& sweep, const std::string& extra = "") {
  const std::string path = dir / "spec.yaml";
  std::ofstream(path) << "schema_version: 1\nname: grid\ndatasets:\n  - {name: a, path: datasets/mt_bench_style/question.jsonl, limit: 2}\n"
                      << extra << "sweep:\n"
                      << sweep;
  return load_experiment_spec(path, DRAFTBENCH_SOURCE_DIR, DRAFTBENCH_TEST_MODEL);
}

std::vector<std::string> labels(const std::vector<SweepPoint>& points) {
  std::vector<std::string> out;
  for (const SweepPoint& p : points) out.push_back(p.params.dump());
  return out;
}
}  // namespace

TEST_CASE("sweep grid: the grid in axis order, each point reduced to what its drafter reads") {
  test::TempDir dir("grid_basic");
  const ExperimentSpec spec = spec_from(dir, "  drafter: [autoregressive, redrafter]\n  beam_width: [1, 2]\n  temperature: [0, 1]\n");
  const std::vector<SweepPoint> points = expand_sweep(spec);
  // autoregressive ignores beam_width: 2 points, not 4; redrafter: 2 x 2.
  REQUIRE(points.size() == 6);
  REQUIRE(labels(points)[0] == R"({"batch_size":1,"drafter":"autoregressive","max_new_tokens":128,"seed":0,"temperature":0.0})");
  // drafter outermost, then temperature, then beam_width (experiment_spec.h's axis order).
  REQUIRE(points[2].params["beam_width"] == 1);
  REQUIRE(points[2].params["temperature"] == 0.0);
  REQUIRE(points[3].params["beam_width"] == 2);
  REQUIRE(points[3].params["temperature"] == 0.0);
  REQUIRE(points[4].params["beam_width"] == 1);
  REQUIRE(points[4].params["temperature"] == 1.0);
  REQUIRE(points[2].params["beam_length"] == 5);  // the engine's default
  REQUIRE(points[2].baseline == points[0].key());
  REQUIRE(points[3].baseline == points[0].key());
  REQUIRE(points[4].baseline == points[1].key());
  for (const SweepPoint& p : points) REQUIRE_FALSE(p.added_baseline);
}

TEST_CASE("sweep grid: baselines are added before the first point that needs them") {
  test::TempDir dir("grid_baseline");
  const std::vector<SweepPoint> points = expand_sweep(spec_from(dir, "  drafter: [medusa]\n  batch_size: [1, 2]\n"));
  REQUIRE(points.size() == 4);
  REQUIRE(points[0].kind == "autoregressive");
  REQUIRE(points[0].added_baseline);
  REQUIRE(points[0].params["batch_size"] == 1);
  REQUIRE(points[1].baseline == points[0].key());
  REQUIRE(points[2].params["batch_size"] == 2);
  REQUIRE(points[3].baseline == points[2].key());
  SECTION("and not at all with baseline: false") {
    const std::vector<SweepPoint> none = expand_sweep(spec_from(dir, "  drafter: [medusa]\n  batch_size: [1, 2]\n", "baseline: false\n"));
    REQUIRE(none.size() == 2);
  }
}

TEST_CASE("sweep grid: zip groups advance together, exclusions drop matching points") {
  test::TempDir dir("grid_zip");
  const ExperimentSpec spec = spec_from(dir,
                                        "  drafter: [redrafter]\n  beam_width: [1, 2, 4]\n  batch_size: [4, 2, 1]\n  beam_length: [3, 5]\n"
                                        "  zip: [[beam_width, batch_size]]\n  exclude: [{beam_width: 4, beam_length: 5}]\n",
                                        "baseline: false\n");
  const std::vector<SweepPoint> points = expand_sweep(spec);
  REQUIRE(points.size() == 5);  // 3 zipped x 2 lengths, minus one
  std::set<std::pair<int, int>> pairs;
  for (const SweepPoint& p : points) {
    pairs.insert({p.params["beam_width"].get<int>(), p.params["batch_size"].get<int>()});
    REQUIRE_FALSE((p.params["beam_width"] == 4 && p.params["beam_length"] == 5));
  }
  REQUIRE(pairs == std::set<std::pair<int, int>>{{1, 4}, {2, 2}, {4, 1}});
}

TEST_CASE("sweep grid: --only keeps matching points and their baselines, shards partition the rest") {
  test::TempDir dir("grid_select");
  const ExperimentSpec spec = spec_from(dir, "  drafter: [autoregressive, medusa, redrafter]\n  temperature: [0, 1]\n");
  RunOptions o;
  o.only = "drafter=redrafter,temperature=0";
  const std::vector<SweepPoint> only = select_points(spec, o);
  REQUIRE(only.size() == 2);
  REQUIRE(only[0].kind == "autoregressive");
  REQUIRE(only[1].kind == "redrafter");
  o.only = "drafter=nothing";
  REQUIRE_THROWS_WITH(select_points(spec, o), Catch::Contains("matches none of the 6 points"));
  o.only = "colour=red";
  REQUIRE_THROWS_WITH(select_points(spec, o), Catch::Contains("unknown axis 'colour'"));

  o.only.clear();
  std::set<std::string> seen;
  size_t total = 0;
  for (int shard = 0; shard < 4; ++shard) {
    o.shard = shard;
    o.n_shards = 4;
    for (const SweepPoint& p : select_points(spec, o)) {
      REQUIRE(seen.insert(p.key()).second);
      ++total;
    }
  }
  REQUIRE(total == expand_sweep(spec).size());
}

TEST_CASE("sweep grid: every shipped spec loads, names its paper table, and expands to points with baselines") {
  const std::filesystem::path root(DRAFTBENCH_SOURCE_DIR);
  int specs = 0;
  for (const auto& dir : {root / "experiments", root / "experiments" / "paper"})
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".yaml") continue;
      INFO(e.path().string());
      ExperimentSpec spec;
      try {
        spec = load_experiment_spec(e.path().string(), DRAFTBENCH_SOURCE_DIR, DRAFTBENCH_TEST_MODEL);
      } catch (const InputError& error) {
        // A spec of an optional model (model_aliases.h) whose file this checkout lacks.
        REQUIRE_THAT(error.what(), Catch::Matchers::Contains("is not there (run scripts/setup.sh --model"));
        ++specs;
        continue;
      }
      const bool alias_model = std::any_of(model_aliases().begin(), model_aliases().end(), [&](const ModelAlias& a) {
        std::error_code ec;
        return std::filesystem::equivalent(spec.model, root / a.path, ec);
      });
      REQUIRE((spec.default_model || alias_model));
      if (dir.filename() == "paper") REQUIRE(e.path().stem().string().rfind(spec.paper_table, 0) == 0);
      const std::vector<SweepPoint> points = expand_sweep(spec);
      REQUIRE_FALSE(points.empty());
      std::set<std::string> keys;
      for (const SweepPoint& p : points) keys.insert(p.key());
      for (const SweepPoint& p : points)
        if (p.kind != "autoregressive") REQUIRE(keys.count(p.baseline) == 1);
      ++specs;
    }
  REQUIRE(specs == 9);  // quickstart, qwen_coder and the seven paper specs
}
