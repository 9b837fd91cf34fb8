#pragma once

#include "base/ScalarArray.h"
#include "core/discrete_gradient/CubicalGrid.h"
#include "core/discrete_gradient/GridSimplices.h"

#include <array>
#include <cstdint>
#include <vector>

namespace topogpu::gpu {

// Vertex order, the lower stars (one thread per vertex, cubical::processLowerStar) and
// the critical cells compacted per dimension on the device; gradient (one byte per
// refined-grid cell) and the ascending critical lists come back to the host. Progress
// 0..1 after each stage. Throws GpuError on a CUDA failure (runWithFallback reruns on
// the CPU), Aborted on abort.
void computeDiscreteGradient(const cubical::Grid& grid, const ScalarArrayView& values,
                             const Monitor& monitor, std::vector<std::uint8_t>& gradient,
                             std::array<std::vector<SimplexId>, 4>& criticalCells,
                             RunReport& report);

// The simplicial discrete gradient of an implicit grid's Freudenthal triangulation, as
// simplicial::Output holds it: one byte per simplex of each dimension, the critical
// simplices per dimension (ascending ids) and their highest vertices in the order.
struct SimplicialGradientArrays {
  std::array<std::vector<std::uint8_t>, 4> gradient;
  std::vector<std::uint8_t> edgePairStencils; // GridEdgePairStencils.h
  std::array<std::vector<SimplexId>, 4> criticalCells, criticalVertices;
};

// Vertex order, the lower stars (one thread per vertex,
// simplicial::processGridLowerStar), the critical simplices compacted per dimension and
// their highest vertices, on the device; everything comes back to the host, and order,
// when given, receives the vertex order (each vertex's rank). Progress 0..1 after each
// stage. Throws GpuError on a CUDA failure (runWithFallback reruns on the CPU), Error
// when a simplex is left unclassified, Aborted on abort.
void computeSimplicialGradient(const discrete_gradient::simplicial::GridSimplices& grid,
                               const ScalarArrayView& values, const Monitor& monitor,
                               SimplicialGradientArrays& out,
                               std::vector<SimplexId>* order, RunReport& report);

} // namespace topogpu::gpu
