#include "SimplicialGradient.h"

#include "core/discrete_gradient/DiscreteGradientGpu.h"

#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

namespace topogpu::discrete_gradient::simplicial {

namespace detail {

// Counted per block in parallel, then each block writes its part at its prefix offset.
std::vector<SimplexId> selectCells(const std::vector<std::uint8_t>& bytes,
                                   std::uint8_t code, SimplexId& unassigned) {
  const SimplexId n = SimplexId(bytes.size());
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(256, n / 65536));
  std::vector<SimplexId> offsets(blocks + 1, 0), lost(blocks, 0);
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    // Local counters: a byte store may alias the totals, which would then be reloaded
    // and stored for every byte (and share cache lines between threads).
    SimplexId count = 0, unknown = 0;
    const std::uint8_t* p = bytes.data();
    for (SimplexId i = n * b / blocks; i < n * (b + 1) / blocks; ++i) {
      count += p[i] == code;
      unknown += p[i] == kUnassigned;
    }
    offsets[b + 1] = count;
    lost[b] = unknown;
  });
  unassigned = 0;
  for (const SimplexId l : lost)
    unassigned += l;
  for (SimplexId b = 0; b < blocks; ++b)
    offsets[b + 1] += offsets[b];
  std::vector<SimplexId> cells(offsets.back());
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    SimplexId* out = cells.data() + offsets[b];
    const std::uint8_t* p = bytes.data();
    for (SimplexId i = n * b / blocks; i < n * (b + 1) / blocks; ++i)
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
