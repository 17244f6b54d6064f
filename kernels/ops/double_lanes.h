// A long float sum taken in double in eight lanes (lane = index mod 8), the order shared by
// RMSNorm's sum of squares and the softmax weights' sum: a scalar loop and two AVX2 double
// registers (lanes 0-3 and 4-7) then produce the same bits.
#pragma once

#include "kernels/runtime/host_device.h"

namespace draftbench {

inline constexpr int kDoubleLanes = 8;

// ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)), the order of a two-register reduction.
DB_HOST_DEVICE inline double fold_double_lanes(const double* lane) {
  return ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
}

}  // namespace draftbench
