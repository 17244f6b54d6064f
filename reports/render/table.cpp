#include "reports/render/table.h"

#include <fmt/format.h>

#include <algorithm>

namespace draftbench {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string html_page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}</title>\n<style>\n"
      "body{{font-family:sans-serif;margin:2em;max-width:80em}} table{{border-collapse:collapse;margin:1em 0}}\n"
      "th,td{{border-bottom:1px solid #ccc;padding:.25em .6em;text-align:right}} th:first-child{{text-align:left}}\n"
      "caption{{font-weight:bold;text-align:left;padding:.5em 0}} .note{{color:#555;font-size:90%}} img{{max-width:48em;display:block;margin:1em 0}}\n"
      "</style></head><body>\n<h1>{0}</h1>\n{1}</body></html>\n",
      html_escape(title), body);
}

namespace {

std::string latex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '%' || c == '&' || c == '#' || c == '$') out += std::string("\\") + c;
    else if (c == '~') out += "\\textasciitilde{}";
    else out += c;
  }
  return out;
}

// A cell as Markdown table text: a '|' would end the cell (a dataset or drafter named "a|b"),
// and a line break would end the row.
std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& c : cells) out += " " + markdown_cell(c) + " |";
  return out + "\n";
}

}  // namespace

std::string to_markdown(const Table& t) {
  std::string out = fmt::format("**{}**\n\n", t.caption);
  std::vector<std::string> header = t.header;
  // Markdown has no spanning cells: the group goes in front of each column it spans.
  if (!t.groups.empty()) {
    size_t col = 0;
    for (const auto& [label, span] : t.groups)
      for (int i = 0; i < span && col < header.size(); ++i, ++col)
        if (!label.empty()) header[col] = label + ": " + header[col];
  }
  out += markdown_row(header) + "|";
  for (size_t i = 0; i < header.size(); ++i) out += i == 0 ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : t.rows) out += markdown_row(row);
  for (const std::string& n : t.notes) out += "\n" + n + "\n";
  return out;
}

std::string to_html(const Table& t) {
  std::string out = fmt::format("<table id=\"{}\">\n<caption>{}</caption>\n<thead>\n", t.id, html_escape(t.caption));
  if (!t.groups.empty()) {
    out += "<tr>";
    for (const auto& [label, span] : t.groups) out += fmt::format("<th colspan=\"{}\">{}</th>", span, html_escape(label));
    out += "</tr>\n";
  }
  out += "<tr>";
  for (const std::string& h : t.header) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n</thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) out += (i == 0 ? "<th>" : "<td>") + html_escape(row[i]) + (i == 0 ? "</th>" : "</td>");
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  for (const std::string& n : t.notes) out += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  return out;
}

std::string to_latex(const Table& t) {
  std::string out = "% needs \\usepackage{booktabs}\n\\begin{table}[t]\n\\centering\n";
  out += fmt::format("\\caption{{{}}}\n\\label{{tab:{}}}\n", latex_escape(t.caption), t.id);
  out += "\\begin{tabular}{l" + std::string(t.header.size() > 0 ? t.header.size() - 1 : 0, 'r') + "}\n\\toprule\n";
  if (!t.groups.empty()) {
    std::vector<std::string> cells;
    std::string rules;
    int col = 1;
    for (const auto& [label, span] : t.groups) {
      cells.push_back(span == 1 ? latex_escape(label) : fmt::format("\\multicolumn{{{}}}{{c}}{{{}}}", span, latex_escape(label)));
      if (!label.empty()) rules += fmt::format("\\cmidrule(lr){{{}-{}}}", col, col + span - 1);
      col += span;
    }
    out += fmt::format("{} \\\\\n{}\n", fmt::join(cells, " & "), rules);
  }
  std::vector<std::string> header;
  for (const std::string& h : t.header) header.push_back(latex_escape(h));
  out += fmt::format("{} \\\\\n\\midrule\n", fmt::join(header, " & "));
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const std::string& c : row) cells.push_back(latex_escape(c));
    out += fmt::format("{} \\\\\n", fmt::join(cells, " & "));
  }
  out += "\\bottomrule\n\\end{tabular}\n";
  for (const std::string& n : t.notes) out += fmt::format("\\par\\footnotesize {}\n", latex_escape(n));
  return out + "\\end{table}\n";
}

}  // namespace draftbench
