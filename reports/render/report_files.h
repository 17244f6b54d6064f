// Writing a report's renderings next to its report.json: tables/<id>.{md,html,tex} and an
// index.html that ties the tables (and the plots scripts/plot_report.py draws) together.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace draftbench {

// Renders the report written at `report_path` into `dir`: plots (scripts/plot_report.py, in
// the checkout's .venv), tables with the paper's numbers where the spec names a table
// (checkout/reports/paper/paper_tables.json; the tables of layouts that no longer apply are
// removed), and index.html. Returns what the CLI prints:
// the first table as Markdown and where index.html is. Plots are an extra: when Python or
// matplotlib is missing or the script fails, the text says so in one line instead of the
// call failing (the tables and the measurements stand without them).
std::string render_report(const nlohmann::json& report, const std::string& report_path, const std::string& dir, const std::string& checkout);

}  // namespace draftbench
