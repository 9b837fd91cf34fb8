#pragma once

#include "core/common/ScalarArray.h"
#include "core/discrete_gradient/CubicalGrid.h"

#include <cstdint>
#include <vector>

namespace topogpu::gpu {

// The vertex order and the roots of the vertex and top-cell gradient forests
// (cubical::vertexSuccessor / topCellSuccessor, then pointer jumping) on the device,
// copied back to the host. Throws GpuError on a CUDA failure, Aborted on abort.
void computeGradientRoots(const cubical::Grid& grid, const ScalarArrayView& values,
                          const std::vector<std::uint8_t>& gradient,
                          const Monitor& monitor, std::vector<SimplexId>& rank,
                          std::vector<SimplexId>& vertexRoots,
                          std::vector<SimplexId>& topCellRoots, RunReport& report);

} // namespace topogpu::gpu
