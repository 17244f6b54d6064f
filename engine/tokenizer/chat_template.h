// Chat prompts as text, for the two model families draftbench runs. The text is meant to
// be tokenized with parse_special=true so that "<start_of_turn>", "</s>" etc. become their
// special tokens.
//
// gemma (HF Gemma 3 tokenizer_config chat_template; engine/tokenizer/README.md):
//   <bos><start_of_turn>user\n{system}\n\n{user}<end_of_turn>\n
//   <start_of_turn>model\n{assistant}<end_of_turn>\n ... <start_of_turn>model\n
//   Gemma has no system role: the system text opens the first user turn. Every content,
//   the system text included, is trimmed (as llama.cpp's built-in template does; HF's
//   Jinja leaves the system text untrimmed). The "<bos>" is part of the text, so encode
//   with add_bos=false, or add_bos=true, which does not double it.
//
// vicuna_v1_1 (FastChat conversation.py "vicuna_v1.1", SeparatorStyle.ADD_COLON_TWO,
// sep " ", sep2 "</s>"):
//   {system} USER: {user} ASSISTANT: {assistant}</s>USER: {user} ASSISTANT:
//   The system text defaults to FastChat's. Content is used as given (FastChat does not
//   trim). There is no BOS in the text: encode with add_bos=true.
//
// Both throw InputError when the conversation does not fit the template: an unknown role,
// a system message anywhere but first, roles not alternating user/assistant starting with
// user, no user message, or a generation prompt requested after an assistant message.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace draftbench {

enum class ChatTemplate { gemma, vicuna_v1_1 };

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// FastChat's default Vicuna v1.1 system prompt.
inline constexpr std::string_view kVicunaDefaultSystemPrompt =
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions.";

// `add_generation_prompt`: end with the opening of an assistant turn
// ("<start_of_turn>model\n" / "ASSISTANT:") so the model writes the reply next.
std::string render_chat(ChatTemplate chat_template, std::span<const ChatMessage> messages,
                        bool add_generation_prompt);

class Tokenizer;
// The rendered conversation's token ids, special tokens parsed: with one BOS whether the
// template writes its own (Gemma's "<bos>") or relies on the tokenizer adding it (Vicuna's).
std::vector<int32_t> encode_chat(const Tokenizer& tokenizer, ChatTemplate chat_template, std::span<const ChatMessage> messages,
                                 bool add_generation_prompt);

// "gemma3" (also "gemma", "gemma2") -> gemma; "llama" -> vicuna_v1_1. Throws InputError
// for any other architecture.
ChatTemplate chat_template_for_architecture(std::string_view architecture);

std::string_view chat_template_name(ChatTemplate chat_template);

}  // namespace draftbench
