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

// One prompt of a --prompts-file.
struct PromptEntry {
  std::string id;        // line number, or the MT-Bench question_id
  std::string category;  // MT-Bench category; empty for plain text
  std::string text;      // the first turn
};

// Plain text (one prompt per non-empty line) or JSONL: MT-Bench questions (one object per
// line with "question_id", "category" and "turns"; the first turn is the prompt) or
// draftbench's corpus records ("id", "category", "prompt"): a file
// whose first non-blank character is '{' is read as JSONL. Throws InputError naming the
// file, the line and what was expected.
std::vector<PromptEntry> read_prompts_file(const std::string& path);

}  // namespace draftbench::cli
