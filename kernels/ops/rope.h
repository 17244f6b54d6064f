// Rotary position embedding on one token's heads, in place: x is [n_heads][head_dim].
// theta_j = pos * base^(-2j/head_dim), computed as ggml does (a running product) so the
// angles match llama.cpp's to the last bit of the float arithmetic.
//   rope_neox: pairs (x[j], x[j + head_dim/2])  — Gemma ("rotate_half").
//   rope_norm: pairs (x[2j], x[2j+1])           — Llama weights as converted to GGUF.
// For Hugging Face Llama checkpoints (unpermuted q/k) use rope_neox.
#pragma once

#include <cstdint>

namespace draftbench {

void rope_neox(float* x, int n_heads, int head_dim, int64_t pos, float base);
void rope_norm(float* x, int n_heads, int head_dim, int64_t pos, float base);

}  // namespace draftbench
