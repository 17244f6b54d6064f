// CUDA dedup_prefix + pack_beams over a batch of beam sets, one block per sequence; the
// body is kernels/cuda/beam_packing_block.h, which the CPU emulation runs too. Reference:
// kernels/beam/beam_packing.h, whose prefix_tree, tokens, parents and unpacker it returns
// exactly.
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// Device pointers; default stream. Per sequence s: beams [beam_width][beam_length] in,
// prefix_tree and unpacker [beam_width][beam_length], tokens and parents (the first
// n_nodes[s] entries of beam_width * beam_length) out. Returns the CUDA error code
// (cudaErrorInvalidValue unless beam_packing_supports(beam_width, beam_length)).
int pack_beams(const int32_t* beams, int64_t n_seqs, int beam_width, int beam_length, int32_t* prefix_tree, int32_t* tokens, int32_t* parents,
               int32_t* unpacker, int32_t* n_nodes);

}  // namespace draftbench::cuda
