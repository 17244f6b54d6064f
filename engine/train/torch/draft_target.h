// The frozen target on the engine side of the torch boundary (torch-free): the draft
// vocabulary, the target's input embeddings exactly as the engine's drafters compute them
// (embed_tokens: dequantised row, Gemma's sqrt(n_embd) scaling), its LM-head rows, the
// EAGLE layer shape, and corpus batches turned into what the torch session consumes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/train/torch/torch_backend.h"
#include "engine/train/torch/training_corpus.h"

namespace draftbench {

class DraftTarget {
 public:
  DraftTarget(const Model& model, std::vector<int32_t> draft_vocab);

  const Model& model() const { return model_; }
  int64_t n_embd() const { return model_.config().n_embd; }
  const std::vector<int32_t>& draft_vocab() const { return draft_vocab_; }
  // The draft vocabulary index of a target id; -1 outside it (or for id < 0).
  int32_t draft_index(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < index_.size() ? index_[static_cast<size_t>(id)] : -1; }
  // The rows the engine's "target rows" head reads (weights.output: Gemma's tied
  // embedding), dequantised, and the target's final soft-cap.
  TargetRows rows() const;
  // EAGLE's draft layer as eagle.cpp configures it for this target.
  EagleLayerSpec eagle_layer() const;
  // [tokens.size()][n_embd]; ids < 0 give zero rows.
  void embed(std::span<const int32_t> tokens, float* out) const;

  // ReDrafter / Medusa: hidden, step inputs' embeddings (ReDrafter only: the root, then
  // each step's label) and draft-vocabulary targets. The batch's features move into `out`
  // (buffers are swapped, so a reused batch keeps its capacity).
  void to_backend(PositionBatch& in, bool step_inputs, BackendBatch& out) const;
  // EAGLE: the pairs with embed(x_{i+1}); features move as above.
  // previous_tokens: also embed x_i (EAGLE's copy input).
  void to_backend(SequenceBatch& in, bool previous_tokens, BackendBatch& out) const;

 private:
  const Model& model_;
  std::vector<int32_t> draft_vocab_, index_;
};

}  // namespace draftbench
