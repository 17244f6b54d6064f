// report.json (schema: reports/schema/report.schema.json): the resolved spec, the
// environment, and per point its parameters, status and metrics, with each speedup divided
// by the autoregressive baseline measured in the same sweep, and — at temperature 0 —
// whether the point's tokens equal the baseline's (they must: decoding is lossless).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

inline constexpr int kReportSchemaVersion = 1;

// Joins results records (experiments/runner/results_log.h) with the spec as it ran
// (resolved: paths and defaults filled in) and as written into a report. Records whose baseline is missing
// (another shard's, not merged yet) get no speedup.
nlohmann::json build_report(const nlohmann::json& resolved_spec, const nlohmann::json& source_spec, const nlohmann::json& environment,
                            const std::vector<nlohmann::json>& records);

// A point's parameters but the drafter, as "axis=value" pairs ("beam_width=8 ...").
std::string describe_params(const nlohmann::json& params);

// Reads a report.json; throws InputError naming the file when it is not JSON, not a
// draftbench report, of another schema version, or lacks a field the readers rely on
// (report_shape.h), so that they may index those fields without checking.
nlohmann::json load_report(const std::string& path);

// Writes `report` to `path` atomically (temporary file, then rename).
void write_report(const nlohmann::json& report, const std::string& path);

}  // namespace draftbench
