// draftbench calibrate: measures the cost model that automatic draft sizing weighs (the
// target's forward over n tree tokens and the LM head over n rows) on this machine, for
// this model, thread count and device, and caches it (engine/decoding/cost_model.h).
// `inspect --cost` shows the cached one; a speculative run with `auto` sizes measures it
// itself the first time.
#include <fmt/format.h>

#include <filesystem>

#include "app/commands.h"
#include "engine/common/dir_lock.h"
#include "engine/decoding/cost_model.h"
#include "engine/model/model.h"

namespace draftbench::cli {

namespace {
struct CalibrateArgs {
  std::string model = default_model_path();
  int threads = 0;
  ForwardDevice device = ForwardDevice::kCpu;
};
}  // namespace

void print_cost_model(const CostModel& m) {
  fmt::print("{:>12} {:>12} {:>12}   (committed context {} tokens)\n", "tree tokens", "forward ms", "LM head ms", m.context);
  for (size_t i = 0; i < m.sizes.size(); ++i) fmt::print("{:>12} {:>12.2f} {:>12.2f}\n", m.sizes[i], m.forward_s[i] * 1e3, m.head_s[i] * 1e3);
  fmt::print("sampling a row at temperature > 0: {:.2f} ms\n", m.sample_s * 1e3);
  for (const auto& [identity, t] : m.drafters)
    fmt::print("drafter {}: a proposal takes {:.3f} ms + {:.2f} x its estimate + {:.3f} ms per pass + {:.4f} ms per token + {:.4f} ms per row\n",
               identity.substr(0, identity.find('@') + 13), t.fixed_s * 1e3, t.per_estimate, t.per_pass_s * 1e3, t.per_token_s * 1e3, t.per_row_s * 1e3);
  if (m.drafters.empty()) fmt::print("no drafter timed yet (each drafter is timed the first time it sizes drafts automatically)\n");
}

Run add_calibrate(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  CLI::App* sub = app.add_subcommand("calibrate", "Measure and cache the cost model that automatic draft sizing uses");
  add_model_option(*sub, a->model, "GGUF model file or Hugging Face checkpoint directory");
  sub->add_option("--threads", a->threads, "Worker threads (default: all cores)")->check(thread_count());
  add_device_option(*sub, a->device);
  return [sub, a]() -> int {
    if (!sub->parsed()) return -1;
    auto model = Model::load(a->model);
    // One calibration at a time: two at once would each time the other's load.
    std::filesystem::create_directories(cost_cache_dir());
    const DirectoryLock lock(cost_cache_dir(), "one calibration at a time (two would time each other's load): wait for it to finish");
    ThreadPool pool(a->threads > 0 ? a->threads : ThreadPool::default_threads());
    const auto target = make_forward_pass(a->device, model->config(), model->weights(), pool);
    const auto cost = obtain_cost_model(*target, model->config(), cost_key(*target, a->model, pool.size()), true,
                                        [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
    print_cost_model(*cost);
    fmt::print("cached in {}\n", cost_cache_dir());
    return 0;
  };
}

}  // namespace draftbench::cli
