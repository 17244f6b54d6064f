// Tokenizer, TextStreamer, SentencePiece ModelProto and chat templates on a tiny
// hand-built vocabulary (no model file needed). The central check is differential: a
// plain re-implementation of llama.cpp's SPM tokenization (engine/tokenizer/README.md,
// "SentencePiece BPE") must give the same ids as the SentencePiece-backed Tokenizer on random text.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/sentencepiece_model_proto.h"
#include "engine/tokenizer/tokenizer.h"

using namespace draftbench;
using Catch::Matchers::Contains;

namespace {

constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kByte = 6;
constexpr int32_t kFirstByteToken = 12;  // <0x00> in tiny_vocab()

int32_t byte_token(uint8_t byte) { return kFirstByteToken + byte; }

// Ids 0..11 are special, 12..267 the byte tokens, then normal pieces whose scores give
// the merges hello = he + llo (llo = ll + o) and ▁world = ▁wor + ld (▁wor = ▁w + or).
VocabSpec tiny_vocab(bool add_space_prefix = false) {
  VocabSpec v;
  const auto add = [&](std::string piece, float score, int32_t type) {
    v.pieces.push_back(std::move(piece));
    v.scores.push_back(score);
    v.types.push_back(type);
  };
  add("<pad>", 0, kControl);
  add("<eos>", 0, kControl);
  add("<bos>", 0, kControl);
  add("<unk>", 0, kUnknown);
  add("<start_of_turn>", 0, kControl);
  add("<end_of_turn>", 0, kControl);
  add("\n", 0, kUserDefined);
  add("\n\n", 0, kUserDefined);
  add("<b>", 0, kUserDefined);
  add("</s>", 0, kUserDefined);  // as in Gemma 3: an HTML tag that llama.cpp makes CONTROL
  add("#=", 0, kUserDefined);    // overlaps "=#>": tests longest-first partition
  add("=#>", 0, kUserDefined);
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) add(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">", 0, kByte);
  for (const char* piece : {"\xE2\x96\x81", "h", "e", "l", "o", "w", "r", "d", "<", ">", "s", "b", "t", "a", "=", "\xC3\xA9" /* é */, "\xE6\x97\xA5" /* 日 */,
                            "\xE6\x9C\xAC" /* 本 */}) {
    add(piece, -50, kNormal);
  }
  add("he", -1, kNormal);
  add("ll", -2, kNormal);
  add("llo", -3, kNormal);
  add("hello", -4, kNormal);
  add("\xE2\x96\x81w", -5, kNormal);
  add("or", -6, kNormal);
  add("\xE2\x96\x81wor", -7, kNormal);
  add("ld", -8, kNormal);
  add("\xE2\x96\x81world", -9, kNormal);
  add("\xE6\x97\xA5\xE6\x9C\xAC", -10, kNormal);  // 日本
  v.bos_id = 2;
  v.eos_id = 1;
  v.unk_id = 3;
  v.pad_id = 0;
  v.add_space_prefix = add_space_prefix;
  return v;
}

std::vector<int32_t> ids_of(const Tokenizer& tok, std::initializer_list<std::string_view> pieces) {
  std::vector<int32_t> ids;
  for (std::string_view piece : pieces) {
    const int32_t id = tok.find_token(piece);
    INFO("piece " << piece);
    REQUIRE(id >= 0);
    ids.push_back(id);
  }
  return ids;
}

// ---- llama.cpp's SPM tokenization, written out plainly (the oracle) ----

bool reference_is_control(const VocabSpec& v, size_t id) {
  // llama.cpp turns end-of-generation texts into CONTROL tokens.
  return v.types[id] == kControl || v.pieces[id] == "</s>" || v.pieces[id] == "<end_of_turn>" || v.pieces[id] == "<eos>";
}

int32_t reference_lookup(const VocabSpec& v, std::string_view text) {
  for (size_t id = v.pieces.size(); id-- > 0;) {
    if (v.pieces[id] == text) return static_cast<int32_t>(id);
  }
  return -1;
}

std::vector<int32_t> reference_bpe(const VocabSpec& v, std::string text) {
  std::string escaped;
  for (char c : text) escaped += c == ' ' ? std::string("\xE2\x96\x81") : std::string(1, c);
  std::vector<std::string> symbols;
  for (size_t pos = 0; pos < escaped.size();) {
    const auto lead = static_cast<uint8_t>(escaped[pos]);
    const size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    symbols.push_back(escaped.substr(pos, length));
    pos += length;
  }
  for (;;) {  // merge the best-scoring adjacent pair, leftmost on ties, until none is a token
    int best = -1;
    float best_score = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const int32_t id = reference_lookup(v, symbols[i] + symbols[i + 1]);
      if (id >= 0 && (best < 0 || v.scores[id] > best_score)) {
        best = static_cast<int>(i);
        best_score = v.scores[id];
      }
    }
    if (best < 0) break;
    symbols[best] += symbols[best + 1];
    symbols.erase(symbols.begin() + best + 1);
  }
  std::vector<int32_t> ids;
  for (const std::string& symbol : symbols) {
    const int32_t id = reference_lookup(v, symbol);
    if (id >= 0) {
      ids.push_back(id);
    } else {
      for (char c : symbol) ids.push_back(byte_token(static_cast<uint8_t>(c)));
    }
  }
  return ids;
}

std::vector<int32_t> reference_encode(const VocabSpec& v, const std::string& text, bool parse_special) {
  struct Fragment {
    int32_t token;
    std::string text;
  };
  std::vector<size_t> candidates;
  for (size_t id = 0; id < v.pieces.size(); ++id) {
    if (v.types[id] == kControl || v.types[id] == kUserDefined || v.types[id] == kUnknown) candidates.push_back(id);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) { return v.pieces[a].size() > v.pieces[b].size(); });
  // Each candidate in turn splits every remaining text fragment at its occurrences.
  std::vector<Fragment> fragments = {{-1, text}};
  for (size_t id : candidates) {
    if (!parse_special && (reference_is_control(v, id) || v.types[id] == kUnknown)) continue;
    const std::string& needle = v.pieces[id];
    std::vector<Fragment> split;
    for (const Fragment& fragment : fragments) {
      if (fragment.token >= 0) {
        split.push_back(fragment);
        continue;
      }
      std::string rest = fragment.text;
      for (size_t match; (match = rest.find(needle)) != std::string::npos;) {
        if (match > 0) split.push_back({-1, rest.substr(0, match)});
        split.push_back({static_cast<int32_t>(id), ""});
        rest = rest.substr(match + needle.size());
      }
      if (!rest.empty()) split.push_back({-1, rest});
    }
    fragments = std::move(split);
  }
  std::vector<int32_t> ids;
  for (const Fragment& fragment : fragments) {
    if (fragment.token >= 0) {
      ids.push_back(fragment.token);
    } else {
      const auto part = reference_bpe(v, (v.add_space_prefix ? " " : "") + fragment.text);
      ids.insert(ids.end(), part.begin(), part.end());
    }
  }
  return ids;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("draftbench_tokenizer_test_" + std::to_string(getpid()) + "_" + name);
}

void write_file(const std::filesystem::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

}  // namespace

TEST_CASE("tokenizer: BPE merges by score, as planned in the tiny vocabulary", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  CHECK(tok.kind() == "SentencePiece");
  CHECK(tok.encode("hello", false, false) == ids_of(tok, {"hello"}));
  CHECK(tok.encode("hello world", false, false) == ids_of(tok, {"hello", "\xE2\x96\x81world"}));
  CHECK(tok.encode("", false, false).empty());
  CHECK(tok.vocab_size() == 12 + 256 + 28);
}

TEST_CASE("tokenizer: byte fallback for characters not in the vocabulary", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  // U+1F600 is F0 9F 98 80: four byte tokens.
  CHECK(tok.encode("\xF0\x9F\x98\x80", false, false) == std::vector<int32_t>{byte_token(0xF0), byte_token(0x9F), byte_token(0x98), byte_token(0x80)});
  // 日本 is one piece; 語 (E8 AA 9E) is not in the vocabulary.
  std::vector<int32_t> expected = ids_of(tok, {"\xE6\x97\xA5\xE6\x9C\xAC"});
  for (int b : {0xE8, 0xAA, 0x9E}) expected.push_back(byte_token(static_cast<uint8_t>(b)));
  CHECK(tok.encode("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", false, false) == expected);
  CHECK(tok.encode("\xC3\xA9", false, false) == ids_of(tok, {"\xC3\xA9"}));  // é is a piece
}

TEST_CASE("tokenizer: decode(encode(text)) round-trips Unicode text", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  const std::vector<std::string> texts = {"hello world",
                                          "  two  spaces\n\nand newlines\n",
                                          "caf\xC3\xA9 na\xC3\xAFve",
                                          "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
                                          "\xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
                                          "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",
                                          "tab\there",
                                          std::string("nul\0byte", 8)};
  for (const std::string& text : texts) {
    INFO(text);
    CHECK(tok.decode(tok.encode(text, false, false)) == text);
    CHECK(tok.decode(tok.encode(text, true, true)) == text);  // BOS is CONTROL: not rendered
  }
  const std::string with_specials = "<start_of_turn>user\nhi<end_of_turn>\n";
  CHECK(tok.decode(tok.encode(with_specials, false, true), true) == with_specials);
  CHECK(tok.decode(tok.encode(with_specials, false, true), false) == "user\nhi\n");
}

TEST_CASE("tokenizer: special tokens are split out of the text", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  const int32_t hello = tok.find_token("hello");
  SECTION("CONTROL tokens only with parse_special") {
    CHECK(tok.encode("<start_of_turn>hello<end_of_turn>\n", false, true) == std::vector<int32_t>{4, hello, 5, 6});
    const auto plain = tok.encode("<start_of_turn>hello", false, false);
    CHECK(plain.size() > 2);
    CHECK(plain.front() == tok.find_token("<"));
    CHECK(std::find(plain.begin(), plain.end(), 4) == plain.end());
    CHECK(tok.encode("<unk>", false, true) == std::vector<int32_t>{3});
    CHECK(tok.encode("<unk>", false, false).size() > 1);
  }
  SECTION("USER_DEFINED tokens always") {
    CHECK(tok.encode("<b>hello\n", false, false) == std::vector<int32_t>{8, hello, 6});
    CHECK(tok.encode("<b>hello\n", false, true) == std::vector<int32_t>{8, hello, 6});
  }
  SECTION("longest candidate first, then leftmost, as llama.cpp") {
    CHECK(tok.encode("\n\n\n", false, false) == std::vector<int32_t>{7, 6});
    // "=#>" (3 bytes) is claimed before "#=" although "#=" starts further left.
    CHECK(tok.encode("#=#>", false, false) == std::vector<int32_t>{byte_token('#'), 11});
  }
  SECTION("an end-of-generation text becomes CONTROL, as llama.cpp makes it") {
    CHECK(tok.encode("</s>", false, true) == std::vector<int32_t>{9});
    CHECK(tok.encode("</s>", false, false) != std::vector<int32_t>{9});
    CHECK(tok.token_to_piece(9).empty());
    CHECK(tok.token_to_piece(9, true) == "</s>");
  }
}

TEST_CASE("tokenizer: add_space_prefix adds one '▁' per text fragment", "[tokenizer]") {
  const Tokenizer off = Tokenizer::from_vocab(tiny_vocab(false));
  const Tokenizer on = Tokenizer::from_vocab(tiny_vocab(true));
  CHECK(off.encode("world", false, false) != on.encode("world", false, false));
  CHECK(on.encode("world", false, false) == ids_of(on, {"\xE2\x96\x81world"}));
  CHECK(on.encode("hello", false, false) == ids_of(on, {"\xE2\x96\x81", "hello"}));
  // After a special token the next fragment gets its own prefix.
  CHECK(on.encode("<b>world", false, false) == std::vector<int32_t>{8, on.find_token("\xE2\x96\x81world")});
  CHECK(off.encode(" world", false, false) == on.encode("world", false, false));
  // decode removes the one space encode added (first token only, as llama.cpp: after a
  // leading BOS nothing is removed); without the prefix nothing is removed.
  CHECK(on.decode(on.encode("world", false, false)) == "world");
  CHECK(on.decode(on.encode("world", true, false)) == " world");
  CHECK(off.decode(off.encode(" world", false, false)) == " world");
}

TEST_CASE("tokenizer: matches a plain re-implementation of llama.cpp on random text", "[tokenizer]") {
  const std::vector<std::string> alphabet = {"h",
                                             "e",
                                             "l",
                                             "o",
                                             " ",
                                             " ",
                                             "  ",
                                             "w",
                                             "r",
                                             "d",
                                             "s",
                                             "b",
                                             "t",
                                             "a",
                                             "=",
                                             "#",
                                             ">",
                                             "<",
                                             "\n",
                                             "\n\n",
                                             "<b>",
                                             "</s>",
                                             "#=",
                                             "=#>",
                                             "<start_of_turn>",
                                             "<end_of_turn>",
                                             "<bos>",
                                             "<unk>",
                                             "\xC3\xA9",
                                             "\xE6\x97\xA5",
                                             "\xE6\x9C\xAC",
                                             "\xF0\x9F\x98\x80",
                                             "\xC3\x9F",
                                             "hello",
                                             "world",
                                             "\t"};
  std::mt19937 rng(1234);
  for (bool add_space_prefix : {false, true}) {
    const VocabSpec vocab = tiny_vocab(add_space_prefix);
    const Tokenizer tok = Tokenizer::from_vocab(vocab);
    for (int trial = 0; trial < 400; ++trial) {
      std::string text;
      const int parts = 1 + static_cast<int>(rng() % 12);
      for (int i = 0; i < parts; ++i) text += alphabet[rng() % alphabet.size()];
      for (bool parse_special : {false, true}) {
        INFO("text '" << text << "' parse_special " << parse_special << " add_space_prefix " << add_space_prefix);
        REQUIRE(tok.encode(text, false, parse_special) == reference_encode(vocab, text, parse_special));
      }
    }
  }
}

TEST_CASE("tokenizer: BOS handling", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  const int32_t hello = tok.find_token("hello");
  CHECK(tok.encode("hello", true, false) == std::vector<int32_t>{2, hello});
  CHECK(tok.encode("<bos>hello", false, true) == std::vector<int32_t>{2, hello});
  CHECK(tok.encode("<bos>hello", true, true) == std::vector<int32_t>{2, hello});  // never doubled
  CHECK(tok.bos_id() == 2);
  CHECK(tok.eos_id() == 1);
  CHECK(tok.add_bos_by_default());
  CHECK_FALSE(tok.add_eos_by_default());
  VocabSpec no_bos = tiny_vocab();
  no_bos.bos_id = -1;
  CHECK_THROWS_WITH(Tokenizer::from_vocab(no_bos).encode("hello", true, false), Contains("no BOS"));
}

TEST_CASE("tokenizer: lookups and stop tokens", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  CHECK(tok.find_token("<start_of_turn>") == 4);
  CHECK(tok.find_token("nope") == -1);
  CHECK(tok.piece_text(7) == "\n\n");
  // eos, "</s>" and "<end_of_turn>", found by text.
  CHECK(tok.stop_ids() == std::vector<int32_t>{1, 5, 9});
  CHECK(tok.is_stop(5));
  CHECK_FALSE(tok.is_stop(4));
  CHECK(tok.token_to_piece(tok.find_token("\xE2\x96\x81world")) == " world");
  CHECK(tok.token_to_piece(byte_token(0x41)) == "A");
  CHECK(tok.token_to_piece(3).empty());  // UNKNOWN renders like CONTROL, as in llama.cpp
  CHECK(tok.token_to_piece(3, true) == "<unk>");
  CHECK(tok.token_to_piece(4).empty());
  CHECK(tok.token_to_piece(4, true) == "<start_of_turn>");
  CHECK_THROWS_AS(tok.token_to_piece(tok.vocab_size()), std::out_of_range);
  CHECK_THROWS_AS(tok.token_to_piece(-1), std::out_of_range);
}

TEST_CASE("tokenizer: unusable vocabularies and input are rejected with a clear message", "[tokenizer]") {
  SECTION("empty") { CHECK_THROWS_WITH(Tokenizer::from_vocab(VocabSpec{}), Contains("empty")); }
  SECTION("array lengths differ") {
    VocabSpec v = tiny_vocab();
    v.scores.pop_back();
    CHECK_THROWS_WITH(Tokenizer::from_vocab(v, "model.gguf"), Contains("model.gguf") && Contains("scores"));
  }
  SECTION("bad token type") {
    VocabSpec v = tiny_vocab();
    v.types[20] = 9;
    CHECK_THROWS_WITH(Tokenizer::from_vocab(v), Contains("token 20") && Contains("1..6"));
  }
  SECTION("special id outside the vocabulary") {
    VocabSpec v = tiny_vocab();
    v.eos_id = 100000;
    CHECK_THROWS_WITH(Tokenizer::from_vocab(v), Contains("eos"));
  }
  SECTION("byte token missing or misspelt") {
    VocabSpec v = tiny_vocab();
    v.types[byte_token(0x41)] = kNormal;
    CHECK_THROWS_WITH(Tokenizer::from_vocab(v), Contains("<0x41>") && Contains("missing"));
    v = tiny_vocab();
    v.pieces[byte_token(0x41)] = "<0x4g>";
    CHECK_THROWS_WITH(Tokenizer::from_vocab(v), Contains("<0x4g>"));
  }
  SECTION("invalid UTF-8 text") {
    const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
    CHECK_THROWS_WITH(tok.encode("ok\xC3(", false, false), Contains("invalid UTF-8 at byte 2"));
    CHECK_THROWS_AS(tok.encode("\xED\xA0\x80", false, false), std::runtime_error);  // a surrogate
  }
  SECTION("duplicate and empty pieces are tolerated; the last duplicate wins, as in llama.cpp") {
    VocabSpec v = tiny_vocab();
    v.pieces.push_back("hello");
    v.scores.push_back(-4);
    v.types.push_back(kNormal);
    v.pieces[v.pieces.size() - 2] = "";
    const Tokenizer tok = Tokenizer::from_vocab(v);
    CHECK(tok.find_token("hello") == static_cast<int32_t>(v.pieces.size()) - 1);
    CHECK(tok.encode("hello", false, false) == std::vector<int32_t>{static_cast<int32_t>(v.pieces.size()) - 1});
  }
}

TEST_CASE("sentencepiece model proto: serialise then parse gives the same model", "[tokenizer]") {
  SentencePieceModel model;
  model.pieces = {{"<unk>", 0.0f, SentencePieceType::unknown},
                  {"\xE2\x96\x81the", -1.5f, SentencePieceType::normal},
                  {"<0x41>", 0.0f, SentencePieceType::byte},
                  {"<ctl>", -1000.0f, SentencePieceType::control}};
  model.model_type = SentencePieceModelType::bpe;
  model.byte_fallback = true;
  model.unk_id = 0;
  model.bos_id = -1;
  model.eos_id = 3;
  model.pad_id = -1;
  model.normalizer_name = "identity";
  model.add_dummy_prefix = false;
  model.remove_extra_whitespaces = false;
  const SentencePieceModel parsed = parse_sentencepiece_model(serialize_sentencepiece_model(model), "test");
  REQUIRE(parsed.pieces.size() == model.pieces.size());
  for (size_t i = 0; i < model.pieces.size(); ++i) {
    CHECK(parsed.pieces[i].piece == model.pieces[i].piece);
    CHECK(parsed.pieces[i].score == model.pieces[i].score);
    CHECK(parsed.pieces[i].type == model.pieces[i].type);
  }
  CHECK(parsed.model_type == SentencePieceModelType::bpe);
  CHECK(parsed.byte_fallback);
  CHECK(parsed.bos_id == -1);
  CHECK(parsed.eos_id == 3);
  CHECK(parsed.normalizer_name == "identity");
  CHECK_FALSE(parsed.add_dummy_prefix);
  CHECK_FALSE(parsed.remove_extra_whitespaces);
  CHECK(parsed.escape_whitespaces);
  // Absent fields read back as proto2's defaults.
  const SentencePieceModel empty = parse_sentencepiece_model("", "test");
  CHECK(empty.model_type == SentencePieceModelType::unigram);
  CHECK(empty.add_dummy_prefix);
  CHECK(empty.bos_id == 1);
  CHECK_THROWS_WITH(parse_sentencepiece_model("\x0A\x05"
                                              "ab",
                                              "x.model"),
                    Contains("x.model") && Contains("parse failed"));
}

TEST_CASE("tokenizer: from_model_file reads a SentencePiece tokenizer.model", "[tokenizer]") {
  const VocabSpec vocab = tiny_vocab(true);
  SentencePieceModel model;
  for (size_t id = 0; id < vocab.pieces.size(); ++id) {
    model.pieces.push_back({vocab.pieces[id], vocab.scores[id], static_cast<SentencePieceType>(vocab.types[id])});
  }
  model.model_type = SentencePieceModelType::bpe;
  model.byte_fallback = true;
  model.unk_id = 3;
  model.bos_id = 2;
  model.eos_id = 1;
  model.pad_id = 0;
  model.add_dummy_prefix = true;
  const auto path = temp_file("tiny.model");
  write_file(path, serialize_sentencepiece_model(model));
  const Tokenizer from_file = Tokenizer::from_model_file(path.string());
  const Tokenizer from_vocab = Tokenizer::from_vocab(vocab);
  for (const std::string text : {"hello world", "<start_of_turn>world\n", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E x"}) {
    CHECK(from_file.encode(text, true, true) == from_vocab.encode(text, true, true));
  }
  CHECK(from_file.bos_id() == 2);
  CHECK(from_file.stop_ids() == from_vocab.stop_ids());

  model.model_type = SentencePieceModelType::unigram;
  write_file(path, serialize_sentencepiece_model(model));
  CHECK_THROWS_WITH(Tokenizer::from_model_file(path.string()), Contains("expected BPE"));
  write_file(path, "");
  CHECK_THROWS_WITH(Tokenizer::from_model_file(path.string()), Contains("no pieces"));
  write_file(path, "GGUF this is not a protobuf");
  CHECK_THROWS_WITH(Tokenizer::from_model_file(path.string()), Contains("not a SentencePiece model (parse failed)"));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(Tokenizer::from_model_file(path.string()), Contains("cannot open"));
}

TEST_CASE("text streamer: holds back a character split across byte tokens", "[tokenizer]") {
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  SECTION("a four-byte emoji arrives one byte token at a time") {
    TextStreamer streamer(tok);
    const auto ids = tok.encode("hello\xF0\x9F\x98\x80!", false, false);
    std::vector<std::string> outputs;
    for (int32_t id : ids) outputs.push_back(streamer.push(id));
    REQUIRE(outputs.size() == 6);
    CHECK(outputs[0] == "hello");
    CHECK(outputs[1].empty());
    CHECK(outputs[2].empty());
    CHECK(outputs[3].empty());
    CHECK(outputs[4] == "\xF0\x9F\x98\x80");
    CHECK(outputs[5] == "!");
    CHECK(streamer.finish().empty());
  }
  SECTION("a two-byte character from byte tokens") {
    TextStreamer streamer(tok);
    CHECK(streamer.push(byte_token(0xC3)).empty());
    CHECK(streamer.push(byte_token(0xA9)) == "\xC3\xA9");
  }
  SECTION("invalid bytes become U+FFFD") {
    TextStreamer streamer(tok);
    CHECK(streamer.push(byte_token(0xFF)) == "\xEF\xBF\xBD");
    CHECK(streamer.push(byte_token(0xE6)).empty());
    CHECK(streamer.push(tok.find_token("hello")) == "\xEF\xBF\xBDhello");  // E6 then no continuation
    CHECK(streamer.push(byte_token(0xE6)).empty());
    CHECK(streamer.finish() == "\xEF\xBF\xBD");  // unfinished at the end
    CHECK(streamer.finish().empty());
  }
  SECTION("control tokens print nothing unless asked") {
    TextStreamer quiet(tok);
    CHECK(quiet.push(5).empty());
    TextStreamer loud(tok, true);
    CHECK(loud.push(5) == "<end_of_turn>");
  }
}

TEST_CASE("chat template: gemma", "[chat]") {
  const std::vector<ChatMessage> chat = {{"system", "  Be brief. "}, {"user", " Hi there\n"}, {"assistant", "Hello!"}, {"user", "2+2?"}};
  CHECK(render_chat(ChatTemplate::gemma, chat, true) ==
        "<bos><start_of_turn>user\nBe brief.\n\nHi there<end_of_turn>\n"
        "<start_of_turn>model\nHello!<end_of_turn>\n"
        "<start_of_turn>user\n2+2?<end_of_turn>\n"
        "<start_of_turn>model\n");
  const std::vector<ChatMessage> one = {{"user", "Hi"}};
  CHECK(render_chat(ChatTemplate::gemma, one, false) == "<bos><start_of_turn>user\nHi<end_of_turn>\n");

  // Tokenized with parse_special, the markers are single tokens and BOS is not doubled.
  const Tokenizer tok = Tokenizer::from_vocab(tiny_vocab());
  const auto ids = tok.encode(render_chat(ChatTemplate::gemma, one, true), true, true);
  REQUIRE(ids.size() > 4);
  CHECK(ids[0] == 2);
  CHECK(ids[1] == tok.find_token("<start_of_turn>"));
  CHECK(std::count(ids.begin(), ids.end(), tok.find_token("<start_of_turn>")) == 2);
  CHECK(std::count(ids.begin(), ids.end(), tok.find_token("<end_of_turn>")) == 1);
}

TEST_CASE("chat template: vicuna v1.1", "[chat]") {
  const std::vector<ChatMessage> chat = {{"user", "Hi"}, {"assistant", "Hello!"}, {"user", "2+2?"}};
  CHECK(render_chat(ChatTemplate::vicuna_v1_1, chat, true) ==
        "A chat between a curious user and an artificial intelligence assistant. The assistant gives helpful, "
        "detailed, and polite answers to the user's questions. USER: Hi ASSISTANT: Hello!</s>USER: 2+2? ASSISTANT:");
  const std::vector<ChatMessage> with_system = {{"system", "Be terse."}, {"user", "Hi"}, {"assistant", "Hey"}};
  CHECK(render_chat(ChatTemplate::vicuna_v1_1, with_system, false) == "Be terse. USER: Hi ASSISTANT: Hey</s>");
}

TEST_CASE("chat template: conversations that do not fit are rejected", "[chat]") {
  for (ChatTemplate chat_template : {ChatTemplate::gemma, ChatTemplate::vicuna_v1_1, ChatTemplate::chatml, ChatTemplate::qwen2_5, ChatTemplate::llama3}) {
    const auto render = [&](std::vector<ChatMessage> messages, bool generation_prompt = true) {
      return render_chat(chat_template, messages, generation_prompt);
    };
    CHECK_THROWS_WITH(render({}), Contains("no messages"));
    CHECK_THROWS_WITH(render({{"system", "s"}}), Contains("no user message"));
    CHECK_THROWS_WITH(render({{"assistant", "a"}}), Contains("message 0") && Contains("alternate"));
    CHECK_THROWS_WITH(render({{"user", "a"}, {"user", "b"}}), Contains("message 1") && Contains("alternate"));
    CHECK_THROWS_WITH(render({{"user", "a"}, {"system", "s"}}), Contains("system message may only come first"));
    CHECK_THROWS_WITH(render({{"user", "a"}, {"bot", "b"}}), Contains("unknown role"));
    CHECK_THROWS_WITH(render({{"user", "a"}, {"assistant", "b"}}, true), Contains("second assistant turn"));
    CHECK_NOTHROW(render({{"user", "a"}, {"assistant", "b"}}, false));
  }
}

TEST_CASE("chat template: ChatML, Qwen 2.5's ChatML and Llama 3 render their turns", "[chat]") {
  const std::vector<ChatMessage> chat = {{"user", " Hi "}, {"assistant", "Hey"}, {"user", "Bye"}};
  CHECK(render_chat(ChatTemplate::chatml, chat, true) ==
        "<|im_start|>user\n Hi <|im_end|>\n<|im_start|>assistant\nHey<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n");
  CHECK(render_chat(ChatTemplate::qwen2_5, std::span(chat).first(1), false) ==
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\n Hi <|im_end|>\n");
  const std::vector<ChatMessage> with_system = {{"system", "Be terse."}, {"user", "Hi"}};
  CHECK(render_chat(ChatTemplate::qwen2_5, with_system, true) ==
        "<|im_start|>system\nBe terse.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  CHECK(render_chat(ChatTemplate::llama3, with_system, true) ==
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe terse.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
  CHECK(render_chat(ChatTemplate::llama3, std::span(chat).first(2), false) ==
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHey<|eot_id|>");
}

TEST_CASE("chat template: chosen from the file's template text, else by architecture, else a clear error", "[chat]") {
  const std::optional<std::string> none;
  CHECK(chat_template_for_model("gemma3", none, "m.gguf") == ChatTemplate::gemma);
  CHECK(chat_template_for_model("llama", none, "m.gguf") == ChatTemplate::vicuna_v1_1);
  CHECK_THROWS_WITH(chat_template_for_model("qwen2", none, "m.gguf"),
                    Contains("m.gguf") && Contains("tokenizer.chat_template") && Contains("qwen2") && Contains("--chat-template"));
  const std::string qwen = "{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>' }}";
  CHECK(chat_template_for_model("qwen2", qwen, "m.gguf") == ChatTemplate::qwen2_5);
  CHECK(chat_template_for_model("qwen2", std::string("{{'<|im_start|>' + message['role']}}"), "m.gguf") == ChatTemplate::chatml);
  CHECK(chat_template_for_model("llama", std::string("{{'<|start_header_id|>' + message['role'] + '<|end_header_id|>'}}"), "m.gguf") == ChatTemplate::llama3);
  CHECK(chat_template_for_model("llama", std::string("{{ bos_token }}<start_of_turn>"), "m.gguf") == ChatTemplate::gemma);
  CHECK_THROWS_WITH(chat_template_for_model("llama", std::string("[INST] {{ message }} [/INST]"), "m.gguf"),
                    Contains("m.gguf") && Contains("does not know") && Contains("--chat-template") && Contains("chatml"));
  for (std::string_view name : {"gemma", "vicuna_v1.1", "chatml", "qwen2.5", "llama3"})
    CHECK(chat_template_name(chat_template_from_name(name, "--chat-template")) == name);
  CHECK_THROWS_WITH(chat_template_from_name("mistral", "--chat-template"), Contains("--chat-template") && Contains("mistral") && Contains("llama3"));
}
