// `draftbench compare A.json B.json`: per-point differences between two reports (points
// matched by key), with a significance marker from the repeats' spread, and a verdict on
// whether a chosen metric regressed beyond a threshold, or a point that finished in A did
// not in B (for CI: exit non-zero).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

struct CompareOptions {
  std::string metric = "tps";  // a key of a point's metrics
  double threshold = 0.05;     // relative change counted as a regression (5%)
};

struct PointDifference {
  std::string key, label;
  double a = 0, b = 0, change = 0;  // change = b / a - 1
  // "*": the difference exceeds twice its standard error from the repeats; "" when it does
  // not; "?" when either side has fewer than two repeats (no spread to judge by).
  std::string significance;
  bool regression = false;  // worse by more than the threshold (and significant, when judgeable)
};

struct Comparison {
  std::vector<PointDifference> points;
  // Labels with "(A status -> B status)": `failed` holds the points ok in A but not in B
  // (each a regression: a run whose points all fail must not pass a gate), `not_ok` those
  // not ok in A (nothing to compare against).
  std::vector<std::string> failed, not_ok;
  std::vector<std::string> only_in_a, only_in_b;  // labels
  int regressions() const;                        // metric regressions plus failed points
};

// `a` and `b` as load_report returns them; `a_path` and `b_path` name them in errors.
// Throws InputError naming the metric when it is unknown to both reports, and naming the
// report, the point and the metric when a point both finished has it but not as a number.
Comparison compare_reports(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& options, const std::string& a_path = "A",
                           const std::string& b_path = "B");

// A Markdown table of the comparison, and a summary line.
std::string comparison_text(const Comparison& comparison, const CompareOptions& options);

}  // namespace draftbench
