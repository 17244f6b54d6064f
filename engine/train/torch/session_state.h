// A torch session's full state as bytes, for training checkpoints (TorchSession::save_state):
// the net's parameters and buffers, AdamW's per-parameter state (step, moments) and torch's
// CPU generator. Inside libdraftbench_torch.so only.
//
// Our own flat format rather than torch's archives: torch::serialize's zip reader parses
// with iostreams, and in a module opened with RTLD_DEEPBIND those meet the executable's
// copy-relocated locale facets and throw std::bad_cast. Raw tensor bytes restore every value
// exactly, which is what a bit-identical resume needs.
#pragma once

#include <torch/torch.h>

#include <string>

namespace draftbench {

std::string save_session_state(torch::nn::Module& net, const torch::optim::AdamW& optimizer);
// Throws std::runtime_error naming the entry that is missing or does not fit (name, shape,
// type) when `bytes` were not written by save_session_state for a net of the same shape.
void load_session_state(const std::string& bytes, torch::nn::Module& net, torch::optim::AdamW& optimizer);

}  // namespace draftbench
