// GALE's accessors: the boundary relations answered on the spot from the cells and the
// lists, the coboundary and adjacency relations from the segments the relation servers
// computed (the consumer side: a thread's pinned segment, its last few handles, else a
// request).
#include "GaleTriangulation.h"

#include "triangulation/explicit/MeshBuilding.h"
#include "triangulation/gale/detail/GaleRuntime.h"
#include "triangulation/gale/detail/RelationServer.h"
#include "triangulation/gale/detail/TetFaces.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace topogpu {

using gale::detail::kTetEdgePairs;
using gale::detail::kTetFaces;
using mesh_building::sortSmall;

namespace {

// The consumer fast path: each thread keeps its last few segments (any relation, any
// GALE object) so that a vertex in one of them needs no lock; the handle also pins the
// segment, so the cache may evict it while it is read. Inside a segment-order loop the
// task's pinned view answers first, without searching.
struct Handle {
  std::uint64_t instance = 0, generation = 0;
  int relation = -1;
  SimplexId segment = -1;
  gale::SegmentPointer data;
};
constexpr int kHandles = 8;
thread_local std::array<Handle, kHandles> tHandles;
thread_local int tNextHandle = 0;

} // namespace

// ---- the consumer side ----------------------------------------------------------------

const gale::SegmentRelation* GaleTriangulation::acquire(gale::ServedRelation relation,
                                                        SimplexId segment) const {
  const auto& server = runtime_->servers[relation];
  if (!server)
    failPrecondition("GaleTriangulation::acquire",
                     std::string("relation ") + gale::servedRelationName(relation) +
                         " was not preconditioned");
  if (const gale::SegmentRelation* kept = server->kept(segment))
    return kept; // no lock, no handle (never evicted while consumers run)
  for (Handle& h : tHandles) {
    if (h.segment == segment && h.relation == relation && h.instance == instance_ &&
        h.generation == generation_)
      return h.data.get();
  }
  Handle& h = tHandles[tNextHandle];
  tNextHandle = (tNextHandle + 1) % kHandles;
  h.data = server->get(segment);
  h.instance = instance_;
  h.generation = generation_;
  h.relation = relation;
  h.segment = segment;
  return h.data.get();
}

const gale::SegmentRelation*
GaleTriangulation::vertexRelation(gale::ServedRelation relation, SimplexId v,
                                  SimplexId& row) const {
  const SimplexId n = newOfOld_[v];
  gale::PinnedView* view = gale::tPinnedView;
  if (view != nullptr && view->owner == this && n >= view->begin && n < view->end) {
    row = n - view->begin;
    gale::SegmentPointer& pinned = view->data[relation];
    if (!pinned) {
      const auto& server = runtime_->servers[relation];
      if (!server)
        failPrecondition("GaleTriangulation::acquire",
                         std::string("relation ") + gale::servedRelationName(relation) +
                             " was not preconditioned");
      pinned = server->get(view->segment);
    }
    return pinned.get();
  }
  const SimplexId s = segmentOfNew_[n];
  row = n - segmentStart_[s];
  return acquire(relation, s);
}

void GaleTriangulation::advanceFront(SimplexId segment) const {
  // Release: what the consumers' thread did before the loop (precondition's lists) is
  // visible to a leader that computes ahead of this front.
  runtime_->front.store(segment, std::memory_order_release);
  for (const auto& server : runtime_->servers)
    if (server)
      server->nudge(segment);
}

gale::SegmentPointer GaleTriangulation::cachedSegment(gale::ServedRelation relation,
                                                      SimplexId segment) const {
  return runtime_->servers[relation] ? runtime_->servers[relation]->peek(segment)
                                     : nullptr;
}

bool GaleTriangulation::siblingWanted(gale::ServedRelation relation,
                                      SimplexId segment) const {
  return runtime_->servers[relation] && runtime_->servers[relation]->wants(segment);
}

void GaleTriangulation::offerSibling(gale::ServedRelation relation, SimplexId segment,
                                     const gale::SegmentPointer& data) const {
  if (runtime_->servers[relation])
    runtime_->servers[relation]->offer(segment, data);
}

void GaleTriangulation::endPass() const {
  runtime_->front.store(-1, std::memory_order_release);
  runtime_->pass.fetch_add(1, std::memory_order_release);
}

gale::SegmentScope::SegmentScope(const GaleTriangulation& mesh, SimplexId segment) {
  view_.owner = &mesh;
  view_.segment = segment;
  view_.begin = mesh.segmentStart_[segment];
  view_.end = mesh.segmentStart_[segment + 1];
  view_.previous = tPinnedView;
  tPinnedView = &view_;
  mesh.advanceFront(segment);
}

gale::SegmentScope::~SegmentScope() {
  tPinnedView = view_.previous;
}

std::pair<SimplexId, SimplexId> GaleTriangulation::edgeRow(SimplexId e) const {
  const SimplexId s = segmentOfNew_[edgeNew_[2 * e]];
  return {s, e - edgeOffsets_[s]};
}
std::pair<SimplexId, SimplexId> GaleTriangulation::triangleRow(SimplexId f) const {
  const SimplexId s = segmentOfNew_[triangleNew_[3 * f]];
  return {s, f - triangleOffsets_[s]};
}

SimplexId GaleTriangulation::getNumberOfEdges() const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EV | VE | EF | ET | FE | TE | BoundaryEdges);
  return edgesBuilt_ ? edgeOffsets_.back() : 0;
}
SimplexId GaleTriangulation::getNumberOfTriangles() const {
  if (dimension_ == 2)
    return numberOfCells_;
  TOPOGPU_REQUIRE_RELATION(prepared_,
                           FV | VF | EF | FE | FT | TF | TT | BoundaryTriangles);
  return trianglesBuilt_ ? triangleOffsets_.back() : 0;
}

SimplexId GaleTriangulation::getCellVertex(SimplexId c, int i) const {
  TOPOGPU_REQUIRE_INDEX(c, numberOfCells_, "cell");
  TOPOGPU_REQUIRE_INDEX(i, dimension_ + 1, "vertex index");
  return cellVertexOld(c, i);
}
SimplexId GaleTriangulation::getEdgeVertex(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EV);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  TOPOGPU_REQUIRE_INDEX(i, 2, "vertex index");
  const SimplexId a = oldOfNew_[edgeNew_[2 * e]], b = oldOfNew_[edgeNew_[2 * e + 1]];
  return (i == 0) == (a < b) ? a : b; // ascending input ids, as the explicit backend
}
// Callers read a triangle's vertices or edges a few in a row (lower stars, V-paths):
// the last triangle asked on this thread is kept, its vertices in ascending input ids
// with their new ids beside them.
const GaleTriangulation::TriangleView&
GaleTriangulation::triangleView(SimplexId f) const {
  thread_local TriangleView last;
  if (last.f != f || last.instance != instance_ || last.generation != generation_) {
    SimplexId n[3] = {triangleNew_[3 * f], triangleNew_[3 * f + 1],
                      triangleNew_[3 * f + 2]};
    SimplexId o[3] = {oldOfNew_[n[0]], oldOfNew_[n[1]], oldOfNew_[n[2]]};
    // three compare-exchanges on the input ids, the new ids carried along
    auto order = [&](int i, int j) {
      if (o[j] < o[i]) {
        std::swap(o[i], o[j]);
        std::swap(n[i], n[j]);
      }
    };
    order(0, 1);
    order(1, 2);
    order(0, 1);
    for (int k = 0; k < 3; ++k) {
      last.oldIds[k] = o[k];
      last.newIds[k] = n[k];
    }
    last.f = f;
    last.instance = instance_;
    last.generation = generation_;
  }
  return last;
}

SimplexId GaleTriangulation::getTriangleVertex(SimplexId f, int i) const {
  if (dimension_ == 2)
    return getCellVertex(f, i);
  TOPOGPU_REQUIRE_RELATION(prepared_, FV);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  TOPOGPU_REQUIRE_INDEX(i, 3, "vertex index");
  return triangleView(f).oldIds[i];
}
SimplexId GaleTriangulation::getTetVertex(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  return getCellVertex(t, i);
}
SimplexId GaleTriangulation::getTriangleEdge(SimplexId f, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FE);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  TOPOGPU_REQUIRE_INDEX(i, 3, "edge index");
  // Edge i omits vertex 2 - i of the triangle's vertex order (2D: the cell's own; 3D:
  // ascending input ids), looked up in new ids.
  static constexpr int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  SimplexId x, y;
  if (dimension_ == 2) {
    x = cellVertexNew(f, pairs[i][0]);
    y = cellVertexNew(f, pairs[i][1]);
  } else {
    const TriangleView& view = triangleView(f);
    x = view.newIds[pairs[i][0]];
    y = view.newIds[pairs[i][1]];
  }
  return findEdgeNew(std::min(x, y), std::max(x, y));
}
SimplexId GaleTriangulation::getTetEdge(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TE);
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  TOPOGPU_REQUIRE_INDEX(i, 6, "edge index");
  const SimplexId x = cellVertexNew(t, kTetEdgePairs[i][0]),
                  y = cellVertexNew(t, kTetEdgePairs[i][1]);
  return findEdgeNew(std::min(x, y), std::max(x, y));
}
SimplexId GaleTriangulation::getTetTriangle(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TF);
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  TOPOGPU_REQUIRE_INDEX(i, 4, "triangle index");
  SimplexId f[3] = {cellVertexNew(t, kTetFaces[i][0]), cellVertexNew(t, kTetFaces[i][1]),
                    cellVertexNew(t, kTetFaces[i][2])};
  sortSmall(f, 3);
  return findTriangleNew(f[0], f[1], f[2]);
}

#define TOPOGPU_GALE_ROWS(relation, rowOf)                                               \
  const auto [segment_, row_] = rowOf;                                                   \
  const gale::SegmentRelation* data_ = acquire(gale::relation, segment_)
#define TOPOGPU_GALE_VERTEX_ROWS(relation, v)                                            \
  SimplexId row_ = 0;                                                                    \
  const gale::SegmentRelation* data_ = vertexRelation(gale::relation, v, row_)

int GaleTriangulation::getVertexTriangleNumber(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VF);
  TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
  if (dimension_ == 2)
    return getVertexStarNumber(v);
  TOPOGPU_GALE_VERTEX_ROWS(kVertexTriangles, v);
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getVertexTriangle(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getVertexTriangleNumber(v), "triangle index");
  if (dimension_ == 2)
    return getVertexStar(v, i);
  TOPOGPU_GALE_VERTEX_ROWS(kVertexTriangles, v);
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getVertexTetNumber(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VT);
  TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
  return dimension_ == 3 ? getVertexStarNumber(v) : 0;
}
SimplexId GaleTriangulation::getVertexTet(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getVertexTetNumber(v), "tetrahedron index");
  return getVertexStar(v, i);
}
int GaleTriangulation::getEdgeTriangleNumber(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EF);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  TOPOGPU_GALE_ROWS(kEdgeTriangles, edgeRow(e));
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getEdgeTriangle(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getEdgeTriangleNumber(e), "triangle index");
  TOPOGPU_GALE_ROWS(kEdgeTriangles, edgeRow(e));
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getEdgeTetNumber(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, ET);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  if (dimension_ != 3)
    return 0;
  TOPOGPU_GALE_ROWS(kEdgeTets, edgeRow(e));
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getEdgeTet(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getEdgeTetNumber(e), "tetrahedron index");
  TOPOGPU_GALE_ROWS(kEdgeTets, edgeRow(e));
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getTriangleTetNumber(SimplexId f) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FT);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  if (dimension_ != 3)
    return 0;
  TOPOGPU_GALE_ROWS(kTriangleTets, triangleRow(f));
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getTriangleTet(SimplexId f, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getTriangleTetNumber(f), "tetrahedron index");
  TOPOGPU_GALE_ROWS(kTriangleTets, triangleRow(f));
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getTetNeighborNumber(SimplexId t) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TT);
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  if (dimension_ != 3)
    return 0;
  const SimplexId k = findInternalCell(t);
  const SimplexId s = segmentOfNew_[sortedNewCell(t)[0]];
  return acquire(gale::kTetNeighbors, s)->rows.size(k - internalOffsets_[s]);
}
SimplexId GaleTriangulation::getTetNeighbor(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getTetNeighborNumber(t), "neighbour index");
  const SimplexId k = findInternalCell(t);
  const SimplexId s = segmentOfNew_[sortedNewCell(t)[0]];
  return acquire(gale::kTetNeighbors, s)->rows.at(k - internalOffsets_[s], i);
}

bool GaleTriangulation::isEdgeOnBoundary(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryEdges);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  TOPOGPU_GALE_ROWS(kBoundaryFlags, edgeRow(e));
  return data_->edgeFlags[row_] != 0;
}
bool GaleTriangulation::isTriangleOnBoundary(SimplexId f) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryTriangles);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  if (dimension_ != 3)
    return false;
  TOPOGPU_GALE_ROWS(kBoundaryFlags, triangleRow(f));
  return data_->triangleFlags[row_] != 0;
}

#undef TOPOGPU_GALE_ROWS
#undef TOPOGPU_GALE_VERTEX_ROWS

} // namespace topogpu
