// The shapes the kernels are benchmarked at: the default model's (Gemma 3 270M, with the
// weight types of its Q4_K_M file) and Vicuna-7B's (Llama-2 7B geometry, Q4_K_M types as
// llama.cpp's quantiser assigns them).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

struct MatrixShape {
  std::string_view name;
  int64_t n_in, n_out;
  GgmlType type;
};

struct ModelShape {
  std::string_view name;
  int64_t hidden, ffn, vocab;
  int n_heads, n_kv_heads, head_dim;
  int64_t window;  // sliding window of the local layers (0 = none)
  std::array<MatrixShape, 8> matrices;
};

inline constexpr ModelShape kGemma3_270M{"gemma3-270m",
                                         640,
                                         2048,
                                         262144,
                                         4,
                                         1,
                                         256,
                                         512,
                                         {{{"attn_q", 640, 1024, GgmlType::Q5_0},
                                           {"attn_k", 640, 256, GgmlType::Q5_0},
                                           {"attn_v", 640, 256, GgmlType::Q8_0},
                                           {"attn_output", 1024, 640, GgmlType::Q4_K},
                                           {"ffn_gate", 640, 2048, GgmlType::Q5_0},
                                           {"ffn_up", 640, 2048, GgmlType::Q5_0},
                                           {"ffn_down", 2048, 640, GgmlType::Q6_K},
                                           {"lm_head", 640, 262144, GgmlType::Q8_0}}}};

inline constexpr ModelShape kVicuna7B{"vicuna-7b",
                                      4096,
                                      11008,
                                      32000,
                                      32,
                                      32,
                                      128,
                                      0,
                                      {{{"attn_q", 4096, 4096, GgmlType::Q4_K},
                                        {"attn_k", 4096, 4096, GgmlType::Q4_K},
                                        {"attn_v", 4096, 4096, GgmlType::Q6_K},
                                        {"attn_output", 4096, 4096, GgmlType::Q4_K},
                                        {"ffn_gate", 4096, 11008, GgmlType::Q4_K},
                                        {"ffn_up", 4096, 11008, GgmlType::Q4_K},
                                        {"ffn_down", 11008, 4096, GgmlType::Q6_K},
                                        {"lm_head", 4096, 32000, GgmlType::Q6_K}}}};

inline constexpr std::array<const ModelShape*, 2> kModelShapes{&kGemma3_270M, &kVicuna7B};

}  // namespace draftbench
