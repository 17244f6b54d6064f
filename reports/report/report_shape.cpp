#include "reports/report/report_shape.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "reports/report/report_json.h"

namespace draftbench {

namespace {

using nlohmann::json;
using Test = bool (*)(const json&);

bool is_object(const json& v) { return v.is_object(); }
bool is_array(const json& v) { return v.is_array(); }
bool is_string(const json& v) { return v.is_string(); }
bool is_integer(const json& v) { return v.is_number_integer(); }
bool is_boolean(const json& v) { return v.is_boolean(); }
bool is_string_or_null(const json& v) { return v.is_string() || v.is_null(); }
bool is_schema_version(const json& v) { return v.is_number_integer() && v.get<long long>() == kReportSchemaVersion; }

// Looks fields up in one report, throwing InputError that names the file and the field.
class Fields {
 public:
  explicit Fields(const std::string& path) : path_(path) {}

  // `parent[key]`, which must be present and pass `ok`; `where` is its name in messages.
  const json& require(const json& parent, const char* key, const std::string& where, Test ok, const char* expected) const {
    const auto it = parent.find(key);
    if (it == parent.end()) throw InputError(path_, fmt::format("field '{}'", where), fmt::format("missing (expected {})", expected));
    check(*it, where, ok, expected);
    return *it;
  }

  // `parent[key]` when present: it must pass `ok`.
  void optional(const json& parent, const char* key, const std::string& where, Test ok, const char* expected) const {
    const auto it = parent.find(key);
    if (it != parent.end()) check(*it, where, ok, expected);
  }

  void check(const json& value, const std::string& where, Test ok, const char* expected) const {
    if (!ok(value)) throw InputError(path_, fmt::format("field '{}'", where), fmt::format("{} (expected {})", describe_value(value), expected));
  }

 private:
  const std::string& path_;
};

void check_environment(const Fields& f, const json& report) {
  const json& env = f.require(report, "environment", "environment", is_object, "an object: the machine the report measured");
  f.require(f.require(env, "cpu", "environment.cpu", is_object, "an object"), "model", "environment.cpu.model", is_string, "a string");
  f.require(env, "threads", "environment.threads", is_integer, "an integer");
  const json& git = f.require(env, "git", "environment.git", is_object, "an object");
  f.require(git, "commit", "environment.git.commit", is_string, "a string");
  f.require(git, "dirty", "environment.git.dirty", is_boolean, "true or false");
  f.optional(env, "device", "environment.device", is_string, "a string");
}

void check_point(const Fields& f, const json& point, size_t i) {
  const std::string at = fmt::format("points[{}]", i);
  f.check(point, at, is_object, "an object");
  for (const char* key : {"key", "dataset", "drafter", "kind", "status"}) f.require(point, key, fmt::format("{}.{}", at, key), is_string, "a string");
  f.require(point, "params", at + ".params", is_object, "an object");
  if (point["status"] == "ok") f.require(point, "metrics", at + ".metrics", is_object, "an object, as the status is \"ok\"");
  f.optional(point, "spread", at + ".spread", is_object, "an object");
  f.optional(point, "baseline", at + ".baseline", is_string, "a string");
}

}  // namespace

std::string describe_value(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return v.dump();
}

void check_report_shape(const nlohmann::json& report, const std::string& path) {
  const Fields f(path);
  f.require(report, "schema_version", "schema_version", is_schema_version, fmt::format("{}", kReportSchemaVersion).c_str());
  f.require(report, "created_utc", "created_utc", is_string, "a string");
  const json& spec = f.require(report, "spec", "spec", is_object, "an object: the spec as it ran");
  f.require(spec, "name", "spec.name", is_string, "a string");
  f.optional(spec, "description", "spec.description", is_string, "a string");
  f.optional(spec, "paper", "spec.paper", is_string_or_null, "a paper table's name or null");
  check_environment(f, report);
  const json& points = f.require(report, "points", "points", is_array, "an array");
  for (size_t i = 0; i < points.size(); ++i) check_point(f, points[i], i);
}

}  // namespace draftbench
