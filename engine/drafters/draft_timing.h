// How long a drafter's propose really takes on this machine, against its own estimate.
//
// Drafter::draft_seconds estimates a propose from its work in the target's measured costs;
// automatic sizing (sized_drafter.h) weighs that against what the draft is expected to save.
// The estimate only counts the drafter's large matrix products, so on a small target it can
// be several times short, and its error grows with the draft's width. measure_draft_timing
// runs the drafter for real on a synthetic context, at draft shapes from a single node to
// the whole draft, and fits DraftTiming's non-negative coefficients to the times.
// The fit is cached with the target's cost model (one entry per drafter kind and weights),
// so sizing depends on the cache and the tokens only, and a run repeats exactly.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "engine/decoding/cost_model.h"
#include "engine/decoding/drafter.h"
#include "engine/model/model_config.h"

namespace draftbench {

struct DraftTimingSample {
  double estimate_s = 0;
  DraftWork work;
  double measured_s = 0;
};

// Non-negative least squares over the samples: of every subset of DraftTiming's terms whose
// unconstrained fit has no negative coefficient, the one with the smallest squared error
// (the true non-negative optimum is one of them). Terms left out are 0.
DraftTiming fit_draft_timing(std::span<const DraftTimingSample> samples);

// Times `drafter` (reset, begun on a random prompt, then propose/accept steps at a range of
// limit_draft shapes); leaves it reset for one sequence. Takes well under a second.
DraftTiming measure_draft_timing(Drafter& drafter, const CostModel& cost, const ModelConfig& config);

// What DrafterOptions::time_drafter does for a run whose cost model is cached under `key`:
// a drafter's timing from `cost` or the cache, else measured (one line to `note`) and added
// to the cache. The identity is the drafter's name and its weights directory's identity.
using DraftTimer = std::function<DraftTiming(Drafter& model, const std::string& weights_dir)>;
DraftTimer cached_draft_timer(const CostKey& key, std::shared_ptr<const CostModel> cost, const ModelConfig& config,
                              std::function<void(const std::string&)> note);

}  // namespace draftbench
