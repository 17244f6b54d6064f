#include "kernels/quant/k_quant_amx.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/q4_k_x86.h"

namespace draftbench {
namespace {

constexpr int kTile = 16;       // activation rows of an A tile, weight rows of a B tile
constexpr int kGroupTiles = 4;  // tiles of weight rows, and of activation rows, per pass

// tmm0/1: C, 16 activation rows x 16 weight rows of int32; tmm2/3: A, 16 activation rows x
// K codes; tmm4/5: B, K / 4 rows of 16 weight rows x 4 codes, for K values of a sub-block
// (32 for Q4_K, 16 for Q6_K). Two of each, so that a product can start while the previous
// one is stored.
struct TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

void configure_tiles(int k) {
  alignas(64) TileConfig c;
  for (int t : {0, 1}) c.rows[t] = kTile, c.colsb[t] = kTile * 4;
  for (int t : {2, 3}) c.rows[t] = kTile, c.colsb[t] = static_cast<uint16_t>(k);
  for (int t : {4, 5}) c.rows[t] = static_cast<uint8_t>(k / 4), c.colsb[t] = kTile * 4;
  // Not _tile_loadconfig: GCC 12's macro declares a read of 8 bytes only, and then drops
  // the stores of the rows and widths as dead.
  __asm__ volatile("ldtilecfg %0" ::"m"(c));
}

// The products of a block's n sub-blocks of K values each, for 16 activation rows (a: their
// codes of this block, rows a_stride bytes apart) against 16 weight rows (b: the B tiles,
// 16 K bytes each), each to its own 16 x 16 int32 slice of `c`.
template <int K, int N>
void tile_products(const uint8_t (&b)[N][K / 4][kTile * 4], const int8_t* a, size_t a_stride, int32_t (&c)[N][kTile][kTile]) {
  for (int j = 0; j < N; j += 2) {
    _tile_zero(0);
    _tile_loadd(2, a + K * j, a_stride);
    _tile_loadd(4, b[j], kTile * 4);
    _tile_zero(1);
    _tile_loadd(3, a + K * (j + 1), a_stride);
    _tile_loadd(5, b[j + 1], kTile * 4);
    _tile_dpbsud(0, 2, 4);
    _tile_dpbsud(1, 3, 5);
    _tile_stored(0, c[j], kTile * 4);
    _tile_stored(1, c[j + 1], kTile * 4);
  }
}

// The 8 x 8 transposition of 32-bit words in each 256-bit half: z[i] holds weight row i in
// its low half and row i + 8 in its high half (eight words each); out[k] gets word k of
// rows 0..15 in order.
void transpose_words(const __m512i (&z)[8], __m512i (&out)[8]) {
  __m512i t[8], u[8];
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm512_unpacklo_epi32(z[2 * k], z[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi32(z[2 * k], z[2 * k + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // u[4h + c]: words c (low 128-bit lane) and c + 4 (high) of rows 4h .. 4h + 3
    u[4 * h + 0] = _mm512_unpacklo_epi64(t[4 * h], t[4 * h + 2]);
    u[4 * h + 1] = _mm512_unpackhi_epi64(t[4 * h], t[4 * h + 2]);
    u[4 * h + 2] = _mm512_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
    u[4 * h + 3] = _mm512_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
  }
  const __m512i low_lanes = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), high_lanes = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  for (int c = 0; c < 4; ++c) {
    out[c] = _mm512_permutex2var_epi64(u[c], low_lanes, u[c + 4]);
    out[c + 4] = _mm512_permutex2var_epi64(u[c], high_lanes, u[c + 4]);
  }
}

// Byte offsets of rows 0..15 of a 16-byte-wide table, for gathering a column.
inline __m512i row_offsets16() { return _mm512_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240); }

// Q4_K: eight sub-blocks of 32 values, 6-bit scales and mins, per block
//   sum += isum x (d x y.d), sum -= imin x (dmin x y.d).
struct Q4K {
  using Block = BlockQ4_K;
  static constexpr int kValues = 32, kProducts = 8;
  // One block of up to 16 weight rows, ready for the tile products and the epilogue: its
  // codes in the B tiles' layout, and the scales, mins and float scales as vectors over the
  // rows. Rows past the last are zero.
  struct Weights {
    alignas(64) uint8_t codes[kProducts][kValues / 4][kTile * 4];  // [j][k / 4][4 r + k % 4]: value k of sub-block j, row r
    __m512i scale[kProducts];                                      // 6-bit scale of sub-block j, per row
    __m512i min_pairs[kProducts / 2];                              // mins of sub-blocks 2p and 2p + 1 as the low and high word
    __m512 d, dmin;
  };

  static void prepare(const uint8_t* w, size_t w_stride, int rows, int64_t block, Weights& u) {
    const auto at = [&](int r) -> const Block& { return reinterpret_cast<const Block*>(w + static_cast<size_t>(r) * w_stride)[block]; };
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    // Codes 32c..32c+31 of a block hold sub-block 2c in their low nibbles, 2c + 1 in the high.
    for (int c = 0; c < kProducts / 2; ++c) {
      __m512i z[8], words[8];
      for (int i = 0; i < 8; ++i) {
        const auto half = [&](int r) { return r < rows ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at(r).qs + 32 * c)) : _mm256_setzero_si256(); };
        z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(half(i)), half(i + 8), 1);
      }
      transpose_words(z, words);
      for (int k = 0; k < 8; ++k) {
        _mm512_store_si512(u.codes[2 * c][k], _mm512_and_si512(words[k], low4));
        _mm512_store_si512(u.codes[2 * c + 1][k], _mm512_and_si512(_mm512_srli_epi16(words[k], 4), low4));
      }
    }
    // Scales and mins decoded per row ([sc0..7, m0..7], two rows at a time), then gathered
    // into vectors over the rows; d and dmin likewise.
    alignas(64) uint8_t scales_mins[kTile + 1][16] = {};  // a row more: the last gathers read 4 bytes from byte 14
    alignas(64) uint32_t d_dmin[kTile] = {};
    for (int r = 0; r < rows; r += 2) {
      const __m256i sm = q4_k_scales_mins_2(at(r).scales, at(std::min(r + 1, rows - 1)).scales);
      _mm_store_si128(reinterpret_cast<__m128i*>(scales_mins[r]), _mm256_castsi256_si128(sm));
      if (r + 1 < rows) _mm_store_si128(reinterpret_cast<__m128i*>(scales_mins[r + 1]), _mm256_extracti128_si256(sm, 1));
    }
    for (int r = 0; r < rows; ++r) std::memcpy(&d_dmin[r], &at(r).d, 4);  // d, then dmin
    for (int j = 0; j < kProducts; ++j) u.scale[j] = _mm512_and_si512(_mm512_i32gather_epi32(row_offsets16(), scales_mins[0] + j, 1), _mm512_set1_epi32(0xFF));
    for (int p = 0; p < kProducts / 2; ++p) {
      const __m512i m = _mm512_i32gather_epi32(row_offsets16(), scales_mins[0] + 8 + 2 * p, 1);  // bytes m_2p, m_2p+1, ...
      u.min_pairs[p] = _mm512_or_si512(_mm512_and_si512(m, _mm512_set1_epi32(0xFF)), _mm512_slli_epi32(_mm512_and_si512(m, _mm512_set1_epi32(0xFF00)), 8));
    }
    const __m512i dd = _mm512_load_si512(d_dmin);
    u.d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dd));
    u.dmin = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(dd, 16)));
  }

  // sums (over the weight rows) gets this block for activation row x (its block y): isum =
  // sum_j scale_j S_j and imin = sum_j min_j (bsums of sub-block j).
  static void add(const Weights& u, const int32_t (&c)[kProducts][kTile][kTile], const BlockQ8_K& y, int x, float (&sums)[kTile]) {
    // The activation's sub-block sums as words, pairs (2p, 2p + 1) in word p.
    alignas(16) int32_t pairs[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(pairs),
                    _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y.bsums)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(y.bsums + 8))));
    __m512i isum = _mm512_setzero_si512(), imin = _mm512_setzero_si512();
    for (int j = 0; j < kProducts; ++j) isum = _mm512_add_epi32(isum, _mm512_mullo_epi32(_mm512_load_si512(c[j][x]), u.scale[j]));
    for (int p = 0; p < kProducts / 2; ++p) imin = _mm512_dpwssd_epi32(imin, _mm512_set1_epi32(pairs[p]), u.min_pairs[p]);
    const __m512 yd = _mm512_set1_ps(y.d);
    __m512 s = _mm512_load_ps(sums);
    s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(u.d, yd)));
    s = _mm512_sub_ps(s, _mm512_mul_ps(_mm512_cvtepi32_ps(imin), _mm512_mul_ps(u.dmin, yd)));
    _mm512_store_ps(sums, s);
  }
};

// Q6_K: sixteen groups of 16 values, 6-bit codes (0..63, 32 taken off through the
// activation sums) and signed 8-bit scales, per block sum += isum x (d x y.d) with
// isum = sum_g scale_g (G_g - 32 bsum_g).
struct Q6K {
  using Block = BlockQ6_K;
  static constexpr int kValues = 16, kProducts = 16;
  struct Weights {
    alignas(64) uint8_t codes[kProducts][kValues / 4][kTile * 4];  // [g][k / 4][4 r + k % 4]
    __m512i scale[kProducts];                                      // scale of group g, per row
    __m512i scale_pairs[kProducts / 2];                            // scales of groups 2p and 2p + 1 as the low and high word
    __m512 d;
  };

  // A block's 256 codes in value order (vec_dot_ref.cpp's dot_q6_k: value 128n + 32i + l
  // takes nibble i / 2 of ql[64n + 32 (i % 2) + l] and bits 2i, 2i + 1 of qh[32n + l]).
  static void unpack(const Block& b, uint8_t* q) {
    const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30);
    for (int n = 0; n < 2; ++n) {
      const __m256i ql0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.ql + 64 * n));
      const __m256i ql1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.ql + 64 * n + 32));
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh + 32 * n));
      const __m256i v[4] = {
          _mm256_or_si256(_mm256_and_si256(ql0, m4), _mm256_and_si256(_mm256_slli_epi16(h, 4), m30)),
          _mm256_or_si256(_mm256_and_si256(ql1, m4), _mm256_and_si256(_mm256_slli_epi16(h, 2), m30)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), m4), _mm256_and_si256(h, m30)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4), _mm256_and_si256(_mm256_srli_epi16(h, 2), m30)),
      };
      for (int i = 0; i < 4; ++i) _mm256_store_si256(reinterpret_cast<__m256i*>(q + 128 * n + 32 * i), v[i]);
    }
  }

  static void prepare(const uint8_t* w, size_t w_stride, int rows, int64_t block, Weights& u) {
    const auto at = [&](int r) -> const Block& { return reinterpret_cast<const Block*>(w + static_cast<size_t>(r) * w_stride)[block]; };
    alignas(64) uint8_t q[kTile][QK_K];
    for (int r = 0; r < rows; ++r) unpack(at(r), q[r]);
    for (int r = rows; r < kTile; ++r) std::memset(q[r], 0, QK_K);
    // Words 8m..8m+7 of every row at a time: word 4g + k of the block is row k of group g's tile.
    auto* out = reinterpret_cast<__m512i*>(&u.codes[0][0][0]);
    for (int m = 0; m < QK_K / 32; ++m) {
      __m512i z[8], words[8];
      for (int i = 0; i < 8; ++i)
        z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(q[i] + 32 * m))),
                                  _mm256_load_si256(reinterpret_cast<const __m256i*>(q[i + 8] + 32 * m)), 1);
      transpose_words(z, words);
      for (int k = 0; k < 8; ++k) _mm512_store_si512(out + 8 * m + k, words[k]);
    }
    // Scales as words, row by row, then gathered into vectors over the rows.
    alignas(64) int16_t scales[kTile + 1][kProducts] = {};  // a row more: the last gather reads 4 bytes from byte 30
    alignas(32) uint16_t d[kTile] = {};
    for (int r = 0; r < rows; ++r) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(scales[r]), _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at(r).scales))));
      d[r] = at(r).d;
    }
    const __m512i row_offsets = _mm512_slli_epi32(row_offsets16(), 1);  // 32 bytes a row
    for (int g = 0; g < kProducts; ++g) {
      const __m512i word = _mm512_i32gather_epi32(row_offsets, reinterpret_cast<const uint8_t*>(scales[0]) + 2 * g, 1);
      u.scale[g] = _mm512_srai_epi32(_mm512_slli_epi32(word, 16), 16);
    }
    for (int p = 0; p < kProducts / 2; ++p) u.scale_pairs[p] = _mm512_i32gather_epi32(row_offsets, reinterpret_cast<const uint8_t*>(scales[0]) + 4 * p, 1);
    u.d = _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(d)));
  }

  static void add(const Weights& u, const int32_t (&c)[kProducts][kTile][kTile], const BlockQ8_K& y, int x, float (&sums)[kTile]) {
    int32_t pairs[kProducts / 2];  // bsums 2p and 2p + 1 as the low and high word
    std::memcpy(pairs, y.bsums, sizeof pairs);
    __m512i isum = _mm512_setzero_si512(), offset = _mm512_setzero_si512();
    for (int g = 0; g < kProducts; ++g) isum = _mm512_add_epi32(isum, _mm512_mullo_epi32(_mm512_load_si512(c[g][x]), u.scale[g]));
    for (int p = 0; p < kProducts / 2; ++p) offset = _mm512_dpwssd_epi32(offset, _mm512_set1_epi32(pairs[p]), u.scale_pairs[p]);
    isum = _mm512_sub_epi32(isum, _mm512_slli_epi32(offset, 5));
    __m512 s = _mm512_load_ps(sums);
    s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(u.d, _mm512_set1_ps(y.d))));
    _mm512_store_ps(sums, s);
  }
};

// Sixteen weight rows are sixteen memory streams, each a block (three cache lines) at a
// time, which the hardware prefetchers do not follow far enough ahead: while block b of the
// tile from row r0 is used, its block b + kAhead is fetched, and near a row's end the next
// tile's first blocks.
void prefetch_ahead(const uint8_t* w, size_t w_stride, size_t block_bytes, int64_t n_rows, int64_t r0, int64_t b, int64_t nb) {
  constexpr int64_t kAhead = 2;
  int64_t block = b + kAhead;
  if (block >= nb) block -= nb, r0 += kTile;
  for (int64_t r = r0; r < std::min(r0 + kTile, n_rows); ++r) {
    const char* p = reinterpret_cast<const char*>(w + static_cast<size_t>(r) * w_stride + static_cast<size_t>(block) * block_bytes);
    for (int line = 0; line < 3; ++line) _mm_prefetch(p + 64 * line, _MM_HINT_T0);
  }
}

// Up to 64 weight rows against up to 64 activation rows.
template <typename Kind>
void group(const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  const int w_tiles = static_cast<int>((n_rows + kTile - 1) / kTile), x_tiles = static_cast<int>((n_x + kTile - 1) / kTile);
  const int last_x = static_cast<int>(n_x - (x_tiles - 1) * kTile);  // activation rows of the last tile
  alignas(64) typename Kind::Weights u;
  alignas(64) int32_t c[Kind::kProducts][kTile][kTile];
  alignas(64) float sums[kGroupTiles][kGroupTiles][kTile][kTile] = {};
  // A short last activation tile's codes, copied block by block beside zero rows (zeroed
  // once, and only when there is such a tile: matmul calls this per 64 weight rows).
  alignas(64) int8_t short_tile[kTile][QK_K];
  if (last_x < kTile) std::memset(short_tile[last_x], 0, static_cast<size_t>(kTile - last_x) * QK_K);
  const auto act = [&](int64_t x, int64_t block) -> const BlockQ8_K& {
    return reinterpret_cast<const BlockQ8_K*>(xq + static_cast<size_t>(x) * xq_stride)[block];
  };
  for (int wt = 0; wt < w_tiles; ++wt) {
    const int rows = static_cast<int>(std::min<int64_t>(kTile, n_rows - wt * kTile));
    const uint8_t* w_tile = w + static_cast<size_t>(wt * kTile) * w_stride;
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_ahead(w, w_stride, sizeof(typename Kind::Block), n_rows, wt * kTile, b, nb);
      Kind::prepare(w_tile, w_stride, rows, b, u);
      for (int xt = 0; xt < x_tiles; ++xt) {
        const int xs = xt + 1 < x_tiles ? kTile : last_x;
        if (xs == kTile) {
          tile_products<Kind::kValues>(u.codes, act(xt * kTile, b).qs, xq_stride, c);
        } else {
          for (int x = 0; x < xs; ++x) std::memcpy(short_tile[x], act(xt * kTile + x, b).qs, QK_K);
          tile_products<Kind::kValues>(u.codes, short_tile[0], QK_K, c);
        }
        for (int x = 0; x < xs; ++x) Kind::add(u, c, act(xt * kTile + x, b), x, sums[wt][xt][x]);
      }
    }
  }
  for (int wt = 0; wt < w_tiles; ++wt) {
    const int rows = static_cast<int>(std::min<int64_t>(kTile, n_rows - wt * kTile));
    const __mmask16 keep = static_cast<__mmask16>((1u << rows) - 1);
    for (int64_t x = 0; x < n_x; ++x) _mm512_mask_storeu_ps(y + x * y_stride + wt * kTile, keep, _mm512_load_ps(sums[wt][x / kTile][x % kTile]));
  }
}

template <typename Kind>
void rows_batch(const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  constexpr int64_t kGroup = kGroupTiles * kTile;
  configure_tiles(Kind::kValues);
  for (int64_t r0 = 0; r0 < n_rows; r0 += kGroup)
    for (int64_t x0 = 0; x0 < n_x; x0 += kGroup)
      group<Kind>(w + static_cast<size_t>(r0) * w_stride, w_stride, std::min(kGroup, n_rows - r0), xq + static_cast<size_t>(x0) * xq_stride, xq_stride,
                  std::min(kGroup, n_x - x0), n / QK_K, y + x0 * y_stride + r0, y_stride);
  _tile_release();
}

}  // namespace

bool k_quant_rows_batch_amx(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                            float* y, size_t y_stride) {
  switch (type) {
    case GgmlType::Q4_K: rows_batch<Q4K>(w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride); return true;
    case GgmlType::Q6_K: rows_batch<Q6K>(w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride); return true;
    default: return false;
  }
}

}  // namespace draftbench
