// The simplification's gpu:: entry point in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/topological_simplification/TopologicalSimplificationGpu.h"

namespace topogpu::gpu {

void simplifyGrid(const grid::Dims&, ScalarType, SimplexId, const SimplexId*, const char*,
                  const char*, const char*, const char*, int, const Monitor&, void*,
                  SimplexId*, char*, int&, RunReport&) {
  throwNoCuda("topological simplification");
}

} // namespace topogpu::gpu
