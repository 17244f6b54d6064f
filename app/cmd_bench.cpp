// draftbench bench decode: prefill and decode throughput of the engine, measured the way
// llama-bench does (pp: N random tokens prefilled in 512-token micro-batches, llama.cpp's
// default n_ubatch; tg: M single-token steps from an empty context), with a warm-up run
// and the median over repeats.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "engine/common/peak_memory.h"
#include "engine/decoding/prefill.h"
#include "engine/decoding/sampling.h"
#include "engine/model/forward_pass.h"
#include "engine/model/model.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"
#include "kernels/sampling/counter_rng.h"

namespace draftbench::cli {

namespace {
struct BenchArgs {
  std::string model = default_model_path();
  int prompt_tokens = 512, gen_tokens = 128, threads = 0, repeats = 5;
  ForwardDevice device = ForwardDevice::kCpu;
  bool json = false;
};

struct Spread {
  double median, min, max;
};
Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return {med, v.front(), v.back()};
}

int run_bench_decode(const BenchArgs& a) {
  auto model = Model::load(a.model);
  const ModelConfig& c = model->config();
  const int threads = a.threads > 0 ? a.threads : ThreadPool::default_threads();
  ThreadPool pool(threads);
  const auto target = make_forward_pass(a.device, c, model->weights(), pool);
  const int64_t context = std::max(a.prompt_tokens, a.gen_tokens) + 1;
  KvCache cache(c, 1, context, target->device());

  // Random prompt ids from a fixed key, avoiding the special ids at the start of the vocabulary.
  std::vector<int32_t> prompt(static_cast<size_t>(a.prompt_tokens));
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = 1000 + static_cast<int32_t>(uniform(RngKey{42, 0, i, 0}) * static_cast<double>(c.n_vocab - 2000));
  if (model->tokenizer().bos_id() >= 0 && !prompt.empty()) prompt[0] = model->tokenizer().bos_id();

  ForwardResult out;
  PrefillOutput prefilled;
  auto run_prefill = [&]() {
    cache.truncate(0, 0);
    const PrefillInput input{0, prompt, false};
    const auto t0 = std::chrono::steady_clock::now();
    prefill(*target, cache, std::span(&input, 1), prefilled);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto decode = [&]() {
    cache.truncate(0, 0);
    ForwardBatch b;
    b.sequences.push_back(SequenceInput{0, {prompt.empty() ? 2 : prompt[0]}, TokenTree::chain(1), {0}, {}});
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < a.gen_tokens; ++i) {
      target->forward(b, cache, out);
      cache.commit_prefix(0, 1);
      b.sequences[0].tokens[0] = argmax(out.logits_row(0));
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  std::vector<double> pp, tg;
  if (a.prompt_tokens > 0) run_prefill();  // warm-up: page in the weights, size the buffers
  if (a.gen_tokens > 0) decode();
  for (int r = 0; r < a.repeats; ++r) {
    if (a.prompt_tokens > 0) pp.push_back(a.prompt_tokens / run_prefill());
    if (a.gen_tokens > 0) tg.push_back(a.gen_tokens / decode());
  }

  nlohmann::json j;
  j["model"] = a.model;
  j["threads"] = threads;
  j["device"] = target->describe();
  j["prompt_tokens"] = a.prompt_tokens;
  j["gen_tokens"] = a.gen_tokens;
  j["repeats"] = a.repeats;
  j["cpu_features"] = cpu_features().describe();
  j["matmul_backend"] = dot_rows_backend();
  auto put = [&](const char* key, const std::vector<double>& v) {
    if (v.empty()) return;
    const Spread s = spread(v);
    j[key] = {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"runs", v}};
  };
  put("prefill_tokens_per_s", pp);
  put("decode_tokens_per_s", tg);
  j["kv_cache_bytes"] = cache.bytes();
  j["peak_rss_bytes"] = peak_rss_bytes();
  if (a.json) {
    std::cout << j.dump(2) << std::endl;
  } else {
    if (!pp.empty()) {
      const Spread s = spread(pp);
      fmt::print("pp{}: {:.1f} tokens/s (median of {}, min {:.1f}, max {:.1f})\n", a.prompt_tokens, s.median, pp.size(), s.min, s.max);
    }
    if (!tg.empty()) {
      const Spread s = spread(tg);
      fmt::print("tg{}: {:.1f} tokens/s (median of {}, min {:.1f}, max {:.1f})\n", a.gen_tokens, s.median, tg.size(), s.min, s.max);
    }
    fmt::print("device {}, threads {}, backend {}, peak RSS {:.1f} MiB\n", target->describe(), threads, dot_rows_backend(), peak_rss_bytes() / 1048576.0);
  }
  return 0;
}
}  // namespace

Run add_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks");
  bench->require_subcommand(1);
  CLI::App* sub = bench->add_subcommand("decode", "Prefill and decode tokens/s (llama-bench style pp/tg)");
  add_model_option(*sub, a->model, "GGUF model file");
  sub->add_option("--prompt-tokens", a->prompt_tokens, "Prefill length")->capture_default_str()->check(CLI::Range(0, 1 << 20));
  sub->add_option("--gen-tokens", a->gen_tokens, "Decode steps")->capture_default_str()->check(CLI::Range(0, 1 << 20));
  sub->add_option("--threads", a->threads, "Worker threads (default: all cores)")->check(thread_count());
  add_device_option(*sub, a->device);
  sub->add_option("--repeats", a->repeats, "Measured repetitions")->capture_default_str()->check(CLI::Range(1, 1000));
  sub->add_flag("--json", a->json, "JSON output");
  return [sub, a]() -> int { return sub->parsed() ? run_bench_decode(*a) : -1; };
}

}  // namespace draftbench::cli
