// The fused SiLU layer's last steps for one output (linear_silu.h), written once for the
// CPU forms and the CUDA block program so that all of them round alike: the terms' sum,
// plus the bias, through activation_math's SiLU, plus the residual.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ops/activation_math.h"
#include "kernels/runtime/host_device.h"

namespace draftbench {

// Terms per layer (ReDrafter's recurrent step has two); a bound so no form allocates.
inline constexpr size_t kMaxLinearTerms = 4;

// Output i of activation row r; bias [n_out] and residual [n][n_out] may be null.
DB_HOST_DEVICE inline float linear_silu_output(float sum, const float* bias, const float* residual, int64_t r, int64_t i, int64_t n_out) {
  if (bias) sum += bias[i];
  const float s = activation_math::silu_value(sum);
  return residual ? residual[r * n_out + i] + s : s;
}

}  // namespace draftbench
