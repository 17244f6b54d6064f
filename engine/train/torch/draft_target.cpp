#include "engine/train/torch/draft_target.h"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/model/token_embedding.h"
#include "kernels/quant/dequantize.h"

namespace draftbench {

DraftTarget::DraftTarget(const Model& model, std::vector<int32_t> draft_vocab) : model_(model), draft_vocab_(std::move(draft_vocab)) {
  index_.assign(static_cast<size_t>(model_.config().n_vocab), -1);
  for (size_t i = 0; i < draft_vocab_.size(); ++i) {
    const int32_t id = draft_vocab_[i];
    DB_CHECK(id >= 0 && id < model_.config().n_vocab && index_[static_cast<size_t>(id)] < 0);
    index_[static_cast<size_t>(id)] = static_cast<int32_t>(i);
  }
}

TargetRows DraftTarget::rows() const {
  const WeightMatrix& out = model_.weights().output;
  const int64_t H = n_embd(), Vd = static_cast<int64_t>(draft_vocab_.size());
  DB_CHECK(out.n_in == H);
  TargetRows r{H, Vd, std::vector<float>(static_cast<size_t>(Vd * H)), model_.config().final_logit_softcap};
  for (int64_t i = 0; i < Vd; ++i)
    dequantize_row(out.type, out.data + static_cast<size_t>(draft_vocab_[static_cast<size_t>(i)]) * out.row_bytes(), r.rows.data() + i * H, H);
  return r;
}

EagleLayerSpec DraftTarget::eagle_layer() const {
  const ModelConfig& c = model_.config();
  DB_CHECK(c.qk_norm == c.post_norms);  // both Gemma-only, as eagle.cpp assumes
  EagleLayerSpec s;
  s.gemma = c.post_norms;
  s.n_heads = c.n_heads;
  s.n_kv_heads = c.n_kv_heads;
  s.head_dim = c.head_dim;
  s.n_ff = c.n_ff;
  s.rope_base = c.rope_base;  // written to drafter.json's rope_base: the target's global base (no sliding window)
  s.rms_eps = c.rms_eps;
  s.rope_neox = c.rope_style == RopeStyle::neox;
  return s;
}

void DraftTarget::embed(std::span<const int32_t> tokens, float* out) const {
  const int64_t H = n_embd();
  for (size_t i = 0; i < tokens.size(); ++i) {
    float* row = out + static_cast<int64_t>(i) * H;
    if (tokens[i] < 0) {
      std::fill_n(row, H, 0.0f);
      continue;
    }
    DB_CHECK(tokens[i] < model_.config().n_vocab);
    embed_tokens(model_.config(), model_.weights(), tokens.subspan(i, 1), row);
  }
}

void DraftTarget::to_backend(const PositionBatch& in, bool step_inputs, BackendBatch& out) const {
  const int64_t B = in.size, T = in.steps, H = n_embd();
  out.size = B;
  out.steps = T;
  out.hidden = in.hidden;
  out.targets.resize(static_cast<size_t>(B * T));
  for (size_t i = 0; i < out.targets.size(); ++i) out.targets[i] = draft_index(in.labels[i]);
  out.input_embeddings.clear();
  if (step_inputs) {
    std::vector<int32_t> tokens(static_cast<size_t>(B * T));
    for (int64_t r = 0; r < B; ++r)
      for (int64_t i = 0; i < T; ++i)
        tokens[static_cast<size_t>(r * T + i)] = i == 0 ? in.root[static_cast<size_t>(r)] : in.labels[static_cast<size_t>(r * T + i - 1)];
    out.input_embeddings.resize(static_cast<size_t>(B * T * H));
    embed(tokens, out.input_embeddings.data());
  }
  out.target_features.clear();
  out.trained.clear();
  out.lengths.clear();
}

void DraftTarget::to_backend(const SequenceBatch& in, BackendBatch& out) const {
  const int64_t n = in.pairs();
  out.size = n;
  out.steps = 1;
  out.hidden = in.features;
  out.input_embeddings.resize(static_cast<size_t>(n * n_embd()));
  embed(in.next_tokens, out.input_embeddings.data());
  out.target_features = in.target_features;
  out.trained = in.trained;
  out.lengths = in.lengths;
  out.targets.clear();
}

// --- the torch module -----------------------------------------------------------------------

namespace {

std::vector<std::string> module_candidates() {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  if (const char* env = std::getenv("DRAFTBENCH_TORCH_MODULE")) paths.push_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) paths.push_back((exe.parent_path() / "libdraftbench_torch.so").string());
#ifdef DRAFTBENCH_TORCH_MODULE_PATH
  paths.push_back(DRAFTBENCH_TORCH_MODULE_PATH);
#endif
  return paths;
}

struct LoadedModule {
  void* handle = nullptr;
  std::string path, error;
};

const LoadedModule& torch_module() {
  static const LoadedModule module = [] {
    LoadedModule m;
#if defined(__SANITIZE_ADDRESS__)
    m.error = "libtorch is not available in sanitizer builds (its module needs RTLD_DEEPBIND, which ASan rejects)";
#else
    m.error = "libdraftbench_torch.so not found (looked in $DRAFTBENCH_TORCH_MODULE, beside the executable and in the build tree)";
    for (const std::string& path : module_candidates()) {
      if (!std::filesystem::exists(path)) continue;
      // libgomp (torch's and OpenBLAS's threads) reads this once, when the module loads:
      // passive waiting costs little on big products and keeps a busy machine from
      // stalling every parallel region on a descheduled spinning thread.
      setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
      // DEEPBIND: torch and its libprotobuf bind to their own symbols, not to the protobuf
      // that libsentencepiece exports into the global scope (torch_backend.h).
      m.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      m.path = path;
      m.error = m.handle ? "" : fmt::format("cannot load {}: {}", path, dlerror());
      break;
    }
#endif
    return m;
  }();
  return module;
}

}  // namespace

bool torch_backend_available(std::string* why) {
  const LoadedModule& m = torch_module();
  if (!m.handle && why) *why = m.error;
  return m.handle != nullptr;
}

std::unique_ptr<TorchSession> open_torch_session(const SessionSpec& spec, const TargetRows& target) {
  const LoadedModule& m = torch_module();
  if (!m.handle) throw InputError("train", "libtorch", m.error);
  auto factory = reinterpret_cast<TorchSessionFactory>(dlsym(m.handle, kTorchSessionEntry));
  if (!factory) throw InputError(m.path, kTorchSessionEntry, "missing (a stale module? rebuild draftbench)");
  std::string error;
  TorchSession* session = factory(&spec, &target, &error);
  if (!session) throw InputError("train", "drafter", error);
  return std::unique_ptr<TorchSession>(session);
}

}  // namespace draftbench
