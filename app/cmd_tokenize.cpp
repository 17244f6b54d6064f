// draftbench tokenize: text to token ids with a model's tokenizer only (no weights are
// read), for checking the tokenizer against other implementations
// (scripts/check_tokenizer.sh, tests/unit/bpe_oracle_test.py).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/model_aliases.h"

namespace draftbench::cli {

namespace {
struct TokenizeArgs {
  std::string model, text_file;
  bool jsonl = false, add_special = false, no_parse_special = false;
};

// A GGUF file's tokenizer, or a Hugging Face tokenizer.json / tokenizer.model.
Tokenizer load_tokenizer(const std::string& path) {
  if (path.ends_with(".json")) return Tokenizer::from_tokenizer_json(path);
  if (path.ends_with(".model")) return Tokenizer::from_model_file(path);
  return tokenizer_from_gguf(GgufFile::open(path));
}

// One output line: the ids, and whether decoding them gives the text back.
std::string result_line(const Tokenizer& tokenizer, const std::string& text, const TokenizeArgs& a) {
  const bool add_bos = a.add_special && tokenizer.add_bos_by_default();
  const std::vector<int32_t> ids = tokenizer.encode(text, add_bos, !a.no_parse_special);
  const std::string decoded = tokenizer.decode(ids, /*render_special=*/true);
  const std::string expected = add_bos ? std::string(tokenizer.piece_text(tokenizer.bos_id())) + text : text;
  return nlohmann::json{{"ids", ids}, {"round_trip", decoded == expected}}.dump();
}

int run_tokenize(const TokenizeArgs& a) {
  if (a.model.empty()) throw InputError("tokenize", "--model", "missing (a GGUF file, tokenizer.json or tokenizer.model)");
  if (a.text_file.empty()) throw InputError("tokenize", "--text-file", "missing");
  const Tokenizer tokenizer = load_tokenizer(a.model);
  // A regular file of at most kMaxPromptBytes: a FIFO would block, /dev/zero never ends.
  const std::string text = read_regular_file(a.text_file, "text file", kMaxPromptBytes);
  if (!a.jsonl) {
    fmt::print("{}\n", result_line(tokenizer, text, a));
    return 0;
  }
  std::istringstream in(text);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(a.text_file, fmt::format("line {}", number), std::string("not a JSON string: ") + e.what());
    }
    if (!value.is_string()) throw InputError(a.text_file, fmt::format("line {}", number), "expected a JSON string");
    fmt::print("{}\n", result_line(tokenizer, value.get<std::string>(), a));
  }
  return 0;
}
}  // namespace

Run add_tokenize(CLI::App& app) {
  auto a = std::make_shared<TokenizeArgs>();
  CLI::App* sub = app.add_subcommand("tokenize", "Print the token ids of texts as JSON lines ({\"ids\": [...], \"round_trip\": bool})");
  sub->add_option("--model", a->model,
                  fmt::format("GGUF file (its tokenizer only), tokenizer.json, tokenizer.model, or a model alias ({})", model_alias_names()))
      ->transform(model_alias_transform());
  sub->add_option("--text-file", a->text_file, "The text (the whole file), or with --jsonl one JSON string per line");
  sub->add_flag("--jsonl", a->jsonl, "Read one JSON string per line and print one result per line");
  sub->add_flag("--add-special", a->add_special, "Prepend BOS when the vocabulary adds it by default");
  sub->add_flag("--no-parse-special", a->no_parse_special, "Treat CONTROL tokens' text as ordinary text");
  return [sub, a]() -> int { return sub->parsed() ? run_tokenize(*a) : -1; };
}

}  // namespace draftbench::cli
