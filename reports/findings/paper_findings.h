// The ReDrafter paper's findings, checked against finished reports (`draftbench report
// --findings`). The finding texts are reports/paper/paper_tables.json's "findings", in
// order; each has one rule here, written as code, that reads the points of whatever reports
// it is given (any mix of the experiments/paper specs) and decides:
//   holds           the measured numbers satisfy the rule;
//   does not hold   they contradict it;
//   not measurable  the reports lack the points the rule needs (named in the summary).
// A finding's numbers (the cells that decide it) and its rule, in words, go with the
// decision, so a reader can check it by hand. Only points with status "ok" count.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/render/table.h"

namespace draftbench {

enum class FindingStatus { holds, does_not_hold, not_measurable };
const char* finding_status_name(FindingStatus status);  // "holds", "does not hold", "not measurable"

struct FindingResult {
  int number = 0;       // 1-based, the order of paper_tables.json's "findings"
  std::string finding;  // the paper's words
  std::string rule;     // how it is decided here
  FindingStatus status = FindingStatus::not_measurable;
  std::string summary;                                // one line: the deciding numbers, or what is missing
  nlohmann::json numbers = nlohmann::json::object();  // the cells that decide it
};

struct FindingsOptions {
  // ReDrafter's training beam length (draft steps + 1) for a report, for finding 6; nullopt
  // when unknown (that half of the finding is then not measurable).
  std::function<std::optional<int>(const nlohmann::json& report)> training_length;
  // The paper tables' file, as errors about its contents name it.
  std::string paper_tables_path = "paper_tables.json";
};

// Every finding of `paper_tables` ("findings": seven strings) against the points of
// `reports` (report.json objects). Throws InputError naming options.paper_tables_path when
// paper_tables is not an object or has not exactly the findings these rules are written for.
std::vector<FindingResult> evaluate_findings(std::span<const nlohmann::json> reports, const nlohmann::json& paper_tables, const FindingsOptions& options = {});

// FINDINGS.md's table and sections; findings.json's array.
std::string findings_markdown(const std::vector<FindingResult>& results);
nlohmann::json findings_json(const std::vector<FindingResult>& results);

// The paper's tables this harness cannot run (Table 2, continuous batching at a request rate;
// Table 3, tensor parallelism): each with the paper's published values (from
// `paper_tables`), what it needs that draftbench does not do, and the nearest run a GPU user
// can make with it. Throws InputError naming `paper_tables_path` when paper_tables is not an
// object or lacks either table's rows.
struct UnrunnableTable {
  Table paper;                 // the published values
  std::string needs, nearest;  // sentences
};
std::vector<UnrunnableTable> unrunnable_tables(const nlohmann::json& paper_tables, const std::string& paper_tables_path = "paper_tables.json");
std::string unrunnable_tables_markdown(const std::vector<UnrunnableTable>& tables);

// An index page: the findings' table and sections, then a link to each report's page
// (`reports`: label, href relative to the page), then the tables not runnable here.
struct ReportLink {
  std::string label, href;
};
std::string findings_html(const std::vector<FindingResult>& results, const std::vector<ReportLink>& reports,
                          const std::vector<UnrunnableTable>& unrunnable = {});

}  // namespace draftbench
