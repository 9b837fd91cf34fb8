// The per-vertex arithmetic of the smoother, shared by the CPU grid path and the CUDA
// kernel (host + device), so that both compute every value bit for bit the same way:
// the same neighbours in the same order (GridStencil's), additions and one division in
// double, explicitly rounded to nearest (nothing to contract into an FMA, and the
// device intrinsics say so).
#pragma once

#include "triangulation/implicit/GridStencil.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace topogpu::scalar_field_smoother {

TOPOGPU_HD double addRn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

TOPOGPU_HD double divRn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// One pass at grid vertex v: (value + sum of its Freudenthal neighbours' values) /
// (1 + neighbour count), neighbours in GridStencil's order k = 0, 1, ...; a vertex whose
// mask is 0 keeps its value (TTK's mask).
TOPOGPU_HD double smoothedGridValue(const grid::Dims& d, SimplexId v,
                                    const double* values, const std::uint8_t* mask) {
  if (mask != nullptr && mask[v] == 0)
    return values[v];
  SimplexId c[3];
  grid::vertexCoords(d, v, c);
  const bool interior = grid::isInteriorCoords(d, c);
  double sum = values[v];
  int count = 1;
  for (int k = 0; k < 2 * grid::edgeTypeCount(d.dimension); ++k) {
    if (!interior) {
      const int m = grid::neighborMask(k), sign = grid::neighborSign(k);
      SimplexId n[3];
      for (int a = 0; a < 3; ++a)
        n[a] = c[a] + SimplexId(sign) * ((m >> a) & 1);
      if (!grid::anchorValid(d, n, 0))
        continue;
    }
    sum = addRn(sum, values[v + grid::neighborOffset(d, k)]);
    ++count;
  }
  return divRn(sum, double(count));
}

// A smoothed double back to the input's type: floats round to nearest, integers round
// half away from zero and clamp to the type's range (only reachable through the
// rounding of 64-bit values, as an average never leaves its inputs' range).
template <typename T> TOPOGPU_HD T toValue(double x) {
  if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(x);
  } else {
    const double r = ::round(x);
    if (r >= double(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    if (r <= double(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    return static_cast<T>(r);
  }
}

} // namespace topogpu::scalar_field_smoother
