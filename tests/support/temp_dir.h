// A fresh directory under the system temp directory, removed on destruction: tests never
// write into the source tree.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace draftbench::test {

class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(std::filesystem::temp_directory_path() / ("draftbench_" + std::to_string(getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& child) const { return (path_ / child).string(); }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace draftbench::test
