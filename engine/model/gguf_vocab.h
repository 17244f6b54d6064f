// The tokenizer facts a GGUF file carries (tokenizer.ggml.*): a VocabSpec for
// SentencePiece vocabularies (model "llama"), a BpeVocabSpec for byte-level BPE ones
// (model "gpt2"), and the Tokenizer built from whichever the file has.
#pragma once

#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"

namespace draftbench {

class GgufFile;

// Throws InputError naming the file and key unless tokenizer.ggml.model is "llama".
VocabSpec vocab_spec_from_gguf(const GgufFile& file);
// Throws InputError naming the file and key unless tokenizer.ggml.model is "gpt2", or
// when tokens, types and merges are missing, disagree in length or a merge is malformed.
BpeVocabSpec bpe_vocab_spec_from_gguf(const GgufFile& file);
// The file's tokenizer, "llama" or "gpt2"; any other model is an InputError naming both.
Tokenizer tokenizer_from_gguf(const GgufFile& file);

}  // namespace draftbench
