// The tables a report renders, laid out like the ReDrafter paper's where the sweep has
// that shape, with the paper's published numbers beside ours when the spec names a paper
// table (reports/paper/paper_tables.json):
//   points  every point: parameters, status, tokens/step, TPS, speedup, lossless check
//   table1  drafters x datasets x temperatures: speedup and tokens/step (one point per cell)
//   table4  ReDrafter by beam width: TPS, speedup, tokens/step
//   table5  ReDrafter by beam width x batch size: TPS and TPS x BSZ, OOM cells
//   table6  ReDrafter by beam width, with and without distillation
// A layout appears when the sweep has its shape (ReDrafter points along its axes, other
// axes held at the first point's values); the table the spec names comes first.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "reports/render/table.h"

namespace draftbench {

// `paper`: the contents of paper_tables.json (null = no paper columns).
std::vector<Table> report_tables(const nlohmann::json& report, const nlohmann::json& paper);

// A table cell for a JSON number in `format` (fmt syntax); "–" for anything else (a value
// the paper left illegible, a metric a point lacks).
std::string number_cell(const nlohmann::json& value, const char* format = "{:.2f}");

}  // namespace draftbench
