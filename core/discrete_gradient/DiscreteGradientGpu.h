#pragma once

#include "base/ScalarArray.h"
#include "core/discrete_gradient/CubicalGrid.h"

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

} // namespace topogpu::gpu
