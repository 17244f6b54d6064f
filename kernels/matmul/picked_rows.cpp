#include "kernels/matmul/picked_rows.h"

#include <algorithm>
#include <cstring>

#include "kernels/matmul/weight_repack.h"
#include "kernels/quant/q8_0_rows16.h"
#include "kernels/runtime/check.h"

namespace draftbench {

bool PickedRows::pick(const WeightMatrix& w, std::span<const int32_t> ids) {
  *this = PickedRows{};
  const auto n = static_cast<int64_t>(ids.size());
  const int64_t padded = (n + kQ8_0r16Rows - 1) / kQ8_0r16Rows * kQ8_0r16Rows;
  const WeightMatrix shape{w.type, w.n_in, padded, nullptr};
  if (n == 0 || head_layout_type(shape) == w.type) return false;
  const size_t row_bytes = w.row_bytes();
  std::vector<uint8_t> rows(row_bytes * static_cast<size_t>(padded));
  for (int64_t i = 0; i < padded; ++i) {
    const int32_t id = ids[static_cast<size_t>(std::min(i, n - 1))];
    DB_CHECK(id >= 0 && id < w.n_out);
    std::memcpy(rows.data() + static_cast<size_t>(i) * row_bytes, w.data + static_cast<size_t>(id) * row_bytes, row_bytes);
  }
  bytes_ = HugePageBuffer(head_layout_bytes(shape));
  matrix_ = to_head_layout(WeightMatrix{w.type, w.n_in, padded, rows.data()}, bytes_.data());
  ids_.assign(ids.begin(), ids.end());
  return true;
}

bool PickedRows::holds(std::span<const int32_t> ids) const { return !empty() && std::equal(ids.begin(), ids.end(), ids_.begin(), ids_.end()); }

void PickedRows::matmul(const float* x, int64_t n, float* y, ThreadPool& pool) {
  DB_CHECK(!empty());
  const size_t need = matmul_scratch_bytes(matrix_, n, pool.size());
  if (scratch_.size() < need) scratch_.resize(need);
  padded_.resize(static_cast<size_t>(n * matrix_.n_out));
  draftbench::matmul(matrix_, x, n, padded_.data(), pool, scratch_);
  const auto v = static_cast<int64_t>(ids_.size());
  for (int64_t r = 0; r < n; ++r) std::copy_n(padded_.data() + r * matrix_.n_out, v, y + r * v);
}

}  // namespace draftbench
