// The fuzz replay tests' seeds: the bytes of each file, in sorted path order.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace draftbench::test {

inline std::vector<std::string> read_seed_files(std::vector<std::filesystem::path> files) {
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    out.push_back(s.str());
  }
  return out;
}

}  // namespace draftbench::test
