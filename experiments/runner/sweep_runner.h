// `draftbench run`: a spec's points, run one after another on one loaded model, each
// result appended to the output directory's results.jsonl as soon as it exists. A point
// over the memory budget is recorded as "oom", one past its time limit as "timeout", one
// that fails as "error" with the message; the sweep goes on. A killed sweep, run again
// with `resume`, skips what is recorded and loses nothing.
#pragma once

#include <string>
#include <vector>

#include "experiments/spec/experiment_spec.h"
#include "experiments/spec/sweep_grid.h"

namespace draftbench {

struct RunOptions {
  std::string checkout;                     // the checkout (git commit, reports/paper/paper_tables.json)
  std::string out_dir;                      // holds spec.json, results.jsonl (and the report written from them)
  bool resume = false;                      // required to continue into a directory that already has results
  bool retry_errors = false;                // with resume: run again the points recorded as "error"
  std::string only;                         // "axis=value,axis=value": run only matching points (and their baselines)
  int shard = 0, n_shards = 1;              // run points whose index % n_shards == shard
  bool dry_run = false;                     // print the points and an estimated time; run nothing
  uint64_t max_points = kDefaultMaxPoints;  // the largest grid planned before expansion (--max-points)
};

// The points a run covers after --only and --shard, in order. Throws InputError for a
// malformed filter or one that matches nothing.
std::vector<SweepPoint> select_points(const ExperimentSpec& spec, const RunOptions& options);

// A rough wall-time estimate for a point on this kind of machine (memory-bound decoding;
// a tree verification costs about 1 + 0.15 per tree token autoregressive steps here).
double estimate_seconds(const ExperimentSpec& spec, const SweepPoint& point, int64_t prompts, uint64_t model_bytes);

// Builds report.json from the output directory's results and renders its tables; returns
// the tables as Markdown (the first one, Table 1's layout when the sweep has that shape).
// The environment is described now; a merge passes its shards' ([{"dir", "environment"}],
// an environment null where a shard has no report.json): one they all share is the
// report's, otherwise the one described now lists them under "shards".
std::string write_sweep_report(const ExperimentSpec& spec, const RunOptions& options, const nlohmann::json& shard_environments = nlohmann::json::array());

// Joins the results of shard runs (`run --shard i/n --out DIR_i`, same spec) into
// options.out_dir and writes its report. Throws InputError naming a shard that ran another
// spec, or two shards that disagree on a point. The report's environment is the shards'
// (their report.json) when they all agree; otherwise it is described at merge time and
// lists each shard's own under "shards", so a merge never claims a commit or a checksum
// that no shard measured with.
void merge_shards(const ExperimentSpec& spec, const std::vector<std::string>& shard_dirs, const RunOptions& options);

// A Slurm job-array script running the spec's points as `n_shards` array tasks (each
// `run --shard i/n` into out_dir/shard-i), to be joined by `draftbench merge`.
std::string slurm_script(const ExperimentSpec& spec, const RunOptions& options, int n_shards, const std::string& draftbench_binary);

// Runs (or with dry_run, lists) the points, then writes the report. Returns the number of points that ended in
// "error" (the CLI exits non-zero when there are any).
int run_sweep(const ExperimentSpec& spec, const RunOptions& options);

}  // namespace draftbench
