// Speculative decoding through the device forward pass (engine/model/device_transformer.h),
// run here through the emulated device kernels: at temperature 0 every drafter yields
// exactly the device pass's own autoregressive greedy tokens, on tiny Llamas the test
// writes with quantised (Q8_0: the block products) and float (F16: the pinned cuBLASLt
// path) weights. The device KV cache's commits, the lazily computed node logits and the
// batched root logits are what this exercises beyond the forward-pass tests.
#include <catch2/catch.hpp>

#include "engine/common/error.h"
#include "engine/decoding/decoder.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/forward_pass.h"
#include "engine/model/model.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/replay_drafter.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

constexpr int kNewTokens = 24;

struct DeviceCase {
  std::string label;
  std::unique_ptr<Model> model;
};

// The tiny Llama as llama.cpp would quantise it (Q8_0 GGUF) and as an F16 checkpoint.
std::vector<DeviceCase> tiny_models(const TempDir& dir) {
  const TinyLlama tiny = make_tiny_llama();
  std::vector<DeviceCase> out;
  write_llama_gguf(tiny, dir / "tiny_q8_0.gguf", GgmlType::Q8_0);
  out.push_back({"Q8_0 GGUF", Model::load(dir / "tiny_q8_0.gguf")});
  write_hf_checkpoint(rounded_to(tiny, GgmlType::F16), dir / "tiny_f16", HfWriteOptions{GgmlType::F16});
  out.push_back({"F16 checkpoint", Model::load(dir / "tiny_f16")});
  return out;
}

void require_tokens(const std::vector<SequenceResult>& results, const std::vector<std::vector<int32_t>>& truth, const std::string& label) {
  for (size_t i = 0; i < results.size(); ++i) {
    INFO(label << ", prompt " << i);
    REQUIRE(results[i].tokens == truth[i]);
  }
}

}  // namespace

TEST_CASE("device pass: greedy speculative decoding with every drafter is the device's autoregressive decoding", "[device][lossless]") {
  TempDir dir("device_decoding");
  ThreadPool pool(2);
  for (const DeviceCase& mc : tiny_models(dir)) {
    const Model& m = *mc.model;
    const auto target = make_forward_pass(ForwardDevice::kEmulated, m.config(), m.weights(), pool);
    REQUIRE(target->describe() == "emulated");
    const auto prompts = tiny_prompts(m);
    std::vector<std::vector<int32_t>> truth;
    std::vector<size_t> lengths;
    int same_as_cpu = 0;
    for (const auto& p : prompts) {
      truth.push_back(greedy_reference(m, *target, p, kNewTokens));
      lengths.push_back(p.size());
      same_as_cpu += truth.back() == greedy_reference(m, p, kNewTokens);
    }
    // Not required: the device attention sums in its own order, and a random model's logits
    // have near-ties. Printed so that a drift between the passes shows.
    WARN(mc.label << ": " << same_as_cpu << " of " << prompts.size() << " prompts decode to the CPU pass's tokens");
    DecodeOptions opt;
    opt.max_new_tokens = kNewTokens;
    opt.ignore_eos = true;

    // Right, wrong and partly right trees: acceptance at every depth and the device commits.
    for (uint64_t seed : {1u, 2u}) {
      CorruptedReplayDrafter replay(truth, lengths, seed, 3, static_cast<int32_t>(m.config().n_vocab - 1));
      Decoder decoder(m, *target, replay);
      const auto results = decoder.generate(prompts, opt);
      require_tokens(results, truth, mc.label + ", replay seed " + std::to_string(seed));
      size_t steps = 0;
      for (const SequenceResult& r : results) steps += r.steps.size();
      REQUIRE(steps < prompts.size() * kNewTokens * 8 / 10);  // drafts were accepted
    }

    // The real drafters, untrained (losslessness must not depend on their quality).
    for (const std::string kind : {"redrafter", "medusa", "eagle"}) {
      RandomDrafterSpec spec;
      spec.kind = kind;
      spec.seed = 21;
      write_random_drafter(spec, m, dir / (kind + mc.label.substr(0, 3)));
      DrafterOptions o;
      o.kind = kind;
      o.weights_dir = dir / (kind + mc.label.substr(0, 3));
      o.beam_width = 3;
      o.beam_length = 3;
      o.depth = 3;
      o.total_tokens = 12;
      for (bool tree_attention : {true, false}) {
        if (!tree_attention && kind != "redrafter") continue;
        o.tree_attention = tree_attention;
        auto drafter = make_drafter(o, m, pool);
        Decoder decoder(m, *target, *drafter);
        for (size_t batch : {size_t{1}, size_t{3}}) {
          const std::vector<std::vector<int32_t>> batch_prompts(prompts.begin(), prompts.begin() + static_cast<ptrdiff_t>(batch));
          require_tokens(decoder.generate(batch_prompts, opt), truth,
                         mc.label + ", " + kind + (tree_attention ? "" : " tree attention off") + ", batch " + std::to_string(batch));
        }
      }
    }
  }
}

TEST_CASE("forward devices: names, and CUDA refused in one line where there is none", "[device]") {
  for (ForwardDevice d : kForwardDevices) REQUIRE(forward_device_named(forward_device_name(d)) == d);
  REQUIRE_FALSE(forward_device_named("gpu"));
  REQUIRE_FALSE(forward_device_named(""));
  TempDir dir("device_refused");
  write_llama_gguf(make_tiny_llama(), dir / "tiny.gguf", GgmlType::F32);
  const auto m = Model::load(dir / "tiny.gguf");
  ThreadPool pool(1);
  std::unique_ptr<ForwardPass> pass;
  try {
    pass = make_forward_pass(ForwardDevice::kCuda, m->config(), m->weights(), pool);
  } catch (const std::runtime_error& e) {  // no GPU here, or a build without CUDA
    const std::string what = e.what();
    INFO(what);
    REQUIRE(what.find('\n') == std::string::npos);
    REQUIRE(what.find("CUDA") != std::string::npos);
    return;
  }
  REQUIRE(pass->describe().rfind("cuda: ", 0) == 0);  // a GPU machine: its name
}
