// Byte-level BPE (engine/tokenizer/bpe_tokenizer.h) on tiny vocabularies built here:
// the byte table, merge order, pre-tokenizers, special tokens, round trips, streaming,
// the GGUF and tokenizer.json readers, and their errors. Agreement with independent
// implementations on trained vocabularies is tests/unit/bpe_oracle_test.py's.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/gguf_writer.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/pretokenizer.h"
#include "engine/tokenizer/tokenizer.h"

using namespace draftbench;
using Catch::Matchers::Contains;

namespace {

constexpr int32_t kNormal = 1, kControl = 3, kUserDefined = 4;

// Ids 0..255: the byte characters, byte b at id b. Then the merges' results and the
// special tokens; `merges` in rank order.
BpeVocabSpec tiny_bpe(std::vector<std::pair<std::string, std::string>> merges, std::string pre = "qwen2") {
  BpeVocabSpec v;
  for (int b = 0; b < 256; ++b) v.pieces.emplace_back(byte_to_unicode(static_cast<uint8_t>(b)));
  v.types.assign(256, kNormal);
  for (const auto& [left, right] : merges) {
    if (std::find(v.pieces.begin(), v.pieces.end(), left + right) != v.pieces.end()) continue;
    v.pieces.push_back(left + right);
    v.types.push_back(kNormal);
  }
  for (const char* special : {"<|endoftext|>", "<|im_start|>", "<|im_end|>"}) {
    v.pieces.emplace_back(special);
    v.types.push_back(kControl);
  }
  v.pieces.emplace_back("<tool>");
  v.types.push_back(kUserDefined);
  v.merges = std::move(merges);
  v.pre = std::move(pre);
  v.eos_id = static_cast<int32_t>(v.pieces.size()) - 2;  // <|im_end|>
  return v;
}

const std::vector<std::pair<std::string, std::string>> kHelloMerges = {{"l", "l"}, {"h", "e"},          {"he", "ll"}, {"hell", "o"},        {"\xC4\xA0", "w"},
                                                                       {"o", "r"}, {"\xC4\xA0w", "or"}, {"l", "d"},   {"\xC4\xA0wor", "ld"}};

std::vector<std::string> pieces_of(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  std::vector<std::string> out;
  for (int32_t id : ids) out.emplace_back(tok.piece_text(id));
  return out;
}

std::string temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("bpe_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace

TEST_CASE("bpe: GPT-2's byte-to-unicode table and its inverse", "[bpe]") {
  CHECK(byte_to_unicode(' ') == "\xC4\xA0");   // U+0120 "Ġ"
  CHECK(byte_to_unicode('\n') == "\xC4\x8A");  // U+010A "Ċ"
  CHECK(byte_to_unicode(0) == "\xC4\x80");     // U+0100
  CHECK(byte_to_unicode(0xAD) == "\xC5\x83");  // soft hyphen moves to U+0143 "Ń"
  CHECK(byte_to_unicode('a') == "a");
  CHECK(byte_to_unicode(0xE9) == "\xC3\xA9");  // Latin-1 "é" stands for itself
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  CHECK(unicode_to_bytes(bytes_to_unicode(all)) == all);
  CHECK(unicode_to_bytes("\xE2\x82\xAC") == "\xE2\x82\xAC");  // not in the table: kept
}

TEST_CASE("bpe: merges apply lowest rank first, leftmost among equals", "[bpe]") {
  const Tokenizer tok = Tokenizer::from_bpe_vocab(tiny_bpe(kHelloMerges));
  CHECK(pieces_of(tok, tok.encode("hello world", false, false)) == std::vector<std::string>{"hello", "\xC4\xA0world"});
  CHECK(tok.kind() == "byte-level BPE");
  // "ell": with (l,l) ranked before (e,l) the pair "ll" forms first; swapped, "el" does.
  const Tokenizer ll_first = Tokenizer::from_bpe_vocab(tiny_bpe({{"l", "l"}, {"e", "l"}}));
  const Tokenizer el_first = Tokenizer::from_bpe_vocab(tiny_bpe({{"e", "l"}, {"l", "l"}}));
  CHECK(pieces_of(ll_first, ll_first.encode("ell", false, false)) == std::vector<std::string>{"e", "ll"});
  CHECK(pieces_of(el_first, el_first.encode("ell", false, false)) == std::vector<std::string>{"el", "l"});
  const Tokenizer aa = Tokenizer::from_bpe_vocab(tiny_bpe({{"a", "a"}}));
  CHECK(pieces_of(aa, aa.encode("aaaaa", false, false)) == std::vector<std::string>{"aa", "aa", "a"});
  // No merge crosses a word: "l" + "l" across the space stays apart.
  CHECK(pieces_of(ll_first, ll_first.encode("l l", false, false)) == std::vector<std::string>{"l", "\xC4\xA0", "l"});
}

TEST_CASE("bpe: ignore_merges emits a word that is a vocabulary entry whole", "[bpe]") {
  // "abc" is in the vocabulary but no merge chain builds it.
  BpeVocabSpec v = tiny_bpe({{"a", "b"}});
  v.pieces.emplace_back("abc");
  v.types.push_back(kNormal);
  CHECK(pieces_of(Tokenizer::from_bpe_vocab(v), Tokenizer::from_bpe_vocab(v).encode("abc", false, false)) == std::vector<std::string>{"ab", "c"});
  v.pre = "llama-bpe";  // Llama 3 ignores merges by default
  const Tokenizer llama = Tokenizer::from_bpe_vocab(v);
  CHECK(pieces_of(llama, llama.encode("abc", false, false)) == std::vector<std::string>{"abc"});
  v.ignore_merges = false;
  CHECK(Tokenizer::from_bpe_vocab(v).encode("abc", false, false).size() == 2);
}

TEST_CASE("bpe: pre-tokenizers split as their regular expressions say", "[bpe]") {
  const auto split = [](std::string_view name, std::string_view text) {
    std::vector<std::string> words;
    for (std::string_view w : PreTokenizer::from_name(name, "test", "pre").split(text)) words.emplace_back(w);
    return words;
  };
  using V = std::vector<std::string>;
  CHECK(split("qwen2", "abc 12345") == V{"abc", " ", "1", "2", "3", "4", "5"});
  CHECK(split("llama-bpe", "abc 12345") == V{"abc", " ", "123", "45"});
  CHECK(split("gpt-2", "abc 12345") == V{"abc", " 12345"});
  CHECK(split("qwen2", "a   b") == V{"a", "  ", " b"});  // \s+(?!\S) leaves the last space to the word
  CHECK(split("qwen2", "it's IT'S") == V{"it", "'s", " IT", "'S"});
  CHECK(split("qwen2", "x\n\n  y") == V{"x", "\n\n", " ", " y"});
  CHECK(split("qwen2", "Привет, мир!") == V{"Привет", ",", " мир", "!"});
  CHECK(split("qwen2", "a\u00A0b") == V{"a", "\u00A0b"});        // NBSP is not a letter: it leads the word
  CHECK(split("qwen2", "a\u0085 b") == V{"a", "\u0085", " b"});  // U+0085 is White_Space
  // U+180E is not White_Space (PCRE2's own \s would take it, and split " \u180E" + "\u180Eb").
  CHECK(split("qwen2", "a \u180E\u180Eb") == V{"a", " \u180E\u180E", "b"});
  CHECK(split("qwen2", "") == V{});
  CHECK(PreTokenizer::from_name("llama3", "f", "pre").name() == "llama-bpe");
}

TEST_CASE("bpe: special tokens are split out first, longest first, as in the SentencePiece path", "[bpe]") {
  const Tokenizer tok = Tokenizer::from_bpe_vocab(tiny_bpe(kHelloMerges));
  const int32_t im_start = tok.find_token("<|im_start|>"), im_end = tok.find_token("<|im_end|>"), tool = tok.find_token("<tool>");
  const std::vector<int32_t> parsed = tok.encode("<|im_start|>hello<|im_end|><tool>", false, true);
  CHECK(parsed == std::vector<int32_t>{im_start, tok.find_token("hello"), im_end, tool});
  // Without parse_special CONTROL text is ordinary text; USER_DEFINED tokens still split out.
  const std::vector<int32_t> plain = tok.encode("<|im_end|><tool>", false, false);
  CHECK(std::find(plain.begin(), plain.end(), im_end) == plain.end());
  CHECK(plain.back() == tool);
  CHECK(tok.decode(plain) == "<|im_end|><tool>");
  CHECK(tok.decode(parsed) == "hello<tool>");  // CONTROL tokens render only on request
  CHECK(tok.decode(parsed, true) == "<|im_start|>hello<|im_end|><tool>");
  // Stop tokens: EOS and the end-of-generation texts, shared with SentencePiece vocabularies.
  CHECK(tok.stop_ids() == std::vector<int32_t>{tok.find_token("<|endoftext|>"), im_end});
}

TEST_CASE("bpe: decode(encode(s)) == s, and the streamer holds split characters back", "[bpe]") {
  const Tokenizer tok = Tokenizer::from_bpe_vocab(tiny_bpe(kHelloMerges));
  for (std::string text : {"", "hello world", "  \t\n\r\n x", "naïve café 日本語 😀👍🏽", "12345 it's\u00A0ok", "\x01\x7F"}) {
    CHECK(tok.decode(tok.encode(text, false, true)) == text);
  }
  // "é" is two byte tokens here: the first alone is held back.
  TextStreamer streamer(tok);
  const std::vector<int32_t> ids = tok.encode("é!", false, false);
  REQUIRE(ids.size() == 3);
  CHECK(streamer.push(ids[0]).empty());
  CHECK(streamer.push(ids[1]) == "é");
  CHECK(streamer.push(ids[2]) == "!");
  CHECK(streamer.finish().empty());
  CHECK_THROWS_WITH(tok.encode("ab\xFF", false, false), Contains("invalid UTF-8"));
}

TEST_CASE("bpe: unusable vocabularies are refused with the file, the field and what was expected", "[bpe]") {
  CHECK_THROWS_WITH(parse_merge_line("abc", 7, "m.gguf", "key 'tokenizer.ggml.merges'"),
                    Contains("m.gguf") && Contains("tokenizer.ggml.merges") && Contains("merge 7 'abc'"));
  CHECK(parse_merge_line("\xC4\xA0 \xC4\xA0", 0, "f", "k") == std::pair<std::string, std::string>{"\xC4\xA0", "\xC4\xA0"});
  CHECK_THROWS_WITH(Tokenizer::from_bpe_vocab(tiny_bpe({}, "tekken2"), "m.gguf"),
                    Contains("m.gguf: tokenizer.ggml.pre: pre-tokenizer 'tekken2' is not supported") && Contains("qwen2") && Contains("llama-bpe"));
  BpeVocabSpec missing_merge = tiny_bpe({{"h", "e"}});
  missing_merge.merges.emplace_back("he", "zz");
  CHECK_THROWS_WITH(Tokenizer::from_bpe_vocab(missing_merge, "m.gguf"), Contains("merges") && Contains("'zz' is not in the vocabulary"));
  BpeVocabSpec missing_byte = tiny_bpe({});
  missing_byte.pieces[32] = "space";
  CHECK_THROWS_WITH(Tokenizer::from_bpe_vocab(missing_byte, "m.gguf"), Contains("byte 32 has no token"));
  BpeVocabSpec byte_type = tiny_bpe({});
  byte_type.types[5] = 6;
  CHECK_THROWS_WITH(Tokenizer::from_bpe_vocab(byte_type, "m.gguf"), Contains("type 6 (byte)"));
}

TEST_CASE("bpe: a gpt2 GGUF vocabulary loads through gguf_vocab and tokenizes like the spec", "[bpe]") {
  const BpeVocabSpec spec = tiny_bpe(kHelloMerges);
  const auto gguf_bytes = [&](std::vector<std::string> merges) {
    GgufWriter w;
    w.kv("tokenizer.ggml.model", std::string("gpt2"));
    w.kv("tokenizer.ggml.pre", std::string("qwen2"));
    w.kv_strings("tokenizer.ggml.tokens", spec.pieces);
    w.kv_ints("tokenizer.ggml.token_type", spec.types);
    w.kv_strings("tokenizer.ggml.merges", merges);
    w.kv("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(spec.eos_id));
    w.kv("tokenizer.ggml.eot_token_id", static_cast<uint32_t>(spec.pieces.size() - 1));  // <tool>, for the test
    return w.bytes();
  };
  std::vector<std::string> merges;
  for (const auto& [left, right] : spec.merges) merges.push_back(left + " " + right);
  const auto good = gguf_bytes(merges);
  const Tokenizer from_file = tokenizer_from_gguf(GgufFile::parse(good, "tiny.gguf"));
  const Tokenizer from_spec = Tokenizer::from_bpe_vocab(spec);
  const std::string text = "<|im_start|>hello world, hello!<|im_end|>";
  CHECK(from_file.encode(text, false, true) == from_spec.encode(text, false, true));
  CHECK(from_file.eos_id() == spec.eos_id);
  CHECK(from_file.is_stop(static_cast<int32_t>(spec.pieces.size()) - 1));  // the file's EOT
  CHECK_FALSE(from_spec.is_stop(static_cast<int32_t>(spec.pieces.size()) - 1));
  CHECK_FALSE(from_file.add_bos_by_default());
  merges[3] = "hello";
  const auto bad = gguf_bytes(merges);
  CHECK_THROWS_WITH(tokenizer_from_gguf(GgufFile::parse(bad, "bad.gguf")),
                    Contains("bad.gguf: key 'tokenizer.ggml.merges': merge 3 'hello' is not two tokens"));
}

TEST_CASE("bpe: a tokenizer.json loads with either merges form and its added tokens", "[bpe]") {
  const std::string dir = temp_dir();
  const auto write = [&](const std::string& name, const std::string& merges, const std::string& pre) {
    std::string vocab;
    for (int b = 0; b < 256; ++b) {
      std::string c(byte_to_unicode(static_cast<uint8_t>(b)));
      if (c == "\"" || c == "\\") c = "\\" + c;
      vocab += "\"" + c + "\": " + std::to_string(b) + ", ";
    }
    vocab += "\"he\": 256, \"ll\": 257, \"hell\": 258, \"hello\": 259";
    const std::string path = dir + "/" + name;
    std::ofstream(path) << R"({"added_tokens": [{"id": 260, "content": "<|im_end|>", "special": true},
        {"id": 261, "content": "<tool>", "special": false}], "normalizer": null, "pre_tokenizer": )"
                        << pre << R"(, "decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {)" << vocab << "}, \"merges\": " << merges << "}}";
    return path;
  };
  const std::string qwen2_pre =
      R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})";
  const Tokenizer strings = Tokenizer::from_tokenizer_json(write("s.json", R"(["h e", "l l", "he ll", "hell o"])", qwen2_pre));
  const Tokenizer pairs = Tokenizer::from_tokenizer_json(write("p.json", R"([["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"]])", qwen2_pre));
  const std::vector<int32_t> expected{259, 260, 261};
  CHECK(strings.encode("hello<|im_end|><tool>", false, true) == expected);
  CHECK(pairs.encode("hello<|im_end|><tool>", false, true) == expected);
  CHECK(pairs.stop_ids() == std::vector<int32_t>{260});
  const Tokenizer gpt2 = Tokenizer::from_tokenizer_json(write("g.json", R"(["h e"])", R"({"type": "ByteLevel", "add_prefix_space": false})"));
  CHECK(gpt2.encode("he 12", false, false) == std::vector<int32_t>{256, ' ', '1', '2'});  // byte b is id b here
  CHECK_THROWS_WITH(Tokenizer::from_tokenizer_json(write("b.json", R"(["he"])", qwen2_pre)), Contains("model.merges") && Contains("merge 0 'he'"));
  CHECK_THROWS_WITH(
      Tokenizer::from_tokenizer_json(write(
          "r.json", "[]",
          R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "use_regex": false}]})")),
      Contains("split pattern '\\w+' is not a supported pre-tokenizer"));
  std::filesystem::remove_all(dir);
}
