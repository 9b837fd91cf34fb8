// The discrete gradient's gpu:: entry point in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/discrete_gradient/DiscreteGradientGpu.h"

namespace topogpu::gpu {

void computeDiscreteGradient(const cubical::Grid&, const ScalarArrayView&, const Monitor&,
                             std::vector<std::uint8_t>&,
                             std::array<std::vector<SimplexId>, 4>&, RunReport&) {
  throwNoCuda("discrete gradient");
}

void computeSimplicialGradient(const discrete_gradient::simplicial::GridSimplices&,
                               const ScalarArrayView&, const Monitor&,
                               SimplicialGradientArrays&, std::vector<SimplexId>*,
                               RunReport&) {
  throwNoCuda("simplicial discrete gradient");
}

} // namespace topogpu::gpu
