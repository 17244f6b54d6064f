#include "engine/common/deadline.h"

#include <fmt/format.h>

#include <ctime>
#include <regex>

#include "engine/common/error.h"

namespace draftbench {

WallClock::time_point parse_deadline(const std::string& text, WallClock::time_point now) {
  auto bad = [&](const std::string& why) {
    return InputError("--deadline", fmt::format("'{}'", text),
                      why + " (expected an ISO time such as 2026-11-26T18:00:00Z, or a duration from now: 5400, 90m, 2.5h)");
  };
  std::smatch m;
  static const std::regex duration(R"(\s*([0-9]+(?:\.[0-9]+)?)\s*([smh]?)\s*)");
  if (std::regex_match(text, m, duration)) {
    const double unit = m[2] == "h" ? 3600 : m[2] == "m" ? 60 : 1;
    const double seconds = std::stod(m[1]) * unit;
    if (!(seconds > 0 && seconds < 1e9)) throw bad("not a positive duration");
    return now + std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(seconds));
  }
  static const std::regex iso(R"((\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?)");
  if (!std::regex_match(text, m, iso)) throw bad("not understood");
  using namespace std::chrono;
  const year_month_day date{year{std::stoi(m[1])}, month{static_cast<unsigned>(std::stoi(m[2]))}, day{static_cast<unsigned>(std::stoi(m[3]))}};
  const int hh = std::stoi(m[4]), mm = std::stoi(m[5]), ss = m[6].matched ? std::stoi(m[6]) : 0;
  if (!date.ok() || hh > 23 || mm > 59 || ss > 60) throw bad("not a valid date and time");
  int offset_minutes = 0;
  if (m[7].matched && m[7] != "Z") {
    const std::string z = m[7];
    const int sign = z[0] == '-' ? -1 : 1;
    const std::string digits = z.substr(1);
    offset_minutes = sign * (std::stoi(digits.substr(0, 2)) * 60 + std::stoi(digits.substr(digits.size() - 2)));
  }
  const WallClock::time_point t = sys_days(date) + hours(hh) + minutes(mm) + seconds(ss) - minutes(offset_minutes);
  if (t <= now) throw bad(fmt::format("is in the past (now is {})", iso_utc(now)));
  return t;
}

std::string iso_utc(WallClock::time_point t) {
  const std::time_t s = WallClock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace draftbench
