#include "engine/decoding/autoregressive.h"

#include <algorithm>
#include <chrono>

#include "engine/common/error.h"
#include "engine/decoding/prefill.h"

namespace draftbench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

}  // namespace

GenerationResult generate_autoregressive(const Model& model, ForwardPass& target, KvCache& cache, int seq, std::span<const int32_t> prompt,
                                         const GenerationOptions& options, bool keep_first_logits, const std::function<void(int32_t)>& on_token) {
  // Named as the decoder names it: request r is the (r + 1)-th prompt.
  const std::string which = "prompt " + std::to_string(options.request + 1);
  if (prompt.empty()) throw InputError(which, "", "is empty (expected at least one token)");
  if (cache.committed(seq) + static_cast<int64_t>(prompt.size()) + options.max_new_tokens > cache.capacity())
    throw InputError(which, "",
                     std::to_string(prompt.size()) + " tokens + " + std::to_string(options.max_new_tokens) + " new tokens exceed the context of " +
                         std::to_string(cache.capacity()) + " tokens");
  const std::vector<int32_t> stops = model.tokenizer().stop_ids();
  GenerationResult res;
  res.prompt_tokens = static_cast<int64_t>(prompt.size());

  ForwardBatch batch;
  batch.sequences.resize(1);
  SequenceInput& in = batch.sequences[0];
  in.seq = seq;
  ForwardResult out;
  DistributionScratch scratch;
  const TokenTree single = TokenTree::chain(1);
  PrefillOutput prefilled;

  auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < options.max_new_tokens; ++step) {
    std::span<const float> logits;
    if (step == 0) {
      const PrefillInput input{seq, prompt, false};
      prefill(target, cache, std::span(&input, 1), prefilled);
      logits = prefilled.logits_of(0);
    } else {
      target.forward(batch, cache, out);
      cache.commit_prefix(seq, 1);
      logits = out.logits_row(0);
    }
    const RngKey key{options.seed, options.request, static_cast<uint64_t>(step), 0};
    const int32_t token = sample_token(logits, options.sampling, key, scratch);
    if (step == 0) {
      res.prefill_seconds = seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      if (keep_first_logits) res.first_logits.assign(logits.begin(), logits.end());
    }
    res.tokens.push_back(token);
    if (on_token) on_token(token);
    if (!options.ignore_eos && std::find(stops.begin(), stops.end(), token) != stops.end()) {
      res.stopped_on_eos = true;
      break;
    }
    if (step + 1 == options.max_new_tokens) break;  // the last token needs no forward pass
    // Assignments into existing capacity: no allocation per step.
    in.tokens.assign(1, token);
    in.tree = single;
    in.logit_rows.assign(1, 0);
  }
  res.decode_seconds = seconds_since(t0);
  return res;
}

}  // namespace draftbench
