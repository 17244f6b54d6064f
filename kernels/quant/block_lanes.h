// The float contract of the 32-value block types (Q4_0, Q5_0, Q8_0), shared by the
// reference, the x86 kernels and the CUDA block program so that all three round alike.
//
// A dot product keeps sixteen float partial sums: two sets of eight lanes, set 0 for the
// even-numbered blocks of the row and set 1 for the odd ones. Lane l of a set takes the
// integer sum of the products of values 4l..4l+3 of each of its blocks (what an AVX2 int32
// lane holds after maddubs+madd), converts it to float, multiplies it by the block's scale
// product and adds it, block after block; fold_block_lanes then combines the lanes in a
// fixed order.
// - Per lane, not per block: a per-block sum needs a horizontal add per block and weight
//   row, which made the x86 kernels port-bound at half of the memory bandwidth.
// - Two sets: one set is one chain of dependent adds per row, and one row at a time (which
//   the prefetcher needs here) then waits on add latency; two sets are two chains, and a
//   512-bit register holds both (block i in the low half, block i + 1 in the high half).
#pragma once

#include "kernels/runtime/host_device.h"

namespace draftbench {

inline constexpr int kBlockLanes = 8;
inline constexpr int kBlockLaneSets = 2;
inline constexpr int kValuesPerLane = 4;

// Set 0 plus set 1 lane by lane, then ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)):
// the order of the x86 reduction (the two sets' registers added, then high half onto low
// half, then movehl, then the last pair).
DB_HOST_DEVICE inline float fold_block_lanes(const float* lane) {
  float t[kBlockLanes];
  for (int l = 0; l < kBlockLanes; ++l) t[l] = lane[l] + lane[kBlockLanes + l];
  return ((t[0] + t[4]) + (t[2] + t[6])) + ((t[1] + t[5]) + (t[3] + t[7]));
}

}  // namespace draftbench
