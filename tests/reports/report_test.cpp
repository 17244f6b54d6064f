// Reports from results records: speedups against the baseline in the same sweep, the
// lossless check, the Table 1 layout (with the paper's columns) in all three formats, and
// `compare`'s regression verdict with its significance rule.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "engine/common/error.h"
#include "reports/compare/report_compare.h"
#include "reports/render/report_files.h"
#include "reports/render/report_tables.h"
#include "reports/report/environment.h"
#include "reports/report/report_json.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;

namespace {

nlohmann::json record(const std::string& drafter, double temperature, double tps, double tokens_per_step, const std::string& fingerprint,
                      std::vector<double> repeats = {}) {
  nlohmann::json params{{"drafter", drafter}, {"temperature", temperature}, {"batch_size", 1}, {"max_new_tokens", 8}, {"seed", 0}};
  const std::string kind = drafter;
  nlohmann::json point{{"dataset", "mt"}, {"drafter", drafter}, {"kind", kind}, {"params", params}};
  point["key"] = nlohmann::json{{"dataset", "mt"}, {"params", params}}.dump();
  if (kind != "autoregressive") {
    nlohmann::json base = params;
    base["drafter"] = "autoregressive";
    point["baseline"] = nlohmann::json{{"dataset", "mt"}, {"params", base}}.dump();
  }
  if (repeats.empty()) repeats = {tps};
  double mean = 0, var = 0;
  for (double r : repeats) mean += r / static_cast<double>(repeats.size());
  for (double r : repeats) var += (r - mean) * (r - mean);
  const double stdev = repeats.size() > 1 ? std::sqrt(var / static_cast<double>(repeats.size() - 1)) : 0.0;
  return {{"key", point["key"]},
          {"point", point},
          {"status", "ok"},
          {"metrics", {{"tps", tps}, {"tokens_per_step", tokens_per_step}}},
          {"spread", {{"tps", {{"median", tps}, {"min", tps}, {"max", tps}, {"stdev", stdev}, {"n", repeats.size()}}}}},
          {"per_category", {{"writing", {{"requests", 1}, {"tokens_per_step", tokens_per_step}, {"tps", tps}}}}},
          {"per_prompt", {{{"id", "1"}, {"category", "writing"}, {"turn", 1}, {"tokens_fingerprint", fingerprint}}}}};
}

nlohmann::json report_of(const std::vector<nlohmann::json>& records, const std::string& paper = "") {
  const nlohmann::json spec{{"name", "t"}, {"description", ""}, {"paper", paper.empty() ? nlohmann::json() : nlohmann::json(paper)}};
  return build_report(spec, nlohmann::json::object(), nlohmann::json::object(), records);
}

// A report as `draftbench run` writes it (environment included), for load_report.
nlohmann::json full_report() {
  nlohmann::json r = report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a")});
  r["environment"] = {{"cpu", {{"model", "test cpu"}}}, {"threads", 1}, {"git", {{"commit", "0123456789abcdef"}, {"dirty", false}}}};
  return r;
}

void write_json(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(1); }

}  // namespace

TEST_CASE("report: speedups divide by the same sweep's baseline, temperature 0 checks the tokens") {
  const nlohmann::json r = report_of({record("autoregressive", 0, 40, 1, "aaaa"), record("redrafter", 0, 60, 2.5, "aaaa"), record("medusa", 0, 30, 1.8, "bbbb"),
                                      record("autoregressive", 1, 20, 1, "cccc"), record("redrafter", 1, 30, 1.5, "dddd")});
  const nlohmann::json& p = r["points"];
  REQUIRE(p[0]["metrics"]["speedup"] == 1.0);
  REQUIRE(p[1]["metrics"]["speedup"].get<double>() == Approx(1.5));
  REQUIRE(p[1]["metrics"]["baseline_tps"] == 40.0);
  REQUIRE(p[1]["per_category"]["writing"]["speedup"].get<double>() == Approx(1.5));
  REQUIRE(p[1]["same_tokens_as_baseline"] == true);
  REQUIRE(p[2]["same_tokens_as_baseline"] == false);   // a lossless violation shows
  REQUIRE(p[4]["same_tokens_as_baseline"].is_null());  // sampling: not token-identical by design
  REQUIRE(p[4]["metrics"]["speedup"].get<double>() == Approx(1.5));
  SECTION("a point whose baseline is missing (another shard) has no speedup") {
    const nlohmann::json lone = report_of({record("redrafter", 0, 60, 2.5, "aaaa")});
    REQUIRE_FALSE(lone["points"][0]["metrics"].contains("speedup"));
  }
}

TEST_CASE("report: the Table 1 layout, with the paper's columns when the spec names table1") {
  std::ifstream f(std::string(DRAFTBENCH_SOURCE_DIR) + "/reports/paper/paper_tables.json");
  const nlohmann::json paper = nlohmann::json::parse(f);
  const nlohmann::json r =
      report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a"), record("medusa", 0, 30, 1.8, "a")}, "table1");
  const std::vector<Table> tables = report_tables(r, paper);
  REQUIRE(tables.size() == 2);
  const Table& t = tables[0];
  REQUIRE(t.id == "table1");
  REQUIRE(t.header == std::vector<std::string>{"T", "drafter", "speedup", "tokens/step", "speedup", "tokens/step"});
  REQUIRE(t.rows.size() == 3);
  REQUIRE(t.rows[1] == std::vector<std::string>{"0", "redrafter", "1.50x", "2.50", "2.80x", "4.20"});  // paper: Vicuna-7B, MT-Bench, T 0
  REQUIRE(t.rows[2][4] == "2.39x");
  REQUIRE(to_markdown(t).find("| 0 | redrafter | 1.50x | 2.50 | 2.80x | 4.20 |") != std::string::npos);
  const std::string latex = to_latex(t);
  REQUIRE(latex.find("\\toprule") != std::string::npos);
  REQUIRE(latex.find("\\multicolumn{2}{c}{mt}") != std::string::npos);
  REQUIRE(latex.find("0 & redrafter & 1.50x & 2.50 & 2.80x & 4.20 \\\\") != std::string::npos);
  REQUIRE(to_html(t).find("<th colspan=\"2\">paper, mt_bench (Vicuna-7B, H100)</th>") != std::string::npos);
  SECTION("a drafter with several points per cell (a beam-width sweep) gets no Table 1 layout") {
    nlohmann::json wide = record("redrafter", 0, 50, 2.6, "a");
    wide["point"]["params"]["beam_width"] = 4;
    wide["key"] = wide["point"]["key"] = nlohmann::json{{"dataset", "mt"}, {"params", wide["point"]["params"]}}.dump();
    const std::vector<Table> swept =
        report_tables(report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a"), wide}, "table1"), paper);
    for (const Table& s : swept) REQUIRE(s.id != "table1");
    REQUIRE(swept.back().id == "points");
    REQUIRE(swept.back().rows.size() == 3);
  }
  SECTION("autoregressive points alone, or drafters only above batch 1, get no Table 1 layout") {
    nlohmann::json batched = record("redrafter", 0, 60, 2.5, "a");
    batched["point"]["params"]["batch_size"] = 2;
    batched["key"] = batched["point"]["key"] = nlohmann::json{{"dataset", "mt"}, {"params", batched["point"]["params"]}}.dump();
    for (const std::vector<nlohmann::json>& records : {std::vector<nlohmann::json>{record("autoregressive", 0, 40, 1, "a")},
                                                       std::vector<nlohmann::json>{record("autoregressive", 0, 40, 1, "a"), batched}}) {
      const std::vector<Table> tables = report_tables(report_of(records, "table1"), paper);
      REQUIRE(tables.size() == 1);
      REQUIRE(tables[0].id == "points");
    }
  }
  SECTION("without the paper key, no paper columns") {
    const std::vector<Table> plain = report_tables(report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a")}), paper);
    REQUIRE(plain[0].header.size() == 4);
  }
}

TEST_CASE("report: rendering again removes the table files of layouts that no longer apply, and nothing else") {
  test::TempDir dir("render_stale_tables");
  std::filesystem::create_directories(dir / "tables");
  for (const char* name : {"tables/table5_tps.md", "tables/table5_tps.html", "tables/table5_tps.tex", "tables/notes.txt"})
    std::ofstream(dir / name) << "from an earlier render\n";
  nlohmann::json r = report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a")});
  r["environment"] = {{"cpu", {{"model", "test cpu"}}}, {"threads", 1}, {"git", {{"commit", "0123456789abcdef"}, {"dirty", false}}}};
  // The checkout is the temporary directory: no .venv (plots are skipped) and no paper tables.
  const std::string printed = render_report(r, dir / "report.json", dir.str(), dir.str());
  REQUIRE(printed.find("| 0 | redrafter | 1.50x | 2.50 |") != std::string::npos);
  for (const char* kept : {"tables/table1.md", "tables/table1.tex", "tables/points.html", "tables/notes.txt", "index.html"})
    CHECK(std::filesystem::exists(dir / kept));
  for (const char* gone : {"tables/table5_tps.md", "tables/table5_tps.html", "tables/table5_tps.tex"}) CHECK_FALSE(std::filesystem::exists(dir / gone));
}

TEST_CASE("compare: a regression beyond the threshold fails, noise within the repeats' spread does not") {
  const nlohmann::json a = report_of({record("autoregressive", 0, 40, 1, "a", {39, 40, 41}), record("redrafter", 0, 60, 2.5, "a", {59, 60, 61})});
  CompareOptions o;
  SECTION("a significant 20% drop is a regression") {
    const nlohmann::json b = report_of({record("autoregressive", 0, 40, 1, "a", {39, 40, 41}), record("redrafter", 0, 48, 2.5, "a", {47, 48, 49})});
    const Comparison c = compare_reports(a, b, o);
    REQUIRE(c.points.size() == 2);
    REQUIRE(c.regressions() == 1);
    REQUIRE(c.points[1].significance == "*");
    REQUIRE(c.points[1].change == Approx(-0.2));
    REQUIRE(comparison_text(c, o).find("REGRESSION") != std::string::npos);
  }
  SECTION("a 10% drop inside a wide spread is not significant, so not a regression") {
    const nlohmann::json b = report_of({record("autoregressive", 0, 40, 1, "a", {39, 40, 41}), record("redrafter", 0, 54, 2.5, "a", {30, 54, 80})});
    const Comparison c = compare_reports(a, b, o);
    REQUIRE(c.points[1].significance.empty());
    REQUIRE(c.regressions() == 0);
  }
  SECTION("without repeats the threshold alone decides, marked '?'") {
    const nlohmann::json a1 = report_of({record("autoregressive", 0, 40, 1, "a")});
    const nlohmann::json b1 = report_of({record("autoregressive", 0, 37, 1, "a")});
    REQUIRE(compare_reports(a1, b1, o).regressions() == 1);
    REQUIRE(compare_reports(a1, b1, o).points[0].significance == "?");
    o.threshold = 0.10;
    REQUIRE(compare_reports(a1, b1, o).regressions() == 0);
  }
  SECTION("an unknown metric is an error") {
    o.metric = "colour";
    REQUIRE_THROWS_WITH(compare_reports(a, a, o), Catch::Contains("--metric: 'colour' is not a metric"));
  }
}

TEST_CASE("report: Table 4, 5 and 6 layouts from a ReDrafter sweep, OOM cells included") {
  std::vector<nlohmann::json> records;
  for (int bsz : {1, 2})
    for (int bw : {1, 2, 4})
      for (bool distilled : {true, false}) {
        nlohmann::json r = record("redrafter", 0, 10.0 * bw / bsz + (distilled ? 1 : 0), 1.5 + 0.1 * bw + (distilled ? 0.5 : 0), "a");
        r["point"]["params"].update({{"beam_width", bw}, {"beam_length", 5}, {"batch_size", bsz}, {"distilled", distilled}, {"tree_attention", true}});
        r["point"]["kind"] = "redrafter";
        r["point"]["key"] = r["key"] = nlohmann::json{{"dataset", "mt"}, {"params", r["point"]["params"]}}.dump();
        r["metrics"]["tps_x_bsz"] = r["metrics"]["tps"].get<double>() * bsz;
        if (bsz == 2 && bw == 4) {
          r["status"] = "oom";
          r.erase("metrics");
        }
        records.push_back(r);
      }
  const std::vector<Table> tables = report_tables(report_of(records, "table5"), nlohmann::json());
  std::map<std::string, const Table*> by_id;
  for (const Table& t : tables) by_id[t.id] = &t;
  REQUIRE(tables[0].id == "table5_tps");  // the table the spec names comes first
  const Table& t5 = *by_id.at("table5_tps");
  REQUIRE(t5.header == std::vector<std::string>{"batch size", "BW 1", "BW 2", "BW 4"});
  REQUIRE(t5.rows[0] == std::vector<std::string>{"1", "11.0", "21.0", "41.0"});  // distilled (the first point's) held
  REQUIRE(t5.rows[1] == std::vector<std::string>{"2", "6.0", "11.0", "OOM"});
  REQUIRE(by_id.at("table5_tps_x_bsz")->rows[1][2] == "22.0");
  const Table& t4 = *by_id.at("table4");
  REQUIRE(t4.rows[2] == std::vector<std::string>{"draftbench (this machine)", "tokens/step", "2.10", "2.20", "2.40"});
  const Table& t6 = *by_id.at("table6");
  REQUIRE(t6.rows.size() == 4);
  REQUIRE(t6.rows[1] == std::vector<std::string>{"draftbench", "yes", "tokens/step", "2.10", "2.20", "2.40"});
  REQUIRE(t6.rows[3] == std::vector<std::string>{"draftbench", "no (ground truth)", "tokens/step", "1.60", "1.70", "1.90"});
}

TEST_CASE("report: load_report names the file, the field and what was expected for a report missing a field or with a wrong type") {
  test::TempDir dir("load_report_shape");
  const std::string path = dir / "report.json";
  write_json(path, full_report());
  REQUIRE_NOTHROW(load_report(path));
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](nlohmann::json& r) { r.erase("schema_version"); }, "field 'schema_version': missing (expected 1)"},
      {[](nlohmann::json& r) { r["schema_version"] = "1"; }, "field 'schema_version': \"1\" (expected 1)"},
      {[](nlohmann::json& r) { r.erase("created_utc"); }, "field 'created_utc': missing (expected a string)"},
      {[](nlohmann::json& r) { r.erase("spec"); }, "field 'spec': missing (expected an object"},
      {[](nlohmann::json& r) { r["spec"] = nullptr; }, "field 'spec': null (expected an object"},
      {[](nlohmann::json& r) { r["spec"].erase("name"); }, "field 'spec.name': missing (expected a string)"},
      {[](nlohmann::json& r) { r["spec"]["paper"] = 5; }, "field 'spec.paper': 5 (expected a paper table's name or null)"},
      {[](nlohmann::json& r) { r.erase("environment"); }, "field 'environment': missing (expected an object"},
      {[](nlohmann::json& r) { r["environment"]["git"].erase("dirty"); }, "field 'environment.git.dirty': missing (expected true or false)"},
      {[](nlohmann::json& r) { r["environment"]["cpu"] = nlohmann::json::array(); }, "field 'environment.cpu': an array (expected an object)"},
      {[](nlohmann::json& r) { r["points"] = nlohmann::json::object(); }, "field 'points': an object (expected an array)"},
      {[](nlohmann::json& r) { r["points"][1].erase("key"); }, "field 'points[1].key': missing (expected a string)"},
      {[](nlohmann::json& r) { r["points"][0] = 3; }, "field 'points[0]': 3 (expected an object)"},
      {[](nlohmann::json& r) { r["points"][0]["params"] = nullptr; }, "field 'points[0].params': null (expected an object)"},
      {[](nlohmann::json& r) { r["points"][0]["status"] = 1; }, "field 'points[0].status': 1 (expected a string)"},
      {[](nlohmann::json& r) { r["points"][1].erase("metrics"); }, "field 'points[1].metrics': missing (expected an object"},
  };
  for (const auto& [mutate, message] : cases) {
    nlohmann::json r = full_report();
    mutate(r);
    write_json(path, r);
    REQUIRE_THROWS_WITH(load_report(path), Catch::Contains(path + ": " + message));
  }
  SECTION("a point that did not finish needs no metrics") {
    nlohmann::json r = full_report();
    r["points"][1]["status"] = "error";
    r["points"][1].erase("metrics");
    write_json(path, r);
    REQUIRE_NOTHROW(load_report(path));
  }
}

TEST_CASE("compare: a point ok in A that did not finish in B is a regression, and listed") {
  const nlohmann::json a = report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a")});
  nlohmann::json b = a;
  for (nlohmann::json& p : b["points"]) {
    p["status"] = "error";
    p["message"] = "the drafter failed";
    p.erase("metrics");
  }
  CompareOptions o;
  const Comparison c = compare_reports(a, b, o);
  CHECK(c.points.empty());
  REQUIRE(c.regressions() == 2);  // a CI gate on `compare` must not pass a run whose every point failed
  const std::string text = comparison_text(c, o);
  CHECK_THAT(text, Catch::Contains("\nREGRESSION (failed in B): redrafter batch_size=1") && Catch::Contains("(ok -> error)") &&
                       Catch::Contains("2 regression(s): 0 beyond 5.0%, 2 failed in B"));
  SECTION("a point that failed in A is not comparable, whatever B's status: not a regression") {
    CHECK(compare_reports(b, b, o).regressions() == 0);
    CHECK(compare_reports(b, a, o).regressions() == 0);
    CHECK_THAT(comparison_text(compare_reports(b, a, o), o), Catch::Contains("not comparable (status): redrafter"));
  }
}

TEST_CASE("compare: a metric that is not a number is an error naming the report, the point and the metric") {
  const nlohmann::json a = report_of({record("autoregressive", 0, 40, 1, "a"), record("redrafter", 0, 60, 2.5, "a")});
  nlohmann::json b = a;
  b["points"][1]["metrics"]["tps"] = nullptr;  // how a non-finite number is written
  CompareOptions o;
  REQUIRE_THROWS_WITH(compare_reports(a, b, o, "a/report.json", "b/report.json"),
                      Catch::Contains("b/report.json: field 'points[1].metrics.tps': null (expected a number)"));
  REQUIRE_THROWS_WITH(compare_reports(b, a, o, "b/report.json", "a/report.json"),
                      Catch::Contains("b/report.json: field 'points[1].metrics.tps': null (expected a number)"));
  b["points"][0]["metrics"]["tps"] = nlohmann::json::object();
  REQUIRE_THROWS_WITH(compare_reports(a, b, o, "a/report.json", "b/report.json"),
                      Catch::Contains("b/report.json: field 'points[0].metrics.tps': an object (expected a number)"));
}

TEST_CASE("report: the environment names the CPU by family, model and stepping, and the page shows it escaped with its features") {
  const nlohmann::json env = describe_environment(EnvironmentInputs{});
  CHECK_THAT(env["cpu"]["model"].get<std::string>(), Catch::Contains(" (family ") && Catch::Contains(" model ") && Catch::Contains(" stepping "));
  test::TempDir dir("render_environment");
  nlohmann::json r = report_of({record("autoregressive", 0, 40, 1, "a")});
  r["environment"] = {{"cpu", {{"model", "AMD EPYC <b> (family 26 model 2 stepping 1)"}, {"features", "avx2 avx512vnni"}}},
                      {"threads", 1},
                      {"git", {{"commit", "0123456789abcdef"}, {"dirty", false}}}};
  render_report(r, dir / "report.json", dir.str(), dir.str());
  std::ifstream in(dir / "index.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(html, Catch::Contains("AMD EPYC &lt;b&gt; (family 26 model 2 stepping 1), avx2 avx512vnni · 1 threads"));
}

TEST_CASE("report: a '|' or a line break in a name stays inside its Markdown cell") {
  Table t;
  t.id = "t";
  t.caption = "names";
  t.header = {"dataset", "drafter"};
  t.rows = {{"mt|bench", "eagle\nv2"}};
  const std::string md = to_markdown(t);
  CHECK_THAT(md, Catch::Contains("| mt\\|bench | eagle v2 |\n"));
  CHECK_THAT(md, Catch::Contains("| dataset | drafter |\n|---|---:|\n"));
}
