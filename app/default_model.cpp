#include <filesystem>

#include "app/commands.h"

namespace draftbench::cli {
namespace {

namespace fs = std::filesystem;

// `relative` in the checkout: from the working directory, else from the binary's place in
// build/<preset>/; empty when neither has it.
std::string checkout_path(const fs::path& relative) {
  if (fs::exists(relative)) return relative.string();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path from_build = exe.parent_path().parent_path().parent_path() / relative;
    if (fs::exists(from_build)) return from_build.string();
  }
  return "";
}

}  // namespace

std::string default_model_path() {
  const std::string relative = "models/gemma-3-270m-q4_k_m.gguf";
  const std::string found = checkout_path(relative);
  return found.empty() ? relative : found;  // the load error will name it
}

bool is_default_model(const std::string& path) {
  std::error_code ec;
  return fs::equivalent(path, default_model_path(), ec);
}

std::string shipped_drafter_dir(const std::string& kind) { return checkout_path(fs::path("models/drafters") / kind); }

std::string checkout_root() {
  const std::string experiments = checkout_path("experiments");
  const fs::path parent = fs::path(experiments).parent_path();
  return experiments.empty() || parent.empty() ? "." : parent.string();
}

}  // namespace draftbench::cli
