// Draft sizing to the hardware: each step, the chain length L that maximises expected
// tokens per second, E(L) / C(L), where
//   E(L) = 1 + sum_{k=1..L} a_1 a_2 ... a_k   tokens a step yields (the bonus token included),
//   C(L) = forward(1 + L) + head(1 + L)        the step's cost from the measured CostModel,
// and a_k is the probability that the k-th draft token is accepted given the ones before it
// were. a_k starts from a prior and follows the acceptance the drafter actually gets
// (counts that decay, so it tracks the current prompt). L = 0 is an autoregressive step:
// chosen whenever no draft is expected to pay for its verification, e.g. with a_k near 0 or
// where each verified token costs nearly a whole step.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/decoding/cost_model.h"

namespace draftbench {

class ChainSizer {
 public:
  // prior: a_k before anything is observed; max_length: the longest chain considered.
  ChainSizer(const CostModel& cost, int32_t max_length, double prior = 0.6);

  int32_t choose() const;  // 0 .. max_length
  // A proposed chain of `offered` draft tokens of which the first `accepted` were taken.
  void observe(int32_t offered, int32_t accepted);

  double acceptance(int32_t k) const;  // a_k, k >= 1
  double expected_tokens(int32_t length) const;
  double tokens_per_second(int32_t length) const { return expected_tokens(length) / cost_.step(1 + length, 1 + length); }

 private:
  CostModel cost_;
  int32_t max_length_;
  double prior_;
  std::vector<double> offered_, accepted_;  // decayed counts per depth k - 1
};

}  // namespace draftbench
