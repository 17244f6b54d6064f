// libdraftbench_torch.so's entry point: a TorchSession (torch_backend.h) around one drafter
// net, AdamW and gradient clipping. The engine side (trainer.cpp) owns the schedule, data
// and export.
#include <dlfcn.h>
#include <link.h>
#include <malloc.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "engine/train/torch/drafter_nets.h"
#include "engine/train/torch/session_state.h"

namespace draftbench {

torch::Tensor float_tensor(const std::vector<float>& values, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  TORCH_CHECK(static_cast<int64_t>(values.size()) == n, "tensor data of the wrong size");
  torch::Tensor t = torch::empty(shape, torch::kFloat32);
  if (n > 0) std::memcpy(t.data_ptr<float>(), values.data(), static_cast<size_t>(n) * sizeof(float));
  return t;
}

std::vector<float> values_of(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

NamedFloats named(const std::string& name, const torch::Tensor& t) {
  return NamedFloats{name, std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), values_of(t)};
}

DraftOutputLayer::DraftOutputLayer(const TargetRows& target, bool bf16)
    : rows_(float_tensor(target.rows, {target.n_draft_vocab, target.n_embd})), softcap_(target.final_logit_softcap) {
  if (bf16) rows_ = rows_.to(torch::kBFloat16);
}

torch::Tensor DraftOutputLayer::draft_logits(const torch::Tensor& x) const {
  // Both conversions are no-ops when the rows are f32.
  return torch::matmul(x.to(rows_.scalar_type()), rows_.t()).to(torch::kFloat32);
}

torch::Tensor DraftOutputLayer::target_logits(const torch::Tensor& hidden) const {
  torch::Tensor logits = draft_logits(hidden);
  if (softcap_ > 0.0f) logits = torch::tanh(logits / softcap_) * softcap_;  // as Transformer::soft_cap
  return logits;
}

namespace {

// The path of the loaded library whose file name starts with `prefix` ("" if none): a
// prefix of the name, not a part of the path, so "libblas" is not libcublasLt.
std::string loaded_library(const char* prefix) {
  struct Search {
    const char* prefix;
    std::string found;
  } search{prefix, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (!info->dlpi_name || !s->found.empty()) return 0;
        const char* slash = std::strrchr(info->dlpi_name, '/');
        const char* name = slash ? slash + 1 : info->dlpi_name;
        if (std::strncmp(name, s->prefix, std::strlen(s->prefix)) == 0) s->found = info->dlpi_name;
        return 0;
      },
      &search);
  return search.found;
}

// The network of each trainable kind (the registry's TrainingNet entries name them): one
// row per kind, the one place training code names kinds.
using Output = DraftOutputLayer;
std::shared_ptr<DrafterNet> make_net(const SessionSpec& spec, const Output& output) {
  using Factory = std::shared_ptr<DrafterNet> (*)(const SessionSpec&, const Output&);
  static constexpr std::pair<std::string_view, Factory> kNets[] = {
      {"redrafter", [](const SessionSpec& s, const Output& o) -> std::shared_ptr<DrafterNet> { return std::make_shared<RedrafterNet>(o, s.steps, s.layers); }},
      {"medusa", [](const SessionSpec& s, const Output& o) -> std::shared_ptr<DrafterNet> { return std::make_shared<MedusaNet>(o, s.steps, s.layers); }},
      {"eagle", [](const SessionSpec& s, const Output& o) -> std::shared_ptr<DrafterNet> { return std::make_shared<EagleNet>(o, s.eagle, s.eagle_noise); }},
  };
  for (const auto& [kind, factory] : kNets)
    if (spec.kind == kind) return factory(spec, output);
  throw std::invalid_argument("unknown drafter '" + spec.kind + "' (expected redrafter, medusa or eagle)");
}

class Session final : public TorchSession {
 public:
  Session(const SessionSpec& spec, const TargetRows& target) : spec_(spec), output_(target, spec.bf16_head) {
    // Every step allocates and frees the same few large tensors (logits: batch x steps x
    // draft vocabulary). glibc serves those with fresh mmaps, so each step paid page faults
    // and kernel zeroing on hundreds of MB (a large share of a small drafter's step time);
    // from the heap, freed blocks are reused. Process-wide, but this process is training.
    // The price is fragmentation: blocks of varying sizes grow that heap without bound (a
    // 9,500-step ReDrafter run over 2.5 M positions reached 24 GB of anonymous memory for
    // some 0.2 GB in use, slowed as the page cache shrank, and was killed by the OOM
    // killer), so train_step hands its free pages back every kReleaseEvery steps.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    torch::set_num_threads(spec.threads);
    // OpenBLAS keeps its own thread count; torch's GEMMs go through it when it is the BLAS.
    const std::string openblas = loaded_library("libopenblas");
    if (!openblas.empty())
      if (void* handle = dlopen(openblas.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
        if (auto set = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads"))) set(spec.threads);
        dlclose(handle);
      }
    torch::manual_seed(spec.seed);
    net_ = make_net(spec, output_);
    optimizer_ = std::make_unique<torch::optim::AdamW>(net_->parameters(),
                                                       torch::optim::AdamWOptions(1e-3).betas({spec.beta1, spec.beta2}).weight_decay(spec.weight_decay));
  }

  int64_t n_steps() const override { return net_->n_steps(); }

  BatchReport train_step(const BackendBatch& batch, double lr) override {
    if (++steps_taken_ % kReleaseEvery == 0) malloc_trim(0);  // the last step's tensors are all freed by now
    net_->train();
    for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    const auto t0 = std::chrono::steady_clock::now();
    optimizer_->zero_grad();
    NetOutcome outcome = net_->loss(batch, true);
    const auto t1 = std::chrono::steady_clock::now();
    outcome.loss.backward();
    const auto t2 = std::chrono::steady_clock::now();
    if (spec_.grad_clip > 0) {
      if (spec_.clip_by_value) torch::nn::utils::clip_grad_value_(net_->parameters(), spec_.grad_clip);
      else torch::nn::utils::clip_grad_norm_(net_->parameters(), spec_.grad_clip);
    }
    optimizer_->step();
    const auto t3 = std::chrono::steady_clock::now();
    BatchReport r = report(outcome);
    r.forward_seconds = std::chrono::duration<double>(t1 - t0).count();
    r.backward_seconds = std::chrono::duration<double>(t2 - t1).count();
    r.optimizer_seconds = std::chrono::duration<double>(t3 - t2).count();
    return r;
  }

  BatchReport evaluate(const BackendBatch& batch) override {
    net_->eval();
    torch::NoGradGuard no_grad;
    return report(net_->loss(batch, false));
  }

  ForwardOutput forward(const BackendBatch& batch) override {
    net_->eval();
    torch::NoGradGuard no_grad;
    return net_->forward_output(batch);
  }

  nlohmann::json config() const override { return net_->config(); }
  std::vector<NamedFloats> weights() const override { return net_->weights(); }

  void randomize(uint64_t seed) override {
    torch::manual_seed(seed);
    torch::NoGradGuard no_grad;
    for (auto& p : net_->named_parameters()) {
      torch::Tensor t = p.value();
      if (p.key().find("norm") != std::string::npos) t.copy_(1.0 + 0.1 * torch::randn_like(t));
      else if (t.dim() == 1) t.normal_(0.0, 0.1);
      else t.normal_(0.0, 1.0 / std::sqrt(static_cast<double>(t.size(1))));
    }
  }

  std::string blas_library() const override {
    std::string path;
    for (const char* prefix : {"libblas", "libopenblas", "libmkl_rt", "libblis"})
      if (path.empty()) path = loaded_library(prefix);
    char resolved[PATH_MAX];
    return !path.empty() && realpath(path.c_str(), resolved) ? std::string(resolved) : path;  // through Debian's alternatives links
  }

  std::string save_state() const override { return save_session_state(*net_, *optimizer_); }

  bool load_state(const std::string& bytes, std::string* error) override {
    try {
      load_session_state(bytes, *net_, *optimizer_);
      return true;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      *error = what.substr(0, what.find('\n'));  // torch appends a backtrace
      return false;
    }
  }

 private:
  static BatchReport report(const NetOutcome& o) { return BatchReport{o.loss.item<double>(), o.steps, o.extra_sums}; }

  SessionSpec spec_;
  static constexpr int64_t kReleaseEvery = 20;  // steps between malloc_trim calls (constructor)
  int64_t steps_taken_ = 0;
  DraftOutputLayer output_;
  std::shared_ptr<DrafterNet> net_;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
};

}  // namespace
}  // namespace draftbench

extern "C" __attribute__((visibility("default"))) draftbench::TorchSession* draftbench_torch_session_v2(const draftbench::SessionSpec* spec,
                                                                                                        const draftbench::TargetRows* target,
                                                                                                        std::string* error) {
  try {
    return new draftbench::Session(*spec, *target);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}
