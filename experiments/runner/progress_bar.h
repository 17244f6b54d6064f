// Sweep progress on stderr: the point, the prompt within it, elapsed time and an ETA
// (estimated costs of the points left, scaled by how the finished ones compared with their
// estimates). On a terminal it redraws one line; otherwise it prints a line per point.
#pragma once

#include <chrono>
#include <string>

namespace draftbench {

class ProgressBar {
 public:
  ProgressBar(int n_points, double estimated_total_s);
  // A point starts; `estimated_s` is its share of the estimate.
  void begin_point(int index, const std::string& label, double estimated_s);
  void prompt(int64_t done, int64_t total);  // within the current point
  void end_point(const std::string& status);

 private:
  void draw(int64_t done, int64_t total);
  using Clock = std::chrono::steady_clock;
  bool tty_;
  int n_points_, index_ = 0;
  std::string label_;
  double estimated_left_s_, point_estimate_s_ = 0, finished_estimate_s_ = 0, finished_actual_s_ = 0;
  Clock::time_point start_, point_start_;
};

}  // namespace draftbench
