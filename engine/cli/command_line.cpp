#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/cli/commands.h"
#include "engine/common/error.h"
#include "engine/common/input_checks.h"

namespace draftbench::cli {

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i) line += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';  // POSIX shell quoting, so the line can be pasted back
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

namespace {

// CLI11 wants a message, not an exception: the checks' InputError text without its
// empty "where" prefix.
CLI::Validator from_check(std::function<void(const std::string&)> check, std::string description) {
  return CLI::Validator(
      [check = std::move(check)](std::string& value) -> std::string {
        try {
          check(value);
        } catch (const InputError& e) {
          std::string m = e.what();
          return m.rfind(": ", 0) == 0 ? m.substr(2) : m;
        }
        return "";
      },
      std::move(description));
}

}  // namespace

CLI::Validator finite_number(double lo, double hi) {
  return from_check(
      [lo, hi](const std::string& text) {
        // strtod, not from_chars: it tells an overflow (HUGE_VAL, refused below) from an
        // underflow (0 or a subnormal, in range when 0 is).
        char* end = nullptr;
        const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? 0.0 : std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size())
          throw InputError("", "", fmt::format("expected a finite number in [{}, {}], got '{}'", lo, hi, printable(text, 40)));
        finite_in_range(v, lo, hi, "", "");
      },
      fmt::format("FINITE:[{} - {}]", lo, hi));
}

CLI::Validator seed_value() {
  return from_check([](const std::string& text) { integer_in_range(text, 0, int64_t{1} << 53, "", ""); }, "INT:[0 - 2^53]");
}

CLI::Validator thread_count() {
  return from_check([](const std::string& text) { checked_thread_count(integer_in_range(text, INT64_MIN, INT64_MAX, "", ""), "", ""); },
                    fmt::format("INT:[0 - {}]", max_threads()));
}

void add_device_option(CLI::App& sub, ForwardDevice& device) {
  std::vector<std::string> names;
  for (ForwardDevice d : kForwardDevices) names.emplace_back(forward_device_name(d));
  sub.add_option_function<std::string>(
         "--device", [&device](const std::string& name) { device = *forward_device_named(name); },
         "Where the target model runs: cpu, cuda (a GPU: the kernels of kernels/cuda and cuBLASLt), or emulated "
         "(those CUDA kernels run on the CPU by the grid emulator: slow, for checking the device path without a GPU)")
      ->check(CLI::IsMember(names))
      ->default_str(forward_device_name(device));
}

void add_draft_tokens_option(CLI::App& sub, int& draft_tokens) {
  sub.add_option_function<std::string>(
         "--draft-tokens",
         [&draft_tokens](const std::string& v) {
           if (v == "auto") {
             draft_tokens = 0;
             return;
           }
           std::size_t used = 0;
           int n = 0;
           try {
             n = std::stoi(v, &used);
           } catch (const std::exception&) {
             used = 0;
           }
           if (used != v.size() || n < 1 || n > 1024) throw CLI::ValidationError("--draft-tokens", "'" + v + "' (expected auto or 1 to 1024)");
           draft_tokens = n;
         },
         "n-gram: tokens proposed per step beyond the root; auto sizes each step to this machine's measured costs")
      ->default_str(draft_tokens == 0 ? "auto" : std::to_string(draft_tokens));
}

}  // namespace draftbench::cli
