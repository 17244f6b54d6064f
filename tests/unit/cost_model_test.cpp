// The cost model: interpolation, its JSON form, and its cache: keyed by model, CPU, threads
// and device; a stale or corrupt file is reported and never used. (Sizing drafts with it:
// tree_sizer_test.cpp.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/decoding/cost_model.h"
#include "tests/support/cost_curves.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;
using draftbench::test::linear_cost;

TEST_CASE("cost model: interpolation, JSON round trip, and malformed input rejected", "[sizing]") {
  const CostModel m = linear_cost(0.010, 0.001);
  CHECK(m.forward(1) == Approx(0.010));
  CHECK(m.forward(3) == Approx(0.012));
  CHECK(m.forward(128) == Approx(0.010 + 0.001 * 127));  // extrapolated
  const CostModel back = CostModel::from_json(m.to_json(), "x");
  CHECK(back.forward_s == m.forward_s);
  nlohmann::json bad = m.to_json();
  bad["sizes"][0] = 2;
  CHECK_THROWS_AS(CostModel::from_json(bad, "x"), InputError);
  bad = m.to_json();
  bad["head_s"][1] = -1.0;
  CHECK_THROWS_AS(CostModel::from_json(bad, "x"), InputError);
  bad = m.to_json();
  bad["version"] = 99;
  CHECK_THROWS_AS(CostModel::from_json(bad, "x"), InputError);
}

TEST_CASE("cost model: physically impossible times are refused (a larger tree far cheaper than one token)", "[sizing]") {
  const CostModel m = linear_cost(0.010, 0.001);
  nlohmann::json bad = m.to_json();
  for (size_t i = 1; i < bad["forward_s"].size(); ++i) bad["forward_s"][i] = 1e-12;
  CHECK_THROWS_WITH(CostModel::from_json(bad, "x"), Catch::Contains("expected forward_s to grow with the tree"));
  bad = m.to_json();
  bad["forward_s"][0] = 1e-12;
  CHECK_THROWS_WITH(CostModel::from_json(bad, "x"), Catch::Contains("at least 1 us"));
  bad = m.to_json();
  bad["head_s"][bad["head_s"].size() - 1] = 0.0;
  CHECK_THROWS_WITH(CostModel::from_json(bad, "x"), Catch::Contains("expected head_s to grow with the rows"));
  // Noise: a time a little under its predecessor's still loads.
  bad = m.to_json();
  bad["forward_s"][1] = bad["forward_s"][0].get<double>() * 0.9;
  CHECK_NOTHROW(CostModel::from_json(bad, "x"));
}

TEST_CASE("cost model: a head row's cost in passes is the mean row from one to eight, clamped", "[sizing]") {
  CostModel m = test::cost_curve(0.004, 0.005, 0.0005);  // head 5 ms + 0.5 ms a row
  CHECK(m.head_row_in_passes() == Approx(0.1));
  m = test::cost_curve(0.004, 0.005, 0.01);  // a row dearer than a pass
  CHECK(m.head_row_in_passes() == 1.0);
  m = test::cost_curve(0.004, 0.005, 0.0);  // free rows
  CHECK(m.head_row_in_passes() == 0.01);
}

TEST_CASE("cost model cache: keyed by model, CPU, threads, device and build, stale or corrupt is never used", "[sizing]") {
  const test::TempDir dir("cost_cache");
  const CostKey key{"abc", "cpu X", "cpu", 2, "b1"};
  std::string why;
  CHECK_FALSE(load_cost_model(dir.str(), key, why));
  CHECK_THAT(why, Catch::Contains("no cost model"));
  store_cost_model(dir.str(), key, linear_cost(0.01, 0.001));
  REQUIRE(load_cost_model(dir.str(), key, why));
  for (CostKey other : {CostKey{"abd", "cpu X", "cpu", 2, "b1"}, CostKey{"abc", "cpu Y", "cpu", 2, "b1"}, CostKey{"abc", "cpu X", "cuda", 2, "b1"},
                        CostKey{"abc", "cpu X", "cpu", 4, "b1"}, CostKey{"abc", "cpu X", "cpu", 2, "b2"}}) {
    CHECK(other.file_name() != key.file_name());
    CHECK_FALSE(load_cost_model(dir.str(), other, why));
  }
  const std::string path = dir / key.file_name();
  std::ofstream(path) << "{\"key\": " << key.to_json().dump() << ", \"model\": {\"version\": 1, \"sizes\": [1]";  // cut short
  CHECK_FALSE(load_cost_model(dir.str(), key, why));
  CHECK_THAT(why, Catch::Contains("corrupt"));
  // A file under this key's name that holds another key (renamed, copied): stale.
  std::ofstream(path) << nlohmann::json{{"key", CostKey{"zzz", "cpu X", "cpu", 2}.to_json()}, {"model", linear_cost(0.01, 0.001).to_json()}}.dump();
  CHECK_FALSE(load_cost_model(dir.str(), key, why));
  CHECK_THAT(why, Catch::Contains("another model"));
}
