// write_file_atomically: the file holds exactly the new text, no temporary is left behind,
// and a path it cannot write gets an InputError naming the file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace fs = std::filesystem;
using namespace draftbench;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("write_file_atomically writes, replaces and leaves no temporary") {
  const fs::path dir = fresh_dir("draftbench-atomic-file");
  const fs::path file = dir / "report.json";
  write_file_atomically(file.string(), "first\n");
  CHECK(read_all(file) == "first\n");
  const std::string big(3 << 20, 'x');  // several write() calls' worth
  write_file_atomically(file.string(), big);
  CHECK(read_all(file) == big);
  write_file_atomically(file.string(), "");
  CHECK(fs::file_size(file) == 0);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  CHECK(entries == 1);
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomically names the file it cannot write") {
  const fs::path missing = fs::temp_directory_path() / "draftbench-no-such-dir" / "sub" / "out.json";
  try {
    write_file_atomically(missing.string(), "x");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("out.json") != std::string::npos);
  }
}
