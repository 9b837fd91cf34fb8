// GALE's edge and triangle lists (I_E, I_F): per segment, the edges and triangles whose
// lowest vertex is in it, sorted by vertex tuple (an edge's id is its rank), and their
// search by vertices.
#include "GaleTriangulation.h"

#include "base/Timer.h"
#include "triangulation/explicit/MeshBuilding.h"
#include "triangulation/gale/detail/GaleRuntime.h"
#include "triangulation/gale/detail/StampTable.h"
#include "triangulation/gale/detail/TetFaces.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace topogpu {

using gale::detail::kTetFaces;
using gale::detail::StampTable;
using mesh_building::parallelFor;
using mesh_building::sortSmall;

namespace {

// Rows of simplices per lowest vertex up to this long are scanned, not bisected.
constexpr SimplexId kLinearSearch = 16;

// A thread's scratch for distinctRows (reused: no allocation per segment once warm).
struct RowScratch {
  std::vector<std::array<SimplexId, 4>> touching;
  std::vector<SimplexId> start, at;
  std::vector<std::uint64_t> values;
  StampTable table;
};
thread_local RowScratch tRows;

// The distinct values per vertex row (local vertex a + row of a segment [a, b)) that
// candidates(t, a, b, emit) emits for each of its touching cells' sorted tuples t
// (gatherTouching). Counting only (Write = false)
// returns their number; otherwise each row's values, ascending, go to write(k, row,
// value), k their rank in the segment. Run twice (count, then fill in place), it builds
// the edge and triangle lists without holding them all in temporaries.
void gatherTouching(const GaleTriangulation& mesh, SimplexId s, RowScratch& x) {
  x.touching.clear();
  for (SimplexId k = mesh.internalCellBegin(s); k < mesh.internalCellBegin(s + 1); ++k)
    x.touching.push_back(mesh.sortedNewCell(mesh.internalCell(k)));
  for (SimplexId k = mesh.externalCellBegin(s); k < mesh.externalCellBegin(s + 1); ++k)
    x.touching.push_back(mesh.sortedNewCell(mesh.externalCell(k)));
}

template <bool Write, typename Candidates, typename Writer>
SimplexId distinctRows(RowScratch& x, SimplexId a, SimplexId b, Candidates candidates,
                       Writer write) {
  const SimplexId rows = b - a;
  x.start.assign(std::size_t(rows) + 1, 0);
  for (const auto& t : x.touching)
    candidates(t, a, b, [&](SimplexId row, std::uint64_t) { ++x.start[row + 1]; });
  for (SimplexId r = 0; r < rows; ++r)
    x.start[r + 1] += x.start[r];
  x.values.resize(std::size_t(x.start[rows]));
  x.at.assign(x.start.begin(), x.start.end() - 1);
  for (const auto& t : x.touching)
    candidates(t, a, b, [&](SimplexId row, std::uint64_t v) {
      x.values[std::size_t(x.at[row]++)] = v;
    });
  SimplexId k = 0;
  for (SimplexId r = 0; r < rows; ++r) {
    const auto first = x.values.begin() + x.start[r],
               last = x.values.begin() + x.start[r + 1];
    x.table.reset(std::size_t(last - first));
    for (auto it = first; it != last; ++it)
      x.table.add(*it);
    const std::size_t distinct = x.table.distinct();
    if constexpr (Write) {
      for (std::size_t i = 0; i < distinct; ++i)
        first[std::ptrdiff_t(i)] = x.table.key(i);
      std::sort(first, first + std::ptrdiff_t(distinct));
      for (std::size_t i = 0; i < distinct; ++i)
        write(k + SimplexId(i), r, first[std::ptrdiff_t(i)]);
    }
    k += SimplexId(distinct);
  }
  return k;
}

} // namespace

// Edges / triangles of each segment (lowest vertex in it) from the cells touching it,
// sorted by vertex tuple: an edge's id is its rank in that order, the same for the whole
// life of the object.
// first[v]: the first simplex of `simplices` (arity ids each, sorted by their tuples per
// segment) whose lowest vertex is v or above, first[n] their number: the simplices of
// lowest vertex v are [first[v], first[v + 1]), so a search looks at a handful only.
void GaleTriangulation::indexByLowestVertex(const IdArray& simplices, int arity,
                                            const std::vector<SimplexId>& offsets,
                                            IdArray& first) const {
  const SimplexId n = numberOfVertices_;
  first.allocate(std::size_t(n) + 1, offsets.back(), false);
  parallelFor(getNumberOfSegments(), [&](SimplexId s) {
    SimplexId k = offsets[s];
    for (SimplexId v = segmentStart_[s]; v < segmentStart_[s + 1]; ++v) {
      while (k < offsets[s + 1] && simplices[std::size_t(k) * arity] < v)
        ++k;
      first.set(std::size_t(v), k);
    }
  });
  first.set(std::size_t(n), offsets.back());
}

void GaleTriangulation::buildTrianglesWide() {
  const SimplexId segments = getNumberOfSegments();
  std::vector<std::vector<std::array<SimplexId, 3>>> perSegment(segments);
  // one sort of each segment's tuples
  parallelFor(segments, [&](SimplexId s) {
    auto& local = perSegment[s];
    const SimplexId a = segmentStart_[s], b = segmentStart_[s + 1];
    std::vector<std::array<SimplexId, 4>> touching;
    auto visit = [&](SimplexId c) { touching.push_back(sortedNewCell(c)); };
    for (SimplexId k = internalOffsets_[s]; k < internalOffsets_[s + 1]; ++k)
      visit(internalCells_[k]);
    for (SimplexId k = externalOffsets_[s]; k < externalOffsets_[s + 1]; ++k)
      visit(externalCells_[k]);
    for (const auto& t : touching)
      for (const auto& face : kTetFaces)
        if (t[face[0]] >= a && t[face[0]] < b)
          local.push_back({t[face[0]], t[face[1]], t[face[2]]});
    std::sort(local.begin(), local.end());
    local.erase(std::unique(local.begin(), local.end()), local.end());
  });
  triangleOffsets_.assign(segments + 1, 0);
  for (SimplexId s = 0; s < segments; ++s)
    triangleOffsets_[s + 1] = triangleOffsets_[s] + SimplexId(perSegment[s].size());
  triangleNew_.allocate(std::size_t(triangleOffsets_.back()) * 3, numberOfVertices_ - 1,
                        false);
  parallelFor(segments, [&](SimplexId s) {
    for (std::size_t k = 0; k < perSegment[s].size(); ++k)
      for (int i = 0; i < 3; ++i)
        triangleNew_.set(3 * (triangleOffsets_[s] + k) + i, perSegment[s][k][i]);
    std::vector<std::array<SimplexId, 3>>().swap(perSegment[s]);
  });
}

void GaleTriangulation::buildEdgesAndTriangles(bool edges, bool triangles) {
  edges = edges && !edgesBuilt_;
  triangles = triangles && dimension_ == 3 && !trianglesBuilt_;
  if (!edges && !triangles)
    return;
  Timer timer;
  // Once the lists are there: each vertex's first edge / triangle as the lowest vertex.
  const auto index = [&] {
    if (edges) {
      indexByLowestVertex(edgeNew_, 2, edgeOffsets_, edgeFirst_);
      edgesBuilt_ = true;
    }
    if (triangles) {
      indexByLowestVertex(triangleNew_, 3, triangleOffsets_, triangleFirst_);
      trianglesBuilt_ = true;
    }
    runtime_->initialization.simplexListSeconds += timer.seconds();
  };
  // The GPU producer sorts every cell's edges and facets at once (the same lists).
  if (runtime_->producer && numberOfVertices_ <= (SimplexId(1) << 31) &&
      runtime_->producer->buildSimplexLists(edges, triangles, edgeNew_, edgeOffsets_,
                                            triangleNew_, triangleOffsets_)) {
    index();
    return;
  }
  ensureHostCellLists(); // the CPU's lists are built from the cells per segment
  if (triangles && numberOfVertices_ > (SimplexId(1) << 31)) {
    buildTrianglesWide(); // the packed keys below need ids under 2^31
    indexByLowestVertex(triangleNew_, 3, triangleOffsets_, triangleFirst_);
    trianglesBuilt_ = true;
    triangles = false;
  }
  const SimplexId segments = getNumberOfSegments();
  const int dim = dimension_;
  // Per segment, the edges' upper vertices bucketed by their lower (local) vertex, each
  // short row deduplicated and sorted: the (low, high) order without sorting pairs.
  auto edgeCandidates = [dim](const std::array<SimplexId, 4>& t, SimplexId a, SimplexId b,
                              auto&& emit) {
    for (int i = 0; i < dim; ++i) {
      if (t[i] < a || t[i] >= b)
        continue;
      for (int j = i + 1; j <= dim; ++j)
        emit(t[i] - a, std::uint64_t(t[j]));
    }
  };
  // Triangles: the two upper vertices packed in one key, by the lowest (local) vertex.
  auto triangleCandidates = [](const std::array<SimplexId, 4>& t, SimplexId a,
                               SimplexId b, auto&& emit) {
    for (const auto& face : kTetFaces)
      if (t[face[0]] >= a && t[face[0]] < b)
        emit(t[face[0]] - a,
             (std::uint64_t(t[face[1]]) << 32) | std::uint64_t(t[face[2]]));
  };
  const auto none = [](SimplexId, SimplexId, std::uint64_t) {};
  // Counted, then written in place: both lists from one read of each segment's cells.
  if (edges)
    edgeOffsets_.assign(segments + 1, 0);
  if (triangles)
    triangleOffsets_.assign(segments + 1, 0);
  parallelFor(segments, [&](SimplexId s) {
    RowScratch& x = tRows;
    gatherTouching(*this, s, x);
    const SimplexId a = segmentStart_[s], b = segmentStart_[s + 1];
    if (edges)
      edgeOffsets_[s + 1] = distinctRows<false>(x, a, b, edgeCandidates, none);
    if (triangles)
      triangleOffsets_[s + 1] = distinctRows<false>(x, a, b, triangleCandidates, none);
  });
  for (SimplexId s = 0; s < segments; ++s) {
    if (edges)
      edgeOffsets_[s + 1] += edgeOffsets_[s];
    if (triangles)
      triangleOffsets_[s + 1] += triangleOffsets_[s];
  }
  if (edges)
    edgeNew_.allocate(std::size_t(edgeOffsets_.back()) * 2, numberOfVertices_ - 1, false);
  if (triangles)
    triangleNew_.allocate(std::size_t(triangleOffsets_.back()) * 3, numberOfVertices_ - 1,
                          false);
  parallelFor(segments, [&](SimplexId s) {
    RowScratch& x = tRows;
    gatherTouching(*this, s, x);
    const SimplexId a = segmentStart_[s], b = segmentStart_[s + 1];
    if (edges) {
      const SimplexId first = edgeOffsets_[s];
      distinctRows<true>(
          x, a, b, edgeCandidates, [&](SimplexId k, SimplexId row, std::uint64_t value) {
            edgeNew_.set(std::size_t(2 * (first + k)), a + row);
            edgeNew_.set(std::size_t(2 * (first + k) + 1), SimplexId(value));
          });
    }
    if (triangles) {
      const SimplexId first = triangleOffsets_[s];
      distinctRows<true>(x, a, b, triangleCandidates,
                         [&](SimplexId k, SimplexId row, std::uint64_t key) {
                           const std::size_t at = std::size_t(3 * (first + k));
                           triangleNew_.set(at, a + row);
                           triangleNew_.set(at + 1, SimplexId(key >> 32));
                           triangleNew_.set(at + 2, SimplexId(key & 0xffffffffu));
                         });
    }
  });
  index();
}

SimplexId GaleTriangulation::findEdgeNew(SimplexId lo, SimplexId hi) const {
  // the edges of lowest vertex lo, ascending by their upper vertex
  SimplexId first = edgeFirst_[std::size_t(lo)], last = edgeFirst_[std::size_t(lo) + 1];
  const SimplexId end = last;
  if (last - first <= kLinearSearch) { // as findTriangleNew
    for (; first < last; ++first)
      if (edgeNew_[2 * first + 1] == hi)
        return first;
    return -1;
  }
  while (first < last) {
    const SimplexId mid = first + (last - first) / 2;
    if (edgeNew_[2 * mid + 1] < hi)
      first = mid + 1;
    else
      last = mid;
  }
  return first < end && edgeNew_[2 * first + 1] == hi ? first : -1;
}

SimplexId GaleTriangulation::findTriangleNew(SimplexId a, SimplexId b,
                                             SimplexId c) const {
  if (dimension_ == 2) {
    // the triangles are the cells: the internal list of a's segment, sorted by tuple
    const SimplexId s = segmentOfNew_[a];
    const std::array<SimplexId, 4> key{a, b, c, std::numeric_limits<SimplexId>::max()};
    const SimplexId first = internalLowerBound(s, key);
    return first < internalOffsets_[s + 1] && sortedNewCell(internalCells_[first]) == key
               ? internalCells_[first]
               : -1;
  }
  // the triangles of lowest vertex a, ascending by their two upper vertices
  SimplexId first = triangleFirst_[std::size_t(a)],
            last = triangleFirst_[std::size_t(a) + 1];
  const SimplexId end = last;
  if (last - first <= kLinearSearch) {
    // a short row (the usual handful): scanned in order, its cache lines streamed in,
    // instead of a binary search's mispredicted probes
    for (; first < last; ++first)
      if (triangleNew_[3 * first + 1] == b && triangleNew_[3 * first + 2] == c)
        return first;
    return -1;
  }
  while (first < last) {
    const SimplexId mid = first + (last - first) / 2;
    const SimplexId y = triangleNew_[3 * mid + 1];
    if (y < b || (y == b && triangleNew_[3 * mid + 2] < c))
      first = mid + 1;
    else
      last = mid;
  }
  return first < end && triangleNew_[3 * first + 1] == b &&
                 triangleNew_[3 * first + 2] == c
             ? first
             : -1;
}

SimplexId GaleTriangulation::findEdge(SimplexId a, SimplexId b) const {
#ifndef NDEBUG
  if (!edgesBuilt_)
    failPrecondition(__func__, "the edges were not built (precondition EV first)");
#endif
  if (a < 0 || b < 0 || a >= numberOfVertices_ || b >= numberOfVertices_ || a == b)
    return -1;
  const SimplexId x = newOfOld_[a], y = newOfOld_[b];
  return findEdgeNew(std::min(x, y), std::max(x, y));
}

SimplexId GaleTriangulation::findTriangle(SimplexId a, SimplexId b, SimplexId c) const {
#ifndef NDEBUG
  if (dimension_ == 3 && !trianglesBuilt_)
    failPrecondition(__func__, "the triangles were not built (precondition FV first)");
#endif
  for (const SimplexId v : {a, b, c}) {
    if (v < 0 || v >= numberOfVertices_)
      return -1;
  }
  SimplexId t[3] = {newOfOld_[a], newOfOld_[b], newOfOld_[c]};
  sortSmall(t, 3);
  if (t[0] == t[1] || t[1] == t[2])
    return -1;
  return findTriangleNew(t[0], t[1], t[2]);
}

} // namespace topogpu
