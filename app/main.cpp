// draftbench: speculative-decoding engine and experiment harness.
// Errors reach the user as one line on stderr and a non-zero exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"draftbench: speculative decoding engine and experiment harness"};
  std::vector<draftbench::cli::Run> runs = draftbench::cli::add_commands(app, draftbench::cli::command_line(argc, argv));
  // CLI11 reports an unknown first word as "a subcommand is required": name it instead.
  if (const std::string unknown = draftbench::cli::unknown_command(app, argc > 1 ? argv[1] : ""); !unknown.empty()) {
    fmt::print(stderr, "draftbench: error: {}\n", unknown);
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& run : runs)
      if (run) {
        if (int rc = run(); rc >= 0) return rc;
      }
    return 0;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "draftbench: error: {}\n", e.what());
    return 1;
  }
}
