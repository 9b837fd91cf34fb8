// Implicit triangulation of a regular 2D or 3D grid (TTK's ImplicitTriangulation idea):
// the Freudenthal split of every cell, with every relation computed on the fly from the
// vertex coordinates, so it costs no memory whatever the grid size.
#pragma once

#include "base/GridStencil.h"
#include "triangulation/EdgeTriangle.h"
#include "triangulation/Relations.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace topogpu {

class ImplicitTriangulation {
public:
  // Vertex counts along x, y, z (VTK's point dimensions). An axis of size 1 is squeezed
  // out, so a one-voxel-thick image is triangulated as 2D; fewer than two axes of size
  // >= 2 is an error (Error), as is an empty grid.
  ImplicitTriangulation(SimplexId nx, SimplexId ny, SimplexId nz);

  const grid::Dims& dims() const { return dims_; }
  // Which faces of the grid's box are the domain's boundary (default: all), bit 2a for
  // the low and 2a+1 for the high face along VTK axis a (x, y, z). A piece of a
  // distributed image passes the faces that are real, not cuts between pieces; the
  // boundary queries (isVertexOnBoundary, ...) and the critical points' boundary rule
  // follow it. Bits of squeezed axes are ignored.
  void setBoundaryFaces(int faces);
  int getDimension() const { return dims_.dimension; }
  // Every relation is computed from the coordinates; preconditioning adjacency or
  // boundary queries only adds a byte per vertex marking the grid boundary, so interior
  // vertices (almost all) skip the coordinate arithmetic (table of index offsets).
  // Requests are recorded either way: debug builds check them in every accessor, so a
  // forgotten relation fails on grids as it would on meshes.
  void precondition(Relations relations);

  SimplexId getNumberOfVertices() const { return grid::vertexCount(dims_); }
  SimplexId getNumberOfEdges() const { return edgeOffset_[edgeTypes_]; }
  SimplexId getNumberOfTriangles() const { return triangleOffset_[triangleTypes_]; }
  SimplexId getNumberOfTets() const { return tetOffset_[tetTypes_]; }
  SimplexId getNumberOfCells() const {
    return dims_.dimension == 3 ? getNumberOfTets() : getNumberOfTriangles();
  }

  // Boundary relations (faces of a simplex).
  SimplexId getEdgeVertex(SimplexId e, int i) const;
  SimplexId getTriangleVertex(SimplexId f, int i) const;
  SimplexId getTetVertex(SimplexId t, int i) const;
  SimplexId getTriangleEdge(SimplexId f, int i) const;
  SimplexId getTetEdge(SimplexId t, int i) const;
  SimplexId getTetTriangle(SimplexId t, int i) const;
  int getCellVertexNumber() const { return dims_.dimension + 1; }
  SimplexId getCellVertex(SimplexId c, int i) const {
    return dims_.dimension == 3 ? getTetVertex(c, i) : getTriangleVertex(c, i);
  }
  // The vertices of the cells [first, last), getCellVertexNumber() per cell in
  // getCellVertex's order, into out: one decode per run of cells of a type, then a walk
  // through the grid (converting a grid to a mesh visits every cell).
  void getCellVertices(SimplexId first, SimplexId last, SimplexId* out) const;

  // Coboundary and adjacency relations: count, then indexed access.
  // The vertex-star accessors are inline with an interior fast path (index offsets):
  // they are the inner loop of every link-based algorithm.
  int getVertexNeighborNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VV);
    TOPOGPU_REQUIRE_INDEX(v, getNumberOfVertices(), "vertex");
    return isInteriorVertex(v) ? 2 * edgeTypes_ : boundaryVertexNeighborNumber(v);
  }
  SimplexId getVertexNeighbor(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexNeighborNumber(v), "neighbour index");
    return isInteriorVertex(v) ? v + neighborOffset_[i] : boundaryVertexNeighbor(v, i);
  }
  int getVertexEdgeNumber(SimplexId v) const { return getVertexNeighborNumber(v); }
  SimplexId getVertexEdge(SimplexId v, int i) const;
  int getVertexTriangleNumber(SimplexId v) const;
  SimplexId getVertexTriangle(SimplexId v, int i) const;
  int getVertexTetNumber(SimplexId v) const;
  SimplexId getVertexTet(SimplexId v, int i) const;
  int getEdgeTriangleNumber(SimplexId e) const;
  SimplexId getEdgeTriangle(SimplexId e, int i) const;
  int getEdgeTetNumber(SimplexId e) const;
  SimplexId getEdgeTet(SimplexId e, int i) const;
  // All the triangles of edge e (or tets of triangle f) at once, in getEdgeTriangle's
  // (getTriangleTet's) order, into out; returns how many. One candidate scan instead of
  // one per index (the V-path walks' inner loop).
  static constexpr int kMaxEdgeTriangles = 3 * grid::kMaxTriangleTypes;
  static constexpr int kMaxTriangleTets = 4 * grid::kTetTypes;
  int getEdgeTriangles(SimplexId e, SimplexId* out) const;
  int getTriangleTets(SimplexId f, SimplexId* out) const;
  // The triangle of edge e with stencil index k (grid::edgeTriangleStencil: the
  // triangle types holding an edge of e's direction, in type order), with e's face index
  // in it and its vertices and edges; false when the grid has no such triangle (k out of
  // range, or past the boundary). One decode, then index arithmetic: the step of walks
  // that cross triangles, for which getEdgeTriangle and getTriangleEdge would decode ids.
  bool getEdgeStencilTriangle(SimplexId e, int k, EdgeTriangle& out) const;
  int getTriangleTetNumber(SimplexId f) const;
  SimplexId getTriangleTet(SimplexId f, int i) const;
  int getTetNeighborNumber(SimplexId t) const;
  SimplexId getTetNeighbor(SimplexId t, int i) const;
  // Star = the cells (tets in 3D, triangles in 2D) that contain v.
  int getVertexStarNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VertexStar);
    TOPOGPU_REQUIRE_INDEX(v, getNumberOfVertices(), "vertex");
    if (isInteriorVertex(v))
      return grid::cellTypeCount(dims_.dimension) * (dims_.dimension + 1);
    return dims_.dimension == 3 ? getVertexTetNumber(v) : getVertexTriangleNumber(v);
  }
  SimplexId getVertexStar(SimplexId v, int i) const {
    return dims_.dimension == 3 ? getVertexTet(v, i) : getVertexTriangle(v, i);
  }
  // Vertices of the i-th star cell (getCellVertexNumber() of them), without the id
  // round trip: the hot path of link-based algorithms.
  void getVertexStarVertices(SimplexId v, int i, SimplexId* vertices) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexStarNumber(v), "star index");
    if (!isInteriorVertex(v)) {
      boundaryVertexStarVertices(v, i, vertices);
      return;
    }
    const int cellSize = dims_.dimension + 1;
    for (int q = 0; q < cellSize; ++q)
      vertices[q] = v + starVertexOffset_[i * cellSize + q];
  }

  bool isVertexOnBoundary(SimplexId v) const;
  bool isEdgeOnBoundary(SimplexId e) const;
  bool isTriangleOnBoundary(SimplexId f) const;

  // Simplex ids from vertex ids (any order); -1 when the vertices span no simplex.
  SimplexId findEdge(SimplexId a, SimplexId b) const;
  SimplexId findTriangle(SimplexId a, SimplexId b, SimplexId c) const;
  SimplexId findTet(SimplexId a, SimplexId b, SimplexId c, SimplexId d) const;

private:
  struct Anchor {
    int type;
    SimplexId base[3];
  };
  Anchor decode(SimplexId id, const SimplexId* offsets, int types,
                int (*maskOf)(int, int)) const;
  SimplexId encode(int type, const SimplexId base[3], const SimplexId* offsets,
                   int mask) const;
  bool isInterior(const SimplexId c[3]) const;
  void edgeVertices(SimplexId e, SimplexId v[2]) const;
  void triangleVertices(SimplexId f, SimplexId v[3]) const;
  void tetVertices(SimplexId t, SimplexId v[4]) const;
  bool isInteriorVertex(SimplexId v) const {
    if (!onBoundary_.empty())
      return onBoundary_[v] == 0;
    SimplexId c[3];
    grid::vertexCoords(dims_, v, c);
    return isInterior(c);
  }
  int boundaryVertexNeighborNumber(SimplexId v) const;
  SimplexId boundaryVertexNeighbor(SimplexId v, int i) const;
  void boundaryVertexStarVertices(SimplexId v, int i, SimplexId* vertices) const;
  bool sharesBoundaryPlane(const SimplexId* vertices, int count) const;
  int interiorCofaces(const SimplexId* offsets, int arity, int candidates, SimplexId a,
                      const SimplexId* others, int n, int i) const;
  int interiorCofaceList(const SimplexId* offsets, int arity, int candidates, SimplexId a,
                         const SimplexId* others, int n, int* found) const;
  int cofaceList(SimplexId id, const SimplexId* v, bool tets, SimplexId* out) const;

  grid::Dims dims_;
  int axisOf_[3] = {0, 1, 2}; // VTK axis of each squeezed axis
  int edgeTypes_ = 0, triangleTypes_ = 0, tetTypes_ = 0;
  std::array<SimplexId, grid::kMaxEdgeTypes + 1> edgeOffset_{};
  std::array<SimplexId, grid::kMaxTriangleTypes + 1> triangleOffset_{};
  std::array<SimplexId, grid::kTetTypes + 1> tetOffset_{};
  // index offsets from an interior vertex to its neighbours and to its star cells'
  // vertices
  std::array<SimplexId, std::size_t(2) * grid::kMaxEdgeTypes> neighborOffset_{};
  std::array<SimplexId, std::size_t(4) * grid::kTetTypes * 4> starVertexOffset_{};
  // the same for the triangles around an interior vertex (getVertexTriangle's order)
  std::array<SimplexId, std::size_t(3) * grid::kMaxTriangleTypes * 3>
      triangleStarVertexOffset_{};
  bool stencilTriangle(const Anchor& edge, int k, EdgeTriangle& t) const;
  // Per edge type, its triangles (grid::edgeTriangleStencil).
  std::array<std::array<grid::EdgeTriangleStencil, grid::kMaxEdgeTriangleStencils>,
             grid::kMaxEdgeTypes>
      edgeTriangleStencils_{};
  std::array<int, grid::kMaxEdgeTypes> edgeTriangleStencilCount_{};
  std::vector<std::uint8_t> onBoundary_; // per vertex, filled by precondition()
  Relations prepared_ = 0;               // what callers asked for (debug checks)
};

} // namespace topogpu
