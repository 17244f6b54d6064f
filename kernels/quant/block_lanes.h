// The float contract of the 32-value block types (Q4_0, Q5_0, Q8_0), shared by the
// reference, the x86 kernels and the CUDA block program so that all three round alike.
//
// A dot product keeps eight float partial sums. Lane l takes the integer sum of the
// products of values 4l..4l+3 of each block (what an AVX2 int32 lane holds after
// maddubs+madd), converts it to float, multiplies it by the block's scale product and adds
// it, block after block; fold_block_lanes then combines the lanes in a fixed order. Per
// lane, not per block, because a per-block sum needs a horizontal add per block and weight
// row, which made the x86 kernels port-bound at half of the memory bandwidth (the scale is
// a per-block broadcast either way).
#pragma once

#include "kernels/runtime/host_device.h"

namespace draftbench {

inline constexpr int kBlockLanes = 8;
inline constexpr int kValuesPerLane = 4;

// ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)): the order of the x86 reduction
// (high half onto low half, then movehl, then the last pair).
DB_HOST_DEVICE inline float fold_block_lanes(const float* lane) {
  return ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
}

}  // namespace draftbench
