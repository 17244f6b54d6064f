// The prompt-set loader (datasets/loaders/prompt_set.h) on small files the test writes: every
// format loads and is detected, and every malformed input is one InputError naming the file,
// the line or element, the field and what was expected. Then the prompt sets we ship: their
// shape, and that none of them overlaps the drafter-training corpus.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "datasets/loaders/prompt_set.h"
#include "engine/common/error.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;

namespace {

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
  return path;
}

std::string source_path(const std::string& relative) { return std::string(DRAFTBENCH_SOURCE_DIR) + "/" + relative; }

// Lower case, every run of non-alphanumeric characters one space: what "the same prompt"
// means for the overlap checks (case, spacing and punctuation are ignored).
std::vector<std::string> normalised_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c >= 0x80) {
      word += static_cast<char>(std::tolower(c));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string join(const std::vector<std::string>& words, size_t begin, size_t end) {
  std::string s;
  for (size_t i = begin; i < end; ++i) s += (i == begin ? "" : " ") + words[i];
  return s;
}

constexpr size_t kShingleWords = 8;

// Every 8-word window of every turn, mapped to the id of a prompt that holds it.
std::unordered_map<std::string, std::string> shingles_of(const std::vector<PromptItem>& items) {
  std::unordered_map<std::string, std::string> shingles;
  for (const PromptItem& item : items)
    for (const std::string& turn : item.turns) {
      const std::vector<std::string> w = normalised_words(turn);
      for (size_t i = 0; i + kShingleWords <= w.size(); ++i) shingles.emplace(join(w, i, i + kShingleWords), item.id);
    }
  return shingles;
}

// "" when no shipped turn equals a corpus prompt or shares an 8-word shingle with one;
// otherwise the first overlap found, for the failure message.
std::string first_overlap(const std::vector<PromptItem>& shipped, const std::vector<PromptItem>& corpus) {
  std::unordered_map<std::string, std::string> corpus_texts;
  for (const PromptItem& item : corpus) {
    const std::vector<std::string> w = normalised_words(item.turns.at(0));
    corpus_texts.emplace(join(w, 0, w.size()), item.id);
  }
  const auto corpus_shingles = shingles_of(corpus);
  for (const PromptItem& item : shipped)
    for (const std::string& turn : item.turns) {
      const std::vector<std::string> w = normalised_words(turn);
      if (const auto it = corpus_texts.find(join(w, 0, w.size())); it != corpus_texts.end()) return "prompt " + item.id + " equals corpus prompt " + it->second;
      for (size_t i = 0; i + kShingleWords <= w.size(); ++i)
        if (const auto it = corpus_shingles.find(join(w, i, i + kShingleWords)); it != corpus_shingles.end())
          return "prompt " + item.id + " shares \"" + it->first + "\" with corpus prompt " + it->second;
    }
  return "";
}

}  // namespace

TEST_CASE("prompt format names round-trip and unknown names are rejected") {
  for (PromptFormat f : {PromptFormat::detect, PromptFormat::mt_bench, PromptFormat::alpaca, PromptFormat::corpus, PromptFormat::plain})
    CHECK(parse_prompt_format(prompt_format_name(f), "spec.json") == f);
  REQUIRE_THROWS_AS(parse_prompt_format("sharegpt", "spec.json"), InputError);
  REQUIRE_THROWS_WITH(parse_prompt_format("sharegpt", "spec.json field 'prompt_format'"),
                      Equals("spec.json field 'prompt_format': unknown prompt format \"sharegpt\" (expected detect, mt_bench, alpaca, corpus or "
                             "plain)"));
}

TEST_CASE("MT-Bench questions load with every turn and their reference answers") {
  test::TempDir dir("mt_bench_load");
  const std::string path = write_file(dir / "question.jsonl",
                                      "{\"question_id\": 81, \"category\": \"writing\", \"turns\": [\"Write a poem.\", \"Now make it rhyme.\"]}\n"
                                      "\n"
                                      "{\"question_id\": 111, \"category\": \"math\", \"turns\": [\"What is 2+2?\", \"And 3+3?\"], "
                                      "\"reference\": [\"4\", \"6\"]}\n");
  for (PromptFormat format : {PromptFormat::mt_bench, PromptFormat::detect}) {
    const std::vector<PromptItem> items = load_prompt_set(path, format);
    REQUIRE(items.size() == 2);
    CHECK(items[0].id == "81");
    CHECK(items[0].category == "writing");
    CHECK(items[0].turns == std::vector<std::string>{"Write a poem.", "Now make it rhyme."});
    CHECK(items[0].reference.empty());
    CHECK(items[0].split.empty());
    CHECK(items[1].id == "111");
    CHECK(items[1].turns.size() == 2);
    CHECK(items[1].reference == std::vector<std::string>{"4", "6"});
  }
}

TEST_CASE("Spec-Bench records (int or string ids, its own categories) load as MT-Bench questions") {
  test::TempDir dir("spec_bench_load");
  const std::string path =
      write_file(dir / "question.jsonl",
                 "{\"question_id\": 81, \"category\": \"mt_bench\", \"turns\": [\"Draft an email.\", \"Shorten it.\"]}\r\n"
                 "{\"question_id\": \"translation_1\", \"category\": \"translation\", \"turns\": [\"Translate German-to-English: Guten Tag.\"]}\r\n"
                 "{\"question_id\": 241, \"category\": \"summarization\", \"turns\": [\"Summarize: ...\"], \"reference\": null}\r\n"
                 "{\"question_id\": \"qa_7\", \"category\": \"qa\", \"turns\": [\"Who wrote Hamlet?\"]}\r\n"
                 "{\"question_id\": 401, \"category\": \"math_reasoning\", \"turns\": [\"Tom has 3 apples...\"]}\r\n"
                 "{\"question_id\": 481, \"category\": \"rag\", \"turns\": [\"Context: ... Question: ...\"]}\r\n");
  const std::vector<PromptItem> items = load_prompt_set(path);
  REQUIRE(items.size() == 6);
  std::vector<std::string> ids, categories;
  for (const PromptItem& item : items) ids.push_back(item.id), categories.push_back(item.category);
  CHECK(ids == std::vector<std::string>{"81", "translation_1", "241", "qa_7", "401", "481"});
  CHECK(categories == std::vector<std::string>{"mt_bench", "translation", "summarization", "qa", "math_reasoning", "rag"});
  CHECK(items[0].turns.size() == 2);
  CHECK(items[1].turns == std::vector<std::string>{"Translate German-to-English: Guten Tag."});
  CHECK(items[2].reference.empty());
}

TEST_CASE("AlpacaEval records load from the official JSON array and from JSONL") {
  test::TempDir dir("alpaca_load");
  SECTION("a JSON array, ids from the element number unless an id is given") {
    const std::string path =
        write_file(dir / "alpaca_eval.json",
                   "[\n"
                   "  {\"instruction\": \"Name three birds.\", \"output\": \"\", \"generator\": \"none\", \"dataset\": \"helpful_base\"},\n"
                   "  {\"instruction\": \"Sort: b, a\", \"output\": \"a, b\", \"generator\": \"gpt4\", \"dataset\": \"selfinstruct\", "
                   "\"datasplit\": \"eval\"},\n"
                   "  {\"id\": \"v-9\", \"instruction\": \"What if the sun were blue?\", \"dataset\": \"vicuna\"}\n"
                   "]\n");
    for (PromptFormat format : {PromptFormat::alpaca, PromptFormat::detect}) {
      const std::vector<PromptItem> items = load_prompt_set(path, format);
      REQUIRE(items.size() == 3);
      CHECK(items[0].id == "1");
      CHECK(items[0].category == "helpful_base");
      CHECK(items[0].turns == std::vector<std::string>{"Name three birds."});
      CHECK(items[1].id == "2");
      CHECK(items[1].category == "selfinstruct");
      CHECK(items[2].id == "v-9");
      CHECK(items[2].category == "vicuna");
    }
  }
  SECTION("JSON Lines, ids from the record number, blank lines skipped") {
    const std::string path = write_file(dir / "alpaca.jsonl",
                                        "{\"instruction\": \"Explain tides.\", \"dataset\": \"oasst\"}\n\n"
                                        "{\"instruction\": \"write a haiku\", \"dataset\": \"koala\", \"id\": 17}\n"
                                        "{\"instruction\": \"List two fruits.\", \"dataset\": \"koala\"}\n");
    for (PromptFormat format : {PromptFormat::alpaca, PromptFormat::detect}) {
      const std::vector<PromptItem> items = load_prompt_set(path, format);
      REQUIRE(items.size() == 3);
      CHECK(items[0].id == "1");
      CHECK(items[0].category == "oasst");
      CHECK(items[1].id == "17");
      CHECK(items[2].id == "3");
      CHECK(items[2].turns == std::vector<std::string>{"List two fruits."});
    }
  }
}

TEST_CASE("draftbench corpus records and plain text load") {
  test::TempDir dir("corpus_plain_load");
  SECTION("corpus records keep id, category and split") {
    const std::string path = write_file(dir / "prompts.jsonl",
                                        "{\"id\": \"p000001\", \"split\": \"train\", \"style\": \"mt-bench\", \"category\": \"coding\", "
                                        "\"prompt\": \"Write a queue.\"}\n"
                                        "{\"id\": \"p000002\", \"split\": \"heldout\", \"style\": \"alpaca\", \"category\": \"recipe\", "
                                        "\"prompt\": \"A soup recipe, please.\"}\n");
    for (PromptFormat format : {PromptFormat::corpus, PromptFormat::detect}) {
      const std::vector<PromptItem> items = load_prompt_set(path, format);
      REQUIRE(items.size() == 2);
      CHECK(items[0].id == "p000001");
      CHECK(items[0].split == "train");
      CHECK(items[0].category == "coding");
      CHECK(items[0].turns == std::vector<std::string>{"Write a queue."});
      CHECK(items[1].split == "heldout");
      CHECK(items[1].category == "recipe");
    }
  }
  SECTION("a record needs only its prompt: the line number stands in for a missing id") {
    const std::string path = write_file(dir / "bare.jsonl", "{\"prompt\": \"Hello there.\"}\n{\"id\": \"x\", \"prompt\": \"Bye.\"}\n");
    const std::vector<PromptItem> items = load_prompt_set(path);
    REQUIRE(items.size() == 2);
    CHECK(items[0].id == "1");
    CHECK(items[0].split.empty());
    CHECK(items[0].category.empty());
    CHECK(items[1].id == "x");
  }
  SECTION("plain text: one prompt per non-empty line, the line number as id") {
    const std::string path = write_file(dir / "prompts.txt", "\xEF\xBB\xBFThe capital of France is\r\n\r\n  \nWrite a limerick.\r\n[tag] a line\n");
    for (PromptFormat format : {PromptFormat::plain, PromptFormat::detect}) {
      const std::vector<PromptItem> items = load_prompt_set(path, format);
      REQUIRE(items.size() == 3);
      CHECK(items[0].id == "1");
      CHECK(items[0].turns == std::vector<std::string>{"The capital of France is"});
      CHECK(items[0].category.empty());
      CHECK(items[1].id == "4");
      CHECK(items[1].turns == std::vector<std::string>{"Write a limerick."});
    }
    // Not '[' first: a plain file whose later line starts with '[' is still plain text.
    CHECK(load_prompt_set(path).at(2).turns.at(0) == "[tag] a line");
  }
  SECTION("plain text: a line that is not UTF-8 is refused at load time, by file and line") {
    const std::string path = write_file(dir / "bad.txt", "Hello.\n\nTwo\xFF words\n");
    REQUIRE_THROWS_WITH(load_prompt_set(path), Equals(path + ": line 3: invalid UTF-8 at byte 4 of the line (expected UTF-8 text)"));
  }
  SECTION("an explicit format wins over detection") {
    const std::string path = write_file(dir / "q.jsonl", "{\"question_id\": 1, \"category\": \"math\", \"turns\": [\"1+1?\"]}\n");
    const std::vector<PromptItem> items = load_prompt_set(path, PromptFormat::plain);
    REQUIRE(items.size() == 1);
    CHECK(items[0].turns.at(0) == "{\"question_id\": 1, \"category\": \"math\", \"turns\": [\"1+1?\"]}");
  }
  SECTION("the llama.cpp/float reference prompts load as plain text") {
    const std::vector<PromptItem> items = load_prompt_set(source_path("datasets/prompts/reference_prompts.txt"));
    CHECK(items.size() >= 10);
    CHECK(items[0].category.empty());
  }
}

TEST_CASE("malformed prompt files give one line naming the file, the place, the field and what was expected") {
  test::TempDir dir("prompt_errors");
  const std::string path = dir / "prompts.jsonl";
  // The message load_prompt_set throws for `text` in `format`.
  const auto message = [&](const std::string& text, PromptFormat format = PromptFormat::detect) -> std::string {
    write_file(path, text);
    try {
      load_prompt_set(path, format);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string q1 = "{\"question_id\": 1, \"category\": \"math\", \"turns\": [\"One?\"]}\n";

  SECTION("unreadable or empty files") {
    REQUIRE_THROWS_WITH(load_prompt_set(dir / "missing.jsonl"), Equals(dir / "missing.jsonl" + ": cannot open the prompt file: No such file or directory"));
    REQUIRE_THROWS_WITH(load_prompt_set(dir.str()), Equals(dir.str() + ": is a directory (expected a regular file: the prompt file)"));
    REQUIRE_THROWS_WITH(load_prompt_set("/dev/zero"), Equals("/dev/zero: is a character device (expected a regular file: the prompt file)"));
    CHECK_THAT(message(""), Equals(path + ": holds no prompts (the file is empty)"));
    CHECK_THAT(message(" \n\r\n\t\n"), Equals(path + ": holds no prompts (the file is empty)"));
    CHECK_THAT(message("[]\n"), Equals(path + ": holds no prompts"));
    CHECK_THAT(message("[]", PromptFormat::alpaca), Equals(path + ": holds no prompts"));
  }
  SECTION("invalid JSON names the line") {
    CHECK_THAT(message(q1 + "{\"question_id\": 2, \"category\": \"math\", \"turns\": [\"Two?\"]\n"),
               StartsWith(path + ": line 2: not valid JSON at column ") && Contains("expected one JSON object per line"));
    CHECK_THAT(message(q1 + "\n{\"question_id\": 3,}\n", PromptFormat::mt_bench),
               StartsWith(path + ": line 3: not valid JSON at column 19 (") && Contains("expected one MT-Bench question object per line"));
    CHECK_THAT(message("[\n  {\"instruction\": \"a\", \"dataset\": \"oasst\"},\n  {\"instruction\": \"b\" \"dataset\": \"oasst\"}\n]\n"),
               StartsWith(path + ": line 3: not valid JSON at column 31 (") && Contains("read as one JSON array of AlpacaEval records"));
  }
  SECTION("records that are not objects") {
    CHECK_THAT(message(q1 + "[1, 2]\n"), Equals(path + ": line 2: expected one JSON object per line, got an array"));
    CHECK_THAT(message("\"just a string\"\n", PromptFormat::corpus),
               Equals(path + ": line 1: expected one draftbench corpus record object per line, got a string"));
    CHECK_THAT(message("[{\"instruction\": \"a\", \"dataset\": \"oasst\"}, 7]"),
               Equals(path + ": element 2: expected a JSON object (an AlpacaEval record), got an integer"));
    CHECK_THAT(message("{\"instruction\": \"a\"}", PromptFormat::alpaca), Equals(path + ": line 1 field 'dataset': missing; expected a non-empty string"));
  }
  SECTION("a JSON object of no known format") {
    CHECK_THAT(message("\n{\"text\": \"Hello\"}\n"),
               Equals(path + ": line 2: cannot tell the prompt format: expected a \"turns\" (MT-Bench), \"prompt\" (draftbench corpus) or "
                             "\"instruction\" (AlpacaEval) field"));
  }
  SECTION("MT-Bench fields") {
    CHECK_THAT(message(q1 + "{\"category\": \"math\", \"turns\": [\"Two?\"]}\n"),
               Equals(path + ": line 2 field 'question_id': missing; expected an integer or a non-empty string"));
    CHECK_THAT(message("{\"question_id\": 1.5, \"category\": \"math\", \"turns\": [\"x\"]}\n"),
               Equals(path + ": line 1 field 'question_id': expected an integer or a non-empty string, got a number"));
    CHECK_THAT(message("{\"question_id\": \"\", \"category\": \"math\", \"turns\": [\"x\"]}\n"),
               Equals(path + ": line 1 field 'question_id': expected an integer or a non-empty string, got an empty string"));
    CHECK_THAT(message("{\"question_id\": 1, \"turns\": [\"x\"]}\n"), Equals(path + ": line 1 field 'category': missing; expected a non-empty string"));
    CHECK_THAT(message("{\"question_id\": 1, \"category\": 4, \"turns\": [\"x\"]}\n"),
               Equals(path + ": line 1 field 'category': expected a non-empty string, got an integer"));
    CHECK_THAT(message(q1 + "{\"question_id\": 2, \"category\": \"math\", \"turns\": []}\n"),
               Equals(path + ": line 2 field 'turns': expected a non-empty array of non-empty strings, got an empty array"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"math\", \"turns\": \"Two?\"}\n", PromptFormat::mt_bench),
               Equals(path + ": line 1 field 'turns': expected a non-empty array of non-empty strings, got a string"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"math\", \"turns\": [\"Two?\", 3]}\n"),
               Equals(path + ": line 1 field 'turns' element 2: expected a string, got an integer"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"math\", \"turns\": [\"Two?\", \"  \"]}\n"),
               Equals(path + ": line 1 field 'turns' element 2: expected a non-empty string, got an empty one"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"math\", \"prompt\": \"Two?\"}\n", PromptFormat::mt_bench),
               Equals(path + ": line 1 field 'turns': missing; expected a non-empty array of non-empty strings"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"math\", \"turns\": [\"Two?\"], \"reference\": 4}\n"),
               Equals(path + ": line 1 field 'reference': expected a string, an array of strings or an array of arrays of strings, got an integer"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"math\", \"turns\": [\"Two?\"], \"reference\": [4]}\n"),
               Equals(path + ": line 1 field 'reference' element 1: expected a string or an array of strings, got an integer"));
    CHECK_THAT(message("{\"question_id\": 2, \"category\": \"rag\", \"turns\": [\"Two?\"], \"reference\": [[\"a\", null]]}\n"),
               Equals(path + ": line 1 field 'reference' element 1 element 2: expected a string, got null"));
  }
  SECTION("AlpacaEval fields") {
    CHECK_THAT(message("[{\"instruction\": \"a\", \"dataset\": \"oasst\"}, {\"instruction\": \"\", \"dataset\": \"oasst\"}]"),
               Equals(path + ": element 2 field 'instruction': expected a non-empty string, got an empty one"));
    CHECK_THAT(message("[{\"instruction\": [\"a\"], \"dataset\": \"oasst\"}]"),
               Equals(path + ": element 1 field 'instruction': expected a non-empty string, got an array"));
    CHECK_THAT(message("[{\"instruction\": \"a\"}]"), Equals(path + ": element 1 field 'dataset': missing; expected a non-empty string"));
    CHECK_THAT(message("[{\"instruction\": \"a\", \"dataset\": \"oasst\", \"id\": true}]"),
               Equals(path + ": element 1 field 'id': expected an integer or a non-empty string, got a boolean"));
    CHECK_THAT(message("{\"output\": \"x\", \"dataset\": \"oasst\"}\n", PromptFormat::alpaca),
               Equals(path + ": line 1 field 'instruction': missing; expected a non-empty string"));
  }
  SECTION("corpus fields") {
    const std::string ok = "{\"id\": \"p1\", \"split\": \"train\", \"style\": \"alpaca\", \"category\": \"list\", \"prompt\": \"List fruit.\"}\n";
    CHECK_THAT(message(ok + "{\"id\": \"p2\", \"split\": \"test\", \"style\": \"alpaca\", \"category\": \"list\", \"prompt\": \"List nuts.\"}\n"),
               Equals(path + ": line 2 field 'split': expected \"train\" or \"heldout\", got \"test\""));
    CHECK_THAT(message(ok + "{\"id\": \"p2\", \"split\": \"train\", \"style\": 3, \"category\": \"list\", \"prompt\": \"List nuts.\"}\n"),
               Equals(path + ": line 2 field 'style': expected a non-empty string, got an integer"));
    CHECK_THAT(message(ok + "{\"id\": \"p2\", \"split\": \"train\", \"style\": \"alpaca\", \"category\": \"list\", \"prompt\": null}\n"),
               Equals(path + ": line 2 field 'prompt': expected a non-empty string, got null"));
  }
  SECTION("duplicate ids name both places") {
    CHECK_THAT(message(q1 + "{\"question_id\": 2, \"category\": \"math\", \"turns\": [\"x\"]}\n" + q1),
               Equals(path + ": line 3 field 'question_id': duplicate id \"1\" (first used at line 1)"));
    CHECK_THAT(message("{\"question_id\": 1, \"category\": \"a\", \"turns\": [\"x\"]}\n{\"question_id\": \"1\", \"category\": \"a\", \"turns\": [\"y\"]}\n"),
               Equals(path + ": line 2 field 'question_id': duplicate id \"1\" (first used at line 1)"));
    CHECK_THAT(message("[{\"instruction\": \"a\", \"dataset\": \"oasst\", \"id\": 5}, {\"instruction\": \"b\", \"dataset\": \"oasst\", \"id\": 5}]"),
               Equals(path + ": element 2 field 'id': duplicate id \"5\" (first used at element 1)"));
    const std::string rec = "{\"id\": \"p1\", \"split\": \"train\", \"style\": \"alpaca\", \"category\": \"list\", \"prompt\": \"List fruit.\"}\n";
    CHECK_THAT(message(rec + "\n" + rec), Equals(path + ": line 3 field 'id': duplicate id \"p1\" (first used at line 1)"));
  }
}

TEST_CASE("the shipped MT-Bench-style set: 80 two-turn questions, 10 per category, references where MT-Bench gives them") {
  const std::string path = source_path("datasets/mt_bench_style/question.jsonl");
  const std::vector<PromptItem> items = load_prompt_set(path, PromptFormat::mt_bench);
  REQUIRE(load_prompt_set(path).size() == items.size());  // detection agrees
  REQUIRE(items.size() >= 80);

  std::map<std::string, int> per_category;
  std::set<std::string> ids, turns;
  for (const PromptItem& item : items) {
    INFO("question " << item.id);
    ++per_category[item.category];
    ids.insert(item.id);
    CHECK(std::stoi(item.id) >= 1001);
    CHECK(item.turns.size() == 2);
    for (const std::string& turn : item.turns) {
      const std::vector<std::string> w = normalised_words(turn);
      CHECK(turns.insert(join(w, 0, w.size())).second);  // no turn repeats, up to case and punctuation
    }
    CHECK(normalised_words(item.turns.at(0)).size() <= 80);  // a tiny model on a 2-core CPU
    const bool needs_reference = item.category == "math" || item.category == "reasoning" || item.category == "coding";
    CHECK(item.reference.size() == (needs_reference ? 2u : 0u));
  }
  CHECK(ids.size() == items.size());
  // Specs take the first `limit` prompts, so the categories take turns: any 8 in a row hold one of each.
  for (size_t i = 8; i < items.size(); ++i) CHECK(items[i].category == items[i - 8].category);
  const std::map<std::string, int> expected{{"writing", 10}, {"roleplay", 10},   {"reasoning", 10}, {"math", 10},
                                            {"coding", 10},  {"extraction", 10}, {"stem", 10},      {"humanities", 10}};
  CHECK(per_category == expected);
}

TEST_CASE("the shipped AlpacaEval-style set: 100 instructions, 20 per source, in the official file's layout") {
  const std::string path = source_path("datasets/alpaca_style/alpaca_eval_style.json");
  const std::vector<PromptItem> items = load_prompt_set(path, PromptFormat::alpaca);
  REQUIRE(load_prompt_set(path).size() == items.size());
  REQUIRE(items.size() >= 100);

  std::map<std::string, int> per_source;
  std::set<std::string> ids, texts;
  for (const PromptItem& item : items) {
    ++per_source[item.category];
    ids.insert(item.id);
    const std::vector<std::string> w = normalised_words(item.turns.at(0));
    INFO("element " << item.id << ": " << item.turns[0]);
    CHECK(texts.insert(join(w, 0, w.size())).second);
    CHECK(w.size() <= 80);
  }
  CHECK(ids.size() == items.size());
  for (size_t i = 5; i < items.size(); ++i) CHECK(items[i].category == items[i - 5].category);
  const std::map<std::string, int> expected{{"helpful_base", 20}, {"koala", 20}, {"oasst", 20}, {"selfinstruct", 20}, {"vicuna", 20}};
  CHECK(per_source == expected);

  // The fields the official alpaca_eval.json has, with no model output filled in.
  std::ifstream in(path);
  const nlohmann::json records = nlohmann::json::parse(in);
  for (const nlohmann::json& r : records) {
    CHECK(r.at("output") == "");
    CHECK(r.at("generator") == "none");
  }
}

TEST_CASE("the shipped prompt sets share no prompt and no 8-word run with the drafter-training corpus") {
  const std::vector<PromptItem> corpus = load_prompt_set(source_path("datasets/corpus/prompts.jsonl"), PromptFormat::corpus);
  REQUIRE(corpus.size() == 3600);
  const std::vector<PromptItem> mt_bench = load_prompt_set(source_path("datasets/mt_bench_style/question.jsonl"));
  const std::vector<PromptItem> alpaca = load_prompt_set(source_path("datasets/alpaca_style/alpaca_eval_style.json"));
  const std::vector<PromptItem> code = load_prompt_set(source_path("datasets/code_style/code_prompts.jsonl"));
  REQUIRE(code.size() >= 40);
  CHECK(first_overlap(mt_bench, corpus) == "");
  CHECK(first_overlap(alpaca, corpus) == "");
  CHECK(first_overlap(code, corpus) == "");
  // Every training-only corpus file: at least `min_size` prompts, all "train", and apart from
  // the three shipped sets.
  const auto training_file = [&](const char* path, size_t min_size) {
    INFO(path);
    const std::vector<PromptItem> items = load_prompt_set(source_path(path), PromptFormat::corpus);
    REQUIRE(items.size() >= min_size);
    CHECK(first_overlap(mt_bench, items) == "");
    CHECK(first_overlap(alpaca, items) == "");
    CHECK(first_overlap(code, items) == "");
    for (const PromptItem& item : items) CHECK(item.split == "train");
    return items;
  };
  training_file("datasets/corpus/code_completions.jsonl", 400);  // code-completion prompts
  training_file("datasets/corpus/passages.jsonl", 600);          // real text to copy
  // The extra prompts are also apart from every prompt of the main file (held-out ones included).
  const std::vector<PromptItem> extra = training_file("datasets/corpus/prompts_extra.jsonl", 5000);
  std::set<std::string> corpus_texts;
  for (const PromptItem& item : corpus) corpus_texts.insert(item.turns.at(0));
  for (const PromptItem& item : extra) {
    INFO("extra prompt " << item.id);
    CHECK(corpus_texts.count(item.turns.at(0)) == 0);
  }

  // The two shipped sets do not repeat each other either.
  std::set<std::string> mt_bench_texts;
  for (const PromptItem& item : mt_bench)
    for (const std::string& turn : item.turns) {
      const std::vector<std::string> w = normalised_words(turn);
      mt_bench_texts.insert(join(w, 0, w.size()));
    }
  for (const PromptItem& item : alpaca) {
    const std::vector<std::string> w = normalised_words(item.turns.at(0));
    INFO("alpaca element " << item.id);
    CHECK(mt_bench_texts.count(join(w, 0, w.size())) == 0);
  }

  // The check itself: a corpus prompt copied into a shipped set, or a sentence of one, is caught.
  std::vector<PromptItem> leaked{PromptItem{"leak-1", "oasst", {corpus[7].turns[0]}, {}, ""}};
  CHECK_THAT(first_overlap(leaked, corpus), StartsWith("prompt leak-1 equals corpus prompt "));
  const std::vector<std::string> words = normalised_words(corpus[11].turns[0]);
  REQUIRE(words.size() >= kShingleWords);
  leaked.back().turns = {"Please answer this: " + join(words, 0, kShingleWords) + "!"};
  CHECK_THAT(first_overlap(leaked, corpus), StartsWith("prompt leak-1 shares \"" + join(words, 0, kShingleWords) + "\""));
}

// The official benchmark files, in miniature: fixtures written in the exact record shapes of
// FastChat's MT-Bench question.jsonl, Spec-Bench's question.jsonl (all 13 categories, the
// rag rows with `reference` as a list of lists and a long prompt) and AlpacaEval's
// alpaca_eval.json and a model_outputs.json (extra per-generator keys).
TEST_CASE("official benchmark files load: MT-Bench, Spec-Bench (13 categories), AlpacaEval") {
  const std::string fixtures = source_path("tests/datasets/fixtures");
  SECTION("MT-Bench (FastChat question.jsonl)") {
    const std::vector<PromptItem> items = load_prompt_set(fixtures + "/mt_bench_question.jsonl");
    REQUIRE(items.size() == 3);
    CHECK(items[0].id == "81");
    CHECK(items[0].turns.size() == 2);
    CHECK(items[0].reference.empty());
    CHECK(items[2].category == "math");
    CHECK(items[2].reference.size() == 2);
  }
  SECTION("Spec-Bench question.jsonl") {
    const std::vector<PromptItem> items = load_prompt_set(fixtures + "/spec_bench_question.jsonl");
    std::set<std::string> categories;
    for (const PromptItem& item : items) categories.insert(item.category);
    CHECK(categories == std::set<std::string>{"writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities", "translation",
                                              "summarization", "qa", "math_reasoning", "rag"});
    const PromptItem& rag = items.back();
    REQUIRE(rag.category == "rag");
    CHECK(rag.turns.at(0).size() > 2000);
    REQUIRE(rag.reference.size() == 1);
    CHECK(rag.reference[0] == "the Atacama\nAtacama Desert");
    const auto qa = std::find_if(items.begin(), items.end(), [](const PromptItem& i) { return i.category == "qa"; });
    REQUIRE(qa != items.end());
    CHECK(qa->reference == std::vector<std::string>{"Canberra"});
    const auto math = std::find_if(items.begin(), items.end(), [](const PromptItem& i) { return i.category == "math_reasoning"; });
    REQUIRE(math != items.end());
    CHECK(math->reference.size() == 1);
  }
  SECTION("AlpacaEval alpaca_eval.json and a model_outputs.json") {
    for (const char* name : {"/alpaca_eval.json", "/model_outputs.json"}) {
      INFO(name);
      const std::vector<PromptItem> items = load_prompt_set(fixtures + name);
      REQUIRE(items.size() == 3);
      CHECK(items[0].category == "helpful_base");
      CHECK(items[2].category == "vicuna");
      CHECK(items[1].turns.at(0).find("haiku") != std::string::npos);
    }
  }
}
