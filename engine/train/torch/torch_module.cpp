// Loading libdraftbench_torch.so and opening sessions in it (torch_backend.h says why it is a
// separate module, opened with RTLD_LOCAL | RTLD_DEEPBIND).
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/train/torch/torch_backend.h"

namespace draftbench {

namespace {

std::vector<std::string> module_candidates() {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  if (const char* env = std::getenv("DRAFTBENCH_TORCH_MODULE")) paths.push_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) paths.push_back((exe.parent_path() / "libdraftbench_torch.so").string());
#ifdef DRAFTBENCH_TORCH_MODULE_PATH
  paths.push_back(DRAFTBENCH_TORCH_MODULE_PATH);
#endif
  return paths;
}

struct LoadedModule {
  void* handle = nullptr;
  std::string path, error;
};

const LoadedModule& torch_module() {
  static const LoadedModule module = [] {
    LoadedModule m;
#if defined(__SANITIZE_ADDRESS__)
    m.error = "libtorch is not available in sanitizer builds (its module needs RTLD_DEEPBIND, which ASan rejects)";
#else
    m.error = "libdraftbench_torch.so not found (looked in $DRAFTBENCH_TORCH_MODULE, beside the executable and in the build tree)";
    for (const std::string& path : module_candidates()) {
      if (!std::filesystem::exists(path)) continue;
      // libgomp (torch's and OpenBLAS's threads) reads this once, when the module loads:
      // passive waiting costs little on big products and keeps a busy machine from
      // stalling every parallel region on a descheduled spinning thread.
      setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
      // DEEPBIND: torch and its libprotobuf bind to their own symbols, not to the protobuf
      // that libsentencepiece exports into the global scope (torch_backend.h).
      m.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      m.path = path;
      m.error = m.handle ? "" : fmt::format("cannot load {}: {}", path, dlerror());
      break;
    }
#endif
    return m;
  }();
  return module;
}

}  // namespace

bool torch_backend_available(std::string* why) {
  const LoadedModule& m = torch_module();
  if (!m.handle && why) *why = m.error;
  return m.handle != nullptr;
}

std::unique_ptr<TorchSession> open_torch_session(const SessionSpec& spec, const TargetRows& target) {
  const LoadedModule& m = torch_module();
  if (!m.handle) throw InputError("train", "libtorch", m.error);
  auto factory = reinterpret_cast<TorchSessionFactory>(dlsym(m.handle, kTorchSessionEntry));
  if (!factory) throw InputError(m.path, kTorchSessionEntry, "missing (a stale module? rebuild draftbench)");
  std::string error;
  TorchSession* session = factory(&spec, &target, &error);
  if (!session) throw InputError("train", "drafter", error);
  return std::unique_ptr<TorchSession>(session);
}

}  // namespace draftbench
