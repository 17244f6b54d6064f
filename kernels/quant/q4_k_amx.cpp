#include "kernels/quant/q4_k_amx.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/q4_k_x86.h"

namespace draftbench {
namespace {

constexpr int kTile = 16;              // activation rows of an A tile, weight rows of a B tile
constexpr int kSubBlocks = QK_K / 32;  // one tile product each
constexpr int kGroupTiles = 4;         // tiles of weight rows, and of activation rows, per pass

// tmm0/1: C, 16 activation rows x 16 weight rows of int32; tmm2/3: A, 16 activation rows x
// 32 codes; tmm4/5: B, 8 rows of 16 weight rows x 4 codes. Two of each, so that a product
// can start while the previous one is stored.
struct TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

void configure_tiles() {
  alignas(64) TileConfig c;
  for (int t : {0, 1}) c.rows[t] = kTile, c.colsb[t] = kTile * 4;
  for (int t : {2, 3}) c.rows[t] = kTile, c.colsb[t] = 32;
  for (int t : {4, 5}) c.rows[t] = 8, c.colsb[t] = kTile * 4;
  _tile_loadconfig(&c);
}

// One block of up to 16 weight rows, ready for the tile products and the epilogue: its codes
// in the B tiles' layout, and the scales, mins and float scales as vectors over the rows.
// Rows past the last are zero.
struct WeightBlock {
  // [sub-block j][k / 4][4 r + k % 4]: value k of sub-block j of weight row r.
  alignas(64) uint8_t codes[kSubBlocks][8][kTile * 4];
  __m512i scale[kSubBlocks];         // 6-bit scale of sub-block j, per row
  __m512i min_pairs[kSubBlocks / 2];  // mins of sub-blocks 2p and 2p + 1 as the low and high word, per row
  __m512 d, dmin;
};

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

void prepare_weights(const uint8_t* w, size_t w_stride, int rows, int64_t block, WeightBlock& u) {
  const auto at = [&](int r) -> const BlockQ4_K& { return reinterpret_cast<const BlockQ4_K*>(w + static_cast<size_t>(r) * w_stride)[block]; };
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  // Codes 32c..32c+31 of a block hold sub-block 2c in their low nibbles, 2c + 1 in the high.
  for (int c = 0; c < kSubBlocks / 2; ++c) {
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
  const __m512i row_offsets = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(16));
  for (int j = 0; j < kSubBlocks; ++j) u.scale[j] = _mm512_and_si512(_mm512_i32gather_epi32(row_offsets, scales_mins[0] + j, 1), _mm512_set1_epi32(0xFF));
  for (int p = 0; p < kSubBlocks / 2; ++p) {
    const __m512i m = _mm512_i32gather_epi32(row_offsets, scales_mins[0] + 8 + 2 * p, 1);  // bytes m_2p, m_2p+1, ...
    u.min_pairs[p] = _mm512_or_si512(_mm512_and_si512(m, _mm512_set1_epi32(0xFF)), _mm512_slli_epi32(_mm512_and_si512(m, _mm512_set1_epi32(0xFF00)), 8));
  }
  const __m512i dd = _mm512_load_si512(d_dmin);
  u.d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dd));
  u.dmin = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(dd, 16)));
}

// The eight sub-block products of one weight block and 16 activation rows (a: their codes
// of this block, rows a_stride bytes apart), each to its own 16 x 16 int32 slice of `c`.
void tile_products(const WeightBlock& u, const int8_t* a, size_t a_stride, int32_t (&c)[kSubBlocks][kTile][kTile]) {
  for (int j = 0; j < kSubBlocks; j += 2) {
    _tile_zero(0);
    _tile_loadd(2, a + 32 * j, a_stride);
    _tile_loadd(4, u.codes[j], kTile * 4);
    _tile_zero(1);
    _tile_loadd(3, a + 32 * (j + 1), a_stride);
    _tile_loadd(5, u.codes[j + 1], kTile * 4);
    _tile_dpbsud(0, 2, 4);
    _tile_dpbsud(1, 3, 5);
    _tile_stored(0, c[j], kTile * 4);
    _tile_stored(1, c[j + 1], kTile * 4);
  }
}

// sums[x] (over the weight rows) gets the block for activation row x (its block y): the
// reference's two float steps on isum = sum_j scale_j S_j and imin = sum_j min_j (bsums of
// sub-block j).
void add_block(const WeightBlock& u, const int32_t (&c)[kSubBlocks][kTile][kTile], const BlockQ8_K& y, int x, float (&sums)[kTile][kTile]) {
  // The activation's sub-block sums as words, pairs (2p, 2p + 1) in word p.
  alignas(16) int32_t pairs[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(pairs),
                  _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y.bsums)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(y.bsums + 8))));
  __m512i isum = _mm512_setzero_si512(), imin = _mm512_setzero_si512();
  for (int j = 0; j < kSubBlocks; ++j) isum = _mm512_add_epi32(isum, _mm512_mullo_epi32(_mm512_load_si512(c[j][x]), u.scale[j]));
  for (int p = 0; p < kSubBlocks / 2; ++p) imin = _mm512_dpwssd_epi32(imin, _mm512_set1_epi32(pairs[p]), u.min_pairs[p]);
  const __m512 yd = _mm512_set1_ps(y.d);
  __m512 s = _mm512_load_ps(sums[x]);
  s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(u.d, yd)));
  s = _mm512_sub_ps(s, _mm512_mul_ps(_mm512_cvtepi32_ps(imin), _mm512_mul_ps(u.dmin, yd)));
  _mm512_store_ps(sums[x], s);
}

// Sixteen weight rows are sixteen memory streams, each a block (three cache lines) at a
// time, which the hardware prefetchers do not follow far enough ahead: while block b of the
// tile from row r0 is used, its block b + kAhead is fetched, and near a row's end the next
// tile's first blocks.
void prefetch_ahead(const uint8_t* w, size_t w_stride, int64_t n_rows, int64_t r0, int64_t b, int64_t nb) {
  constexpr int64_t kAhead = 2;
  int64_t block = b + kAhead;
  if (block >= nb) block -= nb, r0 += kTile;
  for (int64_t r = r0; r < std::min(r0 + kTile, n_rows); ++r) {
    const char* p = reinterpret_cast<const char*>(w + static_cast<size_t>(r) * w_stride + static_cast<size_t>(block) * sizeof(BlockQ4_K));
    for (int line = 0; line < 3; ++line) _mm_prefetch(p + 64 * line, _MM_HINT_T0);
  }
}

// Up to 64 weight rows against up to 64 activation rows.
void group(const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  const int w_tiles = static_cast<int>((n_rows + kTile - 1) / kTile), x_tiles = static_cast<int>((n_x + kTile - 1) / kTile);
  const int last_x = static_cast<int>(n_x - (x_tiles - 1) * kTile);  // activation rows of the last tile
  alignas(64) WeightBlock u;
  alignas(64) int32_t c[kSubBlocks][kTile][kTile];
  alignas(64) float sums[kGroupTiles][kGroupTiles][kTile][kTile] = {};
  // A short last activation tile's codes, copied block by block beside zero rows.
  alignas(64) int8_t short_tile[kTile][QK_K] = {};
  const auto act = [&](int64_t x, int64_t block) -> const BlockQ8_K& { return reinterpret_cast<const BlockQ8_K*>(xq + static_cast<size_t>(x) * xq_stride)[block]; };
  for (int wt = 0; wt < w_tiles; ++wt) {
    const int rows = static_cast<int>(std::min<int64_t>(kTile, n_rows - wt * kTile));
    const uint8_t* w_tile = w + static_cast<size_t>(wt * kTile) * w_stride;
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_ahead(w, w_stride, n_rows, wt * kTile, b, nb);
      prepare_weights(w_tile, w_stride, rows, b, u);
      for (int xt = 0; xt < x_tiles; ++xt) {
        const int xs = xt + 1 < x_tiles ? kTile : last_x;
        if (xs == kTile) {
          tile_products(u, act(xt * kTile, b).qs, xq_stride, c);
        } else {
          for (int x = 0; x < xs; ++x) std::memcpy(short_tile[x], act(xt * kTile + x, b).qs, QK_K);
          tile_products(u, short_tile[0], QK_K, c);
        }
        for (int x = 0; x < xs; ++x) add_block(u, c, act(xt * kTile + x, b), x, sums[wt][xt]);
      }
    }
  }
  for (int wt = 0; wt < w_tiles; ++wt) {
    const int rows = static_cast<int>(std::min<int64_t>(kTile, n_rows - wt * kTile));
    const __mmask16 keep = static_cast<__mmask16>((1u << rows) - 1);
    for (int64_t x = 0; x < n_x; ++x) _mm512_mask_storeu_ps(y + x * y_stride + wt * kTile, keep, _mm512_load_ps(sums[wt][x / kTile][x % kTile]));
  }
}

}  // namespace

void q4_k_rows_batch_amx(const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                         size_t y_stride) {
  constexpr int64_t kGroup = kGroupTiles * kTile;
  configure_tiles();
  for (int64_t r0 = 0; r0 < n_rows; r0 += kGroup)
    for (int64_t x0 = 0; x0 < n_x; x0 += kGroup)
      group(w + static_cast<size_t>(r0) * w_stride, w_stride, std::min(kGroup, n_rows - r0), xq + static_cast<size_t>(x0) * xq_stride, xq_stride,
            std::min(kGroup, n_x - x0), n / QK_K, y + x0 * y_stride + r0, y_stride);
  _tile_release();
}

}  // namespace draftbench
