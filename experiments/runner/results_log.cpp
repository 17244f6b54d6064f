#include "experiments/runner/results_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/common/error.h"
#include "engine/common/sha256.h"

namespace draftbench {

namespace {

struct Parsed {
  std::vector<nlohmann::json> records;  // the latest record of each key, in first-seen order
  std::map<std::string, size_t> by_key;  // key -> index in records
  uint64_t valid_bytes = 0;              // the prefix of whole, checked lines
};

// A retried point (run --retry-errors) appends a new record under its key: the latest one
// stands, in the key's first place, and the file stays append-only.
void keep_latest(std::vector<nlohmann::json>& records, std::map<std::string, size_t>& by_key, nlohmann::json record) {
  const auto [it, fresh] = by_key.emplace(record["key"].get<std::string>(), records.size());
  if (fresh)
    records.push_back(std::move(record));
  else
    records[it->second] = std::move(record);
}

Parsed parse(const std::string& path) {
  Parsed out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = 0;
  for (int line = 1; at < bytes.size(); ++line) {
    const size_t nl = bytes.find('\n', at);
    // Appends end with the newline, so a last line without one is a torn append: drop it.
    if (nl == std::string::npos) break;
    nlohmann::json j = nlohmann::json::parse(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(nl), nullptr, false);
    if (j.is_discarded()) throw InputError(path, fmt::format("line {}", line), "not valid JSON (a results line is written whole or not at all)");
    if (!j.is_object() || !j.contains("sha256") || !j.contains("record") || !j["record"].is_object() || !j["record"].contains("key") ||
        !j["record"]["key"].is_string())
      throw InputError(path, fmt::format("line {}", line), "expected {\"sha256\": ..., \"record\": {\"key\": ...}}");
    if (j["sha256"] != sha256_hex(j["record"].dump()))
      throw InputError(path, fmt::format("line {}", line), "checksum mismatch (the record was edited or corrupted)");
    keep_latest(out.records, out.by_key, std::move(j["record"]));
    at = nl + 1;
    out.valid_bytes = at;
  }
  return out;
}

}  // namespace

ResultsLog::ResultsLog(std::string path) : path_(std::move(path)) {
  Parsed p = parse(path_);
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
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      throw InputError(path_, "", fmt::format("cannot append a record: {}", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) throw InputError(path_, "", "cannot flush a record to disk");
  keep_latest(records_, by_key_, record);
}

std::vector<nlohmann::json> ResultsLog::read(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path, "", "no such results file");
  return parse(path).records;
}

}  // namespace draftbench
