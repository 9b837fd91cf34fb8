// GALE's CPU producer (the paper's CPU mode, ACTOPO-like): a segment's relations from
// the cells touching it, one segment per task, the batch in parallel on TBB; consumers
// compute the segments they miss themselves, and their sibling relations from the same
// read of the cells.
#include "SegmentProducer.h"

#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/gale/detail/StampTable.h"
#include "triangulation/gale/detail/TetFaces.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topogpu {

using gale::detail::kTetFaces;
using gale::detail::StampTable;

namespace gale {

namespace {

bool isVertexRelation(ServedRelation relation) {
  return relation == kVertexNeighbors || relation == kVertexEdges ||
         relation == kVertexStar || relation == kBoundaryFlags;
}

// The cells touching one segment, read once per segment: their sorted new-id tuples and
// ids (the internal cells first, then the external ones, each list in the mesh's
// order), and per vertex of the segment its star as indices into them, ascending.
struct SegmentStars {
  std::vector<std::array<SimplexId, 4>> tuples;
  std::vector<SimplexId> cells;
  std::size_t internal = 0;
  std::vector<std::int32_t> rowStart, rowItems, fill;

  void load(const GaleTriangulation& mesh, SimplexId s) {
    const int dim = mesh.getDimension();
    const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
    tuples.clear();
    cells.clear();
    auto visit = [&](SimplexId c) {
      tuples.push_back(mesh.sortedNewCell(c));
      cells.push_back(c);
    };
    for (SimplexId k = mesh.internalCellBegin(s); k < mesh.internalCellBegin(s + 1); ++k)
      visit(mesh.internalCell(k));
    internal = cells.size();
    for (SimplexId k = mesh.externalCellBegin(s); k < mesh.externalCellBegin(s + 1); ++k)
      visit(mesh.externalCell(k));
    // the stars by counting: a vertex's cells stay in touching order
    rowStart.assign(std::size_t(rows) + 1, 0);
    for (const auto& t : tuples)
      for (int i = 0; i <= dim; ++i)
        if (t[i] >= a && t[i] < a + rows)
          ++rowStart[std::size_t(t[i] - a) + 1];
    for (SimplexId r = 0; r < rows; ++r)
      rowStart[r + 1] += rowStart[r];
    rowItems.resize(std::size_t(rowStart[rows]));
    fill.assign(rowStart.begin(), rowStart.end() - 1);
    for (std::size_t k = 0; k < tuples.size(); ++k)
      for (int i = 0; i <= dim; ++i)
        if (tuples[k][i] >= a && tuples[k][i] < a + rows)
          rowItems[std::size_t(fill[tuples[k][i] - a]++)] = std::int32_t(k);
  }
};

// One thread's scratch, reused by every segment it computes (no allocation per segment
// once warm). A computation never waits nor re-enters, so nothing else uses it
// meanwhile.
struct Scratch {
  SimplexId segment = -1; // what `stars` holds (of `mesh`), -1: nothing valid
  const GaleTriangulation* mesh = nullptr;
  SegmentStars stars;
  StampTable table;
  std::vector<std::pair<SimplexId, SimplexId>> neighbors; // (input id, new id)
  std::vector<SimplexId> offsets;
};
thread_local Scratch tScratch;

const SegmentStars& starsOf(const GaleTriangulation& mesh, SimplexId s, Scratch& x) {
  if (x.segment != s || x.mesh != &mesh) {
    x.segment = -1;
    x.stars.load(mesh, s);
    x.segment = s;
    x.mesh = &mesh;
  }
  return x.stars;
}

// VV (input ids, ascending per row) and VE parallel to it, either may be null.
void computeNeighbors(const GaleTriangulation& mesh, SimplexId s, Scratch& x,
                      SegmentRelation* vv, SegmentRelation* ve) {
  const int dim = mesh.getDimension();
  const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
  const SegmentStars& st = starsOf(mesh, s, x);
  x.neighbors.clear();
  x.offsets.assign(std::size_t(rows) + 1, 0);
  for (SimplexId r = 0; r < rows; ++r) {
    const SimplexId self = a + r;
    x.table.reset(std::size_t(dim) * std::size_t(st.rowStart[r + 1] - st.rowStart[r]));
    for (std::int32_t k = st.rowStart[r]; k < st.rowStart[r + 1]; ++k) {
      const auto& t = st.tuples[std::size_t(st.rowItems[std::size_t(k)])];
      for (int j = 0; j <= dim; ++j)
        if (t[j] != self)
          x.table.add(std::uint64_t(t[j]));
    }
    const std::size_t base = x.neighbors.size();
    for (std::size_t i = 0; i < x.table.distinct(); ++i) {
      const SimplexId n = SimplexId(x.table.key(i));
      x.neighbors.emplace_back(mesh.oldId(n), n);
    }
    std::sort(x.neighbors.begin() + std::ptrdiff_t(base), x.neighbors.end());
    x.offsets[std::size_t(r) + 1] = SimplexId(x.neighbors.size());
  }
  const SimplexId total = SimplexId(x.neighbors.size());
  for (SegmentRelation* out : {vv, ve}) {
    if (out == nullptr)
      continue;
    out->rows.offsets.allocate(std::size_t(rows) + 1, total, false);
    for (SimplexId r = 0; r <= rows; ++r)
      out->rows.offsets.set(std::size_t(r), x.offsets[std::size_t(r)]);
  }
  if (vv != nullptr) {
    vv->rows.data.allocate(std::size_t(total), mesh.getNumberOfVertices() - 1, false);
    for (SimplexId k = 0; k < total; ++k)
      vv->rows.data.set(std::size_t(k), x.neighbors[std::size_t(k)].first);
  }
  if (ve != nullptr) {
    // edge i of v joins v to neighbour i
    ve->rows.data.allocate(std::size_t(total), mesh.edgeBegin(mesh.getNumberOfSegments()),
                           false);
    for (SimplexId r = 0; r < rows; ++r) {
      const SimplexId self = a + r;
      for (SimplexId k = x.offsets[std::size_t(r)]; k < x.offsets[std::size_t(r) + 1];
           ++k) {
        const SimplexId other = x.neighbors[std::size_t(k)].second;
        ve->rows.data.set(std::size_t(k),
                          mesh.findEdgeNew(std::min(self, other), std::max(self, other)));
      }
    }
  }
}

// The star (VT in 3D, VF in 2D), cell ids ascending per row: the internal and external
// runs of a row are each ascending when the internal cells are ordered by id, so the
// row is their merge; otherwise it is sorted.
void computeStar(const GaleTriangulation& mesh, SimplexId s, Scratch& x,
                 SegmentRelation& out) {
  const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
  const SegmentStars& st = starsOf(mesh, s, x);
  const std::size_t total = st.rowItems.size();
  out.rows.offsets.allocate(std::size_t(rows) + 1, SimplexId(total), false);
  out.rows.data.allocate(total, mesh.getNumberOfCells() - 1, false);
  const bool byId = mesh.internalCellsById();
  auto& row = x.offsets; // reused as the row's cells
  for (SimplexId r = 0; r <= rows; ++r)
    out.rows.offsets.set(std::size_t(r), st.rowStart[std::size_t(r)]);
  for (SimplexId r = 0; r < rows; ++r) {
    const std::int32_t first = st.rowStart[r], last = st.rowStart[r + 1];
    std::int32_t split = first;
    while (split < last && std::size_t(st.rowItems[std::size_t(split)]) < st.internal)
      ++split;
    row.clear();
    if (byId) {
      std::int32_t i = first, j = split;
      while (i < split && j < last) {
        const SimplexId ci = st.cells[std::size_t(st.rowItems[std::size_t(i)])],
                        cj = st.cells[std::size_t(st.rowItems[std::size_t(j)])];
        if (ci < cj) {
          row.push_back(ci);
          ++i;
        } else {
          row.push_back(cj);
          ++j;
        }
      }
      for (; i < split; ++i)
        row.push_back(st.cells[std::size_t(st.rowItems[std::size_t(i)])]);
      for (; j < last; ++j)
        row.push_back(st.cells[std::size_t(st.rowItems[std::size_t(j)])]);
    } else {
      for (std::int32_t k = first; k < last; ++k)
        row.push_back(st.cells[std::size_t(st.rowItems[std::size_t(k)])]);
      std::sort(row.begin(), row.end());
    }
    for (std::size_t k = 0; k < row.size(); ++k)
      out.rows.data.set(std::size_t(first) + k, row[k]);
  }
}

// Vertex flags only (ids below 2^32): per vertex, the facets of its star holding it,
// keyed by their other vertices packed in one integer (a pair of 32-bit ids in 3D) and
// counted; a facet met once is on the boundary.
void computeVertexFlags(const GaleTriangulation& mesh, SimplexId s, Scratch& x,
                        SegmentRelation& out) {
  const int dim = mesh.getDimension();
  const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
  const SegmentStars& st = starsOf(mesh, s, x);
  out.vertexFlags.assign(std::size_t(rows), 0);
  for (SimplexId r = 0; r < rows; ++r) {
    const SimplexId self = a + r;
    x.table.reset(std::size_t(dim) * std::size_t(st.rowStart[r + 1] - st.rowStart[r]));
    for (std::int32_t k = st.rowStart[r]; k < st.rowStart[r + 1]; ++k) {
      const auto& t = st.tuples[std::size_t(st.rowItems[std::size_t(k)])];
      SimplexId other[3] = {0, 0, 0};
      int m = 0;
      for (int j = 0; j <= dim; ++j)
        if (t[j] != self)
          other[m++] = t[j];
      // the facet omitting other[k]: the remaining others, ascending
      for (int o = 0; o < dim; ++o) {
        std::uint64_t key = 0;
        for (int j = 0; j < dim; ++j)
          if (j != o)
            key = (key << 32) | std::uint64_t(other[j]);
        x.table.add(key);
      }
    }
    for (std::size_t i = 0; i < x.table.distinct(); ++i) {
      const int count = x.table.count(i);
      const std::uint64_t key = x.table.key(i);
      if (count == 1)
        out.vertexFlags[std::size_t(r)] = 1;
      // counted once, by the facet's lowest vertex (the others are above it; in 3D the
      // key's high half is the lower other vertex)
      else if (count > 2 && (dim == 2 ? key : key >> 32) > std::uint64_t(self))
        ++out.nonManifoldFacets;
    }
  }
}

SegmentPointer computeSegment(const GaleTriangulation& mesh, ServedRelation relation,
                              SimplexId s);

} // namespace

SegmentPointer computeSegmentCpu(const GaleTriangulation& mesh, ServedRelation relation,
                                 SimplexId s) {
  mesh.ensureHostCellLists();
  tScratch.segment = -1; // the stars are loaded afresh once per computation
  return computeSegment(mesh, relation, s);
}

// A consumer's miss of a vertex relation: VV and VE are computed in one pass when
// consumers compute the other too and nobody has it (offered to its cache).
SegmentPointer computeSegmentForConsumerCpu(const GaleTriangulation& mesh,
                                            ServedRelation relation, SimplexId s) {
  mesh.ensureHostCellLists();
  tScratch.segment = -1;
  if (relation != kVertexNeighbors && relation != kVertexEdges)
    return computeSegment(mesh, relation, s);
  const ServedRelation other =
      relation == kVertexNeighbors ? kVertexEdges : kVertexNeighbors;
  if (relation == kVertexEdges) {
    // VV already there (a GPU producer's, ahead of the loop): VE from its rows, without
    // reading the cells
    if (const SegmentPointer vv = mesh.cachedSegment(kVertexNeighbors, s)) {
      auto ve = std::make_shared<SegmentRelation>();
      ve->rows.offsets = vv->rows.offsets;
      ve->rows.data.allocate(vv->rows.data.size(),
                             mesh.edgeBegin(mesh.getNumberOfSegments()), false);
      const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
      for (SimplexId r = 0; r < rows; ++r)
        for (SimplexId k = vv->rows.offsets[r]; k < vv->rows.offsets[r + 1]; ++k) {
          const SimplexId self = a + r, n = mesh.newId(vv->rows.data[k]);
          ve->rows.data.set(std::size_t(k),
                            mesh.findEdgeNew(std::min(self, n), std::max(self, n)));
        }
      return ve;
    }
  }
  const bool both = mesh.siblingWanted(other, s);
  auto requested = std::make_shared<SegmentRelation>();
  auto sibling = both ? std::make_shared<SegmentRelation>() : nullptr;
  SegmentRelation* vv = relation == kVertexNeighbors ? requested.get() : sibling.get();
  SegmentRelation* ve = relation == kVertexEdges ? requested.get() : sibling.get();
  computeNeighbors(mesh, s, tScratch, vv, ve);
  if (both)
    mesh.offerSibling(other, s, sibling);
  return requested;
}

// Then (the requested relation published) the segment's other vertex relations that
// consumers compute and nobody has yet, from the touching cells this thread has just
// read (still in its scratch): the cells are read once.
void computeSiblingsCpu(const GaleTriangulation& mesh, ServedRelation relation,
                        SimplexId s) {
  if (!isVertexRelation(relation))
    return;
  mesh.ensureHostCellLists();
  const bool vv = relation != kVertexNeighbors && mesh.siblingWanted(kVertexNeighbors, s),
             ve = relation != kVertexEdges && mesh.siblingWanted(kVertexEdges, s);
  if (vv || ve) {
    auto pvv = vv ? std::make_shared<SegmentRelation>() : nullptr;
    auto pve = ve ? std::make_shared<SegmentRelation>() : nullptr;
    computeNeighbors(mesh, s, tScratch, pvv.get(), pve.get());
    if (vv)
      mesh.offerSibling(kVertexNeighbors, s, pvv);
    if (ve)
      mesh.offerSibling(kVertexEdges, s, pve);
  }
  for (const ServedRelation r : {kVertexStar, kBoundaryFlags})
    if (r != relation && mesh.siblingWanted(r, s))
      mesh.offerSibling(r, s, computeSegment(mesh, r, s));
}

namespace {

// Segment s's vertices: new ids [a, b).
struct SegmentVertices {
  SimplexId a, b;
  SegmentVertices(const GaleTriangulation& mesh, SimplexId s)
      : a(mesh.segmentStart(s)), b(mesh.segmentStart(s + 1)) {}
  bool contains(SimplexId n) const { return n >= a && n < b; }
};

// The cells touching a segment, internal ones first (each list in the mesh's order):
// visit(cell, its sorted new-id tuple).
template <typename Visit>
void forTouching(const GaleTriangulation& mesh, SimplexId segment, Visit&& visit) {
  for (SimplexId k = mesh.internalCellBegin(segment);
       k < mesh.internalCellBegin(segment + 1); ++k)
    visit(mesh.internalCell(k), mesh.sortedNewCell(mesh.internalCell(k)));
  for (SimplexId k = mesh.externalCellBegin(segment);
       k < mesh.externalCellBegin(segment + 1); ++k)
    visit(mesh.externalCell(k), mesh.sortedNewCell(mesh.externalCell(k)));
}

// VF in 3D: each vertex's triangles, from the faces of its touching cells.
void computeVertexTriangles(const GaleTriangulation& mesh, SimplexId s,
                            SegmentRelation& out) {
  const SegmentVertices segment(mesh, s);
  const SimplexId vertexRows = segment.b - segment.a;
  std::vector<std::pair<SimplexId, SimplexId>> pairs;
  forTouching(mesh, s, [&](SimplexId, const std::array<SimplexId, 4>& t) {
    for (const auto& face : kTetFaces) {
      const SimplexId f = mesh.findTriangleNew(t[face[0]], t[face[1]], t[face[2]]);
      for (const int i : face)
        if (segment.contains(t[i]))
          pairs.emplace_back(t[i] - segment.a, f);
    }
  });
  out.rows =
      rowsFromPairs(pairs, vertexRows, mesh.triangleBegin(mesh.getNumberOfSegments()));
}

// EF or ET: each edge's triangles or cells, from the edges of the touching cells.
void computeEdgeCofaces(const GaleTriangulation& mesh, ServedRelation relation,
                        SimplexId s, SegmentRelation& out) {
  const int dim = mesh.getDimension();
  const SegmentVertices segment(mesh, s);
  const SimplexId cells = mesh.getNumberOfCells();
  std::vector<std::pair<SimplexId, SimplexId>> pairs;
  const SimplexId e0 = mesh.edgeBegin(s), edgeRows = mesh.edgeBegin(s + 1) - e0;
  forTouching(mesh, s, [&](SimplexId c, const std::array<SimplexId, 4>& t) {
    for (int i = 0; i <= dim; ++i) {
      if (!segment.contains(t[i]))
        continue;
      for (int j = i + 1; j <= dim; ++j) {
        const SimplexId row = mesh.findEdgeNew(t[i], t[j]) - e0;
        if (relation == kEdgeTets || dim == 2) {
          pairs.emplace_back(row, c);
          continue;
        }
        for (const auto& face : kTetFaces) {
          const bool hasI = face[0] == i || face[1] == i || face[2] == i;
          const bool hasJ = face[0] == j || face[1] == j || face[2] == j;
          if (hasI && hasJ)
            pairs.emplace_back(row,
                               mesh.findTriangleNew(t[face[0]], t[face[1]], t[face[2]]));
        }
      }
    }
  });
  const SimplexId maxValue = relation == kEdgeTets || dim == 2
                                 ? cells - 1
                                 : mesh.triangleBegin(mesh.getNumberOfSegments());
  out.rows = rowsFromPairs(pairs, edgeRows, maxValue);
}

// FT: each triangle's cells, from the faces of the touching cells.
void computeTriangleTets(const GaleTriangulation& mesh, SimplexId s,
                         SegmentRelation& out) {
  const SegmentVertices segment(mesh, s);
  const SimplexId cells = mesh.getNumberOfCells();
  std::vector<std::pair<SimplexId, SimplexId>> pairs;
  const SimplexId f0 = mesh.triangleBegin(s), rows = mesh.triangleBegin(s + 1) - f0;
  forTouching(mesh, s, [&](SimplexId c, const std::array<SimplexId, 4>& t) {
    for (const auto& face : kTetFaces)
      if (segment.contains(t[face[0]]))
        pairs.emplace_back(mesh.findTriangleNew(t[face[0]], t[face[1]], t[face[2]]) - f0,
                           c);
  });
  out.rows = rowsFromPairs(pairs, rows, cells - 1);
}

// TT: the internal cells' neighbours across their faces.
void computeTetNeighbors(const GaleTriangulation& mesh, SimplexId s,
                         SegmentRelation& out) {
  const SimplexId cells = mesh.getNumberOfCells();
  std::vector<std::pair<SimplexId, SimplexId>> pairs;
  // A neighbour across face f holds f's lowest vertex, so it touches that vertex's
  // segment: the faces of those segments' touching cells, sorted, answer every face.
  const SimplexId first = mesh.internalCellBegin(s);
  const SimplexId rows = mesh.internalCellBegin(s + 1) - first;
  std::vector<SimplexId> around;
  for (SimplexId k = 0; k < rows; ++k) {
    const auto t = mesh.sortedNewCell(mesh.internalCell(first + k));
    for (int i = 0; i < 2; ++i) // a face's lowest vertex is t[0] or t[1]
      around.push_back(mesh.segmentOfNewVertex(t[i]));
  }
  std::sort(around.begin(), around.end());
  around.erase(std::unique(around.begin(), around.end()), around.end());
  using Face = std::pair<std::array<SimplexId, 3>, SimplexId>;
  std::vector<Face> faces;
  for (const SimplexId other : around) {
    const SimplexId lo = mesh.segmentStart(other), hi = mesh.segmentStart(other + 1);
    forTouching(mesh, other, [&](SimplexId c, const std::array<SimplexId, 4>& t) {
      for (const auto& face : kTetFaces)
        if (t[face[0]] >= lo && t[face[0]] < hi)
          faces.push_back({{t[face[0]], t[face[1]], t[face[2]]}, c});
    });
  }
  std::sort(faces.begin(), faces.end());
  for (SimplexId k = 0; k < rows; ++k) {
    const SimplexId c = mesh.internalCell(first + k);
    const auto t = mesh.sortedNewCell(c);
    for (const auto& face : kTetFaces) {
      const std::array<SimplexId, 3> key{t[face[0]], t[face[1]], t[face[2]]};
      auto it = std::lower_bound(faces.begin(), faces.end(), Face{key, -1});
      for (; it != faces.end() && it->first == key; ++it)
        if (it->second != c)
          pairs.emplace_back(k, it->second);
    }
  }
  out.rows = rowsFromPairs(pairs, rows, cells - 1);
}

// The boundary flags with the edges' and / or triangles' (or ids of 2^32 and beyond).
void computeFacetFlags(const GaleTriangulation& mesh, SimplexId s, bool edges,
                       bool triangles, SegmentRelation& out) {
  const int dim = mesh.getDimension();
  const SegmentVertices segment(mesh, s);
  const SimplexId vertexRows = segment.b - segment.a;
  // Facets (dim vertices) with a vertex in the segment, counted over the cells
  // touching it: every cell holding such a facet touches the segment, so the
  // counts are exact; a facet in one cell is on the boundary.
  std::vector<std::array<SimplexId, 3>> facets;
  forTouching(mesh, s, [&](SimplexId, const std::array<SimplexId, 4>& t) {
    for (int omit = 0; omit <= dim; ++omit) {
      std::array<SimplexId, 3> f{0, 0, 0};
      int m = 0;
      bool touches = false;
      for (int i = 0; i <= dim; ++i) {
        if (i == omit)
          continue;
        touches |= segment.contains(t[i]);
        f[m++] = t[i];
      }
      if (touches)
        facets.push_back(f);
    }
  });
  std::sort(facets.begin(), facets.end());
  out.vertexFlags.assign(vertexRows, 0);
  const SimplexId e0 = edges ? mesh.edgeBegin(s) : 0;
  if (edges)
    out.edgeFlags.assign(mesh.edgeBegin(s + 1) - e0, 0);
  const SimplexId t0 = triangles ? mesh.triangleBegin(s) : 0;
  if (triangles)
    out.triangleFlags.assign(mesh.triangleBegin(s + 1) - t0, 0);
  for (std::size_t i = 0; i < facets.size();) {
    std::size_t j = i + 1;
    while (j < facets.size() && facets[j] == facets[i])
      ++j;
    if (j - i > 2 && segment.contains(facets[i][0]))
      ++out.nonManifoldFacets; // counted by the segment of its lowest vertex
    if (j - i == 1) {
      const auto& f = facets[i];
      for (int p = 0; p < dim; ++p) {
        if (segment.contains(f[p]))
          out.vertexFlags[f[p] - segment.a] = 1;
        if (!edges)
          continue;
        for (int q = p + 1; q < dim; ++q)
          if (segment.contains(f[p]))
            out.edgeFlags[mesh.findEdgeNew(f[p], f[q]) - e0] = 1;
      }
      if (triangles && segment.contains(f[0]))
        out.triangleFlags[mesh.findTriangleNew(f[0], f[1], f[2]) - t0] = 1;
    }
    i = j;
  }
}

SegmentPointer computeSegment(const GaleTriangulation& mesh, ServedRelation relation,
                              SimplexId s) {
  const int dim = mesh.getDimension();
  auto out = std::make_shared<SegmentRelation>();
  switch (relation) {
  case kVertexNeighbors:
    computeNeighbors(mesh, s, tScratch, out.get(), nullptr);
    break;
  case kVertexEdges:
    computeNeighbors(mesh, s, tScratch, nullptr, out.get());
    break;
  case kVertexStar:
    computeStar(mesh, s, tScratch, *out);
    break;
  case kVertexTriangles: // 3D
    computeVertexTriangles(mesh, s, *out);
    break;
  case kEdgeTriangles:
  case kEdgeTets:
    computeEdgeCofaces(mesh, relation, s, *out);
    break;
  case kTriangleTets:
    computeTriangleTets(mesh, s, *out);
    break;
  case kTetNeighbors:
    computeTetNeighbors(mesh, s, *out);
    break;
  case kBoundaryFlags: {
    const Relations wanted = mesh.boundaryFlagsWanted();
    const bool edges = mesh.edgesBuilt() && (wanted & BoundaryEdges) != 0;
    const bool triangles =
        dim == 3 && mesh.trianglesBuilt() && (wanted & BoundaryTriangles) != 0;
    if (!edges && !triangles && mesh.getNumberOfVertices() <= (SimplexId(1) << 32))
      computeVertexFlags(mesh, s, tScratch, *out);
    else
      computeFacetFlags(mesh, s, edges, triangles, *out);
    break;
  }
  default:
    throw Error("unknown GALE relation " + std::to_string(int(relation)));
  }
  return out;
}

class CpuProducer : public SegmentProducer {
public:
  std::string name() const override { return "cpu"; }
  bool consumersMayCompute(ServedRelation) const override { return true; }
  void computeSiblings(const GaleTriangulation& mesh, ServedRelation relation,
                       SimplexId segment) override {
    try {
      computeSiblingsCpu(mesh, relation, segment);
    } catch (...) {
      // a sibling is only a head start: its own request computes it (and reports)
    }
  }
  void compute(const GaleTriangulation& mesh, ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<SegmentPointer>& out) override {
    out.assign(segments.size(), nullptr);
    mesh.ensureHostCellLists(); // once, before the batch's tasks read them
    if (segments.size() == 1) { // a consumer's own segment: on its thread
      out[0] = computeSegmentForConsumerCpu(mesh, relation, segments[0]);
      return;
    }
#ifdef __SANITIZE_THREAD__
    // libtbb is not instrumented: under ThreadSanitizer the leader computes its batch
    // itself, so TSan sees every hand-over (TBB's joins it cannot see).
    for (std::size_t k = 0; k < segments.size(); ++k)
      out[k] = computeSegmentCpu(mesh, relation, segments[k]);
    return;
#endif
    // Its own arena: the leader must never pick up a consumer's task (which could wait
    // on this very leader).
    arena_.execute([&] {
      tbb::parallel_for(std::size_t(0), segments.size(), [&](std::size_t k) {
        out[k] = computeSegmentCpu(mesh, relation, segments[k]);
      });
    });
  }

private:
  tbb::task_arena arena_;
};

} // namespace

std::shared_ptr<SegmentProducer> makeCpuProducer() {
  return std::make_shared<CpuProducer>();
}

} // namespace gale

} // namespace topogpu
