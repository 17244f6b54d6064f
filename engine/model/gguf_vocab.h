// The tokenizer facts a GGUF file carries (tokenizer.ggml.*), as a VocabSpec.
#pragma once

#include "engine/tokenizer/tokenizer.h"

namespace draftbench {

class GgufFile;

VocabSpec vocab_spec_from_gguf(const GgufFile& file);

}  // namespace draftbench
