// Text <-> token ids for two kinds of vocabulary, chosen when the Tokenizer is built:
//  - SentencePiece-style ("llama"/SPM; Gemma 3, Llama/Vicuna): from_vocab, from_model_file;
//  - byte-level BPE ("gpt2"; Qwen 2/2.5, Llama 3): from_bpe_vocab, from_tokenizer_json,
//    implemented in bpe_tokenizer.h (step 2 below is byte-level BPE there).
//
// The ids must equal llama.cpp's for the same GGUF file, because draftbench compares
// itself against llama.cpp on the same prompts. The pipeline
// (engine/tokenizer/README.md) is therefore llama.cpp's:
//   1. Special-token partition: CONTROL, USER_DEFINED and UNKNOWN tokens are searched for
//      literally in the text, longest first, and split out as whole tokens. USER_DEFINED
//      ones always; CONTROL and UNKNOWN ones only when `parse_special` is set.
//   2. Each remaining fragment is BPE-encoded by SentencePiece (score-ordered merges,
//      byte fallback), with a leading "▁" when the vocabulary asks for a space prefix.
// SentencePiece (Debian's libsentencepiece) does step 2 from a ModelProto we serialise
// ourselves (sentencepiece_model_proto.h). Every piece except the byte pieces is given to
// SentencePiece as NORMAL, because llama.cpp merges into any vocabulary text whatever its
// type; types only matter here for the partition and for decoding.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace draftbench {

struct BpeVocabSpec;  // engine/tokenizer/bpe_tokenizer.h

// What a GGUF file provides under tokenizer.ggml.* (model "llama").
struct VocabSpec {
  std::vector<std::string> pieces;
  std::vector<float> scores;
  // GGUF token types: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
  std::vector<int32_t> types;
  bool add_space_prefix = false;
  bool add_bos = true;
  bool add_eos = false;
  int32_t bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;
  int32_t eot_id = -1;  // end of turn (GGUF tokenizer.ggml.eot_token_id): a stop token like EOS
};

class Tokenizer {
 public:
  // GGUF path. Throws InputError (a std::runtime_error) naming `source` (the file, for
  // the message) and the problem when the vocabulary is unusable: mismatched array
  // lengths, ids out of range, a missing or malformed <0xXX> byte token, or
  // SentencePiece refusing the model.
  static Tokenizer from_vocab(const VocabSpec& spec, std::string_view source = "tokenizer vocabulary");
  // An HF directory's tokenizer.model (a serialised SentencePiece BPE ModelProto). The
  // pieces, scores, types, special ids and add_dummy_prefix are read from it and go
  // through from_vocab, so the same model tokenizes identically from either file.
  // Normalisation rules in the model (precompiled_charsmap) are ignored, as llama.cpp's
  // converter ignores them.
  static Tokenizer from_model_file(const std::string& path);
  // A byte-level BPE vocabulary (GGUF "gpt2", or a tokenizer.json). Throws InputError
  // naming `source` for an unusable one (bpe_tokenizer.h lists the checks).
  static Tokenizer from_bpe_vocab(const BpeVocabSpec& spec, std::string_view source = "tokenizer vocabulary");
  // A Hugging Face tokenizer.json with a byte-level BPE model (bpe_tokenizer.h).
  static Tokenizer from_tokenizer_json(const std::string& path);

  // `add_bos`: prepend BOS, unless the text itself already starts with BOS (a chat
  // template that writes "<bos>" and parse_special=true), so BOS is never doubled.
  // Throws InputError if the text is not valid UTF-8 (for either kind of vocabulary:
  // engine/tokenizer/README.md says why), or if add_bos is set and the
  // vocabulary has no BOS. The vocabulary's own add_bos/add_eos flags are not applied
  // here; they are reported by add_bos_by_default()/add_eos_by_default().
  std::vector<int32_t> encode(std::string_view text, bool add_bos, bool parse_special) const;

  // Concatenated bytes of the tokens (see token_to_piece), as llama.cpp's detokenize
  // (remove_special=false). When the vocabulary adds a space prefix, one leading space of
  // the first token is dropped, undoing the space encode() added; after a leading BOS
  // nothing is dropped, as in llama.cpp. The result may end in an incomplete UTF-8
  // sequence if the ids do (use TextStreamer for streaming).
  std::string decode(std::span<const int32_t> ids, bool render_special = false) const;

  // The bytes of one token, as llama.cpp renders it: NORMAL text with "▁" as a space
  // (SentencePiece) or mapped back through the byte-to-unicode table (byte-level BPE);
  // USER_DEFINED text as-is; BYTE tokens the raw byte (so multi-byte characters can be
  // split across tokens, as they can between byte-level BPE tokens: use TextStreamer);
  // CONTROL and UNKNOWN tokens empty unless `render_special`; UNUSED tokens empty.
  // Throws std::out_of_range for a bad id.
  std::string token_to_piece(int32_t id, bool render_special = false) const;

  int32_t find_token(std::string_view piece) const;  // -1 if absent
  std::string_view piece_text(int32_t id) const;     // the raw vocabulary text
  int32_t vocab_size() const;
  // "SentencePiece" or "byte-level BPE": which of the two kinds of vocabulary this is.
  std::string_view kind() const;
  int32_t bos_id() const;
  int32_t eos_id() const;
  bool add_bos_by_default() const;
  bool add_eos_by_default() const;
  // Tokens that end generation: EOS, the vocabulary's EOT, and the tokens whose text is
  // on llama.cpp's end-of-generation list ("<end_of_turn>", "</s>", "<|eot_id|>", "<|im_end|>", ...),
  // never hard-coded ids. Those tokens are also treated as CONTROL, as llama.cpp does.
  // For Gemma 3 this gives {<eos>, </s>, <end_of_turn>}: llama.cpp stops on the HTML
  // tag "</s>" too. Sorted, without duplicates.
  std::vector<int32_t> stop_ids() const;
  bool is_stop(int32_t id) const;

  ~Tokenizer();
  Tokenizer(const Tokenizer&);
  Tokenizer& operator=(const Tokenizer&);
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

 private:
  struct Impl;
  explicit Tokenizer(std::shared_ptr<const Impl> impl);
  // Immutable once built, so copies share it and encode/decode are safe from many threads.
  std::shared_ptr<const Impl> impl_;
};

// Turns a stream of generated ids into text that is always valid UTF-8: bytes of a
// character split across byte-fallback tokens are held back until the character is
// complete. Invalid bytes come out as U+FFFD, one per byte; a sequence still unfinished
// at finish() as one U+FFFD.
class TextStreamer {
 public:
  explicit TextStreamer(Tokenizer tokenizer, bool render_special = false);
  // The text that became complete with this token (possibly empty).
  std::string push(int32_t id);
  // End of stream: whatever is still held back, an incomplete tail as U+FFFD.
  std::string finish();

 private:
  Tokenizer tokenizer_;
  bool render_special_;
  std::string pending_;  // bytes of an incomplete UTF-8 sequence, at most 3
};

}  // namespace draftbench
