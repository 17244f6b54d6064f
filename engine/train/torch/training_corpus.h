// The distill shards seen as training examples (torch-free: batches are plain vectors).
//
// Two views of the same data:
//   - positions (ReDrafter, Medusa): every trained position t of a sequence with its
//     hidden state h_t, a root token and one label per draft step (distill_data.h spells
//     out the labels for ground truth and distilled targets; -1 = no label);
//   - sequences (EAGLE): whole sequences, the features at every position, loss only at
//     trained pairs.
// The split into training and validation is by corpus record, so the greedy, sampled and
// second-turn replies to one prompt never land on both sides, even from several directories
// (a record is its directory's first input file, by checksum, and its index there).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/train/distill_data.h"

namespace draftbench {

enum class LabelSource { distilled, ground_truth };

struct CorpusSequence {
  uint32_t shard = 0;
  int64_t begin = 0, end = 0;  // token range inside the shard
  int32_t record = 0;          // corpus record: an index into the records of every directory, in order of first appearance
  int64_t length() const { return end - begin; }
};

struct CorpusPosition {
  uint32_t shard = 0;
  uint32_t sequence = 0;  // index into TrainingCorpus::sequences()
  int64_t index = 0;      // token index inside the shard
};

// ReDrafter / Medusa examples as the trainer feeds them to torch.
struct PositionBatch {
  int64_t size = 0, steps = 0, n_embd = 0;
  std::vector<float> hidden;    // [size][n_embd]
  std::vector<int32_t> root;    // [size]
  std::vector<int32_t> labels;  // [size][steps], target ids, -1 = none
};

// EAGLE examples: sequences laid end to end.
struct SequenceBatch {
  int64_t n_embd = 0;
  std::vector<int64_t> lengths;        // [n_sequences] pairs per sequence (= its positions - 1)
  std::vector<float> features;         // [pairs][n_embd]   f_i
  std::vector<int32_t> tokens;         // [pairs]           x_i
  std::vector<int32_t> next_tokens;    // [pairs]           x_{i+1}
  std::vector<float> target_features;  // [pairs][n_embd]   f_{i+1}
  std::vector<uint8_t> trained;        // [pairs]           loss here
  int64_t pairs() const { return static_cast<int64_t>(next_tokens.size()); }
};

class TrainingCorpus {
 public:
  // Opens every shard of every directory (mapped, not copied), which must agree on n_embd
  // and the continuation length. `valid_fraction` of the records (the last ones, in order of
  // first appearance) form the validation split; none when there are < 2 records.
  TrainingCorpus(std::span<const DistillData> data, double valid_fraction);
  ~TrainingCorpus();

  int64_t n_embd() const { return n_embd_; }
  int64_t continuation_length() const { return continuation_length_; }
  const std::vector<CorpusSequence>& sequences() const { return sequences_; }
  const std::vector<uint32_t>& train_sequences() const { return train_sequences_; }
  const std::vector<uint32_t>& valid_sequences() const { return valid_sequences_; }

  // Trained positions of the given sequences, in corpus order, that have a root token.
  std::vector<CorpusPosition> positions(const std::vector<uint32_t>& sequences, LabelSource source) const;

  // The root and `steps` labels of one position (distill_data.h; -1 = none, and a missing
  // label ends the path).
  void labels(const CorpusPosition& p, LabelSource source, int64_t steps, int32_t* root, int32_t* labels) const {
    position_labels(p, source, steps, root, labels);
  }

  // Trained pairs of a sequence for EAGLE, cut to its first max_length positions.
  int64_t trained_pairs(uint32_t sequence, int64_t max_length) const;

  // Fills the batch with the examples `picked` (steps labels each).
  void fill(std::span<const CorpusPosition> picked, LabelSource source, int64_t steps, PositionBatch& batch) const;
  // Sequences `picked`, each cut to its first max_length positions.
  void fill(std::span<const uint32_t> picked, int64_t max_length, SequenceBatch& batch) const;

  // The response tokens (tokens[t+1] at trained positions) of the given sequences, counted
  // per target id; `n_vocab` entries.
  std::vector<int64_t> response_token_counts(const std::vector<uint32_t>& sequences, int64_t n_vocab) const;

 private:
  void hidden_row(uint32_t shard, int64_t index, float* out) const;
  void position_labels(const CorpusPosition& p, LabelSource source, int64_t steps, int32_t* root, int32_t* labels) const;

  int64_t n_embd_ = 0, continuation_length_ = 0;
  std::vector<std::unique_ptr<DistillShard>> shards_;
  std::vector<CorpusSequence> sequences_;
  std::vector<uint32_t> train_sequences_, valid_sequences_;
};

// The draft vocabulary (engine/DESIGN.md §6): the most frequent response tokens, ordered by count
// (descending, ties to the lower id), with every stop token included (they take the places
// of the least frequent tokens; a stop token the corpus never shows comes last). Tokens
// never seen are not added: a corpus with fewer distinct response tokens than `size` gives a
// smaller vocabulary.
std::vector<int32_t> choose_draft_vocab(const std::vector<int64_t>& counts, int64_t size, const std::vector<int32_t>& stop_ids);

// Deterministic shuffles (std::shuffle's result depends on the standard library; this does
// not): Fisher-Yates with a 64-bit Mersenne Twister draw reduced by rejection.
template <typename T>
void seeded_shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    const uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do r = rng();
    while (r >= limit);
    std::swap(v[i - 1], v[static_cast<size_t>(r % bound)]);
  }
}

}  // namespace draftbench
