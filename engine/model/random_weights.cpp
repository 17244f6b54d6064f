#include "engine/model/random_weights.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/quant/blocks.h"

namespace draftbench {
namespace {

// SplitMix64: a counter-based stream, fully specified here so its output never depends on
// the standard library.
class RandomStream {
 public:
  explicit RandomStream(uint64_t key) : state_(key) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }  // [0, 1)
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  int integer(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }  // [lo, hi]
  void fill(std::span<uint8_t> out) {
    size_t i = 0;
    for (; i + 8 <= out.size(); i += 8) {
      const uint64_t word = next();
      std::memcpy(out.data() + i, &word, 8);
    }
    for (uint64_t word = next(); i < out.size(); ++i, word >>= 8) out[i] = static_cast<uint8_t>(word);
  }

 private:
  uint64_t state_;
};

constexpr float kJitterLow = 0.75f, kJitterHigh = 1.25f;  // block scale around its target
constexpr int kSubScaleLow = 8, kSubScaleHigh = 15;       // K-quant sub-block scales
constexpr float kSmallestNormalHalf = 0x1.0p-14f;

void put_half(uint8_t* at, float value) {
  const uint16_t h = fp32_to_fp16(value);
  std::memcpy(at, &h, 2);
}

// Q4_K: sub-block j has scale sc[j] and min m[j] = sc[j] (6 bits each, packed as
// k_scale_min() unpacks them; with m == sc the scale and min bytes coincide), and
// dmin = 7.5 d, so value = d * sc[j] * q - dmin * m[j] = d * sc[j] * (q - 7.5).
void scale_q4_k(uint8_t* block, float d, RandomStream& rng) {
  auto* b = reinterpret_cast<BlockQ4_K*>(block);
  uint8_t sc[8];
  for (uint8_t& s : sc) s = static_cast<uint8_t>(rng.integer(kSubScaleLow, kSubScaleHigh));
  for (int j = 0; j < 4; ++j) {
    b->scales[j] = static_cast<uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
    b->scales[j + 4] = b->scales[j];
    b->scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0xF) | ((sc[j + 4] & 0xF) << 4));
  }
  put_half(block + offsetof(BlockQ4_K, d), d);
  put_half(block + offsetof(BlockQ4_K, dmin), 7.5f * fp16_to_fp32(fp32_to_fp16(d)));
}

void scale_q8_0(uint8_t* block, float d, RandomStream&) {
  put_half(block + offsetof(BlockQ8_0, d), d);
  for (int i = 0; i < 32; ++i)  // -128 is a code no quantiser writes
    if (block[offsetof(BlockQ8_0, qs) + i] == 0x80) block[offsetof(BlockQ8_0, qs) + i] = 0x81;
}
// Q5_0 and Q6_K codes run from -16 to 15 and -32 to 31: a random sign on the scale (as
// llama.cpp's quantisers give it: the sign of the block's largest value) centres them.
float random_sign(RandomStream& rng) { return (rng.next() >> 63) ? -1.0f : 1.0f; }
void scale_q5_0(uint8_t* block, float d, RandomStream& rng) { put_half(block + offsetof(BlockQ5_0, d), random_sign(rng) * d); }
void scale_q6_k(uint8_t* block, float d, RandomStream& rng) {
  auto* b = reinterpret_cast<BlockQ6_K*>(block);
  for (int8_t& s : b->scales) s = static_cast<int8_t>(random_sign(rng) * static_cast<float>(rng.integer(kSubScaleLow, kSubScaleHigh)));
  put_half(block + offsetof(BlockQ6_K, d), d);
}

// Per quantised type: the RMS of (code term) * (sub-block scale) for uniformly random
// code bytes, so that d = stddev / code_rms gives values of that standard deviation.
//  Q8_0: int8 codes with -128 folded onto -127: sqrt((2 * sum k^2 for k = 1..127 + 127^2) / 256).
//  Q5_0: q - 16, q in 0..31: sqrt(85.25 + 0.25).
//  Q4_K: sc * (q - 7.5), q in 0..15, sc in 8..15: sqrt(21.25 * 137.5).
//  Q6_K: sc * (q - 32), q in 0..63, sc in 8..15: sqrt(341.5 * 137.5).
struct QuantisedFiller {
  GgmlType type;
  float code_rms;
  void (*set_scales)(uint8_t* block, float d, RandomStream& rng);
};
constexpr QuantisedFiller kQuantisedFillers[] = {
    {GgmlType::Q8_0, 73.895f, scale_q8_0},
    {GgmlType::Q5_0, 9.2466f, scale_q5_0},
    {GgmlType::Q4_K, 54.055f, scale_q4_k},
    {GgmlType::Q6_K, 216.69f, scale_q6_k},
};

const QuantisedFiller* quantised_filler(GgmlType type) {
  for (const QuantisedFiller& f : kQuantisedFillers)
    if (f.type == type) return &f;
  return nullptr;
}

void fill_f32(const WeightDistribution& dist, RandomStream& rng, std::span<uint8_t> data) {
  const float half_width = std::sqrt(3.0f) * dist.stddev;  // uniform with that stddev
  for (size_t i = 0; i + 4 <= data.size(); i += 4) {
    const float v = dist.mean + rng.uniform(-half_width, half_width);
    std::memcpy(data.data() + i, &v, 4);
  }
}

}  // namespace

bool random_weights_support(GgmlType type) { return type == GgmlType::F32 || quantised_filler(type) != nullptr; }

bool weight_distribution_fits(GgmlType type, const WeightDistribution& dist) {
  if (!(std::isfinite(dist.mean) && std::isfinite(dist.stddev) && dist.stddev >= 0.0f)) return false;
  if (type == GgmlType::F32) return true;
  const QuantisedFiller* f = quantised_filler(type);
  if (!f || dist.mean != 0.0f) return false;
  const float d = dist.stddev / f->code_rms;
  return d * kJitterLow >= kSmallestNormalHalf && d * kJitterHigh * 7.5f < 65504.0f;  // Q4_K's dmin is 7.5 d
}

void fill_random_weights(GgmlType type, const WeightDistribution& dist, uint64_t key, std::span<uint8_t> data) {
  const std::string what = "fill_random_weights(" + std::string(ggml_type_name(type)) + "): ";
  if (!random_weights_support(type)) throw std::logic_error(what + "type not supported");
  if (!weight_distribution_fits(type, dist)) throw std::logic_error(what + "the distribution does not fit the type's scales");
  const size_t block_bytes = static_cast<size_t>(ggml_type_info(type).block_bytes);
  if (data.size() % block_bytes != 0) throw std::logic_error(what + "not a whole number of blocks");
  RandomStream rng(key);
  if (type == GgmlType::F32) return fill_f32(dist, rng, data);
  const QuantisedFiller& f = *quantised_filler(type);
  rng.fill(data);  // the codes; scale fields are overwritten below
  const float d = dist.stddev / f.code_rms;
  for (size_t at = 0; at < data.size(); at += block_bytes) f.set_scales(data.data() + at, d * rng.uniform(kJitterLow, kJitterHigh), rng);
}

uint64_t tensor_stream_key(uint64_t seed, std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
  return RandomStream(seed ^ h).next();
}

}  // namespace draftbench
