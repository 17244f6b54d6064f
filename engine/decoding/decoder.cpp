#include "engine/decoding/decoder.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "engine/common/error.h"
#include "engine/decoding/node_logits.h"
#include "engine/decoding/prefill.h"
#include "engine/decoding/verify.h"
#include "engine/decoding/verify_typical.h"

namespace draftbench {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Per-sequence state of the loop.
struct Sequence {
  std::vector<int32_t> context;  // committed tokens: prompt + generated, root excluded
  int32_t root = 0;              // chosen by the target, not yet forwarded
  std::vector<float> hidden;     // target's hidden state that chose root
  Draft draft;
  Acceptance acceptance;
  std::vector<int32_t> path_tokens;  // the accepted path's tokens, root first
  std::vector<float> path_hidden;    // [path][n_embd]
  bool done = false;
};

int64_t capacity_for(int64_t prompt_length, int max_new_tokens, int32_t max_tree_nodes) {
  // Committed tokens never exceed prompt + max_new_tokens; a tree sits on top of them.
  return prompt_length + max_new_tokens + max_tree_nodes;
}

void verify(const Draft& draft, const TokenTree& tree, TargetLogits target, const DecodeOptions& options, RngKey key,
            VerifyScratch& scratch, Acceptance& out) {
  const auto& tokens = draft.tree.tokens;
  if (options.sampling.greedy()) return verify_greedy(tree, tokens, target, out);
  const SamplingContext ctx{options.sampling, key};
  switch (options.rule) {
    case VerificationRule::exact:
      // Deterministic drafts (beam search, top-k trees) are one-hot proposals.
      return verify_sampling_one_hot(tree, tokens, target, ctx, scratch, out);
    case VerificationRule::redrafter_lossy: {
      if (draft.n_beams == 0 || !draft.has_q())
        throw InputError("verification", "redrafter_lossy", "needs a beam drafter that keeps its draft distributions (ReDrafter)");
      const DraftDistributions q{draft.q_entries, draft.q_offsets};
      const BeamPaths beams{draft.beam_nodes, draft.n_beams, draft.beam_length};
      return verify_sampling_redrafter_lossy(tree, tokens, target, q, beams, ctx, scratch, out);
    }
    case VerificationRule::typical_lossy:
      return verify_typical(tree, tokens, target, TypicalParams{options.sampling.temperature, options.typical_epsilon, options.typical_delta}, out);
  }
}

}  // namespace

const char* verification_rule_name(VerificationRule rule) {
  switch (rule) {
    case VerificationRule::exact: return "exact";
    case VerificationRule::redrafter_lossy: return "redrafter_lossy";
    case VerificationRule::typical_lossy: return "typical_lossy";
  }
  return "?";
}

bool is_lossy(VerificationRule rule) { return rule != VerificationRule::exact; }

double SequenceResult::tokens_per_step() const {
  // The prefill call chose the first token, so it counts as a target call.
  return static_cast<double>(tokens.size()) / static_cast<double>(steps.size() + 1);
}

double SequenceResult::tokens_per_second() const {
  return total_seconds > 0 ? static_cast<double>(tokens.size()) / total_seconds : 0.0;
}

size_t Decoder::kv_bytes(const ModelConfig& config, std::span<const int64_t> prompt_lengths, int max_new_tokens, int32_t max_tree_nodes) {
  int64_t longest = 0;
  for (int64_t l : prompt_lengths) longest = std::max(longest, l);
  return KvCache::bytes_for(config, static_cast<int>(prompt_lengths.size()), capacity_for(longest, max_new_tokens, max_tree_nodes));
}

Decoder::Decoder(const Model& model, ForwardPass& target, Drafter& drafter)
    : model_(model), target_(target), drafter_(drafter) {}

std::vector<SequenceResult> Decoder::generate(std::span<const std::vector<int32_t>> prompts, const DecodeOptions& options) {
  const int n = static_cast<int>(prompts.size());
  const int32_t max_tree_nodes = drafter_.max_tree_nodes();
  DB_CHECK(n >= 1 && max_tree_nodes >= 1);
  int64_t longest = 0;
  for (const auto& p : prompts) {
    if (p.empty()) throw InputError("prompt", "", "is empty (expected at least one token)");
    longest = std::max<int64_t>(longest, static_cast<int64_t>(p.size()));
  }
  const int64_t capacity = capacity_for(longest, options.max_new_tokens, max_tree_nodes);
  if (capacity > model_.config().context_length)
    throw InputError("prompt", "", std::to_string(longest) + " tokens + " + std::to_string(options.max_new_tokens) +
                                       " new + a tree of " + std::to_string(max_tree_nodes) + " exceed the model's context of " +
                                       std::to_string(model_.config().context_length));
  KvCache cache(model_.config(), n, capacity, target_.device());
  const int64_t E = model_.config().n_embd;
  const std::vector<int32_t> stops = model_.tokenizer().stop_ids();
  std::vector<SequenceResult> results(static_cast<size_t>(n));
  std::vector<Sequence> seqs(static_cast<size_t>(n));
  DistributionScratch dist_scratch;
  VerifyScratch verify_scratch;  // shared: [n_vocab] arrays, restored after each use
  NodeLogits node_logits(target_, model_.config().n_vocab, E, options.head_lookahead,
                         options.cost ? options.cost->head_row_in_passes() : NodeLogits::kDefaultRowCostInPasses);
  const HeadOutput head_output = options.sampling.greedy() ? HeadOutput::argmax : HeadOutput::logits;
  drafter_.reset(n);

  // Prefill: logits of each prompt's last token, hidden states of the last token or, for
  // drafters that read them, of every prompt position.
  const auto t_start = Clock::now();
  std::vector<PrefillInput> prefill_inputs;
  for (int s = 0; s < n; ++s) prefill_inputs.push_back(PrefillInput{s, prompts[s], drafter_.wants_prompt_hidden()});
  PrefillOutput prefilled;
  prefill(target_, cache, prefill_inputs, prefilled);
  for (int s = 0; s < n; ++s) {
    Sequence& q = seqs[s];
    q.context = prompts[s];
    // Request id = prompt index, step 0 = the prefill's token: the same keys as
    // generate_autoregressive, so an empty draft reproduces it bit for bit.
    q.root = sample_token(prefilled.logits_of(static_cast<size_t>(s)), options.sampling,
                          RngKey{options.seed, options.first_request + static_cast<uint64_t>(s), 0, 0}, dist_scratch);
    const std::span<const float> prompt_hidden = prefilled.hidden_of(static_cast<size_t>(s));
    q.hidden.assign(prompt_hidden.end() - E, prompt_hidden.end());
    drafter_.begin(s, prompts[s], prompt_hidden);
    results[s].prompt_tokens = static_cast<int64_t>(prompts[s].size());
    results[s].prefill_seconds = seconds(t_start, Clock::now());
  }

  // A sequence emits its root; it is finished by a stop token or the length limit.
  auto emit = [&](int s, int32_t token) {
    results[s].tokens.push_back(token);
    if (options.on_token) options.on_token(s, token);
    const bool stop = !options.ignore_eos && std::find(stops.begin(), stops.end(), token) != stops.end();
    results[s].stopped_on_eos |= stop;
    if (stop || static_cast<int>(results[s].tokens.size()) >= options.max_new_tokens) {
      seqs[s].done = true;
      results[s].total_seconds = seconds(t_start, Clock::now());
    }
  };
  for (int s = 0; s < n; ++s) emit(s, seqs[s].root);

  ForwardBatch batch;
  ForwardResult out;
  std::vector<int> active;
  std::vector<StepRecord> records(static_cast<size_t>(n));
  for (;;) {
    active.clear();
    for (int s = 0; s < n; ++s)
      if (!seqs[s].done) active.push_back(s);
    if (active.empty()) break;
    const auto t_step = Clock::now();

    // Draft.
    batch.sequences.resize(active.size());
    for (size_t a = 0; a < active.size(); ++a) {
      const int s = active[a];
      Sequence& q = seqs[s];
      const auto t0 = Clock::now();
      drafter_.propose(DraftContext{s, q.context, q.root, q.hidden, !options.sampling.greedy()}, q.draft);
      const int32_t n_nodes = q.draft.tree.size();
      if (n_nodes > max_tree_nodes || q.draft.tree.tokens[0] != q.root)
        throw InputError(drafter_.name(), "draft", "tree of " + std::to_string(n_nodes) + " nodes exceeds the planned " +
                                                       std::to_string(max_tree_nodes) + " or does not start at the root");
      SequenceInput& in = batch.sequences[a];
      in.seq = s;
      in.tokens = q.draft.tree.tokens;
      in.tree.assign(q.draft.tree.parents);
      in.logit_rows.clear();  // logits come from the hidden states, as verification asks (NodeLogits)
      in.hidden_rows.resize(static_cast<size_t>(n_nodes));
      std::iota(in.hidden_rows.begin(), in.hidden_rows.end(), 0);
      records[s] = StepRecord{n_nodes - 1, n_nodes, q.draft.beam_tokens(), 0, seconds(t0, Clock::now()), 0, 0, 0};
    }

    // Verify: one forward over every active sequence's tree.
    const auto t_verify = Clock::now();
    target_.forward(batch, cache, out);
    // Verification visits every root and most likely the path its drafter ranked first: those
    // in one LM-head pass for the batch (the same per-row kernels, so the same bits as
    // computing them one by one); anything else when verification asks for it.
    node_logits.begin_step(head_output);
    for (size_t a = 0, row = 0; a < active.size(); row += static_cast<size_t>(batch.sequences[a].tree.size()), ++a)
      node_logits.add_tree(out.hidden.data() + static_cast<int64_t>(row) * E, batch.sequences[a].tree);
    node_logits.compute_predicted_paths();
    const double verify_seconds = seconds(t_verify, Clock::now());

    // Accept: longest acceptable path, commit it, emit its tokens and the next root.
    int64_t row = 0;
    for (size_t a = 0; a < active.size(); ++a) {
      const int s = active[a];
      Sequence& q = seqs[s];
      const SequenceInput& in = batch.sequences[a];
      const auto t0 = Clock::now();
      const TargetLogits target{nullptr, node_logits.n_vocab(), &node_logits.tree(static_cast<int>(a))};
      // The k-th verification of request s uses step k (the prefill's draw is step 0).
      const RngKey key{options.seed, options.first_request + static_cast<uint64_t>(s), results[s].steps.size() + 1, 0};
      verify(q.draft, in.tree, target, options, key, verify_scratch, q.acceptance);
      const std::vector<int32_t>& path = q.acceptance.path;
      node_logits.observe_path(static_cast<int>(a), path);
      cache.commit(s, path);
      q.path_tokens.clear();
      q.path_hidden.clear();
      for (int32_t node : path) {
        q.path_tokens.push_back(in.tokens[node]);
        const auto h = out.hidden_row(row + node);
        q.path_hidden.insert(q.path_hidden.end(), h.begin(), h.end());
      }
      q.context.push_back(q.root);
      for (size_t k = 1; k < path.size() && !q.done; ++k) {
        q.context.push_back(q.path_tokens[k]);
        emit(s, q.path_tokens[k]);
      }
      q.hidden.assign(q.path_hidden.end() - E, q.path_hidden.end());
      q.root = q.acceptance.next_token;
      drafter_.accept(s, AcceptedPath{path, q.path_tokens, q.path_hidden, q.root});
      if (!q.done) emit(s, q.root);
      row += in.tree.size();
      StepRecord& rec = records[s];
      rec.accepted = static_cast<int32_t>(path.size()) - 1;
      rec.verify_seconds = verify_seconds;
      rec.accept_seconds = seconds(t0, Clock::now());
    }
    const double step_seconds = seconds(t_step, Clock::now());
    for (int s : active) {
      records[s].step_seconds = step_seconds;
      results[s].steps.push_back(records[s]);
    }
  }
  return results;
}

}  // namespace draftbench
