// The reference products of a row-interleaved layout whose float contract is its file
// type's (Q4_Kr16, Q6_Kr16, Q5_0r16): each row unpacked back to the file's blocks (a copy: the slow
// path) and run through dot_row_ref, so the reference is the file type's by construction;
// rows by id (a draft vocabulary over such a head) likewise through the file type's fastest
// single-row kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/quant/ggml_type.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"

namespace draftbench {

// Block: the file type's block; Unpack(group, lane, nb, out) writes row `lane` of a group as
// nb file blocks. One row's blocks are unpacked into a buffer allocated once per call.
template <typename Block, GgmlType kFileType, int kRows, void (*Unpack)(const uint8_t*, int, int64_t, Block*)>
struct UnpackedReference {
  // Row `row` of the matrix at w as file blocks, in `blocks` (nb of them).
  static const uint8_t* unpack(const uint8_t* w, int64_t row, int64_t nb, std::vector<Block>& blocks) {
    blocks.resize(static_cast<size_t>(nb));
    Unpack(w + static_cast<size_t>(row / kRows) * static_cast<size_t>(kRows * nb) * sizeof(Block), static_cast<int>(row % kRows), nb, blocks.data());
    return reinterpret_cast<const uint8_t*>(blocks.data());
  }
  // The row_groups.h signatures: whole groups from w through the file type's reference, or
  // rows by id through its fastest single-row products (bit-identical to the reference).
  static void rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
    DB_CHECK(n_rows % kRows == 0);
    std::vector<Block> blocks;
    const int64_t n = nb * ggml_type_info(kFileType).block_size;
    for (int64_t r = 0; r < n_rows; ++r) {
      const uint8_t* row = unpack(w, r, nb, blocks);
      for (int64_t x = 0; x < n_x; ++x)
        y[static_cast<size_t>(x) * y_stride + static_cast<size_t>(r)] = dot_row_ref(kFileType, row, xq + static_cast<size_t>(x) * xq_stride, n);
    }
  }
  static void indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y) {
    std::vector<Block> blocks;
    const int64_t n = nb * ggml_type_info(kFileType).block_size;
    for (int64_t k = 0; k < n_ids; ++k) dot_rows(kFileType, unpack(w, ids[k], nb, blocks), sizeof(Block) * static_cast<size_t>(nb), 1, xq, n, y + k);
  }
};

// The VNNI build exactly where the dot products' dispatcher picks theirs.
inline bool row_groups_have_vnni() { return std::strcmp(dot_rows_backend(), "avx512vnni") == 0; }

}  // namespace draftbench
