#include "RipsSinglePrecision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace topogpu::rips_persistence::detail {

std::string valueText(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

int distanceScale(double smallest, const std::string& smallestWhere, double largest,
                  const std::string& largestWhere) {
  if (!(largest > 0) || (smallest >= 0x1p-100 && largest <= 0x1p100))
    return 0;
  const int s = int(std::floor((std::ilogb(largest) + std::ilogb(smallest)) / 2.0));
  // Normal floats, with room above for the threshold's and the diagram's arithmetic.
  if (std::ldexp(largest, -s) >= 0x1p120 || std::ldexp(smallest, -s) < 0x1p-120)
    throw Error("the distances span " + valueText(smallest) + " (" + smallestWhere +
                ") to " + valueText(largest) + " (" + largestWhere +
                "): more than single precision, the filtration's type, holds at once "
                "(a ratio of about 1e72 at most); the smaller ones would round to 0. "
                "Rescale the input or set the smallest distances to 0");
  return s;
}

int coordinateScale(double largest) {
  if (!(largest > 0) || (largest >= 0x1p-60 && largest <= 0x1p60))
    return 0;
  return std::ilogb(largest);
}

void checkPointSeparation(const std::vector<double>& points, int dimension, int scale) {
  const std::size_t d = std::size_t(dimension);
  const std::size_t n = d > 0 ? points.size() / d : 0;
  constexpr double kClose = 0x1p-100; // gaps at least this far keep distances normal
  bool close = false;
  std::vector<double> values(n);
  for (std::size_t k = 0; k < d && !close; ++k) {
    for (std::size_t p = 0; p < n; ++p)
      values[p] = points[p * d + k];
    std::sort(values.begin(), values.end());
    for (std::size_t p = 1; p < n && !close; ++p)
      close = values[p] != values[p - 1] && values[p] - values[p - 1] < kClose;
  }
  if (!close)
    return;
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      double largest = 0;
      for (std::size_t k = 0; k < d; ++k)
        largest = std::max(largest, std::fabs(points[a * d + k] - points[b * d + k]));
      if (largest == 0 || largest >= 0x1p-126)
        continue;
      // Their distance, scaled up before squaring (the squares would underflow).
      double sum = 0;
      for (std::size_t k = 0; k < d; ++k) {
        const double x = (points[a * d + k] - points[b * d + k]) / largest;
        sum += x * x;
      }
      const double distance = largest * std::sqrt(sum);
      if (distance >= 0x1p-126)
        continue;
      double magnitude = 0;
      for (const double x : points)
        magnitude = std::max(magnitude, std::fabs(x));
      throw Error("points " + std::to_string(b) + " and " + std::to_string(a) + " are " +
                  valueText(std::ldexp(distance, scale)) +
                  " apart, below single precision (the filtration's type) at the "
                  "cloud's scale (coordinates up to " +
                  valueText(std::ldexp(magnitude, scale)) +
                  "): their distance would round to 0. Rescale the coordinates or "
                  "merge the points");
    }
  }
}

} // namespace topogpu::rips_persistence::detail
