// GALE's producers (section 4.2): what a producer computes (one relation of a batch of
// segments, in input ids), the interface the relation servers call, the traits they
// plan with, and the CPU producer. cuda/gale implements the GPU producer.
#pragma once

#include "base/Types.h"
#include "base/Warning.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <array>
#include <cstdint>
#include <functional>
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

// One segment's rows of one relation, in input ids: row r belongs to the r-th simplex
// of the segment (vertex, edge, triangle or internal tet, in GALE's numbering).
struct SegmentRelation {
  CompressedRows rows;
  // kBoundaryFlags only: one byte per vertex, edge and triangle of the segment.
  std::vector<std::uint8_t> vertexFlags, edgeFlags, triangleFlags;
  SimplexId nonManifoldFacets =
      0; // kBoundaryFlags: facets (lowest vertex here) in > 2 cells
  std::size_t bytes() const;
};
using SegmentPointer = std::shared_ptr<const SegmentRelation>;

// What the relation servers plan with, as the producer reports it (its name is for
// reports only).
struct ProducerTraits {
  // Computes off the CPU: its requests come in large pipelined batches, and nothing on
  // the host needs the cell lists for it at construction.
  bool onDevice = false;
  // Segments per request when Parameters::segmentsPerRequest is 0.
  int segmentsPerRequest = 16;
};

// Computes a batch of segments of one relation; called by the relation's leader thread
// (and by consumers for one segment when consumersMayCompute(relation)). A GPU producer
// implements the same interface. Throwing fails every consumer
// waiting on the batch (and later requests of that relation) with the error.
class SegmentProducer {
public:
  virtual ~SegmentProducer() = default;
  virtual std::string name() const = 0;
  virtual ProducerTraits traits() const { return {}; }
  virtual void compute(const GaleTriangulation& mesh, ServedRelation relation,
                       const std::vector<SimplexId>& segments,
                       std::vector<SegmentPointer>& out) = 0;
  // The leader's call: as compute, and a producer that finishes a batch in parts may
  // call ready(first, last) once out[first, last) is filled, so that those segments
  // are handed out before the rest (each segment is handed out once).
  using Ready = std::function<void(std::size_t first, std::size_t last)>;
  virtual void computeStreaming(const GaleTriangulation& mesh, ServedRelation relation,
                                const std::vector<SimplexId>& segments,
                                std::vector<SegmentPointer>& out, const Ready& ready) {
    (void)ready;
    compute(mesh, relation, segments, out);
  }
  // The per-segment cell lists (I_T) when the producer built them (the GPU producer in
  // 3D), for the host's first CPU computation; false when it has none.
  virtual bool downloadCellLists(IdArray& internal, IdArray& external) {
    (void)internal;
    (void)external;
    return false;
  }
  // The edge and/or triangle lists (vertex tuples, new ids ascending, sorted; offsets
  // per segment) when the producer builds them (the GPU producer); false when not.
  virtual bool buildSimplexLists(bool edges, bool triangles, IdArray& edgeVertices,
                                 std::vector<SimplexId>& edgeOffsets,
                                 IdArray& triangleVertices,
                                 std::vector<SimplexId>& triangleOffsets) {
    (void)edges, (void)triangles, (void)edgeVertices, (void)edgeOffsets;
    (void)triangleVertices, (void)triangleOffsets;
    return false;
  }
  // Whether the producer computes this relation's segments off the CPU (the GPU
  // producer's VV, star, VE and vertex flags): then nothing on the host reads the cell
  // lists for it.
  virtual bool servesOnDevice(ServedRelation relation) const {
    (void)relation;
    return false;
  }
  // What went wrong but was handled (a GPU failure and the switch to the CPU).
  virtual std::vector<Warning> warnings() const { return {}; }
  // Whether a consumer thread may call compute() itself for one segment of this
  // relation it misses (work sharing): only where compute() is thread-safe and never
  // waits on anything (the CPU producer; the GPU one for the relations it hands to the
  // CPU) the answer is yes.
  virtual bool consumersMayCompute(ServedRelation) const { return false; }
  // Called on a consumer that computed segment s of `relation` itself, once it is
  // published: the producer may compute the segment's sibling relations from what that
  // thread just read and offer them (GaleTriangulation::offerSibling). Never throws.
  virtual void computeSiblings(const GaleTriangulation&, ServedRelation, SimplexId) {}
  // The producer's own split of its time (seconds): preparation, kernel and copies,
  // integration (the paper's figure 10); zeros when it does not measure them.
  virtual std::array<double, 3> stageSeconds() const { return {0, 0, 0}; }
};

// Rows from (row, value) pairs, each row sorted and without duplicates (producers).
CompressedRows rowsFromPairs(std::vector<std::pair<SimplexId, SimplexId>>& pairs,
                             SimplexId rowCount, SimplexId maxValue);

// The CPU producer (one segment per task, the batch in parallel on TBB).
std::shared_ptr<SegmentProducer> makeCpuProducer();
// The CPU computation of one segment, shared by the CPU producer and the tests.
SegmentPointer computeSegmentCpu(const GaleTriangulation& mesh, ServedRelation relation,
                                 SimplexId segment);

} // namespace gale

} // namespace topogpu
