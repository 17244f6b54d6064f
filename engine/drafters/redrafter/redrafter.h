// ReDrafter (engine/DESIGN.md §2.1, §3): a recurrent draft head
// driven by the target's hidden state h and its own input embeddings, drafting by beam
// search, verified through dynamic tree attention (dedup_prefix + pack_beams) or, with
// tree attention off, as beam_width separate chains.
//
// Per draft step t (1 .. beam_length-1), for every beam:
//   s_t = SiLU(rnn_w e_t + rnn_u s_{t-1} + b_u)      (rnn; s_0 = 0, as the reference code)
//         s_{t-1} + e_t                              (rnn = false: cumulative embeddings)
//   x   = [h, s_t]   (the reference code's order; the paper writes [s_t, h])
//   x   = input_proj x + b   when exit_dim != 2 * n_embd
//   log q = log_softmax(head(x))  over the draft vocabulary, after an optional top-k warp
// where e_t is the target's input embedding of the beam's last token. `initial_state:
// "embedding"` instead starts from the paper's s_1 = e_1.
//
// Weights (reference names; draftbench's drafter.json or the reference config.json with
// vocab_size, hidden_size, exit_dim, num_draft_layers, rnn):
//   rnn_w.weight [H, H], rnn_u.weight [H, H], rnn_u.bias [H]
//   input_proj.weight [exit_dim, 2H], input_proj.bias [exit_dim]   (only when exit_dim != 2H)
//   lm_head.{i}.linear.weight [exit_dim, exit_dim], .bias           (i < num_draft_layers)
//   lm_head.{num_draft_layers}.weight [n_draft_vocab, exit_dim]     (absent with head "target":
//                                        the target's LM head rows; needs exit_dim == H)
//   draft_vocab (I32/I64, optional)
#pragma once

#include <memory>
#include <string>

#include "engine/decoding/drafter.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/make_drafter.h"

namespace draftbench {

// Writes untrained weights in draftbench's format (see RandomDrafterSpec): exit_dim = H
// with an input projection and the target's LM head rows, or exit_dim = 2H with an own head.
void write_random_redrafter(const RandomDrafterSpec& spec, const Model& target, const std::string& dir);

std::unique_ptr<Drafter> make_redrafter(DrafterCheckpoint& checkpoint, const DrafterOptions& options, const Model& target, ThreadPool& pool);

}  // namespace draftbench
