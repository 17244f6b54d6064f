// Draft sizing on synthetic cost models: where verifying another token is expensive the
// chosen drafts are short, where it is nearly free (a GPU- or AMX-like curve) they are
// long, and a drafter whose drafts are never accepted gets autoregressive steps. And the
// cost-model cache: keyed by model, CPU, threads and device; a stale or corrupt file is
// reported and never used.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/decoding/cost_model.h"
#include "engine/decoding/draft_sizing.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;

namespace {

// A step of n tokens costs base + per_token * (n - 1) in the forward and in the head alike.
CostModel linear_cost(double base, double per_token) {
  CostModel m;
  m.context = 256;
  for (int32_t n = 1; n <= 64; n *= 2) {
    m.sizes.push_back(n);
    m.forward_s.push_back(base + per_token * (n - 1));
    m.head_s.push_back(base / 2 + per_token * (n - 1));
  }
  return m;
}

// Feeds `steps` chains of `offered` tokens that were accepted `accepted` deep.
void feed(ChainSizer& s, int steps, int32_t offered, int32_t accepted) {
  for (int i = 0; i < steps; ++i) s.observe(offered, accepted);
}

}  // namespace

TEST_CASE("sizing: expensive rows give short drafts, cheap rows long ones", "[sizing]") {
  ChainSizer cpu(linear_cost(0.010, 0.004), 32), gpu(linear_cost(0.010, 0.00005), 32);
  // Chains of 8 accepted 0..8 deep, equally often: a_k = (9 - k) / (10 - k).
  for (int i = 0; i < 90; ++i) {
    cpu.observe(8, i % 9);
    gpu.observe(8, i % 9);
  }
  const int32_t on_cpu = cpu.choose(), on_gpu = gpu.choose();
  INFO("cpu " << on_cpu << ", gpu " << on_gpu);
  CHECK(on_cpu >= 1);
  CHECK(on_cpu <= 4);
  CHECK(on_gpu >= 6);
  CHECK(on_gpu > on_cpu);
  CHECK(cpu.tokens_per_second(on_cpu) >= cpu.tokens_per_second(0));
}

TEST_CASE("sizing: drafts that are never accepted give autoregressive steps", "[sizing]") {
  ChainSizer s(linear_cost(0.010, 0.001), 32);
  CHECK(s.choose() > 0);  // the prior is worth a try
  feed(s, 60, 8, 0);
  CHECK(s.acceptance(1) < 0.1);
  CHECK(s.choose() == 0);
  // Acceptance coming back is followed: counts decay.
  feed(s, 60, 8, 8);
  CHECK(s.choose() > 0);
}

TEST_CASE("sizing: a verified token that costs as much as a step is never worth drafting", "[sizing]") {
  ChainSizer s(linear_cost(0.010, 0.030), 32);
  feed(s, 50, 8, 6);
  CHECK(s.choose() == 0);
}

TEST_CASE("sizing: expected tokens follow the observed acceptance by depth", "[sizing]") {
  ChainSizer s(linear_cost(0.010, 0.001), 8, 0.5);
  CHECK(s.expected_tokens(0) == 1.0);
  CHECK(s.expected_tokens(2) == Approx(1.0 + 0.5 + 0.25));
  feed(s, 200, 4, 4);
  CHECK(s.acceptance(1) > 0.95);
  CHECK(s.acceptance(5) == Approx(0.5));  // never offered: still the prior
}

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

TEST_CASE("cost model cache: keyed by model, CPU, threads and device; stale or corrupt is never used", "[sizing]") {
  const test::TempDir dir("cost_cache");
  const CostKey key{"abc", "cpu X", "cpu", 2};
  std::string why;
  CHECK_FALSE(load_cost_model(dir.str(), key, why));
  CHECK_THAT(why, Catch::Contains("no cost model"));
  store_cost_model(dir.str(), key, linear_cost(0.01, 0.001));
  REQUIRE(load_cost_model(dir.str(), key, why));
  for (CostKey other : {CostKey{"abd", "cpu X", "cpu", 2}, CostKey{"abc", "cpu Y", "cpu", 2}, CostKey{"abc", "cpu X", "cuda", 2},
                        CostKey{"abc", "cpu X", "cpu", 4}}) {
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
