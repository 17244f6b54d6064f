// The draftbench subcommands. Each registers its options on the CLI11 app and returns
// the function to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/decoding/cost_model.h"
#include "engine/model/forward_pass.h"

namespace draftbench {
struct PointSettings;
}

namespace draftbench::cli {

using Run = std::function<int()>;

// Every subcommand registered on `app` (one of them required), in main()'s order; the runs
// to try after parsing (each returns < 0 when its subcommand was not the one given).
std::vector<Run> add_commands(CLI::App& app, const std::string& command_line);
// For a first word that is neither an option nor a command: the one-line error naming it
// and the commands; else empty.
std::string unknown_command(const CLI::App& app, const std::string& first_word);

Run add_generate(CLI::App& app);
Run add_bench(CLI::App& app);
Run add_inspect(CLI::App& app);
Run add_drafter(CLI::App& app);
// `command_line` (the whole invocation) is recorded in the outputs' provenance.
Run add_distill(CLI::App& app, const std::string& command_line);
Run add_train(CLI::App& app, const std::string& command_line);
Run add_run(CLI::App& app);
Run add_merge(CLI::App& app);
Run add_report(CLI::App& app);
Run add_compare(CLI::App& app);
Run add_calibrate(CLI::App& app);
Run add_make_model(CLI::App& app);
Run add_tokenize(CLI::App& app);

// Where the README's set-up command puts the default model: models/ of the checkout,
// found from the working directory or from the binary's place in build/<preset>/.
std::string default_model_path();
// A --model argument as a path: a model alias (engine/model/model_aliases.h) becomes its
// file in the checkout; anything else is returned as it is. Throws InputError for an alias
// whose file is not installed, naming the setup command.
std::string model_path_of(const std::string& argument);
// The drafter of `kind` shipped for the model at `model_path`: the folder of <kind> in its
// alias's drafters folder (engine/model/model_aliases.h; models/drafters/<kind> for the
// default model), or empty when the checkout has none for that model.
std::string shipped_drafter_dir(const std::string& model_path, const std::string& kind);

// The checkout (the directory holding experiments/, models/, datasets/): the working
// directory or the one the binary was built in; "." when neither is.
std::string checkout_root();

// --model PATH|ALIAS into `model`, an alias resolved by model_path_of as it is parsed;
// `what` opens its help ("GGUF model file or Hugging Face checkpoint directory").
void add_model_option(CLI::App& sub, std::string& model, std::string_view what);
// The transform behind --model, for options that name a model another way: a model alias
// becomes its file (model_path_of), anything else passes as it is.
CLI::Validator model_alias_transform();

// --device cpu|cuda|emulated: where the target model's forward pass runs.
void add_device_option(CLI::App& sub, ForwardDevice& device);

// The cost model as a table on stdout (calibrate, inspect --cost).
void print_cost_model(const CostModel& model);

// Every setting of the axis table with a command-line flag (engine/drafters/axis_table.h),
// its range, default and help from there, stored into `point`.
void add_setting_options(CLI::App& sub, PointSettings& point);

// Option checks built on engine/common/input_checks.h, so a number from the command line
// meets the same rules as one from a spec: a finite number in [lo, hi] (NaN, infinities
// and text fail); a plain decimal integer in [0, hi] (CLI11's NonNegativeNumber names the
// largest double in its message); a plain decimal integer in [0, 2^53] (a seed: "-1" would
// wrap); a thread count, 0 (all cores) to kThreadsPerCore per core.
CLI::Validator finite_number(double lo, double hi);
CLI::Validator whole_number(int64_t hi = INT32_MAX);
CLI::Validator seed_value();
CLI::Validator thread_count();

// argv as one shell-quoted line (for provenance records).
std::string command_line(int argc, char** argv);

}  // namespace draftbench::cli
