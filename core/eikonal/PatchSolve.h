// patchFIM's per-vertex update from the cell-assembly arrays (section 2.5 of Fu et al.
// 2011): a vertex of a patch is updated from its entries of GEO (one per one-ring
// triangle, two per split obtuse angle), each naming the two upwind vertices by their
// index in the patch's local table (its own vertices first, then the halo it reads).
// Shared by the host-side patchFIM (Patches.cpp, the tests' reference) and the CUDA
// kernel (cuda/eikonal), so both solve the same triangles in the same order.
#pragma once

#include "core/common/Types.h"
#include "core/eikonal/LocalSolver.h"

#include <cstdint>

namespace topogpu::eikonal {

// One triangle solve for a vertex x3: the upwind vertices a = x1 and b = x2 (local
// indices), the lengths |a x3|, |b x3|, |a b| and the triangle's slowness.
struct PatchSolve {
  double la, lb, lab, slowness;
  std::int32_t a, b;
  std::int32_t edgesOnly; // 1: degenerate or an obtuse angle left unsplit
  std::int32_t padding;
};

struct PatchUpdate {
  double value;
  SimplexId label;
};

// The smallest solution over the entries [begin, end) from the local values and labels,
// the same rule as the CPU solvers' updateVertex: the first strictly smaller solution
// wins, its label is the seed of the upwind vertex nearer the characteristic's foot.
TOPOGPU_HD PatchUpdate updateFromPatch(const PatchSolve* solves, std::int64_t begin,
                                       std::int64_t end, const double* value,
                                       const SimplexId* label) {
  PatchUpdate best{HUGE_VAL, -1};
  for (std::int64_t i = begin; i < end; ++i) {
    const PatchSolve& e = solves[i];
    const TriangleSolution s = solveTriangle(value[e.a], value[e.b], e.la, e.lb, e.lab,
                                             e.slowness, e.edgesOnly != 0);
    if (s.value < best.value)
      best = {s.value, s.lambda <= 0.5 ? label[e.a] : label[e.b]};
  }
  return best;
}

// Whether a solve of [begin, end) reads a local vertex flagged in `changed`: when none
// does, the update would repeat its last result and is skipped (the same decision on the
// host and the device, so their solve counts agree too).
TOPOGPU_HD bool readsChanged(const PatchSolve* solves, std::int64_t begin,
                             std::int64_t end, const unsigned char* changed) {
  for (std::int64_t i = begin; i < end; ++i) {
    if (changed[solves[i].a] || changed[solves[i].b])
      return true;
  }
  return false;
}

} // namespace topogpu::eikonal
