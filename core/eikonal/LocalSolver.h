// The local solver of Fu, Jeong, Pan, Kirby, Whitaker, "A fast iterative method for
// solving the Eikonal equation on triangulated surfaces" (SIAM J. Sci. Comput. 2011),
// section 2.2: the value at x3 of a triangle (x1, x2, x3) from the values at x1 and x2,
// with the solution linear on the triangle and a constant slowness (1 / speed) in it.
// Shared by the CPU solvers and, later, the GPU patches (TOPOGPU_HD, no std::).
#pragma once

#include "base/Types.h"

#include <cmath>

namespace topogpu::eikonal {

struct TriangleSolution {
  double value;  // +inf when neither x1 nor x2 has a value
  double lambda; // where the characteristic crosses the edge x1x2: 0 at x1, 1 at x2
};

// l13 = |x1 x3|, l23 = |x2 x3|, l12 = |x1 x2|. The travel time to x3 through a point
// x1 + lambda (x2 - x1) of the opposite edge is phi(lambda) + slowness * |x3 - x(lambda)|
// with phi linear on the edge; its minimum over lambda in [0, 1] is the triangle's
// solution. The function is convex in lambda, so the stationary point (closed form
// below) is the minimum when it lies in [0, 1], and otherwise the smaller of the two
// edge solutions (lambda 0 and 1) is. An infinite value makes that vertex unusable: the
// edge solution from the other one is taken. A degenerate triangle (the caller passes
// edgesOnly) uses only the two edge solutions.
TOPOGPU_HD TriangleSolution solveTriangle(double phi1, double phi2, double l13,
                                          double l23, double l12, double slowness,
                                          bool edgesOnly) {
  const double inf = HUGE_VAL;
  const double from1 = phi1 < inf ? phi1 + slowness * l13 : inf;
  const double from2 = phi2 < inf ? phi2 + slowness * l23 : inf;
  TriangleSolution best{from1 <= from2 ? from1 : from2, from1 <= from2 ? 0.0 : 1.0};
  if (edgesOnly || !(phi1 < inf) || !(phi2 < inf) || !(l12 > 0))
    return best;
  // x1 at 0 and x2 at l12 on the edge's axis; x3 at (p, h), h >= 0.
  const double p = (l13 * l13 + l12 * l12 - l23 * l23) / (2 * l12);
  const double h2 = l13 * l13 - p * p;
  if (!(h2 > 0))
    return best;
  const double h = sqrt(h2);
  // The derivative of phi1 + t (phi2 - phi1) / l12 + slowness * sqrt((p - t)^2 + h^2)
  // vanishes where (p - t) / sqrt((p - t)^2 + h^2) = k.
  const double k = (phi2 - phi1) / (slowness * l12);
  if (!(k * k < 1))
    return best;
  const double root = sqrt(1 - k * k);
  const double t = p - k * h / root;
  if (!(t >= 0 && t <= l12))
    return best;
  const double value = phi1 + t * (phi2 - phi1) / l12 + slowness * h / root;
  if (value < best.value)
    best = {value, t / l12};
  return best;
}

} // namespace topogpu::eikonal
