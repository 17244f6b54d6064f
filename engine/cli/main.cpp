// draftbench: speculative-decoding engine and experiment harness.
// Errors reach the user as one line on stderr and a non-zero exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <vector>

#include "engine/cli/commands.h"

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
