// The quantised products' block program, shared by the CUDA kernel and the CPU emulation:
// y[x][r] = row r of w . activation row x, for a block of kQuantRowsPerBlock weight rows
// (one warp each) by kQuantActivationsPerBlock activation rows, so that each weight block
// is read once for all of them (a tree's verification rows share the weights). Lane k of a
// warp forms the terms of quant blocks k, k + 32, ... with each activation row (integer
// work, the bulk); lane i then folds activation row i's terms into its float lanes strictly
// in block order with the reference's float operations, and at the end the lanes into
// y[x][r] (block_lanes.h). So each result is bit-identical to dot_rows_ref
// (kernels/quant/vec_dot.h) on that activation row alone whenever the GPU rounds like the
// host (no FMA contraction): batch-invariant by construction.
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
inline constexpr unsigned kQuantRowsPerBlock = 4;         // weight rows, a warp each
inline constexpr unsigned kQuantActivationsPerBlock = 4;  // activation rows sharing each weight load

struct QuantMatvecArgs {
  const uint8_t* w;  // n_rows rows of n_blocks weight blocks, w_stride bytes apart
  size_t w_stride;
  int64_t n_rows;
  const uint8_t* xq;  // n_x activation rows of n_blocks blocks of the weight type's activation type,
  size_t xq_stride;   // xq_stride bytes apart
  int64_t n_x;
  int64_t n_blocks;
  float* y;  // [n_x][n_rows]
};

// The row's float lanes: one per K-quant row; block_lanes.h's two sets of eight for the
// 32-value types (block i into set i mod 2).
template <class Dot>
inline constexpr int kRowLanes = Dot::kLanes == kBlockLanes ? kBlockLaneSets* kBlockLanes : Dot::kLanes;

template <class Dot>
struct QuantMatvecShared {
  // This chunk's terms, by weight row (warp), activation row and lane.
  BlockTerms<Dot::kLanes> terms[kQuantRowsPerBlock][kQuantActivationsPerBlock][kWarpLanes];
  float row_lanes[kQuantRowsPerBlock][kQuantActivationsPerBlock][kRowLanes<Dot>];  // each product's float lanes so far
};

// Lane `lane` of warp `warp`: the terms of block chunk * 32 + lane of its weight row with
// each of the block's activation rows, from one read of the weight block.
template <class Dot>
DB_HOST_DEVICE void quant_matvec_lane_terms(const QuantMatvecArgs& a, int64_t row, int64_t first_x, int64_t chunk, unsigned lane, unsigned warp,
                                            QuantMatvecShared<Dot>& sh) {
  const int64_t b = chunk * kWarpLanes + lane;
  if (row >= a.n_rows || b >= a.n_blocks) return;
  const auto& w = reinterpret_cast<const typename Dot::Weight*>(a.w + static_cast<size_t>(row) * a.w_stride)[b];
  for (unsigned i = 0; i < kQuantActivationsPerBlock && first_x + i < a.n_x; ++i) {
    const auto* x = reinterpret_cast<const typename Dot::Activation*>(a.xq + static_cast<size_t>(first_x + i) * a.xq_stride);
    sh.terms[warp][i][lane] = Dot::terms(w, x[b]);
  }
}

// Lane i of each warp: fold this chunk's terms with activation row i into that product's
// float lanes, in block order.
template <class Dot>
DB_HOST_DEVICE void quant_matvec_fold_chunk(const QuantMatvecArgs& a, int64_t row, int64_t first_x, int64_t chunk, unsigned lane, unsigned warp,
                                            QuantMatvecShared<Dot>& sh) {
  if (lane >= kQuantActivationsPerBlock || first_x + lane >= a.n_x || row >= a.n_rows) return;
  const int64_t left = a.n_blocks - chunk * kWarpLanes;
  const int count = left < kWarpLanes ? static_cast<int>(left) : static_cast<int>(kWarpLanes);
  for (int k = 0; k < count; ++k) {
    const BlockTerms<Dot::kLanes>& t = sh.terms[warp][lane][k];
    float* sum = sh.row_lanes[warp][lane];
    if constexpr (Dot::kLanes == kBlockLanes) {
      // A chunk starts at block 32 chunk, a multiple of any unit: block chunk * 32 + k is
      // block k % G of a unit in set (k / G) mod 2, and its term h goes to lane k % G + G h.
      constexpr int G = Dot::kUnitBlocks;
      sum += ((k / G) % kBlockLaneSets) * kBlockLanes;
      for (int h = 0; h < kBlockLanes / G; ++h) sum[k % G + G * h] += t.add[h];
    } else {
      for (int l = 0; l < Dot::kLanes; ++l) sum[l] += t.add[l];
      if constexpr (Dot::kHasMin) sum[0] -= t.sub;
    }
  }
}

template <class Dot>
DB_HOST_DEVICE float fold_row_lanes(const float* lanes) {
  if constexpr (Dot::kLanes == kBlockLanes) return fold_block_lanes(lanes);
  else if constexpr (Dot::kLanes == 16) return fold_float_lanes(lanes);
  else return lanes[0];
}

inline Launch quant_matvec_launch(int64_t n_rows, int64_t n_x) {
  return {blocks_for(n_rows, kQuantRowsPerBlock), blocks_for(n_x, kQuantActivationsPerBlock), Dim3{kWarpLanes, kQuantRowsPerBlock}};
}

// The block's products so far in sh.row_lanes (not yet folded): its weight rows with its
// activation rows. Every thread runs every phase (rows past the end included), so the
// barriers are uniform. Ends on a barrier.
template <class Dot, class Block>
DB_HOST_DEVICE void quant_matvec_accumulate(const Block& block, const QuantMatvecArgs& a, QuantMatvecShared<Dot>& sh) {
  static_assert(Dot::kLanes == 1 || Dot::kLanes == kBlockLanes || Dot::kLanes == 16);
  const int64_t first_row = static_cast<int64_t>(block.index().x) * kQuantRowsPerBlock;
  const int64_t first_x = static_cast<int64_t>(block.index().y) * kQuantActivationsPerBlock;
  block.each_thread([&](Dim3 t) {
    if (t.x < kQuantActivationsPerBlock)
      for (int l = 0; l < kRowLanes<Dot>; ++l) sh.row_lanes[t.y][t.x][l] = 0.0f;
  });
  block.sync();
  const int64_t chunks = (a.n_blocks + kWarpLanes - 1) / kWarpLanes;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    block.each_thread([&](Dim3 t) { quant_matvec_lane_terms<Dot>(a, first_row + t.y, first_x, chunk, t.x, t.y, sh); });
    block.sync();
    block.each_thread([&](Dim3 t) { quant_matvec_fold_chunk<Dot>(a, first_row + t.y, first_x, chunk, t.x, t.y, sh); });
    block.sync();
  }
}

template <class Dot, class Block>
DB_HOST_DEVICE void quant_matvec_block(const Block& block, const QuantMatvecArgs& a, QuantMatvecShared<Dot>& sh) {
  quant_matvec_accumulate<Dot>(block, a, sh);
  const int64_t first_row = static_cast<int64_t>(block.index().x) * kQuantRowsPerBlock;
  const int64_t first_x = static_cast<int64_t>(block.index().y) * kQuantActivationsPerBlock;
  block.each_thread([&](Dim3 t) {
    const int64_t row = first_row + t.y, x = first_x + t.x;
    if (t.x < kQuantActivationsPerBlock && row < a.n_rows && x < a.n_x) a.y[x * a.n_rows + row] = fold_row_lanes<Dot>(sh.row_lanes[t.y][t.x]);
  });
}

}  // namespace draftbench::cuda
