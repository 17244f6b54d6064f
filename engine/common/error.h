// Two tiers of errors (engine/DESIGN.md §10):
//  - InputError: untrusted input (model files, prompts, CLI values) is wrong. Carries
//    where (file), what (field/tensor/key) and what was expected; the CLI prints it
//    as one line and exits non-zero.
//    Every part of the message passes through printable() (printable.h): text read from a
//    file (a key, a name) cannot put control bytes on the terminal or run to megabytes.
//  - DB_CHECK: a programmer error. Always on, aborts with file:line.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/common/printable.h"
#include "kernels/runtime/check.h"

namespace draftbench {

class InputError : public std::runtime_error {
 public:
  // "model.gguf: tensor 'blk.0.attn_q.weight': offset 123 is past the end of the file (size 100)"
  InputError(std::string_view where, std::string_view what, std::string_view problem) : std::runtime_error(compose(where, what, problem)) {}

 private:
  static constexpr size_t kMaxPart = 400;
  static std::string compose(std::string_view where, std::string_view what, std::string_view problem) {
    std::string s = printable(where, kMaxPart);
    if (!what.empty()) {
      s += ": ";
      s += printable(what, kMaxPart);
    }
    s += ": ";
    s += printable(problem, 4 * kMaxPart);
    return s;
  }
};

}  // namespace draftbench
