// Prompt sets for experiments: the MT-Bench question format (also Spec-Bench's), the
// AlpacaEval format, draftbench's corpus records and plain text, read into one shape.
#pragma once

#include <string>
#include <vector>

namespace draftbench {

enum class PromptFormat {
  detect,    // from the first non-blank character: '[' = a JSON array, AlpacaEval; '{' = JSONL,
             // and the first record's keys decide: "turns" = MT-Bench, "prompt" = corpus,
             // "instruction" = AlpacaEval, none of them = an error; anything else = plain
  mt_bench,  // JSONL: question_id, category, turns[], reference? (Spec-Bench too: a string, a
             // list of strings, or a list of lists of strings)
  alpaca,    // JSON array or JSONL: instruction, dataset (the category), ...
  corpus,    // draftbench's datasets/corpus records: prompt (required), id, split, style, category
  plain,     // one prompt per non-empty line
};

// "detect", "mt_bench", "alpaca", "corpus", "plain"; throws InputError naming `where` otherwise.
PromptFormat parse_prompt_format(const std::string& name, const std::string& where);
const char* prompt_format_name(PromptFormat format);

struct PromptItem {
  std::string id;                      // question_id / id / position in the file (1-based)
  std::string category;                // MT-Bench category, AlpacaEval dataset; empty for plain text
  std::vector<std::string> turns;      // user turns, in order (one for single-turn formats)
  std::vector<std::string> reference;  // reference answers, when given: one per turn (a turn's several answers joined by newlines)
  std::string split;                   // corpus records only: train | heldout
};

// Reads a whole prompt file: a regular file (not a FIFO, device or directory) of at most
// kMaxPromptBytes (engine/common/input_file.h). Throws InputError naming the file, the line (or array
// element) and field, and what was expected, for anything malformed: unreadable file, bad
// JSON, missing or mistyped fields, empty turns, duplicate ids, no prompts at all.
std::vector<PromptItem> load_prompt_set(const std::string& path, PromptFormat format = PromptFormat::detect);

}  // namespace draftbench
