#include "reports/render/report_files.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "reports/render/report_tables.h"

namespace draftbench {

namespace fs = std::filesystem;

namespace {

std::string index_html(const nlohmann::json& report, const std::vector<Table>& tables, const fs::path& dir) {
  const nlohmann::json& env = report["environment"];
  std::string html = fmt::format("<p>{}</p>\n", html_escape(report["spec"].value("description", std::string())));
  const std::string device = env.value("device", "cpu");
  // The CPU as the environment records it: its identity (name, family, model, stepping) and
  // the instruction sets the kernels dispatch on.
  const std::string features = env["cpu"].value("features", std::string());
  const std::string cpu = env["cpu"]["model"].get<std::string>() + (features.empty() ? "" : ", " + features);
  html += fmt::format("<p class=\"note\">{}{} · {} threads · commit {}{} · created {}</p>\n", html_escape(cpu), device == "cpu" ? "" : " · device " + device,
                      env["threads"].dump(), env["git"]["commit"].get<std::string>().substr(0, 12), env["git"]["dirty"].get<bool>() ? " (dirty)" : "",
                      report["created_utc"].get<std::string>());
  for (const Table& t : tables)
    html += to_html(t) + fmt::format("<p class=\"note\">Also as <a href=\"tables/{0}.md\">Markdown</a> and <a href=\"tables/{0}.tex\">LaTeX</a>.</p>\n", t.id);
  if (fs::exists(dir / "plots"))
    for (const auto& e : fs::directory_iterator(dir / "plots"))
      if (e.path().extension() == ".png") html += fmt::format("<img src=\"plots/{}\" alt=\"{}\">\n", e.path().filename().string(), e.path().stem().string());
  return html_page(report["spec"]["name"].get<std::string>(), html);
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Draws the figures into dir/plots; returns "" or why there are none.
std::string draw_plots(const std::string& report_path, const std::string& dir, const std::string& checkout) {
  const fs::path python = fs::path(checkout) / ".venv" / "bin" / "python", script = fs::path(checkout) / "scripts" / "plot_report.py";
  if (!fs::exists(python) || !fs::exists(script)) return fmt::format("plots skipped: no {} (scripts/setup.sh makes it)", python.string());
  const std::string command = fmt::format("{} {} {} --out {} 2>&1", shell_quoted(python.string()), shell_quoted(script.string()), shell_quoted(report_path),
                                          shell_quoted((fs::path(dir) / "plots").string()));
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "plots skipped: cannot start Python";
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  if (status == 0) return "";
  while (!output.empty() && output.back() == '\n') output.pop_back();
  const size_t last = output.rfind('\n');
  return "plots failed: " + (last == std::string::npos ? output : output.substr(last + 1));
}

}  // namespace

std::string render_report(const nlohmann::json& report, const std::string& report_path, const std::string& dir_name, const std::string& checkout) {
  const std::string plots_problem = draw_plots(report_path, dir_name, checkout);
  const std::string paper_tables_path = (fs::path(checkout) / "reports" / "paper" / "paper_tables.json").string();
  nlohmann::json paper;
  if (fs::exists(paper_tables_path)) {
    std::ifstream f(paper_tables_path);
    paper = nlohmann::json::parse(f, nullptr, false);
    if (paper.is_discarded()) throw InputError(paper_tables_path, "", "not valid JSON (expected the paper's tables)");
  }
  const fs::path dir(dir_name);
  fs::create_directories(dir / "tables");
  const std::vector<Table> tables = report_tables(report, paper);
  std::set<std::string> written;
  for (const Table& t : tables) {
    write_file_atomically((dir / "tables" / (t.id + ".md")).string(), to_markdown(t));
    write_file_atomically((dir / "tables" / (t.id + ".html")).string(), to_html(t));
    write_file_atomically((dir / "tables" / (t.id + ".tex")).string(), to_latex(t));
    written.insert(t.id);
  }
  // A re-render (`draftbench report`, a newer layout rule) may drop a layout; its old files
  // would read as current. Only the three formats written here are removed.
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "tables")) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".md" || ext == ".html" || ext == ".tex") && !written.count(e.path().stem().string())) fs::remove(e.path());
  }
  write_file_atomically((dir / "index.html").string(), index_html(report, tables, dir));
  return fmt::format("{}\n{}report: {}\n", to_markdown(tables.front()), plots_problem.empty() ? "" : plots_problem + "\n", (dir / "index.html").string());
}

}  // namespace draftbench
