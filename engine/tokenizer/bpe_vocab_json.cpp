// Tokenizer::from_tokenizer_json: a Hugging Face tokenizer.json with a byte-level BPE
// model, read into a BpeVocabSpec.
//
// Accepted: model.type "BPE" without dropout, subword prefixes/suffixes or byte
// fallback; merges as "a b" strings or [a, b] pairs; a pre-tokenizer that is either
// ByteLevel(use_regex) (GPT-2) or Sequence[Split(regex, Isolated), ByteLevel(no regex)]
// with a Split pattern from the pre-tokenizer table (pretokenizer.h). added_tokens are
// CONTROL when `special`, else USER_DEFINED. A normalizer of type NFC is ignored, as
// llama.cpp ignores it for the same vocabularies, so a tokenizer.json and the GGUF made
// from it give the same ids; any other normalizer is refused. BOS/EOS come from a
// tokenizer_config.json beside the file, when there is one.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"

namespace draftbench {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw InputError(path, "", "cannot open");
  try {
    return json::parse(file);
  } catch (const json::exception& e) {
    throw InputError(path, "", std::string("not valid JSON: ") + e.what());
  }
}

const json& member(const json& object, const char* key, const std::string& path, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) throw InputError(path, where.empty() ? key : where + "." + key, "missing");
  return object.at(key);
}

bool is_unset(const json& object, const char* key) {
  return !object.contains(key) || object.at(key).is_null() || (object.at(key).is_string() && object.at(key).get<std::string>().empty());
}

// The pre-tokenizer: fills spec.pre (GPT-2's ByteLevel regex) or spec.hf_split_pattern.
void read_pre_tokenizer(const json& root, const std::string& path, BpeVocabSpec& spec) {
  const json& pre = member(root, "pre_tokenizer", path, "");
  const auto byte_level = [&](const json& step, bool want_regex, const std::string& where) {
    if (step.value("type", "") != "ByteLevel") return false;
    if (step.value("add_prefix_space", false)) throw InputError(path, where + ".add_prefix_space", "true is not supported (expected false)");
    if (step.value("use_regex", true) != want_regex) throw InputError(path, where + ".use_regex", fmt::format("expected {}", want_regex));
    return true;
  };
  if (byte_level(pre, true, "pre_tokenizer")) {
    spec.pre = "gpt-2";
    return;
  }
  const char* expected = "expected ByteLevel, or Sequence[Split(Regex, Isolated), ByteLevel]";
  if (pre.value("type", "") != "Sequence") throw InputError(path, "pre_tokenizer.type", expected);
  const json& steps = member(pre, "pretokenizers", path, "pre_tokenizer");
  if (!steps.is_array() || steps.size() != 2 || steps[0].value("type", "") != "Split" || !byte_level(steps[1], false, "pre_tokenizer.pretokenizers[1]"))
    throw InputError(path, "pre_tokenizer.pretokenizers", expected);
  const json& split = steps[0];
  if (split.value("behavior", "") != "Isolated" || split.value("invert", false))
    throw InputError(path, "pre_tokenizer.pretokenizers[0]", "expected behavior Isolated and invert false");
  const json& pattern = member(split, "pattern", path, "pre_tokenizer.pretokenizers[0]");
  if (!pattern.contains("Regex") || !pattern["Regex"].is_string())
    throw InputError(path, "pre_tokenizer.pretokenizers[0].pattern", "expected {\"Regex\": ...}");
  spec.hf_split_pattern = pattern["Regex"].get<std::string>();
}

void read_model(const json& root, const std::string& path, BpeVocabSpec& spec, std::vector<bool>& filled) {
  const json& model = member(root, "model", path, "");
  if (model.value("type", "") != "BPE") throw InputError(path, "model.type", "expected BPE");
  if (!is_unset(model, "dropout")) throw InputError(path, "model.dropout", "BPE dropout is not supported (expected null)");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (!is_unset(model, key)) throw InputError(path, std::string("model.") + key, "not supported (expected null)");
  if (model.value("byte_fallback", false)) throw InputError(path, "model.byte_fallback", "not supported (expected false)");
  if (model.contains("ignore_merges")) spec.ignore_merges = model["ignore_merges"].get<bool>();

  const json& vocab = member(model, "vocab", path, "model");
  if (!vocab.is_object()) throw InputError(path, "model.vocab", "expected an object of token -> id");
  for (const auto& [text, id_json] : vocab.items()) {
    const int64_t id = id_json.get<int64_t>();
    if (id < 0 || id > 10'000'000) throw InputError(path, "model.vocab", fmt::format("token '{}' has id {}", text, id));
    if (static_cast<size_t>(id) >= spec.pieces.size()) {
      spec.pieces.resize(id + 1);
      filled.resize(id + 1, false);
    }
    if (filled[id]) throw InputError(path, "model.vocab", fmt::format("id {} is given to two tokens", id));
    spec.pieces[id] = text;
    filled[id] = true;
  }
  const json& merges = member(model, "merges", path, "model");
  for (size_t i = 0; i < merges.size(); ++i) {
    const json& merge = merges[i];
    if (merge.is_string()) {
      spec.merges.push_back(parse_merge_line(merge.get<std::string>(), i, path, "model.merges"));
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
      spec.merges.emplace_back(merge[0].get<std::string>(), merge[1].get<std::string>());
    } else {
      throw InputError(path, "model.merges", fmt::format("merge {} is neither \"a b\" nor [\"a\", \"b\"]", i));
    }
  }
}

void read_added_tokens(const json& root, const std::string& path, BpeVocabSpec& spec, std::vector<bool>& filled) {
  if (!root.contains("added_tokens")) return;
  for (const json& token : root["added_tokens"]) {
    const int64_t id = member(token, "id", path, "added_tokens[]").get<int64_t>();
    const std::string content = member(token, "content", path, "added_tokens[]").get<std::string>();
    if (id < 0 || id > 10'000'000) throw InputError(path, "added_tokens", fmt::format("token '{}' has id {}", content, id));
    if (static_cast<size_t>(id) >= spec.pieces.size()) {
      spec.pieces.resize(id + 1);
      filled.resize(id + 1, false);
    }
    if (filled[id] && spec.pieces[id] != content)
      throw InputError(path, "added_tokens", fmt::format("token '{}' has id {}, which model.vocab gives to '{}'", content, id, spec.pieces[id]));
    spec.pieces[id] = content;
    filled[id] = true;
    spec.types.resize(spec.pieces.size(), 1);
    spec.types[id] = token.value("special", false) ? 3 : 4;  // CONTROL : USER_DEFINED
  }
}

// bos/eos/pad/unk and add_bos from tokenizer_config.json beside `path`, when present.
void read_config(const std::string& path, BpeVocabSpec& spec) {
  const auto config_path = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
  if (!std::filesystem::exists(config_path)) return;
  const json config = read_json(config_path.string());
  const auto id_of = [&](const char* key) -> int32_t {
    if (!config.contains(key) || config[key].is_null()) return -1;
    const json& value = config[key];
    const std::string text = value.is_object() ? value.value("content", "") : value.get<std::string>();
    const auto it = std::find(spec.pieces.rbegin(), spec.pieces.rend(), text);  // the last id, as in lookups
    const int32_t id = it == spec.pieces.rend() ? -1 : static_cast<int32_t>(spec.pieces.rend() - it - 1);
    if (id < 0) throw InputError(config_path.string(), key, fmt::format("'{}' is not in the vocabulary of {}", text, path));
    return id;
  };
  spec.bos_id = id_of("bos_token");
  spec.eos_id = id_of("eos_token");
  spec.pad_id = id_of("pad_token");
  spec.unk_id = id_of("unk_token");
  spec.add_bos = config.value("add_bos_token", false) && spec.bos_id >= 0;
  spec.add_eos = config.value("add_eos_token", false) && spec.eos_id >= 0;
}

}  // namespace

Tokenizer Tokenizer::from_tokenizer_json(const std::string& path) {
  const json root = read_json(path);
  BpeVocabSpec spec;
  std::vector<bool> filled;
  read_model(root, path, spec, filled);
  read_added_tokens(root, path, spec, filled);
  spec.types.resize(spec.pieces.size(), 1);
  for (size_t id = 0; id < filled.size(); ++id)
    if (!filled[id]) throw InputError(path, "model.vocab", fmt::format("no token has id {} (ids must be 0..{} without gaps)", id, filled.size() - 1));
  if (root.contains("normalizer") && !root["normalizer"].is_null() && root["normalizer"].value("type", "") != "NFC")
    throw InputError(path, "normalizer", fmt::format("type '{}' is not supported (expected null or NFC)", root["normalizer"].value("type", "")));
  if (root.contains("decoder") && !root["decoder"].is_null() && root["decoder"].value("type", "") != "ByteLevel")
    throw InputError(path, "decoder.type", "expected ByteLevel");
  read_pre_tokenizer(root, path, spec);
  read_config(path, spec);
  return from_bpe_vocab(spec, path);
}

}  // namespace draftbench
