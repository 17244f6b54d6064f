#include "engine/train/torch/training_log.h"

#include <algorithm>
#include <limits>

#include "engine/drafters/drafter_registry.h"

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

double json_number(const nlohmann::json& j) { return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>(); }

nlohmann::json MetricTally::state() const {
  if (empty()) return nullptr;
  nlohmann::json steps = nlohmann::json::array();
  for (const Sums& s : steps_) steps.push_back({s.loss, s.count, s.top1, s.top3, s.top5});
  return {{"steps", steps},      {"extras", extras_},    {"extra_count", extra_count_}, {"batch_loss_sum", batch_loss_sum_},
          {"batches", batches_}, {"examples", examples_}};
}

MetricTally MetricTally::from_state(const nlohmann::json& state, int64_t n_steps) {
  MetricTally t(n_steps);
  if (state.is_null()) return t;
  const nlohmann::json& steps = state.at("steps");
  t.steps_.resize(std::max(t.steps_.size(), steps.size()));
  for (size_t i = 0; i < steps.size(); ++i) {
    const nlohmann::json& s = steps.at(i);
    t.steps_[i] = Sums{json_number(s.at(0)), s.at(1).get<int64_t>(), s.at(2).get<int64_t>(), s.at(3).get<int64_t>(), s.at(4).get<int64_t>()};
  }
  for (const auto& [name, value] : state.at("extras").items()) t.extras_[name] = json_number(value);
  t.extra_count_ = state.at("extra_count").get<int64_t>();
  t.batch_loss_sum_ = json_number(state.at("batch_loss_sum"));
  t.batches_ = state.at("batches").get<int64_t>();
  t.examples_ = state.at("examples").get<int64_t>();
  return t;
}

namespace {

// What one entry of valid_top1 / valid_top3 measures: a head (Medusa) or a draft step.
const char* per_what(const std::string& drafter) {
  const DrafterKind* kind = find_drafter_kind(drafter);
  return kind && kind->training && kind->training->steps == TrainingNet::Steps::heads ? "head" : "step";
}

}  // namespace

nlohmann::json epoch_record(const std::string& drafter, int64_t step, const MetricTally& train, const MetricTally& valid, const EpochSummary& summary,
                            bool best) {
  nlohmann::json top1 = nlohmann::json::array(), top3 = nlohmann::json::array();
  for (const StepMetrics& m : summary.valid_steps) {
    top1.push_back(m.top1);
    top3.push_back(m.top3);
  }
  return {{"epoch", summary.epoch},   {"step", step},       {"drafter", drafter}, {"per", per_what(drafter)},   {"train", train.to_json()},
          {"valid", valid.to_json()}, {"valid_top1", top1}, {"valid_top3", top3}, {"seconds", summary.seconds}, {"best", best}};
}

EpochSummary epoch_summary_from_record(const nlohmann::json& record) {
  auto steps_of = [](const nlohmann::json& tally) {
    std::vector<StepMetrics> out;
    for (const nlohmann::json& s : tally.at("steps"))
      out.push_back(StepMetrics{json_number(s.at("loss")), json_number(s.at("top1")), json_number(s.at("top3")), json_number(s.at("top5")),
                                s.at("count").get<int64_t>()});
    return out;
  };
  const nlohmann::json &train = record.at("train"), &valid = record.at("valid");
  return EpochSummary{record.at("epoch").get<int>(),    json_number(train.at("loss")), json_number(valid.at("loss")), steps_of(train), steps_of(valid),
                      json_number(record.at("seconds"))};
}

}  // namespace draftbench
