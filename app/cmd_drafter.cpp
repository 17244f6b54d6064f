// draftbench drafter init: untrained drafter weights for a target model, in draftbench's
// own format — for the losslessness tests and for trying a drafter before training one.
#include <fmt/format.h>

#include "app/commands.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/model.h"

namespace draftbench::cli {

namespace {
struct DrafterInitArgs {
  std::string model = default_model_path(), out;
  RandomDrafterSpec spec;
};
}  // namespace

Run add_drafter(CLI::App& app) {
  auto a = std::make_shared<DrafterInitArgs>();
  CLI::App* sub = app.add_subcommand("drafter", "Drafter weights");
  sub->require_subcommand(1);
  CLI::App* init = sub->add_subcommand("init", "Write untrained (random) drafter weights for a target model");
  add_model_option(*init, a->model, "Target model: GGUF file or HF directory");
  init->add_option("--drafter", a->spec.kind, fmt::format("One of {}", known_drafters(true)))->required();
  init->add_option("--out", a->out, "Directory to write drafter.json and model.safetensors to")->required();
  init->add_option("--draft-vocab", a->spec.draft_vocab, "Draft vocabulary size (0 = the whole target vocabulary)")
      ->capture_default_str()
      ->check(whole_number());
  init->add_option("--seed", a->spec.seed, "Random seed")->capture_default_str()->check(seed_value());
  init->add_option("--num-heads", a->spec.num_heads, "Medusa heads")->capture_default_str()->check(CLI::Range(1, 64));
  init->add_option("--num-layers", a->spec.num_layers, "Residual blocks (Medusa per head; ReDrafter's num_draft_layers)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  init->add_flag("--own-head", a->spec.own_head, "An own output layer instead of the target's LM head rows (Medusa, ReDrafter)");
  return [init, a]() -> int {
    if (!init->parsed()) return -1;
    auto model = Model::load(a->model);
    write_random_drafter(a->spec, *model, a->out);
    fmt::print(stderr, "wrote untrained {} weights for {} to {}\n", a->spec.kind, a->model, a->out);
    return 0;
  };
}

}  // namespace draftbench::cli
