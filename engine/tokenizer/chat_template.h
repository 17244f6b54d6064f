// Chat prompts as text, for the model families draftbench runs. The text is meant to
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
// chatml (llama.cpp's built-in ChatML):
//   <|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n
//   <|im_start|>assistant\n{assistant}<|im_end|>\n ... <|im_start|>assistant\n
//   No system turn unless one is given; content as given; no BOS.
// qwen2.5: chatml whose system turn, when none is given, is Qwen 2.5's default
//   ("You are Qwen, created by Alibaba Cloud. You are a helpful assistant."), as the
//   Qwen 2.5 models' own template writes it.
// llama3 (Llama 3 Instruct):
//   <|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>
//   <|start_header_id|>user<|end_header_id|>\n\n{user}<|eot_id|> ...
//   <|start_header_id|>assistant<|end_header_id|>\n\n
//   Content trimmed, as its template does; no default system turn.
//
// All throw InputError when the conversation does not fit the template: an unknown role,
// a system message anywhere but first, roles not alternating user/assistant starting with
// user, no user message, or a generation prompt requested after an assistant message.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace draftbench {

enum class ChatTemplate { gemma, vicuna_v1_1, chatml, qwen2_5, llama3 };

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// FastChat's default Vicuna v1.1 system prompt.
inline constexpr std::string_view kVicunaDefaultSystemPrompt =
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions.";

// `add_generation_prompt`: end with the opening of an assistant turn
// ("<start_of_turn>model\n", "ASSISTANT:", ...) so the model writes the reply next.
std::string render_chat(ChatTemplate chat_template, std::span<const ChatMessage> messages, bool add_generation_prompt);

class Tokenizer;
// The rendered conversation's token ids, special tokens parsed: with exactly the BOS the
// template asks for (one where the template writes its own, as Gemma's "<bos>", or relies on
// the tokenizer adding it, as Vicuna's; none for ChatML).
std::vector<int32_t> encode_chat(const Tokenizer& tokenizer, ChatTemplate chat_template, std::span<const ChatMessage> messages, bool add_generation_prompt);

// The template a model's file names: `file_template` is its tokenizer.chat_template (Jinja
// text), recognised by the markers each template writes. Without one, the architecture's
// ("gemma3", "gemma2", "gemma" -> gemma; "llama" -> vicuna_v1_1). `where` names the model
// file. Throws InputError for a template it does not know, or no template and another
// architecture, saying to pass --chat-template.
ChatTemplate chat_template_for_model(std::string_view architecture, const std::optional<std::string>& file_template, const std::string& where);

// By name ("gemma", "vicuna_v1.1", "chatml", "qwen2.5", "llama3"); throws InputError
// naming `where` and the names it knows.
ChatTemplate chat_template_from_name(std::string_view name, const std::string& where);
std::string_view chat_template_name(ChatTemplate chat_template);
std::string chat_template_names();  // "gemma, vicuna_v1.1, ..."

}  // namespace draftbench
