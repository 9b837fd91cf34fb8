// The GPU producer's device side (cuda/gale/GaleGpu.cu's alone, hence internal
// linkage): the kernels of Algorithms 1-2 (a segment's VV and star by one warp), the
// rows' integration, the boundary facets' sort, the cell lists' and the simplex lists'
// kernels, and the buffers a launch uses (device vectors, pinned host memory, a slot's
// stream and events).
#pragma once

#include "base/Types.h"
#include "cuda/common/CudaCheck.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/CellSegments.h"

#include <tbb/parallel_for.h>
#include <thrust/device_vector.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace topogpu::gpu {

namespace {

constexpr int kThreadsPerSegment = 32;      // the paper's best t_s (one warp per segment)
constexpr std::size_t kChunkSegments = 256; // segments per launch of a pipelined batch

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
  atomicAdd(count, capacity + 1); // cannot happen within the bound: flagged as overflow
}

struct BatchView {
  const int* cells; // new vertex ids, arity per cell
  int arity;
  const int* internalCells;         // per segment: its internal cells (I_T)
  const int* externalCells;         // then its external ones
  const long long* internalOffsets; // per segment
  const long long* externalOffsets;
  const int* segmentStart; // I_V
  const int* batch;        // segments of this launch
  const int* firstRow;     // per launch segment: its first vertex row
  const int* rowOffsets;   // per vertex row: where its capacity starts
  int* rows;               // -1 filled
  int* counts;             // per vertex row
};

// Algorithm 1 (VV) and the star: one block of 32 threads per segment, the threads
// striding over the segment's touching cells.
template <bool Star> __global__ void segmentKernel(BatchView view) {
  const int s = view.batch[blockIdx.x];
  const int first = view.segmentStart[s], last = view.segmentStart[s + 1];
  const long long i0 = view.internalOffsets[s], e0 = view.externalOffsets[s];
  const long long internal = view.internalOffsets[s + 1] - i0;
  const long long touching = internal + (view.externalOffsets[s + 1] - e0);
  for (long long k = threadIdx.x; k < touching; k += blockDim.x) {
    const int c =
        k < internal ? view.internalCells[i0 + k] : view.externalCells[e0 + k - internal];
    const int* cell = view.cells + (long long)c * view.arity;
    for (int i = 0; i < view.arity; ++i) {
      const int v = cell[i];
      if (v < first || v >= last)
        continue;
      const int r = view.firstRow[blockIdx.x] + (v - first);
      int* row = view.rows + view.rowOffsets[r];
      const int capacity = view.rowOffsets[r + 1] - view.rowOffsets[r];
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

// Row r's entry count within its capacity (an overflow is flagged and cut to it).
__device__ int rowSize(int r, const int* rowOffsets, int* counts, int* overflow) {
  const int capacity = rowOffsets[r + 1] - rowOffsets[r];
  if (counts[r] <= capacity)
    return counts[r];
  *overflow = 1;
  counts[r] = capacity;
  return capacity;
}

// Integration on the device: local (new) ids mapped to the input's, each row sorted
// (rows are short: insertion sort per thread), overflows flagged.
__global__ void finishRows(int rowCount, const int* rowOffsets, int* rows, int* counts,
                           const int* oldOfNew, int* overflow) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rowCount)
    return;
  const int n = rowSize(r, rowOffsets, counts, overflow);
  int* row = rows + rowOffsets[r];
  if (oldOfNew != nullptr)
    for (int k = 0; k < n; ++k)
      row[k] = oldOfNew[row[k]];
  for (int k = 1; k < n; ++k) {
    const int x = row[k];
    int j = k;
    for (; j > 0 && row[j - 1] > x; --j)
      row[j] = row[j - 1];
    row[j] = x;
  }
}

// VE rows: VV's rows (new ids) put in VV's order (by the neighbours' input ids), then
// each neighbour replaced by the id of its edge with the row's vertex: the edge's rank
// among the sorted (low, high) keys, searched among those of its low vertex.
__global__ void finishEdgeRows(int rowCount, const int* rowOffsets, const int* rowVertex,
                               int* rows, int* counts, const int* oldOfNew,
                               const unsigned long long* edgeKeys, const int* edgeFirst,
                               int* overflow) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rowCount)
    return;
  const int n = rowSize(r, rowOffsets, counts, overflow);
  int* row = rows + rowOffsets[r];
  for (int k = 1; k < n; ++k) {
    const int x = row[k], key = oldOfNew[x];
    int j = k;
    for (; j > 0 && oldOfNew[row[j - 1]] > key; --j)
      row[j] = row[j - 1];
    row[j] = x;
  }
  const int self = rowVertex[r];
  for (int k = 0; k < n; ++k) {
    const int lo = min(self, row[k]), hi = max(self, row[k]);
    const unsigned long long key = ((unsigned long long)lo << 32) | (unsigned)hi;
    int e = edgeFirst[lo];
    while (e < edgeFirst[lo + 1] && edgeKeys[e] != key)
      ++e;
    if (e == edgeFirst[lo + 1])
      *overflow = 1; // (every neighbour has its edge: cannot happen)
    row[k] = e;
  }
}

struct VertexKey {
  __host__ __device__ unsigned long long operator()(long long v) const {
    return (unsigned long long)v << 32;
  }
};

// Rows packed densely (offsets from the scan of the counts) for one short copy back.
__global__ void compactRows(int rowCount, const int* rowOffsets, const int* rows,
                            const int* counts, const int* denseOffsets, int* dense) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rowCount)
    return;
  const int* row = rows + rowOffsets[r];
  for (int k = 0; k < counts[r]; ++k)
    dense[denseOffsets[r] + k] = row[k];
}

// The boundary flags of every vertex at once (they are kept whole anyway): each cell's
// facets as (lowest, middle) keys and the third vertex (-1 in 2D), sorted; a facet met
// once is on the boundary, more than twice non-manifold.
__global__ void emitFacets(const int* cells, int arity, long long cellCount,
                           unsigned long long* keys, int* thirds) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= cellCount)
    return;
  int t[4] = {0, 0, 0, INT_MAX};
  for (int k = 0; k < arity; ++k)
    t[k] = cells[c * arity + k];
  for (int i = 1; i < arity; ++i) // ascending (4 values at most)
    for (int j = i; j > 0 && t[j - 1] > t[j]; --j) {
      const int x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  for (int omit = 0; omit < arity; ++omit) {
    int f[3] = {-1, -1, -1};
    for (int k = 0, m = 0; k < arity; ++k)
      if (k != omit)
        f[m++] = t[k];
    keys[c * arity + omit] = ((unsigned long long)f[0] << 32) | (unsigned)f[1];
    thirds[c * arity + omit] = f[2];
  }
}

// One thread per sorted facet; the first of a run of equal facets counts the run.
__global__ void countFacets(long long facetCount, const unsigned long long* keys,
                            const int* thirds, const int* segmentOfNew,
                            unsigned char* vertexFlags, int* nonManifold) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= facetCount)
    return;
  const unsigned long long key = keys[i];
  const int third = thirds[i];
  if (i > 0 && keys[i - 1] == key && thirds[i - 1] == third)
    return;
  long long j = i + 1;
  while (j < facetCount && keys[j] == key && thirds[j] == third)
    ++j;
  const int lowest = int(key >> 32), middle = int(key & 0xffffffffu);
  if (j - i == 1) {
    vertexFlags[lowest] = 1;
    vertexFlags[middle] = 1;
    if (third >= 0)
      vertexFlags[third] = 1;
  } else if (j - i > 2) {
    atomicAdd(nonManifold + segmentOfNew[lowest], 1);
  }
}

// Per cell: its star counts, its own segment (I_T's internal list) and the other
// segments it touches (up to 3, noSegment filling the rest: the external lists) by the
// host's rule (gale::cellSegments), each counted per segment.
__global__ void countCellSegments(const int* cells, int arity, long long cellCount,
                                  const int* segmentOfNew, int noSegment, int* own,
                                  int* others, int* internalCount, int* externalCount,
                                  int* starCount) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= cellCount)
    return;
  const int* cell = cells + c * arity;
  for (int k = 0; k < arity; ++k)
    atomicAdd(starCount + cell[k], 1);
  int mine = 0;
  int seen[3] = {noSegment, noSegment, noSegment};
  const int m = gale::cellSegments(
      cell, arity, [segmentOfNew](int v) { return segmentOfNew[v]; }, mine, seen);
  own[c] = mine;
  atomicAdd(internalCount + mine, 1);
  for (int j = 0; j < m; ++j)
    atomicAdd(externalCount + seen[j], 1);
  for (int j = 0; j < 3; ++j)
    others[c * 3 + j] = seen[j];
}

// Every cell's edges as (low, high) keys.
__global__ void emitEdges(const int* cells, int arity, long long cellCount,
                          unsigned long long* keys) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= cellCount)
    return;
  int t[4] = {0, 0, 0, 0};
  for (int k = 0; k < arity; ++k)
    t[k] = cells[c * arity + k];
  const int pairs = arity * (arity - 1) / 2;
  int at = 0;
  for (int i = 0; i < arity; ++i)
    for (int j = i + 1; j < arity; ++j) {
      const int lo = min(t[i], t[j]), hi = max(t[i], t[j]);
      keys[c * pairs + at++] = ((unsigned long long)lo << 32) | (unsigned)hi;
    }
}

// Sorted unique keys (and third vertices) written as vertex tuples, arity ids each.
__global__ void writeTuples(long long count, const unsigned long long* keys,
                            const int* thirds, int* tuples) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  const int arity = thirds != nullptr ? 3 : 2;
  tuples[i * arity] = int(keys[i] >> 32);
  tuples[i * arity + 1] = int(keys[i] & 0xffffffffu);
  if (thirds != nullptr)
    tuples[i * arity + 2] = thirds[i];
}

__global__ void renumberCells(long long count, const int* newOfOld, int* cells) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < count)
    cells[i] = newOfOld[cells[i]];
}

__global__ void cellOfSlot(long long slots, int perCell, int* cellIds) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < slots)
    cellIds[i] = int(i / perCell);
}

int bitsFor(long long n) {
  int bits = 1;
  while (bits < 62 && (1ll << bits) <= n)
    ++bits;
  return bits;
}

template <typename T> thrust::device_vector<T> upload(const std::vector<T>& host) {
  return thrust::device_vector<T>(host.begin(), host.end());
}
// GALE's 32-bit ids uploaded in place (no host copy: the copy was the GPU producer's
// peak host memory); the rare wide array through a narrowed copy.
thrust::device_vector<int> upload(const IdArray& ids) {
  if (const std::int32_t* narrow = ids.narrowData())
    return thrust::device_vector<int>(narrow, narrow + ids.size());
  std::vector<int> copy(ids.size());
  tbb::parallel_for(std::size_t(0), ids.size(),
                    [&](std::size_t i) { copy[i] = int(ids[i]); });
  return upload(copy);
}
template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> void reserve(thrust::device_vector<T>& v, std::size_t n) {
  if (v.size() < n)
    v.resize(std::max(n, v.size() * 3 / 2));
}

// Page-locked host memory (asynchronous copies), grown as needed.
template <typename T> class Pinned {
public:
  ~Pinned() {
    if (data_ != nullptr)
      cudaFreeHost(data_);
  }
  T* reserve(std::size_t n) {
    if (n > size_) {
      // grown geometrically: each reallocation (cudaFreeHost synchronizes the device)
      // happens a few times per run, not at every larger launch
      const std::size_t grown = std::max<std::size_t>(n, size_ * 3 / 2);
      if (data_ != nullptr)
        cudaFreeHost(data_);
      data_ = nullptr;
      size_ = 0;
      void* p = nullptr;
      cudaCheck(cudaMallocHost(&p, grown * sizeof(T)),
                "GALE GPU producer: pinned memory");
      data_ = static_cast<T*>(p);
      size_ = grown;
    }
    return data_;
  }
  T* get() const { return data_; }

private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// One launch's buffers and stream; a batch alternates two of them, so one launch's
// kernels run while the previous one's rows are copied back and handed out.
struct Slot {
  cudaStream_t stream = nullptr;
  // scanned and copied block the waiting leader (cudaEventBlockingSync) instead of
  // spinning: the consumers use every core
  cudaEvent_t start = nullptr, scanned = nullptr, copied = nullptr;
  thrust::device_vector<int> batch, firstRow, rowOffsets, rowVertex, rows, counts, dense,
      denseOffsets, flags;
  thrust::device_vector<unsigned char> scratch;
  Pinned<int> upload, offsetsBack, denseBack, flagBack;
  std::size_t first = 0, last = 0; // the launch's segments in the batch
  int rowCount = 0;
  bool pending = false;
  ~Slot() {
    if (stream != nullptr)
      cudaStreamDestroy(stream);
    if (start != nullptr)
      cudaEventDestroy(start);
    if (scanned != nullptr)
      cudaEventDestroy(scanned);
    if (copied != nullptr)
      cudaEventDestroy(copied);
  }
};

} // namespace

} // namespace topogpu::gpu
