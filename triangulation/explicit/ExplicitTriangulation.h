// Explicit triangulation of an unstructured triangle (2D) or tetrahedral (3D) mesh:
// relations are computed in parallel (TBB) on demand by precondition() and stored as
// compressed rows, as TTK's ExplicitTriangulation does. Lean by design: the input's
// cells are read in place (owned or a view of the caller's buffer, e.g. VTK's), every
// relation is derived from the vertex star without a global sort, and each stored array
// takes 32-bit ids when its values fit (64-bit otherwise, or when forced).
#pragma once

#include "base/Types.h"
#include "triangulation/Relations.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace topogpu {

// Ids stored as 32- or 64-bit integers, the width fixed by allocate() from the largest
// value the array will hold (as vtkCellArray's 32/64-bit storage).
class IdArray {
public:
  IdArray() = default;
  IdArray(const IdArray& other);
  IdArray(IdArray&& other) noexcept;
  IdArray& operator=(const IdArray& other);
  IdArray& operator=(IdArray&& other) noexcept;
  ~IdArray() = default;

  void allocate(std::size_t size, SimplexId maxValue, bool forceWide);
  // 32-bit storage for size ids, left uninitialized for the caller to fill at once (a
  // download): no serial zeroing pass over a large array.
  std::int32_t* allocateNarrowUninitialized(std::size_t size);
  SimplexId operator[](std::size_t i) const {
    return wide_ ? wideData_[i] : SimplexId(narrow_[i]);
  }
  void set(std::size_t i, SimplexId value) {
    if (wide_)
      wideData_[i] = value;
    else
      narrow_[i] = std::int32_t(value);
  }
  std::size_t size() const { return wide_ ? wideData_.size() : narrowSize_; }
  bool isWide() const { return wide_; }
  // The 32-bit ids in place (uploads without a copy); nullptr when wide.
  const std::int32_t* narrowData() const { return wide_ ? nullptr : narrow_; }
  void sort(std::size_t first, std::size_t last);
  void release();
  // Takes 32-bit ids as they are (no copy).
  void adopt(std::vector<std::int32_t>&& data) {
    release();
    narrowData_ = std::move(data);
    narrow_ = narrowData_.data();
    narrowSize_ = narrowData_.size();
  }

private:
  bool wide_ = false;
  // The 32-bit ids live in narrowData_ (allocated, adopted) or narrowBuffer_
  // (uninitialized); narrow_ points at them.
  std::int32_t* narrow_ = nullptr;
  std::size_t narrowSize_ = 0;
  std::vector<std::int32_t> narrowData_;
  std::unique_ptr<std::int32_t[]> narrowBuffer_;
  std::vector<std::int64_t> wideData_;
};

// Variable-length rows: row r is data[offsets[r] .. offsets[r+1]).
struct CompressedRows {
  IdArray offsets;
  IdArray data;
  int size(SimplexId r) const { return int(offsets[r + 1] - offsets[r]); }
  SimplexId at(SimplexId r, int i) const { return data[offsets[r] + i]; }
};

class ImplicitTriangulation;

enum class IdWidth {
  Auto,    // 32-bit wherever the values fit
  Force64, // 64-bit everywhere (the path meshes beyond 2^31 simplices take; for tests)
};

class ExplicitTriangulation {
public:
  // cellDimension 2 (triangles, 3 ids per cell) or 3 (tets, 4 ids per cell), cells in
  // any vertex order (kept as given). Throws Error on vertex ids out of range, repeated
  // vertices in a cell, identical cells, or an empty mesh.
  ExplicitTriangulation(SimplexId numberOfVertices, int cellDimension,
                        std::vector<SimplexId> cellVertices,
                        IdWidth width = IdWidth::Auto);
  // Owned 32-bit connectivity (explicitCopyOf and readers of small meshes).
  static ExplicitTriangulation fromCells32(SimplexId numberOfVertices, int cellDimension,
                                           std::vector<std::int32_t> cellVertices,
                                           IdWidth width = IdWidth::Auto);
  // A view of a caller's connectivity buffer (numberOfCells * (cellDimension + 1) ids),
  // not copied; owner keeps it alive as long as the triangulation (and its copies).
  static ExplicitTriangulation view(SimplexId numberOfVertices, int cellDimension,
                                    const std::int32_t* cellVertices,
                                    SimplexId numberOfCells,
                                    std::shared_ptr<const void> owner,
                                    IdWidth width = IdWidth::Auto);
  static ExplicitTriangulation view(SimplexId numberOfVertices, int cellDimension,
                                    const std::int64_t* cellVertices,
                                    SimplexId numberOfCells,
                                    std::shared_ptr<const void> owner,
                                    IdWidth width = IdWidth::Auto);

  // Edges' and (3D) triangles' vertices are stored by ascending id (core/common/
  // TriangulationTraits.h SimplexVerticesAscending).
  static constexpr bool kSimplexVerticesAscending = true;

  int getDimension() const { return dimension_; }
  // Builds the named relations (and what they depend on) in parallel; idempotent.
  void precondition(Relations relations);

  SimplexId getNumberOfVertices() const { return numberOfVertices_; }
  SimplexId getNumberOfEdges() const {
    TOPOGPU_REQUIRE_RELATION(prepared_, EV | VE | EF | ET | FE | TE | BoundaryEdges);
    return SimplexId(edgeCellCount_.size());
  }
  SimplexId getNumberOfTriangles() const {
    if (dimension_ == 2)
      return numberOfCells_;
    TOPOGPU_REQUIRE_RELATION(prepared_,
                             FV | VF | EF | FE | FT | TF | TT | BoundaryTriangles);
    return SimplexId(triangleCellCount_.size());
  }
  SimplexId getNumberOfTets() const { return dimension_ == 3 ? numberOfCells_ : 0; }
  SimplexId getNumberOfCells() const { return numberOfCells_; }

  int getCellVertexNumber() const { return dimension_ + 1; }
  SimplexId getCellVertex(SimplexId c, int i) const {
    TOPOGPU_REQUIRE_INDEX(c, numberOfCells_, "cell");
    TOPOGPU_REQUIRE_INDEX(i, dimension_ + 1, "vertex index");
    return cellVertex(c, i);
  }
  SimplexId getEdgeVertex(SimplexId e, int i) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, EV);
    TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
    TOPOGPU_REQUIRE_INDEX(i, 2, "vertex index");
    return edgeVertices_[2 * e + i];
  }
  SimplexId getTriangleVertex(SimplexId f, int i) const {
    if (dimension_ == 2)
      return getCellVertex(f, i); // the cells are the triangles
    TOPOGPU_REQUIRE_RELATION(prepared_, FV);
    TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
    TOPOGPU_REQUIRE_INDEX(i, 3, "vertex index");
    return triangleVertices_[3 * f + i];
  }
  SimplexId getTetVertex(SimplexId t, int i) const {
    TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
    return getCellVertex(t, i);
  }
  SimplexId getTriangleEdge(SimplexId f, int i) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, FE);
    TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
    TOPOGPU_REQUIRE_INDEX(i, 3, "edge index");
    return triangleEdges_[3 * f + i];
  }
  SimplexId getTetEdge(SimplexId t, int i) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, TE);
    TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
    TOPOGPU_REQUIRE_INDEX(i, 6, "edge index");
    return tetEdges_[6 * t + i];
  }
  SimplexId getTetTriangle(SimplexId t, int i) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, TF);
    TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
    TOPOGPU_REQUIRE_INDEX(i, 4, "triangle index");
    return tetTriangles_[4 * t + i];
  }

  int getVertexNeighborNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VV);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    return vertexNeighbors_.size(v);
  }
  SimplexId getVertexNeighbor(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexNeighborNumber(v), "neighbour index");
    return vertexNeighbors_.at(v, i);
  }
  // Edge i of v joins v to getVertexNeighbor(v, i).
  int getVertexEdgeNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VE);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    return vertexNeighbors_.size(v);
  }
  SimplexId getVertexEdge(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexEdgeNumber(v), "edge index");
    return vertexEdges_[vertexNeighbors_.offsets[v] + i];
  }
  int getVertexTriangleNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VF);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    return dimension_ == 2 ? vertexStar_.size(v) : vertexTriangles_.size(v);
  }
  SimplexId getVertexTriangle(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexTriangleNumber(v), "triangle index");
    return dimension_ == 2 ? vertexStar_.at(v, i) : vertexTriangles_.at(v, i);
  }
  int getVertexTetNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VT);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    return dimension_ == 3 ? vertexStar_.size(v) : 0;
  }
  SimplexId getVertexTet(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexTetNumber(v), "tetrahedron index");
    return vertexStar_.at(v, i);
  }
  int getEdgeTriangleNumber(SimplexId e) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, EF);
    TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
    return edgeTriangles_.size(e);
  }
  SimplexId getEdgeTriangle(SimplexId e, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getEdgeTriangleNumber(e), "triangle index");
    return edgeTriangles_.at(e, i);
  }
  int getEdgeTetNumber(SimplexId e) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, ET);
    TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
    return dimension_ == 3 ? edgeTets_.size(e) : 0;
  }
  SimplexId getEdgeTet(SimplexId e, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getEdgeTetNumber(e), "tetrahedron index");
    return edgeTets_.at(e, i);
  }
  int getTriangleTetNumber(SimplexId f) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, FT);
    TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
    return dimension_ == 3 ? triangleTets_.size(f) : 0;
  }
  SimplexId getTriangleTet(SimplexId f, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getTriangleTetNumber(f), "tetrahedron index");
    return triangleTets_.at(f, i);
  }
  int getTetNeighborNumber(SimplexId t) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, TT);
    TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
    return dimension_ == 3 ? tetNeighbors_.size(t) : 0;
  }
  SimplexId getTetNeighbor(SimplexId t, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getTetNeighborNumber(t), "neighbour index");
    return tetNeighbors_.at(t, i);
  }
  // Star = the cells (tets in 3D, triangles in 2D) that contain v.
  int getVertexStarNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VertexStar);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    return vertexStar_.size(v);
  }
  SimplexId getVertexStar(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexStarNumber(v), "star index");
    return vertexStar_.at(v, i);
  }
  // Vertices of the i-th star cell (getCellVertexNumber() of them): the hot path of
  // link-based algorithms.
  void getVertexStarVertices(SimplexId v, int i, SimplexId* vertices) const {
    const SimplexId cell = getVertexStar(v, i);
    for (int k = 0; k <= dimension_; ++k)
      vertices[k] = cellVertex(cell, k);
  }

  bool isVertexOnBoundary(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryVertices);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    return vertexOnBoundary_[v] != 0;
  }
  bool isEdgeOnBoundary(SimplexId e) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryEdges);
    TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
    return edgeOnBoundary_[e] != 0;
  }
  bool isTriangleOnBoundary(SimplexId f) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryTriangles);
    TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
    return dimension_ == 3 && triangleCellCount_[f] == 1;
  }

  // Simplex ids from vertex ids (any order); -1 when the vertices span no simplex. Need
  // the edges (any edge relation) and the triangles (any triangle relation; in 2D the
  // vertex star) respectively.
  SimplexId findEdge(SimplexId a, SimplexId b) const;
  SimplexId findTriangle(SimplexId a, SimplexId b, SimplexId c) const;

  // Facets (triangles in 3D, edges in 2D) shared by more than two cells; computed by
  // precondition(BoundaryVertices). A manifold mesh has none.
  SimplexId getNumberOfNonManifoldFacets() const {
    TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryVertices);
    return nonManifoldFacets_;
  }

  // Bytes held by the connectivity this object owns and by the relations built so far
  // (for benchmarks and tests of the lean layout).
  std::size_t memoryBytes() const;
  // Whether the input's cells are read through a 32-bit view and whether the relations
  // (the vertex star, once built) are stored with 32-bit ids.
  bool cellsAre32Bit() const { return narrowCells_ != nullptr; }
  bool relationsAre32Bit() const { return !forceWide_; }

private:
  struct Cells {
    const std::int32_t* narrow = nullptr;
    const std::int64_t* wide = nullptr;
    SimplexId count = 0;
    std::shared_ptr<const void> owner;
  };
  // Cells first, so no braced list a caller writes can pick this overload.
  ExplicitTriangulation(Cells cells, SimplexId numberOfVertices, int cellDimension,
                        IdWidth width);
  void validateCells();
  SimplexId getNumberOfEdgesUnchecked() const { return SimplexId(edgeCellCount_.size()); }
  SimplexId getNumberOfTrianglesUnchecked() const {
    return dimension_ == 2 ? numberOfCells_ : SimplexId(triangleCellCount_.size());
  }

  SimplexId cellVertex(SimplexId c, int i) const {
    const std::size_t at = std::size_t(c) * std::size_t(dimension_ + 1) + std::size_t(i);
    return narrowCells_ != nullptr ? SimplexId(narrowCells_[at]) : wideCells_[at];
  }
  // The cell's vertices, ascending (cells themselves stay as given).
  std::array<SimplexId, 4> sortedCell(SimplexId c) const;

  void buildEdges();
  void buildTriangles();
  void buildVertexNeighbors();
  void buildVertexEdges();
  void buildVertexTriangles();
  void buildVertexStar();
  template <int K>
  void gatherFacesAbove(SimplexId v, std::vector<std::array<SimplexId, K>>& faces) const;
  template <int K>
  void buildFacesByLowVertex(IdArray& faces, std::vector<std::uint8_t>& cellCounts,
                             IdArray& offsets);
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
  bool forceWide_ = false;
  Cells cells_;
  const std::int32_t* narrowCells_ = nullptr;
  const std::int64_t* wideCells_ = nullptr;
  std::uint32_t built_ = 0; // internal build steps done
  Relations prepared_ = 0;  // what callers asked for: what the accessors may read

  IdArray edgeVertices_, edgesByLowVertex_;         // 2 ids per edge, ascending
  IdArray triangleVertices_, trianglesByLowVertex_; // 3D only: 3 ids per triangle
  IdArray triangleEdges_, tetEdges_, tetTriangles_; // 3, 6, 4 ids per simplex
  CompressedRows vertexNeighbors_;                  // VV, each row ascending
  IdArray vertexEdges_;                             // VE, parallel to VV's rows
  CompressedRows vertexStar_; // cells around each vertex: VT in 3D, VF in 2D
  CompressedRows vertexTriangles_, edgeTriangles_, edgeTets_, triangleTets_,
      tetNeighbors_;
  // How many cells hold each edge / triangle (saturating at 255): a facet in one cell
  // is on the boundary, in more than two it is non-manifold.
  std::vector<std::uint8_t> edgeCellCount_, triangleCellCount_;
  std::vector<std::uint8_t> vertexOnBoundary_, edgeOnBoundary_;
  SimplexId nonManifoldFacets_ = 0;
};

// The cells of a grid's Freudenthal triangulation stored as an explicit mesh (same
// vertex ids, 32-bit connectivity when it fits): the mesh backend on a domain whose
// answer the grid backend knows, for tests, benchmarks and the later GALE comparisons.
ExplicitTriangulation explicitCopyOf(const ImplicitTriangulation& grid,
                                     IdWidth width = IdWidth::Auto);

// The cells of a grid's Freudenthal triangulation whose vertices are all kept, with the
// kept vertices renumbered compactly in ascending id order: a volume mesh without its
// background voxels (GALE's paper drops the zero-valued ones). Cells keep the grid's
// cell order; ids are 32-bit when the kept vertices fit (cells32), else 64-bit (cells).
struct MaskedGridCells {
  std::vector<SimplexId> keptVertices; // grid id of each new vertex id
  std::vector<std::int32_t> cells32;
  std::vector<SimplexId> cells;
  SimplexId numberOfCells = 0;
};
// keep[v] != 0 keeps grid vertex v; keep.size() must be the grid's vertex count.
MaskedGridCells maskedCellsOf(const ImplicitTriangulation& grid,
                              const std::vector<std::uint8_t>& keep);

} // namespace topogpu
