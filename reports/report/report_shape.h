// The shape of a report.json that the readers (rendering, `compare`, `report --findings`)
// rely on: every key they index and every value they convert, checked once when a report
// is loaded, so that a hand-edited or truncated report is a one-line error naming the file,
// the field and what was expected, never undefined behaviour in a reader.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace draftbench {

// Throws InputError("<path>", "field '<where>'", "<what it is> (expected <what>)") for the
// first field that is missing or of the wrong type:
//   schema_version                                  the integer kReportSchemaVersion
//   created_utc                                     a string
//   spec                                            an object with a string `name`
//                                                   (`description`: string, `paper`: string or null, when present)
//   environment                                     an object with cpu.model (string), threads
//                                                   (integer), git.commit (string), git.dirty (boolean)
//   points                                          an array of objects, each with key, dataset,
//                                                   drafter, kind and status (strings) and
//                                                   params (an object); metrics (an object) when
//                                                   status is "ok"; spread an object when present
// Metric values are not checked: a metric may be null (a non-finite number written as JSON),
// and each reader decides what a non-number means for it.
void check_report_shape(const nlohmann::json& report, const std::string& path);

// A value as error messages show it: "an object", "an array", or scalars as written
// (InputError bounds the length).
std::string describe_value(const nlohmann::json& value);

}  // namespace draftbench
