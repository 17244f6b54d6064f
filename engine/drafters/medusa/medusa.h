// Medusa (engine/DESIGN.md §2.2): K heads read the target's
// final-norm hidden state h that chose the root; head k predicts the token k + 2 positions
// ahead. Head = residual blocks x + SiLU(W x + b) (DraftHead) then an output layer over the
// draft vocabulary — its own (Medusa-1) or the target's LM head rows (Medusa's "version 2").
// The draft is a static choice tree (choice_tree.h): the token of a node at depth d with rank
// r is head d-1's rank-r token, whatever its parent. No per-sequence state.
//
// Weights (a DrafterCheckpoint directory), tensor names as in Medusa's state dict:
//   {head}.{layer}.linear.weight [n_embd, n_embd], {head}.{layer}.linear.bias [n_embd],
//   {head}.{num_layers}.weight [n_draft_vocab, n_embd] (own output layer), optional
//   draft_vocab (I32/I64) [n_draft_vocab].
//   - Medusa's config.json: medusa_num_layers; the head count is read from the tensors (the
//     public config's medusa_num_heads is wrong); output layers absent for every head =
//     the target's LM head.
//   - draftbench's drafter.json: num_heads, num_layers, head = "own" | "target".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/decoding/drafter.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/make_drafter.h"

namespace draftbench {

// Writes untrained weights in draftbench's format (see RandomDrafterSpec): residual W = 0
// (each block starts as the identity, as Medusa initialises it), biases uniform in ±0.02,
// an own output layer (spec.own_head) N(0, 0.02); F32.
void write_random_medusa(const RandomDrafterSpec& spec, const Model& target, const std::string& dir);

// Throws InputError for missing or misshapen tensors, a hidden size other than the target's,
// a tree deeper than the heads or ranking beyond the draft vocabulary.
std::unique_ptr<Drafter> make_medusa_drafter(DrafterCheckpoint& checkpoint, const DrafterOptions& options, const Model& target, ThreadPool& pool);

// The tree used when DrafterOptions::tree_file is empty: the paths of
// experiments/trees/medusa_cpu_15.json (15 drafts + the root; a test keeps them equal).
const std::vector<std::vector<int32_t>>& default_medusa_choices();

}  // namespace draftbench
