// The output records (OutputRecords.h) of a complex answered at a persistence threshold
// (CancellationHierarchy.h): the kept critical cells (then the boundary maxima), and the
// 1-separatrices of the kept saddles, a path that ended at a removed extremum going on
// along the cancelled saddle's arcs (back up to that saddle, down its other arc) until a
// kept extremum: one polyline, TTK's line cells, whose DestinationId is the kept
// extremum. A path whose representative is the outside (a boundary facet's missing
// side) is dropped, as TTK drops the paths that leave. Saddle connectors: those between
// kept saddles. Port 2 keeps the walls of the kept saddles (keptWallSources).
#pragma once

#include "core/morse_smale_complex/CancellationHierarchy.h"
#include "core/morse_smale_complex/SimplicialRecords.h"

#include <algorithm>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

namespace detail {

// Extends path (ending at an extremum of side s) through the cancelled pairs to the
// representative; false when that is the outside.
template <typename Triangulation>
bool reroute(const Triangulation& tri, const Output& complex,
             const CancellationHierarchy& hierarchy, const SimplifiedComplex& answer,
             int s, std::vector<sg::Cell>& path) {
  const auto& g = complex.gradient;
  const int d = g.dimension;
  const auto& side = hierarchy.sides[std::size_t(s)];
  const auto& rep = answer.representative[std::size_t(s)];
  auto extremumOf = [&](const sg::Cell& c) -> SimplexId {
    if (s == 0 || c.dimension == d) {
      const auto& list = g.criticalCells[std::size_t(c.dimension)];
      const auto it = std::lower_bound(list.begin(), list.end(), c.id);
      return it != list.end() && *it == c.id ? SimplexId(it - list.begin()) : -1;
    }
    return -1; // a boundary maximum: never cancelled
  };
  for (SimplexId steps = 0; steps <= SimplexId(side.extremum.size()); ++steps) {
    const SimplexId e = extremumOf(path.back());
    if (e < 0 || rep[std::size_t(e)] == e)
      return true;
    if (rep[std::size_t(e)] == kOutsidePartner)
      return false;
    const SimplexId pair = side.pairOf[std::size_t(e)];
    const SimplexId saddle = side.saddle[std::size_t(pair)];
    // The saddle's two sides: the one reaching e, walked back, then the other.
    const int n = s == 0 ? 2 : sg::getFacetStarNumber(tri, d, saddle);
    int own = -1;
    std::vector<std::vector<sg::Cell>> sides(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      if (s == 0)
        descendingPath(tri, complex, tri.getEdgeVertex(saddle, k), sides[std::size_t(k)]);
      else
        ascendingPath(tri, complex, sg::getFacetStar(tri, d, saddle, k),
                      sides[std::size_t(k)]);
      if (own < 0 && extremumOf(sides[std::size_t(k)].back()) == e)
        own = k;
    }
    if (own < 0 || n < 2)
      return false;
    const auto& mine = sides[std::size_t(own)];
    path.insert(path.end(), mine.rbegin() + 1, mine.rend());
    path.push_back({s == 0 ? 1 : d - 1, saddle});
    const auto& other = sides[std::size_t(1 - own)];
    path.insert(path.end(), other.begin(), other.end());
  }
  return false;
}

} // namespace detail

// Ports 0 and 1 of the answer, as `on` asks (saddle connectors need the complex's
// connection paths).
template <typename Triangulation>
void buildSimplifiedRecords(Triangulation& tri, const Output& complex,
                            const CancellationHierarchy& hierarchy,
                            const SimplifiedComplex& answer,
                            const ScalarArrayView& values, const PointGeometry& points,
                            const RecordSwitches& on, Records& out) {
  out = Records();
  tri.precondition(kRequiredRelations | Boundary);
  const sg::Output& g = complex.gradient;
  const int d = g.dimension;
  const SimplexCells<Triangulation> cells{tri, complex.rank.data(), points, d};
  using Cell = sg::Cell;
  auto saddleGone = [&](int dim, std::size_t p) {
    return (dim == 1 && answer.saddleCancelled[0][p]) ||
           (dim == d - 1 && answer.saddleCancelled[1][p]);
  };
  if (on.criticalPoints) {
    const auto minimumSize = labelSizes(answer.descendingManifold, answer.kept[0].size());
    const auto maximumSize = labelSizes(answer.ascendingManifold, answer.kept[1].size());
    auto size = [&](const std::vector<SimplexId>& sizes, SimplexId i) {
      return on.manifoldSizes ? sizes[std::size_t(i)] : SimplexId(-1);
    };
    for (const SimplexId m : answer.kept[0])
      addCriticalPoint(cells, values, Cell{0, g.criticalCells[0][std::size_t(m)]},
                       size(minimumSize, answer.newIndex[0][std::size_t(m)]), false,
                       out.criticalPoints);
    for (int k = 1; k < d; ++k)
      for (std::size_t j = 0; j < g.criticalCells[std::size_t(k)].size(); ++j)
        if (!saddleGone(k, j))
          addCriticalPoint(cells, values, Cell{k, g.criticalCells[std::size_t(k)][j]},
                           on.manifoldSizes ? 0 : -1, false, out.criticalPoints);
    for (const SimplexId m : answer.kept[1]) {
      const Extremum& x = complex.maxima[std::size_t(m)];
      addCriticalPoint(cells, values, Cell{x.dimension, x.id},
                       size(maximumSize, answer.newIndex[1][std::size_t(m)]),
                       x.dimension != d, out.criticalPoints);
    }
  }
  Separatrix1Builder<SimplexCells<Triangulation>> separatrices(cells, values,
                                                               out.separatrices1);
  std::vector<std::vector<Cell>> paths;
  if (on.descending1) {
    for (std::size_t j = 0; j < g.criticalCells[1].size(); ++j) {
      if (saddleGone(1, j))
        continue;
      const SimplexId e = g.criticalCells[1][j];
      paths.assign(2, {});
      for (int k = 0; k < 2; ++k) {
        descendingPath(tri, complex, tri.getEdgeVertex(e, k), paths[std::size_t(k)]);
        detail::reroute(tri, complex, hierarchy, answer, 0, paths[std::size_t(k)]);
      }
      separatrices.addSaddle({1, e}, paths, 0);
    }
  }
  if (on.ascending1) {
    for (std::size_t j = 0; j < g.criticalCells[std::size_t(d - 1)].size(); ++j) {
      if (saddleGone(d - 1, j))
        continue;
      const SimplexId s = g.criticalCells[std::size_t(d - 1)][j];
      const int n = sg::getFacetStarNumber(tri, d, s);
      paths.clear();
      for (int k = 0; k < n; ++k) {
        std::vector<Cell> path;
        ascendingPath(tri, complex, sg::getFacetStar(tri, d, s, k), path);
        if (detail::reroute(tri, complex, hierarchy, answer, 1, path))
          paths.push_back(std::move(path));
      }
      separatrices.addSaddle({d - 1, s}, paths, d - 1);
    }
  }
  if (on.saddleConnectors && d == 3 && !complex.connectionPaths.empty()) {
    for (const SimplexId i : answer.keptConnections) {
      const std::vector<Cell>& path = complex.connectionPaths[std::size_t(i)];
      separatrices.addOwn(
          path.front(), {path.begin() + 1, path.end()}, 1,
          clampedMultiplicity(complex.connections[std::size_t(i)].multiplicity));
    }
  }
}

} // namespace topogpu::morse_smale_complex::simplicial
