// patchFIM's per-vertex update from the cell-assembly arrays (section 2.5 of Fu et al.
// 2011): a vertex of a patch is updated from its entries of GEO (one per one-ring
// triangle, one per virtual triangle of a split obtuse angle's fan), each naming the
// two upwind vertices by their
// index in the patch's local table (its own vertices first, then the halo it reads).
// Shared by the host-side patchFIM (Patches.cpp, the tests' reference) and the CUDA
// kernel (cuda/eikonal), so both solve the same triangles in the same order.
#pragma once

#include "base/Types.h"
#include "core/eikonal/LocalSolver.h"

#include <cmath>
#include <cstdint>

namespace topogpu::eikonal {

// One triangle solve for a vertex x3 from the upwind vertices a = x1 and b = x2 (local
// indices), its geometry precomputed once per run, in float32 as the paper's GEO (24
// bytes instead of the 72 of six doubles: the upload is a third). All lengths are times
// the triangle's slowness (the local solver is invariant under that scaling, so a speed
// costs no extra field). With x1 at 0 and x2 at |x1 x2| on the edge's axis, x3 is at
// (foot * |x1 x2|, height): precomputing foot, height and 1 / |x1 x2| leaves one square
// root and one division per solve instead of three divisions and two roots (the
// kernel's rounds wait on this chain). The solve runs in double on the stored values,
// so each carries a relative rounding of at most 2^-24 and a distance, a sum of such
// lengths, the same. inverse == 0: the two edge solutions only (degenerate triangles,
// obtuse angles left unsplit, x3 on the line x1 x2).
struct alignas(8) PatchSolve {
  float la, lb;  // |a x3|, |b x3|
  float inverse; // 1 / |a b|, or 0
  float foot;    // the foot of x3's height on ab, as a fraction of |a b|
  float height;  // x3's distance to the line ab
  std::uint16_t a, b;
};
static_assert(sizeof(PatchSolve) == 24, "GEO entries are 24 bytes");

// GEO's entry of a triangle (la = |a x3|, lb = |b x3|, lab = |a b|, already times the
// slowness); edgesOnly for triangles solved through their edges only.
inline PatchSolve makePatchSolve(double la, double lb, double lab, std::uint16_t a,
                                 std::uint16_t b, bool edgesOnly) {
  PatchSolve e{float(la), float(lb), 0.0f, 0.0f, 0.0f, a, b};
  if (edgesOnly || !(lab > 0))
    return e;
  const double p = (la * la + lab * lab - lb * lb) / (2 * lab);
  const double h2 = la * la - p * p;
  const float inverse = float(1 / lab), height = float(h2 > 0 ? std::sqrt(h2) : 0.0);
  if (!(inverse > 0) || !(inverse < HUGE_VALF) || !(height > 0))
    return e; // x3 on the line ab, or lengths float32 cannot invert
  e.inverse = inverse;
  e.foot = float(p / lab);
  e.height = height;
  return e;
}

// solveTriangle (LocalSolver.h) on a GEO entry: the same minimum of the travel time
// through ab over the foot's position lambda in [0, 1], else the smaller edge solution.
TOPOGPU_HD TriangleSolution solvePatchTriangle(double phiA, double phiB,
                                               const PatchSolve& e) {
  const double inf = HUGE_VAL;
  const double fromA = phiA < inf ? phiA + double(e.la) : inf;
  const double fromB = phiB < inf ? phiB + double(e.lb) : inf;
  TriangleSolution best{fromA <= fromB ? fromA : fromB, fromA <= fromB ? 0.0 : 1.0};
  if (!(e.inverse > 0) || !(phiA < inf) || !(phiB < inf))
    return best;
  const double difference = phiB - phiA;
  const double k = difference * double(e.inverse); // the slope along ab
  if (!(k * k < 1))
    return best;
  const double leg = double(e.height) / sqrt(1 - k * k); // the characteristic's length
  const double lambda = double(e.foot) - k * leg * double(e.inverse);
  if (!(lambda >= 0 && lambda <= 1))
    return best;
  const double value = phiA + lambda * difference + leg;
  if (value < best.value)
    best = {value, lambda};
  return best;
}

// The largest local table a patch may have (local indices are 16-bit).
constexpr std::int64_t kMaxLocalVertices = 65535;

struct PatchUpdate {
  double value;
  SimplexId label;
  int solves; // local solver calls
};

// The update of one own vertex from its entries [begin, end): only the solves that read
// a local vertex flagged in `dirty` (changed since this vertex was last solved) are
// computed, and the result is the smaller of the current value and theirs. The other
// solves would repeat their last results, which are not below the current value (values
// only decrease), so this is the full one-ring minimum at a fraction of the solves. The
// first strictly smaller solution wins; its label is the seed of the upwind vertex
// nearer the characteristic's foot.
TOPOGPU_HD PatchUpdate updateFromPatch(const PatchSolve* solves, std::int64_t begin,
                                       std::int64_t end, const double* value,
                                       const SimplexId* label, const unsigned char* dirty,
                                       double current, SimplexId currentLabel) {
  PatchUpdate best{current, currentLabel, 0};
  for (std::int64_t i = begin; i < end; ++i) {
    const PatchSolve e = solves[i];
    if (!dirty[e.a] && !dirty[e.b])
      continue;
    const TriangleSolution s = solvePatchTriangle(value[e.a], value[e.b], e);
    ++best.solves;
    if (s.value < best.value) {
      best.value = s.value;
      best.label = s.lambda <= 0.5 ? label[e.a] : label[e.b];
    }
  }
  return best;
}

} // namespace topogpu::eikonal
