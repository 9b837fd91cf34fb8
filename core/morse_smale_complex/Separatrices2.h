// The 2-separatrices of a 3D grid's discrete gradient (TTK MorseSmaleComplex's port 2):
// the walls of the saddles, read from the gradient bytes. The descending 2-separatrix of
// a 2-saddle (a critical quad) is every quad its descending V-paths reach: quad -> one
// of its edges -> the quad paired with that edge -> ...; the ascending 2-separatrix of a
// 1-saddle (a critical edge) is every edge its ascending V-paths reach: edge -> one of
// its cofacet quads -> the edge paired with that quad -> ... (the successors of the
// saddle-saddle DAG, SaddleConnectionsGraph.h). One breadth-first search per saddle with
// its own visited set, saddles in parallel (TBB). 2D grids have no walls.
//
// Cost: a wall holds up to the whole volume's quads or edges, and the walls of different
// saddles overlap, so the output grows with (saddles x wall size): 8 bytes per wall cell
// here (plus, while a saddle is searched, a hash set of its wall's cells), about 120
// bytes per cell once drawn by the filter. Parameters::maxCells bounds the total, counted
// as cells are found; beyond it compute throws an Error naming the limit instead of
// exhausting memory (see docs/filters/morse-smale-complex.md, "2-separatrices").
#pragma once

#include "base/Types.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/morse_smale_complex/WallWalk.h"

#include <cstddef>
#include <vector>

namespace topogpu::separatrices2 {

struct Parameters {
  bool ascending = false;  // walls of the 1-saddles (TTK: ComputeAscendingSeparatrices2)
  bool descending = false; // walls of the 2-saddles (TTK: ComputeDescendingSeparatrices2)
  // All walls' cells together, both kinds: 2^25 cells are about 4 GiB once drawn.
  std::size_t maxCells = std::size_t(1) << 25;
  // false: count the walls' cells (Walls::cellCounts) without keeping them, so no limit
  // applies (the CLI's counts).
  bool keepCells = true;
};

struct Output {
  Walls descending; // of the critical quads (empty unless asked for, or in 2D)
  Walls ascending;  // of the critical edges
  void clear() { *this = Output(); }
};

namespace detail {

// Both kinds of walls as parameters asks, for either complex (its steps as in
// walkWalls): the descending walls of the 2-saddles first, then the ascending walls of
// the 1-saddles within what the first left of maxCells, the progress split between them
// when both run. Throws wallsTooLarge, both walls cleared, when the limit is reached.
template <typename DescendingStep, typename AscendingStep>
void walkAskedWalls(const Parameters& parameters, const std::vector<SimplexId>& saddles2,
                    DescendingStep&& descendingStep,
                    const std::vector<SimplexId>& saddles1, AscendingStep&& ascendingStep,
                    const Monitor& monitor, Walls& descending, Walls& ascending) {
  const std::size_t limit = parameters.maxCells;
  const bool both = parameters.ascending && parameters.descending;
  auto fail = [&](const char* kind) {
    descending = Walls();
    ascending = Walls();
    return wallsTooLarge(kind, limit);
  };
  bool over = false;
  if (parameters.descending) {
    walkWalls(saddles2, descendingStep, parameters.keepCells, limit,
              both ? monitor.stage(0, 0.5) : monitor, descending, over);
    if (over)
      throw fail("descending");
  }
  if (parameters.ascending) {
    walkWalls(saddles1, ascendingStep, parameters.keepCells,
              limit - descending.cells.size(), both ? monitor.stage(0.5, 1) : monitor,
              ascending, over);
    if (over)
      throw fail(both ? "ascending and descending" : "ascending");
  }
}

} // namespace detail

// The walls asked for by parameters, of a complete gradient. Throws Error when the walls
// would hold more than parameters.maxCells cells (no partial output), Aborted on abort.
// Progress 0..1 over the saddles; the time goes to report.timings.
void compute(const discrete_gradient::Output& gradient, const Parameters& parameters,
             const Monitor& monitor, Output& output, RunReport& report);

// The polygon drawing wall cell `cell` (a quad or an edge of a 3D grid), as 4 refined
// ids in cyclic order. A quad: its 4 vertices. An edge: its dual quad, in the plane
// through the edge's midpoint perpendicular to it, whose corners are the centres of the
// 4 voxels around the edge; where the edge lies on the box's boundary, a missing voxel's
// corner is clamped into the box and becomes the centre of the boundary quad (or, on
// the box's edges, of the edge itself) between the voxels, so the polygon is the dual
// cell cut by the box: always 4 distinct corners, planar and axis-aligned.
TOPOGPU_HD void polygonCorners(const cubical::Grid& g, SimplexId cell,
                               SimplexId corners[4]) {
  SimplexId c[3];
  cubical::cellCoords(g, cell, c);
  // The two axes the polygon spans: a quad's spanned axes, an edge's unspanned ones.
  const bool quad = cubical::cellDimension(g, cell) == 2;
  int axes[2], k = 0;
  for (int a = 0; a < 3 && k < 2; ++a)
    if (bool(c[a] & 1) == quad)
      axes[k++] = a;
  const int signs[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (int i = 0; i < 4; ++i) {
    SimplexId p[3] = {c[0], c[1], c[2]};
    for (int j = 0; j < 2; ++j) {
      const int a = axes[j];
      const SimplexId at = c[a] + signs[i][j];
      if (at >= 0 && at < cubical::refinedSize(g, a))
        p[a] = at;
    }
    corners[i] = cubical::cellAt(g, p);
  }
}

} // namespace topogpu::separatrices2
