#include "app/prompt_input.h"

#include <fmt/format.h>

#include <charconv>

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
    return encode_chat(tok, model.chat_template(), std::span(&msg, 1), true);
  }
  return tok.encode(text, tok.add_bos_by_default(), false);
}

}  // namespace draftbench::cli
