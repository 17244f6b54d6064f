// y = x W^T for a weight matrix kept in its file's (quantised) format.
//
// Shapes: W has n_out rows of n_in values (GGUF ne = [n_in, n_out]); x is [n_x][n_in]
// f32; y is [n_x][n_out] (or [n_x][n_ids] for matmul_rows). Each activation row is
// quantised on its own and each output element is one dot_rows call, so a row's result
// never depends on the other rows (batch invariance).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/quant/ggml_type.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

struct WeightMatrix {
  GgmlType type = GgmlType::F32;
  int64_t n_in = 0, n_out = 0;
  const uint8_t* data = nullptr;
  size_t row_bytes() const { return ggml_row_bytes(type, n_in); }
};

// Weight rows per task of the products: 64 (a tile of weights stays in L2 while every
// activation row passes over it), or for the row-interleaved Q8_0r16 as many whole groups
// as fill a quarter of L2, so that its kernel prepares the activation rows once per few
// hundred rows rather than per 64.
int64_t matmul_row_tile(const WeightMatrix& w);

// Bytes of scratch matmul needs for n_x activation rows on a pool of n_threads.
size_t matmul_scratch_bytes(const WeightMatrix& w, int64_t n_x, int n_threads);

void matmul(const WeightMatrix& w, const float* x, int64_t n_x, float* y, ThreadPool& pool, std::span<uint8_t> scratch);

// Only the output rows listed in `ids` (e.g. a draft vocabulary): y[i][k] = x_i . W[ids[k]].
void matmul_rows(const WeightMatrix& w, std::span<const int32_t> ids, const float* x, int64_t n_x, float* y, ThreadPool& pool, std::span<uint8_t> scratch);

}  // namespace draftbench
