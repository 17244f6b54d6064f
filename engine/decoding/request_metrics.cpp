#include "engine/decoding/request_metrics.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace draftbench {

RequestMetrics request_metrics(const SequenceResult& r) {
  RequestMetrics m;
  m.prompt_tokens = r.prompt_tokens;
  m.generated_tokens = static_cast<int64_t>(r.tokens.size());
  m.steps = static_cast<int64_t>(r.steps.size());
  m.tokens_per_step = r.tokens_per_step();
  m.tokens_per_second = r.tokens_per_second();
  m.time_to_first_token_s = r.prefill_seconds;
  m.total_s = r.total_seconds;
  if (r.prefill_seconds > 0) m.prefill_tokens_per_s = static_cast<double>(m.prompt_tokens) / r.prefill_seconds;
  if (m.generated_tokens > 1 && r.total_seconds > r.prefill_seconds)
    m.decode_tokens_per_s = static_cast<double>(m.generated_tokens - 1) / (r.total_seconds - r.prefill_seconds);
  double drafted = 0, verified = 0, beam = 0, step = 0;
  for (const StepRecord& s : r.steps) {
    drafted += s.drafted;
    verified += s.verified;
    beam += s.beam_tokens;
    m.draft_s += s.draft_seconds;
    m.verify_s += s.verify_seconds;
    m.accept_s += s.accept_seconds;
    step += s.step_seconds;
    if (static_cast<size_t>(s.accepted) >= m.accepted_histogram.size()) m.accepted_histogram.resize(static_cast<size_t>(s.accepted) + 1, 0);
    ++m.accepted_histogram[static_cast<size_t>(s.accepted)];
  }
  if (m.steps > 0) {
    const auto n = static_cast<double>(m.steps);
    m.mean_drafted = drafted / n;
    m.mean_verified = verified / n;
    m.mean_beam_tokens = beam / n;
    m.compression_ratio = beam / verified;
  }
  m.other_s = std::max(0.0, step - m.draft_s - m.verify_s - m.accept_s);
  return m;
}

nlohmann::json to_json(const RequestMetrics& m) {
  return nlohmann::json{{"prompt_tokens", m.prompt_tokens},
                        {"generated_tokens", m.generated_tokens},
                        {"steps", m.steps},
                        {"tokens_per_step", m.tokens_per_step},
                        {"tps", m.tokens_per_second},
                        {"time_to_first_token_s", m.time_to_first_token_s},
                        {"prefill_tokens_per_s", m.prefill_tokens_per_s},
                        {"decode_tokens_per_s", m.decode_tokens_per_s},
                        {"total_s", m.total_s},
                        {"mean_drafted", m.mean_drafted},
                        {"mean_verified", m.mean_verified},
                        {"mean_beam_tokens", m.mean_beam_tokens},
                        {"compression_ratio", m.compression_ratio},
                        {"accepted_histogram", m.accepted_histogram},
                        {"step_time_s", {{"draft", m.draft_s}, {"verify", m.verify_s}, {"accept", m.accept_s}, {"other", m.other_s}}}};
}

}  // namespace draftbench
