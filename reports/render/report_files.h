// Writing a report's renderings next to its report.json: tables/<id>.{md,html,tex} and an
// index.html that ties the tables (and the plots scripts/plot_report.py draws) together.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/render/table.h"

namespace draftbench {

// Renders into `dir` and returns the tables (the CLI prints the first as Markdown).
// `paper_tables_path` may be empty or absent: then no paper columns.
std::vector<Table> render_report(const nlohmann::json& report, const std::string& dir, const std::string& paper_tables_path);

}  // namespace draftbench
