#include "engine/decoding/decoder.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "engine/common/error.h"
#include "engine/decoding/verify.h"

namespace draftbench {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Per-sequence state of the loop.
struct Sequence {
  std::vector<int32_t> context;  // committed tokens: prompt + generated, root excluded
  int32_t root = 0;              // chosen by the target, not yet forwarded
  std::vector<float> hidden;     // target's hidden state that chose root
  DraftTree draft;
  Acceptance acceptance;
  bool done = false;
};

}  // namespace

double SequenceResult::tokens_per_step() const {
  // The prefill call chose the first token, so it counts as a target call.
  return static_cast<double>(tokens.size()) / static_cast<double>(steps.size() + 1);
}

Decoder::Decoder(const Model& model, Transformer& transformer, Drafter& drafter)
    : model_(model), transformer_(transformer), drafter_(drafter) {}

std::vector<SequenceResult> Decoder::generate(std::span<const std::vector<int32_t>> prompts, const DecodeOptions& options,
                                              int32_t max_tree_nodes) {
  const int n = static_cast<int>(prompts.size());
  DB_CHECK(n >= 1 && max_tree_nodes >= 1);
  int64_t longest = 0;
  for (const auto& p : prompts) {
    if (p.empty()) throw InputError("prompt", "", "is empty (expected at least one token)");
    longest = std::max<int64_t>(longest, static_cast<int64_t>(p.size()));
  }
  // Committed tokens never exceed prompt + max_new_tokens; a tree sits on top of them.
  const int64_t capacity = longest + options.max_new_tokens + max_tree_nodes;
  if (capacity > model_.config().context_length)
    throw InputError("prompt", "", std::to_string(longest) + " tokens + " + std::to_string(options.max_new_tokens) +
                                       " new + a tree of " + std::to_string(max_tree_nodes) + " exceed the model's context of " +
                                       std::to_string(model_.config().context_length));
  KvCache cache(model_.config(), n, capacity);
  const std::vector<int32_t> stops = model_.tokenizer().stop_ids();
  std::vector<SequenceResult> results(static_cast<size_t>(n));
  std::vector<Sequence> seqs(static_cast<size_t>(n));
  std::vector<TokenProb> dist_scratch;
  VerifyScratch verify_scratch;  // shared: [n_vocab] arrays, restored after each use
  drafter_.reset(n);

  // Prefill: every prompt as a chain, logits and hidden state of its last token.
  const auto t_start = Clock::now();
  ForwardBatch batch;
  ForwardResult out;
  for (int s = 0; s < n; ++s) {
    const auto len = static_cast<int32_t>(prompts[s].size());
    batch.sequences.push_back(SequenceInput{s, prompts[s], TokenTree::chain(len), {len - 1}, {len - 1}});
  }
  transformer_.forward(batch, cache, out);
  for (int s = 0; s < n; ++s) {
    cache.commit_prefix(s, static_cast<int64_t>(prompts[s].size()));
    Sequence& q = seqs[s];
    q.context = prompts[s];
    // Request id = prompt index, step 0 = the prefill's token: the same keys as
    // generate_autoregressive, so an empty draft reproduces it bit for bit.
    q.root = sample_token(out.logits_row(s), options.sampling, RngKey{options.seed, static_cast<uint64_t>(s), 0, 0}, dist_scratch);
    q.hidden.assign(out.hidden_row(s).begin(), out.hidden_row(s).end());
    results[s].prompt_tokens = static_cast<int64_t>(prompts[s].size());
    results[s].prefill_seconds = seconds(t_start, Clock::now());
  }

  // A sequence emits its root; it is finished by a stop token or the length limit.
  auto emit = [&](int s, int32_t token) {
    results[s].tokens.push_back(token);
    const bool stop = !options.ignore_eos && std::find(stops.begin(), stops.end(), token) != stops.end();
    results[s].stopped_on_eos |= stop;
    if (stop || static_cast<int>(results[s].tokens.size()) >= options.max_new_tokens) seqs[s].done = true;
  };
  for (int s = 0; s < n; ++s) emit(s, seqs[s].root);

  std::vector<int> active;
  std::vector<StepRecord> records(static_cast<size_t>(n));
  for (;;) {
    active.clear();
    for (int s = 0; s < n; ++s)
      if (!seqs[s].done) active.push_back(s);
    if (active.empty()) break;

    // Draft.
    batch.sequences.resize(active.size());
    for (size_t a = 0; a < active.size(); ++a) {
      const int s = active[a];
      Sequence& q = seqs[s];
      const auto t0 = Clock::now();
      drafter_.propose(DraftContext{s, q.context, q.root, q.hidden}, q.draft);
      const auto n_nodes = static_cast<int32_t>(q.draft.tokens.size());
      if (n_nodes > max_tree_nodes || q.draft.tokens[0] != q.root)
        throw InputError(drafter_.name(), "draft", "tree of " + std::to_string(n_nodes) + " nodes exceeds the planned " +
                                                       std::to_string(max_tree_nodes) + " or does not start at the root");
      SequenceInput& in = batch.sequences[a];
      in.seq = s;
      in.tokens = q.draft.tokens;
      in.tree = TokenTree::from_parents(q.draft.parents);
      in.logit_rows.resize(static_cast<size_t>(n_nodes));
      std::iota(in.logit_rows.begin(), in.logit_rows.end(), 0);
      in.hidden_rows = in.logit_rows;
      records[s] = StepRecord{n_nodes - 1, n_nodes, 0, seconds(t0, Clock::now()), 0, 0};
    }

    // Verify: one forward over every active sequence's tree.
    const auto t_verify = Clock::now();
    transformer_.forward(batch, cache, out);
    const double verify_seconds = seconds(t_verify, Clock::now());

    // Accept: longest acceptable path, commit it, emit its tokens and the next root.
    int64_t row = 0;
    for (size_t a = 0; a < active.size(); ++a) {
      const int s = active[a];
      Sequence& q = seqs[s];
      const SequenceInput& in = batch.sequences[a];
      const auto t0 = Clock::now();
      const TargetLogits target{out.logits.data() + row * out.logit_width, out.logit_width};
      if (options.sampling.greedy()) {
        verify_greedy(in.tree, in.tokens, target, q.acceptance);
      } else {
        // Deterministic drafts are one-hot proposals; the k-th verification uses step k.
        const SamplingContext ctx{options.sampling, RngKey{options.seed, static_cast<uint64_t>(s), results[s].steps.size() + 1, 0}};
        verify_sampling_one_hot(in.tree, in.tokens, target, ctx, verify_scratch, q.acceptance);
      }
      const std::vector<int32_t>& path = q.acceptance.path;
      cache.commit(s, path);
      q.context.push_back(q.root);
      for (size_t k = 1; k < path.size() && !q.done; ++k) {
        q.context.push_back(in.tokens[path[k]]);
        emit(s, in.tokens[path[k]]);
      }
      const auto h = out.hidden_row(row + path.back());
      q.hidden.assign(h.begin(), h.end());
      q.root = q.acceptance.next_token;
      drafter_.accept(s, path);
      if (!q.done) emit(s, q.root);
      row += in.tree.size();
      StepRecord& rec = records[s];
      rec.accepted = static_cast<int32_t>(path.size()) - 1;
      rec.verify_seconds = verify_seconds;
      rec.accept_seconds = seconds(t0, Clock::now());
      results[s].steps.push_back(rec);
    }
  }
  const double total = seconds(t_start, Clock::now());
  for (auto& r : results) r.total_seconds = total;
  return results;
}

}  // namespace draftbench
