// The sampler's filtered target distribution against values worked out by hand: top-k,
// top-p (the nucleus of the whole distribution, also when cut to the top k), ties by id,
// and tokens far below the maximum left out.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/decoding/sampling.h"

using namespace draftbench;

namespace {

// (token, p) pairs of target_distribution, p within 1e-6 (the weights are float).
std::vector<std::pair<int32_t, double>> dist_of(const std::vector<float>& logits, SamplingParams params) {
  DistributionScratch scratch;
  target_distribution(logits, params, scratch);
  std::vector<std::pair<int32_t, double>> out;
  for (const TokenProb& tp : scratch.dist) out.emplace_back(tp.token, tp.p);
  return out;
}

void require_dist(const std::vector<std::pair<int32_t, double>>& got, const std::vector<std::pair<int32_t, double>>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("entry " << i);
    REQUIRE(got[i].first == want[i].first);
    REQUIRE(got[i].second == Approx(want[i].second).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("target distribution: top-k, top-p and both, by hand", "[sampling]") {
  // p = 0.4, 0.3, 0.2, 0.1 at T = 1, in the order 2, 0, 3, 1; token 4 is 200 below the rest.
  const std::vector<float> logits = {std::log(0.3f), std::log(0.1f), std::log(0.4f), std::log(0.2f), -200.0f};
  SECTION("unfiltered: id order, the far token left out") { require_dist(dist_of(logits, {1.0f, 0, 1.0f}), {{0, 0.3}, {1, 0.1}, {2, 0.4}, {3, 0.2}}); }
  SECTION("top-k 3: probability order, renormalised") { require_dist(dist_of(logits, {1.0f, 3, 1.0f}), {{2, 0.4 / 0.9}, {0, 0.3 / 0.9}, {3, 0.2 / 0.9}}); }
  SECTION("top-p 0.6: the shortest prefix reaching 0.6") { require_dist(dist_of(logits, {1.0f, 0, 0.6f}), {{2, 0.4 / 0.7}, {0, 0.3 / 0.7}}); }
  SECTION("top-k 2 and top-p 0.5: the nucleus is the whole distribution's (0.5 of 1, two tokens), not the top 2's (0.5 of 0.7, one)") {
    require_dist(dist_of(logits, {1.0f, 2, 0.5f}), {{2, 0.4 / 0.7}, {0, 0.3 / 0.7}});
  }
  SECTION("top-k 2 and top-p 0.95: the nucleus needs all four, the top 2 cap it") {
    require_dist(dist_of(logits, {1.0f, 2, 0.95f}), {{2, 0.4 / 0.7}, {0, 0.3 / 0.7}});
  }
  SECTION("top-k 3 and top-p 0.5: the nucleus (2 tokens) is inside the top 3") {
    require_dist(dist_of(logits, {1.0f, 3, 0.5f}), {{2, 0.4 / 0.7}, {0, 0.3 / 0.7}});
  }
  SECTION("top-p below the largest probability keeps one token") { require_dist(dist_of(logits, {1.0f, 0, 0.1f}), {{2, 1.0}}); }
  SECTION("temperature 2 flattens: p proportional to sqrt(p)") {
    const double z = std::sqrt(0.3) + std::sqrt(0.1) + std::sqrt(0.4) + std::sqrt(0.2);
    require_dist(dist_of(logits, {2.0f, 0, 1.0f}), {{0, std::sqrt(0.3) / z}, {1, std::sqrt(0.1) / z}, {2, std::sqrt(0.4) / z}, {3, std::sqrt(0.2) / z}});
  }
}

TEST_CASE("target distribution: equal probabilities are ordered by id", "[sampling]") {
  require_dist(dist_of({1.0f, 2.0f, 2.0f, 1.0f, 2.0f}, {1.0f, 2, 1.0f}), {{1, 0.5}, {2, 0.5}});
}
