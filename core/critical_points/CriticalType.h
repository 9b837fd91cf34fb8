// Critical vertex classes (TTK's CriticalType values) and the rule that maps the number
// of connected components of the lower and upper links to a class. Host + device.
#pragma once

#include "core/common/Types.h"

#include <cstdint>

namespace topogpu {

enum class CriticalType : std::int8_t {
  Minimum = 0,
  Saddle1 = 1,
  Saddle2 = 2,
  Maximum = 3,
  Degenerate = 4, // monkey saddles and other multi-saddles
  Regular = 5,
};
constexpr int kCriticalTypeCount = 6;

inline const char* criticalTypeKey(CriticalType t) {
  switch (t) {
  case CriticalType::Minimum:
    return "minimum";
  case CriticalType::Saddle1:
    return "saddle1";
  case CriticalType::Saddle2:
    return "saddle2";
  case CriticalType::Maximum:
    return "maximum";
  case CriticalType::Degenerate:
    return "degenerate";
  case CriticalType::Regular:
    return "regular";
  }
  return "?";
}

// lower/upper: connected components of the lower and upper link. No lower component is a
// minimum, no upper one a maximum, one of each is regular. In 3D, >= 2 lower and 1 upper
// is a 1-saddle, 1 lower and >= 2 upper a 2-saddle. In 2D (surfaces and images), TTK's
// rule: (2,1), (1,2) and (2,2) are (1-)saddles. Everything else is degenerate.
TOPOGPU_HD CriticalType criticalTypeFromLink(int dimension, int lower, int upper) {
  if (lower == 0)
    return CriticalType::Minimum;
  if (upper == 0)
    return CriticalType::Maximum;
  if (lower == 1 && upper == 1)
    return CriticalType::Regular;
  if (dimension == 3) {
    if (upper == 1)
      return CriticalType::Saddle1;
    if (lower == 1)
      return CriticalType::Saddle2;
    return CriticalType::Degenerate;
  }
  if (lower <= 2 && upper <= 2)
    return CriticalType::Saddle1;
  return CriticalType::Degenerate;
}

} // namespace topogpu
