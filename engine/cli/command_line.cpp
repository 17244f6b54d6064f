#include <string>

#include "engine/cli/commands.h"

namespace draftbench::cli {

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i) line += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';  // POSIX shell quoting, so the line can be pasted back
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace draftbench::cli
