#include "engine/decoding/prefill.h"

#include <algorithm>

#include "engine/common/error.h"

namespace draftbench {

void prefill(ForwardPass& target, KvCache& cache, std::span<const PrefillInput> inputs, PrefillOutput& out, int32_t chunk) {
  DB_CHECK(chunk >= 1);
  const size_t n = inputs.size();
  int64_t longest = 0, hidden_rows = 0;
  out.hidden_start.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    DB_CHECK(!inputs[i].tokens.empty() && cache.committed(inputs[i].seq) == 0);
    const auto len = static_cast<int64_t>(inputs[i].tokens.size());
    longest = std::max(longest, len);
    hidden_rows += inputs[i].all_hidden ? len : 1;
    out.hidden_start[i + 1] = hidden_rows;
  }
  ForwardBatch batch;
  ForwardResult result;
  std::vector<size_t> which;  // input index of each sequence in the current call
  for (int64_t begin = 0; begin < longest; begin += chunk) {
    batch.sequences.clear();
    which.clear();
    for (size_t i = 0; i < n; ++i) {
      const auto len = static_cast<int64_t>(inputs[i].tokens.size());
      if (begin >= len) continue;
      const auto count = static_cast<int32_t>(std::min<int64_t>(chunk, len - begin));
      const bool last = begin + count == len;
      SequenceInput in{inputs[i].seq, {inputs[i].tokens.begin() + begin, inputs[i].tokens.begin() + begin + count}, TokenTree::chain(count), {}, {}};
      if (last) in.logit_rows = {count - 1};
      if (inputs[i].all_hidden) {
        for (int32_t r = 0; r < count; ++r) in.hidden_rows.push_back(r);
      } else if (last) {
        in.hidden_rows = {count - 1};
      }
      batch.sequences.push_back(std::move(in));
      which.push_back(i);
    }
    target.forward(batch, cache, result);
    if (out.logits.empty()) {
      out.n_vocab = result.logit_width;
      out.n_embd = result.hidden_width;
      out.logits.assign(static_cast<size_t>(static_cast<int64_t>(n) * out.n_vocab), 0.0f);
      out.hidden.assign(static_cast<size_t>(hidden_rows * out.n_embd), 0.0f);
    }
    int64_t logit_row = 0, hidden_row = 0;
    for (size_t k = 0; k < which.size(); ++k) {
      const size_t i = which[k];
      const SequenceInput& in = batch.sequences[k];
      if (!in.logit_rows.empty()) {
        const auto l = result.logits_row(logit_row++);
        std::copy(l.begin(), l.end(), out.logits.begin() + static_cast<int64_t>(i) * out.n_vocab);
      }
      // Hidden rows land at their position (all_hidden) or as the one last row.
      const int64_t first_row = out.hidden_start[i] + (inputs[i].all_hidden ? begin : 0);
      for (size_t r = 0; r < in.hidden_rows.size(); ++r) {
        const auto h = result.hidden_row(hidden_row++);
        std::copy(h.begin(), h.end(), out.hidden.begin() + (first_row + static_cast<int64_t>(r)) * out.n_embd);
      }
      cache.commit_prefix(in.seq, in.tree.size());
    }
  }
}

}  // namespace draftbench
