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
// indices) and the lengths |a x3|, |b x3|, |a b| times the triangle's slowness (the
// local solver is invariant under that scaling, so a speed costs no extra field). Stored
// in float32 as the paper's GEO (16 bytes instead of 48: the upload is a third); the
// solve itself runs in double on the converted lengths, so a length carries a relative
// rounding of at most 2^-24 and a distance, a sum of such lengths, the same. lab == 0:
// the two edge solutions only (degenerate triangles, obtuse angles left unsplit).
struct PatchSolve {
  float la, lb, lab;
  std::uint16_t a, b;
};
static_assert(sizeof(PatchSolve) == 16, "GEO entries are 16 bytes");

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
    const TriangleSolution s = solveTriangle(value[e.a], value[e.b], double(e.la),
                                             double(e.lb), double(e.lab), 1.0, false);
    ++best.solves;
    if (s.value < best.value) {
      best.value = s.value;
      best.label = s.lambda <= 0.5 ? label[e.a] : label[e.b];
    }
  }
  return best;
}

} // namespace topogpu::eikonal
