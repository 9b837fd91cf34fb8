// The host-side patchFIM (the GPU solver's bit-for-bit twin) on exactly the problem
// eikonal::execute hands the device: the mesh in its own units, the start (seeds and
// the exact start near them), the settings, the values scaled back. For the unit tests,
// the CGAL comparison and tests/gpu/gpu_equality.cpp.
#pragma once

#include "EikonalMeshes.h"

#include "base/Types.h"
#include "core/eikonal/Eikonal.h"
#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/Patches.h"
#include "core/eikonal/Problem.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <string>
#include <utility>
#include <vector>

namespace topogpu::eikonal {

struct PatchTwin {
  PatchArrays arrays;
  PatchFimState state; // values in the input's units, +inf (label -1) unreached
  std::vector<Warning> warnings;
  int unitExponent = 0; // GEO's lengths are the input's times 2^-unitExponent
};

// numberFromSeeds false keeps the partition's own patch numbering.
inline PatchTwin runPatchFimTwin(const Surface& s, const Parameters& p,
                                 bool numberFromSeeds = true) {
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  tri.precondition(kRequiredRelations);
  detail::Mesh mesh;
  detail::buildMesh(tri, s.points.data(), p, mesh);
  detail::Start start;
  detail::initialState(mesh, p, start);
  PatchTwin twin;
  twin.state.value = std::move(start.value);
  twin.state.label = std::move(start.label);
  twin.state.seed = std::move(start.fixed);
  buildPatchArrays(mesh, p.patchSize, p.useMetis, twin.arrays, twin.warnings,
                   numberFromSeeds ? detail::seedFlags(mesh, p).data() : nullptr);
  runPatchFimHost(twin.arrays, detail::patchFimSettings(mesh, p), Monitor{}, twin.state);
  detail::toInputUnits(mesh, p, twin.state.value, twin.state.label);
  twin.unitExponent = mesh.unitExponent;
  return twin;
}

} // namespace topogpu::eikonal
