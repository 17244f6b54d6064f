// The draftbench subcommands. Each registers its options on the CLI11 app and returns
// the function to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace draftbench::cli {

using Run = std::function<int()>;

Run add_generate(CLI::App& app);
Run add_bench(CLI::App& app);
Run add_inspect(CLI::App& app);
Run add_drafter(CLI::App& app);

// Where the README's set-up command puts the default model: models/ of the checkout,
// found from the working directory or from the binary's place in build/<preset>/.
std::string default_model_path();

}  // namespace draftbench::cli
