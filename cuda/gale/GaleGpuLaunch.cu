// GALE's GPU producer, the relations of a batch of segments: per launch slot, the rows'
// capacities uploaded, the segment kernels, the scan and the copy back on the slot's
// stream, two launches in flight, each one's segments handed out as they come back; a
// failure hands everything to the CPU producer.
#include "GaleGpuProducer.cuh"

#include "GaleSegmentKernels.cuh"

#include "cuda/common/CudaCheck.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <type_traits>
#include <vector>

namespace topogpu::gpu::galegpu {

void GpuProducer::run(const GaleTriangulation& mesh, gale::ServedRelation relation,
                      const std::vector<SimplexId>& segments,
                      std::vector<gale::SegmentPointer>& out, const Ready* ready) {
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
                           std::string("GALE: the GPU producer failed (") + error.what() +
                               "); CPU producers compute the relations from here on"});
    }
    if (failed)
      releaseDevice();
  }
  cpu_->compute(mesh, relation, segments, out);
}

void GpuProducer::serveBoundaryFlags(const GaleTriangulation& mesh,
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

void GpuProducer::releaseDevice() {
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
         {&slot->batch, &slot->firstRow, &slot->rowOffsets, &slot->rowVertex, &slot->rows,
          &slot->counts, &slot->dense, &slot->denseOffsets, &slot->flags})
      drop(*array);
    drop(slot->scratch);
  }
  cudaGetLastError();
}

void GpuProducer::launch(const GaleTriangulation& mesh, int kind,
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
    cudaCheck(cudaMemcpyAsync(to, from, n * sizeof(int), cudaMemcpyHostToDevice, stream),
              "GALE GPU producer: upload");
  };
  h2d(raw(slot.batch), batch, count);
  h2d(raw(slot.firstRow), firstRow, count + 1);
  h2d(raw(slot.rowOffsets), rowOffsets, std::size_t(rows) + 1);
  if (kind == kEdges)
    h2d(raw(slot.rowVertex), rowVertex, std::size_t(rows));
  cudaCheck(
      cudaMemsetAsync(raw(slot.rows), 0xff, std::size_t(capacity) * sizeof(int), stream),
      "GALE GPU producer: clear");
  cudaCheck(
      cudaMemsetAsync(raw(slot.counts), 0, (std::size_t(rows) + 1) * sizeof(int), stream),
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
        rows, raw(slot.rowOffsets), raw(slot.rowVertex), raw(slot.rows), raw(slot.counts),
        raw(oldOfNew_), raw(edgeKeys_), raw(edgeFirst_), raw(slot.flags));
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
                            (std::size_t(rows) + 1) * sizeof(int), cudaMemcpyDeviceToHost,
                            stream),
            "GALE GPU producer: copy back");
  cudaCheck(cudaMemcpyAsync(flagBack, raw(slot.flags), sizeof(int),
                            cudaMemcpyDeviceToHost, stream),
            "GALE GPU producer: copy back");
  cudaCheck(cudaEventRecord(slot.scanned, stream), "GALE GPU producer: event");
  slot.pending = true;
}

void GpuProducer::collect(const GaleTriangulation& mesh,
                          const std::vector<SimplexId>& segments, Slot& slot,
                          std::vector<gale::SegmentPointer>& out) {
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
  seconds_[1] +=
      kernelMs * 1e-3 + std::chrono::duration<double>(integrateStart - copyStart).count();
  seconds_[2] += std::chrono::duration<double>(end - integrateStart).count();
}

void GpuProducer::computeOnDevice(const GaleTriangulation& mesh, int kind,
                                  const std::vector<SimplexId>& segments,
                                  std::vector<gale::SegmentPointer>& out,
                                  const Ready* ready) {
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
          seconds_[0] += std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                       prepareStart)
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

} // namespace topogpu::gpu::galegpu
