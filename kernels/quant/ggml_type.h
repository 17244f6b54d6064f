// Tensor element types as numbered in GGUF files (ggml_type), with their block geometry.
// Quantised types pack `block_size` consecutive values of a row into `block_bytes` bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace draftbench {

enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  BF16 = 30,
  // Ids from 1000 up: draftbench's own in-memory layouts, never read from or written to a file.
  Q5_0x4 = 1007,   // draftbench's own: Q5_0 repacked in fours (q5_0_repack.h), never in a file
  Q4_Kt = 1012,    // likewise, Q4_K with each block's codes transposed (q4_k_transpose.h)
  Q8_0r16 = 1016,  // likewise, Q8_0 rows interleaved in sixteens (q8_0_rows16.h): the LM head
  Q4_Kr16 = 1020,  // likewise, Q4_K rows interleaved in sixteens (q4_k_rows16.h)
  Q6_Kr16 = 1022,  // likewise, Q6_K rows interleaved in sixteens (q6_k_rows16.h)
  Q5_0r16 = 1024,  // likewise, Q5_0 rows interleaved in sixteens (q5_0_rows16.h)
};

struct GgmlTypeInfo {
  GgmlType type;
  std::string_view name;
  int block_size;   // values per block
  int block_bytes;  // bytes per block
  bool in_files;    // may appear as a weight in a model file we load
};

inline constexpr int QK_K = 256;  // values per K-quant super-block

inline constexpr GgmlTypeInfo kGgmlTypes[] = {
    {GgmlType::F32, "F32", 1, 4, true},
    {GgmlType::F16, "F16", 1, 2, true},
    {GgmlType::BF16, "BF16", 1, 2, true},
    {GgmlType::Q4_0, "Q4_0", 32, 18, true},
    {GgmlType::Q4_1, "Q4_1", 32, 20, true},
    {GgmlType::Q5_0, "Q5_0", 32, 22, true},
    {GgmlType::Q5_1, "Q5_1", 32, 24, true},
    {GgmlType::Q8_0, "Q8_0", 32, 34, true},
    {GgmlType::Q8_1, "Q8_1", 32, 36, false},
    {GgmlType::Q4_K, "Q4_K", 256, 144, true},
    {GgmlType::Q5_K, "Q5_K", 256, 176, true},
    {GgmlType::Q6_K, "Q6_K", 256, 210, true},
    {GgmlType::Q8_K, "Q8_K", 256, 292, false},
    {GgmlType::Q5_0x4, "Q5_0x4", 128, 88, false},
    {GgmlType::Q4_Kt, "Q4_Kt", 256, 144, false},
    {GgmlType::Q8_0r16, "Q8_0r16", 32, 34, false},    // per row; a row's bytes are spread over its group
    {GgmlType::Q4_Kr16, "Q4_Kr16", 256, 144, false},  // likewise
    {GgmlType::Q6_Kr16, "Q6_Kr16", 256, 210, false},  // likewise
    {GgmlType::Q5_0r16, "Q5_0r16", 32, 22, false},    // likewise
};

// Returns nothing for ids we do not support (including real ggml types such as Q2_K/IQ*).
inline std::optional<GgmlTypeInfo> ggml_type_info(uint32_t id) {
  for (const auto& t : kGgmlTypes)
    if (static_cast<uint32_t>(t.type) == id) return t;
  return std::nullopt;
}

inline const GgmlTypeInfo& ggml_type_info(GgmlType type) {
  for (const auto& t : kGgmlTypes)
    if (t.type == type) return t;
  __builtin_unreachable();
}

inline std::string_view ggml_type_name(GgmlType type) { return ggml_type_info(type).name; }

// Bytes of one row of `n` values; n must be a multiple of the block size.
inline size_t ggml_row_bytes(GgmlType type, int64_t n) {
  const auto& t = ggml_type_info(type);
  return static_cast<size_t>(n / t.block_size) * static_cast<size_t>(t.block_bytes);
}

}  // namespace draftbench
