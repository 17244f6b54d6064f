#include "engine/tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <stdexcept>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// Unicode White_Space, in PCRE2 class syntax (without the brackets). PCRE2's `\s` would
// add U+180E.
constexpr std::string_view kSpace = "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

// The English contractions, case-insensitive per ASCII letter as llama.cpp spells them
// (not PCRE2's (?i), which would also fold e.g. U+017F "long s" onto "s").
constexpr std::string_view kContractions = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";

struct TableEntry {
  std::array<std::string_view, 3> names;  // first is canonical; unused slots empty
  std::string_view hf_pattern;            // the tokenizer.json Split pattern it corresponds to
  bool ignore_merges;
  int number_run;  // \p{N}{1,number_run}; 0 for GPT-2's \p{N}+ form
};

// The table of pre-tokenizers, with the names llama.cpp gives them in GGUF files.
constexpr std::array<TableEntry, 3> kTable = {{
    {{"qwen2", "deepseek-r1-qwen", ""},
     "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
     false,
     1},
    {{"llama-bpe", "llama3", "llama-v3"},
     "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
     true,
     3},
    {{"gpt-2", "", ""}, "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+", false, 0},
}};

// The PCRE2 expression of a table entry, `\s` spelt out as kSpace.
std::string pcre_pattern(const TableEntry& entry) {
  const std::string space(kSpace);
  const std::string not_space_letter_number = "[^" + space + "\\p{L}\\p{N}]";
  const std::string space_tail = "|[" + space + "]+(?![^" + space + "])|[" + space + "]+";
  if (entry.number_run == 0) {  // GPT-2
    return "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?" + not_space_letter_number + "+" + space_tail;
  }
  const std::string numbers = entry.number_run == 1 ? "\\p{N}" : "\\p{N}{1," + std::to_string(entry.number_run) + "}";
  return std::string(kContractions) + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|" + numbers + "| ?" + not_space_letter_number + "+[\\r\\n]*|[" + space + "]*[\\r\\n]+" +
         space_tail;
}

struct CodeDeleter {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};
struct JitStackDeleter {
  void operator()(pcre2_jit_stack* stack) const { pcre2_jit_stack_free(stack); }
};
struct MatchContextDeleter {
  void operator()(pcre2_match_context* context) const { pcre2_match_context_free(context); }
};

std::string pcre2_message(int code) {
  std::array<PCRE2_UCHAR, 256> buffer{};
  pcre2_get_error_message(code, buffer.data(), buffer.size());
  return reinterpret_cast<const char*>(buffer.data());
}

}  // namespace

struct PreTokenizer::Impl {
  const TableEntry* entry = nullptr;
  std::unique_ptr<pcre2_code, CodeDeleter> code;
  bool jit = false;

  // Compiles a table entry. The expressions are ours, so failing to compile one is a
  // programmer error (or a PCRE2 built without Unicode support), reported with the reason.
  static std::shared_ptr<const Impl> compile(const TableEntry& entry);
};

PreTokenizer::PreTokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
PreTokenizer::~PreTokenizer() = default;
PreTokenizer::PreTokenizer(const PreTokenizer&) = default;
PreTokenizer& PreTokenizer::operator=(const PreTokenizer&) = default;
PreTokenizer::PreTokenizer(PreTokenizer&&) noexcept = default;
PreTokenizer& PreTokenizer::operator=(PreTokenizer&&) noexcept = default;

std::string PreTokenizer::known_names() {
  std::string names;
  for (const TableEntry& entry : kTable) {
    for (std::string_view name : entry.names) {
      if (name.empty()) continue;
      if (!names.empty()) names += ", ";
      names += name;
    }
  }
  return names;
}

PreTokenizer PreTokenizer::from_name(std::string_view name, std::string_view source, std::string_view field) {
  for (const TableEntry& entry : kTable) {
    for (std::string_view candidate : entry.names) {
      if (!candidate.empty() && candidate == name) return PreTokenizer(Impl::compile(entry));
    }
  }
  throw InputError(source, field, "pre-tokenizer '" + std::string(name) + "' is not supported (expected one of: " + known_names() + ")");
}

PreTokenizer PreTokenizer::from_hf_pattern(std::string_view pattern, std::string_view source, std::string_view field) {
  for (const TableEntry& entry : kTable) {
    if (entry.hf_pattern == pattern) return PreTokenizer(Impl::compile(entry));
  }
  throw InputError(source, field,
                   "split pattern '" + std::string(pattern) + "' is not a supported pre-tokenizer (expected the pattern of one of: " + known_names() + ")");
}

std::string_view PreTokenizer::name() const { return impl_->entry->names[0]; }
bool PreTokenizer::ignore_merges() const { return impl_->entry->ignore_merges; }

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
  std::vector<std::string_view> words;
  if (text.empty()) return words;
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(pcre2_match_data_create_from_pattern(impl_->code.get(), nullptr));
  if (!match) throw std::bad_alloc();
  // A JIT stack of up to 1 MiB: the default 32 KiB can run out on long whitespace runs.
  std::unique_ptr<pcre2_match_context, MatchContextDeleter> context(pcre2_match_context_create(nullptr));
  std::unique_ptr<pcre2_jit_stack, JitStackDeleter> stack;
  if (impl_->jit) {
    stack.reset(pcre2_jit_stack_create(32 * 1024, 1024 * 1024, nullptr));
    if (stack) pcre2_jit_stack_assign(context.get(), nullptr, stack.get());
  }
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t cursor = 0;  // end of the last word
  for (size_t start = 0; start < text.size();) {
    const int rc = pcre2_match(impl_->code.get(), subject, text.size(), start, PCRE2_NO_UTF_CHECK, match.get(), context.get());
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      throw std::runtime_error("tokenizer: pre-tokenizer '" + std::string(name()) + "' failed at byte " + std::to_string(start) + ": " + pcre2_message(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    const size_t begin = ovector[0], end = ovector[1];
    if (begin > cursor) words.push_back(text.substr(cursor, begin - cursor));  // text no alternative matched
    if (end > begin) {
      words.push_back(text.substr(begin, end - begin));
      cursor = start = end;
    } else {  // an empty match: step over one code point
      start = begin + 1;
      while (start < text.size() && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) ++start;
    }
  }
  if (cursor < text.size()) words.push_back(text.substr(cursor));
  return words;
}

std::shared_ptr<const PreTokenizer::Impl> PreTokenizer::Impl::compile(const TableEntry& entry) {
  auto impl = std::make_shared<Impl>();
  impl->entry = &entry;
  const std::string pattern = pcre_pattern(entry);
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  impl->code.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error, &error_offset, nullptr));
  if (!impl->code) {
    throw std::runtime_error("tokenizer: pre-tokenizer '" + std::string(entry.names[0]) + "' does not compile at offset " + std::to_string(error_offset) +
                             ": " + pcre2_message(error));
  }
  // JIT is an optimisation only: where PCRE2 was built without it, the interpreter runs.
  impl->jit = pcre2_jit_compile(impl->code.get(), PCRE2_JIT_COMPLETE) == 0;
  return impl;
}

}  // namespace draftbench
