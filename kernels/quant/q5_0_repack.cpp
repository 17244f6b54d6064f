#include "kernels/quant/q5_0_repack.h"

#include <cstring>

#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

uint32_t high_bits(const BlockQ5_0& b) {
  uint32_t h;
  std::memcpy(&h, b.qh, 4);
  return h;
}

void set_high_bits(BlockQ5_0& b, uint32_t h) { std::memcpy(b.qh, &h, 4); }

// Value v's 5-bit code in a Q5_0 block: its nibble (values 0-15 low nibbles of qs, 16-31
// high ones) and bit v of qh above it.
int code(const BlockQ5_0& b, int v) {
  const int nibble = v < 16 ? b.qs[v] & 0x0F : b.qs[v - 16] >> 4;
  return nibble | static_cast<int>((high_bits(b) >> v) & 1u) << 4;
}

void set_codes(BlockQ5_0& b, const int (&codes)[32]) {
  uint32_t h = 0;
  for (int v = 0; v < 32; ++v) h |= static_cast<uint32_t>(codes[v] >> 4) << v;
  set_high_bits(b, h);
  for (int k = 0; k < 16; ++k) b.qs[k] = static_cast<uint8_t>((codes[k] & 0x0F) | (codes[k + 16] & 0x0F) << 4);
}

void repack_pair(const BlockQ5_0* in, BlockQ5_0x2& out) {
  std::memcpy(out.qs, in[0].qs, 16);
  std::memcpy(out.qs + 16, in[1].qs, 16);
  const uint32_t h0 = high_bits(in[0]), h1 = high_bits(in[1]);
  const uint64_t qh = (h0 & 0xFFFFu) | static_cast<uint64_t>(h1 & 0xFFFFu) << 16 | static_cast<uint64_t>(h0 >> 16) << 32 |
                      static_cast<uint64_t>(h1 >> 16) << 48;
  std::memcpy(out.qh, &qh, 8);
  out.d[0] = in[0].d;
  out.d[1] = in[1].d;
}

void unpack_pair(const BlockQ5_0x2& in, BlockQ5_0* out) {
  uint64_t qh;
  std::memcpy(&qh, in.qh, 8);
  for (int b = 0; b < 2; ++b) {
    set_high_bits(out[b], static_cast<uint32_t>((qh >> (16 * b)) & 0xFFFFu) | static_cast<uint32_t>((qh >> (32 + 16 * b)) & 0xFFFFu) << 16);
    std::memcpy(out[b].qs, in.qs + 16 * b, 16);
    out[b].d = in.d[b];
  }
}

// Pair p of a group is blocks 2p (A) and 2p + 1 (B); value v of both is byte v of the
// pair's 32 qs bytes: A's code in bits 0-4, B's low three bits in 5-7. B's top two bits
// are in the plane qh: value k (k < 16) in bits 2p, 2p + 1 of byte k, value k + 16 in bits
// 4 + 2p, 5 + 2p.
int plane_shift(int p, int v) { return 2 * p + (v < 16 ? 0 : 4); }

void repack_quad(const BlockQ5_0* in, BlockQ5_0x4& out) {
  std::memset(&out, 0, sizeof out);
  for (int j = 0; j < 4; ++j) out.d[j] = in[j].d;
  for (int p = 0; p < 2; ++p) {
    for (int v = 0; v < 32; ++v) {
      const int a = code(in[2 * p], v), b = code(in[2 * p + 1], v);
      out.qs[32 * p + v] = static_cast<uint8_t>(a | (b & 7) << 5);
      out.qh[v % 16] |= static_cast<uint8_t>((b >> 3) << plane_shift(p, v));
    }
  }
}

void unpack_quad(const BlockQ5_0x4& in, BlockQ5_0* out) {
  for (int j = 0; j < 4; ++j) out[j].d = in.d[j];
  for (int p = 0; p < 2; ++p) {
    int a[32], b[32];
    for (int v = 0; v < 32; ++v) {
      const int byte = in.qs[32 * p + v];
      a[v] = byte & 0x1F;
      b[v] = byte >> 5 | ((in.qh[v % 16] >> plane_shift(p, v)) & 3) << 3;
    }
    set_codes(out[2 * p], a);
    set_codes(out[2 * p + 1], b);
  }
}

}  // namespace

int q5_0_group_blocks(GgmlType type) {
  switch (type) {
    case GgmlType::Q5_0x2: return 2;
    case GgmlType::Q5_0x4: return 4;
    default: return 0;
  }
}

void repack_q5_0(GgmlType to, const BlockQ5_0* blocks, int64_t n_blocks, void* dst) {
  const int group = q5_0_group_blocks(to);
  DB_CHECK(group > 0 && n_blocks % group == 0);
  for (int64_t g = 0; g < n_blocks / group; ++g) {
    if (to == GgmlType::Q5_0x2) repack_pair(blocks + 2 * g, static_cast<BlockQ5_0x2*>(dst)[g]);
    else repack_quad(blocks + 4 * g, static_cast<BlockQ5_0x4*>(dst)[g]);
  }
}

void unpack_q5_0(GgmlType from, const void* src, int64_t n_blocks, BlockQ5_0* blocks) {
  const int group = q5_0_group_blocks(from);
  DB_CHECK(group > 0 && n_blocks % group == 0);
  for (int64_t g = 0; g < n_blocks / group; ++g) {
    if (from == GgmlType::Q5_0x2) unpack_pair(static_cast<const BlockQ5_0x2*>(src)[g], blocks + 2 * g);
    else unpack_quad(static_cast<const BlockQ5_0x4*>(src)[g], blocks + 4 * g);
  }
}

}  // namespace draftbench
