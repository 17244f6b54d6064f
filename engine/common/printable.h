// Text from untrusted files made safe for a one-line error message. Header-only because
// InputError (error.h) applies it to every message it composes, in every library.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace draftbench {

// The UTF-8 sequence starting at text[i] (Unicode Table 3-7: no overlongs, no surrogates,
// nothing above U+10FFFF): its length if it is complete and valid, 0 if the bytes present
// are a valid but truncated prefix (a character still arriving, to a streaming decoder), -1
// if it is invalid.
inline int utf8_sequence_length(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return 1;
  int length;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return -1;
  }
  for (int k = 1; k < length; ++k) {
    if (i + static_cast<size_t>(k) >= text.size()) return 0;
    const auto byte = static_cast<unsigned char>(text[i + static_cast<size_t>(k)]);
    if (byte < (k == 1 ? second_min : 0x80) || byte > (k == 1 ? second_max : 0xBF)) return -1;
  }
  return length;
}

// The length of the complete, valid UTF-8 sequence at text[i], or 0 when there is none.
inline size_t valid_utf8_length(std::string_view text, size_t i) {
  const int n = utf8_sequence_length(text, i);
  return n > 0 ? static_cast<size_t>(n) : 0;
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
