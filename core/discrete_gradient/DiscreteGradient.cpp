#include "DiscreteGradient.h"

#include "core/discrete_gradient/DiscreteGradientGpu.h"
#include "core/discrete_gradient/LowerStar.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace topogpu::discrete_gradient::detail {

std::size_t deviceBytes(const cubical::Grid& grid, const ScalarArrayView& values) {
  // values and order (plus the sort's scratch, as the critical points), one byte per
  // cell, and the largest compacted list (bounded by the cells)
  const std::size_t n = std::size_t(values.size);
  return n * (3 * scalarTypeSize(values.type) + 5 * sizeof(SimplexId)) +
         std::size_t(cubical::cellCount(grid)) * (1 + sizeof(SimplexId) / 4);
}

namespace {

// Critical cells per dimension in ascending ids: counted per block in parallel, then
// each block writes its part at its prefix offset (the CPU twin of the GPU's copy_if).
void compactCritical(const Output& output, std::array<std::vector<SimplexId>, 4>& lists) {
  const cubical::Grid& g = output.grid;
  const SimplexId n = cubical::cellCount(g);
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(256, n / 65536));
  std::vector<std::array<SimplexId, 4>> offsets(blocks + 1, std::array<SimplexId, 4>{});
  const std::uint8_t* gradient = output.gradient.data();
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    for (SimplexId cell = n * b / blocks; cell < n * (b + 1) / blocks; ++cell) {
      if (gradient[cell] == cubical::kCritical)
        ++offsets[b + 1][cubical::cellDimension(g, cell)];
    }
  });
  for (SimplexId b = 0; b < blocks; ++b)
    for (int k = 0; k < 4; ++k)
      offsets[b + 1][k] += offsets[b][k];
  for (int k = 0; k < 4; ++k)
    lists[k].resize(offsets[blocks][k]);
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    std::array<SimplexId, 4> at = offsets[b];
    for (SimplexId cell = n * b / blocks; cell < n * (b + 1) / blocks; ++cell) {
      if (gradient[cell] == cubical::kCritical) {
        const int k = cubical::cellDimension(g, cell);
        lists[k][at[k]++] = cell;
      }
    }
  });
}

} // namespace

void runCpu(const ScalarArrayView& values, const Monitor& monitor, Output& output,
            std::vector<SimplexId>* keepOrder, const VertexOrderSource& vertexOrder) {
  const cubical::Grid g = output.grid;
  const SimplexId n = values.size;
  VertexOrderView order =
      vertexOrderOf(vertexOrder, values, monitor.stage(0, kOrderEnd), output.report);
  monitor.checkAbort();

  Timer timer;
  output.gradient.assign(std::size_t(cubical::cellCount(g)), cubical::kUnassigned);
  // Blocks of vertices between abort checks; each lower star writes only its own cells.
  const SimplexId chunks = std::max<SimplexId>(1, std::min<SimplexId>(16, n / 65536));
  for (SimplexId k = 0; k < chunks; ++k) {
    tbb::parallel_for(n * k / chunks, n * (k + 1) / chunks, [&](SimplexId v) {
      cubical::processLowerStar(g, v, order.data(), output.gradient.data());
    });
    monitor.checkAbort();
    monitor.report(kOrderEnd + (kGradientEnd - kOrderEnd) * double(k + 1) / chunks);
  }
  output.report.timings.emplace_back("gradient (cpu)", timer.seconds());

  timer.reset();
  compactCritical(output, output.criticalCells);
  output.report.timings.emplace_back("critical cells (cpu)", timer.seconds());
  if (keepOrder != nullptr)
    order.moveTo(*keepOrder);
}

void runGpu(const ScalarArrayView& values, const Monitor& monitor, Output& output) {
  gpu::computeDiscreteGradient(output.grid, values, monitor, output.gradient,
                               output.criticalCells, output.report);
}

void summarize(Output& output) {
  for (int k = 0; k < 4; ++k) {
    const auto& cells = output.criticalCells[k];
    output.counts[k] = SimplexId(cells.size());
    auto& ids = output.criticalCellIds[k];
    ids.resize(cells.size());
    tbb::parallel_for(std::size_t(0), cells.size(), [&](std::size_t i) {
      ids[i] = cubical::cellIdInDimension(output.grid, cells[i]);
    });
  }
}

} // namespace topogpu::discrete_gradient::detail
