// Text that is safe to show: messages quote bytes of user files (a token of a corrupt
// file, an array name), and a NUL among them would cut the message where it becomes a C
// string (std::exception::what(), vtkErrorMacro), a control byte would garble a terminal,
// and JSON must be valid UTF-8.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace topogpu {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when none starts there.
inline std::size_t utf8SequenceLength(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  const std::size_t n = c < 0x80           ? 1
                        : (c >> 5) == 0x6  ? 2
                        : (c >> 4) == 0xe  ? 3
                        : (c >> 3) == 0x1e ? 4
                                           : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) >> 6) != 0x2)
      return 0;
  }
  return n;
}

// text with every byte that would not print as itself written \xNN: control bytes
// (NUL included; line breaks and tabs stay) and bytes outside valid UTF-8.
inline std::string printableText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8SequenceLength(text, i);
    const auto c = static_cast<unsigned char>(text[i]);
    if (n == 0 || (n == 1 && ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f))) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
      i += 1;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

} // namespace topogpu
