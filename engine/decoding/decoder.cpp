#include "engine/decoding/decoder.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include <fmt/format.h>

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

void verify(const Draft& draft, const TokenTree& tree, TargetLogits target, const DecodeOptions& options, RngKey key, VerifyScratch& scratch, Acceptance& out) {
  const auto& tokens = draft.tree.tokens;
  if (options.sampling.greedy()) return verify_greedy(tree, tokens, target, out);
  const SamplingContext ctx{options.sampling, key};
  switch (options.rule) {
    case VerificationRule::exact:
      // Every position's token is the autoregressive draw at that position.
      return verify_sampling_coupled(tree, tokens, target, options.sampling, key, scratch, out);
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

// The cache one generate() call needs, checked against the model's context: committed
// tokens never exceed the longest prompt + max_new_tokens, and a tree sits on top of them.
// A prompt that does not fit is named by its place in the caller's order (request
// first_request + s is the (first_request + s + 1)-th prompt).
int64_t checked_capacity(std::span<const std::vector<int32_t>> prompts, int max_new_tokens, int32_t max_tree_nodes, const ModelConfig& config,
                         uint64_t first_request) {
  DB_CHECK(!prompts.empty() && max_tree_nodes >= 1);
  size_t longest = 0;
  for (size_t s = 0; s < prompts.size(); ++s) {
    if (prompts[s].empty()) throw InputError(fmt::format("prompt {}", first_request + s + 1), "", "is empty (expected at least one token)");
    if (prompts[s].size() > prompts[longest].size()) longest = s;
  }
  const int64_t longest_tokens = static_cast<int64_t>(prompts[longest].size());
  const int64_t capacity = capacity_for(longest_tokens, max_new_tokens, max_tree_nodes);
  if (capacity > config.context_length)
    throw InputError(fmt::format("prompt {}", first_request + longest + 1), "",
                     fmt::format("{} tokens + {} new + a tree of {} exceed the model's context of {}", longest_tokens, max_new_tokens, max_tree_nodes,
                                 config.context_length));
  return capacity;
}

// One generate() call: the batch's state and the stages of the loop in decoder.h, each a
// method, called in the order prefill, then (next_step, draft, verify, accept) per step.
class DecodeRun {
 public:
  DecodeRun(const Model& model, ForwardPass& target, Drafter& drafter, std::span<const std::vector<int32_t>> prompts, const DecodeOptions& options)
      : target_(target),
        drafter_(drafter),
        prompts_(prompts),
        options_(options),
        n_(static_cast<int>(prompts.size())),
        max_tree_nodes_(drafter.max_tree_nodes()),
        cache_(model.config(), n_, checked_capacity(prompts, options.max_new_tokens, max_tree_nodes_, model.config(), options.first_request), target.device()),
        E_(model.config().n_embd),
        stops_(model.tokenizer().stop_ids()),
        results_(static_cast<size_t>(n_)),
        seqs_(static_cast<size_t>(n_)),
        node_logits_(target, model.config().n_vocab, E_, options.head_lookahead,
                     options.cost ? options.cost->head_row_in_passes() : NodeLogits::kDefaultRowCostInPasses),
        head_output_(options.sampling.greedy() ? HeadOutput::argmax : HeadOutput::logits),
        records_(static_cast<size_t>(n_)) {
    drafter_.reset(n_);
  }

  // Prefill: logits of each prompt's last token, hidden states of the last token or, for
  // drafters that read them, of every prompt position; the first root of every sequence
  // sampled, handed to drafter.begin and emitted.
  void prefill() {
    t_start_ = Clock::now();
    std::vector<PrefillInput> prefill_inputs;
    for (int s = 0; s < n_; ++s) prefill_inputs.push_back(PrefillInput{s, prompts_[s], drafter_.wants_prompt_hidden()});
    PrefillOutput prefilled;
    draftbench::prefill(target_, cache_, prefill_inputs, prefilled);
    for (int s = 0; s < n_; ++s) {
      Sequence& q = seqs_[s];
      q.context = prompts_[s];
      // Request id = prompt index, step 0 = the prefill's token: the same keys as
      // generate_autoregressive, so an empty draft reproduces it bit for bit.
      q.root = sample_token(prefilled.logits_of(static_cast<size_t>(s)), options_.sampling,
                            RngKey{options_.seed, options_.first_request + static_cast<uint64_t>(s), 0, 0}, dist_scratch_);
      const std::span<const float> prompt_hidden = prefilled.hidden_of(static_cast<size_t>(s));
      q.hidden.assign(prompt_hidden.end() - E_, prompt_hidden.end());
      drafter_.begin(s, prompts_[s], prompt_hidden);
      results_[s].prompt_tokens = static_cast<int64_t>(prompts_[s].size());
      results_[s].prefill_seconds = seconds(t_start_, Clock::now());
    }
    for (int s = 0; s < n_; ++s) emit(s, seqs_[s].root);
  }

  // Starts a step over the sequences still decoding; false when every one has finished.
  bool next_step() {
    active_.clear();
    for (int s = 0; s < n_; ++s)
      if (!seqs_[s].done) active_.push_back(s);
    if (active_.empty()) return false;
    t_step_ = Clock::now();
    return true;
  }

  // Draft: a tree per active sequence, each its sequence's input to the batch's forward.
  void draft() {
    batch_.sequences.resize(active_.size());
    for (size_t a = 0; a < active_.size(); ++a) {
      const int s = active_[a];
      Sequence& q = seqs_[s];
      const auto t0 = Clock::now();
      drafter_.propose(DraftContext{s, q.context, q.root, q.hidden, options_.sampling, first_draw_key(s)}, q.draft);
      const int32_t n_nodes = q.draft.tree.size();
      if (n_nodes > max_tree_nodes_ || q.draft.tree.tokens[0] != q.root)
        throw InputError(
            drafter_.name(), "draft",
            "tree of " + std::to_string(n_nodes) + " nodes exceeds the planned " + std::to_string(max_tree_nodes_) + " or does not start at the root");
      SequenceInput& in = batch_.sequences[a];
      in.seq = s;
      in.tokens = q.draft.tree.tokens;
      in.tree.assign(q.draft.tree.parents);
      in.logit_rows.clear();  // logits come from the hidden states, as verification asks (NodeLogits)
      in.hidden_rows.resize(static_cast<size_t>(n_nodes));
      std::iota(in.hidden_rows.begin(), in.hidden_rows.end(), 0);
      records_[s] = StepRecord{n_nodes - 1, n_nodes, q.draft.beam_tokens(), 0, seconds(t0, Clock::now()), 0, 0, 0};
    }
  }

  // Verify: one forward over every active sequence's tree. Verification visits every root
  // and most likely the path its drafter ranked first: those in one LM-head pass for the
  // batch (the same per-row kernels, so the same bits as computing them one by one);
  // anything else when verification asks for it (accept).
  void verify() {
    const auto t_verify = Clock::now();
    target_.forward(batch_, cache_, out_);
    node_logits_.begin_step(head_output_);
    for (size_t a = 0, row = 0; a < active_.size(); row += static_cast<size_t>(batch_.sequences[a].tree.size()), ++a)
      node_logits_.add_tree(out_.hidden.data() + static_cast<int64_t>(row) * E_, batch_.sequences[a].tree);
    node_logits_.compute_predicted_paths();
    verify_seconds_ = seconds(t_verify, Clock::now());
  }

  // Accept, per active sequence: the longest acceptable path and the next token, its K/V
  // committed, its tokens emitted, drafter.accept; then the step recorded.
  void accept() {
    int64_t row = 0;  // the sequence's first row of the batch's forward
    for (size_t a = 0; a < active_.size(); ++a) {
      accept_sequence(a, row);
      row += batch_.sequences[a].tree.size();
    }
    const double step_seconds = seconds(t_step_, Clock::now());
    for (int s : active_) {
      records_[s].step_seconds = step_seconds;
      results_[s].steps.push_back(records_[s]);
    }
  }

  std::vector<SequenceResult> take_results() { return std::move(results_); }

 private:
  // The key of the token drawn below sequence s's root: step g for its g-th generated token
  // (the root, already emitted, is token g - 1; the prefill's draw is step 0), as
  // generate_autoregressive keys its draws.
  RngKey first_draw_key(int s) const { return RngKey{options_.seed, options_.first_request + static_cast<uint64_t>(s), results_[s].tokens.size(), 0}; }

  // A sequence emits its root; it is finished by a stop token or the length limit.
  void emit(int s, int32_t token) {
    results_[s].tokens.push_back(token);
    if (options_.on_token) options_.on_token(s, token);
    const bool stop = !options_.ignore_eos && std::find(stops_.begin(), stops_.end(), token) != stops_.end();
    results_[s].stopped_on_eos |= stop;
    if (stop || static_cast<int>(results_[s].tokens.size()) >= options_.max_new_tokens) {
      seqs_[s].done = true;
      results_[s].total_seconds = seconds(t_start_, Clock::now());
    }
  }

  // The a-th active sequence's part of accept(); its tree's rows start at `row`.
  void accept_sequence(size_t a, int64_t row) {
    const int s = active_[a];
    Sequence& q = seqs_[s];
    const SequenceInput& in = batch_.sequences[a];
    const auto t0 = Clock::now();
    const TargetLogits target{nullptr, node_logits_.n_vocab(), &node_logits_.tree(static_cast<int>(a))};
    const RngKey key = first_draw_key(s);
    draftbench::verify(q.draft, in.tree, target, options_, key, verify_scratch_, q.acceptance);
    const std::vector<int32_t>& path = q.acceptance.path;
    if (options_.on_step) options_.on_step(StepTrace{s, static_cast<int>(results_[s].steps.size()), q.draft, path, q.acceptance.next_token});
    node_logits_.observe_path(static_cast<int>(a), path);
    cache_.commit(s, path);
    q.path_tokens.clear();
    q.path_hidden.clear();
    for (int32_t node : path) {
      q.path_tokens.push_back(in.tokens[node]);
      const auto h = out_.hidden_row(row + node);
      q.path_hidden.insert(q.path_hidden.end(), h.begin(), h.end());
    }
    q.context.push_back(q.root);
    for (size_t k = 1; k < path.size() && !q.done; ++k) {
      q.context.push_back(q.path_tokens[k]);
      emit(s, q.path_tokens[k]);
    }
    q.hidden.assign(q.path_hidden.end() - E_, q.path_hidden.end());
    q.root = q.acceptance.next_token;
    drafter_.accept(s, AcceptedPath{path, q.path_tokens, q.path_hidden, q.root});
    if (!q.done) emit(s, q.root);
    StepRecord& rec = records_[s];
    rec.accepted = static_cast<int32_t>(path.size()) - 1;
    rec.verify_seconds = verify_seconds_;
    rec.accept_seconds = seconds(t0, Clock::now());
  }

  ForwardPass& target_;
  Drafter& drafter_;
  const std::span<const std::vector<int32_t>> prompts_;
  const DecodeOptions& options_;
  const int n_;
  const int32_t max_tree_nodes_;
  KvCache cache_;
  const int64_t E_;
  const std::vector<int32_t> stops_;
  std::vector<SequenceResult> results_;
  std::vector<Sequence> seqs_;
  DistributionScratch dist_scratch_;
  VerifyScratch verify_scratch_;  // shared: [n_vocab] arrays, restored after each use
  NodeLogits node_logits_;
  const HeadOutput head_output_;
  Clock::time_point t_start_, t_step_;
  ForwardBatch batch_;
  ForwardResult out_;
  std::vector<int> active_;  // the step's sequences, in index order
  std::vector<StepRecord> records_;
  double verify_seconds_ = 0;  // the step's forward and LM-head pass, shared by its sequences
};

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

double SequenceResult::tokens_per_second() const { return total_seconds > 0 ? static_cast<double>(tokens.size()) / total_seconds : 0.0; }

size_t Decoder::kv_bytes(const ModelConfig& config, std::span<const int64_t> prompt_lengths, int max_new_tokens, int32_t max_tree_nodes) {
  int64_t longest = 0;
  for (int64_t l : prompt_lengths) longest = std::max(longest, l);
  return KvCache::bytes_for(config, static_cast<int>(prompt_lengths.size()), capacity_for(longest, max_new_tokens, max_tree_nodes));
}

Decoder::Decoder(const Model& model, ForwardPass& target, Drafter& drafter) : model_(model), target_(target), drafter_(drafter) {}

std::vector<SequenceResult> Decoder::generate(std::span<const std::vector<int32_t>> prompts, const DecodeOptions& options) {
  DecodeRun run(model_, target_, drafter_, prompts, options);
  run.prefill();
  while (run.next_step()) {
    run.draft();
    run.verify();
    run.accept();
  }
  return run.take_results();
}

}  // namespace draftbench
