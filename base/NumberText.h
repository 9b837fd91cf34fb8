// Numbers as text for files of millions of them: std::to_chars (no locale, no stream),
// byte for byte what printf writes in the C locale.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace topogpu {

// The room any call below may fill.
constexpr std::size_t kNumberTextSize = 32;

// x as printf("%.17g") writes it (17 significant digits: it reads back as the same
// double), at `at`; returns the end. An integer of at most 16 digits is written as one
// (what "%.17g" prints for it), without the general conversion's digit generation.
inline char* writeG17(char* at, double x) {
  if (std::fabs(x) < 1e16 && x == std::trunc(x) && !(x == 0 && std::signbit(x)))
    return std::to_chars(at, at + kNumberTextSize, std::int64_t(x)).ptr;
  return std::to_chars(at, at + kNumberTextSize, x, std::chars_format::general, 17).ptr;
}

// An integer in decimal, at `at`; returns the end.
template <typename Integer> char* writeInteger(char* at, Integer x) {
  return std::to_chars(at, at + kNumberTextSize, x).ptr;
}

} // namespace topogpu
