// The fit behind a drafter's measured propose times (engine/drafters/draft_timing.h), and
// its place in the cost model's JSON. No clock is read here: the samples are synthetic.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <vector>

#include "engine/common/error.h"
#include "engine/drafters/draft_timing.h"
#include "tests/support/cost_curves.h"

using namespace draftbench;

namespace {

std::vector<DraftTimingSample> samples_of(const DraftTiming& truth) {
  std::vector<DraftTimingSample> samples;
  for (int32_t passes = 1; passes <= 5; ++passes)
    for (int32_t width : {1, 2, 4, 8}) {
      DraftTimingSample s;
      s.work = DraftWork{passes, passes * width, 1 + (passes - 1) * width};
      s.estimate_s = 5e-5 * passes * passes;  // grows with the work, but not in proportion to any of it
      s.measured_s = truth.seconds(s.estimate_s, s.work.passes, s.work.tokens, s.work.rows);
      samples.push_back(s);
    }
  return samples;
}

}  // namespace

TEST_CASE("draft timing: the fit recovers non-negative coefficients exactly", "[sizing]") {
  const DraftTiming truth{2e-5, 0.0, 3e-5, 0.0, 1e-4};  // per pass and per row, as a beam drafter
  const DraftTiming fit = fit_draft_timing(samples_of(truth));
  CHECK(fit.fixed_s == Approx(truth.fixed_s).margin(1e-9));
  CHECK(fit.per_pass_s == Approx(truth.per_pass_s).margin(1e-9));
  CHECK(fit.per_row_s == Approx(truth.per_row_s).margin(1e-9));
  CHECK(fit.per_estimate == Approx(0.0).margin(1e-6));
  CHECK(fit.per_token_s == Approx(0.0).margin(1e-9));
}

TEST_CASE("draft timing: a term the data would make negative is left out", "[sizing]") {
  // Times that shrink with the rows: an unconstrained fit gives a negative per-row cost.
  std::vector<DraftTimingSample> samples;
  for (int32_t rows = 1; rows <= 8; ++rows) samples.push_back(DraftTimingSample{0.0, DraftWork{1, 0, rows}, 1e-3 - 1e-5 * rows});
  const DraftTiming fit = fit_draft_timing(samples);
  for (double c : {fit.fixed_s, fit.per_estimate, fit.per_pass_s, fit.per_token_s, fit.per_row_s}) CHECK(c >= 0);
  CHECK(fit.per_row_s == 0);
  // A constant time (here on a pass that is always 1) predicts the mean.
  CHECK(fit.seconds(0.0, 1, 0, 4) == Approx(1e-3 - 1e-5 * 4.5).margin(1e-9));
}

TEST_CASE("draft timing: kept in the cost model's JSON, negative coefficients refused", "[sizing]") {
  CostModel m = draftbench::test::linear_cost(0.010, 0.001);
  m.drafters["eagle@abc"] = DraftTiming{1e-5, 0.5, 2e-5, 3e-4, 4e-6};
  const CostModel back = CostModel::from_json(m.to_json(), "x");
  REQUIRE(back.drafters.count("eagle@abc") == 1);
  CHECK(back.drafters.at("eagle@abc").per_token_s == 3e-4);
  nlohmann::json bad = m.to_json();
  bad["drafters"]["eagle@abc"]["per_row_s"] = -1.0;
  CHECK_THROWS_AS(CostModel::from_json(bad, "x"), InputError);
  bad = m.to_json();
  bad["drafters"]["eagle@abc"].erase("per_pass_s");
  CHECK_THROWS_AS(CostModel::from_json(bad, "x"), InputError);
  // A cache written before drafters were timed still loads, with none timed.
  nlohmann::json old = m.to_json();
  old.erase("drafters");
  CHECK(CostModel::from_json(old, "x").drafters.empty());
}
