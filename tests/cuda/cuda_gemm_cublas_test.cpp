// The cuBLASLt GEMM wrapper against dot_rows_ref on F32, F16 and BF16 matrices, and its
// batch invariance (a row alone gives the bits it gives in a batch); skipped (exit 77)
// without a GPU.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/gemm_cublas.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

namespace {

// x in `type`'s element encoding (round to nearest even), and those rounded values as f32
// so the CPU reference multiplies exactly what the GPU does.
struct EncodedActivations {
  std::vector<uint8_t> bytes;
  std::vector<float> rounded;
};

EncodedActivations encode(GgmlType type, const std::vector<float>& x) {
  EncodedActivations e;
  e.rounded = x;
  if (type == GgmlType::F32) {
    e.bytes.resize(x.size() * 4);
    std::memcpy(e.bytes.data(), x.data(), e.bytes.size());
    return e;
  }
  e.bytes.resize(x.size() * 2);
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t h;
    if (type == GgmlType::F16) {
      h = fp32_to_fp16(x[i]);
      e.rounded[i] = fp16_to_fp32(h);
    } else {
      h = cuda::float_to_bf16(x[i]);
      e.rounded[i] = bf16_to_fp32(h);
    }
    std::memcpy(&e.bytes[2 * i], &h, 2);
  }
  return e;
}

float element(GgmlType type, const uint8_t* row, int64_t i) {
  if (type == GgmlType::F32) {
    float f;
    std::memcpy(&f, row + 4 * i, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, row + 2 * i, 2);
  return type == GgmlType::F16 ? fp16_to_fp32(h) : bf16_to_fp32(h);
}

}  // namespace

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  cuda::CublasGemm gemm;
  gpu_test::check_cuda(gemm.init_status() == 0 ? 0 : 1, "cublasCreate");
  std::mt19937 rng(17);
  for (const GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16}) {
    for (const int64_t n_in : {1, 96, 257, 2048}) {
      for (const int64_t n_x : {1, 5, 64}) {
        const int64_t n_out = 67;
        const size_t row_bytes = ggml_row_bytes(type, n_in);
        const auto w = random_rows(type, n_in, n_out, rng);
        const auto x = encode(type, random_activations(n_x * n_in, rng));
        gpu_test::DeviceBuffer<uint8_t> dw(w), dx(x.bytes);
        gpu_test::DeviceBuffer<float> dy{std::vector<float>(n_x * n_out)};
        const int status = gemm.matmul(type, dw.data(), n_out, n_in, dx.data(), n_x, dy.data());
        if (status != 0) {
          std::printf("FAILED: cublasGemmEx status %d\n", status);
          return 1;
        }
        const auto got = dy.download();
        // Batch invariance: the first and last rows alone give the bits they gave in the batch.
        for (const int64_t r : {int64_t{0}, n_x - 1}) {
          gpu_test::DeviceBuffer<float> alone{std::vector<float>(n_out)};
          const size_t offset = static_cast<size_t>(r * n_in) * (type == GgmlType::F32 ? 4 : 2);
          gpu_test::check_cuda(gemm.matmul(type, dw.data(), n_out, n_in, dx.data() + offset, 1, alone.data()) == 0 ? 0 : 1, "gemm alone");
          const auto one = alone.download();
          for (int64_t o = 0; o < n_out; ++o)
            mismatches.check(std::memcmp(&one[o], &got[r * n_out + o], 4) == 0, "gemm_cublas batch invariance", static_cast<size_t>(r * n_out + o), one[o],
                             got[r * n_out + o]);
        }
        std::vector<float> ref(n_out);
        for (int64_t r = 0; r < n_x; ++r) {
          // The CPU product's own activation format: BF16 rows as encoded (vdpbf16ps's
          // operands), F32/F16 as the f32 values of the encoding.
          const void* ref_x =
              activation_type_for(type) == type ? static_cast<const void*>(x.bytes.data() + static_cast<size_t>(r) * row_bytes) : x.rounded.data() + r * n_in;
          dot_rows_ref(type, w.data(), row_bytes, n_out, ref_x, n_in, ref.data());
          for (int64_t o = 0; o < n_out; ++o) {
            // Products of these inputs are exact in f32 (F16/BF16) or rounded once (F32);
            // both sides then sum n_in of them in f32 in different orders, each within
            // gamma_n * sum|w x| (gamma_n ~ n * FLT_EPSILON / 2) of the exact dot product.
            double magnitude = 0.0;
            for (int64_t i = 0; i < n_in; ++i) magnitude += std::fabs(element(type, w.data() + o * row_bytes, i) * x.rounded[r * n_in + i]);
            const double tol = static_cast<double>(n_in + 2) * FLT_EPSILON * magnitude;
            const float g = got[r * n_out + o];
            mismatches.check(std::fabs(g - ref[o]) <= tol, "gemm_cublas", static_cast<size_t>(r * n_out + o), g, ref[o]);
          }
        }
      }
    }
  }
  return mismatches.finish("gemm_cublas");
}
