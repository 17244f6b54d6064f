// The tokenizer on the real Gemma 3 vocabulary (262,144 tokens), read from the GGUF file
// named by DRAFTBENCH_MODEL. The expected ids were produced by llama.cpp
// (llama-cpp-python 0.3.36: Llama(vocab_only=True).tokenize(text, add_bos=False,
// special=...)) on gemma-3-270m-q4_k_m.gguf; draftbench must reproduce them exactly.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

using namespace draftbench;

namespace {

// Loaded once: building the SentencePiece model from 262k pieces takes a few tenths of a
// second, and the Tokenizer is immutable.
const Tokenizer& gemma_tokenizer() {
  static const Tokenizer tokenizer = [] {
    const char* path = std::getenv("DRAFTBENCH_MODEL");
    REQUIRE(path != nullptr);
    const GgufFile file = GgufFile::open(path);
    return Tokenizer::from_vocab(vocab_spec_from_gguf(file), path);
  }();
  return tokenizer;
}

struct ExpectedTokens {
  const char* text;
  std::vector<int32_t> ids;  // parse_special = true and false agree for these texts
};

// English, code with indentation, runs of spaces, numbers, accents/CJK/Cyrillic, emoji
// with ZWJ sequences, newline runs and CRLF, tab and HTML tags (USER_DEFINED tokens),
// leading/trailing spaces, and characters that only byte fallback can spell.
const std::vector<ExpectedTokens> kLlamaCppTokens = {
    {"Hello world", {9259, 1902}},
    {"The quick brown fox jumps over the lazy dog.", {818, 3823, 8864, 37423, 38167, 1024, 506, 31770, 4799, 236761}},
    {"def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n",
     {2063, 10779, 236769, 236749, 1473,   107, 140,    584,    538,    655, 236743, 236778, 236787, 107, 144,    2060,   538,    107,
      140,  2060,  10779,  236769, 236749, 753, 236743, 236770, 236768, 900, 10779,  236769, 236749, 753, 236743, 236778, 236768, 107}},
    {"a  b   c    d     e", {236746, 138, 236763, 139, 236755, 140, 236753, 141, 236744}},
    {"3.14159, 2.71828 and 1,234,567.89 in 2024-01-31",
     {236800, 236761, 236770, 236812, 236770, 236810, 236819, 236764, 236743, 236778, 236761, 236832, 236770, 236828,
      236778, 236828, 532,    236743, 236770, 236764, 236778, 236800, 236812, 236764, 236810, 236825, 236832, 236761,
      236828, 236819, 528,    236743, 236778, 236771, 236778, 236812, 236772, 236771, 236770, 236772, 236800, 236770}},
    {"Gr\xC3\xBC\xC3\x9F"
     "e aus M\xC3\xBCnchen \xE2\x80\x94 na\xC3\xAFve caf\xC3\xA9, "
     "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE3\x83\x86\xE3\x82\xAD\xE3\x82\xB9\xE3\x83\x88, "
     "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 \xD0\xBC\xD0\xB8\xD1\x80",
     {9322, 236959, 16756, 5581, 67772, 2192, 120362, 33443, 236764, 33375, 238582, 236945, 95830, 236764, 15745, 8362, 58562}},
    {"I love \xF0\x9F\x8D\x95 and \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7\xE2\x80\x8D"
     "\xF0\x9F\x91\xA6 \xF0\x9F\x99\x82",
     {236777, 2765, 236743, 245414, 532, 236743, 243874, 237243, 243767, 237243, 244814, 237243, 244990, 57235}},
    {"line one\nline two\n\n\nline five\r\n", {1257, 886, 107, 1257, 1156, 109, 1257, 3493, 251, 107}},
    {"\t<b>bold</b> <table><tr><td>1</td></tr></table>", {255968, 200, 15640, 209, 236743, 168, 173, 175, 236770, 183, 181, 176}},
    {" leading and trailing ", {5830, 532, 45330, 236743}},
    // U+10FFFD U+F0000 (private use): only byte tokens <0xF4>... (ids 238 + byte).
    {"\xF4\x8F\xBF\xBD\xF3\xB0\x80\x80 plane-16", {482, 381, 429, 427, 481, 414, 366, 366, 8180, 236772, 236770, 236825}},
    {"\xF0\xA0\x9C\x8E\xF0\xA0\x9C\xB1\xF0\xA1\xBF\xBA", {478, 398, 394, 380, 478, 398, 394, 415, 478, 399, 429, 424}},
};

}  // namespace

TEST_CASE("gemma tokenizer: vocabulary facts", "[tokenizer][model]") {
  const Tokenizer& tok = gemma_tokenizer();
  CHECK(tok.vocab_size() == 262144);
  CHECK(tok.bos_id() == 2);
  CHECK(tok.eos_id() == 1);
  CHECK(tok.find_token("<start_of_turn>") == 105);
  CHECK(tok.find_token("<end_of_turn>") == 106);
  CHECK(tok.find_token("<0x00>") == 238);
  CHECK(tok.find_token("\xE2\x96\x81world") == 1902);
  // llama.cpp's end-of-generation set for this file: <eos>, </s> (HTML tag, by text), <end_of_turn>.
  CHECK(tok.stop_ids() == std::vector<int32_t>{1, 106, 212});
  CHECK(tok.add_bos_by_default());
}

TEST_CASE("gemma tokenizer: ids equal llama.cpp's", "[tokenizer][model]") {
  const Tokenizer& tok = gemma_tokenizer();
  for (const ExpectedTokens& expected : kLlamaCppTokens) {
    INFO("text: " << expected.text);
    CHECK(tok.encode(expected.text, false, true) == expected.ids);
    CHECK(tok.encode(expected.text, false, false) == expected.ids);
    std::vector<int32_t> with_bos = {2};
    with_bos.insert(with_bos.end(), expected.ids.begin(), expected.ids.end());
    CHECK(tok.encode(expected.text, true, false) == with_bos);
    CHECK(tok.decode(expected.ids) == expected.text);  // Gemma adds no space prefix
  }
}

TEST_CASE("gemma tokenizer: special tokens need parse_special", "[tokenizer][model]") {
  const Tokenizer& tok = gemma_tokenizer();
  const std::string turn = "<start_of_turn>user\nHi!<end_of_turn>\n<start_of_turn>model\n";
  CHECK(tok.encode(turn, false, true) == std::vector<int32_t>{105, 2364, 107, 10979, 236888, 106, 107, 105, 4368, 107});
  CHECK(tok.encode(turn, false, false) == std::vector<int32_t>{236820, 3041,   236779, 1340,   236779, 887,    236813, 2364,   107,
                                                               10979,  200322, 643,    236779, 1340,   236779, 887,    236813, 107,
                                                               236820, 3041,   236779, 1340,   236779, 887,    236813, 4368,   107});
  CHECK(tok.decode(tok.encode(turn, false, true)) == "user\nHi!\nmodel\n");
  CHECK(tok.decode(tok.encode(turn, false, true), true) == turn);
}

TEST_CASE("gemma tokenizer: the chat template tokenizes to llama.cpp's ids", "[tokenizer][model]") {
  const Tokenizer& tok = gemma_tokenizer();
  const std::vector<ChatMessage> chat = {{"system", "You are a helpful assistant."}, {"user", "Write a haiku about the sea."}};
  const std::string prompt = render_chat(chat_template_for_model("gemma3", std::nullopt, "gemma"), chat, true);
  const std::vector<int32_t> expected = {2,   105, 2364,  107,  3048, 659,  496,    11045, 16326, 236761, 108,  6974,
                                         496, 678, 20517, 1003, 506,  5442, 236761, 106,   107,   105,    4368, 107};
  CHECK(tok.encode(prompt, false, true) == expected);
  CHECK(tok.encode(prompt, true, true) == expected);  // the template's <bos> is not doubled
  // The turn marker's id comes from the vocabulary's text, whatever the file numbers it.
  const auto ids = tok.encode(prompt, false, true);
  CHECK(ids[1] == tok.find_token("<start_of_turn>"));
  CHECK(tok.is_stop(tok.find_token("<end_of_turn>")));
}

TEST_CASE("gemma tokenizer: streaming a byte-fallback character", "[tokenizer][model]") {
  const Tokenizer& tok = gemma_tokenizer();
  const std::string text =
      "A\xF0\xA0\x9C\x8E"
      "B";  // U+2070E has no token: four byte tokens
  const auto ids = tok.encode(text, false, false);
  REQUIRE(ids.size() == 6);
  TextStreamer streamer(tok);
  std::string streamed;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string piece = streamer.push(ids[i]);
    if (i >= 1 && i <= 3) CHECK(piece.empty());  // held back until the character is complete
    streamed += piece;
  }
  streamed += streamer.finish();
  CHECK(streamed == text);
}
