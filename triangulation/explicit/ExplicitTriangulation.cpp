#include "ExplicitTriangulation.h"

#include "triangulation/implicit/ImplicitTriangulation.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>

namespace topogpu {

namespace {

using Range = tbb::blocked_range<SimplexId>;

template <typename Body> void parallelFor(SimplexId n, Body body) {
  tbb::parallel_for(Range(0, n), [&](const Range& r) {
    for (SimplexId i = r.begin(); i < r.end(); ++i)
      body(i);
  });
}

// Rows indexed by target, each listing (ascending) the sources whose `arity` items name
// it: the inverse of a fixed-arity relation, by parallel counting (atomic per-target
// counters, a prefix sum, an atomic fill) and a sort of each short row for determinism.
template <typename Item>
CompressedRows invert(SimplexId numberOfTargets, SimplexId numberOfSources, int arity,
                      Item item) {
  std::vector<std::atomic<SimplexId>> cursor(numberOfTargets + 1);
  parallelFor(numberOfSources, [&](SimplexId s) {
    for (int k = 0; k < arity; ++k)
      cursor[item(s, k) + 1].fetch_add(1, std::memory_order_relaxed);
  });
  CompressedRows rows;
  rows.offsets.assign(numberOfTargets + 1, 0);
  for (SimplexId t = 0; t < numberOfTargets; ++t) {
    rows.offsets[t + 1] = rows.offsets[t] + cursor[t + 1].load(std::memory_order_relaxed);
    cursor[t].store(rows.offsets[t], std::memory_order_relaxed);
  }
  rows.data.resize(rows.offsets.back());
  parallelFor(numberOfSources, [&](SimplexId s) {
    for (int k = 0; k < arity; ++k)
      rows.data[cursor[item(s, k)].fetch_add(1, std::memory_order_relaxed)] = s;
  });
  parallelFor(numberOfTargets, [&](SimplexId t) {
    std::sort(rows.data.begin() + rows.offsets[t],
              rows.data.begin() + rows.offsets[t + 1]);
  });
  return rows;
}

enum Step : std::uint32_t {
  StepEdges = 1u << 0,
  StepTriangles = 1u << 1,
  StepVertexEdges = 1u << 2,
  StepVertexTriangles = 1u << 3,
  StepVertexStar = 1u << 4,
  StepTriangleEdges = 1u << 5,
  StepTetEdges = 1u << 6,
  StepTetTriangles = 1u << 7,
  StepEdgeTriangles = 1u << 8,
  StepEdgeTets = 1u << 9,
  StepTriangleTets = 1u << 10,
  StepTetNeighbors = 1u << 11,
  StepBoundaryVertices = 1u << 12,
  StepBoundaryEdges = 1u << 13,
};

constexpr int kTetEdgePairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
// face i omits vertex 3 - i, as the implicit backend
constexpr int kTetFaces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};

} // namespace

#define TOPOGPU_ONCE(step)                                                               \
  if (built_ & (step))                                                                   \
    return;                                                                              \
  built_ |= (step)

ExplicitTriangulation::ExplicitTriangulation(SimplexId numberOfVertices,
                                             int cellDimension,
                                             std::vector<SimplexId> cellVertices)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices),
      cells_(std::move(cellVertices)) {
  if (cellDimension != 2 && cellDimension != 3)
    throw Error("explicit triangulation needs triangles or tetrahedra (cell dimension " +
                std::to_string(cellDimension) + ")");
  const int arity = cellDimension + 1;
  if (cells_.empty() || cells_.size() % arity != 0)
    throw Error(cells_.empty() ? "mesh has no cells"
                               : "cell connectivity is not a multiple of " +
                                     std::to_string(arity) + " vertex ids");
  numberOfCells_ = SimplexId(cells_.size()) / arity;
  std::string problem;
  for (SimplexId c = 0; c < numberOfCells_ && problem.empty(); ++c) {
    SimplexId* cell = &cells_[c * arity];
    std::sort(cell, cell + arity);
    if (cell[0] < 0 || cell[arity - 1] >= numberOfVertices)
      problem = "cell " + std::to_string(c) + " names a vertex id outside [0, " +
                std::to_string(numberOfVertices) + ")";
    else if (std::adjacent_find(cell, cell + arity) != cell + arity)
      problem = "cell " + std::to_string(c) + " is degenerate (a vertex repeats)";
  }
  if (!problem.empty())
    throw Error(problem);
  // Identical cells would make the complex non-simplicial: reject them.
  std::vector<SimplexId> byVertices(numberOfCells_);
  for (SimplexId c = 0; c < numberOfCells_; ++c)
    byVertices[c] = c;
  auto less = [&](SimplexId a, SimplexId b) {
    return std::lexicographical_compare(&cells_[a * arity], &cells_[a * arity] + arity,
                                        &cells_[b * arity], &cells_[b * arity] + arity);
  };
  tbb::parallel_sort(byVertices.begin(), byVertices.end(), less);
  for (SimplexId i = 1; i < numberOfCells_; ++i) {
    if (!less(byVertices[i - 1], byVertices[i]))
      throw Error("cells " + std::to_string(byVertices[i - 1]) + " and " +
                  std::to_string(byVertices[i]) + " have the same vertices");
  }
  if (dimension_ == 2)
    triangleLookup_ = std::move(byVertices);
}

void ExplicitTriangulation::precondition(Relations r) {
  const bool is3D = dimension_ == 3;
  if (r & (VV | VE | EV))
    buildVertexEdges();
  if (r & (VF | FV))
    buildVertexTriangles();
  if (r & VT && is3D)
    buildVertexStar();
  if (r & (EF | FE))
    buildEdgeTriangles();
  if (r & (ET | TE) && is3D)
    buildEdgeTets();
  if (r & (FT | TF | TT) && is3D)
    buildTriangleTets();
  if (r & TT && is3D)
    buildTetNeighbors();
  if (r & BoundaryVertices)
    buildBoundaryVertices();
  if (r & BoundaryEdges)
    buildBoundaryEdges();
  if (r & BoundaryTriangles)
    buildTriangles(); // the cell counts of the triangles are the flags
}

// The faces with K vertices whose lowest vertex is v, from v's star (cells are stored
// ascending, so the vertices above v are a suffix of each cell), sorted; a face repeats
// once per cell that holds it.
template <int K>
void ExplicitTriangulation::gatherFacesAbove(
    SimplexId v, std::vector<std::array<SimplexId, K>>& faces) const {
  faces.clear();
  const int arity = dimension_ + 1;
  for (int i = 0; i < vertexStar_.size(v); ++i) {
    const SimplexId* cell = &cells_[vertexStar_.at(v, i) * arity];
    const int first = int(std::find(cell, cell + arity, v) - cell) + 1;
    for (int a = first; a < arity; ++a) {
      if constexpr (K == 2) {
        faces.push_back({v, cell[a]});
      } else {
        for (int b = a + 1; b < arity; ++b)
          faces.push_back({v, cell[a], cell[b]});
      }
    }
  }
  std::sort(faces.begin(), faces.end());
}

// Unique faces with their cell counts, grouped by lowest vertex: two parallel passes over
// the vertices (count, then fill) with no global sort, so memory stays at the output.
template <int K>
void ExplicitTriangulation::buildFacesByLowVertex(
    std::vector<std::array<SimplexId, K>>& faces, std::vector<std::uint8_t>& cellCounts,
    std::vector<SimplexId>& offsets) {
  buildVertexStar();
  offsets.assign(numberOfVertices_ + 1, 0);
  auto forEachUnique = [&](const std::vector<std::array<SimplexId, K>>& local,
                           auto&& visit) {
    for (std::size_t i = 0; i < local.size();) {
      std::size_t j = i + 1;
      while (j < local.size() && local[j] == local[i])
        ++j;
      visit(local[i], std::uint8_t(std::min<std::size_t>(j - i, 255)));
      i = j;
    }
  };
  tbb::parallel_for(Range(0, numberOfVertices_), [&](const Range& r) {
    std::vector<std::array<SimplexId, K>> local;
    for (SimplexId v = r.begin(); v < r.end(); ++v) {
      gatherFacesAbove<K>(v, local);
      SimplexId n = 0;
      forEachUnique(local, [&](const auto&, std::uint8_t) { ++n; });
      offsets[v + 1] = n;
    }
  });
  for (SimplexId v = 0; v < numberOfVertices_; ++v)
    offsets[v + 1] += offsets[v];
  faces.resize(offsets.back());
  cellCounts.resize(offsets.back());
  tbb::parallel_for(Range(0, numberOfVertices_), [&](const Range& r) {
    std::vector<std::array<SimplexId, K>> local;
    for (SimplexId v = r.begin(); v < r.end(); ++v) {
      gatherFacesAbove<K>(v, local);
      SimplexId at = offsets[v];
      forEachUnique(local, [&](const auto& face, std::uint8_t count) {
        faces[at] = face;
        cellCounts[at++] = count;
      });
    }
  });
}

void ExplicitTriangulation::buildEdges() {
  TOPOGPU_ONCE(StepEdges);
  buildFacesByLowVertex<2>(edges_, edgeCellCount_, edgesByLowVertex_);
}

void ExplicitTriangulation::buildTriangles() {
  if (dimension_ == 2)
    return; // the cells are the triangles
  TOPOGPU_ONCE(StepTriangles);
  buildFacesByLowVertex<3>(triangles_, triangleCellCount_, trianglesByLowVertex_);
}

void ExplicitTriangulation::buildVertexStar() {
  TOPOGPU_ONCE(StepVertexStar);
  vertexStar_ = invert(numberOfVertices_, numberOfCells_, dimension_ + 1,
                       [&](SimplexId c, int k) { return getCellVertex(c, k); });
}

void ExplicitTriangulation::buildVertexEdges() {
  buildEdges();
  TOPOGPU_ONCE(StepVertexEdges);
  vertexEdges_ = invert(numberOfVertices_, getNumberOfEdges(), 2,
                        [&](SimplexId e, int k) { return edges_[e][k]; });
  vertexNeighbors_.resize(vertexEdges_.data.size());
  parallelFor(numberOfVertices_, [&](SimplexId v) {
    for (SimplexId i = vertexEdges_.offsets[v]; i < vertexEdges_.offsets[v + 1]; ++i) {
      const auto& e = edges_[vertexEdges_.data[i]];
      vertexNeighbors_[i] = e[0] == v ? e[1] : e[0];
    }
  });
}

void ExplicitTriangulation::buildVertexTriangles() {
  if (dimension_ == 2) {
    buildVertexStar(); // the triangles are the cells
    return;
  }
  buildTriangles();
  TOPOGPU_ONCE(StepVertexTriangles);
  vertexTriangles_ = invert(numberOfVertices_, getNumberOfTriangles(), 3,
                            [&](SimplexId f, int k) { return getTriangleVertex(f, k); });
}

void ExplicitTriangulation::buildTriangleEdges() {
  buildEdges();
  buildTriangles();
  TOPOGPU_ONCE(StepTriangleEdges);
  triangleEdges_.resize(getNumberOfTriangles());
  parallelFor(getNumberOfTriangles(), [&](SimplexId f) {
    const SimplexId a = getTriangleVertex(f, 0), b = getTriangleVertex(f, 1),
                    c = getTriangleVertex(f, 2);
    triangleEdges_[f] = {findEdge(a, b), findEdge(a, c), findEdge(b, c)};
  });
}

void ExplicitTriangulation::buildTetEdges() {
  buildEdges();
  TOPOGPU_ONCE(StepTetEdges);
  tetEdges_.resize(numberOfCells_);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    for (int i = 0; i < 6; ++i)
      tetEdges_[t][i] = findEdge(getCellVertex(t, kTetEdgePairs[i][0]),
                                 getCellVertex(t, kTetEdgePairs[i][1]));
  });
}

void ExplicitTriangulation::buildTetTriangles() {
  buildTriangles();
  TOPOGPU_ONCE(StepTetTriangles);
  tetTriangles_.resize(numberOfCells_);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    for (int i = 0; i < 4; ++i)
      tetTriangles_[t][i] = findTriangle(getCellVertex(t, kTetFaces[i][0]),
                                         getCellVertex(t, kTetFaces[i][1]),
                                         getCellVertex(t, kTetFaces[i][2]));
  });
}

void ExplicitTriangulation::buildEdgeTriangles() {
  buildTriangleEdges();
  TOPOGPU_ONCE(StepEdgeTriangles);
  edgeTriangles_ = invert(getNumberOfEdges(), getNumberOfTriangles(), 3,
                          [&](SimplexId f, int k) { return triangleEdges_[f][k]; });
}

void ExplicitTriangulation::buildEdgeTets() {
  buildTetEdges();
  TOPOGPU_ONCE(StepEdgeTets);
  edgeTets_ = invert(getNumberOfEdges(), numberOfCells_, 6,
                     [&](SimplexId t, int k) { return tetEdges_[t][k]; });
}

void ExplicitTriangulation::buildTriangleTets() {
  buildTetTriangles();
  TOPOGPU_ONCE(StepTriangleTets);
  triangleTets_ = invert(getNumberOfTriangles(), numberOfCells_, 4,
                         [&](SimplexId t, int k) { return tetTriangles_[t][k]; });
}

void ExplicitTriangulation::buildTetNeighbors() {
  buildTriangleTets();
  TOPOGPU_ONCE(StepTetNeighbors);
  // neighbours across each face, in face order
  auto forEachNeighbor = [&](SimplexId t, auto&& visit) {
    for (int i = 0; i < 4; ++i) {
      const SimplexId f = tetTriangles_[t][i];
      for (int k = 0; k < triangleTets_.size(f); ++k) {
        if (triangleTets_.at(f, k) != t)
          visit(triangleTets_.at(f, k));
      }
    }
  };
  tetNeighbors_.offsets.assign(numberOfCells_ + 1, 0);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    SimplexId n = 0;
    forEachNeighbor(t, [&](SimplexId) { ++n; });
    tetNeighbors_.offsets[t + 1] = n;
  });
  for (SimplexId t = 0; t < numberOfCells_; ++t)
    tetNeighbors_.offsets[t + 1] += tetNeighbors_.offsets[t];
  tetNeighbors_.data.resize(tetNeighbors_.offsets.back());
  parallelFor(numberOfCells_, [&](SimplexId t) {
    SimplexId at = tetNeighbors_.offsets[t];
    forEachNeighbor(t, [&](SimplexId other) { tetNeighbors_.data[at++] = other; });
  });
}

// A facet (triangle in 3D, edge in 2D) is on the boundary when one cell holds it; lower
// simplices are on the boundary when some boundary facet contains them.
void ExplicitTriangulation::buildBoundaryVertices() {
  const bool is3D = dimension_ == 3;
  if (is3D)
    buildTriangles();
  else
    buildEdges();
  TOPOGPU_ONCE(StepBoundaryVertices);
  const std::vector<std::uint8_t>& counts = is3D ? triangleCellCount_ : edgeCellCount_;
  vertexOnBoundary_.assign(numberOfVertices_, 0);
  nonManifoldFacets_ = 0;
  for (std::size_t f = 0; f < counts.size(); ++f) {
    nonManifoldFacets_ += counts[f] > 2;
    if (counts[f] != 1)
      continue;
    for (int k = 0; k < dimension_; ++k)
      vertexOnBoundary_[is3D ? triangles_[f][k] : edges_[f][k]] = 1;
  }
}

void ExplicitTriangulation::buildBoundaryEdges() {
  buildEdges();
  buildTriangles();
  TOPOGPU_ONCE(StepBoundaryEdges);
  if (dimension_ == 2) {
    edgeOnBoundary_.resize(getNumberOfEdges());
    for (SimplexId e = 0; e < getNumberOfEdges(); ++e)
      edgeOnBoundary_[e] = edgeCellCount_[e] == 1;
    return;
  }
  edgeOnBoundary_.assign(getNumberOfEdges(), 0);
  for (SimplexId f = 0; f < getNumberOfTriangles(); ++f) {
    if (triangleCellCount_[f] != 1)
      continue;
    const auto& t = triangles_[f];
    edgeOnBoundary_[findEdge(t[0], t[1])] = 1;
    edgeOnBoundary_[findEdge(t[0], t[2])] = 1;
    edgeOnBoundary_[findEdge(t[1], t[2])] = 1;
  }
}

SimplexId ExplicitTriangulation::findEdge(SimplexId a, SimplexId b) const {
  if (a > b)
    std::swap(a, b);
  const auto first = edges_.begin() + edgesByLowVertex_[a];
  const auto last = edges_.begin() + edgesByLowVertex_[a + 1];
  const std::array<SimplexId, 2> key{a, b};
  const auto it = std::lower_bound(first, last, key);
  return it != last && *it == key ? SimplexId(it - edges_.begin()) : -1;
}

SimplexId ExplicitTriangulation::findTriangle(SimplexId a, SimplexId b,
                                              SimplexId c) const {
  std::array<SimplexId, 3> key{a, b, c};
  std::sort(key.begin(), key.end());
  if (dimension_ == 2) {
    const auto it = std::lower_bound(
        triangleLookup_.begin(), triangleLookup_.end(), key,
        [&](SimplexId cell, const std::array<SimplexId, 3>& k) {
          return std::lexicographical_compare(&cells_[cell * 3], &cells_[cell * 3] + 3,
                                              k.begin(), k.end());
        });
    if (it == triangleLookup_.end() ||
        !std::equal(key.begin(), key.end(), &cells_[*it * 3]))
      return -1;
    return *it;
  }
  const auto first = triangles_.begin() + trianglesByLowVertex_[key[0]];
  const auto last = triangles_.begin() + trianglesByLowVertex_[key[0] + 1];
  const auto it = std::lower_bound(first, last, key);
  return it != last && *it == key ? SimplexId(it - triangles_.begin()) : -1;
}

ExplicitTriangulation explicitCopyOf(const ImplicitTriangulation& grid) {
  const int arity = grid.getCellVertexNumber();
  std::vector<SimplexId> cells(grid.getNumberOfCells() * arity);
  parallelFor(grid.getNumberOfCells(), [&](SimplexId c) {
    for (int k = 0; k < arity; ++k)
      cells[c * arity + k] = grid.getCellVertex(c, k);
  });
  return ExplicitTriangulation(grid.getNumberOfVertices(), grid.getDimension(),
                               std::move(cells));
}

} // namespace topogpu
