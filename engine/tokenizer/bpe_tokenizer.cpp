#include "engine/tokenizer/bpe_tokenizer.h"

#include <queue>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// GPT-2's table: bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves; the
// other 68 bytes, in increasing order, for U+0100, U+0101, ...
struct ByteTable {
  std::array<std::string, 256> utf8;                   // byte -> its character's UTF-8
  std::unordered_map<uint32_t, uint8_t> byte_of_code;  // code point -> byte

  ByteTable() {
    uint32_t next_moved = 0x100;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool kept = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t code = kept ? b : next_moved++;
      utf8[b] =
          code < 0x80 ? std::string(1, static_cast<char>(code)) : std::string{static_cast<char>(0xC0 | (code >> 6)), static_cast<char>(0x80 | (code & 0x3F))};
      byte_of_code[code] = static_cast<uint8_t>(b);
    }
  }
};

const ByteTable& byte_table() {
  static const ByteTable table;  // immutable after its thread-safe initialisation
  return table;
}

// Length of the UTF-8 sequence led by `lead` (1 for a stray continuation byte, so that
// decoding never stalls on text that is not UTF-8).
size_t utf8_length(uint8_t lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

std::pair<std::string, std::string> parse_merge_line(std::string_view line, size_t index, std::string_view source, std::string_view field) {
  const size_t space = line.size() > 1 ? line.find(' ', 1) : std::string_view::npos;
  if (space == std::string_view::npos || space + 1 >= line.size()) {
    throw InputError(source, field, "merge " + std::to_string(index) + " '" + std::string(line) + "' is not two tokens separated by a space");
  }
  return {std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

std::string_view byte_to_unicode(uint8_t b) { return byte_table().utf8[b]; }

std::string bytes_to_unicode(std::string_view bytes) {
  const ByteTable& table = byte_table();
  std::string text;
  text.reserve(bytes.size() * 2);
  for (char c : bytes) text += table.utf8[static_cast<uint8_t>(c)];
  return text;
}

std::string unicode_to_bytes(std::string_view text) {
  const ByteTable& table = byte_table();
  std::string bytes;
  bytes.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const auto lead = static_cast<uint8_t>(text[pos]);
    const size_t length = std::min(utf8_length(lead), text.size() - pos);
    uint32_t code = lead;
    if (length == 2) code = ((lead & 0x1Fu) << 6) | (static_cast<uint8_t>(text[pos + 1]) & 0x3Fu);
    const auto it = length <= 2 ? table.byte_of_code.find(code) : table.byte_of_code.end();
    if (it != table.byte_of_code.end()) {
      bytes += static_cast<char>(it->second);
    } else {
      bytes.append(text, pos, length);
    }
    pos += length;
  }
  return bytes;
}

BpeModel::BpeModel(const BpeVocabSpec& spec, const std::unordered_map<std::string_view, int32_t>& id_by_text, std::string_view source)
    : pre_(spec.hf_split_pattern.empty() ? PreTokenizer::from_name(spec.pre, source, "tokenizer.ggml.pre")
                                         : PreTokenizer::from_hf_pattern(spec.hf_split_pattern, source, "pre_tokenizer Split pattern")) {
  ignore_merges_ = spec.ignore_merges.value_or(pre_.ignore_merges());
  const auto lookup = [&](const std::string& text) {
    const auto it = id_by_text.find(text);
    return it == id_by_text.end() ? -1 : it->second;
  };
  for (int b = 0; b < 256; ++b) {
    byte_id_[b] = lookup(std::string(byte_to_unicode(static_cast<uint8_t>(b))));
    if (byte_id_[b] < 0) {
      throw InputError(source, "tokens",
                       "byte " + std::to_string(b) + " has no token (its byte-level character '" + std::string(byte_to_unicode(static_cast<uint8_t>(b))) +
                           "' is not in the vocabulary)");
    }
  }
  merges_.reserve(spec.merges.size());
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    const auto& [left, right] = spec.merges[rank];
    const int32_t left_id = lookup(left), right_id = lookup(right), result = lookup(left + right);
    if (left_id < 0 || right_id < 0 || result < 0) {
      const std::string& missing = left_id < 0 ? left : right_id < 0 ? right : left + right;
      throw InputError(source, "merges", "merge " + std::to_string(rank) + " ('" + left + "', '" + right + "'): '" + missing + "' is not in the vocabulary");
    }
    // A repeated pair keeps its first (lowest) rank.
    merges_.try_emplace(pair_key(left_id, right_id), Merge{static_cast<int32_t>(rank), result});
  }
  if (ignore_merges_) {
    for (const auto& [text, id] : id_by_text) whole_words_.emplace(text, id);
  }
}

void BpeModel::encode(std::string_view text, std::vector<int32_t>& ids) const {
  for (std::string_view word : pre_.split(text)) encode_word(word, ids);
}

// Lowest rank first, then leftmost, with stale queue entries skipped on the way out:
// O(n log n) in the word's length, as words can be long (a run of letters or spaces).
void BpeModel::encode_word(std::string_view word, std::vector<int32_t>& ids) const {
  if (ignore_merges_) {
    const auto it = whole_words_.find(bytes_to_unicode(word));
    if (it != whole_words_.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  struct Symbol {
    int32_t id;
    int32_t prev, next;  // neighbours' indices; -1 at the ends
  };
  std::vector<Symbol> symbols(word.size());
  for (size_t i = 0; i < word.size(); ++i) {
    symbols[i] = {byte_id_[static_cast<uint8_t>(word[i])], static_cast<int32_t>(i) - 1, i + 1 < word.size() ? static_cast<int32_t>(i + 1) : -1};
  }
  struct Candidate {
    int32_t rank, left, left_id, right_id;
    bool operator>(const Candidate& other) const { return rank != other.rank ? rank > other.rank : left > other.left; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  const auto consider = [&](int32_t left) {
    if (left < 0 || symbols[left].next < 0) return;
    const int32_t right = symbols[left].next;
    const auto it = merges_.find(pair_key(symbols[left].id, symbols[right].id));
    if (it != merges_.end()) queue.push({it->second.rank, left, symbols[left].id, symbols[right].id});
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(word.size()); ++i) consider(i);
  std::vector<bool> merged_away(word.size(), false);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.left];
    if (merged_away[top.left] || left.id != top.left_id || left.next < 0 || symbols[left.next].id != top.right_id) continue;
    const int32_t right = left.next;
    left.id = merges_.at(pair_key(top.left_id, top.right_id)).result;
    left.next = symbols[right].next;
    if (left.next >= 0) symbols[left.next].prev = top.left;
    merged_away[right] = true;
    consider(left.prev);
    consider(top.left);
  }
  for (int32_t i = 0; i >= 0 && i < static_cast<int32_t>(word.size()); i = symbols[i].next) ids.push_back(symbols[i].id);
}

}  // namespace draftbench
