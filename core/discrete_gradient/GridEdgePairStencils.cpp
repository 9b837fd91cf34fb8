#include "GridEdgePairStencils.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace topogpu::discrete_gradient::simplicial {

void gridEdgePairStencils(const GridSimplices& g, const std::uint8_t* edgeBytes,
                          const std::uint8_t* triangleBytes,
                          std::vector<std::uint8_t>& out) {
  const SimplexId edges = simplexCount(g, 1);
  out.resize(std::size_t(edges));
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, edges),
                    [&](const tbb::blocked_range<SimplexId>& r) {
                      for (SimplexId e = r.begin(); e < r.end(); ++e)
                        out[std::size_t(e)] = edgeStencilOf(edgeBytes[e]);
                    });
  // Each edge is paired with at most one triangle: one writer per byte. Rows of
  // anchors, so no triangle id is decoded.
  for (int type = 0; type < grid::triangleTypeCount(g.dims.dimension); ++type) {
    const int span = grid::triangleType(g.dims.dimension, type).s2;
    const TriangleFaceStencils faces = triangleFaceStencils(g.dims.dimension, type);
    const SimplexId extent[3] = {g.dims.n[0] - (span & 1),
                                 g.dims.n[1] - ((span >> 1) & 1),
                                 g.dims.n[2] - ((span >> 2) & 1)};
    tbb::parallel_for(tbb::blocked_range<SimplexId>(0, extent[1] * extent[2]),
                      [&](const tbb::blocked_range<SimplexId>& rows) {
                        for (SimplexId row = rows.begin(); row < rows.end(); ++row) {
                          SimplexId q[3] = {0, row % extent[1], row / extent[1]};
                          const std::uint8_t* bytes =
                              triangleBytes + g.triangleOffset[type] + row * extent[0];
                          for (q[0] = 0; q[0] < extent[0]; ++q[0]) {
                            std::uint8_t k = 0;
                            const SimplexId e =
                                pairedFaceStencil(g, faces, q, bytes[q[0]], k);
                            if (e >= 0)
                              out[std::size_t(e)] = k;
                          }
                        }
                      });
  }
}

} // namespace topogpu::discrete_gradient::simplicial
