// The explicit mesh backend: the cells checked once, and each relation built when asked
// for, from the vertex star (counting passes per vertex, no global sort).
#include "ExplicitTriangulation.h"
#include "MeshBuilding.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace topogpu {

namespace {

using Range = tbb::blocked_range<SimplexId>;
using mesh_building::parallelFor;
using mesh_building::sortSmall;

// Flags set from several threads: a relaxed atomic store keeps it free of data races
// without a std::atomic per element.
inline void setFlag(std::vector<std::uint8_t>& flags, SimplexId i) {
  __atomic_store_n(&flags[i], std::uint8_t(1), __ATOMIC_RELAXED);
}

// Exclusive prefix sum of counts[1..n] in place (counts[0] == 0), into offsets.
void offsetsFromCounts(const std::vector<SimplexId>& counts, IdArray& offsets,
                       bool forceWide) {
  SimplexId total = 0;
  for (std::size_t i = 1; i < counts.size(); ++i)
    total += counts[i];
  offsets.allocate(counts.size(), total, forceWide);
  SimplexId at = 0;
  for (std::size_t i = 1; i < counts.size(); ++i) {
    at += counts[i];
    offsets.set(i, at);
  }
}

// Rows indexed by target, each listing (ascending) the sources whose `arity` items name
// it: the inverse of a fixed-arity relation, by parallel counting (atomic per-target
// counters, a prefix sum, an atomic fill) and a sort of each short row for determinism.
template <typename Item>
CompressedRows invert(SimplexId numberOfTargets, SimplexId numberOfSources, int arity,
                      bool forceWide, Item item) {
  std::vector<std::atomic<SimplexId>> cursor(numberOfTargets + 1);
  parallelFor(numberOfSources, [&](SimplexId s) {
    for (int k = 0; k < arity; ++k)
      cursor[item(s, k) + 1].fetch_add(1, std::memory_order_relaxed);
  });
  CompressedRows rows;
  SimplexId total = 0;
  for (SimplexId t = 1; t <= numberOfTargets; ++t)
    total += cursor[t].load(std::memory_order_relaxed);
  rows.offsets.allocate(numberOfTargets + 1, total, forceWide);
  SimplexId at = 0;
  for (SimplexId t = 0; t < numberOfTargets; ++t) {
    const SimplexId n = cursor[t + 1].load(std::memory_order_relaxed);
    cursor[t].store(at, std::memory_order_relaxed);
    at += n;
    rows.offsets.set(t + 1, at);
  }
  rows.data.allocate(total, numberOfSources - 1, forceWide);
  parallelFor(numberOfSources, [&](SimplexId s) {
    for (int k = 0; k < arity; ++k)
      rows.data.set(cursor[item(s, k)].fetch_add(1, std::memory_order_relaxed), s);
  });
  parallelFor(numberOfTargets,
              [&](SimplexId t) { rows.data.sort(rows.offsets[t], rows.offsets[t + 1]); });
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
  StepVertexNeighbors = 1u << 14,
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
                                             std::vector<SimplexId> cellVertices,
                                             IdWidth width)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices), numberOfCells_(0),
      forceWide_(width == IdWidth::Force64) {
  if (cellDimension != 2 && cellDimension != 3)
    throw Error("explicit triangulation needs triangles or tetrahedra (cell dimension " +
                std::to_string(cellDimension) + ")");
  const SimplexId count = mesh_building::cellCount(cellVertices.size(), cellDimension);
  const bool narrow =
      !forceWide_ && numberOfVertices <= std::numeric_limits<std::int32_t>::max() &&
      std::all_of(cellVertices.begin(), cellVertices.end(), [](SimplexId v) {
        return v >= std::numeric_limits<std::int32_t>::min() &&
               v <= std::numeric_limits<std::int32_t>::max();
      });
  Cells cells;
  cells.count = count;
  if (narrow) {
    auto owned = std::make_shared<std::vector<std::int32_t>>(cellVertices.begin(),
                                                             cellVertices.end());
    std::vector<SimplexId>().swap(cellVertices);
    cells.narrow = owned->data();
    cells.owner = std::move(owned);
  } else {
    auto owned = std::make_shared<std::vector<std::int64_t>>(std::move(cellVertices));
    cells.wide = owned->data();
    cells.owner = std::move(owned);
  }
  *this = ExplicitTriangulation(std::move(cells), numberOfVertices, cellDimension, width);
}

ExplicitTriangulation
ExplicitTriangulation::fromCells32(SimplexId numberOfVertices, int cellDimension,
                                   std::vector<std::int32_t> cellVertices,
                                   IdWidth width) {
  const std::size_t arity = std::size_t(std::max(cellDimension, 0)) + 1;
  auto owned = std::make_shared<std::vector<std::int32_t>>(std::move(cellVertices));
  Cells cells;
  cells.narrow = owned->data();
  cells.count = SimplexId(owned->size() / arity);
  if (owned->size() % arity != 0)
    throw Error("cell connectivity is not a multiple of " + std::to_string(arity) +
                " vertex ids");
  cells.owner = std::move(owned);
  return ExplicitTriangulation(std::move(cells), numberOfVertices, cellDimension, width);
}

ExplicitTriangulation
ExplicitTriangulation::view(SimplexId numberOfVertices, int cellDimension,
                            const std::int32_t* cellVertices, SimplexId numberOfCells,
                            std::shared_ptr<const void> owner, IdWidth width) {
  Cells cells;
  cells.narrow = cellVertices;
  cells.count = numberOfCells;
  cells.owner = std::move(owner);
  return ExplicitTriangulation(std::move(cells), numberOfVertices, cellDimension, width);
}

ExplicitTriangulation
ExplicitTriangulation::view(SimplexId numberOfVertices, int cellDimension,
                            const std::int64_t* cellVertices, SimplexId numberOfCells,
                            std::shared_ptr<const void> owner, IdWidth width) {
  Cells cells;
  cells.wide = cellVertices;
  cells.count = numberOfCells;
  cells.owner = std::move(owner);
  return ExplicitTriangulation(std::move(cells), numberOfVertices, cellDimension, width);
}

ExplicitTriangulation::ExplicitTriangulation(Cells cells, SimplexId numberOfVertices,
                                             int cellDimension, IdWidth width)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices),
      numberOfCells_(cells.count), forceWide_(width == IdWidth::Force64),
      cells_(std::move(cells)) {
  narrowCells_ = cells_.narrow;
  wideCells_ = cells_.wide;
  if (cellDimension != 2 && cellDimension != 3)
    throw Error("explicit triangulation needs triangles or tetrahedra (cell dimension " +
                std::to_string(cellDimension) + ")");
  if (numberOfCells_ <= 0 || (narrowCells_ == nullptr && wideCells_ == nullptr))
    throw Error("mesh has no cells");
  validateCells();
}

std::array<SimplexId, 4> ExplicitTriangulation::sortedCell(SimplexId c) const {
  std::array<SimplexId, 4> s{0, 0, 0, std::numeric_limits<SimplexId>::max()};
  for (int k = 0; k <= dimension_; ++k)
    s[k] = cellVertex(c, k);
  sortSmall(s.data(), dimension_ + 1);
  return s;
}

// Ids in range, no repeated vertex, no two cells on the same vertices; the first bad cell
// (lowest id) is named. Identical cells are found per lowest vertex (a counting sort by
// that vertex, then a local sort), so no sorted copy of the cells is kept.
void ExplicitTriangulation::validateCells() {
  const int arity = dimension_ + 1;
  const SimplexId none = std::numeric_limits<SimplexId>::max();
  const SimplexId firstBad = tbb::parallel_reduce(
      Range(0, numberOfCells_), none,
      [&](const Range& r, SimplexId found) {
        for (SimplexId c = r.begin(); c < r.end() && c < found; ++c) {
          const auto s = sortedCell(c);
          if (s[0] < 0 || s[arity - 1] >= numberOfVertices_ ||
              std::adjacent_find(s.begin(), s.begin() + arity) != s.begin() + arity)
            return c;
        }
        return found;
      },
      [](SimplexId a, SimplexId b) { return std::min(a, b); });
  if (firstBad != none) {
    const auto s = sortedCell(firstBad);
    if (s[0] < 0 || s[arity - 1] >= numberOfVertices_)
      throw Error("cell " + std::to_string(firstBad) + " names a vertex id outside [0, " +
                  std::to_string(numberOfVertices_) + ")");
    throw Error("cell " + std::to_string(firstBad) + " is degenerate (a vertex repeats)");
  }
  // Identical cells would make the complex non-simplicial: reject them.
  std::vector<SimplexId> counts(numberOfVertices_ + 1, 0);
  {
    std::vector<std::atomic<SimplexId>> n(numberOfVertices_);
    parallelFor(numberOfCells_, [&](SimplexId c) {
      n[sortedCell(c)[0]].fetch_add(1, std::memory_order_relaxed);
    });
    for (SimplexId v = 0; v < numberOfVertices_; ++v)
      counts[v + 1] = n[v].load(std::memory_order_relaxed);
  }
  IdArray offsets, byLowVertex;
  offsetsFromCounts(counts, offsets, forceWide_);
  std::vector<SimplexId>().swap(counts); // before the fill: it is the peak memory
  byLowVertex.allocate(numberOfCells_, numberOfCells_ - 1, forceWide_);
  auto fill = [&](auto& cursor) {
    for (SimplexId v = 0; v < numberOfVertices_; ++v)
      cursor[v].store(offsets[v], std::memory_order_relaxed);
    parallelFor(numberOfCells_, [&](SimplexId c) {
      byLowVertex.set(cursor[sortedCell(c)[0]].fetch_add(1, std::memory_order_relaxed),
                      c);
    });
  };
  if (byLowVertex.isWide()) {
    std::vector<std::atomic<SimplexId>> cursor(numberOfVertices_);
    fill(cursor);
  } else { // 32-bit cursors where the cell ids fit
    std::vector<std::atomic<std::int32_t>> cursor(numberOfVertices_);
    fill(cursor);
  }
  using Pair = std::pair<SimplexId, SimplexId>;
  const Pair noPair{none, none};
  const Pair duplicate = tbb::parallel_reduce(
      Range(0, numberOfVertices_), noPair,
      [&](const Range& r, Pair found) {
        std::vector<std::pair<std::array<SimplexId, 4>, SimplexId>> local;
        for (SimplexId v = r.begin(); v < r.end(); ++v) {
          local.clear();
          for (SimplexId i = offsets[v]; i < offsets[v + 1]; ++i)
            local.emplace_back(sortedCell(byLowVertex[i]), byLowVertex[i]);
          std::sort(local.begin(), local.end());
          for (std::size_t i = 1; i < local.size(); ++i) {
            if (local[i].first == local[i - 1].first)
              found = std::min(found, Pair{local[i - 1].second, local[i].second});
          }
        }
        return found;
      },
      [](const Pair& a, const Pair& b) { return std::min(a, b); });
  if (duplicate != noPair)
    throw Error("cells " + std::to_string(duplicate.first) + " and " +
                std::to_string(duplicate.second) + " have the same vertices");
}

void ExplicitTriangulation::precondition(Relations r) {
  r = expandRelations(r, dimension_);
  prepared_ |= r;
  const bool is3D = dimension_ == 3;
  if (r & VV)
    buildVertexNeighbors();
  if (r & VE)
    buildVertexEdges();
  if (r & EV)
    buildEdges();
  if (r & (VF | FV))
    buildVertexTriangles();
  if (r & FV && is3D)
    buildTriangles();
  if (r & VertexStar)
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

// The faces with K vertices whose lowest vertex is v, from v's star (each cell's vertices
// above v, sorted locally), sorted; a face repeats once per cell that holds it.
template <int K>
void ExplicitTriangulation::gatherFacesAbove(
    SimplexId v, std::vector<std::array<SimplexId, K>>& faces) const {
  faces.clear();
  const int arity = dimension_ + 1;
  for (int i = 0; i < vertexStar_.size(v); ++i) {
    const SimplexId cell = vertexStar_.at(v, i);
    SimplexId above[3];
    int n = 0;
    for (int k = 0; k < arity; ++k) {
      const SimplexId u = cellVertex(cell, k);
      if (u > v)
        above[n++] = u;
    }
    sortSmall(above, n);
    for (int a = 0; a < n; ++a) {
      if constexpr (K == 2) {
        faces.push_back({v, above[a]});
      } else {
        for (int b = a + 1; b < n; ++b)
          faces.push_back({v, above[a], above[b]});
      }
    }
  }
  std::sort(faces.begin(), faces.end());
}

// Unique faces (K ids each) with their cell counts, grouped by lowest vertex: two
// parallel passes over the vertices (count, then fill) with no global sort, so memory
// stays at the output.
template <int K>
void ExplicitTriangulation::buildFacesByLowVertex(IdArray& faces,
                                                  std::vector<std::uint8_t>& cellCounts,
                                                  IdArray& offsets) {
  buildVertexStar();
  std::vector<SimplexId> counts(numberOfVertices_ + 1, 0);
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
      counts[v + 1] = n;
    }
  });
  offsetsFromCounts(counts, offsets, forceWide_);
  std::vector<SimplexId>().swap(counts);
  const SimplexId total = offsets[numberOfVertices_];
  faces.allocate(std::size_t(total) * K, numberOfVertices_ - 1, forceWide_);
  cellCounts.assign(total, 0);
  tbb::parallel_for(Range(0, numberOfVertices_), [&](const Range& r) {
    std::vector<std::array<SimplexId, K>> local;
    for (SimplexId v = r.begin(); v < r.end(); ++v) {
      gatherFacesAbove<K>(v, local);
      SimplexId at = offsets[v];
      forEachUnique(local, [&](const auto& face, std::uint8_t count) {
        for (int k = 0; k < K; ++k)
          faces.set(std::size_t(at) * K + k, face[k]);
        cellCounts[at++] = count;
      });
    }
  });
}

void ExplicitTriangulation::buildEdges() {
  TOPOGPU_ONCE(StepEdges);
  buildFacesByLowVertex<2>(edgeVertices_, edgeCellCount_, edgesByLowVertex_);
}

void ExplicitTriangulation::buildTriangles() {
  if (dimension_ == 2)
    return; // the cells are the triangles
  TOPOGPU_ONCE(StepTriangles);
  buildFacesByLowVertex<3>(triangleVertices_, triangleCellCount_, trianglesByLowVertex_);
}

void ExplicitTriangulation::buildVertexStar() {
  TOPOGPU_ONCE(StepVertexStar);
  vertexStar_ = invert(numberOfVertices_, numberOfCells_, dimension_ + 1, forceWide_,
                       [&](SimplexId c, int k) { return cellVertex(c, k); });
}

// VV straight from the star: the other vertices of v's cells, sorted and deduplicated
// per vertex (count, then fill), with no edge list in between.
void ExplicitTriangulation::buildVertexNeighbors() {
  buildVertexStar();
  TOPOGPU_ONCE(StepVertexNeighbors);
  const int arity = dimension_ + 1;
  auto gather = [&](SimplexId v, std::vector<SimplexId>& local) {
    local.clear();
    for (int i = 0; i < vertexStar_.size(v); ++i) {
      const SimplexId cell = vertexStar_.at(v, i);
      for (int k = 0; k < arity; ++k) {
        const SimplexId u = cellVertex(cell, k);
        if (u != v)
          local.push_back(u);
      }
    }
    std::sort(local.begin(), local.end());
    local.erase(std::unique(local.begin(), local.end()), local.end());
  };
  std::vector<SimplexId> counts(numberOfVertices_ + 1, 0);
  tbb::parallel_for(Range(0, numberOfVertices_), [&](const Range& r) {
    std::vector<SimplexId> local;
    for (SimplexId v = r.begin(); v < r.end(); ++v) {
      gather(v, local);
      counts[v + 1] = SimplexId(local.size());
    }
  });
  offsetsFromCounts(counts, vertexNeighbors_.offsets, forceWide_);
  std::vector<SimplexId>().swap(counts);
  vertexNeighbors_.data.allocate(vertexNeighbors_.offsets[numberOfVertices_],
                                 numberOfVertices_ - 1, forceWide_);
  tbb::parallel_for(Range(0, numberOfVertices_), [&](const Range& r) {
    std::vector<SimplexId> local;
    for (SimplexId v = r.begin(); v < r.end(); ++v) {
      gather(v, local);
      const SimplexId at = vertexNeighbors_.offsets[v];
      for (std::size_t i = 0; i < local.size(); ++i)
        vertexNeighbors_.data.set(at + i, local[i]);
    }
  });
}

void ExplicitTriangulation::buildVertexEdges() {
  buildVertexNeighbors();
  buildEdges();
  TOPOGPU_ONCE(StepVertexEdges);
  vertexEdges_.allocate(vertexNeighbors_.data.size(), getNumberOfEdgesUnchecked() - 1,
                        forceWide_);
  parallelFor(numberOfVertices_, [&](SimplexId v) {
    for (SimplexId i = vertexNeighbors_.offsets[v]; i < vertexNeighbors_.offsets[v + 1];
         ++i)
      vertexEdges_.set(i, findEdge(v, vertexNeighbors_.data[i]));
  });
}

void ExplicitTriangulation::buildVertexTriangles() {
  if (dimension_ == 2) {
    buildVertexStar(); // the triangles are the cells
    return;
  }
  buildTriangles();
  TOPOGPU_ONCE(StepVertexTriangles);
  vertexTriangles_ =
      invert(numberOfVertices_, getNumberOfTrianglesUnchecked(), 3, forceWide_,
             [&](SimplexId f, int k) { return triangleVertices_[3 * f + k]; });
}

void ExplicitTriangulation::buildTriangleEdges() {
  buildEdges();
  buildTriangles();
  TOPOGPU_ONCE(StepTriangleEdges);
  const SimplexId n = getNumberOfTrianglesUnchecked();
  triangleEdges_.allocate(std::size_t(n) * 3, getNumberOfEdgesUnchecked() - 1,
                          forceWide_);
  parallelFor(n, [&](SimplexId f) {
    SimplexId a, b, c;
    if (dimension_ == 2) {
      a = cellVertex(f, 0), b = cellVertex(f, 1), c = cellVertex(f, 2);
    } else {
      a = triangleVertices_[3 * f], b = triangleVertices_[3 * f + 1],
      c = triangleVertices_[3 * f + 2];
    }
    triangleEdges_.set(3 * f, findEdge(a, b));
    triangleEdges_.set(3 * f + 1, findEdge(a, c));
    triangleEdges_.set(3 * f + 2, findEdge(b, c));
  });
}

void ExplicitTriangulation::buildTetEdges() {
  buildEdges();
  TOPOGPU_ONCE(StepTetEdges);
  tetEdges_.allocate(std::size_t(numberOfCells_) * 6, getNumberOfEdgesUnchecked() - 1,
                     forceWide_);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    for (int i = 0; i < 6; ++i)
      tetEdges_.set(6 * t + i, findEdge(cellVertex(t, kTetEdgePairs[i][0]),
                                        cellVertex(t, kTetEdgePairs[i][1])));
  });
}

void ExplicitTriangulation::buildTetTriangles() {
  buildTriangles();
  TOPOGPU_ONCE(StepTetTriangles);
  tetTriangles_.allocate(std::size_t(numberOfCells_) * 4,
                         getNumberOfTrianglesUnchecked() - 1, forceWide_);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    for (int i = 0; i < 4; ++i)
      tetTriangles_.set(4 * t + i, findTriangle(cellVertex(t, kTetFaces[i][0]),
                                                cellVertex(t, kTetFaces[i][1]),
                                                cellVertex(t, kTetFaces[i][2])));
  });
}

void ExplicitTriangulation::buildEdgeTriangles() {
  buildTriangleEdges();
  TOPOGPU_ONCE(StepEdgeTriangles);
  edgeTriangles_ =
      invert(getNumberOfEdgesUnchecked(), getNumberOfTrianglesUnchecked(), 3, forceWide_,
             [&](SimplexId f, int k) { return triangleEdges_[3 * f + k]; });
}

void ExplicitTriangulation::buildEdgeTets() {
  buildTetEdges();
  TOPOGPU_ONCE(StepEdgeTets);
  edgeTets_ = invert(getNumberOfEdgesUnchecked(), numberOfCells_, 6, forceWide_,
                     [&](SimplexId t, int k) { return tetEdges_[6 * t + k]; });
}

void ExplicitTriangulation::buildTriangleTets() {
  buildTetTriangles();
  TOPOGPU_ONCE(StepTriangleTets);
  triangleTets_ = invert(getNumberOfTrianglesUnchecked(), numberOfCells_, 4, forceWide_,
                         [&](SimplexId t, int k) { return tetTriangles_[4 * t + k]; });
}

void ExplicitTriangulation::buildTetNeighbors() {
  buildTriangleTets();
  TOPOGPU_ONCE(StepTetNeighbors);
  // neighbours across each face, in face order
  auto forEachNeighbor = [&](SimplexId t, auto&& visit) {
    for (int i = 0; i < 4; ++i) {
      const SimplexId f = tetTriangles_[4 * t + i];
      for (int k = 0; k < triangleTets_.size(f); ++k) {
        if (triangleTets_.at(f, k) != t)
          visit(triangleTets_.at(f, k));
      }
    }
  };
  std::vector<SimplexId> counts(numberOfCells_ + 1, 0);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    SimplexId n = 0;
    forEachNeighbor(t, [&](SimplexId) { ++n; });
    counts[t + 1] = n;
  });
  offsetsFromCounts(counts, tetNeighbors_.offsets, forceWide_);
  tetNeighbors_.data.allocate(tetNeighbors_.offsets[numberOfCells_], numberOfCells_ - 1,
                              forceWide_);
  parallelFor(numberOfCells_, [&](SimplexId t) {
    SimplexId at = tetNeighbors_.offsets[t];
    forEachNeighbor(t, [&](SimplexId other) { tetNeighbors_.data.set(at++, other); });
  });
}

// A facet (triangle in 3D, edge in 2D) is on the boundary when one cell holds it; its
// vertices are then on the boundary. Facets are enumerated per lowest vertex from the
// star and counted locally, so no facet list is stored.
void ExplicitTriangulation::buildBoundaryVertices() {
  buildVertexStar();
  TOPOGPU_ONCE(StepBoundaryVertices);
  vertexOnBoundary_.assign(numberOfVertices_, 0);
  auto scan = [&](auto arity, const Range& r) {
    constexpr int K = decltype(arity)::value;
    std::vector<std::array<SimplexId, K>> facets;
    SimplexId nonManifold = 0;
    for (SimplexId v = r.begin(); v < r.end(); ++v) {
      gatherFacesAbove<K>(v, facets);
      for (std::size_t i = 0; i < facets.size();) {
        std::size_t j = i + 1;
        while (j < facets.size() && facets[j] == facets[i])
          ++j;
        nonManifold += j - i > 2;
        if (j - i == 1) {
          for (const SimplexId u : facets[i])
            setFlag(vertexOnBoundary_, u);
        }
        i = j;
      }
    }
    return nonManifold;
  };
  nonManifoldFacets_ = tbb::parallel_reduce(
      Range(0, numberOfVertices_), SimplexId(0),
      [&](const Range& r, SimplexId n) {
        return n + (dimension_ == 3 ? scan(std::integral_constant<int, 3>(), r)
                                    : scan(std::integral_constant<int, 2>(), r));
      },
      [](SimplexId a, SimplexId b) { return a + b; });
}

void ExplicitTriangulation::buildBoundaryEdges() {
  buildEdges();
  buildTriangles();
  TOPOGPU_ONCE(StepBoundaryEdges);
  const SimplexId edges = getNumberOfEdgesUnchecked();
  edgeOnBoundary_.assign(edges, 0);
  if (dimension_ == 2) {
    parallelFor(edges, [&](SimplexId e) { edgeOnBoundary_[e] = edgeCellCount_[e] == 1; });
    return;
  }
  parallelFor(getNumberOfTrianglesUnchecked(), [&](SimplexId f) {
    if (triangleCellCount_[f] != 1)
      return;
    const SimplexId a = triangleVertices_[3 * f], b = triangleVertices_[3 * f + 1],
                    c = triangleVertices_[3 * f + 2];
    setFlag(edgeOnBoundary_, findEdge(a, b));
    setFlag(edgeOnBoundary_, findEdge(a, c));
    setFlag(edgeOnBoundary_, findEdge(b, c));
  });
}

SimplexId ExplicitTriangulation::findEdge(SimplexId a, SimplexId b) const {
#ifndef NDEBUG
  if (!(built_ & StepEdges))
    failPrecondition(__func__, "the edges were not built (precondition EV first)");
#endif
  if (a > b)
    std::swap(a, b);
  if (a < 0 || b >= numberOfVertices_)
    return -1;
  // edges of a are ascending by their other vertex
  SimplexId lo = edgesByLowVertex_[a], hi = edgesByLowVertex_[a + 1];
  while (lo < hi) {
    const SimplexId mid = lo + (hi - lo) / 2;
    if (edgeVertices_[2 * mid + 1] < b)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < edgesByLowVertex_[a + 1] && edgeVertices_[2 * lo + 1] == b ? lo : -1;
}

SimplexId ExplicitTriangulation::findTriangle(SimplexId a, SimplexId b,
                                              SimplexId c) const {
  std::array<SimplexId, 3> key{a, b, c};
  std::sort(key.begin(), key.end());
  if (key[0] < 0 || key[2] >= numberOfVertices_)
    return -1;
  if (dimension_ == 2) {
#ifndef NDEBUG
    if (!(built_ & StepVertexStar))
      failPrecondition(__func__, "the vertex star was not built (precondition VF first)");
#endif
    for (int i = 0; i < vertexStar_.size(key[0]); ++i) {
      const SimplexId cell = vertexStar_.at(key[0], i);
      const auto s = sortedCell(cell);
      if (s[0] == key[0] && s[1] == key[1] && s[2] == key[2])
        return cell;
    }
    return -1;
  }
#ifndef NDEBUG
  if (!(built_ & StepTriangles))
    failPrecondition(__func__, "the triangles were not built (precondition FV first)");
#endif
  SimplexId lo = trianglesByLowVertex_[key[0]], hi = trianglesByLowVertex_[key[0] + 1];
  const SimplexId last = hi;
  auto less = [&](SimplexId f) {
    const SimplexId p = triangleVertices_[3 * f + 1], q = triangleVertices_[3 * f + 2];
    return p < key[1] || (p == key[1] && q < key[2]);
  };
  while (lo < hi) {
    const SimplexId mid = lo + (hi - lo) / 2;
    if (less(mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < last && triangleVertices_[3 * lo + 1] == key[1] &&
                 triangleVertices_[3 * lo + 2] == key[2]
             ? lo
             : -1;
}

std::size_t ExplicitTriangulation::memoryBytes() const {
  auto ids = [](const IdArray& a) { return a.size() * (a.isWide() ? 8 : 4); };
  auto rows = [&](const CompressedRows& r) { return ids(r.offsets) + ids(r.data); };
  return ids(edgeVertices_) + ids(edgesByLowVertex_) + ids(triangleVertices_) +
         ids(trianglesByLowVertex_) + ids(triangleEdges_) + ids(tetEdges_) +
         ids(tetTriangles_) + rows(vertexNeighbors_) + ids(vertexEdges_) +
         rows(vertexStar_) + rows(vertexTriangles_) + rows(edgeTriangles_) +
         rows(edgeTets_) + rows(triangleTets_) + rows(tetNeighbors_) +
         edgeCellCount_.size() + triangleCellCount_.size() + vertexOnBoundary_.size() +
         edgeOnBoundary_.size();
}

} // namespace topogpu
