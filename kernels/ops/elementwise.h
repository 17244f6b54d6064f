// The transformer's element-wise additions on the CPU: the residual add and a bias added to
// every row (qwen2's Q/K/V projections). Plain loops, which the compiler vectorises: they
// are the CPU kernels and the reference the device's elementwise_thread.h is tested against.
#pragma once

#include <cstdint>

namespace draftbench {

// x[i] += y[i] for n values.
inline void add_to(const float* y, float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

// y[r][i] += bias[i] for n_rows rows of `width` floats.
inline void add_row_bias(const float* bias, float* y, int64_t n_rows, int64_t width) {
  for (int64_t r = 0; r < n_rows; ++r) add_to(bias, y + r * width, width);
}

}  // namespace draftbench
