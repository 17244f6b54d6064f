// Hostile input at the engine's boundaries (engine/common/input_checks.h, input_file.h,
// printable.h, dir_lock.h, and sampling on any float): nothing crashes, hangs, or puts raw
// file bytes on an error line.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/common/dir_lock.h"
#include "engine/common/error.h"
#include "engine/common/input_checks.h"
#include "engine/common/input_file.h"
#include "engine/decoding/sampling.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"

namespace {

namespace fs = std::filesystem;
using namespace draftbench;
using Catch::Matchers::Contains;

class ScratchDir {
 public:
  ScratchDir() : path_(fs::temp_directory_path() / ("draftbench_hostile_" + std::to_string(::getpid()))) { fs::create_directories(path_); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has_control_bytes(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return true;
  return false;
}

const std::vector<float> kLogits = {0.5f, 3.0f, -1.0f, 2.9f, 0.0f};

}  // namespace

TEST_CASE("hostile: NaN, infinite and subnormal temperatures decode greedily, exactly as temperature 0") {
  DistributionScratch scratch;
  const int32_t greedy = argmax(std::span<const float>(kLogits));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float temperatures[] = {0.0f, nan, -nan, 1e-39f, 1e-40f, 1e-45f, std::numeric_limits<float>::denorm_min(), 5e-5f, -1.0f};
  for (float t : temperatures) {
    const SamplingParams p{t, 0, 1.0f};
    CHECK(p.greedy());
    for (uint64_t seed = 0; seed < 20; ++seed) CHECK(sample_token(kLogits, p, RngKey{seed, 0, 0}, scratch) == greedy);
  }
  CHECK_FALSE(SamplingParams{kGreedyTemperature, 0, 1.0f}.greedy());
  CHECK_FALSE(SamplingParams{std::numeric_limits<float>::infinity(), 0, 1.0f}.greedy());
}

TEST_CASE("hostile: sampling survives logits and parameters no model should produce") {
  DistributionScratch scratch;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<float>> bad = {{nan, nan, nan}, {-inf, -inf, -inf}, {inf, 1.0f, inf}, {1.0f, nan, 2.0f}, {3e38f, -3e38f, 0.0f}};
  const SamplingParams params[] = {{1.0f, 0, 1.0f}, {inf, 0, 1.0f}, {1e-4f, 2, 0.5f}, {100.0f, 0, 0.0f}};
  for (const auto& logits : bad)
    for (const SamplingParams& p : params) {
      const int32_t t = sample_token(logits, p, RngKey{7, 1, 2}, scratch);
      CHECK(t >= 0);
      CHECK(t < static_cast<int32_t>(logits.size()));
    }
}

TEST_CASE("hostile: numbers are finite and in range at the boundary") {
  CHECK(finite_in_range(0.5, 0, 1, "x", "y") == 0.5);
  for (double v : {std::nan(""), -std::nan(""), HUGE_VAL, -HUGE_VAL, -1e-300, 1.0000001})
    CHECK_THAT(message_of([&] { finite_in_range(v, 0, 1, "spec.yaml", "key t"); }), Contains("spec.yaml: key t: expected a finite number in [0, 1]"));
  CHECK(integer_in_range("42", 0, 100, "", "") == 42);
  for (const char* text : {"-1", "", "1e3", "3.5", "12abc", " 1", "18446744073709551615"})
    CHECK_THAT(message_of([&] { integer_in_range(text, 0, int64_t{1} << 53, "--seed", ""); }), Contains("expected an integer in [0, 9007199254740992]"));
  CHECK(checked_thread_count(0, "", "") == 0);
  CHECK(checked_thread_count(max_threads(), "", "") == max_threads());
  CHECK_THAT(message_of([] { checked_thread_count(100000, "--threads", ""); }), Contains("expected 0 (all cores) to"));
  CHECK_THAT(message_of([] { checked_thread_count(-1, "--threads", ""); }), Contains("got -1"));
}

TEST_CASE("hostile: text from files reaches error lines escaped and bounded") {
  CHECK(printable("plain text, \\ and caf\xc3\xa9") == "plain text, \\ and caf\xc3\xa9");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(printable("bad \xff\xfe utf8 \xc3") == "bad \\xff\\xfe utf8 \\xc3");
  CHECK(printable("line\nbreak\r") == "line\\x0abreak\\x0d");
  CHECK(printable(printable("\x1b")) == printable("\x1b"));
  const std::string huge(2 << 20, 'k');
  CHECK(printable(huge, 50) == std::string(50, 'k') + "... (2097152 bytes in all)");
  CHECK(first_invalid_utf8("ok \xe2\x82\xac") == std::string::npos);
  CHECK(first_invalid_utf8("ok \xe2\x82") == 3);

  // GGUF keys are the real case: a duplicate key with an ANSI escape, a NUL and 2 MB of text.
  for (const std::string& key : {std::string("evil\x1b[2J\0key", 12), std::string(2 << 20, 'k')}) {
    GgufWriter w;
    w.kv("general.architecture", std::string("llama"));
    w.kv(key, uint32_t{1});
    w.kv(key, uint32_t{2});
    const std::vector<uint8_t> bytes = w.bytes();
    const std::string m = message_of([&] { GgufFile::parse(bytes, "m.gguf"); });
    CHECK_THAT(m, Contains("duplicate key"));
    CHECK_FALSE(has_control_bytes(m));
    CHECK(m.size() < 2500);
  }
}

TEST_CASE("hostile: a FIFO, a device or a directory is refused at once, not opened and waited on") {
  ScratchDir dir;
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No writer ever opens the FIFO: a blocking open would hang here (ctest's timeout fails it).
  CHECK_THAT(message_of([&] { read_regular_file(fifo.string(), "prompt file", kMaxPromptBytes); }),
             Contains("pipe: is a FIFO (named pipe) (expected a regular file: the prompt file)"));
  CHECK_THAT(message_of([&] { GgufFile::open(fifo.string()); }), Contains("is a FIFO"));
  CHECK_THAT(message_of([] { read_regular_file("/dev/zero", "prompt file", kMaxPromptBytes); }), Contains("/dev/zero: is a character device"));
  CHECK_THAT(message_of([&] { read_regular_file((dir / "").string(), "experiment spec", kMaxSpecBytes); }), Contains("is a directory"));
  CHECK_THAT(message_of([&] { read_regular_file((dir / "absent").string(), "experiment spec", kMaxSpecBytes); }), Contains("cannot open the experiment spec"));
  std::ofstream(dir / "big") << std::string(2000, 'x');
  CHECK_THAT(message_of([&] { read_regular_file((dir / "big").string(), "spec", 1000); }), Contains("expected at most"));
  CHECK(read_regular_file((dir / "big").string(), "spec", 2000).size() == 2000);
}

TEST_CASE("hostile: one process per output directory") {
  ScratchDir dir;
  const std::string out = (dir / "").string();
  {
    const DirectoryLock held(out);
    const std::string m = message_of([&] { DirectoryLock second(out); });
    CHECK_THAT(m, Contains("is in use by another draftbench process (pid " + std::to_string(::getpid()) + ";"));
  }
  const DirectoryLock again(out);  // released with its holder
}
