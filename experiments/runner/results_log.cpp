#include "experiments/runner/results_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/sha256.h"

namespace draftbench {

namespace {

// A results file is read whole; past this it is not one draftbench wrote.
constexpr uint64_t kMaxResultsBytes = uint64_t{4} << 30;

struct Parsed {
  std::vector<nlohmann::json> records;   // the latest record of each key, in first-seen order
  std::map<std::string, size_t> by_key;  // key -> index in records
  uint64_t valid_bytes = 0;              // the prefix of whole, checked lines
  bool lacks_final_newline = false;      // the last record is whole and checked but its newline is missing
};

// A results line as a checked record, or nothing when it is not valid JSON (a torn append).
// Any other defect throws: a whole line that fails its checks was not torn but damaged.
std::optional<nlohmann::json> checked_record(const std::string& path, int line, std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  if (!j.is_object() || !j.contains("sha256") || !j.contains("record") || !j["record"].is_object() || !j["record"].contains("key") ||
      !j["record"]["key"].is_string())
    throw InputError(path, fmt::format("line {}", line), "expected {\"sha256\": ..., \"record\": {\"key\": ...}}");
  if (j["sha256"] != sha256_hex(j["record"].dump()))
    throw InputError(path, fmt::format("line {}", line), "checksum mismatch (the record was edited or corrupted)");
  return std::move(j["record"]);
}

// A retried point (run --retry-errors) appends a new record under its key: the latest one
// stands, in the key's first place, and the file stays append-only.
void keep_latest(std::vector<nlohmann::json>& records, std::map<std::string, size_t>& by_key, nlohmann::json record) {
  const auto [it, fresh] = by_key.emplace(record["key"].get<std::string>(), records.size());
  if (fresh) records.push_back(std::move(record));
  else records[it->second] = std::move(record);
}

Parsed parse(const std::string& path) {
  Parsed out;
  if (!std::filesystem::exists(path)) return out;
  const std::string bytes = read_regular_file(path, "results file", kMaxResultsBytes);
  const std::string_view all(bytes);
  size_t at = 0;
  for (int line = 1; at < bytes.size(); ++line) {
    const size_t nl = bytes.find('\n', at);
    if (nl == std::string::npos) {
      // Appends end with the newline, so a last line without one was torn mid-append and is
      // dropped; but a whole, checked record there (the newline lost by an editor or a copy)
      // is kept, and the newline restored by the caller.
      if (std::optional<nlohmann::json> record = checked_record(path, line, all.substr(at))) {
        keep_latest(out.records, out.by_key, std::move(*record));
        out.valid_bytes = bytes.size();
        out.lacks_final_newline = true;
      }
      break;
    }
    std::optional<nlohmann::json> record = checked_record(path, line, all.substr(at, nl - at));
    if (!record) throw InputError(path, fmt::format("line {}", line), "not valid JSON (a results line is written whole or not at all)");
    keep_latest(out.records, out.by_key, std::move(*record));
    at = nl + 1;
    out.valid_bytes = at;
  }
  return out;
}

}  // namespace

ResultsLog::ResultsLog(std::string path) : path_(std::move(path)) {
  Parsed p = parse(path_);
  if (p.lacks_final_newline) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    const bool ok = fd >= 0 && write_all_and_sync(fd, "\n");
    const int err = errno;
    if (fd >= 0) ::close(fd);
    if (!ok) throw InputError(path_, "", fmt::format("cannot restore the newline after the last record: {}", std::strerror(err)));
    p.valid_bytes += 1;
  }
  if (std::filesystem::exists(path_) && std::filesystem::file_size(path_) != p.valid_bytes) {
    std::error_code ec;
    std::filesystem::resize_file(path_, p.valid_bytes, ec);
    if (ec) throw InputError(path_, "", fmt::format("cannot drop the torn last line: {}", ec.message()));
  }
  records_ = std::move(p.records);
  by_key_ = std::move(p.by_key);
}

const nlohmann::json* ResultsLog::find(const std::string& key) const {
  const auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &records_[it->second];
}

void ResultsLog::append(const nlohmann::json& record) {
  DB_CHECK(record.contains("key") && record["key"].is_string());
  const std::string line = nlohmann::json{{"sha256", sha256_hex(record.dump())}, {"record", record}}.dump() + "\n";
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path_, "", fmt::format("cannot open for appending: {}", std::strerror(errno)));
  const bool ok = write_all_and_sync(fd, line);
  const int err = errno;
  ::close(fd);
  if (!ok) throw InputError(path_, "", fmt::format("cannot append a record and flush it to disk: {}", std::strerror(err)));
  keep_latest(records_, by_key_, record);
}

std::vector<nlohmann::json> ResultsLog::read(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path, "", "no such results file");
  return parse(path).records;
}

}  // namespace draftbench
