// draftbench make-model: a random-weight GGUF file with the architecture and tokenizer
// keys, tensor names, shapes and types of a named model (engine/model/synthetic_model.h),
// so that a machine without the real file (a GPU box that cannot download it) still runs
// the full model path: `generate`, `bench decode` and the drafters, on any --device.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/model/synthetic_model.h"

namespace draftbench::cli {

namespace {
struct MakeModelArgs {
  std::string like, out;
  uint64_t seed = 1;
  bool list = false;
};

int run_make_model(const MakeModelArgs& a) {
  if (a.list) {
    for (const ModelRecipe& r : model_recipes()) fmt::print("{:<20} {}\n", r.name, r.description);
    return 0;
  }
  const std::string valid = "one of: " + model_recipe_names();
  if (a.like.empty()) throw InputError("make-model", "--like", "missing (" + valid + "; --list describes them)");
  const ModelRecipe* recipe = find_model_recipe(a.like);
  if (!recipe) throw InputError("make-model", "--like '" + a.like + "'", "unknown recipe (expected " + valid + ")");
  if (a.out.empty()) throw InputError("make-model", "--out", "missing (the GGUF file to write)");
  const auto start = std::chrono::steady_clock::now();
  write_synthetic_model(*recipe, a.seed, a.out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(stderr, "wrote {} (random weights, seed {}, {:.1f} MiB) to {} in {:.1f} s\n", recipe->name, a.seed,
             static_cast<double>(std::filesystem::file_size(a.out)) / 1048576.0, a.out, seconds);
  return 0;
}
}  // namespace

Run add_make_model(CLI::App& app) {
  auto a = std::make_shared<MakeModelArgs>();
  CLI::App* sub = app.add_subcommand("make-model", "Write a random-weight GGUF model with the exact shapes, metadata and tensor types of a named model");
  sub->add_option("--like", a->like, "Recipe: the model to imitate (--list shows them)");
  sub->add_option("--seed", a->seed, "Random seed: the same recipe and seed give the same bytes")->capture_default_str()->check(seed_value());
  sub->add_option("--out", a->out, "GGUF file to write (under a temporary name, then renamed)");
  sub->add_flag("--list", a->list, "Print the recipes, one per line with a short description, and exit");
  return [sub, a]() -> int { return sub->parsed() ? run_make_model(*a) : -1; };
}

}  // namespace draftbench::cli
