// A grid vertex's Freudenthal neighbours for the simplification's device kernels
// (host + device), the same set the implicit triangulation's VV relation lists.
#pragma once

#include "base/GridStencil.h"

namespace topogpu::topological_simplification {

// Calls f(u) for every neighbour u of grid vertex v, in GridStencil's order.
template <typename F>
TOPOGPU_HD void forEachGridNeighbor(const grid::Dims& d, SimplexId v, F&& f) {
  SimplexId c[3];
  grid::vertexCoords(d, v, c);
  const bool interior = grid::isInteriorCoords(d, c);
  for (int k = 0; k < 2 * grid::edgeTypeCount(d.dimension); ++k) {
    if (!interior) {
      const int m = grid::neighborMask(k), sign = grid::neighborSign(k);
      SimplexId n[3];
      for (int a = 0; a < 3; ++a)
        n[a] = c[a] + SimplexId(sign) * ((m >> a) & 1);
      if (!grid::anchorValid(d, n, 0))
        continue;
    }
    f(v + grid::neighborOffset(d, k));
  }
}

} // namespace topogpu::topological_simplification
