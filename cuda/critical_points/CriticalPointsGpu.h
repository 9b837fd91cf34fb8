#pragma once

#include "core/common/ScalarArray.h"
#include "triangulation/implicit/GridStencil.h"

#include <vector>

namespace topogpu::gpu {

// Vertex order and link classification of every grid vertex on the device; types
// (host, one per vertex) and criticalVertices (ascending ids of non-regular vertices)
// come back. Throws on CUDA errors (the caller falls back to the CPU).
void classifyGridVertices(const grid::Dims& dims, const ScalarArrayView& values,
                          const Monitor& monitor, std::int8_t* types,
                          std::vector<SimplexId>& criticalVertices, RunReport& report);

} // namespace topogpu::gpu
