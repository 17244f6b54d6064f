#include "engine/model/forward_pass.h"

#include "engine/common/error.h"
#include "engine/model/device_transformer.h"
#include "engine/model/transformer.h"

namespace draftbench {

const char* forward_device_name(ForwardDevice device) {
  switch (device) {
    case ForwardDevice::kCpu: return "cpu";
    case ForwardDevice::kCuda: return "cuda";
    case ForwardDevice::kEmulated: return "emulated";
  }
  return "?";
}

std::optional<ForwardDevice> forward_device_named(std::string_view name) {
  for (ForwardDevice d : kForwardDevices)
    if (name == forward_device_name(d)) return d;
  return std::nullopt;
}

std::unique_ptr<ForwardPass> make_forward_pass(ForwardDevice device, const ModelConfig& config, const ModelWeights& weights, ThreadPool& pool) {
  switch (device) {
    case ForwardDevice::kCpu: return std::make_unique<Transformer>(config, weights, pool);
    case ForwardDevice::kCuda: {
      std::unique_ptr<cuda::DeviceKernels> gpu;
      try {
        gpu = cuda::make_cuda_kernels();
      } catch (const std::runtime_error& e) {
        throw InputError("device", "cuda", std::string(e.what()) + " (cpu and emulated run without a GPU)");
      }
      return std::make_unique<DeviceTransformer>(config, weights, std::move(gpu));
    }
    case ForwardDevice::kEmulated: return std::make_unique<DeviceTransformer>(config, weights, cuda::make_emulated_kernels());
  }
  DB_CHECK(false);  // every enumerator is handled above
  return nullptr;
}

}  // namespace draftbench
