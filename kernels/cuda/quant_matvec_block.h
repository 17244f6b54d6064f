// The quantised matrix-vector product's block program, shared by the CUDA kernel and the
// CPU emulation: y[r] = row r of w . xq, one warp per weight row, kQuantRowsPerBlock rows
// per block. Lane k of a warp forms the terms of quant blocks k, k + 32, ... (integer work,
// the bulk); lane 0 then folds them into the row's float lanes strictly in block order with
// the reference's float operations, and at the end the lanes into y[r] (block_lanes.h), so
// y is bit-identical to dot_rows_ref
// (kernels/quant/vec_dot.h) whenever the GPU rounds like the host (no FMA contraction).
//
// Lanes hold whole quant blocks, so a row needs 32 blocks (1024 values for 32-value types,
// 8192 for K-quants) to keep every lane busy; splitting a block's integer sums over lanes
// would lift that without touching the float order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/quant_block_dot.h"

namespace draftbench::cuda {

inline constexpr unsigned kWarpLanes = 32;
inline constexpr unsigned kQuantRowsPerBlock = 4;

struct QuantMatvecArgs {
  const uint8_t* w;    // n_rows rows of n_blocks weight blocks, w_stride bytes apart
  size_t w_stride;
  int64_t n_rows;
  const void* xq;      // one activation row: n_blocks blocks of the weight type's activation type
  int64_t n_blocks;
  float* y;            // [n_rows]
};

// The row's float lanes: one per K-quant row; block_lanes.h's two sets of eight for the
// 32-value types (block i into set i mod 2).
template <class Dot>
inline constexpr int kRowLanes = Dot::kLanes == kBlockLanes ? kBlockLaneSets * kBlockLanes : Dot::kLanes;

template <class Dot>
struct QuantMatvecShared {
  BlockTerms<Dot::kLanes> terms[kQuantRowsPerBlock][kWarpLanes];  // this chunk's terms, by lane
  float row_lanes[kQuantRowsPerBlock][kRowLanes<Dot>];            // the row's float lanes so far
};

// Lane `lane` of warp `warp`: the terms of block chunk * 32 + lane of its row, if any.
template <class Dot>
DB_HOST_DEVICE void quant_matvec_lane_terms(const QuantMatvecArgs& a, int64_t row, int64_t chunk, unsigned lane, unsigned warp,
                                            QuantMatvecShared<Dot>& sh) {
  const int64_t b = chunk * kWarpLanes + lane;
  if (row >= a.n_rows || b >= a.n_blocks) return;
  const auto* w = reinterpret_cast<const typename Dot::Weight*>(a.w + static_cast<size_t>(row) * a.w_stride);
  const auto* x = static_cast<const typename Dot::Activation*>(a.xq);
  sh.terms[warp][lane] = Dot::terms(w[b], x[b]);
}

// Lane 0 of each warp: fold this chunk's terms into the row's float lanes, in block order.
template <class Dot>
DB_HOST_DEVICE void quant_matvec_fold_chunk(const QuantMatvecArgs& a, int64_t row, int64_t chunk, unsigned lane, unsigned warp,
                                            QuantMatvecShared<Dot>& sh) {
  if (lane != 0 || row >= a.n_rows) return;
  const int64_t left = a.n_blocks - chunk * kWarpLanes;
  const int count = left < kWarpLanes ? static_cast<int>(left) : static_cast<int>(kWarpLanes);
  for (int k = 0; k < count; ++k) {
    // A chunk starts at an even block (32 k), so block chunk * 32 + k is in set k mod 2.
    float* sum = sh.row_lanes[warp] + (kRowLanes<Dot> > Dot::kLanes ? (k % kBlockLaneSets) * Dot::kLanes : 0);
    for (int l = 0; l < Dot::kLanes; ++l) sum[l] += sh.terms[warp][k].add[l];
    if constexpr (Dot::kHasMin) sum[0] -= sh.terms[warp][k].sub;
  }
}

template <class Dot>
DB_HOST_DEVICE float fold_row_lanes(const float* lanes) {
  if constexpr (Dot::kLanes == kBlockLanes) return fold_block_lanes(lanes);
  else return lanes[0];
}

inline Launch quant_matvec_launch(int64_t n_rows) { return {blocks_for(n_rows, kQuantRowsPerBlock), 1, Dim3{kWarpLanes, kQuantRowsPerBlock}}; }

// Every thread runs every phase (rows past the end included), so the barriers are uniform.
template <class Dot, class Block>
DB_HOST_DEVICE void quant_matvec_block(const Block& block, const QuantMatvecArgs& a, QuantMatvecShared<Dot>& sh) {
  static_assert(Dot::kLanes == 1 || Dot::kLanes == kBlockLanes);
  const int64_t first_row = static_cast<int64_t>(block.index().x) * kQuantRowsPerBlock;
  block.each_thread([&](Dim3 t) {
    if (t.x == 0)
      for (int l = 0; l < kRowLanes<Dot>; ++l) sh.row_lanes[t.y][l] = 0.0f;
  });
  block.sync();
  const int64_t chunks = (a.n_blocks + kWarpLanes - 1) / kWarpLanes;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    block.each_thread([&](Dim3 t) { quant_matvec_lane_terms<Dot>(a, first_row + t.y, chunk, t.x, t.y, sh); });
    block.sync();
    block.each_thread([&](Dim3 t) { quant_matvec_fold_chunk<Dot>(a, first_row + t.y, chunk, t.x, t.y, sh); });
    block.sync();
  }
  block.each_thread([&](Dim3 t) {
    if (t.x == 0 && first_row + t.y < a.n_rows) a.y[first_row + t.y] = fold_row_lanes<Dot>(sh.row_lanes[t.y]);
  });
}

}  // namespace draftbench::cuda
