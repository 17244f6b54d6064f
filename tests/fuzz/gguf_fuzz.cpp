// Fuzz target for the GGUF reader: any input either parses, and then every tensor view
// lies inside the input, or throws InputError. Anything else (a crash, a sanitizer
// report, another exception type) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const draftbench::GgufFile f = draftbench::GgufFile::parse({data, size}, "fuzz.gguf");
    for (const auto& t : f.tensors())
      if (t.data < data || t.data + t.n_bytes > data + size) std::abort();
    for (const auto& [key, value] : f.metadata()) (void)key, (void)value;
  } catch (const draftbench::InputError&) {}
  return 0;
}
