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

// Register k (0..3) of a group: byte m holds value 16 (m / 16) + 4k + m % 4 of block
// (m / 4) % 4, so that int32 lane m / 4 of every register holds four values of the same
// group lane (block_lanes.h: lane i is block i % 4's values 16 (i / 4) ..) and the four
// registers' products add lane by lane.
struct GroupByte {
  int block, value;
};
GroupByte group_byte(int k, int m) { return {(m / 4) % 4, 16 * (m / 16) + 4 * k + m % 4}; }

// Registers 2p (A) and 2p + 1 (B) share the 32 qs bytes of pair p: byte m holds A's 5-bit
// code of its byte m in bits 0-4 and B's low three bits in 5-7. B's top two bits are in
// the plane qh: byte m (m < 16) in bits 2p, 2p + 1 of qh byte m, byte m + 16 in bits
// 4 + 2p, 5 + 2p.
int plane_shift(int p, int m) { return 2 * p + (m < 16 ? 0 : 4); }

int register_code(const BlockQ5_0* in, int k, int m) {
  const GroupByte at = group_byte(k, m);
  return code(in[at.block], at.value);
}

void repack_quad(const BlockQ5_0* in, BlockQ5_0x4& out) {
  std::memset(&out, 0, sizeof out);
  for (int j = 0; j < 4; ++j) out.d[j] = in[j].d;
  for (int p = 0; p < 2; ++p) {
    for (int m = 0; m < 32; ++m) {
      const int a = register_code(in, 2 * p, m), b = register_code(in, 2 * p + 1, m);
      out.qs[32 * p + m] = static_cast<uint8_t>(a | (b & 7) << 5);
      out.qh[m % 16] |= static_cast<uint8_t>((b >> 3) << plane_shift(p, m));
    }
  }
}

void unpack_quad(const BlockQ5_0x4& in, BlockQ5_0* out) {
  int codes[4][32];
  for (int p = 0; p < 2; ++p) {
    for (int m = 0; m < 32; ++m) {
      const int byte = in.qs[32 * p + m];
      const GroupByte a = group_byte(2 * p, m), b = group_byte(2 * p + 1, m);
      codes[a.block][a.value] = byte & 0x1F;
      codes[b.block][b.value] = byte >> 5 | ((in.qh[m % 16] >> plane_shift(p, m)) & 3) << 3;
    }
  }
  for (int j = 0; j < 4; ++j) {
    out[j].d = in.d[j];
    set_codes(out[j], codes[j]);
  }
}

}  // namespace

void repack_q5_0x4(const BlockQ5_0* blocks, int64_t n_blocks, BlockQ5_0x4* dst) {
  DB_CHECK(n_blocks % 4 == 0);
  for (int64_t g = 0; g < n_blocks / 4; ++g) repack_quad(blocks + 4 * g, dst[g]);
}

void unpack_q5_0x4(const BlockQ5_0x4* src, int64_t n_blocks, BlockQ5_0* blocks) {
  DB_CHECK(n_blocks % 4 == 0);
  for (int64_t g = 0; g < n_blocks / 4; ++g) unpack_quad(src[g], blocks + 4 * g);
}

}  // namespace draftbench
