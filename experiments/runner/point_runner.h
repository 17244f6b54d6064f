// Running one sweep point: build its drafter, plan its memory, warm up, decode the
// dataset's conversations (batch by batch, turn by turn) `repeats` times through the one
// Decoder, and summarise what was measured as the point's results record.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/loaders/prompt_set.h"
#include "engine/drafters/axis_table.h"
#include "engine/model/model.h"
#include "engine/model/forward_pass.h"
#include "experiments/spec/experiment_spec.h"
#include "experiments/spec/sweep_grid.h"

namespace draftbench {

// What the engine is asked to run for a point: its params applied through the axis table
// over the defaults, the drafter's spec settings, the weights the `distilled` axis chooses.
PointSettings point_settings(const ExperimentSpec& spec, const SweepPoint& point);
DrafterOptions drafter_options(const ExperimentSpec& spec, const SweepPoint& point);

// Bytes of weights at `path`: a file's size, or a directory's *.safetensors; 0 if absent.
uint64_t bytes_on_disk(const std::string& path);

// The memory a point needs, planned from its shapes before it runs (the paper's Table 5
// marks configurations over the budget OOM the same way): mapped weights, drafter weights,
// the KV cache the Decoder will allocate, and the forward's scratch for the batch's trees.
struct MemoryPlan {
  uint64_t model_bytes = 0, drafter_bytes = 0, kv_bytes = 0, scratch_bytes = 0;
  uint64_t total() const { return model_bytes + drafter_bytes + kv_bytes + scratch_bytes; }
  nlohmann::json to_json() const;
};
MemoryPlan plan_memory(const Model& model, const DrafterOptions& drafter_options, int32_t max_tree_nodes, int batch_size, int64_t longest_prompt,
                       int max_new_tokens);

// Thrown out of a decode when the point's time limit passes.
struct PointTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PointContext {
  const ExperimentSpec& spec;
  const Model& model;
  ForwardPass& target;
  ThreadPool& pool;
  const DatasetSpec& dataset;
  const std::vector<PromptItem>& prompts;
  int64_t longest_first_prompt = 0;  // tokens of the dataset's longest first-turn prompt (memory planning)
  // Called before each batch with (decoded conversations-turns so far, total).
  std::function<void(int64_t, int64_t)> on_progress;
  // The target's cost model for auto draft sizing: obtained (loaded or measured) on the
  // first call, so a sweep hashes the model file once, not once per point.
  std::function<std::shared_ptr<const CostModel>()> cost_model;
  DraftTimer time_drafter;  // valid once cost_model() has been called
};

// Runs the point; returns the record's "status" ("ok", "oom") and measurements. Throws
// PointTimeout past the spec's time limit, InputError or other exceptions on failure (the
// sweep records those as "timeout" and "error").
nlohmann::json run_point(const PointContext& context, const SweepPoint& point);

}  // namespace draftbench
