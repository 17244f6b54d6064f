#include "experiments/runner/conversations.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "engine/common/error.h"
#include "engine/tokenizer/chat_template.h"

namespace draftbench {

std::vector<PromptItem> select_prompts(const DatasetSpec& dataset, const std::string& spec_file) {
  std::vector<PromptItem> out;
  std::map<std::string, int> per_category;
  for (PromptItem& item : load_prompt_set(dataset.path, dataset.format)) {
    if (!dataset.categories.empty() && std::find(dataset.categories.begin(), dataset.categories.end(), item.category) == dataset.categories.end()) continue;
    if (!dataset.split.empty() && item.split != dataset.split) continue;
    if (dataset.limit_per_category > 0 && ++per_category[item.category] > dataset.limit_per_category) continue;
    if (static_cast<int>(item.turns.size()) < dataset.turns)
      throw InputError(spec_file, fmt::format("dataset '{}' turns", dataset.name),
                       fmt::format("{} turns asked for, but prompt '{}' of {} has {}", dataset.turns, item.id, dataset.path, item.turns.size()));
    out.push_back(std::move(item));
    if (dataset.limit > 0 && static_cast<int>(out.size()) == dataset.limit) break;
  }
  if (out.empty())
    throw InputError(spec_file, fmt::format("dataset '{}'", dataset.name), fmt::format("no prompt of {} passes its categories/split filters", dataset.path));
  return out;
}

std::vector<int32_t> Conversation::next_prompt(const Model& model, bool chat) const {
  const size_t turn = answers_.size();
  DB_CHECK(turn < item_->turns.size());
  const Tokenizer& tok = model.tokenizer();
  if (chat) {
    std::vector<ChatMessage> messages;
    for (size_t t = 0; t <= turn; ++t) {
      messages.push_back(ChatMessage{"user", item_->turns[t]});
      if (t < turn) messages.push_back(ChatMessage{"assistant", answers_[t]});
    }
    return encode_chat(tok, model.chat_template(), messages, true);
  }
  std::string text;
  for (size_t t = 0; t < turn; ++t) text += item_->turns[t] + "\n" + answers_[t] + "\n";
  return tok.encode(text + item_->turns[turn], tok.add_bos_by_default(), false);
}

void Conversation::add_answer(const Model& model, const std::vector<int32_t>& reply) {
  std::vector<int32_t> kept = reply;
  if (!kept.empty() && model.tokenizer().is_stop(kept.back())) kept.pop_back();
  answers_.push_back(model.tokenizer().decode(kept));
}

}  // namespace draftbench
