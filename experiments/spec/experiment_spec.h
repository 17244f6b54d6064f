// An experiment spec (experiments/README.md documents every field): what to run — model,
// drafters, datasets, sweep axes — and how — repeats, warm-up, budgets. Read from YAML or
// JSON (one schema) and validated completely before anything runs: every problem is an
// InputError naming the file, the line, the key path and what was expected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/loaders/prompt_set.h"
#include "engine/drafters/axis_table.h"
#include "engine/model/forward_pass.h"

namespace draftbench {

struct DatasetSpec {
  std::string name;  // how reports label it (mt_bench, alpaca_eval, ...)
  std::string path;  // resolved against the spec's directory, then the checkout
  PromptFormat format = PromptFormat::detect;
  std::vector<std::string> categories;  // empty = all
  std::string split;                    // corpus files: train | heldout; empty = all
  int limit = 0;                        // first N prompts after filtering; 0 = all
  int limit_per_category = 0;           // first N of each category (applied before `limit`); 0 = all
  int turns = 1;                        // MT-Bench: turns run per question (later ones see the earlier answers)
};

struct DrafterSpec {
  std::string name;  // what the `drafter` axis names
  std::string kind;  // a name of drafter_kinds()
  // Weights directories for the `distilled` axis; empty = the shipped drafter for the
  // default model (models/drafters/<kind>, and <kind>-ground-truth for distilled: false).
  std::string weights, ground_truth_weights;
  // The axis table's settings a spec sets per drafter (Setting::spec_key), as given.
  nlohmann::json settings = nlohmann::json::object();

  // Its kind and settings applied over `point`.
  void apply(PointSettings& point) const;
  // Its kind and settings over the default options.
  DrafterOptions options() const;
};

struct SweepSpec {
  // Axis name -> its values, type-checked (numbers, booleans, strings as the axis needs).
  std::map<std::string, std::vector<nlohmann::json>> axes;
  std::vector<std::vector<std::string>> zip;  // each group's axes advance together
  std::vector<nlohmann::json> exclude;        // partial points (objects); a match is dropped
};

struct ExperimentSpec {
  std::string file;  // where it was read from (error messages, the report)
  std::string name, description;
  std::string model;                           // the model file or checkpoint directory
  bool default_model = false;                  // no `model` key: the default model (which the shipped drafters serve)
  int threads = 0;                             // 0 = all cores
  ForwardDevice device = ForwardDevice::kCpu;  // where the target's forward pass runs
  bool chat = true;                            // wrap prompts in the model's chat template
  std::vector<DatasetSpec> datasets;
  std::vector<DrafterSpec> drafters;  // those named in the spec plus the built-in kinds
  SweepSpec sweep;
  int repeats = 1;                   // each point's prompts decoded this many times (spread in the report)
  int warmup = 1;                    // prompts decoded before each point's measurement, not recorded
  bool baseline = true;              // add the autoregressive point every speedup needs
  uint64_t memory_budget_bytes = 0;  // 0 = no budget; over it = OOM, decided before running
  double time_limit_s = 0;           // per point; 0 = none
  std::string paper_table;           // table1, table4, table5, table6 (paper numbers beside ours), figure5, figure6, figure7 (the layout shown first)
  nlohmann::json source;             // the spec as read (for the report)

  // Throw InputError naming the spec file for a name it does not define.
  const DrafterSpec& drafter(const std::string& name) const;
  const DatasetSpec& dataset(const std::string& name) const;
};

// Reads and validates a spec. Relative paths (datasets, weights, trees, model) resolve
// against the spec file's directory first, then the checkout root (`root`), and must
// exist. Without a `model` key the spec runs `default_model`, and drafters without weights
// use the shipped ones (root/models/drafters/<kind>, <kind>-ground-truth).
ExperimentSpec load_experiment_spec(const std::string& path, const std::string& root, const std::string& default_model);

// The spec as it runs, for the report: paths resolved, defaults filled in.
nlohmann::json resolved_spec_json(const ExperimentSpec& spec);

}  // namespace draftbench
