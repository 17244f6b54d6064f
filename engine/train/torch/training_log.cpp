#include "engine/train/torch/training_log.h"

#include <algorithm>

namespace draftbench {

void MetricTally::add(const std::vector<StepTally>& steps, const std::map<std::string, double>& extras, double batch_loss, int64_t examples) {
  if (steps_.size() < steps.size()) steps_.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    steps_[i].loss += steps[i].loss_sum;
    steps_[i].count += steps[i].count;
    steps_[i].top1 += steps[i].top1;
    steps_[i].top3 += steps[i].top3;
    steps_[i].top5 += steps[i].top5;
  }
  for (const auto& [name, sum] : extras) extras_[name] += sum;
  if (!steps.empty()) extra_count_ += steps[0].count;
  batch_loss_sum_ += batch_loss;
  ++batches_;
  examples_ += examples;
}

double MetricTally::loss() const {
  double total = 0;
  for (const Sums& s : steps_)
    if (s.count > 0) total += s.loss / static_cast<double>(s.count);
  return total;
}

std::vector<StepMetrics> MetricTally::step_metrics() const {
  std::vector<StepMetrics> out;
  for (const Sums& s : steps_) {
    const double n = static_cast<double>(std::max<int64_t>(s.count, 1));
    out.push_back(StepMetrics{s.loss / n, static_cast<double>(s.top1) / n, static_cast<double>(s.top3) / n, static_cast<double>(s.top5) / n, s.count});
  }
  return out;
}

nlohmann::json step_metrics_json(const std::vector<StepMetrics>& steps) {
  nlohmann::json j = nlohmann::json::array();
  for (const StepMetrics& m : steps) j.push_back({{"loss", m.loss}, {"top1", m.top1}, {"top3", m.top3}, {"top5", m.top5}, {"count", m.positions}});
  return j;
}

nlohmann::json MetricTally::to_json() const {
  nlohmann::json j{{"loss", loss()},
                   {"mean_batch_loss", batches_ ? batch_loss_sum_ / static_cast<double>(batches_) : 0.0},
                   {"examples", examples_},
                   {"steps", step_metrics_json(step_metrics())}};
  for (const auto& [name, sum] : extras_) j[name] = extra_count_ ? sum / static_cast<double>(extra_count_) : 0.0;
  return j;
}

}  // namespace draftbench
