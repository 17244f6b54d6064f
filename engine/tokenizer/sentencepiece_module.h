// SentencePiece behind a privately loaded module.
//
// Debian's libsentencepiece carries its own copy of protobuf 3.14 and exports its symbols;
// libtorch (the drafter trainer) loads the system protobuf 3.21. In one process the two
// interpose each other's symbols and the program dies during start-up. So the engine never
// links SentencePiece: a small module of ours (sentencepiece_module_impl.cpp) does, and it
// is opened with RTLD_LOCAL | RTLD_DEEPBIND, which keeps its protobuf copy to itself.
// (Sanitizer runtimes refuse RTLD_DEEPBIND; sanitizer builds have no torch, so they open
// the module without it.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace draftbench {

class SentencePieceEncoder {
 public:
  // A serialized ModelProto. Throws InputError naming `source` if SentencePiece rejects it,
  // std::runtime_error if the module cannot be loaded.
  SentencePieceEncoder(const std::string& serialized_model, const std::string& source);
  ~SentencePieceEncoder();
  SentencePieceEncoder(const SentencePieceEncoder&) = delete;
  SentencePieceEncoder& operator=(const SentencePieceEncoder&) = delete;

  // Appends the ids of `text` to `out` (cleared first).
  void encode(std::string_view text, std::vector<int>& out) const;

 private:
  struct Module;
  const Module& module_;
  void* handle_ = nullptr;
};

}  // namespace draftbench
