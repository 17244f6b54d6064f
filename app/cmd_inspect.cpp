// draftbench inspect: what a model file holds (architecture, sizes, tensor types,
// tokenizer facts); optionally dequantises every tensor for external checking.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/common/printable.h"
#include "engine/model/model.h"
#include "engine/model/model_aliases.h"
#include "kernels/quant/dequantize.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench::cli {

namespace {
struct InspectArgs {
  std::string path, model = default_model_path();
  std::string dequantize_all;
  bool cost = false;
  int threads = 0;
  ForwardDevice device = ForwardDevice::kCpu;
};

// The cached cost model for the model, this CPU, the thread count and the device.
void print_cached_cost(const InspectArgs& a, const Model& model) {
  ThreadPool pool(a.threads > 0 ? a.threads : ThreadPool::default_threads());
  const auto target = make_forward_pass(a.device, model.config(), model.weights(), pool);
  const CostKey key = cost_key(*target, a.path, pool.size());
  std::string why_not;
  const auto cost = load_cost_model(cost_cache_dir(), key, why_not);
  fmt::print("cost model ({} threads, {}): ", key.threads, key.device);
  if (!cost) {
    fmt::print("{}; `draftbench calibrate` measures one\n", why_not);
    return;
  }
  fmt::print("{}\n", (std::filesystem::path(cost_cache_dir()) / key.file_name()).string());
  print_cost_model(*cost);
}

void dequantize_all(const GgufFile& f, const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::vector<float> row;
  for (const GgufTensor& t : f.tensors()) {
    std::ofstream out(std::filesystem::path(dir) / (t.name + ".f32"), std::ios::binary);
    row.resize(static_cast<size_t>(t.ne[0]));
    const size_t row_bytes = ggml_row_bytes(t.type, t.ne[0]);
    for (int64_t r = 0; r < t.rows(); ++r) {
      dequantize_row(t.type, t.data + static_cast<size_t>(r) * row_bytes, row.data(), t.ne[0]);
      out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size() * sizeof(float)));
    }
    if (!out) throw InputError(dir, t.name, "cannot write the dequantised tensor");
  }
}

// Tensor type census: type name -> (count, bytes); returns the parameter count.
int64_t count_tensors(const Model& model, std::map<std::string, std::pair<int, size_t>>& by_type) {
  int64_t params = 0;
  auto add = [&](std::string_view type, size_t bytes, int64_t elements) {
    auto& e = by_type[std::string(type)];
    ++e.first;
    e.second += bytes;
    params += elements;
  };
  if (const GgufFile* f = model.gguf())
    for (const GgufTensor& t : f->tensors()) add(ggml_type_name(t.type), t.n_bytes, t.n_elements());
  for (const SafetensorsFile& f : model.safetensors())
    for (const SafetensorsTensor& t : f.tensors()) add(t.dtype, t.n_bytes, t.n_elements());
  return params;
}

int run_inspect(const InspectArgs& a) {
  auto model = Model::load(a.path);
  const ModelConfig& c = model->config();
  if (const GgufFile* f = model->gguf()) {
    fmt::print("file: {} ({:.1f} MiB, GGUF v{}, alignment {})\n", a.path, f->file_size() / 1048576.0, f->version(), f->alignment());
    // Strings from the file are escaped and cut (engine/common/printable.h): a name may hold
    // terminal escapes, line breaks or megabytes.
    if (auto name = f->find_string("general.name")) fmt::print("name: {}\n", printable(*name, 200));
  } else {
    fmt::print("checkpoint: {} (Hugging Face directory, {} safetensors file(s))\n", a.path, model->safetensors().size());
  }
  fmt::print("architecture: {}\n", printable(c.arch_name));
  fmt::print("vocabulary: {}, embedding: {}, layers: {}, feed-forward: {}\n", c.n_vocab, c.n_embd, c.n_layers, c.n_ff);
  fmt::print("heads: {} query / {} key-value, head dim {}, context {}\n", c.n_heads, c.n_kv_heads, c.head_dim, c.context_length);
  int64_t n_local = 0;
  for (int64_t il = 0; il < c.n_layers; ++il) n_local += c.is_local_layer(il);
  fmt::print("attention: {} sliding-window layers (window {}), {} global; RoPE base {} global / {} local\n", n_local, c.sliding_window, c.n_layers - n_local,
             c.rope_base, c.rope_base_local);
  std::map<std::string, std::pair<int, size_t>> by_type;
  const int64_t params = count_tensors(*model, by_type);
  int n_tensors = 0;
  for (const auto& [type, e] : by_type) n_tensors += e.first;
  fmt::print("tensors: {} ({} parameters)\n", n_tensors, params);
  for (const auto& [type, e] : by_type) fmt::print("  {:5} {:4} tensors {:9.1f} MiB\n", type, e.first, e.second / 1048576.0);
  const Tokenizer& tok = model->tokenizer();
  fmt::print("tokenizer: {}, {} tokens, bos {}, eos {}, stop ids:", tok.kind(), tok.vocab_size(), tok.bos_id(), tok.eos_id());
  for (int32_t s : tok.stop_ids()) fmt::print(" {} ({})", s, printable(tok.token_to_piece(s, true), 40));
  fmt::print("\n");
  if (a.cost) print_cached_cost(a, *model);
  if (!a.dequantize_all.empty()) {
    if (!model->gguf()) throw InputError(a.path, "--dequantize-all", "applies to GGUF files only");
    dequantize_all(*model->gguf(), a.dequantize_all);
  }
  return 0;
}
}  // namespace

Run add_inspect(CLI::App& app) {
  auto a = std::make_shared<InspectArgs>();
  CLI::App* sub = app.add_subcommand("inspect", "Describe a model file");
  // The model as every command takes it (a path, an alias or a Hugging Face directory),
  // given as an argument or with --model; the default model when neither is.
  CLI::Option* path =
      sub->add_option("path", a->path, fmt::format("GGUF model file, Hugging Face checkpoint directory, or a model alias ({})", model_alias_names()))
          ->transform(model_alias_transform());
  add_model_option(*sub, a->model, "GGUF model file or Hugging Face checkpoint directory");
  path->excludes(sub->get_option("--model"));
  sub->add_option("--dequantize-all", a->dequantize_all, "Write every tensor dequantised to DIR/<name>.f32 (raw float32)");
  sub->add_flag("--cost", a->cost, "Show the cached cost model that automatic draft sizing uses (draftbench calibrate)");
  sub->add_option("--threads", a->threads, "With --cost: the thread count it was measured for (default: all cores)")->check(thread_count());
  add_device_option(*sub, a->device);
  return [sub, a]() -> int {
    if (!sub->parsed()) return -1;
    if (a->path.empty()) a->path = a->model;
    return run_inspect(*a);
  };
}

}  // namespace draftbench::cli
