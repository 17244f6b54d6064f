// Synthetic cost models for the sizing tests: a step of n tokens costs a base plus
// per_token * (n - 1), measured at n = 1, 2, 4 ... 64.
#pragma once

#include "engine/decoding/cost_model.h"

namespace draftbench::test {

inline CostModel cost_curve(double forward_base, double head_base, double per_token) {
  CostModel m;
  m.context = 256;
  for (int32_t n = 1; n <= 64; n *= 2) {
    m.sizes.push_back(n);
    m.forward_s.push_back(forward_base + per_token * (n - 1));
    m.head_s.push_back(head_base + per_token * (n - 1));
  }
  return m;
}

// The head's base half the forward's.
inline CostModel linear_cost(double base, double per_token) { return cost_curve(base, base / 2, per_token); }

}  // namespace draftbench::test
