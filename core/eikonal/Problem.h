// What every solver starts from and ends with, in the mesh's units (EikonalMesh.h): the
// start values, travel times converted into and out of those units, and patchFIM's
// settings. execute, the host-side patchFIM twin and the benchmarks share them, so the
// twin solves exactly the problem the device solves.
#pragma once

#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/ExactStart.h"
#include "core/eikonal/Patches.h"

#include <cstdint>
#include <vector>

namespace topogpu::eikonal::detail {

struct Start {
  std::vector<double> value;       // in the mesh's units; +inf where not yet reached
  std::vector<SimplexId> label;    // the nearest seed's id; -1 where not yet reached
  std::vector<std::uint8_t> fixed; // 1: final from the start, never updated
  SimplexId exactVertices = 0;     // fixed vertices (seeds included)
  double exactRadius = 0; // they are those this close to a seed (mesh length units)
};

// The start as a list (what the device uploads) and the radius its exact part lies
// within.
struct FixedStart {
  FixedVertices fixed;
  double exactRadius = 0; // mesh length units
};

// The seeds at 0 with their own ids, and the vertices within Parameters::
// exactStartRadius of them at their exact distance (ExactStart.h) with their nearest
// seed's. workspace: the exact start's memory kept for this mesh (a Preparation's), or
// null (a fresh one).
void fixedStart(const Mesh& mesh, const Parameters& parameters, ExactWorkspace* workspace,
                FixedStart& start);

// The per-vertex arrays of a start list: its values, labels and fixed flags; +inf, -1
// and 0 at every other vertex.
void expandStart(const FixedStart& fixed, SimplexId vertices, Start& start);

// fixedStart (a fresh workspace), then expandStart.
void initialState(const Mesh& mesh, const Parameters& parameters, Start& start);

// 1 at the seeds, 0 elsewhere: patchFIM numbers its patches from them
// (buildPatchArrays).
std::vector<std::uint8_t> seedFlags(const Mesh& mesh, const Parameters& parameters);

// A travel time of the input (the stop distance) in the mesh's units; +inf stays +inf.
double inMeshUnits(const Mesh& mesh, double time);

// patchFIM's settings for these parameters, in the mesh's units.
PatchFimSettings patchFimSettings(const Mesh& mesh, const Parameters& parameters);

// The values back in the input's units: beyond the stop distance or +inf, +inf with
// label -1 (the count is returned). Throws Error when a reached vertex's travel time is
// not a normal double (it overflows, or underflows below 2.2e-308), naming the first
// such vertex. Parallel.
SimplexId toInputUnits(const Mesh& mesh, const Parameters& parameters,
                       std::vector<double>& value, std::vector<SimplexId>& label);

} // namespace topogpu::eikonal::detail
