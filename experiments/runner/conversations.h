// A dataset's prompts as an experiment runs them: selected (categories, split, limit) and
// turned into token ids turn by turn. Later turns include the model's earlier answers, as
// FastChat's MT-Bench runner does, so a turn's prompt exists only once the turn before it
// has been decoded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/loaders/prompt_set.h"
#include "engine/model/model.h"
#include "experiments/spec/experiment_spec.h"

namespace draftbench {

// The dataset's prompts after its filters (categories, split, limit_per_category, then
// limit), in file order. Throws InputError (naming the
// spec file and the dataset) when the filters leave nothing, or a prompt has fewer turns
// than the dataset asks to run.
std::vector<PromptItem> select_prompts(const DatasetSpec& dataset, const std::string& spec_file);

class Conversation {
 public:
  explicit Conversation(const PromptItem& item) : item_(&item) {}
  const PromptItem& item() const { return *item_; }
  int turns_done() const { return static_cast<int>(answers_.size()); }
  // Token ids of the next turn's prompt: chat-templated with the history when `chat`,
  // else the plain text of the turn (earlier turns and answers prepended as text).
  std::vector<int32_t> next_prompt(const Model& model, bool chat) const;
  // Records the model's reply to the last prompt (stop token excluded).
  void add_answer(const Model& model, const std::vector<int32_t>& reply);

 private:
  const PromptItem* item_;
  std::vector<std::string> answers_;
};

}  // namespace draftbench
