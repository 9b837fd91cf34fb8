// GALE's GPU producer (GaleGpu.h): the mesh held on the device (GaleGpuMesh.cu: cells,
// I_T's cell lists, the boundary flags, the I_E/I_F lists) and the relations of batches
// of segments computed there, launch by launch, each handed out as it comes back
// (GaleGpuLaunch.cu). cuda/gale's own: the front ends reach it through the factory.
#pragma once

#include "GaleDeviceBuffers.cuh"

#include "triangulation/gale/GaleTriangulation.h"

#include <cub/util_type.cuh>
#include <thrust/device_vector.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace topogpu::gpu::galegpu {

class GpuProducer : public gale::SegmentProducer {
public:
  // The first part of the setup (GaleTriangulation runs it on a thread of its own): the
  // cells in new ids (renumbered here when they were uploaded during the host's checks),
  // the renumbering, the cell lists and star sizes, and every vertex's boundary flag.
  GpuProducer(const GaleTriangulation& mesh, thrust::device_vector<int>* inputCells);

  // I_T on the device, the host's lists (each cell placed by gale::cellSegments): per
  // segment, its internal and its external cells by ascending id (stable radix sorts of
  // the cells' segments), and every vertex's star size (the rows' capacities).
  void buildCellLists(const GaleTriangulation& mesh);

  // The cell lists for the host (GaleTriangulation fetches them when a CPU computation
  // first needs them); false when the device no longer has them.
  bool downloadCellLists(IdArray& internal, IdArray& external) override;

  // The edge and triangle lists (I_E, I_F) as GaleTriangulation builds them: each
  // simplex's vertices ascending (new ids), all sorted, so a segment's simplices (those
  // whose lowest vertex is in it) are contiguous, ordered by their tuples.
  bool buildSimplexLists(bool edges, bool triangles, IdArray& edgeVertices,
                         std::vector<SimplexId>& edgeOffsets, IdArray& triangleVertices,
                         std::vector<SimplexId>& triangleOffsets) override;

  const std::vector<long long>& internalOffsets() const { return internalOffsets_; }
  const std::vector<long long>& externalOffsets() const { return externalOffsets_; }

  // The second part: the launch slots' streams and events.
  void createLaunchSlots();

  std::string name() const override { return disabled_ ? "gpu (failed: cpu)" : "gpu"; }
  gale::ProducerTraits traits() const override {
    gale::ProducerTraits traits;
    traits.onDevice = !disabled_;
    traits.segmentsPerRequest = 512; // several launches, pipelined
    return traits;
  }

  std::vector<Warning> warnings() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return warnings_;
  }

  // The relations the device does not compute go to the CPU producer, which consumers
  // may run themselves.
  bool servesOnDevice(gale::ServedRelation relation) const override {
    return !disabled_ && (onDevice(relation) || boundaryFromDevice(relation));
  }
  bool consumersMayCompute(gale::ServedRelation relation) const override {
    return !onDevice(relation) && !boundaryFromDevice(relation);
  }
  void computeSiblings(const GaleTriangulation& mesh, gale::ServedRelation relation,
                       SimplexId segment) override {
    if (!onDevice(relation) && !boundaryFromDevice(relation))
      cpu_->computeSiblings(mesh, relation, segment);
  }

  std::array<double, 3> stageSeconds() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return seconds_;
  }

  void compute(const GaleTriangulation& mesh, gale::ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<gale::SegmentPointer>& out) override {
    run(mesh, relation, segments, out, nullptr);
  }
  // Each launch's segments handed out as soon as they are back.
  void computeStreaming(const GaleTriangulation& mesh, gale::ServedRelation relation,
                        const std::vector<SimplexId>& segments,
                        std::vector<gale::SegmentPointer>& out,
                        const Ready& ready) override {
    run(mesh, relation, segments, out, &ready);
  }

private:
  // VE once the device has the edge list (built there by buildSimplexLists).
  bool onDevice(gale::ServedRelation relation) const {
    return relation == gale::kVertexNeighbors || relation == gale::kVertexStar ||
           (relation == gale::kVertexEdges && edgesOnDevice_);
  }
  static int kindOf(gale::ServedRelation relation) {
    return relation == gale::kVertexStar    ? kStar
           : relation == gale::kVertexEdges ? kEdges
                                            : kNeighbors;
  }

  // The vertex boundary flags the device computed at setup serve the requests that
  // want no edge or triangle flags (those are counted per segment by the CPU producer).
  bool boundaryFromDevice(gale::ServedRelation relation) const {
    return relation == gale::kBoundaryFlags && boundaryReady_ &&
           (mesh_.boundaryFlagsWanted() & (BoundaryEdges | BoundaryTriangles)) == 0;
  }

  // Every cell's facets as (lowest, middle) keys and third vertices (-1 in 2D), sorted
  // by (lowest, middle, third): a stable sort by the third vertex, then by the key
  // (CUB's radix sort is stable). The sorted arrays are those k and t point to.
  struct SortedFacets {
    thrust::device_vector<unsigned long long> keys, keysAlt;
    thrust::device_vector<int> thirds, thirdsAlt;
    cub::DoubleBuffer<unsigned long long> k;
    cub::DoubleBuffer<int> t;
    long long count = 0;
  };
  void sortFacets(SortedFacets& f, SimplexId n, long long cellCount);

  void computeBoundaryFlags(const GaleTriangulation& mesh);

  // Segments of the device's vertex flags (no edge or triangle flags wanted).
  void serveBoundaryFlags(const GaleTriangulation& mesh,
                          const std::vector<SimplexId>& segments,
                          std::vector<gale::SegmentPointer>& out);

  void run(const GaleTriangulation& mesh, gale::ServedRelation relation,
           const std::vector<SimplexId>& segments, std::vector<gale::SegmentPointer>& out,
           const Ready* ready);

  // After a failure: the mesh and the launch buffers leave the device (the CPU
  // producers take over for the triangulation's whole life). Errors of a broken
  // context are ignored: its memory goes with it.
  void releaseDevice();

  // Launch: the chunk's row capacities (the star exactly; VV at most dimension per star
  // cell), kernels, scan and the copy back of the dense offsets, all on the slot's
  // stream.
  void launch(const GaleTriangulation& mesh, int kind,
              const std::vector<SimplexId>& segments, Slot& slot);

  // The launch's dense rows copied back and handed out, one SegmentRelation per segment.
  void collect(const GaleTriangulation& mesh, const std::vector<SimplexId>& segments,
               Slot& slot, std::vector<gale::SegmentPointer>& out);

  void computeOnDevice(const GaleTriangulation& mesh, int kind,
                       const std::vector<SimplexId>& segments,
                       std::vector<gale::SegmentPointer>& out, const Ready* ready);

  const GaleTriangulation& mesh_;
  std::shared_ptr<gale::SegmentProducer> cpu_;
  int arity_ = 4;
  // the boundary flags of every vertex (new ids) and the non-manifold facets per
  // segment, from the setup; boundaryReady_ false: the CPU computes them
  std::vector<unsigned char> vertexFlags_;
  std::vector<int> nonManifold_;
  bool boundaryReady_ = false;
  std::vector<int> starCount_;
  thrust::device_vector<int> cells_, oldOfNew_, internalCells_, externalCells_,
      segmentStart_, segmentOfNew_;
  thrust::device_vector<long long> deviceInternalOffsets_, deviceExternalOffsets_;
  std::vector<long long> internalOffsets_, externalOffsets_; // I_T's, for the host
  enum Kind { kNeighbors, kStar, kEdges }; // the relations computed on the device
  Slot slots_[3][2];                       // per relation, two launches in flight each
  std::array<Slot*, 6> allSlots() {
    return {&slots_[0][0], &slots_[0][1], &slots_[1][0],
            &slots_[1][1], &slots_[2][0], &slots_[2][1]};
  }
  // the edge list's sorted (low, high) keys and, per vertex, its first edge as the low
  // one (VE on the device)
  thrust::device_vector<unsigned long long> edgeKeys_;
  thrust::device_vector<int> edgeFirst_;
  std::atomic<bool> edgesOnDevice_{false};
  // shared by the leaders' launches, exclusive for releasing the device's arrays
  std::shared_mutex deviceMutex_;
  mutable std::mutex mutex_;
  std::vector<Warning> warnings_;
  std::array<double, 3> seconds_{0, 0, 0}; // prepare, kernel + copies, integration
  std::atomic<bool> disabled_{false};
};

} // namespace topogpu::gpu::galegpu
