// Writing a report's renderings next to its report.json: tables/<id>.{md,html,tex} and an
// index.html that ties the tables (and the plots scripts/plot_report.py draws) together.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/render/table.h"

namespace draftbench {

// Draws the report's figures into dir/plots with scripts/plot_report.py (matplotlib, in the
// checkout's .venv). Plots are an extra: when Python or matplotlib is missing or the
// script fails, this returns a one-line reason instead of throwing (the tables and the
// measurements stand without them); "" on success.
std::string draw_plots(const std::string& report_path, const std::string& dir, const std::string& checkout);

// Renders into `dir` and returns the tables (the CLI prints the first as Markdown).
// `paper_tables_path` may be empty or absent: then no paper columns.
std::vector<Table> render_report(const nlohmann::json& report, const std::string& dir, const std::string& paper_tables_path);

}  // namespace draftbench
