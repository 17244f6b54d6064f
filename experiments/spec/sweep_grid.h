// Expanding a spec's sweep into the points to run: the grid of its axes (zip groups
// advance together), exclusions dropped, each point reduced to the parameters its drafter
// reads (so "autoregressive at beam width 4" and "at 8" are one point), and the
// autoregressive baseline every speedup needs added before the first point that uses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/spec/experiment_spec.h"

namespace draftbench {

struct SweepPoint {
  std::string dataset;          // DatasetSpec::name
  std::string drafter;          // DrafterSpec::name
  std::string kind;             // its kind
  nlohmann::json params;        // the axes this drafter reads, defaults filled in (drafter included)
  std::string baseline;         // key() of the autoregressive point its speedup divides by; empty for that point itself
  bool added_baseline = false;  // not in the grid: added because a speedup needs it

  // The point's identity in results files: dataset and params as canonical JSON.
  std::string key() const;
  nlohmann::json to_json() const;
};

// The most grid points (the product of the swept dimensions and the datasets, before
// exclusions) a sweep may plan without `run --max-points`. Each point is a measurement of
// seconds to minutes; a grid past this is a typo, and expanding 10^14 points never ends.
inline constexpr uint64_t kDefaultMaxPoints = 100000;

// The grid's size as planned, before expansion (saturating at UINT64_MAX).
uint64_t planned_grid_points(const ExperimentSpec& spec);

// Throws InputError (naming the spec file) when the planned grid exceeds `max_points`
// (checked before anything is expanded) or exclusions leave nothing to run.
std::vector<SweepPoint> expand_sweep(const ExperimentSpec& spec, uint64_t max_points = kDefaultMaxPoints);

// The sweep axes a drafter reads: those whose readers (axis_table.h) its kind's
// `reads` names, in expansion order.
std::vector<std::string> axes_read_by(const DrafterSpec& drafter);

}  // namespace draftbench
