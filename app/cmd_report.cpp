// draftbench report: render a report.json; draftbench compare: two reports point by point.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include "app/commands.h"
#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/model/safetensors_checkpoint.h"
#include "reports/compare/report_compare.h"
#include "reports/findings/paper_findings.h"
#include "reports/render/report_files.h"
#include "reports/report/report_json.h"

namespace draftbench::cli {

namespace {

// ReDrafter's training beam length (draft steps + 1), from the provenance.json beside the
// drafter a report names (paths relative to the checkout), for finding 6.
std::optional<int> redrafter_training_length(const nlohmann::json& report, const std::string& root) {
  const nlohmann::json drafters = report.value("environment", nlohmann::json::object()).value("drafters", nlohmann::json::object());
  if (!drafters.contains("redrafter") || !drafters["redrafter"].contains("path") || !drafters["redrafter"]["path"].is_string()) return std::nullopt;
  std::filesystem::path dir = drafters["redrafter"]["path"].get<std::string>();
  if (dir.is_relative()) dir = std::filesystem::path(root) / dir;
  std::ifstream in(dir / "provenance.json");
  const nlohmann::json provenance = nlohmann::json::parse(in, nullptr, false);
  // train.provenance.options.draft_steps; anything else along the way means "unknown".
  const nlohmann::json* at = &provenance;
  for (const char* key : {"train", "provenance", "options", "draft_steps"}) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  return at->is_number_integer() ? std::optional<int>(at->get<int>() + 1) : std::nullopt;
}

// FINDINGS.md and findings.json in `out` (when given), the Markdown on stdout.
int report_findings(const std::vector<std::string>& paths, const std::string& paper_tables_path, const std::string& out) {
  std::vector<nlohmann::json> reports;
  for (const std::string& path : paths) reports.push_back(load_report(path));
  const nlohmann::json paper_tables = read_json_file(paper_tables_path, "paper tables");
  FindingsOptions options;
  const std::string root = checkout_root();
  options.training_length = [&](const nlohmann::json& report) { return redrafter_training_length(report, root); };
  options.paper_tables_path = paper_tables_path;
  const std::vector<FindingResult> results = evaluate_findings(reports, paper_tables, options);
  const std::vector<UnrunnableTable> unrunnable = unrunnable_tables(paper_tables, paper_tables_path);
  const std::string markdown = fmt::format("# The paper's findings on this machine\n\nReports: {}.\n\n{}{}", fmt::join(paths, ", "), findings_markdown(results),
                                           unrunnable_tables_markdown(unrunnable));
  if (!out.empty()) {
    namespace fs = std::filesystem;
    fs::create_directories(out);
    write_file_atomically((fs::path(out) / "FINDINGS.md").string(), markdown);
    write_file_atomically((fs::path(out) / "findings.json").string(), findings_json(results).dump(2) + "\n");
    // Each report's own page (`draftbench report` writes it beside report.json), linked relative to this one.
    std::vector<ReportLink> links;
    for (size_t i = 0; i < paths.size(); ++i) {
      const std::string name = reports[i].value("spec", nlohmann::json::object()).value("name", paths[i]);
      const fs::path page = fs::path(paths[i]).parent_path() / "index.html";
      links.push_back({name, fs::relative(fs::absolute(page), fs::absolute(out)).generic_string()});
    }
    write_file_atomically((fs::path(out) / "index.html").string(), findings_html(results, links, unrunnable));
  }
  fmt::print("{}", markdown);
  return 0;
}

}  // namespace

Run add_report(CLI::App& app) {
  auto report_paths = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto findings = std::make_shared<bool>(false);
  auto paper_tables = std::make_shared<std::string>((std::filesystem::path(checkout_root()) / "reports/paper/paper_tables.json").string());
  CLI::App* sub = app.add_subcommand("report", "Render a report.json: tables (Markdown, HTML, LaTeX), plots and index.html; or check the paper's findings");
  sub->add_option("report", *report_paths, "A report.json written by `draftbench run` (with --findings: one or more)")->required();
  sub->add_option("--out", *out, "Directory for the renderings (default: the report's own directory); with --findings, for FINDINGS.md and findings.json");
  sub->add_flag("--findings", *findings, "Decide each of the paper's findings (holds / does not hold / not measurable) from the reports' points");
  sub->add_option("--paper-tables", *paper_tables, "The paper's published numbers and findings")->capture_default_str();
  return [sub, report_paths, out, findings, paper_tables]() -> int {
    if (!sub->parsed()) return -1;
    if (*findings) return report_findings(*report_paths, *paper_tables, *out);
    if (report_paths->size() != 1)
      throw InputError("report", "", fmt::format("{} reports given (expected one to render, or --findings to check several)", report_paths->size()));
    const std::string& report_path = report_paths->front();
    const nlohmann::json report = load_report(report_path);
    std::filesystem::path dir = out->empty() ? std::filesystem::path(report_path).parent_path() : std::filesystem::path(*out);
    if (dir.empty()) dir = ".";
    fmt::print("{}", render_report(report, report_path, dir.string(), checkout_root()));
    return 0;
  };
}

Run add_compare(CLI::App& app) {
  auto a = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  auto o = std::make_shared<CompareOptions>();
  auto threshold_percent = std::make_shared<double>(5.0);
  CLI::App* sub = app.add_subcommand("compare", "Compare two reports point by point; exit 1 when the metric regresses beyond the threshold");
  sub->add_option("a", *a, "The reference report.json")->required();
  sub->add_option("b", *b, "The report.json to judge")->required();
  sub->add_option("--metric", o->metric,
                  "Metric compared (tps, tokens_per_step, speedup, throughput, ms_per_token, ...), or several separated by commas: a table each (two "
                  "paper runs: --metric speedup,tokens_per_step,tps)")
      ->capture_default_str();
  sub->add_option("--threshold", *threshold_percent, "Relative change, in percent, that counts as a regression")
      ->capture_default_str()
      ->check(finite_number(0.0, 1000.0));
  return [sub, a, b, o, threshold_percent]() -> int {
    if (!sub->parsed()) return -1;
    o->threshold = *threshold_percent / 100.0;
    const nlohmann::json report_a = load_report(*a), report_b = load_report(*b);
    // Every metric compared before any is printed: an unknown one is an error, not half a report.
    std::vector<std::pair<CompareOptions, Comparison>> tables;
    // A plain loop over the commas: clang 14 (the fuzz preset) cannot compile std::views::split.
    for (size_t at = 0; at <= o->metric.size();) {
      const size_t comma = std::min(o->metric.find(',', at), o->metric.size());
      CompareOptions one = *o;
      one.metric = o->metric.substr(at, comma - at);
      tables.emplace_back(one, compare_reports(report_a, report_b, one, *a, *b));
      at = comma + 1;
    }
    int regressions = 0;
    for (size_t i = 0; i < tables.size(); ++i) {
      fmt::print("{}{}", i == 0 ? "" : "\n", comparison_text(tables[i].second, tables[i].first));
      regressions += tables[i].second.regressions();
    }
    return regressions > 0 ? 1 : 0;
  };
}

}  // namespace draftbench::cli
