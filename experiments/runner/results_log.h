// The results of a sweep, one JSON record per finished point, in `results.jsonl`. Every
// line carries the SHA-256 of its record and is fsync'd before the next point starts, so
// the file is always valid: a run killed mid-write leaves at most a torn last line, which
// opening drops (and truncates away) — everything measured before it is kept. A whole last
// record that only lacks its newline is kept (the newline is restored). A key
// recorded twice (a point retried after an error) reads as its latest record.
//
//   {"sha256": "<hex of record.dump()>", "record": {"key": ..., "status": ..., ...}}
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

class ResultsLog {
 public:
  // Reads `path` (absent = no records). A last line without its newline that is not valid
  // JSON is a torn append: dropped and truncated away. One that is a whole, checked record
  // is kept, and its newline restored. Any other bad line (not JSON, a failed checksum) is an
  // InputError naming the line: results are never silently discarded.
  explicit ResultsLog(std::string path);

  const std::vector<nlohmann::json>& records() const { return records_; }
  bool has(const std::string& key) const { return by_key_.count(key) > 0; }
  const nlohmann::json* find(const std::string& key) const;

  // Appends a record (which must have a string "key"), flushed to disk before returning;
  // it supersedes an earlier record of the same key.
  void append(const nlohmann::json& record);

  // Reads the records of a results file without opening it for writing.
  static std::vector<nlohmann::json> read(const std::string& path);

 private:
  std::string path_;
  std::vector<nlohmann::json> records_;
  std::map<std::string, size_t> by_key_;
};

}  // namespace draftbench
