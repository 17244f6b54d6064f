// Distillation data (engine/train): the continuation tree gives, at every trained position,
// exactly the tokens autoregressive greedy decoding from there gives, and the hidden states
// a plain prefill gives; `run_distill` writes checksummed shards, resumes after an
// interruption without redoing or changing finished shards, and refuses a directory made
// with other options; an archive of a directory (its replies without hidden states)
// restores it byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "engine/common/error.h"
#include "engine/common/printable.h"
#include "engine/common/sha256.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_writer.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/train/continuation_tree.h"
#include "engine/train/distill.h"
#include "engine/train/distill_archive.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

constexpr int64_t kC = 4;  // continuation length in these tests

DistillSequence random_sequence(const Model& m, int32_t length, int32_t first_trained, uint64_t seed) {
  std::mt19937_64 rng(seed);
  DistillSequence s;
  s.tokens = m.tokenizer().encode("the cat and the dog", true, false);
  while (static_cast<int32_t>(s.tokens.size()) < length) s.tokens.push_back(static_cast<int32_t>(3 + rng() % 250));
  s.trained.assign(s.tokens.size(), 0);
  for (int32_t t = first_trained; t + 1 < length; ++t) s.trained[static_cast<size_t>(t)] = 1;
  return s;
}

// The first n tokens of plain greedy decoding after tokens[0..t], cut after a stop token
// (-1 beyond), as the continuation tree reports them.
std::vector<int32_t> expected_continuation(const Model& m, const std::vector<int32_t>& tokens, int32_t t) {
  const std::vector<int32_t> prefix(tokens.begin(), tokens.begin() + t + 1);
  std::vector<int32_t> want = greedy_reference(m, prefix, static_cast<int>(kC));
  for (size_t j = 0; j < want.size(); ++j)
    if (m.tokenizer().is_stop(want[j])) std::fill(want.begin() + static_cast<int64_t>(j) + 1, want.end(), -1);
  return want;
}

uint16_t f16_bits(float v) {
  const std::vector<uint8_t> b = encode_floats(GgmlType::F16, {v});
  return static_cast<uint16_t>(b[0] | (b[1] << 8));
}

// The tiny Llama written to a fresh directory, loaded, with a transformer to run it.
struct TinyTarget {
  TempDir dir;
  std::unique_ptr<Model> model;
  ThreadPool pool{2};
  std::unique_ptr<Transformer> tf;
  explicit TinyTarget(const std::string& name) : dir(name) {
    write_llama_gguf(make_tiny_llama(), dir / "tiny.gguf");
    model = Model::load(dir / "tiny.gguf");
    tf = std::make_unique<Transformer>(model->config(), model->weights(), pool);
  }
};

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& l : lines) out << l << "\n";
}

}  // namespace

TEST_CASE("continuation tree: every position's branch equals greedy decoding from it, hidden states equal prefill", "[distill]") {
  TinyTarget target("continuation_tree");
  const auto& model = target.model;
  Transformer& tf = *target.tf;
  const int64_t E = model->config().n_embd;

  for (int32_t chunk : {512, 7}) {
    INFO("chunk " << chunk);
    ContinuationTree tree(*model, tf, kC, chunk);
    DistillSequence seq = random_sequence(*model, 37, 9, 3);
    tree.run(seq, true);

    const std::vector<float> ref = target_hidden_states(*model, seq.tokens);
    REQUIRE(seq.hidden.size() == seq.tokens.size() * static_cast<size_t>(E));
    REQUIRE(std::equal(seq.hidden.begin(), seq.hidden.end(), ref.begin(), ref.end()));

    for (int32_t t = 0; t < static_cast<int32_t>(seq.tokens.size()); ++t) {
      const std::vector<int32_t> got(seq.continuation.begin() + t * kC, seq.continuation.begin() + (t + 1) * kC);
      if (!seq.trained[static_cast<size_t>(t)]) {
        REQUIRE(got == std::vector<int32_t>(kC, -1));
        continue;
      }
      INFO("position " << t);
      REQUIRE(got == expected_continuation(*model, seq.tokens, t));
    }
  }
}

TEST_CASE("continuation tree: on the target's own greedy reply the tree agrees with the text", "[distill]") {
  TinyTarget target("continuation_greedy");
  const auto& model = target.model;
  Transformer& tf = *target.tf;
  DistillSequence seq;
  seq.tokens = model->tokenizer().encode("once upon a time", true, false);
  const size_t n_prompt = seq.tokens.size();
  const std::vector<int32_t> reply = greedy_reference(*model, seq.tokens, 24);
  seq.tokens.insert(seq.tokens.end(), reply.begin(), reply.end());
  seq.trained.assign(seq.tokens.size(), 0);
  for (size_t t = n_prompt - 1; t + 1 < seq.tokens.size(); ++t) seq.trained[t] = 1;

  ContinuationTree tree(*model, tf, kC);
  DistillSequence from_text = seq, from_tree = seq;
  tree.run(from_text, false);
  tree.run(from_tree, true);
  REQUIRE(from_text.hidden == from_tree.hidden);
  int64_t compared = 0;
  for (size_t i = 0; i < from_text.continuation.size(); ++i) {
    if (from_text.continuation[i] < 0) continue;  // past the reply's end: the text does not say
    REQUIRE(from_text.continuation[i] == from_tree.continuation[i]);
    ++compared;
  }
  REQUIRE(compared > 60);
}

TEST_CASE("distill: checksummed shards, resume after an interruption, refuse other options", "[distill]") {
  TinyTarget target("distill_run");
  const TempDir& dir = target.dir;
  const auto& model = target.model;
  write_lines(dir / "prompts.jsonl", {R"({"prompt": "the cat and the dog", "split": "train"})", R"({"prompt": "a held-out prompt", "split": "heldout"})",
                                      R"({"prompt": "once upon a time", "split": "train"})", R"({"prompt": "in the end, the answer is"})"});
  write_lines(dir / "texts.jsonl", {R"({"prompt": "what is it?", "response": "it is the cat and the dog, once upon a time."})"});
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.prompts_path = dir / "prompts.jsonl";
  o.texts_path = dir / "texts.jsonl";
  o.out_dir = dir / "out";
  o.max_new_tokens = 12;
  o.draft_steps = static_cast<int>(kC) - 1;
  o.sampled_every = 2;  // prompts 0 and 2 of the split also get sampled replies
  o.shard_items = 2;
  o.batch_size = 2;
  o.threads = 2;
  const auto quiet = [](const std::string&) {};

  const DistillSummary first = run_distill(o, quiet);
  REQUIRE(first.items == 6);  // 3 greedy + 2 sampled + 1 text
  REQUIRE(first.shards_written == 3);
  DistillData data(o.out_dir, true);
  REQUIRE(data.continuation_length() == kC);
  const nlohmann::json done = data.manifest();
  int64_t tokens = 0;
  std::vector<int> kinds(3, 0);
  for (const std::string& path : data.shard_paths()) {
    DistillShard shard(path, data.n_embd(), kC);
    tokens += shard.n_tokens();
    for (uint8_t k : shard.kind()) ++kinds[k];
    for (int64_t s = 0; s < shard.n_sequences(); ++s) {
      // Hidden states (recorded while generating, or from the tree) are a prefill's, in F16;
      // a greedy reply's last position was never run and is not trained.
      const int64_t b = shard.offsets()[s], L = shard.offsets()[s + 1] - b;
      const std::vector<int32_t> seq_tokens(shard.tokens().begin() + b, shard.tokens().begin() + b + L);
      const std::vector<float> ref = target_hidden_states(*model, seq_tokens);
      const bool generated = shard.kind()[static_cast<size_t>(s)] == static_cast<uint8_t>(SequenceKind::greedy_response);
      const int64_t E = data.n_embd();
      for (int64_t i = 0; i < (L - (generated ? 1 : 0)) * E; ++i)
        REQUIRE(shard.hidden_f16()[static_cast<size_t>(b * E + i)] == f16_bits(ref[static_cast<size_t>(i)]));
      if (generated) REQUIRE(shard.trained()[static_cast<size_t>(b + L - 2)] == 0);
      // Greedy replies: the continuation is the text itself.
      if (shard.kind()[static_cast<size_t>(s)] != static_cast<uint8_t>(SequenceKind::greedy_response)) continue;
      for (int64_t t = shard.offsets()[s]; t + 1 < shard.offsets()[s + 1]; ++t)
        if (shard.trained()[static_cast<size_t>(t)]) REQUIRE(shard.continuation()[static_cast<size_t>(t * kC)] == shard.tokens()[static_cast<size_t>(t + 1)]);
    }
  }
  REQUIRE(tokens == done["totals"]["tokens"].get<int64_t>());
  REQUIRE(kinds == std::vector<int>{3, 2, 1});

  // Interrupted before the last shard: the manifest lists two shards, a temporary file lies around.
  nlohmann::json cut = done;
  cut["shards"].erase(2);
  cut["complete"] = false;
  cut.erase("totals");
  std::filesystem::remove(dir / "out/shard-00002.safetensors");
  write_lines(dir / "out/manifest.json", {cut.dump()});
  write_lines(dir / "out/shard-00002.safetensors.tmp", {"partial"});
  REQUIRE_THROWS_WITH(DistillData(o.out_dir, true), Catch::Contains("has not finished"));
  o.batch_size = 3;  // batching does not change the data
  const DistillSummary resumed = run_distill(o, quiet);
  REQUIRE(resumed.shards_skipped == 2);
  REQUIRE(resumed.shards_written == 1);
  auto checksums = [](const nlohmann::json& manifest) {
    std::vector<std::string> out;
    for (const auto& s : manifest["shards"]) out.push_back(s["file"].get<std::string>() + " " + s["sha256"].get<std::string>());
    return out;
  };
  REQUIRE(checksums(DistillData(o.out_dir, true).manifest()) == checksums(done));  // sampled replies included

  // A rerun with nothing left to do, by another command line, leaves the manifest's bytes
  // alone (training fingerprints them).
  const auto manifest_bytes = [&] {
    std::ifstream f(dir / "out/manifest.json", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string before = manifest_bytes();
  o.command_line = "another/path/draftbench distill";
  const DistillSummary rerun = run_distill(o, quiet);
  REQUIRE((rerun.shards_written == 0 && rerun.shards_skipped == 3 && rerun.tokens == done["totals"]["tokens"].get<int64_t>()));
  REQUIRE(manifest_bytes() == before);

  // A corrupt shard is named; other options are refused.
  {
    std::fstream f(dir / "out/shard-00001.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x7f');
  }
  REQUIRE_THROWS_WITH(DistillData(o.out_dir, true), Catch::Contains("shard-00001.safetensors") && Catch::Contains("sha256"));
  o.max_new_tokens = 13;
  REQUIRE_THROWS_WITH(run_distill(o, quiet), Catch::Contains("other options"));
}

TEST_CASE("distill: without texts, --max-prompts may grow or shrink on resume (items are a prefix)", "[distill]") {
  TinyTarget target("distill_extend");
  const TempDir& dir = target.dir;
  write_lines(dir / "prompts.jsonl",
              {R"({"prompt": "the cat"})", R"({"prompt": "the dog"})", R"({"prompt": "once upon"})", R"({"prompt": "a time"})", R"({"prompt": "in the end"})"});
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.prompts_path = dir / "prompts.jsonl";
  o.max_new_tokens = 6;
  o.sampled_every = 0;
  o.shard_items = 2;
  const auto quiet = [](const std::string&) {};
  o.out_dir = dir / "whole";
  run_distill(o, quiet);
  o.out_dir = dir / "grown";
  o.max_prompts = 2;
  REQUIRE(run_distill(o, quiet).shards_written == 1);
  o.max_prompts = 0;
  const DistillSummary grown = run_distill(o, quiet);
  REQUIRE(grown.shards_skipped == 1);
  REQUIRE(grown.shards_written == 2);
  for (const char* shard : {"shard-00000.safetensors", "shard-00001.safetensors", "shard-00002.safetensors"})
    REQUIRE(sha256_file(dir / (std::string("whole/") + shard)) == sha256_file(dir / (std::string("grown/") + shard)));
  o.max_prompts = 1;  // fewer items than the finished shards hold
  REQUIRE_THROWS_WITH(run_distill(o, quiet), Catch::Contains("more than the 1"));
}

TEST_CASE("distill: malformed corpus lines are named", "[distill]") {
  TinyTarget target("distill_bad");
  const TempDir& dir = target.dir;
  write_lines(dir / "prompts.jsonl", {R"({"prompt": "fine"})", R"({"prompt": 3})"});
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.prompts_path = dir / "prompts.jsonl";
  o.out_dir = dir / "out";
  REQUIRE_THROWS_WITH(run_distill(o, [](const std::string&) {}), Catch::Contains("prompts.jsonl:2") && Catch::Contains("'prompt'"));
}

TEST_CASE("distill: sampled replies labelled by their own tokens, without greedy ones", "[distill]") {
  TinyTarget target("distill_sampled_text");
  const TempDir& dir = target.dir;
  const auto& model = target.model;
  write_lines(dir / "prompts.jsonl", {R"({"prompt": "the cat"})", R"({"prompt": "once upon a time"})", R"({"prompt": "in the end"})"});
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.prompts_path = dir / "prompts.jsonl";
  o.max_new_tokens = 10;
  o.draft_steps = static_cast<int>(kC) - 1;
  o.sampled_every = 1;
  o.shard_items = 4;
  const auto quiet = [](const std::string&) {};
  o.out_dir = dir / "tree";
  run_distill(o, quiet);
  o.out_dir = dir / "text";
  o.greedy_replies = false;
  o.sampled_continuations = false;
  REQUIRE(run_distill(o, quiet).items == 3);

  // The same sampled replies (request ids count sampled items only), now labelled by themselves.
  auto sampled = [](const std::string& out) {
    DistillData data(out, true);
    std::vector<std::vector<int32_t>> replies;
    for (const std::string& path : data.shard_paths()) {
      DistillShard shard(path, data.n_embd(), kC);
      for (int64_t s = 0; s < shard.n_sequences(); ++s)
        if (shard.kind()[static_cast<size_t>(s)] == static_cast<uint8_t>(SequenceKind::sampled_response))
          replies.emplace_back(shard.tokens().begin() + shard.offsets()[s], shard.tokens().begin() + shard.offsets()[s + 1]);
    }
    return replies;
  };
  REQUIRE(sampled(dir / "tree") == sampled(dir / "text"));
  DistillData data(dir / "text", true);
  REQUIRE(data.manifest()["settings"]["sampled_continuations"] == false);
  DistillShard shard(data.shard_paths().at(0), data.n_embd(), kC);
  REQUIRE(shard.n_sequences() == 3);
  const int64_t E = data.n_embd();
  for (int64_t s = 0; s < shard.n_sequences(); ++s) {
    const int64_t b = shard.offsets()[s], L = shard.offsets()[s + 1] - b;
    const std::vector<float> ref = target_hidden_states(*model, std::vector<int32_t>(shard.tokens().begin() + b, shard.tokens().begin() + b + L));
    for (int64_t i = 0; i < (L - 1) * E; ++i) REQUIRE(shard.hidden_f16()[static_cast<size_t>(b * E + i)] == f16_bits(ref[static_cast<size_t>(i)]));
    REQUIRE(shard.trained()[static_cast<size_t>(b + L - 2)] == 0);
    for (int64_t t = b; t + 1 < b + L; ++t)
      if (shard.trained()[static_cast<size_t>(t)]) REQUIRE(shard.continuation()[static_cast<size_t>(t * kC)] == shard.tokens()[static_cast<size_t>(t + 1)]);
  }
}

TEST_CASE("distill: second turns follow the target's own first reply, only the second reply is trained", "[distill]") {
  TinyTarget target("distill_second_turns");
  const TempDir& dir = target.dir;
  const auto& model = target.model;
  write_lines(dir / "prompts.jsonl", {R"({"id": "a", "prompt": "the cat"})", R"({"id": "b", "prompt": "once upon a time"})",
                                      R"({"id": "c", "prompt": "in the end", "split": "heldout"})"});
  write_lines(dir / "followups.jsonl", {R"({"id": "b", "followup": "and the dog?"})", R"({"id": "a", "followup": "say it again"})"});
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.prompts_path = dir / "prompts.jsonl";
  o.max_new_tokens = 8;
  o.draft_steps = static_cast<int>(kC) - 1;
  o.sampled_every = 0;
  o.out_dir = dir / "first";
  run_distill(o, [](const std::string&) {});
  o.followups_path = dir / "followups.jsonl";
  o.first_turns_dir = dir / "first";
  o.out_dir = dir / "second";
  REQUIRE(run_distill(o, [](const std::string&) {}).items == 2);

  DistillData first(dir / "first", true), second(dir / "second", true);
  DistillShard one(first.shard_paths().at(0), first.n_embd(), kC), two(second.shard_paths().at(0), second.n_embd(), kC);
  REQUIRE(two.n_sequences() == 2);
  const std::vector<std::string> prompts{"the cat", "once upon a time"}, followups{"say it again", "and the dog?"};
  for (int64_t s = 0; s < 2; ++s) {
    INFO("sequence " << s);
    REQUIRE(two.kind()[static_cast<size_t>(s)] == static_cast<uint8_t>(SequenceKind::second_turn));
    REQUIRE(two.record()[static_cast<size_t>(s)] == one.record()[static_cast<size_t>(s)]);
    // The first reply, as text, then the follow-up: the prompt the second reply continues.
    int64_t t = one.offsets()[s];
    while (!one.trained()[static_cast<size_t>(t)]) ++t;
    std::vector<int32_t> reply1(one.tokens().begin() + t + 1, one.tokens().begin() + one.offsets()[s + 1]);
    while (!reply1.empty() && model->tokenizer().is_stop(reply1.back())) reply1.pop_back();
    const std::vector<ChatMessage> chat{{"user", prompts[static_cast<size_t>(s)]},
                                        {"assistant", replace_invalid_utf8(model->tokenizer().decode(reply1))},
                                        {"user", followups[static_cast<size_t>(s)]}};
    const std::vector<int32_t> prompt = encode_chat(model->tokenizer(), model->chat_template(), chat, true);
    const int64_t b = two.offsets()[s], L = two.offsets()[s + 1] - b;
    const std::vector<int32_t> got(two.tokens().begin() + b, two.tokens().begin() + b + L);
    REQUIRE(std::equal(prompt.begin(), prompt.end(), got.begin()));
    std::vector<int32_t> reply2 = greedy_reference(*model, prompt, o.max_new_tokens);
    for (size_t j = 0; j < reply2.size(); ++j)
      if (model->tokenizer().is_stop(reply2[j])) reply2.resize(j + 1);
    REQUIRE(std::vector<int32_t>(got.begin() + static_cast<int64_t>(prompt.size()), got.end()) == reply2);
    for (int64_t i = 0; i < L; ++i) {
      const bool in_reply = i + 1 >= static_cast<int64_t>(prompt.size()) && i < L - 2;
      REQUIRE(two.trained()[static_cast<size_t>(b + i)] == (in_reply ? 1 : 0));
    }
  }

  // Misuse is named.
  o.first_turns_dir.clear();
  REQUIRE_THROWS_WITH(run_distill(o, [](const std::string&) {}), Catch::Contains("--first-turns"));
  o.first_turns_dir = dir / "first";
  write_lines(dir / "other.jsonl", {R"({"id": "a", "prompt": "the cat"})"});
  o.prompts_path = dir / "other.jsonl";
  o.out_dir = dir / "third";
  REQUIRE_THROWS_WITH(run_distill(o, [](const std::string&) {}), Catch::Contains("were not distilled from") && Catch::Contains("other.jsonl"));
  write_lines(dir / "followups.jsonl", {R"({"id": "b", "followup": ""})"});
  o.prompts_path = dir / "prompts.jsonl";
  REQUIRE_THROWS_WITH(run_distill(o, [](const std::string&) {}), Catch::Contains("followups.jsonl:1") && Catch::Contains("'followup'"));
}

namespace {

// The directory's manifest and shards, as bytes, by file name.
std::map<std::string, std::string> directory_bytes(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    files[entry.path().filename().string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return files;
}

}  // namespace

TEST_CASE("distill archive: every kind of sequence restores to the same bytes, and bad archives are named", "[distill]") {
  TinyTarget target("distill_archive");
  const TempDir& dir = target.dir;
  write_lines(dir / "prompts.jsonl", {R"({"id": "a", "prompt": "the cat and the dog"})", R"({"id": "b", "prompt": "once upon a time"})",
                                      R"({"id": "c", "prompt": "in the end, the answer is"})"});
  write_lines(dir / "texts.jsonl", {R"({"prompt": "what is it?", "response": "it is the cat and the dog, once upon a time."})"});
  write_lines(dir / "followups.jsonl", {R"({"id": "b", "followup": "and the dog?"})", R"({"id": "a", "followup": "say it again"})"});
  const auto quiet = [](const std::string&) {};
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.max_new_tokens = 10;
  o.draft_steps = static_cast<int>(kC) - 1;
  o.shard_items = 2;
  o.threads = 2;
  auto distill = [&](const std::string& name, auto&& configure) {
    DistillOptions d = o;
    d.out_dir = dir / name;
    configure(d);
    int64_t hook_calls = 0;  // the hook runs once per shard written, and once for the totals
    REQUIRE(run_distill(d, quiet, [&] { ++hook_calls; }).shards_written + 1 == hook_calls);
    hook_calls = 0;  // nothing left to do: never
    REQUIRE(run_distill(d, quiet, [&] { ++hook_calls; }).shards_written == 0);
    REQUIRE(hook_calls == 0);
    return d.out_dir;
  };
  // Greedy and sampled replies (continuation tree), texts (tree), sampled replies labelled
  // by themselves, second turns.
  const std::vector<std::string> dirs{
      distill("greedy", [&](DistillOptions& d) { d.prompts_path = dir / "prompts.jsonl", d.sampled_every = 2; }),
      distill("texts", [&](DistillOptions& d) { d.texts_path = dir / "texts.jsonl"; }),
      distill(
          "sampled",
          [&](DistillOptions& d) { d.prompts_path = dir / "prompts.jsonl", d.sampled_every = 1, d.greedy_replies = false, d.sampled_continuations = false; }),
      distill("second", [&](DistillOptions& d) {
        d.prompts_path = dir / "prompts.jsonl", d.sampled_every = 0, d.followups_path = dir / "followups.jsonl", d.first_turns_dir = dir / "greedy";
      })};
  for (const std::string& original : dirs) {
    INFO(original);
    const std::string archive = original + ".archive.jsonl", restored = original + ".restored";
    REQUIRE(write_distill_archive(original, archive) > 0);
    const RestoreSummary r = restore_distill_archive(archive, o.model_path, restored, 2, quiet);
    REQUIRE(r.shards_restored == static_cast<int64_t>(DistillData(original, true).shard_paths().size()));
    REQUIRE(r.shards_differing == 0);
    REQUIRE(directory_bytes(restored) == directory_bytes(original));
    // Rerun: every shard is already there.
    REQUIRE(restore_distill_archive(archive, o.model_path, restored, 2, quiet).shards_skipped == r.shards_restored);
  }
  // Never over another distillation.
  REQUIRE_THROWS_WITH(restore_distill_archive(dir / "greedy.archive.jsonl", o.model_path, dir / "texts", 2, quiet),
                      Catch::Contains("texts/manifest.json") && Catch::Contains("another distillation"));

  // A restored shard whose bytes differ (another machine's rounding) is kept under its own
  // checksum, and the manifest says so.
  const std::string archive = dir / "greedy.archive.jsonl";
  std::vector<std::string> lines;
  std::ifstream archive_in(archive);
  for (std::string line; std::getline(archive_in, line);) lines.push_back(line);
  auto write_archive = [&](const std::string& path, std::vector<std::string> edited) {
    write_lines(path, edited);
    return path;
  };
  nlohmann::json header = nlohmann::json::parse(lines[0]);
  nlohmann::json manifest = nlohmann::json::parse(header["manifest"].get<std::string>());
  manifest["shards"][0]["sha256"] = std::string(64, '0');
  header["manifest"] = manifest.dump(2) + "\n";
  std::vector<std::string> edited = lines;
  edited[0] = header.dump();
  const RestoreSummary differing = restore_distill_archive(write_archive(dir / "differing.jsonl", edited), o.model_path, dir / "differing", 2, quiet);
  REQUIRE(differing.shards_differing == 1);
  const DistillData data(dir / "differing", true);
  REQUIRE(data.manifest()["restored"]["shards_differing"] == 1);
  REQUIRE(data.manifest()["shards"][0]["sha256"] == sha256_file(dir / "greedy/shard-00000.safetensors"));
  // Second turns know their first turns by the replies: distilled from the original, they
  // resume from the differing restore (another manifest, the same replies).
  REQUIRE(distill_replies_sha256(dir / "differing") == distill_replies_sha256(dir / "greedy"));
  DistillOptions second = o;
  second.prompts_path = dir / "prompts.jsonl", second.sampled_every = 0, second.followups_path = dir / "followups.jsonl";
  second.first_turns_dir = dir / "differing", second.out_dir = dir / "second";
  const DistillSummary resumed = run_distill(second, quiet);
  REQUIRE((resumed.shards_written == 0 && resumed.shards_skipped > 0));

  // Malformed or mismatched archives: one line naming the file, line and field.
  auto fails = [&](const std::string& name, std::vector<std::string> bad, const std::string& message) {
    INFO(name);
    REQUIRE_THROWS_WITH(restore_distill_archive(write_archive(dir / name, std::move(bad)), o.model_path, dir / (name + ".out"), 2, quiet),
                        Catch::Contains(name) && Catch::Contains(message));
  };
  edited = lines;
  edited.pop_back();
  fails("truncated.jsonl", edited, "ends after");
  // `text` with `insert` written in after the first `after` (string concatenation: GCC 12's
  // -Wrestrict misfires on an inlined std::string::replace).
  auto inserted = [](const std::string& text, const std::string& after, const std::string& insert) {
    const size_t at = text.find(after) + after.size();
    return text.substr(0, at) + insert + text.substr(at);
  };
  edited = lines;
  edited[1] = inserted(lines[1], R"("tokens": [)", "99999999,");
  fails("token.jsonl", edited, "expected token ids in");
  edited = lines;
  edited[1] = inserted(lines[1], R"("trained": [[)", "-");
  fails("trained.jsonl", edited, "sequences[0].trained");
  edited = lines;
  edited[2] = lines[1];
  fails("order.jsonl", edited, "field 'file'");
  edited = lines;
  edited.push_back(lines[1]);
  fails("extra.jsonl", edited, "more shard lines");
  fails("notjson.jsonl", {"{"}, "expected one JSON object per line");
  header = nlohmann::json::parse(lines[0]);
  manifest = nlohmann::json::parse(header["manifest"].get<std::string>());
  manifest["target"]["sha256"] = std::string(64, 'f');
  header["manifest"] = manifest.dump();
  edited = lines;
  edited[0] = header.dump();
  fails("model.jsonl", edited, "another model file");
}

TEST_CASE("distill and restore: a deadline stops between shards, and a rerun ends with the same shards", "[distill]") {
  TinyTarget target("distill_deadline");
  const TempDir& dir = target.dir;
  write_lines(dir / "prompts.jsonl", {R"({"prompt": "the cat and the dog"})", R"({"prompt": "once upon a time"})", R"({"prompt": "in the end, the answer is"})",
                                      R"({"prompt": "a dog and a cat"})"});
  const auto quiet = [](const std::string&) {};
  DistillOptions o;
  o.model_path = dir / "tiny.gguf";
  o.prompts_path = dir / "prompts.jsonl";
  o.max_new_tokens = 10;
  o.draft_steps = static_cast<int>(kC) - 1;
  o.sampled_every = 0;
  o.shard_items = 1;
  o.threads = 2;
  DistillOptions whole = o;
  whole.out_dir = dir / "whole";
  REQUIRE(run_distill(whole, quiet).shards_written == 4);

  // A deadline already past: the first shard starts (nothing predicts its time), then the run
  // stops with an unfinished manifest. A second run has the recorded shard as its estimate and
  // begins nothing. Without a deadline it finishes, with the uninterrupted run's shards.
  o.out_dir = dir / "chunked";
  o.deadline = WallClock::now();
  const DistillSummary first = run_distill(o, quiet);
  REQUIRE((first.shards_written == 1 && first.items_left == 3 && first.items == 4));
  REQUIRE_THROWS_WITH(DistillData(o.out_dir, true), Catch::Contains("has not finished"));
  const DistillSummary idle = run_distill(o, quiet);
  REQUIRE((idle.shards_written == 0 && idle.items_left == 3));
  o.deadline.reset();
  const DistillSummary rest = run_distill(o, quiet);
  REQUIRE((rest.shards_written == 3 && rest.items_left == 0));
  auto checksums = [](const std::string& d) {
    std::vector<std::string> out;
    for (const auto& s : DistillData(d, true).manifest()["shards"]) out.push_back(s["sha256"].get<std::string>());
    return out;
  };
  REQUIRE(checksums(o.out_dir) == checksums(whole.out_dir));

  // A restore under a past deadline writes one shard and no manifest; the rerun finishes it,
  // byte for byte.
  const std::string archive = dir / "whole.archive.jsonl", restored = dir / "restored";
  write_distill_archive(whole.out_dir, archive);
  const RestoreSummary cut = restore_distill_archive(archive, o.model_path, restored, 2, quiet, WallClock::now());
  REQUIRE((cut.shards_restored == 1 && cut.shards_left == 3));
  REQUIRE_FALSE(std::filesystem::exists(std::filesystem::path(restored) / kDistillManifest));
  const RestoreSummary finished = restore_distill_archive(archive, o.model_path, restored, 2, quiet);
  REQUIRE((finished.shards_skipped == 1 && finished.shards_restored == 3 && finished.shards_left == 0));
  REQUIRE(directory_bytes(restored) == directory_bytes(whole.out_dir));
}
