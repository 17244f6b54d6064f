// Dynamic tree attention's packing (engine/DESIGN.md §3) per step and sequence, over a
// BW x BL grid:
//   dedup_pack/bw:<W>/bl:<L>      dedup_prefix + pack_beams (what the decoder runs)
//   dedup_prefix/…, pack_beams/…  the halves, to see which dominates (full suite)
// Beams share their root and draw from a 50-token vocabulary, so prefixes are shared near
// the root as real beams' are; 64 beam sets are cycled so the branch predictor cannot learn
// one input. Counters add the packed size and the compression ratio.
#include <fmt/format.h>

#include <random>
#include <vector>

#include "kernels/beam/beam_packing.h"
#include "kernels/bench/bench_suite.h"

namespace draftbench {
namespace {

constexpr int kVocab = 50;
constexpr int kBeamSets = 64;

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

enum class Part { both, dedup, pack };

void register_packing(const BenchSuite& s, BeamShape shape, Part part) {
  const char* family = part == Part::both ? "dedup_pack" : part == Part::dedup ? "dedup_prefix" : "pack_beams";
  const std::string name = fmt::format("{}/bw:{}/bl:{}", family, shape.beam_width, shape.beam_length);
  benchmark::RegisterBenchmark(name.c_str(), [s, shape, part](benchmark::State& state) {
    const std::vector<std::vector<int32_t>> sets = make_beam_sets(shape);
    std::vector<std::vector<int32_t>> trees(sets.size(), std::vector<int32_t>(static_cast<size_t>(shape.beam_tokens())));
    for (size_t i = 0; i < sets.size(); ++i) dedup_prefix(sets[i], shape, trees[i]);
    PackedBeams packed;
    int64_t packed_total = 0;
    size_t set = 0;
    const LoopClock clock;
    for (auto _ : state) {
      if (part != Part::pack) dedup_prefix(sets[set], shape, trees[set]);
      if (part != Part::dedup) {
        pack_beams(sets[set], shape, trees[set], packed);
        packed_total += packed.size();
      }
      benchmark::ClobberMemory();
      set = (set + 1) % sets.size();
    }
    // Bytes: the beams read and the prefix tree / unpacker written; comparisons are not FLOPs.
    report_work(state, clock, {12.0 * shape.beam_tokens(), 0}, s.one_thread);
    if (packed_total > 0) {
      const double mean = static_cast<double>(packed_total) / static_cast<double>(state.iterations());
      state.counters["packed_tokens"] = mean;
      state.counters["compression"] = shape.beam_tokens() / mean;
    }
  })->Unit(benchmark::kNanosecond);
}

}  // namespace

void register_beam_packing_benchmarks(const BenchSuite& s) {
  const std::vector<int> widths = s.full() ? std::vector<int>{1, 2, 4, 8, 16, 32, 64} : std::vector<int>{8, 64};
  const std::vector<int> lengths = s.full() ? std::vector<int>{2, 3, 4, 5, 6, 8} : std::vector<int>{5};
  for (int w : widths)
    for (int l : lengths) {
      register_packing(s, {w, l}, Part::both);
      if (s.full() && l == 5) {
        register_packing(s, {w, l}, Part::dedup);
        register_packing(s, {w, l}, Part::pack);
      }
    }
}

}  // namespace draftbench
