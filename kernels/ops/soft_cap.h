// Logit soft-capping, cap * tanh(y / cap) (Gemma 2's final logits), one definition for
// every caller: the fused LM-head argmax (matmul/matmul_argmax.h) must see exactly the
// values a full logit row holds, so both apply these same operations.
#pragma once

#include <cmath>
#include <cstdint>

namespace draftbench {

inline float soft_capped(float y, float cap) { return std::tanh(y / cap) * cap; }

// In place over y[0..n); cap <= 0 means no cap.
inline void soft_cap(float* y, int64_t n, float cap) {
  if (cap <= 0.0f) return;
  for (int64_t i = 0; i < n; ++i) y[i] = soft_capped(y[i], cap);
}

}  // namespace draftbench
