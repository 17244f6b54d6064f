// peak_rss_bytes reads this process's own high-water mark: touching 64 MiB more than the
// process has ever held raises it by about that much. (That a parent's size does not leak
// into it through fork and exec is tests/cli/peak_memory_cli_test.py's check.)
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "engine/common/peak_memory.h"

using namespace draftbench;

TEST_CASE("peak_rss_bytes rises by what the process touches beyond its old peak", "[peak_memory]") {
  const uint64_t before = peak_rss_bytes();
  REQUIRE(before > 0);
  const size_t extra = before + (64u << 20);  // more than the old peak, so the peak must move
  std::vector<unsigned char> block(extra);
  for (size_t i = 0; i < block.size(); i += 4096) block[i] = static_cast<unsigned char>(i >> 12);
  const uint64_t after = peak_rss_bytes();
  CHECK(after >= before + (60u << 20));
  CHECK(after <= before + extra + (16u << 20));
  CHECK(block[4096] == 1);
}
