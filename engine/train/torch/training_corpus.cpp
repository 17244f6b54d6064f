#include "engine/train/torch/training_corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <tuple>

#include "engine/common/error.h"
#include "kernels/quant/blocks.h"

namespace draftbench {

TrainingCorpus::TrainingCorpus(std::span<const DistillData> data, double valid_fraction) {
  if (data.empty()) throw InputError("train", "--data", "no distill directory given");
  n_embd_ = data.front().n_embd();
  continuation_length_ = data.front().continuation_length();
  // Records in order of first appearance, keyed by (the directory's first input, index).
  std::map<std::pair<std::string, int32_t>, int32_t> record_ids;
  for (const DistillData& dir : data) {
    for (const auto& [field, value, first] :
         {std::tuple{"target.n_embd", dir.n_embd(), n_embd_}, std::tuple{"settings.continuation_length", dir.continuation_length(), continuation_length_}})
      if (value != first)
        throw InputError((std::filesystem::path(dir.dir()) / kDistillManifest).string(), fmt::format("field '{}'", field),
                         fmt::format("{} differs from the first directory's {} (distil every directory the same way)", value, first));
    const nlohmann::json& inputs = dir.manifest().value("inputs", nlohmann::json::array());
    const std::string source = inputs.empty() ? dir.dir() : inputs.front().value("sha256", dir.dir());
    const size_t first_sequence = sequences_.size();
    for (const std::string& path : dir.shard_paths()) {
      shards_.push_back(std::make_unique<DistillShard>(path, n_embd_, continuation_length_));
      const DistillShard& shard = *shards_.back();
      const auto index = static_cast<uint32_t>(shards_.size() - 1);
      for (int64_t s = 0; s < shard.n_sequences(); ++s) {
        const auto id = record_ids.emplace(std::pair{source, shard.record()[s]}, static_cast<int32_t>(record_ids.size())).first->second;
        sequences_.push_back(CorpusSequence{index, shard.offsets()[s], shard.offsets()[s + 1], id});
      }
    }
    if (sequences_.size() == first_sequence) throw InputError(dir.dir(), "shards", "hold no sequences (expected a finished `draftbench distill` run)");
  }

  // The last valid_fraction of the records are held out.
  const size_t n_records = record_ids.size();
  size_t n_valid = 0;
  if (n_records >= 2 && valid_fraction > 0) n_valid = std::min(n_records - 1, static_cast<size_t>(std::ceil(valid_fraction * static_cast<double>(n_records))));
  const auto first_valid = static_cast<int32_t>(n_records - n_valid);
  for (uint32_t i = 0; i < sequences_.size(); ++i) (sequences_[i].record >= first_valid ? valid_sequences_ : train_sequences_).push_back(i);
}

TrainingCorpus::~TrainingCorpus() = default;

std::vector<CorpusPosition> TrainingCorpus::positions(const std::vector<uint32_t>& sequences, LabelSource source) const {
  std::vector<CorpusPosition> out;
  for (uint32_t si : sequences) {
    const CorpusSequence& s = sequences_[si];
    const DistillShard& shard = *shards_[s.shard];
    for (int64_t t = s.begin; t < s.end; ++t) {
      if (!shard.trained()[t]) continue;
      const int32_t root = source == LabelSource::ground_truth ? (t + 1 < s.end ? shard.tokens()[t + 1] : -1) : shard.continuation()[t * continuation_length_];
      if (root >= 0) out.push_back(CorpusPosition{s.shard, si, t});
    }
  }
  return out;
}

void TrainingCorpus::hidden_row(uint32_t shard, int64_t index, float* out) const {
  const uint16_t* h = shards_[shard]->hidden_f16().data() + index * n_embd_;
  for (int64_t i = 0; i < n_embd_; ++i) out[i] = fp16_to_fp32(h[i]);
}

void TrainingCorpus::position_labels(const CorpusPosition& p, LabelSource source, int64_t steps, int32_t* root, int32_t* labels) const {
  const DistillShard& shard = *shards_[p.shard];
  const int64_t t = p.index;
  if (source == LabelSource::ground_truth) {
    const int64_t end = sequences_[p.sequence].end;
    *root = shard.tokens()[t + 1];
    for (int64_t i = 0; i < steps; ++i) labels[i] = t + i + 2 < end ? shard.tokens()[t + i + 2] : -1;
  } else {
    const int32_t* c = shard.continuation().data() + t * continuation_length_;
    *root = c[0];
    for (int64_t i = 0; i < steps; ++i) labels[i] = i + 1 < continuation_length_ ? c[i + 1] : -1;
  }
  // A missing label ends the path: later steps would be conditioned on an unknown token.
  for (int64_t i = 0, ended = 0; i < steps; ++i) {
    if (labels[i] < 0) ended = 1;
    if (ended) labels[i] = -1;
  }
}

void TrainingCorpus::fill(std::span<const CorpusPosition> picked, LabelSource source, int64_t steps, PositionBatch& b) const {
  const auto n = static_cast<int64_t>(picked.size());
  b.size = n;
  b.steps = steps;
  b.n_embd = n_embd_;
  b.hidden.resize(static_cast<size_t>(n * n_embd_));
  b.root.resize(static_cast<size_t>(n));
  b.labels.resize(static_cast<size_t>(n * steps));
  for (int64_t i = 0; i < n; ++i) {
    const CorpusPosition& p = picked[static_cast<size_t>(i)];
    hidden_row(p.shard, p.index, b.hidden.data() + i * n_embd_);
    position_labels(p, source, steps, &b.root[static_cast<size_t>(i)], b.labels.data() + i * steps);
  }
}

void TrainingCorpus::fill(std::span<const uint32_t> picked, int64_t max_length, SequenceBatch& b) const {
  const int64_t E = n_embd_;
  b.n_embd = E;
  b.lengths.clear();
  b.tokens.clear();
  b.next_tokens.clear();
  b.trained.clear();
  int64_t total = 0;
  for (uint32_t si : picked) total += std::max<int64_t>(0, std::min(sequences_[si].length(), max_length) - 1);
  b.features.resize(static_cast<size_t>(total * E));
  b.target_features.resize(static_cast<size_t>(total * E));
  int64_t row = 0;
  for (uint32_t si : picked) {
    const CorpusSequence& s = sequences_[si];
    const DistillShard& shard = *shards_[s.shard];
    const int64_t pairs = std::max<int64_t>(0, std::min(s.length(), max_length) - 1);
    b.lengths.push_back(pairs);
    // Pair i = (f_i, x_{i+1}) predicts f_{i+1} (eagle_tree.cpp); it is trained when the
    // drafter would be asked there: token i+1 is a response token (the root of a draft).
    for (int64_t i = 0; i < pairs; ++i, ++row) {
      const int64_t t = s.begin + i;
      if (i == 0) hidden_row(s.shard, t, b.features.data() + row * E);
      else std::copy_n(b.target_features.data() + (row - 1) * E, E, b.features.data() + row * E);
      hidden_row(s.shard, t + 1, b.target_features.data() + row * E);
      b.tokens.push_back(shard.tokens()[t]);
      b.next_tokens.push_back(shard.tokens()[t + 1]);
      b.trained.push_back(shard.trained()[t]);
    }
  }
}

int64_t TrainingCorpus::trained_pairs(uint32_t sequence, int64_t max_length) const {
  const CorpusSequence& s = sequences_[sequence];
  const DistillShard& shard = *shards_[s.shard];
  const int64_t pairs = std::max<int64_t>(0, std::min(s.length(), max_length) - 1);
  int64_t n = 0;
  for (int64_t i = 0; i < pairs; ++i) n += shard.trained()[s.begin + i];
  return n;
}

std::vector<int64_t> TrainingCorpus::response_token_counts(const std::vector<uint32_t>& sequences, int64_t n_vocab) const {
  std::vector<int64_t> counts(static_cast<size_t>(n_vocab), 0);
  for (uint32_t si : sequences) {
    const CorpusSequence& s = sequences_[si];
    const DistillShard& shard = *shards_[s.shard];
    for (int64_t t = s.begin; t + 1 < s.end; ++t) {
      if (!shard.trained()[t]) continue;
      const int32_t id = shard.tokens()[t + 1];
      if (id < 0 || id >= n_vocab)
        throw InputError(fmt::format("shard {}", s.shard), "tensor 'tokens'", fmt::format("id {} outside the target vocabulary [0, {})", id, n_vocab));
      ++counts[static_cast<size_t>(id)];
    }
  }
  return counts;
}

std::vector<int32_t> choose_draft_vocab(const std::vector<int64_t>& counts, int64_t size, const std::vector<int32_t>& stop_ids) {
  std::vector<bool> is_stop(counts.size(), false);
  int64_t n_stops = 0;
  for (int32_t id : stop_ids)
    if (id >= 0 && static_cast<size_t>(id) < counts.size() && !is_stop[static_cast<size_t>(id)]) {
      is_stop[static_cast<size_t>(id)] = true;
      ++n_stops;
    }
  auto more_frequent = [&](int32_t a, int32_t b) {
    const int64_t ca = counts[static_cast<size_t>(a)], cb = counts[static_cast<size_t>(b)];
    return ca > cb || (ca == cb && a < b);
  };
  std::vector<int32_t> frequent;
  for (size_t id = 0; id < counts.size(); ++id)
    if (counts[id] > 0 && !is_stop[id]) frequent.push_back(static_cast<int32_t>(id));
  std::sort(frequent.begin(), frequent.end(), more_frequent);
  frequent.resize(static_cast<size_t>(std::clamp<int64_t>(size - n_stops, 0, static_cast<int64_t>(frequent.size()))));
  std::vector<int32_t> vocab = frequent;
  for (size_t id = 0; id < counts.size(); ++id)
    if (is_stop[id]) vocab.push_back(static_cast<int32_t>(id));
  std::sort(vocab.begin(), vocab.end(), more_frequent);  // stops at their frequency rank, unseen ones last
  return vocab;
}

}  // namespace draftbench
