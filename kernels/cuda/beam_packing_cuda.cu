#include "kernels/cuda/beam_packing_block.h"
#include "kernels/cuda/beam_packing_cuda.h"
#include "kernels/cuda/launch.cuh"

namespace draftbench::cuda {
namespace {

__global__ void beam_packing_kernel(BeamPackingArgs args) {
  __shared__ BeamPackingShared shared;
  beam_packing_block(DeviceBlock{}, args, shared);
}

}  // namespace

int pack_beams(const int32_t* beams, int64_t n_seqs, int beam_width, int beam_length, int32_t* prefix_tree, int32_t* tokens, int32_t* parents,
               int32_t* unpacker, int32_t* n_nodes) {
  if (!beam_packing_supports(beam_width, beam_length)) return cudaErrorInvalidValue;
  if (n_seqs == 0) return cudaSuccess;
  return launch_kernel("pack_beams", beam_packing_launch(n_seqs), beam_packing_kernel,
                       BeamPackingArgs{beams, beam_width, beam_length, prefix_tree, tokens, parents, unpacker, n_nodes});
}

}  // namespace draftbench::cuda
