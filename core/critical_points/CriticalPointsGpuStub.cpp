// The critical points' gpu:: entry point in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/critical_points/CriticalPointsGpu.h"

namespace topogpu::gpu {

void classifyGridVertices(const grid::Dims&, const ScalarArrayView&, const Monitor&,
                          std::int8_t*, std::vector<SimplexId>&, RunReport&) {
  throwNoCuda("critical points");
}

} // namespace topogpu::gpu
