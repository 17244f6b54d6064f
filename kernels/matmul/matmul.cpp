#include "kernels/matmul/matmul.h"

#include <algorithm>

#include "kernels/quant/q8_0_rows16.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// A multiple of the 8-row kernels, small enough that one tile of weights stays in L2 while
// every activation row passes over it.
constexpr int64_t kRowTile = 64;
constexpr size_t kInterleavedTileBytes = 256 * 1024;

const uint8_t* quantize_rows(const WeightMatrix& w, const float* x, int64_t n_x, ThreadPool& pool, std::span<uint8_t> scratch) {
  const size_t xq_bytes = activation_row_bytes(w.type, w.n_in);
  DB_CHECK(scratch.size() >= xq_bytes * static_cast<size_t>(n_x));
  uint8_t* xq = scratch.data();
  pool.parallel_for(n_x, 4, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) quantize_activation_row(w.type, x + i * w.n_in, xq + static_cast<size_t>(i) * xq_bytes, w.n_in);
  });
  return xq;
}

}  // namespace

int64_t matmul_row_tile(const WeightMatrix& w) {
  if (w.type != GgmlType::Q8_0r16) return kRowTile;
  const int64_t groups = static_cast<int64_t>(kInterleavedTileBytes / (w.row_bytes() * kQ8_0r16Rows));
  return std::max<int64_t>(groups, 1) * kQ8_0r16Rows;
}

size_t matmul_scratch_bytes(const WeightMatrix& w, int64_t n_x, int /*n_threads*/) {
  return activation_row_bytes(w.type, w.n_in) * static_cast<size_t>(std::max<int64_t>(n_x, 1));
}

void matmul(const WeightMatrix& w, const float* x, int64_t n_x, float* y, ThreadPool& pool, std::span<uint8_t> scratch) {
  DB_CHECK(scratch.size() >= matmul_scratch_bytes(w, n_x, pool.size()));
  const uint8_t* xq = quantize_rows(w, x, n_x, pool, scratch);
  const size_t xq_bytes = activation_row_bytes(w.type, w.n_in);
  const size_t row_bytes = w.row_bytes();
  const int64_t tile = matmul_row_tile(w);
  pool.parallel_for(w.n_out, tile, [&](int64_t b, int64_t e, int) {
    for (int64_t r0 = b; r0 < e; r0 += tile)
      dot_rows_batch(w.type, w.data + static_cast<size_t>(r0) * row_bytes, row_bytes, std::min(tile, e - r0), xq, xq_bytes, n_x, w.n_in, y + r0,
                     static_cast<size_t>(w.n_out));
  });
}

void matmul_rows(const WeightMatrix& w, std::span<const int32_t> ids, const float* x, int64_t n_x, float* y, ThreadPool& pool, std::span<uint8_t> scratch) {
  const uint8_t* xq = quantize_rows(w, x, n_x, pool, scratch);
  const size_t xq_bytes = activation_row_bytes(w.type, w.n_in);
  const int64_t n_ids = static_cast<int64_t>(ids.size());
  pool.parallel_for(n_ids, kRowTile, [&](int64_t b, int64_t e, int) {
    for (int64_t r0 = b; r0 < e; r0 += kRowTile) {
      const int64_t nr = std::min(kRowTile, e - r0);
      for (int64_t i = 0; i < n_x; ++i)
        dot_rows_indexed(w.type, w.data, w.row_bytes(), ids.data() + r0, nr, xq + static_cast<size_t>(i) * xq_bytes, w.n_in, y + i * n_ids + r0);
    }
  });
}

}  // namespace draftbench
