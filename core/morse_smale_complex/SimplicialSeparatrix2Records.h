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

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

namespace detail {

// Ids -> their rank among the sorted distinct ids (the point of each vertex or tet).
inline std::vector<SimplexId> distinctIds(std::vector<SimplexId> ids) {
  tbb::parallel_sort(ids.begin(), ids.end());
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

// Polygon corners allowed per cell of separatrices2::Parameters::maxCells: a triangle has
// 3, the dual polygon of a grid's edge 4 or 6; a mesh's edge with many tets around it
// makes a larger one, so the corners are bounded apart from the cells.
constexpr std::size_t kCornersPerWallCell = 6;

// The records of the walls computed with keepCells (no polygons otherwise). Parallel
// over the wall cells (TBB); the points in id order whatever the thread count. Throws
// Error, before drawing anything, when the polygons would have more than
// kCornersPerWallCell x parameters.maxCells corners (the Error names both).
template <typename Triangulation>
void buildSeparatrices2(const Triangulation& tri,
                        const separatrices2::simplicial::Output& walls,
                        const ScalarArrayView& values, const PointGeometry& points,
                        const separatrices2::Parameters& parameters,
                        Separatrix2Records& out) {
  out = Separatrix2Records();
  // The corners first: 3 per triangle, the tets around each edge drawn.
  const separatrices2::Walls& up = walls.ascending;
  std::vector<std::size_t> fanOffsets(up.cells.size() + 1, 0);
  tbb::parallel_for(std::size_t(0), up.cells.size(), [&](std::size_t k) {
    const int n = tri.getEdgeTetNumber(up.cells[k]);
    fanOffsets[k + 1] = n > 2 ? std::size_t(n) : 0;
  });
  for (std::size_t k = 0; k < up.cells.size(); ++k)
    fanOffsets[k + 1] += fanOffsets[k];
  const std::size_t corners = 3 * walls.descending.cells.size() + fanOffsets.back();
  const std::size_t limit = kCornersPerWallCell * parameters.maxCells;
  if (corners > limit)
    throw Error("2-separatrices: drawing the walls takes " + std::to_string(corners) +
                " polygon corners, more than the limit of " + std::to_string(limit) +
                " (" + std::to_string(kCornersPerWallCell) + " per cell of the " +
                std::to_string(parameters.maxCells) +
                "-cell limit: edges with many tetrahedra around them draw large "
                "polygons); compute them on a smaller or smoothed field, or switch "
                "them off");
  SimplexId separatrixId = 0;
  auto each = [](std::size_t n, auto&& f) { tbb::parallel_for(std::size_t(0), n, f); };

  // Descending walls: their triangles.
  const separatrices2::Walls& down = walls.descending;
  std::vector<SimplexId> triangleCorners(3 * down.cells.size());
  each(triangleCorners.size(), [&](std::size_t i) {
    triangleCorners[i] = tri.getTriangleVertex(down.cells[i / 3], int(i % 3));
  });
  const std::vector<SimplexId> vertices = detail::distinctIds(triangleCorners);
  out.points.resize(3 * vertices.size());
  each(vertices.size(),
       [&](std::size_t i) { points.position(vertices[i], &out.points[3 * i]); });
  out.connectivity.resize(triangleCorners.size());
  each(triangleCorners.size(), [&](std::size_t i) {
    out.connectivity[i] = detail::pointOf(vertices, triangleCorners[i]);
  });
  for (std::size_t k = 0; k < down.cells.size(); ++k)
    out.offsets.push_back(SimplexId(3 * (k + 1)));
  for (std::size_t i = 0; i < down.size(); ++i, ++separatrixId)
    detail::addWallData(walls.descendingAttributes, i, down.saddles[i], separatrixId, 2,
                        down.offsets[i + 1] - down.offsets[i], values, out);

  // Ascending walls: the dual polygons of their edges with more than two tets around.
  std::vector<SimplexId> tets(fanOffsets.back());
  tbb::enumerable_thread_specific<std::vector<SimplexId>> fans;
  each(up.cells.size(), [&](std::size_t k) {
    if (fanOffsets[k + 1] == fanOffsets[k])
      return;
    std::vector<SimplexId>& fan = fans.local();
    separatrices2::simplicial::dualPolygon(tri, up.cells[k], fan);
    std::copy(fan.begin(), fan.end(), tets.begin() + std::ptrdiff_t(fanOffsets[k]));
  });
  const std::vector<SimplexId> centres = detail::distinctIds(tets);
  const std::size_t firstCentre = out.points.size() / 3;
  out.points.resize(out.points.size() + 3 * centres.size());
  each(centres.size(), [&](std::size_t i) {
    double* p = &out.points[3 * (firstCentre + i)];
    p[0] = p[1] = p[2] = 0;
    for (int k = 0; k < 4; ++k) {
      double x[3];
      points.position(tri.getCellVertex(centres[i], k), x);
      for (int a = 0; a < 3; ++a)
        p[a] += 0.25 * x[a];
    }
  });
  const std::size_t base = out.connectivity.size();
  out.connectivity.resize(base + tets.size());
  each(tets.size(), [&](std::size_t j) {
    out.connectivity[base + j] =
        SimplexId(firstCentre) + detail::pointOf(centres, tets[j]);
  });
  for (std::size_t i = 0; i < up.size(); ++i, ++separatrixId) {
    std::size_t drawn = 0;
    for (std::size_t k = up.offsets[i]; k < up.offsets[i + 1]; ++k)
      if (fanOffsets[k + 1] > fanOffsets[k]) {
        out.offsets.push_back(SimplexId(base + fanOffsets[k + 1]));
        ++drawn;
      }
    detail::addWallData(walls.ascendingAttributes, i, up.saddles[i], separatrixId, 1,
                        drawn, values, out);
  }
}

} // namespace topogpu::morse_smale_complex::simplicial
