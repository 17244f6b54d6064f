// Cost of dynamic tree attention's packing per step and sequence (method.md §3):
// dedup_prefix + pack_beams at beam_length 5 and beam_width 8/32/64, on random beams with
// a shared root over a 50-token vocabulary, so that prefixes are shared the way real
// beams share them near the root. 64 different beam sets are cycled so that the branch
// predictor cannot learn one input. Counters report the packed size for context.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/decoding/beam_packing.h"

namespace {

using draftbench::BeamShape;

constexpr int kBeamLength = 5;
constexpr int kVocab = 50;
constexpr int kBeamSets = 64;

// kBeamSets arrays of [beam_width][beam_length] tokens, root shared within each set.
std::vector<std::vector<int32_t>> make_beam_sets(BeamShape shape) {
  std::mt19937 rng(20240309);
  std::uniform_int_distribution<int32_t> token(0, kVocab - 1);
  std::vector<std::vector<int32_t>> sets(kBeamSets, std::vector<int32_t>(static_cast<size_t>(shape.beam_tokens())));
  for (std::vector<int32_t>& beams : sets) {
    const int32_t root = token(rng);
    for (int i = 0; i < shape.beam_width; ++i)
      for (int j = 0; j < shape.beam_length; ++j) beams[i * shape.beam_length + j] = j == 0 ? root : token(rng);
  }
  return sets;
}

void report_packed_size(benchmark::State& state, BeamShape shape, int64_t packed_tokens_total) {
  const double mean_packed = static_cast<double>(packed_tokens_total) / static_cast<double>(state.iterations());
  state.counters["packed_tokens"] = mean_packed;
  state.counters["compression"] = shape.beam_tokens() / mean_packed;
}

void BM_dedup_prefix_and_pack_beams(benchmark::State& state) {
  const BeamShape shape{static_cast<int>(state.range(0)), kBeamLength};
  const std::vector<std::vector<int32_t>> sets = make_beam_sets(shape);
  std::vector<int32_t> prefix_tree(static_cast<size_t>(shape.beam_tokens()));
  draftbench::PackedBeams packed;
  int64_t packed_tokens_total = 0;
  size_t set = 0;
  for (auto _ : state) {
    draftbench::dedup_prefix(sets[set], shape, prefix_tree);
    draftbench::pack_beams(sets[set], shape, prefix_tree, packed);
    benchmark::DoNotOptimize(packed.unpacker.data());
    benchmark::ClobberMemory();
    packed_tokens_total += packed.size();
    set = (set + 1) % sets.size();
  }
  report_packed_size(state, shape, packed_tokens_total);
}

// The two halves on their own, to see which one dominates.
void BM_dedup_prefix(benchmark::State& state) {
  const BeamShape shape{static_cast<int>(state.range(0)), kBeamLength};
  const std::vector<std::vector<int32_t>> sets = make_beam_sets(shape);
  std::vector<int32_t> prefix_tree(static_cast<size_t>(shape.beam_tokens()));
  size_t set = 0;
  for (auto _ : state) {
    draftbench::dedup_prefix(sets[set], shape, prefix_tree);
    benchmark::DoNotOptimize(prefix_tree.data());
    benchmark::ClobberMemory();
    set = (set + 1) % sets.size();
  }
}

void BM_pack_beams(benchmark::State& state) {
  const BeamShape shape{static_cast<int>(state.range(0)), kBeamLength};
  const std::vector<std::vector<int32_t>> sets = make_beam_sets(shape);
  std::vector<std::vector<int32_t>> prefix_trees(sets.size(), std::vector<int32_t>(static_cast<size_t>(shape.beam_tokens())));
  for (size_t s = 0; s < sets.size(); ++s) draftbench::dedup_prefix(sets[s], shape, prefix_trees[s]);
  draftbench::PackedBeams packed;
  size_t set = 0;
  for (auto _ : state) {
    draftbench::pack_beams(sets[set], shape, prefix_trees[set], packed);
    benchmark::DoNotOptimize(packed.unpacker.data());
    benchmark::ClobberMemory();
    set = (set + 1) % sets.size();
  }
}

// The map-based reference, for scale only.
void BM_dedup_prefix_reference(benchmark::State& state) {
  const BeamShape shape{static_cast<int>(state.range(0)), kBeamLength};
  const std::vector<std::vector<int32_t>> sets = make_beam_sets(shape);
  size_t set = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(draftbench::dedup_prefix_reference(sets[set], shape));
    set = (set + 1) % sets.size();
  }
}

}  // namespace

BENCHMARK(BM_dedup_prefix_and_pack_beams)->Arg(8)->Arg(32)->Arg(64);
BENCHMARK(BM_dedup_prefix)->Arg(8)->Arg(32)->Arg(64);
BENCHMARK(BM_pack_beams)->Arg(8)->Arg(32)->Arg(64);
BENCHMARK(BM_dedup_prefix_reference)->Arg(8)->Arg(32)->Arg(64);
