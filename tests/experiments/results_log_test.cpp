// results.jsonl: what was appended survives, a torn last line is dropped (and truncated
// away), and an edited or corrupted record is refused rather than silently discarded.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "engine/common/error.h"
#include "experiments/runner/results_log.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;

namespace {
nlohmann::json record(int i) { return {{"key", "point-" + std::to_string(i)}, {"status", "ok"}, {"metrics", {{"tps", 10.5 + i}}}}; }

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
// A results file with records 0 and 1; returns its bytes.
std::string two_records(const std::string& path) {
  {
    ResultsLog log(path);
    log.append(record(0));
    log.append(record(1));
  }
  return read_all(path);
}
}  // namespace

TEST_CASE("results log: appended records are read back, in order, by key") {
  test::TempDir dir("results_log_roundtrip");
  const std::string path = dir / "results.jsonl";
  {
    ResultsLog log(path);
    REQUIRE(log.records().empty());
    for (int i = 0; i < 3; ++i) log.append(record(i));
  }
  ResultsLog again(path);
  REQUIRE(again.records().size() == 3);
  REQUIRE(again.records()[2] == record(2));
  REQUIRE(again.has("point-1"));
  REQUIRE_FALSE(again.has("point-3"));
  REQUIRE((*again.find("point-0"))["metrics"]["tps"] == 10.5);
  REQUIRE(ResultsLog::read(path).size() == 3);
}

TEST_CASE("results log: a key recorded again (a retried point) reads as its latest record, in its first place") {
  test::TempDir dir("results_log_retry");
  const std::string path = dir / "results.jsonl";
  const std::string before = two_records(path);
  nlohmann::json retried = record(0);
  retried["status"] = "error";
  retried["message"] = "a second try";
  {
    ResultsLog log(path);
    log.append(retried);
    REQUIRE(log.records().size() == 2);
    REQUIRE(log.records()[0] == retried);
    REQUIRE(*log.find("point-0") == retried);
  }
  // Append-only: the first record is still on disk, before the one that supersedes it.
  REQUIRE(read_all(path).rfind(before, 0) == 0);
  const std::vector<nlohmann::json> read = ResultsLog::read(path);
  REQUIRE(read.size() == 2);
  REQUIRE(read[0] == retried);
  REQUIRE(read[1] == record(1));
  REQUIRE(ResultsLog(path).records() == read);
}

TEST_CASE("results log: a torn last line (a killed append) is dropped and truncated away") {
  test::TempDir dir("results_log_torn");
  const std::string path = dir / "results.jsonl";
  const std::string whole = two_records(path);
  // Cut the second line anywhere inside its JSON: the first record must survive.
  const size_t second = whole.find('\n') + 1;
  for (size_t cut : {second + 1, second + 40, whole.size() - 2}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << whole.substr(0, cut);
    ResultsLog log(path);
    REQUIRE(log.records().size() == 1);
    REQUIRE(log.records()[0] == record(0));
    REQUIRE(std::filesystem::file_size(path) == second);
    log.append(record(1));  // and the run continues after it
    REQUIRE(read_all(path) == whole);
  }
}

TEST_CASE("results log: a whole last record without its newline is kept, and the newline restored") {
  test::TempDir dir("results_log_no_newline");
  const std::string path = dir / "results.jsonl";
  const std::string whole = two_records(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << whole.substr(0, whole.size() - 1);
  REQUIRE(ResultsLog::read(path).size() == 2);  // a read-only look keeps it too, and writes nothing
  REQUIRE(std::filesystem::file_size(path) == whole.size() - 1);
  {
    ResultsLog log(path);
    REQUIRE(log.records().size() == 2);
    REQUIRE(log.records()[1] == record(1));
    REQUIRE(read_all(path) == whole);
    log.append(record(2));
  }
  REQUIRE(ResultsLog::read(path).size() == 3);
}

TEST_CASE("results log: an edited record or a garbled line is an error naming the line") {
  test::TempDir dir("results_log_corrupt");
  const std::string path = dir / "results.jsonl";
  std::string text = two_records(path);
  SECTION("a changed value fails its checksum") {
    text.replace(text.find("11.5"), 4, "99.5");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    REQUIRE_THROWS_WITH(ResultsLog(path), Catch::Contains("line 2: checksum mismatch"));
  }
  SECTION("a garbled whole line is not a torn append") {
    text.insert(0, "{not json\n");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    REQUIRE_THROWS_WITH(ResultsLog(path), Catch::Contains("line 1: not valid JSON"));
  }
  SECTION("a line without a record") {
    std::ofstream(path, std::ios::binary | std::ios::app) << "{\"sha256\": \"x\"}\n";
    REQUIRE_THROWS_WITH(ResultsLog::read(path), Catch::Contains("line 3: expected {\"sha256\""));
  }
}
