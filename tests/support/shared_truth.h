// Reference token sequences shared by the test processes of one test binary. ctest runs
// each Catch2 test case in a process of its own, so a reference that every case of a file
// compares with (autoregressive decoding of the same prompts) would be computed once per
// case. shared_truth() computes it once and keeps it in a file beside the test binary, keyed
// by the binary itself (path, size, modification time), the model file and a caller's key:
// any rebuild or other model computes it afresh. Concurrent first users each compute it and
// write it atomically (rename); they write the same bytes.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "engine/common/atomic_file.h"
#include "engine/common/sha256.h"

namespace draftbench::test {

using TokenRows = std::vector<std::vector<int32_t>>;

namespace detail {

inline std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path + ":missing";
  return path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// The file: the key's SHA-256 on the first line, then a row of token ids per line.
inline bool read_rows(const std::string& path, const std::string& digest, TokenRows& rows) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != digest) return false;
  rows.clear();
  while (std::getline(in, line)) {
    std::istringstream ids(line);
    rows.emplace_back(std::istream_iterator<int32_t>(ids), std::istream_iterator<int32_t>());
    if (!ids.eof()) return false;
  }
  return true;
}

inline std::string rows_text(const std::string& digest, const TokenRows& rows) {
  std::string text = digest + "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) text += (i ? " " : "") + std::to_string(row[i]);
    text += "\n";
  }
  return text;
}

}  // namespace detail

// The rows `compute` returns, computed at most once per build of this binary, model file and
// `key` (which must name everything else the rows depend on: prompts, lengths, options).
inline TokenRows shared_truth(const std::string& model_path, const std::string& key, const std::function<TokenRows()>& compute) {
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string digest = sha256_hex(detail::file_identity(exe) + "|" + detail::file_identity(model_path) + "|" + key);
  const std::string path = exe + ".truth-" + digest.substr(0, 16);
  TokenRows rows;
  if (detail::read_rows(path, digest, rows)) return rows;
  rows = compute();
  try {
    write_file_atomically(path, detail::rows_text(digest, rows));
  } catch (const std::exception&) {
    // An unwritable folder only costs the next process the computation.
  }
  return rows;
}

}  // namespace draftbench::test
