#include "engine/drafters/medusa/medusa.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/common/error.h"
#include "engine/decoding/cost_model.h"
#include "engine/drafters/axis_table.h"
#include "engine/drafters/choice_tree.h"
#include "engine/drafters/draft_head.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_writer.h"

namespace draftbench {
namespace {

constexpr const char* kDefaultTreeLabel = "the built-in Medusa tree (experiments/trees/medusa_cpu_15.json)";

std::string block_weight_name(int head, int layer) { return fmt::format("{}.{}.linear.weight", head, layer); }
std::string block_bias_name(int head, int layer) { return fmt::format("{}.{}.linear.bias", head, layer); }
// Medusa-1's per-head output layer sits after the residual blocks in the head's Sequential.
std::string output_name(int head, int num_layers) { return fmt::format("{}.{}.weight", head, num_layers); }

struct MedusaLayout {
  int num_heads = 0;
  int num_layers = 0;
  bool own_output = false;
};

// drafter.json's counts decide which tensors are read, so a wrong one would surface as a
// missing or unexpected tensor: count what the weights hold first and blame the field.
void check_counts(const DrafterCheckpoint& checkpoint, const MedusaLayout& layout) {
  auto count = [](auto exists) {
    int n = 0;
    while (n <= 64 && exists(n)) ++n;
    return n;
  };
  auto exists = [&](const std::string& name) { return !checkpoint.shape_of(name).empty(); };
  const int layers = count([&](int l) { return exists(block_weight_name(0, l)); });
  if (layers != layout.num_layers)
    throw InputError(
        checkpoint.config_path(), "field 'num_layers'",
        fmt::format("{} does not match the weights, whose head 0 holds {} residual blocks ({{head}}.{{layer}}.linear.weight)", layout.num_layers, layers));
  if (layers == 0 && !layout.own_output) return;  // heads without tensors: nothing to count
  const int heads = count([&](int h) { return exists(layers > 0 ? block_weight_name(h, 0) : output_name(h, 0)); });
  if (heads != layout.num_heads)
    throw InputError(checkpoint.config_path(), "field 'num_heads'", fmt::format("{} does not match the weights, which hold {} heads", layout.num_heads, heads));
}

MedusaLayout native_layout(DrafterCheckpoint& checkpoint) {
  const ConfigFields& f = checkpoint.fields();
  MedusaLayout layout;
  const int64_t heads = drafter_size_field(checkpoint, "num_heads", std::nullopt, 1, 64);
  const int64_t layers = drafter_size_field(checkpoint, "num_layers", 1, 0, 64);
  layout.num_heads = static_cast<int>(heads);
  layout.num_layers = static_cast<int>(layers);
  const std::string head = f.string_or("head", "own");
  if (head != "own" && head != "target")
    throw InputError(checkpoint.config_path(), "field 'head'", fmt::format("'{}' (expected \"own\" or \"target\")", printable_text(head)));
  layout.own_output = head == "own";
  check_counts(checkpoint, layout);
  return layout;
}

// Medusa's config.json: only medusa_num_layers is trusted. The published checkpoints say
// medusa_num_heads = 2 while holding 5 heads (Medusa's loader overrides it; issue #114), so
// the heads are counted from the tensors.
MedusaLayout reference_layout(DrafterCheckpoint& checkpoint) {
  MedusaLayout layout;
  const int64_t layers = checkpoint.fields().integer_or("medusa_num_layers", 1);
  if (layers < 0 || layers > 64) throw InputError(checkpoint.config_path(), "field 'medusa_num_layers'", fmt::format("{} (expected 0..64)", layers));
  layout.num_layers = static_cast<int>(layers);
  // A head is known by its first tensor: the first block's weight, or with no blocks its output layer.
  auto first_tensor = [&](int h) { return layout.num_layers > 0 ? block_weight_name(h, 0) : output_name(h, 0); };
  while (layout.num_heads < 64 && checkpoint.bind().has(first_tensor(layout.num_heads))) ++layout.num_heads;
  if (layout.num_heads == 0)
    throw InputError(checkpoint.dir(), fmt::format("tensor '{}'", first_tensor(0)), "missing (expected Medusa heads named {head}.{layer}.linear.weight)");
  int n_outputs = 0;
  for (int h = 0; h < layout.num_heads; ++h) n_outputs += checkpoint.bind().has(output_name(h, layout.num_layers));
  if (n_outputs != 0 && n_outputs != layout.num_heads)
    for (int h = 0; h < layout.num_heads; ++h)
      if (!checkpoint.bind().has(output_name(h, layout.num_layers)))
        throw InputError(checkpoint.dir(), fmt::format("tensor '{}'", output_name(h, layout.num_layers)),
                         fmt::format("missing (expected an output layer for every head or for none; {} of {} have one)", n_outputs, layout.num_heads));
  layout.own_output = n_outputs == layout.num_heads;
  return layout;
}

ChoiceTree medusa_tree(const DrafterOptions& options, std::string& label) {
  if (options.tree_file.empty()) {
    label = kDefaultTreeLabel;
    return choice_tree_from_paths(default_medusa_choices(), label);
  }
  label = options.tree_file;
  return load_choice_tree(options.tree_file);
}

class MedusaDrafter final : public Drafter {
 public:
  // shared_output: every head projects through heads[0]'s output layer (the target's LM
  // head rows), so the heads' block outputs are stacked and projected in one call.
  // coupled: at temperature > 0, draft the chain of coupled picks (below) instead of the tree.
  MedusaDrafter(std::vector<DraftHead> heads, bool shared_output, ChoiceTree tree, int64_t n_vocab, bool coupled, ThreadPool& pool)
      : heads_(std::move(heads)), shared_output_(shared_output), tree_(std::move(tree)), pool_(pool), n_vocab_(n_vocab), coupled_(coupled) {
    DB_CHECK(!heads_.empty() && tree_.max_depth() <= static_cast<int32_t>(heads_.size()));
    n_used_heads_ = tree_.max_depth();
    n_ranks_ = tree_.max_rank() + 1;
    const int64_t dim = heads_[0].dim(), n_draft_vocab = heads_[0].n_draft_vocab();
    DB_CHECK(n_ranks_ <= n_draft_vocab);
    x_.resize(static_cast<size_t>(n_used_heads_ * dim));
    logits_.resize(static_cast<size_t>(n_used_heads_ * n_draft_vocab));
    top_.resize(static_cast<size_t>(n_used_heads_));
    vocab_by_id_ = indices_by_id(heads_[0].draft_vocab());
  }

  std::string name() const override { return "medusa"; }
  int32_t max_tree_nodes() const override { return tree_.size(); }
  void reset(int) override {}

  // Width is free here: every head's whole distribution is computed anyway.
  void limit_draft(int32_t depth, int32_t) override { depth_limit_ = depth; }
  // One row per head over the draft vocabulary; the residual blocks are small beside it.
  double draft_seconds(const CostModel& cost) const override {
    return cost.head_share(last_heads_, static_cast<double>(heads_[0].n_draft_vocab()) / static_cast<double>(n_vocab_));
  }

  DraftWork draft_work() const override { return {1, 0, last_heads_}; }

  void propose(const DraftContext& ctx, Draft& draft) override {
    draft.reset_to_root(ctx.root);
    draft.confidence.assign(1, 1.0f);
    // Choice trees list nodes by depth, so the nodes within the limit are a prefix.
    const int32_t n_heads = depth_limit_ > 0 ? std::min(n_used_heads_, depth_limit_) : n_used_heads_;
    last_heads_ = n_heads;
    if (n_heads == 0) return;
    const int64_t dim = heads_[0].dim(), n_draft_vocab = heads_[0].n_draft_vocab();
    DB_CHECK(ctx.hidden.size() == static_cast<size_t>(dim));
    for (int32_t k = 0; k < n_heads; ++k) {
      float* x = x_.data() + k * dim;
      std::copy(ctx.hidden.begin(), ctx.hidden.end(), x);
      if (shared_output_) heads_[k].blocks(x, 1, pool_);
      else heads_[k].forward(x, 1, logits_.data() + k * n_draft_vocab, pool_);
    }
    if (shared_output_) heads_[0].project(x_.data(), n_heads, logits_.data(), pool_);
    for (int32_t k = 0; k < n_heads; ++k) {
      const std::span<float> row(logits_.data() + k * n_draft_vocab, static_cast<size_t>(n_draft_vocab));
      top_k_indices(row, n_ranks_, top_[k]);
      log_softmax(row);  // after the ranking, which it does not change
    }
    const std::vector<int32_t>& draft_vocab = heads_[0].draft_vocab();
    if (ctx.sampling() && coupled_) return coupled_chain(ctx, n_heads, draft);
    // Choice node i is draft node i: reset_to_root made node 0, and add() numbers in order.
    for (int32_t i = 1; i < tree_.size() && tree_.depth[i] <= n_heads; ++i) {
      const int32_t head = tree_.depth[i] - 1, draft_id = top_[head][tree_.rank[i]];
      draft.tree.add(tree_.parent[i], draft_vocab[draft_id]);
      draft.confidence.push_back(std::exp(logits_[static_cast<size_t>(head * n_draft_vocab + draft_id)]));
    }
  }

 private:
  // Head k's coupled pick with the uniform of depth k + 1 (coupled_pick, sampling.h): the
  // token the target's draw there would give if its distribution were the head's.
  void coupled_chain(const DraftContext& ctx, int32_t n_heads, Draft& draft) {
    const int64_t n_draft_vocab = heads_[0].n_draft_vocab();
    const std::vector<int32_t>& draft_vocab = heads_[0].draft_vocab();
    for (int32_t k = 0, node = 0; k < n_heads; ++k) {
      RngKey key = ctx.first_draw;
      key.step += static_cast<uint64_t>(k);
      const double u = uniform(key);
      const std::span<const float> row(logits_.data() + k * n_draft_vocab, static_cast<size_t>(n_draft_vocab));
      const CoupledPick pick = coupled_pick(row, draft_vocab, vocab_by_id_, ctx.params, u, coupled_scratch_);
      node = draft.tree.add(node, draft_vocab[static_cast<size_t>(pick.index)]);
      draft.confidence.push_back(pick.confidence(u));
    }
  }

  std::vector<DraftHead> heads_;
  bool shared_output_;
  ChoiceTree tree_;
  ThreadPool& pool_;
  int64_t n_vocab_;                        // the target's vocabulary
  int32_t n_used_heads_ = 0;               // the tree's depth: deeper heads are never read
  int64_t n_ranks_ = 0;                    // top-k per head, k = the tree's largest rank + 1
  int32_t depth_limit_ = 0;                // limit_draft's hint; 0 = none
  int32_t last_heads_ = 0;                 // heads the last propose ran
  std::vector<float> x_;                   // [n_used_heads][n_embd]
  std::vector<float> logits_;              // [n_used_heads][n_draft_vocab]
  std::vector<std::vector<int32_t>> top_;  // [n_used_heads][n_ranks] draft ids
  bool coupled_;
  std::vector<int32_t> vocab_by_id_;  // indices of the draft vocabulary in increasing token id
  CoupledScratch coupled_scratch_;
};

}  // namespace

const std::vector<std::vector<int32_t>>& default_medusa_choices() {
  // experiments/trees/medusa_cpu_15.json (scripts/make_choice_tree.py, Vicuna-7B head
  // accuracies): on a CPU each verified token costs about as much as a decoding step's
  // share of the weights, so a small tree beats Medusa's 63-node GPU trees.
  static const std::vector<std::vector<int32_t>> choices = {
      {0}, {1}, {2}, {3}, {0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {2, 0}, {0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 1, 0},
  };
  return choices;
}

std::unique_ptr<Drafter> make_medusa_drafter(DrafterCheckpoint& checkpoint, const DrafterOptions& options, const Model& target, ThreadPool& pool) {
  const MedusaLayout layout = checkpoint.native() ? native_layout(checkpoint) : reference_layout(checkpoint);
  const int64_t n_embd = target.config().n_embd;
  const std::vector<int32_t> draft_vocab = checkpoint.draft_vocab(target.config().n_vocab);
  const auto n_draft_vocab = static_cast<int64_t>(draft_vocab.size());

  const std::string block_dims = fmt::format("[n_embd, n_embd] with n_embd = {}, the target's hidden size", n_embd);
  const std::string bias_dims = fmt::format("[n_embd] with n_embd = {}, the target's hidden size", n_embd);
  const std::string output_dims = fmt::format("[n_draft_vocab, n_embd] = [{}, {}]: the draft vocabulary by the target's hidden size", n_draft_vocab, n_embd);
  std::vector<DraftHead> heads;
  heads.reserve(static_cast<size_t>(layout.num_heads));
  for (int h = 0; h < layout.num_heads; ++h) {
    std::vector<ResidualBlock> blocks;
    for (int l = 0; l < layout.num_layers; ++l) {
      ResidualBlock b;
      b.w = checkpoint.bind().matrix(block_weight_name(h, l), n_embd, n_embd, block_dims.c_str());
      b.bias = checkpoint.bind().vector(block_bias_name(h, l), n_embd, bias_dims.c_str());
      blocks.push_back(b);
    }
    if (layout.own_output) {
      const WeightMatrix output = checkpoint.bind().matrix(output_name(h, layout.num_layers), n_draft_vocab, n_embd, output_dims.c_str());
      heads.emplace_back(std::move(blocks), output, false, draft_vocab);
    } else {
      heads.emplace_back(std::move(blocks), target.weights().output, true, draft_vocab);
    }
  }

  std::string tree_label;
  ChoiceTree tree = medusa_tree(options, tree_label);
  if (tree.max_depth() > layout.num_heads)
    throw InputError(tree_label, "",
                     fmt::format("tree depth {} needs {} Medusa heads, but the drafter in {} has {} (expected depth <= heads)", tree.max_depth(),
                                 tree.max_depth(), checkpoint.dir(), layout.num_heads));
  if (tree.max_rank() + 1 > n_draft_vocab)
    throw InputError(tree_label, "",
                     fmt::format("rank {} needs a top-{} over a draft vocabulary of {} tokens (expected ranks < {})", tree.max_rank(), tree.max_rank() + 1,
                                 n_draft_vocab, n_draft_vocab));
  // At T > 0 automatic sizing drafts the coupled chain (unless told not to); fixed sizes keep the tree (the paper's).
  return std::make_unique<MedusaDrafter>(std::move(heads), !layout.own_output, std::move(tree), target.config().n_vocab,
                                         options.coupled_drafts && sizing_is_auto(options), pool);
}

void write_random_medusa(const RandomDrafterSpec& spec, const Model& target, const std::string& dir) {
  if (spec.num_heads < 1 || spec.num_heads > 64) throw InputError("medusa init", "num_heads", fmt::format("{} (expected 1..64)", spec.num_heads));
  if (spec.num_layers < 0 || spec.num_layers > 64) throw InputError("medusa init", "num_layers", fmt::format("{} (expected 0..64)", spec.num_layers));
  const int64_t n_embd = target.config().n_embd;
  const std::vector<int32_t> draft_vocab = default_draft_vocab(target, spec.draft_vocab);
  const auto n_draft_vocab = static_cast<int64_t>(draft_vocab.size());

  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<float> bias_init(-0.02f, 0.02f);
  std::normal_distribution<float> output_init(0.0f, 0.02f);
  SafetensorsWriter writer;
  const std::vector<float> zero_block(static_cast<size_t>(n_embd * n_embd), 0.0f);
  std::vector<float> values;
  for (int h = 0; h < spec.num_heads; ++h) {
    for (int l = 0; l < spec.num_layers; ++l) {
      writer.tensor_floats(block_weight_name(h, l), GgmlType::F32, {n_embd, n_embd}, zero_block);
      values.resize(static_cast<size_t>(n_embd));
      for (float& v : values) v = bias_init(rng);
      writer.tensor_floats(block_bias_name(h, l), GgmlType::F32, {n_embd}, values);
    }
    if (spec.own_head) {
      values.resize(static_cast<size_t>(n_draft_vocab * n_embd));
      for (float& v : values) v = output_init(rng);
      writer.tensor_floats(output_name(h, spec.num_layers), GgmlType::F32, {n_draft_vocab, n_embd}, values);
    }
  }
  nlohmann::json config = native_drafter_config("medusa");
  config["num_heads"] = spec.num_heads;
  config["num_layers"] = spec.num_layers;
  config["head"] = spec.own_head ? "own" : "target";
  write_native_drafter(dir, config, writer, draft_vocab, target.config().n_vocab);
}

namespace {
constexpr std::string_view kMedusaConfigKeys[] = {"num_heads", "num_layers", "head"};
constexpr TrainingNet kMedusaTraining{"medusa", TrainingNet::Steps::heads, 1, false, false};
}  // namespace

const DrafterKind& medusa_kind() {
  static constexpr DrafterKind kind{
      .name = "medusa",
      .needs_weights = true,
      .weights_of = "medusa",
      .with_lookup = false,
      .make = [](DrafterCheckpoint* c, const DrafterOptions& o, const Model& m, ThreadPool& p) { return make_medusa_drafter(*c, o, m, p); },
      .write_random = write_random_medusa,
      .sizes_automatically = sizing_is_auto,
      .reads = [](const DrafterOptions&) -> uint32_t { return kEveryDrafter | kWithWeights | kChoiceTree; },
      .estimate =
          [](const DrafterOptions&) {
            return StepEstimate{25, 1.8};
          },
      .config_keys = kMedusaConfigKeys,
      .is_reference = [](const nlohmann::json& config, const std::vector<std::string>&) { return config.contains("medusa_num_heads"); },
      .training = &kMedusaTraining,
      .pairs_with_lookup = true,
  };
  return kind;
}

}  // namespace draftbench
