#include "engine/tokenizer/chat_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "engine/common/error.h"
#include "engine/common/table_names.h"
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

Conversation check_conversation(ChatTemplate chat_template, std::span<const ChatMessage> messages, bool add_generation_prompt) {
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
      throw InputError(where, what, std::string("expected role '") + expected + "': roles must alternate user/assistant, starting with user");
    }
    conversation.turns.push_back(&message);
  }
  if (conversation.turns.empty()) throw InputError(where, "conversation", "has no user message");
  if (add_generation_prompt && conversation.turns.size() % 2 == 0) {
    throw InputError(where, "conversation", "ends with an assistant message, so a generation prompt would open a second assistant turn");
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
  std::string text(conversation.system != nullptr ? std::string_view(conversation.system->content) : kVicunaDefaultSystemPrompt);
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

std::string render_chatml(const Conversation& conversation, bool add_generation_prompt, std::string_view default_system) {
  std::string text;
  const auto turn = [&](std::string_view role, std::string_view content) {
    text += "<|im_start|>";
    text += role;
    text += "\n";
    text += content;
    text += "<|im_end|>\n";
  };
  if (conversation.system != nullptr) turn("system", conversation.system->content);
  else if (!default_system.empty()) turn("system", default_system);
  for (size_t t = 0; t < conversation.turns.size(); ++t) turn(t % 2 == 0 ? "user" : "assistant", conversation.turns[t]->content);
  if (add_generation_prompt) text += "<|im_start|>assistant\n";
  return text;
}

std::string render_llama3(const Conversation& conversation, bool add_generation_prompt) {
  std::string text = "<|begin_of_text|>";
  const auto header = [&](std::string_view role) {
    text += "<|start_header_id|>";
    text += role;
    text += "<|end_header_id|>\n\n";
  };
  const auto turn = [&](std::string_view role, std::string_view content) {
    header(role);
    text += trim(content);
    text += "<|eot_id|>";
  };
  if (conversation.system != nullptr) turn("system", conversation.system->content);
  for (size_t t = 0; t < conversation.turns.size(); ++t) turn(t % 2 == 0 ? "user" : "assistant", conversation.turns[t]->content);
  if (add_generation_prompt) header("assistant");
  return text;
}

constexpr std::string_view kQwenDefaultSystemPrompt = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

// Where a template's BOS comes from: its own text, the tokenizer, or nowhere.
enum class Bos { in_text, tokenizer_adds, none };

// One row per template. A file's Jinja text is recognised by all of `markers` appearing in
// it; the first matching row wins, so a more specific row comes before a general one.
struct TemplateRow {
  ChatTemplate id;
  std::string_view name;
  std::string_view markers[2];
  Bos bos;
  std::string (*render)(const Conversation&, bool add_generation_prompt);
};

constexpr TemplateRow kTemplates[] = {
    {ChatTemplate::gemma, "gemma", {"<start_of_turn>", ""}, Bos::in_text, render_gemma},
    {ChatTemplate::qwen2_5,
     "qwen2.5",
     {"<|im_start|>", kQwenDefaultSystemPrompt},
     Bos::none,
     [](const Conversation& c, bool g) { return render_chatml(c, g, kQwenDefaultSystemPrompt); }},
    {ChatTemplate::chatml, "chatml", {"<|im_start|>", ""}, Bos::none, [](const Conversation& c, bool g) { return render_chatml(c, g, {}); }},
    {ChatTemplate::llama3, "llama3", {"<|start_header_id|>", ""}, Bos::in_text, render_llama3},
    {ChatTemplate::vicuna_v1_1, "vicuna_v1.1", {"USER:", "ASSISTANT:"}, Bos::tokenizer_adds, render_vicuna_v1_1},
};

const TemplateRow& row_of(ChatTemplate id) {
  for (const TemplateRow& row : kTemplates)
    if (row.id == id) return row;
  DB_CHECK(false && "ChatTemplate without a row");
  return kTemplates[0];
}

}  // namespace

std::string render_chat(ChatTemplate chat_template, std::span<const ChatMessage> messages, bool add_generation_prompt) {
  return row_of(chat_template).render(check_conversation(chat_template, messages, add_generation_prompt), add_generation_prompt);
}

std::string_view chat_template_name(ChatTemplate chat_template) { return row_of(chat_template).name; }

std::string chat_template_names() { return table_names(kTemplates, &TemplateRow::name); }

ChatTemplate chat_template_from_name(std::string_view name, const std::string& where) {
  for (const TemplateRow& row : kTemplates)
    if (name == row.name) return row.id;
  throw InputError(where, "chat template '" + std::string(name) + "'", "unknown (expected one of " + chat_template_names() + ")");
}

ChatTemplate chat_template_for_model(std::string_view architecture, const std::optional<std::string>& file_template, const std::string& where) {
  if (file_template) {
    for (const TemplateRow& row : kTemplates)
      if (std::all_of(std::begin(row.markers), std::end(row.markers), [&](std::string_view m) { return file_template->find(m) != std::string::npos; }))
        return row.id;
    throw InputError(where, "key 'tokenizer.chat_template'",
                     "a template draftbench does not know (generate takes --chat-template, one of " + chat_template_names() + ")");
  }
  if (architecture == "gemma3" || architecture == "gemma2" || architecture == "gemma") return ChatTemplate::gemma;
  if (architecture == "llama") return ChatTemplate::vicuna_v1_1;
  throw InputError(
      where, "key 'tokenizer.chat_template'",
      "absent, and architecture '" + std::string(architecture) + "' has no default (generate takes --chat-template, one of " + chat_template_names() + ")");
}

std::vector<int32_t> encode_chat(const Tokenizer& tokenizer, ChatTemplate chat_template, std::span<const ChatMessage> messages, bool add_generation_prompt) {
  const std::string text = render_chat(chat_template, messages, add_generation_prompt);
  return tokenizer.encode(text, row_of(chat_template).bos == Bos::tokenizer_adds, true);
}

}  // namespace draftbench
