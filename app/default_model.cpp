#include <filesystem>

#include <fmt/format.h>

#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/model/model_aliases.h"

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
  const std::string relative(default_model_alias().path);
  const std::string found = checkout_path(relative);
  return found.empty() ? relative : found;  // the load error will name it
}

std::string model_path_of(const std::string& argument) {
  const ModelAlias* alias = find_model_alias(argument);
  if (!alias || fs::exists(argument)) return argument;
  const std::string found = checkout_path(alias->path);
  if (found.empty()) throw InputError("", "alias '" + argument + "'", fmt::format("{} is not there (run {})", alias->path, alias->setup));
  return found;
}

std::string shipped_drafter_dir(const std::string& model_path, const std::string& kind) {
  std::error_code ec;
  for (const ModelAlias& alias : model_aliases()) {
    const std::string file = checkout_path(alias.path);
    if (!file.empty() && fs::equivalent(model_path, file, ec)) return checkout_path(fs::path(alias.drafters) / kind);
  }
  return "";
}

std::string checkout_root() {
  const std::string experiments = checkout_path("experiments");
  const fs::path parent = fs::path(experiments).parent_path();
  return experiments.empty() || parent.empty() ? "." : parent.string();
}

}  // namespace draftbench::cli
