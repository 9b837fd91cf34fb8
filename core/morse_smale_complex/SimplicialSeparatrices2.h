// The 2-separatrices of a simplicial discrete gradient on a tetrahedral complex (TTK
// 1.2's MorseSmaleComplex port 2, getDescendingSeparatrices2 and
// getAscendingSeparatrices2), through any triangulation backend (implicit grid,
// explicit mesh, GALE: only the concept's accessors):
//
//  - the descending 2-separatrix of a 2-saddle (a critical triangle) is its descending
//    wall: every triangle reached from it by triangle -> one of its edges -> the
//    triangle that edge is paired with (other than the triangle itself); a critical edge
//    on the way is a 1-saddle the wall touches (its "reached" saddles), an edge paired
//    with a vertex ends the path. TTK draws each wall triangle as itself;
//  - the ascending 2-separatrix of a 1-saddle (a critical edge) is its ascending wall:
//    every edge reached from it by edge -> one of its triangles -> the edge that triangle
//    is paired with (other than the edge itself); a critical triangle on the way is a
//    2-saddle the wall touches, a triangle paired with a tet ends the path. TTK draws
//    each wall edge with more than two tets around it as its dual polygon: the
//    barycentres of those tets in cyclic order (dualPolygon below).
//
// Triangle meshes and 2D grids have no walls (empty output, as TTK). Per wall, TTK's
// cell arrays come from the saddles: SeparatrixFunctionMaximum and Minimum are the values
// at the vertices functionMaximum / functionMinimum (descending: the 2-saddle's highest
// vertex, and the lowest of its reached 1-saddles' lowest vertices, else of its
// triangles'; ascending: the mirror), IsOnBoundary counts the source and reached saddles
// on the boundary. One breadth-first search per saddle (WallWalk.h), saddles in
// parallel; the walls overlap, so kept cells are bounded by Parameters::maxCells (an
// Error names the limit), and counting alone (keepCells = false) keeps none.
#pragma once

#include "base/Timer.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/Separatrices2.h"
#include "core/morse_smale_complex/WallWalk.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace topogpu::separatrices2::simplicial {

namespace sg = discrete_gradient::simplicial;

// What the walls and their attributes read besides the gradient's own relations: the
// edges' triangles and tets (dual polygons) and the boundary flags.
constexpr Relations kRequiredRelations =
    sg::kPairRelations | ET | BoundaryEdges | BoundaryTriangles;

// TTK's per-separatrix cell data of one kind of walls, parallel to Walls::saddles.
struct WallAttributes {
  std::vector<SimplexId> functionMaximum, functionMinimum; // vertex ids
  std::vector<std::uint8_t> onBoundary; // source + reached saddles on the boundary
};

struct Output {
  Walls descending; // triangles, of the 2-saddles (critical triangles)
  Walls ascending;  // edges, of the 1-saddles (critical edges)
  WallAttributes descendingAttributes, ascendingAttributes;
  void clear() { *this = Output(); }
};

// The walls asked for by parameters (ascending, descending, maxCells, keepCells) of a
// complete simplicial gradient; rank is the vertex order it was computed with. Throws
// Error when kept walls would exceed parameters.maxCells (no partial output), Aborted on
// abort. Progress 0..1 over the saddles; the time goes to report.timings.
template <typename Triangulation>
void compute(Triangulation& tri, const sg::Output& gradient, const SimplexId* rank,
             const Parameters& parameters, const Monitor& monitor, Output& output,
             RunReport& report);

// The tets around edge e in cyclic order (consecutive ones share a triangle; around a
// boundary edge the open fan starts at one end): TTK's dual polygon of an ascending wall
// edge. Needs ET and the cells' vertices.
template <typename Triangulation>
void dualPolygon(const Triangulation& tri, SimplexId e, std::vector<SimplexId>& tets);

// ---- implementation ------------------------------------------------------------------

namespace detail {

template <typename Triangulation>
SimplexId vertexOf(const Triangulation& tri, int dim, SimplexId id, int i) {
  return dim == 0   ? id
         : dim == 1 ? tri.getEdgeVertex(id, i)
         : dim == 2 ? tri.getTriangleVertex(id, i)
                    : tri.getCellVertex(id, i);
}

// The highest (or lowest) vertex of simplex (dim, id) in the vertex order.
template <typename Triangulation>
SimplexId extremeVertex(const Triangulation& tri, int dim, SimplexId id,
                        const SimplexId* rank, bool highest) {
  SimplexId best = vertexOf(tri, dim, id, 0);
  for (int i = 1; i <= dim; ++i) {
    const SimplexId v = vertexOf(tri, dim, id, i);
    if (highest ? rank[v] > rank[best] : rank[v] < rank[best])
      best = v;
  }
  return best;
}

// TTK's function range and boundary count of each wall: the source saddle (dimension
// sourceDim) gives one end; the reached saddles (dimension reachedDim) give the other,
// or, when there are none, the wall's own cells (only when they were kept).
template <typename Triangulation>
void wallAttributes(const Triangulation& tri, const Walls& walls, int sourceDim,
                    int reachedDim, bool sourceIsTop, const SimplexId* rank,
                    WallAttributes& out) {
  const std::size_t n = walls.size();
  out.functionMaximum.assign(n, -1);
  out.functionMinimum.assign(n, -1);
  out.onBoundary.assign(n, 0);
  auto onBoundary = [&](int dim, SimplexId id) {
    return dim == 1 ? tri.isEdgeOnBoundary(id) : tri.isTriangleOnBoundary(id);
  };
  tbb::parallel_for(std::size_t(0), n, [&](std::size_t i) {
    const SimplexId source = walls.saddles[i];
    SimplexId far = -1;
    auto consider = [&](int dim, SimplexId id) {
      const SimplexId v = extremeVertex(tri, dim, id, rank, !sourceIsTop);
      if (far < 0 || (sourceIsTop ? rank[v] < rank[far] : rank[v] > rank[far]))
        far = v;
    };
    int count = onBoundary(sourceDim, source) ? 1 : 0;
    for (std::size_t k = walls.reachedOffsets[i]; k < walls.reachedOffsets[i + 1]; ++k) {
      consider(reachedDim, walls.reached[k]);
      count += onBoundary(reachedDim, walls.reached[k]) ? 1 : 0;
    }
    if (far < 0 && walls.offsets.size() == n + 1)
      for (std::size_t k = walls.offsets[i]; k < walls.offsets[i + 1]; ++k)
        consider(sourceDim, walls.cells[k]);
    const SimplexId near = extremeVertex(tri, sourceDim, source, rank, sourceIsTop);
    (sourceIsTop ? out.functionMaximum : out.functionMinimum)[i] = near;
    (sourceIsTop ? out.functionMinimum : out.functionMaximum)[i] = far;
    out.onBoundary[i] = std::uint8_t(std::min(count, 255));
  });
}

} // namespace detail

template <typename Triangulation>
void compute(Triangulation& tri, const sg::Output& g, const SimplexId* rank,
             const Parameters& parameters, const Monitor& monitor, Output& output,
             RunReport& report) {
  output.clear();
  if (g.dimension != 3 || !(parameters.ascending || parameters.descending)) {
    monitor.report(1.0);
    return; // no walls on triangle meshes; nothing asked for
  }
  tri.precondition(kRequiredRelations);
  const Timer timer;
  separatrices2::detail::walkAskedWalls(
      parameters, g.criticalCells[2],
      [&](SimplexId t, auto& visit, auto& reach) {
        for (int j = 0; j < 3; ++j) {
          const SimplexId e = tri.getTriangleEdge(t, j);
          if (sg::isCritical(g, 1, e)) {
            reach(e);
            continue;
          }
          const SimplexId next = sg::getPairedCell(tri, g, 1, e, false);
          if (next >= 0 && next != t)
            visit(next);
        }
      },
      g.criticalCells[1],
      [&](SimplexId e, auto& visit, auto& reach) {
        sg::findCoface(tri, 1, e, [&](SimplexId t) {
          if (sg::isCritical(g, 2, t)) {
            reach(t);
            return false;
          }
          const SimplexId next = sg::getPairedCell(tri, g, 2, t, true);
          if (next >= 0 && next != e)
            visit(next);
          return false; // every triangle of e
        });
      },
      monitor, output.descending, output.ascending);
  if (parameters.descending)
    detail::wallAttributes(tri, output.descending, 2, 1, true, rank,
                           output.descendingAttributes);
  if (parameters.ascending)
    detail::wallAttributes(tri, output.ascending, 1, 2, false, rank,
                           output.ascendingAttributes);
  report.timings.emplace_back("2-separatrices (cpu)", timer.seconds());
  monitor.report(1.0);
}

template <typename Triangulation>
void dualPolygon(const Triangulation& tri, SimplexId e, std::vector<SimplexId>& tets) {
  tets.clear();
  const int n = tri.getEdgeTetNumber(e);
  // Each tet around e is e plus two other vertices; two tets are neighbours in the fan
  // (share a triangle) when they share one of those. Read once, compared cheaply.
  std::vector<std::array<SimplexId, 2>> others(static_cast<std::size_t>(n));
  const SimplexId a = tri.getEdgeVertex(e, 0), b = tri.getEdgeVertex(e, 1);
  for (int i = 0; i < n; ++i) {
    tets.push_back(tri.getEdgeTet(e, i));
    int k = 0;
    for (int j = 0; j < 4 && k < 2; ++j) {
      const SimplexId v = tri.getCellVertex(tets.back(), j);
      if (v != a && v != b)
        others[std::size_t(i)][std::size_t(k++)] = v;
    }
  }
  auto adjacent = [&](std::size_t i, std::size_t j) {
    const auto &p = others[i], &q = others[j];
    return p[0] == q[0] || p[0] == q[1] || p[1] == q[0] || p[1] == q[1];
  };
  auto swapTets = [&](std::size_t i, std::size_t j) {
    std::swap(tets[i], tets[j]);
    std::swap(others[i], others[j]);
  };
  // An open fan (boundary edge) starts at a tet with one neighbour in it.
  for (std::size_t i = 0; i < tets.size(); ++i) {
    int neighbours = 0;
    for (std::size_t j = 0; j < tets.size(); ++j)
      neighbours += i != j && adjacent(i, j) ? 1 : 0;
    if (neighbours < 2) {
      swapTets(0, i);
      break;
    }
  }
  for (std::size_t i = 1; i < tets.size(); ++i)
    for (std::size_t j = i; j < tets.size(); ++j)
      if (adjacent(i - 1, j)) {
        swapTets(i, j);
        break;
      }
}

} // namespace topogpu::separatrices2::simplicial
