// draftbench run SPEC: expand an experiment spec and run its points (experiments/runner).
#include <fmt/format.h>

#include <filesystem>

#include "engine/cli/commands.h"
#include "engine/common/error.h"
#include "experiments/runner/sweep_runner.h"
#include "experiments/spec/experiment_spec.h"

namespace draftbench::cli {

namespace {
struct RunArgs {
  std::string spec, out, only, shard;
  bool resume = false, dry_run = false;
};

void parse_shard(const std::string& text, RunOptions& o) {
  const size_t slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    size_t used = 0;
    o.shard = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("trailing");
    o.n_shards = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError("run", "--shard", fmt::format("'{}' (expected i/n, e.g. 0/4)", text));
  }
}
}  // namespace

Run add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run an experiment spec (a sweep) and write its results and report");
  sub->add_option("spec", a->spec, "Experiment spec (YAML or JSON; see experiments/README.md)")->required();
  sub->add_option("--out", a->out, "Output directory (default: reports/<spec name>)");
  sub->add_flag("--resume", a->resume, "Continue a run whose output directory already holds results: finished points are skipped");
  sub->add_option("--only", a->only, "Run only points matching axis=value[,axis=value...] (and their baselines)");
  sub->add_option("--shard", a->shard, "i/n: run the points whose index modulo n is i (join shards with `draftbench merge`)");
  sub->add_flag("--dry-run", a->dry_run, "Print the expanded points and an estimated time; run nothing");
  return [sub, a]() -> int {
    if (!sub->parsed()) return -1;
    const ExperimentSpec spec = load_experiment_spec(a->spec, checkout_root(), default_model_path());
    RunOptions o;
    o.checkout = checkout_root();
    o.out_dir = a->out.empty() ? (std::filesystem::path(checkout_root()) / "reports" / spec.name).string() : a->out;
    o.resume = a->resume;
    o.only = a->only;
    o.dry_run = a->dry_run;
    if (!a->shard.empty()) parse_shard(a->shard, o);
    const int errors = run_sweep(spec, o);
    if (errors > 0) {
      fmt::print(stderr, "draftbench: {} point(s) ended in error; see {}/results.jsonl\n", errors, o.out_dir);
      return 1;
    }
    return 0;
  };
}

}  // namespace draftbench::cli
