// Quantised dot products: the AVX2 kernels are bit-identical to the reference on random
// blocks of every type and odd row counts, and the reference agrees with a plain float
// dot of the dequantised operands (which checks the integer formulas themselves).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/dequantize.h"
#include "kernels/quant/block_repack.h"
#include "kernels/quant/k_quant_amx.h"
#include "kernels/quant/q5_0_repack.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/requantize.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

using namespace draftbench;

namespace {

struct WeightMatrixData {
  std::vector<uint8_t> bytes;
};

const GgmlType kWeightTypes[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16, GgmlType::Q4_0,  GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_0x4,
                                 GgmlType::Q5_1, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q4_Kt, GgmlType::Q5_K, GgmlType::Q6_K};

}  // namespace

TEST_CASE("optimised dot products are bit-identical to the reference", "[quant]") {
  if (!cpu_features().avx2) {
    WARN("no AVX2 on this CPU: only the reference runs");
    return;
  }
  std::mt19937 rng(1234);
  for (GgmlType type : kWeightTypes) {
    const bool float_type = ggml_type_info(type).block_size == 1;
    const int block = float_type ? 32 : ggml_type_info(type).block_size;
    // Odd and even block counts (the AVX-512 kernel takes blocks in pairs), and Q5_0's short
    // last groups of one to three blocks (block_lanes.h's group lanes).
    std::vector<int64_t> lengths{block, 2 * block, 3 * block, 4 * block, 5 * block};
    if (float_type) lengths.insert(lengths.end(), {1, 7, 45, 640});  // float rows take any length: the 16-lane tails too
    if (block == 32 && !float_type)
      lengths.insert(lengths.end(), {127 * 32, 129 * 32, 513 * 32, 1025 * 32});       // the AVX-512 kernels' prepared rows end at 128 (batch) and 512
                                                                                      // blocks, the AVX2 batches' scales on the stack at 1024
    if (block == 256) lengths.insert(lengths.end(), {43 * 256, 64 * 256, 65 * 256});  // Vicuna's ffn_down (odd); Q4_K's AVX-512 mat-vec ends at 64 blocks
    if (type == GgmlType::Q5_0x4)
      lengths.insert(lengths.end(), {kQ5_0x4MaxValues, kQ5_0x4MaxValues + 128});  // the prepared rows end there; longer rows take the reference
    for (int64_t n : lengths) {
      for (int64_t rows : {1, 7, 8, 9, 17, 64}) {
        const auto w = random_rows(type, n, rows, rng);
        const auto x = random_activations(n, rng);
        std::vector<uint8_t> xq(activation_row_bytes(type, n));
        quantize_activation_row(type, x.data(), xq.data(), n);
        std::vector<float> ref(rows), opt(rows), idx(rows);
        dot_rows_ref(type, w.data(), ggml_row_bytes(type, n), rows, xq.data(), n, ref.data());
        dot_rows_avx2(type, w.data(), ggml_row_bytes(type, n), rows, xq.data(), n, opt.data());
        std::vector<float> vnni(rows);
        const bool have_vnni = cpu_features().avx512vnni && cpu_features().avx512bw && cpu_features().avx512vl;
        if (have_vnni) dot_rows_avx512vnni(type, w.data(), ggml_row_bytes(type, n), rows, xq.data(), n, vnni.data());
        std::vector<int32_t> ids(rows);
        for (int64_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>(rows - 1 - r);
        dot_rows_indexed_avx2(type, w.data(), ggml_row_bytes(type, n), ids.data(), rows, xq.data(), n, idx.data());
        std::vector<float> idx_vnni(rows);
        if (have_vnni) dot_rows_indexed_avx512vnni(type, w.data(), ggml_row_bytes(type, n), ids.data(), rows, xq.data(), n, idx_vnni.data());
        // Eleven activation rows through the batched kernels (the 512-bit one takes groups of
        // eight, then the rest): each must equal its own dot_rows_ref.
        constexpr int64_t kX = 11;
        const size_t xq_bytes = activation_row_bytes(type, n);
        std::vector<uint8_t> xqs(xq_bytes * kX);
        std::vector<float> batch(rows * kX), batch_ref(rows);
        for (int64_t x = 0; x < kX; ++x) {
          const auto xs = random_activations(n, rng);
          quantize_activation_row(type, xs.data(), xqs.data() + x * xq_bytes, n);
        }
        std::vector<float> batch_vnni(rows * kX);
        dot_rows_batch_avx2(type, w.data(), ggml_row_bytes(type, n), rows, xqs.data(), xq_bytes, kX, n, batch.data(), rows);
        if (have_vnni) dot_rows_batch_avx512vnni(type, w.data(), ggml_row_bytes(type, n), rows, xqs.data(), xq_bytes, kX, n, batch_vnni.data(), rows);
        for (int64_t x = 0; x < kX; ++x) {
          dot_rows_ref(type, w.data(), ggml_row_bytes(type, n), rows, xqs.data() + x * xq_bytes, n, batch_ref.data());
          INFO(ggml_type_name(type) << " n=" << n << " rows=" << rows << " batched activation row " << x);
          REQUIRE(std::memcmp(batch_ref.data(), batch.data() + x * rows, rows * 4) == 0);
          if (have_vnni) REQUIRE(std::memcmp(batch_ref.data(), batch_vnni.data() + x * rows, rows * 4) == 0);
        }
        INFO(ggml_type_name(type) << " n=" << n << " rows=" << rows);
        for (int64_t r = 0; r < rows; ++r) {
          REQUIRE(std::memcmp(&ref[r], &opt[r], 4) == 0);
          if (have_vnni) REQUIRE(std::memcmp(&ref[r], &vnni[r], 4) == 0);
          REQUIRE(std::memcmp(&ref[rows - 1 - r], &idx[r], 4) == 0);
          if (have_vnni) REQUIRE(std::memcmp(&ref[rows - 1 - r], &idx_vnni[r], 4) == 0);
        }
      }
    }
  }
}

TEST_CASE("AMX K-quant batches are bit-identical to the reference, row by row", "[quant][amx]") {
  if (!cpu_features().amx_int8 || !cpu_features().avx512bw || !cpu_features().avx512vl) {
    WARN("no AMX-INT8 on this CPU (or DRAFTBENCH_NO_AMX is set): the AMX kernels are not run");
    return;
  }
  std::mt19937 rng(4321);
  for (const GgmlType type : {GgmlType::Q4_K, GgmlType::Q6_K})
    // Row and activation counts around the 16-row tiles and 64-row groups; one to six blocks
    // and Qwen's 35-block ffn_down.
    for (const int64_t n : {256, 1024, 1536, 35 * 256})
      for (const int64_t rows : {1, 15, 16, 17, 64, 65, 100})
        for (const int64_t n_x : {1, 4, 16, 17, 64, 70}) {
          if (n == 35 * 256 && rows > 17) continue;
          const auto w = random_rows(type, n, rows, rng);
          const size_t xq_bytes = activation_row_bytes(type, n), row_bytes = ggml_row_bytes(type, n);
          std::vector<uint8_t> xq(xq_bytes * static_cast<size_t>(n_x));
          for (int64_t x = 0; x < n_x; ++x) quantize_activation_row(type, random_activations(n, rng).data(), xq.data() + x * xq_bytes, n);
          // A y stride wider than the row count: the kernel writes only its own outputs.
          const size_t y_stride = static_cast<size_t>(rows) + 3;
          std::vector<float> amx(y_stride * static_cast<size_t>(n_x), -7.0f), ref(static_cast<size_t>(rows));
          REQUIRE(k_quant_rows_batch_amx(type, w.data(), row_bytes, rows, xq.data(), xq_bytes, n_x, n, amx.data(), y_stride));
          for (int64_t x = 0; x < n_x; ++x) {
            dot_rows_ref(type, w.data(), row_bytes, rows, xq.data() + x * xq_bytes, n, ref.data());
            INFO(ggml_type_name(type) << " n=" << n << " rows=" << rows << " activation rows=" << n_x << " row " << x);
            REQUIRE(std::memcmp(ref.data(), amx.data() + x * y_stride, rows * 4) == 0);
            for (size_t pad = static_cast<size_t>(rows); pad < y_stride; ++pad) REQUIRE(amx[x * y_stride + pad] == -7.0f);
          }
        }
  // Types without an AMX kernel are declined, nothing written.
  float untouched = -7.0f;
  REQUIRE_FALSE(k_quant_rows_batch_amx(GgmlType::Q8_0, nullptr, 0, 1, nullptr, 0, 1, 32, &untouched, 1));
  REQUIRE(untouched == -7.0f);
}

TEST_CASE("repacked rows (Q5_0 in fours, Q4_K transposed) give the file rows' products bit for bit", "[quant]") {
  // The engine repacks weights (block_repack.h) and must decode exactly as before, on every
  // backend: each runs every layout, whichever it repacks to.
  std::mt19937 rng(4321);
  for (const GgmlType type : {GgmlType::Q5_0x4, GgmlType::Q4_Kt}) {
    const GgmlType file_type = *repacked_from(type);
    for (const int64_t n : std::initializer_list<int64_t>{128, 256, 640, 768, 2048, 4096, 11008, kQ5_0x4MaxValues, kQ5_0x4MaxValues + 128}) {
      if (n % ggml_type_info(type).block_size != 0) continue;
      const int64_t rows = 33;
      const auto blocks = random_rows(file_type, n, rows, rng);
      std::vector<uint8_t> groups(blocks.size()), back(blocks.size());
      repack_values(type, blocks.data(), n * rows, groups.data());
      unpack_values(type, groups.data(), n * rows, back.data());
      REQUIRE(back == blocks);
      REQUIRE(groups != blocks);
      REQUIRE(ggml_row_bytes(type, n) == ggml_row_bytes(file_type, n));
      std::vector<float> w_blocks(n), w_groups(n);
      dequantize_row(file_type, blocks.data(), w_blocks.data(), n);
      dequantize_row(type, groups.data(), w_groups.data(), n);
      REQUIRE(std::memcmp(w_blocks.data(), w_groups.data(), static_cast<size_t>(n) * 4) == 0);
      const int64_t n_x = 5;
      const auto x = random_activations(n * n_x, rng);
      const size_t xq_bytes = activation_row_bytes(file_type, n);
      REQUIRE(activation_row_bytes(type, n) == xq_bytes);
      std::vector<uint8_t> xq(xq_bytes * n_x);
      for (int64_t i = 0; i < n_x; ++i) quantize_activation_row(file_type, x.data() + i * n, xq.data() + i * xq_bytes, n);
      std::vector<float> from_blocks(rows * n_x), from_groups(rows * n_x);
      const size_t row_bytes = ggml_row_bytes(file_type, n);
      dot_rows_batch(file_type, blocks.data(), row_bytes, rows, xq.data(), xq_bytes, n_x, n, from_blocks.data(), rows);
      dot_rows_batch(type, groups.data(), row_bytes, rows, xq.data(), xq_bytes, n_x, n, from_groups.data(), rows);
      INFO(ggml_type_name(type) << ", n " << n << ", backend " << dot_rows_backend());
      REQUIRE(std::memcmp(from_blocks.data(), from_groups.data(), from_blocks.size() * 4) == 0);
      dot_rows(type, groups.data(), row_bytes, rows, xq.data(), n, from_groups.data());
      REQUIRE(std::memcmp(from_blocks.data(), from_groups.data(), static_cast<size_t>(rows) * 4) == 0);
    }
  }
}

namespace {

// Rows of a repacked type against one activation row, as dot_rows and as a batch of two
// copies of it, each bit-identical to dot_rows_ref of the file rows; the reference's results.
template <typename ActivationBlock>
std::vector<float> require_repacked_matches_reference(GgmlType type, const void* file_rows, const void* repacked_rows, int64_t rows,
                                                      const std::vector<ActivationBlock>& xq, int64_t n) {
  const GgmlType file_type = *repacked_from(type);
  const size_t row_bytes = ggml_row_bytes(file_type, n);
  std::vector<float> ref(rows), opt(rows), batch(rows * 2);
  std::vector<ActivationBlock> two(xq);
  two.insert(two.end(), xq.begin(), xq.end());
  dot_rows_ref(file_type, static_cast<const uint8_t*>(file_rows), row_bytes, rows, xq.data(), n, ref.data());
  dot_rows(type, static_cast<const uint8_t*>(repacked_rows), row_bytes, rows, xq.data(), n, opt.data());
  dot_rows_batch(type, static_cast<const uint8_t*>(repacked_rows), row_bytes, rows, reinterpret_cast<const uint8_t*>(two.data()),
                 xq.size() * sizeof(ActivationBlock), 2, n, batch.data(), rows);
  REQUIRE(std::memcmp(ref.data(), opt.data(), rows * 4) == 0);
  REQUIRE(std::memcmp(ref.data(), batch.data(), rows * 4) == 0);
  REQUIRE(std::memcmp(ref.data(), batch.data() + rows, rows * 4) == 0);
  return ref;
}

}  // namespace

TEST_CASE("Q4_Kt's 16-bit sums hold at the extreme codes and activations", "[quant]") {
  // The kernel adds eight planes' vpmaddubsw word sums in 16 bits before scaling: with every
  // code 15 and every activation code -128 (or 127) a word reaches 8 x 2 x 15 x 128 = 30720.
  const int64_t n = 4 * QK_K, rows = 3;
  std::vector<BlockQ4_K> w(static_cast<size_t>(n / QK_K * rows));
  for (auto& b : w) {
    b.d = fp32_to_fp16(0.5f);
    b.dmin = fp32_to_fp16(0.25f);
    std::memset(b.scales, 0xFF, sizeof b.scales);  // every 6-bit scale and min 63
    std::memset(b.qs, 0xFF, sizeof b.qs);
  }
  std::vector<BlockQ4_K> wt(w.size());
  repack_values(GgmlType::Q4_Kt, w.data(), n * rows, wt.data());
  for (const int8_t code : {int8_t{-128}, int8_t{127}}) {
    std::vector<BlockQ8_K> xq(static_cast<size_t>(n / QK_K));
    for (auto& b : xq) {
      b.d = 0.125f;
      std::memset(b.qs, static_cast<uint8_t>(code), sizeof b.qs);
      for (auto& s : b.bsums) s = static_cast<int16_t>(16 * code);
    }
    INFO("activation code " << int{code} << ", backend " << dot_rows_backend());
    const auto ref = require_repacked_matches_reference(GgmlType::Q4_Kt, w.data(), wt.data(), rows, xq, n);
    REQUIRE(ref[0] == 0.5f * 0.125f * static_cast<float>(63 * 15 * 32 * 8 * code) * 4 - 0.25f * 0.125f * static_cast<float>(63 * 32 * 8 * code) * 4);
  }
}

TEST_CASE("Q5_0x4's 16-bit sums hold at the extreme codes and activations", "[quant]") {
  // The kernel adds four registers' vpmaddubsw word sums, codes taken unsigned (0..31), in 16
  // bits before widening: with every code 31 and every activation code -128 a word reaches
  // 8 x 31 x -128 = -31744. Five groups: Gemma's rows, an odd group count.
  const int64_t n = 5 * 128, rows = 3;
  std::vector<BlockQ5_0> w(static_cast<size_t>(n / 32 * rows));
  for (auto& b : w) {
    b.d = fp32_to_fp16(0.5f);
    std::memset(b.qh, 0xFF, sizeof b.qh);
    std::memset(b.qs, 0xFF, sizeof b.qs);  // code 31: the value 15
  }
  std::vector<BlockQ5_0> wx(w.size());
  repack_values(GgmlType::Q5_0x4, w.data(), n * rows, wx.data());
  for (const int8_t code : {int8_t{-128}, int8_t{127}}) {
    std::vector<BlockQ8_0> xq(static_cast<size_t>(n / 32));
    for (auto& b : xq) {
      b.d = fp32_to_fp16(0.125f);
      std::memset(b.qs, static_cast<uint8_t>(code), sizeof b.qs);
    }
    INFO("activation code " << int{code} << ", backend " << dot_rows_backend());
    const auto ref = require_repacked_matches_reference(GgmlType::Q5_0x4, w.data(), wx.data(), rows, xq, n);
    REQUIRE(ref[0] == 0.5f * 0.125f * static_cast<float>(15 * code * n));
  }
}

TEST_CASE("reference dot products match the dequantised float dot", "[quant]") {
  std::mt19937 rng(99);
  for (GgmlType type : kWeightTypes) {
    const int block = ggml_type_info(type).block_size == 1 ? 32 : ggml_type_info(type).block_size;
    const int64_t n = block * 4;
    const auto w = random_rows(type, n, 1, rng);
    const auto x = random_activations(n, rng);
    std::vector<uint8_t> xq(activation_row_bytes(type, n));
    quantize_activation_row(type, x.data(), xq.data(), n);
    std::vector<float> wf(n), xf(n);
    dequantize_row(type, w.data(), wf.data(), n);
    const GgmlType at = activation_type_for(type);
    if (at == GgmlType::F32) xf = x;
    else if (at == GgmlType::BF16) dequantize_row(GgmlType::BF16, xq.data(), xf.data(), n);
    else if (at == GgmlType::Q8_K) {
      const auto* b = reinterpret_cast<const BlockQ8_K*>(xq.data());
      for (int64_t i = 0; i < n; ++i) xf[i] = b[i / QK_K].d * b[i / QK_K].qs[i % QK_K];
    } else if (at == GgmlType::Q8_1) {
      const auto* b = reinterpret_cast<const BlockQ8_1*>(xq.data());
      for (int64_t i = 0; i < n; ++i) xf[i] = fp16_to_fp32(b[i / 32].d) * b[i / 32].qs[i % 32];
    } else {
      dequantize_row(GgmlType::Q8_0, xq.data(), xf.data(), n);
    }
    double expect = 0.0, magnitude = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      expect += static_cast<double>(wf[i]) * xf[i];
      magnitude += std::fabs(static_cast<double>(wf[i]) * xf[i]);
    }
    float got = 0.0f;
    dot_rows_ref(type, w.data(), ggml_row_bytes(type, n), 1, xq.data(), n, &got);
    INFO(ggml_type_name(type));
    // Float rounding of per-block partial sums only: relative to the sum of magnitudes.
    REQUIRE(std::fabs(got - expect) <= 1e-5 * magnitude + 1e-6);
    // And the activation quantisation itself stays within half a step per value.
    if (at != GgmlType::F32) {
      double err = 0.0, mag = 0.0;
      for (int64_t i = 0; i < n; ++i) {
        err += std::fabs(static_cast<double>(xf[i]) - x[i]);
        mag += std::fabs(x[i]);
      }
      REQUIRE(err / mag < 0.02);
    }
  }
}

TEST_CASE("matmul rows are bit-identical whatever the batch size and thread count", "[quant][invariance]") {
  std::mt19937 rng(8);
  ThreadPool one(1), two(2);
  for (GgmlType type : kWeightTypes) {
    const int block = ggml_type_info(type).block_size == 1 ? 32 : ggml_type_info(type).block_size;
    const WeightMatrixData data{random_rows(type, block * 3, 150, rng)};
    const WeightMatrix w{type, block * 3, 150, data.bytes.data()};
    for (const int64_t n_x : {2, 3, 9}) {
      const auto x = random_activations(w.n_in * n_x, rng);
      std::vector<float> batched(n_x * w.n_out), single(w.n_out);
      std::vector<uint8_t> scratch(matmul_scratch_bytes(w, n_x, 2));
      matmul(w, x.data(), n_x, batched.data(), two, scratch);
      for (int64_t i = 0; i < n_x; ++i) {
        matmul(w, x.data() + i * w.n_in, 1, single.data(), one, scratch);
        INFO(ggml_type_name(type) << " row " << i);
        REQUIRE(std::memcmp(single.data(), batched.data() + i * w.n_out, single.size() * 4) == 0);
      }
    }
  }
}

TEST_CASE("AVX2 activation quantisation is bit-identical to the reference", "[quant]") {
  if (!cpu_features().avx2) {
    WARN("no AVX2 on this CPU: only the reference runs");
    return;
  }
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  // Rows that stress each step: random magnitudes over many octaves; all-zero blocks; a
  // block of one repeated value; the largest magnitude twice with opposite signs (Q8_K keeps
  // the first); tiny (subnormal) values whose fp16 scale underflows; values of x * 127 / max
  // landing on halves (round half to even).
  auto rows = [&](int64_t n) {
    std::vector<std::vector<float>> out;
    for (int r = 0; r < 20; ++r) {
      std::vector<float> x(n);
      for (float& v : x) v = uniform(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20);
      out.push_back(x);
    }
    std::vector<float> zeros(n, 0.0f), same(n, -0.37f), ties(n), tiny(n), halves(n);
    for (int64_t i = 0; i < n; ++i) {
      ties[i] = uniform(rng);
      tiny[i] = uniform(rng) * 1e-39f;
      halves[i] = static_cast<float>(static_cast<int>(i % 255) - 127) + 0.5f * static_cast<float>(i % 2);
    }
    for (int64_t b = 0; b + 32 <= n; b += 32) {
      if ((b / 32) % 3 == 0)  // every third block nonzero, the others all zeros
        for (int64_t i = b; i < b + 32; ++i) zeros[i] = uniform(rng);
      ties[b + 3] = 2.0f;
      ties[b + 20] = -2.0f;
      halves[b + 31] = 254.0f;  // scale 2: (2k + 1) / 2 lands on halves
    }
    for (int64_t b = 0; b + QK_K <= n; b += QK_K) {  // Q8_K: the negative one first in every other block
      ties[b + 7] = (b / QK_K) % 2 ? -3.0f : 3.0f;
      ties[b + 200] = (b / QK_K) % 2 ? 3.0f : -3.0f;
    }
    out.insert(out.end(), {zeros, same, ties, tiny, halves});
    return out;
  };
  for (GgmlType weight_type : {GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    for (int64_t n : {256, 640, 2048}) {
      for (const auto& x : rows(n)) {
        const size_t bytes = activation_row_bytes(weight_type, n);
        std::vector<uint8_t> ref(bytes, 0xAA), opt(bytes, 0x55);
        quantize_activation_row_ref(weight_type, x.data(), ref.data(), n);
        quantize_activation_row_avx2(weight_type, x.data(), opt.data(), n);
        INFO(ggml_type_name(weight_type) << " n=" << n);
        REQUIRE(std::memcmp(ref.data(), opt.data(), bytes) == 0);
      }
    }
  }
}

TEST_CASE("requantize_q8_0: every value within about half a code step of the float row, for F32, F16 and BF16", "[quant]") {
  std::mt19937 rng(31);
  const int64_t n = 96, rows = 5;
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16}) {
    INFO(ggml_type_info(type).name);
    const std::vector<uint8_t> bytes = random_rows(type, n, rows, rng);
    const WeightMatrix w{type, n, rows, bytes.data()};
    REQUIRE(can_requantize_q8_0(w));
    std::vector<uint8_t> out(requantized_q8_0_bytes(w));
    const WeightMatrix q = requantize_q8_0(w, out.data());
    CHECK(q.type == GgmlType::Q8_0);
    CHECK(q.data == out.data());
    CHECK(q.n_in == n);
    CHECK(q.n_out == rows);
    std::vector<float> src(n), back(n);
    for (int64_t r = 0; r < rows; ++r) {
      dequantize_row(type, bytes.data() + r * w.row_bytes(), src.data(), n);
      dequantize_row(GgmlType::Q8_0, out.data() + r * q.row_bytes(), back.data(), n);
      for (int64_t b = 0; b < n / 32; ++b) {
        float amax = 0;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(src[b * 32 + j]));
        // Half a code step, plus the fp16 scale's rounding (2^-11 of up to 127 steps).
        const float step = amax / 127.0f;
        for (int j = 0; j < 32; ++j) CHECK(std::fabs(back[b * 32 + j] - src[b * 32 + j]) <= 0.57f * step + 1e-7f);
      }
    }
  }
  // Rows of partial blocks and quantised types stay as they are.
  CHECK_FALSE(can_requantize_q8_0(WeightMatrix{GgmlType::F16, 40, 2, nullptr}));
  CHECK_FALSE(can_requantize_q8_0(WeightMatrix{GgmlType::Q8_0, 64, 2, nullptr}));
}
