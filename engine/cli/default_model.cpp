#include <filesystem>

#include "engine/cli/commands.h"

namespace draftbench::cli {

std::string default_model_path() {
  namespace fs = std::filesystem;
  const fs::path relative = "models/gemma-3-270m-q4_k_m.gguf";
  if (fs::exists(relative)) return relative.string();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path from_build = exe.parent_path().parent_path().parent_path() / relative;
    if (fs::exists(from_build)) return from_build.string();
  }
  return relative.string();  // the load error will name it
}

}  // namespace draftbench::cli
