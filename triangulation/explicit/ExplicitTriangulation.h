// Explicit triangulation of an unstructured triangle (2D) or tetrahedral (3D) mesh:
// relations are computed in parallel (TBB) on demand by precondition() and stored as
// compressed rows, as TTK's ExplicitTriangulation does.
#pragma once

#include "core/common/Types.h"
#include "triangulation/Relations.h"

#include <array>
#include <cstdint>
#include <vector>

namespace topogpu {

// Variable-length rows: row r is data[offsets[r] .. offsets[r+1]).
struct CompressedRows {
  std::vector<SimplexId> offsets{0};
  std::vector<SimplexId> data;
  int size(SimplexId r) const { return int(offsets[r + 1] - offsets[r]); }
  SimplexId at(SimplexId r, int i) const { return data[offsets[r] + i]; }
  bool empty() const { return offsets.size() <= 1; }
};

class ImplicitTriangulation;

class ExplicitTriangulation {
public:
  // cellDimension 2 (triangles, 3 ids per cell) or 3 (tets, 4 ids per cell). Throws
  // Error on vertex ids out of range, repeated vertices in a cell, or an empty mesh.
  ExplicitTriangulation(SimplexId numberOfVertices, int cellDimension,
                        std::vector<SimplexId> cellVertices);

  int getDimension() const { return dimension_; }
  // Builds the named relations (and what they depend on) in parallel; idempotent.
  void precondition(Relations relations);

  SimplexId getNumberOfVertices() const { return numberOfVertices_; }
  SimplexId getNumberOfEdges() const { return SimplexId(edges_.size()); }
  SimplexId getNumberOfTriangles() const {
    return dimension_ == 2 ? numberOfCells_ : SimplexId(triangles_.size());
  }
  SimplexId getNumberOfTets() const { return dimension_ == 3 ? numberOfCells_ : 0; }
  SimplexId getNumberOfCells() const { return numberOfCells_; }

  int getCellVertexNumber() const { return dimension_ + 1; }
  SimplexId getCellVertex(SimplexId c, int i) const {
    return cells_[c * (dimension_ + 1) + i];
  }
  SimplexId getEdgeVertex(SimplexId e, int i) const { return edges_[e][i]; }
  SimplexId getTriangleVertex(SimplexId f, int i) const {
    return dimension_ == 2 ? getCellVertex(f, i) : triangles_[f][i];
  }
  SimplexId getTetVertex(SimplexId t, int i) const { return getCellVertex(t, i); }
  SimplexId getTriangleEdge(SimplexId f, int i) const { return triangleEdges_[f][i]; }
  SimplexId getTetEdge(SimplexId t, int i) const { return tetEdges_[t][i]; }
  SimplexId getTetTriangle(SimplexId t, int i) const { return tetTriangles_[t][i]; }

  int getVertexNeighborNumber(SimplexId v) const { return vertexEdges_.size(v); }
  SimplexId getVertexNeighbor(SimplexId v, int i) const {
    return vertexNeighbors_[vertexEdges_.offsets[v] + i];
  }
  int getVertexEdgeNumber(SimplexId v) const { return vertexEdges_.size(v); }
  SimplexId getVertexEdge(SimplexId v, int i) const { return vertexEdges_.at(v, i); }
  int getVertexTriangleNumber(SimplexId v) const {
    return dimension_ == 2 ? vertexStar_.size(v) : vertexTriangles_.size(v);
  }
  SimplexId getVertexTriangle(SimplexId v, int i) const {
    return dimension_ == 2 ? vertexStar_.at(v, i) : vertexTriangles_.at(v, i);
  }
  int getVertexTetNumber(SimplexId v) const {
    return dimension_ == 3 ? vertexStar_.size(v) : 0;
  }
  SimplexId getVertexTet(SimplexId v, int i) const { return vertexStar_.at(v, i); }
  int getEdgeTriangleNumber(SimplexId e) const { return edgeTriangles_.size(e); }
  SimplexId getEdgeTriangle(SimplexId e, int i) const { return edgeTriangles_.at(e, i); }
  int getEdgeTetNumber(SimplexId e) const {
    return dimension_ == 3 ? edgeTets_.size(e) : 0;
  }
  SimplexId getEdgeTet(SimplexId e, int i) const { return edgeTets_.at(e, i); }
  int getTriangleTetNumber(SimplexId f) const {
    return dimension_ == 3 ? triangleTets_.size(f) : 0;
  }
  SimplexId getTriangleTet(SimplexId f, int i) const { return triangleTets_.at(f, i); }
  int getTetNeighborNumber(SimplexId t) const {
    return dimension_ == 3 ? tetNeighbors_.size(t) : 0;
  }
  SimplexId getTetNeighbor(SimplexId t, int i) const { return tetNeighbors_.at(t, i); }
  int getVertexStarNumber(SimplexId v) const {
    return dimension_ == 3 ? getVertexTetNumber(v) : getVertexTriangleNumber(v);
  }
  SimplexId getVertexStar(SimplexId v, int i) const {
    return dimension_ == 3 ? getVertexTet(v, i) : getVertexTriangle(v, i);
  }

  void getVertexStarVertices(SimplexId v, int i, SimplexId* vertices) const {
    const SimplexId cell = getVertexStar(v, i);
    for (int k = 0; k <= dimension_; ++k)
      vertices[k] = getCellVertex(cell, k);
  }

  bool isVertexOnBoundary(SimplexId v) const { return vertexOnBoundary_[v] != 0; }
  bool isEdgeOnBoundary(SimplexId e) const { return edgeOnBoundary_[e] != 0; }
  bool isTriangleOnBoundary(SimplexId f) const {
    return dimension_ == 3 && triangleCellCount_[f] == 1;
  }

  SimplexId findEdge(SimplexId a, SimplexId b) const;
  SimplexId findTriangle(SimplexId a, SimplexId b, SimplexId c) const;

  // Facets (triangles in 3D, edges in 2D) shared by more than two cells; computed by
  // precondition(BoundaryVertices). A manifold mesh has none.
  SimplexId getNumberOfNonManifoldFacets() const { return nonManifoldFacets_; }

private:
  void buildEdges();
  void buildTriangles();
  void buildVertexEdges();
  void buildVertexTriangles();
  void buildVertexStar();
  template <int K>
  void gatherFacesAbove(SimplexId v, std::vector<std::array<SimplexId, K>>& faces) const;
  template <int K>
  void buildFacesByLowVertex(std::vector<std::array<SimplexId, K>>& faces,
                             std::vector<std::uint8_t>& cellCounts,
                             std::vector<SimplexId>& offsets);
  void buildTriangleEdges();
  void buildTetEdges();
  void buildTetTriangles();
  void buildEdgeTriangles();
  void buildEdgeTets();
  void buildTriangleTets();
  void buildTetNeighbors();
  void buildBoundaryVertices();
  void buildBoundaryEdges();

  int dimension_;
  SimplexId numberOfVertices_;
  SimplexId numberOfCells_;
  std::vector<SimplexId> cells_; // vertex ids of each cell, ascending
  Relations built_ = 0;

  std::vector<std::array<SimplexId, 2>> edges_;     // sorted lexicographically
  std::vector<SimplexId> edgesByLowVertex_;         // rows of edges_ per low vertex
  std::vector<std::array<SimplexId, 3>> triangles_; // 3D only, sorted
  std::vector<SimplexId> trianglesByLowVertex_;     // 3D: rows of triangles_
  std::vector<SimplexId> triangleLookup_;           // 2D: cell ids sorted by vertices
  std::vector<std::array<SimplexId, 3>> triangleEdges_;
  std::vector<std::array<SimplexId, 6>> tetEdges_;
  std::vector<std::array<SimplexId, 4>> tetTriangles_;
  CompressedRows vertexEdges_;
  std::vector<SimplexId> vertexNeighbors_; // parallel to vertexEdges_.data
  CompressedRows vertexStar_;              // cells around each vertex: VT in 3D, VF in 2D
  CompressedRows vertexTriangles_, edgeTriangles_, edgeTets_, triangleTets_,
      tetNeighbors_;
  // How many cells produced each edge / triangle (saturating at 255): a facet in one cell
  // is on the boundary, in more than two it is non-manifold.
  std::vector<std::uint8_t> edgeCellCount_, triangleCellCount_;
  std::vector<char> vertexOnBoundary_, edgeOnBoundary_;
  SimplexId nonManifoldFacets_ = 0;
};

// The cells of a grid's Freudenthal triangulation stored as an explicit mesh (same
// vertex ids): the mesh backend on a domain whose answer the grid backend knows, for
// tests, benchmarks and the later GALE comparisons.
ExplicitTriangulation explicitCopyOf(const ImplicitTriangulation& grid);

} // namespace topogpu
