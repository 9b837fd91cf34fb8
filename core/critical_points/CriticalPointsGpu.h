#pragma once

#include "base/GridStencil.h"
#include "base/ScalarArray.h"

#include <vector>

namespace topogpu::gpu {

// Vertex order and link classification of every grid vertex on the device; types
// (host, one per vertex) and criticalVertices (ascending ids of non-regular vertices)
// come back. Progress 0..1 after each stage (upload, order, classify, download). Throws
// GpuError on a CUDA failure (runWithFallback reruns on the CPU), Aborted on abort.
void classifyGridVertices(const grid::Dims& dims, const ScalarArrayView& values,
                          const Monitor& monitor, std::int8_t* types,
                          std::vector<SimplexId>& criticalVertices, RunReport& report);

} // namespace topogpu::gpu
