// top_k and top_mass (top_k.h): the full sort as the reference, a bounded heap as the fast form.
#include "kernels/sampling/top_k.h"

#include <algorithm>
#include <numeric>

namespace draftbench {
namespace {

struct Better {
  const float* w;
  bool operator()(int32_t a, int32_t b) const { return w[a] > w[b] || (w[a] == w[b] && a < b); }
};

}  // namespace

bool keep_mass_prefix(const float* w, double mass, std::vector<int32_t>& ids) {
  double kept = 0.0;
  for (size_t m = 0; m < ids.size(); ++m) {
    kept += w[ids[m]];
    if (kept >= mass) {
      ids.resize(m + 1);
      return true;
    }
  }
  return false;
}

void top_k_ref(const float* w, int64_t n, int64_t k, std::vector<int32_t>& ids) {
  ids.resize(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(), Better{w});
  ids.resize(static_cast<size_t>(std::min(k, n)));
}

void top_k(const float* w, int64_t n, int64_t k, std::vector<int32_t>& ids) {
  k = std::min(k, n);
  ids.clear();
  if (k <= 0) return;
  const Better better{w};
  // A heap whose front is the worst id kept: an id enters only if it beats that one, which
  // for a vocabulary-sized n and small k is a compare and a branch per token.
  for (int32_t i = 0; i < n; ++i) {
    if (static_cast<int64_t>(ids.size()) < k) {
      ids.push_back(i);
      std::push_heap(ids.begin(), ids.end(), better);
    } else if (better(i, ids.front())) {
      std::pop_heap(ids.begin(), ids.end(), better);
      ids.back() = i;
      std::push_heap(ids.begin(), ids.end(), better);
    }
  }
  std::sort_heap(ids.begin(), ids.end(), better);  // ascending in `better`'s order: best first
}

void top_mass_ref(const float* w, int64_t n, double mass, std::vector<int32_t>& ids) {
  top_k_ref(w, n, n, ids);
  keep_mass_prefix(w, mass, ids);
}

void top_mass(const float* w, int64_t n, double mass, std::vector<int32_t>& ids) {
  // Nucleus sampling keeps few tokens unless the distribution is flat: start at 64 and
  // widen eightfold while the kept mass falls short.
  for (int64_t k = 64;; k *= 8) {
    top_k(w, n, k, ids);
    if (keep_mass_prefix(w, mass, ids) || k >= n) return;
  }
}

}  // namespace draftbench
