// Rotary embedding's per-thread body (one thread per rotated pair of one head of one
// token), shared by the CUDA kernel and the CPU emulation. Reference: kernels/ops/rope.h.
//
// The angle is the reference's running product theta_j = pos * scale * ... * scale (j
// factors), repeated by each thread up to its own j, so angles are bit-identical to the
// reference's. theta_scale = base^(-2/head_dim) is computed on the host (rope_theta_scale)
// and passed in, so device powf never enters; only cosf/sinf may differ from glibc's.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

inline constexpr unsigned kRopeThreads = 128;

enum class RopePairing : int {
  kNeox,  // (x[j], x[j + head_dim/2]), Gemma
  kNorm,  // (x[2j], x[2j + 1]), Llama as converted to GGUF
};

struct RopeArgs {
  float* x;  // [n_tokens] rows of [n_heads][head_dim], token_stride floats apart
  int64_t token_stride;
  const int64_t* positions;  // [n_tokens]
  int n_heads, head_dim;
  float theta_scale;  // rope_theta_scale(base, head_dim)
  RopePairing pairing;
};

// Same expression as the reference's, evaluated by the host compiler.
inline float rope_theta_scale(float base, int head_dim) { return powf(base, -2.0f / static_cast<float>(head_dim)); }

inline Launch rope_launch(int64_t n_tokens, int n_heads, int head_dim) {
  return {blocks_for(static_cast<int64_t>(n_heads) * (head_dim / 2), kRopeThreads), n_tokens, Dim3{kRopeThreads}};
}

DB_HOST_DEVICE inline void rope_thread(const RopeArgs& a, Dim3 block, Dim3 thread) {
  const int half = a.head_dim / 2;
  const int64_t pair = static_cast<int64_t>(block.x) * kRopeThreads + thread.x;
  if (pair >= static_cast<int64_t>(a.n_heads) * half) return;
  const int head = static_cast<int>(pair / half), j = static_cast<int>(pair % half);
  float theta = static_cast<float>(a.positions[block.y]);
  for (int k = 0; k < j; ++k) theta *= a.theta_scale;
  const float c = cosf(theta), s = sinf(theta);
  float* v = a.x + static_cast<int64_t>(block.y) * a.token_stride + static_cast<int64_t>(head) * a.head_dim;
  const bool neox = a.pairing == RopePairing::kNeox;
  const int i0 = neox ? j : 2 * j, i1 = neox ? j + half : 2 * j + 1;
  const float x0 = v[i0], x1 = v[i1];
  v[i0] = x0 * c - x1 * s;
  v[i1] = x0 * s + x1 * c;
}

}  // namespace draftbench::cuda
