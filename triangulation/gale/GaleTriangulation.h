// GALE (Liu, Randall, Ge, Iuricich): a localized triangulation of a triangle or tet
// mesh. Vertices are segmented by a PR octree (at most N per leaf) and renumbered so each
// segment is a contiguous range; boundary relations (EV FV FE TV TE TF) are computed by
// the caller on the spot, and coboundary / adjacency relations (VV VE VF VT EF ET FT TT,
// boundary flags) are computed per segment on request by one leader-producer thread per
// relation, kept in a bounded cache. The renumbering is internal: every accessor takes
// and returns the input's ids, with the same meaning as ExplicitTriangulation's
// (docs/triangulation.md, "GALE").
#pragma once

#include "core/common/Types.h"
#include "triangulation/Relations.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topogpu {

class GaleTriangulation;

namespace gale {

// What a producer computes, one kind per request queue.
enum ServedRelation : int {
  kVertexNeighbors, // VV, rows ascending by input id
  kVertexEdges,     // VE, parallel to VV's rows
  kVertexTriangles, // VF in 3D (in 2D VF is the star)
  kVertexStar,      // VT in 3D, VF in 2D
  kEdgeTriangles,   // EF
  kEdgeTets,        // ET
  kTriangleTets,    // FT
  kTetNeighbors,    // TT, rows of the segment's internal tets
  kBoundaryFlags,   // vertices, edges, triangles of the segment
  kServedRelationCount
};
const char* servedRelationName(int relation);

enum class ProducerKind {
  Cpu, // the relations computed on the CPU by the leader (ACTOPO-like mode)
  Gpu, // a CUDA producer (cuda/gale); falls back to Cpu with a warning when missing
};

struct Parameters {
  SimplexId segmentCapacity = 100; // N: most vertices in an octree leaf (segment)
  // Segments computed per request: the requested one and the following ones (the
  // paper's n_b * t_b / t_s); 1 disables the precomputation.
  int segmentsPerRequest = 8;
  int cacheSegments = 8192; // segments kept per relation (least recently used evicted)
  std::size_t cacheBytes = std::size_t(1) << 30; // per relation; 0 = no byte cap
  ProducerKind producer = ProducerKind::Cpu;
};

// One segment's rows of one relation, in input ids: row r belongs to the r-th simplex
// of the segment (vertex, edge, triangle or internal tet, in GALE's numbering).
struct SegmentRelation {
  CompressedRows rows;
  // kBoundaryFlags only: one byte per vertex, edge and triangle of the segment.
  std::vector<std::uint8_t> vertexFlags, edgeFlags, triangleFlags;
  std::size_t bytes() const;
};
using SegmentPointer = std::shared_ptr<const SegmentRelation>;

// Computes a batch of segments of one relation; called by the relation's leader thread
// only. A GPU producer implements the same interface. Throwing fails every consumer
// waiting on the batch (and later requests of that relation) with the error.
class SegmentProducer {
public:
  virtual ~SegmentProducer() = default;
  virtual std::string name() const = 0;
  virtual void compute(const GaleTriangulation& mesh, ServedRelation relation,
                       const std::vector<SimplexId>& segments,
                       std::vector<SegmentPointer>& out) = 0;
  // What went wrong but was handled (a GPU failure and the switch to the CPU).
  virtual std::vector<std::string> warnings() const { return {}; }
};

// Rows from (row, value) pairs, each row sorted and without duplicates (producers).
CompressedRows rowsFromPairs(std::vector<std::pair<SimplexId, SimplexId>>& pairs,
                             SimplexId rowCount, SimplexId maxValue);

// The CPU producer (one segment per task, the batch in parallel on TBB).
std::shared_ptr<SegmentProducer> makeCpuProducer();
// The CPU computation of one segment, shared by the CPU producer and the tests.
SegmentPointer computeSegmentCpu(const GaleTriangulation& mesh, ServedRelation relation,
                                 SimplexId segment);

struct Statistics {
  double initializationSeconds =
      0;                          // segmentation, cells per segment, edge/triangle lists
  double consumerWaitSeconds = 0; // summed over consumer threads
  std::uint64_t requests = 0;     // queue round trips (consumer cache misses)
  std::uint64_t batches = 0;      // leader wake-ups
  std::uint64_t segmentsComputed = 0;
  std::size_t peakCacheBytes = 0; // all relations together
};

class RelationServer;

} // namespace gale

class GaleTriangulation {
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
  ~GaleTriangulation();
  // The leader threads point at this object: neither copied nor moved (hold it by
  // pointer, as AnyTriangulation does).
  GaleTriangulation(GaleTriangulation&&) = delete;
  GaleTriangulation(const GaleTriangulation&) = delete;
  GaleTriangulation& operator=(const GaleTriangulation&) = delete;

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

  int getVertexNeighborNumber(SimplexId v) const;
  SimplexId getVertexNeighbor(SimplexId v, int i) const;
  int getVertexEdgeNumber(SimplexId v) const;
  SimplexId getVertexEdge(SimplexId v, int i) const;
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
  int getVertexStarNumber(SimplexId v) const;
  SimplexId getVertexStar(SimplexId v, int i) const;
  void getVertexStarVertices(SimplexId v, int i, SimplexId* vertices) const;

  bool isVertexOnBoundary(SimplexId v) const;
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

  // ---- GALE internals: producers, tests, statistics ----
  SimplexId getNumberOfSegments() const { return SimplexId(segmentStart_.size()) - 1; }
  // Vertices of segment s are the new ids [segmentStart(s), segmentStart(s + 1)).
  SimplexId segmentStart(SimplexId s) const { return segmentStart_[s]; }
  SimplexId segmentOfVertex(SimplexId v) const { return segmentOfNew_[newOfOld_[v]]; }
  SimplexId segmentOfNewVertex(SimplexId n) const { return segmentOfNew_[n]; }
  SimplexId newId(SimplexId v) const { return newOfOld_[v]; }
  SimplexId oldId(SimplexId n) const { return oldOfNew_[n]; }
  // Cells whose lowest (new) vertex is in s, sorted by their sorted new-id tuple; cells
  // touching s otherwise (ascending ids).
  SimplexId internalCellBegin(SimplexId s) const { return internalOffsets_[s]; }
  SimplexId internalCell(SimplexId k) const { return internalCells_[k]; }
  SimplexId externalCellBegin(SimplexId s) const { return externalOffsets_[s]; }
  SimplexId externalCell(SimplexId k) const { return externalCells_[k]; }
  // The cell's vertices in new ids, ascending.
  std::array<SimplexId, 4> sortedNewCell(SimplexId c) const;
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
  bool edgesBuilt() const { return edgesBuilt_; }
  bool trianglesBuilt() const { return trianglesBuilt_; }

  const gale::Parameters& parameters() const { return parameters_; }
  gale::Statistics statistics() const;
  // What the producer selection said (e.g. the GPU fallback) and what the producer
  // reported since (a GPU failure); empty when nothing.
  std::vector<std::string> warnings() const;
  std::string producerName() const;
  // Bytes of the segmentation, cell lists, edge/triangle lists and the caches now.
  std::size_t memoryBytes() const;

private:
  friend class gale::RelationServer;
  struct Unchecked {};
  GaleTriangulation(Unchecked, const ExplicitTriangulation& mesh,
                    const std::vector<double>& points, const gale::Parameters& parameters,
                    std::shared_ptr<gale::SegmentProducer> producer);
  void checkParameters(const std::vector<double>& points) const;
  void initialize(std::vector<SimplexId>& cellVertices, const std::vector<double>& points,
                  std::shared_ptr<gale::SegmentProducer> producer);
  void finishInitialization(const std::vector<double>& points,
                            std::shared_ptr<gale::SegmentProducer> producer);
  void buildSegments(const std::vector<double>& points);
  void buildCellLists();
  void buildEdges();
  void buildTriangles();
  const gale::SegmentRelation* acquire(gale::ServedRelation relation,
                                       SimplexId segment) const;
  void startServer(gale::ServedRelation relation);
  // Segment and row of vertex / edge / triangle / internal tet.
  std::pair<SimplexId, SimplexId> vertexRow(SimplexId v) const;
  std::pair<SimplexId, SimplexId> edgeRow(SimplexId e) const;
  std::pair<SimplexId, SimplexId> triangleRow(SimplexId f) const;
  SimplexId cellVertexOld(SimplexId c, int i) const {
    return cells_[c * (dimension_ + 1) + i];
  }

  int dimension_;
  SimplexId numberOfVertices_;
  SimplexId numberOfCells_ = 0;
  gale::Parameters parameters_;
  std::uint64_t instance_; // tells this object's thread-local handles from others'
  std::uint64_t generation_ = 0;
  Relations prepared_ = 0;

  IdArray cells_;               // input connectivity, input ids
  IdArray newOfOld_, oldOfNew_; // the renumbering, both ways
  IdArray segmentOfNew_;
  std::vector<SimplexId> segmentStart_; // I_V
  IdArray internalCells_, externalCells_;
  std::vector<SimplexId> internalOffsets_, externalOffsets_; // I_T
  bool edgesBuilt_ = false, trianglesBuilt_ = false;
  IdArray edgeNew_, triangleNew_;                        // new ids, ascending per simplex
  std::vector<SimplexId> edgeOffsets_, triangleOffsets_; // I_E, I_F

  std::shared_ptr<gale::SegmentProducer> producer_;
  std::array<std::unique_ptr<gale::RelationServer>, gale::kServedRelationCount> servers_;
  std::vector<std::string> warnings_;
  double initializationSeconds_ = 0;
  mutable std::atomic<SimplexId> nonManifoldFacets_{-1};
};

} // namespace topogpu
