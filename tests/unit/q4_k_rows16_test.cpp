// The row-interleaved Q4_K layout (kernels/quant/q4_k_rows16.h): interleaving keeps every
// byte of every row (unpacked rows equal the file's); its reference equals Q4_K's on the
// file rows bit for bit; the VNNI kernel equals the reference for 1-11 activation rows
// (passes of eight, runs of four or two and their remainders), rows of 1-64 blocks and extreme
// codes, scales and activations; a row's result is the same alone, in a batch or asked for
// by id; and matmul over the repacked matrix equals matmul over the file's, across partial
// tiles and thread counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/weight_repack.h"
#include "kernels/quant/q4_k_rows16.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

using namespace draftbench;

namespace {

bool has_vnni() { return std::strcmp(dot_rows_backend(), "avx512vnni") == 0; }

struct Case {
  int64_t n_in, n_out;
  std::vector<uint8_t> rows, interleaved;
  std::vector<float> x;
  std::vector<uint8_t> xq;
  size_t xq_bytes;
  size_t row_bytes() const { return ggml_row_bytes(GgmlType::Q4_K, n_in); }
};

// Random rows, the first with the extremes: every code 15 and every scale and min 63 in its
// first block, and activations at +-127 in the first activation row (the largest sums).
Case make_case(int64_t n_in, int64_t n_out, int64_t n_x, std::mt19937& rng) {
  Case c{n_in, n_out, random_rows(GgmlType::Q4_K, n_in, n_out, rng), {}, {}, {}, 0};
  auto* first = reinterpret_cast<BlockQ4_K*>(c.rows.data());
  std::memset(first->qs, 0xFF, sizeof first->qs);
  std::memset(first->scales, 0xFF, sizeof first->scales);
  c.interleaved.resize(c.rows.size());
  interleave_q4_k_rows16(c.rows.data(), c.row_bytes(), n_out, n_in / QK_K, c.interleaved.data());
  c.x = random_activations(n_in * n_x, rng);
  for (int64_t i = 0; i < std::min<int64_t>(n_in, 256); ++i) c.x[static_cast<size_t>(i)] = i % 3 == 0 ? -1.0f : 1.0f;
  c.xq_bytes = activation_row_bytes(GgmlType::Q4_Kr16, n_in);
  c.xq.resize(c.xq_bytes * static_cast<size_t>(n_x));
  for (int64_t i = 0; i < n_x; ++i) quantize_activation_row_ref(GgmlType::Q4_Kr16, c.x.data() + i * n_in, c.xq.data() + i * c.xq_bytes, n_in);
  return c;
}

}  // namespace

TEST_CASE("Q4_Kr16 keeps every byte of every row", "[q4_kr16]") {
  std::mt19937 rng(1);
  for (int64_t n_in : {256, 1536}) {
    const Case c = make_case(n_in, 48, 1, rng);
    const int64_t nb = n_in / QK_K;
    std::vector<BlockQ4_K> row(static_cast<size_t>(nb));
    for (int64_t r = 0; r < c.n_out; ++r) {
      q4_kr16_unpack_row(c.interleaved.data() + static_cast<size_t>(r / kQ4_Kr16Rows) * q4_kr16_group_bytes(nb), static_cast<int>(r % kQ4_Kr16Rows), nb, row.data());
      INFO("n_in " << n_in << " row " << r);
      CHECK(std::memcmp(row.data(), c.rows.data() + static_cast<size_t>(r) * c.row_bytes(), c.row_bytes()) == 0);
    }
  }
}

TEST_CASE("Q4_Kr16 reference equals Q4_K's on the file rows", "[q4_kr16]") {
  std::mt19937 rng(2);
  const Case c = make_case(512, 16, 3, rng);
  std::vector<float> want(3 * 16), got(want.size());
  dot_rows_batch_ref(GgmlType::Q4_K, c.rows.data(), c.row_bytes(), 16, c.xq.data(), c.xq_bytes, 3, 512, want.data(), 16);
  dot_rows_batch_ref(GgmlType::Q4_Kr16, c.interleaved.data(), c.row_bytes(), 16, c.xq.data(), c.xq_bytes, 3, 512, got.data(), 16);
  CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
}

TEST_CASE("Q4_Kr16 VNNI kernel equals the reference bit for bit, whatever the batch", "[q4_kr16]") {
  if (!has_vnni()) SUCCEED("no AVX-512 VNNI on this CPU: the reference is the only build");
  else {
    std::mt19937 rng(11);
    for (int64_t n_in : {256, 1536, 8960, 16384}) {
      const int64_t n_out = 32, n_x = 11, nb = n_in / QK_K;
      const Case c = make_case(n_in, n_out, n_x, rng);
      std::vector<float> want(static_cast<size_t>(n_x * n_out)), got(want.size());
      q4_kr16_rows_ref(c.interleaved.data(), n_out, c.xq.data(), c.xq_bytes, n_x, nb, want.data(), n_out);
      for (int64_t batch : {1, 2, 3, 4, 5, 8, 9, 11}) {
        std::fill(got.begin(), got.end(), NAN);
        for (int64_t x0 = 0; x0 < n_x; x0 += batch)
          q4_kr16_rows_avx512vnni(c.interleaved.data(), n_out, c.xq.data() + x0 * c.xq_bytes, c.xq_bytes, std::min(batch, n_x - x0), nb,
                                 got.data() + x0 * n_out, n_out);
        INFO("n_in " << n_in << " batch " << batch);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
      }
    }
  }
}

TEST_CASE("matmul over Q4_Kr16 equals matmul over the file's Q4_K, rows by id too", "[q4_kr16][matmul]") {
  std::mt19937 rng(5);
  const int64_t n_in = 1536, n_x = 10;
  const int64_t n_out = matmul_row_tile(WeightMatrix{GgmlType::Q4_Kr16, n_in, 16, nullptr}) * 2 + 48;  // two whole tiles and a partial one
  const Case c = make_case(n_in, n_out, n_x, rng);
  const WeightMatrix file{GgmlType::Q4_K, n_in, n_out, c.rows.data()}, rows8{GgmlType::Q4_Kr16, n_in, n_out, c.interleaved.data()};
  const std::vector<int32_t> ids = {151, 0, 17, 8, 7, 64, 64};
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    std::vector<float> want(static_cast<size_t>(n_x * n_out)), got(want.size());
    std::vector<uint8_t> scratch(matmul_scratch_bytes(rows8, n_x, threads));
    matmul(file, c.x.data(), n_x, want.data(), pool, scratch);
    matmul(rows8, c.x.data(), n_x, got.data(), pool, scratch);
    INFO("threads " << threads);
    CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
    std::vector<float> one(static_cast<size_t>(n_out));  // the last activation row alone
    matmul(rows8, c.x.data() + (n_x - 1) * n_in, 1, one.data(), pool, scratch);
    CHECK(std::memcmp(one.data(), want.data() + (n_x - 1) * n_out, one.size() * sizeof(float)) == 0);
    std::vector<float> picked(2 * ids.size());
    matmul_rows(rows8, ids, c.x.data(), 2, picked.data(), pool, scratch);
    for (size_t x = 0; x < 2; ++x)
      for (size_t k = 0; k < ids.size(); ++k) CHECK(std::memcmp(&picked[x * ids.size() + k], &want[x * n_out + ids[k]], sizeof(float)) == 0);
  }
}

TEST_CASE("Q4_K is repacked to Q4_Kr16 exactly where its kernel runs and the shape fits", "[q4_kr16]") {
  const bool rows8 = has_vnni() && !cpu_features().amx_int8;
  const WeightMatrix up{GgmlType::Q4_K, 1536, 8960, nullptr};
  CHECK((repacked_type(up) == GgmlType::Q4_Kr16) == rows8);
  CHECK(repacked_type(WeightMatrix{GgmlType::Q4_K, 1536, 8961, nullptr}) != GgmlType::Q4_Kr16);   // not whole groups
  CHECK(repacked_type(WeightMatrix{GgmlType::Q4_K, 16640, 8960, nullptr}) != GgmlType::Q4_Kr16);  // rows too long
  if (rows8) {
    std::mt19937 rng(9);
    const Case c = make_case(512, 16, 1, rng);
    const WeightMatrix file{GgmlType::Q4_K, 512, 16, c.rows.data()};
    std::vector<uint8_t> dst(repacked_bytes(file));
    const WeightMatrix w = repack(file, dst.data());
    CHECK(w.type == GgmlType::Q4_Kr16);
    CHECK(dst == c.interleaved);
  }
}
