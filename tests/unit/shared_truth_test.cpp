// tests/support/shared_truth.h: a reference is computed once per key and read back exactly.
#include <catch2/catch.hpp>

#include <set>
#include <unistd.h>

#include "tests/support/shared_truth.h"

using draftbench::test::shared_truth;
using draftbench::test::TokenRows;

namespace {

std::set<std::filesystem::path> truth_files() {
  std::set<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::read_symlink("/proc/self/exe").parent_path()))
    if (entry.path().filename().string().find(".truth-") != std::string::npos) files.insert(entry.path());
  return files;
}

}  // namespace

TEST_CASE("shared truth: computed once per key, read back exactly, another key computes again", "[support]") {
  const std::set<std::filesystem::path> before = truth_files();
  const std::string unique = "shared_truth_test " + std::to_string(::getpid()) + "\nline two";
  const TokenRows expected = {{1, 2, 3}, {}, {-7, 262143}};
  int computed = 0;
  auto compute = [&] {
    ++computed;
    return expected;
  };
  REQUIRE(shared_truth("/nonexistent-model", unique, compute) == expected);
  REQUIRE(shared_truth("/nonexistent-model", unique, compute) == expected);
  CHECK(computed == 1);
  REQUIRE(shared_truth("/nonexistent-model", unique + " other", compute) == expected);
  CHECK(computed == 2);
  // Leave no files of this test behind in the build folder.
  const std::set<std::filesystem::path> after = truth_files();
  CHECK(after.size() == before.size() + 2);
  for (const auto& path : after)
    if (!before.count(path)) std::filesystem::remove(path);
}
