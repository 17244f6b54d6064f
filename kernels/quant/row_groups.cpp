#include "kernels/quant/row_groups.h"

#include "kernels/quant/q4_k_rows16.h"
#include "kernels/quant/q8_0_rows16.h"

namespace draftbench {
namespace {

constexpr RowGroupLayout kLayouts[] = {
    {GgmlType::Q8_0r16, GgmlType::Q8_0, kQ8_0r16Rows, q8_0r16_rows, q8_0r16_rows_ref, q8_0r16_indexed},
    {GgmlType::Q4_Kr16, GgmlType::Q4_K, kQ4_Kr16Rows, q4_kr16_rows, q4_kr16_rows_ref, q4_kr16_indexed},
};

}  // namespace

const RowGroupLayout* row_group_layout(GgmlType type) {
  for (const RowGroupLayout& l : kLayouts)
    if (l.type == type) return &l;
  return nullptr;
}

}  // namespace draftbench
