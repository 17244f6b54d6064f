#include "kernels/quant/row_groups.h"

#include "kernels/quant/q4_k_rows16.h"
#include "kernels/quant/q5_0_rows16.h"
#include "kernels/quant/q6_k_rows16.h"
#include "kernels/quant/q8_0_rows16.h"

namespace draftbench {
namespace {

using Use = RowGroupLayout::Use;

constexpr RowGroupLayout kLayouts[] = {
    {GgmlType::Q8_0r16, GgmlType::Q8_0, kQ8_0r16Rows, kQ8_0r16MaxBlocks, 2, Use::kHead, interleave_q8_0_rows16, q8_0r16_rows, q8_0r16_rows_ref,
     q8_0r16_indexed},
    {GgmlType::Q4_Kr16, GgmlType::Q4_K, kQ4_Kr16Rows, kQ4_Kr16MaxBlocks, 1, Use::kLayers, interleave_q4_k_rows16, q4_kr16_rows, q4_kr16_rows_ref,
     q4_kr16_indexed},
    {GgmlType::Q6_Kr16, GgmlType::Q6_K, kQ6_Kr16Rows, kQ6_Kr16MaxBlocks, 1, Use::kLayers, interleave_q6_k_rows16, q6_kr16_rows, q6_kr16_rows_ref,
     q6_kr16_indexed},
    {GgmlType::Q5_0r16, GgmlType::Q5_0, kQ5_0r16Rows, kQ5_0r16MaxBlocks, 1, Use::kLayers, interleave_q5_0_rows16, q5_0r16_rows, q5_0r16_rows_ref,
     q5_0r16_indexed},
};

}  // namespace

const RowGroupLayout* row_group_layout(GgmlType type) {
  for (const RowGroupLayout& l : kLayouts)
    if (l.type == type) return &l;
  return nullptr;
}

const RowGroupLayout* row_group_layout_of(GgmlType file_type, RowGroupLayout::Use use) {
  for (const RowGroupLayout& l : kLayouts)
    if (l.file_type == file_type && l.use == use) return &l;
  return nullptr;
}

}  // namespace draftbench
