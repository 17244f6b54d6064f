#include "reports/render/report_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace draftbench {

namespace {

std::string number(const nlohmann::json& v, const char* format = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>()) : "–";
}

const nlohmann::json& metric(const nlohmann::json& point, const char* name) {
  static const nlohmann::json none;
  return point.contains("metrics") && point["metrics"].contains(name) ? point["metrics"][name] : none;
}

// A cell for a point that did not finish says why.
std::string cell(const nlohmann::json* point, const char* name, const char* format = "{:.2f}") {
  if (!point) return "";
  if ((*point)["status"] != "ok") return (*point)["status"] == "oom" ? "OOM" : (*point)["status"].get<std::string>();
  return number(metric(*point, name), format);
}

std::string params_text(const nlohmann::json& params) {
  std::string s;
  for (const auto& [axis, v] : params.items()) {
    if (axis == "drafter") continue;
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", axis, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

Table points_table(const nlohmann::json& report) {
  Table t;
  t.id = "points";
  t.caption = fmt::format("{}: every point", report["spec"]["name"].get<std::string>());
  t.header = {"drafter", "parameters", "dataset", "status", "tokens/step", "TPS", "speedup", "same tokens as baseline"};
  for (const nlohmann::json& p : report["points"]) {
    const nlohmann::json same = p.value("same_tokens_as_baseline", nlohmann::json());
    t.rows.push_back({p["drafter"].get<std::string>(), params_text(p["params"]), p["dataset"].get<std::string>(), p["status"].get<std::string>(),
                      cell(&p, "tokens_per_step"), cell(&p, "tps", "{:.1f}"), cell(&p, "speedup", "{:.2f}x"),
                      same.is_boolean() ? (same.get<bool>() ? "yes" : "NO") : "–"});
  }
  return t;
}

// The paper reports MT-Bench and AlpacaEval; a dataset is matched to one by its name.
std::string paper_dataset(const std::string& ours) { return ours.find("alpaca") != std::string::npos ? "alpaca_eval" : "mt_bench"; }

Table table1(const nlohmann::json& report, const nlohmann::json& paper) {
  Table t;
  t.id = "table1";
  t.caption = "Speedup and tokens/step by drafter, dataset and temperature (Table 1 layout), batch size 1";
  std::vector<std::string> datasets;
  std::set<std::pair<double, std::string>> rows;  // (temperature, drafter)
  std::map<std::tuple<std::string, double, std::string>, const nlohmann::json*> at;
  std::vector<std::string> drafter_order;
  for (const nlohmann::json& p : report["points"]) {
    if (p["params"]["batch_size"] != 1) continue;
    const std::string ds = p["dataset"], drafter = p["drafter"];
    const double temp = p["params"]["temperature"];
    if (std::find(datasets.begin(), datasets.end(), ds) == datasets.end()) datasets.push_back(ds);
    if (std::find(drafter_order.begin(), drafter_order.end(), drafter) == drafter_order.end()) drafter_order.push_back(drafter);
    rows.insert({temp, drafter});
    at.emplace(std::make_tuple(ds, temp, drafter), &p);  // the first point of a cell stands for it
  }
  t.header = {"T", "drafter"};
  t.groups = {{"", 2}};
  for (const std::string& ds : datasets) {
    t.groups.push_back({ds, 2});
    t.header.insert(t.header.end(), {"speedup", "tokens/step"});
  }
  const bool with_paper = !paper.is_null() && report["spec"]["paper"] == "table1";
  if (with_paper) {
    for (const std::string& ds : datasets) {
      t.groups.push_back({fmt::format("paper, {} (Vicuna-7B, H100)", paper_dataset(ds)), 2});
      t.header.insert(t.header.end(), {"speedup", "tokens/step"});
    }
  }
  for (double temp : [&] { std::set<double> s; for (const auto& r : rows) s.insert(r.first); return s; }())
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
          row.push_back(found ? number((*found)["speedup"][0], "{:.2f}x") : "");
          row.push_back(found ? number((*found)["tokens_per_step"][0]) : "");
        }
      t.rows.push_back(std::move(row));
    }
  t.notes.push_back("Speedup: per-request tokens/s over the autoregressive baseline's, same sweep, same prompts.");
  if (with_paper) t.notes.push_back("Paper: " + paper["table1"]["caption"].get<std::string>() + "; '–' where the published value is illegible.");
  return t;
}

}  // namespace

std::vector<Table> report_tables(const nlohmann::json& report, const nlohmann::json& paper) {
  std::vector<Table> out;
  bool has_drafters = false;
  for (const nlohmann::json& p : report["points"]) has_drafters = has_drafters || p["kind"] != "autoregressive";
  if (has_drafters || report["spec"]["paper"] == "table1") out.push_back(table1(report, paper));
  out.push_back(points_table(report));
  return out;
}

}  // namespace draftbench
