#include "GaleGpu.h"

#include "cuda/common/CudaCheck.h"
#include "cuda/common/GpuDevice.h"

#include <thrust/device_vector.h>

#include <climits>
#include <mutex>
#include <vector>

namespace topogpu::gpu {

namespace {

constexpr int kThreadsPerSegment = 32; // the paper's best t_s (one warp per segment)

// Algorithm 2: append value to a row unless it is there. Slots fill in order and change
// once (-1 -> id), so a slot passed without a match can never become the value later:
// no duplicates without locks.
__device__ void atomicPush(int* row, int* count, int capacity, int value) {
  for (int k = 0; k < capacity; ++k) {
    const int current = atomicAdd(row + k, 0);
    if (current == value)
      return;
    if (current == -1) {
      const int previous = atomicCAS(row + k, -1, value);
      if (previous == -1) {
        atomicAdd(count, 1);
        return;
      }
      if (previous == value)
        return;
    }
  }
}

struct BatchView {
  const int* cells; // new vertex ids, arity per cell
  int arity;
  const int* touching;              // per segment: internal then external cells
  const long long* touchingOffsets; // per segment
  const int* segmentStart;          // I_V
  const int* batch;                 // segments of this launch
  const long long* firstRow;        // per batch segment: its first vertex row
  const long long* rowOffsets;      // per batch vertex row: where it starts
  int* rows;                        // -1 filled
  int* counts;                      // per batch vertex row
};

// Algorithm 1 (VV) and the star: one block of 32 threads per segment, the threads
// striding over the segment's touching cells.
template <bool Star> __global__ void segmentKernel(BatchView view) {
  const int s = view.batch[blockIdx.x];
  const int first = view.segmentStart[s], last = view.segmentStart[s + 1];
  for (long long k = view.touchingOffsets[s] + threadIdx.x;
       k < view.touchingOffsets[s + 1]; k += blockDim.x) {
    const int c = view.touching[k];
    const int* cell = view.cells + (long long)c * view.arity;
    for (int i = 0; i < view.arity; ++i) {
      const int v = cell[i];
      if (v < first || v >= last)
        continue;
      const long long r = view.firstRow[blockIdx.x] + (v - first);
      int* row = view.rows + view.rowOffsets[r];
      const int capacity = int(view.rowOffsets[r + 1] - view.rowOffsets[r]);
      if constexpr (Star) {
        const int at = atomicAdd(view.counts + r, 1);
        if (at < capacity)
          row[at] = c;
      } else {
        for (int j = 0; j < view.arity; ++j)
          if (j != i)
            atomicPush(row, view.counts + r, capacity, cell[j]);
      }
    }
  }
}

template <typename T> thrust::device_vector<T> upload(const std::vector<T>& host) {
  return thrust::device_vector<T>(host.begin(), host.end());
}
template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

class GpuProducer : public gale::SegmentProducer {
public:
  explicit GpuProducer(const GaleTriangulation& mesh) : cpu_(gale::makeCpuProducer()) {
    const SimplexId n = mesh.getNumberOfVertices(), cellCount = mesh.getNumberOfCells();
    arity_ = mesh.getDimension() + 1;
    std::vector<int> cells(std::size_t(cellCount) * arity_);
    starCount_.assign(n, 0);
    for (SimplexId c = 0; c < cellCount; ++c) {
      for (int k = 0; k < arity_; ++k) {
        const SimplexId v = mesh.newId(mesh.getCellVertex(c, k));
        cells[std::size_t(c) * arity_ + k] = int(v);
        ++starCount_[v];
      }
    }
    const SimplexId segments = mesh.getNumberOfSegments();
    std::vector<int> touching, starts(segments + 1);
    std::vector<long long> offsets(segments + 1, 0);
    for (SimplexId s = 0; s < segments; ++s) {
      starts[s] = int(mesh.segmentStart(s));
      for (SimplexId k = mesh.internalCellBegin(s); k < mesh.internalCellBegin(s + 1);
           ++k)
        touching.push_back(int(mesh.internalCell(k)));
      for (SimplexId k = mesh.externalCellBegin(s); k < mesh.externalCellBegin(s + 1);
           ++k)
        touching.push_back(int(mesh.externalCell(k)));
      offsets[s + 1] = (long long)touching.size();
    }
    starts[segments] = int(n);
    translateCudaFailures("GALE GPU producer (upload)", [&] {
      cells_ = upload(cells);
      touching_ = upload(touching);
      touchingOffsets_ = upload(offsets);
      segmentStart_ = upload(starts);
      stageDone("gale upload");
    });
  }

  std::string name() const override { return disabled_ ? "gpu (failed: cpu)" : "gpu"; }

  std::vector<std::string> warnings() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return warnings_;
  }

  void compute(const GaleTriangulation& mesh, gale::ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<gale::SegmentPointer>& out) override {
    const bool onDevice =
        relation == gale::kVertexNeighbors || relation == gale::kVertexStar;
    if (onDevice && !disabled_) {
      try {
        computeOnDevice(mesh, relation == gale::kVertexStar, segments, out);
        return;
      } catch (const GpuError& error) {
        std::lock_guard<std::mutex> lock(mutex_);
        disabled_ = true;
        warnings_.push_back(std::string("GALE: the GPU producer failed (") +
                            error.what() +
                            "); CPU producers compute the relations from here on");
      }
    }
    cpu_->compute(mesh, relation, segments, out);
  }

private:
  void computeOnDevice(const GaleTriangulation& mesh, bool star,
                       const std::vector<SimplexId>& segments,
                       std::vector<gale::SegmentPointer>& out) {
    const int dimension = arity_ - 1;
    std::vector<long long> firstRow(segments.size() + 1, 0), rowOffsets(1, 0);
    for (std::size_t b = 0; b < segments.size(); ++b) {
      const SimplexId a = mesh.segmentStart(segments[b]),
                      z = mesh.segmentStart(segments[b] + 1);
      for (SimplexId v = a; v < z; ++v) {
        // capacity: the star exactly; VV at most dimension per star cell
        const long long bound = (long long)starCount_[v] * (star ? 1 : dimension);
        rowOffsets.push_back(rowOffsets.back() + bound);
      }
      firstRow[b + 1] = firstRow[b] + (z - a);
    }
    std::vector<int> batch(segments.begin(), segments.end());
    std::vector<int> rows, counts;
    translateCudaFailures("GALE GPU producer", [&] {
      auto dBatch = upload(batch);
      auto dFirstRow = upload(firstRow);
      auto dRowOffsets = upload(rowOffsets);
      thrust::device_vector<int> dRows(std::size_t(rowOffsets.back()), -1);
      thrust::device_vector<int> dCounts(std::size_t(firstRow.back()), 0);
      BatchView view{
          raw(cells_),        arity_,      raw(touching_), raw(touchingOffsets_),
          raw(segmentStart_), raw(dBatch), raw(dFirstRow), raw(dRowOffsets),
          raw(dRows),         raw(dCounts)};
      if (star)
        segmentKernel<true><<<unsigned(segments.size()), kThreadsPerSegment>>>(view);
      else
        segmentKernel<false><<<unsigned(segments.size()), kThreadsPerSegment>>>(view);
      stageDone("gale producer");
      rows.resize(dRows.size());
      counts.resize(dCounts.size());
      thrust::copy(dRows.begin(), dRows.end(), rows.begin());
      thrust::copy(dCounts.begin(), dCounts.end(), counts.begin());
    });
    // local (new) ids -> the input's, rows sorted as the CPU producer's
    out.assign(segments.size(), nullptr);
    std::vector<std::pair<SimplexId, SimplexId>> pairs;
    for (std::size_t b = 0; b < segments.size(); ++b) {
      pairs.clear();
      const SimplexId vertices = firstRow[b + 1] - firstRow[b];
      for (SimplexId r = 0; r < vertices; ++r) {
        const long long row = firstRow[b] + r;
        const long long capacity = rowOffsets[row + 1] - rowOffsets[row];
        if (counts[row] > capacity)
          throw Error("GALE GPU producer: a row overflowed its bound");
        for (int k = 0; k < counts[row]; ++k) {
          const int value = rows[rowOffsets[row] + k];
          pairs.emplace_back(r, star ? SimplexId(value) : mesh.oldId(value));
        }
      }
      auto segment = std::make_shared<gale::SegmentRelation>();
      segment->rows = gale::rowsFromPairs(pairs, vertices,
                                          star ? mesh.getNumberOfCells() - 1
                                               : mesh.getNumberOfVertices() - 1);
      out[b] = std::move(segment);
    }
  }

  std::shared_ptr<gale::SegmentProducer> cpu_;
  int arity_ = 4;
  std::vector<int> starCount_;
  thrust::device_vector<int> cells_, touching_, segmentStart_;
  thrust::device_vector<long long> touchingOffsets_;
  mutable std::mutex mutex_;
  std::vector<std::string> warnings_;
  std::atomic<bool> disabled_{false};
};

} // namespace

std::shared_ptr<gale::SegmentProducer> makeGaleGpuProducer(const GaleTriangulation& mesh,
                                                           std::string& why) {
  if (!deviceAvailable(&why))
    return nullptr;
  if (mesh.getNumberOfVertices() > INT_MAX ||
      mesh.getNumberOfCells() > INT_MAX / (mesh.getDimension() + 1)) {
    why = "the mesh's ids do not fit the GPU producer's 32-bit ids";
    return nullptr;
  }
  try {
    return std::make_shared<GpuProducer>(mesh);
  } catch (const GpuError& error) {
    why = error.what();
    return nullptr;
  }
}

} // namespace topogpu::gpu
