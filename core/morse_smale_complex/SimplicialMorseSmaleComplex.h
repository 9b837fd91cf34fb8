// The Morse-Smale complex on the simplicial discrete gradient: triangle and
// tetrahedral meshes and the implicit grid's Freudenthal triangulation, through any
// triangulation backend (implicit, explicit, GALE: only the concept's accessors).
// The outputs are the grid complex's (MorseSmaleComplex.h), with simplex ids in place of
// refined ids:
//
//  - minima: the critical vertices; maxima: the critical top cells (tets in 3D,
//    triangles in 2D), then the boundary maxima (below);
//  - DescendingManifold (per vertex, TTK's name): the minimum its descending V-path
//    reaches (vertex, paired edge, other vertex, ...): every vertex has one;
//  - AscendingManifold per top cell: the maximum its ascending path reaches (cell, its
//    paired facet, that facet's other cell, ...). A path paired into a boundary facet
//    (a facet of one cell) leaves the mesh; as on grids (docs/filters/
//    morse-smale-complex.md, "The boundary rule") it goes on by steepest ascent over the
//    boundary facets (order: the gradient's filtration key, the ranks of a simplex's
//    vertices in decreasing order) to a root facet; a root whose cell is a critical
//    maximum is that maximum, any other is a boundary maximum (listed after the
//    critical cells, numbered by facet id). So every cell is labelled. Neighbours are
//    the boundary facets sharing a vertex, not only a (d-2)-face as on grids: across
//    edges the lexicographic key of triangles stalls below a higher vertex (a linear
//    ramp got 4 roots); across vertices a root's highest vertex is a local maximum of f
//    on the boundary surface and the root the highest boundary facet around it;
//  - AscendingManifold per vertex and per top cell, by default TTK 1.2's rule
//    (MorseSmaleComplex::setAscendingSegmentation): a cell whose ascending path leaves
//    through a boundary facet has none (-1), and a vertex takes the label of the first
//    cell of its star in TTK's triangulation's order (TtkVertexStar.h on grids, the
//    lowest cell id on meshes), so many boundary-near vertices have none. With
//    AscendingSegmentation::ThroughBoundary the cells keep the labels above and a vertex
//    takes the label of the highest cell of its star (largest key), the grid's rule:
//    only a vertex in no cell (unreferenced) has none (-1). The arcs below read the
//    labels above whatever the rule;
//  - arcs: from each 1-saddle (critical edge) the minima of its two vertices; from each
//    (d-1)-saddle the maxima of its cofaces; one arc of multiplicity 2 when both paths
//    reach the same extremum;
//  - saddle connections (3D): for each 2-saddle, the number of V-paths down its
//    descending wall (triangle, edge, triangle, ...) to each 1-saddle, counted on the
//    wall's DAG in topological order; an arc per pair with at least one path,
//    multiplicity = that number (the grid's definition). TTK 1.2's own count of saddle
//    connectors stays in SimplicialSeparatrices.h (its one-path-per-1-saddle rule).
#pragma once

#include "core/discrete_gradient/PointerJumping.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/discrete_gradient/SimplicialSeparatrices.h"
#include "core/morse_smale_complex/ElderRounds.h"
#include "core/morse_smale_complex/LocalIndex.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/MorseSmaleLabels.h"
#include "core/morse_smale_complex/SimplicialGridGpuPath.h"
#include "core/morse_smale_complex/SimplicialHostMemory.h"
#include "core/morse_smale_complex/SimplicialSaddleEnds.h"
#include "core/morse_smale_complex/TtkVertexStar.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

namespace sg = discrete_gradient::simplicial;

// The rule of AscendingManifold (above): TTK 1.2's, or every vertex in a cell labelled
// through the boundary facets.
enum class AscendingSegmentation { Ttk, ThroughBoundary };

struct Parameters {
  // The GPU on implicit grids (gradient, labels, arcs; SimplicialGridGpuPath.h), else
  // the CPU.
  Backend backend = Backend::Auto;
  AscendingSegmentation ascendingSegmentation = AscendingSegmentation::Ttk;
  bool computeSaddleConnections = true;
  // Keep one V-path per saddle connection (for drawing; off for counts only).
  bool keepConnectionPaths = false;
  // Count the V-paths mod 2 (what the persistence pairs read): a multiplicity is then 1
  // and only odd connections are listed; no count can overflow.
  bool connectionParity = false;
  // Only what the persistence pairs read (core/persistence_diagram): the gradient, the
  // vertex order, the saddles' path ends (Output::saddle1Ends, saddleMaximumEnds;
  // SimplicialSaddleEnds.h) and the saddle connections when asked; the labels, the
  // maxima, the boundary forest, the arcs and the unlabelled counts are left empty
  // (zero). On the device (implicit grids) the gradient's bytes come down only where the
  // pairs read them: the edges' and triangles' in 3D (the saddle boundary expansion),
  // none in 2D; the other dimensions' bytes are left empty.
  bool diagramOnly = false;
  // The vertex order: the front end's (sorted once per field), else its own.
  VertexOrderSource vertexOrder{};
  // Host memory the run may use, in bytes: a path whose estimate is larger
  // (SimplicialHostMemory.h) is refused before it allocates.
  double memoryBudget = std::numeric_limits<double>::infinity();
};

// A saddle-extremum arc: the saddle's simplex id and the extremum's index (into the
// minima for 1-saddles, into `maxima` for (d-1)-saddles).
struct Arc {
  SimplexId saddle = -1;
  SimplexId extremum = -1;
  int multiplicity = 1;
};

// A saddle connection: 1-saddle (edge) and 2-saddle (triangle) ids, V-path count.
struct Connection {
  SimplexId saddle1 = -1, saddle2 = -1;
  std::uint64_t multiplicity = 0;
};

// A maximum: a critical top cell (dimension d) or a boundary maximum (a facet, d - 1).
struct Extremum {
  int dimension = 0;
  SimplexId id = -1;
};

struct Output {
  sg::Output gradient;
  std::vector<SimplexId> rank; // the vertex order (the paths' boundary part reads it)
  std::vector<Extremum> maxima;
  SimplexId boundaryMaxima = 0;
  std::vector<ManifoldLabel> descendingManifold;    // per vertex: index of its minimum
  std::vector<ManifoldLabel> ascendingManifold;     // per vertex: index in maxima
  std::vector<ManifoldLabel> cellAscendingManifold; // per top cell
  std::vector<Arc> saddle1Minimum, saddleMaximum;
  std::vector<Connection> connections; // by 2-saddle, then 1-saddle id
  std::uint64_t connectionMultiplicitySum = 0;
  bool connectionsComputed = false;
  // Per connection when kept: the cells from saddle2 down to saddle1 (triangle, edge,
  // triangle, ..., edge).
  std::vector<std::vector<sg::Cell>> connectionPaths;
  // diagramOnly: per 1-saddle (critical edges, ascending) its two minima, per
  // (d-1)-saddle (critical facets, ascending) its two maxima or -1
  // (SimplicialSaddleEnds.h).
  std::vector<SimplexId> saddle1Ends, saddleMaximumEnds;
  bool saddleEndsComputed = false;
  // diagramOnly on the device: instead of the ends, the extremum pairs the device's
  // rounds found from them (SimplicialMorseSmaleComplexGpu.h's SimplicialGridSaddleEnds
  // says how they are numbered), and the rounds' counts.
  std::vector<SimplexId> minimumKills, maximumKills;
  bool extremumKillsComputed = false;
  std::array<ElderStats, 2> elder{};
  // diagramOnly on the device: per dimension the critical cells in filtration order
  // (indices into gradient.criticalCells; empty: the pairs sort them on the host).
  std::array<std::vector<SimplexId>, 4> filtrationOrder;
  // Boundary facets (ascending ids) and, per boundary facet, the index of the next one
  // on its steepest ascent (itself at a root).
  std::vector<SimplexId> boundaryFacets, boundaryNext;
  SimplexId unlabelledDescending = 0, unlabelledAscending = 0, unlabelledCells = 0;
  // Host bytes the path that ran needed by its estimate (SimplicialHostMemory.h), with
  // the critical simplices found.
  double hostMemoryEstimate = 0;
  RunReport report;
};

// What the complex reads besides the gradient's relations.
constexpr Relations kRequiredRelations =
    sg::kPairRelations | VertexStar | BoundaryEdges | BoundaryTriangles;

// Throws Error for bad input (as the gradient), Aborted on abort.
template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);

// The descending path from vertex v (vertex, edge, ..., minimum).
template <typename Triangulation>
void descendingPath(const Triangulation& tri, const Output& out, SimplexId v,
                    std::vector<sg::Cell>& path) {
  path.clear();
  sg::getDescendingPath(tri, out.gradient, v, path);
}

// The ascending path from top cell c to its maximum: cell, facet, cell, ...; an exit
// goes on over the boundary facets (facet, facet, ...) and, when its root's cell is a
// critical maximum, ends at that cell.
template <typename Triangulation>
void ascendingPath(const Triangulation& tri, const Output& out, SimplexId c,
                   std::vector<sg::Cell>& path);

// TTK's MorseSmaleManifold (MorseSmaleLabels.h).
using morse_smale_complex::morseSmaleLabels;

// ---- implementation ------------------------------------------------------------------

namespace detail {

// The vertices of simplex (dim, id) in decreasing rank: its filtration key.
template <typename Triangulation>
std::array<SimplexId, 4> keyOf(const Triangulation& tri, int dim, SimplexId id,
                               const SimplexId* rank) {
  std::array<SimplexId, 4> k{-1, -1, -1, -1};
  for (int i = 0; i <= dim; ++i) {
    const SimplexId v = dim == 0   ? id
                        : dim == 1 ? tri.getEdgeVertex(id, i)
                        : dim == 2 ? tri.getTriangleVertex(id, i)
                                   : tri.getCellVertex(id, i);
    k[i] = rank[v];
  }
  // Insertion sort, decreasing (at most 4 entries).
  for (int i = 1; i <= dim; ++i)
    for (int j = i; j > 0 && k[j - 1] < k[j]; --j)
      std::swap(k[j - 1], k[j]);
  return k;
}

// Steepest ascent over the boundary facets: boundaryNext per boundary facet.
template <typename Triangulation>
void boundaryForest(const Triangulation& tri, int top, const SimplexId* rank,
                    Output& out) {
  const SimplexId nFacets = out.gradient.simplexCounts[top - 1];
  std::vector<std::uint8_t> isBoundary(std::size_t(nFacets), 0);
  // The backend's boundary flags: counting cofaces is slow on the implicit grid. The
  // list is compacted in parallel (a grid's facets are mostly interior).
  tbb::parallel_for(SimplexId(0), nFacets, [&](SimplexId f) {
    isBoundary[f] = top == 3 ? tri.isTriangleOnBoundary(f) : tri.isEdgeOnBoundary(f);
  });
  SimplexId unusedCount = 0;
  out.boundaryFacets = sg::detail::selectCells(isBoundary, 1, unusedCount);
  const auto& facets = out.boundaryFacets;
  auto facetVertex = [&](SimplexId f, int j) {
    return top == 3 ? tri.getTriangleVertex(f, j) : tri.getEdgeVertex(f, j);
  };
  // The boundary facets around each vertex (compressed rows): neighbours are facets
  // sharing a vertex, read here without the (slower) coface relations.
  const SimplexId nVertices = out.gradient.simplexCounts[0];
  std::vector<SimplexId> offsets(std::size_t(nVertices) + 1, 0), around;
  for (const SimplexId f : facets)
    for (int j = 0; j < top; ++j)
      ++offsets[facetVertex(f, j) + 1];
  for (SimplexId v = 0; v < nVertices; ++v)
    offsets[v + 1] += offsets[v];
  around.resize(std::size_t(offsets.back()));
  {
    std::vector<SimplexId> at(offsets.begin(), offsets.end() - 1);
    for (const SimplexId f : facets)
      for (int j = 0; j < top; ++j)
        around[at[facetVertex(f, j)]++] = f;
  }
  out.boundaryNext.assign(facets.size(), 0);
  tbb::parallel_for(std::size_t(0), facets.size(), [&](std::size_t i) {
    const SimplexId f = facets[i];
    SimplexId best = f;
    auto bestKey = keyOf(tri, top - 1, f, rank);
    for (int j = 0; j < top; ++j) {
      const SimplexId v = facetVertex(f, j);
      for (SimplexId k = offsets[v]; k < offsets[v + 1]; ++k) {
        const SimplexId g = around[k];
        if (g == f)
          continue;
        const auto key = keyOf(tri, top - 1, g, rank);
        if (bestKey < key) {
          best = g;
          bestKey = key;
        }
      }
    }
    out.boundaryNext[i] =
        SimplexId(std::lower_bound(facets.begin(), facets.end(), best) - facets.begin());
  });
}

struct WallScratch {
  LocalIndex localOf; // triangle id -> index in the wall
  std::vector<SimplexId> triangles, parent, successorOffsets, successors, inDegree, order;
  std::vector<std::uint64_t> paths;
  std::vector<char> saturated; // more than 2^64 - 1 paths reach the triangle
  std::vector<std::pair<SimplexId, SimplexId>> hits; // (1-saddle, wall triangle)
};

// The Error of a connection count beyond 2^64 - 1 (the CPU and the device path).
[[noreturn]] inline void throwConnectionOverflow() {
  throw Error("saddle connections: more than 2^64 - 1 V-paths between saddles");
}

inline std::uint64_t addSaturating(std::uint64_t a, std::uint64_t b, bool& overflow) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b) {
    overflow = true;
    return std::numeric_limits<std::uint64_t>::max();
  }
  return a + b;
}

// The V-paths down the descending wall of 2-saddle s2: its triangles (a DAG: triangle t
// -> the triangle paired with each of t's edges but t's own), counted in topological
// order; each 1-saddle reached gets the sum of its wall triangles' path counts. A count
// past 2^64 - 1 is an overflow only where it reaches a 1-saddle (the device pipeline
// counts the paths from the 1-saddles, so it never sees the others).
template <typename Triangulation>
void wallConnections(const Triangulation& tri, const sg::Output& g, SimplexId s2,
                     bool keepPaths, bool parity, WallScratch& w,
                     std::vector<Connection>& found,
                     std::vector<std::vector<sg::Cell>>& foundPaths, bool& overflow) {
  bool inserted = false;
  w.localOf.clear();
  w.localOf.insert(s2, inserted);
  w.triangles.assign(1, s2);
  w.parent.assign(1, -1);
  w.successorOffsets.assign(1, 0);
  w.successors.clear();
  w.hits.clear();
  for (std::size_t head = 0; head < w.triangles.size(); ++head) {
    const SimplexId t = w.triangles[head];
    // t's own edge (the face index its byte names; none for s2) is not a step
    const int own = g.gradient[2][t];
    for (int j = 0; j < 3; ++j) {
      if (j == own)
        continue;
      const SimplexId e = tri.getTriangleEdge(t, j);
      if (sg::isCritical(g, 1, e)) {
        w.hits.emplace_back(e, SimplexId(head));
        continue;
      }
      const SimplexId next = sg::getPairedCell(tri, g, 1, e, false);
      if (next < 0 || next == t)
        continue; // e is paired with a vertex: the V-path stops
      const SimplexId local = w.localOf.insert(next, inserted);
      if (inserted) {
        w.triangles.push_back(next);
        w.parent.push_back(SimplexId(head));
      }
      w.successors.push_back(local);
    }
    w.successorOffsets.push_back(SimplexId(w.successors.size()));
  }
  const std::size_t n = w.triangles.size();
  w.inDegree.assign(n, 0);
  for (const SimplexId s : w.successors)
    ++w.inDegree[s];
  w.paths.assign(n, 0);
  w.saturated.assign(n, 0);
  w.paths[0] = 1;
  w.order.clear();
  w.order.push_back(0);
  for (std::size_t head = 0; head < w.order.size(); ++head) {
    const SimplexId i = w.order[head];
    for (SimplexId k = w.successorOffsets[i]; k < w.successorOffsets[i + 1]; ++k) {
      const SimplexId j = w.successors[k];
      if (parity) {
        w.paths[j] ^= w.paths[i];
      } else {
        bool saturated = w.saturated[i] != 0;
        w.paths[j] = addSaturating(w.paths[j], w.paths[i], saturated);
        w.saturated[j] = char(w.saturated[j] || saturated);
      }
      if (--w.inDegree[j] == 0)
        w.order.push_back(j);
    }
  }
  if (w.order.size() != n)
    throw Error("internal error: a descending wall of the gradient has a cycle");
  // Per 1-saddle: the sum over its wall triangles, in 1-saddle id order.
  auto& hits = w.hits;
  std::sort(hits.begin(), hits.end());
  for (std::size_t k = 0; k < hits.size();) {
    Connection c{hits[k].first, s2, 0};
    std::size_t end = k;
    for (; end < hits.size() && hits[end].first == c.saddle1; ++end) {
      if (parity) {
        c.multiplicity ^= w.paths[hits[end].second];
        continue;
      }
      overflow = overflow || w.saturated[hits[end].second] != 0;
      c.multiplicity = addSaturating(c.multiplicity, w.paths[hits[end].second], overflow);
    }
    if (c.multiplicity > 0) {
      found.push_back(c);
      if (keepPaths) {
        // Back from the 1-saddle along the BFS parents (every wall triangle is reached
        // from s2, so each step is on a V-path).
        std::vector<sg::Cell> path{{1, c.saddle1}};
        for (SimplexId t = hits[k].second;; t = w.parent[t]) {
          path.push_back({2, w.triangles[t]});
          if (t == 0)
            break;
          path.push_back({1, sg::getPairedCell(tri, g, 2, w.triangles[t], true)});
        }
        std::reverse(path.begin(), path.end());
        foundPaths.push_back(std::move(path));
      }
    }
    k = end;
  }
}

} // namespace detail

template <typename Triangulation>
void ascendingPath(const Triangulation& tri, const Output& out, SimplexId c,
                   std::vector<sg::Cell>& path) {
  path.clear();
  sg::getAscendingPath(tri, out.gradient, c, path);
  const int top = out.gradient.dimension;
  if (path.back().dimension == top)
    return;
  const auto& facets = out.boundaryFacets;
  SimplexId i = SimplexId(std::lower_bound(facets.begin(), facets.end(), path.back().id) -
                          facets.begin());
  if (i >= SimplexId(facets.size()) || facets[i] != path.back().id)
    return; // not a boundary facet (cannot happen for a path's end)
  while (out.boundaryNext[i] != i) {
    i = out.boundaryNext[i];
    path.push_back({top - 1, facets[i]});
  }
  const SimplexId cell = sg::getFacetStar(tri, top, facets[i], 0);
  if (sg::isCritical(out.gradient, top, cell))
    path.push_back({top, cell});
}

namespace detail {

// The descending label of each vertex: that of the highest cell of its star (the cell
// whose vertices' ranks, sorted decreasing, are lexicographically largest).
template <typename Triangulation>
void vertexDescendingLabels(const Triangulation& tri, int top, SimplexId nVertices,
                            const SimplexId* rank, Output& output) {
  output.ascendingManifold.assign(std::size_t(nVertices), -1);
  tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
    const int n = tri.getVertexStarNumber(v);
    SimplexId best = -1;
    std::array<SimplexId, 4> bestKey{};
    for (int i = 0; i < n; ++i) {
      SimplexId vertices[4];
      tri.getVertexStarVertices(v, i, vertices);
      // A cell whose highest vertex is below the best key's first entry cannot win.
      SimplexId highest = -1;
      for (int j = 0; j <= top; ++j)
        highest = std::max(highest, rank[vertices[j]]);
      if (best >= 0 && highest < bestKey[0])
        continue;
      std::array<SimplexId, 4> k{-1, -1, -1, -1};
      for (int j = 0; j <= top; ++j) {
        k[j] = rank[vertices[j]];
        for (int l = j; l > 0 && k[l - 1] < k[l]; --l)
          std::swap(k[l - 1], k[l]);
      }
      if (best < 0 || bestKey < k) {
        best = tri.getVertexStar(v, i);
        bestKey = k;
      }
    }
    if (best >= 0)
      output.ascendingManifold[v] = output.cellAscendingManifold[best];
  });
}

// TTK's ascending labels from the cells' (cellAscendingManifold, exits already -1): each
// vertex takes its first star cell's, TTK's implicit triangulation's on grids, the
// lowest cell id on meshes (TTK's explicit triangulation lists a vertex's star by cell
// id).
template <typename Triangulation>
void ttkVertexLabels(const Triangulation& tri, SimplexId nVertices, Output& output) {
  output.ascendingManifold.assign(std::size_t(nVertices), -1);
  const auto& cellLabel = output.cellAscendingManifold;
  if constexpr (std::is_same_v<Triangulation, ImplicitTriangulation>) {
    const sg::GridSimplices grid = sg::gridSimplicesOf(tri.dims());
    tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
      const SimplexId c = ttkFirstStarCell(grid, v);
      output.ascendingManifold[v] = c >= 0 ? cellLabel[c] : ManifoldLabel(-1);
    });
  } else {
    tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
      const int n = tri.getVertexStarNumber(v);
      SimplexId first = -1;
      for (int i = 0; i < n; ++i) {
        const SimplexId c = tri.getVertexStar(v, i);
        first = first < 0 ? c : std::min(first, c);
      }
      output.ascendingManifold[v] = first >= 0 ? cellLabel[first] : ManifoldLabel(-1);
    });
  }
}

// The 1-saddle to 2-saddle connections (3D), from each 2-saddle's wall in parallel,
// gathered in 2-saddle order.
template <typename Triangulation>
void saddleConnections(const Triangulation& tri, const sg::Output& g,
                       const Parameters& parameters, Output& output) {
  Timer timer;
  const auto& saddles2 = g.criticalCells[2];
  std::vector<std::vector<Connection>> found(saddles2.size());
  std::vector<std::vector<std::vector<sg::Cell>>> paths(saddles2.size());
  tbb::enumerable_thread_specific<detail::WallScratch> scratch;
  tbb::enumerable_thread_specific<char> overflowed(0);
  tbb::parallel_for(std::size_t(0), saddles2.size(), [&](std::size_t i) {
    bool overflow = false;
    detail::wallConnections(tri, g, saddles2[i], parameters.keepConnectionPaths,
                            parameters.connectionParity, scratch.local(), found[i],
                            paths[i], overflow);
    if (overflow)
      overflowed.local() = 1;
  });
  bool overflow = false;
  for (const char o : overflowed)
    overflow = overflow || o != 0;
  // Reserved, and each 2-saddle's list freed once copied: growing by doubling would
  // hold up to three times the connections (SimplicialHostMemory.h counts two).
  std::size_t total = 0;
  for (const auto& f : found)
    total += f.size();
  output.connections.reserve(total);
  for (std::size_t i = 0; i < found.size(); ++i) {
    for (const Connection& c : found[i]) {
      output.connections.push_back(c);
      output.connectionMultiplicitySum = detail::addSaturating(
          output.connectionMultiplicitySum, c.multiplicity, overflow);
    }
    std::vector<Connection>().swap(found[i]);
    for (auto& p : paths[i])
      output.connectionPaths.push_back(std::move(p));
  }
  if (overflow)
    throwConnectionOverflow();
  output.connectionsComputed = true;
  output.report.timings.emplace_back("saddle connections (cpu)", timer.seconds());
}

// The simplex counts before the gradient: the grid's from its dims, a mesh's once the
// relations both stages read are built (the gradient's own check then finds them).
template <typename Triangulation>
sg::ComplexSize complexSize(Triangulation& tri, const ScalarArrayView& values) {
  if constexpr (isGridTriangulation<Triangulation>) {
    return sg::gridComplexSize(tri.dims(), values);
  } else {
    validateVertexField(tri.getNumberOfVertices(), values);
    tri.precondition(sg::kRequiredRelations | kRequiredRelations);
    const int dim = tri.getDimension();
    return {dim,
            {tri.getNumberOfVertices(), tri.getNumberOfEdges(),
             tri.getNumberOfTriangles(),
             dim == 3 ? tri.getNumberOfCells() : SimplexId(0)},
            scalarTypeSize(values.type)};
  }
}

// The saddle-extremum arcs: per 1-saddle its vertices' minima, per (d-1)-saddle its
// cofaces' maxima (cellAscendingManifold through the boundary), equal ends merged.
template <typename Triangulation>
void extremumArcs(const Triangulation& tri, const sg::Output& g,
                  const std::vector<SimplexId>& minimumOf, Output& output) {
  Timer timer;
  const int top = g.dimension;
  auto addArcs = [](SimplexId saddle, std::vector<SimplexId>& ends,
                    std::vector<Arc>& arcs) {
    std::sort(ends.begin(), ends.end());
    for (std::size_t k = 0; k < ends.size();) {
      std::size_t end = k;
      while (end < ends.size() && ends[end] == ends[k])
        ++end;
      arcs.push_back({saddle, ends[k], int(end - k)});
      k = end;
    }
  };
  std::vector<SimplexId> ends;
  for (const SimplexId e : g.criticalCells[1]) {
    ends = {minimumOf[tri.getEdgeVertex(e, 0)], minimumOf[tri.getEdgeVertex(e, 1)]};
    addArcs(e, ends, output.saddle1Minimum);
  }
  for (const SimplexId s : g.criticalCells[top - 1]) {
    ends.clear();
    for (int k = 0; k < sg::getFacetStarNumber(tri, top, s); ++k)
      ends.push_back(output.cellAscendingManifold[sg::getFacetStar(tri, top, s, k)]);
    addArcs(s, ends, output.saddleMaximum);
  }
  output.report.timings.emplace_back("arcs (cpu)", timer.seconds());
}

inline void countUnlabelled(Output& output) {
  for (const ManifoldLabel l : output.descendingManifold)
    output.unlabelledDescending += l < 0;
  for (const ManifoldLabel l : output.ascendingManifold)
    output.unlabelledAscending += l < 0;
  for (const ManifoldLabel l : output.cellAscendingManifold)
    output.unlabelledCells += l < 0;
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output = Output();
  // Implicit grids on the GPU: the device path (SimplicialGridGpuPath.h); after a
  // device failure the CPU runs with its warning.
  RunReport fallback;
  if constexpr (std::is_same_v<Triangulation, ImplicitTriangulation>)
    if (detail::runGridGpuPath(tri, values, parameters, monitor, output, fallback))
      return;
  const Backend backend = fallback.warnings.empty() ? parameters.backend : Backend::Cpu;
  const bool connections = parameters.computeSaddleConnections;
  const bool implicitGrid = std::is_same_v<Triangulation, ImplicitTriangulation>;
  const HostPart part = parameters.diagramOnly ? HostPart::Diagram : HostPart::Complex;
  refuseOverBudget(detail::complexSize(tri, values), {}, HostPath::Cpu, connections,
                   implicitGrid, parameters.memoryBudget, part);
  sg::execute(tri, values,
              sg::Parameters{backend, parameters.vertexOrder, parameters.memoryBudget},
              monitor.stage(0, 0.5), output.gradient, &output.rank);
  const sg::ComplexSize size{output.gradient.dimension, output.gradient.simplexCounts,
                             scalarTypeSize(values.type)};
  refuseOverBudget(size, output.gradient.counts, HostPath::Cpu, connections, implicitGrid,
                   parameters.memoryBudget, part);
  output.report = output.gradient.report;
  output.hostMemoryEstimate =
      complexHostBytes(size, output.gradient.counts, HostPath::Cpu, connections, part);
  output.report.warnings.insert(output.report.warnings.begin(), fallback.warnings.begin(),
                                fallback.warnings.end());
  const sg::Output& g = output.gradient;
  const int top = g.dimension;
  if (top < 2)
    throw Error("the Morse-Smale complex needs triangles or tetrahedra");
  Timer timer;
  tri.precondition(kRequiredRelations);
  const SimplexId* rank = output.rank.data();
  const SimplexId nVertices = g.simplexCounts[0], nCells = g.simplexCounts[top];

  if (parameters.diagramOnly) {
    saddleEnds(tri, g, monitor, output.saddle1Ends, output.saddleMaximumEnds);
    output.saddleEndsComputed = true;
    output.report.timings.emplace_back("saddle ends (cpu)", timer.seconds());
    monitor.report(0.85);
    monitor.checkAbort();
    if (parameters.computeSaddleConnections && top == 3)
      detail::saddleConnections(tri, g, parameters, output);
    monitor.report(1.0);
    return;
  }

  // Minima: the descending forest over the vertices.
  std::vector<SimplexId> minimumOf;
  sg::computeDescendingManifold(tri, g, minimumOf);
  morse_smale_complex::detail::checkLabelRange(SimplexId(g.criticalCells[0].size()),
                                               "minima");
  output.descendingManifold.assign(minimumOf.begin(), minimumOf.end());
  monitor.report(0.6);
  monitor.checkAbort();

  // Maxima: the ascending forest over the top cells (an exit through facet f is -1 - f),
  // then the boundary forest for the exits.
  std::vector<SimplexId> next(std::size_t(nCells), 0);
  tbb::parallel_for(SimplexId(0), nCells,
                    [&](SimplexId c) { next[c] = sg::ascendingSuccessor(tri, g, c); });
  discrete_gradient::jumpToRoots(next, monitor);
  detail::boundaryForest(tri, top, rank, output);
  std::vector<SimplexId> boundaryRoot = output.boundaryNext;
  discrete_gradient::jumpToRoots(boundaryRoot, monitor);
  monitor.report(0.7);
  monitor.checkAbort();

  const auto& criticalTop = g.criticalCells[top];
  std::vector<SimplexId> maximumOf(std::size_t(nCells), -1); // critical cell -> index
  for (std::size_t i = 0; i < criticalTop.size(); ++i) {
    maximumOf[criticalTop[i]] = SimplexId(i);
    output.maxima.push_back({top, criticalTop[i]});
  }
  const auto& facets = output.boundaryFacets;
  auto facetIndex = [&](SimplexId f) {
    return SimplexId(std::lower_bound(facets.begin(), facets.end(), f) - facets.begin());
  };
  // Boundary roots reached by an exit, numbered in facet order (a root whose cell is a
  // critical maximum is that maximum). An exit's root is looked up once, in parallel,
  // and kept in next as -1 - root index (most cells exit on a background-heavy volume).
  std::vector<SimplexId> rootLabel(facets.size(), -1);
  std::vector<char> reached(facets.size(), 0);
  tbb::parallel_for(SimplexId(0), nCells, [&](SimplexId c) {
    if (next[c] < 0) {
      const SimplexId root = boundaryRoot[facetIndex(-1 - next[c])];
      next[c] = -1 - root;
      __atomic_store_n(&reached[root], char(1), __ATOMIC_RELAXED);
    }
  });
  for (std::size_t i = 0; i < facets.size(); ++i) {
    if (!reached[i])
      continue;
    const SimplexId cell = sg::getFacetStar(tri, top, facets[i], 0);
    if (sg::isCritical(g, top, cell)) {
      rootLabel[i] = maximumOf[cell];
    } else {
      rootLabel[i] = SimplexId(output.maxima.size());
      output.maxima.push_back({top - 1, facets[i]});
      ++output.boundaryMaxima;
    }
  }
  morse_smale_complex::detail::checkLabelRange(SimplexId(output.maxima.size()), "maxima");
  output.cellAscendingManifold.resize(std::size_t(nCells));
  tbb::parallel_for(SimplexId(0), nCells, [&](SimplexId c) {
    output.cellAscendingManifold[c] =
        ManifoldLabel(next[c] >= 0 ? maximumOf[next[c]] : rootLabel[-1 - next[c]]);
  });
  output.report.timings.emplace_back("manifolds (cpu)", timer.seconds());
  monitor.report(0.75);
  monitor.checkAbort();

  // Saddle-extremum arcs (from the labels through the boundary, whatever the rule).
  detail::extremumArcs(tri, g, minimumOf, output);

  // The vertices' labels: TTK's rule unlabels the cells that leave first.
  timer.reset();
  if (parameters.ascendingSegmentation == AscendingSegmentation::Ttk) {
    tbb::parallel_for(SimplexId(0), nCells, [&](SimplexId c) {
      if (next[c] < 0)
        output.cellAscendingManifold[c] = -1;
    });
    detail::ttkVertexLabels(tri, nVertices, output);
  } else {
    detail::vertexDescendingLabels(tri, top, nVertices, rank, output);
  }
  output.report.timings.emplace_back("vertex labels (cpu)", timer.seconds());
  monitor.report(0.85);
  monitor.checkAbort();

  // Saddle connections (3D).
  if (parameters.computeSaddleConnections && top == 3)
    detail::saddleConnections(tri, g, parameters, output);

  detail::countUnlabelled(output);
  monitor.report(1.0);
}

} // namespace topogpu::morse_smale_complex::simplicial
