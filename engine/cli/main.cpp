// draftbench: speculative-decoding engine and experiment harness.
// Errors reach the user as one line on stderr and a non-zero exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "engine/cli/commands.h"
#include "engine/common/printable.h"

int main(int argc, char** argv) {
  CLI::App app{"draftbench: speculative decoding engine and experiment harness"};
  app.require_subcommand(1);
  std::vector<draftbench::cli::Run> runs;
  runs.push_back(draftbench::cli::add_generate(app));
  runs.push_back(draftbench::cli::add_bench(app));
  runs.push_back(draftbench::cli::add_inspect(app));
  runs.push_back(draftbench::cli::add_drafter(app));
  runs.push_back(draftbench::cli::add_distill(app, draftbench::cli::command_line(argc, argv)));
  runs.push_back(draftbench::cli::add_train(app, draftbench::cli::command_line(argc, argv)));
  runs.push_back(draftbench::cli::add_run(app));
  runs.push_back(draftbench::cli::add_merge(app));
  runs.push_back(draftbench::cli::add_report(app));
  runs.push_back(draftbench::cli::add_compare(app));
  runs.push_back(draftbench::cli::add_calibrate(app));
  runs.push_back(draftbench::cli::add_make_model(app));
  runs.push_back(draftbench::cli::add_tokenize(app));
  // CLI11 reports an unknown first word as "a subcommand is required": name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->check_name(argv[1])) {
        names.clear();
        break;
      }
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!names.empty()) {
      fmt::print(stderr, "draftbench: error: unknown command '{}' (expected one of: {})\n", draftbench::printable(argv[1], 60), names);
      return 1;
    }
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
