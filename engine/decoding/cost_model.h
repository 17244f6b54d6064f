// What a decoding step costs on the machine it runs on, measured there: the target's
// forward over n tree tokens of one sequence, and one pass of the LM head over k rows
// (verification's argmaxes or logits). Draft sizing (tree_sizer.h) weighs expected
// accepted tokens against these costs, so a draft fits the hardware: on a 2-core CPU each
// extra verified token costs a sizeable share of a step, on a GPU almost nothing.
//
// Measured once per (model file, CPU, threads, device) and cached as JSON
// (cost_cache_dir()/cost-<key hash>.json); `draftbench calibrate` measures again and
// `draftbench inspect --cost` shows it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/model/forward_pass.h"

namespace draftbench {

// A drafter's propose time on this machine, fitted to measurements (draft_timing.h) from its
// own estimate (Drafter::draft_seconds: its large matrix products as shares of the target's
// measured costs) and its work (Drafter::draft_work: passes, tokens through its layers,
// output rows, each of which also costs a normalisation and a top-k search that the
// estimate leaves out). Every coefficient is >= 0; unfitted, the estimate stands as it is.
struct DraftTiming {
  double fixed_s = 0, per_estimate = 1, per_pass_s = 0, per_token_s = 0, per_row_s = 0;
  double seconds(double estimate_s, int32_t passes, int32_t tokens, int32_t rows) const {
    return fixed_s + per_estimate * estimate_s + per_pass_s * passes + per_token_s * tokens + per_row_s * rows;
  }
};

struct CostModel {
  // Changes when the costs change meaning or the kernels behind them change in kind (3: the
  // LM head in its row-interleaved layout; 4: EAGLE's layer requantised to Q8_0; 5: sizes
  // timed in interleaved rounds), so that a cache from an older build is measured again
  // rather than trusted.
  static constexpr int kVersion = 5;
  std::vector<int32_t> sizes;     // tree tokens and head rows measured, ascending, sizes[0] = 1
  std::vector<double> forward_s;  // one sequence's forward over sizes[i] tree tokens (hidden states only)
  std::vector<double> head_s;     // one pass of the LM head over sizes[i] rows
  int32_t context = 0;            // committed tokens under the measured trees
  double sample_s = 0;            // the target distribution of one row at temperature 1, and a draw
  // Per drafter identity (draft_timing.h), added as each drafter is first used.
  std::map<std::string, DraftTiming> drafters;

  // Seconds, interpolated linearly between measured sizes and extrapolated past the last.
  double forward(int32_t tokens) const;
  double head(int32_t rows) const;
  // A step that forwards `tokens` tree tokens and verifies with `head_rows` head rows.
  double step(int32_t tokens, int32_t head_rows) const { return forward(tokens) + head(head_rows); }
  // The same when sampling (temperature > 0): every row verification visits is also turned
  // into a distribution.
  double step(int32_t tokens, int32_t head_rows, bool sampling) const { return step(tokens, head_rows) + (sampling ? head_rows * sample_s : 0.0); }
  // A drafter's work in the target's terms: `rows` rows of an output layer that has `share`
  // of the LM head's rows, and `tokens` tokens through `share` of the target's layers.
  double head_share(int32_t rows, double share) const { return rows > 0 ? head(rows) * share : 0.0; }
  double forward_share(int32_t tokens, double share) const { return tokens > 0 ? forward(tokens) * share : 0.0; }
  // What one more row in a pass of the LM head costs against a pass of its own: the mean
  // row from one to eight rows over the one-row pass, within [0.01, 1].
  double head_row_in_passes() const;

  nlohmann::json to_json() const;
  // Throws InputError naming `where` for anything but a well-formed model.
  static CostModel from_json(const nlohmann::json& j, const std::string& where);
};

// Where the cost model was measured; a cached model serves only the same key. `build`
// identifies the program that measured it (its executable's SHA-256): another build may run
// other kernels or weight layouts at other speeds, so its costs are measured again.
struct CostKey {
  std::string model_sha256, cpu, device;
  int threads = 0;
  std::string build{};
  nlohmann::json to_json() const;
  std::string file_name() const;  // "cost-<first 16 hex of the key's SHA-256>.json"
};

// The key of `pass` running the model in `model_path` with `threads` threads on this CPU.
CostKey cost_key(ForwardPass& pass, const std::string& model_path, int threads);

// Times `pass` (median of repeats after a warm-up) at sizes 1..max_tokens (powers of two),
// on a cache of `context` random committed tokens. `progress` gets a line per size.
CostModel measure_cost_model(ForwardPass& pass, const ModelConfig& config, int32_t max_tokens = 64, int32_t context = 256,
                             const std::function<void(const std::string&)>& progress = {});

// A model's identity for the key: its file's SHA-256; for a checkpoint directory, its
// files' names and sizes.
std::string model_identity(const std::string& model_path);

// $DRAFTBENCH_CACHE, else $XDG_CACHE_HOME/draftbench, else $HOME/.cache/draftbench.
std::string cost_cache_dir();
// The cached model for `key`, or nullopt with the reason in `why_not` (absent, unreadable,
// malformed, another version or another key): a stale or corrupt file is never used.
std::optional<CostModel> load_cost_model(const std::string& dir, const CostKey& key, std::string& why_not);
// Writes atomically; throws InputError when the directory cannot be written.
void store_cost_model(const std::string& dir, const CostKey& key, const CostModel& model);

// The cost model of `pass` under `key` (cost_key): the cached one, else (or with `refresh`)
// a new measurement, cached; a new measurement drops the drafters' timings, which are
// measured again as each drafter is used. `note` gets one line each for why it measures and
// for each measured size.
std::shared_ptr<const CostModel> obtain_cost_model(ForwardPass& pass, const ModelConfig& config, const CostKey& key, bool refresh,
                                                   const std::function<void(const std::string&)>& note);

}  // namespace draftbench
