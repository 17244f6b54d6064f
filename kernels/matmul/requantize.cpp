#include "kernels/matmul/requantize.h"

#include <vector>

#include "kernels/quant/dequantize.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench {

bool can_requantize_q8_0(const WeightMatrix& w) {
  const bool float_type = w.type == GgmlType::F32 || w.type == GgmlType::F16 || w.type == GgmlType::BF16;
  return float_type && w.n_in > 0 && w.n_in % 32 == 0 && w.n_out > 0;
}

size_t requantized_q8_0_bytes(const WeightMatrix& w) { return static_cast<size_t>(w.n_out) * ggml_row_bytes(GgmlType::Q8_0, w.n_in); }

WeightMatrix requantize_q8_0(const WeightMatrix& w, uint8_t* dst) {
  const size_t out_row = ggml_row_bytes(GgmlType::Q8_0, w.n_in);
  std::vector<float> row(static_cast<size_t>(w.n_in));
  for (int64_t r = 0; r < w.n_out; ++r) {
    dequantize_row(w.type, w.data + static_cast<size_t>(r) * w.row_bytes(), row.data(), w.n_in);
    quantize_activation_row_ref(GgmlType::Q8_0, row.data(), dst + static_cast<size_t>(r) * out_row, w.n_in);
  }
  return WeightMatrix{GgmlType::Q8_0, w.n_in, w.n_out, dst};
}

}  // namespace draftbench
