// The per-value arithmetic of the softmax kernels, one definition for the reference, the
// AVX2 build and the CUDA block program, so that all of them give the same bits.
//
// A token's unnormalised probability is w = exp((logit - max) / T), with activation_math's
// polynomial exp (no FMA): a logit more than 87 temperature-units below the maximum gets
// w = 0 exactly (exp's clamp would otherwise give every such token 1.6e-38), so the sampler
// can skip it. The sum of the weights is taken in double, in kernels/ops/double_lanes.h's
// eight lanes.
#pragma once

#include "kernels/ops/activation_math.h"
#include "kernels/ops/double_lanes.h"
#include "kernels/runtime/host_device.h"

namespace draftbench {

DB_HOST_DEVICE inline float softmax_weight(float logit, float max_logit, float inv_t) {
  const float t = (logit - max_logit) * inv_t;
  return t < -activation_math::kExpLimit ? 0.0f : activation_math::exp_clamped(t);
}

}  // namespace draftbench
