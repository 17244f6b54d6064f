// The draftbench command line as one definition, shared by main() and the CLI fuzz target
// (tests/fuzz/cli_fuzz.cpp), so that what is fuzzed is what users type into.
#include <fmt/format.h>

#include "app/commands.h"
#include "engine/common/printable.h"

namespace draftbench::cli {

std::vector<Run> add_commands(CLI::App& app, const std::string& command_line) {
  app.require_subcommand(1);
  std::vector<Run> runs;
  runs.push_back(add_generate(app));
  runs.push_back(add_bench(app));
  runs.push_back(add_inspect(app));
  runs.push_back(add_drafter(app));
  runs.push_back(add_distill(app, command_line));
  runs.push_back(add_train(app, command_line));
  runs.push_back(add_run(app));
  runs.push_back(add_merge(app));
  runs.push_back(add_report(app));
  runs.push_back(add_compare(app));
  runs.push_back(add_calibrate(app));
  runs.push_back(add_make_model(app));
  runs.push_back(add_tokenize(app));
  return runs;
}

std::string unknown_command(const CLI::App& app, const std::string& first_word) {
  if (first_word.empty() || first_word[0] == '-') return "";
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(first_word)) return "";
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return fmt::format("unknown command '{}' (expected one of: {})", printable(first_word, 60), names);
}

}  // namespace draftbench::cli
