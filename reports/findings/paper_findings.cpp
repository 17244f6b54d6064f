#include "reports/findings/paper_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "engine/common/error.h"
#include "reports/render/report_tables.h"
#include "reports/report/report_shape.h"

namespace draftbench {
namespace {

// One measured point of some report, status "ok".
struct Point {
  const nlohmann::json* report;
  const nlohmann::json* point;
  const nlohmann::json& params() const { return (*point)["params"]; }
  std::string dataset() const { return point->value("dataset", ""); }
  std::string drafter() const { return params().value("drafter", point->value("drafter", "")); }
  double number(const char* key, double fallback) const {
    const nlohmann::json& p = params();
    return p.contains(key) && p[key].is_number() ? p[key].get<double>() : fallback;
  }
  int integer(const char* key, int fallback) const { return static_cast<int>(number(key, fallback)); }
  bool flag(const char* key, bool fallback) const {
    const nlohmann::json& p = params();
    return p.contains(key) && p[key].is_boolean() ? p[key].get<bool>() : fallback;
  }
  // A metric, "verified_tokens.mean" style for nested ones; NaN when absent.
  double metric(const std::string& path) const {
    const nlohmann::json* at = &(*point)["metrics"];
    for (size_t begin = 0; begin <= path.size();) {
      const size_t end = std::min(path.find('.', begin), path.size());
      const std::string key = path.substr(begin, end - begin);
      if (!at->is_object() || !at->contains(key)) return std::nan("");
      at = &(*at)[key];
      begin = end + 1;
    }
    return at->is_number() ? at->get<double>() : std::nan("");
  }
};

std::vector<Point> ok_points(std::span<const nlohmann::json> reports) {
  std::vector<Point> out;
  for (const nlohmann::json& r : reports) {
    if (!r.is_object() || !r.contains("points") || !r["points"].is_array()) continue;
    for (const nlohmann::json& p : r["points"])  // by reference: Points keep pointers
      if (p.is_object() && p.value("status", "") == "ok" && p.contains("params") && p["params"].is_object() && p.contains("metrics")) out.push_back({&r, &p});
  }
  return out;
}

// ReDrafter's points; at T 0 only, unless `any_temperature` (the paper's Tables 4-6 and
// Figures 6-7 are at T 0, and a T 1 point of the same sizes must not stand in for one).
std::vector<Point> redrafter_points(const std::vector<Point>& points, bool any_temperature = false) {
  std::vector<Point> out;
  for (const Point& p : points)
    if (p.drafter() == "redrafter" && (any_temperature || p.number("temperature", 0) == 0)) out.push_back(p);
  return out;
}

// paper_tables must be an object before any of its keys is read.
void require_object(const nlohmann::json& paper_tables, const std::string& path) {
  if (!paper_tables.is_object())
    throw InputError(path, "", fmt::format("{} (expected an object with the paper's findings and tables)", describe_value(paper_tables)));
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }
std::string temp_name(double t) { return fmt::format("T {:g}", t); }

FindingResult not_measurable(FindingResult r, const std::string& missing) {
  r.status = FindingStatus::not_measurable;
  r.summary = missing;  // after the status, which already says "not measurable"
  return r;
}

FindingResult decided(FindingResult r, bool holds, const std::string& summary) {
  r.status = holds ? FindingStatus::holds : FindingStatus::does_not_hold;
  r.summary = summary;
  return r;
}

// 1. ReDrafter's tokens/step above Medusa's and EAGLE's in every (dataset, temperature) cell.
FindingResult redrafter_highest_tokens_per_step(FindingResult r, const std::vector<Point>& points, const FindingsOptions&) {
  r.rule =
      "in every (dataset, temperature) cell at batch 1 that has all three drafters, ReDrafter's tokens/step exceeds Medusa's and EAGLE's (a drafter's "
      "best configuration in the cell counts)";
  std::map<std::string, std::map<std::string, double>> cells;
  for (const Point& p : points) {
    const std::string d = p.drafter();
    if (p.integer("batch_size", 1) != 1 || (d != "medusa" && d != "eagle" && d != "redrafter")) continue;
    double& best = cells[fmt::format("{} {}", p.dataset(), temp_name(p.number("temperature", 0)))].try_emplace(d, 0.0).first->second;
    best = std::max(best, p.metric("tokens_per_step"));
  }
  int measured = 0, highest = 0;
  for (const auto& [cell, by_drafter] : cells) {
    if (by_drafter.size() < 3) continue;
    ++measured;
    for (const auto& [d, v] : by_drafter) r.numbers[cell][d] = round3(v);
    highest += by_drafter.at("redrafter") > std::max(by_drafter.at("medusa"), by_drafter.at("eagle")) ? 1 : 0;
  }
  if (measured == 0) return not_measurable(r, "no cell has Medusa, EAGLE and ReDrafter at batch 1 (run experiments/paper/table1.yaml)");
  return decided(r, highest == measured, fmt::format("ReDrafter highest in {} of {} cells", highest, measured));
}

// 2. ReDrafter's speedup at T 1 over its speedup at T 0, in each dataset: 1.15-1.45.
FindingResult speedup_higher_at_t1(FindingResult r, const std::vector<Point>& points, const FindingsOptions&) {
  r.rule = "ReDrafter at batch 1, same dataset and sizes: speedup at T 1 / speedup at T 0 lies in 1.15-1.45 (\"about 30% higher\") in every dataset";
  std::map<std::string, std::map<double, double>> by_cell;  // dataset + sizes -> temperature -> speedup
  for (const Point& p : redrafter_points(points, true)) {
    if (p.integer("batch_size", 1) != 1) continue;
    const std::string cell = fmt::format("{} BW {} BL {}", p.dataset(), p.integer("beam_width", 0), p.integer("beam_length", 0));
    by_cell[cell][p.number("temperature", 0)] = p.metric("speedup");
  }
  bool all = true;
  std::vector<std::string> ratios;
  for (const auto& [cell, by_t] : by_cell) {
    if (!by_t.count(0.0) || !by_t.count(1.0)) continue;
    const double ratio = by_t.at(1.0) / by_t.at(0.0);
    r.numbers[cell] = {{"speedup_t0", round3(by_t.at(0.0))}, {"speedup_t1", round3(by_t.at(1.0))}, {"ratio", round3(ratio)}};
    ratios.push_back(fmt::format("{:.2f}", ratio));
    all = all && ratio >= 1.15 && ratio <= 1.45;
  }
  if (ratios.empty()) return not_measurable(r, "no ReDrafter cell measured at both T 0 and T 1 (run experiments/paper/table1.yaml)");
  return decided(r, all, fmt::format("T 1 / T 0 speedup ratio {}", fmt::join(ratios, ", ")));
}

// Table 5's grid: beam width -> batch size -> (TPS, TPS x BSZ), ReDrafter at T 0, tree
// attention on; only points that name both axes (a Table 1 point has no beam width).
using BatchGrid = std::map<int, std::map<int, std::pair<double, double>>>;
BatchGrid batch_grid(const std::vector<Point>& points) {
  BatchGrid grid;
  for (const Point& p : redrafter_points(points))
    if (p.params().contains("batch_size") && p.params().contains("beam_width") && p.flag("tree_attention", true))
      grid[p.integer("beam_width", 0)][p.integer("batch_size", 1)] = {p.metric("tps"), p.metric("tps_x_bsz")};
  return grid;
}

void record_grid(FindingResult& r, const BatchGrid& grid) {
  for (const auto& [bw, by_batch] : grid)
    for (const auto& [bsz, v] : by_batch)
      r.numbers[fmt::format("BW {}", bw)][fmt::format("BSZ {}", bsz)] = {{"tps", round3(v.first)}, {"tps_x_bsz", round3(v.second)}};
}

// 3. TPS falls and TPS x BSZ rises with batch size; the drop comes earlier at larger beam widths.
FindingResult batch_trends(FindingResult r, const std::vector<Point>& points, const FindingsOptions&) {
  r.rule =
      "ReDrafter at T 0, each beam width over its measured batch sizes: TPS never rises by more than 5% and TPS x BSZ never falls by more than 5% from one "
      "batch size to the next; the first batch size where TPS is below 90% of its smallest batch's comes at the same or a smaller batch size as the beam "
      "width grows, and earlier for at least one";
  BatchGrid grid = batch_grid(points);
  std::erase_if(grid, [](const auto& kv) { return kv.second.size() < 2; });
  if (grid.size() < 2) return not_measurable(r, "fewer than two beam widths with two or more batch sizes (run experiments/paper/table5.yaml)");
  record_grid(r, grid);
  bool monotone = true;
  std::vector<int> drops;
  for (const auto& [bw, by_batch] : grid) {
    const double first_tps = by_batch.begin()->second.first;
    int drop = std::numeric_limits<int>::max();
    for (auto it = std::next(by_batch.begin()); it != by_batch.end(); ++it) {
      const auto& [prev_tps, prev_total] = std::prev(it)->second;
      monotone = monotone && it->second.first <= prev_tps * 1.05 && it->second.second >= prev_total * 0.95;
      if (it->second.first < 0.9 * first_tps) drop = std::min(drop, it->first);
    }
    drops.push_back(drop);
  }
  const bool earlier = std::is_sorted(drops.rbegin(), drops.rend()) && drops.front() != drops.back();
  auto name = [](int b) { return b == std::numeric_limits<int>::max() ? std::string("none") : std::to_string(b); };
  std::vector<std::string> drop_names;
  for (int d : drops) drop_names.push_back(name(d));
  r.numbers["tps_drop_batch_by_beam_width"] = drop_names;
  return decided(
      r, monotone && earlier,
      fmt::format("trends {}; TPS drop at batch {} for beam widths in increasing order", monotone ? "as stated" : "broken", fmt::join(drop_names, ", ")));
}

// 4. Best TPS at the widest beam and smallest batch; best TPS x BSZ at a moderate width and the largest batch.
FindingResult best_cells(FindingResult r, const std::vector<Point>& points, const FindingsOptions&) {
  r.rule =
      "ReDrafter's Table 5 grid at T 0: the highest TPS is at the smallest batch size and the largest beam width measured there; the highest TPS x BSZ is at "
      "the largest batch size measured and a beam width strictly between the smallest and largest";
  const BatchGrid grid = batch_grid(points);
  int n_cells = 0, min_bw = std::numeric_limits<int>::max(), max_bw = 0, min_batch = std::numeric_limits<int>::max(), max_batch = 0;
  std::pair<int, int> best_tps{0, 0}, best_total{0, 0};
  double tps = -1, total = -1;
  for (const auto& [bw, by_batch] : grid)
    for (const auto& [bsz, v] : by_batch) {
      ++n_cells;
      min_bw = std::min(min_bw, bw), max_bw = std::max(max_bw, bw), min_batch = std::min(min_batch, bsz), max_batch = std::max(max_batch, bsz);
      if (v.first > tps) tps = v.first, best_tps = {bw, bsz};
      if (v.second > total) total = v.second, best_total = {bw, bsz};
    }
  if (grid.size() < 3 || n_cells < 4 || min_batch == max_batch)
    return not_measurable(r, "needs three or more beam widths and two or more batch sizes (run experiments/paper/table5.yaml)");
  record_grid(r, grid);
  int widest_at_min_batch = 0;
  for (const auto& [bw, by_batch] : grid)
    if (by_batch.count(min_batch)) widest_at_min_batch = std::max(widest_at_min_batch, bw);
  const bool tps_ok = best_tps.second == min_batch && best_tps.first == widest_at_min_batch;
  const bool total_ok = best_total.second == max_batch && best_total.first > min_bw && best_total.first < max_bw;
  r.numbers["best_tps"] = {{"beam_width", best_tps.first}, {"batch_size", best_tps.second}};
  r.numbers["best_tps_x_bsz"] = {{"beam_width", best_total.first}, {"batch_size", best_total.second}};
  return decided(r, tps_ok && total_ok,
                 fmt::format("best TPS at BW {} BSZ {}; best TPS x BSZ at BW {} BSZ {}", best_tps.first, best_tps.second, best_total.first, best_total.second));
}

// 5. Tree attention removes 30-60% of verified tokens, and helps only where compute binds.
FindingResult tree_attention_savings(FindingResult r, const std::vector<Point>& points, const FindingsOptions&) {
  r.rule =
      "ReDrafter at T 0 and batch 1 with tree attention: 1 - verified tokens / beam tokens at the widest beam lies in 0.30-0.60; and with it on against off, "
      "the TPS gain in the cell with the most beam tokens per step (beam width x batch size) exceeds 5% and the gain in the cell with the fewest";
  std::map<int, double> reduction;                                  // beam width -> share removed
  std::map<std::pair<int, int>, std::pair<double, double>> on_off;  // (bw, batch) -> (TPS on, TPS off)
  for (const Point& p : redrafter_points(points)) {
    const int bw = p.integer("beam_width", 0), bsz = p.integer("batch_size", 1);
    const bool on = p.flag("tree_attention", true);
    if (on && bsz == 1 && p.metric("beam_tokens.mean") > 0) reduction[bw] = 1.0 - p.metric("verified_tokens.mean") / p.metric("beam_tokens.mean");
    if (p.params().contains("tree_attention")) (on ? on_off[{bw, bsz}].first : on_off[{bw, bsz}].second) = p.metric("tps");
  }
  std::erase_if(on_off, [](const auto& kv) { return !(kv.second.first > 0) || !(kv.second.second > 0); });
  if (reduction.empty() || on_off.size() < 2)
    return not_measurable(r, "needs ReDrafter points with tree attention on and off in two or more cells (run experiments/paper/figure6.yaml)");
  for (const auto& [bw, share] : reduction) r.numbers["share_removed_by_beam_width"][std::to_string(bw)] = round3(share);
  const auto load = [](const auto& kv) { return kv.first.first * kv.first.second; };
  const auto lightest = std::min_element(on_off.begin(), on_off.end(), [&](const auto& a, const auto& b) { return load(a) < load(b); });
  const auto heaviest = std::max_element(on_off.begin(), on_off.end(), [&](const auto& a, const auto& b) { return load(a) < load(b); });
  const double gain_light = lightest->second.first / lightest->second.second, gain_heavy = heaviest->second.first / heaviest->second.second;
  for (const auto& [cell, tps] : on_off) r.numbers["tps_gain"][fmt::format("BW {} BSZ {}", cell.first, cell.second)] = round3(tps.first / tps.second);
  const double widest = reduction.rbegin()->second;
  const bool removes = widest >= 0.30 && widest <= 0.60, helps = gain_heavy > 1.05 && gain_heavy > gain_light;
  return decided(r, removes && helps,
                 fmt::format("removes {:.0f}% at BW {}; TPS gain {:.2f}x at the lightest cell, {:.2f}x at the heaviest", 100 * widest,
                             reduction.rbegin()->first, gain_light, gain_heavy));
}

// 6. On weak hardware the best beam width is 1-3 and the best beam length at or just below the training length.
FindingResult best_sizes_on_weak_hardware(FindingResult r, const std::vector<Point>& points, const FindingsOptions& options) {
  r.rule =
      "ReDrafter at batch 1, T 0, over the measured beam widths and lengths: the highest speedup is at a beam width of 1-3 and a beam length equal "
      "to the drafter's training length (draft steps + 1) or one less";
  std::optional<Point> best;
  std::set<int> widths, lengths;
  for (const Point& p : redrafter_points(points)) {
    if (p.integer("batch_size", 1) != 1 || !p.params().contains("beam_width") || !p.params().contains("beam_length")) continue;
    widths.insert(p.integer("beam_width", 0));
    lengths.insert(p.integer("beam_length", 0));
    r.numbers["speedup"][fmt::format("BW {} BL {}", p.integer("beam_width", 0), p.integer("beam_length", 0))] = round3(p.metric("speedup"));
    if (!best || p.metric("speedup") > best->metric("speedup")) best = p;
  }
  if (widths.size() < 2 || lengths.size() < 2)
    return not_measurable(r, "needs ReDrafter at two or more beam widths and lengths (run experiments/paper/figure7.yaml)");
  const std::optional<int> trained = options.training_length ? options.training_length(*best->report) : std::nullopt;
  if (!trained) return not_measurable(r, "the ReDrafter's training length is unknown (its provenance.json is not readable)");
  const int bw = best->integer("beam_width", 0), bl = best->integer("beam_length", 0);
  r.numbers["best"] = {{"beam_width", bw}, {"beam_length", bl}, {"speedup", round3(best->metric("speedup"))}, {"training_length", *trained}};
  return decided(r, bw >= 1 && bw <= 3 && (bl == *trained || bl == *trained - 1),
                 fmt::format("best speedup {:.2f}x at BW {} BL {} (trained for BL {})", best->metric("speedup"), bw, bl, *trained));
}

// 7. Distillation raises speedup and tokens/step by about 10% at every beam width.
FindingResult distillation_gain(FindingResult r, const std::vector<Point>& points, const FindingsOptions&) {
  r.rule =
      "ReDrafter at T 0 and batch 1, distilled against ground-truth labels at each beam width: both the speedup ratio and the tokens/step ratio lie in "
      "1.03-1.20 (\"about 10%\")";
  std::map<int, std::map<bool, std::pair<double, double>>> by_width;  // bw -> distilled -> (speedup, tokens/step)
  for (const Point& p : redrafter_points(points))
    if (p.params().contains("distilled") && p.integer("batch_size", 1) == 1)
      by_width[p.integer("beam_width", 0)][p.flag("distilled", true)] = {p.metric("speedup"), p.metric("tokens_per_step")};
  bool all = true;
  std::vector<std::string> gains;
  for (const auto& [bw, v] : by_width) {
    if (v.size() < 2) continue;
    const double speedup = v.at(true).first / v.at(false).first, tps = v.at(true).second / v.at(false).second;
    r.numbers[fmt::format("BW {}", bw)] = {{"speedup_ratio", round3(speedup)}, {"tokens_per_step_ratio", round3(tps)}};
    gains.push_back(fmt::format("BW {}: {:+.0f}% / {:+.0f}%", bw, 100 * (speedup - 1), 100 * (tps - 1)));
    all = all && speedup >= 1.03 && speedup <= 1.20 && tps >= 1.03 && tps <= 1.20;
  }
  if (gains.empty()) return not_measurable(r, "no beam width measured both distilled and on ground truth (run experiments/paper/table6.yaml)");
  return decided(r, all, fmt::format("distillation's gain in speedup / tokens per step: {}", fmt::join(gains, "; ")));
}

using Rule = FindingResult (*)(FindingResult, const std::vector<Point>&, const FindingsOptions&);
// One rule per finding, in paper_tables.json's order.
constexpr Rule kRules[] = {redrafter_highest_tokens_per_step, speedup_higher_at_t1, batch_trends, best_cells, tree_attention_savings,
                           best_sizes_on_weak_hardware,       distillation_gain};

}  // namespace

const char* finding_status_name(FindingStatus status) {
  switch (status) {
    case FindingStatus::holds: return "holds";
    case FindingStatus::does_not_hold: return "does not hold";
    case FindingStatus::not_measurable: return "not measurable";
  }
  return "?";
}

std::vector<FindingResult> evaluate_findings(std::span<const nlohmann::json> reports, const nlohmann::json& paper_tables, const FindingsOptions& options) {
  require_object(paper_tables, options.paper_tables_path);
  const nlohmann::json findings = paper_tables.value("findings", nlohmann::json());
  constexpr size_t n_rules = std::size(kRules);
  if (!findings.is_array() || findings.size() != n_rules || !std::all_of(findings.begin(), findings.end(), [](const auto& f) { return f.is_string(); }))
    throw InputError(options.paper_tables_path, "field 'findings'",
                     fmt::format("expected the paper's {} findings as strings (the rules are written for them)", n_rules));
  const std::vector<Point> points = ok_points(reports);
  std::vector<FindingResult> results;
  for (size_t i = 0; i < n_rules; ++i) {
    FindingResult r;
    r.number = static_cast<int>(i) + 1;
    r.finding = findings[i].get<std::string>();
    results.push_back(kRules[i](std::move(r), points, options));
  }
  return results;
}

std::string findings_markdown(const std::vector<FindingResult>& results) {
  std::string out = "| # | finding | on this machine |\n|---|---|---|\n";
  for (const FindingResult& r : results) out += fmt::format("| {} | {} | **{}** |\n", r.number, r.finding, finding_status_name(r.status));
  for (const FindingResult& r : results)
    out += fmt::format("\n### {}. {}\n\n**{}**: {}.\n\nRule: {}.\n\n```json\n{}\n```\n", r.number, r.finding, finding_status_name(r.status), r.summary, r.rule,
                       r.numbers.dump(1));
  return out;
}

namespace {

// What Tables 2 and 3 need, and the nearest run the harness can make: one row per table,
// with the paper_tables.json key, the metric shown beside the speedup, and the sentences.
struct UnrunnableSpec {
  const char* key;
  const char* first_metric;
  const char* first_label;
  const char* needs;
  const char* nearest;
};
constexpr UnrunnableSpec kUnrunnable[] = {
    {"table2", "ms_per_token", "ms/token",
     "continuous batching of requests that arrive at 0.1 to 1 per second, on TensorRT-LLM; draftbench decodes static batches (a fixed set of "
     "prompts started together) and has no arrival process",
     "the batch-size axis of experiments/paper/table5.yaml with `device: cuda` on one GPU measures static batches of 1 to 16 at the paper's "
     "beam sizes; it shows how speedup falls as the batch fills the GPU, which Table 2's higher request rates also show, but it is not Table 2"},
    {"table3", "tps", "tokens/s", "tensor parallelism over 1, 2 and 4 GPUs; draftbench runs the target on one device",
     "experiments/paper/table1.yaml with `device: cuda` on one GPU gives the TP 1 setting (batch 1, static), with draftbench's kernels rather "
     "than TensorRT-LLM's; the TP 2 and TP 4 columns have no counterpart"},
};

}  // namespace

std::vector<UnrunnableTable> unrunnable_tables(const nlohmann::json& paper_tables, const std::string& paper_tables_path) {
  require_object(paper_tables, paper_tables_path);
  std::vector<UnrunnableTable> out;
  for (const UnrunnableSpec& spec : kUnrunnable) {
    const nlohmann::json t = paper_tables.value(spec.key, nlohmann::json());
    const auto bad = [&](const std::string& what) { return InputError(paper_tables_path, fmt::format("field '{}'", spec.key), what); };
    if (!t.is_object() || !t.contains("columns") || !t["columns"].is_array() || !t.contains("rows") || !t["rows"].is_array())
      throw bad("expected an object with 'caption', 'columns' and 'rows'");
    const size_t n = t["columns"].size();
    UnrunnableTable u;
    u.paper.id = spec.key;
    u.paper.caption = fmt::format("Paper {} ({}): published values, not runnable here", spec.key, t.value("caption", std::string()));
    u.paper.header = {"model"};
    u.paper.groups = {{"", 1}, {spec.first_label, static_cast<int>(n)}, {"speedup", static_cast<int>(n)}};
    for (int pass = 0; pass < 2; ++pass)
      for (const nlohmann::json& c : t["columns"]) u.paper.header.push_back(c.is_string() ? c.get<std::string>() : c.dump());
    for (const nlohmann::json& row : t["rows"]) {
      if (!row.is_object() || !row.contains(spec.first_metric) || !row.contains("speedup") || !row[spec.first_metric].is_array() ||
          !row["speedup"].is_array() || row[spec.first_metric].size() != n || row["speedup"].size() != n)
        throw bad(fmt::format("expected each row to have '{}' and 'speedup' with {} values", spec.first_metric, n));
      std::vector<std::string> cells{row.value("model", std::string("?"))};
      for (const char* metric : {spec.first_metric, "speedup"})
        for (const nlohmann::json& v : row[metric]) cells.push_back(number_cell(v, "{:g}"));
      u.paper.rows.push_back(std::move(cells));
    }
    u.needs = spec.needs;
    u.nearest = spec.nearest;
    out.push_back(std::move(u));
  }
  return out;
}

std::string unrunnable_tables_markdown(const std::vector<UnrunnableTable>& tables) {
  std::string out;
  for (const UnrunnableTable& u : tables)
    out += fmt::format("\n## {}: not runnable here\n\nIt needs {}.\n\nThe nearest run: {}.\n\n{}", u.paper.id, u.needs, u.nearest, to_markdown(u.paper));
  return out;
}

std::string findings_html(const std::vector<FindingResult>& results, const std::vector<ReportLink>& reports, const std::vector<UnrunnableTable>& unrunnable) {
  Table table{"findings", "The paper's findings, decided from the reports below", {}, {"#", "finding", "on this machine"}, {}, {}};
  for (const FindingResult& r : results) table.rows.push_back({std::to_string(r.number), r.finding, finding_status_name(r.status)});
  std::string body = to_html(table) + "<h2>Reports</h2>\n<ul>\n";
  for (const ReportLink& link : reports) body += fmt::format("<li><a href=\"{}\">{}</a></li>\n", html_escape(link.href), html_escape(link.label));
  body += "</ul>\n";
  for (const FindingResult& r : results)
    body += fmt::format("<h2>{}. {}</h2>\n<p><b>{}</b>: {}.</p>\n<p class=\"note\">Rule: {}.</p>\n<pre>{}</pre>\n", r.number, html_escape(r.finding),
                        finding_status_name(r.status), html_escape(r.summary), html_escape(r.rule), html_escape(r.numbers.dump(1)));
  for (const UnrunnableTable& u : unrunnable)
    body += fmt::format("<h2>{}: not runnable here</h2>\n<p>It needs {}.</p>\n<p>The nearest run: {}.</p>\n{}", html_escape(u.paper.id), html_escape(u.needs),
                        html_escape(u.nearest), to_html(u.paper));
  return html_page("The paper's findings on this machine", body);
}

nlohmann::json findings_json(const std::vector<FindingResult>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const FindingResult& r : results)
    out.push_back({{"number", r.number},
                   {"finding", r.finding},
                   {"status", finding_status_name(r.status)},
                   {"summary", r.summary},
                   {"rule", r.rule},
                   {"numbers", r.numbers}});
  return out;
}

}  // namespace draftbench
