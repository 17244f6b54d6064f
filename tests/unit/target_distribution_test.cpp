// The sampler's filtered target distribution against values worked out by hand: top-k,
// top-p (the nucleus of the whole distribution, also when cut to the top k), ties by id,
// and tokens far below the maximum left out. The coupled pick of a drafter against the draw
// it aims at.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
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

TEST_CASE("coupled pick: the token sample_token draws from the same logits over a subset of the vocabulary", "[sampling]") {
  // A drafter's logits over 12 of 40 target ids, listed out of id order; the target's logits
  // are the same there and -infinity elsewhere. With any uniform the pick is the target's
  // draw, its [low, high) holds u, and the confidence is 2 min(u - low, high - u).
  const std::vector<int32_t> ids = {31, 4, 17, 9, 22, 0, 38, 12, 27, 5, 19, 33};
  std::vector<int32_t> by_id(ids.size());
  for (size_t i = 0; i < by_id.size(); ++i) by_id[i] = static_cast<int32_t>(i);
  std::sort(by_id.begin(), by_id.end(), [&](int32_t a, int32_t b) { return ids[static_cast<size_t>(a)] < ids[static_cast<size_t>(b)]; });
  std::vector<float> draft(ids.size()), target(40, -std::numeric_limits<float>::infinity());
  CoupledScratch coupled;
  DistributionScratch scratch;
  int64_t checked = 0;
  for (uint64_t trial = 0; trial < 200; ++trial) {
    for (size_t i = 0; i < ids.size(); ++i) {
      draft[i] = static_cast<float>(4.0 * uniform(RngKey{1, trial, i, 0}) - 2.0);
      target[static_cast<size_t>(ids[i])] = draft[i];
    }
    for (const SamplingParams params :
         {SamplingParams{1.0f, 0, 1.0f}, SamplingParams{0.6f, 4, 1.0f}, SamplingParams{1.3f, 0, 0.8f}, SamplingParams{0.9f, 6, 0.7f}}) {
      for (uint64_t draw = 0; draw < 20; ++draw) {
        const RngKey key{2, trial, draw, 0};
        const double u = uniform(key);
        const CoupledPick pick = coupled_pick(draft, ids, by_id, params, u, coupled);
        INFO("trial " << trial << ", T " << params.temperature << ", top-k " << params.top_k << ", top-p " << params.top_p << ", u " << u);
        REQUIRE(ids[static_cast<size_t>(pick.index)] == sample_token(target, params, key, scratch));
        REQUIRE((pick.low <= u && u < pick.high));
        REQUIRE(pick.confidence(u) == Approx(2 * std::min(u - pick.low, pick.high - u)));
        ++checked;
      }
    }
  }
  CHECK(checked == 200 * 4 * 20);
}
