// The GPU producer's mesh kernels (GaleGpuMesh.cu's alone, hence internal linkage):
// the cells renumbered, I_T's cell lists, the boundary facets, the edge and triangle
// lists.
#pragma once

#include "triangulation/gale/CellSegments.h"

#include <climits>

namespace topogpu::gpu {

namespace {

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

// Vertex v's first possible edge key (v, 0): where its edges as the low vertex start.
struct VertexKey {
  __host__ __device__ unsigned long long operator()(long long v) const {
    return (unsigned long long)v << 32;
  }
};

} // namespace

} // namespace topogpu::gpu
