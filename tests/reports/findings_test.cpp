// The paper's findings as rules (reports/findings/paper_findings.h): for each, reports built
// so that it holds, so that it does not, and without the points it needs.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "engine/common/error.h"
#include "reports/findings/paper_findings.h"

using namespace draftbench;
using nlohmann::json;

namespace {

json paper_tables() {
  std::ifstream in(std::string(DRAFTBENCH_SOURCE_DIR) + "/reports/paper/paper_tables.json");
  return json::parse(in);
}

json point(json params, json metrics, const std::string& dataset = "mt_bench_style", const std::string& status = "ok") {
  return {{"dataset", dataset}, {"drafter", params.value("drafter", "")}, {"status", status}, {"params", std::move(params)}, {"metrics", std::move(metrics)}};
}

json report(std::vector<json> points) { return {{"schema", "draftbench-report"}, {"points", std::move(points)}}; }

FindingResult finding(int number, const std::vector<json>& reports, const FindingsOptions& options = {}) {
  return evaluate_findings(reports, paper_tables(), options).at(static_cast<size_t>(number - 1));
}

// Table 1: tokens/step of three drafters in two temperature cells.
json table1(double redrafter_t1) {
  std::vector<json> points;
  for (double t : {0.0, 1.0}) {
    points.push_back(point({{"drafter", "medusa"}, {"temperature", t}, {"batch_size", 1}}, {{"tokens_per_step", 2.0}, {"speedup", 1.2}}));
    points.push_back(point({{"drafter", "eagle"}, {"temperature", t}, {"batch_size", 1}}, {{"tokens_per_step", 2.5}, {"speedup", 1.3}}));
    points.push_back(point({{"drafter", "redrafter"}, {"temperature", t}, {"batch_size", 1}},
                           {{"tokens_per_step", t == 0 ? 3.0 : redrafter_t1}, {"speedup", t == 0 ? 1.5 : 1.5 * redrafter_t1 / 3.0}}));
  }
  return report(points);
}

// Table 5: ReDrafter's TPS by beam width and batch size; `tps(bw, bsz)`.
template <typename Tps>
json table5(Tps tps) {
  std::vector<json> points;
  for (int bw : {1, 4, 16})
    for (int bsz : {1, 2, 4, 8}) {
      const double v = tps(bw, bsz);
      points.push_back(point({{"drafter", "redrafter"}, {"beam_width", bw}, {"batch_size", bsz}}, {{"tps", v}, {"tps_x_bsz", v * bsz}}));
    }
  return report(points);
}

}  // namespace

TEST_CASE("findings: the seven rules match paper_tables.json's findings, without points none is measurable") {
  const std::vector<FindingResult> results = evaluate_findings(std::vector<json>{}, paper_tables());
  REQUIRE(results.size() == 7);
  for (const FindingResult& r : results) {
    CHECK(r.status == FindingStatus::not_measurable);
    CHECK_THAT(r.summary, Catch::Contains("experiments/paper/"));
    CHECK(!r.rule.empty());
  }
  json wrong = paper_tables();
  wrong["findings"].erase(0);
  CHECK_THROWS_WITH(evaluate_findings(std::vector<json>{}, wrong), Catch::Contains("'findings'"));
  // Points that did not finish do not count.
  json failed = table1(3.5);
  for (json& p : failed["points"]) p["status"] = "timeout";
  CHECK(finding(1, {failed}).status == FindingStatus::not_measurable);
}

TEST_CASE("findings 1 and 2: ReDrafter's tokens/step leads, its speedup is ~30% higher at T 1") {
  CHECK(finding(1, {table1(3.9)}).status == FindingStatus::holds);
  const FindingResult below_at_t1 = finding(1, {table1(2.2)});  // below EAGLE at T 1 only
  CHECK(below_at_t1.status == FindingStatus::does_not_hold);
  CHECK(below_at_t1.summary == "ReDrafter highest in 1 of 2 cells");
  CHECK(finding(2, {table1(3.9)}).status == FindingStatus::holds);  // ratio 1.3
  const FindingResult flat = finding(2, {table1(3.0)});             // ratio 1.0
  CHECK(flat.status == FindingStatus::does_not_hold);
  CHECK(flat.numbers["mt_bench_style BW 0 BL 0"]["ratio"] == 1.0);
}

TEST_CASE("findings 3 and 4: batch-size trends and the best cells of Table 5") {
  // TPS falls with batch size, sooner for wider beams; the widest beam is fastest alone,
  // the middle one gives the most total throughput at the largest batch.
  const auto paper_like = [](int bw, int bsz) {
    const double base = bw == 16 ? 30.0 : bw == 4 ? 25.0 : 15.0;
    const double fall = bw == 16 ? 0.6 : bw == 4 ? 0.9 : 0.97;  // per doubling of the batch
    return base * std::pow(fall, std::log2(bsz));
  };
  CHECK(finding(3, {table5(paper_like)}).status == FindingStatus::holds);
  CHECK(finding(4, {table5(paper_like)}).status == FindingStatus::holds);
  // Table 1's points (no beam width; T 1 among them) beside Table 5's change nothing.
  CHECK(finding(4, {table5(paper_like), table1(9.0)}).numbers == finding(4, {table5(paper_like)}).numbers);
  CHECK(finding(4, {table5(paper_like), table1(9.0)}).status == FindingStatus::holds);
  // TPS that rises with batch size (a GPU with room to spare) breaks finding 3.
  const auto rising = [](int bw, int bsz) { return 10.0 * bw + bsz; };
  CHECK(finding(3, {table5(rising)}).status == FindingStatus::does_not_hold);
  // On 2 cores every wider beam and every larger batch costs: the best TPS x BSZ is at BW 1.
  const auto weak = [](int bw, int bsz) { return 40.0 / (1 + 0.2 * bw) / bsz * 1.1; };
  const FindingResult weak4 = finding(4, {table5(weak)});
  CHECK(weak4.status == FindingStatus::does_not_hold);
  CHECK(weak4.numbers["best_tps"]["beam_width"] == 1);
}

TEST_CASE("finding 5: tree attention's savings, and where it helps") {
  const auto figure6 = [](double verified_at_16, double heavy_gain) {
    std::vector<json> points;
    for (int bw : {2, 16})
      points.push_back(point({{"drafter", "redrafter"}, {"beam_width", bw}, {"beam_length", 5}, {"batch_size", 1}, {"tree_attention", true}},
                             {{"beam_tokens", {{"mean", 5.0 * bw}}}, {"verified_tokens", {{"mean", bw == 16 ? verified_at_16 : 9.0}}}, {"tps", 20.0}}));
    for (int bw : {2, 16})
      points.push_back(point({{"drafter", "redrafter"}, {"beam_width", bw}, {"beam_length", 5}, {"batch_size", 1}, {"tree_attention", false}},
                             {{"tps", bw == 16 ? 20.0 / heavy_gain : 20.0}}));
    return report(points);
  };
  CHECK(finding(5, {figure6(48.0, 1.4)}).status == FindingStatus::holds);          // 40% removed, 1.4x at BW 16
  CHECK(finding(5, {figure6(76.0, 1.4)}).status == FindingStatus::does_not_hold);  // 5% removed
  CHECK(finding(5, {figure6(48.0, 1.0)}).status == FindingStatus::does_not_hold);  // no gain
}

TEST_CASE("finding 6: the best sizes on weak hardware, against the training length") {
  const auto figure7 = [](int best_bw, int best_bl) {
    std::vector<json> points;
    for (int bw : {1, 2, 4, 8})
      for (int bl : {2, 4, 5, 6})
        points.push_back(point({{"drafter", "redrafter"}, {"beam_width", bw}, {"beam_length", bl}, {"batch_size", 1}, {"temperature", 0}},
                               {{"speedup", bw == best_bw && bl == best_bl ? 1.4 : 1.0}}));
    return report(points);
  };
  FindingsOptions trained_for_6;
  trained_for_6.training_length = [](const json&) { return std::optional<int>(6); };
  CHECK(finding(6, {figure7(2, 5)}, trained_for_6).status == FindingStatus::holds);
  CHECK(finding(6, {figure7(8, 5)}, trained_for_6).status == FindingStatus::does_not_hold);  // too wide
  CHECK(finding(6, {figure7(1, 2)}, trained_for_6).status == FindingStatus::does_not_hold);  // too short
  CHECK(finding(6, {figure7(2, 5)}).status == FindingStatus::not_measurable);                // training length unknown
}

TEST_CASE("finding 7: distillation's gain at every beam width") {
  const auto table6 = [](double gain) {
    std::vector<json> points;
    for (int bw : {1, 4, 16})
      for (bool distilled : {true, false})
        points.push_back(point({{"drafter", "redrafter"}, {"beam_width", bw}, {"batch_size", 1}, {"distilled", distilled}},
                               {{"speedup", distilled ? gain : 1.0}, {"tokens_per_step", distilled ? 2.0 * gain : 2.0}}));
    return report(points);
  };
  CHECK(finding(7, {table6(1.1)}).status == FindingStatus::holds);
  CHECK(finding(7, {table6(1.9)}).status == FindingStatus::does_not_hold);  // far more than 10%
  CHECK(finding(7, {table6(0.9)}).status == FindingStatus::does_not_hold);
  const std::string markdown = findings_markdown(evaluate_findings(std::vector<json>{table6(1.1)}, paper_tables()));
  CHECK_THAT(markdown, Catch::Contains("| 7 | Distillation raises speedup and tokens/step by about 10% at every beam width | **holds** |"));
  CHECK(findings_json(evaluate_findings(std::vector<json>{table6(1.1)}, paper_tables()))[6]["status"] == "holds");
  const std::string html = findings_html(evaluate_findings(std::vector<json>{table6(1.1)}, paper_tables()), {{"table6 <cpu>", "table6/index.html"}});
  CHECK_THAT(html, Catch::Contains("<td>holds</td>") && Catch::Contains("<a href=\"table6/index.html\">table6 &lt;cpu&gt;</a>"));
}

TEST_CASE("Tables 2 and 3: the paper's values, what they need and the nearest run, a malformed table is named") {
  const std::vector<UnrunnableTable> tables = unrunnable_tables(paper_tables());
  REQUIRE(tables.size() == 2);
  CHECK(tables[0].paper.id == "table2");
  CHECK(tables[1].paper.id == "table3");
  for (const UnrunnableTable& t : tables) {
    CHECK(t.paper.rows.size() == 3);  // Vicuna 7B, 13B, 33B
    CHECK(t.paper.header.size() == 7);
    CHECK(!t.needs.empty());
    CHECK(!t.nearest.empty());
  }
  CHECK(tables[0].paper.rows[0] == std::vector<std::string>{"vicuna-7b", "2.41", "2.48", "2.76", "2.09", "2.11", "1.57"});
  const std::string markdown = unrunnable_tables_markdown(tables);
  CHECK(markdown.find("## table3: not runnable here") != std::string::npos);
  CHECK(markdown.find("| vicuna-33b | 97.5 |") != std::string::npos);
  CHECK(findings_html({}, {}, tables).find("tensor parallelism") != std::string::npos);

  json broken = paper_tables();
  broken["table3"]["rows"][1]["speedup"].erase(0);
  try {
    unrunnable_tables(broken);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("table3") != std::string::npos);
    CHECK(std::string(e.what()).find("3 values") != std::string::npos);
  }
}

TEST_CASE("findings: a malformed paper tables file is named by its path, not as paper_tables.json") {
  FindingsOptions options;
  options.paper_tables_path = "elsewhere/tables.json";
  json no_findings = paper_tables();
  no_findings["findings"].erase(0);
  REQUIRE_THROWS_WITH(evaluate_findings(std::vector<json>{}, no_findings, options), Catch::StartsWith("elsewhere/tables.json: field 'findings': expected"));
  REQUIRE_THROWS_WITH(evaluate_findings(std::vector<json>{}, json::array(), options),
                      Catch::StartsWith("elsewhere/tables.json: an array (expected an object with the paper's findings and tables)"));
  json no_table2 = paper_tables();
  no_table2.erase("table2");
  REQUIRE_THROWS_WITH(unrunnable_tables(no_table2, "elsewhere/tables.json"), Catch::StartsWith("elsewhere/tables.json: field 'table2': expected"));
  REQUIRE_THROWS_WITH(unrunnable_tables(json(nullptr), "elsewhere/tables.json"), Catch::StartsWith("elsewhere/tables.json: null (expected an object"));
}
