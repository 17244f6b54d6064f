// draftbench report: render a report.json; draftbench compare: two reports point by point.
#include <fmt/format.h>

#include <filesystem>

#include "app/commands.h"
#include "reports/compare/report_compare.h"
#include "reports/render/report_files.h"
#include "reports/report/report_json.h"

namespace draftbench::cli {

Run add_report(CLI::App& app) {
  auto report_path = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("report", "Render a report.json: tables (Markdown, HTML, LaTeX), plots and index.html");
  sub->add_option("report", *report_path, "A report.json written by `draftbench run`")->required();
  sub->add_option("--out", *out, "Directory for the renderings (default: the report's own directory)");
  return [sub, report_path, out]() -> int {
    if (!sub->parsed()) return -1;
    const nlohmann::json report = load_report(*report_path);
    std::filesystem::path dir = out->empty() ? std::filesystem::path(*report_path).parent_path() : std::filesystem::path(*out);
    if (dir.empty()) dir = ".";
    fmt::print("{}", render_report(report, *report_path, dir.string(), checkout_root()));
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
  sub->add_option("--metric", o->metric, "Metric compared (tps, tokens_per_step, speedup, throughput, ms_per_token, ...)")->capture_default_str();
  sub->add_option("--threshold", *threshold_percent, "Relative change, in percent, that counts as a regression")
      ->capture_default_str()
      ->check(finite_number(0.0, 1000.0));
  return [sub, a, b, o, threshold_percent]() -> int {
    if (!sub->parsed()) return -1;
    o->threshold = *threshold_percent / 100.0;
    const Comparison c = compare_reports(load_report(*a), load_report(*b), *o);
    fmt::print("{}", comparison_text(c, *o));
    return c.regressions() > 0 ? 1 : 0;
  };
}

}  // namespace draftbench::cli
