// Hostile drafter directories (issue "Hostile and real-world input"): drafter.json with an
// unknown key, sizes out of range or disagreeing with the weights, and weights holding NaN
// or infinities. Each is a one-line InputError naming the file and the key, field or tensor:
// a size is blamed on the field, never on the tensors it decides to read.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_writer.h"
#include "kernels/runtime/thread_pool.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

namespace {

using namespace draftbench;
using Catch::Matchers::Contains;
using draftbench::test::TempDir;

struct Target {
  TempDir dir{"hostile_drafters"};
  std::unique_ptr<Model> model;
  ThreadPool pool{1};
  Target() {
    test::write_llama_gguf(test::make_tiny_llama(), dir / "tiny.gguf");
    model = Model::load(dir / "tiny.gguf");
  }
  // A fresh random drafter of `kind` in dir/name, its drafter.json passed through `edit`.
  std::string write(const std::string& kind, const std::string& name, const std::function<void(nlohmann::json&)>& edit = {}) {
    RandomDrafterSpec spec;
    spec.kind = kind;
    spec.num_layers = 2;
    const std::string d = dir / name;
    write_random_drafter(spec, *model, d);
    if (edit) {
      nlohmann::json config = read_json_file(d + "/drafter.json", "config");
      edit(config);
      write_file(d + "/drafter.json", config.dump());
    }
    return d;
  }
  std::string error(const std::string& kind, const std::string& weights) {
    DrafterOptions o;
    o.kind = kind;
    o.weights_dir = weights;
    try {
      make_drafter(o, *model, pool);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

// Overwrites element `index` of F32 tensor `name` in a safetensors file with `value`.
void poke_f32(const std::string& path, const std::string& name, size_t index, float value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  uint64_t header_len = 0;
  f.read(reinterpret_cast<char*>(&header_len), 8);
  std::string header(header_len, '\0');
  f.read(header.data(), static_cast<std::streamsize>(header_len));
  const auto begin = nlohmann::json::parse(header).at(name).at("data_offsets")[0].get<uint64_t>();
  f.seekp(static_cast<std::streamoff>(8 + header_len + begin + index * 4));
  f.write(reinterpret_cast<const char*>(&value), 4);
  REQUIRE(f.good());
}

}  // namespace

TEST_CASE("hostile: an unknown drafter.json key is an error naming the file and the key") {
  Target t;
  for (const char* kind : {"redrafter", "medusa", "eagle"}) {
    INFO(kind);
    REQUIRE(t.error(kind, t.write(kind, std::string(kind) + "_ok")).empty());
    const std::string m = t.error(kind, t.write(kind, std::string(kind) + "_typo", [](nlohmann::json& c) { c["num_draft_layer"] = 2; }));
    CHECK_THAT(m, Contains(std::string(kind) + "_typo/drafter.json: key 'num_draft_layer': unknown in a " + kind + " drafter.json"));
  }
  // Another kind's field is unknown too: it would be silently ignored.
  CHECK_THAT(t.error("medusa", t.write("medusa", "medusa_foreign", [](nlohmann::json& c) { c["exit_dim"] = 8; })), Contains("key 'exit_dim': unknown"));
}

TEST_CASE("hostile: drafter.json sizes out of range or disagreeing with the weights are blamed on the field") {
  Target t;
  auto redrafter = [&](const char* name, const char* key, nlohmann::json v) {
    return t.error("redrafter", t.write("redrafter", name, [&](nlohmann::json& c) { c[key] = v; }));
  };
  CHECK_THAT(redrafter("r_zero", "num_draft_layers", 0), Contains("drafter.json: field 'num_draft_layers': 0 does not match the weights, which hold 2"));
  CHECK_THAT(redrafter("r_three", "num_draft_layers", 3), Contains("field 'num_draft_layers': 3 does not match the weights, which hold 2"));
  CHECK_THAT(redrafter("r_neg", "num_draft_layers", -1), Contains("field 'num_draft_layers': -1 is out of range (expected 0 to 64)"));
  CHECK_THAT(redrafter("r_huge", "num_draft_layers", int64_t{1} << 40), Contains("field 'num_draft_layers'") && Contains("out of range"));
  CHECK_THAT(redrafter("r_exit", "exit_dim", int64_t{1} << 40), Contains("field 'exit_dim'") && Contains("out of range"));
  CHECK_THAT(redrafter("r_exit0", "exit_dim", 0), Contains("field 'exit_dim': 0 is out of range"));
  CHECK_THAT(redrafter("r_exit_wrong", "exit_dim", 32), Contains("field 'exit_dim': 32 does not match the weights"));

  auto medusa = [&](const char* name, const char* key, nlohmann::json v) {
    return t.error("medusa", t.write("medusa", name, [&](nlohmann::json& c) { c[key] = v; }));
  };
  CHECK_THAT(medusa("m_layers0", "num_layers", 0), Contains("field 'num_layers': 0 does not match the weights, whose head 0 holds 2"));
  CHECK_THAT(medusa("m_heads", "num_heads", 9), Contains("field 'num_heads': 9 does not match the weights, which hold 4 heads"));
  CHECK_THAT(medusa("m_heads0", "num_heads", 0), Contains("field 'num_heads': 0 is out of range (expected 1 to 64)"));

  auto eagle = [&](const char* name, const char* key, nlohmann::json v) {
    return t.error("eagle", t.write("eagle", name, [&](nlohmann::json& c) { c[key] = v; }));
  };
  CHECK_THAT(eagle("e_ff", "n_ff", 100), Contains("field 'n_ff': 100 does not match the weights"));
  CHECK_THAT(eagle("e_heads", "n_heads", 2), Contains("fields 'n_heads', 'head_dim'") && Contains("do not match the weights"));
  CHECK_THAT(eagle("e_heads0", "n_heads", 0), Contains("field 'n_heads': 0 is out of range"));
}

TEST_CASE("hostile: NaN or infinite drafter weights are refused, naming the file and the tensor") {
  Target t;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* kind;
    const char* tensor;
    float value;
    const char* what;
  };
  for (const Case& c : {Case{"redrafter", "rnn_u.bias", nan, "NaN"}, Case{"redrafter", "lm_head.1.linear.weight", -inf, "infinite"},
                        Case{"medusa", "3.1.linear.bias", inf, "infinite"}, Case{"eagle", "fc.weight", -nan, "NaN"}}) {
    INFO(c.kind << " " << c.tensor);
    const std::string d = t.write(c.kind, std::string(c.kind) + "_" + c.what + "_" + c.tensor);
    poke_f32(d + "/model.safetensors", c.tensor, 7, c.value);
    CHECK_THAT(t.error(c.kind, d), Contains("model.safetensors: tensor '" + std::string(c.tensor) + "': element 7 is " + c.what));
  }
}
