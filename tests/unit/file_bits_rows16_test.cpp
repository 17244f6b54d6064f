// The row-interleaved layouts that keep their file type's bits (kernels/quant/q4_k_rows16.h,
// q6_k_rows16.h, q5_0_rows16.h), each against its file type: interleaving keeps every byte of every row (unpacked rows equal the
// file's); the reference equals the file type's on the file rows bit for bit; the VNNI
// kernel equals the reference for 1-11 activation rows (passes of eight, runs of four and
// their remainders), rows of up to the kernels' longest and extreme codes, scales and
// activations; a row's
// result is the same alone, in a batch or asked for by id; and matmul over the repacked
// matrix equals matmul over the file's, across partial tiles and thread counts.
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
#include "kernels/quant/q5_0_rows16.h"
#include "kernels/quant/q6_k_rows16.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/row_groups.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

using namespace draftbench;

namespace {

bool has_vnni() { return std::strcmp(dot_rows_backend(), "avx512vnni") == 0; }

// A layout under test: its file type, the unpacking of one row back to the file's bytes,
// the extreme block (the codes, and the sub-block scales where the type has them, at their
// largest products) and its VNNI kernel.
struct Layout {
  GgmlType type, file_type;
  void (*unpack_row)(const uint8_t* group, int lane, int64_t nb, uint8_t* out);
  void (*extreme_block)(uint8_t* block);
  RowGroupLayout::Rows vnni;
};

const Layout kLayouts[] = {
    {GgmlType::Q4_Kr16, GgmlType::Q4_K,
     [](const uint8_t* g, int lane, int64_t nb, uint8_t* out) { q4_kr16_unpack_row(g, lane, nb, reinterpret_cast<BlockQ4_K*>(out)); },
     [](uint8_t* p) {
       auto* b = reinterpret_cast<BlockQ4_K*>(p);
       std::memset(b->qs, 0xFF, sizeof b->qs);
       std::memset(b->scales, 0xFF, sizeof b->scales);
     },
     q4_kr16_rows_avx512vnni},
    {GgmlType::Q6_Kr16, GgmlType::Q6_K,
     [](const uint8_t* g, int lane, int64_t nb, uint8_t* out) { q6_kr16_unpack_row(g, lane, nb, reinterpret_cast<BlockQ6_K*>(out)); },
     [](uint8_t* p) {
       auto* b = reinterpret_cast<BlockQ6_K*>(p);
       std::memset(b->ql, 0xFF, sizeof b->ql);
       std::memset(b->qh, 0xFF, sizeof b->qh);
       std::memset(b->scales, 0x80, sizeof b->scales);  // -128: the largest products
     },
     q6_kr16_rows_avx512vnni},
    {GgmlType::Q5_0r16, GgmlType::Q5_0,
     [](const uint8_t* g, int lane, int64_t nb, uint8_t* out) { q5_0r16_unpack_row(g, lane, nb, reinterpret_cast<BlockQ5_0*>(out)); },
     [](uint8_t* p) {
       auto* b = reinterpret_cast<BlockQ5_0*>(p);
       std::memset(b->qs, 0, sizeof b->qs);  // every code 0, value -16: the largest products
       std::memset(b->qh, 0, sizeof b->qh);
     },
     q5_0r16_rows_avx512vnni},
};

struct Case {
  const Layout& layout;
  int64_t n_in, n_out;
  std::vector<uint8_t> rows, interleaved;
  std::vector<float> x;
  std::vector<uint8_t> xq;
  size_t xq_bytes;
  size_t row_bytes() const { return ggml_row_bytes(layout.file_type, n_in); }
  int64_t nb() const { return n_in / ggml_type_info(layout.file_type).block_size; }
};

// Random rows, the first with the extreme block first, and activations at +-127 in the
// first activation row's first block (the largest sums).
Case make_case(const Layout& l, int64_t n_in, int64_t n_out, int64_t n_x, std::mt19937& rng) {
  Case c{l, n_in, n_out, random_rows(l.file_type, n_in, n_out, rng), {}, {}, {}, 0};
  l.extreme_block(c.rows.data());
  c.interleaved.resize(c.rows.size());
  row_group_layout(l.type)->interleave(c.rows.data(), c.row_bytes(), n_out, c.nb(), c.interleaved.data());
  c.x = random_activations(n_in * n_x, rng);
  for (int64_t i = 0; i < std::min<int64_t>(n_in, 256); ++i) c.x[static_cast<size_t>(i)] = i % 3 == 0 ? -1.0f : 1.0f;
  c.xq_bytes = activation_row_bytes(l.type, n_in);
  c.xq.resize(c.xq_bytes * static_cast<size_t>(n_x));
  for (int64_t i = 0; i < n_x; ++i) quantize_activation_row_ref(l.type, c.x.data() + i * n_in, c.xq.data() + i * c.xq_bytes, n_in);
  return c;
}

}  // namespace

TEST_CASE("rows16 layouts keep every byte of every row", "[rows16]") {
  std::mt19937 rng(1);
  for (const Layout& l : kLayouts)
    for (int64_t n_in : {256, 1536}) {
      const Case c = make_case(l, n_in, 48, 1, rng);
      std::vector<uint8_t> row(c.row_bytes());
      for (int64_t r = 0; r < c.n_out; ++r) {
        l.unpack_row(c.interleaved.data() + static_cast<size_t>(r / 16) * 16 * c.row_bytes(), static_cast<int>(r % 16), c.nb(), row.data());
        INFO(ggml_type_name(l.type) << " n_in " << n_in << " row " << r);
        CHECK(std::memcmp(row.data(), c.rows.data() + static_cast<size_t>(r) * c.row_bytes(), c.row_bytes()) == 0);
      }
    }
}

TEST_CASE("rows16 references equal their file types' on the file rows", "[rows16]") {
  std::mt19937 rng(2);
  for (const Layout& l : kLayouts) {
    const Case c = make_case(l, 512, 32, 3, rng);
    std::vector<float> want(3 * 32), got(want.size());
    dot_rows_batch_ref(l.file_type, c.rows.data(), c.row_bytes(), 32, c.xq.data(), c.xq_bytes, 3, 512, want.data(), 32);
    dot_rows_batch_ref(l.type, c.interleaved.data(), c.row_bytes(), 32, c.xq.data(), c.xq_bytes, 3, 512, got.data(), 32);
    INFO(ggml_type_name(l.type));
    CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("rows16 VNNI kernels equal the reference bit for bit, whatever the batch", "[rows16]") {
  if (!has_vnni()) SUCCEED("no AVX-512 VNNI on this CPU: the reference is the only build");
  else {
    std::mt19937 rng(11);
    for (const Layout& l : kLayouts)
      for (int64_t n_in : {224, 256, 640, 1536, 8960, 16384}) {
        if (n_in % ggml_type_info(l.file_type).block_size != 0) continue;  // 224, 640: Q5_0's short last group, an odd unit count
        const int64_t n_out = 32, n_x = 11;
        const Case c = make_case(l, n_in, n_out, n_x, rng);
        std::vector<float> want(static_cast<size_t>(n_x * n_out)), got(want.size());
        row_group_layout(l.type)->rows_ref(c.interleaved.data(), n_out, c.xq.data(), c.xq_bytes, n_x, c.nb(), want.data(), n_out);
        for (int64_t batch : {1, 2, 3, 4, 5, 8, 9, 11}) {
          std::fill(got.begin(), got.end(), NAN);
          for (int64_t x0 = 0; x0 < n_x; x0 += batch)
            l.vnni(c.interleaved.data(), n_out, c.xq.data() + x0 * c.xq_bytes, c.xq_bytes, std::min(batch, n_x - x0), c.nb(), got.data() + x0 * n_out, n_out);
          INFO(ggml_type_name(l.type) << " n_in " << n_in << " batch " << batch);
          CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
        }
      }
  }
}

TEST_CASE("matmul over a rows16 layout equals matmul over the file's, rows by id too", "[rows16][matmul]") {
  std::mt19937 rng(5);
  for (const Layout& l : kLayouts) {
    const int64_t n_in = 1536, n_x = 10;
    const int64_t n_out = matmul_row_tile(WeightMatrix{l.type, n_in, 16, nullptr}) * 2 + 48;  // two whole tiles and a partial one
    const Case c = make_case(l, n_in, n_out, n_x, rng);
    const WeightMatrix file{l.file_type, n_in, n_out, c.rows.data()}, rows16{l.type, n_in, n_out, c.interleaved.data()};
    const std::vector<int32_t> ids = {151, 0, 17, 16, 15, 64, 64};
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      std::vector<float> want(static_cast<size_t>(n_x * n_out)), got(want.size());
      std::vector<uint8_t> scratch(matmul_scratch_bytes(rows16, n_x, threads));
      matmul(file, c.x.data(), n_x, want.data(), pool, scratch);
      matmul(rows16, c.x.data(), n_x, got.data(), pool, scratch);
      INFO(ggml_type_name(l.type) << " threads " << threads);
      CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
      std::vector<float> one(static_cast<size_t>(n_out));  // the last activation row alone
      matmul(rows16, c.x.data() + (n_x - 1) * n_in, 1, one.data(), pool, scratch);
      CHECK(std::memcmp(one.data(), want.data() + (n_x - 1) * n_out, one.size() * sizeof(float)) == 0);
      std::vector<float> picked(2 * ids.size());
      matmul_rows(rows16, ids, c.x.data(), 2, picked.data(), pool, scratch);
      for (size_t x = 0; x < 2; ++x)
        for (size_t k = 0; k < ids.size(); ++k) CHECK(std::memcmp(&picked[x * ids.size() + k], &want[x * n_out + ids[k]], sizeof(float)) == 0);
    }
  }
}

TEST_CASE("file types are repacked to rows16 exactly where the kernels run and the shape fits", "[rows16]") {
  for (const Layout& l : kLayouts) {
    const bool rows16 = has_vnni() && !dot_rows_batch_has_amx(l.file_type);
    INFO(ggml_type_name(l.type));
    CHECK((repacked_type(WeightMatrix{l.file_type, 1536, 8960, nullptr}) == l.type) == rows16);
    CHECK(repacked_type(WeightMatrix{l.file_type, 1536, 8968, nullptr}) != l.type);   // not whole groups
    CHECK(repacked_type(WeightMatrix{l.file_type, 16640, 8960, nullptr}) != l.type);  // rows too long
    if (rows16) {
      std::mt19937 rng(9);
      const Case c = make_case(l, 512, 32, 1, rng);
      const WeightMatrix file{l.file_type, 512, 32, c.rows.data()};
      std::vector<uint8_t> dst(repacked_bytes(file));
      const WeightMatrix w = repack(file, dst.data());
      CHECK(w.type == l.type);
      CHECK(dst == c.interleaved);
    }
  }
}
