#include "engine/tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "engine/common/error.h"
#include "engine/common/printable.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/sentencepiece_model_proto.h"

namespace draftbench {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";      // U+2581 "▁", SentencePiece's space
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// Texts that end generation, matched against the vocabulary: llama.cpp's
// end-of-generation list (llama-vocab.cpp; the version llama-cpp-python 0.3.36 bundles).
// llama.cpp also makes each match a CONTROL token, which changes how text containing it
// is split (only with parse_special) and rendered. Note "</s>": in Gemma 3 it is the HTML
// strikethrough close tag (USER_DEFINED), yet llama.cpp stops on it and treats it as
// CONTROL, so draftbench does the same to stay comparable; llama.cpp drops it again only
// when "<|tool_response>" is also present (Gemma 4).
constexpr std::array<std::string_view, 20> kEndOfGenerationTexts = {
    "<|eot_id|>", "<|im_end|>",       "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",       "<end_of_turn>",      "<|endoftext|>",
    "</s>",       "<|eom_id|>",       "<EOT>",   "_<EOT>",     "[EOT]",    "[EOS]",     "<|end_of_text|>", "<end_of_utterance>", "<eos>",
    "<turn|>",    "<|tool_response>",
};

// Pieces SentencePiece must hold but text can never produce (encode rejects invalid
// UTF-8, and "\xFF" never occurs in valid UTF-8): stand-ins for empty or duplicate
// vocabulary texts, and the UNKNOWN piece SentencePiece insists on.
std::string unreachable_piece(std::string_view what, size_t id) {
  return "\xFF"
         "draftbench:" +
         std::string(what) + ":" + std::to_string(id);
}

void require_valid_utf8(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const int length = utf8_sequence_length(text, pos);
    if (length <= 0) {
      throw InputError("tokenizer", "input text", "invalid UTF-8 at byte " + std::to_string(pos) + " of " + std::to_string(text.size()));
    }
    pos += length;
  }
}

std::string byte_piece_text(int byte) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + ">";
}

// The byte a "<0xXX>" piece stands for, or -1 if the text is not exactly that form.
int parse_byte_piece(std::string_view text) {
  if (text.size() != 6 || !text.starts_with("<0x") || text[5] != '>') return -1;
  const auto hex_digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  const int high = hex_digit(text[3]), low = hex_digit(text[4]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

// A NORMAL piece's text as output: SentencePiece's "▁" back to a space.
std::string unescape_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    if (text.substr(pos, kSpaceSymbol.size()) == kSpaceSymbol) {
      out += ' ';
      pos += kSpaceSymbol.size();
    } else {
      out += text[pos++];
    }
  }
  return out;
}

// A piece of the input after the special-token partition: a special token, or a span of
// ordinary text to hand to SentencePiece.
struct Fragment {
  int32_t token = -1;  // >= 0: a special token
  size_t offset = 0, length = 0;
};

}  // namespace

struct Tokenizer::Impl {
  std::vector<std::string> pieces;
  std::vector<SentencePieceType> types;
  std::vector<int16_t> byte_value;  // per id: the byte of a BYTE token, else -1
  // Text -> id. For duplicate texts the last id wins, as in llama.cpp's token_to_id.
  std::unordered_map<std::string_view, int32_t> id_by_text;

  // Special-token partition: candidates (CONTROL, USER_DEFINED, UNKNOWN) keyed by text,
  // their rank in llama.cpp's search order (longer text first, then lower id), and for
  // each first byte the distinct candidate lengths starting with it.
  std::unordered_map<std::string_view, int32_t> special_by_text;
  std::vector<int32_t> special_rank;  // per id; -1 if not a candidate
  std::array<std::vector<uint32_t>, 256> special_lengths_by_first_byte;

  std::vector<int32_t> stop_ids;
  bool add_space_prefix = false, add_bos = true, add_eos = false;
  int32_t bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;

  // The subword step: exactly one of the two is set.
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor;  // SentencePiece vocabularies
  std::unique_ptr<const BpeModel> bpe;                               // byte-level BPE vocabularies

  int32_t size() const { return static_cast<int32_t>(pieces.size()); }
  std::vector<Fragment> partition_special_tokens(std::string_view text, bool parse_special) const;
  // What both kinds of vocabulary share (VocabSpec and BpeVocabSpec have these fields):
  // checks, pieces, types, special ids, the text index, stop tokens and the special-token
  // partition's index. Throws InputError naming `source`.
  template <class Spec>
  void init_common(const Spec& spec, std::string_view source);
  void collect_stop_ids();
  void index_special_tokens();
  void load_sentencepiece(const VocabSpec& spec, std::string_view source);
};

// llama.cpp's partition, computed without rescanning the text once per candidate:
// llama.cpp takes the candidates longest first and, inside each still-unclaimed span,
// claims that candidate's leftmost non-overlapping occurrences. An occurrence lies
// inside an unclaimed span exactly when it overlaps nothing claimed before, so finding
// every occurrence once and claiming them greedily in (rank, position) order gives the
// same fragments.
std::vector<Fragment> Tokenizer::Impl::partition_special_tokens(std::string_view text, bool parse_special) const {
  const Impl& vocab = *this;
  struct Occurrence {
    int32_t rank;
    size_t offset;
    int32_t token;
  };
  std::vector<Occurrence> occurrences;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    for (uint32_t length : vocab.special_lengths_by_first_byte[static_cast<uint8_t>(text[pos])]) {
      if (length > text.size() - pos) continue;
      const auto it = vocab.special_by_text.find(text.substr(pos, length));
      if (it == vocab.special_by_text.end()) continue;
      const int32_t token = it->second;
      if (!parse_special && vocab.types[token] != SentencePieceType::user_defined) continue;
      occurrences.push_back({vocab.special_rank[token], pos, token});
    }
  }
  if (occurrences.empty()) return {Fragment{-1, 0, text.size()}};

  std::sort(occurrences.begin(), occurrences.end(),
            [](const Occurrence& a, const Occurrence& b) { return a.rank != b.rank ? a.rank < b.rank : a.offset < b.offset; });
  std::vector<bool> claimed(text.size(), false);
  std::vector<Fragment> specials;
  for (const Occurrence& occurrence : occurrences) {
    const size_t length = vocab.pieces[occurrence.token].size();
    const auto begin = claimed.begin() + occurrence.offset;
    if (std::find(begin, begin + length, true) != begin + length) continue;
    std::fill(begin, begin + length, true);
    specials.push_back({occurrence.token, occurrence.offset, length});
  }
  std::sort(specials.begin(), specials.end(), [](const Fragment& a, const Fragment& b) { return a.offset < b.offset; });

  std::vector<Fragment> fragments;
  size_t cursor = 0;
  for (const Fragment& special : specials) {
    if (special.offset > cursor) fragments.push_back({-1, cursor, special.offset - cursor});
    fragments.push_back(special);
    cursor = special.offset + special.length;
  }
  if (cursor < text.size()) fragments.push_back({-1, cursor, text.size() - cursor});
  return fragments;
}

namespace {

std::string read_file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (file.bad()) throw InputError(path, "", "read failed");
  return std::move(bytes).str();
}

}  // namespace

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(const Tokenizer&) = default;
Tokenizer& Tokenizer::operator=(const Tokenizer&) = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

template <class Spec>
void Tokenizer::Impl::init_common(const Spec& spec, std::string_view source) {
  const size_t n = spec.pieces.size();
  if (n == 0) throw InputError(source, "tokens", "the vocabulary is empty");
  if (n >= static_cast<size_t>(INT32_MAX)) throw InputError(source, "tokens", "too many tokens");
  if (!spec.types.empty() && spec.types.size() != n) {
    throw InputError(source, "token types", std::to_string(spec.types.size()) + " types for " + std::to_string(n) + " tokens");
  }
  const auto check_id = [&](int32_t id, const char* what) {
    if (id < -1 || id >= static_cast<int64_t>(n)) {
      throw InputError(source, what, "id " + std::to_string(id) + " is outside the vocabulary (size " + std::to_string(n) + ")");
    }
  };
  check_id(spec.bos_id, "bos token id");
  check_id(spec.eos_id, "eos token id");
  check_id(spec.unk_id, "unknown token id");
  check_id(spec.pad_id, "padding token id");
  check_id(spec.eot_id, "end-of-turn token id");

  pieces = spec.pieces;
  types.assign(n, SentencePieceType::normal);
  for (size_t id = 0; id < spec.types.size(); ++id) {
    const int32_t type = spec.types[id];
    if (type < 1 || type > 6) {
      throw InputError(source, "token types", "token " + std::to_string(id) + " has type " + std::to_string(type) + ", expected 1..6");
    }
    types[id] = static_cast<SentencePieceType>(type);
  }
  add_bos = spec.add_bos;
  add_eos = spec.add_eos;
  bos_id = spec.bos_id;
  eos_id = spec.eos_id;
  unk_id = spec.unk_id;
  pad_id = spec.pad_id;
  // Keys view `pieces`, which no longer changes.
  for (size_t id = 0; id < n; ++id) id_by_text[pieces[id]] = static_cast<int32_t>(id);
  for (int32_t id : {spec.eos_id, spec.eot_id})
    if (id >= 0) stop_ids.push_back(id);
  collect_stop_ids();
  index_special_tokens();
}

// End-of-generation tokens are found by text (kEndOfGenerationTexts).
void Tokenizer::Impl::collect_stop_ids() {
  const bool is_gemma4_vocab = id_by_text.contains("<|tool_response>");
  for (std::string_view text : kEndOfGenerationTexts) {
    const auto it = id_by_text.find(text);
    if (it == id_by_text.end()) continue;
    if (is_gemma4_vocab && text == "</s>") {
      types[it->second] = SentencePieceType::normal;
      continue;
    }
    stop_ids.push_back(it->second);
    types[it->second] = SentencePieceType::control;
  }
  std::sort(stop_ids.begin(), stop_ids.end());
  stop_ids.erase(std::unique(stop_ids.begin(), stop_ids.end()), stop_ids.end());
}

// Special-token candidates in llama.cpp's search order.
void Tokenizer::Impl::index_special_tokens() {
  const size_t n = pieces.size();
  std::vector<int32_t> candidates;
  for (size_t id = 0; id < n; ++id) {
    const SentencePieceType type = types[id];
    const bool special = type == SentencePieceType::control || type == SentencePieceType::user_defined || type == SentencePieceType::unknown;
    if (special && !pieces[id].empty() && id_by_text.at(pieces[id]) == static_cast<int32_t>(id)) {
      candidates.push_back(static_cast<int32_t>(id));
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) { return pieces[a].size() > pieces[b].size(); });
  special_rank.assign(n, -1);
  for (size_t rank = 0; rank < candidates.size(); ++rank) {
    const std::string& text = pieces[candidates[rank]];
    special_rank[candidates[rank]] = static_cast<int32_t>(rank);
    special_by_text[text] = candidates[rank];
    auto& lengths = special_lengths_by_first_byte[static_cast<uint8_t>(text[0])];
    if (std::find(lengths.begin(), lengths.end(), text.size()) == lengths.end()) {
      lengths.push_back(static_cast<uint32_t>(text.size()));
    }
  }
}

// The SentencePiece model: BPE over the same ids. Everything but the byte tokens is
// NORMAL so SentencePiece merges into any vocabulary text, as llama.cpp does; texts
// llama.cpp could never produce (empty, or shadowed by a later duplicate) and the
// UNKNOWN piece SentencePiece requires get unreachable stand-ins.
void Tokenizer::Impl::load_sentencepiece(const VocabSpec& spec, std::string_view source) {
  const size_t n = pieces.size();
  SentencePieceModel model;
  model.model_type = SentencePieceModelType::bpe;
  model.byte_fallback = true;
  model.normalizer_name = "identity";
  model.add_dummy_prefix = spec.add_space_prefix;
  model.remove_extra_whitespaces = false;
  model.escape_whitespaces = true;
  model.pieces.reserve(n + 1);
  for (size_t id = 0; id < n; ++id) {
    SentencePiecePiece piece;
    piece.score = spec.scores.empty() ? 0.0f : spec.scores[id];
    const std::string& text = pieces[id];
    if (text.empty() || id_by_text.at(text) != static_cast<int32_t>(id)) {
      piece.piece = unreachable_piece(text.empty() ? "empty" : "duplicate", id);
    } else {
      piece.piece = text;
      if (types[id] == SentencePieceType::byte) piece.type = SentencePieceType::byte;
    }
    model.pieces.push_back(std::move(piece));
  }
  const std::string unknown_text = unreachable_piece("unknown", n);
  model.pieces.push_back({unknown_text, 0.0f, SentencePieceType::unknown});
  model.unk_id = static_cast<int32_t>(n);
  model.unk_piece = unknown_text;
  model.bos_id = model.eos_id = model.pad_id = -1;  // BOS/EOS are added by encode(), not SentencePiece

  processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = processor->LoadFromSerializedProto(serialize_sentencepiece_model(model));
  if (!status.ok()) throw InputError(source, "SentencePiece model", status.ToString());
}

Tokenizer Tokenizer::from_vocab(const VocabSpec& spec, std::string_view source) {
  const size_t n = spec.pieces.size();
  if (!spec.scores.empty() && spec.scores.size() != n) {
    throw InputError(source, "scores", std::to_string(spec.scores.size()) + " scores for " + std::to_string(n) + " tokens");
  }
  auto impl = std::make_shared<Impl>();
  impl->init_common(spec, source);
  impl->add_space_prefix = spec.add_space_prefix;

  // Byte tokens must be spelt "<0xXX>" (SentencePiece looks them up by that spelling),
  // and byte fallback needs all 256: llama.cpp would stop on a missing one too.
  impl->byte_value.assign(n, -1);
  for (size_t id = 0; id < n; ++id) {
    if (impl->types[id] != SentencePieceType::byte) continue;
    const int value = parse_byte_piece(impl->pieces[id]);
    if (value < 0) {
      throw InputError(source, "tokens",
                       "token " + std::to_string(id) + " has type 6 (byte) but text '" + impl->pieces[id] + "', expected <0xXX> with upper-case hex");
    }
    impl->byte_value[id] = static_cast<int16_t>(value);
  }
  for (int byte = 0; byte < 256; ++byte) {
    const std::string text = byte_piece_text(byte);
    const auto it = impl->id_by_text.find(text);
    if (it == impl->id_by_text.end() || impl->types[it->second] != SentencePieceType::byte) {
      throw InputError(source, "tokens", "byte-fallback token " + text + " (type 6, byte) is missing");
    }
  }
  impl->load_sentencepiece(spec, source);
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_bpe_vocab(const BpeVocabSpec& spec, std::string_view source) {
  auto impl = std::make_shared<Impl>();
  impl->init_common(spec, source);
  for (size_t id = 0; id < spec.types.size(); ++id) {
    if (spec.types[id] == static_cast<int32_t>(SentencePieceType::byte)) {
      throw InputError(source, "token types", "token " + std::to_string(id) + " has type 6 (byte), which byte-level BPE vocabularies do not use");
    }
  }
  impl->byte_value.assign(impl->pieces.size(), -1);
  impl->bpe = std::make_unique<const BpeModel>(spec, impl->id_by_text, source);
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_model_file(const std::string& path) {
  const SentencePieceModel model = parse_sentencepiece_model(read_file_bytes(path), path);
  if (model.pieces.empty()) throw InputError(path, "not a SentencePiece model", "it has no pieces");
  if (model.model_type != SentencePieceModelType::bpe) {
    throw InputError(path, "trainer_spec.model_type",
                     "expected BPE (2), got " + std::to_string(static_cast<int32_t>(model.model_type)) + "; only BPE SentencePiece models are supported");
  }
  VocabSpec spec;
  for (const SentencePiecePiece& piece : model.pieces) {
    spec.pieces.push_back(piece.piece);
    spec.scores.push_back(piece.score);
    spec.types.push_back(static_cast<int32_t>(piece.type));
  }
  const auto id_if_valid = [&](int32_t id) { return id >= 0 && id < static_cast<int64_t>(model.pieces.size()) ? id : -1; };
  spec.unk_id = id_if_valid(model.unk_id);
  spec.bos_id = id_if_valid(model.bos_id);
  spec.eos_id = id_if_valid(model.eos_id);
  spec.pad_id = id_if_valid(model.pad_id);
  spec.add_space_prefix = model.add_dummy_prefix;
  spec.add_bos = spec.bos_id >= 0;  // what HF's LlamaTokenizer does with a SentencePiece model
  spec.add_eos = false;
  return from_vocab(spec, path);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_bos, bool parse_special) const {
  const Impl& vocab = *impl_;
  require_valid_utf8(text);
  if (add_bos && vocab.bos_id < 0) throw InputError("tokenizer", "encode", "add_bos requested but the vocabulary has no BOS token");

  std::vector<int32_t> ids;
  if (add_bos) ids.push_back(vocab.bos_id);
  std::vector<int> fragment_ids;
  for (const Fragment& fragment : vocab.partition_special_tokens(text, parse_special)) {
    if (fragment.token >= 0) {
      ids.push_back(fragment.token);
      continue;
    }
    if (vocab.bpe) {
      vocab.bpe->encode(text.substr(fragment.offset, fragment.length), ids);
      continue;
    }
    const auto status = vocab.processor->Encode(text.substr(fragment.offset, fragment.length), &fragment_ids);
    if (!status.ok()) throw std::runtime_error("tokenizer: SentencePiece encode failed: " + status.ToString());
    for (int id : fragment_ids) {
      // Only the stand-in UNKNOWN piece lies past the vocabulary, and byte fallback with
      // all 256 byte tokens present never emits it.
      DB_CHECK(id >= 0 && id < vocab.size());
      ids.push_back(id);
    }
  }
  // A text that starts with BOS itself (chat templates write "<bos>") keeps just that one.
  if (add_bos && ids.size() > 1 && ids[1] == vocab.bos_id) ids.erase(ids.begin());
  return ids;
}

std::string Tokenizer::token_to_piece(int32_t id, bool render_special) const {
  const Impl& vocab = *impl_;
  if (id < 0 || id >= vocab.size()) {
    throw std::out_of_range("tokenizer: token id " + std::to_string(id) + " is outside the vocabulary (size " + std::to_string(vocab.size()) + ")");
  }
  const std::string& text = vocab.pieces[id];
  switch (vocab.types[id]) {
    case SentencePieceType::normal: return vocab.bpe ? unicode_to_bytes(text) : unescape_spaces(text);
    case SentencePieceType::user_defined: return text;
    case SentencePieceType::unknown:
    case SentencePieceType::control: return render_special ? text : std::string();
    case SentencePieceType::byte: return std::string(1, static_cast<char>(vocab.byte_value[id]));
    case SentencePieceType::unused: return {};
  }
  return {};
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool render_special) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string piece = token_to_piece(ids[i], render_special);
    // Undo the space encode() put in front of the text, as llama.cpp's detokenize does:
    // one leading space of the first token only (so nothing after a leading BOS).
    if (i == 0 && impl_->add_space_prefix && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    text += piece;
  }
  return text;
}

int32_t Tokenizer::find_token(std::string_view piece) const {
  const auto it = impl_->id_by_text.find(piece);
  return it == impl_->id_by_text.end() ? -1 : it->second;
}

std::string_view Tokenizer::piece_text(int32_t id) const {
  if (id < 0 || id >= impl_->size()) throw std::out_of_range("tokenizer: token id " + std::to_string(id) + " is outside the vocabulary");
  return impl_->pieces[id];
}

int32_t Tokenizer::vocab_size() const { return impl_->size(); }
std::string_view Tokenizer::kind() const { return impl_->bpe ? "byte-level BPE" : "SentencePiece"; }
int32_t Tokenizer::bos_id() const { return impl_->bos_id; }
int32_t Tokenizer::eos_id() const { return impl_->eos_id; }
bool Tokenizer::add_bos_by_default() const { return impl_->add_bos; }
bool Tokenizer::add_eos_by_default() const { return impl_->add_eos; }
std::vector<int32_t> Tokenizer::stop_ids() const { return impl_->stop_ids; }
bool Tokenizer::is_stop(int32_t id) const { return std::binary_search(impl_->stop_ids.begin(), impl_->stop_ids.end(), id); }

TextStreamer::TextStreamer(Tokenizer tokenizer, bool render_special) : tokenizer_(std::move(tokenizer)), render_special_(render_special) {}

std::string TextStreamer::push(int32_t id) {
  std::string bytes = pending_ + tokenizer_.token_to_piece(id, render_special_);
  pending_.clear();
  std::string text;
  for (size_t pos = 0; pos < bytes.size();) {
    const int length = utf8_sequence_length(bytes, pos);
    if (length > 0) {
      text.append(bytes, pos, length);
      pos += length;
    } else if (length == 0) {  // a character still arriving: hold it back
      pending_ = bytes.substr(pos);
      break;
    } else {
      text += kReplacementChar;
      pos += 1;
    }
  }
  return text;
}

std::string TextStreamer::finish() {
  std::string text;
  if (!pending_.empty()) text = kReplacementChar;  // a truncated sequence is one bad character
  pending_.clear();
  return text;
}

}  // namespace draftbench
