// Critical points of a piecewise-linear scalar field: each vertex is classified by the
// connected components of its lower and upper links (Banchoff; TTK's
// ScalarFieldCriticalPoints), with ties broken by the shared vertex order.
#pragma once

#include "core/common/ScalarArray.h"
#include "core/common/Types.h"
#include "core/critical_points/CriticalType.h"
#include "triangulation/Relations.h"

#include <array>
#include <vector>

namespace topogpu {

class ImplicitTriangulation;
class ExplicitTriangulation;

namespace critical_points {

struct Parameters {
  Backend backend = Backend::Auto; // GPU runs on implicit grids; meshes use the CPU
};

struct Output {
  std::vector<std::int8_t> vertexTypes;    // CriticalType of every vertex
  std::vector<SimplexId> criticalVertices; // non-regular vertices, ascending ids
  std::vector<char> criticalOnBoundary;    // parallel to criticalVertices
  std::array<SimplexId, kCriticalTypeCount> counts{};
  RunReport report;

  void clear() { *this = Output(); }
  SimplexId count(CriticalType t) const { return counts[int(t)]; }
};

// The relations the generic (mesh) classification reads, as TTK's
// preconditionTriangulation; the grid path's stencil needs none.
constexpr Relations kRequiredRelations = VV | VertexStar | BoundaryVertices;

// Throws Error for bad input (size mismatch, NaN/Inf values), Aborted on abort.
// Fills output; report says which backend ran and the stage timings.
void execute(ImplicitTriangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);
void execute(ExplicitTriangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);

} // namespace critical_points
} // namespace topogpu
