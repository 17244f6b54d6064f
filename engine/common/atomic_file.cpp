#include "engine/common/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/common/error.h"

namespace draftbench {

void write_file_atomically(const std::string& path, std::string_view text) {
  // A name of this process's own: two writers of one file never share a temporary.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!f) throw InputError(tmp, "", "cannot write");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "cannot write: " + ec.message());
  }
}

}  // namespace draftbench
