// The module that links SentencePiece (see sentencepiece_module.h): a C interface, so that
// nothing of SentencePiece's or protobuf's crosses into the host process.
#include <sentencepiece_processor.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace {
void copy_error(const std::string& message, char* error, size_t error_size) {
  if (error_size == 0) return;
  const size_t n = std::min(message.size(), error_size - 1);
  std::memcpy(error, message.data(), n);
  error[n] = '\0';
}
}  // namespace

extern "C" {

__attribute__((visibility("default"))) void* draftbench_spm_load(const char* data, size_t size, char* error, size_t error_size) {
  auto* processor = new sentencepiece::SentencePieceProcessor();
  const auto status = processor->LoadFromSerializedProto(std::string_view(data, size));
  if (!status.ok()) {
    copy_error(status.ToString(), error, error_size);
    delete processor;
    return nullptr;
  }
  return processor;
}

// Returns the number of ids (written only if it fits `capacity`), or -1 with `error` set.
__attribute__((visibility("default"))) long draftbench_spm_encode(void* handle, const char* text, size_t size, int* ids, size_t capacity,
                                                                   char* error, size_t error_size) {
  std::vector<int> out;
  const auto status = static_cast<sentencepiece::SentencePieceProcessor*>(handle)->Encode(std::string_view(text, size), &out);
  if (!status.ok()) {
    copy_error(status.ToString(), error, error_size);
    return -1;
  }
  if (out.size() <= capacity && !out.empty()) std::memcpy(ids, out.data(), out.size() * sizeof(int));
  return static_cast<long>(out.size());
}

__attribute__((visibility("default"))) void draftbench_spm_free(void* handle) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(handle);
}

}  // extern "C"
