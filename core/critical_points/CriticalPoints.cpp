#include "CriticalPoints.h"

#include "core/critical_points/CriticalPointsGpu.h"

#include "base/BlockSelection.h"

#include <algorithm>
#include <string>

namespace topogpu::critical_points::detail {

std::vector<SimplexId> selectCritical(const std::vector<std::int8_t>& types) {
  return selectIndices(SimplexId(types.size()), [&](SimplexId v) {
    return types[std::size_t(v)] != std::int8_t(CriticalType::Regular);
  });
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
