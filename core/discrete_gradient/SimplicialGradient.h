// The discrete gradient of a piecewise-linear scalar field on a simplicial complex
// (triangle and tetrahedral meshes, and the implicit grid's Freudenthal triangulation):
// ProcessLowerStars of Robins, Wood and Sheppard (2011), with the rules TTK's
// DiscreteGradient applies, so that the critical cells are TTK's:
//
//  - the lower star of v holds the simplices whose highest vertex in the shared vertex
//    order is v; each is keyed by the ranks of its other vertices in decreasing order,
//    missing entries being -1, and keys compare lexicographically (so a face is below its
//    cofaces, and every simplex of a lower star has its own key);
//  - v is paired with its lowest lower edge (a minimum when it has none); the other
//    edges wait in the queue of critical candidates;
//  - a coface whose faces in the lower star are all paired but one joins the queue of
//    pairable cells when one of its faces is paired or made critical; the lowest
//    pairable cell is paired with that face (or, when it has none left, becomes a
//    candidate), and only when no cell is pairable does the lowest unpaired candidate
//    become critical.
//
// One lower star writes only its own simplices, so vertices run in parallel (TBB).
// Storage: one byte per simplex (gradient[dimension][id], 1 byte x (V + E + F + T)):
// 0..3 = paired with its face of that index (the backend's face order: getEdgeVertex,
// getTriangleEdge, getTetTriangle: face i omits local vertex dimension - i), kPairedUp =
// paired with the coface whose byte names it, kCritical. getPairedCell and the V-path
// helpers answer through the triangulation's faces and cofaces (kPairRelations).
#pragma once

#include "base/HostMemory.h"
#include "base/ScalarArray.h"
#include "base/Timer.h"
#include "base/Types.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/TriangulationTraits.h"
#include "core/common/VertexOrder.h"
#include "core/discrete_gradient/GridSimplicialForest.h"
#include "core/discrete_gradient/GridSimplicialLowerStar.h"
#include "core/discrete_gradient/SimplicialHostMemory.h"
#include "core/discrete_gradient/SimplicialLowerStar.h"
#include "triangulation/Relations.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace topogpu::discrete_gradient::simplicial {

// The gradient bytes (kPairedUp, kCritical, kUnassigned) are defined with the lower star
// that writes them (SimplicialLowerStar.h).

// What the gradient reads: lower edges through VV, VE (edge i of v joins v to neighbour
// i) and EV; lower tets through the vertex star; lower triangles (3D) as faces of the
// star's tets, found by findTriangle, with FV for their vertex order (2D: the star).
// BoundaryVertices: the mesh backend counts its non-manifold facets there (a warning).
constexpr Relations kRequiredRelations =
    VV | VE | EV | FV | VertexStar | BoundaryVertices;
// What getPairedCell and the V-path helpers read besides: the faces (EV FE TF) and the
// cofaces (VE EF FT) of a paired simplex, and FV (a coface's face is named by the vertex
// it omits).
constexpr Relations kPairRelations = VE | EV | EF | FE | FT | TF | FV;

struct Parameters {
  // Auto: the GPU on implicit grids when there is one and the data fits; meshes run on
  // the CPU.
  Backend backend = Backend::Auto;
  // The vertex order: the front end's (sorted once per field), else its own.
  VertexOrderSource vertexOrder{};
  // Host memory the run may use, in bytes: a larger estimate (SimplicialHostMemory.h)
  // is refused before the gradient is allocated.
  double memoryBudget = std::numeric_limits<double>::infinity();
};

struct Output {
  int dimension = 0;
  std::array<SimplexId, 4> simplexCounts{}; // vertices, edges, triangles, tets
  // One byte per simplex of each dimension (see the header comment). A device run for
  // the persistence pairs leaves them empty and sends edgePairStencils instead.
  std::array<std::vector<std::uint8_t>, 4> gradient;
  // 3D grids, when computed: per edge, its paired triangle's stencil index
  // (GridEdgePairStencils.h), what the saddle boundary expansion reads.
  std::vector<std::uint8_t> edgePairStencils;
  // Critical simplices of each dimension, ascending ids (TTK's CellDimension + CellId),
  // and, parallel to them, each one's highest vertex in the vertex order (whose value
  // TTK reports as the critical point's).
  std::array<std::vector<SimplexId>, 4> criticalCells;
  std::array<std::vector<SimplexId>, 4> criticalVertices;
  std::array<SimplexId, 4> counts{}; // n0 n1 n2 n3 (n3 = 0 in 2D)
  // Host bytes the run needed by its estimate (SimplicialHostMemory.h), with the
  // critical simplices it found.
  double hostMemoryEstimate = 0;
  RunReport report;

  void clear() { *this = Output(); }
  std::size_t memoryBytes() const {
    std::size_t bytes = 0;
    for (const auto& g : gradient)
      bytes += g.size();
    return bytes + edgePairStencils.size();
  }
};

// Throws Error for bad input (size mismatch, NaN/Inf values), Aborted on abort.
// Progress runs 0..1 once over the stages (precondition, vertex order, gradient,
// critical cells). keepOrder, when given, receives the vertex order (later stages of a
// Morse-Smale complex need it).
template <typename Triangulation>
void execute(Triangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output,
             std::vector<SimplexId>* keepOrder = nullptr);

// The simplex paired with (dimension, id): its coface (reverse = false) or its face
// (reverse = true), or -1 when it has none in that direction (TTK's getPairedCell).
// Needs kPairRelations.
template <typename Triangulation>
SimplexId getPairedCell(const Triangulation& tri, const Output& gradient, int dimension,
                        SimplexId id, bool reverse);

inline bool isCritical(const Output& gradient, int dimension, SimplexId id) {
  return gradient.gradient[dimension][id] == kCritical;
}

// A cell of a V-path.
struct Cell {
  int dimension;
  SimplexId id;
  bool operator==(const Cell& o) const { return dimension == o.dimension && id == o.id; }
};

// The descending V-path from vertex v: v, its paired edge, that edge's other vertex, ...
// down to a critical vertex (a minimum), which ends the path (TTK's getDescendingPath).
template <typename Triangulation>
void getDescendingPath(const Triangulation& tri, const Output& gradient, SimplexId v,
                       std::vector<Cell>& path);

// The ascending V-path from cell c (a tet in 3D, a triangle in 2D): c, its paired facet,
// that facet's other cell, ... up to a critical cell (a maximum), or to a facet on the
// boundary, which ends it (TTK's getAscendingPath).
template <typename Triangulation>
void getAscendingPath(const Triangulation& tri, const Output& gradient, SimplexId c,
                      std::vector<Cell>& path);

// The top cells (dimension top) of facet f: its star, as TTK's getTriangleStar (3D) or
// getEdgeStar (2D); two inside, one on the boundary. Needs kPairRelations.
template <typename Triangulation>
int getFacetStarNumber(const Triangulation& tri, int top, SimplexId f) {
  return top == 3 ? tri.getTriangleTetNumber(f) : tri.getEdgeTriangleNumber(f);
}
template <typename Triangulation>
SimplexId getFacetStar(const Triangulation& tri, int top, SimplexId f, int i) {
  return top == 3 ? tri.getTriangleTet(f, i) : tri.getEdgeTriangle(f, i);
}

// The first coface of (dim, id) (triangles of an edge, tets of a triangle), in the
// backend's order, for which accept(coface) holds; -1 when none does. Backends that list
// cofaces in one call (HasCofaceLists) are read so.
template <typename Triangulation, typename Accept>
SimplexId findCoface(const Triangulation& tri, int dim, SimplexId id, Accept&& accept) {
  if constexpr (HasCofaceLists<Triangulation>::value) {
    SimplexId list[Triangulation::kMaxEdgeTriangles];
    const int n =
        dim == 1 ? tri.getEdgeTriangles(id, list) : tri.getTriangleTets(id, list);
    for (int i = 0; i < n; ++i)
      if (accept(list[i]))
        return list[i];
  } else {
    const int n = dim == 1 ? tri.getEdgeTriangleNumber(id) : tri.getTriangleTetNumber(id);
    for (int i = 0; i < n; ++i) {
      const SimplexId c =
          dim == 1 ? tri.getEdgeTriangle(id, i) : tri.getTriangleTet(id, i);
      if (accept(c))
        return c;
    }
  }
  return -1;
}

// One step of a V-path, for finding every element's end at once (PointerJumping.h),
// the twins of the grid's vertexSuccessor and topCellSuccessor (GradientForest.h):
//  - descendingSuccessor: the next vertex of v's descending path (the other vertex of
//    its paired edge), v itself at a minimum;
//  - ascendingSuccessor: the next top cell of c's ascending path (the other cell of its
//    paired facet), c itself at a maximum, or -1 - facet when the path leaves through
//    that boundary facet.
template <typename Triangulation>
SimplexId descendingSuccessor(const Triangulation& tri, const Output& gradient,
                              SimplexId v);
template <typename Triangulation>
SimplexId ascendingSuccessor(const Triangulation& tri, const Output& gradient,
                             SimplexId c);

// ---- implementation ------------------------------------------------------------------

namespace detail {

constexpr double kPreconditionEnd = 0.1, kOrderEnd = 0.3, kGradientEnd = 0.9;

// Highest vertex (in the order) of simplex (dim, id).
template <typename Triangulation>
SimplexId highestVertex(const Triangulation& tri, int dim, SimplexId id,
                        const SimplexId* rank) {
  if (dim == 0)
    return id;
  SimplexId best = -1;
  for (int k = 0; k <= dim; ++k) {
    const SimplexId u = dim == 1   ? tri.getEdgeVertex(id, k)
                        : dim == 2 ? tri.getTriangleVertex(id, k)
                                   : tri.getCellVertex(id, k);
    if (best < 0 || rank[u] > rank[best])
      best = u;
  }
  return best;
}

// Ascending ids of the simplices with byte `code`, per block in parallel; unassigned
// receives the number of kUnassigned bytes.
std::vector<SimplexId> selectCells(const std::vector<std::uint8_t>& bytes,
                                   std::uint8_t code, SimplexId& unassigned);

// Device memory the grid's GPU path needs, for resolveBackend.
std::size_t gridDeviceBytes(const grid::Dims& dims, const ScalarArrayView& values);

// The grid's GPU path (cuda/discrete_gradient/SimplicialGradientGpu.cu): vertex order,
// gradient, critical cells and their highest vertices; keepOrder as execute's.
void runGridGpu(const grid::Dims& dims, const ScalarArrayView& values,
                const Monitor& monitor, Output& output,
                std::vector<SimplexId>* keepOrder);

} // namespace detail

namespace detail {

// The CPU path after the precondition: vertex order, lower stars, critical cells. It
// (re)writes every array it fills, so it may follow a failed GPU run.
template <typename Triangulation>
void runCpu(Triangulation& tri, const ScalarArrayView& values,
            const Parameters& parameters, const Monitor& monitor, Output& output,
            std::vector<SimplexId>* keepOrder) {
  const int dim = output.dimension;
  VertexOrderView order =
      vertexOrderOf(parameters.vertexOrder, values,
                    monitor.stage(kPreconditionEnd, kOrderEnd), output.report);
  monitor.checkAbort();

  Timer timer;
  std::array<std::uint8_t*, 4> bytes{};
  for (int k = 0; k <= dim; ++k) {
    output.gradient[k].assign(std::size_t(output.simplexCounts[k]), kUnassigned);
    bytes[k] = output.gradient[k].data();
  }
  const SimplexId n = tri.getNumberOfVertices();
  tbb::enumerable_thread_specific<LowerStar> scratch;
  const SimplexId chunks = std::max<SimplexId>(1, std::min<SimplexId>(16, n / 65536));
  for (SimplexId k = 0; k < chunks; ++k) {
    // One lower star writes only its own simplices: any visiting order gives the same
    // gradient, so the backend's (GALE: segment by segment) is used.
    parallelForVertexBlocks(
        tri, n * k / chunks, n * (k + 1) / chunks, [&](SimplexId first, SimplexId last) {
          if constexpr (isGridTriangulation<Triangulation>) {
            // the kernel's function, from the grid's stencil
            const GridSimplices g = gridSimplicesOf(tri.dims());
            const GradientBytes out{{bytes[0], bytes[1], bytes[2], bytes[3]}};
            for (SimplexId v = first; v < last; ++v)
              processGridLowerStar(g, v, order.data(), out);
          } else {
            LowerStar& ls = scratch.local();
            for (SimplexId p = first; p < last; ++p)
              processLowerStar(tri, vertexAtPosition(tri, p), order.data(), ls, bytes);
          }
        });
    monitor.checkAbort();
    monitor.report(kOrderEnd + (kGradientEnd - kOrderEnd) * double(k + 1) / chunks);
  }
  output.report.timings.emplace_back("gradient (cpu)", timer.seconds());

  timer.reset();
  for (int k = 0; k <= dim; ++k) {
    // Every simplex lies in the lower star of its highest vertex: an unassigned byte
    // means the triangulation's relations disagree with each other.
    SimplexId lost = 0;
    output.criticalCells[k] = selectCells(output.gradient[k], kCritical, lost);
    if (lost > 0)
      throw Error("internal error: the discrete gradient left " + std::to_string(lost) +
                  " simplices of dimension " + std::to_string(k) + " unclassified");
    auto& top = output.criticalVertices[k];
    const auto& ids = output.criticalCells[k];
    top.resize(ids.size());
    tbb::parallel_for(std::size_t(0), ids.size(), [&](std::size_t i) {
      top[i] = highestVertex(tri, k, ids[i], order.data());
    });
  }
  output.report.timings.emplace_back("critical cells (cpu)", timer.seconds());
  if (keepOrder != nullptr)
    order.moveTo(*keepOrder);
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output,
             std::vector<SimplexId>* keepOrder) {
  output.clear();
  validateVertexField(tri.getNumberOfVertices(), values);
  Timer timer;
  tri.precondition(kRequiredRelations);
  output.report.timings.emplace_back("precondition", timer.seconds());
  monitor.report(detail::kPreconditionEnd);
  monitor.checkAbort();

  const int dim = tri.getDimension();
  output.dimension = dim;
  output.simplexCounts = {tri.getNumberOfVertices(), tri.getNumberOfEdges(),
                          tri.getNumberOfTriangles(),
                          dim == 3 ? tri.getNumberOfCells() : SimplexId(0)};
  const ComplexSize size{dim, output.simplexCounts, scalarTypeSize(values.type)};
  refuseOverHostMemoryBudget(gradientHostBytes(size, 0), parameters.memoryBudget,
                             "the simplicial discrete gradient of " + describe(size),
                             "raise the memory budget or use a smaller field");
  auto cpu = [&] { detail::runCpu(tri, values, parameters, monitor, output, keepOrder); };
  if constexpr (isGridTriangulation<Triangulation>) {
    const Backend resolved = resolveBackend(
        parameters.backend, detail::gridDeviceBytes(tri.dims(), values), output.report);
    runWithFallback(
        resolved, "simplicial discrete gradient", output.report,
        [&] {
          detail::runGridGpu(tri.dims(), values,
                             monitor.stage(detail::kPreconditionEnd, 1), output,
                             keepOrder);
        },
        cpu);
  } else {
    if (parameters.backend == Backend::Gpu)
      output.report.warnings.push_back(
          {WarningCode::NoGpuPath,
           "the simplicial discrete gradient runs on the CPU on meshes; the GPU was not "
           "used"});
    output.report.backend = "cpu";
    cpu();
  }
  SimplexId critical = 0;
  for (int k = 0; k <= dim; ++k) {
    output.counts[k] = SimplexId(output.criticalCells[k].size());
    critical += output.counts[k];
  }
  output.hostMemoryEstimate = gradientHostBytes(size, critical);
  if constexpr (CountsNonManifoldFacets<Triangulation>::value) {
    if (tri.getNumberOfNonManifoldFacets() > 0)
      output.report.warnings.push_back(
          {WarningCode::NonManifoldMesh,
           "the mesh is non-manifold: " +
               std::to_string(tri.getNumberOfNonManifoldFacets()) +
               (dim == 3 ? " triangles are" : " edges are") +
               " shared by more than two cells; the gradient is still a valid discrete "
               "gradient of the complex"});
  }
  monitor.report(1.0);
}

// ---- queries
// ---------------------------------------------------------------------------

template <typename Triangulation>
SimplexId getPairedCell(const Triangulation& tri, const Output& g, int dim, SimplexId id,
                        bool reverse) {
  if (dim < 0 || dim > g.dimension)
    return -1;
  const std::uint8_t code = g.gradient[dim][id];
  if (reverse) {
    if (dim == 0 || code > 3)
      return -1;
    if (dim == 1)
      return tri.getEdgeVertex(id, code);
    if (dim == 2)
      return tri.getTriangleEdge(id, code);
    return tri.getTetTriangle(id, code);
  }
  if (code != kPairedUp || dim == g.dimension)
    return -1;
  // The coface whose byte names this simplex as its face. Face c of a coface omits its
  // local vertex (dimension - c), so it is this simplex exactly when that vertex is not
  // one of ours: one vertex lookup per coface instead of building the face's id.
  if (dim == 0) {
    const int n = tri.getVertexEdgeNumber(id);
    for (int i = 0; i < n; ++i) {
      const SimplexId e = tri.getVertexEdge(id, i);
      const std::uint8_t c = g.gradient[1][e];
      if (c <= 1 && tri.getEdgeVertex(e, c) == id)
        return e;
    }
  } else if (dim == 1) {
    const SimplexId a = tri.getEdgeVertex(id, 0), b = tri.getEdgeVertex(id, 1);
    return findCoface(tri, 1, id, [&](SimplexId f) {
      const std::uint8_t c = g.gradient[2][f];
      if (c > 2)
        return false;
      const SimplexId omitted = tri.getTriangleVertex(f, 2 - c);
      return omitted != a && omitted != b;
    });
  } else {
    const SimplexId v[3] = {tri.getTriangleVertex(id, 0), tri.getTriangleVertex(id, 1),
                            tri.getTriangleVertex(id, 2)};
    return findCoface(tri, 2, id, [&](SimplexId t) {
      const std::uint8_t c = g.gradient[3][t];
      if (c > 3)
        return false;
      const SimplexId omitted = tri.getCellVertex(t, 3 - c);
      return omitted != v[0] && omitted != v[1] && omitted != v[2];
    });
  }
  return -1;
}

template <typename Triangulation>
void getDescendingPath(const Triangulation& tri, const Output& g, SimplexId v,
                       std::vector<Cell>& path) {
  // V-paths are acyclic: at most one step per edge, a bound that also stops a corrupt
  // gradient from looping.
  for (SimplexId steps = 0; steps <= g.simplexCounts[1]; ++steps) {
    path.push_back(Cell{0, v});
    const SimplexId e = getPairedCell(tri, g, 0, v, false);
    if (e < 0)
      return;
    path.push_back(Cell{1, e});
    const SimplexId a = tri.getEdgeVertex(e, 0);
    v = a == v ? tri.getEdgeVertex(e, 1) : a;
  }
  throw Error("internal error: a descending V-path does not end");
}

template <typename Triangulation>
void getAscendingPath(const Triangulation& tri, const Output& g, SimplexId c,
                      std::vector<Cell>& path) {
  const int top = g.dimension;
  for (SimplexId steps = 0; steps <= g.simplexCounts[top]; ++steps) {
    path.push_back(Cell{top, c});
    const SimplexId facet = getPairedCell(tri, g, top, c, true);
    if (facet < 0)
      return;
    path.push_back(Cell{top - 1, facet});
    const int n = getFacetStarNumber(tri, top, facet);
    SimplexId next = -1;
    for (int i = 0; i < n && next < 0; ++i) {
      const SimplexId other = getFacetStar(tri, top, facet, i);
      if (other != c)
        next = other;
    }
    if (next < 0)
      return; // the facet is on the boundary
    c = next;
  }
  throw Error("internal error: an ascending V-path does not end");
}

namespace detail {
inline ConstGradientBytes constBytes(const Output& g) {
  return {{g.gradient[0].data(), g.gradient[1].data(), g.gradient[2].data(),
           g.gradient[3].data()}};
}
} // namespace detail

template <typename Triangulation>
SimplexId descendingSuccessor(const Triangulation& tri, const Output& g, SimplexId v) {
  if constexpr (isGridTriangulation<Triangulation>) // the kernels' function
    return gridDescendingSuccessor(gridSimplicesOf(tri.dims()), detail::constBytes(g), v);
  const SimplexId e = getPairedCell(tri, g, 0, v, false);
  if (e < 0)
    return v;
  const SimplexId a = tri.getEdgeVertex(e, 0);
  return a == v ? tri.getEdgeVertex(e, 1) : a;
}

template <typename Triangulation>
SimplexId ascendingSuccessor(const Triangulation& tri, const Output& g, SimplexId c) {
  if constexpr (isGridTriangulation<Triangulation>) // the kernels' function
    return gridAscendingSuccessor(gridSimplicesOf(tri.dims()), detail::constBytes(g), c);
  const int top = g.dimension;
  const SimplexId facet = getPairedCell(tri, g, top, c, true);
  if (facet < 0)
    return c;
  const SimplexId other =
      findCoface(tri, top - 1, facet, [&](SimplexId cell) { return cell != c; });
  return other >= 0 ? other : -1 - facet;
}

} // namespace topogpu::discrete_gradient::simplicial

namespace topogpu {
class ImplicitTriangulation;
class ExplicitTriangulation;
class GaleTriangulation;
namespace discrete_gradient::simplicial {
// Instantiated once, in SimplicialGradient.cpp.
extern template void execute(ImplicitTriangulation&, const ScalarArrayView&,
                             const Parameters&, const Monitor&, Output&,
                             std::vector<SimplexId>*);
extern template void execute(ExplicitTriangulation&, const ScalarArrayView&,
                             const Parameters&, const Monitor&, Output&,
                             std::vector<SimplexId>*);
extern template void execute(GaleTriangulation&, const ScalarArrayView&,
                             const Parameters&, const Monitor&, Output&,
                             std::vector<SimplexId>*);
} // namespace discrete_gradient::simplicial
} // namespace topogpu
