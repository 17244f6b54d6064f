// "a, b, c": one member of every row of a table (the kinds, architectures, aliases and
// templates that error messages list). A plain loop rather than std::views::transform,
// which clang 14 with libstdc++ 12 (the fuzz preset) cannot compile over a C array.
#pragma once

#include <string>

namespace draftbench {

template <class Table, class Row, class Member>
std::string table_names(const Table& rows, Member Row::*name) {
  std::string out;
  for (const Row& row : rows) {
    if (!out.empty()) out += ", ";
    out += row.*name;
  }
  return out;
}

}  // namespace draftbench
