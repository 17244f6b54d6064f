// The CUDA quantised products, run by the grid emulator (make_emulated_kernels), against
// dot_rows_ref; and the host-device block layouts and fp16 decode against
// kernels/quant/blocks.h.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"

using namespace draftbench;

// The device reads the shared structs (kernels/quant/block_layout.h): they must be the
// file's layout (ggml-common.h), field for field.
static_assert(offsetof(BlockQ5_0, qh) == 2 && offsetof(BlockQ5_0, qs) == 6);
static_assert(offsetof(BlockQ8_0, qs) == 2);
static_assert(offsetof(BlockQ4_K, dmin) == 2 && offsetof(BlockQ4_K, scales) == 4 && offsetof(BlockQ4_K, qs) == 16);
static_assert(offsetof(BlockQ6_K, qh) == 128 && offsetof(BlockQ6_K, scales) == 192 && offsetof(BlockQ6_K, d) == 208);
static_assert(offsetof(BlockQ8_K, qs) == 4 && offsetof(BlockQ8_K, bsums) == 260);

TEST_CASE("host-device fp16 decode equals fp16_to_fp32 on every code", "[cuda-emulation]") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float got = cuda::half_to_float(static_cast<uint16_t>(h)), want = fp16_to_fp32(static_cast<uint16_t>(h));
    uint32_t got_bits, want_bits;
    std::memcpy(&got_bits, &got, 4);
    std::memcpy(&want_bits, &want, 4);
    INFO("code " << h);
    REQUIRE(got_bits == want_bits);
  }
}

TEST_CASE("emulated CUDA quantised products are bit-identical to dot_rows_ref, row by activation row", "[cuda-emulation]") {
  std::mt19937 rng(41);
  for (const GgmlType type : {GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    const int64_t bs = ggml_type_info(type).block_size;
    // One block, a few, exactly one warp's worth, one more (a second, 1-block chunk), two chunks.
    for (const int64_t blocks : {1, 3, 32, 33, 70}) {
      // Weight rows and activation rows below, at and past one CUDA block's
      // (kQuantRowsPerBlock = kQuantActivationsPerBlock = 4).
      for (const auto& [rows, n_x] : {std::pair{1, 1}, std::pair{3, 5}, std::pair{4, 4}, std::pair{5, 1}, std::pair{9, 9}}) {
        const int64_t n = blocks * bs;
        const size_t row_bytes = ggml_row_bytes(type, n), stride = row_bytes + 6;  // padded, still 2-byte aligned
        const auto packed = random_rows(type, n, rows, rng);
        std::vector<uint8_t> w(stride * rows, 0xA5);
        for (int64_t r = 0; r < rows; ++r) std::memcpy(&w[r * stride], &packed[r * row_bytes], row_bytes);
        const size_t x_bytes = activation_row_bytes(type, n);
        std::vector<uint8_t> xq(x_bytes * n_x);
        std::vector<float> ref(static_cast<size_t>(rows * n_x));
        for (int64_t i = 0; i < n_x; ++i) {
          const auto x = random_activations(n, rng);
          quantize_activation_row(type, x.data(), &xq[i * x_bytes], n);
          dot_rows_ref(type, w.data(), stride, rows, &xq[i * x_bytes], n, &ref[i * rows]);  // each activation row alone
        }
        for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
          std::vector<float> got(ref.size() + 1, -3.0f);  // a sentinel past the last product
          cuda::make_emulated_kernels(order)->quant_matvec(type, w.data(), stride, rows, xq.data(), n_x, n, got.data());
          INFO(ggml_type_name(type) << ", blocks = " << blocks << ", rows = " << rows << ", activation rows = " << n_x);
          REQUIRE(got.back() == -3.0f);
          got.pop_back();
          // Exact integer sums and the reference's float operations in its order: exact.
          REQUIRE(got == ref);
        }
      }
    }
  }
}
