// First pieces of the Morse-Smale complex on the simplicial gradient, by V-path
// traversal (SimplicialGradient.h's helpers):
//  - 1-separatrices as TTK's MorseSmaleComplex counts them: a descending one from each
//    vertex of each 1-saddle (edge) down to a minimum; an ascending one from each cell
//    (tet in 3D, triangle in 2D) on either side of each (d-1)-saddle up to a maximum,
//    those that leave through the boundary being dropped (TTK 1.2's msc_separatrices1
//    counts, checked on every shared volume up to 4M vertices);
//  - the descending segmentation: every vertex labelled with the minimum its descending
//    V-path reaches.
//  - the saddle connectors (3D): for each 2-saddle, its descending wall (the triangles
//    reached from it through edge-triangle pairs) and, from each 1-saddle on that wall,
//    the ascending path through the wall, kept when it ends at the 2-saddle (TTK 1.2's
//    rule, whose choice among several wall triangles around an edge is the last one in
//    the edge's triangle order).
//  - the ascending segmentation (TTK 1.2's rule): each cell (tet in 3D, triangle in 2D)
//    labelled with the maximum its ascending V-path reaches, or -1 when the path leaves
//    through the boundary; each vertex takes the label of the first cell of its star.
#pragma once

#include "core/discrete_gradient/PointerJumping.h"
#include "core/discrete_gradient/SimplicialGradient.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include <vector>

namespace topogpu::discrete_gradient::simplicial {

struct Separatrix {
  SimplexId saddle;   // the critical simplex it starts from (an edge, or a (d-1)-cell)
  SimplexId extremum; // the minimum (vertex id) or maximum (cell id) it ends at
  SimplexId length;   // cells on its V-path, both ends included
};

struct SaddleConnector {
  SimplexId saddle1; // edge
  SimplexId saddle2; // triangle
  SimplexId length;  // cells on its V-path, both ends included
};

struct Separatrices {
  std::vector<Separatrix> descending;     // by saddle, then the edge's vertex order
  std::vector<Separatrix> ascending;      // by saddle, then the facet's cell order
  SimplexId ascendingLeavingBoundary = 0; // dropped ascending paths
  std::vector<SaddleConnector> saddleConnectors; // 3D, by 2-saddle then 1-saddle id
};

// What the traversals read, besides the gradient's own relations.
constexpr Relations kSeparatrixRelations = kPairRelations;

template <typename Triangulation>
void computeSeparatrices1(Triangulation& tri, const Output& gradient, Separatrices& out) {
  tri.precondition(kSeparatrixRelations);
  out = Separatrices();
  const int top = gradient.dimension;
  // Up to two per saddle, written at fixed slots, then compacted in order.
  const auto& saddles1 = gradient.criticalCells[1];
  const auto& saddlesTop = gradient.criticalCells[top - 1];
  std::vector<Separatrix> down(2 * saddles1.size()), up(2 * saddlesTop.size());
  tbb::parallel_for(std::size_t(0), saddles1.size(), [&](std::size_t i) {
    std::vector<Cell> path;
    for (int k = 0; k < 2; ++k) {
      path.clear();
      getDescendingPath(tri, gradient, tri.getEdgeVertex(saddles1[i], k), path);
      down[2 * i + k] = {saddles1[i], path.back().id, SimplexId(path.size()) + 1};
    }
  });
  tbb::parallel_for(std::size_t(0), saddlesTop.size(), [&](std::size_t i) {
    std::vector<Cell> path;
    const SimplexId facet = saddlesTop[i];
    const int n = getFacetStarNumber(tri, top, facet);
    for (int k = 0; k < 2; ++k) {
      up[2 * i + k] = {facet, -1, 0};
      if (k >= n)
        continue;
      path.clear();
      getAscendingPath(tri, gradient, getFacetStar(tri, top, facet, k), path);
      const Cell last = path.back();
      if (last.dimension == top && isCritical(gradient, top, last.id))
        up[2 * i + k] = {facet, last.id, SimplexId(path.size()) + 1};
      else
        up[2 * i + k].length = -1; // left through the boundary
    }
  });
  out.descending = std::move(down);
  for (const Separatrix& s : up) {
    if (s.extremum >= 0)
      out.ascending.push_back(s);
    else if (s.length < 0)
      ++out.ascendingLeavingBoundary;
  }
}

namespace detail {

// Per-thread scratch of the wall traversals: a triangle mask and what to reset.
struct WallScratch {
  std::vector<char> visited;
  std::vector<SimplexId> visitedIds, queue, saddles1;
};

} // namespace detail

// Saddle connectors of a 3D gradient (none in 2D), appended to out.saddleConnectors.
template <typename Triangulation>
void computeSaddleConnectors(Triangulation& tri, const Output& gradient,
                             Separatrices& out) {
  tri.precondition(kSeparatrixRelations);
  out.saddleConnectors.clear();
  if (gradient.dimension != 3)
    return;
  const auto& saddles2 = gradient.criticalCells[2];
  const SimplexId nTriangles = gradient.simplexCounts[2];
  std::vector<std::vector<SaddleConnector>> found(saddles2.size());
  tbb::enumerable_thread_specific<detail::WallScratch> scratch;
  tbb::parallel_for(std::size_t(0), saddles2.size(), [&](std::size_t i) {
    detail::WallScratch& w = scratch.local();
    if (w.visited.empty())
      w.visited.assign(std::size_t(nTriangles), 0);
    const SimplexId s2 = saddles2[i];
    // The descending wall: breadth first through the triangles paired with its edges.
    w.queue.assign(1, s2);
    w.saddles1.clear();
    for (std::size_t head = 0; head < w.queue.size(); ++head) {
      const SimplexId t = w.queue[head];
      if (w.visited[t])
        continue;
      w.visited[t] = 1;
      w.visitedIds.push_back(t);
      for (int j = 0; j < 3; ++j) {
        const SimplexId e = tri.getTriangleEdge(t, j);
        if (isCritical(gradient, 1, e))
          w.saddles1.push_back(e);
        const SimplexId paired = getPairedCell(tri, gradient, 1, e, false);
        if (paired >= 0 && paired != t)
          w.queue.push_back(paired);
      }
    }
    std::sort(w.saddles1.begin(), w.saddles1.end());
    w.saddles1.erase(std::unique(w.saddles1.begin(), w.saddles1.end()), w.saddles1.end());
    // From each 1-saddle on the wall, up through the wall's triangles.
    for (const SimplexId s1 : w.saddles1) {
      SimplexId length = 1, current = -1, reached = -1;
      const int n = tri.getEdgeTriangleNumber(s1);
      for (int k = 0; k < n && reached < 0; ++k) {
        const SimplexId t = tri.getEdgeTriangle(s1, k);
        if (!w.visited[t])
          continue;
        if (isCritical(gradient, 2, t))
          reached = t; // the 1-saddle is a face of the 2-saddle
        else
          current = t;
      }
      if (reached < 0) {
        for (SimplexId steps = 0; steps <= nTriangles; ++steps) {
          const SimplexId old = current;
          ++length;
          if (isCritical(gradient, 2, current)) {
            reached = current;
            break;
          }
          const SimplexId e = getPairedCell(tri, gradient, 2, current, true);
          ++length;
          if (e < 0 || isCritical(gradient, 1, e))
            break;
          const int m = tri.getEdgeTriangleNumber(e);
          for (int k = 0; k < m; ++k) {
            const SimplexId t = tri.getEdgeTriangle(e, k);
            if (w.visited[t] && t != old)
              current = t;
          }
          if (current == old)
            break; // the wall ends here (the boundary)
        }
      } else {
        ++length;
      }
      if (reached == s2)
        found[i].push_back({s1, s2, length});
    }
    for (const SimplexId t : w.visitedIds)
      w.visited[t] = 0;
    w.visitedIds.clear();
  });
  for (auto& list : found)
    out.saddleConnectors.insert(out.saddleConnectors.end(), list.begin(), list.end());
}

// label[v]: the index in gradient.criticalCells[0] of the minimum v's descending V-path
// reaches (every vertex gets one). Pointer jumping (PointerJumping.h) over "the other
// vertex of v's paired edge", so the vertices run in parallel.
template <typename Triangulation>
void computeDescendingManifold(Triangulation& tri, const Output& gradient,
                               std::vector<SimplexId>& label) {
  tri.precondition(kSeparatrixRelations);
  const SimplexId n = gradient.simplexCounts[0];
  std::vector<SimplexId> next(n);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId v) {
    next[v] = descendingSuccessor(tri, gradient, v);
  });
  jumpToRoots(next);
  std::vector<SimplexId> indexOf(n, -1);
  const auto& minima = gradient.criticalCells[0];
  for (std::size_t i = 0; i < minima.size(); ++i)
    indexOf[minima[i]] = SimplexId(i);
  label.resize(n);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId v) { label[v] = indexOf[next[v]]; });
}

// cellLabel[c]: the index in gradient.criticalCells[top] of the maximum c's ascending
// V-path reaches, -1 when it leaves through the boundary; vertexLabel[v]: the label of
// the first cell of v's star (-1 for a vertex in no cell). Pointer jumping, as above.
template <typename Triangulation>
void computeAscendingManifold(Triangulation& tri, const Output& gradient,
                              std::vector<SimplexId>& cellLabel,
                              std::vector<SimplexId>& vertexLabel) {
  tri.precondition(kSeparatrixRelations | VertexStar);
  const int top = gradient.dimension;
  const SimplexId n = gradient.simplexCounts[top];
  std::vector<SimplexId> next(n);
  tbb::parallel_for(SimplexId(0), n,
                    [&](SimplexId c) { next[c] = ascendingSuccessor(tri, gradient, c); });
  jumpToRoots(next); // an exit through the boundary (negative) is kept as is
  std::vector<SimplexId> indexOf(n, -1);
  const auto& maxima = gradient.criticalCells[top];
  for (std::size_t i = 0; i < maxima.size(); ++i)
    indexOf[maxima[i]] = SimplexId(i);
  cellLabel.resize(n);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId c) {
    cellLabel[c] = next[c] < 0 ? -1 : indexOf[next[c]];
  });
  vertexLabel.resize(gradient.simplexCounts[0]);
  tbb::parallel_for(SimplexId(0), gradient.simplexCounts[0], [&](SimplexId v) {
    vertexLabel[v] =
        tri.getVertexStarNumber(v) > 0 ? cellLabel[tri.getVertexStar(v, 0)] : -1;
  });
}

} // namespace topogpu::discrete_gradient::simplicial
