// Pre-tokenizers of byte-level BPE vocabularies: the regular expressions that cut text
// into words before BPE merges inside each word (no merge ever crosses a word boundary).
//
// The expressions are chosen by name through a table (kinds below), as llama.cpp
// chooses them by a GGUF file's `tokenizer.ggml.pre`; a tokenizer.json is matched to a
// table entry by its Split pattern. They are run with PCRE2 (UTF + UCP, JIT where the
// library has it) because they need what std::regex cannot give: Unicode property
// classes (\p{L} letters, \p{N} numbers) matched per code point rather than per byte,
// and a negative lookahead `\s+(?!\S)` evaluated over code points rather than bytes.
// `\s` is spelt out as the Unicode White_Space set, the definition llama.cpp and Hugging
// Face's tokenizers use: PCRE2's own `\s` also matches U+180E (Mongolian vowel
// separator), which is no longer White_Space.
//
// Thread safety: a PreTokenizer is immutable after construction; split() may be called
// from many threads at once (each call makes its own match data).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace draftbench {

struct PreTokenizerKind {
  std::string_view name;       // canonical name
  bool ignore_merges = false;  // a word that is a whole vocabulary entry is not merged
};

class PreTokenizer {
 public:
  // `name`: a GGUF `tokenizer.ggml.pre` value. Throws InputError naming `source`, the
  // field and the accepted names when it is not in the table.
  static PreTokenizer from_name(std::string_view name, std::string_view source, std::string_view field);
  // A tokenizer.json Split pattern (the Hugging Face spelling). Throws InputError naming
  // `source` and the field when the pattern is not one of the table's.
  static PreTokenizer from_hf_pattern(std::string_view pattern, std::string_view source, std::string_view field);
  // Every accepted `tokenizer.ggml.pre` name, comma-separated (for messages and docs).
  static std::string known_names();

  // The words of `text` (valid UTF-8), as views into it, in order, covering every byte.
  std::vector<std::string_view> split(std::string_view text) const;

  std::string_view name() const;
  bool ignore_merges() const;

  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&);
  PreTokenizer& operator=(const PreTokenizer&);
  PreTokenizer(PreTokenizer&&) noexcept;
  PreTokenizer& operator=(PreTokenizer&&) noexcept;

 private:
  struct Impl;
  explicit PreTokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace draftbench
