#include "reports/compare/report_compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "engine/common/error.h"
#include "reports/report/report_json.h"
#include "reports/report/report_shape.h"

namespace draftbench {

namespace {

// Metrics where a larger value is worse.
bool lower_is_better(const std::string& metric) { return metric == "ms_per_token" || metric == "time_to_first_token_s"; }

std::string label_of(const nlohmann::json& p) {
  return fmt::format("{} {} | {}", p["drafter"].get<std::string>(), describe_params(p["params"]), p["dataset"].get<std::string>());
}

// Repeats' spread of a metric, when the report kept one (tps and throughput); a spread
// without numeric stdev and n is treated as none (not judgeable), not as an error.
bool spread_of(const nlohmann::json& p, const std::string& metric, double& stdev, double& n) {
  if (!p.contains("spread") || !p["spread"].is_object() || !p["spread"].contains(metric)) return false;
  const nlohmann::json& s = p["spread"][metric];
  if (!s.is_object() || !s.contains("stdev") || !s.contains("n") || !s["stdev"].is_number() || !s["n"].is_number()) return false;
  stdev = s["stdev"].get<double>();
  n = s["n"].get<double>();
  return n >= 2;
}

// points[i].metrics[metric] of the report at `path`, which must be a number.
double metric_of(const nlohmann::json& points, size_t i, const std::string& metric, const std::string& path) {
  const nlohmann::json& v = points[i]["metrics"][metric];
  if (!v.is_number()) throw InputError(path, fmt::format("field 'points[{}].metrics.{}'", i, metric), fmt::format("{} (expected a number)", describe_value(v)));
  return v.get<double>();
}

}  // namespace

int Comparison::regressions() const {
  int n = 0;
  for (const PointDifference& d : points) n += d.regression ? 1 : 0;
  return n + static_cast<int>(failed.size());
}

Comparison compare_reports(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& o, const std::string& a_path, const std::string& b_path) {
  std::map<std::string, size_t> in_b;  // key -> index in b's points
  for (size_t i = 0; i < b["points"].size(); ++i) in_b[b["points"][i]["key"].get<std::string>()] = i;
  Comparison c;
  bool metric_seen = false;
  int both_ok = 0;
  std::map<std::string, bool> matched;
  for (size_t ia = 0; ia < a["points"].size(); ++ia) {
    const nlohmann::json& pa = a["points"][ia];
    const std::string key = pa["key"];
    const auto it = in_b.find(key);
    if (it == in_b.end()) {
      c.only_in_a.push_back(label_of(pa));
      continue;
    }
    matched[key] = true;
    const nlohmann::json& pb = b["points"][it->second];
    if (pa["status"] != "ok" || pb["status"] != "ok") {
      (pa["status"] == "ok" ? c.failed : c.not_ok)
          .push_back(fmt::format("{} ({} -> {})", label_of(pa), pa["status"].get<std::string>(), pb["status"].get<std::string>()));
      continue;
    }
    ++both_ok;
    if (!pa["metrics"].contains(o.metric) || !pb["metrics"].contains(o.metric)) continue;
    metric_seen = true;
    PointDifference d;
    d.key = key;
    d.label = label_of(pa);
    d.a = metric_of(a["points"], ia, o.metric, a_path);
    d.b = metric_of(b["points"], it->second, o.metric, b_path);
    d.change = d.a != 0 ? d.b / d.a - 1.0 : 0.0;
    double sa = 0, na = 0, sb = 0, nb = 0;
    const bool judgeable = spread_of(pa, o.metric, sa, na) && spread_of(pb, o.metric, sb, nb);
    const bool significant = judgeable && std::fabs(d.b - d.a) > 2.0 * std::sqrt(sa * sa / na + sb * sb / nb);
    d.significance = std::string(!judgeable ? "?" : significant ? "*" : "");  // constructed, not assigned: GCC 12's -Wrestrict false positive (PR 105651)
    const double worse = lower_is_better(o.metric) ? d.change : -d.change;
    d.regression = worse > o.threshold && (!judgeable || significant);
    c.points.push_back(std::move(d));
  }
  for (const nlohmann::json& pb : b["points"])
    if (!matched.count(pb["key"].get<std::string>())) c.only_in_b.push_back(label_of(pb));
  if (both_ok > 0 && !metric_seen) throw InputError("compare", "--metric", fmt::format("'{}' is not a metric of these reports", o.metric));
  if (both_ok == 0 && c.not_ok.empty() && c.failed.empty())
    throw InputError("compare", "reports", "have no point in common (expected two runs of the same spec)");
  return c;
}

std::string comparison_text(const Comparison& c, const CompareOptions& o) {
  std::string out = fmt::format("| point | A {0} | B {0} | change | sig. | |\n|---|---:|---:|---:|:---:|---|\n", o.metric);
  for (const PointDifference& d : c.points)
    out +=
        fmt::format("| {} | {:.3f} | {:.3f} | {:+.1f}% | {} | {} |\n", d.label, d.a, d.b, 100.0 * d.change, d.significance, d.regression ? "REGRESSION" : "");
  for (const std::string& s : c.failed) out += fmt::format("\nREGRESSION (failed in B): {}", s);
  for (const std::string& s : c.not_ok) out += fmt::format("\nnot comparable (status): {}", s);
  for (const std::string& s : c.only_in_a) out += fmt::format("\nonly in A: {}", s);
  for (const std::string& s : c.only_in_b) out += fmt::format("\nonly in B: {}", s);
  out += fmt::format(
      "\n\n{} point(s) compared on {}; {} regression(s): {} beyond {:.1f}%, {} failed in B (sig.: * = beyond twice the repeats' standard error, ? = "
      "fewer than 2 repeats)\n",
      c.points.size(), o.metric, c.regressions(), c.regressions() - static_cast<int>(c.failed.size()), 100.0 * o.threshold, c.failed.size());
  return out;
}

}  // namespace draftbench
