#include "reports/render/report_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <set>

#include "reports/report/report_json.h"

namespace draftbench {

namespace {

const nlohmann::json& metric(const nlohmann::json& point, const char* name) {
  static const nlohmann::json none;
  return point.contains("metrics") && point["metrics"].contains(name) ? point["metrics"][name] : none;
}

// The paper table the spec names; "" for none (the key is optional, and may be null).
std::string spec_paper(const nlohmann::json& report) {
  const nlohmann::json paper = report["spec"].value("paper", nlohmann::json());
  return paper.is_string() ? paper.get<std::string>() : "";
}

// A value a layout can place on an axis: a number, or a boolean (as 1 or 0).
bool is_axis_value(const nlohmann::json& v) { return v.is_number() || v.is_boolean(); }

// A cell for a point that did not finish says why.
std::string cell(const nlohmann::json* point, const char* name, const char* format = "{:.2f}") {
  if (!point) return "";
  if ((*point)["status"] != "ok") return (*point)["status"] == "oom" ? "OOM" : (*point)["status"].get<std::string>();
  return number_cell(metric(*point, name), format);
}

Table points_table(const nlohmann::json& report) {
  Table t;
  t.id = "points";
  t.caption = fmt::format("{}: every point", report["spec"]["name"].get<std::string>());
  t.header = {"drafter", "parameters", "dataset", "status", "tokens/step", "TPS", "speedup", "same tokens as baseline"};
  for (const nlohmann::json& p : report["points"]) {
    const nlohmann::json same = p.value("same_tokens_as_baseline", nlohmann::json());
    t.rows.push_back({p["drafter"].get<std::string>(), describe_params(p["params"]), p["dataset"].get<std::string>(), p["status"].get<std::string>(),
                      cell(&p, "tokens_per_step"), cell(&p, "tps", "{:.1f}"), cell(&p, "speedup", "{:.2f}x"),
                      same.is_boolean() ? (same.get<bool>() ? "yes" : "NO") : "–"});
  }
  return t;
}

// A row per metric in the beam-width tables: (label, metrics key, format).
struct MetricRow {
  const char* label;
  const char* key;
  const char* format;
};
constexpr MetricRow kSpeedupRows[] = {{"speedup", "speedup", "{:.2f}x"}, {"tokens/step", "tokens_per_step", "{:.2f}"}};
constexpr MetricRow kTpsSpeedupRows[] = {{"TPS", "tps", "{:.1f}"}, {"speedup", "speedup", "{:.2f}x"}, {"tokens/step", "tokens_per_step", "{:.2f}"}};

// The paper reports MT-Bench and AlpacaEval; a dataset is matched to one by its name.
std::string paper_dataset(const std::string& ours) { return ours.find("alpaca") != std::string::npos ? "alpaca_eval" : "mt_bench"; }

// Only for sweeps of that shape: drafters beside autoregressive decoding, one point per
// (dataset, temperature, drafter) at batch 1.
// A drafter swept over other axes (beam width, say) has no single cell value; its layouts
// are the beam-width tables, and picking one of its points here would misreport it.
std::optional<Table> table1(const nlohmann::json& report, const nlohmann::json& paper) {
  Table t;
  t.id = "table1";
  t.caption = "Speedup and tokens/step by drafter, dataset and temperature (Table 1 layout), batch size 1";
  std::vector<std::string> datasets;
  std::set<double> temperatures;
  std::set<std::pair<double, std::string>> rows;  // (temperature, drafter)
  std::map<std::tuple<std::string, double, std::string>, const nlohmann::json*> at;
  std::vector<std::string> drafter_order;
  bool any_drafter = false;
  for (const nlohmann::json& p : report["points"]) {
    // A point without both axes has no cell here; the points table still shows it.
    const nlohmann::json temperature = p["params"].value("temperature", nlohmann::json());
    if (p["params"].value("batch_size", nlohmann::json()) != 1 || !temperature.is_number()) continue;
    const std::string ds = p["dataset"], drafter = p["drafter"];
    const double temp = temperature.get<double>();
    if (std::find(datasets.begin(), datasets.end(), ds) == datasets.end()) datasets.push_back(ds);
    if (std::find(drafter_order.begin(), drafter_order.end(), drafter) == drafter_order.end()) drafter_order.push_back(drafter);
    rows.insert({temp, drafter});
    temperatures.insert(temp);
    if (!at.emplace(std::make_tuple(ds, temp, drafter), &p).second) return std::nullopt;
    any_drafter = any_drafter || p["kind"] != "autoregressive";
  }
  if (!any_drafter) return std::nullopt;
  t.header = {"T", "drafter"};
  t.groups = {{"", 2}};
  for (const std::string& ds : datasets) {
    t.groups.push_back({ds, 2});
    t.header.insert(t.header.end(), {"speedup", "tokens/step"});
  }
  const bool with_paper = !paper.is_null() && spec_paper(report) == "table1";
  if (with_paper) {
    for (const std::string& ds : datasets) {
      t.groups.push_back({fmt::format("paper, {} (Vicuna-7B, H100)", paper_dataset(ds)), 2});
      t.header.insert(t.header.end(), {"speedup", "tokens/step"});
    }
  }
  for (double temp : temperatures)
    for (const std::string& drafter : drafter_order) {
      if (!rows.count({temp, drafter})) continue;
      std::vector<std::string> row = {fmt::format("{:g}", temp), drafter};
      for (const std::string& ds : datasets) {
        const auto it = at.find({ds, temp, drafter});
        const nlohmann::json* p = it == at.end() ? nullptr : it->second;
        row.push_back(cell(p, "speedup", "{:.2f}x"));
        row.push_back(cell(p, "tokens_per_step"));
      }
      if (with_paper)
        for (const std::string& ds : datasets) {
          const nlohmann::json* found = nullptr;
          for (const nlohmann::json& r : paper["table1"]["rows"])
            if (r["dataset"] == paper_dataset(ds) && r["temperature"].get<double>() == temp && r["drafter"] == drafter) found = &r;
          row.push_back(found ? number_cell((*found)["speedup"][0], "{:.2f}x") : "");
          row.push_back(found ? number_cell((*found)["tokens_per_step"][0]) : "");
        }
      t.rows.push_back(std::move(row));
    }
  t.notes.push_back("Speedup: per-request tokens/s over the autoregressive baseline's, same sweep, same prompts.");
  if (with_paper) t.notes.push_back("Paper: " + paper["table1"]["caption"].get<std::string>() + "; '–' where the published value is illegible.");
  return t;
}

// ReDrafter points over two axes (x across, y down), the other axes held at the first
// point's values (first dataset, temperature, beam length, ...): the slice a paper table shows.
struct Slice {
  std::vector<double> xs, ys;
  std::map<std::pair<double, double>, const nlohmann::json*> at;
  nlohmann::json fixed;  // the held values, for the caption
};

Slice redrafter_slice(const nlohmann::json& report, const std::string& x, const std::string& y) {
  Slice s;
  for (const nlohmann::json& p : report["points"]) {
    const nlohmann::json& params = p["params"];
    if (p["kind"] != "redrafter" || !params.contains(x) || !is_axis_value(params[x]) || (!y.empty() && (!params.contains(y) || !is_axis_value(params[y]))))
      continue;
    if (s.fixed.is_null()) {
      s.fixed = params;
      s.fixed["dataset"] = p["dataset"];
      s.fixed.erase(x);
      if (!y.empty()) s.fixed.erase(y);
      s.fixed.erase("drafter");
    }
    bool held = p["dataset"] == s.fixed["dataset"];
    for (const auto& [axis, v] : s.fixed.items())
      if (axis != "dataset") held = held && params.contains(axis) && params[axis] == v;
    if (!held) continue;
    // Booleans (distilled, tree_attention) become 1 and 0.
    auto value = [](const nlohmann::json& v) { return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>(); };
    const double xv = value(params[x]), yv = y.empty() ? 0.0 : value(params[y]);
    if (std::find(s.xs.begin(), s.xs.end(), xv) == s.xs.end()) s.xs.push_back(xv);
    if (std::find(s.ys.begin(), s.ys.end(), yv) == s.ys.end()) s.ys.push_back(yv);
    s.at.emplace(std::make_pair(xv, yv), &p);
  }
  std::sort(s.xs.begin(), s.xs.end());
  std::sort(s.ys.begin(), s.ys.end());
  return s;
}

std::string held_text(const nlohmann::json& fixed) {
  std::string out;
  for (const auto& [axis, v] : fixed.items()) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", axis, v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

const nlohmann::json* at(const Slice& s, double x, double y) {
  const auto it = s.at.find({x, y});
  return it == s.at.end() ? nullptr : it->second;
}

// Table 4: beam widths across; TPS, speedup, tokens/step down.
std::optional<Table> table4(const nlohmann::json& report, const nlohmann::json& paper) {
  const Slice s = redrafter_slice(report, "beam_width", "");
  if (s.xs.size() < 2) return std::nullopt;
  Table t;
  t.id = "table4";
  t.caption = fmt::format("ReDrafter by beam width (Table 4 layout): {}", held_text(s.fixed));
  t.header = {"", "metric"};
  for (double bw : s.xs) t.header.push_back(fmt::format("BW {:g}", bw));
  for (const auto& [name, key, format] : kTpsSpeedupRows) {
    std::vector<std::string> row = {"draftbench (this machine)", name};
    for (double bw : s.xs) row.push_back(cell(at(s, bw, 0), key, format));
    t.rows.push_back(std::move(row));
  }
  if (!paper.is_null() && spec_paper(report) == "table4") {
    for (const nlohmann::json& r : paper["table4"]["rows"])
      for (const auto& [name, key, format] : kTpsSpeedupRows) {
        std::vector<std::string> row = {fmt::format("paper: {} {}", r["chip"].get<std::string>(), r["model"].get<std::string>()), name};
        for (double bw : s.xs) {
          const size_t i = static_cast<size_t>(bw) - 1;  // the paper's columns are BW 1..4
          row.push_back(bw >= 1 && i < r[key].size() ? number_cell(r[key][i], format) : "");
        }
        t.rows.push_back(std::move(row));
      }
    t.notes.push_back("Paper: " + paper["table4"]["caption"].get<std::string>() + ".");
  }
  return t;
}

// Table 5: beam widths across, batch sizes down; per-request TPS and TPS x BSZ, OOM cells.
std::vector<Table> table5(const nlohmann::json& report, const nlohmann::json& paper) {
  const Slice s = redrafter_slice(report, "beam_width", "batch_size");
  if (s.xs.size() < 2 || s.ys.size() < 2) return {};
  std::vector<Table> out;
  for (const auto& [id, name, key, paper_key] :
       {std::tuple{"table5_tps", "per-request TPS", "tps", "tps"}, {"table5_tps_x_bsz", "TPS x BSZ", "tps_x_bsz", "tps_x_bsz"}}) {
    Table t;
    t.id = id;
    t.caption = fmt::format("ReDrafter {} by beam width and batch size (Table 5 layout): {}", name, held_text(s.fixed));
    t.header = {"batch size"};
    for (double bw : s.xs) t.header.push_back(fmt::format("BW {:g}", bw));
    for (double bsz : s.ys) {
      std::vector<std::string> row = {fmt::format("{:g}", bsz)};
      for (double bw : s.xs) row.push_back(cell(at(s, bw, bsz), key, "{:.1f}"));
      t.rows.push_back(std::move(row));
    }
    t.notes.push_back("OOM: the point's planned memory exceeded the spec's memory_budget (decided before it ran).");
    out.push_back(std::move(t));
    if (!paper.is_null() && spec_paper(report) == "table5") {
      const nlohmann::json& p5 = paper["table5"];
      Table pt;
      pt.id = std::string(id) + "_paper";
      pt.caption = fmt::format("Paper, {}: {}", name, p5["caption"].get<std::string>());
      pt.header = {"batch size"};
      for (const nlohmann::json& bw : p5["beam_widths"]) pt.header.push_back("BW " + bw.dump());
      for (size_t b = 0; b < p5["batch_sizes"].size(); ++b) {
        std::vector<std::string> row = {p5["batch_sizes"][b].dump()};
        for (const nlohmann::json& v : p5[paper_key][b]) row.push_back(v.is_string() ? v.get<std::string>() : number_cell(v, "{:.1f}"));
        pt.rows.push_back(std::move(row));
      }
      out.push_back(std::move(pt));
    }
  }
  return out;
}

// Table 6: beam widths across; with and without distillation down.
std::optional<Table> table6(const nlohmann::json& report, const nlohmann::json& paper) {
  const Slice s = redrafter_slice(report, "beam_width", "distilled");
  if (s.xs.size() < 1 || s.ys.size() < 2) return std::nullopt;
  Table t;
  t.id = "table6";
  t.caption = fmt::format("ReDrafter with and without distillation (Table 6 layout): {}", held_text(s.fixed));
  t.header = {"", "distillation", "metric"};
  for (double bw : s.xs) t.header.push_back(fmt::format("BW {:g}", bw));
  for (auto it = s.ys.rbegin(); it != s.ys.rend(); ++it)  // distilled first, as in the paper's order of discussion
    for (const double distilled = *it; const auto& [name, key, format] : kSpeedupRows) {
      std::vector<std::string> row = {"draftbench", distilled != 0 ? "yes" : "no (ground truth)", name};
      for (double bw : s.xs) row.push_back(cell(at(s, bw, distilled), key, format));
      t.rows.push_back(std::move(row));
    }
  if (!paper.is_null() && spec_paper(report) == "table6") {
    const nlohmann::json& p6 = paper["table6"];
    for (const nlohmann::json& r : p6["rows"])
      for (const auto& [name, key, format] : kSpeedupRows) {
        std::vector<std::string> row = {"paper (Vicuna-7B)", r["distillation"].get<bool>() ? "yes" : "no", name};
        for (double bw : s.xs) {
          std::string v;
          for (size_t i = 0; i < p6["beam_widths"].size(); ++i)
            if (p6["beam_widths"][i].get<double>() == bw) v = number_cell(r[key][i], format);
          row.push_back(v);
        }
        t.rows.push_back(std::move(row));
      }
    t.notes.push_back("Paper: " + p6["caption"].get<std::string>() + "; blank where the paper has no such beam width.");
  }
  return t;
}

}  // namespace

std::string number_cell(const nlohmann::json& v, const char* format) { return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>()) : "–"; }

std::vector<Table> report_tables(const nlohmann::json& report, const nlohmann::json& paper) {
  std::vector<Table> out;
  // The paper's layouts for the shapes the sweep has; the one its spec names first.
  const std::string named = spec_paper(report);
  std::vector<Table> layouts;
  if (auto t = table1(report, paper)) layouts.push_back(std::move(*t));
  if (auto t = table4(report, paper)) layouts.push_back(std::move(*t));
  for (Table& t : table5(report, paper)) layouts.push_back(std::move(t));
  if (auto t = table6(report, paper)) layouts.push_back(std::move(*t));
  std::stable_partition(layouts.begin(), layouts.end(), [&](const Table& t) { return !named.empty() && t.id.rfind(named, 0) == 0; });
  for (Table& t : layouts) out.push_back(std::move(t));
  out.push_back(points_table(report));
  return out;
}

}  // namespace draftbench
