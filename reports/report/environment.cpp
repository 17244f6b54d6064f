#include "reports/report/environment.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "engine/common/sha256.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {

namespace fs = std::filesystem;

namespace {

// The first line a shell command prints, or "" (git may be absent, or this no checkout).
std::string first_line_of(const std::string& command) {
  std::unique_ptr<FILE, decltype(&pclose)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  char buffer[512];
  std::string out;
  if (fgets(buffer, sizeof buffer, pipe.get())) out = buffer;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Weights checksums: every *.safetensors and *.json of a directory, or the file itself.
nlohmann::json checksums(const std::string& path) {
  nlohmann::json out = nlohmann::json::object();
  if (path.empty() || !fs::exists(path)) return out;
  if (!fs::is_directory(path)) {
    out[fs::path(path).filename().string()] = sha256_file(path);
    return out;
  }
  for (const auto& e : fs::directory_iterator(path))
    if (e.is_regular_file() && (e.path().extension() == ".safetensors" || e.path().extension() == ".json"))
      out[e.path().filename().string()] = sha256_file(e.path().string());
  return out;
}

}  // namespace

nlohmann::json describe_environment(const EnvironmentInputs& in) {
  const std::string git = fmt::format("git -C '{}' ", in.checkout);
  nlohmann::json drafters = nlohmann::json::object();
  for (const auto& [name, dir] : in.drafter_weights) drafters[name] = {{"path", dir}, {"sha256", checksums(dir)}};
  return {
      {"cpu", {{"model", cpu_identity()}, {"hardware_threads", std::thread::hardware_concurrency()}, {"features", cpu_features().describe()}}},
      {"threads", in.threads},
      {"device", in.device.empty() ? "cpu" : in.device},
      {"compiler", fmt::format("{} {}", DRAFTBENCH_COMPILER_ID, DRAFTBENCH_COMPILER_VERSION)},
      {"build", {{"type", DRAFTBENCH_BUILD_TYPE}, {"cxx_flags", DRAFTBENCH_CXX_FLAGS}}},
      {"git",
       {{"commit", first_line_of(git + "rev-parse HEAD 2>/dev/null")},
        {"dirty", !first_line_of(git + "status --porcelain --untracked-files=no 2>/dev/null").empty()}}},
      {"model", {{"path", in.model_path}, {"sha256", checksums(in.model_path)}}},
      {"drafters", std::move(drafters)},
      {"libraries",
       {{"fmt", FMT_VERSION},
        {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH)},
        {"yaml_cpp", DRAFTBENCH_YAML_CPP_VERSION}}},
  };
}

}  // namespace draftbench
