// Prompt text or ids from the command line to token ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/model.h"

namespace draftbench::cli {

// `ids` ("2,106,...") wins when given; otherwise `text`, wrapped in the model's chat
// template when `chat` is set (special tokens in the template are parsed as such).
std::vector<int32_t> prompt_tokens(const Model& model, const std::string& text, const std::string& ids, bool chat);

}  // namespace draftbench::cli
