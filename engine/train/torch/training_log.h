// Running tallies of the training metrics and their JSON form (train_log.json,
// train_epochs.jsonl, train_result.json, checkpoints). torch-free.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/train/drafter_training.h"

namespace draftbench {

// Per draft step (ReDrafter), head (Medusa) or the one prediction (EAGLE), over a batch.
struct StepTally {
  double loss_sum = 0;  // summed per-example loss
  int64_t count = 0, top1 = 0, top3 = 0, top5 = 0;
};

// A number as written by nlohmann::json, which writes NaN and infinities as null (a diverged
// loss): null reads back as NaN. Anything else but a number throws nlohmann::json::exception.
double json_number(const nlohmann::json& j);

// [{"loss", "top1", "top3", "top5", "count"}] per draft step: the one JSON shape of step
// metrics in train_log.json, train_epochs.jsonl and train_result.json.
nlohmann::json step_metrics_json(const std::vector<StepMetrics>& steps);

// Sums over batches: per draft step, the optimised loss, examples and extra sums.
class MetricTally {
 public:
  explicit MetricTally(int64_t n_steps = 0) : steps_(static_cast<size_t>(n_steps)) {}
  void add(const std::vector<StepTally>& steps, const std::map<std::string, double>& extras, double batch_loss, int64_t examples);
  bool empty() const { return batches_ == 0; }
  int64_t examples() const { return examples_; }
  // The objective as the trainer minimises it: the sum over steps of each step's mean loss.
  double loss() const;
  std::vector<StepMetrics> step_metrics() const;
  // {"loss", "mean_batch_loss", "examples", "steps": [{"loss", "top1", "top3", "top5", "count"}], extras as means}
  nlohmann::json to_json() const;
  // The exact sums, for a training checkpoint (train_checkpoint.h); null for an empty tally.
  // from_state(null) is empty; a malformed state throws nlohmann::json::exception.
  nlohmann::json state() const;
  static MetricTally from_state(const nlohmann::json& state, int64_t n_steps);

 private:
  struct Sums {
    double loss = 0;
    int64_t count = 0, top1 = 0, top3 = 0, top5 = 0;
  };
  std::vector<Sums> steps_;
  std::map<std::string, double> extras_;
  int64_t extra_count_ = 0;  // examples behind extras_ (the first step's count)
  double batch_loss_sum_ = 0;
  int64_t batches_ = 0, examples_ = 0;
};

// One line of train_epochs.jsonl: {"epoch", "step", "drafter", "per" ("head" for Medusa,
// else "step"), "train": MetricTally::to_json(), "valid": the same, "valid_top1": [...],
// "valid_top3": [...] per head or step, "seconds", "best": whether the validation loss is
// the lowest so far}. The tallies' JSON is the one train_log.json's "epochs" hold.
nlohmann::json epoch_record(const std::string& drafter, int64_t step, const MetricTally& train, const MetricTally& valid, const EpochSummary& summary,
                            bool best);
// The summary an epoch record was written from (a resumed run rebuilds its result so).
// Throws nlohmann::json::exception when the record lacks a field.
EpochSummary epoch_summary_from_record(const nlohmann::json& record);

}  // namespace draftbench
