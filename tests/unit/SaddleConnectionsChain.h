// A hand-built gradient with exactly 2^k V-paths between its one 2-saddle and its one
// 1-saddle, shared by tests/unit/test_saddle_connections.cpp and
// tests/gpu/gpu_equality.cpp.
#pragma once

#include "core/discrete_gradient/DiscreteGradient.h"

#include <cstdint>

namespace topogpu::test {

// A chain of k diamonds along x (a (2k+1) x 2 x 2 grid, bytes set by hand): unit i at
// refined x = b = 4i goes from quad (b+1,1,0) down to quad (b+3,1,0) along two V-paths
// (directly through edge (b+2,1,0), or through (b+1,0,0), (b+1,0,1), (b+2,0,1),
// (b+2,1,1) and then that edge), then through edge (b+4,1,0) into the next unit. The
// first quad is the 2-saddle and edge (4k,1,0) the 1-saddle: 2^k V-paths. Every other
// edge is paired with a vertex and every other quad with a voxel.
inline discrete_gradient::Output diamondChain(int k) {
  discrete_gradient::Output g;
  g.grid.n[0] = 2 * k + 1;
  g.grid.n[1] = g.grid.n[2] = 2;
  g.grid.dimension = 3;
  const SimplexId nx = 4 * SimplexId(k) + 1;
  const auto cell = [nx](SimplexId x, SimplexId y, SimplexId z) {
    return x + nx * (y + 3 * z);
  };
  g.gradient.assign(std::size_t(nx) * 9, 0);
  for (SimplexId z = 0; z < 3; ++z)
    for (SimplexId y = 0; y < 3; ++y)
      for (SimplexId x = 0; x < nx; ++x) {
        const SimplexId c[3] = {x, y, z};
        const int odd = int(x % 2 + y % 2 + z % 2);
        int along = 0;
        for (int a = 0; a < 3; ++a)
          if ((c[a] % 2 == 1) == (odd == 1))
            along = a;
        g.gradient[std::size_t(cell(x, y, z))] =
            std::uint8_t(2 * along + (c[along] > 0 ? 1 : 0));
      }
  const auto pair = [&](SimplexId edge, SimplexId quad, int axis) {
    g.gradient[std::size_t(edge)] = cubical::pairCode(axis, +1);
    g.gradient[std::size_t(quad)] = cubical::pairCode(axis, -1);
  };
  for (SimplexId i = 0; i < k; ++i) {
    const SimplexId b = 4 * i;
    pair(cell(b + 1, 0, 0), cell(b + 1, 0, 1), 2);
    pair(cell(b + 2, 0, 1), cell(b + 2, 1, 1), 1);
    pair(cell(b + 2, 1, 0), cell(b + 3, 1, 0), 0);
    if (i + 1 < k)
      pair(cell(b + 4, 1, 0), cell(b + 5, 1, 0), 0);
  }
  g.gradient[std::size_t(cell(1, 1, 0))] = cubical::kCritical;
  g.gradient[std::size_t(cell(4 * SimplexId(k), 1, 0))] = cubical::kCritical;
  g.criticalCells[1] = {cell(4 * SimplexId(k), 1, 0)};
  g.criticalCells[2] = {cell(1, 1, 0)};
  return g;
}

} // namespace topogpu::test
