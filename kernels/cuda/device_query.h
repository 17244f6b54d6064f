// Whether this process can run CUDA kernels at all; the GPU tests skip when it cannot.
#pragma once

namespace draftbench::cuda {

// True when a CUDA device is present and usable.
bool device_available();

}  // namespace draftbench::cuda
