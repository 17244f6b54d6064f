// Where a report's numbers were measured: CPU and its features, threads, compiler and
// build flags, the git commit, and checksums of the model and drafter weights — enough to
// tell two reports' machines and inputs apart.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

struct EnvironmentInputs {
  std::string checkout;  // for the git commit
  std::string model_path;
  std::vector<std::pair<std::string, std::string>> drafter_weights;  // (name, directory)
  int threads = 0;
  std::string device;  // where the target's forward pass ran (ForwardPass::describe); "" = cpu
};

nlohmann::json describe_environment(const EnvironmentInputs& inputs);

}  // namespace draftbench
