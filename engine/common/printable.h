// Text from untrusted files made safe for a one-line error message. Header-only because
// InputError (error.h) applies it to every message it composes, in every library.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace draftbench {

// The length of the valid UTF-8 sequence at text[i] (no overlongs, no surrogates, nothing
// past U+10FFFF), or 0 when there is none.
inline size_t valid_utf8_length(std::string_view text, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const auto cont = [&](size_t k) { return i + k < text.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2) || (c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F)) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3) || (c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F)) return 0;
    return 4;
  }
  return 0;
}

// `text` with every byte that starts no valid UTF-8 sequence replaced by U+FFFD, as a
// decoder that must hand on valid text (a reply cut inside a character, a model's stray
// byte tokens) does.
inline std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = valid_utf8_length(text, i);
    if (n == 0) {
      out.append("\xEF\xBF\xBD", 3);
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

// Control bytes (C0, DEL, C1: so no ANSI escape, NUL or newline reaches the terminal) and
// invalid UTF-8 become \xNN; text past `max_bytes` is cut at a character boundary, saying
// how long it was. Printable text, backslashes included, is left as it is, so applying
// this twice gives what applying it once did.
inline std::string printable(std::string_view text, size_t max_bytes = 120) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max_bytes) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t n = valid_utf8_length(text, i);
    const bool c1_control = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if ((n == 1 && c >= 0x20 && c != 0x7F) || (n > 1 && !c1_control)) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    char esc[5];
    std::snprintf(esc, sizeof esc, "\\x%02x", c);
    out += esc;
    ++i;
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
  return out;
}

}  // namespace draftbench
