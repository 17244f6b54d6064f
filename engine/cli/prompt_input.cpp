#include "engine/cli/prompt_input.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/tokenizer/chat_template.h"

namespace draftbench::cli {

std::vector<int32_t> prompt_tokens(const Model& model, const std::string& text, const std::string& ids, bool chat) {
  std::vector<int32_t> out;
  if (!ids.empty()) {
    const char* p = ids.data();
    const char* end = ids.data() + ids.size();
    while (p < end) {
      int32_t v = 0;
      auto [next, ec] = std::from_chars(p, end, v);
      if (ec != std::errc() || v < 0 || v >= model.config().n_vocab)
        throw InputError("--prompt-ids", "", "expected comma-separated token ids in [0, " + std::to_string(model.config().n_vocab) + ")");
      out.push_back(v);
      p = next;
      if (p < end && *p == ',') ++p;
    }
    return out;
  }
  const Tokenizer& tok = model.tokenizer();
  if (chat) {
    const ChatMessage msg{"user", text};
    return encode_chat(tok, chat_template_for_architecture(model.config().arch_name), std::span(&msg, 1), true);
  }
  return tok.encode(text, true, false);
}

std::vector<PromptEntry> read_prompts_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open the prompts file");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  bool jsonl = false;
  for (const std::string& l : lines) {
    const auto first = l.find_first_not_of(" \t");
    if (first != std::string::npos) {
      jsonl = l[first] == '{';
      break;
    }
  }
  std::vector<PromptEntry> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = fmt::format("line {}", i + 1);
    if (!jsonl) {
      out.push_back(PromptEntry{std::to_string(i + 1), "", l});
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(l);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(path, where, fmt::format("not valid JSON (parse error at byte {}; expected one MT-Bench question object per line)", e.byte));
    }
    if (!j.is_object()) throw InputError(path, where, "not a JSON object (expected an MT-Bench question)");
    PromptEntry e;
    const auto turns = j.find("turns");
    const auto prompt = j.find("prompt");
    if (turns != j.end() || prompt == j.end()) {
      if (turns == j.end() || !turns->is_array() || turns->empty() || !(*turns)[0].is_string())
        throw InputError(path, where + " field 'turns'", "missing or not a non-empty array of strings (or give \"prompt\": a string)");
      e.text = (*turns)[0].get<std::string>();
    } else {
      if (!prompt->is_string() || prompt->get<std::string>().empty()) throw InputError(path, where + " field 'prompt'", "expected a non-empty string");
      e.text = prompt->get<std::string>();
    }
    auto qid = j.find("question_id");
    if (qid == j.end()) qid = j.find("id");
    e.id = qid == j.end() ? std::to_string(i + 1) : (qid->is_string() ? qid->get<std::string>() : qid->dump());
    if (const auto cat = j.find("category"); cat != j.end() && cat->is_string()) e.category = cat->get<std::string>();
    out.push_back(std::move(e));
  }
  if (out.empty()) throw InputError(path, "", "holds no prompts");
  return out;
}

}  // namespace draftbench::cli
