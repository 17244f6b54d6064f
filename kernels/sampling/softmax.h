// The vocabulary-wide loops of sampling: argmax (greedy decoding and verification) and the
// softmax weights with their sum (the target distribution at temperature T > 0).
//
//   *_ref   plain loops; their operations and order are the contract (softmax_math.h)
//   *_avx2  the same operations eight lanes at a time: bit-identical results
//   argmax, softmax_exp   runtime dispatch
//
// Logits must not be NaN (a model that produces NaN is broken before sampling starts).
#pragma once

#include <cstdint>

namespace draftbench {

// The first index of the largest value.
int64_t argmax_ref(const float* x, int64_t n);
int64_t argmax_avx2(const float* x, int64_t n);
int64_t argmax(const float* x, int64_t n);

// w[i] = softmax_weight(logits[i], max_logit, inv_t); returns the sum of w in double.
double softmax_exp_ref(const float* logits, int64_t n, float max_logit, float inv_t, float* w);
double softmax_exp_avx2(const float* logits, int64_t n, float max_logit, float inv_t, float* w);
double softmax_exp(const float* logits, int64_t n, float max_logit, float inv_t, float* w);

}  // namespace draftbench
