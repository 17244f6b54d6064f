// What one architecture contributes to `draftbench make-model` (synthetic_model.h): its
// tensor table and its metadata keys. synthetic_model.cpp writes general.architecture,
// general.type and general.name, then the architecture's keys, then its tensors; a
// recipe points at one of the tables below, so no code branches on the architecture.
// Internal to engine/model.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/model/synthetic_model.h"

namespace draftbench {

struct SyntheticArchitecture {
  std::string_view name;  // general.architecture
  // Every tensor of a file with this shape, in the real file's order.
  std::vector<SyntheticTensor> (*tensors)(const RecipeShape& shape);
  // Every key after general.name (architecture keys, vocabulary, file type), in the real
  // file's order.
  void (*write_metadata)(GgufWriter& w, const RecipeShape& shape);
};

extern const SyntheticArchitecture kSyntheticGemma3;  // synthetic_model.cpp
extern const SyntheticArchitecture kSyntheticQwen2;   // synthetic_qwen2.cpp

constexpr uint32_t kFileTypeQ4_K_M = 15;  // general.file_type: LLAMA_FTYPE_MOSTLY_Q4_K_M

// llama.cpp's use_more_bits(): the first and last eighth of the layers and every third
// one between them get the larger type (Q4_K_M: attn_v and ffn_down).
bool use_more_bits(int64_t layer, int64_t n_layers);

}  // namespace draftbench
