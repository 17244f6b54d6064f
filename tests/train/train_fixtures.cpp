#include "tests/train/train_fixtures.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "engine/common/sha256.h"
#include "engine/model/safetensors_writer.h"
#include "engine/train/continuation_tree.h"
#include "engine/train/distill_data.h"
#include "tests/support/greedy_reference.h"
#include "engine/model/gguf_writer.h"
#include "tests/support/tiny_llama.h"

namespace draftbench::test {

void write_tiny_gemma_gguf(const std::string& path, const TinyGemmaShape& s) {
  const TinyLlama vocab_source = make_tiny_llama();  // only its SentencePiece vocabulary
  const SentencePieceModel& vocab = vocab_source.tokenizer;
  const auto V = static_cast<int64_t>(vocab.pieces.size());
  GgufWriter w;
  const std::string a = "gemma3";
  w.kv("general.architecture", a);
  w.kv("general.name", std::string("tiny-gemma"));
  w.kv(a + ".context_length", static_cast<uint32_t>(s.context));
  w.kv(a + ".embedding_length", static_cast<uint32_t>(s.hidden));
  w.kv(a + ".block_count", static_cast<uint32_t>(s.layers));
  w.kv(a + ".feed_forward_length", static_cast<uint32_t>(s.ff));
  w.kv(a + ".attention.head_count", static_cast<uint32_t>(s.heads));
  w.kv(a + ".attention.head_count_kv", static_cast<uint32_t>(s.kv_heads));
  w.kv(a + ".attention.key_length", static_cast<uint32_t>(s.head_dim));
  w.kv(a + ".attention.value_length", static_cast<uint32_t>(s.head_dim));
  w.kv(a + ".attention.layer_norm_rms_epsilon", s.rms_eps);
  w.kv(a + ".rope.freq_base", s.rope_base);
  w.kv(a + ".rope.freq_base_swa", s.rope_base_local);
  w.kv(a + ".attention.sliding_window", uint32_t{8});
  w.kv(a + ".final_logit_softcapping", s.softcap);

  write_sentencepiece_vocab(w, vocab);

  std::mt19937_64 rng(s.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto matrix = [&](const std::string& name, int64_t n_in, int64_t n_out) {
    std::vector<float> v(static_cast<size_t>(n_in * n_out));
    for (float& x : v) x = normal(rng) / std::sqrt(static_cast<float>(n_in));
    w.tensor_f32(name, {n_in, n_out}, v);
  };
  auto norm = [&](const std::string& name, int64_t n) {  // GGUF norm weights: direct multipliers (+1 applied)
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = 1.0f + 0.1f * normal(rng);
    w.tensor_f32(name, {n}, v);
  };
  const int64_t H = s.hidden, QD = s.heads * s.head_dim, KD = s.kv_heads * s.head_dim;
  {
    std::vector<float> embd(static_cast<size_t>(V * H));
    for (float& x : embd) x = 0.5f * normal(rng);     // times sqrt(H) at the input, as Gemma scales it
    w.tensor_f32("token_embd.weight", {H, V}, embd);  // tied: no output.weight
  }
  norm("output_norm.weight", H);
  for (int64_t il = 0; il < s.layers; ++il) {
    const std::string p = fmt::format("blk.{}.", il);
    norm(p + "attn_norm.weight", H);
    matrix(p + "attn_q.weight", H, QD);
    matrix(p + "attn_k.weight", H, KD);
    matrix(p + "attn_v.weight", H, KD);
    matrix(p + "attn_output.weight", QD, H);
    norm(p + "attn_q_norm.weight", s.head_dim);
    norm(p + "attn_k_norm.weight", s.head_dim);
    norm(p + "post_attention_norm.weight", H);
    norm(p + "ffn_norm.weight", H);
    matrix(p + "ffn_gate.weight", H, s.ff);
    matrix(p + "ffn_up.weight", H, s.ff);
    matrix(p + "ffn_down.weight", s.ff, H);
    norm(p + "post_ffw_norm.weight", H);
  }
  w.write(path);
}

void write_synthetic_distill(const Model& target, const std::string& target_path, const std::string& dir, const SyntheticCorpus& spec) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const int64_t E = target.config().n_embd, C = spec.continuation_length;
  std::mt19937_64 rng(spec.seed);
  // A random cycle over `cycle` distinct ids above the special tokens.
  std::vector<int32_t> ids;
  for (int32_t id = 3; id < target.config().n_vocab; ++id) ids.push_back(id);
  for (size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[static_cast<size_t>(rng() % i)]);
  ids.resize(static_cast<size_t>(spec.cycle));

  nlohmann::json shards = nlohmann::json::array();
  const int per_shard = (spec.n_sequences + spec.shards - 1) / spec.shards;
  int64_t total_tokens = 0;
  for (int k = 0, first = 0; first < spec.n_sequences; ++k, first += per_shard) {
    std::vector<DistillSequence> sequences;
    int64_t tokens = 0, trained = 0;
    for (int si = first; si < std::min(spec.n_sequences, first + per_shard); ++si) {
      DistillSequence s;
      size_t at = static_cast<size_t>(rng() % ids.size());
      for (int t = 0; t < spec.length; ++t, at = (at + 1) % ids.size()) s.tokens.push_back(ids[at]);
      s.trained.assign(static_cast<size_t>(spec.length), 0);
      for (int t = spec.prompt - 1; t + 1 < spec.length; ++t) s.trained[static_cast<size_t>(t)] = 1;
      s.hidden = target_hidden_states(target, s.tokens);
      continuation_from_text(s, C, target.tokenizer());
      s.record = si;
      s.kind = SequenceKind::greedy_response;
      tokens += spec.length;
      for (uint8_t b : s.trained) trained += b;
      sequences.push_back(std::move(s));
    }
    const std::string file = fmt::format("shard-{:05d}.safetensors", k);
    const std::string sha = write_distill_shard((fs::path(dir) / file).string(), sequences, E, C);
    shards.push_back({{"file", file},
                      {"sha256", sha},
                      {"sequences", sequences.size()},
                      {"tokens", tokens},
                      {"trained", trained},
                      {"first_item", first},
                      {"items", sequences.size()}});
    total_tokens += tokens;
  }
  const nlohmann::json manifest{
      {"format", kDistillFormat},
      {"version", kDistillFormatVersion},
      {"complete", true},
      {"target",
       {{"path", target_path},
        {"sha256", sha256_file(target_path)},
        {"n_embd", E},
        {"n_vocab", target.config().n_vocab},
        {"architecture", target.config().arch_name}}},
      {"settings", {{"continuation_length", C}}},
      {"inputs", spec.input_sha256.empty() ? nlohmann::json::array() : nlohmann::json::array({{{"path", "prompts.jsonl"}, {"sha256", spec.input_sha256}}})},
      {"shards", shards},
      {"totals", {{"tokens", total_tokens}}}};
  write_file((fs::path(dir) / kDistillManifest).string(), manifest.dump(2));
}

TrainSetup::TrainSetup(const std::string& name, const SyntheticCorpus& corpus) : dir(name) {
  model_path = dir / "tiny.gguf";
  write_llama_gguf(make_tiny_llama(), model_path);
  model = Model::load(model_path);
  write_synthetic_distill(*model, model_path, dir / "data", corpus);
}

TrainOptions TrainSetup::options(const std::string& drafter, const std::string& out) const {
  TrainOptions o;
  o.drafter = drafter;
  o.data_dirs = {dir / "data"};
  o.out_dir = dir / out;
  o.model_path = model_path;
  o.epochs = 6;
  o.lr = 1e-2;
  o.batch_size = 64;
  o.draft_steps = 4;
  o.medusa_heads = 3;
  o.draft_vocab = 64;
  o.threads = 1;
  o.log_every = 1;
  o.valid_fraction = 0.1;
  o.dtype = "f32";
  return o;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(file_bytes(path)); }

}  // namespace draftbench::test
