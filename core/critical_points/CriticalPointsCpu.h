// CPU classification: the generic link classifier, written once against the
// triangulation interface and instantiated per backend (compile-time dispatch), and the
// grid specialisation that runs the stencil classifier the GPU runs.
#pragma once

#include "core/common/TriangulationTraits.h"
#include "core/critical_points/CriticalType.h"
#include "core/critical_points/GridLinkClassifier.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>

namespace topogpu::critical_points {

// Scratch reused across the vertices one task handles.
struct LinkScratch {
  std::vector<SimplexId> neighbors;
  std::vector<int> parent;
  std::vector<char> isLower;
  std::vector<int> slotTable; // open-addressing map vertex id -> neighbour slot
};

inline int findRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

// Counts the components of the lower and upper links of v. Link edges are the edges of
// the star's cells opposite v; a link edge joins two lower or two upper vertices.
template <typename Triangulation>
CriticalType classifyVertex(const Triangulation& tri, SimplexId v, const SimplexId* order,
                            LinkScratch& s) {
  const int degree = tri.getVertexNeighborNumber(v);
  s.neighbors.resize(degree);
  s.parent.resize(degree);
  s.isLower.resize(degree);
  // A table of at least twice the degree keeps probe chains short: each star cell looks
  // up its vertices here, the hot loop of the whole classification.
  int tableSize = 16;
  while (tableSize < 2 * degree)
    tableSize *= 2;
  s.slotTable.assign(tableSize, -1);
  const auto hash = [tableSize](SimplexId u) {
    return int((std::uint64_t(u) * 0x9E3779B97F4A7C15ull) >> 40) & (tableSize - 1);
  };
  // TTK's boundary rule (3D only) reads which side of the link touches the boundary.
  const bool onBoundary = tri.getDimension() == 3 && tri.isVertexOnBoundary(v);
  bool lowerOnBoundary = false, upperOnBoundary = false;
  for (int i = 0; i < degree; ++i) {
    s.neighbors[i] = tri.getVertexNeighbor(v, i);
    s.parent[i] = i;
    s.isLower[i] = order[s.neighbors[i]] < order[v];
    if (onBoundary && tri.isVertexOnBoundary(s.neighbors[i]))
      (s.isLower[i] ? lowerOnBoundary : upperOnBoundary) = true;
    int h = hash(s.neighbors[i]);
    while (s.slotTable[h] >= 0)
      h = (h + 1) & (tableSize - 1);
    s.slotTable[h] = i;
  }
  // Every vertex of a star cell is a neighbour of v, so the probe always finds it.
  auto slotOf = [&](SimplexId u) {
    int h = hash(u);
    while (s.neighbors[s.slotTable[h]] != u)
      h = (h + 1) & (tableSize - 1);
    return s.slotTable[h];
  };
  const int starSize = tri.getVertexStarNumber(v);
  const int cellSize = tri.getCellVertexNumber();
  for (int c = 0; c < starSize; ++c) {
    SimplexId cellVertices[4];
    tri.getVertexStarVertices(v, c, cellVertices);
    int slots[3];
    int n = 0;
    for (int k = 0; k < cellSize; ++k) {
      if (cellVertices[k] != v)
        slots[n++] = slotOf(cellVertices[k]);
    }
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (s.isLower[slots[a]] == s.isLower[slots[b]])
          s.parent[findRoot(s.parent, slots[a])] = findRoot(s.parent, slots[b]);
      }
    }
  }
  int lower = 0, upper = 0;
  for (int i = 0; i < degree; ++i) {
    if (findRoot(s.parent, i) == i)
      (s.isLower[i] ? lower : upper)++;
  }
  return criticalTypeFromLink(tri.getDimension(), lower, upper, lowerOnBoundary,
                              upperOnBoundary, onBoundary);
}

// Runs body(first, last) over all vertex positions in blocks, each block in parallel
// (parallelForVertexBlocks: segment by segment on GALE); progress and abort are handled
// between blocks, on the calling thread.
template <typename Triangulation, typename Body>
void forVertexBlocks(const Triangulation& tri, const Monitor& monitor, Body body) {
  const SimplexId n = tri.getNumberOfVertices();
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(32, n / 4096));
  for (SimplexId b = 0; b < blocks; ++b) {
    monitor.checkAbort();
    parallelForVertexBlocks(tri, n * b / blocks, n * (b + 1) / blocks, body);
    monitor.report(double(b + 1) / blocks);
  }
}

// Any triangulation: the generic link classifier. Vertices are visited in the backend's
// processing order (GALE: segment by segment); each is classified on its own, so the
// result does not depend on it. Returns how many vertices have no neighbour (in no
// cell), for the mesh warning.
template <typename Triangulation>
SimplexId classifyVerticesCpu(const Triangulation& tri, const SimplexId* order,
                              std::int8_t* types, const Monitor& monitor) {
  std::atomic<SimplexId> isolated{0};
  forVertexBlocks(tri, monitor, [&](SimplexId first, SimplexId last) {
    LinkScratch scratch;
    SimplexId alone = 0;
    for (SimplexId p = first; p < last; ++p) {
      const SimplexId v = vertexAtPosition(tri, p);
      alone += tri.getVertexNeighborNumber(v) == 0;
      types[v] = std::int8_t(classifyVertex(tri, v, order, scratch));
    }
    if (alone > 0)
      isolated.fetch_add(alone, std::memory_order_relaxed);
  });
  return isolated.load();
}

// Grids: the stencil classifier with the interior lookup table, exactly what the GPU
// runs; the generic classifier above stays the cross-check in the tests.
inline SimplexId classifyVerticesCpu(const ImplicitTriangulation& tri,
                                     const SimplexId* order, std::int8_t* types,
                                     const Monitor& monitor) {
  const std::vector<std::int8_t>& table = grid::interiorLinkTable(tri.getDimension());
  forVertexBlocks(tri, monitor, [&](SimplexId first, SimplexId last) {
    for (SimplexId v = first; v < last; ++v)
      types[v] = std::int8_t(
          grid::classifyGridVertexWithTable(tri.dims(), v, order, table.data()));
  });
  return 0; // every grid vertex is in a cell
}

} // namespace topogpu::critical_points
