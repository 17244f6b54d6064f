// train_drafter end to end on tiny models and synthetic distill data: the loss falls on a
// learnable pattern and the engine then drafts that pattern with the exported weights; the
// same seed exports byte-identical weights; bad input fails with InputError naming it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <set>

#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/model.h"
#include "kernels/quant/blocks.h"
#include "kernels/runtime/cpu_features.h"
#include "engine/train/drafter_training.h"
#include "engine/train/torch/torch_backend.h"
#include "engine/train/torch/training_corpus.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"
#include "tests/train/train_fixtures.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// The first logged loss against the last epoch's: the pattern must be learnt, not just nudged.
void check_learnt(const TrainOptions& o, const TrainResult& r, double max_ratio) {
  const nlohmann::json log = read_json(o.out_dir + "/train_log.json");
  REQUIRE(!log["entries"].empty());
  const double first = log["entries"][0]["loss"].get<double>();
  INFO(o.drafter << ": first loss " << first << ", last epoch " << r.epochs.back().train_loss << ", valid " << r.epochs.back().valid_loss);
  CHECK(r.epochs.back().train_loss < max_ratio * first);
  CHECK(r.epochs.back().valid_loss < max_ratio * first);
  CHECK(r.epochs.back().valid_steps[0].positions > 0);
  for (int e = 1; e <= o.epochs; ++e) CHECK(fs::exists(o.out_dir + "/epoch-" + std::to_string(e) + "/drafter.json"));
  const nlohmann::json result = read_json(o.out_dir + "/train_result.json");
  CHECK(result["provenance"]["data_manifest_sha256"].get<std::string>().size() == 64);
  CHECK(result["provenance"]["positions_trained"].get<int64_t>() == r.positions_trained);
}

// The engine drafts with the exported weights: from any point of the corpus's cycle, the
// trained ReDrafter's greedy beam must continue the cycle.
double redrafter_hit_rate(const TrainSetup& s, const std::string& weights) {
  ThreadPool pool(1);
  DrafterOptions options;
  options.kind = "redrafter";
  options.weights_dir = weights;
  options.beam_width = 1;
  options.beam_length = 5;
  const auto drafter = make_drafter(options, *s.model, pool);
  // A corpus sequence, rebuilt by reading the first shard back.
  const DistillData data(s.dir / "data", false);
  const DistillShard shard(data.shard_paths()[0], data.n_embd(), data.continuation_length());
  const int64_t E = data.n_embd(), n = shard.offsets()[1];
  int hits = 0, total = 0;
  for (int64_t t = 5; t + 5 < n; ++t) {
    std::vector<float> h(static_cast<size_t>(E));
    for (int64_t i = 0; i < E; ++i) h[static_cast<size_t>(i)] = fp16_to_fp32(shard.hidden_f16()[static_cast<size_t>(t * E + i)]);
    Draft draft;
    drafter->propose(DraftContext{0, {}, shard.tokens()[static_cast<size_t>(t + 1)], h}, draft);
    for (int32_t i = 1; i < draft.tree.size(); ++i, ++total)
      hits += draft.tree.tokens[static_cast<size_t>(i)] == shard.tokens()[static_cast<size_t>(t + 1 + i)];
  }
  return total ? static_cast<double>(hits) / total : 0.0;
}

}  // namespace

TEST_CASE("trainer: the draft vocabulary is the most frequent response tokens plus the stop tokens", "[train]") {
  std::vector<int64_t> counts(20, 0);
  counts[5] = 10, counts[7] = 10, counts[3] = 4, counts[9] = 7, counts[11] = 1, counts[2] = 3;
  // Ties to the lower id; stop 2 seen (rank 5) and stop 1 never seen take the last places.
  CHECK(choose_draft_vocab(counts, 4, {1, 2}) == std::vector<int32_t>{5, 7, 2, 1});
  CHECK(choose_draft_vocab(counts, 5, {2}) == std::vector<int32_t>{5, 7, 9, 3, 2});
  // Fewer distinct tokens than asked: the ones seen, and the stop token.
  CHECK(choose_draft_vocab(counts, 100, {19}) == std::vector<int32_t>{5, 7, 9, 3, 2, 11, 19});
}

TEST_CASE("trainer: ReDrafter learns a pattern, and the engine drafts it with the exported weights", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("train_redrafter");
  const TrainOptions o = s.options("redrafter", "out");
  const TrainResult r = train_drafter(o);
  check_learnt(o, r, 0.25);
  CHECK(r.draft_vocab_size == 24 + static_cast<int64_t>(s.model->tokenizer().stop_ids().size()));
  CHECK(r.label_coverage == 1.0);
  CHECK(redrafter_hit_rate(s, o.out_dir) > 0.9);
}

TEST_CASE("trainer: Medusa learns a pattern", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("train_medusa");
  const TrainOptions o = s.options("medusa", "out");
  check_learnt(o, train_drafter(o), 0.5);
  const nlohmann::json config = read_json(o.out_dir + "/drafter.json");
  CHECK(config["num_heads"] == 3);
  CHECK(config["head"] == "target");
}

TEST_CASE("trainer: EAGLE learns the target's features", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("train_eagle");
  TrainOptions o = s.options("eagle", "out");
  o.lr = 3e-3;
  check_learnt(o, train_drafter(o), 0.5);
  ThreadPool pool(1);
  DrafterOptions options;
  options.kind = "eagle";
  options.weights_dir = o.out_dir;
  CHECK(make_drafter(options, *s.model, pool) != nullptr);

  // A narrower draft layer than the target's (--ffn-size): recorded, exported, loaded.
  o.out_dir = s.dir / "narrow";
  o.ffn_size = 24;
  o.epochs = 1;
  train_drafter(o);
  CHECK(read_json(o.out_dir + "/drafter.json")["n_ff"] == 24);
  CHECK(read_json(o.out_dir + "/train_result.json")["provenance"]["options"]["ffn_size"] == 24);
  CHECK(s.model->config().n_ff != 24);
  options.weights_dir = o.out_dir;
  CHECK(make_drafter(options, *s.model, pool) != nullptr);

  // The copy input (--previous-token): fc reads three embeddings' width, recorded, loaded.
  o.out_dir = s.dir / "copy";
  o.previous_token = true;
  train_drafter(o);
  const nlohmann::json config = read_json(o.out_dir + "/drafter.json");
  CHECK(config["previous_token"] == true);
  CHECK(read_json(o.out_dir + "/train_result.json")["provenance"]["options"]["previous_token"] == true);
  options.weights_dir = o.out_dir;
  CHECK(make_drafter(options, *s.model, pool) != nullptr);
}

TEST_CASE("trainer: the same seed exports byte-identical weights, another seed does not", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("train_determinism");
  for (const char* drafter : {"redrafter", "eagle"}) {
    INFO(drafter);
    auto run = [&](uint64_t seed, const std::string& out) {
      TrainOptions o = s.options(drafter, out);
      o.epochs = 1;
      o.seed = seed;
      o.threads = 2;
      o.dtype = "f16";
      train_drafter(o);
      return file_bytes(o.out_dir + "/model.safetensors");
    };
    const std::string a = run(5, std::string(drafter) + "_a"), b = run(5, std::string(drafter) + "_b"), c = run(6, std::string(drafter) + "_c");
    REQUIRE(!a.empty());
    CHECK(a == b);
    CHECK(a != c);
  }
}

// --head-precision bf16: the LM-head products take bf16 inputs. The drafters learn as with
// f32 (same validation loss to a few percent), the weights really differ (the option is not
// ignored), the run is still deterministic, the provenance says so, and a checkpoint of one
// precision does not resume under the other.
TEST_CASE("trainer: bf16 head products learn as f32 does and are recorded", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("train_bf16_head");
  for (const char* drafter : {"redrafter", "medusa", "eagle"}) {
    INFO(drafter);
    auto run = [&](const std::string& precision, const std::string& out) {
      TrainOptions o = s.options(drafter, out);
      o.head_precision = precision;
      if (std::string(drafter) == "eagle") o.lr = 3e-3;
      return std::pair{o, train_drafter(o)};
    };
    const auto [f32, f32_result] = run("f32", std::string(drafter) + "_f32");
    const auto [bf16, bf16_result] = run("bf16", std::string(drafter) + "_bf16");
    check_learnt(bf16, bf16_result, std::string(drafter) == "redrafter" ? 0.25 : 0.5);
    const double a = f32_result.epochs.back().valid_loss, b = bf16_result.epochs.back().valid_loss;
    CHECK(std::abs(a - b) <= 0.05 * a + 0.01);  // the floor: the tiny corpus is learnt to near 0
    CHECK(file_bytes(f32.out_dir + "/model.safetensors") != file_bytes(bf16.out_dir + "/model.safetensors"));
    CHECK(read_json(bf16.out_dir + "/train_result.json")["provenance"]["options"]["head_precision"] == "bf16");
    CHECK(read_json(f32.out_dir + "/train_result.json")["provenance"]["options"]["head_precision"] == "f32");
    const auto [again, again_result] = run("bf16", std::string(drafter) + "_bf16_again");
    CHECK(file_bytes(again.out_dir + "/model.safetensors") == file_bytes(bf16.out_dir + "/model.safetensors"));
  }
  TrainOptions o = s.options("redrafter", "resume");
  o.head_precision = "bf16";
  o.stop_after_steps = 1;
  REQUIRE(train_drafter(o).stopped);
  o.stop_after_steps = 0;
  o.resume = true;
  o.head_precision = "f32";
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("fingerprint.options.head_precision"));
  // auto resolves by the CPU, and the provenance records what it chose.
  o = s.options("redrafter", "auto");
  o.head_precision = "auto";
  o.epochs = 1;
  train_drafter(o);
  CHECK(read_json(o.out_dir + "/train_result.json")["provenance"]["options"]["head_precision"] == (cpu_features().avx512bf16 ? "bf16" : "f32"));
  o.head_precision = "fp8";
  o.resume = false;
  o.out_dir = s.dir / "bad";
  CHECK_THROWS_WITH(train_drafter(o), Contains("--head-precision") && Contains("fp8"));
}

TEST_CASE("trainer: bad options and data fail naming what is wrong", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("train_errors");
  TrainOptions o = s.options("redrafter", "out");
  o.drafter = "lookahead";
  CHECK_THROWS_WITH(train_drafter(o), Contains("--drafter") && Contains("lookahead"));
  o = s.options("medusa", "out");
  o.data_dirs = {s.dir / "nowhere"};
  CHECK_THROWS_WITH(train_drafter(o), Contains("nowhere") && Contains("manifest.json"));
  o = s.options("redrafter", "out");
  o.draft_steps = 6;  // the data holds continuation_length 6: 5 distilled labels per position
  CHECK_THROWS_WITH(train_drafter(o), Contains("continuation_length") && Contains("--draft-steps"));
  // Data distilled from a model of another hidden size.
  TinyLlamaShape narrow;
  narrow.hidden = 32;
  narrow.heads = 2;
  narrow.kv_heads = 1;
  write_llama_gguf(make_tiny_llama(narrow), s.dir / "narrow.gguf");
  o = s.options("eagle", "out");
  o.model_path = s.dir / "narrow.gguf";
  CHECK_THROWS_WITH(train_drafter(o), Contains("n_embd") && Contains("32"));
}

TEST_CASE("trainer: several distill directories train together, a record's replies stay on one side of the split", "[train]") {
  TrainSetup s("trainer_dirs");
  SyntheticCorpus greedy, sampled, other;
  greedy.input_sha256 = sampled.input_sha256 = std::string(64, 'a');
  sampled.seed = 12;
  other.seed = 13;
  other.input_sha256 = std::string(64, 'b');
  write_synthetic_distill(*s.model, s.model_path, s.dir / "greedy", greedy);
  write_synthetic_distill(*s.model, s.model_path, s.dir / "sampled", sampled);
  write_synthetic_distill(*s.model, s.model_path, s.dir / "other", other);
  auto open = [&](const std::vector<std::string>& names) {
    std::vector<DistillData> data;
    for (const std::string& name : names) data.emplace_back(s.dir / name, true);
    return data;
  };
  auto records = [](const TrainingCorpus& corpus, const std::vector<uint32_t>& sequences) {
    std::set<int32_t> out;
    for (uint32_t i : sequences) out.insert(corpus.sequences()[i].record);
    return out;
  };
  {
    // Same input file: records 0..39 of both directories are the same 40 records; the last 4 are held out, both replies of each.
    const std::vector<DistillData> data = open({"greedy", "sampled"});
    const TrainingCorpus corpus(data, 0.1);
    REQUIRE(corpus.sequences().size() == 80);
    CHECK(corpus.valid_sequences().size() == 8);
    CHECK(records(corpus, corpus.valid_sequences()) == std::set<int32_t>{36, 37, 38, 39});
    std::set<int32_t> overlap;
    const std::set<int32_t> train = records(corpus, corpus.train_sequences()), valid = records(corpus, corpus.valid_sequences());
    std::set_intersection(train.begin(), train.end(), valid.begin(), valid.end(), std::inserter(overlap, overlap.begin()));
    CHECK(overlap.empty());
  }
  {
    // Another input file: 80 records, the held-out ones all from the second directory.
    const std::vector<DistillData> data = open({"greedy", "other"});
    const TrainingCorpus corpus(data, 0.1);
    CHECK(corpus.valid_sequences().size() == 8);
    for (uint32_t i : corpus.valid_sequences()) CHECK(corpus.sequences()[i].record >= 72);
  }
  // Training on two directories works and records both; a third with another continuation length is refused by name.
  TrainOptions o = s.options("medusa", "two");
  o.epochs = 1;
  o.data_dirs = {s.dir / "greedy", s.dir / "sampled"};
  train_drafter(o);
  const nlohmann::json result = read_json(o.out_dir + "/train_result.json");
  CHECK(result["provenance"]["data_dirs"].size() == 2);
  CHECK(result["provenance"]["data_manifest_sha256"] != sha256_file(s.dir / "greedy/manifest.json"));
  SyntheticCorpus longer;
  longer.continuation_length = 7;
  write_synthetic_distill(*s.model, s.model_path, s.dir / "longer", longer);
  o.data_dirs.push_back(s.dir / "longer");
  o.out_dir = s.dir / "three";
  CHECK_THROWS_WITH(train_drafter(o), Contains("longer") && Contains("continuation_length"));
}
