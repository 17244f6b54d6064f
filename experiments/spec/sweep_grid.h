// Expanding a spec's sweep into the points to run: the grid of its axes (zip groups
// advance together), exclusions dropped, each point reduced to the parameters its drafter
// reads (so "autoregressive at beam width 4" and "at 8" are one point), and the
// autoregressive baseline every speedup needs added before the first point that uses it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/spec/experiment_spec.h"

namespace draftbench {

struct SweepPoint {
  std::string dataset;     // DatasetSpec::name
  std::string drafter;     // DrafterSpec::name
  std::string kind;        // its kind
  nlohmann::json params;   // the axes this drafter reads, defaults filled in (drafter included)
  std::string baseline;    // key() of the autoregressive point its speedup divides by; empty for that point itself
  bool added_baseline = false;  // not in the grid: added because a speedup needs it

  // The point's identity in results files: dataset and params as canonical JSON.
  std::string key() const;
  nlohmann::json to_json() const;
};

// Throws InputError (naming the spec file) when exclusions leave nothing to run.
std::vector<SweepPoint> expand_sweep(const ExperimentSpec& spec);

// The axes a drafter of this kind reads (drafter, temperature, batch_size, max_new_tokens
// and seed for all; beam and tree axes for those that use them).
std::vector<std::string> axes_read_by(const DrafterSpec& drafter);

}  // namespace draftbench
