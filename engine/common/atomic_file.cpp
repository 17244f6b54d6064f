#include "engine/common/atomic_file.h"

#include <filesystem>
#include <fstream>

#include "engine/common/error.h"

namespace draftbench {

void write_file_atomically(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!f) throw InputError(tmp, "", "cannot write");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, "", "cannot write: " + ec.message());
}

}  // namespace draftbench
