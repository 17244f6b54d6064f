#include "engine/tokenizer/sentencepiece_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "engine/common/error.h"

#ifndef DRAFTBENCH_SPM_MODULE
#error "DRAFTBENCH_SPM_MODULE must name the SentencePiece module's build path"
#endif

namespace draftbench {

struct SentencePieceEncoder::Module {
  void* library = nullptr;
  void* (*load)(const char*, size_t, char*, size_t) = nullptr;
  long (*encode)(void*, const char*, size_t, int*, size_t, char*, size_t) = nullptr;
  void (*free)(void*) = nullptr;

  // The module's path: beside the running binary (or one level up, for test binaries in
  // build/<preset>/tests/), else where the build put it.
  static std::string locate() {
    const std::string name = std::filesystem::path(DRAFTBENCH_SPM_MODULE).filename().string();
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
      for (const auto& dir : {exe.parent_path(), exe.parent_path().parent_path()})
        if (std::filesystem::exists(dir / name)) return (dir / name).string();
    return DRAFTBENCH_SPM_MODULE;
  }

  Module() {
    int flags = RTLD_NOW | RTLD_LOCAL;
#if !defined(__SANITIZE_ADDRESS__)
    flags |= RTLD_DEEPBIND;
#endif
    const std::string path = locate();
    library = dlopen(path.c_str(), flags);
    if (!library) throw std::runtime_error(std::string("cannot load the SentencePiece module: ") + dlerror());
    load = reinterpret_cast<decltype(load)>(dlsym(library, "draftbench_spm_load"));
    encode = reinterpret_cast<decltype(encode)>(dlsym(library, "draftbench_spm_encode"));
    free = reinterpret_cast<decltype(free)>(dlsym(library, "draftbench_spm_free"));
    if (!load || !encode || !free) throw std::runtime_error(path + ": not draftbench's SentencePiece module");
  }
  // Loaded once per process and never unloaded: it holds no state of ours, only code.
  static const Module& get() {
    static const Module module;
    return module;
  }
};

SentencePieceEncoder::SentencePieceEncoder(const std::string& serialized_model, const std::string& source) : module_(Module::get()) {
  char error[512] = {0};
  handle_ = module_.load(serialized_model.data(), serialized_model.size(), error, sizeof(error));
  if (!handle_) throw InputError(source, "SentencePiece model", error);
}

SentencePieceEncoder::~SentencePieceEncoder() {
  if (handle_) module_.free(handle_);
}

void SentencePieceEncoder::encode(std::string_view text, std::vector<int>& out) const {
  char error[512] = {0};
  out.resize(std::max<size_t>(out.capacity(), text.size() + 8));
  long n = module_.encode(handle_, text.data(), text.size(), out.data(), out.size(), error, sizeof(error));
  if (n > static_cast<long>(out.size())) {
    out.resize(static_cast<size_t>(n));
    n = module_.encode(handle_, text.data(), text.size(), out.data(), out.size(), error, sizeof(error));
  }
  if (n < 0) throw std::runtime_error(std::string("tokenizer: SentencePiece encode failed: ") + error);
  out.resize(static_cast<size_t>(n));
}

}  // namespace draftbench
