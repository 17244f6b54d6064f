// Reference token sequences shared by the test processes of one test binary. ctest runs
// each Catch2 test case in a process of its own, so a reference that every case of a file
// compares with (autoregressive decoding of the same prompts) would be computed once per
// case. shared_truth() computes it once and keeps it in a file beside the test binary, keyed
// by the binary itself (path, size, modification time), the model file and a caller's key:
// any rebuild or other model computes it afresh. Concurrent first users each compute it and
// write it atomically (rename); they write the same bytes.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace draftbench::test {

using TokenRows = std::vector<std::vector<int32_t>>;

namespace detail {

inline std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path + ":missing";
  return path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// The key as one line of the file.
inline std::string one_line(std::string text) {
  for (auto& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

inline uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

inline bool read_rows(const std::string& path, const std::string& key, TokenRows& rows) {
  std::ifstream in(path, std::ios::binary);
  std::string stored;
  if (!in || !std::getline(in, stored) || stored != key) return false;
  uint64_t n_rows = 0;
  if (!in.read(reinterpret_cast<char*>(&n_rows), sizeof n_rows) || n_rows > (1u << 20)) return false;
  rows.assign(n_rows, {});
  for (auto& row : rows) {
    uint64_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || n > (1u << 24)) return false;
    row.resize(n);
    if (!in.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(n * sizeof(int32_t)))) return false;
  }
  return in.peek() == std::char_traits<char>::eof();
}

inline void write_rows(const std::string& path, const std::string& key, const TokenRows& rows) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << key << '\n';
    const uint64_t n_rows = rows.size();
    out.write(reinterpret_cast<const char*>(&n_rows), sizeof n_rows);
    for (const auto& row : rows) {
      const uint64_t n = row.size();
      out.write(reinterpret_cast<const char*>(&n), sizeof n);
      out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(n * sizeof(int32_t)));
    }
    if (!out) {
      std::remove(tmp.c_str());
      return;  // an unwritable folder only costs the next process the computation
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace detail

// The rows `compute` returns, computed at most once per build of this binary, model file and
// `key` (which must name everything else the rows depend on: prompts, lengths, options).
inline TokenRows shared_truth(const std::string& model_path, const std::string& key, const std::function<TokenRows()>& compute) {
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string exact_key = detail::file_identity(exe) + "|" + detail::file_identity(model_path) + "|" + key;
  const std::string full_key = detail::one_line(exact_key) + "|" + std::to_string(detail::fnv1a(exact_key));
  char name[32];
  std::snprintf(name, sizeof name, ".truth-%016llx", static_cast<unsigned long long>(detail::fnv1a(exact_key)));
  const std::string path = exe + name;
  TokenRows rows;
  if (detail::read_rows(path, full_key, rows)) return rows;
  rows = compute();
  detail::write_rows(path, full_key, rows);
  return rows;
}

}  // namespace draftbench::test
