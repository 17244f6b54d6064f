#include "reports/report/report_json.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "reports/report/report_shape.h"

namespace draftbench {

namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// At temperature 0 every drafter must reproduce the baseline's tokens, prompt by prompt.
nlohmann::json same_tokens(const nlohmann::json& point, const nlohmann::json& baseline) {
  if (point["point"]["params"]["temperature"].get<double>() != 0.0) return nullptr;
  const nlohmann::json& a = point["per_prompt"];
  const nlohmann::json& b = baseline["per_prompt"];
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]["tokens_fingerprint"] != b[i]["tokens_fingerprint"]) return false;
  return true;
}

}  // namespace

std::string describe_params(const nlohmann::json& params) {
  std::string s;
  for (const auto& [axis, v] : params.items())
    if (axis != "drafter") s += fmt::format("{}{}={}", s.empty() ? "" : " ", axis, v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

nlohmann::json build_report(const nlohmann::json& resolved, const nlohmann::json& source, const nlohmann::json& environment,
                            const std::vector<nlohmann::json>& records) {
  std::map<std::string, const nlohmann::json*> by_key;
  for (const nlohmann::json& r : records) by_key[r["key"].get<std::string>()] = &r;
  nlohmann::json points = nlohmann::json::array();
  for (const nlohmann::json& r : records) {
    nlohmann::json p = r["point"];
    p["status"] = r["status"];
    for (const char* field : {"message", "metrics", "spread", "per_category", "per_prompt", "memory", "wall_s", "device"})
      if (r.contains(field)) p[field] = r[field];
    const auto base = r["point"].contains("baseline") ? by_key.find(r["point"]["baseline"].get<std::string>()) : by_key.end();
    const bool comparable = base != by_key.end() && r["status"] == "ok" && (*base->second)["status"] == "ok";
    if (comparable) {
      const nlohmann::json& b = *base->second;
      const double base_tps = b["metrics"]["tps"].get<double>();
      p["metrics"]["baseline_tps"] = base_tps;
      p["metrics"]["speedup"] = base_tps > 0 ? p["metrics"]["tps"].get<double>() / base_tps : 0.0;
      for (auto& [category, m] : p["per_category"].items())
        if (b["per_category"].contains(category)) {
          const double c = b["per_category"][category]["tps"].get<double>();
          m["speedup"] = c > 0 ? m["tps"].get<double>() / c : 0.0;
        }
      p["same_tokens_as_baseline"] = same_tokens(r, b);
    } else if (r["point"]["kind"] == "autoregressive" && r["status"] == "ok") {
      p["metrics"]["speedup"] = 1.0;
    }
    points.push_back(std::move(p));
  }
  return {{"schema", "draftbench-report"},
          {"schema_version", kReportSchemaVersion},
          {"created_utc", utc_now()},
          {"spec", resolved},
          {"spec_source", source},
          {"environment", environment},
          {"points", points}};
}

nlohmann::json load_report(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path, "", "cannot open the report");
  const nlohmann::json report = nlohmann::json::parse(f, nullptr, false);
  if (report.is_discarded() || !report.is_object() || report.value("schema", "") != "draftbench-report" || !report.contains("points"))
    throw InputError(path, "", "not a draftbench report (expected the report.json `draftbench run` writes)");
  check_report_shape(report, path);
  return report;
}

void write_report(const nlohmann::json& report, const std::string& path) { write_file_atomically(path, report.dump(1) + "\n"); }

}  // namespace draftbench
