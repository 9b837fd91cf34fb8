// GALE's GPU producer, its mesh on the device: the cells (renumbered there when they
// came with the host's checks), I_T's cell lists and star sizes, every vertex's boundary
// flag from one sort of all facets, and the edge and triangle lists (I_E, I_F) when a
// precondition asks for them.
#include "GaleGpuProducer.cuh"

#include "GaleMeshKernels.cuh"

#include "cuda/common/CudaCheck.h"
#include "cuda/common/HostCopy.h"

#include <cub/device/device_radix_sort.cuh>
#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/unique.h>

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace topogpu::gpu::galegpu {

GpuProducer::GpuProducer(const GaleTriangulation& mesh,
                         thrust::device_vector<int>* inputCells)
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

void GpuProducer::buildCellLists(const GaleTriangulation& mesh) {
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
                                              raw(ids), raw(idsOut), int(slots), 0, bits),
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

bool GpuProducer::downloadCellLists(IdArray& internal, IdArray& external) {
  std::shared_lock<std::shared_mutex> device(deviceMutex_);
  if (disabled_ || internalCells_.empty())
    return false;
  try {
    for (auto [from, to] :
         {std::pair{&internalCells_, &internal}, std::pair{&externalCells_, &external}}) {
      downloadStaged(raw(*from), from->size() * sizeof(int),
                     to->allocateNarrowUninitialized(from->size()), nullptr);
    }
    return true;
  } catch (const std::exception&) {
    cudaGetLastError();
    return false;
  }
}

void GpuProducer::sortFacets(SortedFacets& f, SimplexId n, long long cellCount) {
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
    cudaCheck(cub::DeviceRadixSort::SortPairs(raw(scratch), bytes, f.t, f.k, int(f.count),
                                              0, idBits),
              "GALE facets: sort");
  cudaCheck(cub::DeviceRadixSort::SortPairs(raw(scratch), more, f.k, f.t, int(f.count), 0,
                                            32 + idBits),
            "GALE facets: sort");
}

void GpuProducer::computeBoundaryFlags(const GaleTriangulation& mesh) {
  try {
    translateCudaFailures("GALE GPU producer (boundary flags)", [&] {
      const SimplexId n = mesh.getNumberOfVertices();
      SortedFacets sorted;
      sortFacets(sorted, n, mesh.getNumberOfCells());
      const long long facets = sorted.count;
      auto& k = sorted.k;
      auto& t = sorted.t;
      thrust::device_vector<unsigned char> flags(std::size_t(n), 0);
      thrust::device_vector<int> nonManifold(std::size_t(mesh.getNumberOfSegments()), 0);
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
    warnings_.push_back({WarningCode::GaleGpuPartFailed,
                         std::string("GALE: the GPU producer's boundary flags failed (") +
                             error.what() + "); the CPU computes them per segment"});
  }
}

bool GpuProducer::buildSimplexLists(bool edges, bool triangles, IdArray& edgeVertices,
                                    std::vector<SimplexId>& edgeOffsets,
                                    IdArray& triangleVertices,
                                    std::vector<SimplexId>& triangleOffsets) {
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

void GpuProducer::createLaunchSlots() {
  translateCudaFailures("GALE GPU producer (upload)", [&] {
    for (Slot* slot : allSlots()) {
      cudaCheck(cudaStreamCreateWithFlags(&slot->stream, cudaStreamNonBlocking),
                "GALE GPU producer: stream");
      cudaCheck(cudaEventCreate(&slot->start), "GALE GPU producer: event");
      cudaCheck(cudaEventCreateWithFlags(&slot->scanned, cudaEventBlockingSync),
                "GALE GPU producer: event");
      cudaCheck(cudaEventCreateWithFlags(&slot->copied,
                                         cudaEventBlockingSync | cudaEventDisableTiming),
                "GALE GPU producer: event");
    }
    stageDone("gale upload");
  });
}

} // namespace topogpu::gpu::galegpu
