// The drafter directory loader: native drafter.json header checks, reference config.json
// detection, the draft vocabulary's validation, and the one-line errors for each.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/model/safetensors_writer.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;
using Catch::Matchers::Contains;
using draftbench::test::TempDir;

namespace {

void write_dir(const std::string& dir, const std::string& config_name, const nlohmann::json& config, const std::vector<int32_t>& vocab = {},
               bool with_fc = false) {
  std::filesystem::create_directories(dir);
  SafetensorsWriter w;
  w.tensor_floats("rnn_u.bias", GgmlType::F32, {4}, {1, 2, 3, 4});
  if (with_fc) w.tensor_floats("fc.weight", GgmlType::F32, {1, 2}, {1, 2});
  if (!vocab.empty()) {
    std::vector<uint8_t> bytes(vocab.size() * 4);
    std::memcpy(bytes.data(), vocab.data(), bytes.size());
    w.tensor("draft_vocab", "I32", {static_cast<int64_t>(vocab.size())}, bytes);
  }
  w.write(dir + "/model.safetensors");
  write_file(dir + "/" + config_name, config.dump());
}

}  // namespace

TEST_CASE("drafter checkpoint: native and reference directories are told apart", "[drafter_checkpoint]") {
  TempDir dir("drafter_checkpoint_kinds");
  write_dir(dir / "native", "drafter.json", native_drafter_config("redrafter"));
  DrafterCheckpoint native(dir / "native");
  REQUIRE(native.native());
  REQUIRE(native.kind() == "redrafter");

  write_dir(dir / "medusa", "config.json", {{"medusa_num_heads", 2}, {"medusa_num_layers", 1}});
  REQUIRE(DrafterCheckpoint(dir / "medusa").kind() == "medusa");
  write_dir(dir / "redrafter", "config.json", {{"model_type", "recurrent_drafting_drafter"}});
  REQUIRE(DrafterCheckpoint(dir / "redrafter").kind() == "redrafter");
  write_dir(dir / "eagle", "config.json", {{"architectures", {"LlamaForCausalLM"}}}, {}, true);
  REQUIRE(DrafterCheckpoint(dir / "eagle").kind() == "eagle");
  write_dir(dir / "unknown", "config.json", {{"hidden_size", 8}});
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "unknown"), Contains("config.json") && Contains("cannot tell which drafter"));
}

TEST_CASE("drafter checkpoint: malformed headers and draft vocabularies are one-line errors", "[drafter_checkpoint]") {
  TempDir dir("drafter_checkpoint_errors");
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "absent"), Contains("not a directory"));
  std::filesystem::create_directories(dir / "empty");
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "empty"), Contains("neither drafter.json nor config.json"));

  nlohmann::json c = native_drafter_config("medusa");
  c["format"] = "something-else";
  write_dir(dir / "format", "drafter.json", c);
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "format"), Contains("field 'format'"));
  c = native_drafter_config("medusa");
  c["version"] = 99;
  write_dir(dir / "version", "drafter.json", c);
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "version"), Contains("field 'version'") && Contains("99 is not supported"));
  write_dir(dir / "kind", "drafter.json", native_drafter_config("lookahead"));
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "kind"), Contains("'lookahead' is not a drafter"));
  std::filesystem::create_directories(dir / "json");
  write_file(dir / "json/drafter.json", std::string("{\"format\": "));
  SafetensorsWriter().write(dir / "json/model.safetensors");
  REQUIRE_THROWS_WITH(DrafterCheckpoint(dir / "json"), Contains("drafter.json") && Contains("not valid JSON"));

  write_dir(dir / "vocab", "drafter.json", native_drafter_config("redrafter"), {5, 1, 9});
  DrafterCheckpoint ok(dir / "vocab");
  REQUIRE(ok.draft_vocab(10) == std::vector<int32_t>{5, 1, 9});
  write_dir(dir / "range", "drafter.json", native_drafter_config("redrafter"), {5, 10});
  DrafterCheckpoint range(dir / "range");
  REQUIRE_THROWS_WITH(range.draft_vocab(10), Contains("'draft_vocab' entry 1") && Contains("id 10 outside"));
  write_dir(dir / "repeat", "drafter.json", native_drafter_config("redrafter"), {3, 4, 3});
  DrafterCheckpoint repeat(dir / "repeat");
  REQUIRE_THROWS_WITH(repeat.draft_vocab(10), Contains("entry 2") && Contains("id 3 repeats"));

  // A tensor nobody bound is rejected, naming it.
  DrafterCheckpoint unused(dir / "vocab");
  unused.draft_vocab(10);
  REQUIRE_THROWS_WITH(unused.reject_unused(), Contains("rnn_u.bias") && Contains("unexpected in a redrafter checkpoint"));
}
