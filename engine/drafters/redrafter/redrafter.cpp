#include "engine/drafters/redrafter/redrafter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "engine/common/error.h"
#include "engine/drafters/axis_table.h"
#include "engine/decoding/cost_model.h"
#include "kernels/beam/beam_packing.h"
#include "engine/drafters/draft_head.h"
#include "engine/model/safetensors_writer.h"
#include "engine/model/token_embedding.h"
#include "kernels/matmul/linear_silu.h"

namespace draftbench {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

enum class InitialState { zero, embedding };

struct RedrafterWeights {
  int64_t n_embd = 0, exit_dim = 0;
  bool rnn = true;
  InitialState initial_state = InitialState::zero;
  WeightMatrix rnn_w, rnn_u;
  const float* rnn_u_bias = nullptr;
  WeightMatrix input_proj;  // n_out == 0 when absent
  const float* input_proj_bias = nullptr;
};

class Redrafter final : public Drafter {
 public:
  Redrafter(RedrafterWeights w, DraftHead head, const DrafterOptions& options, const Model& target, ThreadPool& pool)
      : w_(std::move(w)), head_(std::move(head)), target_(target), pool_(pool) {
    shape_ = BeamShape{options.beam_width, options.beam_length};
    tree_attention_ = options.tree_attention;
    top_k_warp_ = options.top_k_warp;
    keep_q_ = options.keep_draft_distributions;
    // At T > 0 automatic sizing drafts the coupled beam (unless told not to); fixed sizes keep the beam search (the paper's).
    coupled_ = options.coupled_drafts && sizing_is_auto(options) && !keep_q_;
    vocab_by_id_ = indices_by_id(head_.draft_vocab());
  }

  std::string name() const override { return "redrafter"; }
  int32_t max_tree_nodes() const override { return shape_.beam_tokens(); }
  void reset(int) override {}

  void limit_draft(int32_t depth, int32_t width) override {
    depth_limit_ = depth;
    width_limit_ = width;
  }
  // Each beam step's rows over the draft vocabulary; the RNN update is small beside them.
  double draft_seconds(const CostModel& cost) const override {
    const double share = static_cast<double>(head_.n_draft_vocab()) / static_cast<double>(target_.config().n_vocab);
    double seconds = 0;
    for (int32_t rows : step_rows_) seconds += cost.head_share(rows, share);
    return seconds;
  }
  DraftWork draft_work() const override {
    DraftWork w{static_cast<int32_t>(step_rows_.size()), 0, 0};
    for (int32_t rows : step_rows_) w.rows += rows;
    return w;
  }

  // Beam search over the draft vocabulary (each step: score every live beam, keep the top W
  // by summed log-probability), then the beams packed into the draft's tree.
  void propose(const DraftContext& ctx, Draft& out) override {
    if (ctx.sampling() && coupled_) return coupled_beam(ctx, out);
    start_beams(ctx, shape_.beam_width);
    out.reset_to_root(ctx.root);
    int alive = 1;  // beams with a finite score: all later steps run every beam
    for (int t = 1; t < step_shape_.beam_length; ++t) {
      const int history_base = score_beams(t, alive);
      extend_beams(t, history_base);
      alive = step_shape_.beam_width;
    }
    pack_draft(cond_, out);
  }

 private:
  // At temperature > 0: one beam whose token at step t is the coupled pick (sampling.h) of
  // its draft distribution with the uniform of depth t, the token the target's draw there
  // would give if its distribution were the drafter's; each node's confidence the pick's.
  void coupled_beam(const DraftContext& ctx, Draft& out) {
    start_beams(ctx, 1);
    out.reset_to_root(ctx.root);
    const int64_t V = head_.n_draft_vocab();
    pick_log_confidence_.assign(static_cast<size_t>(step_shape_.beam_length), 0.0f);
    for (int t = 1; t < step_shape_.beam_length; ++t) {
      const int history_base = score_beams(t, 1);
      RngKey key = ctx.first_draw;
      key.step += static_cast<uint64_t>(t - 1);
      const double u = uniform(key);
      const CoupledPick pick =
          coupled_pick(std::span<const float>(logits_.data(), static_cast<size_t>(V)), head_.draft_vocab(), vocab_by_id_, ctx.params, u, coupled_scratch_);
      picked_.assign(1, pick.index);
      extend_beams(t, history_base);
      pick_log_confidence_[static_cast<size_t>(t)] = std::log(pick.confidence(u));
    }
    pack_draft(pick_log_confidence_, out);
  }

  // The step's beam shape (within the sizing limits and `max_width`) and the beams before
  // the first step: beam 0 alive at the root, the others at -inf.
  void start_beams(const DraftContext& ctx, int max_width) {
    // A beam of length L reaches L - 1 levels below the root.
    step_shape_ = shape_;
    if (depth_limit_ > 0) step_shape_.beam_length = std::min(shape_.beam_length, depth_limit_ + 1);
    step_shape_.beam_width = std::min(shape_.beam_width, max_width);
    if (width_limit_ > 0) step_shape_.beam_width = std::min(step_shape_.beam_width, width_limit_);
    const int W = step_shape_.beam_width, L = step_shape_.beam_length;
    const int64_t H = w_.n_embd;
    hidden_.assign(ctx.hidden.begin(), ctx.hidden.end());  // h is constant over the draft
    beams_.assign(static_cast<size_t>(W) * L, ctx.root);
    scores_.assign(static_cast<size_t>(W), kMinusInf);
    scores_[0] = 0.0f;  // only beam 0 is alive before the first expansion
    state_.assign(static_cast<size_t>(W * H), 0.0f);
    q_row_.assign(static_cast<size_t>(W) * L, -1);
    cond_.assign(static_cast<size_t>(W) * L, 0.0f);
    step_rows_.clear();
    history_.clear();
  }

  // Step t over the first n beams: each one's RNN state advanced with the embedding of its
  // last token, its logits, and the top W of every (beam, token) by summed log-probability
  // into picked_. Returns the history row of beam 0's logits this step (keep_q_).
  int score_beams(int t, int n) {
    const int W = step_shape_.beam_width, L = step_shape_.beam_length;
    const int64_t H = w_.n_embd, V = head_.n_draft_vocab();
    last_.resize(static_cast<size_t>(n));
    for (int b = 0; b < n; ++b) last_[static_cast<size_t>(b)] = beams_[static_cast<size_t>(b) * L + t - 1];
    embed_.resize(static_cast<size_t>(n * H));
    embed_tokens(target_.config(), target_.weights(), last_, embed_.data());
    advance_state(n, t == 1);
    logits_.resize(static_cast<size_t>(n * V));
    draft_logits(n, logits_.data());
    step_rows_.push_back(n);

    flat_.resize(static_cast<size_t>(n * V));
    for (int b = 0; b < n; ++b)
      for (int64_t v = 0; v < V; ++v) flat_[static_cast<size_t>(b * V + v)] = scores_[static_cast<size_t>(b)] + logits_[static_cast<size_t>(b * V + v)];
    top_k_indices(flat_, W, picked_);
    if (keep_q_) history_.insert(history_.end(), logits_.begin(), logits_.end());
    return static_cast<int>(history_.size() / static_cast<size_t>(V)) - (keep_q_ ? n : 0);
  }

  // The beams after step t: each picked (beam, token) continues its parent beam's tokens,
  // state, q rows and conditional log-probabilities.
  void extend_beams(int t, int history_base) {
    const int W = step_shape_.beam_width, L = step_shape_.beam_length;
    const int64_t H = w_.n_embd, V = head_.n_draft_vocab();
    next_beams_ = beams_;
    next_state_.assign(state_.size(), 0.0f);
    next_q_row_ = q_row_;
    next_cond_ = cond_;
    next_scores_.assign(static_cast<size_t>(W), kMinusInf);
    const int n_picked = static_cast<int>(picked_.size());
    for (int k = 0; k < n_picked; ++k) {
      const int parent = static_cast<int>(picked_[static_cast<size_t>(k)] / V);
      const int64_t v = picked_[static_cast<size_t>(k)] % V;
      std::copy_n(beams_.begin() + static_cast<ptrdiff_t>(parent) * L, t, next_beams_.begin() + static_cast<ptrdiff_t>(k) * L);
      next_beams_[static_cast<size_t>(k) * L + t] = head_.draft_vocab()[static_cast<size_t>(v)];
      std::copy_n(state_.begin() + static_cast<ptrdiff_t>(parent * H), H, next_state_.begin() + static_cast<ptrdiff_t>(k * H));
      std::copy_n(q_row_.begin() + static_cast<ptrdiff_t>(parent) * L, t, next_q_row_.begin() + static_cast<ptrdiff_t>(k) * L);
      next_q_row_[static_cast<size_t>(k) * L + t - 1] = history_base + parent;
      std::copy_n(cond_.begin() + static_cast<ptrdiff_t>(parent) * L, t, next_cond_.begin() + static_cast<ptrdiff_t>(k) * L);
      next_cond_[static_cast<size_t>(k) * L + t] = logits_[static_cast<size_t>(parent * V + v)];
      next_scores_[static_cast<size_t>(k)] = flat_[static_cast<size_t>(picked_[static_cast<size_t>(k)])];
    }
    // Fewer candidates than beams (a tiny draft vocabulary): repeat the best beam so the
    // shape stays [W][L]; dedup_prefix folds the copies into one path.
    for (int k = n_picked; k < W; ++k) {
      std::copy_n(next_beams_.begin(), L, next_beams_.begin() + static_cast<ptrdiff_t>(k) * L);
      std::copy_n(next_state_.begin(), H, next_state_.begin() + static_cast<ptrdiff_t>(k * H));
      std::copy_n(next_q_row_.begin(), L, next_q_row_.begin() + static_cast<ptrdiff_t>(k) * L);
      std::copy_n(next_cond_.begin(), L, next_cond_.begin() + static_cast<ptrdiff_t>(k) * L);
    }
    beams_.swap(next_beams_);
    state_.swap(next_state_);
    q_row_.swap(next_q_row_);
    cond_.swap(next_cond_);
    scores_.swap(next_scores_);
  }

  // The final beams as the draft: with dynamic tree attention their distinct prefixes
  // verified once, without it every beam a chain; each node's probability given its parent
  // (log_confidence, [W][L], as cond_).
  void pack_draft(std::span<const float> log_confidence, Draft& out) {
    const int L = step_shape_.beam_length;
    if (tree_attention_) {
      prefix_tree_.resize(beams_.size());
      dedup_prefix(beams_, step_shape_, prefix_tree_);
      pack_beams(beams_, step_shape_, prefix_tree_, packed_);
    } else {
      unpacked_beams(beams_, step_shape_, packed_);
    }
    out.tree.tokens = packed_.tokens;
    out.tree.parents = packed_.parents;
    out.confidence.assign(static_cast<size_t>(packed_.size()), 1.0f);
    for (size_t i = 0; i < packed_.unpacker.size(); ++i)
      if (i % static_cast<size_t>(L) != 0) out.confidence[static_cast<size_t>(packed_.unpacker[i])] = std::exp(log_confidence[i]);
    out.beam_nodes = packed_.unpacker;
    out.n_beams = step_shape_.beam_width;
    out.beam_length = L;
    if (keep_q_) attach_q(out);
  }

  // state_[b] <- s_t for the first n beams; embed_ holds e_t.
  void advance_state(int n, bool first) {
    const int64_t H = w_.n_embd;
    if (!w_.rnn) {
      for (int64_t i = 0; i < n * H; ++i) state_[static_cast<size_t>(i)] += embed_[static_cast<size_t>(i)];
      return;
    }
    if (first && w_.initial_state == InitialState::embedding) {
      std::copy_n(embed_.begin(), n * H, state_.begin());
      return;
    }
    // One fused pass: SiLU(rnn_w e + rnn_u s + b) into a separate buffer (the products read
    // every state row while outputs are written).
    const LinearTerm terms[] = {{w_.rnn_w, embed_.data()}, {w_.rnn_u, state_.data()}};
    const size_t need = linear_silu_scratch_bytes(terms, n, pool_.size());
    if (quant_.size() < need) quant_.resize(need);
    step_out_.resize(static_cast<size_t>(n * H));
    linear_silu({terms, w_.rnn_u_bias, nullptr, n, step_out_.data()}, pool_, quant_);
    std::copy(step_out_.begin(), step_out_.end(), state_.begin());
  }

  // logits [n][V] = log q for the first n beams, from [h, s].
  void draft_logits(int n, float* logits) {
    const int64_t H = w_.n_embd, D = w_.exit_dim, V = head_.n_draft_vocab();
    concat_.resize(static_cast<size_t>(n * 2 * H));
    for (int b = 0; b < n; ++b) {
      std::copy_n(hidden_.begin(), H, concat_.begin() + static_cast<ptrdiff_t>(b * 2 * H));
      std::copy_n(state_.begin() + static_cast<ptrdiff_t>(b * H), H, concat_.begin() + static_cast<ptrdiff_t>(b * 2 * H + H));
    }
    float* x = concat_.data();
    if (w_.input_proj.n_out > 0) {
      proj_.resize(static_cast<size_t>(n * D));
      linear(w_.input_proj, w_.input_proj_bias, concat_.data(), n, proj_.data(), pool_, quant_);
      x = proj_.data();
    }
    head_.forward(x, n, logits, pool_);
    for (int b = 0; b < n; ++b) {
      std::span<float> row(logits + b * V, static_cast<size_t>(V));
      if (top_k_warp_ > 0 && top_k_warp_ < V) {
        top_k_indices(row, top_k_warp_, warp_keep_);
        const float kth = row[static_cast<size_t>(warp_keep_.back())];
        for (float& l : row)
          if (l < kth) l = kMinusInf;
      }
      log_softmax(row);
    }
  }

  // q per packed node with children: the distribution its beam's next token was chosen from.
  void attach_q(Draft& out) {
    const int W = step_shape_.beam_width, L = step_shape_.beam_length;
    const int64_t V = head_.n_draft_vocab();
    const int32_t n_nodes = out.tree.size();
    node_q_row_.assign(static_cast<size_t>(n_nodes), -1);
    for (int b = 0; b < W; ++b)
      for (int j = 0; j + 1 < L; ++j) {
        const int32_t node = packed_.unpacker[static_cast<size_t>(b) * L + j];
        node_q_row_[static_cast<size_t>(node)] = q_row_[static_cast<size_t>(b) * L + j];
      }
    out.q_offsets.assign(1, 0);
    for (int32_t v = 0; v < n_nodes; ++v) {
      const int row = node_q_row_[static_cast<size_t>(v)];
      if (row >= 0)
        for (int64_t k = 0; k < V; ++k) {
          const float lq = history_[static_cast<size_t>(row * V + k)];
          if (lq > kMinusInf) out.q_entries.push_back(TokenProb{head_.draft_vocab()[static_cast<size_t>(k)], std::exp(static_cast<double>(lq))});
        }
      out.q_offsets.push_back(static_cast<int32_t>(out.q_entries.size()));
    }
  }

 private:
  RedrafterWeights w_;
  DraftHead head_;
  const Model& target_;
  ThreadPool& pool_;
  BeamShape shape_, step_shape_;  // as configured; this step's (limit_draft)
  int32_t depth_limit_ = 0, width_limit_ = 0;
  bool tree_attention_ = true, keep_q_ = false, coupled_ = false;
  std::vector<int32_t> vocab_by_id_;  // indices of the draft vocabulary in increasing token id
  CoupledScratch coupled_scratch_;
  int top_k_warp_ = 0;
  // Working storage, reused across steps: [W][L] beams, [W][H] states, [n][V] logits, ...
  std::vector<int32_t> beams_, next_beams_, last_, picked_, warp_keep_, prefix_tree_, q_row_, next_q_row_, node_q_row_;
  std::vector<int32_t> step_rows_;          // the last propose's beams per step
  std::vector<float> cond_, next_cond_;     // [W][L]: log-prob of each beam token given its prefix
  std::vector<float> pick_log_confidence_;  // [L]: the coupled beam's log confidence per depth
  std::vector<float> scores_, next_scores_, state_, next_state_, embed_, step_out_, concat_, proj_, logits_, flat_, history_, hidden_;
  std::vector<uint8_t> quant_;
  PackedBeams packed_;
};

const char* initial_state_name(InitialState s) { return s == InitialState::zero ? "zero" : "embedding"; }

// The config's sizes decide which tensors are read, so a wrong one would surface as a
// missing or unexpected tensor: compare them with the weights first and blame the field.
void check_layer_count(const DrafterCheckpoint& ckpt, int64_t n_layers, int64_t exit_dim) {
  int64_t in_weights = 0;
  while (in_weights <= 64 && !ckpt.shape_of(fmt::format("lm_head.{}.linear.weight", in_weights)).empty()) ++in_weights;
  if (in_weights != n_layers)
    throw InputError(ckpt.config_path(), "field 'num_draft_layers'",
                     fmt::format("{} does not match the weights, which hold {} residual blocks (lm_head.{{i}}.linear.weight)", n_layers, in_weights));
  check_size_against_tensor(ckpt, "exit_dim", exit_dim, "input_proj.weight", 0);
  if (n_layers > 0) check_size_against_tensor(ckpt, "exit_dim", exit_dim, "lm_head.0.linear.weight", 0);
}

}  // namespace

std::unique_ptr<Drafter> make_redrafter(DrafterCheckpoint& ckpt, const DrafterOptions& options, const Model& target, ThreadPool& pool) {
  check_drafter_settings(options, kBeams, "drafter redrafter");
  const ConfigFields& f = ckpt.fields();
  const int64_t H = target.config().n_embd;
  RedrafterWeights w;
  w.n_embd = H;
  if (!ckpt.native()) {
    if (const int64_t hs = f.integer("hidden_size"); hs != H)
      throw InputError(ckpt.config_path(), "field 'hidden_size'", fmt::format("{} does not match the target's hidden size {}", hs, H));
  }
  w.exit_dim = drafter_size_field(ckpt, "exit_dim", 2 * H, 1, int64_t{1} << 20);
  const int64_t n_layers = drafter_size_field(ckpt, "num_draft_layers", 2, 0, 64);
  check_layer_count(ckpt, n_layers, w.exit_dim);
  w.rnn = f.boolean_or("rnn", true);
  const std::string init = f.string_or("initial_state", "zero");
  if (init != "zero" && init != "embedding")
    throw InputError(ckpt.config_path(), "field 'initial_state'", fmt::format("'{}' (expected zero or embedding)", printable_text(init)));
  w.initial_state = init == "zero" ? InitialState::zero : InitialState::embedding;

  WeightBinder& bind = ckpt.bind();
  if (w.rnn) {
    w.rnn_w = bind.matrix("rnn_w.weight", H, H, "[hidden_size, hidden_size]");
    w.rnn_u = bind.matrix("rnn_u.weight", H, H, "[hidden_size, hidden_size]");
    w.rnn_u_bias = bind.vector("rnn_u.bias", H, "[hidden_size]");
  }
  if (w.exit_dim != 2 * H) {
    w.input_proj = bind.matrix("input_proj.weight", w.exit_dim, 2 * H, "[exit_dim, 2 * hidden_size]");
    w.input_proj_bias = bind.vector("input_proj.bias", w.exit_dim, "[exit_dim]");
  }
  std::vector<ResidualBlock> blocks;
  for (int64_t i = 0; i < n_layers; ++i)
    blocks.push_back(ResidualBlock{bind.matrix(fmt::format("lm_head.{}.linear.weight", i), w.exit_dim, w.exit_dim, "[exit_dim, exit_dim]"),
                                   bind.vector(fmt::format("lm_head.{}.linear.bias", i), w.exit_dim, "[exit_dim]")});
  std::vector<int32_t> vocab = ckpt.draft_vocab(target.config().n_vocab);
  const std::string out_name = fmt::format("lm_head.{}.weight", n_layers);
  const bool own = bind.has(out_name);
  WeightMatrix output;
  if (own) {
    output = bind.matrix(out_name, static_cast<int64_t>(vocab.size()), w.exit_dim, "[draft vocabulary, exit_dim]");
  } else {
    if (w.exit_dim != H)
      throw InputError(ckpt.dir(), "tensor '" + out_name + "'",
                       fmt::format("missing (without an own output layer, exit_dim {} must equal the target's hidden size {})", w.exit_dim, H));
    output = target.weights().output;
  }
  DraftHead head(std::move(blocks), output, !own, std::move(vocab));
  return std::make_unique<Redrafter>(std::move(w), std::move(head), options, target, pool);
}

void write_random_redrafter(const RandomDrafterSpec& spec, const Model& target, const std::string& dir) {
  const int64_t H = target.config().n_embd;
  const std::vector<int32_t> vocab = default_draft_vocab(target, spec.draft_vocab);
  const int64_t D = spec.own_head ? 2 * H : H;
  std::mt19937_64 rng(spec.seed);
  // Small weights keep the residual stream and the RNN state in a sane range.
  auto random = [&](int64_t n, float scale) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = normal(rng);
    return v;
  };
  const float s_h = 1.0f / std::sqrt(static_cast<float>(H)), s_d = 1.0f / std::sqrt(static_cast<float>(D));
  SafetensorsWriter out;
  out.tensor_floats("rnn_w.weight", GgmlType::F32, {H, H}, random(H * H, s_h));
  out.tensor_floats("rnn_u.weight", GgmlType::F32, {H, H}, random(H * H, s_h));
  out.tensor_floats("rnn_u.bias", GgmlType::F32, {H}, random(H, 0.02f));
  if (D != 2 * H) {
    out.tensor_floats("input_proj.weight", GgmlType::F32, {D, 2 * H}, random(D * 2 * H, 1.0f / std::sqrt(2.0f * static_cast<float>(H))));
    out.tensor_floats("input_proj.bias", GgmlType::F32, {D}, random(D, 0.02f));
  }
  for (int i = 0; i < spec.num_layers; ++i) {
    out.tensor_floats(fmt::format("lm_head.{}.linear.weight", i), GgmlType::F32, {D, D}, random(D * D, 0.1f * s_d));
    out.tensor_floats(fmt::format("lm_head.{}.linear.bias", i), GgmlType::F32, {D}, random(D, 0.02f));
  }
  if (spec.own_head)
    out.tensor_floats(fmt::format("lm_head.{}.weight", spec.num_layers), GgmlType::F32, {static_cast<int64_t>(vocab.size()), D},
                      random(static_cast<int64_t>(vocab.size()) * D, s_d));
  nlohmann::json config = native_drafter_config("redrafter");
  config["exit_dim"] = D;
  config["num_draft_layers"] = spec.num_layers;
  config["rnn"] = true;
  config["initial_state"] = initial_state_name(InitialState::zero);
  config["head"] = spec.own_head ? "own" : "target";
  config["seed"] = spec.seed;
  config["trained"] = false;
  write_native_drafter(dir, config, out, vocab, target.config().n_vocab);
}

namespace {
constexpr std::string_view kRedrafterConfigKeys[] = {"exit_dim", "num_draft_layers", "rnn", "initial_state", "head"};
constexpr TrainingNet kRedrafterTraining{"redrafter", TrainingNet::Steps::draft_steps, 2, true, false};

// Dynamic tree attention keeps about 1 + (BL - 1) BW^0.8 of the BW x BL beam tokens.
StepEstimate redrafter_estimate(const DrafterOptions& o) {
  const double bw = o.beam_width, bl = o.beam_length;
  return {1 + (bl - 1) * (o.tree_attention ? std::pow(bw, 0.8) : bw), 1.7};
}
}  // namespace

const DrafterKind& redrafter_kind() {
  static constexpr DrafterKind kind{
      .name = "redrafter",
      .needs_weights = true,
      .weights_of = "redrafter",
      .with_lookup = false,
      .make = [](DrafterCheckpoint* c, const DrafterOptions& o, const Model& m, ThreadPool& p) { return make_redrafter(*c, o, m, p); },
      .write_random = write_random_redrafter,
      .sizes_automatically = sizing_is_auto,
      .reads = [](const DrafterOptions&) -> uint32_t { return kEveryDrafter | kWithWeights | kBeams; },
      .estimate = redrafter_estimate,
      .config_keys = kRedrafterConfigKeys,
      .is_reference =
          [](const nlohmann::json& config, const std::vector<std::string>&) {
            return config.value("model_type", "") == "recurrent_drafting_drafter" || config.contains("exit_dim");
          },
      .training = &kRedrafterTraining,
      .pairs_with_lookup = true,
  };
  return kind;
}

}  // namespace draftbench
