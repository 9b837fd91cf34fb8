// GALE (Liu, Randall, Ge, Iuricich): a localized triangulation of a triangle or tet
// mesh. Vertices are segmented by a PR octree (at most N per leaf) and renumbered so each
// segment is a contiguous range; boundary relations (EV FV FE TV TE TF) are computed by
// the caller on the spot, and coboundary / adjacency relations (VV VE VF VT EF ET FT TT,
// boundary flags) are computed per segment on request by one leader-producer thread per
// relation, kept in a bounded cache. The renumbering is internal: every accessor takes
// and returns the input's ids, with the same meaning as ExplicitTriangulation's
// (docs/triangulation.md, "GALE").
#pragma once

#include "base/Types.h"
#include "triangulation/Relations.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleParameters.h"
#include "triangulation/gale/GpuProducerFactory.h"
#include "triangulation/gale/SegmentProducer.h"
#include "triangulation/gale/detail/GaleLayout.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topogpu {

class GaleTriangulation;

namespace gale {

namespace detail {
struct Runtime;
} // namespace detail

// A segment's relations pinned for one task of GaleTriangulation::parallelForSegments:
// accessors on its vertices read them without any lookup.
struct PinnedView {
  const GaleTriangulation* owner = nullptr;
  SimplexId segment = -1, begin = 0, end = 0; // new ids [begin, end)
  std::array<SegmentPointer, kServedRelationCount> data;
  PinnedView* previous = nullptr;
};

// This thread's innermost pinned segment (null outside a segment-order loop's task).
inline thread_local PinnedView* tPinnedView = nullptr;

class SegmentScope {
public:
  SegmentScope(const GaleTriangulation& mesh, SimplexId segment);
  ~SegmentScope();
  SegmentScope(const SegmentScope&) = delete;
  SegmentScope& operator=(const SegmentScope&) = delete;

private:
  PinnedView view_;
};

class RelationServer;

} // namespace gale

class GaleTriangulation : private gale::detail::Layout {
public:
  // cellDimension 2 (triangles) or 3 (tets), cells as ExplicitTriangulation takes them
  // (validated the same way: same errors). points: x y z per vertex for the octree; empty
  // means no geometry (segments are then runs of N consecutive input ids).
  GaleTriangulation(SimplexId numberOfVertices, int cellDimension,
                    std::vector<SimplexId> cellVertices,
                    const std::vector<double>& points,
                    const gale::Parameters& parameters = {},
                    std::shared_ptr<gale::SegmentProducer> producer = nullptr);
  // GALE over the cells of an explicit mesh (already validated: not checked again), for
  // the adaptor, the CLI and the tests; the explicit object may be dropped after.
  static std::shared_ptr<GaleTriangulation>
  fromExplicit(const ExplicitTriangulation& mesh, const std::vector<double>& points,
               const gale::Parameters& parameters = {},
               std::shared_ptr<gale::SegmentProducer> producer = nullptr);
  // GALE over 32-bit cells taken without a copy (validated as the explicit backend
  // does): the CLI's path, so that no explicit mesh is held beside it. The points are
  // taken too and freed once segmented (pass them with std::move).
  static std::shared_ptr<GaleTriangulation>
  fromCells32(SimplexId numberOfVertices, int cellDimension,
              std::vector<std::int32_t> cellVertices, std::vector<double> points,
              const gale::Parameters& parameters = {},
              std::shared_ptr<gale::SegmentProducer> producer = nullptr);
  ~GaleTriangulation();
  // The leader threads point at this object: neither copied nor moved (hold it by
  // pointer, as AnyTriangulation does).
  GaleTriangulation(GaleTriangulation&&) = delete;
  GaleTriangulation(const GaleTriangulation&) = delete;
  GaleTriangulation& operator=(const GaleTriangulation&) = delete;

  // getEdgeVertex / getTriangleVertex answer in ascending input ids, as the explicit
  // backend (core/common/TriangulationTraits.h SimplexVerticesAscending).
  static constexpr bool kSimplexVerticesAscending = true;

  int getDimension() const { return dimension_; }
  // Enumerates the edge / triangle lists the relations need and starts one leader thread
  // per coboundary relation asked for. Not thread-safe; call before parallel loops.
  void precondition(Relations relations);

  SimplexId getNumberOfVertices() const { return numberOfVertices_; }
  SimplexId getNumberOfEdges() const;
  SimplexId getNumberOfTriangles() const;
  SimplexId getNumberOfTets() const { return dimension_ == 3 ? numberOfCells_ : 0; }
  SimplexId getNumberOfCells() const { return numberOfCells_; }
  int getCellVertexNumber() const { return dimension_ + 1; }

  SimplexId getCellVertex(SimplexId c, int i) const;
  SimplexId getEdgeVertex(SimplexId e, int i) const;
  SimplexId getTriangleVertex(SimplexId f, int i) const;
  SimplexId getTetVertex(SimplexId t, int i) const;
  SimplexId getTriangleEdge(SimplexId f, int i) const;
  SimplexId getTetEdge(SimplexId t, int i) const;
  SimplexId getTetTriangle(SimplexId t, int i) const;

  // The vertex relations a segment-order loop reads per vertex are inline: on the
  // task's pinned segment they are plain indexing.
  int getVertexNeighborNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VV);
    return vertexRowSize(gale::kVertexNeighbors, v);
  }
  SimplexId getVertexNeighbor(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexNeighborNumber(v), "neighbour index");
    return vertexRowEntry(gale::kVertexNeighbors, v, i);
  }
  int getVertexEdgeNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VE);
    return vertexRowSize(gale::kVertexEdges, v);
  }
  SimplexId getVertexEdge(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexEdgeNumber(v), "edge index");
    return vertexRowEntry(gale::kVertexEdges, v, i);
  }
  int getVertexTriangleNumber(SimplexId v) const;
  SimplexId getVertexTriangle(SimplexId v, int i) const;
  int getVertexTetNumber(SimplexId v) const;
  SimplexId getVertexTet(SimplexId v, int i) const;
  int getEdgeTriangleNumber(SimplexId e) const;
  SimplexId getEdgeTriangle(SimplexId e, int i) const;
  int getEdgeTetNumber(SimplexId e) const;
  SimplexId getEdgeTet(SimplexId e, int i) const;
  int getTriangleTetNumber(SimplexId f) const;
  SimplexId getTriangleTet(SimplexId f, int i) const;
  int getTetNeighborNumber(SimplexId t) const;
  SimplexId getTetNeighbor(SimplexId t, int i) const;
  int getVertexStarNumber(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, VertexStar);
    return vertexRowSize(gale::kVertexStar, v);
  }
  SimplexId getVertexStar(SimplexId v, int i) const {
    TOPOGPU_REQUIRE_INDEX(i, getVertexStarNumber(v), "star index");
    return vertexRowEntry(gale::kVertexStar, v, i);
  }
  void getVertexStarVertices(SimplexId v, int i, SimplexId* vertices) const {
    const SimplexId cell = getVertexStar(v, i);
    for (int k = 0; k <= dimension_; ++k)
      vertices[k] = cellVertexOld(cell, k);
  }

  bool isVertexOnBoundary(SimplexId v) const {
    TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryVertices);
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    SimplexId row = 0;
    return vertexRows(gale::kBoundaryFlags, v, row)->vertexFlags[std::size_t(row)] != 0;
  }
  bool isEdgeOnBoundary(SimplexId e) const;
  bool isTriangleOnBoundary(SimplexId f) const;

  SimplexId findEdge(SimplexId a, SimplexId b) const;
  SimplexId findTriangle(SimplexId a, SimplexId b, SimplexId c) const;

  // Facets in more than two cells, counted per segment on first call (thread-safe);
  // needs BoundaryVertices.
  SimplexId getNumberOfNonManifoldFacets() const;

  // The vertices in segment order (input ids): algorithms that visit vertices in this
  // order hit each segment's relations while they are cached.
  SimplexId getVertexInProcessingOrder(SimplexId position) const {
    return oldOfNew_[position];
  }

  // The segment-order loop (core/common/TriangulationTraits.h parallelForVertexBlocks
  // calls it): body(firstPosition, lastPosition) once per segment overlapping the
  // processing positions [first, last), in parallel; segments are handed out in order
  // (an atomic ticket), so the consumers advance as one front that the leaders compute
  // ahead of, and each task's segment relations are pinned (read by plain indexing).
  template <typename Body>
  void parallelForSegments(SimplexId first, SimplexId last, Body&& body) const {
    if (first >= last)
      return;
    const SimplexId s0 = segmentOfNew_[first], s1 = segmentOfNew_[last - 1] + 1;
    std::atomic<SimplexId> next{s0};
    const int workers = int(std::min<SimplexId>(
        s1 - s0, std::max(1, tbb::this_task_arena::max_concurrency())));
    struct EndPass {
      const GaleTriangulation& mesh;
      ~EndPass() { mesh.endPass(); }
    } endPass{*this};
    tbb::parallel_for(0, workers, [&](int) {
      for (SimplexId s; (s = next.fetch_add(1, std::memory_order_relaxed)) < s1;) {
        gale::SegmentScope scope(*this, s);
        body(std::max(first, segmentStart_[s]), std::min(last, segmentStart_[s + 1]));
      }
    });
  }

  // ---- GALE internals: producers, tests, statistics ----
  SimplexId getNumberOfSegments() const { return SimplexId(segmentStart_.size()) - 1; }
  // The cell's vertices in new ids, in the input's order.
  SimplexId cellVertexNew(SimplexId c, int i) const {
    return cells_[c * (dimension_ + 1) + i];
  }
  // The arrays themselves, for a producer's upload: cells in new ids, the renumbering
  // (new -> input), the cell lists (positions from internalCellBegin /
  // externalCellBegin).
  const IdArray& newCells() const { return cells_; }
  const IdArray& oldIds() const { return oldOfNew_; }
  const IdArray& newIds() const { return newOfOld_; }
  const IdArray& segmentOfNewVertices() const { return segmentOfNew_; }
  const IdArray& internalCells() const { return internalCells_; }
  const IdArray& externalCells() const { return externalCells_; }
  // Vertices of segment s are the new ids [segmentStart(s), segmentStart(s + 1)).
  SimplexId segmentStart(SimplexId s) const { return segmentStart_[s]; }
  SimplexId segmentOfVertex(SimplexId v) const { return segmentOfNew_[newOfOld_[v]]; }
  SimplexId segmentOfNewVertex(SimplexId n) const { return segmentOfNew_[n]; }
  SimplexId newId(SimplexId v) const { return newOfOld_[v]; }
  SimplexId oldId(SimplexId n) const { return oldOfNew_[n]; }
  // Cells whose lowest (new) vertex is in s (by id; by their sorted new-id tuple in 2D
  // and once TT is preconditioned); cells touching s otherwise (ascending ids).
  SimplexId internalCellBegin(SimplexId s) const { return internalOffsets_[s]; }
  SimplexId internalCell(SimplexId k) const { return internalCells_[k]; }
  SimplexId externalCellBegin(SimplexId s) const { return externalOffsets_[s]; }
  SimplexId externalCell(SimplexId k) const { return externalCells_[k]; }
  // The cell's vertices in new ids, ascending.
  // (Inline: the producers' hot spot, a cell's tuple read for every touching cell.)
  std::array<SimplexId, 4> sortedNewCell(SimplexId c) const {
    std::array<SimplexId, 4> t{0, 0, 0, std::numeric_limits<SimplexId>::max()};
    if (tets32_ != nullptr) {
      const std::int32_t* p = tets32_ + std::size_t(c) * 4;
      t = {p[0], p[1], p[2], p[3]};
    } else {
      const std::size_t at = std::size_t(c) * (dimension_ + 1);
      for (int k = 0; k <= dimension_; ++k)
        t[k] = cells_[at + k];
    }
    // A min/max sorting network (branch-free: cell tuples are in random order); in 2D
    // t[3] is the maximum and stays last.
    auto order = [&](int i, int j) {
      const SimplexId lo = std::min(t[i], t[j]), hi = std::max(t[i], t[j]);
      t[i] = lo;
      t[j] = hi;
    };
    order(0, 1);
    order(2, 3);
    order(0, 2);
    order(1, 3);
    order(1, 2);
    return t;
  }
  // Edges of segment s: [edgeBegin(s), edgeBegin(s + 1)), ordered by (low, high) new id.
  SimplexId edgeBegin(SimplexId s) const { return edgeOffsets_[s]; }
  SimplexId triangleBegin(SimplexId s) const { return triangleOffsets_[s]; }
  SimplexId newEdgeVertex(SimplexId e, int i) const { return edgeNew_[2 * e + i]; }
  SimplexId newTriangleVertex(SimplexId f, int i) const {
    return triangleNew_[3 * f + i];
  }
  SimplexId findEdgeNew(SimplexId lo, SimplexId hi) const; // lo < hi, new ids
  SimplexId findTriangleNew(SimplexId a, SimplexId b, SimplexId c) const; // ascending
  SimplexId findInternalCell(SimplexId c) const; // position in the internal list
  // Whether each segment's internal cells are in ascending id order (else by tuple).
  bool internalCellsById() const { return !internalByTuple_; }
  bool edgesBuilt() const { return edgesBuilt_; }
  // The host's cell lists (internalCell, externalCell) exist from here on.
  void ensureHostCellLists() const;
  // BoundaryEdges / BoundaryTriangles when preconditioned: the boundary flags' segments
  // then carry the edge / triangle flags too.
  Relations boundaryFlagsWanted() const;
  bool trianglesBuilt() const { return trianglesBuilt_; }

  // CPU producers on a consumer: whether the relation's cache takes segment s computed
  // along with a sibling relation (consumers compute it, nobody has it), and the offer.
  bool siblingWanted(gale::ServedRelation relation, SimplexId segment) const;
  // The relation's segment if its cache holds it now (no request), else null.
  gale::SegmentPointer cachedSegment(gale::ServedRelation relation,
                                     SimplexId segment) const;
  void offerSibling(gale::ServedRelation relation, SimplexId segment,
                    const gale::SegmentPointer& data) const;

  const gale::Parameters& parameters() const { return parameters_; }
  gale::Statistics statistics() const;
  // What the producer selection said (e.g. the GPU fallback) and what the producer
  // reported since (a GPU failure); empty when nothing.
  std::vector<Warning> warnings() const;
  std::string producerName() const;
  // Bytes of the segmentation, cell lists, edge/triangle lists and the caches now.
  std::size_t memoryBytes() const;

private:
  friend class gale::RelationServer;
  friend class gale::SegmentScope;
  struct Unchecked {};
  struct Cells32 {};
  GaleTriangulation(Cells32, SimplexId numberOfVertices, int cellDimension,
                    std::vector<std::int32_t>& cellVertices, std::vector<double>& points,
                    const gale::Parameters& parameters,
                    std::shared_ptr<gale::SegmentProducer> producer);
  GaleTriangulation(Unchecked, const ExplicitTriangulation& mesh,
                    const std::vector<double>& points, const gale::Parameters& parameters,
                    std::shared_ptr<gale::SegmentProducer> producer);
  void checkParameters(const std::vector<double>& points) const;
  void startGpuContext(bool producerGiven);
  const gale::GpuProducerFactory* gpuFactory(bool producerGiven) const;
  void initialize(std::vector<SimplexId>& cellVertices, const std::vector<double>& points,
                  std::shared_ptr<gale::SegmentProducer> producer);
  // Segments (unless done already), cells in new ids, cell lists, the producer.
  void finishInitialization(const std::vector<double>& points,
                            std::shared_ptr<gale::SegmentProducer> producer);
  void buildSegments(const std::vector<double>& points);
  void buildCellLists(std::vector<SimplexId>& internalOffsets,
                      std::vector<SimplexId>& externalOffsets, IdArray& internalCells,
                      IdArray& externalCells) const;
  void sortInternalByTuple();
  void buildEdgesAndTriangles(bool edges, bool triangles);
  void buildTrianglesWide(); // ids of 2^31 and beyond
  void indexByLowestVertex(const IdArray& simplices, int arity,
                           const std::vector<SimplexId>& offsets, IdArray& first) const;
  SimplexId internalLowerBound(SimplexId s, const std::array<SimplexId, 4>& key) const;
  const gale::SegmentRelation* acquire(gale::ServedRelation relation,
                                       SimplexId segment) const;
  // The rows of vertex v's segment (pinned when v is in this thread's pinned segment).
  const gale::SegmentRelation* vertexRelation(gale::ServedRelation relation, SimplexId v,
                                              SimplexId& row) const;
  // Its inline fast path: the pinned segment's rows already fetched.
  const gale::SegmentRelation* vertexRows(gale::ServedRelation relation, SimplexId v,
                                          SimplexId& row) const {
    const gale::PinnedView* view = gale::tPinnedView;
    if (view != nullptr && view->owner == this) {
      const SimplexId n = newOfOld_[v];
      if (n >= view->begin && n < view->end && view->data[relation]) {
        row = n - view->begin;
        return view->data[relation].get();
      }
    }
    return vertexRelation(relation, v, row);
  }
  // The size and the i-th entry of vertex v's row of a row relation (VV, VE, star).
  int vertexRowSize(gale::ServedRelation relation, SimplexId v) const {
    TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
    SimplexId row = 0;
    return vertexRows(relation, v, row)->rows.size(row);
  }
  SimplexId vertexRowEntry(gale::ServedRelation relation, SimplexId v, int i) const {
    SimplexId row = 0;
    return vertexRows(relation, v, row)->rows.at(row, i);
  }
  void advanceFront(SimplexId segment) const;
  void endPass() const;
  void startServer(gale::ServedRelation relation);
  // Segment and row of edge / triangle.
  std::pair<SimplexId, SimplexId> edgeRow(SimplexId e) const;
  std::pair<SimplexId, SimplexId> triangleRow(SimplexId f) const;
  // A triangle's vertices (3D) in ascending input ids and their new ids, kept per
  // thread for the last triangle asked (getTriangleVertex, getTriangleEdge).
  struct TriangleView {
    std::uint64_t instance = 0, generation = 0;
    SimplexId f = -1;
    SimplexId oldIds[3] = {0, 0, 0}, newIds[3] = {0, 0, 0};
  };
  const TriangleView& triangleView(SimplexId f) const;
  SimplexId cellVertexOld(SimplexId c, int i) const {
    return oldOfNew_[cells_[c * (dimension_ + 1) + i]];
  }

  // What the inline accessors read is here and in the arrays of the private base
  // (detail/GaleLayout.h); the relations' machinery is behind runtime_
  // (detail/GaleRuntime.h).
  int dimension_;
  SimplexId numberOfVertices_;
  SimplexId numberOfCells_ = 0;
  gale::Parameters parameters_;
  std::uint64_t instance_; // tells this object's thread-local handles from others'
  std::uint64_t generation_ = 0;
  Relations prepared_ = 0;
  std::unique_ptr<gale::detail::Runtime> runtime_;
};

} // namespace topogpu
