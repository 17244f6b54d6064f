// Deadlines for long jobs that run in chunks (`draftbench distill` and `train --deadline`):
// parsing the option, printing the time, and whether the next unit of work still fits.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

namespace draftbench {

using WallClock = std::chrono::system_clock;

// "2026-11-26T18:00:00Z" (UTC; "+01:00"-style offsets and a space for the 'T' accepted; no
// zone means UTC), or a duration from `now`: seconds ("5400"), or with a unit ("90m", "2.5h",
// "30s"). Throws InputError naming --deadline and the accepted forms.
WallClock::time_point parse_deadline(const std::string& text, WallClock::time_point now);
// ISO 8601 in UTC, whole seconds: "2026-11-26T18:00:00Z".
std::string iso_utc(WallClock::time_point t);

// The time to keep free for work estimated at `seconds`: 25% more and 2 s besides (every
// deadline check of draftbench uses it).
inline double with_deadline_margin(double seconds) { return 1.25 * seconds + 2.0; }

// Whether one more unit of work (a distill shard) fits before a deadline: the slowest unit
// timed so far, with the margin. Before any unit is timed, `first_guess`
// seconds (0: the first unit always starts, as nothing predicts it).
class UnitDeadline {
 public:
  UnitDeadline(std::optional<WallClock::time_point> deadline, double first_guess) : deadline_(deadline), slowest_(first_guess) {}
  bool active() const { return deadline_.has_value(); }
  void unit_took(double seconds) { slowest_ = seen_ ? std::max(slowest_, seconds) : seconds, seen_ = true; }
  double next_unit_seconds() const { return with_deadline_margin(slowest_); }
  bool must_stop(WallClock::time_point now) const {
    if (!deadline_ || (!seen_ && slowest_ <= 0)) return false;
    return now + std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(next_unit_seconds())) > *deadline_;
  }
  const std::optional<WallClock::time_point>& deadline() const { return deadline_; }

 private:
  std::optional<WallClock::time_point> deadline_;
  double slowest_ = 0;
  bool seen_ = false;
};

}  // namespace draftbench
