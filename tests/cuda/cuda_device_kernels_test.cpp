// The device steps only the forward pass uses (activation quantisation, residual add,
// f16/bf16 rounding), run on the GPU through make_cuda_kernels(), against the host code
// they must reproduce bit for bit; skipped (exit 77) without a GPU.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  auto device = cuda::make_cuda_kernels();
  std::mt19937 rng(23);
  for (const GgmlType type : {GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    for (const int64_t blocks : {1, 3, 130}) {
      const int64_t n = blocks * ggml_type_info(type).block_size, rows = 5;
      const std::vector<float> x = random_activations(rows * n, rng);
      const size_t row_bytes = activation_row_bytes(type, n);
      std::vector<uint8_t> want(rows * row_bytes);
      for (int64_t r = 0; r < rows; ++r) quantize_activation_row(type, x.data() + r * n, want.data() + r * row_bytes, n);
      gpu_test::DeviceBuffer<float> dx(x);
      gpu_test::DeviceBuffer<uint8_t> dq{std::vector<uint8_t>(want.size())};
      device->quantize_rows(type, dx.data(), n, rows, n, dq.data());
      const auto got = dq.download();
      for (size_t i = 0; i < want.size(); ++i) mismatches.check(got[i] == want[i], "quantize_rows", i, got[i], want[i]);
    }
  }
  const int64_t n = 100003;
  const std::vector<float> x = random_activations(n, rng), y = random_activations(n, rng);
  gpu_test::DeviceBuffer<float> dx(x), dsum(y);
  gpu_test::DeviceBuffer<uint16_t> dhalf{std::vector<uint16_t>(n)}, dbf16{std::vector<uint16_t>(n)};
  device->elementwise(cuda::ElementwiseOp::kAdd, dx.data(), dsum.data(), n);
  device->elementwise(cuda::ElementwiseOp::kToHalf, dx.data(), dhalf.data(), n);
  device->elementwise(cuda::ElementwiseOp::kToBf16, dx.data(), dbf16.data(), n);
  const auto sum = dsum.download();
  const auto half = dhalf.download(), bf16 = dbf16.download();
  for (int64_t i = 0; i < n; ++i) {
    const float want = y[i] + x[i];
    mismatches.check(std::memcmp(&sum[i], &want, 4) == 0, "add", i, sum[i], want);
    mismatches.check(half[i] == fp32_to_fp16(x[i]), "to_half", i, half[i], fp32_to_fp16(x[i]));
    mismatches.check(bf16[i] == cuda::float_to_bf16(x[i]), "to_bf16", i, bf16[i], cuda::float_to_bf16(x[i]));
  }
  const int64_t width = 77;
  const std::vector<int64_t> rows = {8, 0, 3, 3, 5};
  gpu_test::DeviceBuffer<int64_t> drows(rows);
  gpu_test::DeviceBuffer<float> dgathered{std::vector<float>(rows.size() * width)};
  device->gather_rows(dx.data(), width, drows.data(), static_cast<int64_t>(rows.size()), dgathered.data());
  const auto gathered = dgathered.download();
  for (size_t i = 0; i < gathered.size(); ++i) {
    const float want = x[rows[i / width] * width + i % width];
    mismatches.check(gathered[i] == want, "gather_rows", i, gathered[i], want);
  }
  const std::vector<float> bias = random_activations(width, rng);
  gpu_test::DeviceBuffer<float> dbias(bias), dbiased(y);
  device->add_row_bias(dbias.data(), dbiased.data(), n / width, width);
  const auto biased = dbiased.download();
  for (int64_t i = 0; i < n; ++i) {
    const float want = i < n / width * width ? y[i] + bias[i % width] : y[i];
    mismatches.check(std::memcmp(&biased[i], &want, 4) == 0, "add_row_bias", i, biased[i], want);
  }
  return mismatches.finish("device_kernels");
}
