// Critical vertex classes (TTK's CriticalType values) and the rule that maps the number
// of connected components of the lower and upper links to a class. Host + device.
#pragma once

#include "base/Types.h"

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

// TTK's ScalarFieldCriticalPoints rule, from lower/upper = the numbers of connected
// components of the lower and upper links. (0,1) is a minimum, (1,0) a maximum, (1,1)
// regular, except in 3D on the boundary: there a vertex whose upper link touches the
// boundary (lowerOnBoundary/upperOnBoundary: some lower/upper neighbour is a boundary
// vertex) while its lower link does not is a 1-saddle, and the reverse a 2-saddle (the
// boundary cuts a saddle's link). In 3D (2,1) is a 1-saddle and (1,2) a 2-saddle; in 2D
// (2,1), (1,2) and (2,2) are saddles (Saddle1). Everything else is degenerate: monkey
// saddles, (3,1) and (1,3) in 3D, and also (0,0), (0,2), (2,0) (an isolated vertex, or a
// boundary vertex that is an extremum and a saddle at once).
TOPOGPU_HD CriticalType criticalTypeFromLink(int dimension, int lower, int upper,
                                             bool lowerOnBoundary, bool upperOnBoundary,
                                             bool vertexOnBoundary) {
  if (lower == 0 && upper == 1)
    return CriticalType::Minimum;
  if (lower == 1 && upper == 0)
    return CriticalType::Maximum;
  if (lower == 1 && upper == 1) {
    if (dimension == 3 && vertexOnBoundary && upperOnBoundary != lowerOnBoundary)
      return upperOnBoundary ? CriticalType::Saddle1 : CriticalType::Saddle2;
    return CriticalType::Regular;
  }
  if (dimension == 3) {
    if (lower == 2 && upper == 1)
      return CriticalType::Saddle1;
    if (lower == 1 && upper == 2)
      return CriticalType::Saddle2;
    return CriticalType::Degenerate;
  }
  if (lower >= 1 && upper >= 1 && lower <= 2 && upper <= 2)
    return CriticalType::Saddle1;
  return CriticalType::Degenerate;
}

} // namespace topogpu
