// A fixed subset of a weight matrix's rows (a draft vocabulary's rows of the LM head), copied
// once into the head layout where this CPU has one (weight_repack.h), so that products over
// them are one dense matmul instead of a gather from the whole matrix. The copy is padded to
// whole groups with repeats of the last row, whose products are computed and dropped.
//
// Its products follow the head layout's float contract, not the source matrix's: they may
// differ from matmul_rows over the source in the last bits (the same whatever the batch).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/matmul/matmul.h"
#include "kernels/runtime/huge_page_buffer.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

class PickedRows {
 public:
  // Copies rows `ids` of w; false, keeping nothing, where the head layout does not apply.
  bool pick(const WeightMatrix& w, std::span<const int32_t> ids);
  // Whether the copy holds exactly these rows, in this order.
  bool holds(std::span<const int32_t> ids) const;
  bool empty() const { return matrix_.data == nullptr; }

  // y[i][k] = x_i . row ids[k] for the n rows of x ([n][w.n_in]); y is [n][ids.size()].
  void matmul(const float* x, int64_t n, float* y, ThreadPool& pool);

 private:
  std::vector<int32_t> ids_;
  WeightMatrix matrix_;
  HugePageBuffer bytes_;
  std::vector<uint8_t> scratch_;
  std::vector<float> padded_;
};

}  // namespace draftbench
