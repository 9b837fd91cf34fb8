// The output records (OutputRecords.h) of the simplicial complex
// (SimplicialMorseSmaleComplex.h), through any triangulation backend: cells are
// simplices (dimension + id), points at their barycentres, the vertex order the one
// execute kept (Output::rank). Port 2 (the walls): SimplicialSeparatrix2Records.h.
#pragma once

#include "core/morse_smale_complex/RecordBuilders.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"

#include <utility>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

// Simplices of a triangulation, for RecordBuilders.h.
template <typename Triangulation> struct SimplexCells {
  using Cell = sg::Cell;
  const Triangulation& tri;
  const SimplexId* rank;
  const PointGeometry& points;
  int top;

  int dimension(const Cell& c) const { return c.dimension; }
  SimplexId id(const Cell& c) const { return c.id; }
  SimplexId vertex(const Cell& c) const {
    return sg::detail::highestVertex(tri, c.dimension, c.id, rank);
  }
  std::pair<int, SimplexId> key(const Cell& c) const { return {c.dimension, c.id}; }

  SimplexId vertexOf(const Cell& c, int k) const {
    return c.dimension == 0   ? c.id
           : c.dimension == 1 ? tri.getEdgeVertex(c.id, k)
           : c.dimension == 2 ? tri.getTriangleVertex(c.id, k)
                              : tri.getCellVertex(c.id, k);
  }
  void centre(const Cell& c, double p[3]) const {
    p[0] = p[1] = p[2] = 0;
    for (int k = 0; k <= c.dimension; ++k) {
      double x[3];
      points.position(vertexOf(c, k), x);
      for (int a = 0; a < 3; ++a)
        p[a] += x[a] / (c.dimension + 1);
    }
  }
  // The backend's flags; a top cell when one of its facets is, a triangle of a 2D mesh
  // when one of its edges is.
  bool onBoundary(const Cell& c) const {
    switch (c.dimension) {
    case 0:
      return tri.isVertexOnBoundary(c.id);
    case 1:
      return tri.isEdgeOnBoundary(c.id);
    case 2:
      if (top == 3)
        return tri.isTriangleOnBoundary(c.id);
      for (int k = 0; k < 3; ++k)
        if (tri.isEdgeOnBoundary(tri.getTriangleEdge(c.id, k)))
          return true;
      return false;
    default:
      for (int k = 0; k < 4; ++k)
        if (tri.isTriangleOnBoundary(tri.getTetTriangle(c.id, k)))
          return true;
      return false;
    }
  }
};

// Ports 0 and 1 as `on` asks (saddle connectors need Parameters::keepConnectionPaths).
template <typename Triangulation>
void buildRecords(Triangulation& tri, const Output& result, const ScalarArrayView& values,
                  const PointGeometry& points, const RecordSwitches& on, Records& out) {
  out = Records();
  tri.precondition(kRequiredRelations | Boundary);
  const sg::Output& g = result.gradient;
  const int d = g.dimension;
  const SimplexCells<Triangulation> cells{tri, result.rank.data(), points, d};
  using Cell = sg::Cell;
  if (on.criticalPoints) {
    const auto minimumSize =
        labelSizes(result.descendingManifold, g.criticalCells[0].size());
    const auto maximumSize = labelSizes(result.ascendingManifold, result.maxima.size());
    for (int k = 0; k <= d; ++k)
      for (std::size_t j = 0; j < g.criticalCells[k].size(); ++j)
        addCriticalPoint(cells, values, Cell{k, g.criticalCells[k][j]},
                         !on.manifoldSizes
                             ? -1
                             : (k == 0 ? minimumSize[j] : (k == d ? maximumSize[j] : 0)),
                         false, out.criticalPoints);
    for (std::size_t j = g.criticalCells[d].size(); j < result.maxima.size(); ++j)
      addCriticalPoint(cells, values,
                       Cell{result.maxima[j].dimension, result.maxima[j].id},
                       on.manifoldSizes ? maximumSize[j] : -1, true, out.criticalPoints);
  }
  Separatrix1Builder<SimplexCells<Triangulation>> separatrices(cells, values,
                                                               out.separatrices1);
  if (on.descending1) {
    for (const SimplexId e : g.criticalCells[1]) {
      std::vector<std::vector<Cell>> paths(2);
      for (int k = 0; k < 2; ++k)
        descendingPath(tri, result, tri.getEdgeVertex(e, k), paths[std::size_t(k)]);
      separatrices.addSaddle({1, e}, paths, 0);
    }
  }
  if (on.ascending1) {
    for (const SimplexId s : g.criticalCells[d - 1]) {
      const int n = sg::getFacetStarNumber(tri, d, s);
      std::vector<std::vector<Cell>> paths(static_cast<std::size_t>(n));
      for (int k = 0; k < n; ++k)
        ascendingPath(tri, result, sg::getFacetStar(tri, d, s, k), paths[std::size_t(k)]);
      separatrices.addSaddle({d - 1, s}, paths, d - 1);
    }
  }
  if (on.saddleConnectors && d == 3) {
    for (std::size_t i = 0; i < result.connectionPaths.size(); ++i) {
      const std::vector<Cell>& path = result.connectionPaths[i];
      separatrices.addOwn(path.front(), {path.begin() + 1, path.end()}, 1,
                          clampedMultiplicity(result.connections[i].multiplicity));
    }
  }
}

} // namespace topogpu::morse_smale_complex::simplicial
