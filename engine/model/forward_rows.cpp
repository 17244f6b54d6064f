#include "engine/model/forward_rows.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "kernels/ops/soft_cap.h"

namespace draftbench {

void list_forward_rows(const ForwardBatch& batch, const KvCache& cache, const ModelConfig& c, std::vector<ForwardRow>& rows) {
  rows.clear();
  for (const SequenceInput& s : batch.sequences) {
    DB_CHECK(s.seq >= 0 && s.seq < cache.n_sequences());
    DB_CHECK(s.tree.size() == static_cast<int32_t>(s.tokens.size()));
    DB_CHECK(s.n_cached >= 0 && s.n_cached <= s.tree.size());
    const int64_t committed = cache.committed(s.seq);
    if (committed + s.tree.size() > cache.capacity())
      throw InputError("forward", fmt::format("sequence {}", s.seq),
                       fmt::format("{} committed + {} new tokens exceed the context capacity {}", committed, s.tree.size(), cache.capacity()));
    for (int32_t i = s.n_cached; i < s.tree.size(); ++i) {
      if (s.tokens[i] < 0 || s.tokens[i] >= c.n_vocab)
        throw InputError("forward", fmt::format("sequence {} token {}", s.seq, i), fmt::format("id {} outside the vocabulary [0, {})", s.tokens[i], c.n_vocab));
      rows.push_back(ForwardRow{s.seq, i, committed + s.tree.depth[i], &s});
    }
  }
}

void wanted_rows(const ForwardBatch& batch, std::vector<int32_t> SequenceInput::*member, std::vector<int64_t>& out) {
  out.clear();
  int64_t base = 0;
  for (const SequenceInput& s : batch.sequences) {
    for (int32_t node : s.*member) {
      DB_CHECK(node >= s.n_cached && node < s.tree.size());  // cached nodes did not run
      out.push_back(base + node - s.n_cached);
    }
    base += s.tree.size() - s.n_cached;
  }
}

void soft_cap_logits(const ModelConfig& c, float* logits, int64_t n) { soft_cap(logits, n, c.final_logit_softcap); }

}  // namespace draftbench
