#include "experiments/runner/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace draftbench {

namespace {
std::string clock_text(double seconds) {
  const auto s = static_cast<int64_t>(std::max(0.0, seconds));
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}
}  // namespace

ProgressBar::ProgressBar(int n_points, double estimated_total_s)
    : tty_(isatty(STDERR_FILENO) != 0), n_points_(n_points), estimated_left_s_(estimated_total_s), start_(Clock::now()) {}

void ProgressBar::begin_point(int index, const std::string& label, double estimated_s) {
  index_ = index;
  label_ = label;
  point_estimate_s_ = estimated_s;
  point_start_ = Clock::now();
  if (!tty_) fmt::print(stderr, "[{}/{}] {} ...\n", index_ + 1, n_points_, label_);
  draw(0, 0);
}

void ProgressBar::prompt(int64_t done, int64_t total) { draw(done, total); }

void ProgressBar::end_point(const std::string& status) {
  const double took = std::chrono::duration<double>(Clock::now() - point_start_).count();
  finished_actual_s_ += took;
  finished_estimate_s_ += point_estimate_s_;
  estimated_left_s_ = std::max(0.0, estimated_left_s_ - point_estimate_s_);
  if (tty_) fmt::print(stderr, "\r\033[K");
  fmt::print(stderr, "[{}/{}] {}: {} in {}\n", index_ + 1, n_points_, label_, status, clock_text(took));
}

void ProgressBar::draw(int64_t done, int64_t total) {
  if (!tty_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  // The estimate is for this machine in general; the finished points say how far off it is now.
  const double scale = finished_estimate_s_ > 0 ? finished_actual_s_ / finished_estimate_s_ : 1.0;
  const double point_left = total > 0 ? point_estimate_s_ * (1.0 - static_cast<double>(done) / static_cast<double>(total)) : point_estimate_s_;
  const double eta = (estimated_left_s_ - point_estimate_s_ + point_left) * scale;
  fmt::print(stderr, "\r\033[K[{}/{}] {}  prompt {}/{}  elapsed {}  ETA {}", index_ + 1, n_points_, label_, done, total, clock_text(elapsed), clock_text(eta));
  std::fflush(stderr);
}

}  // namespace draftbench
