#include <string>
#include <vector>

#include "engine/cli/commands.h"

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
