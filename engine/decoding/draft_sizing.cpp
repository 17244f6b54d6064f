#include "engine/decoding/draft_sizing.h"

#include "engine/common/error.h"

namespace draftbench {
namespace {

constexpr double kPriorWeight = 2.0;  // pseudo-observations behind the prior
constexpr double kDecay = 0.97;       // per observation: about the last 30 steps count

}  // namespace

ChainSizer::ChainSizer(const CostModel& cost, int32_t max_length, double prior)
    : cost_(cost), max_length_(max_length), prior_(prior), offered_(static_cast<size_t>(max_length), 0.0),
      accepted_(static_cast<size_t>(max_length), 0.0) {
  DB_CHECK(max_length >= 0 && prior >= 0 && prior <= 1);
}

double ChainSizer::acceptance(int32_t k) const {
  const auto i = static_cast<size_t>(k - 1);
  return (accepted_[i] + prior_ * kPriorWeight) / (offered_[i] + kPriorWeight);
}

double ChainSizer::expected_tokens(int32_t length) const {
  double expected = 1, reach = 1;
  for (int32_t k = 1; k <= length; ++k) {
    reach *= acceptance(k);
    expected += reach;
  }
  return expected;
}

int32_t ChainSizer::choose() const {
  int32_t best = 0;
  double best_rate = tokens_per_second(0);
  for (int32_t l = 1; l <= max_length_; ++l)
    if (const double rate = tokens_per_second(l); rate > best_rate) {
      best = l;
      best_rate = rate;
    }
  return best;
}

void ChainSizer::observe(int32_t offered, int32_t accepted) {
  DB_CHECK(accepted >= 0 && accepted <= offered);
  for (double& c : offered_) c *= kDecay;
  for (double& c : accepted_) c *= kDecay;
  // Depths 1..accepted were offered and taken; depth accepted + 1 offered and refused.
  for (int32_t k = 1; k <= std::min(offered, max_length_); ++k) {
    if (k > accepted + 1) break;
    offered_[static_cast<size_t>(k - 1)] += 1;
    if (k <= accepted) accepted_[static_cast<size_t>(k - 1)] += 1;
  }
}

}  // namespace draftbench
