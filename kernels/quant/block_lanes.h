// The float contracts of the 32-value block types, shared by the reference, the x86 kernels
// and the CUDA block program so that all three round alike.
//
// Block lanes (Q4_0, Q8_0). A dot product keeps sixteen float partial sums: two sets of
// eight lanes, set 0 for the even-numbered blocks of the row and set 1 for the odd ones.
// Lane l of a set takes the integer sum of the products of values 4l..4l+3 of each of its
// blocks (what an AVX2 int32 lane holds after maddubs+madd), converts it to float,
// multiplies it by the block's scale product and adds it, block after block;
// fold_block_lanes then combines the lanes in a fixed order.
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

// Group lanes (Q5_0, and its repacked layout Q5_0x4). The same sixteen partial sums, but a
// lane spans blocks: the row's blocks go in groups of four, set 0 taking the even-numbered
// groups and set 1 the odd ones, and lane i of a set takes, for each of its groups, the
// integer sum of the products of values 16 (i / 4) .. 16 (i / 4) + 15 of the group's block
// i % 4, converts it to float, multiplies it by that block's scale product and adds it,
// group after group. A short last group's missing blocks add nothing. fold_block_lanes
// combines the lanes.
// - Why: per block, the block lanes' float steps (convert, multiply, add over eight lanes)
//   and the integer steps around them were half of an AVX2 Q5_0 kernel's work, which left it
//   compute-bound below the bandwidth. Group lanes take those steps once per four blocks,
//   and a layout with a quarter of every block of a group in each register (Q5_0x4) adds
//   the four blocks' 16-bit products before widening them (kernels/bench/README.md has the
//   figures).
inline constexpr int kGroupBlocks = 4;

// Both contracts are one scheme over units of G blocks, block lanes being G = 1 and group
// lanes G = 4: unit u goes into set u mod 2, and lane l takes block uG + l % G's values
// kLaneValues<G> (l / G) and the kLaneValues<G> - 1 after them.
template <int G>
inline constexpr int kLaneValues = 4 * G;
template <int G>
DB_HOST_DEVICE inline constexpr int lane_block(int lane) {
  return lane % G;
}
template <int G>
DB_HOST_DEVICE inline constexpr int lane_first_value(int lane) {
  return kLaneValues<G> * (lane / G);
}

// Set 0 plus set 1 lane by lane, then ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)):
// the order of the x86 reduction (the two sets' registers added, then high half onto low
// half, then movehl, then the last pair).
DB_HOST_DEVICE inline float fold_block_lanes(const float* lane) {
  float t[kBlockLanes];
  for (int l = 0; l < kBlockLanes; ++l) t[l] = lane[l] + lane[kBlockLanes + l];
  return ((t[0] + t[4]) + (t[2] + t[6])) + ((t[1] + t[5]) + (t[3] + t[7]));
}

}  // namespace draftbench
