// Top-k selection's block program, shared by the CUDA kernel and the CPU emulation: the k
// best values of each row in kernels/sampling/top_k.h's total order (larger first, equal
// values by smaller id), so the ids are exactly top_k_ref's. Beam search's top-W over a
// W x V score matrix is one row of W * V values.
//
// Two passes over a grid of (slices, rows). Pass 1: each block takes one slice of a row;
// each thread keeps its own sorted list of the best k of a strided share (an insertion
// only when a value beats the list's last, rare after the first few hundred), then a tree
// of pairwise merges leaves the slice's best k in list 0. Pass 2 (rows longer than one
// slice): one block per row runs the same program over the slices' candidates, which carry
// their ids. Comparisons do not round, so any merge order gives the same k.
#pragma once

#include <cstdint>
#include <climits>

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

inline constexpr unsigned kTopKThreads = 64;  // a power of two: the merge tree halves it
inline constexpr int kTopKMax = 64;           // k up to this (shared memory: a list per thread)
inline constexpr int64_t kTopKSlice = 4096;   // values per block in pass 1, at least
inline constexpr int64_t kTopKMaxSlices = 64;

struct TopKArgs {
  const float* values;  // [n_rows][n]
  const int32_t* ids;   // [n_rows][n] each value's id (-1: none), or null: its position
  int64_t n;
  int64_t slice;  // values per block; grid x = the row's slices
  int k;
  float* out_values;  // [n_rows][slices][k]
  int32_t* out_ids;   // [n_rows][slices][k]; -1 past a slice's count
};

struct TopKList {
  float value[kTopKMax];
  int32_t id[kTopKMax];
  int count;
};

struct TopKShared {
  TopKList list[kTopKThreads];
};

DB_HOST_DEVICE inline bool top_k_better(float va, int32_t ia, float vb, int32_t ib) { return va > vb || (va == vb && ia < ib); }

DB_HOST_DEVICE inline void top_k_insert(TopKList& l, int k, float v, int32_t id) {
  if (l.count == k && !top_k_better(v, id, l.value[k - 1], l.id[k - 1])) return;
  int p = l.count < k ? l.count++ : k - 1;
  for (; p > 0 && top_k_better(v, id, l.value[p - 1], l.id[p - 1]); --p) {
    l.value[p] = l.value[p - 1];
    l.id[p] = l.id[p - 1];
  }
  l.value[p] = v;
  l.id[p] = id;
}

DB_HOST_DEVICE inline void top_k_partial(const TopKArgs& a, int64_t row, int64_t slice, unsigned t, TopKShared& sh) {
  TopKList& l = sh.list[t];
  l.count = 0;
  const int64_t begin = slice * a.slice, end = begin + a.slice < a.n ? begin + a.slice : a.n;
  const float* v = a.values + row * a.n;
  const int32_t* ids = a.ids ? a.ids + row * a.n : nullptr;
  for (int64_t i = begin + t; i < end; i += kTopKThreads) {
    const int32_t id = ids ? ids[i] : static_cast<int32_t>(i);
    if (id >= 0) top_k_insert(l, a.k, v[i], id);
  }
}

// Thread t merges list t + half into its own: the best k of both, in order.
DB_HOST_DEVICE inline void top_k_merge(int k, unsigned t, unsigned half, TopKShared& sh) {
  const TopKList &x = sh.list[t], &y = sh.list[t + half];
  TopKList m;
  int i = 0, j = 0;
  for (m.count = 0; m.count < k && (i < x.count || j < y.count); ++m.count) {
    const bool take_x = j >= y.count || (i < x.count && top_k_better(x.value[i], x.id[i], y.value[j], y.id[j]));
    m.value[m.count] = take_x ? x.value[i] : y.value[j];
    m.id[m.count] = take_x ? x.id[i++] : y.id[j++];
  }
  sh.list[t] = m;
}

inline int64_t top_k_slices(int64_t n) {
  const int64_t slices = (n + kTopKSlice - 1) / kTopKSlice;
  return slices < 1 ? 1 : slices > kTopKMaxSlices ? kTopKMaxSlices : slices;
}

inline Launch top_k_launch(int64_t n_rows, int64_t slices) { return {slices, n_rows, Dim3{kTopKThreads}}; }

template <class Block>
DB_HOST_DEVICE void top_k_block(const Block& block, const TopKArgs& a, TopKShared& sh) {
  const int64_t slice = block.index().x, row = block.index().y, slices = (a.n + a.slice - 1) / a.slice;
  block.each_thread([&](Dim3 t) { top_k_partial(a, row, slice, t.x, sh); });
  block.sync();
  fold_tree(block, kTopKThreads, [&](unsigned t, unsigned half) { top_k_merge(a.k, t, half, sh); });
  block.each_thread([&](Dim3 t) {
    if (t.x != 0) return;
    const TopKList& best = sh.list[0];
    float* out_v = a.out_values + (row * slices + slice) * a.k;
    int32_t* out_i = a.out_ids + (row * slices + slice) * a.k;
    for (int i = 0; i < a.k; ++i) {
      out_v[i] = i < best.count ? best.value[i] : 0.0f;
      out_i[i] = i < best.count ? best.id[i] : -1;
    }
  });
}

inline bool top_k_supports(int64_t n, int k) { return n >= 1 && n <= INT32_MAX && k >= 1 && k <= kTopKMax; }

// Entries of the pass-1 workspace (values and ids each) for these rows.
inline int64_t top_k_workspace(int64_t n_rows, int64_t n, int k) {
  const int64_t slices = top_k_slices(n);
  return slices > 1 ? n_rows * slices * k : 0;
}

// Both passes through `run(Launch, TopKArgs)`: the CUDA entry launches, the emulation
// emulates. values/ids [n_rows][k] receive each row's best, -1 ids past min(k, n).
// Needs n >= 1 and 1 <= k <= kTopKMax (top_k_supports).
template <class Run>
void top_k_passes(const float* w, int64_t n_rows, int64_t n, int k, float* ws_values, int32_t* ws_ids, float* values, int32_t* ids, Run&& run) {
  const int64_t slices = top_k_slices(n);
  if (slices == 1) return run(top_k_launch(n_rows, 1), TopKArgs{w, nullptr, n, n, k, values, ids});
  const int64_t slice = (n + slices - 1) / slices;
  run(top_k_launch(n_rows, slices), TopKArgs{w, nullptr, n, slice, k, ws_values, ws_ids});
  run(top_k_launch(n_rows, 1), TopKArgs{ws_values, ws_ids, slices * k, slices * k, k, values, ids});
}

}  // namespace draftbench::cuda
