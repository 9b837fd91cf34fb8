#include "GaleGpu.h"

#include "GaleDevice.cuh"

#include "core/common/GpuDevice.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/HostCopy.h"
#include "triangulation/gale/GaleTriangulation.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <tbb/parallel_for.h>
#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/unique.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <mutex>
#include <shared_mutex>
#include <type_traits>
#include <vector>

namespace topogpu::gpu {

namespace {

class GpuProducer : public gale::SegmentProducer {
public:
  // The first part of the setup (GaleTriangulation runs it on a thread of its own): the
  // cells in new ids (renumbered here when they were uploaded during the host's checks),
  // the renumbering, the cell lists and star sizes, and every vertex's boundary flag.
  GpuProducer(const GaleTriangulation& mesh, thrust::device_vector<int>* inputCells)
      : mesh_(mesh), cpu_(gale::makeCpuProducer()) {
    arity_ = mesh.getDimension() + 1;
    const SimplexId segments = mesh.getNumberOfSegments();
    std::vector<int> starts(segments + 1);
    for (SimplexId s = 0; s <= segments; ++s)
      starts[s] = int(mesh.segmentStart(s));
    translateCudaFailures("GALE GPU producer (upload)", [&] {
      const auto count = std::size_t(mesh.getNumberOfCells()) * std::size_t(arity_);
      if (inputCells != nullptr && inputCells->size() == count) {
        // uploaded while the host validated them: renumbered here
        cells_.swap(*inputCells);
        thrust::device_vector<int> newOfOld = upload(mesh.newIds());
        renumberCells<<<unsigned((count + 255) / 256), 256>>>((long long)count,
                                                              raw(newOfOld), raw(cells_));
        cudaCheck(cudaGetLastError(), "GALE GPU producer: renumbering");
      } else {
        cells_ = upload(mesh.newCells());
      }
      oldOfNew_ = upload(mesh.oldIds());
      segmentStart_ = upload(starts);
      segmentOfNew_ = upload(mesh.segmentOfNewVertices());
      buildCellLists(mesh);
      stageDone("gale upload");
    });
    computeBoundaryFlags(mesh);
  }

  // I_T on the device, the host's lists (each cell placed by gale::cellSegments): per
  // segment, its internal and its external cells by ascending id (stable radix sorts of
  // the cells' segments), and every vertex's star size (the rows' capacities).
  void buildCellLists(const GaleTriangulation& mesh) {
    const long long cellCount = mesh.getNumberOfCells();
    const SimplexId n = mesh.getNumberOfVertices(), segments = mesh.getNumberOfSegments();
    const auto cells = static_cast<std::size_t>(cellCount);
    thrust::device_vector<int> own(cells), others(3 * cells), counts(2 * segments + n, 0);
    int* internalCount = raw(counts);
    int* externalCount = internalCount + segments;
    int* starCount = externalCount + segments;
    const int noSegment = int(segments);
    countCellSegments<<<unsigned((cellCount + 255) / 256), 256>>>(
        raw(cells_), arity_, cellCount, raw(segmentOfNew_), noSegment, raw(own),
        raw(others), internalCount, externalCount, starCount);
    cudaCheck(cudaGetLastError(), "GALE cell lists: segments");
    std::vector<int> host(counts.size());
    thrust::copy(counts.begin(), counts.end(), host.begin());
    starCount_.assign(host.begin() + 2 * segments, host.end());
    internalOffsets_.assign(std::size_t(segments) + 1, 0);
    externalOffsets_.assign(std::size_t(segments) + 1, 0);
    for (SimplexId s = 0; s < segments; ++s) {
      internalOffsets_[s + 1] = internalOffsets_[s] + host[s];
      externalOffsets_[s + 1] = externalOffsets_[s] + host[segments + s];
    }
    // the cells (values) by their segment (key), stable: ascending ids per segment
    auto sortBySegment = [&](thrust::device_vector<int>& keys, int perCell,
                             long long kept) {
      const long long slots = cellCount * perCell;
      const auto size = static_cast<std::size_t>(slots);
      thrust::device_vector<int> ids(size), keysOut(size), idsOut(size);
      cellOfSlot<<<unsigned((slots + 255) / 256), 256>>>(slots, perCell, raw(ids));
      std::size_t bytes = 0;
      const int bits = bitsFor(segments + 1);
      cudaCheck(cub::DeviceRadixSort::SortPairs(nullptr, bytes, raw(keys), raw(keysOut),
                                                raw(ids), raw(idsOut), int(slots), 0,
                                                bits),
                "GALE cell lists: sort");
      thrust::device_vector<unsigned char> scratch(bytes + 1);
      cudaCheck(cub::DeviceRadixSort::SortPairs(raw(scratch), bytes, raw(keys),
                                                raw(keysOut), raw(ids), raw(idsOut),
                                                int(slots), 0, bits),
                "GALE cell lists: sort");
      idsOut.resize(std::size_t(kept)); // noSegment's slots sort last
      idsOut.shrink_to_fit();
      return idsOut;
    };
    internalCells_ = sortBySegment(own, 1, cellCount);
    thrust::device_vector<int>().swap(own);
    externalCells_ = sortBySegment(others, 3, externalOffsets_.back());
    deviceInternalOffsets_ = upload(internalOffsets_);
    deviceExternalOffsets_ = upload(externalOffsets_);
  }

  // The cell lists for the host (GaleTriangulation fetches them when a CPU computation
  // first needs them); false when the device no longer has them.
  bool downloadCellLists(IdArray& internal, IdArray& external) override {
    std::shared_lock<std::shared_mutex> device(deviceMutex_);
    if (disabled_ || internalCells_.empty())
      return false;
    try {
      for (auto [from, to] : {std::pair{&internalCells_, &internal},
                              std::pair{&externalCells_, &external}}) {
        downloadStaged(raw(*from), from->size() * sizeof(int),
                       to->allocateNarrowUninitialized(from->size()), nullptr);
      }
      return true;
    } catch (const std::exception&) {
      cudaGetLastError();
      return false;
    }
  }

  // The edge and triangle lists (I_E, I_F) as GaleTriangulation builds them: each
  // simplex's vertices ascending (new ids), all sorted, so a segment's simplices (those
  // whose lowest vertex is in it) are contiguous, ordered by their tuples.
  bool buildSimplexLists(bool edges, bool triangles, IdArray& edgeVertices,
                         std::vector<SimplexId>& edgeOffsets, IdArray& triangleVertices,
                         std::vector<SimplexId>& triangleOffsets) override {
    std::shared_lock<std::shared_mutex> device(deviceMutex_);
    if (disabled_ || cells_.empty())
      return false;
    try {
      translateCudaFailures("GALE GPU producer (edge and triangle lists)", [&] {
        const SimplexId n = mesh_.getNumberOfVertices();
        const long long cellCount = mesh_.getNumberOfCells();
        // per segment, the first simplex whose lowest vertex is its first vertex or above
        auto offsetsOf = [&](const thrust::device_vector<unsigned long long>& keys,
                             long long count, std::vector<SimplexId>& offsets) {
          const SimplexId segments = mesh_.getNumberOfSegments();
          std::vector<unsigned long long> starts(std::size_t(segments) + 1);
          for (SimplexId s = 0; s <= segments; ++s)
            starts[std::size_t(s)] = (unsigned long long)mesh_.segmentStart(s) << 32;
          thrust::device_vector<unsigned long long> bounds(starts.begin(), starts.end());
          thrust::device_vector<long long> at(bounds.size());
          thrust::lower_bound(keys.begin(), keys.begin() + count, bounds.begin(),
                              bounds.end(), at.begin());
          std::vector<long long> host(at.size());
          thrust::copy(at.begin(), at.end(), host.begin());
          offsets.assign(host.begin(), host.end());
        };
        auto download = [&](thrust::device_vector<unsigned long long>& keys,
                            const int* thirds, long long count, IdArray& to) {
          const int arity = thirds != nullptr ? 3 : 2;
          thrust::device_vector<int> tuples(std::size_t(count) * arity);
          if (count > 0)
            writeTuples<<<unsigned((count + 255) / 256), 256>>>(count, raw(keys), thirds,
                                                                raw(tuples));
          cudaCheck(cudaGetLastError(), "GALE simplex lists: tuples");
          downloadStaged(raw(tuples), tuples.size() * sizeof(int),
                         to.allocateNarrowUninitialized(tuples.size()), nullptr);
        };
        if (edges) {
          const int pairs = arity_ * (arity_ - 1) / 2;
          const auto count = static_cast<std::size_t>(cellCount * pairs);
          thrust::device_vector<unsigned long long> keys(count), sorted(count);
          emitEdges<<<unsigned((cellCount + 255) / 256), 256>>>(raw(cells_), arity_,
                                                                cellCount, raw(keys));
          cudaCheck(cudaGetLastError(), "GALE edges");
          std::size_t bytes = 0;
          const int bits = 32 + bitsFor(n);
          cudaCheck(cub::DeviceRadixSort::SortKeys(nullptr, bytes, raw(keys), raw(sorted),
                                                   int(count), 0, bits),
                    "GALE edges: sort");
          thrust::device_vector<unsigned char> scratch(bytes + 1);
          cudaCheck(cub::DeviceRadixSort::SortKeys(raw(scratch), bytes, raw(keys),
                                                   raw(sorted), int(count), 0, bits),
                    "GALE edges: sort");
          thrust::device_vector<unsigned long long>().swap(keys);
          const long long unique =
              thrust::unique(sorted.begin(), sorted.end()) - sorted.begin();
          offsetsOf(sorted, unique, edgeOffsets);
          download(sorted, nullptr, unique, edgeVertices);
          // kept for VE: the keys and each vertex's first edge as the low one
          sorted.resize(std::size_t(unique));
          sorted.shrink_to_fit();
          thrust::device_vector<int> first(std::size_t(n) + 1);
          auto vertexKeys = thrust::make_transform_iterator(
              thrust::counting_iterator<long long>(0), VertexKey());
          thrust::lower_bound(sorted.begin(), sorted.end(), vertexKeys,
                              vertexKeys + (n + 1), first.begin());
          edgeKeys_.swap(sorted);
          edgeFirst_.swap(first);
          edgesOnDevice_ = true;
        }
        if (triangles) {
          SortedFacets f;
          sortFacets(f, n, cellCount);
          auto first = thrust::make_zip_iterator(
              thrust::make_tuple(thrust::device_pointer_cast(f.k.Current()),
                                 thrust::device_pointer_cast(f.t.Current())));
          const long long unique = thrust::unique(first, first + f.count) - first;
          thrust::device_vector<unsigned long long> keys(
              thrust::device_pointer_cast(f.k.Current()),
              thrust::device_pointer_cast(f.k.Current()) + unique);
          offsetsOf(keys, unique, triangleOffsets);
          download(keys, f.t.Current(), unique, triangleVertices);
        }
        stageDone("gale simplex lists");
      });
      return true;
    } catch (const GpuError& error) {
      std::lock_guard<std::mutex> lock(mutex_);
      warnings_.push_back({WarningCode::GaleGpuPartFailed,
                           std::string("GALE: the GPU producer's edge and triangle lists "
                                       "failed (") +
                               error.what() + "); the CPU builds them"});
      return false;
    }
  }

  const std::vector<long long>& internalOffsets() const { return internalOffsets_; }
  const std::vector<long long>& externalOffsets() const { return externalOffsets_; }

  // The second part: the launch slots' streams and events.
  void createLaunchSlots() {
    translateCudaFailures("GALE GPU producer (upload)", [&] {
      for (Slot* slot : allSlots()) {
        cudaCheck(cudaStreamCreateWithFlags(&slot->stream, cudaStreamNonBlocking),
                  "GALE GPU producer: stream");
        cudaCheck(cudaEventCreate(&slot->start), "GALE GPU producer: event");
        cudaCheck(cudaEventCreateWithFlags(&slot->scanned, cudaEventBlockingSync),
                  "GALE GPU producer: event");
        cudaCheck(cudaEventCreateWithFlags(&slot->copied, cudaEventBlockingSync |
                                                              cudaEventDisableTiming),
                  "GALE GPU producer: event");
      }
      stageDone("gale upload");
    });
  }

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
  void sortFacets(SortedFacets& f, SimplexId n, long long cellCount) {
    f.count = cellCount * arity_;
    const auto count = static_cast<std::size_t>(f.count);
    f.keys.resize(count);
    f.keysAlt.resize(count);
    f.thirds.resize(count);
    f.thirdsAlt.resize(count);
    emitFacets<<<unsigned((cellCount + 255) / 256), 256>>>(raw(cells_), arity_, cellCount,
                                                           raw(f.keys), raw(f.thirds));
    cudaCheck(cudaGetLastError(), "GALE facets");
    f.k = cub::DoubleBuffer<unsigned long long>(raw(f.keys), raw(f.keysAlt));
    f.t = cub::DoubleBuffer<int>(raw(f.thirds), raw(f.thirdsAlt));
    const int idBits = bitsFor(n);
    std::size_t bytes = 0, more = 0;
    if (arity_ == 4)
      cudaCheck(cub::DeviceRadixSort::SortPairs(nullptr, bytes, f.t, f.k, int(f.count), 0,
                                                idBits),
                "GALE facets: sort");
    cudaCheck(cub::DeviceRadixSort::SortPairs(nullptr, more, f.k, f.t, int(f.count), 0,
                                              32 + idBits),
              "GALE facets: sort");
    thrust::device_vector<unsigned char> scratch(std::max(bytes, more) + 1);
    if (arity_ == 4)
      cudaCheck(cub::DeviceRadixSort::SortPairs(raw(scratch), bytes, f.t, f.k,
                                                int(f.count), 0, idBits),
                "GALE facets: sort");
    cudaCheck(cub::DeviceRadixSort::SortPairs(raw(scratch), more, f.k, f.t, int(f.count),
                                              0, 32 + idBits),
              "GALE facets: sort");
  }

  void computeBoundaryFlags(const GaleTriangulation& mesh) {
    try {
      translateCudaFailures("GALE GPU producer (boundary flags)", [&] {
        const SimplexId n = mesh.getNumberOfVertices();
        SortedFacets sorted;
        sortFacets(sorted, n, mesh.getNumberOfCells());
        const long long facets = sorted.count;
        auto& k = sorted.k;
        auto& t = sorted.t;
        thrust::device_vector<unsigned char> flags(std::size_t(n), 0);
        thrust::device_vector<int> nonManifold(std::size_t(mesh.getNumberOfSegments()),
                                               0);
        countFacets<<<unsigned((facets + 255) / 256), 256>>>(
            facets, k.Current(), t.Current(), raw(segmentOfNew_), raw(flags),
            raw(nonManifold));
        cudaCheck(cudaGetLastError(), "GALE boundary flags: count");
        vertexFlags_.resize(std::size_t(n));
        nonManifold_.resize(nonManifold.size());
        thrust::copy(flags.begin(), flags.end(), vertexFlags_.begin());
        thrust::copy(nonManifold.begin(), nonManifold.end(), nonManifold_.begin());
        stageDone("gale boundary");
      });
      boundaryReady_ = true;
    } catch (const GpuError& error) {
      // the VV and star kernels may still run: only this relation goes to the CPU
      std::vector<unsigned char>().swap(vertexFlags_);
      std::vector<int>().swap(nonManifold_);
      std::lock_guard<std::mutex> lock(mutex_);
      warnings_.push_back(
          {WarningCode::GaleGpuPartFailed,
           std::string("GALE: the GPU producer's boundary flags failed (") +
               error.what() + "); the CPU computes them per segment"});
    }
  }

  // Segments of the device's vertex flags (no edge or triangle flags wanted).
  void serveBoundaryFlags(const GaleTriangulation& mesh,
                          const std::vector<SimplexId>& segments,
                          std::vector<gale::SegmentPointer>& out) {
    out.assign(segments.size(), nullptr);
    for (std::size_t b = 0; b < segments.size(); ++b) {
      const SimplexId s = segments[b];
      auto segment = std::make_shared<gale::SegmentRelation>();
      segment->vertexFlags.assign(vertexFlags_.begin() + mesh.segmentStart(s),
                                  vertexFlags_.begin() + mesh.segmentStart(s + 1));
      segment->nonManifoldFacets = nonManifold_[std::size_t(s)];
      out[b] = std::move(segment);
    }
  }

  void run(const GaleTriangulation& mesh, gale::ServedRelation relation,
           const std::vector<SimplexId>& segments, std::vector<gale::SegmentPointer>& out,
           const Ready* ready) {
    if (boundaryFromDevice(relation)) {
      serveBoundaryFlags(mesh, segments, out);
      return;
    }
    if (onDevice(relation) && !disabled_) {
      bool failed = false;
      try {
        // one leader per relation, each with its own launch slots: the VV and star
        // leaders run side by side (the flag read again under the lock: the other
        // leader may have failed meanwhile and released the arrays)
        std::shared_lock<std::shared_mutex> device(deviceMutex_);
        if (!disabled_) {
          computeOnDevice(mesh, kindOf(relation), segments, out, ready);
          return;
        }
      } catch (const GpuError& error) {
        std::lock_guard<std::mutex> lock(mutex_);
        disabled_ = true;
        failed = true;
        warnings_.push_back({WarningCode::GaleGpuProducerFailed,
                             std::string("GALE: the GPU producer failed (") +
                                 error.what() +
                                 "); CPU producers compute the relations from here on"});
      }
      if (failed)
        releaseDevice();
    }
    cpu_->compute(mesh, relation, segments, out);
  }

  // After a failure: the mesh and the launch buffers leave the device (the CPU
  // producers take over for the triangulation's whole life). Errors of a broken
  // context are ignored: its memory goes with it.
  void releaseDevice() {
    std::unique_lock<std::shared_mutex> device(deviceMutex_);
    const auto drop = [](auto& array) {
      try {
        std::decay_t<decltype(array)>().swap(array);
      } catch (...) {
      }
    };
    for (auto* array : {&cells_, &oldOfNew_, &internalCells_, &externalCells_,
                        &segmentStart_, &segmentOfNew_})
      drop(*array);
    drop(deviceInternalOffsets_);
    drop(deviceExternalOffsets_);
    edgesOnDevice_ = false;
    drop(edgeKeys_);
    drop(edgeFirst_);
    for (Slot* slot : allSlots()) {
      for (auto* array :
           {&slot->batch, &slot->firstRow, &slot->rowOffsets, &slot->rowVertex,
            &slot->rows, &slot->counts, &slot->dense, &slot->denseOffsets, &slot->flags})
        drop(*array);
      drop(slot->scratch);
    }
    cudaGetLastError();
  }

  // Launch: the chunk's row capacities (the star exactly; VV at most dimension per star
  // cell), kernels, scan and the copy back of the dense offsets, all on the slot's
  // stream.
  void launch(const GaleTriangulation& mesh, int kind,
              const std::vector<SimplexId>& segments, Slot& slot) {
    const bool star = kind == kStar;
    const int dimension = arity_ - 1;
    const std::size_t count = slot.last - slot.first;
    int rows = 0;
    for (std::size_t b = slot.first; b < slot.last; ++b)
      rows += int(mesh.segmentStart(segments[b] + 1) - mesh.segmentStart(segments[b]));
    slot.rowCount = rows;
    // upload layout: batch (count) | firstRow (count + 1) | rowOffsets (rows + 1) |
    // rowVertex (rows, VE)
    int* host = slot.upload.reserve(2 * count + 2 * std::size_t(rows) + 2);
    int* batch = host;
    int* firstRow = host + count;
    int* rowOffsets = firstRow + count + 1;
    int* rowVertex = rowOffsets + rows + 1;
    firstRow[0] = 0;
    rowOffsets[0] = 0;
    int r = 0;
    for (std::size_t b = 0; b < count; ++b) {
      const SimplexId s = segments[slot.first + b];
      batch[b] = int(s);
      const SimplexId a = mesh.segmentStart(s), z = mesh.segmentStart(s + 1);
      for (SimplexId v = a; v < z; ++v, ++r) {
        rowOffsets[r + 1] = rowOffsets[r] + starCount_[v] * (star ? 1 : dimension);
        rowVertex[r] = int(v);
      }
      firstRow[b + 1] = r;
    }
    const int capacity = rowOffsets[rows];
    reserve(slot.batch, count);
    reserve(slot.firstRow, count + 1);
    reserve(slot.rowOffsets, std::size_t(rows) + 1);
    if (kind == kEdges)
      reserve(slot.rowVertex, std::size_t(rows) + 1);
    reserve(slot.rows, std::size_t(capacity) + 1);
    reserve(slot.counts, std::size_t(rows) + 1);
    reserve(slot.denseOffsets, std::size_t(rows) + 1);
    reserve(slot.dense, std::size_t(capacity) + 1);
    reserve(slot.flags, 1);
    cudaStream_t stream = slot.stream;
    cudaCheck(cudaEventRecord(slot.start, stream), "GALE GPU producer: event");
    auto h2d = [&](int* to, const int* from, std::size_t n) {
      cudaCheck(
          cudaMemcpyAsync(to, from, n * sizeof(int), cudaMemcpyHostToDevice, stream),
          "GALE GPU producer: upload");
    };
    h2d(raw(slot.batch), batch, count);
    h2d(raw(slot.firstRow), firstRow, count + 1);
    h2d(raw(slot.rowOffsets), rowOffsets, std::size_t(rows) + 1);
    if (kind == kEdges)
      h2d(raw(slot.rowVertex), rowVertex, std::size_t(rows));
    cudaCheck(cudaMemsetAsync(raw(slot.rows), 0xff, std::size_t(capacity) * sizeof(int),
                              stream),
              "GALE GPU producer: clear");
    cudaCheck(cudaMemsetAsync(raw(slot.counts), 0, (std::size_t(rows) + 1) * sizeof(int),
                              stream),
              "GALE GPU producer: clear");
    cudaCheck(cudaMemsetAsync(raw(slot.flags), 0, sizeof(int), stream),
              "GALE GPU producer: clear");
    BatchView view{raw(cells_),
                   arity_,
                   raw(internalCells_),
                   raw(externalCells_),
                   raw(deviceInternalOffsets_),
                   raw(deviceExternalOffsets_),
                   raw(segmentStart_),
                   raw(slot.batch),
                   raw(slot.firstRow),
                   raw(slot.rowOffsets),
                   raw(slot.rows),
                   raw(slot.counts)};
    if (star)
      segmentKernel<true><<<unsigned(count), kThreadsPerSegment, 0, stream>>>(view);
    else
      segmentKernel<false><<<unsigned(count), kThreadsPerSegment, 0, stream>>>(view);
    const unsigned blocks = unsigned((rows + 255) / 256);
    if (rows > 0 && kind == kEdges) {
      finishEdgeRows<<<blocks, 256, 0, stream>>>(
          rows, raw(slot.rowOffsets), raw(slot.rowVertex), raw(slot.rows),
          raw(slot.counts), raw(oldOfNew_), raw(edgeKeys_), raw(edgeFirst_),
          raw(slot.flags));
    } else if (rows > 0) {
      finishRows<<<blocks, 256, 0, stream>>>(
          rows, raw(slot.rowOffsets), raw(slot.rows), raw(slot.counts),
          star ? nullptr : raw(oldOfNew_), raw(slot.flags));
    }
    // counts[rows] stays 0, so the scan's last entry is the total
    std::size_t bytes = 0;
    cudaCheck(cub::DeviceScan::ExclusiveSum(nullptr, bytes, raw(slot.counts),
                                            raw(slot.denseOffsets), rows + 1, stream),
              "GALE GPU producer: scan");
    reserve(slot.scratch, bytes + 1);
    cudaCheck(cub::DeviceScan::ExclusiveSum(raw(slot.scratch), bytes, raw(slot.counts),
                                            raw(slot.denseOffsets), rows + 1, stream),
              "GALE GPU producer: scan");
    if (rows > 0)
      compactRows<<<blocks, 256, 0, stream>>>(rows, raw(slot.rowOffsets), raw(slot.rows),
                                              raw(slot.counts), raw(slot.denseOffsets),
                                              raw(slot.dense));
    cudaCheck(cudaGetLastError(), "GALE GPU producer: launch");
    int* offsetsBack = slot.offsetsBack.reserve(std::size_t(rows) + 1);
    int* flagBack = slot.flagBack.reserve(1);
    cudaCheck(cudaMemcpyAsync(offsetsBack, raw(slot.denseOffsets),
                              (std::size_t(rows) + 1) * sizeof(int),
                              cudaMemcpyDeviceToHost, stream),
              "GALE GPU producer: copy back");
    cudaCheck(cudaMemcpyAsync(flagBack, raw(slot.flags), sizeof(int),
                              cudaMemcpyDeviceToHost, stream),
              "GALE GPU producer: copy back");
    cudaCheck(cudaEventRecord(slot.scanned, stream), "GALE GPU producer: event");
    slot.pending = true;
  }

  // The launch's dense rows copied back and handed out, one SegmentRelation per segment.
  void collect(const GaleTriangulation& mesh, const std::vector<SimplexId>& segments,
               Slot& slot, std::vector<gale::SegmentPointer>& out) {
    slot.pending = false;
    cudaCheck(cudaEventSynchronize(slot.scanned), "GALE GPU producer: kernels");
    float kernelMs = 0;
    cudaEventElapsedTime(&kernelMs, slot.start, slot.scanned);
    if (*slot.flagBack.get() != 0)
      throw Error("GALE GPU producer: a row overflowed its bound");
    const int* offsets = slot.offsetsBack.get();
    const int total = offsets[slot.rowCount];
    int* dense = slot.denseBack.reserve(std::size_t(total) + 1);
    const auto copyStart = std::chrono::steady_clock::now();
    cudaCheck(cudaMemcpyAsync(dense, raw(slot.dense), std::size_t(total) * sizeof(int),
                              cudaMemcpyDeviceToHost, slot.stream),
              "GALE GPU producer: copy back");
    cudaCheck(cudaEventRecord(slot.copied, slot.stream), "GALE GPU producer: event");
    cudaCheck(cudaEventSynchronize(slot.copied), "GALE GPU producer: copy back");
    const auto integrateStart = std::chrono::steady_clock::now();
    int r = 0;
    for (std::size_t b = slot.first; b < slot.last; ++b) {
      const SimplexId s = segments[b];
      const SimplexId vertices = mesh.segmentStart(s + 1) - mesh.segmentStart(s);
      const int base = offsets[r];
      auto segment = std::make_shared<gale::SegmentRelation>();
      // 32-bit rows taken as they came back (the ids fit: checked at construction)
      std::vector<std::int32_t> rowOffsets(std::size_t(vertices) + 1);
      for (SimplexId k = 0; k <= vertices; ++k)
        rowOffsets[std::size_t(k)] = offsets[r + k] - base;
      segment->rows.offsets.adopt(std::move(rowOffsets));
      segment->rows.data.adopt(
          std::vector<std::int32_t>(dense + base, dense + offsets[r + vertices]));
      out[b] = std::move(segment);
      r += int(vertices);
    }
    const auto end = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    seconds_[1] += kernelMs * 1e-3 +
                   std::chrono::duration<double>(integrateStart - copyStart).count();
    seconds_[2] += std::chrono::duration<double>(end - integrateStart).count();
  }

  void computeOnDevice(const GaleTriangulation& mesh, int kind,
                       const std::vector<SimplexId>& segments,
                       std::vector<gale::SegmentPointer>& out, const Ready* ready) {
    out.assign(segments.size(), nullptr);
    translateCudaFailures("GALE GPU producer", [&] {
      // Launch k + 1 is queued before launch k is collected: its kernels run while
      // launch k's rows come back and are handed out.
      std::size_t next = 0;
      int k = 0;
      Slot* previous = nullptr;
      try {
        while (next < segments.size() || previous != nullptr) {
          Slot* current = nullptr;
          if (next < segments.size()) {
            const auto prepareStart = std::chrono::steady_clock::now();
            current = &slots_[kind][k++ % 2];
            current->first = next;
            current->last = std::min(segments.size(), next + kChunkSegments);
            next = current->last;
            launch(mesh, kind, segments, *current);
            std::lock_guard<std::mutex> lock(mutex_);
            seconds_[0] += std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - prepareStart)
                               .count();
          }
          if (previous != nullptr) {
            collect(mesh, segments, *previous, out);
            if (ready != nullptr)
              (*ready)(previous->first, previous->last);
          }
          previous = current;
        }
      } catch (...) {
        for (Slot& slot : slots_[kind]) // nothing of a failed batch may run on
          if (slot.pending) {
            cudaStreamSynchronize(slot.stream);
            slot.pending = false;
          }
        throw;
      }
      stageDone("gale producer");
    });
  }

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

void startGaleGpuContext() {
  try {
    std::string why;
    if (deviceAvailable(&why))
      cudaFree(nullptr); // creates the primary context, shared by every host thread
    cudaGetLastError();
  } catch (...) {
  }
}

struct GaleGpuStart : gale::DeviceStart {
  std::shared_ptr<GpuProducer> producer;
  std::string why; // why there is none
};

struct GaleGpuCells : gale::DeviceCells {
  thrust::device_vector<int> ids; // the input's cells, old ids
};

std::shared_ptr<GaleGpuCells> uploadGaleGpuCells(const std::int32_t* cells,
                                                 std::size_t count) {
  std::string why;
  if (!deviceAvailable(&why))
    return nullptr;
  try {
    auto uploaded = std::make_shared<GaleGpuCells>();
    translateCudaFailures("GALE GPU producer (upload)",
                          [&] { uploaded->ids.assign(cells, cells + count); });
    return uploaded;
  } catch (const GpuError&) {
    return nullptr; // the producer's setup uploads them again, and reports what fails
  }
}

bool galeGpuCellOffsets(const GaleGpuStart* start, std::vector<SimplexId>& internal,
                        std::vector<SimplexId>& external) {
  if (start == nullptr || !start->producer)
    return false;
  internal.assign(start->producer->internalOffsets().begin(),
                  start->producer->internalOffsets().end());
  external.assign(start->producer->externalOffsets().begin(),
                  start->producer->externalOffsets().end());
  return true;
}

std::shared_ptr<GaleGpuStart> beginGaleGpuProducer(const GaleTriangulation& mesh,
                                                   std::shared_ptr<GaleGpuCells> cells) {
  auto start = std::make_shared<GaleGpuStart>();
  if (!deviceAvailable(&start->why))
    return start;
  if (mesh.getNumberOfVertices() > INT_MAX ||
      mesh.getNumberOfCells() > INT_MAX / (mesh.getDimension() + 1)) {
    start->why = "the mesh's ids do not fit the GPU producer's 32-bit ids";
    return start;
  }
  try {
    start->producer = std::make_shared<GpuProducer>(mesh, cells ? &cells->ids : nullptr);
  } catch (const std::exception& error) { // a GpuError, or host memory
    start->why = error.what();
  }
  return start;
}

std::shared_ptr<gale::SegmentProducer>
makeGaleGpuProducer(const GaleTriangulation& mesh, std::shared_ptr<GaleGpuStart> start,
                    std::string& why) {
  if (!start)
    start = beginGaleGpuProducer(mesh, nullptr);
  if (!start->producer) {
    why = start->why;
    return nullptr;
  }
  try {
    start->producer->createLaunchSlots();
    return std::move(start->producer);
  } catch (const GpuError& error) {
    why = error.what();
    return nullptr;
  }
}

// The parts above behind the triangulation's interface (the opaque parts are this
// file's own types: only what this factory made comes back to it).
class GaleGpuProducerFactory : public gale::GpuProducerFactory {
public:
  void startContext() const override { startGaleGpuContext(); }
  std::shared_ptr<gale::DeviceCells> uploadCells(const std::int32_t* cells,
                                                 std::size_t count) const override {
    return uploadGaleGpuCells(cells, count);
  }
  std::shared_ptr<gale::DeviceStart>
  begin(const GaleTriangulation& mesh,
        std::shared_ptr<gale::DeviceCells> cells) const override {
    return beginGaleGpuProducer(mesh, std::static_pointer_cast<GaleGpuCells>(cells));
  }
  bool cellOffsets(const gale::DeviceStart* start, std::vector<SimplexId>& internal,
                   std::vector<SimplexId>& external) const override {
    return galeGpuCellOffsets(static_cast<const GaleGpuStart*>(start), internal,
                              external);
  }
  std::shared_ptr<gale::SegmentProducer> make(const GaleTriangulation& mesh,
                                              std::shared_ptr<gale::DeviceStart> start,
                                              std::string& why) const override {
    return makeGaleGpuProducer(mesh, std::static_pointer_cast<GaleGpuStart>(start), why);
  }
};

} // namespace

std::shared_ptr<const gale::GpuProducerFactory> galeGpuProducerFactory() {
  static const auto factory = std::make_shared<const GaleGpuProducerFactory>();
  return factory;
}

} // namespace topogpu::gpu
