#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/common/input_checks.h"
#include "engine/drafters/axis_table.h"
#include "engine/model/model_aliases.h"

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
// empty "where" prefix. A check may rewrite the value (a transform).
CLI::Validator from_check(std::function<void(std::string&)> check, std::string description) {
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

CLI::Validator whole_number(int64_t hi) {
  return from_check([hi](const std::string& text) { integer_in_range(text, 0, hi, "", ""); }, fmt::format("INT:[0 - {}]", hi));
}

CLI::Validator seed_value() {
  return from_check([](const std::string& text) { integer_in_range(text, 0, int64_t{1} << 53, "", ""); }, "INT:[0 - 2^53]");
}

CLI::Validator thread_count() {
  return from_check([](const std::string& text) { checked_thread_count(integer_in_range(text, INT64_MIN, INT64_MAX, "", ""), "", ""); },
                    fmt::format("INT:[0 - {}]", max_threads()));
}

CLI::Validator model_alias_transform() {
  return from_check([](std::string& value) { value = model_path_of(value); }, "PATH|ALIAS");
}

void add_model_option(CLI::App& sub, std::string& model, std::string_view what) {
  sub.add_option("--model", model, fmt::format("{}, or a model alias ({})", what, model_alias_names()))
      ->capture_default_str()
      ->transform(model_alias_transform());
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

namespace {

// A setting's text as the spec loader reads it (axis_table.h): a number in the setting's
// range (or its empty_as word for 0), on or off, one of its choices. Nothing, or the
// problem in the spec loader's words.
std::string setting_problem(const Setting& s, const std::string& text) {
  if (s.type == SettingType::integer) {
    if (s.empty_as && text == s.empty_as) return "";
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return fmt::format("expected an integer, got '{}'", printable(text, 40));
    // Compared and echoed as integers: through a double, 2^53 + 3 would read as 2^53 + 4, and
    // 2^53 + 1 as 2^53, inside a [0, 2^53] range.
    const auto bound = [](double b) { return b >= 0x1p63 ? INT64_MAX : b <= -0x1p63 ? INT64_MIN : static_cast<int64_t>(b); };
    if (v >= bound(s.lo) && v <= bound(s.hi)) return "";
    return fmt::format("expected an integer in [{}, {}], got {}", bound(s.lo), bound(s.hi), v);
  }
  if (s.type == SettingType::number) {
    // strtod, not from_chars: it tells an overflow (HUGE_VAL, refused) from an underflow
    // (0 or a subnormal, in range when 0 is).
    char* end = nullptr;
    const bool blank = text.empty() || std::isspace(static_cast<unsigned char>(text[0]));
    const double v = blank ? 0.0 : std::strtod(text.c_str(), &end);
    if (blank || end != text.c_str() + text.size() || !std::isfinite(v)) return fmt::format("expected a number, got '{}'", printable(text, 40));
    return range_problem(s, v).value_or("");
  }
  if (s.type == SettingType::boolean) return text == "on" || text == "off" ? "" : fmt::format("expected on or off, got '{}'", printable(text, 40));
  if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), text) == s.choices.end())
    return fmt::format("'{}' (expected {})", printable(text, 40), choices_text(s));
  return "";
}

// Stores checked text into a field of `point`.
void store_setting(const Setting& s, const std::string& text, PointSettings& point) {
  const SettingField f = s.field(point);
  const double v = s.empty_as && text == s.empty_as ? 0.0 : std::strtod(text.c_str(), nullptr);
  if (auto* p = std::get_if<int*>(&f)) **p = static_cast<int>(v);
  else if (auto* p = std::get_if<uint64_t*>(&f)) **p = static_cast<uint64_t>(v);
  else if (auto* p = std::get_if<float*>(&f)) **p = static_cast<float>(v);
  else if (auto* p = std::get_if<bool*>(&f)) **p = text == "on";
  else if (auto* p = std::get_if<std::string*>(&f)) **p = s.empty_as && text == s.empty_as ? std::string() : text;
}

std::string shown_default(const Setting& s) {
  const nlohmann::json v = setting_default(s);
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_string()) return v.get<std::string>();
  if (s.empty_as && v == 0) return s.empty_as;
  return v.dump();
}

// The value's shape in --help: INT, FLOAT, on|off, auto|fixed, ...
std::string type_name(const Setting& s) {
  switch (s.type) {
    case SettingType::integer: return s.empty_as ? fmt::format("INT|{}", s.empty_as) : "INT";
    case SettingType::number: return "FLOAT";
    case SettingType::boolean: return "on|off";
    case SettingType::path: return "FILE";
    case SettingType::text: break;
  }
  return s.choices.empty() ? "TEXT" : fmt::format("{}", fmt::join(s.choices, "|"));
}

}  // namespace

void add_setting_options(CLI::App& sub, PointSettings& point) {
  for (const Setting& s : settings()) {
    if (!s.cli_flag) continue;
    const SettingField f = s.field(point);
    // A boolean off by default is a flag; one on by default takes on|off.
    if (auto* flag = std::get_if<bool*>(&f); flag && !**flag) {
      sub.add_flag(s.cli_flag, **flag, s.help);
      continue;
    }
    sub.add_option_function<std::string>(
           s.cli_flag, [&s, &point](const std::string& text) { store_setting(s, text, point); }, s.help)
        ->check(CLI::Validator([&s](std::string& text) { return setting_problem(s, text); }, ""))
        ->type_name(type_name(s))
        ->default_str(shown_default(s));
  }
}

}  // namespace draftbench::cli
