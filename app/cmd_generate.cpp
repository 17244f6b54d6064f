// draftbench generate: decode one prompt or a file of prompts with any drafter through the
// one speculative loop (engine/decoding/decoder.h), streaming text or printing one JSON
// object per prompt.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/prompt_input.h"
#include "datasets/loaders/prompt_set.h"
#include "engine/common/error.h"
#include "engine/decoding/autoregressive.h"
#include "engine/decoding/decoder.h"
#include "engine/decoding/request_metrics.h"
#include "engine/drafters/axis_table.h"
#include "engine/model/model.h"
#include "engine/tokenizer/chat_template.h"

namespace draftbench::cli {

namespace {
struct GenerateArgs {
  std::string model = default_model_path(), chat_template;
  std::string prompt, prompt_ids, prompts_file, first_logits_out, trace_file;
  bool chat = false, json = false, ignore_eos = false;
  int threads = 0, sampling_top_k = 0;
  float top_p = 1.0f;
  ForwardDevice device = ForwardDevice::kCpu;
  PointSettings point;  // the drafter, temperature, length, seed and batch size (axis_table.h)
  std::string verification = "exact";
};

// One step of one sequence for --trace: the draft tree (node 0 the root), the accepted
// nodes and the next root; with the drafter's confidence per node and, for a hybrid's
// sized drafts, which proposer put each node there (0 model, 1 lookup, 2 both), when the
// drafter gives them.
nlohmann::json trace_line(const std::string& prompt_id, const StepTrace& t) {
  nlohmann::json j{{"prompt", prompt_id},
                   {"step", t.step},
                   {"tokens", t.draft.tree.tokens},
                   {"parents", t.draft.tree.parents},
                   {"accepted", std::vector<int32_t>(t.accepted.begin(), t.accepted.end())},
                   {"next", t.next}};
  if (!t.draft.confidence.empty()) j["confidence"] = t.draft.confidence;
  if (!t.draft.origin.empty()) j["origin"] = t.draft.origin;
  return j;
}

VerificationRule parse_rule(const std::string& name) {
  if (name == "exact") return VerificationRule::exact;
  if (name == "redrafter_lossy") return VerificationRule::redrafter_lossy;
  if (name == "typical_lossy") return VerificationRule::typical_lossy;
  throw InputError("generate", "--verification", fmt::format("'{}' (expected exact, redrafter_lossy or typical_lossy)", name));
}

// One JSON object on one line. The decoded text may hold invalid UTF-8 (a character cut
// by the token limit, or byte tokens that spell none, as random-weight models emit): those
// bytes become U+FFFD instead of failing the dump; `tokens` keeps the exact ids.
std::string json_line(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// The reference checks read the logits that chose the first token: plain autoregressive
// decoding of one prompt keeps them.
int run_first_logits(const GenerateArgs& a, const Model& model, const std::vector<int32_t>& prompt) {
  ThreadPool pool(a.threads > 0 ? a.threads : ThreadPool::default_threads());
  const auto target = make_forward_pass(a.device, model.config(), model.weights(), pool);
  KvCache cache(model.config(), 1, static_cast<int64_t>(prompt.size()) + a.point.decode.max_new_tokens, target->device());
  GenerationOptions opt;
  opt.max_new_tokens = a.point.decode.max_new_tokens;
  opt.sampling = SamplingParams{a.point.decode.sampling.temperature, a.sampling_top_k, a.top_p};
  opt.seed = a.point.decode.seed;
  opt.ignore_eos = a.ignore_eos;
  const GenerationResult r = generate_autoregressive(model, *target, cache, 0, prompt, opt, true, nullptr);
  std::ofstream f(a.first_logits_out, std::ios::binary);
  f.write(reinterpret_cast<const char*>(r.first_logits.data()), static_cast<std::streamsize>(r.first_logits.size() * sizeof(float)));
  if (!f) throw InputError(a.first_logits_out, "", "cannot write the logits file");
  nlohmann::json j{{"text", model.tokenizer().decode(r.tokens)}, {"tokens", r.tokens}, {"prompt_tokens", r.prompt_tokens}, {"prompt_ids", prompt}};
  if (a.json) std::cout << json_line(j) << std::endl;
  else std::cout << j["text"].get<std::string>() << std::endl;
  return 0;
}

// The drafter for this machine and model: the weights shipped for the model unless others
// are given, read and checked first (bad weights are refused before any calibration); then
// the cost model and the drafter's timing when it sizes itself.
std::unique_ptr<Drafter> drafter_for(GenerateArgs& a, ForwardPass& target, const Model& model, ThreadPool& pool) {
  // A shipped drafter serves the model it was trained for.
  if (a.point.drafter.weights_dir.empty() && a.point.drafter.kind != "autoregressive")
    a.point.drafter.weights_dir = shipped_drafter_dir(a.model, drafter_weights_kind(a.point.drafter.kind));
  std::unique_ptr<Drafter> loaded = load_drafter_weights(a.point.drafter, model, pool);
  if (drafter_wants_cost_model(a.point.drafter)) {
    const auto note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    const CostKey key = cost_key(target, a.model, pool.size());
    a.point.drafter.cost = obtain_cost_model(target, model.config(), key, false, note);
    a.point.drafter.time_drafter = cached_draft_timer(key, a.point.drafter.cost, model.config(), note);
  }
  return make_drafter(a.point.drafter, model, pool, std::move(loaded));
}

// Sums over every prompt for the closing line on stderr.
struct GenerateTotals {
  double tokens = 0, steps = 0, seconds = 0;
  RequestMetrics time;  // draft, verify, accept and other seconds

  void add(const RequestMetrics& m) {
    tokens += static_cast<double>(m.generated_tokens);
    steps += static_cast<double>(m.steps + 1);
    seconds += m.total_s;
    time.draft_s += m.draft_s;
    time.verify_s += m.verify_s;
    time.accept_s += m.accept_s;
    time.other_s += m.other_s;
  }
  void print(const std::string& drafter, const std::string& device, size_t prompts) const {
    const double step_ms = steps > 0 ? 1e3 / steps : 0;
    fmt::print(stderr,
               "drafter: {}, device: {}, prompts: {}, generated tokens: {:.0f}, tokens/step: {:.2f}, tokens/s per request: {:.1f}, "
               "per step: draft {:.2f} ms, verify {:.2f} ms, accept {:.2f} ms, other {:.2f} ms\n",
               drafter, device, prompts, tokens, steps > 0 ? tokens / steps : 0.0, seconds > 0 ? tokens / seconds : 0.0, time.draft_s * step_ms,
               time.verify_s * step_ms, time.accept_s * step_ms, time.other_s * step_ms);
  }
};

int run_generate(GenerateArgs a) {
  auto model = Model::load(a.model);
  if (!a.chat_template.empty()) model->use_chat_template(chat_template_from_name(a.chat_template, "--chat-template"));
  const Tokenizer& tok = model->tokenizer();
  // A prompts file of any format datasets/ reads; multi-turn questions run their first turn.
  std::vector<PromptItem> entries;
  if (!a.prompts_file.empty()) entries = load_prompt_set(a.prompts_file);
  else entries.push_back(PromptItem{"0", "", {a.prompt}, {}, ""});
  std::vector<std::vector<int32_t>> prompts;
  for (const PromptItem& e : entries) prompts.push_back(prompt_tokens(*model, e.turns[0], a.prompts_file.empty() ? a.prompt_ids : "", a.chat));
  if (!a.first_logits_out.empty()) {
    if (a.point.drafter.kind != "autoregressive" || prompts.size() != 1)
      throw InputError("generate", "--first-logits-out", "works with one prompt and --drafter autoregressive only");
    return run_first_logits(a, *model, prompts[0]);
  }

  DecodeOptions opt;
  opt.rule = parse_rule(a.verification);
  a.point.drafter.keep_draft_distributions = opt.rule == VerificationRule::redrafter_lossy;
  ThreadPool pool(a.threads > 0 ? a.threads : ThreadPool::default_threads());
  const auto target = make_forward_pass(a.device, model->config(), model->weights(), pool);
  auto drafter = drafter_for(a, *target, *model, pool);
  Decoder decoder(*model, *target, *drafter);
  opt.max_new_tokens = a.point.decode.max_new_tokens;
  opt.sampling = SamplingParams{a.point.decode.sampling.temperature, a.sampling_top_k, a.top_p};
  opt.seed = a.point.decode.seed;
  opt.ignore_eos = a.ignore_eos;
  opt.cost = a.point.drafter.cost;
  const bool lossy = !opt.sampling.greedy() && is_lossy(opt.rule);
  if (lossy) fmt::print(stderr, "warning: --verification {} is LOSSY: outputs do not follow the target distribution\n", a.verification);

  // Streaming text needs one sequence at a time; otherwise print each batch as it ends.
  const bool stream = !a.json && a.point.batch_size == 1;
  TextStreamer streamer(tok);
  if (stream) opt.on_token = [&](int, int32_t t) { std::cout << streamer.push(t) << std::flush; };
  std::ofstream trace;
  size_t batch_first = 0;
  if (!a.trace_file.empty()) {
    trace.open(a.trace_file, std::ios::trunc);
    if (!trace) throw InputError(a.trace_file, "", "cannot write the trace (--trace)");
    opt.on_step = [&](const StepTrace& t) { trace << json_line(trace_line(entries[batch_first + static_cast<size_t>(t.sequence)].id, t)) << "\n"; };
  }

  GenerateTotals totals;
  for (size_t first = 0; first < prompts.size(); first += static_cast<size_t>(a.point.batch_size)) {
    const size_t n = std::min(prompts.size() - first, static_cast<size_t>(a.point.batch_size));
    const std::span<const std::vector<int32_t>> batch(prompts.data() + first, n);
    opt.first_request = first;
    batch_first = first;
    const std::vector<SequenceResult> results = decoder.generate(batch, opt);
    for (size_t i = 0; i < n; ++i) {
      const SequenceResult& r = results[i];
      const RequestMetrics m = request_metrics(r);
      const PromptItem& e = entries[first + i];
      if (a.json) {
        nlohmann::json j{{"id", e.id},
                         {"category", e.category},
                         {"prompt_tokens", r.prompt_tokens},
                         {"prompt_ids", batch[i]},
                         {"tokens", r.tokens},
                         {"text", tok.decode(r.tokens)},
                         {"drafter", drafter->name()},
                         {"verification", opt.sampling.greedy() ? "greedy" : verification_rule_name(opt.rule)},
                         {"lossy", lossy},
                         {"stopped_on_eos", r.stopped_on_eos},
                         {"device", target->describe()},
                         {"metrics", to_json(m)}};
        std::cout << json_line(j) << std::endl;
      } else if (stream) {
        std::cout << streamer.finish() << std::endl;
      } else {
        std::cout << tok.decode(r.tokens) << "\n" << std::endl;
      }
      totals.add(m);
    }
  }
  totals.print(drafter->name(), target->describe(), prompts.size());
  return 0;
}
}  // namespace

Run add_generate(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  CLI::App* sub = app.add_subcommand("generate", "Generate text with any drafter through the speculative decoding loop");
  add_model_option(*sub, a->model, "GGUF model file or Hugging Face checkpoint directory");
  auto* p = sub->add_option("--prompt", a->prompt, "Prompt text");
  auto* ids = sub->add_option("--prompt-ids", a->prompt_ids, "Prompt as comma-separated token ids (used as given)");
  auto* file =
      sub->add_option("--prompts-file", a->prompts_file, "Prompts: MT-Bench/Spec-Bench JSONL, AlpacaEval JSON, corpus JSONL or plain text (a prompt per line)");
  p->excludes(ids)->excludes(file);
  ids->excludes(file);
  CLI::Option* chat = sub->add_flag("--chat", a->chat, "Wrap each prompt in the model's chat template");
  // Without --chat no template is applied, so a template given alone is refused, not ignored.
  sub->add_option("--chat-template", a->chat_template,
                  fmt::format("With --chat: this template instead of the one the model file names ({})", chat_template_names()))
      ->needs(chat);
  sub->add_option("--top-p", a->top_p, "Nucleus filtering of the target distribution")->capture_default_str()->check(finite_number(0.0, 1.0));
  sub->add_option("--sampling-top-k", a->sampling_top_k, "Top-k filtering of the target distribution (0 = off)")->capture_default_str()->check(whole_number());
  sub->add_option("--threads", a->threads, "Worker threads (default: all cores)")->check(thread_count());
  add_device_option(*sub, a->device);
  sub->add_flag("--json", a->json, "Print one JSON object per prompt (tokens, text, metrics) instead of text");
  sub->add_flag("--ignore-eos", a->ignore_eos, "Do not stop at end-of-sequence tokens");
  sub->add_option("--trace", a->trace_file,
                  "Write every step's draft tree and accepted path as JSON lines to this file ({\"prompt\", \"step\", \"tokens\", \"parents\", "
                  "\"accepted\", \"next\"}, and \"confidence\" and \"origin\" (0 model, 1 lookup, 2 both) where the "
                  "drafter gives them; node 0 is the root)");
  sub->add_option("--first-logits-out", a->first_logits_out, "Write the first step's logits (raw float32) to this file (autoregressive, one prompt)");
  sub->add_option("--drafter", a->point.drafter.kind, fmt::format("One of {}", known_drafters()))->capture_default_str();
  sub->add_option("--drafter-weights", a->point.drafter.weights_dir,
                  "Drafter directory (drafter.json or a reference config.json, plus safetensors); "
                  "default: the drafter shipped for --model (models/drafters/<drafter> for the default model, models/drafters/<alias>/<drafter> for another)");
  add_setting_options(*sub, a->point);
  sub->add_option("--verification", a->verification, "At temperature > 0: exact, or the LOSSY redrafter_lossy / typical_lossy")->capture_default_str();
  return [sub, a]() -> int {
    if (!sub->parsed()) return -1;
    if (a->prompt.empty() && a->prompt_ids.empty() && a->prompts_file.empty())
      throw InputError("generate", "--prompt", "give a prompt (--prompt TEXT, --prompt-ids LIST or --prompts-file FILE)");
    return run_generate(*a);
  };
}

}  // namespace draftbench::cli
