#include "DiscreteGradient.h"

#include "core/discrete_gradient/DiscreteGradientGpu.h"
#include "core/discrete_gradient/LowerStar.h"

#include "base/BlockSelection.h"

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

// Critical cells per dimension in ascending ids, selected in one pass.
void compactCritical(const Output& output, std::array<std::vector<SimplexId>, 4>& lists) {
  const cubical::Grid& g = output.grid;
  const std::uint8_t* gradient = output.gradient.data();
  using Counts = std::array<SimplexId, 4>;
  const BlockSelection<Counts> selection(
      cubical::cellCount(g), SimplexId(1) << 16, [&](SimplexId first, SimplexId last) {
        Counts counts{};
        for (SimplexId cell = first; cell < last; ++cell)
          if (gradient[cell] == cubical::kCritical)
            ++counts[std::size_t(cubical::cellDimension(g, cell))];
        return counts;
      });
  for (std::size_t k = 0; k < 4; ++k)
    lists[k].resize(std::size_t(selection.total()[k]));
  selection.write([&](SimplexId first, SimplexId last, Counts at) {
    for (SimplexId cell = first; cell < last; ++cell) {
      if (gradient[cell] == cubical::kCritical) {
        const auto k = std::size_t(cubical::cellDimension(g, cell));
        lists[k][std::size_t(at[k]++)] = cell;
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
