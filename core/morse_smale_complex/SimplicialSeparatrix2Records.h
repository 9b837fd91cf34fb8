// Port 2 of the simplicial complex (OutputRecords.h's Separatrix2Records) from its walls
// (SimplicialSeparatrices2.h), drawn as TTK 1.2's MorseSmaleComplex draws them:
//
//  - a descending wall (SeparatrixType 2, numbered first) as its triangles, corners at
//    the input's vertices, one point per vertex shared by all descending walls;
//  - an ascending wall (SeparatrixType 1, numbered next) as the dual polygons of its
//    edges (dualPolygon: the barycentres of the tets around the edge, in cyclic order),
//    one point per tet shared by all ascending walls; an edge with two tets or fewer
//    around it bounds no polygon and is not drawn (TTK's rule);
//  - per polygon its wall's cell data: SourceId (the saddle's id among the simplices of
//    its dimension), SeparatrixId, SeparatrixType, the function range (the values at the
//    walls' functionMaximum / functionMinimum vertices) and
//    NumberOfCriticalPointsOnBoundary.
//
// Points are numbered in vertex (tet) id order, as TTK's sorted ids.
#pragma once

#include "core/morse_smale_complex/CellValues.h"
#include "core/morse_smale_complex/OutputRecords.h"
#include "core/morse_smale_complex/SimplicialSeparatrices2.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

namespace detail {

// Ids -> their rank among the sorted distinct ids (the point of each vertex or tet).
inline std::vector<SimplexId> distinctIds(std::vector<SimplexId> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

inline SimplexId pointOf(const std::vector<SimplexId>& distinct, SimplexId id) {
  return SimplexId(std::lower_bound(distinct.begin(), distinct.end(), id) -
                   distinct.begin());
}

// One wall's cell data on its n polygons.
inline void addWallData(const separatrices2::simplicial::WallAttributes& attributes,
                        std::size_t i, SimplexId source, SimplexId separatrixId, int type,
                        std::size_t n, const ScalarArrayView& values,
                        Separatrix2Records& out) {
  out.sourceId.insert(out.sourceId.end(), n, source);
  out.separatrixId.insert(out.separatrixId.end(), n, separatrixId);
  out.separatrixType.insert(out.separatrixType.end(), n, static_cast<signed char>(type));
  out.functionMaximum.insert(out.functionMaximum.end(), n,
                             valueAt(values, attributes.functionMaximum[i]));
  out.functionMinimum.insert(out.functionMinimum.end(), n,
                             valueAt(values, attributes.functionMinimum[i]));
  out.onBoundary.insert(
      out.onBoundary.end(), n,
      static_cast<signed char>(std::min<int>(attributes.onBoundary[i], 127)));
}

} // namespace detail

// The records of the walls computed with keepCells (no polygons otherwise).
template <typename Triangulation>
void buildSeparatrices2(const Triangulation& tri,
                        const separatrices2::simplicial::Output& walls,
                        const ScalarArrayView& values, const PointGeometry& points,
                        Separatrix2Records& out) {
  out = Separatrix2Records();
  SimplexId separatrixId = 0;

  // Descending walls: their triangles.
  const separatrices2::Walls& down = walls.descending;
  std::vector<SimplexId> corners;
  corners.reserve(3 * down.cells.size());
  for (const SimplexId t : down.cells)
    for (int k = 0; k < 3; ++k)
      corners.push_back(tri.getTriangleVertex(t, k));
  const std::vector<SimplexId> vertices = detail::distinctIds(corners);
  for (const SimplexId v : vertices) {
    double p[3];
    points.position(v, p);
    out.points.insert(out.points.end(), p, p + 3);
  }
  for (std::size_t i = 0; i + 1 < down.offsets.size(); ++i, ++separatrixId) {
    for (std::size_t k = down.offsets[i]; k < down.offsets[i + 1]; ++k) {
      for (std::size_t j = 0; j < 3; ++j)
        out.connectivity.push_back(detail::pointOf(vertices, corners[3 * k + j]));
      out.offsets.push_back(SimplexId(out.connectivity.size()));
    }
    detail::addWallData(walls.descendingAttributes, i, down.saddles[i], separatrixId, 2,
                        down.offsets[i + 1] - down.offsets[i], values, out);
  }

  // Ascending walls: the dual polygons of their edges with more than two tets around.
  const separatrices2::Walls& up = walls.ascending;
  std::vector<SimplexId> polygonOffsets{0}, tets, fan;
  for (const SimplexId e : up.cells) {
    separatrices2::simplicial::dualPolygon(tri, e, fan);
    if (fan.size() > 2)
      tets.insert(tets.end(), fan.begin(), fan.end());
    polygonOffsets.push_back(SimplexId(tets.size()));
  }
  const std::vector<SimplexId> centres = detail::distinctIds(tets);
  const SimplexId firstCentre = SimplexId(out.points.size() / 3);
  for (const SimplexId c : centres) {
    double p[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
      double x[3];
      points.position(tri.getCellVertex(c, k), x);
      for (int a = 0; a < 3; ++a)
        p[a] += 0.25 * x[a];
    }
    out.points.insert(out.points.end(), p, p + 3);
  }
  for (std::size_t i = 0; i + 1 < up.offsets.size(); ++i, ++separatrixId) {
    std::size_t drawn = 0;
    for (std::size_t k = up.offsets[i]; k < up.offsets[i + 1]; ++k) {
      if (polygonOffsets[k + 1] == polygonOffsets[k])
        continue;
      for (SimplexId j = polygonOffsets[k]; j < polygonOffsets[k + 1]; ++j)
        out.connectivity.push_back(firstCentre +
                                   detail::pointOf(centres, tets[std::size_t(j)]));
      out.offsets.push_back(SimplexId(out.connectivity.size()));
      ++drawn;
    }
    detail::addWallData(walls.ascendingAttributes, i, up.saddles[i], separatrixId, 1,
                        drawn, values, out);
  }
}

} // namespace topogpu::morse_smale_complex::simplicial
