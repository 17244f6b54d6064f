#include "engine/train/torch/session_state.h"

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace draftbench {
namespace {

// Entries: u32 name length, name, i8 dtype (torch's ScalarType), u32 rank, i64 dims,
// u64 bytes, then the contiguous values. A session writes them in a fixed order; a load
// reads them by name.
void put(std::string& out, const void* data, size_t n) { out.append(static_cast<const char*>(data), n); }

void put_tensor(std::string& out, const std::string& name, const torch::Tensor& t) {
  const torch::Tensor c = t.detach().contiguous().cpu();
  const auto name_size = static_cast<uint32_t>(name.size());
  const auto dtype = static_cast<int8_t>(c.scalar_type());
  const auto rank = static_cast<uint32_t>(c.dim());
  const uint64_t bytes = c.nbytes();
  put(out, &name_size, sizeof(name_size));
  put(out, name.data(), name.size());
  put(out, &dtype, sizeof(dtype));
  put(out, &rank, sizeof(rank));
  for (int64_t d : c.sizes()) put(out, &d, sizeof(d));
  put(out, &bytes, sizeof(bytes));
  put(out, c.data_ptr(), bytes);
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  template <typename T>
  T get() {
    T v;
    take(&v, sizeof(T));
    return v;
  }
  void take(void* out, size_t n) {
    if (n > bytes_.size() - at_) throw std::runtime_error("session state truncated");
    std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }

 private:
  const std::string& bytes_;
  size_t at_ = 0;
};

std::map<std::string, torch::Tensor> read_entries(const std::string& bytes) {
  std::map<std::string, torch::Tensor> entries;
  Reader r(bytes);
  while (!r.done()) {
    std::string name(r.get<uint32_t>(), '\0');
    r.take(name.data(), name.size());
    const auto dtype = static_cast<torch::ScalarType>(r.get<int8_t>());
    std::vector<int64_t> shape(r.get<uint32_t>());
    for (int64_t& d : shape) d = r.get<int64_t>();
    torch::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
    if (r.get<uint64_t>() != t.nbytes()) throw std::runtime_error("entry '" + name + "': byte count does not match its shape");
    r.take(t.data_ptr(), t.nbytes());
    entries[name] = t;
  }
  return entries;
}

const torch::Tensor& entry(const std::map<std::string, torch::Tensor>& entries, const std::string& name, const torch::Tensor& like) {
  const auto it = entries.find(name);
  if (it == entries.end()) throw std::runtime_error("entry '" + name + "' missing");
  if (like.defined() && (it->second.sizes() != like.sizes() || it->second.scalar_type() != like.scalar_type()))
    throw std::runtime_error("entry '" + name + "' has another shape or type than the session's");
  return it->second;
}

std::string state_key(const torch::Tensor& parameter) { return c10::guts::to_string(parameter.unsafeGetTensorImpl()); }

}  // namespace

std::string save_session_state(torch::nn::Module& net, const torch::optim::AdamW& optimizer) {
  std::string out;
  for (const auto& p : net.named_parameters()) {
    put_tensor(out, "param/" + p.key(), p.value());
    const auto it = optimizer.state().find(state_key(p.value()));
    if (it == optimizer.state().end()) continue;  // before the first step
    const auto& s = static_cast<const torch::optim::AdamWParamState&>(*it->second);
    put_tensor(out, "adamw/" + p.key() + "/step", torch::tensor(s.step(), torch::kInt64));
    put_tensor(out, "adamw/" + p.key() + "/exp_avg", s.exp_avg());
    put_tensor(out, "adamw/" + p.key() + "/exp_avg_sq", s.exp_avg_sq());
    if (s.max_exp_avg_sq().defined()) put_tensor(out, "adamw/" + p.key() + "/max_exp_avg_sq", s.max_exp_avg_sq());
  }
  for (const auto& b : net.named_buffers()) put_tensor(out, "buffer/" + b.key(), b.value());
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  put_tensor(out, "cpu_generator", generator.get_state());
  return out;
}

void load_session_state(const std::string& bytes, torch::nn::Module& net, torch::optim::AdamW& optimizer) {
  const std::map<std::string, torch::Tensor> entries = read_entries(bytes);
  torch::NoGradGuard no_grad;
  optimizer.state().clear();
  for (const auto& p : net.named_parameters()) {
    torch::Tensor parameter = p.value();
    parameter.copy_(entry(entries, "param/" + p.key(), parameter));  // in place: the optimizer's keys stay valid
    const std::string prefix = "adamw/" + p.key() + "/";
    if (!entries.contains(prefix + "step")) continue;
    auto s = std::make_unique<torch::optim::AdamWParamState>();
    s->step(entry(entries, prefix + "step", {}).item<int64_t>());
    s->exp_avg(entry(entries, prefix + "exp_avg", parameter).clone());
    s->exp_avg_sq(entry(entries, prefix + "exp_avg_sq", parameter).clone());
    if (entries.contains(prefix + "max_exp_avg_sq")) s->max_exp_avg_sq(entry(entries, prefix + "max_exp_avg_sq", parameter).clone());
    optimizer.state()[state_key(parameter)] = std::move(s);
  }
  for (const auto& b : net.named_buffers()) {
    torch::Tensor buffer = b.value();
    buffer.copy_(entry(entries, "buffer/" + b.key(), buffer));
  }
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(entry(entries, "cpu_generator", {}));
}

}  // namespace draftbench
