#include "datasets/loaders/prompt_set.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "engine/common/error.h"
#include "engine/common/input_checks.h"
#include "engine/common/input_file.h"

namespace draftbench {

namespace {

using nlohmann::json;

// One JSON record and where it sits, as error messages name it: "line 3" (JSON Lines) or
// "element 7" (a JSON array, AlpacaEval's own layout). `position` is 1-based among records.
struct JsonRecord {
  json value;
  std::string where;
  size_t position = 0;
};

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

std::string read_whole_file(const std::string& path) {
  // Regular files only (a FIFO would block, /dev/zero never ends), up to kMaxPromptBytes.
  std::string s = read_regular_file(path, "prompt file", kMaxPromptBytes);
  // Editors on Windows write a UTF-8 byte-order mark; it is not part of the first prompt.
  if (s.rfind("\xEF\xBB\xBF", 0) == 0) s.erase(0, 3);
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 5: "
// prefix, whose position refers to the text given to the parser, not to the file.
std::string parse_error_reason(const json::parse_error& e) {
  const std::string what = e.what();
  const size_t at = what.find("parse error");
  const size_t colon = what.find(": ", at == std::string::npos ? 0 : at);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::string type_of(const json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::vector<JsonRecord> parse_json_lines(const std::string& path, const std::string& text, const char* expected_record) {
  std::vector<JsonRecord> records;
  const std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) continue;
    const std::string where = fmt::format("line {}", i + 1);
    json value;
    try {
      value = json::parse(lines[i]);
    } catch (const json::parse_error& e) {
      throw InputError(path, where, fmt::format("not valid JSON at column {} ({}); expected one {} per line", e.byte, parse_error_reason(e), expected_record));
    }
    if (!value.is_object()) throw InputError(path, where, fmt::format("expected one {} per line, got {}", expected_record, type_of(value)));
    records.push_back(JsonRecord{std::move(value), where, records.size() + 1});
  }
  return records;
}

std::vector<JsonRecord> parse_json_array(const std::string& path, const std::string& text) {
  json whole;
  try {
    whole = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based offset of the last byte read: turn it into a line and column.
    const size_t end = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < end; ++i)
      if (text[i] == '\n') ++line, line_start = i + 1;
    throw InputError(path, fmt::format("line {}", line),
                     fmt::format("not valid JSON at column {} ({}); a file starting with '[' is read as one JSON array of "
                                 "AlpacaEval records",
                                 end - line_start + 1, parse_error_reason(e)));
  }
  if (!whole.is_array()) throw InputError(path, "", fmt::format("expected a JSON array of AlpacaEval records, got {}", type_of(whole)));
  std::vector<JsonRecord> records;
  for (size_t i = 0; i < whole.size(); ++i) {
    const std::string where = fmt::format("element {}", i + 1);
    if (!whole[i].is_object()) throw InputError(path, where, fmt::format("expected a JSON object (an AlpacaEval record), got {}", type_of(whole[i])));
    records.push_back(JsonRecord{std::move(whole[i]), where, i + 1});
  }
  return records;
}

std::string field_where(const JsonRecord& record, std::string_view key) { return fmt::format("{} field '{}'", record.where, key); }

std::string required_string(const std::string& path, const JsonRecord& record, const char* key) {
  const auto it = record.value.find(key);
  if (it == record.value.end()) throw InputError(path, field_where(record, key), "missing; expected a non-empty string");
  if (!it->is_string()) throw InputError(path, field_where(record, key), fmt::format("expected a non-empty string, got {}", type_of(*it)));
  std::string s = it->get<std::string>();
  if (is_blank(s)) throw InputError(path, field_where(record, key), "expected a non-empty string, got an empty one");
  return s;
}

// Ids are integers in MT-Bench and strings in some Spec-Bench records; both become strings.
std::string id_string(const std::string& path, const JsonRecord& record, const char* key, const json& id) {
  if (id.is_number_integer()) return id.dump();
  if (id.is_string() && !is_blank(id.get<std::string>())) return id.get<std::string>();
  throw InputError(path, field_where(record, key),
                   fmt::format("expected an integer or a non-empty string, got {}", id.is_string() ? "an empty string" : type_of(id)));
}

std::string required_id(const std::string& path, const JsonRecord& record, const char* key) {
  const auto it = record.value.find(key);
  if (it == record.value.end()) throw InputError(path, field_where(record, key), "missing; expected an integer or a non-empty string");
  return id_string(path, record, key, *it);
}

// `non_empty_items` is for user turns; reference answers may be empty strings.
std::vector<std::string> string_array(const std::string& path, const JsonRecord& record, const char* key, const json& value, bool non_empty_items) {
  const char* expected = non_empty_items ? "expected a non-empty array of non-empty strings" : "expected an array of strings";
  if (!value.is_array()) throw InputError(path, field_where(record, key), fmt::format("{}, got {}", expected, type_of(value)));
  if (non_empty_items && value.empty()) throw InputError(path, field_where(record, key), fmt::format("{}, got an empty array", expected));
  std::vector<std::string> out;
  for (size_t i = 0; i < value.size(); ++i) {
    const json& item = value[i];
    const std::string where = fmt::format("{} element {}", field_where(record, key), i + 1);
    if (!item.is_string()) throw InputError(path, where, fmt::format("expected a string, got {}", type_of(item)));
    if (non_empty_items && is_blank(item.get<std::string>())) throw InputError(path, where, "expected a non-empty string, got an empty one");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// Reference answers as MT-Bench and Spec-Bench write them: one string; a list of strings
// (one per turn); or, in Spec-Bench's rag rows, a list of lists (the acceptable answers of
// each turn), where each inner list becomes one entry, its answers joined by newlines.
std::vector<std::string> reference_answers(const std::string& path, const JsonRecord& record, const json& value) {
  if (value.is_string()) return {value.get<std::string>()};
  const char* expected = "expected a string, an array of strings or an array of arrays of strings";
  if (!value.is_array()) throw InputError(path, field_where(record, "reference"), fmt::format("{}, got {}", expected, type_of(value)));
  std::vector<std::string> out;
  for (size_t i = 0; i < value.size(); ++i) {
    const json& item = value[i];
    const std::string where = fmt::format("{} element {}", field_where(record, "reference"), i + 1);
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
      continue;
    }
    if (!item.is_array()) throw InputError(path, where, fmt::format("expected a string or an array of strings, got {}", type_of(item)));
    std::string joined;
    for (size_t k = 0; k < item.size(); ++k) {
      if (!item[k].is_string()) throw InputError(path, fmt::format("{} element {}", where, k + 1), fmt::format("expected a string, got {}", type_of(item[k])));
      if (k) joined += '\n';
      joined += item[k].get_ref<const std::string&>();
    }
    out.push_back(std::move(joined));
  }
  return out;
}

PromptItem mt_bench_item(const std::string& path, const JsonRecord& record) {
  PromptItem item;
  item.id = required_id(path, record, "question_id");
  item.category = required_string(path, record, "category");
  const auto turns = record.value.find("turns");
  if (turns == record.value.end()) throw InputError(path, field_where(record, "turns"), "missing; expected a non-empty array of non-empty strings");
  item.turns = string_array(path, record, "turns", *turns, true);
  // MT-Bench gives reference answers for maths, reasoning and coding only; null means none.
  if (const auto ref = record.value.find("reference"); ref != record.value.end() && !ref->is_null()) item.reference = reference_answers(path, record, *ref);
  return item;
}

PromptItem alpaca_item(const std::string& path, const JsonRecord& record) {
  PromptItem item;
  const auto id = record.value.find("id");
  item.id = id == record.value.end() ? std::to_string(record.position) : id_string(path, record, "id", *id);
  item.turns.push_back(required_string(path, record, "instruction"));
  item.category = required_string(path, record, "dataset");
  return item;
}

// Only "prompt" is required: {"prompt": ...} lines are the simplest prompt file a user (or
// scripts/measure_speculative.py) writes. The corpus's other fields are checked when present.
PromptItem corpus_item(const std::string& path, const JsonRecord& record) {
  PromptItem item;
  item.id = record.value.contains("id") ? required_id(path, record, "id") : std::to_string(record.position);
  if (record.value.contains("split")) {
    item.split = required_string(path, record, "split");
    if (item.split != "train" && item.split != "heldout")
      throw InputError(path, field_where(record, "split"), fmt::format("expected \"train\" or \"heldout\", got \"{}\"", item.split));
  }
  if (record.value.contains("style")) required_string(path, record, "style");
  if (record.value.contains("category")) item.category = required_string(path, record, "category");
  item.turns.push_back(required_string(path, record, "prompt"));
  return item;
}

// One prompt per non-blank line. Each is text the tokenizer must take, so a line that is not
// valid UTF-8 is refused here, at load time and by its line, not mid-sweep by the tokenizer.
std::vector<PromptItem> plain_items(const std::string& path, const std::string& text) {
  std::vector<PromptItem> items;
  const std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) continue;
    if (const size_t bad = first_invalid_utf8(lines[i]); bad != std::string::npos)
      throw InputError(path, fmt::format("line {}", i + 1), fmt::format("invalid UTF-8 at byte {} of the line (expected UTF-8 text)", bad + 1));
    items.push_back(PromptItem{std::to_string(i + 1), "", {lines[i]}, {}, ""});
  }
  return items;
}

// The format of a JSON Lines file, from the keys of its first record.
PromptFormat format_of_record(const std::string& path, const JsonRecord& first) {
  if (first.value.contains("turns")) return PromptFormat::mt_bench;
  if (first.value.contains("prompt")) return PromptFormat::corpus;
  if (first.value.contains("instruction")) return PromptFormat::alpaca;
  throw InputError(path, first.where,
                   "cannot tell the prompt format: expected a \"turns\" (MT-Bench), \"prompt\" (draftbench corpus) or "
                   "\"instruction\" (AlpacaEval) field");
}

const char* record_name(PromptFormat format) {
  switch (format) {
    case PromptFormat::mt_bench: return "MT-Bench question object";
    case PromptFormat::alpaca: return "AlpacaEval record object";
    case PromptFormat::corpus: return "draftbench corpus record object";
    default: return "JSON object";
  }
}

// Ids are how results are joined back to prompts, so two prompts may not share one.
void require_unique_ids(const std::string& path, const std::vector<PromptItem>& items, const std::vector<JsonRecord>& records, const char* id_key) {
  std::map<std::string, size_t> first_index;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto [it, fresh] = first_index.emplace(items[i].id, i);
    if (!fresh)
      throw InputError(path, field_where(records[i], id_key), fmt::format("duplicate id \"{}\" (first used at {})", items[i].id, records[it->second].where));
  }
}

}  // namespace

PromptFormat parse_prompt_format(const std::string& name, const std::string& where) {
  for (PromptFormat f : {PromptFormat::detect, PromptFormat::mt_bench, PromptFormat::alpaca, PromptFormat::corpus, PromptFormat::plain})
    if (name == prompt_format_name(f)) return f;
  throw InputError(where, "", fmt::format("unknown prompt format \"{}\" (expected detect, mt_bench, alpaca, corpus or plain)", name));
}

const char* prompt_format_name(PromptFormat format) {
  switch (format) {
    case PromptFormat::detect: return "detect";
    case PromptFormat::mt_bench: return "mt_bench";
    case PromptFormat::alpaca: return "alpaca";
    case PromptFormat::corpus: return "corpus";
    case PromptFormat::plain: return "plain";
  }
  DB_CHECK(false);
  return "";
}

std::vector<PromptItem> load_prompt_set(const std::string& path, PromptFormat format) {
  const std::string text = read_whole_file(path);
  const size_t first_char = text.find_first_not_of(" \t\r\n\f\v");
  if (first_char == std::string::npos) throw InputError(path, "", "holds no prompts (the file is empty)");
  const bool json_array = text[first_char] == '[';

  std::vector<JsonRecord> records;
  if (format == PromptFormat::detect) {
    if (json_array) {
      format = PromptFormat::alpaca;
    } else if (text[first_char] == '{') {
      records = parse_json_lines(path, text, "JSON object");
      format = format_of_record(path, records.front());
    } else {
      format = PromptFormat::plain;
    }
  }

  std::vector<PromptItem> items;
  if (format == PromptFormat::plain) {
    items = plain_items(path, text);
  } else {
    if (records.empty())
      records = (format == PromptFormat::alpaca && json_array) ? parse_json_array(path, text) : parse_json_lines(path, text, record_name(format));
    items.reserve(records.size());
    for (const JsonRecord& r : records) {
      if (format == PromptFormat::mt_bench) items.push_back(mt_bench_item(path, r));
      else if (format == PromptFormat::alpaca) items.push_back(alpaca_item(path, r));
      else items.push_back(corpus_item(path, r));
    }
    require_unique_ids(path, items, records, format == PromptFormat::mt_bench ? "question_id" : "id");
  }
  if (items.empty()) throw InputError(path, "", "holds no prompts");
  return items;
}

}  // namespace draftbench
