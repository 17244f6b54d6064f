// Spec validation (experiments/spec): every malformed spec in bad_specs/ is rejected with
// an InputError that starts with the spec's path, names the line where the parser has one,
// and says what was expected; good specs load, a JSON spec means exactly what its YAML twin
// means, and ranges expand as written.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/synthetic_model.h"
#include "experiments/spec/experiment_spec.h"
#include "experiments/spec/sweep_grid.h"

namespace {

namespace fs = std::filesystem;
using draftbench::ExperimentSpec;
using draftbench::InputError;
using draftbench::SweepPoint;

const std::string kRoot = DRAFTBENCH_SOURCE_DIR;
const std::string kModel = DRAFTBENCH_TEST_MODEL;
const fs::path kBadSpecs = fs::path(kRoot) / "tests" / "experiments" / "bad_specs";

// Fewer would mean the directory was not found or lost its cases.
constexpr size_t kMinBadSpecs = 24;

ExperimentSpec load(const fs::path& spec) { return draftbench::load_experiment_spec(spec.string(), kRoot, kModel); }

// What a bad spec must be rejected with: "# expect: <substring>" on its first line and an
// optional "# expect-line: N" on its second. JSON holds no comments, so x.json keeps them
// in x.expect beside it.
struct Expectation {
  std::string message;
  std::optional<int> line;
};

Expectation read_expectation(const fs::path& spec) {
  const fs::path source = spec.extension() == ".json" ? fs::path(spec).replace_extension(".expect") : spec;
  std::ifstream in(source);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  const std::string expect = "# expect: ", expect_line = "# expect-line: ";
  Expectation e;
  if (first.rfind(expect, 0) == 0) e.message = first.substr(expect.size());
  if (second.rfind(expect_line, 0) == 0) e.line = std::stoi(second.substr(expect_line.size()));
  return e;
}

std::vector<fs::path> bad_specs() {
  std::vector<fs::path> out;
  if (!fs::is_directory(kBadSpecs)) return out;
  for (const auto& entry : fs::directory_iterator(kBadSpecs)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".yaml" || ext == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Loads and expands (exclusions that leave nothing show only then); the InputError's
// message, or nothing when the spec was accepted. Any other exception escapes: a bad spec
// must never surface as a parser's or a JSON library's internal error.
std::optional<std::string> rejection(const fs::path& spec) {
  try {
    draftbench::expand_sweep(load(spec));
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

// "<path>: line N key ..." or "<path>: line N: ..." (a YAML syntax error has no key).
bool names_line(const std::string& message, const std::string& path, int line) {
  const std::string prefix = path + ": line " + std::to_string(line);
  return message.rfind(prefix, 0) == 0 && message.size() > prefix.size() && (message[prefix.size()] == ' ' || message[prefix.size()] == ':');
}

// A scratch directory for specs written by the tests (never into the source tree).
class ScratchDir {
 public:
  ScratchDir() : path_(fs::temp_directory_path() / ("draftbench_spec_test_" + std::to_string(::getpid()))) { fs::create_directories(path_); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p;
  }

 private:
  fs::path path_;
};

std::vector<nlohmann::json> points_json(const std::vector<SweepPoint>& points) {
  std::vector<nlohmann::json> out;
  for (const SweepPoint& p : points) out.push_back(p.to_json());
  return out;
}

// Several drafters, a range, a zip group, an exclusion and every top-level scalar, as YAML
// and as the JSON a generator would write for it.
const char* const kSmallYaml = R"(schema_version: 1
name: small
description: a small sweep, written twice
threads: 2
chat: false
datasets:
  - name: mt
    path: datasets/mt_bench_style/question.jsonl
    categories: [writing, coding]
    limit: 4
drafters:
  rd: {kind: redrafter, top_k_warp: 50}
sweep:
  drafter: [autoregressive, rd]
  temperature: [0, 1]
  beam_width: {from: 2, to: 4}
  batch_size: [1, 2, 4]
  zip: [[beam_width, batch_size]]
  exclude:
    - {drafter: rd, temperature: 1, beam_width: 4}
repeats: 2
warmup: 0
memory_budget: 2GiB
time_limit: 90s
)";

const char* const kSmallJson = R"({
  "schema_version": 1,
  "name": "small",
  "description": "a small sweep, written twice",
  "threads": 2,
  "chat": false,
  "datasets": [{"name": "mt", "path": "datasets/mt_bench_style/question.jsonl", "categories": ["writing", "coding"], "limit": 4}],
  "drafters": {"rd": {"kind": "redrafter", "top_k_warp": 50}},
  "sweep": {
    "drafter": ["autoregressive", "rd"],
    "temperature": [0, 1],
    "beam_width": {"from": 2, "to": 4},
    "batch_size": [1, 2, 4],
    "zip": [["beam_width", "batch_size"]],
    "exclude": [{"drafter": "rd", "temperature": 1, "beam_width": 4}]
  },
  "repeats": 2,
  "warmup": 0,
  "memory_budget": "2GiB",
  "time_limit": "90s"
}
)";

}  // namespace

TEST_CASE("every bad spec is rejected with its file, line, key and what was expected", "[spec]") {
  const std::vector<fs::path> specs = bad_specs();
  INFO("bad specs in " << kBadSpecs.string());
  REQUIRE(specs.size() >= kMinBadSpecs);
  for (const fs::path& spec : specs) {
    const Expectation expected = read_expectation(spec);
    INFO("spec " << spec.filename().string());
    // CHECK, not REQUIRE, so one broken case does not hide the ones after it.
    if (expected.message.empty()) {
      FAIL_CHECK("no \"# expect: \" line: the case would check nothing");
      continue;
    }
    const std::optional<std::string> message = rejection(spec);
    if (!message) {
      FAIL_CHECK("accepted, but expected: " << expected.message);
      continue;
    }
    INFO("message: " << *message);
    CHECK(message->rfind(spec.string() + ": ", 0) == 0);
    CHECK(message->find(expected.message) != std::string::npos);
    if (expected.line) CHECK(names_line(*message, spec.string(), *expected.line));
  }
}

TEST_CASE("a spec file that is not there is an InputError naming it", "[spec]") {
  const fs::path missing = kBadSpecs / "no_such_spec.yaml";
  REQUIRE_THROWS_MATCHES(load(missing), InputError, Catch::Message(missing.string() + ": cannot open the experiment spec: No such file or directory"));
}

TEST_CASE("the quickstart spec loads, with the shipped drafters and its baselines", "[spec]") {
  const ExperimentSpec spec = load(fs::path(kRoot) / "experiments" / "quickstart.yaml");
  CHECK(spec.name == "quickstart");
  CHECK(spec.paper_table == "table1");
  CHECK(spec.default_model);
  CHECK(spec.model == kModel);
  CHECK(spec.time_limit_s == 300.0);
  REQUIRE(spec.datasets.size() == 1);
  CHECK(spec.datasets[0].limit_per_category == 2);
  CHECK(fs::exists(spec.datasets[0].path));
  for (const char* kind : {"medusa", "eagle", "redrafter"}) CHECK(fs::path(spec.drafter(kind).weights) == fs::path(kRoot) / "models" / "drafters" / kind);
  // The hybrid reads Medusa's shipped weights; the n-gram drafter has none.
  CHECK(fs::path(spec.drafter("medusa+ngram").weights) == fs::path(kRoot) / "models" / "drafters" / "medusa");
  CHECK(spec.drafter("ngram").weights.empty());
  CHECK(spec.sweep.axes.at("max_new_tokens").size() == 1);  // one length for every point

  // 6 drafters x 2 temperatures; the autoregressive points are in the grid already, so no
  // baseline is added, and each comes before the points that divide by it.
  const std::vector<SweepPoint> points = draftbench::expand_sweep(spec);
  REQUIRE(points.size() == 12);
  std::vector<std::string> seen;
  for (const SweepPoint& p : points) {
    CHECK_FALSE(p.added_baseline);
    if (p.kind == "autoregressive") {
      CHECK(p.baseline.empty());
    } else {
      CHECK(std::find(seen.begin(), seen.end(), p.baseline) != seen.end());
    }
    seen.push_back(p.key());
  }
}

TEST_CASE("the n-gram drafter runs in a spec with no weights, even with another model", "[spec]") {
  const ScratchDir dir;
  const fs::path model = dir.write("tiny.gguf", "");
  draftbench::write_synthetic_model(*draftbench::find_model_recipe("gemma3-tiny"), 1, model.string());
  const ExperimentSpec spec =
      load(dir.write("ngram.yaml", "schema_version: 1\nname: ngram\nmodel: " + model.string() + "\ndatasets:\n  - {name: mt, path: " + kRoot +
                                       "/datasets/mt_bench_style/question.jsonl, limit: 1}\nsweep:\n  drafter: [ngram]\n"));
  CHECK_FALSE(spec.default_model);
  CHECK(spec.drafter("ngram").kind == "ngram");
  CHECK(spec.drafter("ngram").weights.empty());
  const std::vector<SweepPoint> points = draftbench::expand_sweep(spec);
  REQUIRE(points.size() == 2);  // the autoregressive baseline is added
  CHECK(points[1].kind == "ngram");
}

TEST_CASE("a JSON spec means exactly what its YAML twin means", "[spec]") {
  const ScratchDir dir;
  const ExperimentSpec from_yaml = load(dir.write("small.yaml", kSmallYaml));
  const ExperimentSpec from_json = load(dir.write("small.json", kSmallJson));
  CHECK(from_yaml.source == from_json.source);
  nlohmann::json resolved_yaml = draftbench::resolved_spec_json(from_yaml), resolved_json = draftbench::resolved_spec_json(from_json);
  resolved_yaml.erase("file");
  resolved_json.erase("file");
  CHECK(resolved_yaml == resolved_json);

  const std::vector<SweepPoint> points = draftbench::expand_sweep(from_yaml);
  CHECK(points_json(points) == points_json(draftbench::expand_sweep(from_json)));
  // (temperature) x (beam_width, batch_size zipped) for each drafter: autoregressive reads
  // no beam width, so its 6 are all distinct by batch size; rd's 6 less the one excluded.
  CHECK(points.size() == 11);
  CHECK(from_yaml.memory_budget_bytes == 2ull << 30);
  CHECK(from_yaml.time_limit_s == 90.0);
  CHECK(from_yaml.drafter("rd").settings["top_k_warp"] == 50);
  for (const SweepPoint& p : points) CHECK_FALSE((p.drafter == "rd" && p.params["temperature"] == 1.0 && p.params["beam_width"] == 4));
}

TEST_CASE("ranges expand to every value from `from` to `to` inclusive", "[spec]") {
  const ScratchDir dir;
  const ExperimentSpec spec = load(dir.write("ranges.yaml", R"(schema_version: 1
datasets:
  - {name: mt, path: datasets/mt_bench_style/question.jsonl}
sweep:
  drafter: [autoregressive, redrafter]
  batch_size: {from: 1, to: 4}
  temperature: {from: 0, to: 1, step: 0.5}
  beam_width: {from: 2, to: 8, step: 2}
  beam_length: {from: 1, to: 4, step: 2}
)"));
  const auto& axes = spec.sweep.axes;
  CHECK(axes.at("batch_size") == std::vector<nlohmann::json>{1, 2, 3, 4});
  for (const nlohmann::json& v : axes.at("batch_size")) CHECK(v.is_number_integer());
  CHECK(axes.at("temperature") == std::vector<nlohmann::json>{0.0, 0.5, 1.0});
  for (const nlohmann::json& v : axes.at("temperature")) CHECK(v.is_number_float());
  CHECK(axes.at("beam_width") == std::vector<nlohmann::json>{2, 4, 6, 8});
  CHECK(axes.at("beam_length") == std::vector<nlohmann::json>{1, 3});  // `to` need not be reached

  // Autoregressive reads batch size and temperature only: 4 x 3 points; ReDrafter also
  // reads both beam axes: 4 x 3 x 4 x 2.
  const std::vector<SweepPoint> points = draftbench::expand_sweep(spec);
  CHECK(std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return p.kind == "autoregressive"; }) == 12);
  CHECK(std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return p.kind == "redrafter"; }) == 96);
}

TEST_CASE("a float range gives the values as written, not accumulated rounding error", "[spec]") {
  const ScratchDir dir;
  const ExperimentSpec spec = load(dir.write("tenths.yaml", R"(schema_version: 1
datasets: [{name: mt, path: datasets/mt_bench_style/question.jsonl}]
sweep: {drafter: autoregressive, temperature: {from: 0, to: 1, step: 0.1}}
)"));
  // 3 * 0.1 is 0.30000000000000004 in doubles; a point keyed so would match no --only.
  CHECK(spec.sweep.axes.at("temperature") == std::vector<nlohmann::json>{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0});
}

TEST_CASE("an EAGLE static tree loads with a tree axis and reads it instead of the dynamic-tree axes", "[spec]") {
  const ScratchDir dir;
  const ExperimentSpec spec = load(dir.write("static.yaml", R"(schema_version: 1
datasets: [{name: mt, path: datasets/mt_bench_style/question.jsonl}]
drafters: {eagle_static: {kind: eagle, eagle_static_tree: true}}
sweep: {drafter: eagle_static, tree: experiments/trees/medusa_cpu_15.json, depth: [3, 5]}
)"));
  const std::vector<SweepPoint> points = draftbench::expand_sweep(spec);
  REQUIRE(points.size() == 2);  // the baseline and one EAGLE point: it reads no depth
  CHECK(points[0].added_baseline);
  CHECK(fs::path(points[1].params["tree"].get<std::string>()) == fs::path(kRoot) / "experiments" / "trees" / "medusa_cpu_15.json");
  CHECK_FALSE(points[1].params.contains("depth"));
}

TEST_CASE("the report schema lists exactly the drafter kinds of the kind table", "[spec]") {
  std::ifstream f(std::string(kRoot) + "/reports/schema/report.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(f);
  std::vector<std::string> in_schema;
  // The one `kind` enum: a report point's drafter kind.
  const std::function<void(const nlohmann::json&)> find = [&](const nlohmann::json& j) {
    if (j.is_object()) {
      if (j.contains("kind") && j["kind"].is_object() && j["kind"].contains("enum")) in_schema = j["kind"]["enum"].get<std::vector<std::string>>();
      for (const auto& [key, value] : j.items()) find(value);
    } else if (j.is_array()) {
      for (const auto& value : j) find(value);
    }
  };
  find(schema);
  std::vector<std::string> in_table;
  for (const draftbench::DrafterKind& k : draftbench::drafter_kinds()) in_table.emplace_back(k.name);
  CHECK(in_schema == in_table);
}
