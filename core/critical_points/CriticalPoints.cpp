#include "CriticalPoints.h"

#include "core/critical_points/CriticalPointsGpu.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>

namespace topogpu::critical_points::detail {

// Counted per block in parallel, then each block writes its part at its prefix offset
// (the CPU twin of the GPU's copy_if).
std::vector<SimplexId> selectCritical(const std::vector<std::int8_t>& types) {
  const SimplexId n = SimplexId(types.size());
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(256, n / 65536));
  std::vector<SimplexId> offsets(blocks + 1, 0);
  auto isCritical = [&](SimplexId v) {
    return types[v] != std::int8_t(CriticalType::Regular);
  };
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    for (SimplexId v = n * b / blocks; v < n * (b + 1) / blocks; ++v)
      offsets[b + 1] += isCritical(v);
  });
  for (SimplexId b = 0; b < blocks; ++b)
    offsets[b + 1] += offsets[b];
  std::vector<SimplexId> critical(offsets.back());
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    SimplexId at = offsets[b];
    for (SimplexId v = n * b / blocks; v < n * (b + 1) / blocks; ++v) {
      if (isCritical(v))
        critical[at++] = v;
    }
  });
  return critical;
}

std::size_t gridDeviceBytes(const ScalarArrayView& values) {
  // values, order, sort scratch (keys + indices, twice), types
  return values.size * (3 * scalarTypeSize(values.type) + 5 * sizeof(SimplexId) + 1);
}

void classifyGridOnGpu(const grid::Dims& dims, const ScalarArrayView& values,
                       const Monitor& monitor, Output& output) {
  output.vertexTypes.resize(values.size);
  gpu::classifyGridVertices(dims, values, monitor, output.vertexTypes.data(),
                            output.criticalVertices, output.report);
}

} // namespace topogpu::critical_points::detail
