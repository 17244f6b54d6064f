// Rotary position embedding on one token's heads, in place: x is [n_heads][head_dim].
// theta_j = pos * base^(-2j/head_dim), computed as ggml does (a running product) so the
// angles match llama.cpp's to the last bit of the float arithmetic.
//   rope_neox: pairs (x[j], x[j + head_dim/2])  — Gemma ("rotate_half").
//   rope_norm: pairs (x[2j], x[2j+1])           — Llama weights as converted to GGUF.
// For Hugging Face Llama checkpoints (unpermuted q/k) use rope_neox.
//
// The angles depend on the position only, so a forward pass computes them once per token
// (rope_angles) and every layer's q and k reuse them (rope_*_apply): the sines and cosines
// cost more than the rotations. rope_*_apply_avx2 perform the reference's multiplies and
// adds eight pairs at a time: bit-identical.
#pragma once

#include <cstdint>

namespace draftbench {

// cos[j], sin[j] of theta_j for j < head_dim / 2.
void rope_angles(int64_t pos, int head_dim, float base, float* cos, float* sin);

void rope_neox_apply_ref(float* x, int n_heads, int head_dim, const float* cos, const float* sin);
void rope_norm_apply_ref(float* x, int n_heads, int head_dim, const float* cos, const float* sin);
void rope_neox_apply_avx2(float* x, int n_heads, int head_dim, const float* cos, const float* sin);
void rope_norm_apply_avx2(float* x, int n_heads, int head_dim, const float* cos, const float* sin);
void rope_neox_apply(float* x, int n_heads, int head_dim, const float* cos, const float* sin);
void rope_norm_apply(float* x, int n_heads, int head_dim, const float* cos, const float* sin);

// Angles and rotation in one call (the angles on the stack; head_dim <= 1024).
void rope_neox(float* x, int n_heads, int head_dim, int64_t pos, float base);
void rope_norm(float* x, int n_heads, int head_dim, int64_t pos, float base);

}  // namespace draftbench
