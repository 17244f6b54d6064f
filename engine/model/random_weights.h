// Random but valid weight tensors in the file types the engine loads, generated in place
// (synthetic_model.h writes whole models of them). Every value comes from a counter-based
// generator keyed by (key, position in the tensor) and no std:: distribution is used, so
// the bytes are the same on every platform and standard library.
//
// Quantised tensors get random codes and scales chosen so that the dequantised values are
// centred on zero with the requested standard deviation: block scales jittered by up to
// +-25% around the value that gives it, K-quant sub-block scales drawn from 8..15, and
// offsets cancelled (Q4_K's mins; a random sign on the Q5_0 and Q6_K scales). Every fp16 scale is a normal number (never
// a denormal, infinity or NaN), which weight_distribution_fits() checks up front.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

struct WeightDistribution {
  float mean = 0.0f;    // F32 only: quantised tensors are always centred on zero
  float stddev = 1.0f;  // of the dequantised values
};

// The types fill_random_weights() writes: the ones the synthetic recipes use.
bool random_weights_support(GgmlType type);

// Whether `dist` in `type` keeps every block scale a normal fp16 number.
bool weight_distribution_fits(GgmlType type, const WeightDistribution& dist);

// Fills `data` (whole rows of `type`, back to back) with random values of `dist`. `key`
// selects the stream: the same key gives the same bytes. Throws std::logic_error for a
// type random_weights_support() refuses, a span that is not whole blocks, or a
// distribution that does not fit.
void fill_random_weights(GgmlType type, const WeightDistribution& dist, uint64_t key, std::span<uint8_t> data);

// A key for tensor `name` of a model written with `seed` (FNV-1a of the name mixed with
// the seed): every tensor of a model, and every seed, draws a different stream.
uint64_t tensor_stream_key(uint64_t seed, std::string_view name);

}  // namespace draftbench
