// The smoother's gpu:: entry point in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/scalar_field_smoother/ScalarFieldSmootherGpu.h"

namespace topogpu::gpu {

void smoothGrid(const grid::Dims&, const ScalarArrayView&, int, const std::uint8_t*,
                const Monitor&, void*, RunReport&) {
  throwNoCuda("scalar field smoother");
}

} // namespace topogpu::gpu
