// draftbench generate: autoregressive decoding of one prompt, streaming text to stdout.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/commands.h"
#include "engine/cli/prompt_input.h"
#include "engine/common/error.h"
#include "engine/decoding/autoregressive.h"
#include "engine/model/model.h"
#include "engine/tokenizer/chat_template.h"

namespace draftbench::cli {

namespace {
struct GenerateArgs {
  std::string model = default_model_path();
  std::string prompt, prompt_ids, first_logits_out;
  bool chat = false, json = false, ignore_eos = false;
  int max_new_tokens = 128, threads = 0, top_k = 0;
  float temperature = 0.0f, top_p = 1.0f;
  uint64_t seed = 0;
};

int run_generate(const GenerateArgs& a) {
  auto model = Model::load(a.model);
  const Tokenizer& tok = model->tokenizer();
  const std::vector<int32_t> prompt = prompt_tokens(*model, a.prompt, a.prompt_ids, a.chat);

  ThreadPool pool(a.threads > 0 ? a.threads : ThreadPool::default_threads());
  Transformer transformer(model->config(), model->weights(), pool);
  const int64_t context = static_cast<int64_t>(prompt.size()) + a.max_new_tokens;
  if (context > model->config().context_length)
    throw InputError("prompt", "", fmt::format("{} prompt tokens + {} new tokens exceed the model's context of {}", prompt.size(),
                                               a.max_new_tokens, model->config().context_length));
  KvCache cache(model->config(), 1, context);

  GenerationOptions opt;
  opt.max_new_tokens = a.max_new_tokens;
  opt.sampling = SamplingParams{a.temperature, a.top_k, a.top_p};
  opt.seed = a.seed;
  opt.ignore_eos = a.ignore_eos;

  TextStreamer streamer(tok);
  const GenerationResult r = generate_autoregressive(*model, transformer, cache, 0, prompt, opt, !a.first_logits_out.empty(), [&](int32_t t) {
    if (a.json) return;
    std::cout << streamer.push(t) << std::flush;
  });
  if (!a.json) std::cout << streamer.finish() << std::endl;

  if (!a.first_logits_out.empty()) {
    std::ofstream f(a.first_logits_out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(r.first_logits.data()), static_cast<std::streamsize>(r.first_logits.size() * sizeof(float)));
    if (!f) throw InputError(a.first_logits_out, "", "cannot write the logits file");
  }
  const double prefill_tps = static_cast<double>(r.prompt_tokens) / r.prefill_seconds;
  const double decode_tps = r.tokens.size() > 1 ? static_cast<double>(r.tokens.size() - 1) / r.decode_seconds : 0.0;
  if (a.json) {
    nlohmann::json j;
    j["text"] = tok.decode(r.tokens);
    j["tokens"] = r.tokens;
    j["prompt_tokens"] = r.prompt_tokens;
    j["prompt_ids"] = prompt;
    j["generated_tokens"] = r.tokens.size();
    j["prefill_tokens_per_s"] = prefill_tps;
    j["decode_tokens_per_s"] = decode_tps;
    j["stopped_on_eos"] = r.stopped_on_eos;
    std::cout << j.dump() << std::endl;
  }
  fmt::print(stderr, "prompt tokens: {}, generated tokens: {}, prefill: {:.1f} tokens/s, decode: {:.1f} tokens/s\n", r.prompt_tokens,
             r.tokens.size(), prefill_tps, decode_tps);
  return 0;
}
}  // namespace

Run add_generate(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  CLI::App* sub = app.add_subcommand("generate", "Generate text from a prompt (autoregressive decoding)");
  sub->add_option("--model", a->model, "GGUF model file")->capture_default_str();
  auto* p = sub->add_option("--prompt", a->prompt, "Prompt text");
  auto* ids = sub->add_option("--prompt-ids", a->prompt_ids, "Prompt as comma-separated token ids (used as given)");
  p->excludes(ids);
  sub->add_flag("--chat", a->chat, "Wrap the prompt in the model's chat template");
  sub->add_option("--max-new-tokens", a->max_new_tokens, "Tokens to generate")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  sub->add_option("--temperature", a->temperature, "0 = greedy")->capture_default_str()->check(CLI::Range(0.0f, 100.0f));
  sub->add_option("--top-p", a->top_p, "Nucleus filtering of the target distribution")->capture_default_str()->check(CLI::Range(0.0f, 1.0f));
  sub->add_option("--top-k", a->top_k, "Top-k filtering of the target distribution (0 = off)")->capture_default_str()->check(CLI::NonNegativeNumber);
  sub->add_option("--seed", a->seed, "Random seed")->capture_default_str();
  sub->add_option("--threads", a->threads, "Worker threads (default: all cores)");
  sub->add_flag("--json", a->json, "Print one JSON object instead of streaming text");
  sub->add_flag("--ignore-eos", a->ignore_eos, "Do not stop at end-of-sequence tokens");
  sub->add_option("--first-logits-out", a->first_logits_out, "Write the first step's logits (raw float32) to this file");
  return [sub, a]() -> int {
    if (!sub->parsed()) return -1;
    if (a->prompt.empty() && a->prompt_ids.empty()) throw InputError("generate", "--prompt", "give a prompt (--prompt TEXT or --prompt-ids LIST)");
    return run_generate(*a);
  };
}

}  // namespace draftbench::cli
