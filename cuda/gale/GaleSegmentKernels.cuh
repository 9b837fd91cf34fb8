// The GPU producer's segment kernels (GaleGpuLaunch.cu's alone, hence internal
// linkage): Algorithms 1-2 (a segment's VV and star by one warp) and the rows'
// integration on the device (input ids, sorted, VE's edge ids, packed densely).
#pragma once

#include <cstddef>

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
} // namespace

} // namespace topogpu::gpu
