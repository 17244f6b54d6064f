// The device-side steps the forward pass adds (fp16/bf16 encodes, activation quantisation,
// element-wise steps), run by the grid emulator through make_emulated_kernels(), against
// the host code they must reproduce bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/elementwise.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"

using namespace draftbench;

namespace {

float float_of(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Every float whose encode is a rounding decision worth checking: each half's neighbourhood
// (itself, the midpoints to its neighbours and one ulp either side of them), the
// subnormal/normal and overflow edges, and a stride through all 2^32 patterns.
std::vector<float> encode_cases() {
  std::vector<float> cases;
  for (uint32_t h = 0; h < 0x7C00u; ++h) {
    const float v = fp16_to_fp32(static_cast<uint16_t>(h)), next = fp16_to_fp32(static_cast<uint16_t>(h + 1));
    const float mid = v + (next - v) / 2;  // exact: the halves' midpoint has few bits
    for (const float f : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      cases.push_back(f);
      cases.push_back(-f);
    }
  }
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 65521) cases.push_back(float_of(static_cast<uint32_t>(bits)));
  for (const float f : {65504.0f, 65519.99f, 65520.0f, 1e30f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(), 5.9604645e-8f,
                        2.9802322e-8f, 2.9802326e-8f})
    cases.push_back(f);
  return cases;
}

}  // namespace

TEST_CASE("host-device fp16 encode equals F16C's on every rounding boundary", "[cuda-emulation]") {
  for (const float f : encode_cases()) {
    if (std::isnan(f)) continue;  // activations are finite; NaN payloads are F16C's business
    INFO("value " << f);
    REQUIRE(cuda::float_to_half(f) == fp32_to_fp16(f));
  }
}

TEST_CASE("host-device bf16 encode rounds to the nearest bf16, ties to even", "[cuda-emulation]") {
  for (const float f : encode_cases()) {
    if (std::isnan(f)) {
      REQUIRE(std::isnan(bf16_to_fp32(cuda::float_to_bf16(f))));
      continue;
    }
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t got = cuda::float_to_bf16(f), down = static_cast<uint16_t>(bits >> 16), up = static_cast<uint16_t>(down + 1);
    const uint32_t rest = bits & 0xFFFFu;
    const uint16_t want = rest < 0x8000u ? down : rest > 0x8000u ? up : ((down & 1u) ? up : down);
    INFO("value " << f);
    REQUIRE(got == want);
  }
}

TEST_CASE("emulated device quantisation writes quantize_activation_row's bytes", "[cuda-emulation]") {
  auto device = cuda::make_emulated_kernels();
  std::mt19937 rng(5);
  for (const GgmlType type : {GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    for (const int64_t blocks : {1, 3, 130}) {  // 130 blocks: two grid columns of 128 threads
      const int64_t n = blocks * ggml_type_info(type).block_size, rows = 3, stride = n + 7;
      std::vector<float> x = random_activations(rows * stride, rng);
      std::fill_n(x.begin() + stride, n, 0.0f);  // an all-zero row: Q8_K's early exit
      x[2 * stride + 5] = -40.0f;                // a negative maximum: Q8_K maps it to -128
      const size_t row_bytes = activation_row_bytes(type, n);
      std::vector<uint8_t> got(rows * row_bytes, 0xA5), want(rows * row_bytes);
      device->quantize_rows(type, x.data(), stride, rows, n, got.data());
      for (int64_t r = 0; r < rows; ++r) quantize_activation_row(type, x.data() + r * stride, want.data() + r * row_bytes, n);
      INFO(ggml_type_name(type) << " " << blocks << " blocks");
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("emulated element-wise steps: residual add and f16/bf16 rounding", "[cuda-emulation]") {
  auto device = cuda::make_emulated_kernels();
  std::mt19937 rng(6);
  const int64_t n = 1000;  // not a multiple of the block's 256 threads
  const std::vector<float> x = random_activations(n, rng);
  std::vector<float> sum = random_activations(n, rng), want = sum;
  for (int64_t i = 0; i < n; ++i) want[i] += x[i];
  device->elementwise(cuda::ElementwiseOp::kAdd, x.data(), sum.data(), n);
  REQUIRE(std::memcmp(sum.data(), want.data(), n * sizeof(float)) == 0);
  std::vector<uint16_t> half(n + 1, 0xBEEF), bf16(n + 1, 0xBEEF);
  device->elementwise(cuda::ElementwiseOp::kToHalf, x.data(), half.data(), n);
  device->elementwise(cuda::ElementwiseOp::kToBf16, x.data(), bf16.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    REQUIRE(half[i] == fp32_to_fp16(x[i]));
    REQUIRE(bf16[i] == cuda::float_to_bf16(x[i]));
  }
  REQUIRE(half[n] == 0xBEEF);  // nothing written past n
  REQUIRE(bf16[n] == 0xBEEF);
}

TEST_CASE("emulated row bias: the bias added to every row, nothing past them", "[cuda-emulation]") {
  auto device = cuda::make_emulated_kernels(cuda::ThreadOrder::kReverse);
  std::mt19937 rng(9);
  const int64_t width = 77, n_rows = 5;  // rows that straddle the block's 256 threads
  const std::vector<float> bias = random_activations(width, rng);
  std::vector<float> y = random_activations(width * n_rows, rng), want = y;
  add_row_bias(bias.data(), want.data(), n_rows, width);  // the CPU kernel (kernels/ops/elementwise.h)
  y.push_back(-2.0f);
  device->add_row_bias(bias.data(), y.data(), n_rows, width);
  REQUIRE(std::memcmp(y.data(), want.data(), want.size() * sizeof(float)) == 0);
  REQUIRE(y.back() == -2.0f);
}

TEST_CASE("emulated row gather: chosen rows, in the order asked, repeats allowed", "[cuda-emulation]") {
  auto device = cuda::make_emulated_kernels(cuda::ThreadOrder::kReverse);
  std::mt19937 rng(8);
  const int64_t width = 77, n_src = 9;  // rows that straddle the block's 256 threads
  const std::vector<float> x = random_activations(width * n_src, rng);
  const std::vector<int64_t> rows = {8, 0, 3, 3, 5};
  std::vector<float> out(rows.size() * width + 1, -2.0f);
  device->gather_rows(x.data(), width, rows.data(), static_cast<int64_t>(rows.size()), out.data());
  for (size_t r = 0; r < rows.size(); ++r) REQUIRE(std::memcmp(&out[r * width], &x[rows[r] * width], width * sizeof(float)) == 0);
  REQUIRE(out.back() == -2.0f);
}
