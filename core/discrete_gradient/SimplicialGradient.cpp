#include "SimplicialGradient.h"

#include "core/discrete_gradient/DiscreteGradientGpu.h"

#include "base/BlockSelection.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

namespace topogpu::discrete_gradient::simplicial {

namespace detail {

std::vector<SimplexId> selectCells(const std::vector<std::uint8_t>& bytes,
                                   std::uint8_t code, SimplexId& unassigned) {
  const std::uint8_t* p = bytes.data();
  // [0] the cells with code, [1] the unassigned ones, counted in one pass; local counters
  // because a byte store may alias a total, which would then be reloaded for every byte.
  const BlockSelection<std::array<SimplexId, 2>> selection(
      SimplexId(bytes.size()), SimplexId(1) << 16, [&](SimplexId first, SimplexId last) {
        SimplexId count = 0, unknown = 0;
        for (SimplexId i = first; i < last; ++i) {
          count += p[i] == code;
          unknown += p[i] == kUnassigned;
        }
        return std::array<SimplexId, 2>{count, unknown};
      });
  unassigned = selection.total()[1];
  std::vector<SimplexId> cells(std::size_t(selection.total()[0]));
  selection.write(
      [&](SimplexId first, SimplexId last, const std::array<SimplexId, 2>& at) {
        SimplexId* out = cells.data() + at[0];
        for (SimplexId i = first; i < last; ++i)
          if (p[i] == code)
            *out++ = i;
      });
  return cells;
}

std::size_t gridDeviceBytes(const grid::Dims& dims, const ScalarArrayView& values) {
  const GridSimplices g = gridSimplicesOf(dims);
  const std::size_t n = std::size_t(values.size);
  std::size_t simplices = 0;
  for (int d = 0; d <= dims.dimension; ++d)
    simplices += std::size_t(simplexCount(g, d));
  // The vertex order's sort (values, keys, indices and scratch, as the critical points),
  // then the order, one byte per simplex and the compacted critical simplices with
  // their highest vertices (fewer than half the vertices in practice).
  const std::size_t sort = n * (3 * scalarTypeSize(values.type) + 5 * sizeof(SimplexId));
  const std::size_t gradient = n * sizeof(SimplexId) + simplices + n * sizeof(SimplexId);
  return std::max(sort, gradient);
}

void runGridGpu(const grid::Dims& dims, const ScalarArrayView& values,
                const Monitor& monitor, Output& output,
                std::vector<SimplexId>* keepOrder) {
  gpu::SimplicialGradientArrays arrays;
  gpu::computeSimplicialGradient(gridSimplicesOf(dims), values, monitor, arrays,
                                 keepOrder, output.report);
  output.gradient = std::move(arrays.gradient);
  output.criticalCells = std::move(arrays.criticalCells);
  output.criticalVertices = std::move(arrays.criticalVertices);
}

} // namespace detail

// The three backends, compiled once here.
template void execute(ImplicitTriangulation&, const ScalarArrayView&, const Parameters&,
                      const Monitor&, Output&, std::vector<SimplexId>*);
template void execute(ExplicitTriangulation&, const ScalarArrayView&, const Parameters&,
                      const Monitor&, Output&, std::vector<SimplexId>*);
template void execute(GaleTriangulation&, const ScalarArrayView&, const Parameters&,
                      const Monitor&, Output&, std::vector<SimplexId>*);

} // namespace topogpu::discrete_gradient::simplicial
