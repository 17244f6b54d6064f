#include "engine/tokenizer/chat_template.h"

#include <vector>

#include "engine/common/error.h"
#include "engine/tokenizer/tokenizer.h"

namespace draftbench {
namespace {

// ASCII whitespace, as llama.cpp's chat-template trim (isspace) treats it.
std::string_view trim(std::string_view text) {
  constexpr std::string_view kWhitespace = " \t\n\r\v\f";
  const size_t begin = text.find_first_not_of(kWhitespace);
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(kWhitespace);
  return text.substr(begin, end - begin + 1);
}

// The roles both templates share: an optional leading system message, then turns that
// alternate user/assistant starting with user.
struct Conversation {
  const ChatMessage* system = nullptr;
  std::vector<const ChatMessage*> turns;  // even index: user, odd: assistant
};

Conversation check_conversation(ChatTemplate chat_template, std::span<const ChatMessage> messages,
                                bool add_generation_prompt) {
  const std::string where = "chat template " + std::string(chat_template_name(chat_template));
  if (messages.empty()) throw InputError(where, "conversation", "has no messages");
  Conversation conversation;
  for (size_t index = 0; index < messages.size(); ++index) {
    const ChatMessage& message = messages[index];
    const std::string what = "message " + std::to_string(index) + " (role '" + message.role + "')";
    if (message.role == "system") {
      if (index != 0) throw InputError(where, what, "a system message may only come first");
      conversation.system = &message;
      continue;
    }
    if (message.role != "user" && message.role != "assistant") {
      throw InputError(where, what, "unknown role (expected system, user or assistant)");
    }
    const char* expected = conversation.turns.size() % 2 == 0 ? "user" : "assistant";
    if (message.role != expected) {
      throw InputError(where, what,
                       std::string("expected role '") + expected +
                           "': roles must alternate user/assistant, starting with user");
    }
    conversation.turns.push_back(&message);
  }
  if (conversation.turns.empty()) throw InputError(where, "conversation", "has no user message");
  if (add_generation_prompt && conversation.turns.size() % 2 == 0) {
    throw InputError(where, "conversation",
                     "ends with an assistant message, so a generation prompt would open a second assistant turn");
  }
  return conversation;
}

std::string render_gemma(const Conversation& conversation, bool add_generation_prompt) {
  std::string text = "<bos>";
  for (size_t turn = 0; turn < conversation.turns.size(); ++turn) {
    const bool is_user = turn % 2 == 0;
    text += is_user ? "<start_of_turn>user\n" : "<start_of_turn>model\n";
    if (turn == 0 && conversation.system != nullptr) {
      text += trim(conversation.system->content);
      text += "\n\n";
    }
    text += trim(conversation.turns[turn]->content);
    text += "<end_of_turn>\n";
  }
  if (add_generation_prompt) text += "<start_of_turn>model\n";
  return text;
}

std::string render_vicuna_v1_1(const Conversation& conversation, bool add_generation_prompt) {
  // FastChat ADD_COLON_TWO: system + sep, then "ROLE: content" + (sep after a user turn,
  // sep2 after an assistant turn); an open assistant turn is just "ASSISTANT:".
  constexpr std::string_view kSeparator = " ";
  constexpr std::string_view kAssistantEnd = "</s>";
  std::string text(conversation.system != nullptr ? std::string_view(conversation.system->content)
                                                  : kVicunaDefaultSystemPrompt);
  text += kSeparator;
  for (size_t turn = 0; turn < conversation.turns.size(); ++turn) {
    const bool is_user = turn % 2 == 0;
    text += is_user ? "USER: " : "ASSISTANT: ";
    text += conversation.turns[turn]->content;
    text += is_user ? kSeparator : kAssistantEnd;
  }
  if (add_generation_prompt) text += "ASSISTANT:";
  return text;
}

}  // namespace

std::string render_chat(ChatTemplate chat_template, std::span<const ChatMessage> messages,
                        bool add_generation_prompt) {
  const Conversation conversation = check_conversation(chat_template, messages, add_generation_prompt);
  switch (chat_template) {
    case ChatTemplate::gemma: return render_gemma(conversation, add_generation_prompt);
    case ChatTemplate::vicuna_v1_1: return render_vicuna_v1_1(conversation, add_generation_prompt);
  }
  DB_CHECK(false && "unhandled ChatTemplate");
  return {};
}

ChatTemplate chat_template_for_architecture(std::string_view architecture) {
  if (architecture == "gemma3" || architecture == "gemma2" || architecture == "gemma") return ChatTemplate::gemma;
  if (architecture == "llama") return ChatTemplate::vicuna_v1_1;
  throw InputError("chat template", "architecture '" + std::string(architecture) + "'",
                   "no chat template known (expected gemma3, gemma2, gemma or llama)");
}

std::string_view chat_template_name(ChatTemplate chat_template) {
  switch (chat_template) {
    case ChatTemplate::gemma: return "gemma";
    case ChatTemplate::vicuna_v1_1: return "vicuna_v1.1";
  }
  return "unknown";
}

std::vector<int32_t> encode_chat(const Tokenizer& tokenizer, ChatTemplate chat_template, std::span<const ChatMessage> messages,
                                 bool add_generation_prompt) {
  const std::string text = render_chat(chat_template, messages, add_generation_prompt);
  return tokenizer.encode(text, text.rfind("<bos>", 0) != 0, true);
}

}  // namespace draftbench
