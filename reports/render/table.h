// A table as the report lays it out, independent of format, and its three renderings:
// Markdown (terminal, README), HTML (index.html) and LaTeX (booktabs, for papers).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace draftbench {

struct Table {
  std::string id;  // file stem: table1, table5, points, ...
  std::string caption;
  // Column groups over the header ("MT-Bench-style", "paper (Vicuna-7B, H100)"), as
  // (label, columns spanned); empty = none. Spans add up to the header's size.
  std::vector<std::pair<std::string, int>> groups;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // printed under the table
};

std::string to_markdown(const Table& table);
std::string to_html(const Table& table);
std::string to_latex(const Table& table);

// Text for HTML, in an element or a double-quoted attribute: <, >, & and " escaped.
std::string html_escape(const std::string& s);
// A whole page in the reports' one style: `title` (escaped) as <title> and <h1>, then `body`
// (HTML, as given).
std::string html_page(const std::string& title, const std::string& body);

}  // namespace draftbench
