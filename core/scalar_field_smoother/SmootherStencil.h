// The per-vertex arithmetic of the smoother, shared by the CPU paths and the CUDA
// kernel (host + device), so that both compute every value bit for bit the same way:
// the same neighbours in the same order (GridStencil's); for floating-point fields
// additions and one division in double, explicitly rounded to nearest (nothing to
// contract into an FMA, and the device intrinsics say so); for integer fields exact
// 128-bit sums and an exactly rounded quotient.
#pragma once

#include "base/GridStencil.h"

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

// What a pass works in: double for floating-point fields (converted back to the input's
// type once, at the end), the input's own type for integers, so that every pass is exact.
template <typename T>
using Working = std::conditional_t<std::is_floating_point<T>::value, double, T>;

// The running sum of a vertex's value and its neighbours' values, and their average.
// Doubles: additions and one division, each rounded to nearest. Integers: the exact sum
// in 128 bits (no overflow for any vertex degree below 2^63) and the exact quotient
// rounded to nearest, halves away from zero; an average of integers lies between the
// smallest and the largest of them, and so does its rounding: the range never grows.
template <typename W, bool = std::is_floating_point<W>::value> struct NeighbourSum {
  double total;
  TOPOGPU_HD explicit NeighbourSum(double first) : total(first) {}
  TOPOGPU_HD void add(double x) { total = addRn(total, x); }
  TOPOGPU_HD double average(SimplexId count) const { return divRn(total, double(count)); }
};
// GCC and nvcc's 128-bit integer (__extension__: no pedantic warning).
__extension__ typedef __int128 Int128;

template <typename W> struct NeighbourSum<W, false> {
  Int128 total;
  TOPOGPU_HD explicit NeighbourSum(W first) : total(first) {}
  TOPOGPU_HD void add(W x) { total += x; }
  TOPOGPU_HD W average(SimplexId count) const {
    const Int128 quotient = total / count, remainder = total % count; // toward zero
    const Int128 twice = remainder < 0 ? -2 * remainder : 2 * remainder;
    if (twice < count)
      return W(quotient);
    return W(total < 0 ? quotient - 1 : quotient + 1);
  }
};

// One pass at grid vertex v: (value + sum of its Freudenthal neighbours' values) /
// (1 + neighbour count), neighbours in GridStencil's order k = 0, 1, ...; a vertex whose
// mask is 0 keeps its value (TTK's mask).
template <typename W>
TOPOGPU_HD W smoothedGridValue(const grid::Dims& d, SimplexId v, const W* values,
                               const std::uint8_t* mask) {
  if (mask != nullptr && mask[v] == 0)
    return values[v];
  NeighbourSum<W> sum(values[v]);
  SimplexId count = 1;
  grid::forEachNeighbor(d, v, [&](SimplexId u) {
    sum.add(values[u]);
    ++count;
  });
  return sum.average(count);
}

// A pass's value back to the input's type: floats round to nearest; integers are
// already of their type.
template <typename T> TOPOGPU_HD T toValue(Working<T> x) {
  return static_cast<T>(x);
}

} // namespace topogpu::scalar_field_smoother
