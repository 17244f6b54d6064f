// Byte-level BPE ("gpt2" in GGUF; Qwen 2/2.5, Llama 3, GPT-2): the subword step of
// Tokenizer for these vocabularies. Tokenizer does the special-token partition, BOS and
// stop tokens the same way for every vocabulary; engine/tokenizer/README.md describes
// the whole pipeline.
//
// Encoding one fragment of ordinary text (no special tokens in it):
//   1. The pre-tokenizer (pretokenizer.h) cuts it into words.
//   2. Each word's bytes are spelt with GPT-2's byte-to-unicode table: every byte is one
//      printable code point (printable Latin-1 bytes stand for themselves, the others
//      are moved to U+0100 and up), so any byte string is a string of vocabulary
//      characters and no byte is ever unknown.
//   3. The word starts as one symbol per byte; the adjacent pair with the lowest merge
//      rank (its index in the merges list; leftmost first among equals) is merged,
//      repeatedly, until no adjacent pair has a merge. With `ignore_merges` (Llama 3) a
//      word that is itself a vocabulary entry is emitted whole first.
// Decoding maps each NORMAL token's characters back through the table to bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/tokenizer/pretokenizer.h"

namespace draftbench {

// A byte-level BPE vocabulary, as a GGUF file ("gpt2") or a tokenizer.json gives it.
struct BpeVocabSpec {
  // NORMAL tokens in the byte-to-unicode spelling ("Ġthe" for " the"); CONTROL and
  // USER_DEFINED tokens as their literal text ("<|im_end|>").
  std::vector<std::string> pieces;
  // GGUF token types (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused); empty:
  // all normal. Type 6 (byte) is SentencePiece's and refused here.
  std::vector<int32_t> types;
  // (left, right) in rank order: merges[0] is applied first.
  std::vector<std::pair<std::string, std::string>> merges;
  // The pre-tokenizer: a GGUF tokenizer.ggml.pre name, or (when hf_split_pattern is set,
  // from a tokenizer.json) the Split pattern, matched against the same table.
  std::string pre;
  std::string hf_split_pattern;
  // Unset: the pre-tokenizer's default (set for Llama 3, as in llama.cpp).
  std::optional<bool> ignore_merges;
  bool add_bos = false;
  bool add_eos = false;
  int32_t bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;
  int32_t eot_id = -1;  // end of turn: a stop token like EOS
};

// One GGUF merges entry "left right", split at the first space after the first byte
// (so "Ġ Ġ" is ("Ġ","Ġ") and a left side may start with a space). Throws InputError
// naming `source`, `field` and the entry's index when there is no such space or a side
// is empty.
std::pair<std::string, std::string> parse_merge_line(std::string_view line, size_t index, std::string_view source, std::string_view field);

// GPT-2's byte-to-unicode table: the UTF-8 of the code point byte `b` is spelt as.
std::string_view byte_to_unicode(uint8_t b);
// `bytes` spelt with the table.
std::string bytes_to_unicode(std::string_view bytes);
// The inverse: each character of `text` that is in the table becomes its byte; any other
// character (a vocabulary may hold some) is kept as its own UTF-8.
std::string unicode_to_bytes(std::string_view text);

// The merging step over one vocabulary. Immutable once built; encode() is thread-safe.
class BpeModel {
 public:
  // `pieces` and `id_by_text` (text -> id, the last id for duplicate texts) are the
  // Tokenizer's. Throws InputError naming `source` when a byte's character is not in the
  // vocabulary, or a merge's sides or result are not, or the pre-tokenizer is unknown.
  BpeModel(const BpeVocabSpec& spec, const std::unordered_map<std::string_view, int32_t>& id_by_text, std::string_view source);

  // Appends the ids of `text` (valid UTF-8 holding no special token).
  void encode(std::string_view text, std::vector<int32_t>& ids) const;
  const PreTokenizer& pre_tokenizer() const { return pre_; }

 private:
  struct Merge {
    int32_t rank;
    int32_t result;
  };
  void encode_word(std::string_view word, std::vector<int32_t>& ids) const;
  static uint64_t pair_key(int32_t left, int32_t right) { return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right); }

  PreTokenizer pre_;
  bool ignore_merges_ = false;
  std::array<int32_t, 256> byte_id_{};                    // the token of each byte's character
  std::unordered_map<uint64_t, Merge> merges_;            // pair_key(left, right) -> rank, merged token
  std::unordered_map<std::string, int32_t> whole_words_;  // ignore_merges: text -> id
};

}  // namespace draftbench
