// Fuzz target for the CLI's numeric options: the input's lines are argv words (the first the
// command), parsed through the draftbench command definitions (app/ add_commands) and
// never run. Parsing either fails with a CLI11 ParseError (the one line main() prints) or
// succeeds, and then every value given to a number option is a finite number (CLI11 type
// FLOAT) or, for an unsigned one (UINT), was not negative (strtoull wraps "-1" silently).
// Anything else (a crash, a sanitizer report, another exception type, a NaN, an infinity or a
// negative that got through) is a bug.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/commands.h"

namespace {

// One app for the process: building it costs more than a parse, and CLI11 clears the
// previous results at the start of each parse.
CLI::App& the_app() {
  static CLI::App app{"draftbench"};
  static const std::vector<draftbench::cli::Run> runs = draftbench::cli::add_commands(app, "draftbench (fuzz)");
  return app;
}

void check_numbers(const CLI::App& sub) {
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->count() == 0) continue;
    const std::string type = opt->get_type_name();
    if (type.rfind("UINT", 0) == 0)
      for (const std::string& text : opt->results())
        if (std::strtold(text.c_str(), nullptr) < 0) {  // strtoull wraps it to a huge value
          std::fprintf(stderr, "cli fuzz: %s accepted the negative value '%s' for an unsigned number\n", opt->get_name().c_str(), text.c_str());
          std::abort();
        }
    if (type.rfind("FLOAT", 0) != 0) continue;
    for (const std::string& text : opt->results()) {
      double v = 0;
      if (!CLI::detail::lexical_cast(text, v)) continue;  // a flag-like or defaulted text CLI11 did not convert
      if (!std::isfinite(v)) {
        std::fprintf(stderr, "cli fuzz: %s accepted the non-finite value '%s'\n", opt->get_name().c_str(), text.c_str());
        std::abort();
      }
    }
  }
  for (const CLI::App* nested : sub.get_subcommands()) check_numbers(*nested);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // argv is short; long inputs only slow the search
  std::vector<std::string> words(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n' || data[i] == '\0') words.emplace_back();
    else words.back() += static_cast<char>(data[i]);
  }
  if (words.size() > 64) return 0;
  CLI::App& app = the_app();
  if (!draftbench::cli::unknown_command(app, words[0]).empty()) return 0;
  std::vector<std::string> args(words.rbegin(), words.rend());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError&) {
    return 0;
  }
  for (const CLI::App* sub : app.get_subcommands()) check_numbers(*sub);
  return 0;
}
