// The per-request figures of engine/DESIGN.md §8, computed one way for the CLI, the experiment
// runner and the tests: tokens/step, TPS, time to first token, tree sizes, compression
// ratio, accepted-length histogram and the step-time breakdown.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/decoding/decoder.h"

namespace draftbench {

struct RequestMetrics {
  int64_t prompt_tokens = 0, generated_tokens = 0, steps = 0;  // steps: verification calls (prefill excluded)
  double tokens_per_step = 0;                                  // generated / (steps + 1): the prefill chose the first token
  double tokens_per_second = 0;                                // generated / wall time, prefill included
  double time_to_first_token_s = 0, total_s = 0;
  // The two phases apart: prompt tokens / prefill time, and the tokens after the first /
  // the time after the prefill (0 where a phase has no tokens or no time).
  double prefill_tokens_per_s = 0, decode_tokens_per_s = 0;
  double mean_drafted = 0, mean_verified = 0, mean_beam_tokens = 0;
  double compression_ratio = 0;             // sum of beam tokens / sum of verified tokens (1 without beams)
  std::vector<int64_t> accepted_histogram;  // [k] = steps that accepted k draft tokens
  // Summed over steps. verify is the batch's shared forward; other = step wall time minus
  // draft, verify and accept (in a batch it includes the other sequences' draft and accept).
  double draft_s = 0, verify_s = 0, accept_s = 0, other_s = 0;
};

RequestMetrics request_metrics(const SequenceResult& result);
nlohmann::json to_json(const RequestMetrics& m);

}  // namespace draftbench
