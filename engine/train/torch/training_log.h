// Running tallies of the training metrics and their JSON form (train_log.json,
// train_result.json). torch-free.
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

// [{"loss", "top1", "top3", "top5", "count"}] per draft step: the one JSON shape of step metrics in
// train_log.json and train_result.json.
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

}  // namespace draftbench
