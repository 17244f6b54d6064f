#include "kernels/matmul/matmul_argmax.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/ops/soft_cap.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"
#include "kernels/sampling/softmax.h"

namespace draftbench {
namespace {

// Output rows per task are matmul's (matmul_row_tile): a tile of weights stays in L2 while
// every activation row passes over it, and its [n_x][tile] products stay in cache for the scan.
constexpr size_t kAlign = 64;

size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// A running maximum: the best value seen and the smallest index holding it.
struct Best {
  float value = -std::numeric_limits<float>::infinity();
  int32_t id = std::numeric_limits<int32_t>::max();  // beaten by any real index, even at -inf
};

// (value, id) beats `best` if larger, or equal and earlier: a total order on candidates, so
// merging bests in any grouping and order ends at the first index of the maximum.
bool beats(float value, int64_t id, const Best& best) { return value > best.value || (value == best.value && id < best.id); }

void check_shape(const WeightMatrix& w, int64_t n_x, const int32_t* ids) {
  DB_CHECK(n_x >= 0 && (ids != nullptr || n_x == 0));
  DB_CHECK(w.n_out >= 1 && w.n_out < std::numeric_limits<int32_t>::max() && w.data != nullptr);
}

size_t tile_bytes(const WeightMatrix& w, int64_t n_x) { return aligned(static_cast<size_t>(n_x * matmul_row_tile(w)) * sizeof(float)); }
size_t bests_bytes(int64_t n_x) { return aligned(static_cast<size_t>(n_x) * sizeof(Best)); }

}  // namespace

void matmul_argmax_ref(const WeightMatrix& w, const float* x, int64_t n_x, float cap, int32_t* ids) {
  check_shape(w, n_x, ids);
  std::vector<uint8_t> xq(activation_row_bytes(w.type, w.n_in));
  std::vector<float> y(static_cast<size_t>(w.n_out));
  for (int64_t r = 0; r < n_x; ++r) {
    quantize_activation_row_ref(w.type, x + r * w.n_in, xq.data(), w.n_in);
    dot_rows_ref(w.type, w.data, w.row_bytes(), w.n_out, xq.data(), w.n_in, y.data());
    soft_cap(y.data(), w.n_out, cap);
    ids[r] = static_cast<int32_t>(argmax_ref(y.data(), w.n_out));
  }
}

size_t matmul_argmax_scratch_bytes(const WeightMatrix& w, int64_t n_x, int n_threads) {
  const int64_t rows = std::max<int64_t>(n_x, 1);
  return aligned(activation_row_bytes(w.type, w.n_in) * static_cast<size_t>(rows)) + static_cast<size_t>(n_threads) * (tile_bytes(w, rows) + bests_bytes(rows));
}

void matmul_argmax(const WeightMatrix& w, const float* x, int64_t n_x, float cap, int32_t* ids, ThreadPool& pool, std::span<uint8_t> scratch) {
  check_shape(w, n_x, ids);
  DB_CHECK(scratch.size() >= matmul_argmax_scratch_bytes(w, n_x, pool.size()));
  if (n_x == 0) return;

  const size_t xq_bytes = activation_row_bytes(w.type, w.n_in);
  uint8_t* xq = scratch.data();
  pool.parallel_for(n_x, 4, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) quantize_activation_row(w.type, x + i * w.n_in, xq + static_cast<size_t>(i) * xq_bytes, w.n_in);
  });

  // Per thread: a [n_x][row tile] tile of products, then a Best per activation row. Every
  // thread's bests start empty, so a thread the split gives no rows merges as nothing.
  uint8_t* per_thread = xq + aligned(xq_bytes * static_cast<size_t>(n_x));
  const size_t thread_bytes = tile_bytes(w, n_x) + bests_bytes(n_x);
  auto bests_of = [&](int thread) { return reinterpret_cast<Best*>(per_thread + static_cast<size_t>(thread) * thread_bytes + tile_bytes(w, n_x)); };
  for (int t = 0; t < pool.size(); ++t) std::fill_n(bests_of(t), n_x, Best{});

  const size_t row_bytes = w.row_bytes();
  const int64_t row_tile = matmul_row_tile(w);
  pool.parallel_for(w.n_out, row_tile, [&](int64_t b, int64_t e, int thread) {
    float* tile = reinterpret_cast<float*>(per_thread + static_cast<size_t>(thread) * thread_bytes);
    Best* bests = bests_of(thread);
    for (int64_t r0 = b; r0 < e; r0 += row_tile) {
      const int64_t nr = std::min(row_tile, e - r0);
      dot_rows_batch(w.type, w.data + static_cast<size_t>(r0) * row_bytes, row_bytes, nr, xq, xq_bytes, n_x, w.n_in, tile, static_cast<size_t>(row_tile));
      for (int64_t r = 0; r < n_x; ++r) {
        float* y = tile + r * row_tile;
        soft_cap(y, nr, cap);
        const int64_t at = argmax(y, nr);  // the tile's first maximum; earlier tiles hold smaller ids
        if (beats(y[at], r0 + at, bests[r])) bests[r] = Best{y[at], static_cast<int32_t>(r0 + at)};
      }
    }
  });

  for (int64_t r = 0; r < n_x; ++r) {
    Best best;
    for (int t = 0; t < pool.size(); ++t) {
      const Best& candidate = bests_of(t)[r];
      if (beats(candidate.value, candidate.id, best)) best = candidate;
    }
    ids[r] = best.id;
  }
}

}  // namespace draftbench
